//! The readings of a question that a program could link more than one way (the paper's appendix
//! H.4), decided before a single variant is drawn.
//!
//! - A number written in digits more than once ("125 chimichangas on Tuesdays, 125 on Wednesdays
//!   and twice as many on Friday"): every correspondence between the program's uses of it and the
//!   question's occurrences is evaluated on distinguishing numbers, and the equivalent ones merge
//!   (the paper's "Mary has 5 apples and 5 oranges"). When more than one reading is left, the
//!   occurrences are tied to one new value, so that every reading of the variant has the same
//!   gold answer and the text stays consistent; a value the program also uses as a constant keeps
//!   all its occurrences constant instead.
//! - A number the question writes more often than the program uses it (the third case of H.4:
//!   "12 racquets ... 3 of them ... 5 of them ... 4 of them" with a program that never reads 12)
//!   removes the problem: the ignored number could depend on the others.
//! - A number that defines a unit ("7 days a week", "a normal 30 day month") stays constant, as
//!   the paper makes "one year" a constant 365, unless [`Links::unit_lengths`] asks for the
//!   paper's own behaviour.
//! - A stated 1 that multiplies or divides ("4 miles * 1 mph"): on the original numbers `x * 1`
//!   and `x / 1` agree, so the solution cannot show which the question means; it stays constant
//!   (a fraction's "1/4" is not such a 1: its slash says what it does), unless
//!   [`Links::factor_ones`] asks for the paper's own behaviour.
//! - A stated half that multiplies or divides ("1/2 the cars had gone", "50% off"): on the
//!   original numbers `x * 1/2` and `x * (1 - 1/2)` agree, so the solution cannot show whether it
//!   means the part or its complement; it stays constant unless [`Links::halves`] asks for the
//!   paper's own behaviour.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::links::Links;
use super::tree::{num_text, ConstKind, Node, NodeId, Program, Tie};
use super::{ErrorKind, ProgramError};
use crate::num::wide::Value;
use crate::num::Num;
use crate::question::{is_percentage, Slot};

type Res<T> = std::result::Result<T, ProgramError>;

/// How many sets of distinguishing numbers two readings are compared on.
const DRAWS: u64 = 4;
/// The most readings of one repeated value enumerated; past it the occurrences are tied without
/// looking (a tie is right whatever the readings say).
const MAX_READINGS: usize = 720;

/// Numbers for every slot, all different from each other, that keep each original's kind (an
/// integer stays an integer, a proper fraction stays proper): two readings that give the same
/// answers on several of them are one reading.
pub fn distinguishing_draws(originals: &[Num]) -> Vec<Vec<Num>> {
    (0..DRAWS)
        .map(|k| {
            let mut rng = Pcg64Mcg::seed_from_u64(0x4834_5f72_6561_6400 ^ k);
            let mut out: Vec<Num> = Vec::with_capacity(originals.len());
            for &o in originals {
                loop {
                    let v = if o.is_integer() || !o.is_exact() {
                        Num::int(rng.random_range(2..10_000))
                    } else if o.is_proper_fraction() {
                        Num::ratio(rng.random_range(1..97), 97).expect("a nonzero denominator")
                    } else {
                        Num::ratio(rng.random_range(9..80_000), 8).expect("a nonzero denominator")
                    };
                    if !out.iter().any(|x| x.eq_num(v)) {
                        out.push(v);
                        break;
                    }
                }
            }
            out
        })
        .collect()
}

/// The program's answers on each draw, as comparable text (an error is an outcome too).
pub fn answers_on(program: &Program, draws: &[Vec<Num>]) -> Vec<String> {
    draws.iter().map(|d| answer_on(program, d)).collect()
}

/// Whether two programs of one question compute the same answer on every set of distinguishing
/// numbers (with `a`'s ties applied to each draw): programs written independently that agree there
/// compute the same function of the numbers a variant changes, so either gives each variant's
/// gold. An error is an outcome too: both must fail alike.
pub fn agree(a: &Program, b: &Program, originals: &[Num]) -> bool {
    distinguishing_draws(originals).iter().all(|draw| {
        let mut draw = draw.clone();
        a.apply_ties(&mut draw);
        answer_on(a, &draw) == answer_on(b, &draw)
    })
}

/// The program's answer on one draw, as comparable text.
fn answer_on(program: &Program, draw: &[Num]) -> String {
    let mut slots = draw.to_vec();
    program.apply_ties(&mut slots);
    match program.eval_value(&slots) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// The leaf nodes that read one of `slots`.
fn leaves_of(program: &Program, slots: &[u32]) -> Vec<NodeId> {
    program
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n, Node::Leaf { slot } if slots.contains(slot)))
        .map(|(i, _)| i as NodeId)
        .collect()
}

/// `program` with use `uses[i]` reading occurrence `group[reading[i]]`.
fn read_as(program: &Program, uses: &[NodeId], group: &[u32], reading: &[usize]) -> Program {
    let mut p = program.clone();
    for (&u, &k) in uses.iter().zip(reading) {
        p.nodes[u as usize] = Node::Leaf { slot: group[k] };
    }
    p
}

mod constants;

use constants::{keep_factor_ones, keep_halves, keep_reused_once_stated, keep_unit_lengths};

/// Unit lengths constant, repeated numbers settled (then see [`require_every_number_used`]).
pub fn settle(mut program: Program, slots: &[Slot], question: &str, links: Links) -> Program {
    if !links.unit_lengths {
        keep_unit_lengths(&mut program, slots, question);
    }
    if !links.factor_ones {
        keep_factor_ones(&mut program, slots, question);
    }
    // After the reused constants: a percentage's `/ 100` must be the constant it is, not a
    // question's 100 that the draws would vary.
    keep_reused_once_stated(&mut program, slots, question);
    if !links.halves {
        keep_halves(&mut program, slots, question);
    }
    settle_repeated(&mut program, slots, question);
    program
}

/// The digit slots of each value the question writes more than once, in slot order.
fn repeated_values(slots: &[Slot]) -> BTreeMap<u32, Vec<u32>> {
    let mut by_value: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (i, s) in slots.iter().enumerate().filter(|(_, s)| !s.word) {
        by_value
            .entry(num_text::to_text(&s.value))
            .or_default()
            .push(i as u32);
    }
    by_value
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|g| (g[0], g))
        .collect()
}

fn settle_repeated(program: &mut Program, slots: &[Slot], question: &str) {
    let draws = distinguishing_draws(&slots.iter().map(|s| s.value).collect::<Vec<_>>());
    for (leader, group) in repeated_values(slots) {
        let uses = leaves_of(program, &group);
        if uses.is_empty() {
            continue;
        }
        let value = slots[leader as usize].value;
        let also_constant = program.nodes.iter().any(|n| {
            matches!(n, Node::Const { value: v, kind: ConstKind::Literal | ConstKind::Stated(_) } if v.eq_num(value))
        });
        if also_constant {
            // A constant of the same value may stand for one of the occurrences: only keeping
            // them all is right whatever it stands for.
            let shown = slots[leader as usize].written_in(question);
            for &u in &uses {
                program.nodes[u as usize] = Node::Const {
                    value,
                    kind: ConstKind::Stated(shown.to_string()),
                };
            }
            continue;
        }
        if !one_reading(program, &uses, &group, &draws) {
            tie(program, &uses, leader, &group);
        }
    }
}

/// Do all correspondences of the uses to the occurrences give the same answers?
fn one_reading(program: &Program, uses: &[NodeId], group: &[u32], draws: &[Vec<Num>]) -> bool {
    let readings = readings(uses.len(), group.len());
    let Some(readings) = readings else {
        return false;
    };
    let mut first: Option<Vec<String>> = None;
    for reading in readings {
        let got = answers_on(&read_as(program, uses, group, &reading), draws);
        match &first {
            None => first = Some(got),
            Some(f) if *f != got => return false,
            Some(_) => {}
        }
    }
    true
}

/// Every assignment of `uses` uses to `occurrences` occurrences that reads each occurrence at
/// least once when there are enough uses (a bijection when the counts agree, as in the paper),
/// or `None` when there are too many to enumerate.
fn readings(uses: usize, occurrences: usize) -> Option<Vec<Vec<usize>>> {
    let total = (occurrences as u64).checked_pow(uses as u32)?;
    if total > 50_000 {
        return None;
    }
    let mut out = Vec::new();
    let mut current = vec![0usize; uses];
    loop {
        let covers = uses < occurrences || (0..occurrences).all(|k| current.contains(&k));
        if covers {
            out.push(current.clone());
            if out.len() > MAX_READINGS {
                return None;
            }
        }
        let mut i = 0;
        loop {
            if i == uses {
                return Some(out);
            }
            current[i] += 1;
            if current[i] < occurrences {
                break;
            }
            current[i] = 0;
            i += 1;
        }
    }
}

/// Every use reads the leader, and every other occurrence shows the leader's value.
fn tie(program: &mut Program, uses: &[NodeId], leader: u32, group: &[u32]) {
    for &u in uses {
        program.nodes[u as usize] = Node::Leaf { slot: leader };
    }
    for &slot in group.iter().filter(|&&s| s != leader) {
        program.ties.push(Tie {
            slot,
            follows: leader,
        });
    }
    program.ties.sort_by_key(|t| t.slot);
}

/// The readings of one tied number, for a model to choose between: the paper's step, "one
/// valid sequence of numbers for the question is randomly generated for the code that ensures
/// that all correspondences of the syntax tree output different answers".
#[derive(Clone, Debug, PartialEq)]
pub struct TiedReadings {
    /// The tied group's first slot.
    pub leader: u32,
    /// One untied program per class of equivalent readings.
    pub readings: Vec<Program>,
    /// A number for every slot, all different, on which the classes' answers differ.
    pub slots: Vec<Num>,
    /// Each reading's answer on `slots`.
    pub answers: Vec<Value>,
}

/// The tied groups of `program` whose readings a model may settle, with their distinguishing
/// numbers (drawn from `originals`' kinds).
pub fn tied_readings(program: &Program, originals: &[Num]) -> Vec<TiedReadings> {
    let mut leaders: Vec<u32> = program.ties.iter().map(|t| t.follows).collect();
    leaders.sort_unstable();
    leaders.dedup();
    let draws = distinguishing_draws(originals);
    let mut out = Vec::new();
    for leader in leaders {
        let mut group = vec![leader];
        group.extend(
            program
                .ties
                .iter()
                .filter(|t| t.follows == leader)
                .map(|t| t.slot),
        );
        let uses = leaves_of(program, &[leader]);
        let Some(assignments) = readings(uses.len(), group.len()) else {
            continue;
        };
        let mut base = program.clone();
        base.ties.retain(|t| t.follows != leader);
        let candidates: Vec<Program> = assignments
            .iter()
            .map(|a| read_as(&base, &uses, &group, a))
            .collect();
        // The draw that tells the most readings apart.
        let best = draws
            .iter()
            .map(|d| {
                let answers: Vec<String> = candidates.iter().map(|p| answer_on(p, d)).collect();
                let mut distinct = answers.clone();
                distinct.sort();
                distinct.dedup();
                (distinct.len(), d, answers)
            })
            .max_by_key(|(n, _, _)| *n);
        let Some((_, slots, answers)) = best.filter(|(n, _, _)| *n > 1) else {
            continue;
        };
        let mut kept = TiedReadings {
            leader,
            readings: Vec::new(),
            slots: slots.clone(),
            answers: Vec::new(),
        };
        let mut seen: Vec<String> = Vec::new();
        for (p, a) in candidates.into_iter().zip(answers) {
            let Ok(value) = p.eval_value(slots) else {
                continue;
            };
            if seen.contains(&a) {
                continue;
            }
            seen.push(a);
            kept.readings.push(p);
            kept.answers.push(value);
        }
        out.push(kept);
    }
    out
}

/// The third case of H.4: no number written in digits occurs in the question more often than
/// the program uses it. As the text counts C_c in the code, the uses are counted over `written`,
/// every node the program wrote (a step the answer does not need included), not only the
/// answer's tree. A use is a leaf of its slot (a tied group is used as a whole), a constant of
/// its value, a percentage's fraction (`0.2` for "20%"), or a written fraction's value (`0.75`
/// for "3/4", and "1/4" read by dividing by 4).
pub fn require_every_number_used(
    program: &Program,
    written: &[Node],
    slots: &[Slot],
    question: &str,
) -> Res<()> {
    let mut read = vec![0usize; slots.len()];
    for n in written {
        if let Node::Leaf { slot } = n {
            read[*slot as usize] += 1;
        }
    }
    let constants: Vec<Num> = written
        .iter()
        .filter_map(|n| match n {
            Node::Const { value, .. } => Some(*value),
            _ => None,
        })
        .collect();
    let hundred = Num::int(100);
    // Per value: (occurrences, uses, first slot, forms a constant may take).
    let mut shown: BTreeMap<String, (usize, usize, u32, Vec<Num>)> = BTreeMap::new();
    // Zero never varies (nor does the "00" of "1:00 PM"), so no variant can contradict it.
    for (i, s) in slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.word && !s.value.is_zero())
    {
        let entry = shown
            .entry(num_text::to_text(&s.value))
            .or_insert_with(|| (0, 0, i as u32, vec![s.value]));
        entry.0 += 1;
        entry.1 += read[i];
        if is_percentage(question, s) {
            if let Ok(f) = s.value.div(hundred) {
                entry.3.extend(
                    [Ok(f), Num::ONE.sub(f), Num::ONE.add(f)]
                        .into_iter()
                        .flatten(),
                );
            }
        }
        // A written fraction "a/b" is one number: reading either part, or its value, reads it.
        if let Some((num, den)) = fraction_partner(slots, question, i) {
            if read[num] + read[den] > 0 && read[i] == 0 {
                entry.1 += 1;
            }
            if let Ok(f) = slots[num].value.div(slots[den].value) {
                entry
                    .3
                    .extend([Ok(f), Num::ONE.sub(f), f.recip()].into_iter().flatten());
            }
        }
    }
    for (occurrences, uses, first, forms) in shown.into_values() {
        let tied = program.ties.iter().any(|t| t.follows == first);
        let by_constant = constants
            .iter()
            .filter(|c| forms.iter().any(|f| f.eq_num(**c)))
            .count();
        let uses = uses + by_constant;
        if occurrences > uses && !tied {
            let s = &slots[first as usize];
            let written = s.written_in(question);
            let detail = if uses == 0 {
                format!("{written} appears {occurrences} time(s) in the question and {NEVER_USED}")
            } else {
                format!(
                    "{written} appears {occurrences} time(s) in the question and the program uses it {uses} time(s)"
                )
            };
            return Err(ProgramError::new(ErrorKind::UnusedNumber, detail));
        }
    }
    Ok(())
}

/// How an [`ErrorKind::UnusedNumber`] detail ends when the program never uses the number (rather
/// than using it fewer times than the question writes it).
pub const NEVER_USED: &str = "the program uses it 0 time(s)";

/// The (numerator, denominator) slots of a fraction written "a/b" that slot `i` is part of.
fn fraction_partner(slots: &[Slot], question: &str, i: usize) -> Option<(usize, usize)> {
    let joined = |a: usize| {
        let (x, y) = (&slots[a], &slots[a + 1]);
        !x.word && !y.word && crate::cut::between(question, x.end, y.start).trim() == "/"
    };
    if i + 1 < slots.len() && joined(i) {
        return Some((i, i + 1));
    }
    if i > 0 && joined(i - 1) {
        return Some((i - 1, i));
    }
    None
}

#[cfg(test)]
mod tests;
