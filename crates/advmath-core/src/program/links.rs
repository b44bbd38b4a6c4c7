//! What a program's literals may link to: how strictly a program is judged by who wrote it
//! ([`AlignMode`]), the unit constants a synthesised program may use, the links beyond the paper's
//! digits-only alignment ([`Links`]), which question numbers may be variable leaves
//! ([`linkable_slots`]), and how each leaf of a validated program was linked ([`link_kinds`], for
//! the gold-answer audit).

use super::tree::{num_text, BinOp, ConstKind, Node, Program};
use crate::question::{expression_counts, is_plain_cardinal, Slot};

/// Who wrote the program, which decides how strictly constants and repeated values are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlignMode {
    /// Programs written by people or models: literals that are not question numbers are
    /// constants, and repeated digits follow the paper's counting rule.
    Given,
    /// Programs advmath synthesised: a constant must be justified by the question's words or be a
    /// unit constant, and a value the question states more than once is never a leaf, otherwise
    /// every variant's answer could silently be wrong.
    Synthesised,
}

/// Unit constants a synthesised program may use: (value, what it is, words one of which the
/// question must contain; empty means always allowed).
pub const UNIT_CONSTANTS: &[(&str, &str, &[&str])] = &[
    ("0", "nothing (a term that adds zero)", &[]),
    ("1", "one whole (complements such as 1 - 0.2)", &[]),
    ("100", "percent / cents per dollar", &[]),
    ("0.01", "one percent", &[]),
    ("60", "minutes per hour, seconds per minute", &[]),
    ("24", "hours per day", &[]),
    ("7", "days per week", &["week"]),
    ("12", "months per year, inches per foot, a dozen", &[]),
    ("52", "weeks per year", &["year", "week"]),
    ("365", "days per year", &["year"]),
    ("30", "days per month", &["month"]),
    (
        "4",
        "weeks per month, quarters per dollar",
        &["month", "quarter"],
    ),
    ("1000", "grams per kilogram, meters per kilometer", &[]),
    ("3600", "seconds per hour", &["second"]),
    ("16", "ounces per pound", &["pound", "ounce", "lb"]),
    ("3", "feet per yard", &["yard"]),
    (
        "2",
        "a pair, both, each of two",
        &["pair", "both", "round trip", "back"],
    ),
    ("10", "dimes per dollar", &["dime"]),
    ("5", "cents per nickel", &["nickel"]),
    ("25", "cents per quarter", &["quarter"]),
    ("0.25", "a quarter dollar", &["quarter"]),
    ("0.1", "a dime", &["dime"]),
    ("0.05", "a nickel", &["nickel"]),
];

/// Links beyond the paper's digits-only alignment. Each is off by default: an extension ships
/// only where an audit shows its variants' gold answers are right (`reports/gold_audit.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Links {
    /// A cardinal number word ("four friends") is a leaf when it is the question's only
    /// statement of its value and counts something (not "Three fourths").
    pub number_words: bool,
    /// A literal that is a percentage of the question written as a fraction (`0.4` for "40%",
    /// `1.2` for "a 20% increase") becomes an expression of the percentage's leaf.
    pub percentages: bool,
    /// A unit fraction written in the question ("1/6 of the cards") whose program divides by the
    /// denominator alone divides by `denominator / numerator`, so a variant's "2/7" is computed
    /// as written.
    pub fractions: bool,
    /// A number that defines a unit ("7 days a week", "a 30 day month") links like any other,
    /// as in the paper, instead of staying a constant.
    pub unit_lengths: bool,
    /// A stated 1 that the program multiplies or divides by, or adds a proper fraction to or takes
    /// one from (`1 + 0.2` for "20% more"), links like any other, as in the
    /// paper, instead of staying a constant (`x * 1` and `x / 1` agree on the original, so the
    /// solution cannot show which one the question means).
    pub factor_ones: bool,
    /// A stated half ("1/2 of the cars", "50% off") that the program multiplies or divides by
    /// links like any other, as in the paper, instead of staying a constant (`x * 1/2` and
    /// `x * (1 - 1/2)` agree on the original, so the solution cannot show whether it means the
    /// part or its complement).
    pub halves: bool,
}

impl Links {
    /// The paper's alignment: numbers written in digits only.
    pub const DIGITS: Links = Links {
        number_words: false,
        percentages: false,
        fractions: false,
        unit_lengths: false,
        factor_ones: false,
        halves: false,
    };

    /// The names `--link` takes.
    pub const NAMES: [&'static str; 6] = [
        "number-words",
        "percentages",
        "fractions",
        "unit-lengths",
        "factor-ones",
        "halves",
    ];

    /// Parse a comma-separated list of [`Links::NAMES`] (`digits` or an empty list: none).
    pub fn parse(list: &str) -> Result<Links, String> {
        let mut links = Links::DIGITS;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "digits" => {}
                "number-words" => links.number_words = true,
                "percentages" => links.percentages = true,
                "fractions" => links.fractions = true,
                "unit-lengths" => links.unit_lengths = true,
                "factor-ones" => links.factor_ones = true,
                "halves" => links.halves = true,
                // The extensions; unit lengths, factor ones and halves vary only when named.
                "all" => {
                    links = Links {
                        number_words: true,
                        percentages: true,
                        fractions: true,
                        unit_lengths: links.unit_lengths,
                        factor_ones: links.factor_ones,
                        halves: links.halves,
                    }
                }
                other => {
                    return Err(format!(
                    "unknown link `{other}`: expected digits, all, or a comma-separated list of {}",
                    Links::NAMES.join(", ")
                ))
                }
            }
        }
        Ok(links)
    }

    /// `digits` plus the extensions turned on, comma-separated (how run records name them).
    pub fn name(self) -> String {
        let mut names = vec!["digits"];
        for (on, name) in [
            (self.number_words, "number-words"),
            (self.percentages, "percentages"),
            (self.fractions, "fractions"),
            (self.unit_lengths, "unit-lengths"),
            (self.factor_ones, "factor-ones"),
            (self.halves, "halves"),
        ] {
            if on {
                names.push(name);
            }
        }
        names.join(",")
    }
}

/// Which slots may be variable leaves. Digits always (in a synthesised program only when the
/// question states their value once); a number word only with [`Links::number_words`], when it
/// counts something and is the only statement of its value.
pub fn linkable_slots(question: &str, slots: &[Slot], mode: AlignMode, links: Links) -> Vec<bool> {
    let counts = expression_counts(question, slots);
    let once = |s: &Slot| {
        counts
            .get(&num_text::to_text(&s.value))
            .copied()
            .unwrap_or(0)
            <= 1
    };
    slots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if s.word {
                links.number_words && is_plain_cardinal(question, slots, i) && once(s)
            } else {
                mode == AlignMode::Given || once(s)
            }
        })
        .collect()
}

/// How a variable leaf came to be linked, for the gold-answer audit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LinkKind {
    /// A number written in digits, linked to an equal literal (the paper's alignment).
    Digits,
    /// A number word ("four"), with [`Links::number_words`].
    NumberWord,
    /// A percentage whose fraction the program uses (`0.4` for "40%"), with [`Links::percentages`].
    Percentage,
    /// The numerator of a written unit fraction, with [`Links::fractions`].
    Fraction,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Digits => "digits",
            LinkKind::NumberWord => "number-word",
            LinkKind::Percentage => "percentage",
            LinkKind::Fraction => "fraction",
        }
    }
}

/// The variable leaves of a validated program, each with how it was linked, in slot order.
pub fn link_kinds(program: &Program, question: &str, slots: &[Slot]) -> Vec<(u32, LinkKind)> {
    let mut percent = Vec::new();
    let mut numerators = Vec::new();
    for node in &program.nodes {
        if let Node::Bin {
            op: BinOp::Div,
            lhs,
            rhs,
        } = node
        {
            match (&program.nodes[*lhs as usize], &program.nodes[*rhs as usize]) {
                (
                    Node::Leaf { slot },
                    Node::Const {
                        kind: ConstKind::Unit(u),
                        ..
                    },
                ) if u == "percent" => percent.push(*slot),
                // The unit-fraction rewrite: `den / num` of a fraction written "num/den".
                (Node::Leaf { slot: den }, Node::Leaf { slot: num })
                    if num + 1 == *den
                        && crate::cut::between(
                            question,
                            slots[*num as usize].end,
                            slots[*den as usize].start,
                        ) == "/" =>
                {
                    numerators.push(*num)
                }
                _ => {}
            }
        }
    }
    program
        .variable_slots()
        .into_iter()
        .map(|s| {
            let kind = if slots[s as usize].word {
                LinkKind::NumberWord
            } else if percent.contains(&s) {
                LinkKind::Percentage
            } else if numerators.contains(&s) {
                LinkKind::Fraction
            } else {
                LinkKind::Digits
            };
            (s, kind)
        })
        .collect()
}

/// The variable leaves of a validated program as the question writes them, each with how it was
/// linked, then the slots tied to a leaf: `50:digits two:number-word 10:percentage 125:tied`.
pub fn describe_links(program: &Program, question: &str, slots: &[Slot]) -> String {
    let shown = |s: u32| slots[s as usize].written_in(question);
    link_kinds(program, question, slots)
        .iter()
        .map(|(s, k)| format!("{}:{}", shown(*s), k.name()))
        .chain(
            program
                .ties
                .iter()
                .map(|t| format!("{}:tied", shown(t.slot))),
        )
        .collect::<Vec<_>>()
        .join(" ")
}
