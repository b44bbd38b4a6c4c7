//! What a number counts, as the words right after it say ("40 minutes", "$200 an hour"): the
//! evidence the solution text gives when an operand's value could be more than one earlier
//! quantity. "40 minutes + 100 minutes + 20 minutes" reads the 40 of an earlier step's
//! "40 minutes", not the question's "40%".

use crate::cut;
use crate::num::Num;

/// The unit a number is written with: the first word after it (lower case, a plural's `s`
/// dropped), `$`-prefixed when a dollar sign precedes the number; `%` is a word of its own.
pub(super) type Label = String;

/// Words after a number that say nothing of what it counts: operators, connectives, articles.
const NOT_A_UNIT: &[&str] = &[
    "x",
    "times",
    "time",
    "plus",
    "minus",
    "divided",
    "multiplied",
    "equals",
    "equal",
    "is",
    "are",
    "was",
    "were",
    "and",
    "or",
    "to",
    "by",
    "of",
    "more",
    "less",
    "than",
    "for",
    "the",
    "a",
    "an",
    "per",
    "each",
    "at",
    "in",
    "on",
    "so",
    "then",
    "which",
    "that",
    "because",
    "from",
    "with",
    "left",
    "total",
    "altogether",
];

/// Words that make the next one a rate ("$200 an hour", "3 miles per hour").
const RATE: &[&str] = &["a", "an", "per", "each", "every"];

/// The label of the number that ends just before `after` (`dollar`: a `$` precedes it).
pub(super) fn label_after(after: &str, dollar: bool) -> Option<Label> {
    let rest = after.trim_start_matches(' ');
    if rest.starts_with('%') {
        return Some("%".to_string());
    }
    let (first, rest) = word(rest);
    let label = if let Some(per) = rest.strip_prefix('/').filter(|_| first.is_empty()) {
        // "$20/hour"
        let (unit, _) = word(per);
        if unit.is_empty() {
            return None;
        }
        format!("/{}", stem(unit))
    } else if RATE.contains(&first.as_str()) {
        let (unit, _) = word(rest.trim_start_matches(' '));
        if unit.is_empty() || NOT_A_UNIT.contains(&unit.as_str()) {
            return None;
        }
        format!("/{}", stem(unit))
    } else if first.is_empty() || NOT_A_UNIT.contains(&first.as_str()) {
        return None;
    } else {
        stem(first)
    };
    Some(if dollar { format!("${label}") } else { label })
}

/// The leading run of letters of `text`, lower case, and what follows it.
fn word(text: &str) -> (String, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (word, rest) = cut::split(text, end);
    (word.to_ascii_lowercase(), rest)
}

/// A plural's `s` dropped, so that "1 hour" and "2 hours" agree.
fn stem(word: String) -> String {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() > 2 => stem.to_string(),
        _ => word,
    }
}

/// Where the equation that ends `sentence` starts: numbers, operators and the unit words right
/// after a number ("40 minutes + 100 minutes + 20 minutes = "), back to the first other word or
/// punctuation mark ("... and to wait for Windows to update: ").
pub(super) fn equation_start(sentence: &str) -> usize {
    let is_expr = |c: char| c.is_ascii_digit() || " +-*/=()$%.×÷−–".contains(c);
    let mut i = sentence.len();
    loop {
        let mut head = cut::before(sentence, i).chars();
        let Some(c) = head.next_back() else {
            break;
        };
        let before = head.as_str();
        if is_expr(c) || (c == ',' && before.ends_with(|d: char| d.is_ascii_digit())) {
            i -= c.len_utf8();
            continue;
        }
        if !c.is_ascii_alphabetic() {
            break;
        }
        // A word belongs to the equation when it is part of a number's unit ("40 minutes",
        // "20 red pens", "2 GB/minute", "$200 an hour").
        let start = word_start(sentence, i);
        let times = cut::between(sentence, start, i).eq_ignore_ascii_case("x");
        if !times && !unit_of_a_number(cut::before(sentence, start)) {
            break;
        }
        i = start;
    }
    i
}

/// Where the run of letters that ends at `end` starts.
fn word_start(text: &str, end: usize) -> usize {
    cut::before(text, end)
        .char_indices()
        .rev()
        .find(|(_, ch)| !ch.is_ascii_alphabetic())
        .map_or(0, |(j, ch)| j + ch.len_utf8())
}

/// Whether a word after `before` is one of the first two after a number (or after a rate's
/// "an", "per"), as "minutes" in "40 minutes" and "pens" in "20 red pens".
fn unit_of_a_number(before: &str) -> bool {
    let mut before = before.trim_end_matches(' ');
    for _ in 0..2 {
        if before.ends_with(|ch: char| ch.is_ascii_digit() || ch == '/' || ch == '%') {
            return true;
        }
        if !before.ends_with(|ch: char| ch.is_ascii_alphabetic()) {
            return false;
        }
        let word = last_word(before);
        if RATE.contains(&word.to_ascii_lowercase().as_str()) {
            // `word` is the end of `before`, which has no trailing space.
            return cut::before(before, before.len() - word.len())
                .trim_end_matches(' ')
                .ends_with(|ch: char| ch.is_ascii_digit());
        }
        before = cut::before(before, word_start(before, before.len())).trim_end_matches(' ');
    }
    false
}

/// The last space-separated word of `text`.
fn last_word(text: &str) -> &str {
    text.trim_end_matches(' ').rsplit(' ').next().unwrap_or("")
}

/// Every number written in `text` with its value and label, in order.
pub(super) fn labelled_numbers(text: &str) -> Vec<(Num, Option<Label>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let glued = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.');
        if !starts || glued {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit()
                || ((b[i] == b'.' || b[i] == b',') && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
        {
            i += 1;
        }
        let digits = cut::between(text, start, i).replace(',', "");
        let dollar = cut::before(text, start)
            .trim_end_matches(' ')
            .ends_with('$');
        if let Some(v) = Num::parse_decimal(&digits) {
            out.push((v, label_after(cut::after(text, i), dollar)));
        }
    }
    out
}

/// The label `text` gives every number of value `value` in it, when they all agree.
pub(super) fn label_of(numbers: &[(Num, Option<Label>)], value: Num) -> Option<Label> {
    let mut found: Option<&Label> = None;
    for (v, label) in numbers {
        if !v.eq_num(value) {
            continue;
        }
        match (found, label) {
            (_, None) => return None,
            (None, Some(l)) => found = Some(l),
            (Some(f), Some(l)) if f != l => return None,
            _ => {}
        }
    }
    found.cloned()
}

/// Which one of `candidates` (for each quantity an operand could be, the labels it may be written
/// with) the operand's label names, when exactly one does and every candidate has labels.
pub(super) fn decided_by(label: Option<&Label>, candidates: &[Vec<Label>]) -> Option<usize> {
    let label = label?;
    if candidates.iter().any(Vec::is_empty) {
        return None;
    }
    let mut matching = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.contains(label));
    let (first, _) = matching.next()?;
    matching.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_the_unit_word_after_the_number() {
        let n = labelled_numbers("40 minutes + 100 minutes + $20 an hour, 40% of 2.5 GB x 3");
        let labels: Vec<Option<&str>> = n.iter().map(|(_, l)| l.as_deref()).collect();
        assert_eq!(
            labels,
            vec![
                Some("minute"),
                Some("minute"),
                Some("$/hour"),
                Some("%"),
                Some("gb"),
                None
            ]
        );
        assert_eq!(n[4].0, Num::parse_decimal("2.5").unwrap());
        assert_eq!(label_after(" dollars", true).as_deref(), Some("$dollar"));
        assert_eq!(label_after(" an hour", true).as_deref(), Some("$/hour"));
        assert_eq!(label_after("/hour", true).as_deref(), Some("$/hour"));
    }

    #[test]
    fn the_equation_is_the_end_of_the_sentence_made_of_numbers_and_their_units() {
        let s = "Then add the time to download 40% of the file: 40 minutes + 100 minutes = ";
        assert_eq!(
            cut::after(s, equation_start(s)),
            " 40 minutes + 100 minutes = "
        );
        let s = "so that’s 2400*.50 = $";
        assert_eq!(cut::after(s, equation_start(s)), " 2400*.50 = $");
        let s = "They charge $200 an hour × 3 = ";
        assert_eq!(cut::after(s, equation_start(s)), " $200 an hour × 3 = ");
        let s = "so they get 20 red pens x $3 = ";
        assert_eq!(cut::after(s, equation_start(s)), " 20 red pens x $3 = ");
    }

    #[test]
    fn numbers_of_one_value_must_agree() {
        let n = labelled_numbers("40 minutes then 40 GB");
        assert_eq!(label_of(&n, Num::int(40)), None);
        let n = labelled_numbers("40 minutes then 40 minutes, 3 cats");
        assert_eq!(label_of(&n, Num::int(40)).as_deref(), Some("minute"));
        assert_eq!(label_of(&n, Num::int(7)), None);
    }

    #[test]
    fn only_a_single_match_among_labelled_candidates_decides() {
        let l = |s: &str| vec![s.to_string()];
        let minute = Some("minute".to_string());
        assert_eq!(decided_by(minute.as_ref(), &[l("%"), l("minute")]), Some(1));
        assert_eq!(
            decided_by(minute.as_ref(), &[l("minute"), l("minute")]),
            None
        );
        assert_eq!(decided_by(minute.as_ref(), &[vec![], l("minute")]), None);
        assert_eq!(decided_by(minute.as_ref(), &[l("%"), l("gb")]), None);
        assert_eq!(decided_by(None, &[l("%"), l("minute")]), None);
        // A unit constant is written with any of its units' words.
        let sixty = vec!["minute".to_string(), "hour".to_string()];
        assert_eq!(decided_by(minute.as_ref(), &[sixty, l("minute")]), None);
    }
}
