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

use super::lexicon::{GROUP_NOUNS, PERSON_NOUNS};
use super::names::{named, people, Gender, Named};
use super::{mentions_any, sentences, words};
use crate::cut;
use crate::question::{find_slots, number_word_value};

/// Why a question gets no `noop` variant (the `generation_stats.refused` value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoopRefusal {
    /// No count of listed items outside the question sentence, nor a named person, for which a
    /// form's topic is absent from the question.
    NoPlace,
}

impl NoopRefusal {
    pub const ALL: [NoopRefusal; 1] = [NoopRefusal::NoPlace];

    pub const fn name(self) -> &'static str {
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
    // Cardinals written as words count too ("four books"); ordinals and "twice" do not.
    written.extend(words(text).iter().filter_map(|w| number_word_value(w.text)));
    // Counts of items, in digits or in a word ("Four books"), in sentences that state (not
    // ask) and end with a full stop.
    let mut counts: Vec<(usize, usize, i128)> = find_slots(text)
        .iter()
        .filter(|s| !cut::before(text, s.start).ends_with('$'))
        .filter_map(|s| {
            let n = s.value.as_integer().filter(|_| s.value.is_integer())?;
            Some((s.start, s.end, n))
        })
        .collect();
    let ws = words(text);
    for (i, w) in ws.iter().enumerate() {
        // A word joined to another by a hyphen ("fifty-four", "two-thirds") is no count alone.
        let hyphened = cut::after(text, w.end).starts_with('-')
            || (i > 0 && cut::between(text, ws[i - 1].end, w.start) == "-");
        if let Some(n) = number_word_value(w.text).filter(|_| !hyphened && w.text != "dozen") {
            counts.push((w.start, w.end, n));
        }
    }
    counts.sort_unstable();
    let mut items = Vec::new();
    for (start, end, n) in counts {
        let Some(at) = sentence_of(start) else {
            continue;
        };
        let (a, b) = spans[at];
        if n < 2 {
            continue;
        }
        let Some((kind, noun)) = counted(text, end) else {
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
            .filter(|(k, _, stems)| {
                *k == kind && !mentions_any(text, stems) && !mentions_any(text, QUALITY)
            })
            .collect();
        forms.shuffle(&mut rng);
        let Some(&&(_, property, _)) = forms.first() else {
            continue;
        };
        let Some(at) = first_fit(text, &spans, at, last, true, |_| true) else {
            continue;
        };
        // Two or more of the items where the count allows, so that the number stands apart
        // from an answer merely off by one; one of two items otherwise.
        let k = draw_unwritten(&mut rng, 2, (n - 1).min(12), &written)
            .or_else(|| draw_unwritten(&mut rng, 1, 1, &written));
        let Some(k) = k else {
            continue;
        };
        let be = if k == 1 { "was" } else { "were" };
        let spot = Spot {
            after: at,
            sentence: format!(
                "{} of the {noun} {}.",
                SMALL_WORDS[k as usize],
                property.replace("{be}", be)
            ),
            number: k,
        };
        return Ok(place(text, &spans, spot));
    }
    let mut persons = people_spoken_of(text);
    persons.shuffle(&mut rng);
    for subject in persons {
        let Subject {
            who,
            first_person,
            at: first,
            gender,
            group,
        } = subject;
        let Some(at) = sentence_of(first) else {
            continue;
        };
        let mut forms: Vec<&PersonForm> = PERSON_FORMS
            .iter()
            .filter(|f| (f.groups || !group) && !mentions_any(text, f.topics))
            .collect();
        forms.shuffle(&mut rng);
        // A person first named in the question sentence is introduced just before it.
        let after = if at == last {
            at.checked_sub(1)
        } else {
            Some(at)
        };
        // The first form, in the drawn order, that fits somewhere.
        let placed = forms.iter().find_map(|f| {
            let fits = |a: Option<usize>| {
                (first_person || pronouns_stay_theirs(text, &spans, a, &who, gender))
                    && next_is_free_of(text, &spans, a, f.taken_by)
            };
            first_fit(text, &spans, after, last, false, fits).map(|a| (f, a))
        });
        let Some((f, after)) = placed else {
            continue;
        };
        let Some(k) = draw_unwritten(&mut rng, f.range.0, f.range.1, &written) else {
            continue;
        };
        let form = if first_person { f.first } else { f.third };
        let sentence = form.replace("{who}", &who).replace("{k}", &k.to_string());
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
                let Some(after) = first_fit(text, &spans, after, last, false, |_| true) else {
                    return Err(NoopRefusal::NoPlace);
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
            // "The car" is which car only when the text has one.
            let plural = format!("{}s", w.text);
            if ws
                .iter()
                .any(|o| o.text == plural || o.text == format!("{}es", w.text))
            {
                continue;
            }
            if let Some((form, _)) = THINGS.iter().find(|(_, nouns)| nouns.contains(&w.text)) {
                return Some((format!("The {}", w.text), form, ws[i].start));
            }
        }
    }
    None
}

/// Someone a sentence can be about.
struct Subject {
    /// How the sentence names them ("Weng", "Mrs. Cruz", "The merchant", "I").
    who: String,
    first_person: bool,
    /// Where they are first mentioned.
    at: usize,
    /// The pronouns that may be theirs.
    gender: Gender,
    /// A group ("The family"), which only some forms fit.
    group: bool,
}

/// The people a sentence can be about: named people first; else a person noun opening a
/// sentence ("A merchant", "The zookeeper"), or the narrator ("I have …").
fn people_spoken_of(text: &str) -> Vec<Subject> {
    let Named {
        people: named_people,
        titled,
        ..
    } = named(text);
    let genders: Vec<(String, Gender)> = people(text)
        .map(|ps| ps.into_iter().map(|p| (p.name, p.gender)).collect())
        .unwrap_or_default();
    let gender_of = |name: &str| {
        genders
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Gender::Either, |(_, g)| *g)
    };
    let named: Vec<Subject> = named_people
        .into_iter()
        .map(|(name, mentions)| Subject {
            gender: gender_of(&name),
            who: name,
            first_person: false,
            at: mentions[0].0,
            group: false,
        })
        .chain(titled.into_iter().map(|(name, at, gender)| Subject {
            who: name,
            first_person: false,
            at,
            gender,
            group: false,
        }))
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
                out.push(Subject {
                    who: "I".to_string(),
                    first_person: true,
                    at: ws[i].start,
                    gender: Gender::Either,
                    group: false,
                });
                break;
            }
            "A" | "An" | "The" | "My" => {
                // The noun within the next three words, before any verb-like word.
                let noun = ws[i + 1..]
                    .iter()
                    .take(3)
                    .take_while(|w| w.text.starts_with(char::is_lowercase))
                    .find(|w| PERSON_NOUNS.contains(&w.text) || GROUP_NOUNS.contains(&w.text));
                // "A group of lazy Allosaurus" may be no people at all.
                let group_of = noun.is_some_and(|n| {
                    GROUP_NOUNS.contains(&n.text)
                        && ws
                            .iter()
                            .find(|o| o.start > n.end)
                            .is_some_and(|o| o.text == "of")
                });
                if let Some(n) = noun.filter(|_| !group_of) {
                    let det = if ws[i].text == "My" { "My" } else { "The" };
                    out.push(Subject {
                        who: format!("{det} {}", n.text),
                        first_person: false,
                        at: ws[i].start,
                        gender: Gender::Either,
                        group: GROUP_NOUNS.contains(&n.text),
                    });
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

mod forms;
mod placement;

use forms::{
    Kind, PersonForm, AGE_STEMS, ITEM_FORMS, NOUNS, PERSON_FORMS, QUALITY, SMALL_WORDS, THINGS,
};
use placement::{first_fit, next_is_free_of, pronouns_stay_theirs};

#[cfg(test)]
mod tests;
