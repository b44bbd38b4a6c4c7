//! The names every table shares, parsed and printed in one place: the attacks (the `attack`
//! column and hive partition: `original`, `m1`–`m3`, `digits`, `punct10`, `m3+punct10`, `names`,
//! `noop`, `m3+names`, `rephrase`), what each is made of by type ([`Attack::families`], each
//! [`Family`] of a [`Kind`]), the attacks a user asks `generate` for (`m1`, `punct`, `m3+punct`,
//! `names+m3`), the reasons a sampled attempt is discarded (the `generation_stats` columns) and
//! which models are simulated. Nothing outside this module reads an attack's spelling.

use std::fmt;
use std::str::FromStr;

mod catalogue;
pub use catalogue::{
    catalogue, catalogue_rows, catalogue_sql, AttackRow, CATALOGUE_COLUMNS, CATALOGUE_COMMENT,
    NOISE_LEVELS,
};

/// How a numeric family draws a question's numbers again: Xie et al.'s M1–M3 (section 3.2), or
/// GSM-Plus's digit expansion and the decimal half of its integer–decimal–fraction conversion
/// (Li et al. 2024, made here by rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    M1,
    M2,
    M3,
    /// Every number that can grow gains one to three digits.
    Digits,
    /// Whole amounts of something divisible written with a decimal part ("$4.25", "2.5 hours").
    Decimals,
    /// Whole amounts of something divisible other than money written as mixed numbers ("3 1/2
    /// pounds", "2 3/4 hours"): money is written in cents.
    Fractions,
}

impl Method {
    pub const ALL: [Method; 6] = [
        Method::M1,
        Method::M2,
        Method::M3,
        Method::Digits,
        Method::Decimals,
        Method::Fractions,
    ];
    /// The paper's methods, which its tables and figures read.
    pub const XIE: [Method; 3] = [Method::M1, Method::M2, Method::M3];

    pub fn name(self) -> &'static str {
        match self {
            Method::M1 => "m1",
            Method::M2 => "m2",
            Method::M3 => "m3",
            Method::Digits => "digits",
            Method::Decimals => "decimals",
            Method::Fractions => "fractions",
        }
    }

    /// Whether a variant changes one number of the problem rather than all it may: GSM-Plus's
    /// digit expansion grows one number of an item, and growing every number at once is what
    /// readers found implausible.
    pub fn changes_one_number(self) -> bool {
        self == Method::Digits
    }

    /// Whether a number it writes in parts reads as a mixed number ("3 1/2") rather than a
    /// decimal ("3.5").
    pub fn writes_fractions(self) -> bool {
        self == Method::Fractions
    }

    /// Whether punctuation noise may go on its variants: a mark between a mixed number's parts
    /// ("3 ! 1/2 pounds") would change the number its text gives.
    pub fn takes_noise(self) -> bool {
        !self.writes_fractions()
    }

    /// Whether it converts whole amounts into parts, and of which measures: every divisible
    /// one, or every one but money (a price reads in cents, never "$4 1/2").
    pub fn converts(self) -> Option<bool> {
        match self {
            Method::Decimals => Some(true),
            Method::Fractions => Some(false),
            _ => None,
        }
    }

    /// Whether it is one of Xie et al.'s methods (the others are extensions).
    pub fn is_xie(self) -> bool {
        Method::XIE.contains(&self)
    }

    pub fn parse(text: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == text)
    }
}

/// The attack a variant (and every row about it) belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attack {
    /// The problem as given.
    Original,
    Numeric(Method),
    /// ArithmAttack's punctuation noise at a level in percent of the words.
    Punct(u32),
    /// Punctuation noise on the variants of a numeric attack.
    NumericPunct(Method, u32),
    /// The RobustMath rephrasing baseline of the Xie et al. release.
    Rephrase,
    /// M3 candidates ranked by a model's fitted failure probability (not a paper's attack).
    Guided,
    /// A change of the words that keeps every number (people renamed, a no-op sentence added),
    /// on the original or on a numeric attack's variants.
    Text(Option<Method>, TextEdit),
}

/// The text attacks beyond numbers (GSM-Plus's missing number, GSM-Symbolic's names, GSM-NoOp's
/// no-op statement), one or more, made in that order; the attack module's `text` makes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextEdit {
    pub names: bool,
    pub noop: bool,
    /// A number the answer needs taken out: the question has no answer.
    pub missing: bool,
}

impl TextEdit {
    const NONE: TextEdit = TextEdit {
        names: false,
        noop: false,
        missing: false,
    };
    pub const NAMES: TextEdit = TextEdit {
        names: true,
        ..TextEdit::NONE
    };
    pub const NOOP: TextEdit = TextEdit {
        noop: true,
        ..TextEdit::NONE
    };
    pub const BOTH: TextEdit = TextEdit {
        names: true,
        noop: true,
        missing: false,
    };
    pub const MISSING: TextEdit = TextEdit {
        missing: true,
        ..TextEdit::NONE
    };

    /// The edits' names in the order they are made: the number is taken out of the text as
    /// drawn, before names change the words around it and a sentence is added.
    const PARTS: [(&'static str, EditIsOn); 3] = [
        ("missing", |e| e.missing),
        ("names", |e| e.names),
        ("noop", |e| e.noop),
    ];

    /// `names`, `noop`, `missing`, or a `+` join of them in the order they are made.
    pub fn name(self) -> String {
        let parts: Vec<&str> = TextEdit::PARTS
            .iter()
            .filter(|(_, on)| on(self))
            .map(|(name, _)| *name)
            .collect();
        parts.join("+")
    }

    fn is_empty(self) -> bool {
        self == TextEdit::NONE
    }
}

/// Whether a [`TextEdit`] makes one of its edits.
type EditIsOn = fn(TextEdit) -> bool;

/// Parses `m3`, `names`, `noop`, `missing` and `+` joins of one method and the edits, in any
/// order.
fn parse_text_attack(text: &str) -> Option<(Option<Method>, TextEdit)> {
    let mut method = None;
    let mut edit = TextEdit::NONE;
    for part in text.split('+') {
        match part {
            "names" if !edit.names => edit.names = true,
            "noop" if !edit.noop => edit.noop = true,
            "missing" if !edit.missing => edit.missing = true,
            _ => match Method::parse(part) {
                Some(m) if method.is_none() => method = Some(m),
                _ => return None,
            },
        }
    }
    (!edit.is_empty()).then_some((method, edit))
}

/// `m3+names`: the method first, as the draw comes before the text change.
fn text_attack_name(method: Option<Method>, edit: TextEdit) -> String {
    match method {
        Some(m) => format!("{}+{}", m.name(), edit.name()),
        None => edit.name(),
    }
}

impl Attack {
    /// The name of the unattacked problems.
    pub const ORIGINAL: &'static str = "original";
    /// The name of the guided attack's variants.
    pub const GUIDED: &'static str = "guided";

    pub fn is_original(name: &str) -> bool {
        name == Self::ORIGINAL
    }

    /// The punctuation noise level in percent (0 when none).
    pub fn noise_level(self) -> u32 {
        match self {
            Attack::Punct(level) | Attack::NumericPunct(_, level) => level,
            _ => 0,
        }
    }

    /// A table's attack name read by type; `None` for a name advmath does not make (a user's
    /// table may hold any), which every reader treats as an attack of no known kind.
    pub fn of(name: &str) -> Option<Attack> {
        name.parse().ok()
    }

    /// The numeric method whose draw gave the attack's numbers (the guided attack ranks M3's
    /// candidates but is an attack of its own: `None`).
    pub fn method(self) -> Option<Method> {
        match self {
            Attack::Numeric(m) | Attack::NumericPunct(m, _) => Some(m),
            Attack::Text(m, _) => m,
            _ => None,
        }
    }

    /// The families the attack is made of, in the order they act on the question (numbers are
    /// drawn first, then the words change, then the noise goes in).
    pub fn families(self) -> Vec<Family> {
        let mut out = Vec::new();
        match self {
            Attack::Original => {}
            Attack::Numeric(m) => out.push(Family::Numeric(m)),
            Attack::Punct(_) => out.push(Family::Punct),
            Attack::NumericPunct(m, _) => out.extend([Family::Numeric(m), Family::Punct]),
            Attack::Rephrase => out.push(Family::Rephrase),
            Attack::Guided => out.push(Family::Guided),
            Attack::Text(m, e) => {
                out.extend(m.map(Family::Numeric));
                out.extend(e.missing.then_some(Family::Missing));
                out.extend(e.names.then_some(Family::Names));
                out.extend(e.noop.then_some(Family::Noop));
            }
        }
        out
    }

    /// Whether the attack is made of this family (alone or composed with others).
    pub fn has(self, family: Family) -> bool {
        self.families().contains(&family)
    }

    /// Whether a family of this kind is among its families (`m3+names` has a text family).
    pub fn has_kind(self, kind: Kind) -> bool {
        self.families().iter().any(|f| f.kind() == kind)
    }

    /// Whether two or more families made it (`m3+names`, `m3+punct30`).
    pub fn is_composed(self) -> bool {
        self.families().len() > 1
    }

    /// Whether its questions have an answer: a question a needed number was taken out of has
    /// none, and the right reply says so.
    pub fn answerable(self) -> bool {
        !self.has(Family::Missing)
    }

    /// Whether a program recomputed its gold from changed numbers; otherwise the gold is the
    /// dataset's own (the original, its noise, a rewrite, a text change of the original).
    pub fn changes_numbers(self) -> bool {
        self.has_kind(Kind::Numeric)
    }
}

/// How a family changes a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Its numbers are drawn again and the gold recomputed by the program.
    Numeric,
    /// Its words change; its numbers and gold stay.
    Text,
    /// Punctuation marks go in; words, numbers and gold stay.
    Noise,
    /// Another source rewrote it (a baseline of a release).
    Rewrite,
}

/// One family of attacks: what it does to a question, whatever it is composed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// A numeric draw: Xie et al.'s M1–M3, or GSM-Plus's digit expansion.
    Numeric(Method),
    /// M3's candidates a model's failure fit ranks likeliest to break it.
    Guided,
    /// ArithmAttack's punctuation noise, at any level.
    Punct,
    /// GSM-Symbolic's renamed people.
    Names,
    /// GSM-NoOp's irrelevant sentence.
    Noop,
    /// GSM-Plus's critical thinking: a number the answer needs taken out, so that the question
    /// has no answer.
    Missing,
    /// The Xie release's RobustMath rephrasing.
    Rephrase,
}

impl Family {
    pub fn kind(self) -> Kind {
        match self {
            Family::Numeric(_) | Family::Guided => Kind::Numeric,
            Family::Punct => Kind::Noise,
            Family::Names | Family::Noop | Family::Missing => Kind::Text,
            Family::Rephrase => Kind::Rewrite,
        }
    }
}

impl fmt::Display for Attack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attack::Original => f.write_str(Attack::ORIGINAL),
            Attack::Numeric(m) => f.write_str(m.name()),
            Attack::Punct(level) => write!(f, "punct{level}"),
            Attack::NumericPunct(m, level) => write!(f, "{}+punct{level}", m.name()),
            Attack::Rephrase => f.write_str("rephrase"),
            Attack::Guided => f.write_str(Attack::GUIDED),
            Attack::Text(m, e) => f.write_str(&text_attack_name(*m, *e)),
        }
    }
}

/// An attack name that is none of the known ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown attack {0:?}")]
pub struct UnknownAttack(pub String);

impl FromStr for Attack {
    type Err = UnknownAttack;

    fn from_str(text: &str) -> Result<Attack, UnknownAttack> {
        let level = |s: &str| s.strip_prefix("punct").and_then(|n| n.parse::<u32>().ok());
        if let Some((m, e)) = parse_text_attack(text) {
            let attack = Attack::Text(m, e);
            // One spelling per attack in the tables: the canonical one.
            return if attack.to_string() == text {
                Ok(attack)
            } else {
                Err(UnknownAttack(text.to_string()))
            };
        }
        let attack = match text {
            Attack::ORIGINAL => Some(Attack::Original),
            "rephrase" => Some(Attack::Rephrase),
            Attack::GUIDED => Some(Attack::Guided),
            _ => match text.split_once('+') {
                Some((m, p)) => Method::parse(m)
                    .filter(|m| m.takes_noise())
                    .zip(level(p))
                    .map(|(m, l)| Attack::NumericPunct(m, l)),
                None => Method::parse(text)
                    .map(Attack::Numeric)
                    .or_else(|| level(text).map(Attack::Punct)),
            },
        };
        attack.ok_or_else(|| UnknownAttack(text.to_string()))
    }
}

/// An attack family as `generate` is asked for it: the noise levels come from the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttackSpec {
    Numeric(Method),
    Punct,
    /// Punctuation noise on the variants of a numeric attack (`m3+punct`).
    NumericPunct(Method),
    /// M3's candidates, the K a model's failure fit ranks likeliest to break it.
    Guided,
    /// Names swapped and/or a no-op sentence added, to the original or to a numeric attack's
    /// variants (`names`, `noop`, `names+m3`, `names+noop+m3`).
    Text(Option<Method>, TextEdit),
}

impl AttackSpec {
    pub fn parse(text: &str) -> Result<AttackSpec, String> {
        let method = |s: &str| {
            Method::parse(s).ok_or_else(|| {
                // Every method by its name, so that a new one is offered without an edit here.
                let methods: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
                format!(
                    "unknown attack {s:?} (expected {}, punct, guided, names, noop, or e.g. \
                     m3+punct, names+m3, names+noop+m3)",
                    methods.join(", ")
                )
            })
        };
        let t = text.trim().to_ascii_lowercase();
        if t == "punct" {
            return Ok(AttackSpec::Punct);
        }
        if t == Attack::GUIDED {
            return Ok(AttackSpec::Guided);
        }
        if let Some(m) = t.strip_suffix("+punct") {
            let m = method(m)?;
            if !m.takes_noise() {
                return Err(format!(
                    "{t:?} is not made: a punctuation mark between a mixed number's parts \
                     (\"3 ! 1/2 pounds\") would change the number the question gives"
                ));
            }
            return Ok(AttackSpec::NumericPunct(m));
        }
        if t.split('+')
            .any(|p| TextEdit::PARTS.iter().any(|(name, _)| *name == p))
        {
            return parse_text_attack(&t)
                .map(|(m, e)| AttackSpec::Text(m, e))
                .ok_or_else(|| {
                    format!(
                        "unknown attack {t:?} (names, noop and missing join at most one \
                         numeric method, each once)"
                    )
                });
        }
        Ok(AttackSpec::Numeric(method(&t)?))
    }

    /// The method whose own variants this family writes (the guided attack draws M3's
    /// candidates but writes variants of its own).
    pub fn method(self) -> Option<Method> {
        match self {
            AttackSpec::Numeric(m) | AttackSpec::NumericPunct(m) => Some(m),
            AttackSpec::Text(m, _) => m,
            AttackSpec::Punct | AttackSpec::Guided => None,
        }
    }

    /// Every attack (partition) this family writes, given the run's noise levels: one per
    /// level for the noised families, else one.
    pub fn attacks(self, noise_levels: &[u32]) -> Vec<Attack> {
        match self {
            AttackSpec::Punct | AttackSpec::NumericPunct(_) => {
                noise_levels.iter().map(|&l| self.at_level(l)).collect()
            }
            _ => vec![self.at_level(0)],
        }
    }

    /// The attack of this family's rows at a noise level (ignored by a numeric attack).
    pub fn at_level(self, level: u32) -> Attack {
        match self {
            AttackSpec::Numeric(m) => Attack::Numeric(m),
            AttackSpec::Punct => Attack::Punct(level),
            AttackSpec::NumericPunct(m) => Attack::NumericPunct(m, level),
            AttackSpec::Guided => Attack::Guided,
            AttackSpec::Text(m, e) => Attack::Text(m, e),
        }
    }
}

impl fmt::Display for AttackSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttackSpec::Numeric(m) => f.write_str(m.name()),
            AttackSpec::Punct => f.write_str("punct"),
            AttackSpec::NumericPunct(m) => write!(f, "{}+punct", m.name()),
            AttackSpec::Guided => f.write_str(Attack::GUIDED),
            AttackSpec::Text(m, e) => f.write_str(&text_attack_name(*m, *e)),
        }
    }
}

/// Why a sampled attempt was discarded; [`REJECT_NAMES`] are the `generation_stats` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    DivisionByZero,
    Domain,
    NotInteger,
    NotPositive,
    NotProperFraction,
    /// The attempt reproduced the original numbers.
    Original,
    /// A valid tuple already drawn.
    Duplicate,
    /// Another independent program of the problem computes a different answer from these
    /// numbers: one of the two reads the question otherwise, and which one is not known.
    Disagreement,
    /// A part grew larger than its whole, or numbers of the same noun changed their order (a
    /// reader's rule: the attack module's coherence rules).
    Order,
    /// A count of a bounded unit left its bound (an 8 day week, a person 300 years old).
    UnitBound,
    /// A bill or coin that does not exist ("a $31 bill").
    Denomination,
}

pub const REJECT_NAMES: [&str; 11] = [
    "division_by_zero",
    "domain",
    "not_integer",
    "not_positive",
    "not_proper_fraction",
    "original",
    "duplicate",
    "disagreement",
    "order",
    "unit_bound",
    "denomination",
];

impl Reject {
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The offline model that always answers right (from the solution tree).
pub const ORACLE: &str = "oracle";

/// The offline models advmath ships, which answer from the solution tree instead of a network.
pub const SIMULATED_MODELS: [&str; 5] = [
    ORACLE,
    "sim-careful",
    "sim-carry",
    "sim-divweak",
    "sim-distracted",
];

/// Whether a model is simulated: the oracle and every `sim-*` model. Reports set their answers
/// apart from real models'.
pub fn is_simulated(model: &str) -> bool {
    model == ORACLE || model.starts_with("sim-")
}

/// A problem id as text and number runs, so that `x/10` sorts after `x/9` (the authors sort
/// their problems by integer index).
pub fn natural_key(s: &str) -> Vec<(bool, u128, String)> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        let digit = c.is_ascii_digit();
        let mut run = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_ascii_digit() != digit {
                break;
            }
            run.push(c);
            chars.next();
        }
        match run.parse::<u128>() {
            Ok(n) if digit => out.push((false, n, run)),
            _ => out.push((true, 0, run)),
        }
    }
    out
}

#[cfg(test)]
mod tests;
