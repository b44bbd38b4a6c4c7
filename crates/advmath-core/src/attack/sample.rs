//! Numeric attacks (Xie et al. 2024, section 3.2 and Algorithm 1): re-sample the question numbers
//! that feed a problem's solution tree, keep the attempts whose every node keeps the properties of
//! its original value, and render the question with the new numbers.
//!
//! Each leaf value is written h = a * 10^b with a not divisible by 10.
//! - M1 (free): a' ~ U(1, 10^c); a leaf that divides (right operand of `/`, `//`, `%`) draws from
//!   U(1, 10^(c/2)); h' = a' * 10^b, so 3000 (3 * 10^3) can become up to 10^9 and 0.25 keeps its
//!   two decimals. (The authors' code drops b >= 0 and draws integers without their zeros; the
//!   paper writes h' = a' * 10^b for every method, which is followed here.)
//! - M2 (same digit count): an integer with d digits draws from U(10^(d-1), 10^d - 1), one-digit
//!   values from U(1, 99); a decimal keeps its scale and draws its mantissa the same way
//!   (1.25 -> 125 -> 473 -> 4.73), redrawing mantissas that end in 0 so the digit count stays.
//! - M3 (same significant digits): 1 <= a <= 9 draws U(1, 9), otherwise a' ~ Poisson(a); h' = a' * 10^b.
//!
//! For M1 and M3, a has at most c digits (c = 6 by default, `--digits`): a longer one is rounded
//! to c significant digits first (1234567 is 123457 * 10^1), as the paper defines the base.
//!
//! Constraints on every node, leaves, intermediate results and answer: a node whose original value
//! is an integer, positive, or strictly between 0 and 1 must stay so. The same holds for the
//! nodes the question itself shows ([`TextConstraint`]): a fraction written `a/b` stays proper
//! and a percentage of at most 100 stays so (both counted as `not_proper_fraction`), and a
//! linked number word stays a plural count (its draw starts at 2). Each attempt draws from its
//! own seed, derived from (run seed, problem id, attack, attempt index), so results do not depend
//! on thread count, and the hot loop allocates nothing. A reader's rules
//! ([`crate::attack::coherence`]) are checked after every node's, unless `--constraints paper`.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::attack::coherence::{ReaderRule, RuleKind, Side};
use crate::num::wide::{Value, Wide};
use crate::num::{EvalError, Num};
use crate::program::{BinOp, Node, Program};
use crate::question::divisible::Divisible;
use crate::question::shown::TextConstraint;
use crate::seed::mix;

pub use crate::vocab::{Method, Reject, REJECT_NAMES};

const INT: u8 = 1;
const POS: u8 = 2;
const FRAC: u8 = 4;
/// An amount a conversion freed from the integers: it stays within cents (two decimals), so
/// that a price or a weight reads as one ("$10.625" does not).
const CENTS: u8 = 8;

fn in_cents(v: Num) -> bool {
    v.mul(Num::int(100)).is_ok_and(Num::is_integer)
}

fn flags_of(v: Num) -> u8 {
    (if v.is_integer() { INT } else { 0 })
        | (if v.is_positive() { POS } else { 0 })
        | (if v.is_proper_fraction() { FRAC } else { 0 })
}

fn wide_flags_of(v: &Wide) -> u8 {
    (if v.is_integer() { INT } else { 0 })
        | (if v.is_positive() { POS } else { 0 })
        | (if v.is_proper_fraction() { FRAC } else { 0 })
}

/// The first constraint of a node (its original's `flags`) that a value with `found` flags breaks.
#[inline]
fn broken(flags: u8, found: u8) -> Result<(), Reject> {
    let lost = flags & !found;
    if lost & INT != 0 {
        Err(Reject::NotInteger)
    } else if lost & POS != 0 {
        Err(Reject::NotPositive)
    } else if lost & FRAC != 0 {
        Err(Reject::NotProperFraction)
    } else {
        Ok(())
    }
}

/// Why an attempt whose arithmetic failed is rejected.
fn reject_of(e: EvalError) -> Reject {
    match e {
        EvalError::DivisionByZero => Reject::DivisionByZero,
        // Not a real number, or an exact value too large to write (an inexact answer is rejected
        // under the same name).
        EvalError::Domain | EvalError::Overflow | EvalError::TooLarge => Reject::Domain,
    }
}

/// Everything needed to attack one problem with one method, prepared once.
pub struct Attacker<'p> {
    program: &'p Program,
    /// Original slot values (all slots, variable or not).
    originals: Vec<Num>,
    /// Slots that feed the tree, with how to draw each.
    draws: Vec<(u32, Draw)>,
    node_flags: Vec<u8>,
    /// The question's own constraints that involve a variable slot (plural counts are in the
    /// draws instead).
    text: Vec<TextConstraint>,
    /// Other programs of the problem, written independently, that read every number a variant
    /// changes: each must compute the same answer (see [`Attacker::with_supporters`]). One entry
    /// per distinct tree, with how many sources wrote it.
    supporters: Vec<(&'p Program, u32)>,
    /// Sources whose tree is this program's own: they agree on every draw.
    same_as_own: u32,
    /// A reader's rules that involve a changed number (see [`Attacker::with_reader_rules`]).
    rules: Vec<ReaderRule>,
    /// Whether a reader's rule narrowed a draw (so it can cost variants without a rejection).
    narrowed: bool,
    /// Whether an attempt changes one number, chosen uniformly among those that can change,
    /// and writes every other as the question does ([`Method::changes_one_number`]).
    one_at_a_time: bool,
}

/// Per-attempt scratch space, reused across attempts.
pub struct Scratch {
    slots: Vec<Num>,
    values: Vec<Num>,
    /// The answer of the last attempt when its values left the 128-bit range.
    wide_answer: Option<Wide>,
    /// How many programs gave the last valid attempt's answer (this one and its supporters).
    support: u32,
    /// Node values of a supporter, reused by each (sized for the largest).
    supporter_values: Vec<Num>,
}

impl Scratch {
    /// The slot values of the last attempt (every slot, variable or not).
    pub fn slots(&self) -> &[Num] {
        &self.slots
    }

    /// How many independent programs computed the last valid attempt's answer.
    pub fn support(&self) -> u32 {
        self.support
    }
}

impl<'p> Attacker<'p> {
    pub fn new(
        program: &'p Program,
        originals: Vec<Num>,
        method: Method,
        digits: u32,
    ) -> Result<Self, EvalError> {
        let divisors = divisor_slots(program);
        let draws = program
            .variable_slots()
            .into_iter()
            .map(|s| {
                let h = originals[s as usize];
                (s, Draw::plan(method, h, divisors.contains(&s), digits))
            })
            .collect();
        let mut values = vec![Num::ZERO; program.nodes.len()];
        let node_flags = match program.eval_into(&originals, &mut values) {
            Ok(()) => values.iter().map(|&v| flags_of(v)).collect(),
            Err(EvalError::Overflow) => program
                .eval_wide(&originals)?
                .iter()
                .map(wide_flags_of)
                .collect(),
            Err(e) => return Err(e),
        };
        Ok(Attacker {
            program,
            originals,
            draws,
            node_flags,
            text: Vec::new(),
            supporters: Vec::new(),
            same_as_own: 0,
            rules: Vec::new(),
            narrowed: false,
            one_at_a_time: method.changes_one_number(),
        })
    }

    /// Hold every attempt to the other independent programs of the problem: an attempt on which
    /// one of them computes another answer (or none) is rejected as a disagreement, since two
    /// readings of its question differ there and the text does not say which is meant. Only a
    /// program that reads every number a variant changes can vouch for it; the others are left
    /// out. Each program is evaluated on the numbers as the variant writes them (its own ties
    /// are not applied: a number it ties that this program does not is written unchanged).
    pub fn with_supporters(mut self, programs: impl IntoIterator<Item = &'p Program>) -> Self {
        let changed = self.changed_slots();
        for p in programs {
            let reads = p.variable_slots();
            if !changed.iter().all(|s| reads.binary_search(s).is_ok()) {
                continue;
            }
            // Sources often write the same tree: each distinct one is evaluated once per draw.
            if p == self.program {
                self.same_as_own += 1;
            } else if let Some((_, n)) = self.supporters.iter_mut().find(|(q, _)| *q == p) {
                *n += 1;
            } else {
                self.supporters.push((p, 1));
            }
        }
        self
    }

    /// The slots a variant may change: the drawn ones and those tied to them.
    fn changed_slots(&self) -> Vec<u32> {
        let mut s: Vec<u32> = self.draws.iter().map(|(s, _)| *s).collect();
        s.extend(
            self.program
                .ties
                .iter()
                .filter(|t| s.contains(&t.follows))
                .map(|t| t.slot)
                .collect::<Vec<_>>(),
        );
        s
    }

    /// How many programs compute the original numbers' answer: this one and every supporter.
    pub fn support_count(&self) -> u32 {
        1 + self.same_as_own + self.supporters.iter().map(|(_, n)| n).sum::<u32>()
    }

    /// Also keep the constraints the question's text puts on its numbers (see
    /// [`crate::question::shown::text_constraints`]); those on constant slots always hold and are dropped.
    pub fn with_text_constraints(mut self, constraints: &[TextConstraint]) -> Self {
        let leader = |s: u32| {
            self.program
                .ties
                .iter()
                .find(|t| t.slot == s)
                .map_or(s, |t| t.follows)
        };
        for &c in constraints {
            let (a, b) = c.slots();
            let variable = |s: u32| self.draws.iter().any(|(d, _)| *d == leader(s));
            if !variable(a) && !b.is_some_and(variable) {
                continue;
            }
            match c {
                TextConstraint::Plural { slot } => {
                    let slot = leader(slot);
                    if let Some((_, d)) = self.draws.iter_mut().find(|(s, _)| *s == slot) {
                        *d = std::mem::replace(d, Draw::Keep(Num::ZERO)).at_least_two();
                    }
                }
                _ => {
                    let max = match c {
                        TextConstraint::AtMost { max, .. } => Some(max),
                        _ => None,
                    };
                    for slot in [Some(a), b].into_iter().flatten().map(leader) {
                        if let Some((_, d)) = self.draws.iter_mut().find(|(s, _)| *s == slot) {
                            *d = std::mem::replace(d, Draw::Keep(Num::ZERO)).bounded_by(max);
                        }
                    }
                    self.text.push(c)
                }
            }
        }
        self
    }

    /// Hold these slots (and those tied to them) as the question writes them: a family that
    /// must not change a kind of number says which.
    pub fn holding(mut self, slots: &[u32]) -> Self {
        for &slot in slots {
            let slot = self
                .program
                .ties
                .iter()
                .find(|t| t.slot == slot)
                .map_or(slot, |t| t.follows);
            if let Some((s, d)) = self.draws.iter_mut().find(|(s, _)| *s == slot) {
                *d = Draw::Keep(self.originals[*s as usize]);
            }
        }
        self
    }

    /// Convert the whole amounts the text says are divisible (`measures`, see
    /// [`crate::question::divisible::divisible_slots`]): each convertible one draws a quarter, a
    /// half or three quarters more ([`Draw::Convert`]), and a node that measures an amount or a
    /// rate (see [`measure`]) may leave the integers, within cents; a count stays whole, and so
    /// does the answer when the question asks for a count (`count_asked`). Called before the
    /// text's constraints, which keep a bounded number as written.
    pub fn converting(mut self, measures: &[(u32, Divisible)], count_asked: bool) -> Self {
        for (slot, _) in measures.iter().filter(|(_, d)| d.convertible) {
            if let Some((_, d)) = self.draws.iter_mut().find(|(s, _)| s == slot) {
                *d = Draw::Convert(self.originals[*slot as usize]);
            }
        }
        let dims = measure::node_dims(self.program, measures);
        let answer = self.program.answer as usize;
        for (i, (f, dim)) in self.node_flags.iter_mut().zip(dims).enumerate() {
            if dim.divisible() && *f & INT != 0 && !(count_asked && i == answer) {
                *f = (*f & !INT) | CENTS;
            }
        }
        self
    }

    /// Also keep a reader's rules (see [`crate::attack::coherence::reader_rules`]), checked
    /// after the paper's node constraints; those that read no changed number always hold and
    /// are dropped.
    pub fn with_reader_rules(mut self, rules: &[ReaderRule]) -> Self {
        let changed = self.changed_slots();
        self.rules = rules
            .iter()
            .filter(|r| r.slots(self.program).iter().any(|s| changed.contains(s)))
            .cloned()
            .collect();
        // A bound on a drawn number itself narrows its draw (M1's range of a million would
        // otherwise spend its attempts on ages of 300,000); the rule stays, and holds.
        for r in &self.rules {
            let (slot, narrow): (u32, &dyn Fn(Draw) -> Draw) = match r.kind {
                RuleKind::AtMost {
                    of: Side::Slot(s),
                    max,
                } => (s, &move |d: Draw| d.at_most(max)),
                RuleKind::OneOf { slot, values } => (slot, &move |d: Draw| d.one_of(values)),
                RuleKind::AtLeast { slot, min } if min.eq_num(Num::int(2)) => {
                    (slot, &|d: Draw| d.at_least_two())
                }
                _ => continue,
            };
            if let Some((_, d)) = self.draws.iter_mut().find(|(s, _)| *s == slot) {
                *d = narrow(std::mem::replace(d, Draw::Keep(Num::ZERO)));
                self.narrowed = true;
            }
        }
        self
    }

    /// Whether the paper's constraints alone might have found `keep` distinct valid tuples where
    /// these rules found fewer (`stats`): always when a rule narrowed a draw (the draws differ);
    /// otherwise the attempts are the same, and the paper's distinct tuples are at most these and
    /// the attempts the rules rejected.
    pub fn rules_may_cost(&self, stats: &AttackStats, keep: usize) -> bool {
        if self.narrowed {
            return true;
        }
        let ruled: u64 = [Reject::Order, Reject::UnitBound, Reject::Denomination]
            .iter()
            .map(|r| stats.rejections[r.index()])
            .sum();
        ruled > 0 && stats.unique + ruled >= keep as u64
    }

    pub fn scratch(&self) -> Scratch {
        Scratch {
            slots: self.originals.clone(),
            values: vec![Num::ZERO; self.program.nodes.len()],
            wide_answer: None,
            support: 0,
            supporter_values: vec![
                Num::ZERO;
                self.supporters
                    .iter()
                    .map(|(p, _)| p.nodes.len())
                    .max()
                    .unwrap_or(0)
            ],
        }
    }

    pub fn variable_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.draws.iter().map(|(s, _)| *s)
    }

    /// One attempt: draw the numbers from `seed` into `scratch.slots` and check every node (the
    /// supporters are asked apart, see [`Attacker::check_supporters`]).
    #[inline]
    pub fn attempt(&self, seed: u64, scratch: &mut Scratch) -> Result<(), Reject> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        if self.one_at_a_time {
            return self.attempt_one(&mut rng, scratch);
        }
        let mut same = true;
        for (slot, draw) in &self.draws {
            let v = draw.sample(&mut rng);
            same &= v.eq_num(self.originals[*slot as usize]);
            scratch.slots[*slot as usize] = v;
        }
        if same {
            return Err(Reject::Original);
        }
        self.program.apply_ties(&mut scratch.slots);
        self.check_nodes(scratch)
    }

    /// One attempt that changes one number: which, drawn first, then its value; every other
    /// drawn slot is written as the question writes it.
    fn attempt_one(&self, rng: &mut Pcg64Mcg, scratch: &mut Scratch) -> Result<(), Reject> {
        let free = |d: &Draw| !matches!(d, Draw::Keep(_));
        let n = self.draws.iter().filter(|(_, d)| free(d)).count();
        if n == 0 {
            return Err(Reject::Original);
        }
        let chosen = rng.random_range(0..n);
        let mut same = true;
        for (i, (slot, draw)) in self.draws.iter().filter(|(_, d)| free(d)).enumerate() {
            let v = if i == chosen {
                draw.sample(rng)
            } else {
                self.originals[*slot as usize]
            };
            same &= v.eq_num(self.originals[*slot as usize]);
            scratch.slots[*slot as usize] = v;
        }
        if same {
            return Err(Reject::Original);
        }
        self.program.apply_ties(&mut scratch.slots);
        self.check_nodes(scratch)
    }

    /// Evaluate the tree on `scratch.slots`, check each node's constraints, then hold the answer
    /// to every supporter.
    #[inline]
    pub fn check(&self, scratch: &mut Scratch) -> Result<(), Reject> {
        self.check_nodes(scratch)?;
        self.check_supporters(scratch)
    }

    /// Every supporter computes the answer of the attempt that passed [`Attacker::attempt`]
    /// (the drawing loop asks once per distinct tuple).
    pub fn check_supporters(&self, scratch: &mut Scratch) -> Result<(), Reject> {
        scratch.support = 1 + self.same_as_own;
        if self.supporters.is_empty() {
            return Ok(());
        }
        let answer = self.answer(scratch);
        for &(p, sources) in &self.supporters {
            let values = &mut scratch.supporter_values[..p.nodes.len()];
            let same = match p.eval_into(&scratch.slots, values) {
                Ok(()) => same_value(&answer, &Value::Num(values[p.answer as usize])),
                // Past the 128-bit range, as the attempt itself is checked (rare, and allocates).
                Err(EvalError::Overflow) => p
                    .eval_value(&scratch.slots)
                    .is_ok_and(|v| same_value(&answer, &v)),
                Err(_) => false,
            };
            if !same {
                return Err(Reject::Disagreement);
            }
            scratch.support += sources;
        }
        Ok(())
    }

    #[inline]
    fn check_nodes(&self, scratch: &mut Scratch) -> Result<(), Reject> {
        scratch.wide_answer = None;
        if !self.text.iter().all(|c| c.holds(&scratch.slots)) {
            return Err(Reject::NotProperFraction);
        }
        for i in 0..self.program.nodes.len() {
            let v = match self.program.eval_node(i, &scratch.slots, &scratch.values) {
                Ok(v) => v,
                // Past the 128-bit range: the attempt is checked again with big integers, as
                // Python's integers would compute it.
                Err(EvalError::Overflow) => return self.check_wide(scratch),
                Err(e) => return Err(reject_of(e)),
            };
            broken(self.node_flags[i], flags_of(v))?;
            if self.node_flags[i] & CENTS != 0 && !in_cents(v) {
                return Err(Reject::NotInteger);
            }
            scratch.values[i] = v;
        }
        // A gold answer is written exactly or not at all: an irrational one (the square root of
        // a non-square) has no exact text.
        if !scratch.values[self.program.answer as usize].is_exact() {
            return Err(Reject::Domain);
        }
        if let Some(r) = self
            .rules
            .iter()
            .find(|r| !r.holds(&scratch.slots, &scratch.values))
        {
            return Err(r.reject());
        }
        Ok(())
    }

    /// [`Attacker::check`] with big integers (slow, and only for values past the 128-bit range).
    fn check_wide(&self, scratch: &mut Scratch) -> Result<(), Reject> {
        let mut values = self.program.eval_wide(&scratch.slots).map_err(reject_of)?;
        for (v, &f) in values.iter().zip(&self.node_flags) {
            broken(f, wide_flags_of(v))?;
            // An amount past the 128-bit range is whole or refused.
            if f & CENTS != 0 && !v.is_integer() {
                return Err(Reject::NotInteger);
            }
        }
        if let Some(r) = self
            .rules
            .iter()
            .find(|r| !r.holds_wide(&scratch.slots, &values))
        {
            return Err(r.reject());
        }
        scratch.wide_answer = Some(values.swap_remove(self.program.answer as usize));
        Ok(())
    }

    /// Check given numbers (one per slot) against every node's constraints; the answer if valid.
    pub fn check_slots(&self, slots: &[Num]) -> Result<Value, Reject> {
        let mut scratch = self.scratch();
        scratch.slots.copy_from_slice(slots);
        self.check(&mut scratch)?;
        Ok(self.answer(&scratch))
    }

    /// The answer of the attempt `scratch` last passed.
    pub fn answer(&self, scratch: &Scratch) -> Value {
        match &scratch.wide_answer {
            Some(w) => Value::Wide(w.clone()),
            None => Value::Num(scratch.values[self.program.answer as usize]),
        }
    }

    /// A 128-bit key of the drawn tuple, for uniqueness.
    #[inline]
    pub fn tuple_key(&self, scratch: &Scratch) -> u128 {
        let (mut h1, mut h2) = (0x243f_6a88_85a3_08d3u64, 0x1319_8a2e_0370_7344u64);
        for (slot, _) in &self.draws {
            let (x, y) = match scratch.slots[*slot as usize] {
                Num::Ratio { n, d } => (n as u64 ^ ((n >> 64) as u64).rotate_left(17), d as u64),
                Num::Float(f) => (f.to_bits(), u64::MAX),
            };
            h1 = mix(h1 ^ x).wrapping_add(y);
            h2 = mix(h2 ^ y.rotate_left(32)).wrapping_add(x);
        }
        ((h1 as u128) << 64) | h2 as u128
    }
}

/// Two exact answers are the same number, whatever width each was computed in (a value checked
/// with big integers is wide even where it fits the narrow form).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x == y,
        _ => a.exact_text() == b.exact_text(),
    }
}

/// Slots whose leaf is directly the right operand of a division, floor division or modulo.
fn divisor_slots(program: &Program) -> Vec<u32> {
    program
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Bin {
                op: BinOp::Div | BinOp::FloorDiv | BinOp::Mod,
                rhs,
                ..
            } => match program.nodes[*rhs as usize] {
                Node::Leaf { slot } => Some(slot),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

mod draw;
mod kept;
mod measure;

use draw::Draw;
pub use draw::{at_most_digits, decompose, digit_count};

pub use kept::{attack, each_unique, reaches, AttackStats, Drawn};

#[cfg(test)]
pub(crate) mod tests;
