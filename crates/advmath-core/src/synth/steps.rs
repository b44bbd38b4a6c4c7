//! The worked steps of a solution: a GSM8K solution's calculator annotations (`<<40*3=120>>`)
//! and the equations its prose writes without one, each with the labels of its numbers, and
//! the cleaning that makes a calculator expression parseable.

use super::coefficients::{derived_coefficients, Derived};
use super::labels::{self, Label};
use crate::cut;
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
    /// Written in prose, not by the calculator: the step counts only if its expression, as
    /// read, computes the result it states.
    pub(super) prose: bool,
    /// The coefficients the solution's algebra derived before the step ("2*x + x" is 3*x).
    pub(super) derived: Vec<Derived>,
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
    while let Some((prose, after)) = rest.split_once("<<") {
        text.push_str(prose);
        let Some((inner, tail)) = after.split_once(">>") else {
            rest = after;
            break;
        };
        if let Some((expr, result)) = inner.rsplit_once('=') {
            positioned.push((
                text.len(),
                Step {
                    expr: expr.to_string(),
                    result: result.to_string(),
                    operands: Vec::new(),
                    result_label: None,
                    prose: false,
                    derived: Vec::new(),
                },
            ));
        }
        text.push(MARK);
        rest = tail;
    }
    text.push_str(rest);
    for (pos, step) in positioned.iter_mut() {
        let head = cut::before(&text, *pos);
        let sentence = head.rsplit_once(['\n', MARK]).map_or(head, |(_, s)| s);
        step.operands =
            labels::labelled_numbers(cut::after(sentence, labels::equation_start(sentence)));
        let shown = cut::after(&text, *pos + MARK.len_utf8()).trim_start_matches([' ', '$']);
        let digits = shown
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(shown.len());
        step.result_label = (digits > 0)
            .then(|| labels::label_after(cut::after(shown, digits), head.ends_with('$')))
            .flatten();
    }
    positioned.extend(text_equations(&text, MARK));
    positioned.sort_by_key(|(pos, _)| *pos);
    let derived = derived_coefficients(&text);
    for (pos, step) in positioned.iter_mut() {
        step.derived = derived.iter().filter(|d| d.at <= *pos).cloned().collect();
    }
    positioned.into_iter().map(|(_, s)| s).collect()
}

/// `a op b = c` equations in prose, with their byte positions; the numbers may carry their
/// units ("90 minutes / 450 minutes * 100% = 20%", "$38 − $17 = $21").
fn text_equations(text: &str, mark: char) -> Vec<(usize, Step)> {
    let mut out = Vec::new();
    for (eq, _) in text.match_indices('=') {
        let start = labels::equation_start(cut::before(text, eq));
        // A chain "(36/3) x 2 = 12 x 2 = 24" states one result for all of its expressions: the
        // first is the one whose numbers the solution read ("12" is unwritten arithmetic).
        let Some((start, end)) = chain_expression(text, start, eq) else {
            continue;
        };
        let written = cut::between(text, start, end).trim();
        let right = cut::after(text, eq + 1)
            .trim_start()
            .trim_start_matches('$');
        if right.starts_with(mark) {
            continue;
        }
        let Some((result, tail)) = stated(right) else {
            continue;
        };
        if continues(tail) {
            continue;
        }
        let mut left = without_units(written);
        // "x/y * 100% = 20%" multiplies by 100% to say it as a percentage: `x/y * 100`, and the
        // result 20.
        let result = match (result.strip_suffix('%'), left.strip_suffix("100%")) {
            (Some(number), Some(scaled)) if scaled.trim_end().ends_with(['*', 'x', '×']) => {
                left = format!("{scaled}100");
                number.to_string()
            }
            _ => result,
        };
        let left = left.trim_start_matches([',', '.', ' ']);
        let numbers = left
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
            .count();
        let has_op = left.contains(['+', '*', '/', '×', '÷', 'x', '(', '−', '–'])
            || left.trim_start_matches('-').contains('-');
        if numbers < 2 || !has_op {
            continue;
        }
        out.push((
            text.len() - cut::after(text, start).trim_start().len(),
            Step {
                expr: left.to_string(),
                result,
                operands: labels::labelled_numbers(written),
                result_label: labels::label_after(tail, false),
                prose: true,
                derived: Vec::new(),
            },
        ));
    }
    out
}

/// The first expression of the chain of equations in `text[start..eq]` that holds a number, as
/// a byte range; none when any part of the chain is algebra ("A + A - 2 + A + 4 = 3A + 2 = 35").
fn chain_expression(text: &str, start: usize, eq: usize) -> Option<(usize, usize)> {
    let chain = cut::between(text, start, eq);
    if chain.split('=').any(algebra) {
        return None;
    }
    let mut at = start;
    for segment in chain.split('=') {
        if segment.contains(|c: char| c.is_ascii_digit()) {
            return Some((at, at + segment.len()));
        }
        at += segment.len() + 1;
    }
    None
}

/// The result an equation's right-hand side states, as written ("21", "1/3", "90%"), and what
/// follows it.
fn stated(right: &str) -> Option<(String, &str)> {
    let number_len = |t: &str| {
        let n = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(t.len());
        cut::before(t, n).trim_end_matches(['.', ',']).len()
    };
    let n = number_len(right);
    if n == 0 {
        return None;
    }
    let after = cut::after(right, n);
    if let Some(den) = after.strip_prefix('/') {
        let d = number_len(den);
        if d > 0 {
            return Some((
                cut::before(right, n + 1 + d).to_string(),
                cut::after(den, d),
            ));
        }
    }
    let p = usize::from(after.starts_with('%'));
    Some((cut::before(right, n + p).to_string(), cut::after(after, p)))
}

/// Whether what follows an equation's right-hand number goes on computing ("= 5+6 = 11",
/// "= 240 students – 224 students"), so that the number is not the equation's result.
fn continues(after: &str) -> bool {
    let mut rest = after.trim_start_matches(' ');
    for _ in 0..2 {
        let word = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let (first, tail) = cut::split(rest, word);
        if word == 0 || first.eq_ignore_ascii_case("x") {
            break;
        }
        rest = tail.trim_start_matches(' ');
    }
    rest.starts_with(['+', '-', '*', '/', 'x', '×', '÷', '−', '–', '=', '('])
}

/// Whether an equation is algebra: a letter glued to a number ("3A + 2", "2x", "5r") or a
/// variable standing alone ("A + A - 2").
fn algebra(written: &str) -> bool {
    let b = written.as_bytes();
    let glued = (1..b.len()).any(|i| {
        b[i].is_ascii_alphabetic()
            && b[i - 1].is_ascii_digit()
            && !b.get(i + 1).is_some_and(u8::is_ascii_alphabetic)
    });
    glued
        || written
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w.len() == 1 && !w.eq_ignore_ascii_case("x"))
}

/// A prose equation's expression without the units of its numbers ("90 minutes / 450
/// minutes"); a multiplication `x` stays.
fn without_units(written: &str) -> String {
    let mut out = String::with_capacity(written.len());
    let mut rest = written;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_alphabetic() {
            let end = rest
                .find(|ch: char| !ch.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            let (word, tail) = cut::split(rest, end);
            if word.eq_ignore_ascii_case("x") {
                out.push('x');
            }
            rest = tail;
        } else {
            out.push(c);
            rest = cut::after(rest, c.len_utf8());
        }
    }
    // "6 and 8 make $12 + $24": the expression starts after the last two numbers no operator
    // joins.
    let b = out.as_bytes();
    let number_at = |i: usize| {
        b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    };
    let (mut start, mut i) = (0, 0);
    // The end of the last number, while nothing but spaces and `$` follow it.
    let mut after_number: Option<usize> = None;
    while i < b.len() {
        if number_at(i) {
            if let Some(end) = after_number {
                start = end;
            }
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || (matches!(b[i], b'.' | b',')
                        && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            after_number = Some(i);
            continue;
        }
        if b[i] == b'%' && after_number == Some(i) {
            // "80%" is one number.
            after_number = Some(i + 1);
        } else if !matches!(b[i], b' ' | b'$') {
            after_number = None;
        }
        i += 1;
    }
    cut::after(&out, start)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
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
