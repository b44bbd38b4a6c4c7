//! Numbers that measure a quantity whose size the world fixes: a length, a speed, a weight, a
//! volume, an amount of energy, a temperature or an age ("12 miles", "5 years older", "25
//! kilograms of rice"), and how often a thing happens in a span of time ("3 times a week"). A
//! digit expansion keeps them as written: a person 4000 inches tall or a bike at 1200 miles per
//! hour is no question a reader accepts, where 4000 apples, $1200 or a 300-hour drive are only
//! more. (A duration counted within a span, "8 hours a day", is the reader's rules' to bound.)

use super::Slot;
use crate::cut;

/// What a unit of measure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantity {
    Length,
    Area,
    Speed,
    Weight,
    Volume,
    /// Energy and temperature.
    Heat,
}

/// Words of a unit of measure, singular and plural, as the word right after a number writes
/// them, by what they measure.
const UNIT_WORDS: &[(Quantity, &[&str])] = &[
    (
        Quantity::Length,
        &[
            "inch",
            "inches",
            "foot",
            "feet",
            "ft",
            "yard",
            "yards",
            "yd",
            "yds",
            "mile",
            "miles",
            "mi",
            "meter",
            "meters",
            "metre",
            "metres",
            "centimeter",
            "centimeters",
            "centimetre",
            "centimetres",
            "cm",
            "millimeter",
            "millimeters",
            "mm",
            "kilometer",
            "kilometers",
            "kilometre",
            "kilometres",
            "km",
        ],
    ),
    (Quantity::Area, &["acre", "acres", "square"]),
    (Quantity::Speed, &["mph", "kph", "knots"]),
    (
        Quantity::Weight,
        &[
            "pound",
            "pounds",
            "lb",
            "lbs",
            "ounce",
            "ounces",
            "oz",
            "gram",
            "grams",
            "kilogram",
            "kilograms",
            "kg",
            "kgs",
            "ton",
            "tons",
            "tonne",
            "tonnes",
        ],
    ),
    (
        Quantity::Volume,
        &[
            "liter",
            "liters",
            "litre",
            "litres",
            "milliliter",
            "milliliters",
            "millilitre",
            "millilitres",
            "ml",
            "gallon",
            "gallons",
            "quart",
            "quarts",
            "pint",
            "pints",
            "cup",
            "cups",
            "tablespoon",
            "tablespoons",
            "teaspoon",
            "teaspoons",
        ],
    ),
    (
        Quantity::Heat,
        &["calorie", "calories", "kcal", "degree", "degrees"],
    ),
];

/// What the unit word `word` (lower case) measures.
pub fn quantity_of(word: &str) -> Option<Quantity> {
    UNIT_WORDS
        .iter()
        .find(|(_, words)| words.contains(&word))
        .map(|(q, _)| *q)
}

/// Words after "years" that make it an age: "5 years old", "10 years older than".
const AGE_WORDS: &[&str] = &["old", "older", "younger"];

/// Words after "times" that make it a frequency: "3 times a week".
const RATE_WORDS: &[&str] = &["a", "an", "per", "each", "every"];

/// Spans of time a frequency is counted in.
const SPANS: &[&str] = &["second", "minute", "hour", "day", "week", "month", "year"];

/// The slots (in digits) the text writes as a measure of a physical quantity or a frequency.
pub fn measured_slots(text: &str, slots: &[Slot]) -> Vec<u32> {
    slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.word && measures(cut::after(text, s.end)))
        .map(|(i, _)| i as u32)
        .collect()
}

/// Whether the text after a number names a unit of measure at once ("12 miles", "3-hour",
/// "5 years old"), or a frequency ("3 times a week").
fn measures(rest: &str) -> bool {
    let rest = rest.strip_prefix([' ', '-']).unwrap_or(rest);
    if rest.starts_with('°') {
        return true;
    }
    let mut words = rest
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase);
    let Some(first) = words.next() else {
        return false;
    };
    // Only the word that touches the number is its unit: "12 apples that weigh a pound".
    let touching = rest.starts_with(|c: char| c.is_alphabetic());
    if !touching {
        return false;
    }
    if quantity_of(&first).is_some() {
        return true;
    }
    // A duration is only longer ("a 300-hour drive"); an age is a person's.
    if first == "year" || first == "years" {
        return words
            .next()
            .is_some_and(|w| AGE_WORDS.contains(&w.as_str()));
    }
    first == "times"
        && words
            .next()
            .is_some_and(|w| RATE_WORDS.contains(&w.as_str()))
        && words.next().is_some_and(|w| SPANS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::find_slots;

    fn measured(text: &str) -> Vec<String> {
        let slots = find_slots(text);
        measured_slots(text, &slots)
            .into_iter()
            .map(|i| slots[i as usize].written_in(text).to_string())
            .collect()
    }

    #[test]
    fn a_unit_of_measure_right_after_a_number_marks_it() {
        assert_eq!(
            measured(
                "Adam is 48 inches tall and grows 2 inches a year. He bikes 12 miles per hour \
                 for a 3-hour ride, 5 times a week, and buys 12 apples for $4 and a 25-pound bag."
            ),
            ["48", "2", "12", "5", "25"]
        );
        assert_eq!(
            measured("Jeff is 10 years older than Martha, who is 24."),
            ["10"]
        );
        assert_eq!(
            measured("It is 75°F and 3 times as warm as 4 apples."),
            ["75"]
        );
        assert!(measured("She has 30 cookies and 2 cups of flour.").contains(&"2".to_string()));
        assert!(measured("She sold 30 cookies, 4 times more than Tom.").is_empty());
    }
}
