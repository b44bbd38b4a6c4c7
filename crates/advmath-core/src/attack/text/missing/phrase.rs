//! Where a number can leave the text: the span an indefinite replaces and the indefinite, by the
//! words around the number. Each rule reads one shape of English; a number no rule reads is
//! refused, never guessed.

use crate::cut;
use crate::question::Slot;
use crate::seed::mix;

/// The indefinites "3 of" may become, drawn by the seed.
const OF_COUNTS: [&str; 2] = ["some", "several"];
/// The indefinite before a plural noun: blind readers found "some" and "several" odd before a
/// measure or a rate ("pieces some inches long", "several miles per hour").
const A_CERTAIN_NUMBER: &str = "a certain number of";
const A_CERTAIN_AMOUNT: &str = "a certain amount";

/// Words after which a number is part of a noun phrase an indefinite cannot enter.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "his", "her", "their", "its", "my", "our",
    "your", "every", "each", "per", "first", "last", "next", "another", "only", "all", "both",
];

/// Capitalised words that open a sentence before a count ("After 5 days", "If 3 friends"), so
/// that the count is no label ("Grade 5", "Room 12").
const OPENERS: &[&str] = &[
    "if",
    "when",
    "after",
    "before",
    "since",
    "once",
    "while",
    "because",
    "although",
    "then",
    "suppose",
    "supposing",
    "over",
    "in",
    "on",
    "at",
    "for",
    "during",
    "within",
    "about",
    "nearly",
    "almost",
    "exactly",
    "only",
    "just",
    "yesterday",
    "today",
    "tomorrow",
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

/// Measures a question states as "a speed of 20 miles per hour": the whole phrase becomes "a
/// certain speed".
const MEASURES: &[&str] = &[
    "speed",
    "height",
    "distance",
    "capacity",
    "length",
    "width",
    "depth",
    "weight",
    "rate",
    "price",
    "cost",
    "score",
    "budget",
    "temperature",
    "area",
    "volume",
    "radius",
    "salary",
    "wage",
    "balance",
    "value",
];

/// Nouns a sum of money or a percentage qualifies after "a" ("a $300 bonus", "a 50% chance"):
/// the phrase becomes "a certain bonus", "a certain chance".
const QUALIFIED: &[&str] = &[
    "chance",
    "probability",
    "discount",
    "increase",
    "decrease",
    "raise",
    "tip",
    "tax",
    "commission",
    "interest",
    "markup",
    "bonus",
    "fee",
    "deposit",
    "fine",
    "allowance",
    "prize",
    "reward",
    "donation",
    "refund",
    "rebate",
    "budget",
    "loan",
    "salary",
];

/// Words that end a measure's phrase ("a height of 6 feet, and ...", "a speed of 20 yards per
/// minute while ..."); anything else ("5 feet more than ...") reads on, and is refused.
const PHRASE_ENDS: &[&str] = &[
    "and", "but", "or", "so", "in", "on", "at", "for", "to", "from", "with", "while", "when", "if",
    "then", "after", "before", "until", "because",
];

/// Units of mass or volume written short ("12 kg of apples" → "a certain amount of apples").
const SHORT_UNITS: &[&str] = &[
    "kg", "g", "lb", "lbs", "oz", "ml", "l", "mg", "kilo", "gram",
];

/// Words after "N times" where it counts occurrences ("rang 20 times before"), not a factor ("3
/// times as many", "3 times the price").
const AFTER_OCCURRENCES: &[&str] = &[
    "before",
    "a",
    "an",
    "per",
    "each",
    "every",
    "in",
    "on",
    "at",
    "during",
    "while",
    "when",
    "until",
    "and",
    "but",
    "so",
    "over",
    "this",
    "last",
    "yesterday",
    "today",
    "to",
];

/// The span a slot's indefinite replaces and the indefinite, where one reads as English.
pub(super) fn phrase(text: &str, slot: &Slot, seed: u64) -> Option<(usize, usize, String)> {
    if slot.word {
        return None;
    }
    let at = Around::new(text, slot);
    if let Some(measured) = at.measure().or_else(|| at.qualified()) {
        return Some(measured);
    }
    if let Some(rate) = at.money_rate() {
        return Some(rate);
    }
    if at.refused() {
        return None;
    }
    if at.money || at.percent {
        return at.amount();
    }
    if slot.value.eq_num(crate::num::Num::int(1)) {
        return None;
    }
    at.count(seed ^ slot.start as u64)
}

/// A number and the words around it.
struct Around<'t> {
    /// The span of the number with its currency sign or percent sign.
    start: usize,
    end: usize,
    head: &'t str,
    tail: &'t str,
    money: bool,
    percent: bool,
    previous: Option<&'t str>,
    /// The word after the number, lower-cased, and the text after that word.
    next: Option<(String, &'t str)>,
}

impl<'t> Around<'t> {
    fn new(text: &'t str, slot: &Slot) -> Around<'t> {
        let before = cut::before(text, slot.start);
        let sign = before
            .chars()
            .next_back()
            .filter(|c| matches!(c, '$' | '€' | '£'));
        let percent = cut::after(text, slot.end).starts_with('%');
        let start = slot.start - sign.map_or(0, char::len_utf8);
        let end = if percent { slot.end + 1 } else { slot.end };
        let head = cut::before(text, start);
        let tail = cut::after(text, end);
        Around {
            start,
            end,
            head,
            tail,
            money: sign.is_some(),
            percent,
            previous: last_word(head),
            next: first_word(tail).map(|(w, rest)| (w.to_lowercase(), rest)),
        }
    }

    /// "a speed of 20 yards per minute," → "a certain speed,": the measure, its number and its
    /// unit become one phrase, where the unit's phrase ends plainly.
    fn measure(&self) -> Option<(usize, usize, String)> {
        let of = self.previous.filter(|w| w.eq_ignore_ascii_case("of"))?;
        let before_of = cut::before(self.head, self.head.trim_end_matches(' ').len() - of.len());
        let measure = last_word(before_of)?.to_lowercase();
        if !MEASURES.contains(&measure.as_str()) {
            return None;
        }
        let measure_at = before_of.trim_end_matches(' ').len() - measure.len();
        let before_measure = cut::before(self.head, measure_at);
        let article = last_word(before_measure)?;
        if !matches!(article.to_lowercase().as_str(), "a" | "an") {
            return None;
        }
        let from = before_measure.trim_end_matches(' ').len() - article.len();
        let mut rest = self.tail;
        if !(self.money || self.percent) {
            // The unit: "feet", "mph", "yards per minute", "miles an hour".
            rest = first_word(rest)?.1;
            if let Some((_, after)) = first_word(rest)
                .filter(|(w, _)| matches!(w.to_lowercase().as_str(), "per" | "an" | "a"))
            {
                rest = first_word(after)?.1;
            }
        }
        let plain = rest.trim_start_matches(' ');
        let ends = plain.is_empty()
            || plain.starts_with(['.', ',', '?', '!', ';'])
            || first_word(rest)
                .is_some_and(|(w, _)| PHRASE_ENDS.contains(&w.to_lowercase().as_str()));
        let end = self.end + (self.tail.len() - rest.len());
        ends.then(|| (from, end, format!("a certain {measure}")))
    }

    /// "a $300 bonus" → "a certain bonus", "a 50% chance" → "a certain chance".
    fn qualified(&self) -> Option<(usize, usize, String)> {
        let article = self
            .previous
            .filter(|w| matches!(w.to_lowercase().as_str(), "a" | "an"))?;
        let (noun, rest) = self.next.as_ref().filter(|_| self.money || self.percent)?;
        if !QUALIFIED.contains(&noun.as_str()) || !self.tail.starts_with(' ') {
            return None;
        }
        let from = self.head.trim_end_matches(' ').len() - article.len();
        let end = self.end + (self.tail.len() - rest.len());
        Some((from, end, format!("a certain {noun}")))
    }

    /// "$300/hour" → "a certain amount per hour".
    fn money_rate(&self) -> Option<(usize, usize, String)> {
        let per = self.tail.strip_prefix('/')?;
        if !self.money || self.previous.is_some_and(is_determiner) {
            return None;
        }
        let (unit, _) = first_word(per).filter(|_| per.starts_with(char::is_alphabetic))?;
        let end = self.end + 1 + unit.len();
        Some((self.start, end, format!("{A_CERTAIN_AMOUNT} per {unit}")))
    }

    /// Whether the number sits where no indefinite can go: glued to a hyphen, slash or colon
    /// ("5-day", "1/2", "8:00"), after another number ("2 15 minute breaks"), a determiner ("his
    /// 5 friends") or a label ("Grade 5 students").
    fn refused(&self) -> bool {
        let glued = self
            .head
            .chars()
            .next_back()
            .is_some_and(|c| matches!(c, '-' | '/' | ':' | '.' | ',' | '(' | '#'));
        let after_number = self
            .head
            .trim_end_matches(' ')
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_digit());
        let label = self.previous.is_some_and(|w| {
            let opener = OPENERS.contains(&w.to_lowercase().as_str())
                && opens_sentence(cut::before(
                    self.head,
                    self.head.trim_end_matches(' ').len() - w.len(),
                ));
            w.starts_with(char::is_uppercase) && !opens_sentence(self.head) && !opener
        });
        glued
            || self.tail.starts_with(['-', '/', ':'])
            || after_number
            || self.previous.is_some_and(is_determiner)
            || label
    }

    /// An amount of money or a percentage, where the words after it read without a number.
    fn amount(&self) -> Option<(usize, usize, String)> {
        let punct_next = self
            .tail
            .trim_start_matches(' ')
            .starts_with(['.', ',', '?', '!', ';']);
        let reads = punct_next
            || self
                .next
                .as_ref()
                .is_some_and(|(w, _)| AFTER_AMOUNT.contains(&w.as_str()));
        let with = if self.money {
            A_CERTAIN_AMOUNT
        } else {
            "a certain percentage"
        };
        reads.then(|| (self.start, self.end, with.to_string()))
    }

    /// A count: before a plural noun (or one describing word and a plural noun), a short unit of
    /// mass before "of", "more" and a plural noun, occurrences ("20 times before"), or "of".
    fn count(&self, seed: u64) -> Option<(usize, usize, String)> {
        let (next, after_next) = self.next.as_ref()?;
        let second = first_word(after_next).map(|(w, rest)| (w.to_lowercase(), rest));
        if next == "years" && second.as_ref().is_some_and(|(w, _)| w == "old") {
            return None;
        }
        // "an average of 30 students", "a total of 12 eggs": the count is a measure inside a noun
        // phrase, and an indefinite there reads as none.
        if self.previous.is_some_and(|w| w.eq_ignore_ascii_case("of")) {
            return None;
        }
        let to = |with: &str| Some((self.start, self.end, with.to_string()));
        if is_plural(next) || described(self.tail) {
            return to(A_CERTAIN_NUMBER);
        }
        match (next.as_str(), &second) {
            // "12 kg of apples" → "a certain amount of apples".
            (unit, Some((of, _))) if SHORT_UNITS.contains(&unit) && of == "of" => {
                let end = self.end + (self.tail.len() - after_next.len());
                Some((self.start, end, A_CERTAIN_AMOUNT.to_string()))
            }
            // "5 more apples fell" → "some more apples fell"; "4 more friends than Lily" is a
            // comparison an indefinite cannot keep.
            ("more", Some((noun, rest))) if is_plural(noun) => {
                let than = first_word(rest).is_some_and(|(w, _)| w.eq_ignore_ascii_case("than"));
                (!than).then(|| {
                    (
                        self.start,
                        self.end,
                        OF_COUNTS[(mix(seed) % 2) as usize].to_string(),
                    )
                })
            }
            // "rang 20 times before" → "a certain number of times"; "3 times as many" is a factor.
            ("times", _) => {
                let plain = after_next
                    .trim_start_matches(' ')
                    .starts_with(['.', ',', '?', '!', ';'])
                    || second
                        .as_ref()
                        .is_some_and(|(w, _)| AFTER_OCCURRENCES.contains(&w.as_str()));
                plain.then(|| (self.start, self.end, A_CERTAIN_NUMBER.to_string()))
            }
            ("of", _) => to(OF_COUNTS[(mix(seed) % 2) as usize]),
            _ => None,
        }
    }
}

/// Whether one or two describing words and then a plural noun follow ("12 female lions", "17
/// green jelly beans", "80 post-it notes", "5 large-sized picture scenes").
fn described(tail: &str) -> bool {
    let tokens = tokens_ahead(tail, 3);
    let describes = |t: &str| {
        (t.len() > 2 || t.contains('-'))
            && t.chars().all(|c| c.is_lowercase() || c == '-')
            && !NOT_DESCRIBING.contains(&t)
    };
    (1..=2).any(|k| {
        tokens.len() > k
            && tokens[..k].iter().all(|t| describes(t))
            && tokens[k].chars().all(char::is_lowercase)
            && is_plural(tokens[k])
    })
}

/// Up to `n` words at the start of `tail`, each after one space: letters, or letters joined by
/// hyphens ("post-it"); the first thing that is no such word ends them.
fn tokens_ahead(mut tail: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    while out.len() < n {
        let Some(rest) = tail.strip_prefix(' ') else {
            break;
        };
        let end = rest
            .char_indices()
            .find(|&(i, c)| {
                !(c.is_alphabetic()
                    || c == '-'
                        && i > 0
                        && cut::after(rest, i + 1).starts_with(char::is_alphabetic))
            })
            .map_or(rest.len(), |(i, _)| i);
        if end == 0 {
            break;
        }
        let (token, after) = cut::split(rest, end);
        out.push(token);
        tail = after;
    }
    out
}

fn is_determiner(word: &str) -> bool {
    DETERMINERS.contains(&word.to_lowercase().as_str())
}

fn is_plural(w: &str) -> bool {
    IRREGULAR.contains(&w)
        || w.ends_with("fish")
        || w.len() > 2 && w.ends_with('s') && !NOT_PLURAL.contains(&w)
}

fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Whether what follows `head` opens a sentence.
fn opens_sentence(head: &str) -> bool {
    head.trim_end_matches(' ')
        .chars()
        .next_back()
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | '\n'))
}

/// The indefinite as written at `at`: with a capital where it opens a sentence.
pub(super) fn capitalised_at(text: &str, at: usize, with: &str) -> String {
    if opens_sentence(cut::before(text, at)) {
        capital(with)
    } else {
        with.to_string()
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
