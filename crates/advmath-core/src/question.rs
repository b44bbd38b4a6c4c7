//! Numbers in question text: find them (slots), turn the text into a template, and render new
//! numbers back in the original's style (thousands separators, money decimals, no float noise).

use crate::cut;
use crate::num::Num;

/// One number written in digits in the question.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    /// Byte range of the digits (a `$` or `%` around it stays in the template).
    pub start: usize,
    pub end: usize,
    pub value: Num,
    /// The original had thousands separators (`1,200`).
    pub thousands: bool,
    /// Decimal places shown in the original (`2.50` has 2).
    pub decimals: u32,
    /// Written as a word ("four", "Twenty"); such slots link to a program only when the counts
    /// agree exactly, because a word like "two" is as often a figure of speech as a quantity.
    pub word: bool,
    /// A word slot written with a capital ("Four friends ...").
    pub capital: bool,
}

impl Slot {
    /// The slot as `text`, the question it was found in, writes it ("1,200", "four").
    pub fn written_in<'t>(&self, text: &'t str) -> &'t str {
        cut::between(text, self.start, self.end)
    }
}

/// Find the numbers written in digits, in order. Ordinals (`1st`, `3rd`) and digits glued to
/// letters (`A4`, `COVID19`) are part of words, not quantities, and are skipped.
pub fn find_slots(text: &str) -> Vec<Slot> {
    let b = text.as_bytes();
    let mut slots = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts_number =
            b[i].is_ascii_digit() || (b[i] == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_digit());
        let glued = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !starts_number || glued || (b[i] == b'.' && i > 0 && b[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let start = i;
        let mut thousands = false;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // Thousands groups: a comma followed by exactly three digits.
        while i + 3 < b.len()
            && b[i] == b','
            && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
            && !(i + 4 < b.len() && b[i + 4].is_ascii_digit())
            && i > start
        {
            thousands = true;
            i += 4;
        }
        let mut decimals = 0;
        if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
                decimals += 1;
            }
        }
        let end = i;
        let glued_after = i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_');
        // "1/10th" is a fraction whose denominator carries an ordinal's ending, not an ordinal.
        let denominator = start > 0 && b[start - 1] == b'/';
        // Every position here is at or just after an ASCII byte: a character boundary.
        let ordinal = glued_after && is_ordinal_suffix(cut::after(text, i));
        if ordinal && !denominator {
            continue;
        }
        if glued_after && !ordinal && !unit_suffix(cut::after(text, i)) {
            // "10am", "5km" are quantities with a glued unit; "5x1" or "COVID19b" are not.
            continue;
        }
        if let Some(value) = Num::parse_decimal(cut::between(text, start, end)) {
            slots.push(Slot {
                start,
                end,
                value,
                thousands,
                decimals,
                word: false,
                capital: false,
            });
        }
    }
    slots.extend(find_word_slots(text));
    slots.sort_by_key(|s| s.start);
    slots
}

/// Cardinal words that are quantities often enough to attack ("one" is too often "one of").
const CARDINALS: [&str; 27] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
];
const NINETY: &str = "ninety";

fn cardinal_value(word: &str) -> Option<i128> {
    let lower = word.to_ascii_lowercase();
    if lower != NINETY && !CARDINALS.contains(&lower.as_str()) {
        return None;
    }
    number_word_value(&lower).filter(|&v| v >= 2)
}

/// The value of a number word written alone, "zero" to "twenty", the tens to "ninety", "dozen",
/// "hundred" and "thousand", in any case.
pub fn number_word_value(word: &str) -> Option<i128> {
    let lower = word.to_ascii_lowercase();
    match lower.as_str() {
        NINETY => Some(90),
        "dozen" => Some(12),
        "hundred" => Some(100),
        "thousand" => Some(1000),
        _ => {
            let i = CARDINALS.iter().position(|w| *w == lower)? as i128;
            Some(if i <= 20 { i } else { (i - 18) * 10 })
        }
    }
}

/// The word for a value, when there is a single one.
fn cardinal_word(v: i128) -> Option<&'static str> {
    match v {
        2..=20 => Some(CARDINALS[v as usize]),
        90 => Some(NINETY),
        30 | 40 | 50 | 60 | 70 | 80 => Some(CARDINALS[(v / 10 + 18) as usize]),
        _ => None,
    }
}

fn find_word_slots(text: &str) -> Vec<Slot> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        // "twenty-five", "two-thirds", "one-third": compound words are left alone.
        let hyphen = (start > 0 && b[start - 1] == b'-') || (i < b.len() && b[i] == b'-');
        let glued = (start > 0 && (b[start - 1].is_ascii_digit() || b[start - 1] == b'\''))
            || (i < b.len() && b[i].is_ascii_digit());
        if hyphen || glued {
            continue;
        }
        if let Some(v) = cardinal_value(cut::between(text, start, i)) {
            out.push(Slot {
                start,
                end: i,
                value: Num::int(v),
                thousands: false,
                decimals: 0,
                word: true,
                capital: b[start].is_ascii_uppercase(),
            });
        }
    }
    out
}

fn is_ordinal_suffix(rest: &str) -> bool {
    let lower: String = rest
        .chars()
        .take(3)
        .collect::<String>()
        .to_ascii_lowercase();
    ["st", "nd", "rd", "th"].iter().any(|s| {
        lower.strip_prefix(s).is_some_and(|after| {
            !after
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
        })
    })
}

/// Units people glue to numbers: `5km`, `10am`, `3pm`, `2x`, `5lb`, `10kg`, `30s`.
fn unit_suffix(rest: &str) -> bool {
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        word.as_str(),
        "km" | "m"
            | "cm"
            | "mm"
            | "kg"
            | "g"
            | "mg"
            | "lb"
            | "lbs"
            | "oz"
            | "ml"
            | "l"
            | "am"
            | "pm"
            | "x"
            | "s"
            | "h"
            | "hr"
            | "hrs"
            | "min"
            | "mins"
            | "k"
            | "ft"
            | "in"
            | "mph"
            | "gb"
            | "mb"
    )
}

/// Words that state a number other than as a cardinal, with the values a program may write for
/// them: multiplicatives ("twice"), fractions ("one-eighth", "a quarter") and ordinals.
const OTHER_NUMBER_WORDS: &[(&str, &[&str])] = &[
    ("twice", &["2"]),
    ("double", &["2"]),
    ("doubles", &["2"]),
    ("doubled", &["2"]),
    ("half", &["2", "0.5"]),
    ("halves", &["2", "0.5"]),
    ("halved", &["2", "0.5"]),
    ("pair", &["2"]),
    ("pairs", &["2"]),
    ("both", &["2"]),
    ("twins", &["2"]),
    ("second", &["2"]),
    ("triple", &["3"]),
    ("triples", &["3"]),
    ("tripled", &["3"]),
    ("thrice", &["3"]),
    ("third", &["3"]),
    ("thirds", &["3"]),
    ("quadruple", &["4"]),
    ("quadrupled", &["4"]),
    ("quarter", &["4", "0.25"]),
    ("quarters", &["4", "0.25"]),
    ("fourth", &["4"]),
    ("fourths", &["4"]),
    ("fifth", &["5"]),
    ("fifths", &["5"]),
    ("sixth", &["6"]),
    ("sixths", &["6"]),
    ("seventh", &["7"]),
    ("sevenths", &["7"]),
    ("eighth", &["8"]),
    ("eighths", &["8"]),
    ("ninth", &["9"]),
    ("ninths", &["9"]),
    ("tenth", &["10"]),
    ("tenths", &["10"]),
    ("dozen", &["12"]),
    ("dozens", &["12"]),
    ("hundred", &["100"]),
    ("thousand", &["1000"]),
];

/// Fraction words: a cardinal before one ("Three fourths") is a numerator, not a count.
const FRACTION_WORDS: &[&str] = &[
    "half", "halves", "third", "thirds", "fourth", "fourths", "quarter", "quarters", "fifth",
    "fifths", "sixth", "sixths", "seventh", "sevenths", "eighth", "eighths", "ninth", "ninths",
    "tenth", "tenths",
];

/// How many times the question states each value (keyed by [`Num::exact_text`]): numbers in
/// digits, digit ordinals ("3rd"), cardinal words wherever they stand ("four-leaved" too), and
/// the words of [`OTHER_NUMBER_WORDS`]. A value stated more than once cannot be linked to one
/// place of the question with certainty.
pub fn expression_counts(text: &str, slots: &[Slot]) -> std::collections::HashMap<String, usize> {
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut add = |v: Num| *counts.entry(v.exact_text()).or_default() += 1;
    for s in slots.iter().filter(|s| !s.word) {
        add(s.value);
    }
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if is_ordinal_suffix(cut::after(text, i)) {
                if let Ok(v) = cut::between(text, start, i).parse::<i128>() {
                    add(Num::int(v));
                }
            }
            continue;
        }
        i += 1;
    }
    for word in text
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
    {
        let lower = word.to_ascii_lowercase();
        if lower == "one" {
            add(Num::ONE);
        } else if let Some(v) = cardinal_value(&lower) {
            add(Num::int(v));
        } else if let Some((_, vals)) = OTHER_NUMBER_WORDS.iter().find(|(w, _)| *w == lower) {
            for v in *vals {
                add(Num::parse_decimal(v).expect("the table's values are decimals"));
            }
        }
    }
    counts
}

/// A number word that counts something ("four friends") on its own: not the numerator of a
/// written fraction ("Three fourths"), not glued to a number in digits ("six 5 dollar bills"),
/// and not the length of a list of numbers the question spells out ("scores of 89, 71, 92, 100
/// and 86 on the first five tests"), whose count a variant could not change alone.
pub fn is_plain_cardinal(text: &str, slots: &[Slot], i: usize) -> bool {
    let slot = &slots[i];
    if !slot.word {
        return false;
    }
    let rest = cut::after(text, slot.end).trim_start();
    if rest.starts_with(|c: char| c.is_ascii_digit() || c == '$') {
        return false;
    }
    let next: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    if FRACTION_WORDS.contains(&next.as_str()) {
        return false;
    }
    let count = slot.value.as_integer().unwrap_or(0);
    !list_lengths(text, slots).contains(&(count as usize))
}

/// The lengths of the lists of numbers in digits the question writes out ("89, 71, 92, 100 and
/// 86"; "$3, $4 and $5"), two numbers or more.
fn list_lengths(text: &str, slots: &[Slot]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut run = 1;
    for w in slots.windows(2) {
        let between =
            cut::between(text, w[0].end, w[1].start).trim_matches(|c: char| c == '$' || c == ' ');
        let joined = !w[0].word && !w[1].word && matches!(between, "," | "and" | ", and");
        if joined {
            run += 1;
        } else {
            if run >= 2 {
                out.push(run);
            }
            run = 1;
        }
    }
    if run >= 2 {
        out.push(run);
    }
    out
}

/// Is slot `s` written as a percentage ("40%", "40 percent")?
pub fn is_percentage(text: &str, s: &Slot) -> bool {
    let rest = cut::after(text, s.end).trim_start();
    rest.starts_with('%') || rest.to_ascii_lowercase().starts_with("percent")
}

/// Numbers written as words, with the values a program may use for them. "half" may appear as
/// `/ 2` or `* 0.5`, so it yields both.
pub fn word_numbers(text: &str) -> Vec<(String, Num)> {
    /// Words that justify a constant without stating a number of their own.
    const MORE: &[(&str, &[&str])] = &[
        ("one", &["1"]),
        ("million", &["1000000"]),
        ("zero", &["0"]),
        ("none", &["0"]),
        ("once", &["1"]),
        ("single", &["1"]),
        ("a", &["1"]),
        ("an", &["1"]),
        ("each", &["1"]),
        ("per", &["1"]),
        ("every", &["1"]),
        ("percent", &["100"]),
        ("weekly", &["7", "52"]),
        ("monthly", &["12"]),
        ("daily", &["7", "365"]),
        ("hourly", &["60"]),
        ("quarter", &["25"]),
        ("quarters", &["25"]),
        ("nickel", &["5", "0.05"]),
        ("nickels", &["5", "0.05"]),
        ("dime", &["10", "0.1"]),
        ("dimes", &["10", "0.1"]),
        ("penny", &["1", "0.01"]),
        ("pennies", &["1", "0.01"]),
    ];
    let mut out = Vec::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
    {
        let lower = word.to_ascii_lowercase();
        if let Some(v) = cardinal_value(&lower) {
            out.push((lower.clone(), Num::int(v)));
        }
        for (w, vals) in OTHER_NUMBER_WORDS
            .iter()
            .chain(MORE)
            .filter(|(w, _)| *w == lower)
        {
            for v in *vals {
                out.push((w.to_string(), Num::parse_decimal(v).unwrap()));
            }
        }
    }
    out
}

pub mod divisible;
pub mod physical;
pub mod rendering;
pub mod shown;
pub mod units;

#[cfg(test)]
mod tests;
