//! Every attack advmath names, with what it is by type, as one relation: the `attacks` view the
//! SQL files select by (`sql/views/00_attacks.sql` is written from [`catalogue`]), so that no
//! metric matches an attack's spelling, and a new family reaches every metric through its types.

use super::{Attack, Family, Kind, Method, TextEdit};

/// The `attacks` view's opening comment, its story in `docs/tables.md`.
pub const CATALOGUE_COMMENT: &str = "\
View `attacks`: every attack advmath names, one row each, with what it is by type. The metric
files select attacks through it, never by their names. Written from advmath's vocabulary
(`ADVMATH_UPDATE_DOCS=1 cargo test attacks_view`); do not edit. `is_original`: true for the
unattacked problems. `kind`: `original`; the kind of the attack's one family (`numeric`: its
numbers are drawn again and the gold recomputed; `text`: its words change; `noise`: punctuation
marks go in; `rewrite`: another source rewrote it); or `composed`, when two or more families
made it. `families`: its families in the order they act, `+`-joined (`m3+punct` at every noise
level; NULL for the original). `method`: the numeric method whose draw gave its numbers (`m1`,
`m2`, `m3`, `digits`, `decimals`, `fractions`), else NULL. `noise_level`: the percent of words given a
punctuation mark (0: none). `answerable`: false where a number the answer needs was taken out.
`changes_numbers`: its gold was recomputed from changed numbers. `gsm_plus`: the GSM-Plus
perturbation it makes, when it makes one alone; `gsm_symbolic`: its condition in GSM-Symbolic's
figures; NULL for the others.
An attack name not listed (a table a user made) is an attack of no known kind.";

/// The noise levels an attack can carry (percent of the words; `generate` refuses others).
pub const NOISE_LEVELS: std::ops::RangeInclusive<u32> = 1..=100;

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Numeric => "numeric",
            Kind::Text => "text",
            Kind::Noise => "noise",
            Kind::Rewrite => "rewrite",
        }
    }
}

impl Family {
    /// The family's name: its method's for a numeric draw (`m3`), else the family's (`punct`
    /// at every level).
    pub fn name(self) -> &'static str {
        match self {
            Family::Numeric(m) => m.name(),
            Family::Guided => Attack::GUIDED,
            Family::Punct => "punct",
            Family::Names => "names",
            Family::Noop => "noop",
            Family::Missing => "missing",
            Family::Rephrase => "rephrase",
        }
    }
}

impl Attack {
    /// `original`, the kind of its one family (`numeric`, `text`, `noise`, `rewrite`), or
    /// `composed` when two or more families made it.
    pub fn kind_name(self) -> &'static str {
        match self.families().as_slice() {
            [] => Attack::ORIGINAL,
            [one] => one.kind().name(),
            _ => "composed",
        }
    }

    /// Its families' names joined by `+` in the order they act (`m3+punct` at every level;
    /// empty for the original, NULL in the view).
    pub fn families_name(self) -> String {
        let names: Vec<&str> = self.families().iter().map(|f| f.name()).collect();
        names.join("+")
    }

    /// The GSM-Plus perturbation (Li et al. 2024) the attack makes, when it makes one alone:
    /// GSM-Plus perturbs a question one way at a time.
    pub fn gsm_plus(self) -> Option<&'static str> {
        match self.families().as_slice() {
            [Family::Numeric(m)] if m.is_xie() => Some("numerical substitution"),
            [Family::Numeric(Method::Digits)] => Some("digit expansion"),
            [Family::Numeric(Method::Decimals | Method::Fractions)] => {
                Some("integer-decimal-fraction conversion")
            }
            [Family::Noop] => Some("distractor insertion"),
            [Family::Rephrase] => Some("problem understanding"),
            [Family::Missing] => Some("critical thinking"),
            _ => None,
        }
    }

    /// The condition of GSM-Symbolic's figures (Mirzadeh et al. 2024) the attack is: the
    /// original, its names, its numbers (Xie's M1–M3) or both, with or without a no-op sentence.
    pub fn gsm_symbolic(self) -> Option<&'static str> {
        match self {
            Attack::Original => Some("original"),
            Attack::Numeric(m) if m.is_xie() => Some("numbers only"),
            Attack::Text(None, e) if e == TextEdit::NAMES => Some("names only"),
            Attack::Text(None, e) if e == TextEdit::NOOP => Some("no-op"),
            Attack::Text(None, e) if e == TextEdit::BOTH => Some("names and no-op"),
            Attack::Text(Some(m), e) if m.is_xie() && e == TextEdit::NAMES => {
                Some("names and numbers")
            }
            Attack::Text(Some(m), e) if m.is_xie() && e == TextEdit::NOOP => {
                Some("numbers and no-op")
            }
            Attack::Text(Some(m), e) if m.is_xie() && e == TextEdit::BOTH => {
                Some("names, numbers and no-op")
            }
            _ => None,
        }
    }
}

/// Every attack advmath names: the original, each method, punctuation noise at every level
/// alone and on each method, the release's rephrasing, the guided attack, and every text edit
/// alone and on each method. Ordered as the type orders them.
pub fn catalogue() -> Vec<Attack> {
    let edits = (1u8..8).map(|bits| TextEdit {
        missing: bits & 1 != 0,
        names: bits & 2 != 0,
        noop: bits & 4 != 0,
    });
    let methods = Method::ALL.map(Some).into_iter().chain([None]);
    let mut out = vec![Attack::Original, Attack::Rephrase, Attack::Guided];
    out.extend(Method::ALL.map(Attack::Numeric));
    out.extend(NOISE_LEVELS.map(Attack::Punct));
    for m in Method::ALL.into_iter().filter(|m| m.takes_noise()) {
        out.extend(NOISE_LEVELS.map(|l| Attack::NumericPunct(m, l)));
    }
    for m in methods {
        out.extend(edits.clone().map(|e| Attack::Text(m, e)));
    }
    out.sort();
    out
}

/// One row of the `attacks` view.
#[derive(Clone, Debug, PartialEq)]
pub struct AttackRow {
    pub attack: String,
    pub is_original: bool,
    pub kind: &'static str,
    /// NULL for the original.
    pub families: Option<String>,
    pub method: Option<&'static str>,
    pub noise_level: u32,
    pub answerable: bool,
    pub changes_numbers: bool,
    pub gsm_plus: Option<&'static str>,
    pub gsm_symbolic: Option<&'static str>,
}

/// The `attacks` view's columns, in order.
pub const CATALOGUE_COLUMNS: [&str; 10] = [
    "attack",
    "is_original",
    "kind",
    "families",
    "method",
    "noise_level",
    "answerable",
    "changes_numbers",
    "gsm_plus",
    "gsm_symbolic",
];

/// The rows of the `attacks` view: one per attack of [`catalogue`].
pub fn catalogue_rows() -> Vec<AttackRow> {
    catalogue()
        .into_iter()
        .map(|a| AttackRow {
            attack: a.to_string(),
            is_original: a == Attack::Original,
            kind: a.kind_name(),
            families: Some(a.families_name()).filter(|f| !f.is_empty()),
            method: a.method().map(Method::name),
            noise_level: a.noise_level(),
            answerable: a.answerable(),
            changes_numbers: a.changes_numbers(),
            gsm_plus: a.gsm_plus(),
            gsm_symbolic: a.gsm_symbolic(),
        })
        .collect()
}

/// The `attacks` view as portable SQL (DataFusion and DuckDB): [`catalogue_rows`] as values,
/// under the opening comment `comment` (the view's story for `docs/tables.md`).
pub fn catalogue_sql(comment: &str) -> String {
    let quote = |s: Option<&str>| s.map_or("NULL".to_string(), |s| format!("'{s}'"));
    let rows: Vec<String> = catalogue_rows()
        .into_iter()
        .map(|r| {
            format!(
                "    ('{}', {}, '{}', {}, {}, {}, {}, {}, {}, {})",
                r.attack,
                r.is_original,
                r.kind,
                quote(r.families.as_deref()),
                quote(r.method),
                r.noise_level,
                r.answerable,
                r.changes_numbers,
                quote(r.gsm_plus),
                quote(r.gsm_symbolic),
            )
        })
        .collect();
    let comment: String = comment.lines().map(|l| format!("-- {l}\n")).collect();
    let text = |c: &str| format!("    CAST({c} AS VARCHAR) AS {c}");
    let columns: Vec<String> = CATALOGUE_COLUMNS
        .iter()
        .map(|&c| match c {
            "is_original" | "answerable" | "changes_numbers" => format!("    {c}"),
            "noise_level" => format!("    CAST({c} AS INTEGER) AS {c}"),
            _ => text(c),
        })
        .collect();
    format!(
        "{comment}CREATE VIEW attacks AS\nSELECT\n{}\nFROM (VALUES\n{}\n) AS t({});\n",
        columns.join(",\n"),
        rows.join(",\n"),
        CATALOGUE_COLUMNS.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogued_attack_reads_back_as_itself_once() {
        let all = catalogue();
        let names: std::collections::BTreeSet<String> = all.iter().map(|a| a.to_string()).collect();
        assert_eq!(names.len(), all.len());
        for a in &all {
            assert_eq!(Attack::of(&a.to_string()), Some(*a), "{a}");
        }
        // The original, rephrase, guided, 6 methods, 100 levels alone and on the 5 methods
        // that take noise, and 7 text edits alone and on 6 methods.
        assert_eq!(all.len(), 3 + 6 + 100 + 500 + 7 * 7);
        assert!(!names.contains("fractions+punct10"));
    }

    #[test]
    fn types_answer_what_the_paper_views_ask() {
        let of = |s: &str| Attack::of(s).unwrap();
        assert_eq!(of("original").kind_name(), "original");
        assert_eq!(of("punct30").kind_name(), "noise");
        assert_eq!(of("m3+punct30").kind_name(), "composed");
        assert_eq!(of("m3+punct30").families_name(), "m3+punct");
        assert_eq!(of("missing+names").families_name(), "missing+names");
        assert_eq!(of("m2").gsm_plus(), Some("numerical substitution"));
        assert_eq!(of("m3+names").gsm_plus(), None);
        assert_eq!(of("missing").gsm_plus(), Some("critical thinking"));
        assert_eq!(of("digits").gsm_symbolic(), None);
        assert_eq!(
            of("m1+names+noop").gsm_symbolic(),
            Some("names, numbers and no-op")
        );
        assert_eq!(of("missing+names").gsm_symbolic(), None);
        assert_eq!(of("names+noop").gsm_symbolic(), Some("names and no-op"));
    }
}
