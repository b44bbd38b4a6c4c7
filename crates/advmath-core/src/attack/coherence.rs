//! What a reader takes for granted about a question's numbers, beyond the paper's node
//! constraints ([`ReaderRule`]): a part stays no larger than its whole ("ate 17 of the 33
//! pieces", "25 men … 22 men stayed"), quantities of one noun that the question ranks keep its
//! order (the biggest slide stays longer than the second biggest), a count of a bounded unit stays inside
//! its bound (a 5 day work week, hours per month, a person's age), and a bill is one that
//! exists. Each rule is inferred from the question's text and its program together, is kept only
//! when the original numbers satisfy it, and carries the reason it was inferred, so a rejected
//! draw can be explained. The paper has none of them: `--constraints paper` leaves them out.

use std::cmp::Ordering;
use std::fmt::Write as _;

use crate::agreement::{singular, NOT_A_NOUN};
use crate::cut;
use crate::num::wide::Wide;
use crate::num::Num;
use crate::program::tree::{Node, Program};
use crate::question::{is_percentage, Slot};
use crate::vocab::Reject;
use order::{only_less, parts_of_wholes, ranked_order, ADDED};
use world::{bounded_units, denominations, facts, named_counts, plural_counts};

/// Which constraints a variant keeps: the paper's node constraints alone, or a reader's rules
/// too (the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Constraints {
    /// The paper's node constraints (positive, integer, proper fraction, as the text shows
    /// them), with the noun right after a count agreeing: the variants of versions before the
    /// reader's rules, byte for byte.
    Paper,
    /// The paper's, and a reader's rules: parts within wholes, the order of ranked numbers of one
    /// noun, bounded units, real bills and coins; an article and a noun past adjectives agree too.
    #[default]
    Reader,
}

impl Constraints {
    pub fn name(self) -> &'static str {
        match self {
            Constraints::Paper => "paper",
            Constraints::Reader => "reader",
        }
    }
}

/// A quantity a rule compares: a number of the question or a value the program computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Slot(u32),
    Node(u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuleKind {
    /// `less` stays below `more` (or at most `more`, when not `strict`).
    Order {
        less: Side,
        more: Side,
        strict: bool,
    },
    /// The quantity stays at most `max`.
    AtMost { of: Side, max: Num },
    /// The number is one of `values` (a bill's or a coin's denominations, or the one value a
    /// fact of the world gives it: a spider's 8 legs).
    OneOf { slot: u32, values: &'static [i128] },
    /// The number stays at least `min` (a plural count stays plural).
    AtLeast { slot: u32, min: Num },
}

/// One rule a reader's question keeps, with why it was inferred.
#[derive(Clone, Debug, PartialEq)]
pub struct ReaderRule {
    pub kind: RuleKind,
    pub why: String,
    /// The reason a draw that breaks it is rejected, counted in `generation_stats`.
    pub reject: Reject,
}

impl ReaderRule {
    /// `less` stays at most `more` (below it when `strict`).
    fn order(less: Side, more: Side, strict: bool, why: impl Into<String>) -> ReaderRule {
        ReaderRule::new(RuleKind::Order { less, more, strict }, why)
    }

    fn new(kind: RuleKind, why: impl Into<String>) -> ReaderRule {
        let reject = match kind {
            RuleKind::Order { .. } => Reject::Order,
            RuleKind::AtMost { .. } | RuleKind::AtLeast { .. } => Reject::UnitBound,
            RuleKind::OneOf { .. } => Reject::Denomination,
        };
        ReaderRule {
            kind,
            why: why.into(),
            reject,
        }
    }

    /// The reason a draw that breaks it is rejected, counted in `generation_stats`.
    pub fn reject(&self) -> Reject {
        self.reject
    }

    /// The question slots the rule reads (a computed side reads its leaves).
    pub fn slots(&self, program: &Program) -> Vec<u32> {
        let mut out = Vec::new();
        let mut side = |s: Side| match s {
            Side::Slot(i) => out.push(i),
            Side::Node(n) => out.extend(leaves(program, n)),
        };
        match self.kind {
            RuleKind::Order { less, more, .. } => {
                side(less);
                side(more);
            }
            RuleKind::AtMost { of, .. } => side(of),
            RuleKind::OneOf { slot, .. } | RuleKind::AtLeast { slot, .. } => side(Side::Slot(slot)),
        }
        out
    }

    /// Does it hold for these slot values and node values?
    #[inline]
    pub fn holds(&self, slots: &[Num], nodes: &[Num]) -> bool {
        let get = |s: Side| match s {
            Side::Slot(i) => slots[i as usize],
            Side::Node(n) => nodes[n as usize],
        };
        match self.kind {
            RuleKind::Order { less, more, strict } => ordered(get(less).cmp_num(get(more)), strict),
            RuleKind::AtMost { of, max } => get(of).cmp_num(max) != Ordering::Greater,
            RuleKind::OneOf { slot, values } => {
                let v = slots[slot as usize];
                v.is_integer() && v.as_integer().is_some_and(|i| values.contains(&i))
            }
            RuleKind::AtLeast { slot, min } => slots[slot as usize].cmp_num(min) != Ordering::Less,
        }
    }

    /// [`ReaderRule::holds`] with node values past the 128-bit range.
    pub fn holds_wide(&self, slots: &[Num], nodes: &[Wide]) -> bool {
        let get = |s: Side| match s {
            Side::Slot(i) => Wide::from_num(slots[i as usize]).ok(),
            Side::Node(n) => Some(nodes[n as usize].clone()),
        };
        match self.kind {
            RuleKind::Order { less, more, strict } => match (get(less), get(more)) {
                (Some(a), Some(b)) => ordered(a.cmp(&b), strict),
                _ => false,
            },
            RuleKind::AtMost { of, max } => match (get(of), Wide::from_num(max).ok()) {
                (Some(a), Some(m)) => a <= m,
                _ => false,
            },
            RuleKind::OneOf { .. } | RuleKind::AtLeast { .. } => self.holds(slots, &[]),
        }
    }

    /// The rule as a reader reads it, the question's own numbers named as written ("17 <= 33
    /// (a part is at most its whole: 'ate')"); a computed side is shown by its original value.
    pub fn describe(&self, text: &str, slots: &[Slot], nodes: &[Num]) -> String {
        let name = |s: Side| match s {
            Side::Slot(i) => slots[i as usize].written_in(text).to_string(),
            Side::Node(n) => format!("[{}]", nodes[n as usize].exact_text()),
        };
        let mut out = String::new();
        let _ = match self.kind {
            RuleKind::Order { less, more, strict } => {
                let op = if strict { "<" } else { "<=" };
                write!(out, "{} {op} {}", name(less), name(more))
            }
            RuleKind::AtMost { of, max } => write!(out, "{} <= {max}", name(of)),
            RuleKind::OneOf { slot, values } => {
                write!(out, "{} in {values:?}", name(Side::Slot(slot)))
            }
            RuleKind::AtLeast { slot, min } => write!(out, "{} >= {min}", name(Side::Slot(slot))),
        };
        let _ = write!(out, " ({})", self.why);
        out
    }
}

fn ordered(o: Ordering, strict: bool) -> bool {
    match o {
        Ordering::Less => true,
        Ordering::Equal => !strict,
        Ordering::Greater => false,
    }
}

/// The question slots node `n` reads.
fn leaves(program: &Program, n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(i) = stack.pop() {
        match &program.nodes[i as usize] {
            Node::Leaf { slot } => out.push(*slot),
            Node::Const { .. } => {}
            Node::Bin { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            Node::Neg { arg } => stack.push(*arg),
            Node::Call { args, .. } => stack.extend(args.iter().copied()),
        }
    }
    out
}

/// Every [`ReaderRule`] of a question whose program is `program`, each holding on the original
/// numbers (`node_values` are the program's values on them).
pub fn reader_rules(
    text: &str,
    slots: &[Slot],
    program: &Program,
    node_values: &[Num],
) -> Vec<ReaderRule> {
    let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let counts: Vec<bool> = slots
        .iter()
        .map(|s| is_count(text, s) && s.value.cmp_num(Num::ZERO) == Ordering::Greater)
        .collect();
    let nouns: Vec<Option<String>> = slots
        .iter()
        .zip(&counts)
        .map(|(s, &c)| {
            if c && !s.word {
                counted_noun(text, s)
            } else {
                None
            }
        })
        .collect();
    let mut out = Vec::new();
    ranked_order(text, slots, &nouns, &mut out);
    parts_of_wholes(text, slots, &counts, &nouns, program, node_values, &mut out);
    bounded_units(text, slots, program, node_values, &mut out);
    denominations(text, slots, &mut out);
    facts(text, slots, &mut out);
    only_less(text, slots, &counts, &mut out);
    plural_counts(text, slots, &mut out);
    named_counts(text, slots, &mut out);
    out.retain(|r| r.holds(&values, node_values));
    let mut seen = Vec::new();
    out.retain(|r| {
        let new = !seen.contains(&r.kind);
        seen.push(r.kind);
        new
    });
    out
}

/// Whether a slot counts something: not a percentage, not part of a written fraction, not a
/// time of day.
fn is_count(text: &str, s: &Slot) -> bool {
    let before = cut::before(text, s.start);
    let after = cut::after(text, s.end);
    !is_percentage(text, s) && !before.ends_with('/') && !after.starts_with('/') && {
        let colon = before.ends_with(':') || after.starts_with(':');
        !colon
    }
}

/// The noun a number counts, singular ("22 men" -> "man", "60 feet/minute" -> "foot/minute"),
/// if a noun follows it at once.
fn counted_noun(text: &str, s: &Slot) -> Option<String> {
    let rest = cut::after(text, s.end);
    let rest = rest.strip_prefix([' ', '-'])?;
    let len = rest.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    let (word, after) = cut::split(rest, len);
    let word = word.to_ascii_lowercase();
    if word.len() < 3 || NOT_A_NOUN.contains(&word.as_str()) || ADDED.contains(&word.as_str()) {
        return None;
    }
    let mut noun = singular(&word).unwrap_or(word);
    if let Some(per) = after.strip_prefix('/') {
        let len = per.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
        noun.push('/');
        noun.push_str(&cut::before(per, len).to_ascii_lowercase());
    }
    Some(noun)
}

/// Where the sentence that byte `at` of `text` is in starts.
fn sentence_start(text: &str, at: usize) -> usize {
    cut::before(text, at)
        .rfind(['.', '!', '?', ';'])
        .map_or(0, |i| i + 1)
}

/// The sentence a number is written in.
fn sentence_of<'t>(text: &'t str, s: &Slot) -> &'t str {
    let start = sentence_start(text, s.start);
    let tail = cut::after(text, s.end);
    // A decimal point is no sentence's end: only a mark before a space or the end of the text.
    let end = tail
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?' | ';')
                && cut::after(tail, i + 1)
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map_or(tail.len(), |(i, _)| i);
    cut::between(text, start, s.end + end)
}

/// The lower-cased words of `text`, in order.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphabetic() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The text of the sentence (or clause, at a comma) before byte `at`.
fn clause_before(text: &str, at: usize) -> &str {
    let head = cut::before(text, at);
    let start = head
        .rfind(['.', '!', '?', ';', ',', '\n'])
        .map_or(0, |i| i + 1);
    cut::after(head, start)
}

/// The question's last sentence (what it asks).
fn last_sentence(text: &str) -> &str {
    let t = text.trim_end();
    let body = t.trim_end_matches(['?', '.', '!']);
    let start = body.rfind(['.', '?', '!']).map_or(0, |i| i + 1);
    cut::after(body, start)
}

mod order;
mod world;

#[cfg(test)]
mod tests;
