//! The reader's rules of order: a part within its whole, ranked numbers of one noun, a count
//! after "only".

use std::cmp::Ordering;

use super::{
    clause_before, counted_noun, leaves, sentence_of, sentence_start, words, ReaderRule, Side,
};
use crate::cut;
use crate::num::Num;
use crate::program::tree::{Node, Program};
use crate::question::Slot;

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
pub(super) const ADDED: &[&str] = &["more", "extra", "additional", "times", "new"];

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
pub(super) fn ranked_order(
    text: &str,
    slots: &[Slot],
    nouns: &[Option<String>],
    out: &mut Vec<ReaderRule>,
) {
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
            out.push(ReaderRule::order(
                Side::Slot(less as u32),
                Side::Slot(more as u32),
                true,
                format!("both count '{a}' in sentences that rank them"),
            ));
        }
    }
}

/// A number the question takes out of an amount it named before ("ate 17", "5 of them", "came
/// up with 3", "22 men stayed") is at most that amount: the nearest earlier number or value the
/// program computes from earlier numbers only that is not smaller on the original numbers.
pub(super) fn parts_of_wholes(
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
                    out.push(ReaderRule::order(
                        Side::Slot(p as u32),
                        Side::Slot(p as u32 + 1),
                        false,
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
            out.push(ReaderRule::order(
                Side::Slot(p as u32),
                Side::Slot(j as u32),
                false,
                format!(
                    "'{cue}': a part is at most its whole of '{}'",
                    nouns[p].as_deref().unwrap_or_default()
                ),
            ));
        }
        if let Some(whole) = nearest_whole(text, slots, counts, program, node_values, p) {
            out.push(ReaderRule::order(
                Side::Slot(p as u32),
                whole,
                false,
                format!("'{cue}': a part is at most its whole"),
            ));
        }
    }
}

/// Whether the word after a number makes it an amount added ("19 more").
pub(super) fn followed_by_added(text: &str, s: &Slot) -> bool {
    let rest = cut::after(text, s.end);
    let first = words(cut::before(rest, rest.len().min(16)));
    first.first().is_some_and(|w| ADDED.contains(&w.as_str()))
}

/// The amount a part `p` is taken from: among the counts before it and the program's values
/// computed from them alone, those not smaller than `p` originally; the latest, and of equally
/// late ones the smallest.
pub(super) fn nearest_whole(
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

/// A number written after "only" in a sentence that named another count before it ("Terry
/// took 8 bushels, while Jerry only took 3") stays below that count.
pub(super) fn only_less(text: &str, slots: &[Slot], counts: &[bool], out: &mut Vec<ReaderRule>) {
    for (p, s) in slots.iter().enumerate() {
        if !counts[p] {
            continue;
        }
        let before = words(clause_before(text, s.start));
        if !before.iter().rev().take(3).any(|w| w == "only") {
            continue;
        }
        let sentence_start = sentence_start(text, s.start);
        let earlier = (0..p).rev().find(|&j| {
            counts[j]
                && slots[j].start >= sentence_start
                && slots[j].value.cmp_num(s.value) == Ordering::Greater
        });
        if let Some(j) = earlier {
            out.push(ReaderRule::order(
                Side::Slot(p as u32),
                Side::Slot(j as u32),
                true,
                "'only': less than the count before it",
            ));
        }
    }
}
