//! Synthesise solution programs from worked solutions: GSM8K calculator annotations
//! (`<<40*3=120>>`) and MultiArith equations (`X=((32.0+42.0)-35.0)`).
//!
//! Each annotation becomes one step. In a step's expression, a number equal to an earlier step's
//! result is a reference to that step; a question number the question states once is its leaf
//! (a number word only with [`Links::number_words`]); a percentage written as a fraction is an
//! expression of its leaf with [`Links::percentages`]; any other number must be a number the
//! question states, a percentage of it, or a unit constant, kept constant, or the problem is
//! rejected as `unresolved_constant`.

use std::collections::HashMap;

use crate::num::Num;
use crate::program::align::{
    finish_checked, justify_constant, percent_role, percent_slots, push_role, AlignMode, Role,
};
use crate::program::links::{linkable_slots, Links};
use crate::program::lower::{parse_expression, LiteralResolver, Lowerer};
use crate::program::tree::{num_text, BinOp, Builder, ConstKind, Node, NodeId, Program};
use crate::program::{ErrorKind, ProgramError};
use crate::question::{expression_counts, word_numbers, Slot};

type Res<T> = std::result::Result<T, ProgramError>;

/// One worked step: the expression and the result the solution wrote for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub expr: String,
    pub result: String,
}

/// The worked steps of a GSM8K solution, in order: the `<<expr=result>>` annotations, and the
/// unannotated equations written in the text ("11 - 2 = 9"), which the annotations miss.
pub fn gsm8k_steps(solution: &str) -> Vec<Step> {
    let body = solution
        .rsplit_once("####")
        .map(|(b, _)| b)
        .unwrap_or(solution);
    // Annotations become a marker so that "40*3 = <<40*3=120>>120" is not read twice.
    const MARK: char = '\u{1}';
    let mut text = String::with_capacity(body.len());
    let mut positioned: Vec<(usize, Step)> = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find("<<") {
        text.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find(">>") else {
            rest = after;
            break;
        };
        let inner = &after[..close];
        if let Some(eq) = inner.rfind('=') {
            positioned.push((
                text.len(),
                Step {
                    expr: inner[..eq].to_string(),
                    result: inner[eq + 1..].to_string(),
                },
            ));
        }
        text.push(MARK);
        rest = &after[close + 2..];
    }
    text.push_str(rest);
    positioned.extend(text_equations(&text, MARK));
    positioned.sort_by_key(|(pos, _)| *pos);
    positioned.into_iter().map(|(_, s)| s).collect()
}

/// `a op b = c` equations in prose, with their byte positions.
fn text_equations(text: &str, mark: char) -> Vec<(usize, Step)> {
    let expr_char = |c: char| c.is_ascii_digit() || " .,$+-*/x×÷()%".contains(c);
    let mut out = Vec::new();
    for (eq, _) in text.match_indices('=') {
        let left_start = text[..eq]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| expr_char(c))
            .last()
            .map(|(i, _)| i)
            .unwrap_or(eq);
        let left = text[left_start..eq]
            .trim()
            .trim_start_matches(['x', ',', '.', ' ']);
        let right = text[eq + 1..].trim_start().trim_start_matches('$');
        if right.starts_with(mark) {
            continue;
        }
        let result: String = right
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .collect();
        let result = result.trim_end_matches(['.', ',']).to_string();
        let numbers = left
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
            .count();
        let has_op = left.contains(['+', '*', '/', '×', '÷', 'x', '('])
            || left.trim_start_matches('-').contains('-');
        if result.is_empty() || numbers < 2 || !has_op {
            continue;
        }
        out.push((
            left_start,
            Step {
                expr: left.to_string(),
                result,
            },
        ));
    }
    out
}

/// The final answer of a GSM8K solution (after `####`).
pub fn gsm8k_final_answer(solution: &str) -> Option<String> {
    solution
        .rsplit_once("####")
        .map(|(_, a)| a.trim().replace([',', '$'], ""))
}

/// Make a calculator expression parseable Python: `$`, thousands commas, `x`/`×`/`÷`, `20%`,
/// leading zeros.
pub fn clean_expression(expr: &str) -> String {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = String::with_capacity(expr.len() + 4);
    let digit_at = |i: usize| chars.get(i).is_some_and(|c| c.is_ascii_digit());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '$' | ' ' => {}
            ',' if i > 0 && digit_at(i - 1) && digit_at(i + 1) => {}
            'x' | 'X' | '×' | '*' => out.push('*'),
            '÷' | ':' => out.push('/'),
            '%' => out.push_str("/100"),
            '−' | '–' => out.push('-'),
            '0' if !out.ends_with(|p: char| p.is_ascii_digit() || p == '.') && digit_at(i + 1) => {}
            '(' if out.ends_with(|p: char| p.is_ascii_digit() || p == ')') => out.push_str("*("),
            d if d.is_ascii_digit() && out.ends_with(')') => {
                out.push('*');
                out.push(d);
            }
            _ => out.push(c),
        }
    }
    // Prose often starts or ends an equation mid-operator ("* 4/5", "+80)*2").
    let trimmed = out
        .trim_start_matches(['*', '/', '+', ')'])
        .trim_end_matches(['*', '/', '+', '-', '(']);
    let mut depth = 0i32;
    let balanced = trimmed.chars().all(|c| {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        depth >= 0
    }) && depth == 0;
    if balanced {
        trimmed.to_string()
    } else {
        trimmed.replace(['(', ')'], "")
    }
}

/// Links the literals of successive steps.
struct StepResolver<'a> {
    question: &'a str,
    slots: &'a [Slot],
    links: Links,
    /// Slots that may be leaves (see [`linkable_slots`]).
    linkable: Vec<bool>,
    /// Values the question states, in any form (see [`expression_counts`]).
    stated: std::collections::HashSet<String>,
    is_percent: Vec<bool>,
    /// Earlier results: annotated value and node, latest last.
    results: Vec<(Num, NodeId)>,
    slot_uses: HashMap<String, usize>,
    slot_positions: HashMap<String, Vec<u32>>,
    /// Literal ordinal -> slot forced by an alignment (MultiArith `lAlignments`).
    forced: HashMap<usize, u32>,
    base_ordinal: usize,
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
            linkable,
            stated: expression_counts(question, slots).into_keys().collect(),
            is_percent: percent_slots(question, slots),
            results: Vec::new(),
            slot_uses: HashMap::new(),
            slot_positions,
            forced: HashMap::new(),
            base_ordinal: 0,
        }
    }

    /// An empty resolver over the same question, to stand in while a lowerer owns this one (it
    /// resolves nothing and computes nothing).
    fn placeholder(&self) -> Self {
        StepResolver {
            question: self.question,
            slots: self.slots,
            links: self.links,
            linkable: Vec::new(),
            stated: Default::default(),
            is_percent: Vec::new(),
            results: Vec::new(),
            slot_uses: HashMap::new(),
            slot_positions: HashMap::new(),
            forced: HashMap::new(),
            base_ordinal: 0,
        }
    }
}

/// An operand a hidden step may use.
#[derive(Clone, PartialEq)]
enum Operand {
    Slot(u32),
    Result(NodeId),
    Word(String),
}

impl StepResolver<'_> {
    /// A number the solution computed in its head ("so 48 - 40 = 8 more", unwritten): if exactly
    /// one binary operation of two known values (question numbers, earlier results) gives it,
    /// that operation is the missing step. Ambiguity rejects, so no guess is ever silent.
    fn recover_hidden_step(&self, value: Num, b: &mut Builder) -> Option<NodeId> {
        let mut operands: Vec<(Num, Operand)> = Vec::new();
        for (i, s) in self.slots.iter().enumerate() {
            if self.linkable[i] && !s.word {
                operands.push((s.value, Operand::Slot(i as u32)));
            }
        }
        for &(v, id) in &self.results {
            if !operands.iter().any(|(o, _)| o.eq_num(v)) {
                operands.push((v, Operand::Result(id)));
            }
        }
        for (word, v) in word_numbers(self.question) {
            if !operands.iter().any(|(o, _)| o.eq_num(v)) {
                operands.push((v, Operand::Word(word)));
            }
        }
        if operands.len() > 48 {
            return None;
        }
        let mut found: Option<(BinOp, Operand, Operand)> = None;
        for (i, (x, ox)) in operands.iter().enumerate() {
            for (j, (y, oy)) in operands.iter().enumerate() {
                let (x, y) = (*x, *y);
                for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
                    if matches!(op, BinOp::Add | BinOp::Mul) && j < i {
                        continue;
                    }
                    if op.apply(x, y).is_ok_and(|r| r.eq_num(value)) {
                        if found.is_some() {
                            return None;
                        }
                        found = Some((op, ox.clone(), oy.clone()));
                    }
                }
            }
        }
        let (op, x, y) = found?;
        let value_of = |o: &Operand| {
            operands
                .iter()
                .find(|(_, p)| p == o)
                .map(|(v, _)| *v)
                .unwrap_or(Num::ZERO)
        };
        let (vx, vy) = (value_of(&x), value_of(&y));
        let mut node = |o: Operand, v: Num| match o {
            Operand::Slot(s) => b.push(Node::Leaf { slot: s }),
            Operand::Result(id) => id,
            Operand::Word(w) => b.push(Node::Const {
                value: v,
                kind: ConstKind::Word(w),
            }),
        };
        let lhs = node(x, vx);
        let rhs = node(y, vy);
        Some(b.push(Node::Bin { op, lhs, rhs }))
    }
}

impl LiteralResolver for StepResolver<'_> {
    fn literal(&mut self, ordinal: usize, value: Num, b: &mut Builder) -> Res<NodeId> {
        if let Some(&slot) = self.forced.get(&(self.base_ordinal + ordinal)) {
            return Ok(push_role(&Role::Leaf(slot), value, b));
        }
        let key = num_text::to_text(&value);
        if let Some(&(_, id)) = self.results.iter().rev().find(|(v, _)| v.eq_num(value)) {
            // "12 x 5" after "2.40 x 5 = 12" in a question about dozens: the 12 may be the
            // earlier result or the dozen, and only one of them is right.
            // Both readings are one constant when the result depends on no question number
            // and the stated number is no leaf: no ambiguity then.
            let as_stated_varies = self.slot_positions.contains_key(&key);
            if self.stated.contains(&key) && (as_stated_varies || depends_on_a_leaf(b, id)) {
                return Err(ProgramError::new(
                    ErrorKind::NumberMisalignment,
                    format!(
                        "{key} is both an earlier step's result and a number the question states"
                    ),
                ));
            }
            return Ok(id);
        }
        if let Some(positions) = self.slot_positions.get(&key) {
            let digits: Vec<u32> = positions
                .iter()
                .copied()
                .filter(|&p| !self.slots[p as usize].word)
                .collect();
            let n = self.slot_uses.entry(key.clone()).or_default();
            let slot = match (digits.len(), positions.len()) {
                (0, 1) => Some(positions[0]),
                (0, _) => None,
                (1, _) => Some(digits[0]),
                (q, _) if *n < q => Some(digits[*n]),
                (q, _) => {
                    return Err(ProgramError::new(
                        ErrorKind::NumberMisalignment,
                        format!(
                        "{key} appears {q} times in the question and more often in the solution"
                    ),
                    ))
                }
            };
            if let Some(slot) = slot {
                *n += 1;
                return Ok(push_role(&Role::Leaf(slot), value, b));
            }
        }
        if self.links.percentages {
            if let Some(role) = percent_role(value, self.slots, &self.is_percent) {
                return Ok(push_role(&role, value, b));
            }
        }
        if let Some(kind) = justify_constant(value, self.question, self.slots) {
            return Ok(push_role(&Role::Const(kind), value, b));
        }
        if let Some(id) = self.recover_hidden_step(value, b) {
            return Ok(id);
        }
        Err(ProgramError::new(
            ErrorKind::UnresolvedConstant,
            format!("{key} is not a question number, an earlier result, a number word in the question, a unit constant, or one operation on known values"),
        ))
    }
}

/// Whether node `id` reads a question number.
fn depends_on_a_leaf(b: &Builder, id: NodeId) -> bool {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        match &b.nodes[n as usize] {
            Node::Leaf { .. } => return true,
            Node::Const { .. } => {}
            Node::Bin { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            Node::Neg { arg } => stack.push(*arg),
            Node::Call { args, .. } => stack.extend(args.iter().copied()),
        }
    }
    false
}

/// Build a program from GSM8K calculator annotations.
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
    let mut resolver = StepResolver::new(question, slots, links);
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
            let mut lowerer = Lowerer::new(&cleaned, std::mem::replace(&mut resolver, stand_in));
            *lowerer.builder_mut() = std::mem::take(&mut builder);
            let id = lowerer.expr(&expr);
            let (lowered, back) = lowerer.into_parts();
            resolver = back;
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
                continue;
            }
        };
        let result = Num::parse_decimal(&clean_number(&step.result)).unwrap_or(exact);
        resolver.results.push((result, id));
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
    // The last step is often said, not written ("so he has 5 left"); but after a step that could
    // not be linked, the operation found could stand a stated number in for that step's result.
    let answer = answer.or_else(|| {
        last_failure
            .is_none()
            .then(|| resolver.recover_hidden_step(gold, &mut builder))
            .flatten()
    });
    let Some(answer) = answer else {
        return Err(first_error.unwrap_or_else(|| {
            ProgramError::new(
                ErrorKind::WrongAnswer,
                format!("no worked step computes the final answer {gold}"),
            )
        }));
    };
    let program = finish_checked(builder, answer, slots, question, links)?;
    check_answer(&program, slots, gold)?;
    Ok(program)
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
    // even where the question states the value twice.
    for (k, &offset) in alignments.iter().enumerate() {
        // Offsets point at the number, sometimes one character early (a leading space).
        if let Some(slot) = slots
            .iter()
            .position(|s| s.start == offset || s.start == offset + 1)
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

fn eval_node(builder: &Builder, id: NodeId, slots: &[Slot]) -> Res<Num> {
    let p = Program {
        nodes: builder.nodes.clone(),
        answer: id,
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

#[cfg(test)]
mod tests;
