//! How far any guide could take the guided attack against `sim-carry` (`reports/guided_attack.md`):
//! on the held-out problems of a guided split, the expected ASR of random M3 with K variants and
//! of an oracle guide that ranks M3's candidates by `sim-carry`'s own slip probability, with K'
//! variants. `sim-carry` slips on a `+`, `-` or `*` whose result has d digits with probability
//! 0.04 (d - 1); a variant's failure probability is taken as 1 - prod(1 - p) over those steps
//! (a slip changes the answer; later steps are taken at their true values). The expectation is
//! over the model's draws only, on the problems whose original it answers right with certainty
//! 0.9 or more, so it is a bound on what learning can find, not a measurement.
//!
//! ```sh
//! cargo run --example guided_bound -- <tables> [train_share] [split_seed]
//! ```

use std::path::PathBuf;

use advmath::attack::guided::guided_attack;
use advmath::attack::sample::{attack, Attacker, Method};
use advmath::generate::guided::GuidedConfig;
use advmath::num::Num;
use advmath::program::{BinOp, Node, Program};
use advmath::question::find_slots;
use advmath::question::shown::text_constraints;
use advmath::seed::stream_key;
use advmath::store::problems::read_problems;

/// sim-carry's chance of answering these slot values wrongly.
fn failure(program: &Program, slots: &[Num]) -> Option<f64> {
    let mut values = vec![Num::ZERO; program.nodes.len()];
    program.eval_into(slots, &mut values).ok()?;
    let mut survive = 1.0;
    for (node, v) in program.nodes.iter().zip(&values) {
        if let Node::Bin {
            op: BinOp::Add | BinOp::Sub | BinOp::Mul,
            ..
        } = node
        {
            survive *= 1.0 - (0.04 * (v.int_digits() as f64 - 1.0)).clamp(0.0, 1.0);
        }
    }
    Some(1.0 - survive)
}

/// The chance that at least one of these variants is answered wrongly.
fn broken(program: &Program, variants: &[Vec<Num>]) -> f64 {
    1.0 - variants
        .iter()
        .map(|s| 1.0 - failure(program, s).unwrap_or(0.0))
        .product::<f64>()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tables = PathBuf::from(
        args.first()
            .expect("usage: guided_bound <tables> [train_share] [split_seed]"),
    );
    let mut split = GuidedConfig::new("sim-carry");
    if let Some(s) = args.get(1) {
        split.train_share = s.parse()?;
    }
    if let Some(s) = args.get(2) {
        split.split_seed = s.parse()?;
    }
    let (seed, attempts) = (42, 30_000);
    let ks = [1usize, 5, 10, 20];
    println!("| dataset | problems | K | random M3 | oracle guide |");
    println!("|---|---:|---:|---:|---:|");
    let records = read_problems(&tables)?;
    for dataset in ["xie2024-gsm8k", "xie2024-multiarith"] {
        let mut sums = vec![(0.0, 0.0); ks.len()];
        let mut n = 0;
        for p in records
            .iter()
            .filter(|p| p.dataset == dataset && p.is_valid() && !split.is_training(&p.problem_id))
        {
            let tree = p.tree.as_ref().expect("a valid problem has a tree");
            let originals = p.slot_nums();
            if failure(tree, &originals).is_none_or(|f| f > 0.1) {
                continue;
            }
            let slots = find_slots(&p.question);
            let Ok(attacker) = Attacker::new(tree, originals, Method::M3, 6) else {
                continue;
            };
            let attacker = attacker.with_text_constraints(&text_constraints(&p.question, &slots));
            let id = &p.problem_id;
            let (random, _) = attack(&attacker, stream_key(seed, id, "m3"), attempts, 20);
            let (oracle, _) = guided_attack(
                &attacker,
                stream_key(seed, id, "guided"),
                attempts,
                20,
                &mut |s| failure(tree, s),
            );
            if random.len() < 20 || oracle.len() < 20 {
                continue;
            }
            n += 1;
            let slots_of = |d: &[advmath::attack::sample::Drawn], k: usize| -> Vec<Vec<Num>> {
                d[..k].iter().map(|d| d.slots.clone()).collect()
            };
            for (sum, &k) in sums.iter_mut().zip(&ks) {
                sum.0 += broken(tree, &slots_of(&random, k));
                sum.1 += broken(tree, &slots_of(&oracle, k));
            }
        }
        for ((r, o), k) in sums.iter().zip(ks) {
            println!(
                "| {dataset} | {n} | {k} | {:.3} | {:.3} |",
                r / n.max(1) as f64,
                o / n.max(1) as f64
            );
        }
    }
    Ok(())
}
