//! GSM-Plus's "critical thinking" by rule: one number the answer needs is taken out of the
//! question, so that the right reply is that it cannot be answered.
//!
//! Which numbers the answer needs is the caller's to say (the program's tree knows; a number the
//! question states twice for one quantity is not needed at either place). This module only
//! rewrites the text, and only where the sentence stays grammatical without reading it:
//! - a count before a plural noun becomes an indefinite ("3 notebooks" → "some notebooks",
//!   "several notebooks", "a certain number of notebooks"), as do "3 more" and "3 of" ("some
//!   more", "several of") and "3 times" ("several times");
//! - an amount of money becomes "a certain amount" ("at $4 each" → "at a certain amount each");
//! - a percentage becomes "a certain percentage" ("20% of" → "a certain percentage of").
//!
//! Anything else is refused rather than guessed: a number after a determiner ("his 5 friends",
//! "a $5 bill", "the 3 boys") or a capitalised label ("Grade 5 students"), one glued to a hyphen, a slash or a colon ("5-day", "1/2",
//! "8:00"), an age ("12 years old"), a one ("1 pen" has no plural), a number written as a word,
//! and one before a word that is not a plural noun ("5 dozen", "3 large boxes").

use crate::cut;
use crate::question::Slot;
use crate::seed::mix;

/// A question with one needed number taken out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Withheld {
    pub text: String,
    /// The slot taken out (an index into the question's slots).
    pub slot: usize,
}

/// Why a question takes no such edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingRefusal {
    /// No number the answer needs.
    NothingNeeded,
    /// No needed number is written where an indefinite reads as English (see the module doc).
    NoPhrase,
}

impl MissingRefusal {
    pub const ALL: [MissingRefusal; 2] = [MissingRefusal::NothingNeeded, MissingRefusal::NoPhrase];

    pub const fn name(self) -> &'static str {
        match self {
            MissingRefusal::NothingNeeded => "nothing_needed",
            MissingRefusal::NoPhrase => "no_phrase",
        }
    }
}

/// The indefinites a count may become, drawn by the seed.
const COUNTS: [&str; 3] = ["some", "several", "a certain number of"];

/// Words after which a number is part of a noun phrase an indefinite cannot enter.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "his", "her", "their", "its", "my", "our",
    "your", "every", "each", "per", "first", "last", "next", "another", "only", "all", "both",
];

/// Words that may follow a count in place of a plural noun.
const AFTER_COUNT: &[&str] = &[
    "more",
    "of",
    "times",
    "fewer",
    "less",
    "extra",
    "additional",
];

/// Plurals that do not end in "s".
const IRREGULAR: &[&str] = &[
    "people", "children", "men", "women", "feet", "teeth", "geese", "mice", "sheep", "fish",
    "deer", "oxen", "cattle",
];

/// Words ending in "s" that are no plural noun after a number.
const NOT_PLURAL: &[&str] = &[
    "is",
    "was",
    "has",
    "does",
    "goes",
    "makes",
    "takes",
    "gets",
    "costs",
    "plus",
    "minus",
    "less",
    "this",
    "his",
    "its",
    "as",
    "us",
    "yes",
    "always",
    "perhaps",
    "across",
    "towards",
    "afterwards",
];

/// Words that may follow a sum of money or a percentage where an indefinite reads well.
const AFTER_AMOUNT: &[&str] = &[
    "each", "per", "a", "an", "for", "on", "in", "to", "and", "or", "every", "apiece", "from",
    "of", "off", "at", "with", "than", "more", "less", "into", "by", "if", "but", "so", "then",
    "after", "before", "when", "while", "because", "until",
];

/// `text` with one of the `needed` slots (flags in slot order) taken out, drawn from `seed`.
pub fn withhold(
    text: &str,
    slots: &[Slot],
    needed: &[bool],
    seed: u64,
) -> Result<Withheld, MissingRefusal> {
    let candidates: Vec<usize> = (0..slots.len())
        .filter(|&i| needed.get(i).copied().unwrap_or(false))
        .collect();
    if candidates.is_empty() {
        return Err(MissingRefusal::NothingNeeded);
    }
    let phrased: Vec<(usize, (usize, usize, String))> = candidates
        .into_iter()
        .filter_map(|i| phrase(text, &slots[i], seed).map(|p| (i, p)))
        .collect();
    if phrased.is_empty() {
        return Err(MissingRefusal::NoPhrase);
    }
    let pick = (mix(seed) % phrased.len() as u64) as usize;
    let (slot, (start, end, with)) = &phrased[pick];
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(cut::before(text, *start));
    out.push_str(&capitalised_at(text, *start, with));
    out.push_str(cut::after(text, *end));
    Ok(Withheld {
        text: out,
        slot: *slot,
    })
}

/// The span a slot's indefinite replaces and the indefinite, where one reads as English.
fn phrase(text: &str, slot: &Slot, seed: u64) -> Option<(usize, usize, String)> {
    if slot.word {
        return None;
    }
    let before = cut::before(text, slot.start);
    let after = cut::after(text, slot.end);
    let money = before.ends_with('$');
    let percent = after.starts_with('%');
    let start = if money { slot.start - 1 } else { slot.start };
    let end = if percent { slot.end + 1 } else { slot.end };
    let head = cut::before(text, start);
    let tail = cut::after(text, end);
    // "5-day", "1/2", "8:00", "3.5.", "(5)": part of something larger than a number.
    let glued =
        |c: Option<char>| c.is_some_and(|c| matches!(c, '-' | '/' | ':' | '.' | ',' | '(' | '#'));
    if glued(head.chars().next_back()) || tail.starts_with(['-', '/', ':']) {
        return None;
    }
    let previous = last_word(head);
    if previous.is_some_and(|w| DETERMINERS.contains(&w.to_lowercase().as_str())) {
        return None;
    }
    // "Grade 5 students", "Room 12": a label, not a count.
    if previous.is_some_and(|w| w.starts_with(char::is_uppercase)) && !opens_sentence(head) {
        return None;
    }
    let (next, after_next) = first_word(tail).unzip();
    let next_lower = next.map(str::to_lowercase);
    let punct_next = tail
        .trim_start_matches(' ')
        .starts_with(['.', ',', '?', '!', ';']);
    if money || percent {
        let reads = punct_next
            || next_lower
                .as_deref()
                .is_some_and(|w| AFTER_AMOUNT.contains(&w));
        let with = if money {
            "a certain amount"
        } else {
            "a certain percentage"
        };
        return reads.then(|| (start, end, with.to_string()));
    }
    if slot.value.eq_num(crate::num::Num::int(1)) {
        return None;
    }
    let next = next_lower?;
    let second = after_next.and_then(first_word).map(|(w, _)| w);
    if next == "years" && second.is_some_and(|w| w.eq_ignore_ascii_case("old")) {
        return None;
    }
    let plural = IRREGULAR.contains(&next.as_str())
        || next.len() > 2 && next.ends_with('s') && !NOT_PLURAL.contains(&next.as_str());
    if !(plural || AFTER_COUNT.contains(&next.as_str())) {
        return None;
    }
    // "several more", "some of", "several times": "a certain number of" reads only before a noun.
    let choices: &[&str] = match next.as_str() {
        "times" => &COUNTS[1..2],
        _ if plural => &COUNTS,
        _ => &COUNTS[..2],
    };
    let with = choices[(mix(seed ^ slot.start as u64) % choices.len() as u64) as usize];
    Some((start, end, with.to_string()))
}

/// Whether what follows `head` opens a sentence.
fn opens_sentence(head: &str) -> bool {
    head.trim_end_matches(' ')
        .chars()
        .next_back()
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | '\n'))
}

/// The indefinite as written at `at`: with a capital where it opens a sentence.
fn capitalised_at(text: &str, at: usize, with: &str) -> String {
    let mut chars = with.chars();
    match (opens_sentence(cut::before(text, at)), chars.next()) {
        (true, Some(c)) => c.to_uppercase().chain(chars).collect(),
        _ => with.to_string(),
    }
}

/// The last word of `text` when only spaces follow it.
fn last_word(text: &str) -> Option<&str> {
    let trimmed = text.trim_end_matches(' ');
    if trimmed.len() == text.len() && !text.is_empty() {
        // No space between the word and the number: "x5", "#5".
        return None;
    }
    let start = trimmed
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map(|(i, _)| i)?;
    Some(cut::after(trimmed, start))
}

/// The first word of `text` after its leading spaces, and the text after it.
fn first_word(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_start_matches(' ');
    let end = trimmed
        .char_indices()
        .find(|(_, c)| !c.is_alphabetic())
        .map_or(trimmed.len(), |(i, _)| i);
    (end > 0).then(|| cut::split(trimmed, end))
}

#[cfg(test)]
mod tests {
    use super::{withhold, MissingRefusal};
    use crate::question::find_slots;

    fn only(text: &str, slot: usize, seed: u64) -> Result<String, MissingRefusal> {
        let slots = find_slots(text);
        let needed: Vec<bool> = (0..slots.len()).map(|i| i == slot).collect();
        withhold(text, &slots, &needed, seed).map(|w| w.text)
    }

    const ANA: &str =
        "Ana buys 3 notebooks at $4 each and 2 pens at $1 each. How much does she spend?";

    #[test]
    fn a_count_before_its_plural_noun_becomes_an_indefinite() {
        let out = only(ANA, 0, 1).unwrap();
        let rest = " notebooks at $4 each and 2 pens at $1 each. How much does she spend?";
        assert!(
            ["some", "several", "a certain number of"]
                .iter()
                .any(|w| out == format!("Ana buys {w}{rest}")),
            "{out}"
        );
    }

    #[test]
    fn money_and_percentages_become_a_certain_amount() {
        assert_eq!(
            only(ANA, 1, 1).unwrap(),
            "Ana buys 3 notebooks at a certain amount each and 2 pens at $1 each. How much does \
             she spend?"
        );
        assert_eq!(
            only("He pays 20% of $50. How much?", 0, 1).unwrap(),
            "He pays a certain percentage of $50. How much?"
        );
    }

    #[test]
    fn what_does_not_read_as_english_is_refused() {
        for (text, slot) in [
            ("His 5 friends came. How many?", 0),
            ("She had a $5 bill and 3 coins. How much?", 0),
            ("A 5-day trip costs $30. How much per day?", 0),
            ("He is 12 years old and has 4 cats. How old?", 0),
            ("She buys 1 pen for $2. How much?", 0),
            ("He baked 5 dozen cookies. How many?", 0),
            ("It starts at 8:00 and takes 2 hours. When?", 0),
            ("The 3 boys ate. How many?", 0),
            (
                "Out of the 200 Grade 5 students, 2/5 are boys. How many?",
                1,
            ),
        ] {
            assert_eq!(only(text, slot, 1), Err(MissingRefusal::NoPhrase), "{text}");
        }
        assert_eq!(
            only(ANA, 9, 1),
            Err(MissingRefusal::NothingNeeded),
            "no slot is needed"
        );
    }

    #[test]
    fn more_of_and_times_take_only_the_indefinites_that_read() {
        for seed in 0..20 {
            let more = only("Amy made 4 more friends than Lily. How many?", 0, seed).unwrap();
            assert!(
                more.contains("some more") || more.contains("several more"),
                "{more}"
            );
            let times = only("He has 3 times as many. How many?", 0, seed).unwrap();
            assert_eq!(times, "He has several times as many. How many?");
        }
    }

    #[test]
    fn an_indefinite_opening_a_sentence_takes_a_capital() {
        let out = only("5 boys and 4 girls play. How many children?", 0, 3).unwrap();
        assert!(
            out.starts_with("Some boys")
                || out.starts_with("Several boys")
                || out.starts_with("A certain number of boys"),
            "{out}"
        );
    }
}
