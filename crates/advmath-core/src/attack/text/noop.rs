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

use super::lexicon::{
    ANIMALS, BUILT, FOOD, FOUNDED, GROUP_NOUNS, HOLDERS, MADE, OBJECTS, PEOPLE, PERSON_NOUNS,
    PLANTED, PLANTS, RELEASED,
};
use super::names::{named, people, Gender, Named};
use super::{mentions_any, sentences, words};
use crate::cut;
use crate::question::{find_slots, number_word_value};

/// What a noun counts, for the properties that fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    People,
    Animals,
    Food,
    Plants,
    Things,
    /// Things that hold or carry others (boxes, albums, buses): "smaller" could mean holding
    /// fewer, so they take a colour only.
    Holders,
}

/// Plural nouns by kind: only these take an item sentence (a unit, an event or an abstract
/// count never does).
const NOUNS: &[(Kind, &[&str])] = &[
    (Kind::People, PEOPLE),
    (Kind::Animals, ANIMALS),
    (Kind::Food, FOOD),
    (Kind::Plants, PLANTS),
    (Kind::Things, OBJECTS),
    (Kind::Holders, HOLDERS),
];

/// (kind, property, stems the question must not mention for the property to be irrelevant).
/// (kind, property with `{be}` for "were" or "was", stems the question must not mention).
const ITEM_FORMS: &[(Kind, &str, &[&str])] = &[
    (Kind::People, "{be} left-handed", &["hand"]),
    (Kind::People, "wore glasses", &["glass", "wear", "wore"]),
    (Kind::People, "had brown hair", &["hair", "brown"]),
    (Kind::Animals, "had brown spots", &["spot", "brown"]),
    (
        Kind::Animals,
        "{be} born in the spring",
        &["born", "spring", "age", "old", "young", "month"],
    ),
    (Kind::Animals, "{be} a bit smaller than average", SIZE),
    (Kind::Food, "{be} a bit smaller than average", SIZE),
    (
        Kind::Food,
        "{be} a little darker than the rest",
        &["dark", "light", "colo", "rest"],
    ),
    (
        Kind::Plants,
        "{be} a bit shorter than the rest",
        &["short", "tall", "height", "inch", "foot", "feet", "rest"],
    ),
    (
        Kind::Plants,
        "had a few yellow leaves",
        &["leaf", "leave", "yellow"],
    ),
    (Kind::Things, "{be} a bit smaller than average", SIZE),
    (
        Kind::Holders,
        "{be} blue",
        &[
            "blue", "colo", "paint", "dye", "gold", "silver", "red", "green", "white", "black",
            "yellow", "pink", "purple", "brown", "gray", "grey", "orange",
        ],
    ),
    (
        Kind::Things,
        "{be} blue",
        &[
            "blue", "colo", "paint", "dye", "gold", "silver", "red", "green", "white", "black",
            "yellow", "pink", "purple", "brown", "gray", "grey", "orange",
        ],
    ),
];

/// Words of a question that sorts items by their quality ("how many oranges are good?"): a
/// property sentence about them could read as one more sort.
const QUALITY: &[&str] = &[
    "good", "bad", "ripe", "unripe", "rotten", "broken", "damag", "defect", "sour", "fresh",
    "spoil", "fault", "perfect", "crack", "quality",
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
    /// Whether it fits a group ("The family lives 9 miles …") as well as a person.
    groups: bool,
}

#[rustfmt::skip]
const PERSON_FORMS: &[PersonForm] = &[
    PersonForm {
        third: "{who} has {k} cousins.",
        first: "{who} have {k} cousins.",
        range: (2, 9),
        topics: &["cousin", "family", "relative", "people", "person", "sibling", "brother",
            "sister", "guest", "invite", "aunt", "uncle"],
        groups: false,
    },
    PersonForm {
        third: "{who} lives {k} miles from the nearest city.",
        first: "{who} live {k} miles from the nearest city.",
        range: (3, 30),
        topics: &["mile", "km", "kilomet", "meter", "metre", "drive", "drove", "walk", "distance",
            "far", "speed", "mph", "city", "town", "trip", "travel", "ride", "rode", "run", "ran",
            "gas", "fuel", "live"],
        groups: true,
    },
    PersonForm {
        third: "{who} has {k} houseplants.",
        first: "{who} have {k} houseplants.",
        range: (2, 9),
        topics: &["plant", "flower", "garden", "tree", "pot", "seed", "leaf", "leaves", "grow",
            "water"],
        groups: false,
    },
    PersonForm {
        third: "{who} has been to {k} countries.",
        first: "{who} have been to {k} countries.",
        range: (2, 9),
        topics: &["countr", "travel", "trip", "vacation", "flight", "plane", "fly", "flew",
            "visit", "abroad", "been"],
        groups: true,
    },
    PersonForm {
        third: "{who}'s favorite number is {k}.",
        first: "My favorite number is {k}.",
        range: (3, 30),
        topics: &["favorite", "favourite"],
        groups: false,
    },
    PersonForm {
        third: "{who} is {k} years old.",
        first: "{who} am {k} years old.",
        range: (25, 60),
        // A child's story gets no adult's age.
        topics: &["year", "old", "age", "born", "birthday", "young", "decade", "school", "grade",
            "class", "mom", "dad", "mother", "father", "parent", "allowance", "toy", "kid", "child",
            "homework", "recess", "playground", "sister", "brother", "grandm", "grandp", "babysit",
            "lollipop", "cand", "sticker", "marble", "crayon", "summer", "friend", "teacher"],
        groups: false,
    },
];

/// Singular nouns of a made thing a sentence may open with ("A wooden bridge can …"), each with
/// the form that gives its age; the question must not mention [`AGE_STEMS`].
const THINGS: &[(&str, &[&str])] = &[
    ("{the} was built {k} years ago.", BUILT),
    ("{the} was founded {k} years ago.", FOUNDED),
    ("{the} came out {k} years ago.", RELEASED),
    ("{the} was planted {k} years ago.", PLANTED),
    ("{the} was made {k} years ago.", MADE),
];

const AGE_STEMS: &[&str] = &[
    "year", "old", "age", "new", "decade", "built", "build", "found", "ago", "centur", "made",
    "make", "plant", "came", "come", "release",
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
        let Some(f) = forms.first() else {
            continue;
        };
        // A person first named in the question sentence is introduced just before it.
        let after = if at == last {
            at.checked_sub(1)
        } else {
            Some(at)
        };
        let stays = |a| first_person || pronouns_stay_theirs(text, &spans, a, &who, gender);
        let Some(after) = first_fit(text, &spans, after, last, false, stays) else {
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

/// The first place from `after` on, before the question sentence `last`, where a sentence fits
/// (see [`fits_before_next`]): right after the sentence that introduces its subject, or as soon
/// after as the text allows.
fn first_fit(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    last: usize,
    items: bool,
    also: impl Fn(Option<usize>) -> bool,
) -> Option<Option<usize>> {
    let fits = |a: Option<usize>| fits_before_next(text, spans, a, items) && also(a);
    if fits(after) {
        return Some(after);
    }
    let from = after.map_or(0, |i| i + 1);
    (from..last).map(Some).find(|&a| fits(a))
}

/// Whether a sentence may go after sentence `after` (before the text when `None`): that one
/// ends with a full stop, and the next starts a sentence of its own (a capital letter: not the
/// rest of a list cut by a stray full stop) and reaches back to nothing the new sentence could
/// take over ("four times that many", "the rest"; after a sentence about some of the items,
/// also "them", "they", "it").
fn fits_before_next(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    items: bool,
) -> bool {
    const BACK: &[&str] = &[
        "that many",
        "that much",
        "that number",
        "that amount",
        "this number",
        "this amount",
        "those",
        "these",
        "of them",
        "the rest",
        "the remaining",
        "the others",
        "the same",
        "that total",
        "this total",
        "all of them",
        "each of them",
        "such",
        "other",
        "others",
        "rest",
        "remaining",
        "remainder",
    ];
    // A count a sentence about a person gives could be taken for these.
    const BACK_TO_NUMBER: &[&str] = &[
        "that many",
        "that much",
        "that number",
        "that amount",
        "this number",
        "this amount",
        "the same number",
        "the same amount",
        "that total",
        "this total",
        "so many",
        "such",
    ];
    const BACK_TO_ITEMS: &[&str] = &["them", "they", "their", "it", "its", "ones"];
    if let Some(i) = after {
        if !cut::between(text, spans[i].0, spans[i].1).ends_with('.') {
            return false;
        }
    }
    let next = after.map_or(0, |i| i + 1);
    let Some(&(a, b)) = spans.get(next) else {
        return true;
    };
    let sentence = cut::between(text, a, b);
    let opens = sentence
        .trim_start_matches(|c: char| c.is_whitespace() || "\"“‘'(".contains(c))
        .starts_with(char::is_uppercase);
    let lower: Vec<String> = words(sentence)
        .iter()
        .map(|w| w.text.to_lowercase())
        .collect();
    let joined = format!(" {} ", lower.join(" "));
    let back = if items { BACK } else { BACK_TO_NUMBER };
    // "the same amount of weight" says what it is the same as; "the same amount" alone may
    // reach back to the new sentence's number.
    let reaches_back = back.iter().any(|p| {
        joined
            .match_indices(&format!(" {p} "))
            .any(|(at, m)| !cut::after(&joined, at + m.len()).starts_with("of "))
    }) || (items && BACK_TO_ITEMS.iter().any(|p| lower.iter().any(|w| w == p)));
    opens && !reaches_back
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

/// Owned nouns whose owner's pronoun they could take ("Nate's dog … He digs").
const TAKES_PRONOUNS: &[&str] = &[
    "dog",
    "cat",
    "puppy",
    "kitten",
    "horse",
    "pet",
    "bird",
    "parrot",
    "hamster",
    "fish",
    "rabbit",
    "turtle",
    "pig",
    "cow",
    "goat",
    "pony",
    "father",
    "mother",
    "dad",
    "mom",
    "brother",
    "sister",
    "son",
    "daughter",
    "husband",
    "wife",
    "friend",
    "boyfriend",
    "girlfriend",
    "grandmother",
    "grandfather",
    "grandma",
    "grandpa",
    "uncle",
    "aunt",
    "cousin",
    "teacher",
    "boss",
    "neighbor",
    "coach",
    "baby",
    "child",
    "kid",
];

/// Whether a sentence about `who` after sentence `after` leaves the next sentence's pronouns
/// as they were: the next has none that could be theirs before it names them itself, or the
/// one before it speaks of them already. Otherwise "He digs" after "Nate lives 8 miles away"
/// would turn from Nate's dog to Nate.
fn pronouns_stay_theirs(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    who: &str,
    gender: Gender,
) -> bool {
    const SHE: &[&str] = &["she", "her", "hers", "herself"];
    const HE: &[&str] = &["he", "him", "his", "himself"];
    let compatible = |w: &str| {
        let lower = w.to_lowercase();
        let (she, he) = (SHE.contains(&lower.as_str()), HE.contains(&lower.as_str()));
        match gender {
            Gender::Female => she,
            Gender::Male => he,
            Gender::Either => she || he,
        }
    };
    let next = after.map_or(0, |i| i + 1);
    let Some(&(a, b)) = spans.get(next) else {
        return true;
    };
    // "The trader" is named by its noun.
    let name = who.rsplit(' ').next().unwrap_or(who);
    let is_name = |w: &str| w.eq_ignore_ascii_case(name);
    let could_be_theirs = words(cut::between(text, a, b))
        .iter()
        .take_while(|w| !is_name(w.text))
        .any(|w| compatible(w.text));
    // The sentence before speaks of them: by name, as the owner of a thing (not of an animal or
    // a person, who could take the pronoun), or it opens with one of their pronouns.
    let spoken_of = after.is_some_and(|i| {
        let (a, b) = spans[i];
        let sentence = cut::between(text, a, b);
        let ws = words(sentence);
        let by_name = ws.iter().enumerate().any(|(k, w)| {
            let possessive = cut::after(sentence, w.end).starts_with(['\'', '’']);
            let owned = ws
                .get(k + 2)
                .map(|o| o.text.to_lowercase())
                .unwrap_or_default();
            is_name(w.text) && (!possessive || !TAKES_PRONOUNS.contains(&owned.as_str()))
        });
        let by_pronoun = ws.first().is_some_and(|w| match gender {
            Gender::Female => w.text.eq_ignore_ascii_case("she"),
            Gender::Male => w.text.eq_ignore_ascii_case("he"),
            Gender::Either => false,
        });
        by_name || by_pronoun
    });
    !could_be_theirs || spoken_of
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

#[cfg(test)]
mod tests;
