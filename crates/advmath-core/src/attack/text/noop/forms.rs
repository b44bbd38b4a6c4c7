//! The bank of sentence forms a no-op is made from, in one place: what kinds of items a count
//! may be of (`NOUNS`), the property sentences about some of them (`ITEM_FORMS`), the facts
//! about a person (`PERSON_FORMS`) and the ages of made things (`THINGS`), each with the topics
//! the question must not mention for the sentence to stay irrelevant.

use super::super::lexicon::{
    ANIMALS, BUILT, FOOD, FOUNDED, HOLDERS, MADE, OBJECTS, PEOPLE, PLANTED, PLANTS, RELEASED,
};

/// What a noun counts, for the properties that fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) const NOUNS: &[(Kind, &[&str])] = &[
    (Kind::People, PEOPLE),
    (Kind::Animals, ANIMALS),
    (Kind::Food, FOOD),
    (Kind::Plants, PLANTS),
    (Kind::Things, OBJECTS),
    (Kind::Holders, HOLDERS),
];

/// (kind, property, stems the question must not mention for the property to be irrelevant).
/// (kind, property with `{be}` for "were" or "was", stems the question must not mention).
pub(super) const ITEM_FORMS: &[(Kind, &str, &[&str])] = &[
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
pub(super) const QUALITY: &[&str] = &[
    "good", "bad", "ripe", "unripe", "rotten", "broken", "damag", "defect", "sour", "fresh",
    "spoil", "fault", "perfect", "crack", "quality",
];

pub(super) const SIZE: &[&str] = &[
    "small", "big", "large", "size", "average", "weigh", "tiny", "huge",
];

/// A sentence about a person: its form for a third person and for "I" (`{who}` is the person,
/// `{k}` the number), the range k is drawn from, and the topics (word stems) the question must
/// not mention for the fact to be irrelevant.
pub(super) struct PersonForm {
    pub(super) third: &'static str,
    pub(super) first: &'static str,
    pub(super) range: (i128, i128),
    pub(super) topics: &'static [&'static str],
    /// Whether it fits a group ("The family lives 9 miles …") as well as a person.
    pub(super) groups: bool,
    /// Words of the next sentence that could turn to what the form introduces ("Tom has 9
    /// houseplants. They measure 20 by 18 feet"): the form does not go before one.
    pub(super) taken_by: &'static [&'static str],
}

#[rustfmt::skip]
pub(super) const PERSON_FORMS: &[PersonForm] = &[
    PersonForm {
        third: "{who} has {k} cousins.",
        first: "{who} have {k} cousins.",
        range: (2, 9),
        topics: &["cousin", "family", "relative", "people", "person", "sibling", "brother",
            "sister", "guest", "invite", "aunt", "uncle"],
        groups: false,
        taken_by: &["they", "them", "their", "these", "those", "theirs"],
    },
    PersonForm {
        third: "{who} lives {k} miles from the nearest city.",
        first: "{who} live {k} miles from the nearest city.",
        range: (3, 30),
        topics: &["mile", "km", "kilomet", "meter", "metre", "drive", "drove", "walk", "distance",
            "far", "speed", "mph", "city", "town", "trip", "travel", "ride", "rode", "run", "ran",
            "gas", "fuel", "live"],
        groups: true,
        taken_by: &["it", "its", "there"],
    },
    PersonForm {
        third: "{who} has {k} houseplants.",
        first: "{who} have {k} houseplants.",
        range: (2, 9),
        topics: &["plant", "flower", "garden", "tree", "pot", "seed", "leaf", "leaves", "grow",
            "water"],
        groups: false,
        taken_by: &["they", "them", "their", "these", "those", "theirs"],
    },
    PersonForm {
        third: "{who} has been to {k} countries.",
        first: "{who} have been to {k} countries.",
        range: (2, 9),
        topics: &["countr", "travel", "trip", "vacation", "flight", "plane", "fly", "flew",
            "visit", "abroad", "been"],
        groups: true,
        taken_by: &["they", "them", "their", "these", "those", "theirs"],
    },
    PersonForm {
        third: "{who}'s favorite number is {k}.",
        first: "My favorite number is {k}.",
        range: (3, 30),
        topics: &["favorite", "favourite"],
        groups: false,
        taken_by: &["it", "its", "that", "this"],
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
        taken_by: &[],
    },
];

/// Singular nouns of a made thing a sentence may open with ("A wooden bridge can …"), each with
/// the form that gives its age; the question must not mention [`AGE_STEMS`].
pub(super) const THINGS: &[(&str, &[&str])] = &[
    ("{the} was built {k} years ago.", BUILT),
    ("{the} was founded {k} years ago.", FOUNDED),
    ("{the} came out {k} years ago.", RELEASED),
    ("{the} was planted {k} years ago.", PLANTED),
    ("{the} was made {k} years ago.", MADE),
];

pub(super) const AGE_STEMS: &[&str] = &[
    "year", "old", "age", "new", "decade", "built", "build", "found", "ago", "centur", "made",
    "make", "plant", "came", "come", "release",
];

pub(super) const SMALL_WORDS: [&str; 13] = [
    "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    "Eleven", "Twelve",
];
