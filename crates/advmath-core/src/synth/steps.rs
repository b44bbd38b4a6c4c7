//! The worked steps of a solution: a GSM8K solution's calculator annotations (`<<40*3=120>>`)
//! and the equations its prose writes without one, each with the labels of its numbers, and
//! the cleaning that makes a calculator expression parseable.

use super::labels::{self, Label};
use crate::num::Num;

/// One worked step: the expression and the result the solution wrote for it, with what the
/// prose around it says the numbers count (`labels.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub expr: String,
    pub result: String,
    /// The numbers the step's sentence writes before its annotation, with their labels.
    pub(super) operands: Vec<(Num, Option<Label>)>,
    /// The label the solution writes after the step's result ("<<80/2=40>>40 minutes").
    pub(super) result_label: Option<Label>,
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
                    operands: Vec::new(),
                    result_label: None,
                },
            ));
        }
        text.push(MARK);
        rest = &after[close + 2..];
    }
    text.push_str(rest);
    for (pos, step) in positioned.iter_mut() {
        let sentence_start = text[..*pos].rfind(['\n', MARK]).map_or(0, |i| i + 1);
        let sentence = &text[sentence_start..*pos];
        step.operands = labels::labelled_numbers(&sentence[labels::equation_start(sentence)..]);
        let shown = text[*pos + MARK.len_utf8()..].trim_start_matches([' ', '$']);
        let digits = shown
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(shown.len());
        step.result_label = (digits > 0)
            .then(|| labels::label_after(&shown[digits..], text[..*pos].ends_with('$')))
            .flatten();
    }
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
                operands: Vec::new(),
                result_label: None,
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
