//! Numbers that measure a unit by another ("7 days a week", "a normal 30 day month", "24 hours in
//! a day", and the hours and minutes of a time of day, "8:00 AM"): where the number is the unit's own length it defines the unit, as the paper makes
//! "one year" a constant 365, and a variant must not write a week of 9 days; where it counts part
//! of the unit ("works 5 days a week") it stays within the unit's length.

use super::Slot;
use crate::cut;
use crate::num::Num;

/// A smaller unit counted within a larger one.
struct Measure {
    what: &'static str,
    small: &'static [&'static str],
    large: &'static [&'static str],
    /// The lengths the larger unit has in the smaller.
    lengths: &'static [i128],
    /// Whether a smaller count is part of the larger unit and so bounded by its length ("5 days a
    /// week"): true of time; "5 ounces per gallon" is a rate, and only 128 defines the gallon.
    bounds_parts: bool,
}

/// A measure whose only reading is the definition ("16 ounces in a pound").
const fn defined(
    what: &'static str,
    small: &'static [&'static str],
    large: &'static [&'static str],
    lengths: &'static [i128],
) -> Measure {
    Measure {
        what,
        small,
        large,
        lengths,
        bounds_parts: false,
    }
}

const MEASURES: &[Measure] = &[
    Measure {
        what: "days per week",
        small: &["day", "days"],
        large: &["week"],
        lengths: &[7],
        bounds_parts: true,
    },
    Measure {
        what: "days per month",
        small: &["day", "days"],
        large: &["month", "february"],
        lengths: &[28, 29, 30, 31],
        bounds_parts: true,
    },
    Measure {
        what: "days per year",
        small: &["day", "days"],
        large: &["year"],
        lengths: &[365, 366],
        bounds_parts: true,
    },
    Measure {
        what: "hours per day",
        small: &["hour", "hours"],
        large: &["day"],
        lengths: &[24],
        bounds_parts: true,
    },
    Measure {
        what: "hours per week",
        small: &["hour", "hours"],
        large: &["week"],
        lengths: &[168],
        bounds_parts: true,
    },
    Measure {
        what: "minutes per hour",
        small: &["minute", "minutes"],
        large: &["hour"],
        lengths: &[60],
        bounds_parts: true,
    },
    Measure {
        what: "seconds per minute",
        small: &["second", "seconds"],
        large: &["minute"],
        lengths: &[60],
        bounds_parts: true,
    },
    Measure {
        what: "months per year",
        small: &["month", "months"],
        large: &["year"],
        lengths: &[12],
        bounds_parts: true,
    },
    Measure {
        what: "weeks per year",
        small: &["week", "weeks"],
        large: &["year"],
        lengths: &[52],
        bounds_parts: true,
    },
    // GSM8K's month of 4 weeks ("if there are 4 weeks in a month"): the convention its solutions
    // compute with, so the text's own definition of the month.
    Measure {
        what: "weeks per month",
        small: &["week", "weeks"],
        large: &["month"],
        lengths: &[4],
        bounds_parts: true,
    },
    Measure {
        what: "minutes per day",
        small: &["minute", "minutes"],
        large: &["day"],
        lengths: &[1440],
        bounds_parts: true,
    },
    Measure {
        what: "seconds per hour",
        small: &["second", "seconds"],
        large: &["hour"],
        lengths: &[3600],
        bounds_parts: true,
    },
    defined("years per decade", &["year", "years"], &["decade"], &[10]),
    defined(
        "years per century",
        &["year", "years"],
        &["century"],
        &[100],
    ),
    defined("ounces per pound", &["ounce", "ounces"], &["pound"], &[16]),
    defined(
        "ounces per gallon",
        &["ounce", "ounces"],
        &["gallon"],
        &[128],
    ),
    defined("cups per gallon", &["cup", "cups"], &["gallon"], &[16]),
    defined("pints per gallon", &["pint", "pints"], &["gallon"], &[8]),
    defined("quarts per gallon", &["quart", "quarts"], &["gallon"], &[4]),
    defined("cups per quart", &["cup", "cups"], &["quart"], &[4]),
    defined("inches per foot", &["inch", "inches"], &["foot"], &[12]),
    defined("feet per yard", &["foot", "feet"], &["yard"], &[3]),
    defined("feet per mile", &["foot", "feet"], &["mile"], &[5280]),
    defined("cents per dollar", &["cent", "cents"], &["dollar"], &[100]),
    defined(
        "grams per kilogram",
        &["gram", "grams"],
        &["kilogram"],
        &[1000],
    ),
    defined(
        "meters per kilometer",
        &["meter", "meters"],
        &["kilometer"],
        &[1000],
    ),
    defined(
        "centimeters per meter",
        &["centimeter", "centimeters"],
        &["meter"],
        &[100],
    ),
    defined(
        "milliliters per liter",
        &["milliliter", "milliliters"],
        &["liter"],
        &[1000],
    ),
];

/// Measures a reader also bounds (see [`reader_bounds`]), beyond the paper mode's.
const READER_MEASURES: &[Measure] = &[
    Measure {
        what: "hours per month",
        small: &["hour", "hours"],
        large: &["month"],
        lengths: &[744],
        bounds_parts: true,
    },
    Measure {
        what: "hours per year",
        small: &["hour", "hours"],
        large: &["year"],
        lengths: &[8784],
        bounds_parts: true,
    },
    Measure {
        what: "minutes per week",
        small: &["minute", "minutes"],
        large: &["week"],
        lengths: &[10080],
        bounds_parts: true,
    },
];

/// Words before a larger unit that make the phrase a rate or a measure ("a week", "per week",
/// "each week", "in the month").
const RATE_WORDS: &[&str] = &[
    "a", "an", "per", "each", "every", "the", "this", "one", "normal",
];

/// Words that name a kind of the larger unit and so stand where a rate word would ("a 5 day
/// work week", "a school day that lasts 6 hours"): a reader bounds these too.
const KIND_WORDS: &[&str] = &["work", "working", "school", "business"];

/// What the text makes of a number in digits that counts a smaller unit within a larger one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnitUse {
    /// The number is the larger unit's length ("7 days a week", "a 30 day month"): a constant.
    Defines(&'static str),
    /// The number counts part of the larger unit ("5 days a week"): at most its length.
    AtMost(Num),
}

/// The slots (digits only) the text writes as a count of a smaller unit within a larger one.
pub fn unit_uses(text: &str, slots: &[Slot]) -> Vec<(u32, UnitUse)> {
    let mut out = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        if s.word {
            continue;
        }
        let Some(value) = s.value.as_integer().filter(|_| s.value.is_integer()) else {
            continue;
        };
        let rest = cut::after(text, s.end);
        // A time of day ("8:00 AM", "from 1:30 to 5"): its hour and minutes are a clock's. The
        // two minute digits are looked at as bytes: what follows the colon may be any character.
        let before_colon = cut::before(text, s.start)
            .strip_suffix(':')
            .is_some_and(|head| head.ends_with(|c: char| c.is_ascii_digit()));
        let after_colon = rest.strip_prefix(':').is_some_and(|minutes| {
            minutes
                .as_bytes()
                .get(..2)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
        });
        // "11 a.m.", "5 pm", "7 o'clock".
        let clock_word = {
            let r = rest.trim_start_matches(' ').to_ascii_lowercase();
            ["a.m.", "p.m.", "am", "pm", "o'clock", "o’clock"]
                .iter()
                .any(|w| {
                    r.strip_prefix(w)
                        .is_some_and(|after| !after.starts_with(|c: char| c.is_ascii_alphabetic()))
                })
        };
        if before_colon || after_colon || clock_word {
            out.push((i as u32, UnitUse::Defines("a time of day")));
            continue;
        }
        let Some(m) = measure_of(text, s, false) else {
            continue;
        };
        let max = *m.lengths.iter().max().expect("every measure has a length");
        if m.lengths.contains(&value) {
            out.push((i as u32, UnitUse::Defines(m.what)));
        } else if m.bounds_parts && value > 0 && value < max {
            out.push((i as u32, UnitUse::AtMost(Num::int(max))));
        }
    }
    out
}

/// The bounds a reader puts on counts of a unit that [`unit_uses`] leaves free: a kind of the
/// larger unit ("a 98 day work week"), and the measures of [`READER_MEASURES`] ("1,644 hours per
/// month"). A number that is the unit's length keeps to it as an upper bound only; what the
/// program makes constant was decided when the problem was read.
pub fn reader_bounds(text: &str, slots: &[Slot]) -> Vec<(u32, Num, &'static str)> {
    let paper: Vec<u32> = unit_uses(text, slots).iter().map(|(s, _)| *s).collect();
    let mut out = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        if s.word || paper.contains(&(i as u32)) {
            continue;
        }
        let Some(value) = s.value.as_integer().filter(|_| s.value.is_integer()) else {
            continue;
        };
        let Some(m) = measure_of(text, s, true).filter(|m| m.bounds_parts) else {
            continue;
        };
        let max = *m.lengths.iter().max().expect("every measure has a length");
        if value > 0 && value <= max {
            out.push((i as u32, Num::int(max), m.what));
        }
    }
    out
}

/// The largest a rate a question asks for can be ("how many hours per month", "how many days
/// a week"): the length of its larger unit, with the measure's name. `asked` are the words of
/// the question's last sentence.
pub fn asked_rate(asked: &[String]) -> Option<(Num, &'static str)> {
    let at = asked
        .windows(2)
        .position(|w| w[0] == "how" && w[1] == "many")?;
    let small = asked.get(at + 2)?;
    let rest = &asked[(at + 3).min(asked.len())..];
    MEASURES
        .iter()
        .chain(READER_MEASURES)
        .filter(|m| m.bounds_parts && m.small.contains(&small.as_str()))
        .find(|m| {
            rest.windows(2).any(|w| {
                (RATE_WORDS.contains(&w[0].as_str()) || w[0] == "in") && is_large(m, &w[1])
            })
        })
        .map(|m| {
            let max = *m.lengths.iter().max().expect("every measure has a length");
            (Num::int(max), m.what)
        })
}

/// The measure a number in digits counts the smaller unit of, if its sentence names one: the
/// larger unit right after the number decides ("4 weeks in a month"); else the nearest rate
/// before it in its sentence ("every day he has a 15-minute call"). A `reader` also takes a kind
/// of the larger unit for a rate ("a 5 day work week") and the measures of [`READER_MEASURES`].
fn measure_of(text: &str, s: &Slot, reader: bool) -> Option<&'static Measure> {
    let rest = cut::after(text, s.end);
    // The smaller unit follows the number at once ("7 days", "30-day").
    if !rest.starts_with([' ', '-']) {
        return None;
    }
    // The unit the number measures is named in its own sentence: "1000 minutes per month.
    // Every day …" counts no minutes of a day.
    let after = words(cut::before(rest, sentence_end(rest)));
    let small = after.first()?;
    let head = cut::before(text, s.start);
    let before = words(cut::after(head, sentence_start(head)));
    let extra: &[Measure] = if reader { READER_MEASURES } else { &[] };
    let measures = || {
        MEASURES
            .iter()
            .chain(extra)
            .filter(|m| m.small.contains(&small.as_str()))
    };
    fn rate(reader: bool) -> impl Fn(&[String]) -> Option<&str> {
        move |pair| rated_unit(pair, reader)
    }
    measures()
        .find(|m| {
            after.get(1).is_some_and(|w| is_large(m, w))
                || after[1..after.len().min(5)]
                    .windows(2)
                    .filter_map(rate(reader))
                    .any(|large| is_large(m, large))
        })
        .or_else(|| {
            before
                .windows(2)
                .rev()
                .filter_map(rate(reader))
                .find_map(|large| measures().find(|m| is_large(m, large)))
        })
}

fn is_large(m: &Measure, word: &str) -> bool {
    m.large.contains(&word)
}

/// The unit a rate word names in a pair of words ("a week", "per hour"), if the pair is one;
/// for a `reader`, a kind word too ("work week").
fn rated_unit(pair: &[String], reader: bool) -> Option<&str> {
    let w = pair[0].as_str();
    (RATE_WORDS.contains(&w) || (reader && KIND_WORDS.contains(&w))).then(|| pair[1].as_str())
}

/// Whether byte `i` of `b` ends a sentence: a ";", or a ".", "?" or "!" before a space, or at the
/// end of the text when `at_end` (a decimal point ends nothing).
fn ends_sentence(b: &[u8], i: usize, at_end: bool) -> bool {
    b[i] == b';'
        || (matches!(b[i], b'.' | b'?' | b'!')
            && b.get(i + 1).map_or(at_end, u8::is_ascii_whitespace))
}

/// Where the sentence `text` starts in ends.
fn sentence_end(text: &str) -> usize {
    let b = text.as_bytes();
    (0..b.len())
        .find(|&i| ends_sentence(b, i, true))
        .unwrap_or(b.len())
}

/// Where the sentence that `text` ends in starts.
fn sentence_start(text: &str) -> usize {
    let b = text.as_bytes();
    (0..b.len())
        .rev()
        .find(|&i| ends_sentence(b, i, false))
        .map_or(0, |i| i + 1)
}

/// The words of `text`, lower-cased, in order.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::find_slots;

    fn uses(text: &str) -> Vec<(String, UnitUse)> {
        let slots = find_slots(text);
        unit_uses(text, &slots)
            .into_iter()
            .map(|(i, u)| {
                let s = &slots[i as usize];
                (s.written_in(text).to_string(), u)
            })
            .collect()
    }

    #[test]
    fn a_unit_s_own_length_defines_it() {
        for text in [
            "How much does he earn for a normal 30 day month?",
            "In February if there are 28 days in the month, how many?",
            "He eats 3 apples a day. How many in a month with 30 days?",
            "She runs 7 days a week.",
            "There are 24 hours in a day and he sleeps 8 hours a day.",
            "How much does she spend per year if there are 4 weeks in a month?",
            "A pound has 16 ounces; there are 16 ounces in a pound.",
            "There are 5280 feet in a mile.",
        ] {
            let found = uses(text);
            assert!(
                found.iter().any(|(_, u)| matches!(u, UnitUse::Defines(_))),
                "{text}: {found:?}"
            );
        }
    }

    #[test]
    fn a_time_of_day_is_a_clock_s() {
        let found = uses("He staples from 8:00 AM until 11:30 AM.");
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(found
            .iter()
            .all(|(_, u)| *u == UnitUse::Defines("a time of day")));
        let found = uses("Rob leaves at 11 a.m., Sue at 5 pm and Al at 7 o'clock; 3 ampules.");
        assert_eq!(
            found.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            vec!["11", "5", "7"],
            "{found:?}"
        );
    }

    #[test]
    fn part_of_a_unit_stays_within_it() {
        assert_eq!(
            uses("He works 5 days a week and 8 hours per day."),
            vec![
                ("5".to_string(), UnitUse::AtMost(Num::int(7))),
                ("8".to_string(), UnitUse::AtMost(Num::int(24))),
            ]
        );
    }

    #[test]
    fn a_rate_of_other_units_is_free_unless_it_is_the_definition() {
        assert_eq!(
            uses("She reads 30 minutes a day and 3 weeks a month."),
            vec![
                ("30".to_string(), UnitUse::AtMost(Num::int(1440))),
                ("3".to_string(), UnitUse::AtMost(Num::int(4))),
            ]
        );
        assert!(uses("Add 5 ounces per gallon and 3 inches per foot of rope.").is_empty());
        assert_eq!(
            uses("Every day he has a 15-minute call with his boss."),
            vec![("15".to_string(), UnitUse::AtMost(Num::int(1440)))]
        );
        // The unit is named in the number's own sentence.
        assert_eq!(
            uses("A plan of 1000 minutes per month. Every day he calls. This month has 30 days."),
            vec![("30".to_string(), UnitUse::Defines("days per month"))]
        );
        assert_eq!(
            uses("Each jug holds 128 ounces per gallon."),
            vec![("128".to_string(), UnitUse::Defines("ounces per gallon"))]
        );
    }

    #[test]
    fn other_durations_are_free() {
        assert!(uses("It takes 20 minutes to bake and 2 hours to cool.").is_empty());
        assert!(uses("He saved for 45 days and then 3 weeks more.").is_empty());
    }
}
