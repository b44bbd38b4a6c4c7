//! The `noop` attack (GSM-NoOp's "seemingly relevant but inconsequential" statement): one
//! sentence that gives a quantity of something the question talks about and that no reading of
//! the question can use. Every form is in [`ITEM_FORMS`] and [`PERSON_FORMS`]:
//!
//! - a property of some of the items a number counts, placed after the sentence that counts
//!   them: "48 cookies. … Five of the cookies were a bit smaller than average." The part is
//!   smaller than its whole, and the property (size, colour, hand, spots) is one the question
//!   never mentions, so nothing it asks can depend on it;
//! - when no count of items fits, a fact about a person the question names, after the sentence
//!   that first names them ("Weng has 4 cousins."), again on a topic (family, distance, age)
//!   the question never mentions.
//!
//! The inserted number is never one the question already writes, so a reply that used it is
//! recognisable (the gold plus or minus it). The gold is the question's own: the program never
//! reads the sentence.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::lexicon::{ANIMALS, BUILT, FOOD, FOUNDED, OBJECTS, PEOPLE, PERSON_NOUNS, PLANTS};
use super::names::{named, Named};
use super::{mentions_any, sentences, words};
use crate::cut;
use crate::question::{find_slots, word_numbers};

/// What a noun counts, for the properties that fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    People,
    Animals,
    Food,
    Plants,
    Things,
}

/// Plural nouns by kind: only these take an item sentence (a unit, an event or an abstract
/// count never does).
const NOUNS: &[(Kind, &[&str])] = &[
    (Kind::People, PEOPLE),
    (Kind::Animals, ANIMALS),
    (Kind::Food, FOOD),
    (Kind::Plants, PLANTS),
    (Kind::Things, OBJECTS),
];

/// (kind, property, stems the question must not mention for the property to be irrelevant).
const ITEM_FORMS: &[(Kind, &str, &[&str])] = &[
    (Kind::People, "were left-handed", &["hand"]),
    (Kind::People, "wore glasses", &["glass", "wear", "wore"]),
    (Kind::People, "had brown hair", &["hair", "brown"]),
    (Kind::Animals, "had brown spots", &["spot", "brown"]),
    (
        Kind::Animals,
        "were born in the spring",
        &["born", "spring", "age", "old", "young", "month"],
    ),
    (Kind::Animals, "were a bit smaller than average", SIZE),
    (Kind::Food, "were a bit smaller than average", SIZE),
    (
        Kind::Food,
        "were a little darker than the rest",
        &["dark", "light", "colo", "rest"],
    ),
    (
        Kind::Plants,
        "were a bit shorter than the rest",
        &["short", "tall", "height", "inch", "foot", "feet", "rest"],
    ),
    (
        Kind::Plants,
        "had a few yellow leaves",
        &["leaf", "leave", "yellow"],
    ),
    (Kind::Things, "were a bit smaller than average", SIZE),
    (
        Kind::Things,
        "were blue",
        &[
            "blue", "colo", "paint", "dye", "gold", "silver", "red", "green", "white", "black",
            "yellow", "pink", "purple", "brown", "gray", "grey", "orange",
        ],
    ),
];

const SIZE: &[&str] = &[
    "small", "big", "large", "size", "average", "weigh", "tiny", "huge",
];

/// A sentence about a person: its form for a third person and for "I" (`{who}` is the person,
/// `{k}` the number), the range k is drawn from, and the topics (word stems) the question must
/// not mention for the fact to be irrelevant.
struct PersonForm {
    third: &'static str,
    first: &'static str,
    range: (i128, i128),
    topics: &'static [&'static str],
}

#[rustfmt::skip]
const PERSON_FORMS: &[PersonForm] = &[
    PersonForm {
        third: "{who} has {k} cousins.",
        first: "{who} have {k} cousins.",
        range: (2, 9),
        topics: &["cousin", "family", "relative", "people", "person", "sibling", "brother",
            "sister", "guest", "invite", "aunt", "uncle"],
    },
    PersonForm {
        third: "{who} lives {k} miles from the nearest city.",
        first: "{who} live {k} miles from the nearest city.",
        range: (3, 30),
        topics: &["mile", "km", "kilomet", "meter", "metre", "drive", "drove", "walk", "distance",
            "far", "speed", "mph", "city", "town", "trip", "travel", "ride", "rode", "run", "ran",
            "gas", "fuel", "live"],
    },
    PersonForm {
        third: "{who} is {k} years old.",
        first: "{who} am {k} years old.",
        range: (25, 60),
        topics: &["year", "old", "age", "born", "birthday", "young", "decade"],
    },
];

/// Singular nouns of a made thing a sentence may open with ("A wooden bridge can …"), each with
/// the form that gives its age; the question must not mention [`AGE_STEMS`].
const THINGS: &[(&str, &[&str])] = &[
    ("{the} was built {k} years ago.", BUILT),
    ("{the} was founded {k} years ago.", FOUNDED),
];

const AGE_STEMS: &[&str] = &[
    "year", "old", "age", "new", "decade", "built", "build", "found", "ago", "centur",
];

/// Why a question gets no `noop` variant (the `generation_stats.refused` value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoopRefusal {
    /// No count of listed items outside the question sentence, nor a named person, for which a
    /// form's topic is absent from the question.
    NoPlace,
}

impl NoopRefusal {
    pub fn name(self) -> &'static str {
        match self {
            NoopRefusal::NoPlace => "no_place",
        }
    }
}

/// A question with its no-op sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WithNoop {
    pub text: String,
    /// The number the sentence gives, which the answer never reads.
    pub number: i128,
    pub sentence: String,
}

const SMALL_WORDS: [&str; 13] = [
    "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    "Eleven", "Twelve",
];

/// Where a sentence goes: after sentence `after`, or before the text when `None`.
struct Spot {
    after: Option<usize>,
    sentence: String,
    number: i128,
}

/// `text` with one no-op sentence, drawn from `seed`.
pub fn insert_noop(text: &str, seed: u64) -> Result<WithNoop, NoopRefusal> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let spans = sentences(text);
    let Some(last) = spans.len().checked_sub(1) else {
        return Err(NoopRefusal::NoPlace);
    };
    let sentence_of = |at: usize| spans.iter().position(|&(a, b)| a <= at && at < b);
    let mut written: Vec<i128> = find_slots(text)
        .iter()
        .filter_map(|s| s.value.as_integer().filter(|_| s.value.is_integer()))
        .collect();
    written.extend(
        word_numbers(text)
            .iter()
            .filter_map(|(_, v)| v.as_integer().filter(|_| v.is_integer())),
    );
    // Counts of items, in sentences that state (not ask) and end with a full stop.
    let mut items = Vec::new();
    for slot in find_slots(text) {
        let Some(n) = slot.value.as_integer().filter(|_| slot.value.is_integer()) else {
            continue;
        };
        let Some(at) = sentence_of(slot.start) else {
            continue;
        };
        let (a, b) = spans[at];
        if n < 3 || cut::before(text, slot.start).ends_with('$') {
            continue;
        }
        let Some((kind, noun)) = counted(text, slot.end) else {
            continue;
        };
        if at != last && cut::between(text, a, b).ends_with('.') {
            items.push((Some(at), kind, noun, n));
        } else if at == last && said_before(text, spans[last].0, &noun) {
            // Counted in the question sentence but spoken of before it: the sentence goes
            // just before the question.
            items.push((last.checked_sub(1), kind, noun, n));
        }
    }
    items.shuffle(&mut rng);
    for (at, kind, noun, n) in items {
        let mut forms: Vec<&(Kind, &str, &[&str])> = ITEM_FORMS
            .iter()
            .filter(|(k, _, stems)| *k == kind && !mentions_any(text, stems))
            .collect();
        forms.shuffle(&mut rng);
        let Some(&&(_, property, _)) = forms.first() else {
            continue;
        };
        let Some(k) = draw_unwritten(&mut rng, 2, (n - 1).min(12), &written) else {
            continue;
        };
        let spot = Spot {
            after: at,
            sentence: format!("{} of the {noun} {property}.", SMALL_WORDS[k as usize]),
            number: k,
        };
        return Ok(place(text, &spans, spot));
    }
    let mut persons = people_spoken_of(text);
    persons.shuffle(&mut rng);
    for (who, first_person, first) in persons {
        let Some(at) = sentence_of(first) else {
            continue;
        };
        let mut forms: Vec<&PersonForm> = PERSON_FORMS
            .iter()
            .filter(|f| !mentions_any(text, f.topics))
            .collect();
        forms.shuffle(&mut rng);
        let Some(f) = forms.first() else {
            continue;
        };
        let Some(k) = draw_unwritten(&mut rng, f.range.0, f.range.1, &written) else {
            continue;
        };
        let form = if first_person { f.first } else { f.third };
        let sentence = form.replace("{who}", &who).replace("{k}", &k.to_string());
        // A person first named in the question sentence is introduced just before it.
        let after = if at == last {
            at.checked_sub(1)
        } else {
            Some(at)
        };
        let spot = Spot {
            after,
            sentence,
            number: k,
        };
        return Ok(place(text, &spans, spot));
    }
    if !mentions_any(text, AGE_STEMS) {
        if let Some((the, form, at)) = thing_spoken_of(text) {
            if let Some(k) = draw_unwritten(&mut rng, 3, 40, &written) {
                let sentence = form.replace("{the}", &the).replace("{k}", &k.to_string());
                let at = sentence_of(at).unwrap_or(0);
                let after = if at == last {
                    at.checked_sub(1)
                } else {
                    Some(at)
                };
                let spot = Spot {
                    after,
                    sentence,
                    number: k,
                };
                return Ok(place(text, &spans, spot));
            }
        }
    }
    Err(NoopRefusal::NoPlace)
}

/// The first made thing a sentence opens with ("A wooden bridge …"): "The bridge", its form,
/// and where it is mentioned.
fn thing_spoken_of(text: &str) -> Option<(String, &'static str, usize)> {
    let ws = words(text);
    for (start, _) in sentences(text) {
        let Some(i) = ws.iter().position(|w| w.start >= start) else {
            continue;
        };
        if !matches!(ws[i].text, "A" | "An" | "The") {
            continue;
        }
        for w in ws[i + 1..]
            .iter()
            .take(3)
            .take_while(|w| w.text.starts_with(char::is_lowercase))
        {
            if let Some((form, _)) = THINGS.iter().find(|(_, nouns)| nouns.contains(&w.text)) {
                return Some((format!("The {}", w.text), form, ws[i].start));
            }
        }
    }
    None
}

/// The people a sentence can be about: (how the sentence names them, whether that is "I",
/// where they are first mentioned). Named people first; else a person noun opening a sentence
/// ("A merchant", "The zookeeper"), or the narrator ("I have …").
fn people_spoken_of(text: &str) -> Vec<(String, bool, usize)> {
    let Named { people, titled } = named(text);
    let named: Vec<(String, bool, usize)> = people
        .into_iter()
        .map(|(name, mentions)| (name, false, mentions[0].0))
        .chain(titled.into_iter().map(|(name, at, _)| (name, false, at)))
        .collect();
    if !named.is_empty() {
        return named;
    }
    let ws = words(text);
    let mut out = Vec::new();
    for (start, _) in sentences(text) {
        let Some(i) = ws.iter().position(|w| w.start >= start) else {
            continue;
        };
        match ws[i].text {
            "I" => {
                out.push(("I".to_string(), true, ws[i].start));
                break;
            }
            "A" | "An" | "The" => {
                // The noun within the next three words, before any verb-like word.
                let noun = ws[i + 1..]
                    .iter()
                    .take(3)
                    .take_while(|w| w.text.starts_with(char::is_lowercase))
                    .find(|w| PERSON_NOUNS.contains(&w.text));
                if let Some(n) = noun {
                    out.push((format!("The {}", n.text), false, ws[i].start));
                    break;
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether the text before byte `end` writes `noun` (a plural) or its singular.
fn said_before(text: &str, end: usize, noun: &str) -> bool {
    let one = crate::agreement::singular(noun);
    words(cut::before(text, end)).iter().any(|w| {
        let lower = w.text.to_lowercase();
        lower == noun || one.as_deref() == Some(lower.as_str())
    })
}

/// The listed noun a count at `end` counts: the first of the next three words, across
/// adjectives and "of her", with nothing but spaces and hyphens between.
fn counted(text: &str, end: usize) -> Option<(Kind, String)> {
    const STOP: &[&str] = &[
        "per", "each", "a", "an", "for", "in", "on", "at", "to", "and", "or", "than", "more",
        "less", "fewer", "times", "every", "from", "with", "by", "as",
    ];
    let mut at = end;
    for w in words(cut::after(text, end)).iter().take(4) {
        let gap = cut::between(text, at, end + w.start);
        if !gap.chars().all(|c| c == ' ' || c == '-') {
            return None;
        }
        at = end + w.end;
        let lower = w.text.to_lowercase();
        if let Some(kind) = NOUNS
            .iter()
            .find(|(_, nouns)| nouns.contains(&lower.as_str()))
            .map(|(k, _)| *k)
        {
            return Some((kind, lower));
        }
        if STOP.contains(&lower.as_str()) {
            return None;
        }
    }
    None
}

/// How a sentence writes `k`: a word when it opens one ("Five of the …"), else digits.
pub fn number_text(k: i128) -> String {
    usize::try_from(k)
        .ok()
        .and_then(|i| SMALL_WORDS.get(i))
        .map_or_else(|| k.to_string(), |w| w.to_string())
}

/// A number in `lo..=hi` that the question does not already write.
fn draw_unwritten(rng: &mut Pcg64Mcg, lo: i128, hi: i128, written: &[i128]) -> Option<i128> {
    let free: Vec<i128> = (lo..=hi).filter(|k| !written.contains(k)).collect();
    (!free.is_empty()).then(|| free[rng.random_range(0..free.len())])
}

fn place(text: &str, spans: &[(usize, usize)], spot: Spot) -> WithNoop {
    let out = match spot.after {
        Some(i) => {
            let end = spans[i].1;
            format!(
                "{} {}{}",
                cut::before(text, end),
                spot.sentence,
                cut::after(text, end)
            )
        }
        None => {
            let lead = text.len() - text.trim_start().len();
            format!(
                "{}{} {}",
                cut::before(text, lead),
                spot.sentence,
                cut::after(text, lead)
            )
        }
    };
    WithNoop {
        text: out,
        number: spot.number,
        sentence: spot.sentence,
    }
}

#[cfg(test)]
mod tests;
