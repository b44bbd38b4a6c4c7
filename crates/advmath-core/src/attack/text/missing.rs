//! GSM-Plus's "critical thinking" by rule: one number the answer needs is taken out of the
//! question, so that the right reply is that it cannot be answered.
//!
//! Which numbers the answer needs is the caller's to say (the program's tree knows; a number the
//! question states twice for one quantity is not needed at either place). This module only
//! rewrites the text, and only where the sentence stays grammatical without reading it:
//! - a count before a plural noun becomes "a certain number of" ("3 notebooks" → "a certain
//!   number of notebooks", "pieces 6 inches long" → "pieces a certain number of inches long"), and
//!   "3 of" becomes "some of" or "several of" (blind readers found "some" and "several" odd before
//!   a measure or a rate: "skip at several miles per hour");
//! - an amount of money becomes "a certain amount" ("at $4 each" → "at a certain amount each");
//! - a percentage becomes "a certain percentage" ("20% of" → "a certain percentage of").
//!
//! Anything else is refused rather than guessed: a number after a determiner ("his 5 friends",
//! "a $5 bill", "the 3 boys") or a capitalised label ("Grade 5 students"), one glued to a hyphen,
//! a slash or a colon ("5-day", "1/2", "8:00") or following another number ("2 15 minute
//! breaks"), an age ("12 years old"), a one ("1 pen" has no plural), a number written as a word,
//! one inside a measure ("an average of 30 students"), a comparative or a factor ("4 more
//! friends than", "3 times as many"), and one before a word that is neither a plural noun nor one
//! describing word before a plural noun ("5 dozen eggs", "5 dollar bills"; "3 large boxes" reads
//! as "a certain number of large boxes").

use crate::cut;
use crate::num::Num;
use crate::program::{ConstKind, Node, Program};
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
/// The indefinite before a plural noun.
const A_CERTAIN_NUMBER: &str = COUNTS[2];

/// Words after which a number is part of a noun phrase an indefinite cannot enter.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "his", "her", "their", "its", "my", "our",
    "your", "every", "each", "per", "first", "last", "next", "another", "only", "all", "both",
];

/// Plurals that do not end in "s".
const IRREGULAR: &[&str] = &[
    "people", "children", "men", "women", "feet", "teeth", "geese", "mice", "sheep", "fish",
    "deer", "oxen", "cattle",
];

/// Words ending in "s" that are no plural noun after a number.
const NOT_PLURAL: &[&str] = &[
    "times",
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

/// Words between a count and a plural noun that describe no noun: function words, and units that
/// make the count part of a measure or a denomination ("5 dollar bills", "5 dozen eggs").
const NOT_DESCRIBING: &[&str] = &[
    "and", "or", "but", "nor", "to", "of", "in", "on", "at", "for", "by", "with", "from", "per",
    "each", "every", "are", "were", "was", "has", "have", "had", "will", "would", "can", "could",
    "did", "does", "than", "the", "times", "dozen", "hundred", "thousand", "million", "percent",
    "minute", "hour", "day", "week", "month", "year", "foot", "inch", "mile", "yard", "pound",
    "ounce", "cup", "gallon", "liter", "litre", "meter", "metre", "dollar", "cent", "pack", "box",
    "bag", "case", "page", "square", "cubic", "more", "less", "fewer", "other", "such", "all",
    "both", "who", "which", "that", "out", "off", "away", "back", "left", "together", "apiece",
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

/// Which of the question's slots the answer needs, under `values` (flags in slot order). A slot
/// is needed when the answer moves with it and nothing else in the question states it:
/// - a slot the program reads, tied to no other slot, whose value no slot the program leaves
///   unread shows (a number written twice for one quantity, read at one place only, is still
///   given at the other);
/// - a slot the program keeps as a stated constant (a number it uses at two places), when no
///   other slot of the question shows that value, so that the constant can only be this one.
pub fn needed_slots(program: &Program, values: &[Num]) -> Vec<bool> {
    let read = program.variable_slots();
    let tied = |i: u32| program.ties.iter().any(|t| t.slot == i || t.follows == i);
    let shown_elsewhere = |i: usize, unread_only: bool| {
        (0..values.len()).any(|j| {
            j != i
                && values[j].eq_num(values[i])
                && (!unread_only || read.binary_search(&(j as u32)).is_err())
        })
    };
    let answer = program.eval_value(values).ok();
    let moves = |changed: &Program, slots: &[Num]| {
        changed
            .eval_value(slots)
            .ok()
            .is_some_and(|a| Some(&a) != answer.as_ref())
    };
    let moved = |v: Num| {
        [
            v.add(Num::int(1)),
            v.mul(Num::int(2)).and_then(|d| d.add(Num::int(3))),
        ]
        .into_iter()
        .flatten()
    };
    (0..values.len())
        .map(|i| {
            let v = values[i];
            if read.binary_search(&(i as u32)).is_ok() {
                !tied(i as u32)
                    && !shown_elsewhere(i, true)
                    && moved(v).any(|w| {
                        let mut changed = values.to_vec();
                        changed[i] = w;
                        moves(program, &changed)
                    })
            } else {
                !shown_elsewhere(i, false)
                    && states(program, v)
                    && moved(v).any(|w| moves(&with_stated(program, v, w), values))
            }
        })
        .collect()
}

/// Whether the program keeps a number of the question of this value as a stated constant.
fn states(program: &Program, v: Num) -> bool {
    program
        .nodes
        .iter()
        .any(|n| matches!(n, Node::Const { value, kind: ConstKind::Stated(_) } if value.eq_num(v)))
}

/// The program with its stated constants of value `v` changed to `w`.
fn with_stated(program: &Program, v: Num, w: Num) -> Program {
    let mut changed = program.clone();
    for n in &mut changed.nodes {
        if let Node::Const {
            value,
            kind: ConstKind::Stated(_),
        } = n
        {
            if value.eq_num(v) {
                *value = w;
            }
        }
    }
    changed
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
    // "2 15 minutes breaks": two numbers in a row are one phrase, and an indefinite inside it
    // reads as neither.
    if head
        .trim_end_matches(' ')
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_digit())
    {
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
    let is_plural = |w: &str| {
        IRREGULAR.contains(&w) || w.len() > 2 && w.ends_with('s') && !NOT_PLURAL.contains(&w)
    };
    // "12 female lions", "3 large bags": one describing word, then the plural noun.
    let described = || {
        let Some((second, _)) = after_next
            .filter(|a| a.starts_with(' '))
            .and_then(first_word)
        else {
            return false;
        };
        next.len() > 2
            && !NOT_DESCRIBING.contains(&next.as_str())
            && second.chars().all(|c| c.is_lowercase())
            && is_plural(second)
    };
    // "an average of 30 students", "a total of 12 eggs": the count is a measure inside a noun
    // phrase, and an indefinite there reads as none.
    if previous.is_some_and(|w| w.eq_ignore_ascii_case("of")) {
        return None;
    }
    if is_plural(&next) || described() {
        // "some inches long", "several miles per hour", "several yogurts for $5": blind readers
        // found "some" and "several" odd before a measure or a rate; "a certain number of" reads
        // before every plural noun.
        return Some((start, end, A_CERTAIN_NUMBER.to_string()));
    }
    // "3 of the cookies" → "some of the cookies"; a comparative ("4 more friends than") or a
    // factor ("3 times as many") reads oddly with any indefinite, and is refused.
    if next != "of" {
        return None;
    }
    let with = COUNTS[(mix(seed ^ slot.start as u64) % 2) as usize];
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
    use super::{needed_slots, withhold, MissingRefusal};
    use crate::num::wide::Value;
    use crate::program::{validate_program, AlignMode, Links};
    use crate::question::find_slots;

    fn needed(q: &str, src: &str, gold: &str) -> Vec<bool> {
        let slots = find_slots(q);
        let program = validate_program(
            src,
            q,
            &slots,
            Value::parse_decimal(gold),
            AlignMode::Given,
            Links::DIGITS,
        )
        .unwrap();
        let values: Vec<_> = slots.iter().map(|s| s.value).collect();
        needed_slots(&program, &values)
    }

    #[test]
    fn a_number_is_needed_when_the_answer_moves_with_it_and_nothing_else_states_it() {
        assert_eq!(
            needed(
                ANA,
                "n = 3\np = 4\nk = 2\nq = 1\nprint(n * p + k * q)",
                "14"
            ),
            [true, true, true, true]
        );
        // Multiplied by nothing that moves: 0 times anything is 0.
        assert_eq!(
            needed(
                "She has 0 boxes of 6 pens and 5 pencils. How many?",
                "b = 0\np = 6\nc = 5\nprint(b * p + c)",
                "5"
            ),
            [true, false, true]
        );
        // "12 female lions, half as many male lions, and 14 cubs": a program that uses the 12
        // twice keeps it as a stated constant, which only the slot of that value can give.
        let stated = crate::program::Program::from_json(
            r#"{"nodes":[{"node":"const","value":"12","kind":"stated","detail":"12"},
            {"node":"const","value":"2","kind":"word","detail":"half"},
            {"node":"bin","op":"div","lhs":0,"rhs":1},
            {"node":"const","value":"12","kind":"stated","detail":"12"},
            {"node":"bin","op":"add","lhs":3,"rhs":2},{"node":"leaf","slot":1},
            {"node":"bin","op":"add","lhs":4,"rhs":5}],"answer":6}"#,
        )
        .unwrap();
        let (twelve, fourteen) = (crate::num::Num::int(12), crate::num::Num::int(14));
        assert_eq!(needed_slots(&stated, &[twelve, fourteen]), [true, true]);
        assert_eq!(
            needed_slots(&stated, &[twelve, fourteen, twelve]),
            [false, true, false],
            "two slots could give the constant"
        );
        // "He has 12 eggs and uses 5. Of the 12 eggs, ...": the program reads the first 12; the
        // second restates it, so neither is needed.
        let restated = crate::program::Program::from_json(
            r#"{"nodes":[{"node":"leaf","slot":0},{"node":"leaf","slot":1},
            {"node":"bin","op":"sub","lhs":0,"rhs":1}],"answer":2}"#,
        )
        .unwrap();
        let five = crate::num::Num::int(5);
        assert_eq!(
            needed_slots(&restated, &[twelve, five, twelve]),
            [false, true, false]
        );
    }

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
        assert_eq!(
            out,
            "Ana buys a certain number of notebooks at $4 each and 2 pens at $1 each. How much \
             does she spend?"
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
            ("He paid with 5 dollar bills. How much?", 0),
            ("She has 3 large-sized boxes. How many?", 0),
            ("It starts at 8:00 and takes 2 hours. When?", 0),
            ("The 3 boys ate. How many?", 0),
            ("He takes 2 15 minute breaks. How long?", 1),
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
    fn a_count_before_one_describing_word_and_its_noun_becomes_an_indefinite() {
        let out = only("She counts 12 female lions. How many?", 0, 1).unwrap();
        assert!(
            out.ends_with(" female lions. How many?") && !out.contains("12"),
            "{out}"
        );
    }

    #[test]
    fn of_takes_some_or_several_and_comparatives_and_factors_are_refused() {
        for seed in 0..20 {
            let of = only("She ate 3 of the cookies. How many are left?", 0, seed).unwrap();
            assert!(
                of.contains("ate some of") || of.contains("ate several of"),
                "{of}"
            );
        }
        for text in [
            "Amy made 4 more friends than Lily. How many?",
            "He has 3 times as many. How many?",
            "It enrolls an average of 30 students. How many?",
        ] {
            assert_eq!(only(text, 0, 1), Err(MissingRefusal::NoPhrase), "{text}");
        }
    }

    #[test]
    fn an_indefinite_opening_a_sentence_takes_a_capital() {
        let out = only("5 boys and 4 girls play. How many children?", 0, 3).unwrap();
        assert!(out.starts_with("A certain number of boys"), "{out}");
    }
}
