//! The guided attack: draw M3's candidates exactly as [`super::sample::attack`] does (same seeds,
//! same constraints, same duplicate rule), score each distinct valid tuple with a caller's
//! failure model, and keep the `keep` highest. Not an attack of Xie et al.; it ranks the
//! candidates their M3 would draw.
//!
//! The kept variants are numbered by rank (index 0 is the likeliest to break the model), so the
//! first K of them are the guided attack with budget K. Equal scores keep attempt order, and a
//! candidate the model cannot score ranks below every scored one, so the result depends only on
//! the stream and the scores, never on thread count.

use std::cmp::Ordering;

use crate::num::Num;

use super::sample::{each_unique, AttackStats, Attacker, Drawn};

/// One kept candidate and its score.
struct Ranked {
    score: f64,
    drawn: Drawn,
}

/// `a` ranks before `b`: a higher score, or an equal score and an earlier attempt.
fn before(a: (f64, u64), b: (f64, u64)) -> bool {
    match a.0.total_cmp(&b.0) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => a.1 < b.1,
    }
}

/// Run `attempts` attempts from `stream` and keep the `keep` distinct valid tuples `score` ranks
/// highest, best first. `score` sees every slot's value (variable or not) and returns `None` for
/// a tuple it cannot score.
pub fn guided_attack(
    attacker: &Attacker,
    stream: u64,
    attempts: u64,
    keep: usize,
    score: &mut dyn FnMut(&[Num]) -> Option<f64>,
) -> (Vec<Drawn>, AttackStats) {
    let mut kept: Vec<Ranked> = Vec::with_capacity(keep + 1);
    let stats = each_unique(attacker, stream, attempts, |j, seed, scratch, _| {
        if keep == 0 {
            return;
        }
        let s = score(scratch.slots())
            .filter(|s| !s.is_nan())
            .unwrap_or(f64::NEG_INFINITY);
        if kept.len() == keep {
            // The worst kept candidate is the last one; a later attempt with its score loses.
            let worst = &kept[keep - 1];
            if !before((s, j), (worst.score, worst.drawn.attempt)) {
                return;
            }
            kept.pop();
        }
        let at = kept.partition_point(|r| before((r.score, r.drawn.attempt), (s, j)));
        kept.insert(
            at,
            Ranked {
                score: s,
                drawn: Drawn {
                    attempt: j,
                    seed,
                    slots: scratch.slots().to_vec(),
                    answer: attacker.answer(scratch),
                    support: scratch.support(),
                },
            },
        );
    });
    (kept.into_iter().map(|r| r.drawn).collect(), stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attack::sample::{attack, Method};
    use crate::num::wide::Value;
    use crate::program::{validate_program, AlignMode, Links, Program};
    use crate::question::find_slots;
    use crate::seed::draw_seed;

    fn problem() -> (Program, Vec<Num>) {
        let q = "Ann has 48 apples and buys 25 more. How many apples does she have?";
        let src = "def solution():\n    a = 48\n    b = 25\n    return a + b\n";
        let slots = find_slots(q);
        let program = validate_program(
            src,
            q,
            &slots,
            Value::parse_decimal("73"),
            AlignMode::Given,
            Links::DIGITS,
        )
        .expect("program validates");
        (program, slots.iter().map(|s| s.value).collect())
    }

    #[test]
    fn keeps_the_highest_scores_best_first() {
        let (program, values) = problem();
        let attacker = Attacker::new(&program, values, Method::M3, 6).unwrap();
        let answer = |slots: &[Num]| slots[0].to_f64() + slots[1].to_f64();
        let (kept, stats) = guided_attack(&attacker, 7, 500, 5, &mut |s| Some(answer(s)));
        assert_eq!(kept.len(), 5);
        // Every unique candidate of the same stream, as the random attack sees them.
        let (all, random_stats) = attack(&attacker, 7, 500, 500);
        assert_eq!(stats, random_stats);
        let mut sums: Vec<f64> = all.iter().map(|d| answer(&d.slots)).collect();
        sums.sort_by(|a, b| b.total_cmp(a));
        let got: Vec<f64> = kept.iter().map(|d| answer(&d.slots)).collect();
        assert_eq!(got, sums[..5].to_vec());
        for d in &kept {
            assert_eq!(d.seed, draw_seed(7, d.attempt));
        }
    }

    #[test]
    fn ties_keep_attempt_order_and_unscored_rank_last() {
        let (program, values) = problem();
        let attacker = Attacker::new(&program, values, Method::M3, 6).unwrap();
        let (flat, _) = guided_attack(&attacker, 3, 300, 4, &mut |_| Some(1.0));
        let attempts: Vec<u64> = flat.iter().map(|d| d.attempt).collect();
        let mut sorted = attempts.clone();
        sorted.sort();
        assert_eq!(attempts, sorted);
        // Only tuples with an even first number can be scored: they come first.
        let even = |s: &[Num]| s[0].to_f64() as i64 % 2 == 0;
        let (kept, _) = guided_attack(&attacker, 3, 300, 10, &mut |s| even(s).then_some(0.0));
        let flags: Vec<bool> = kept.iter().map(|d| even(&d.slots)).collect();
        let first_odd = flags.iter().position(|e| !e).unwrap_or(flags.len());
        assert!(flags[first_odd..].iter().all(|e| !e), "{flags:?}");
        assert!(first_odd > 0);
    }
}
