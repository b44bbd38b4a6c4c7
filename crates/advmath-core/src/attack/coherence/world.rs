//! The reader's rules of the world: bounded units and ages, bills and coins, facts (a spider's
//! legs), the people a question names, plural counts.

use std::cmp::Ordering;

use super::{
    clause_before, counted_noun, last_sentence, sentence_start, words, ReaderRule, RuleKind, Side,
};
use crate::agreement::{singular, NOT_A_NOUN};
use crate::cut;
use crate::num::Num;
use crate::program::tree::{BinOp, Node, Program};
use crate::question::{units, Slot};
use crate::vocab::Reject;

/// Denominations of US bills and coins, the only ones GSM8K's dollars are paid in.
const BILLS: &[i128] = &[1, 2, 5, 10, 20, 50, 100];

const COINS: &[i128] = &[1, 5, 10, 25, 50, 100];

/// A person's age, in years, at most.
const OLDEST: i128 = 120;

/// Counts of bounded units stay inside their bounds: the reader's own detections of
/// [`units::reader_unit_uses`], a person's age (a number "years old", and what the program makes
/// of it by adding years or multiplying), and an answer the question asks in a bounded unit
/// ("how many hours per month", "how old").
pub(super) fn bounded_units(
    text: &str,
    slots: &[Slot],
    program: &Program,
    node_values: &[Num],
    out: &mut Vec<ReaderRule>,
) {
    for (slot, max, what) in units::reader_bounds(text, slots) {
        out.push(ReaderRule::new(
            RuleKind::AtMost {
                of: Side::Slot(slot),
                max,
            },
            what.to_string(),
        ));
    }
    let ages: Vec<u32> = (0..slots.len() as u32)
        .filter(|&i| is_age(text, &slots[i as usize]))
        .collect();
    let oldest = Num::int(OLDEST);
    // The ages the text gives keep their order: a daughter stays younger than her mother.
    for (x, &a) in ages.iter().enumerate() {
        for &b in &ages[x + 1..] {
            let (va, vb) = (slots[a as usize].value, slots[b as usize].value);
            let (less, more) = match va.cmp_num(vb) {
                Ordering::Less => (a, b),
                Ordering::Greater => (b, a),
                Ordering::Equal => continue,
            };
            out.push(ReaderRule::new(
                RuleKind::Order {
                    less: Side::Slot(less),
                    more: Side::Slot(more),
                    strict: true,
                },
                "two ages the question gives: their order",
            ));
        }
    }
    for &a in &ages {
        out.push(ReaderRule::new(
            RuleKind::AtMost {
                of: Side::Slot(a),
                max: oldest,
            },
            "a person's age",
        ));
    }
    // An age plus some years ("in 7 years"), or times a constant ("three times the age his
    // father was"), is an age again; the sum of two ages is not, nor an age plus a price.
    let mut is_age_node = vec![false; program.nodes.len()];
    for (n, node) in program.nodes.iter().enumerate() {
        let age = |i: u32| match program.nodes[i as usize] {
            Node::Leaf { slot } => ages.contains(&slot),
            _ => is_age_node[i as usize],
        };
        let years = |i: u32| match program.nodes[i as usize] {
            Node::Leaf { slot } => {
                counted_noun(text, &slots[slot as usize]).as_deref() == Some("year")
            }
            Node::Const { .. } => true,
            _ => false,
        };
        let times = |i: u32| matches!(program.nodes[i as usize], Node::Const { .. });
        is_age_node[n] = match *node {
            Node::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
            } => (age(lhs) && years(rhs)) || (age(rhs) && years(lhs)),
            Node::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            } => (age(lhs) && times(rhs)) || (age(rhs) && times(lhs)),
            _ => false,
        };
        if is_age_node[n] {
            out.push(ReaderRule::new(
                RuleKind::AtMost {
                    of: Side::Node(n as u32),
                    max: oldest,
                },
                format!("a person's age, computed as {}", node_values[n]),
            ));
        }
    }
    let asked = words(last_sentence(text));
    let answer = Side::Node(program.answer);
    // "How old will they be together" asks for a sum of ages, which no bound holds.
    let summed = asked
        .iter()
        .any(|w| ["together", "combined", "total", "sum", "altogether"].contains(&w.as_str()));
    if asked.windows(2).any(|w| w == ["how", "old"]) && !summed {
        out.push(ReaderRule::new(
            RuleKind::AtMost {
                of: answer,
                max: oldest,
            },
            "the answer is a person's age ('how old')",
        ));
    }
    if let Some((max, what)) = units::asked_rate(&asked) {
        out.push(ReaderRule::new(
            RuleKind::AtMost { of: answer, max },
            format!("the answer counts {what}"),
        ));
    }
}

/// A number the text writes as a person's age ("44 years old", "a 30-year-old", "aged 7", "at
/// the age of 12").
pub(super) fn is_age(text: &str, s: &Slot) -> bool {
    let after = words(cut::before(
        cut::after(text, s.end),
        cut::after(text, s.end).len().min(24),
    ));
    let before = words(clause_before(text, s.start));
    let years_old = matches!(after.first().map(String::as_str), Some("years" | "year"))
        && matches!(after.get(1).map(String::as_str), Some("old"));
    let aged = matches!(before.last().map(String::as_str), Some("aged" | "age"));
    years_old || aged
}

/// "a $20 bill", "three $5 bills", "a 25-cent coin": the denomination is one that exists.
pub(super) fn denominations(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    for (i, s) in slots.iter().enumerate() {
        if s.word || !s.value.is_integer() {
            continue;
        }
        let after = words(cut::before(
            cut::after(text, s.end),
            cut::after(text, s.end).len().min(24),
        ));
        let dollar = cut::before(text, s.start).ends_with('$');
        let first = after.first().map(String::as_str);
        let second = after.get(1).map(String::as_str);
        let (values, what) = match (dollar, first, second) {
            (true, Some("bill" | "bills" | "note" | "notes"), _)
            | (false, Some("dollar"), Some("bill" | "bills")) => (BILLS, "a bill that exists"),
            (false, Some("cent"), Some("coin" | "coins" | "piece" | "pieces")) => {
                (COINS, "a coin that exists")
            }
            _ => continue,
        };
        out.push(ReaderRule::new(
            RuleKind::OneOf {
                slot: i as u32,
                values,
            },
            what,
        ));
    }
}

/// Facts of the world a number can state ("spiders with 8 legs each"): the thing it belongs to,
/// what it counts, and its value.
const FACTS: &[(&[&str], &str, i128)] = &[
    (&["spider", "spiders"], "legs", 8),
    (&["octopus", "octopuses", "octopi"], "arms", 8),
    (&["octopus", "octopuses", "octopi"], "tentacles", 8),
    (
        &[
            "insect",
            "insects",
            "ant",
            "ants",
            "bee",
            "bees",
            "beetle",
            "beetles",
            "butterfly",
            "butterflies",
            "fly",
            "flies",
            "ladybug",
            "ladybugs",
            "grasshopper",
            "grasshoppers",
            "cockroach",
            "cockroaches",
            "cricket",
            "crickets",
            "mosquito",
            "mosquitoes",
        ],
        "legs",
        6,
    ),
    (
        &[
            "dog",
            "dogs",
            "cat",
            "cats",
            "cow",
            "cows",
            "horse",
            "horses",
            "pig",
            "pigs",
            "goat",
            "goats",
            "sheep",
            "lion",
            "lions",
            "tiger",
            "tigers",
            "elephant",
            "elephants",
            "puppy",
            "puppies",
            "kitten",
            "kittens",
            "zebra",
            "zebras",
            "giraffe",
            "giraffes",
            "bear",
            "bears",
            "rabbit",
            "rabbits",
            "mouse",
            "mice",
            "deer",
            "camel",
            "camels",
            "donkey",
            "donkeys",
            "table",
            "tables",
            "chair",
            "chairs",
        ],
        "legs",
        4,
    ),
    (
        &[
            "chicken",
            "chickens",
            "duck",
            "ducks",
            "bird",
            "birds",
            "goose",
            "geese",
            "ostrich",
            "ostriches",
            "parrot",
            "parrots",
            "penguin",
            "penguins",
            "turkey",
            "turkeys",
            "hen",
            "hens",
            "rooster",
            "roosters",
            "person",
            "people",
            "man",
            "men",
            "woman",
            "women",
            "child",
            "children",
            "kid",
            "kids",
            "boy",
            "boys",
            "girl",
            "girls",
            "human",
            "humans",
        ],
        "legs",
        2,
    ),
    (&["bicycle", "bicycles", "bike", "bikes"], "wheels", 2),
    (&["tricycle", "tricycles"], "wheels", 3),
    (&["car", "cars"], "wheels", 4),
    (&["triangle", "triangles"], "sides", 3),
    (
        &["square", "squares", "rectangle", "rectangles"],
        "sides",
        4,
    ),
    (&["pentagon", "pentagons"], "sides", 5),
    (&["hexagon", "hexagons"], "sides", 6),
    (&["octagon", "octagons"], "sides", 8),
];

/// A number that states a fact of the world ("43 spiders with 8 legs each", "a car has 4
/// wheels") keeps it: the nearest thing named before it in its sentence has that many.
pub(super) fn facts(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    for (i, s) in slots.iter().enumerate() {
        let Some(value) = s.value.as_integer().filter(|_| s.value.is_integer()) else {
            continue;
        };
        let after = words(cut::before(
            cut::after(text, s.end),
            cut::after(text, s.end).len().min(16),
        ));
        let Some(counted) = after.first() else {
            continue;
        };
        let sentence = cut::between(text, sentence_start(text, s.start), s.start);
        let named = words(sentence);
        let Some((thing, fact)) = named.iter().rev().find_map(|w| {
            FACTS
                .iter()
                .find(|(things, what, _)| things.contains(&w.as_str()) && what == counted)
                .map(|f| (w, f))
        }) else {
            continue;
        };
        if fact.2 == value {
            let mut rule = ReaderRule::new(
                RuleKind::OneOf {
                    slot: i as u32,
                    values: std::slice::from_ref(&fact.2),
                },
                format!("a fact: {thing} have {} {}", fact.2, fact.1),
            );
            rule.reject = Reject::UnitBound;
            out.push(rule);
        }
    }
}

/// A count the question writes as a plural of things ("Hartley has 4 puppies that each weigh 7
/// kilograms … than the puppies") stays plural: the rest of the text speaks of them in the
/// plural, which a count of one would contradict. Units are left free ("1 hour" reads well).
pub(super) fn plural_counts(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    let two = Num::int(2);
    for (i, s) in slots.iter().enumerate() {
        if s.word || !s.value.is_integer() || s.value.cmp_num(two) == Ordering::Less {
            continue;
        }
        let Some(rest) = cut::after(text, s.end).strip_prefix(' ') else {
            continue;
        };
        let len = rest.bytes().take_while(|b| b.is_ascii_lowercase()).count();
        let (word, after) = cut::split(rest, len);
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '\'') {
            continue;
        }
        let plural_thing = singular(word).is_some_and(|one| one != word)
            && !NOT_A_NOUN.contains(&word)
            && !crate::agreement::is_unit(word);
        if plural_thing {
            out.push(ReaderRule::new(
                RuleKind::AtLeast {
                    slot: i as u32,
                    min: two,
                },
                format!("'{word}': a plural count stays plural"),
            ));
        }
    }
}

/// Nouns that count people a question may name one by one.
const PEOPLE: &[&str] = &[
    "friend", "person", "child", "kid", "sibling", "sister", "brother", "girl", "boy", "student",
    "player", "cousin",
];

/// Capitalised words that start sentences or name no one.
const NOT_NAMES: &[&str] = &[
    "If",
    "And",
    "What",
    "How",
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "After",
    "Before",
    "When",
    "Then",
    "She",
    "He",
    "They",
    "We",
    "You",
    "Each",
    "Every",
    "There",
    "This",
    "That",
    "These",
    "Those",
    "His",
    "Her",
    "Their",
    "It",
    "Its",
    "Of",
    "For",
    "But",
    "So",
    "Calculate",
    "Find",
    "I",
    "Is",
    "Are",
    "Was",
    "Were",
    "Together",
    "All",
    "Both",
    "One",
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
];

/// Small counts, for a rule that keeps one of them.
const SMALL: [i128; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/// A count of people that is the number of people the question names ("Mark … Susan … their
/// friend Bob … the average weight of the 3 friends") keeps it: the names are not changed.
pub(super) fn named_counts(text: &str, slots: &[Slot], out: &mut Vec<ReaderRule>) {
    let mut names: Vec<&str> = text
        .split(|c: char| !c.is_alphabetic() && c != '\'')
        .map(|w| w.trim_end_matches("'s").trim_end_matches('\''))
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() > 1)
        .filter(|w| !NOT_NAMES.contains(w))
        .collect();
    names.sort_unstable();
    names.dedup();
    for (i, s) in slots.iter().enumerate() {
        let Some(value) = s.value.as_integer().filter(|_| s.value.is_integer()) else {
            continue;
        };
        let Ok(n) = usize::try_from(value) else {
            continue;
        };
        let people = counted_noun(text, s).is_some_and(|noun| PEOPLE.contains(&noun.as_str()));
        if !people || n != names.len() || !(2..SMALL.len()).contains(&n) {
            continue;
        }
        let mut rule = ReaderRule::new(
            RuleKind::OneOf {
                slot: i as u32,
                values: std::slice::from_ref(&SMALL[n]),
            },
            format!("the question names {n}: {}", names.join(", ")),
        );
        rule.reject = Reject::UnitBound;
        out.push(rule);
    }
}
