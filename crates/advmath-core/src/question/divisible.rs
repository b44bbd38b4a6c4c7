//! Numbers that measure something divisible, which GSM-Plus's integer–decimal–fraction
//! conversion may write in parts ("$4.50", "2.5 hours"): money, a duration in
//! hours or minutes, a length, a weight or a volume. A count of things that come whole (people,
//! eggs, cars, pages, days of a schedule) stays whole, and so does every measure a part of
//! would not read as one: a speed or a temperature (a rate or a reading, not an amount), an
//! age, a frequency, a percentage, a number written as a word. Only the word that touches the
//! number is its unit ("12 apples that weigh a pound" counts apples).

use super::physical::{quantity_of, Quantity};
use super::Slot;
use crate::cut;
use crate::num::Num;

/// What a divisible number measures: two numbers of one measure divide into a count ("$10 at
/// $2.50 each" is 4 things), of two measures into a rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Measure {
    Money,
    Time,
    Length,
    Weight,
    Volume,
}

/// Durations a part of which is still one ("2.5 hours"); a day or a week is most often a
/// count in a schedule ("5 days a week").
const TIME_WORDS: &[&str] = &[
    "hour", "hours", "hr", "hrs", "minute", "minutes", "min", "mins",
];

/// A divisible number: an amount of one measure, or a rate of it per unit of another ("$10 an
/// hour", "55 miles per hour", "$11 per pound"). A rate per thing counted ("8 cups every day")
/// is an amount of its measure for each, and reads as an amount.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Divisible {
    pub measure: Measure,
    pub per: Option<Measure>,
    /// Whether a conversion may write it in parts: a whole number above one ("1 pound" in parts
    /// would change the noun's number), not the larger unit of a compound ("8 feet and 4
    /// inches"), not a person's height ("7 feet tall": a part more reads as a giant).
    pub convertible: bool,
}

impl Divisible {
    /// The same number, kept whole when it is money and money is not to be converted (its
    /// measure still tells the tree's nodes what they hold).
    pub fn unless_money(self, money: bool) -> Divisible {
        Divisible {
            convertible: self.convertible && (money || self.measure != Measure::Money),
            ..self
        }
    }
}

/// The slots (in digits) that measure something divisible, with what they measure: all of them,
/// so that a tree's nodes read their dimensions, and which of them a conversion may change.
pub fn divisible_slots(text: &str, slots: &[Slot]) -> Vec<(u32, Divisible)> {
    slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.word)
        .filter_map(|(i, s)| {
            let (measure, rest) = measure(text, s)?;
            let whole = s.decimals == 0
                && !s.thousands
                && s.value.is_integer()
                && s.value.cmp_num(Num::ONE).is_gt();
            Some((
                i as u32,
                Divisible {
                    measure,
                    per: per(rest),
                    convertible: whole && !compound_or_height(rest),
                },
            ))
        })
        .collect()
}

/// Whether the text after a number's unit makes it the larger unit of a compound ("feet and 4
/// inches", "hours 30 minutes") or a height ("feet tall").
fn compound_or_height(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', ',']);
    let rest = rest.strip_prefix("and ").unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit()) || rest.starts_with("tall")
}

/// Whether the question asks for a count of things that come whole ("how many boxes"), not an
/// amount ("how many miles", "how much"): its answer then stays a whole number.
pub fn asks_for_count(question: &str) -> bool {
    let lower = question.to_lowercase();
    let Some(at) = lower.rfind("how many") else {
        return false;
    };
    let mut words = cut::after(&lower, at + "how many".len())
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .skip_while(|w| {
            matches!(
                *w,
                "more" | "fewer" | "less" | "total" | "additional" | "extra"
            )
        });
    words.next().is_some_and(|w| unit(w).is_none())
}

/// What the number at `s` measures, read from the characters around it, and the text after its
/// unit.
fn measure<'t>(text: &'t str, s: &Slot) -> Option<(Measure, &'t str)> {
    let before = cut::before(text, s.start);
    let rest = cut::after(text, s.end);
    if before.ends_with('$') {
        // "$4" is money, "$4 million" a sum whose parts read otherwise.
        let next = rest.trim_start().split(|c: char| !c.is_alphabetic()).next();
        return (!matches!(next, Some("million" | "billion" | "thousand")))
            .then_some((Measure::Money, rest));
    }
    let touching = rest.strip_prefix([' ', '-']).unwrap_or(rest);
    let word = first_word(touching)?;
    let after = cut::after(touching, word.len());
    // "8-feet" is a compound's first unit as much as "8 feet".
    let after = after.strip_prefix('-').unwrap_or(after);
    Some((unit(&word.to_lowercase())?, after))
}

/// The alphabetic word `text` starts with.
fn first_word(text: &str) -> Option<&str> {
    let end = text
        .char_indices()
        .find(|(_, c)| !c.is_alphabetic())
        .map_or(text.len(), |(i, _)| i);
    (end > 0).then(|| cut::before(text, end))
}

/// The measure a unit word (lower case) names.
fn unit(word: &str) -> Option<Measure> {
    if TIME_WORDS.contains(&word) {
        return Some(Measure::Time);
    }
    if word == "dollars" || word == "dollar" {
        return Some(Measure::Money);
    }
    match quantity_of(word)? {
        Quantity::Length => Some(Measure::Length),
        Quantity::Weight => Some(Measure::Weight),
        Quantity::Volume => Some(Measure::Volume),
        Quantity::Area | Quantity::Speed | Quantity::Heat => None,
    }
}

/// The measure a rate is per, when the text right after its unit says so: "per hour", "an
/// hour", "a pound", "each hour".
fn per(rest: &str) -> Option<Measure> {
    let mut words = rest.split_whitespace();
    let by = words.next()?.to_lowercase();
    if !matches!(by.as_str(), "per" | "an" | "a" | "each" | "every") {
        return None;
    }
    let word = first_word(words.next()?)?;
    unit(&word.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::find_slots;

    /// The numbers a conversion may change, with what they measure.
    fn divisible(text: &str) -> Vec<(String, Measure)> {
        let slots = find_slots(text);
        divisible_slots(text, &slots)
            .into_iter()
            .filter(|(_, d)| d.convertible)
            .map(|(i, d)| (slots[i as usize].written_in(text).to_string(), d.measure))
            .collect()
    }

    #[test]
    fn a_compound_s_larger_unit_and_a_height_stay_whole_but_keep_their_measure() {
        let text = "His shoe is 8-feet and 4-inches, he is 6 feet tall, it took 2 hours 30 \
                    minutes and cost $2.50.";
        assert_eq!(
            divisible(text),
            [
                ("4".to_string(), Measure::Length),
                ("30".to_string(), Measure::Time)
            ]
        );
        // Every one still measures: a tree's nodes read it.
        assert_eq!(divisible_slots(text, &find_slots(text)).len(), 6);
    }

    #[test]
    fn a_count_asked_for_stays_whole() {
        assert!(asks_for_count("How many boxes of pizza did Marie order?"));
        assert!(asks_for_count("how many more bottles does he drink?"));
        assert!(!asks_for_count(
            "How many more miles per day must she hike?"
        ));
        assert!(!asks_for_count("How much does she spend?"));
    }

    #[test]
    fn a_rate_says_what_it_is_per() {
        let text = "She makes $10 an hour, drives 55 miles per hour, buys cheese at $11 per \
                    pound and drinks 8 cups every day.";
        let slots = find_slots(text);
        let pers: Vec<(Measure, Option<Measure>)> = divisible_slots(text, &slots)
            .into_iter()
            .map(|(_, d)| (d.measure, d.per))
            .collect();
        assert_eq!(
            pers,
            [
                (Measure::Money, Some(Measure::Time)),
                (Measure::Length, Some(Measure::Time)),
                (Measure::Money, Some(Measure::Weight)),
                (Measure::Volume, None),
            ]
        );
    }

    #[test]
    fn money_time_and_amounts_of_stuff_divide_and_counts_do_not() {
        assert_eq!(
            divisible(
                "Ana buys 3 notebooks at $4 each and 2 pens at $12 each, walks 5 miles in 2 \
                 hours with 6 friends and 25 pounds of rice, and pays 7 dollars for 3 cups."
            ),
            [
                ("4".to_string(), Measure::Money),
                ("12".to_string(), Measure::Money),
                ("5".to_string(), Measure::Length),
                ("2".to_string(), Measure::Time),
                ("25".to_string(), Measure::Weight),
                ("7".to_string(), Measure::Money),
                ("3".to_string(), Measure::Volume),
            ]
        );
    }

    #[test]
    fn a_rate_a_reading_an_age_a_schedule_and_a_part_stay_whole() {
        for text in [
            "He drives at 60 mph for 5 days a week.",
            "It is 75 degrees; Tom is 12 years old and 4 times a week he eats 12 apples \
             that weigh a pound.",
            "She pays $1 for 1 hour, 50% of it, and $2.50 for $3 million in bonds, $1,200 in all.",
            "Two hours and four pounds.",
        ] {
            assert_eq!(divisible(text), [], "{text}");
        }
    }

    #[test]
    fn a_hyphened_unit_is_the_number_s() {
        assert_eq!(
            divisible("a 3-hour drive and a 20-pound bag"),
            [
                ("3".to_string(), Measure::Time),
                ("20".to_string(), Measure::Weight)
            ]
        );
    }
}
