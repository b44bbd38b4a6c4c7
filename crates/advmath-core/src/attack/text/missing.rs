//! GSM-Plus's "critical thinking" by rule: one number the answer needs is taken out of the
//! question, so that the right reply is that it cannot be answered.
//!
//! Which numbers the answer needs, the program says ([`needed_slots`]: a number written twice for
//! one quantity is needed at neither place). The text is rewritten only where the sentence stays
//! English without the number (the rules are in `phrase`):
//! - a count before a plural noun, or before one or two describing words and a plural noun,
//!   becomes "a certain number of" ("3 notebooks", "17 green jelly beans", "80 post-it notes",
//!   "pieces 6 inches long"); "3 of" becomes "some of" or "several of", and "5 more apples" (not
//!   compared: no "than") "some more apples"; "rang 20 times before" becomes "a certain number of
//!   times"; "12 kg of apples" becomes "a certain amount of apples";
//! - a measure with its unit becomes one phrase ("a speed of 20 yards per minute," → "a certain
//!   speed,"), as does an amount or a percentage that qualifies a noun ("a $300 bonus", "a 50%
//!   chance" → "a certain bonus", "a certain chance");
//! - money becomes "a certain amount" ("at $4 each", "€1500", "$300/hour" → "a certain amount per
//!   hour"), and a percentage "a certain percentage".
//!
//! Anything else is refused rather than guessed: a number after a determiner ("his 5 friends", "a
//! $5 bill"), a label ("Grade 5 students"; a capitalised word opening its sentence, "After 5
//! days", is none), another number ("2 15 minute breaks") or "of" ("an average of 30 students");
//! one glued to a hyphen, slash or colon ("5-day", "1/2", "8:00"); an age; a one; a number word; a
//! comparative or a factor ("4 more friends than", "3 times as many"). Blind readers found "some"
//! and "several" odd before a measure or a rate ("skip at several miles per hour"), so a plural
//! noun takes only "a certain number of".

mod needed;
mod phrase;

pub use needed::needed_slots;

use crate::cut;
use crate::question::Slot;
use crate::seed::mix;
use phrase::{capitalised_at, phrase};

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
            ("She has 3 6-inch boxes. How many?", 0),
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
    fn a_count_before_two_describing_words_or_a_hyphened_one_becomes_an_indefinite() {
        for (text, rest) in [
            (
                "She sees 17 green jelly beans. How many?",
                " green jelly beans.",
            ),
            (
                "She put 80 post-it notes in a bag. How many?",
                " post-it notes in",
            ),
            ("He saw 6 jellyfish glow. How many?", " jellyfish glow."),
        ] {
            let out = only(text, 0, 1).unwrap();
            assert!(out.contains(&format!("a certain number of{rest}")), "{out}");
        }
        assert_eq!(
            only("He has 5 red and 3 blue marbles. How many?", 0, 1),
            Err(MissingRefusal::NoPhrase)
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
    fn a_measure_its_number_and_its_unit_become_one_phrase() {
        assert_eq!(
            only(
                "He swims at a speed of 20 yards per minute, and walks. How long?",
                0,
                1
            )
            .unwrap(),
            "He swims at a certain speed, and walks. How long?"
        );
        assert_eq!(
            only("The tree has a height of 6 feet. How tall?", 0, 1).unwrap(),
            "The tree has a certain height. How tall?"
        );
        assert_eq!(
            only("She has a budget of €1500. How much is left?", 0, 1).unwrap(),
            "She has a certain budget. How much is left?"
        );
        // The phrase reads on past the unit: the measure is compared, not stated.
        assert_eq!(
            only(
                "It has a height of 5 feet more than the oak. How tall?",
                0,
                1
            ),
            Err(MissingRefusal::NoPhrase)
        );
    }

    #[test]
    fn rates_short_units_occurrences_and_more_take_their_own_indefinites() {
        assert_eq!(
            only("The doctor charges $300/hour for a visit. How much?", 0, 1).unwrap(),
            "The doctor charges a certain amount per hour for a visit. How much?"
        );
        assert_eq!(
            only("There's a 50% chance of rain and a $300 bonus. What?", 0, 1).unwrap(),
            "There's a certain chance of rain and a $300 bonus. What?"
        );
        assert_eq!(
            only("There's a 50% chance of rain and a $300 bonus. What?", 1, 1).unwrap(),
            "There's a 50% chance of rain and a certain bonus. What?"
        );
        assert_eq!(
            only("She pays with a $5 bill. How much change?", 0, 1),
            Err(MissingRefusal::NoPhrase)
        );
        assert_eq!(
            only("They bought 12 kg of apples. How much each?", 0, 1).unwrap(),
            "They bought a certain amount of apples. How much each?"
        );
        assert_eq!(
            only(
                "He rang the bell 20 times before she opened. How many?",
                0,
                1
            )
            .unwrap(),
            "He rang the bell a certain number of times before she opened. How many?"
        );
        let more = only("The wind caused 5 more apples to fall. How many?", 0, 1).unwrap();
        assert!(
            more.contains("caused some more apples") || more.contains("caused several more apples"),
            "{more}"
        );
        assert_eq!(
            only(
                "After 5 days, how many hours do his breaks add up to?",
                0,
                1
            )
            .unwrap(),
            "After a certain number of days, how many hours do his breaks add up to?"
        );
    }

    #[test]
    fn an_indefinite_opening_a_sentence_takes_a_capital() {
        let out = only("5 boys and 4 girls play. How many children?", 0, 3).unwrap();
        assert!(out.starts_with("A certain number of boys"), "{out}");
    }
}
