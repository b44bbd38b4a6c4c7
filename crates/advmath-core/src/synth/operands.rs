//! The readings of a synthesised step's operand: every earlier quantity a number of the solution
//! could be ([`Reading`]), and which combinations of them are worth comparing ([`admissible`]).

use std::collections::HashMap;

use super::labels::{self, Label};
use super::StepResolver;
use crate::num::Num;
use crate::program::align::{justify_constant, Role};
use crate::program::links::UNIT_CONSTANTS;
use crate::program::tree::{num_text, BinOp, ConstKind, NodeId};
use crate::program::{ErrorKind, ProgramError};

type Res<T> = std::result::Result<T, ProgramError>;

/// A literal with more than one reading.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Alternative {
    /// Which literal (over all steps).
    pub(super) index: usize,
    pub(super) readings: usize,
    pub(super) value: String,
    pub(super) step: usize,
}

/// One way to read a step's literal.
#[derive(Clone, PartialEq)]
pub(super) enum Reading {
    Node(NodeId),
    Role(Role),
    /// An earlier quantity the question implies from another: `of / 2` ("half that fast") or
    /// `of * 2` ("twice").
    Implied(NodeId, BinOp),
}

impl StepResolver<'_> {
    /// Every earlier quantity a literal of value `value` could be: earlier results of that value
    /// (latest first), the question's statement of it (a leaf, or a constant where it cannot be
    /// linked), and, when there is already more than one, the halves and doubles of earlier
    /// results the question's words imply.
    pub(super) fn readings(&mut self, value: Num, key: &str) -> Res<Vec<Reading>> {
        if self.unlinked_results.iter().any(|v| v.eq_num(value)) {
            return Err(ProgramError::new(
                ErrorKind::AmbiguousOperand,
                format!("{key} is the result of a step that could not be linked, and may be that step's"),
            ));
        }

        let mut out: Vec<Reading> = Vec::new();
        for &(v, id, _) in self.results.iter().rev() {
            if v.eq_num(value) && !out.contains(&Reading::Node(id)) {
                out.push(Reading::Node(id));
            }
        }
        if let Some(positions) = self.slot_positions.get(key) {
            let digits: Vec<u32> = positions
                .iter()
                .copied()
                .filter(|&p| !self.slots[p as usize].word)
                .collect();
            let n = self.slot_uses.get(key).copied().unwrap_or(0);
            let slot = match (digits.len(), positions.len()) {
                (0, 1) => Some(positions[0]),
                (0, _) => None,
                (1, _) => Some(digits[0]),
                (q, _) if n < q => Some(digits[n]),
                (q, _) if out.is_empty() => {
                    return Err(ProgramError::new(
                        ErrorKind::NumberMisalignment,
                        format!(
                            "{key} appears {q} times in the question and more often in the solution"
                        ),
                    ))
                }
                _ => None,
            };
            if let Some(slot) = slot {
                out.push(Reading::Role(Role::Leaf(slot)));
            }
        } else if !out.is_empty() {
            // "12 x 5" after "2.40 x 5 = 12" in a question about dozens; "300 / 60" after a
            // step that gave 60, in a question about minutes and hours.
            if let Some(kind) = justify_constant(value, self.question, self.slots)
                .filter(|k| self.constant_in_context(k, value))
            {
                out.push(Reading::Role(Role::Const(kind)));
            }
        }
        if out.len() > 1 {
            // A value a solution may write for a reason of its own (a small count it implies,
            // "2 parents", "4 legs"; 60 minutes in a question of hours) may be none of the
            // quantities above: the reading where it is a constant competes with them.
            let implied_count =
                value.is_integer() && (2..=4).contains(&value.as_integer().unwrap_or(0));
            if let Some((_, what, _)) = UNIT_CONSTANTS
                .iter()
                .find(|(v, _, _)| Num::parse_decimal(v).is_some_and(|u| u.eq_num(value)))
            {
                let kind = ConstKind::Unit((*what).to_string());
                let constant = Reading::Role(Role::Const(kind.clone()));
                if (implied_count || self.constant_in_context(&kind, value))
                    && !out.contains(&constant)
                {
                    out.push(constant);
                }
            }
            let lower = self.question.to_ascii_lowercase();
            let two = Num::int(2);
            for &(v, id, _) in self.results.iter().rev() {
                if lower.contains("half") && v.div(two).is_ok_and(|h| h.eq_num(value)) {
                    out.push(Reading::Implied(id, BinOp::Div));
                }
                if (lower.contains("twice") || lower.contains("double"))
                    && v.mul(two).is_ok_and(|d| d.eq_num(value))
                {
                    out.push(Reading::Implied(id, BinOp::Mul));
                }
            }
        }
        self.not_derived(value, key, &out)?;
        if out.len() > 1 {
            let operand = labels::label_of(&self.operands, value);
            let candidates: Vec<Vec<Label>> =
                out.iter().map(|r| self.labels_of(r, value)).collect();
            if let Some(k) = labels::decided_by(operand.as_ref(), &candidates) {
                out = vec![out.swap_remove(k)];
            }
        }
        Ok(out)
    }

    /// The labels the quantity a reading takes may be written with: the label after an earlier
    /// step's result or after the question's number, any of a unit constant's units; none (so
    /// nothing is decided) for other constants and implied halves.
    fn labels_of(&self, reading: &Reading, value: Num) -> Vec<Label> {
        match reading {
            Reading::Node(id) => self
                .results
                .iter()
                .find(|(_, r, _)| r == id)
                .and_then(|(_, _, l)| l.clone())
                .into_iter()
                .collect(),
            Reading::Role(Role::Leaf(slot)) => {
                self.slot_labels[*slot as usize].iter().cloned().collect()
            }
            Reading::Role(Role::Const(ConstKind::Unit(_))) => unit_words(value)
                .iter()
                .flat_map(|w| [w.to_string(), format!("/{w}"), format!("$/{w}")])
                .collect(),
            Reading::Role(_) | Reading::Implied(..) => Vec::new(),
        }
    }
}

impl StepResolver<'_> {
    /// Refuses a literal that may be a coefficient the solution's algebra derived ("2*x + x" is
    /// 3 times the unknown, and "24/3" divides by it) when the program would read it as a number
    /// that varies: a question number of that value ("3 were orange"), an earlier result, or a
    /// percentage's leaf. A constant reading stands, as the derived value does, unless one of
    /// the coefficients combined may be a question number that varies ("5*x + x" with the
    /// question's 5), which would change the derived value in a variant.
    pub(super) fn not_derived(&self, value: Num, key: &str, readings: &[Reading]) -> Res<()> {
        let Some(d) = self.derived.iter().find(|d| d.value.eq_num(value)) else {
            return Ok(());
        };
        let varies = readings
            .iter()
            .any(|r| !matches!(r, Reading::Role(Role::Const(_))));
        let combines_a_question_number = d.terms.iter().any(|t| {
            !t.eq_num(Num::ONE) && self.slot_positions.contains_key(&num_text::to_text(t))
        });
        if varies || combines_a_question_number {
            return Err(ProgramError::new(
                ErrorKind::AmbiguousOperand,
                format!(
                    "{key} may be the coefficient the solution's algebra derives ({} gives {key} times the unknown), which no step computes",
                    d.from
                ),
            ));
        }
        Ok(())
    }

    /// Whether a constant that no earlier quantity competes with may stand: any but a unit
    /// constant that any question could name (12, 24, 60, 100, 1000, 0.01), which must have its
    /// units in the question ("12" in a question of sticks is unwritten arithmetic, 36 / 3).
    pub(super) fn unit_in_context(&self, kind: &ConstKind, value: Num) -> bool {
        let ConstKind::Unit(_) = kind else {
            return true;
        };
        let context_free = UNIT_CONSTANTS.iter().any(|(v, _, words)| {
            words.is_empty() && Num::parse_decimal(v).is_some_and(|u| u.eq_num(value))
        });
        value.is_zero()
            || value.eq_num(Num::ONE)
            || !context_free
            || self.constant_in_context(kind, value)
    }

    /// Whether a constant is a reading of a literal as likely as an earlier result of its value:
    /// a number the question states or writes as a word, or a unit constant whose units the
    /// question names (60 in a question of minutes and hours, not any 60).
    fn constant_in_context(&self, kind: &ConstKind, value: Num) -> bool {
        let lower = self.question.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
        match kind {
            ConstKind::Stated(_) | ConstKind::Word(_) => true,
            ConstKind::Unit(_) if value.eq_num(Num::parse_decimal("0.01").unwrap_or(Num::ONE)) => {
                has(&["percent", "%"])
            }
            ConstKind::Unit(_) => match value.as_integer().filter(|_| value.is_integer()) {
                Some(60) => {
                    (has(&["hour"]) && has(&["minute", "min "]))
                        || (has(&["minute"]) && has(&["second"]))
                }
                Some(24) => has(&["hour"]) && has(&["day"]),
                Some(7) => has(&["week"]) && has(&["day"]),
                Some(12) => {
                    has(&["dozen"])
                        || (has(&["month"]) && has(&["year"]))
                        || (has(&["inch"]) && has(&["foot", "feet"]))
                }
                Some(52) => has(&["week"]) && has(&["year"]),
                Some(365) => has(&["day"]) && has(&["year"]),
                Some(100) => has(&["percent", "%", "cent"]),
                Some(1000) => has(&["kilo", "gram", "meter", "liter"]),
                _ => false,
            },
            ConstKind::Literal => false,
        }
    }
}

/// The units a unit constant converts between (the words [`StepResolver::constant_in_context`]
/// looks for), as labels: "60 minutes" may be the 60 of minutes per hour, "60 GB" may not.
fn unit_words(value: Num) -> &'static [&'static str] {
    match value.as_integer().filter(|_| value.is_integer()) {
        Some(60) => &["minute", "min", "second", "sec", "hour"],
        Some(24) => &["hour", "hr", "day"],
        Some(7) => &["day", "week"],
        Some(12) => &["dozen", "month", "year", "inch", "foot", "feet", "egg"],
        Some(52) => &["week", "year"],
        Some(365) => &["day", "year"],
        Some(100) => &["%", "percent", "cent", "dollar", "$"],
        Some(1000) => &[
            "gram",
            "kilogram",
            "kg",
            "meter",
            "kilometer",
            "km",
            "liter",
            "ml",
        ],
        _ => &[],
    }
}

/// The choices of combination `c` (a mixed-radix number over the alternatives), unless two
/// literals of one value in one step read the same quantity while another of that value is left
/// unread ("20 + 20" after two steps that each gave 20 reads each step once, in either order).
pub(super) fn admissible(alternatives: &[Alternative], c: usize) -> Option<HashMap<usize, usize>> {
    let mut rest = c;
    let mut choices = HashMap::new();
    for a in alternatives {
        choices.insert(a.index, rest % a.readings);
        rest /= a.readings;
    }
    for (i, a) in alternatives.iter().enumerate() {
        let same: Vec<&Alternative> = alternatives[i..]
            .iter()
            .filter(|b| b.step == a.step && b.value == a.value && b.readings == a.readings)
            .collect();
        if same.len() > 1 && same.len() <= a.readings {
            let mut picked: Vec<usize> = same.iter().map(|b| choices[&b.index]).collect();
            picked.sort_unstable();
            picked.dedup();
            if picked.len() < same.len() {
                return None;
            }
        }
    }
    Some(choices)
}
