//! Link a program's literals to the question's numbers (paper appendix H.4) and validate it.
//!
//! The paper's alignment, the default: a literal equal to a number written in digits in the
//! question is a variable leaf; when a value occurs several times, the k-th literal (source order)
//! is the k-th occurrence in the question, and the counts must agree, or the problem is a
//! `number_misalignment`. Every other literal is a constant and the text around it never changes.
//!
//! [`Links`] names what advmath can link beyond that, each off unless asked for: number words
//! ("four friends"), percentages written as fractions in the program (`0.4` for "40%"), and
//! written unit fractions divided by their denominator alone. A link of these kinds must be
//! unambiguous: a value the question states more than once ("two farms" and "twice") stays a
//! constant. In a synthesised program that holds for digits too.

use std::collections::HashMap;

use super::links::{linkable_slots, AlignMode, Links, UNIT_CONSTANTS};
use super::lower::{parse_module, LiteralResolver, Lowerer, RecordLiterals, Shown};
use super::readings;
use super::tree::{num_text, BinOp, Builder, ConstKind, Node, NodeId, Program};
use super::{ErrorKind, ProgramError};
use crate::num::wide::{Value, Wide};
use crate::num::{EvalError, Num};
use crate::question::{is_percentage, word_numbers, Slot};

type Res<T> = std::result::Result<T, ProgramError>;

/// What one literal becomes.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    Leaf(u32),
    /// `slot / 100`, `1 - slot/100` or `1 + slot/100`.
    Percent(u32, PercentForm),
    Const(ConstKind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PercentForm {
    Fraction,
    OneMinus,
    OnePlus,
}

/// Slots written as percentages ("40%", "40 percent").
pub fn percent_slots(question: &str, slots: &[Slot]) -> Vec<bool> {
    slots.iter().map(|s| is_percentage(question, s)).collect()
}

/// The percentage reading of a literal, if exactly one percent slot and one reading explain it.
pub fn percent_role(value: Num, slots: &[Slot], is_percent: &[bool]) -> Option<Role> {
    let hundred = Num::int(100);
    let mut found = None;
    for (i, s) in slots.iter().enumerate() {
        if !is_percent[i] {
            continue;
        }
        let frac = s.value.div(hundred).ok()?;
        let forms = [
            (frac, PercentForm::Fraction),
            (Num::ONE.sub(frac).ok()?, PercentForm::OneMinus),
            (Num::ONE.add(frac).ok()?, PercentForm::OnePlus),
        ];
        for (v, form) in forms {
            if !value.eq_num(v) {
                continue;
            }
            // Two readings (50% of it, or 50% off it, are both 0.5) or two percentages: unsure.
            if found.is_some() {
                return None;
            }
            found = Some(Role::Percent(i as u32, form));
        }
    }
    found
}

/// Why a constant may stand in a synthesised program, if it may: a number the question states
/// (in words, or in digits where it cannot be linked), a percentage of the question written as
/// a fraction (kept as it is, like the percentage in the text), or a unit constant.
pub fn justify_constant(value: Num, question: &str, slots: &[Slot]) -> Option<ConstKind> {
    if let Some(s) = slots.iter().find(|s| !s.word && s.value.eq_num(value)) {
        return Some(ConstKind::Stated(s.written_in(question).to_string()));
    }
    // Any reading will do for a constant, even one a leaf could not take (50% of, or 50% off).
    let hundred = Num::int(100);
    let percent = slots.iter().find(|s| {
        is_percentage(question, s)
            && s.value.div(hundred).is_ok_and(|f| {
                [Ok(f), Num::ONE.sub(f), Num::ONE.add(f)]
                    .into_iter()
                    .any(|r| r.is_ok_and(|r| r.eq_num(value)))
            })
    });
    if let Some(s) = percent {
        return Some(ConstKind::Stated(format!("{}%", s.written_in(question))));
    }
    named_constant(value, question)
}

/// A constant the question names without writing its digits: a number word ("half", "twice",
/// "dozen") or a unit constant whose unit it mentions (60 for an hour in minutes).
pub fn named_constant(value: Num, question: &str) -> Option<ConstKind> {
    if let Some((w, _)) = word_numbers(question)
        .into_iter()
        .find(|(_, v)| v.eq_num(value))
    {
        return Some(ConstKind::Word(w));
    }
    let lower = question.to_ascii_lowercase();
    UNIT_CONSTANTS
        .iter()
        .find(|(v, _, words)| {
            Num::parse_decimal(v).is_some_and(|u| u.eq_num(value))
                && (words.is_empty() || words.iter().any(|w| lower.contains(w)))
        })
        .map(|(_, what, _)| ConstKind::Unit((*what).to_string()))
}

/// Push the nodes a role stands for.
pub fn push_role(role: &Role, value: Num, b: &mut Builder) -> NodeId {
    match role {
        Role::Leaf(slot) => b.push(Node::Leaf { slot: *slot }),
        Role::Const(kind) => b.push(Node::Const {
            value,
            kind: kind.clone(),
        }),
        Role::Percent(slot, form) => {
            let leaf = b.push(Node::Leaf { slot: *slot });
            let hundred = b.push(Node::Const {
                value: Num::int(100),
                kind: ConstKind::Unit("percent".into()),
            });
            let frac = b.push(Node::Bin {
                op: BinOp::Div,
                lhs: leaf,
                rhs: hundred,
            });
            let op = match form {
                PercentForm::Fraction => return frac,
                PercentForm::OneMinus => BinOp::Sub,
                PercentForm::OnePlus => BinOp::Add,
            };
            let one = b.push(Node::Const {
                value: Num::ONE,
                kind: ConstKind::Unit("one whole".into()),
            });
            b.push(Node::Bin {
                op,
                lhs: one,
                rhs: frac,
            })
        }
    }
}

struct ApplyRoles<'a> {
    roles: &'a [Role],
}

impl LiteralResolver for ApplyRoles<'_> {
    fn literal(&mut self, ordinal: usize, value: Num, b: &mut Builder) -> Res<NodeId> {
        Ok(push_role(&self.roles[ordinal], value, b))
    }
}

/// A value whose count of literals in the program differs from its count of digit occurrences
/// in the question.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mismatch {
    pub key: String,
    /// The question's digit occurrences of it.
    pub positions: Vec<u32>,
    /// How many literals of the program have it.
    pub literals: usize,
}

impl Mismatch {
    fn error(&self) -> ProgramError {
        ProgramError::new(
            ErrorKind::NumberMisalignment,
            format!(
                "{} appears {} time(s) in the question and {} time(s) in the program",
                self.key,
                self.positions.len(),
                self.literals
            ),
        )
    }
}

/// Which linkable slots each literal value links to, by the paper's counting rule: when a value
/// occurs q times in the question and c > 0 times in the program, c must equal q. Number words
/// (linkable only with [`Links::number_words`]) are softer: if counting them breaks the equality
/// but the digit occurrences alone match, only those link; a value that occurs only as words and
/// does not match is left to be a constant. The values whose digit counts differ are returned
/// apart, in the order the question first writes them (so that the misalignment reported is the
/// same on every run; a hash map's order is not).
fn linked_positions(
    slots: &[Slot],
    linkable: &[bool],
    literal_count: &HashMap<String, usize>,
) -> (HashMap<String, Vec<u32>>, Vec<Mismatch>) {
    let mut all: Vec<(String, Vec<u32>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, s) in slots.iter().enumerate() {
        if !linkable[i] {
            continue;
        }
        let key = num_text::to_text(&s.value);
        let at = *index.entry(key.clone()).or_insert_with(|| {
            all.push((key, Vec::new()));
            all.len() - 1
        });
        all[at].1.push(i as u32);
    }
    let mut linked = HashMap::new();
    let mut mismatched = Vec::new();
    for (k, positions) in all {
        let Some(&c) = literal_count.get(&k) else {
            continue;
        };
        let digits: Vec<u32> = positions
            .iter()
            .copied()
            .filter(|&p| !slots[p as usize].word)
            .collect();
        if c == positions.len() {
            linked.insert(k, positions);
        } else if !digits.is_empty() && c == digits.len() {
            linked.insert(k, digits);
        } else if !digits.is_empty() {
            mismatched.push(Mismatch {
                key: k,
                positions: digits,
                literals: c,
            });
        }
    }
    (linked, mismatched)
}

/// Decide each literal's role with the paper's counting rule over the linkable slots.
pub fn assign_roles(
    literals: &[Num],
    question: &str,
    slots: &[Slot],
    mode: AlignMode,
    links: Links,
) -> Res<Vec<Role>> {
    let (linked, mismatched) = link_counts(literals, question, slots, mode, links);
    if let Some(m) = mismatched.first() {
        return Err(m.error());
    }
    roles_with(literals, question, slots, mode, links, &linked)
}

fn link_counts(
    literals: &[Num],
    question: &str,
    slots: &[Slot],
    mode: AlignMode,
    links: Links,
) -> (HashMap<String, Vec<u32>>, Vec<Mismatch>) {
    let mut literal_count: HashMap<String, usize> = HashMap::new();
    for v in literals {
        *literal_count.entry(num_text::to_text(v)).or_default() += 1;
    }
    let linkable = linkable_slots(question, slots, mode, links);
    linked_positions(slots, &linkable, &literal_count)
}

/// Each literal's role given the values that link (a literal of any other value is a percentage
/// or a constant).
fn roles_with(
    literals: &[Num],
    question: &str,
    slots: &[Slot],
    mode: AlignMode,
    links: Links,
    slot_positions: &HashMap<String, Vec<u32>>,
) -> Res<Vec<Role>> {
    let key = |v: &Num| num_text::to_text(v);
    let is_percent = percent_slots(question, slots);
    let mut used: HashMap<String, usize> = HashMap::new();
    literals
        .iter()
        .map(|v| {
            let k = key(v);
            if let Some(positions) = slot_positions.get(&k) {
                let n = used.entry(k).or_default();
                *n += 1;
                return Ok(Role::Leaf(positions[*n - 1]));
            }
            if links.percentages {
                if let Some(role) = percent_role(*v, slots, &is_percent) {
                    return Ok(role);
                }
            }
            match mode {
                AlignMode::Given => Ok(Role::Const(ConstKind::Literal)),
                AlignMode::Synthesised => justify_constant(*v, question, slots)
                    .map(Role::Const)
                    .ok_or_else(|| {
                        ProgramError::new(
                            ErrorKind::UnresolvedConstant,
                            format!(
                                "{} is not a question number, a number word in the question, or a unit constant",
                                key(v)
                            ),
                        )
                    }),
            }
        })
        .collect()
}

/// Which printed (or assigned) value is the answer, as the authors' visitor
/// (`generation/code_visitor.py`) picks it: the last `print` that shows the gold answer (after
/// rounding to 2 decimals), the first such value within it; a call written in that print
/// (`print(int(x))`) is looked through to the first value inside it that equals the call's own
/// value (there the authors take the argument, never the call; where every argument differs from
/// the call, as in `round(x, 2)` of an inexact x, they reject the program and advmath keeps the
/// call). Without a gold answer, the last printed value.
fn choose_answer(
    printed: &[Shown],
    last_assigned: Option<NodeId>,
    values: &Values,
    gold: Option<&Value>,
) -> Res<AnswerPick> {
    if printed.is_empty() {
        return match (last_assigned, gold) {
            (Some(id), Some(g)) if values.get(id).eq_2dp(g) => Ok(AnswerPick::LastAssigned),
            (Some(id), Some(g)) => Err(ProgramError::new(
                ErrorKind::WrongAnswer,
                format!(
                    "program prints nothing; its last value is {}, expected {g}",
                    values.get(id)
                ),
            )),
            (Some(_), None) => Ok(AnswerPick::LastAssigned),
            (None, _) => Err(ProgramError::new(
                ErrorKind::Unsupported,
                "program computes nothing",
            )),
        };
    }
    let Some(g) = gold else {
        return Ok(AnswerPick::Printed {
            entry: printed.len() - 1,
            inside: None,
        });
    };
    let last_statement = printed
        .iter()
        .filter(|s| values.get(s.node).eq_2dp(g))
        .map(|s| s.statement)
        .max();
    let Some(statement) = last_statement else {
        let shown: Vec<String> = printed
            .iter()
            .map(|s| values.get(s.node).to_string())
            .collect();
        return Err(ProgramError::new(
            ErrorKind::WrongAnswer,
            format!("program prints {}, expected {g}", shown.join(", ")),
        ));
    };
    let entry = printed
        .iter()
        .position(|s| s.statement == statement && values.get(s.node).eq_2dp(g))
        .expect("the statement shows the answer");
    let own = values.get(printed[entry].node);
    let inside = printed[entry]
        .inside
        .iter()
        .position(|&id| same_value(&values.get(id), &own));
    Ok(AnswerPick::Printed { entry, inside })
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.eq_num(*y),
        _ => a == b,
    }
}

#[derive(Clone, Copy)]
enum AnswerPick {
    /// The `entry`-th value printed, or the `inside`-th value shown inside it (both lowerings
    /// show the same values in the same order).
    Printed {
        entry: usize,
        inside: Option<usize>,
    },
    LastAssigned,
}

/// Every node's value on the original numbers: `i128` rationals, or big integers when those
/// overflow (as Python's integers would compute them).
enum Values {
    Narrow(Vec<Num>),
    Wide(Vec<Wide>),
}

impl Values {
    fn of(p: &Program, slots: &[Num]) -> Res<Values> {
        let mut out = vec![Num::ZERO; p.nodes.len()];
        let values = match p.eval_into(slots, &mut out) {
            Ok(()) => Ok(Values::Narrow(out)),
            Err(EvalError::Overflow) => p.eval_wide(slots).map(Values::Wide),
            Err(e) => Err(e),
        };
        values.map_err(|e| {
            ProgramError::new(
                ErrorKind::EvalError,
                format!("on the original numbers: {e}"),
            )
        })
    }

    fn get(&self, id: NodeId) -> Value {
        match self {
            Values::Narrow(v) => Value::Num(v[id as usize]),
            Values::Wide(v) => Value::Wide(v[id as usize].clone()),
        }
    }

    /// `lhs / rhs` is an integer.
    fn divides_evenly(&self, lhs: NodeId, rhs: NodeId) -> bool {
        let (l, r) = (lhs as usize, rhs as usize);
        match self {
            Values::Narrow(v) => v[l].div(v[r]).is_ok_and(|q| q.is_integer()),
            Values::Wide(v) => v[l].div(&v[r]).is_ok_and(|q| q.is_integer()),
        }
    }
}

fn eval_all(nodes: &[Node]) -> Res<Values> {
    let p = Program {
        nodes: nodes.to_vec(),
        answer: 0,
        ties: Vec::new(),
    };
    Values::of(&p, &[])
}

/// Parse, align and validate a Python solution program against its question.
pub fn validate_program(
    source: &str,
    question: &str,
    slots: &[Slot],
    gold: Option<Value>,
    mode: AlignMode,
    links: Links,
) -> Res<Program> {
    let (body, literals, pick) = parse_and_pick(source, gold.as_ref())?;
    let roles = assign_roles(&literals, question, slots, mode, links)?;
    let (builder, answer) = lower_with(source, &body, &roles, pick)?;
    finish_checked(builder, answer, slots, question, links)
}

/// The answer a program computes on its own literals, read as the gold check reads it (the last
/// value printed, else the last one assigned): what a program that misses the gold gives instead.
pub fn computed_answer(source: &str) -> Res<Value> {
    let body = parse_module(source)?;
    let mut first = Lowerer::new(source, RecordLiterals::default());
    first.module(&body)?;
    let (lowered, _) = first.into_parts();
    let values = eval_all(&lowered.builder.nodes)?;
    let node = match choose_answer(&lowered.printed, lowered.last_assigned, &values, None)? {
        AnswerPick::Printed { entry, .. } => lowered.printed[entry].node,
        AnswerPick::LastAssigned => lowered
            .last_assigned
            .ok_or_else(|| ProgramError::new(ErrorKind::Unsupported, "program computes nothing"))?,
    };
    Ok(values.get(node))
}

/// A program parsed, its literals (in source order) recorded, and the value that is its answer
/// picked: where every alignment of it starts.
fn parse_and_pick(
    source: &str,
    gold: Option<&Value>,
) -> Res<(Vec<rustpython_parser::ast::Stmt>, Vec<Num>, AnswerPick)> {
    let body = parse_module(source)?;
    let mut first = Lowerer::new(source, RecordLiterals::default());
    first.module(&body)?;
    let (lowered, recorded) = first.into_parts();
    let values = eval_all(&lowered.builder.nodes)?;
    let pick = choose_answer(&lowered.printed, lowered.last_assigned, &values, gold)?;
    Ok((body, recorded.values, pick))
}

/// The program lowered with each literal taking its role, and its answer node.
fn lower_with(
    source: &str,
    body: &[rustpython_parser::ast::Stmt],
    roles: &[Role],
    pick: AnswerPick,
) -> Res<(Builder, NodeId)> {
    let mut second = Lowerer::new(source, ApplyRoles { roles });
    second.module(body)?;
    let (lowered, _) = second.into_parts();
    let answer = match pick {
        AnswerPick::Printed { entry, inside } => {
            let shown = &lowered.printed[entry];
            inside.map_or(shown.node, |i| shown.inside[i])
        }
        AnswerPick::LastAssigned => lowered
            .last_assigned
            .ok_or_else(|| ProgramError::new(ErrorKind::Unsupported, "program computes nothing"))?,
    };
    Ok((lowered.builder, answer))
}

/// Prune, then require that the answer depends on the question and evaluates on the originals.
///
/// Normalisations first: a `//` whose operands divide evenly on the original numbers is a true
/// division (so a variant must divide evenly too, as in the paper's code), and with
/// [`Links::fractions`] a unit fraction written in the question ("1/6 of the cards") whose
/// program divides by the denominator alone divides by `denominator / numerator`, so that a
/// variant's "2/7" is computed as written.
pub fn finish_checked(
    builder: Builder,
    answer: NodeId,
    slots: &[Slot],
    question: &str,
    links: Links,
) -> Res<Program> {
    let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let (builder, answer) = if links.fractions {
        with_unit_fractions(builder, answer, slots, question)
    } else {
        (builder, answer)
    };
    let written = builder.nodes.clone();
    let mut program = builder.finish(answer);
    let node_values = Values::of(&program, &values)?;
    for node in program.nodes.iter_mut() {
        if let Node::Bin {
            op: op @ BinOp::FloorDiv,
            lhs,
            rhs,
        } = node
        {
            if node_values.divides_evenly(*lhs, *rhs) {
                *op = BinOp::Div;
            }
        }
    }
    let program = readings::settle(program, slots, question, links);
    if program.variable_slots().is_empty() {
        return Err(ProgramError::new(
            ErrorKind::NumberMisalignment,
            super::NOTHING_VARIES,
        ));
    }
    readings::require_every_number_used(&program, &written, slots, question)?;
    Ok(program)
}

mod fractions;
mod published;

use fractions::with_unit_fractions;

pub use published::validate_published;

#[cfg(test)]
mod tests;
