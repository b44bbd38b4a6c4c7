//! The readings of a published program that writes a number of the question more often than the
//! question does (`polish_flights * 2` for "half the number of trips" beside "2 planes"; `/ 60`
//! for minutes in an hour beside "60% charged"; "$.5 each" for peaches and pears read twice).
//!
//! The paper's counting rule refuses such a program. A model writing a solution repeats a value
//! for reasons the text gives elsewhere, so advmath enumerates which of its literals are the
//! question's occurrences (each read exactly once, as the paper's rule has it) and which are a
//! constant the question names without its digits (a number word such as "half" or "twice", a
//! unit constant whose unit it mentions). Every correspondence that passes the checks of a given
//! program is a reading; readings that compute the same function of the numbers (on the
//! distinguishing draws) are one. The judge of published programs keeps a candidate with several
//! readings only where a program of another source confirms exactly one of them.
//!
//! An extra literal the question names nothing for stays refused, even where reading one
//! occurrence twice looks natural ("peaches and pears are $.5 each"): the blind audit of this rule
//! found two models that wrote `2 * 2` for "each of them rode the luge 2 times" (Pam and Fred,
//! two people the text never counts) and two that counted "2 shelves" included as shelves
//! Angela has; reading the question's 2 twice ties those quantities, and every variant's gold
//! was wrong. A value the program writes less often than the question is not read either: the
//! occurrence it skips may be another quantity that happens to be equal.

use super::{
    finish_checked, link_counts, lower_with, named_constant, parse_and_pick, roles_with, Mismatch,
    Res, Role,
};
use crate::num::wide::Value;
use crate::program::links::UNIT_CONSTANTS;
use crate::program::links::{AlignMode, Links};
use crate::program::readings::agree;
use crate::program::tree::{ConstKind, Program};

use crate::question::Slot;

/// The most correspondences enumerated for one program; past it the program stays refused.
const MAX_CORRESPONDENCES: usize = 512;

/// A published program validated as a given program is, or, when only the paper's counting rule
/// refuses it because it writes some values more often than the question, its distinct readings
/// (see the module's summary), in enumeration order. One reading when the rule holds.
pub fn validate_published(
    source: &str,
    question: &str,
    slots: &[Slot],
    gold: Option<Value>,
    links: Links,
) -> Res<Vec<Program>> {
    // Parsed once: the paper's counting rule first, the readings only where it alone refuses.
    let (body, literals, pick) = parse_and_pick(source, gold.as_ref())?;
    let literals = &literals;
    let (linked, mismatched) = link_counts(literals, question, slots, AlignMode::Given, links);
    let Some(first) = mismatched.first() else {
        let roles = roles_with(literals, question, slots, AlignMode::Given, links, &linked)?;
        let (builder, answer) = lower_with(source, &body, &roles, pick)?;
        return finish_checked(builder, answer, slots, question, links).map(|p| vec![p]);
    };
    let strict = first.error();
    // Only values written more often than the question writes them have readings.
    if mismatched.iter().any(|m| m.literals < m.positions.len()) {
        return Err(strict);
    }
    let base = roles_with(literals, question, slots, AlignMode::Given, links, &linked)?;
    let Some(choices) = choices(literals, question, &mismatched) else {
        return Err(strict);
    };
    let Some(assignments) = assignments(&choices, &mismatched) else {
        return Err(strict);
    };
    let originals: Vec<_> = slots.iter().map(|s| s.value).collect();
    let mut readings: Vec<Program> = Vec::new();
    for assignment in assignments {
        let mut roles = base.clone();
        for ((ordinal, _), role) in choices.iter().zip(assignment) {
            roles[*ordinal] = role;
        }
        let Ok((builder, answer)) = lower_with(source, &body, &roles, pick) else {
            continue;
        };
        let Ok(program) = finish_checked(builder, answer, slots, question, links) else {
            continue;
        };
        if !readings.iter().any(|r| agree(r, &program, &originals)) {
            readings.push(program);
        }
    }
    if readings.is_empty() {
        return Err(strict);
    }
    Ok(readings)
}

/// For each literal of a mismatched value (by ordinal), what it may be: each occurrence of its
/// value in the question, or the constant the question names; `None` when the question names
/// none for some value (its extra literals have no reading).
fn choices(
    literals: &[crate::num::Num],
    question: &str,
    mismatched: &[Mismatch],
) -> Option<Vec<(usize, Vec<Role>)>> {
    literals
        .iter()
        .enumerate()
        .filter_map(|(ordinal, v)| {
            let key = crate::program::tree::num_text::to_text(v);
            let m = mismatched.iter().find(|m| m.key == key)?;
            let mut roles: Vec<Role> = m.positions.iter().map(|&p| Role::Leaf(p)).collect();
            let Some(kind) = named_for_reading(*v, question) else {
                return Some(None);
            };
            roles.push(Role::Const(kind));
            Some(Some((ordinal, roles)))
        })
        .collect()
}

/// The constant an extra literal may be: a number word of the question, or a unit constant whose
/// unit the question names as a word. The unit constants a synthesised program may use anywhere
/// (60, 24, 12, 100, 1000) need their unit in the text here: "60 people" on "the second day" and
/// three more days are not an hour's minutes.
fn named_for_reading(value: crate::num::Num, question: &str) -> Option<ConstKind> {
    // Whole words, so that "the second day" names no seconds.
    const UNITS: &[(i128, &[&str])] = &[
        (60, &["hour", "hours", "minute", "minutes", "seconds"]),
        (24, &["hour", "hours"]),
        (
            12,
            &[
                "month", "months", "year", "years", "inch", "inches", "foot", "feet", "dozen",
            ],
        ),
        (100, &["percent", "cent", "cents"]),
        (
            1000,
            &[
                "gram",
                "grams",
                "meter",
                "meters",
                "kilogram",
                "kilograms",
                "kilometer",
                "kilometers",
                "liter",
                "liters",
            ],
        ),
    ];
    let kind = named_constant(value, question)?;
    let ConstKind::Unit(_) = kind else {
        return Some(kind);
    };
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .collect();
    let named = UNIT_CONSTANTS.iter().any(|(v, _, units)| {
        !units.is_empty()
            && crate::num::Num::parse_decimal(v).is_some_and(|u| u.eq_num(value))
            && units.iter().any(|u| words.iter().any(|w| w.starts_with(u)))
    }) || UNITS.iter().any(|(v, units)| {
        value.as_integer() == Some(*v) && units.iter().any(|u| words.contains(u))
    }) || (value.as_integer() == Some(100) && question.contains('%'));
    named.then_some(kind)
}

/// Every choice of one role per literal that reads each occurrence of every mismatched value
/// exactly once (the rest being the named constant); `None` when there are more than
/// [`MAX_CORRESPONDENCES`] to look at.
fn assignments(choices: &[(usize, Vec<Role>)], mismatched: &[Mismatch]) -> Option<Vec<Vec<Role>>> {
    let mut total: usize = 1;
    for (_, roles) in choices {
        total = total.checked_mul(roles.len())?;
        if total > MAX_CORRESPONDENCES {
            return None;
        }
    }
    let mut out = Vec::new();
    let mut at = vec![0usize; choices.len()];
    for _ in 0..total {
        let picked: Vec<Role> = choices
            .iter()
            .zip(&at)
            .map(|((_, roles), &k)| roles[k].clone())
            .collect();
        let covers = mismatched.iter().all(|m| {
            m.positions
                .iter()
                .all(|p| picked.iter().filter(|r| **r == Role::Leaf(*p)).count() == 1)
        });
        if covers {
            out.push(picked);
        }
        for (i, (_, roles)) in choices.iter().enumerate() {
            at[i] += 1;
            if at[i] < roles.len() {
                break;
            }
            at[i] = 0;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::ErrorKind;
    use crate::question::find_slots;

    fn readings(question: &str, program: &str, gold: &str) -> Res<Vec<Program>> {
        validate_published(
            program,
            question,
            &find_slots(question),
            Value::parse_decimal(gold),
            Links::DIGITS,
        )
    }

    #[test]
    fn a_unit_constant_of_the_same_value_is_one_of_the_readings() {
        let q = "The phone charges 1 percentage-point per 3 minutes. Now it is 60% charged. How long until it is full, in hours?";
        let p = "current = 60\nrate = 1 / 3\nt = (100 - current) / rate\nprint(t / 60)";
        let got = readings(q, p, "2").unwrap();
        // The program alone does not show which 60 is the hour's minutes: the reading where the
        // 60% varies and the hour does not is one of several, for a second program to pick.
        assert!(got.len() > 1, "{got:?}");
        let slots = find_slots(q);
        let sixty = slots
            .iter()
            .position(|s| s.value.eq_num(crate::num::Num::int(60)))
            .unwrap() as u32;
        let right = |r: &Program| {
            let leaves: Vec<_> = r
                .nodes
                .iter()
                .filter(|n| matches!(n, crate::program::Node::Leaf { slot } if *slot == sixty))
                .collect();
            let hour = r.nodes.last().is_some_and(|n| matches!(n, crate::program::Node::Bin { rhs, .. }
                if matches!(r.nodes[*rhs as usize], crate::program::Node::Const { kind: crate::program::ConstKind::Unit(_), .. })));
            leaves.len() == 1 && hour
        };
        assert_eq!(got.iter().filter(|r| right(r)).count(), 1, "{got:?}");
    }

    #[test]
    fn an_extra_literal_the_question_names_nothing_for_stays_refused() {
        // Pam and Fred are two people the text never counts: reading the luge's 2 twice would tie
        // the rides to the riders.
        let q = "Pam rode the roller coaster 2 times while Fred rode it 4 times. Then each of them rode the luge 2 times. If each ride cost 6 tickets, how many tickets did they use?";
        let p = "coaster = 2 + 4\nluge = 2 * 2\nprint((coaster + luge) * 6)";
        let err = readings(q, p, "60").unwrap_err();
        assert_eq!(err.kind, ErrorKind::NumberMisalignment, "{err:?}");
        let q =
            "Peaches and pears are $.5 each. He buys 3 peaches and 4 pears. How much does he pay?";
        let p = "peach = 0.5\npear = 0.5\nprint(3 * peach + 4 * pear)";
        assert!(readings(q, p, "3.5").is_err());
    }

    #[test]
    fn a_word_that_names_the_value_too_gives_two_readings() {
        // Which 2 is the question's "2 hours" and which the "half" is not written anywhere.
        let q = "Jim chews 1 piece for every 2 hours of an 8 hour day and gives half of the rest of his 20 pieces away. How many are left?";
        let p = "chewed = 8 * (1 / 2)\nleft = (20 - chewed) / 2\nprint(left)";
        let got = readings(q, p, "8").unwrap();
        assert!(got.len() > 1, "{got:?}");
    }

    #[test]
    fn a_unit_constant_needs_its_unit_in_the_text() {
        // Three more days of 60 people are not an hour's minutes.
        let q = "He saw 50 people on the first day, 20 on the second day and an average of 60 people each day on the rest of the 4 days. How many people did he see?";
        let p = "print(50 + 20 + 60 + 60 + 60 + 60)";
        assert!(readings(q, p, "310").is_err());
    }

    #[test]
    fn a_value_written_less_often_than_the_question_stays_refused() {
        let q = "Ann eats 30 grapes a day for 30 days. How many grapes does she eat?";
        let err = readings(q, "print(30 ** 2)", "900").unwrap_err();
        assert_eq!(err.kind, ErrorKind::NumberMisalignment, "{err:?}");
    }
}
