//! Synthesise solution programs from worked solutions (`steps.rs`): GSM8K calculator annotations
//! (`<<40*3=120>>`) and MultiArith equations (`X=((32.0+42.0)-35.0)`).
//!
//! Each annotation becomes one step. In a step's expression, a number equal to an earlier step's
//! result is a reference to that step; a question number the question states once is its leaf
//! (a number word only with [`Links::number_words`]); a percentage written as a fraction is an
//! expression of its leaf with [`Links::percentages`]; any other number must be a number the
//! question states, a percentage of it, or a unit constant, kept constant, or the problem is
//! rejected as `unresolved_constant`. A number that more than one earlier quantity could be is
//! tried every way, unless the unit the solution writes after it names exactly one of them
//! (`labels.rs`), and a number no written step explains is never guessed.

use std::collections::HashMap;

use crate::cut;
use crate::num::Num;
use crate::program::align::{
    finish_checked, justify_constant, percent_role, percent_slots, push_role, Role,
};
use crate::program::links::{linkable_slots, AlignMode, Links};
use crate::program::lower::{parse_expression, LiteralResolver, Lowerer};
use crate::program::readings;
use crate::program::tree::{num_text, BinOp, Builder, ConstKind, Node, NodeId, Program};
use crate::program::{ErrorKind, ProgramError};
use crate::question::Slot;
use labels::Label;
use operands::{admissible, Alternative, Reading};
pub use steps::{clean_expression, gsm8k_final_answer, gsm8k_steps, Step};

type Res<T> = std::result::Result<T, ProgramError>;

/// Links the literals of successive steps.
struct StepResolver<'a> {
    question: &'a str,
    slots: &'a [Slot],
    links: Links,
    is_percent: Vec<bool>,
    /// Earlier results: annotated value, node and label, latest last.
    results: Vec<(Num, NodeId, Option<Label>)>,
    /// The labels of the question's numbers, by slot.
    slot_labels: Vec<Option<Label>>,
    /// The labelled numbers of the step being lowered.
    operands: Vec<(Num, Option<Label>)>,
    slot_uses: HashMap<String, usize>,
    slot_positions: HashMap<String, Vec<u32>>,
    /// Literal ordinal -> slot forced by an alignment (MultiArith `lAlignments`).
    forced: HashMap<usize, u32>,
    base_ordinal: usize,
    /// Literals resolved so far, over all steps: the index of the next one.
    resolved: usize,
    /// Which reading each literal with more than one takes (by index; the first by default).
    choices: HashMap<usize, usize>,
    /// The literals with more than one reading.
    alternatives: Vec<Alternative>,
    /// The step being lowered.
    step: usize,
    /// The results the solution wrote for steps that could not be linked: a later number of
    /// the same value may be that step's result, which the program does not have.
    unlinked_results: Vec<Num>,
    /// The coefficients the solution's algebra derived before the step being lowered.
    derived: Vec<coefficients::Derived>,
}

impl<'a> StepResolver<'a> {
    fn new(question: &'a str, slots: &'a [Slot], links: Links) -> Self {
        let linkable = linkable_slots(question, slots, AlignMode::Synthesised, links);
        let mut slot_positions: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, s) in slots.iter().enumerate() {
            if !linkable[i] {
                continue;
            }
            slot_positions
                .entry(num_text::to_text(&s.value))
                .or_default()
                .push(i as u32);
        }
        StepResolver {
            question,
            slots,
            links,
            is_percent: percent_slots(question, slots),
            results: Vec::new(),
            slot_labels: slots
                .iter()
                .map(|s| {
                    let dollar = cut::before(question, s.start).trim_end().ends_with('$');
                    labels::label_after(cut::after(question, s.end), dollar)
                })
                .collect(),
            operands: Vec::new(),
            slot_uses: HashMap::new(),
            slot_positions,
            forced: HashMap::new(),
            base_ordinal: 0,
            resolved: 0,
            choices: HashMap::new(),
            alternatives: Vec::new(),
            step: 0,
            unlinked_results: Vec::new(),
            derived: Vec::new(),
        }
    }

    /// An empty resolver over the same question, to stand in while a lowerer owns this one (it
    /// resolves nothing and computes nothing).
    fn placeholder(&self) -> Self {
        StepResolver {
            question: self.question,
            slots: self.slots,
            links: self.links,
            is_percent: Vec::new(),
            results: Vec::new(),
            slot_labels: Vec::new(),
            operands: Vec::new(),
            slot_uses: HashMap::new(),
            slot_positions: HashMap::new(),
            forced: HashMap::new(),
            base_ordinal: 0,
            resolved: 0,
            choices: HashMap::new(),
            alternatives: Vec::new(),
            step: 0,
            unlinked_results: Vec::new(),
            derived: Vec::new(),
        }
    }
}

impl LiteralResolver for StepResolver<'_> {
    fn literal(&mut self, ordinal: usize, value: Num, b: &mut Builder) -> Res<NodeId> {
        let index = self.resolved;
        self.resolved += 1;
        if let Some(&slot) = self.forced.get(&(self.base_ordinal + ordinal)) {
            return Ok(push_role(&Role::Leaf(slot), value, b));
        }
        let key = num_text::to_text(&value);
        let readings = self.readings(value, &key)?;
        if readings.len() > 1 {
            self.alternatives.push(Alternative {
                index,
                readings: readings.len(),
                value: key.clone(),
                step: self.step,
            });
        }
        let choice = self.choices.get(&index).copied().unwrap_or(0);
        if let Some(reading) = readings.get(choice).or(readings.first()) {
            return Ok(match reading {
                Reading::Node(id) => *id,
                Reading::Role(role) => {
                    if let Role::Leaf(_) = role {
                        *self.slot_uses.entry(key).or_default() += 1;
                    }
                    push_role(role, value, b)
                }
                Reading::Implied(of, op) => {
                    let two = b.push(Node::Const {
                        value: Num::int(2),
                        kind: ConstKind::Word(
                            if *op == BinOp::Div { "half" } else { "twice" }.into(),
                        ),
                    });
                    b.push(Node::Bin {
                        op: *op,
                        lhs: *of,
                        rhs: two,
                    })
                }
            });
        }
        if self.links.percentages {
            if let Some(role) = percent_role(value, self.slots, &self.is_percent) {
                self.not_derived(value, &key, &[Reading::Role(role.clone())])?;
                return Ok(push_role(&role, value, b));
            }
        }
        if let Some(kind) = justify_constant(value, self.question, self.slots)
            .filter(|k| self.unit_in_context(k, value))
        {
            return Ok(push_role(&Role::Const(kind), value, b));
        }
        Err(ProgramError::new(
            ErrorKind::UnresolvedConstant,
            format!("{key} is not a question number, an earlier result, a number word in the question, a unit constant, or one operation on known values"),
        ))
    }
}

/// The most combinations of readings tried for one solution; past it the problem is refused.
const MAX_COMBINATIONS: usize = 64;

/// Build a program from GSM8K calculator annotations.
///
/// A step's operand that more than one earlier quantity could supply (two steps that both gave
/// 20; a stated number that is also an earlier result; a half the question implies) is tried
/// every way: when the programs disagree on distinguishing numbers the problem is refused as
/// `ambiguous_operand`, since the solution's numbers alone cannot say which was meant.
pub fn from_gsm8k(
    question: &str,
    slots: &[Slot],
    solution: &str,
    gold: Num,
    links: Links,
) -> Res<Program> {
    let steps = gsm8k_steps(solution);
    if steps.is_empty() {
        return Err(ProgramError::new(
            ErrorKind::MissingProgram,
            "the solution has no calculator annotations",
        ));
    }
    let (first, alternatives) =
        gsm8k_reading(question, slots, &steps, gold, links, &HashMap::new());
    if alternatives.is_empty() {
        return first.and_then(|(p, unread)| unread.map_or(Ok(p), Err));
    }
    let combinations = alternatives
        .iter()
        .try_fold(1usize, |acc, a| acc.checked_mul(a.readings))
        .filter(|&c| c <= MAX_COMBINATIONS)
        .ok_or_else(|| {
            ProgramError::new(
                ErrorKind::AmbiguousOperand,
                format!(
                    "{} operands could each be more than one earlier quantity: too many readings to compare",
                    alternatives.len()
                ),
            )
        })?;
    let draws = readings::distinguishing_draws(&slots.iter().map(|s| s.value).collect::<Vec<_>>());
    // The readings that agree, the first of them with every step read if there is one.
    let mut program: Option<(Program, Vec<String>, Option<ProgramError>)> = None;
    let first_error = first.as_ref().err().cloned();
    let mut first = Some(first);
    for c in 0..combinations {
        let Some(choices) = admissible(&alternatives, c) else {
            continue;
        };
        // Combination 0 reads every literal the first way: the synthesis already made.
        let reading = match first.take() {
            Some(made) if c == 0 => made,
            _ => gsm8k_reading(question, slots, &steps, gold, links, &choices).0,
        };
        let Ok((reading, unread)) = reading else {
            continue;
        };
        // A reading that leaves a worked step unread contradicts the solution it reads.
        if unread.is_some() {
            continue;
        }
        let answers = readings::answers_on(&reading, &draws);
        match &program {
            None => program = Some((reading, answers, unread)),
            Some((_, expected, _)) if *expected != answers => {
                return Err(ProgramError::new(
                    ErrorKind::AmbiguousOperand,
                    format!(
                        "an operand of value {} could be more than one earlier quantity, and the readings give different answers",
                        alternatives.iter().map(|a| a.value.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            Some((_, _, Some(_))) if unread.is_none() => program = Some((reading, answers, None)),
            Some(_) => {}
        }
    }
    // A step no agreeing reading reads refuses the problem; it never chooses between readings.
    if let Some((_, _, Some(unread))) = program {
        return Err(unread);
    }
    program.map(|(p, _, _)| p).ok_or_else(|| {
        first_error.unwrap_or_else(|| {
            ProgramError::new(
                ErrorKind::AmbiguousOperand,
                "no reading of the operands gives the answer",
            )
        })
    })
}

/// One synthesis from the steps, each literal with more than one reading taking the one
/// `choices` names; with the literals that had more than one.
fn gsm8k_reading(
    question: &str,
    slots: &[Slot],
    steps: &[Step],
    gold: Num,
    links: Links,
    choices: &HashMap<usize, usize>,
) -> (Res<(Program, Option<ProgramError>)>, Vec<Alternative>) {
    let mut resolver = StepResolver::new(question, slots, links);
    resolver.choices = choices.clone();
    let program = synthesise_steps(&mut resolver, question, slots, steps, gold, links);
    (program, resolver.alternatives)
}

fn synthesise_steps(
    resolver: &mut StepResolver,
    question: &str,
    slots: &[Slot],
    steps: &[Step],
    gold: Num,
    links: Links,
) -> Res<(Program, Option<ProgramError>)> {
    let mut builder = Builder::default();
    let mut answer = None;
    // A step that cannot be linked is skipped: if the answer does not need it, no harm done; if it
    // does, its error is the reason the problem is rejected.
    let mut first_error: Option<ProgramError> = None;
    // A failure after the step that computes the answer means the answer's value may have come
    // from an earlier step by coincidence ("4 x 3 = 12" when the answer, 12, is another count).
    let mut answer_step = None;
    let mut last_failure: Option<(usize, ProgramError)> = None;
    for (i, step) in steps.iter().enumerate() {
        resolver.step = i;
        resolver.operands = step.operands.clone();
        resolver.derived = step.derived.clone();
        let cleaned = clean_expression(&step.expr);
        // "<<8=8>>" restates a number; as a step it would make the answer a bare leaf.
        if !cleaned
            .trim_start_matches('-')
            .contains(['+', '-', '*', '/', '%', '('])
        {
            continue;
        }
        let lowered = parse_expression(&cleaned).and_then(|expr| {
            let stand_in = resolver.placeholder();
            let mut lowerer = Lowerer::new(&cleaned, std::mem::replace(resolver, stand_in));
            *lowerer.builder_mut() = std::mem::take(&mut builder);
            let id = lowerer.expr(&expr);
            let (lowered, back) = lowerer.into_parts();
            *resolver = back;
            builder = lowered.builder;
            let id = id?;
            Ok((id, eval_node(&builder, id, slots)?))
        });
        let (id, exact) = match lowered {
            Ok(v) => v,
            Err(e) => {
                let e = ProgramError::new(
                    e.kind,
                    format!("step {} `{}`: {}", i + 1, step.expr.trim(), e.detail),
                );
                if first_error.is_none() {
                    first_error = Some(e.clone());
                }
                last_failure = Some((i, e));
                if let Some(v) = stated_result(&step.result) {
                    resolver.unlinked_results.push(v);
                }
                continue;
            }
        };
        let result = stated_result(&step.result).unwrap_or(exact);
        if step.prose && !result.eq_2dp(exact) {
            // Read wrong ("3r + 5r + 10 = 42" is algebra, not arithmetic): its stated result is
            // a quantity the program does not have.
            resolver.unlinked_results.push(result);
            continue;
        }
        record_result(resolver, &mut builder, step, result, id);
        if result.eq_2dp(gold) || exact.eq_2dp(gold) {
            answer = Some(id);
            answer_step = Some(i);
        }
    }
    if let (Some(a), Some((f, e))) = (answer_step, &last_failure) {
        if *f > a {
            return Err(e.clone());
        }
    }
    // A final step only said, not written ("so he has 5 left"), is not guessed: one operation
    // of known values that gives the answer can be a coincidence ("25 - 5" for an age found by
    // algebra), and no variant may inherit it.
    let Some(answer) = answer else {
        return Err(first_error.unwrap_or_else(|| {
            ProgramError::new(
                ErrorKind::WrongAnswer,
                format!("no worked step computes the final answer {gold}"),
            )
        }));
    };
    computes_on_from_answer(resolver, &builder, answer, gold)?;
    let unread = unread_step(resolver, &builder, answer);
    let program = finish_checked(builder, answer, slots, question, links)?;
    check_answer(&program, slots, gold)?;
    Ok((program, unread))
}

/// Keep a linked step's result for the steps after it. A fraction the solution writes ("= 1/3")
/// is not kept: a later "1/3" is two literals, which the program cannot tell from the
/// question's, so its parts are results that could not be linked. A percentage ("= 60%") is its
/// fraction, and its number (60) is that fraction times 100.
fn record_result(
    resolver: &mut StepResolver,
    builder: &mut Builder,
    step: &Step,
    result: Num,
    id: NodeId,
) {
    let written = clean_number(&step.result);
    if let Some((num, den)) = written.split_once('/') {
        resolver
            .unlinked_results
            .extend([num, den].iter().filter_map(|t| Num::parse_decimal(t)));
        return;
    }
    resolver
        .results
        .push((result, id, step.result_label.clone()));
    if let Some(number) = written.strip_suffix('%').and_then(Num::parse_decimal) {
        let hundred = builder.push(Node::Const {
            value: Num::int(100),
            kind: ConstKind::Unit("percent".into()),
        });
        let scaled = builder.push(Node::Bin {
            op: BinOp::Mul,
            lhs: id,
            rhs: hundred,
        });
        resolver
            .results
            .push((number, scaled, step.result_label.clone()));
    }
}

/// A later step that computes on from the answer ("16 canes / 4 canes per cavity" when the
/// dataset's answer is the 16 canes) says the dataset's answer is not what the question asks.
fn computes_on_from_answer(
    resolver: &StepResolver,
    builder: &Builder,
    answer: NodeId,
    gold: Num,
) -> Res<()> {
    match resolver
        .results
        .iter()
        .position(|(_, id, _)| *id != answer && depends_on(builder, *id, answer))
    {
        Some(k) => Err(ProgramError::new(
            ErrorKind::WrongAnswer,
            format!(
                "the solution computes on from the final answer {gold} (its step {} of those linked), so the dataset's answer may not be what the question asks",
                k + 1
            ),
        )),
        None => Ok(()),
    }
}

/// A worked step the answer never reads ("4 ft * 25 ft = 100" when the answer adds the
/// question's 200 where the solution meant "2 * 100"): a sign that the answer took one of its
/// operands from a coincidence.
fn unread_step(resolver: &StepResolver, builder: &Builder, answer: NodeId) -> Option<ProgramError> {
    let (k, (value, _, _)) = resolver
        .results
        .iter()
        .enumerate()
        .find(|(_, (_, id, _))| {
            !depends_on(builder, answer, *id) && !is_scaled_percentage(builder, resolver, *id)
        })?;
    Some(ProgramError::new(
        ErrorKind::UnusedNumber,
        format!(
            "the answer never reads the result {} of a worked step (its step {} of those linked): an operand may have been taken from a coincidence",
            num_text::to_text(value),
            k + 1
        ),
    ))
}

/// Whether `id` is the "times 100" form [`record_result`] adds for a percentage, which is
/// unread when later steps use the fraction.
fn is_scaled_percentage(builder: &Builder, resolver: &StepResolver, id: NodeId) -> bool {
    let Node::Bin {
        op: BinOp::Mul,
        lhs,
        rhs,
    } = &builder.nodes[id as usize]
    else {
        return false;
    };
    let percent = matches!(
        &builder.nodes[*rhs as usize],
        Node::Const { kind: ConstKind::Unit(u), .. } if u == "percent"
    );
    percent && resolver.results.iter().any(|(_, other, _)| other == lhs)
}

/// Whether node `id` reads node `target`.
fn depends_on(builder: &Builder, id: NodeId, target: NodeId) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if n == target {
            return true;
        }
        match &builder.nodes[n as usize] {
            Node::Bin { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            Node::Neg { arg } => stack.push(*arg),
            Node::Call { args, .. } => stack.extend(args),
            Node::Leaf { .. } | Node::Const { .. } => {}
        }
    }
    false
}

/// Build a program from a MultiArith equation; `alignments` are the character offsets of the
/// equation's numbers in the question, in equation order.
pub fn from_multiarith(
    question: &str,
    slots: &[Slot],
    equation: &str,
    alignments: &[usize],
    gold: Num,
    links: Links,
) -> Res<Program> {
    let rhs = equation
        .split_once('=')
        .map(|(l, r)| if l.trim() == "X" { r } else { l })
        .unwrap_or(equation);
    let cleaned = clean_expression(rhs);
    let expr = parse_expression(&cleaned)?;
    let mut resolver = StepResolver::new(question, slots, links);
    // The dataset's own alignments are annotations, not guesses: they link a literal to its place
    // even where the question states the value twice. They count characters where slots count
    // bytes, which differ after any character outside ASCII ("her friend’s wedding").
    let char_starts: Vec<usize> = slots
        .iter()
        .map(|s| cut::before(question, s.start).chars().count())
        .collect();
    for (k, &offset) in alignments.iter().enumerate() {
        // Offsets point at the number, sometimes one character early (a leading space).
        if let Some(slot) = char_starts
            .iter()
            .position(|&start| start == offset || start.checked_sub(1) == Some(offset))
        {
            resolver.forced.insert(k, slot as u32);
        }
    }
    let mut lowerer = Lowerer::new(&cleaned, resolver);
    let id = lowerer.expr(&expr)?;
    let (lowered, _) = lowerer.into_parts();
    let program = finish_checked(lowered.builder, id, slots, question, links)?;
    check_answer(&program, slots, gold)?;
    Ok(program)
}

fn clean_number(s: &str) -> String {
    s.trim().replace([',', '$', ' '], "")
}

/// The value a step says it gives: a number, a fraction ("1/3") or a percentage ("90%").
fn stated_result(s: &str) -> Option<Num> {
    let s = clean_number(s);
    if let Some(p) = s.strip_suffix('%') {
        return Num::parse_decimal(p)?.div(Num::int(100)).ok();
    }
    match s.split_once('/') {
        Some((a, b)) => Num::parse_decimal(a)?.div(Num::parse_decimal(b)?).ok(),
        None => Num::parse_decimal(&s),
    }
}

fn eval_node(builder: &Builder, id: NodeId, slots: &[Slot]) -> Res<Num> {
    let p = Program {
        nodes: builder.nodes.clone(),
        answer: id,
        ties: Vec::new(),
    };
    let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    p.eval(&values).map_err(|e| {
        ProgramError::new(
            ErrorKind::EvalError,
            format!("on the original numbers: {e}"),
        )
    })
}

fn check_answer(program: &Program, slots: &[Slot], gold: Num) -> Res<()> {
    let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let got = program
        .eval(&values)
        .map_err(|e| ProgramError::new(ErrorKind::EvalError, e.to_string()))?;
    if got.eq_2dp(gold) {
        Ok(())
    } else {
        Err(ProgramError::new(
            ErrorKind::WrongAnswer,
            format!("the synthesised program computes {got}, expected {gold}"),
        ))
    }
}

mod coefficients;
mod labels;
mod operands;
mod steps;

#[cfg(test)]
mod tests;
