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
use crate::program::tree::{BinOp, Node, Program};
use crate::question::{is_percentage, units, Slot};
use crate::vocab::Reject;

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

/// Denominations of US bills and coins, the only ones GSM8K's dollars are paid in.
const BILLS: &[i128] = &[1, 2, 5, 10, 20, 50, 100];
const COINS: &[i128] = &[1, 5, 10, 25, 50, 100];

/// A person's age, in years, at most.
const OLDEST: i128 = 120;

/// Verbs right before a number that take the number out of a larger amount ("ate 17", "gave away
/// 5", "spent $30").
const TAKES_PART: &[&str] = &[
    "ate", "eats", "eat", "eaten", "gave", "gives", "give", "given", "spent", "spends", "spend",
    "dropped", "drops", "lost", "loses", "lose", "sold", "sells", "sell", "used", "uses", "use",
    "broke", "breaks", "donated", "donates", "donate", "with",
];

/// Words right after a number that make it part of an amount named before ("5 of them", "22
/// men stayed", "3 left").
const IS_PART: &[&[&str]] = &[
    &["of", "them"],
    &["of", "those"],
    &["of", "these"],
    &["of", "the"],
    &["of", "her"],
    &["of", "his"],
    &["of", "their"],
    &["of", "which"],
    &["stayed"],
    &["remained"],
    &["remain"],
    &["remaining"],
    &["left"],
];

/// Words right after a number that make it an amount added, not a part ("19 more").
const ADDED: &[&str] = &["more", "extra", "additional", "times", "new"];

impl ReaderRule {
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

/// Superlatives that rank the things a question compares ("the biggest waterslide … the second
/// biggest").
const RANKS: &[&str] = &[
    "biggest", "largest", "longest", "tallest", "highest", "heaviest", "oldest", "fastest",
    "smallest", "shortest", "lowest", "lightest", "youngest", "slowest", "cheapest", "best",
    "worst", "most", "least",
];

/// Numbers that count the same noun in sentences that rank what they count ("the biggest
/// waterslide is 300 feet long … the second biggest waterslide is 240 feet long") keep the
/// order the question gives them: the ranking is told about that order. Elsewhere two counts
/// of one noun ("20 minutes to mix, 30 minutes to bake") are free, as the paper has them.
fn ranked_order(text: &str, slots: &[Slot], nouns: &[Option<String>], out: &mut Vec<ReaderRule>) {
    let ranked: Vec<bool> = slots
        .iter()
        .map(|s| {
            words(sentence_of(text, s))
                .iter()
                .any(|w| RANKS.contains(&w.as_str()))
        })
        .collect();
    for i in 0..slots.len() {
        for j in i + 1..slots.len() {
            let (Some(a), Some(b)) = (&nouns[i], &nouns[j]) else {
                continue;
            };
            if a != b || !ranked[i] || !ranked[j] {
                continue;
            }
            let (less, more) = match slots[i].value.cmp_num(slots[j].value) {
                Ordering::Less => (i, j),
                Ordering::Greater => (j, i),
                Ordering::Equal => continue,
            };
            out.push(ReaderRule::new(
                RuleKind::Order {
                    less: Side::Slot(less as u32),
                    more: Side::Slot(more as u32),
                    strict: true,
                },
                format!("both count '{a}' in sentences that rank them"),
            ));
        }
    }
}

/// The sentence a number is written in.
fn sentence_of<'t>(text: &'t str, s: &Slot) -> &'t str {
    let head = cut::before(text, s.start);
    let start = head.rfind(['.', '!', '?', ';']).map_or(0, |i| i + 1);
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

/// A number the question takes out of an amount it named before ("ate 17", "5 of them", "came
/// up with 3", "22 men stayed") is at most that amount: the nearest earlier number or value the
/// program computes from earlier numbers only that is not smaller on the original numbers.
fn parts_of_wholes(
    text: &str,
    slots: &[Slot],
    counts: &[bool],
    nouns: &[Option<String>],
    program: &Program,
    node_values: &[Num],
    out: &mut Vec<ReaderRule>,
) {
    for (p, s) in slots.iter().enumerate() {
        if !counts[p] {
            continue;
        }
        let before = words(clause_before(text, s.start));
        let after = words(cut::before(
            cut::after(text, s.end),
            cut::after(text, s.end)
                .find(['.', '!', '?', ';', ','])
                .unwrap_or(cut::after(text, s.end).len()),
        ));
        if followed_by_added(text, s) {
            continue;
        }
        // "7 out of 10": the whole is the next number.
        if after.len() >= 2 && after[0] == "out" && after[1] == "of" {
            if let Some(q) = slots.get(p + 1).filter(|_| counts[p + 1]) {
                let between = cut::between(text, s.end, q.start);
                if words(between) == ["out", "of"] {
                    out.push(ReaderRule::new(
                        RuleKind::Order {
                            less: Side::Slot(p as u32),
                            more: Side::Slot(p as u32 + 1),
                            strict: false,
                        },
                        "'out of': a part is at most its whole",
                    ));
                }
            }
            continue;
        }
        let cue = before
            .iter()
            .rev()
            .take(3)
            .find(|w| TAKES_PART.contains(&w.as_str()))
            .filter(|w| *w != "with" || before.ends_with(&["up".into(), "with".into()]))
            .map(|w| {
                if w == "with" {
                    "came up with".to_string()
                } else {
                    w.clone()
                }
            })
            .or_else(|| {
                // After the noun the number counts, if one follows ("22 men stayed").
                let skip = usize::from(counted_noun(text, s).is_some());
                IS_PART
                    .iter()
                    .find(|pat| {
                        after.len() >= skip + pat.len()
                            && after[skip..skip + pat.len()]
                                .iter()
                                .zip(pat.iter())
                                .all(|(a, b)| a == b)
                    })
                    .map(|pat| pat.join(" "))
            });
        let Some(cue) = cue else {
            continue;
        };
        // The nearest earlier count of the same noun, if not smaller ("25 men … 22 men stayed").
        let same = nouns[p].as_ref().and_then(|noun| {
            (0..p).rev().find(|&j| {
                nouns[j].as_ref() == Some(noun) && slots[j].value.cmp_num(s.value) != Ordering::Less
            })
        });
        if let Some(j) = same {
            out.push(ReaderRule::new(
                RuleKind::Order {
                    less: Side::Slot(p as u32),
                    more: Side::Slot(j as u32),
                    strict: false,
                },
                format!(
                    "'{cue}': a part is at most its whole of '{}'",
                    nouns[p].as_deref().unwrap_or_default()
                ),
            ));
        }
        if let Some(whole) = nearest_whole(text, slots, counts, program, node_values, p) {
            out.push(ReaderRule::new(
                RuleKind::Order {
                    less: Side::Slot(p as u32),
                    more: whole,
                    strict: false,
                },
                format!("'{cue}': a part is at most its whole"),
            ));
        }
    }
}

/// Whether the word after a number makes it an amount added ("19 more").
fn followed_by_added(text: &str, s: &Slot) -> bool {
    let rest = cut::after(text, s.end);
    let first = words(cut::before(rest, rest.len().min(16)));
    first.first().is_some_and(|w| ADDED.contains(&w.as_str()))
}

/// The amount a part `p` is taken from: among the counts before it and the program's values
/// computed from them alone, those not smaller than `p` originally; the latest, and of equally
/// late ones the smallest.
fn nearest_whole(
    text: &str,
    slots: &[Slot],
    counts: &[bool],
    program: &Program,
    node_values: &[Num],
    p: usize,
) -> Option<Side> {
    let part = slots[p].value;
    let mut best: Option<(u32, Num, Side)> = None;
    let mut consider = |position: u32, value: Num, side: Side| {
        if value.cmp_num(part) == Ordering::Less {
            return;
        }
        let better = best.as_ref().is_none_or(|(bp, bv, _)| {
            position > *bp || (position == *bp && value.cmp_num(*bv) == Ordering::Less)
        });
        if better {
            best = Some((position, value, side));
        }
    };
    for j in 0..p {
        // "9 more" is an amount added to a whole, not one.
        if counts[j] && !followed_by_added(text, &slots[j]) {
            consider(j as u32, slots[j].value, Side::Slot(j as u32));
        }
    }
    for (n, node) in program.nodes.iter().enumerate() {
        if !matches!(node, Node::Bin { .. }) {
            continue;
        }
        let reads = leaves(program, n as u32);
        if reads.is_empty() || reads.iter().any(|&s| s as usize >= p) {
            continue;
        }
        let position = *reads.iter().max().expect("not empty");
        consider(position, node_values[n], Side::Node(n as u32));
    }
    best.map(|(_, _, side)| side)
}

/// Counts of bounded units stay inside their bounds: the reader's own detections of
/// [`units::reader_unit_uses`], a person's age (a number "years old", and what the program makes
/// of it by adding years or multiplying), and an answer the question asks in a bounded unit
/// ("how many hours per month", "how old").
fn bounded_units(
    text: &str,
    slots: &[Slot],
    program: &Program,
    node_values: &[Num],
    out: &mut Vec<ReaderRule>,
) {
    for (slot, max, what) in units::reader_bounds(text, slots) {
        out.push(ReaderRule::new(
            RuleKind::AtMost {
                of: Side::Slot(slot),
                max,
            },
            what.to_string(),
        ));
    }
    let ages: Vec<u32> = (0..slots.len() as u32)
        .filter(|&i| is_age(text, &slots[i as usize]))
        .collect();
    let oldest = Num::int(OLDEST);
    // The ages the text gives keep their order: a daughter stays younger than her mother.
    for (x, &a) in ages.iter().enumerate() {
        for &b in &ages[x + 1..] {
            let (va, vb) = (slots[a as usize].value, slots[b as usize].value);
            let (less, more) = match va.cmp_num(vb) {
                Ordering::Less => (a, b),
                Ordering::Greater => (b, a),
                Ordering::Equal => continue,
            };
            out.push(ReaderRule::new(
                RuleKind::Order {
                    less: Side::Slot(less),
                    more: Side::Slot(more),
                    strict: true,
                },
                "two ages the question gives: their order",
            ));
        }
    }
    for &a in &ages {
        out.push(ReaderRule::new(
            RuleKind::AtMost {
                of: Side::Slot(a),
                max: oldest,
            },
            "a person's age",
        ));
    }
    // An age plus some years ("in 7 years"), or times a constant ("three times the age his
    // father was"), is an age again; the sum of two ages is not, nor an age plus a price.
    let mut is_age_node = vec![false; program.nodes.len()];
    for (n, node) in program.nodes.iter().enumerate() {
        let age = |i: u32| match program.nodes[i as usize] {
            Node::Leaf { slot } => ages.contains(&slot),
            _ => is_age_node[i as usize],
        };
        let years = |i: u32| match program.nodes[i as usize] {
            Node::Leaf { slot } => {
                counted_noun(text, &slots[slot as usize]).as_deref() == Some("year")
            }
            Node::Const { .. } => true,
            _ => false,
        };
        let times = |i: u32| matches!(program.nodes[i as usize], Node::Const { .. });
        is_age_node[n] = match *node {
            Node::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
            } => (age(lhs) && years(rhs)) || (age(rhs) && years(lhs)),
            Node::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            } => (age(lhs) && times(rhs)) || (age(rhs) && times(lhs)),
            _ => false,
        };
        if is_age_node[n] {
            out.push(ReaderRule::new(
                RuleKind::AtMost {
                    of: Side::Node(n as u32),
                    max: oldest,
                },
                format!("a person's age, computed as {}", node_values[n]),
            ));
        }
    }
    let asked = words(last_sentence(text));
    let answer = Side::Node(program.answer);
    // "How old will they be together" asks for a sum of ages, which no bound holds.
    let summed = asked
        .iter()
        .any(|w| ["together", "combined", "total", "sum", "altogether"].contains(&w.as_str()));
    if asked.windows(2).any(|w| w == ["how", "old"]) && !summed {
        out.push(ReaderRule::new(
            RuleKind::AtMost {
                of: answer,
                max: oldest,
            },
            "the answer is a person's age ('how old')",
        ));
    }
    if let Some((max, what)) = units::asked_rate(&asked) {
        out.push(ReaderRule::new(
            RuleKind::AtMost { of: answer, max },
            format!("the answer counts {what}"),
        ));
    }
}

/// The question's last sentence (what it asks).
fn last_sentence(text: &str) -> &str {
    let t = text.trim_end();
    let body = t.trim_end_matches(['?', '.', '!']);
    let start = body.rfind(['.', '?', '!']).map_or(0, |i| i + 1);
    cut::after(body, start)
}

/// A number the text writes as a person's age ("44 years old", "a 30-year-old", "aged 7", "at
/// the age of 12").
fn is_age(text: &str, s: &Slot) -> bool {
    let after = words(cut::before(
        cut::after(text, s.end),
        cut::after(text, s.end).len().min(24),
    ));
    let before = words(clause_before(text, s.start));
    let years_old = matches!(after.first().map(String::as_str), Some("years" | "year"))
        && matches!(after.get(1).map(String::as_str), Some("old"));
    let aged = matches!(before.last().map(String::as_str), Some("aged" | "age"));
    years_old || aged
}

/// "a $20 bill", "three $5 bills", "a 25-cent coin": the denomination is one that exists.
fn denominations(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    for (i, s) in slots.iter().enumerate() {
        if s.word || !s.value.is_integer() {
            continue;
        }
        let after = words(cut::before(
            cut::after(text, s.end),
            cut::after(text, s.end).len().min(24),
        ));
        let dollar = cut::before(text, s.start).ends_with('$');
        let first = after.first().map(String::as_str);
        let second = after.get(1).map(String::as_str);
        let (values, what) = match (dollar, first, second) {
            (true, Some("bill" | "bills" | "note" | "notes"), _)
            | (false, Some("dollar"), Some("bill" | "bills")) => (BILLS, "a bill that exists"),
            (false, Some("cent"), Some("coin" | "coins" | "piece" | "pieces")) => {
                (COINS, "a coin that exists")
            }
            _ => continue,
        };
        out.push(ReaderRule::new(
            RuleKind::OneOf {
                slot: i as u32,
                values,
            },
            what,
        ));
    }
}

/// Facts of the world a number can state ("spiders with 8 legs each"): the thing it belongs to,
/// what it counts, and its value.
const FACTS: &[(&[&str], &str, i128)] = &[
    (&["spider", "spiders"], "legs", 8),
    (&["octopus", "octopuses", "octopi"], "arms", 8),
    (&["octopus", "octopuses", "octopi"], "tentacles", 8),
    (
        &[
            "insect",
            "insects",
            "ant",
            "ants",
            "bee",
            "bees",
            "beetle",
            "beetles",
            "butterfly",
            "butterflies",
            "fly",
            "flies",
            "ladybug",
            "ladybugs",
            "grasshopper",
            "grasshoppers",
            "cockroach",
            "cockroaches",
            "cricket",
            "crickets",
            "mosquito",
            "mosquitoes",
        ],
        "legs",
        6,
    ),
    (
        &[
            "dog",
            "dogs",
            "cat",
            "cats",
            "cow",
            "cows",
            "horse",
            "horses",
            "pig",
            "pigs",
            "goat",
            "goats",
            "sheep",
            "lion",
            "lions",
            "tiger",
            "tigers",
            "elephant",
            "elephants",
            "puppy",
            "puppies",
            "kitten",
            "kittens",
            "zebra",
            "zebras",
            "giraffe",
            "giraffes",
            "bear",
            "bears",
            "rabbit",
            "rabbits",
            "mouse",
            "mice",
            "deer",
            "camel",
            "camels",
            "donkey",
            "donkeys",
            "table",
            "tables",
            "chair",
            "chairs",
        ],
        "legs",
        4,
    ),
    (
        &[
            "chicken",
            "chickens",
            "duck",
            "ducks",
            "bird",
            "birds",
            "goose",
            "geese",
            "ostrich",
            "ostriches",
            "parrot",
            "parrots",
            "penguin",
            "penguins",
            "turkey",
            "turkeys",
            "hen",
            "hens",
            "rooster",
            "roosters",
            "person",
            "people",
            "man",
            "men",
            "woman",
            "women",
            "child",
            "children",
            "kid",
            "kids",
            "boy",
            "boys",
            "girl",
            "girls",
            "human",
            "humans",
        ],
        "legs",
        2,
    ),
    (&["bicycle", "bicycles", "bike", "bikes"], "wheels", 2),
    (&["tricycle", "tricycles"], "wheels", 3),
    (&["car", "cars"], "wheels", 4),
    (&["triangle", "triangles"], "sides", 3),
    (
        &["square", "squares", "rectangle", "rectangles"],
        "sides",
        4,
    ),
    (&["pentagon", "pentagons"], "sides", 5),
    (&["hexagon", "hexagons"], "sides", 6),
    (&["octagon", "octagons"], "sides", 8),
];

/// A number that states a fact of the world ("43 spiders with 8 legs each", "a car has 4
/// wheels") keeps it: the nearest thing named before it in its sentence has that many.
fn facts(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    for (i, s) in slots.iter().enumerate() {
        let Some(value) = s.value.as_integer().filter(|_| s.value.is_integer()) else {
            continue;
        };
        let after = words(cut::before(
            cut::after(text, s.end),
            cut::after(text, s.end).len().min(16),
        ));
        let Some(counted) = after.first() else {
            continue;
        };
        let head = cut::before(text, s.start);
        let sentence = cut::after(head, head.rfind(['.', '!', '?', ';']).map_or(0, |i| i + 1));
        let named = words(sentence);
        let Some((thing, fact)) = named.iter().rev().find_map(|w| {
            FACTS
                .iter()
                .find(|(things, what, _)| things.contains(&w.as_str()) && what == counted)
                .map(|f| (w, f))
        }) else {
            continue;
        };
        if fact.2 == value {
            let mut rule = ReaderRule::new(
                RuleKind::OneOf {
                    slot: i as u32,
                    values: std::slice::from_ref(&fact.2),
                },
                format!("a fact: {thing} have {} {}", fact.2, fact.1),
            );
            rule.reject = Reject::UnitBound;
            out.push(rule);
        }
    }
}

/// A number written after "only" in a sentence that named another count before it ("Terry
/// took 8 bushels, while Jerry only took 3") stays below that count.
fn only_less(text: &str, slots: &[Slot], counts: &[bool], out: &mut Vec<ReaderRule>) {
    for (p, s) in slots.iter().enumerate() {
        if !counts[p] {
            continue;
        }
        let before = words(clause_before(text, s.start));
        if !before.iter().rev().take(3).any(|w| w == "only") {
            continue;
        }
        let sentence_start = {
            let head = cut::before(text, s.start);
            head.rfind(['.', '!', '?', ';']).map_or(0, |i| i + 1)
        };
        let earlier = (0..p).rev().find(|&j| {
            counts[j]
                && slots[j].start >= sentence_start
                && slots[j].value.cmp_num(s.value) == Ordering::Greater
        });
        if let Some(j) = earlier {
            out.push(ReaderRule::new(
                RuleKind::Order {
                    less: Side::Slot(p as u32),
                    more: Side::Slot(j as u32),
                    strict: true,
                },
                "'only': less than the count before it",
            ));
        }
    }
}

/// A count the question writes as a plural of things ("Hartley has 4 puppies that each weigh 7
/// kilograms … than the puppies") stays plural: the rest of the text speaks of them in the
/// plural, which a count of one would contradict. Units are left free ("1 hour" reads well).
fn plural_counts(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    let two = Num::int(2);
    for (i, s) in slots.iter().enumerate() {
        if s.word || !s.value.is_integer() || s.value.cmp_num(two) == Ordering::Less {
            continue;
        }
        let Some(rest) = cut::after(text, s.end).strip_prefix(' ') else {
            continue;
        };
        let len = rest.bytes().take_while(|b| b.is_ascii_lowercase()).count();
        let (word, after) = cut::split(rest, len);
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '\'') {
            continue;
        }
        let plural_thing = singular(word).is_some_and(|one| one != word)
            && !NOT_A_NOUN.contains(&word)
            && !crate::agreement::is_unit(word);
        if plural_thing {
            out.push(ReaderRule::new(
                RuleKind::AtLeast {
                    slot: i as u32,
                    min: two,
                },
                format!("'{word}': a plural count stays plural"),
            ));
        }
    }
}

/// Nouns that count people a question may name one by one.
const PEOPLE: &[&str] = &[
    "friend", "person", "child", "kid", "sibling", "sister", "brother", "girl", "boy", "student",
    "player", "cousin",
];

/// Capitalised words that start sentences or name no one.
const NOT_NAMES: &[&str] = &[
    "If",
    "And",
    "What",
    "How",
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "After",
    "Before",
    "When",
    "Then",
    "She",
    "He",
    "They",
    "We",
    "You",
    "Each",
    "Every",
    "There",
    "This",
    "That",
    "These",
    "Those",
    "His",
    "Her",
    "Their",
    "It",
    "Its",
    "Of",
    "For",
    "But",
    "So",
    "Calculate",
    "Find",
    "I",
    "Is",
    "Are",
    "Was",
    "Were",
    "Together",
    "All",
    "Both",
    "One",
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
];

/// Small counts, for a rule that keeps one of them.
const SMALL: [i128; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/// A count of people that is the number of people the question names ("Mark … Susan … their
/// friend Bob … the average weight of the 3 friends") keeps it: the names are not changed.
fn named_counts(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    let mut names: Vec<&str> = text
        .split(|c: char| !c.is_alphabetic() && c != '\'')
        .map(|w| w.trim_end_matches("'s").trim_end_matches('\''))
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() > 1)
        .filter(|w| !NOT_NAMES.contains(w))
        .collect();
    names.sort_unstable();
    names.dedup();
    for (i, s) in slots.iter().enumerate() {
        let Some(value) = s.value.as_integer().filter(|_| s.value.is_integer()) else {
            continue;
        };
        let Ok(n) = usize::try_from(value) else {
            continue;
        };
        let people = counted_noun(text, s).is_some_and(|noun| PEOPLE.contains(&noun.as_str()));
        if !people || n != names.len() || !(2..SMALL.len()).contains(&n) {
            continue;
        }
        let mut rule = ReaderRule::new(
            RuleKind::OneOf {
                slot: i as u32,
                values: std::slice::from_ref(&SMALL[n]),
            },
            format!("the question names {n}: {}", names.join(", ")),
        );
        rule.reject = Reject::UnitBound;
        out.push(rule);
    }
}

#[cfg(test)]
mod tests;
