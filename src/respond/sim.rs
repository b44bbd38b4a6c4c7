//! Offline models, so the default run and the tests need no network. None is a real LLM: every
//! report marks them as simulated.
//!
//! - `oracle` answers from the solution tree, always right.
//! - `sim-careful`: a rare slip (1% per operation, plus 0.5% per digit of the result).
//! - `sim-carry`: carry slips that grow with the digit count: an operation whose result has d
//!   digits is off by a power of ten with probability 4% x (d - 1).
//! - `sim-divweak`: weak on division: a division, floor division or modulo goes wrong 30% of the
//!   time (it truncates, or is off by one); other operations slip 1% of the time.
//! - `sim-distracted`: punctuation noise hurts: with probability 0.6 x noise level it answers with
//!   a number copied from the question instead of computing.
//!
//! The text attacks move them as GSM-Symbolic and GSM-NoOp found real models move:
//!
//! - renamed people (`names`): every `sim-*` model slips 2% more often per operation;
//! - a no-op sentence (`noop`): `sim-distracted` subtracts its number from the answer half the
//!   time, every other `sim-*` model one time in ten (GSM-NoOp's failure: the reply is the gold
//!   minus the distractor). The oracle is never moved.
//!
//! On a question a needed number was taken out of (`missing`) the oracle says it cannot be
//! answered; `sim-careful` says so 60% of the time, `sim-carry` and `sim-divweak` 30%,
//! `sim-distracted` 10%, and otherwise each solves it with the number it was never told (GSM-Plus
//! found real models rarely notice).
//!
//! Each writes a chain of thought ("step 1: 40 * 3 = 120.") ending in "the answer is X", with
//! the error drawn from a seed keyed by (model, variant), so reruns are identical.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::num::{pow10, Num};
use crate::program::{BinOp, Node, Program};
use crate::seed::{fnv1a, mix};

use crate::vocab::{Attack, Family, ORACLE, SIMULATED_MODELS};

/// What a simulated model sees of a variant besides its numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seen {
    /// Punctuation noise, percent of the words.
    pub noise_level: i32,
    /// The question's people were renamed.
    pub renamed: bool,
    /// The number of a no-op sentence in the question.
    pub distractor: Option<Num>,
    /// A number the answer needs was taken out of the question.
    pub withheld: bool,
}

/// Whether a variant's question has no answer: its attack (the id's middle part) took a needed
/// number out.
pub fn withheld(variant_id: &str) -> bool {
    variant_id
        .rsplit('/')
        .nth(1)
        .and_then(Attack::of)
        .is_some_and(|a| !a.answerable())
}

/// How often each model says that a question with a number taken out cannot be answered.
fn notices_missing(model: &str) -> f64 {
    match model {
        ORACLE => 1.0,
        "sim-careful" => 0.6,
        "sim-carry" | "sim-divweak" => 0.3,
        _ => 0.1,
    }
}

/// Whether a variant's people were renamed: its attack (the id's middle part) has `names`.
pub fn renamed(variant_id: &str) -> bool {
    variant_id
        .rsplit('/')
        .nth(1)
        .and_then(Attack::of)
        .is_some_and(|a| a.has(Family::Names))
}

/// A simulated answer: the text, for a variant's numbers and what else the model sees of it.
pub fn simulate(
    model: &str,
    variant_id: &str,
    program: &Program,
    slots: &[Num],
    seen: &Seen,
) -> Option<String> {
    let noise_level = seen.noise_level;
    if !SIMULATED_MODELS.contains(&model) {
        return None;
    }
    let mut rng =
        Pcg64Mcg::seed_from_u64(mix(fnv1a(model.as_bytes()) ^ fnv1a(variant_id.as_bytes())));
    let mut values = vec![Num::ZERO; program.nodes.len()];
    let mut text = String::from("Let's solve it step by step.\n");
    // Drawn only then, so that the replies to every other variant stay as they were.
    if seen.withheld && rng.random_bool(notices_missing(model)) {
        text.push_str(
            "The question does not give one of the numbers the answer needs, so the answer \
             cannot be determined.",
        );
        return Some(text);
    }
    if model == "sim-distracted"
        && rng.random_bool((0.6 * noise_level as f64 / 100.0).min(1.0))
        && !slots.is_empty()
    {
        let pick = slots[rng.random_range(0..slots.len())];
        text.push_str(&format!(
            "The question mentions {pick}, so the answer is {pick}."
        ));
        return Some(text);
    }
    let mut step = 0;
    for i in 0..program.nodes.len() {
        let mut v = match program.eval_node(i, slots, &values) {
            Ok(v) => v,
            Err(_) => {
                text.push_str("This cannot be computed, so the answer is unknown.");
                return Some(text);
            }
        };
        let op = match &program.nodes[i] {
            Node::Bin { op, .. } => Some(*op),
            Node::Neg { .. } | Node::Call { .. } => None,
            _ => {
                values[i] = v;
                continue;
            }
        };
        let digits = v.int_digits() as f64;
        let slip = match (model, op) {
            ("oracle", _) => false,
            ("sim-careful", _) => rng.random_bool((0.01 + 0.005 * digits).min(1.0)),
            ("sim-carry", Some(BinOp::Add | BinOp::Sub | BinOp::Mul)) => {
                rng.random_bool((0.04 * (digits - 1.0)).clamp(0.0, 1.0))
            }
            ("sim-divweak", Some(BinOp::Div | BinOp::FloorDiv | BinOp::Mod)) => {
                rng.random_bool(0.3)
            }
            ("sim-divweak", _) | ("sim-distracted", _) => rng.random_bool(0.01),
            _ => false,
        };
        // Unfamiliar names cost a little attention (drawn only then, so that the replies to
        // every other variant stay as they were).
        let slip = slip || (seen.renamed && model != "oracle" && rng.random_bool(0.02));
        if slip {
            v = if matches!(op, Some(BinOp::Div | BinOp::FloorDiv | BinOp::Mod))
                && rng.random_bool(0.5)
            {
                v.trunc().sub(Num::ONE).unwrap_or(v)
            } else {
                let k = rng.random_range(0..(digits as u32).max(1));
                let delta = Num::int(pow10(k));
                if rng.random_bool(0.5) {
                    v.add(delta)
                } else {
                    v.sub(delta)
                }
                .unwrap_or(v)
            };
        }
        values[i] = v;
        step += 1;
        let shown = describe(program, i, &values);
        text.push_str(&format!("Step {step}: {shown} = {v}.\n"));
    }
    let mut answer = values[program.answer as usize];
    if let Some(k) = seen.distractor.filter(|_| model != "oracle") {
        let p = if model == "sim-distracted" { 0.5 } else { 0.1 };
        if rng.random_bool(p) {
            let less = answer.sub(k).unwrap_or(answer);
            text.push_str(&format!(
                "But {k} of them do not count: {answer} - {k} = {less}.\n"
            ));
            answer = less;
        }
    }
    text.push_str(&format!("So the answer is {answer}."));
    Some(text)
}

fn describe(program: &Program, i: usize, values: &[Num]) -> String {
    match &program.nodes[i] {
        Node::Bin { op, lhs, rhs } => format!(
            "{} {} {}",
            values[*lhs as usize],
            op.symbol(),
            values[*rhs as usize]
        ),
        Node::Neg { arg } => format!("-({})", values[*arg as usize]),
        Node::Call { func, args } => format!(
            "{}({})",
            func.python_name(),
            args.iter()
                .map(|a| values[*a as usize].to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;
    use crate::program::{validate_program, AlignMode, Links};
    use crate::question::find_slots;

    #[test]
    fn oracle_is_right_and_sims_are_reproducible() {
        let q = "A shop sells 1234 pens at $56 each and splits the money among 8 owners.";
        let slots = find_slots(q);
        let p = validate_program(
            "t = 1234 * 56\nprint(t / 8)",
            q,
            &slots,
            crate::num::wide::Value::parse_decimal("8638"),
            AlignMode::Given,
            Links::DIGITS,
        )
        .unwrap();
        let nums: Vec<Num> = slots.iter().map(|s| s.value).collect();
        let text = simulate("oracle", "v/1", &p, &nums, &Seen::default()).unwrap();
        assert_eq!(extract(&text).value, Some(Num::int(8638)), "{text}");
        let mut wrong = 0;
        for i in 0..200 {
            let id = format!("v/{i}");
            let a = simulate("sim-carry", &id, &p, &nums, &Seen::default()).unwrap();
            assert_eq!(
                a,
                simulate("sim-carry", &id, &p, &nums, &Seen::default()).unwrap()
            );
            if extract(&a).value != Some(Num::int(8638)) {
                wrong += 1;
            }
        }
        // 5-digit product: 16% slip rate on it, 12% on the 4-digit quotient: about a quarter wrong.
        assert!((20..=100).contains(&wrong), "{wrong}");
        assert!(simulate("gpt-4", "v/1", &p, &nums, &Seen::default()).is_none());
    }

    #[test]
    fn a_no_op_number_is_subtracted_by_the_distracted_model_and_never_by_the_oracle() {
        let q = "Ann picks 44 kiwis and 58 more. Five of the kiwis were small. How many?";
        let slots = find_slots(q);
        let p = validate_program(
            "print(44 + 58)",
            q,
            &slots,
            crate::num::wide::Value::parse_decimal("102"),
            AlignMode::Given,
            Links::DIGITS,
        )
        .unwrap();
        let nums: Vec<Num> = slots.iter().map(|s| s.value).collect();
        let seen = Seen {
            distractor: Some(Num::int(5)),
            ..Default::default()
        };
        let used = |model: &str| {
            (0..400)
                .filter(|i| {
                    let id = format!("p/noop/{i}");
                    let text = simulate(model, &id, &p, &nums, &seen).unwrap();
                    extract(&text).value == Some(Num::int(97))
                })
                .count()
        };
        assert_eq!(used("oracle"), 0);
        assert!(
            (150..=250).contains(&used("sim-distracted")),
            "{}",
            used("sim-distracted")
        );
        assert!(
            (15..=70).contains(&used("sim-careful")),
            "{}",
            used("sim-careful")
        );
        assert!(renamed("gsm8k/test/3/m3+names/7") && !renamed("gsm8k/test/3/noop/0"));
    }

    #[test]
    fn on_a_question_with_no_answer_the_oracle_abstains_and_the_others_sometimes() {
        let q = "A shop sells 12 pens at $5 each. How much money does it make?";
        let slots = find_slots(q);
        let p = validate_program(
            "print(12 * 5)",
            q,
            &slots,
            crate::num::wide::Value::parse_decimal("60"),
            AlignMode::Given,
            Links::DIGITS,
        )
        .unwrap();
        let nums: Vec<Num> = slots.iter().map(|s| s.value).collect();
        let seen = Seen {
            withheld: true,
            ..Seen::default()
        };
        assert!(withheld("gsm8k/test/3/m3+missing/0") && !withheld("gsm8k/test/3/m3/0"));
        let abstained = |model: &str| {
            (0..200)
                .filter(|i| {
                    let reply = simulate(model, &format!("v/{i}"), &p, &nums, &seen).unwrap();
                    crate::extract::abstains(&reply).is_some()
                })
                .count()
        };
        assert_eq!(abstained("oracle"), 200);
        let careful = abstained("sim-careful");
        assert!((90..150).contains(&careful), "{careful}");
        assert!(abstained("sim-distracted") < careful);
    }
}
