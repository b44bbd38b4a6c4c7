//! Runs the `names` and `noop` text attacks over a JSON Lines file of `{"question"}` rows and
//! prints, per attack, how many questions got a variant and why the others did not; with
//! `--show N`, the first N variants of each, for reading by hand; with `SHOW_REFUSED=<reason>`
//! in the environment, every question refused for that reason.
//!
//! `cargo run -p advmath-core --example text_attacks -- ../shared/data/gsm8k/test.jsonl --show 5`

use std::collections::BTreeMap;

use advmath_core::attack::text::{names::rename, noop::insert_noop};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .expect("usage: text_attacks FILE.jsonl [--show N]");
    let show: usize = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(0);
    let refused_to_show = std::env::var("SHOW_REFUSED").unwrap_or_default();
    let text = std::fs::read_to_string(path).expect("readable file");
    let mut tally: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    for (line, row) in text.lines().enumerate() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(row) else {
            continue;
        };
        let Some(q) = value.get("question").and_then(|q| q.as_str()) else {
            continue;
        };
        let seed = line as u64;
        let outcomes: [(&str, Result<String, &str>); 2] = [
            (
                "names",
                rename(q, seed)
                    .map(|r| format!("{:?}\n  {q}\n  {}", r.swaps, r.text))
                    .map_err(|e| e.name()),
            ),
            (
                "noop",
                insert_noop(q, seed)
                    .map(|n| format!("({}): {}", n.number, n.text))
                    .map_err(|e| e.name()),
            ),
        ];
        for (attack, outcome) in outcomes {
            match outcome {
                Ok(made) => {
                    *tally.entry((attack, "made")).or_default() += 1;
                    let count = shown.entry(attack).or_default();
                    if *count < show {
                        *count += 1;
                        println!("{attack} {line}: {made}");
                    }
                }
                Err(reason) => {
                    if reason == refused_to_show {
                        println!("refused {line}: {q}");
                    }
                    *tally.entry((attack, reason)).or_default() += 1;
                }
            }
        }
    }
    for ((attack, what), n) in tally {
        println!("{attack}\t{what}\t{n}");
    }
}
