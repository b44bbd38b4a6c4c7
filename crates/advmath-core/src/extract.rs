//! Answer extraction: the number a free-text LLM response commits to, and whether it is right.
//!
//! Raw generations usually carry their chat template and the echoed prompt, whose numbers (the
//! question's, a "Today Date: 26 Jul 2024" system line) must never be taken for an answer, so the
//! assistant's turn is cut out first and every special token and `<think>` block is dropped.
//! The answer is then looked for by decreasing explicitness of the model's own commitment
//! ([`Rule`] order); the last number of the text is only a fallback, and a response without any
//! number is a [`Rule::Miss`] rather than a zero, so that a silent model is never right by luck.
//! Values are exact [`Num`]s: `1/3` stays a third, `0.1` a tenth and `2.5e2` two hundred and fifty.

use crate::cut;
use crate::num::Num;

mod abstain;
mod number;
#[cfg(test)]
mod tests;
mod turn;
mod xie2024;

use number::{next_number, number_at, numbers, numbers_in};

pub use abstain::{abstains, Abstention};
pub use turn::assistant_text;

pub use xie2024::extract_xie2024;

/// How the answer was found, most explicit first: [`extract`] tries them in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The last "the answer is X" ("answer is: X", "the correct answer is $X").
    AnswerIs,
    /// The last "the final answer is X".
    FinalAnswerIs,
    /// The last `\boxed{X}`.
    Boxed,
    /// The last `#### X` (the GSM8K reference format).
    Hashes,
    /// The last "Answer: X" (or the conclusion of the sentence after "Answer:").
    AnswerColon,
    /// The last number of the response.
    LastNumber,
    /// Xie et al.'s scorer: the last match of `\d+\.?,?\d*` ([`extract_xie2024`]; never tried
    /// by [`extract`]).
    Xie2024Pattern,
    /// No number at all.
    Miss,
}

impl Rule {
    pub const ALL: [Rule; 7] = [
        Rule::AnswerIs,
        Rule::FinalAnswerIs,
        Rule::Boxed,
        Rule::Hashes,
        Rule::AnswerColon,
        Rule::LastNumber,
        Rule::Miss,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::AnswerIs => "answer_is",
            Rule::FinalAnswerIs => "final_answer_is",
            Rule::Boxed => "boxed",
            Rule::Hashes => "hashes",
            Rule::AnswerColon => "answer_colon",
            Rule::LastNumber => "last_number",
            Rule::Xie2024Pattern => "xie2024_pattern",
            Rule::Miss => "miss",
        }
    }
}

/// The answer of one response.
#[derive(Clone, Debug, PartialEq)]
pub struct Extracted {
    /// `None` exactly when `rule` is [`Rule::Miss`].
    pub value: Option<Num>,
    pub rule: Rule,
    /// The number as written (`$1,234.50`, `\frac{3}{4}`, `25%`).
    pub text: Option<String>,
}

impl Extracted {
    fn miss() -> Extracted {
        Extracted {
            value: None,
            rule: Rule::Miss,
            text: None,
        }
    }
}

/// The answer a response gives (see the module documentation for the order of the rules).
pub fn extract(response: &str) -> Extracted {
    extract_from_text(&assistant_text(response))
}

/// The ArithmAttack study's own scoring: the last number of the reply, whatever the reply states
/// as its answer. Offered to reproduce that paper's figures; [`extract`] reads stated answers.
pub fn extract_last_number(response: &str) -> Extracted {
    let text = assistant_text(response);
    match numbers(&text).pop() {
        Some(t) => Extracted {
            value: Some(t.value),
            rule: Rule::LastNumber,
            text: Some(t.written_in(&text).to_string()),
        },
        None => Extracted::miss(),
    }
}

/// Xie et al.'s matching rule (their `eval.py`): equal after rounding both to 2 decimals. A miss
/// is never correct.
pub fn is_correct(predicted: Option<Num>, gold: Num) -> bool {
    predicted.is_some_and(|p| p.eq_2dp(gold))
}

/// Two extractions agree: both miss, or both find the same value after rounding to 2 decimals.
pub fn agree(a: Option<Num>, b: Option<Num>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.eq_2dp(b),
        _ => false,
    }
}

/// Exact equality. A miss is never correct.
pub fn is_correct_exact(predicted: Option<Num>, gold: Num) -> bool {
    predicted.is_some_and(|p| p.eq_num(gold))
}

// ---------------------------------------------------------------------------------------------
// Numbers in text

/// A number found in a text: its value and byte span.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Token {
    value: Num,
    start: usize,
    end: usize,
}

impl Token {
    /// The number as `text`, the text it was found in, writes it.
    fn written_in(self, text: &str) -> &str {
        cut::between(text, self.start, self.end)
    }
}

/// `1. Compute ...`, `2) ...` at the start of a line, or `Step 3`: an enumeration, not a
/// quantity. An answer alone on its line (`540.`) is not one, since nothing follows it.
fn is_list_marker(text: &str, t: Token) -> bool {
    let head = cut::before(text, t.start).trim_end_matches(' ');
    if let Some((rest, word)) = head
        .len()
        .checked_sub(4)
        .and_then(|k| head.split_at_checked(k))
    {
        let before = rest.chars().next_back();
        if word.eq_ignore_ascii_case("step") && !before.is_some_and(char::is_alphabetic) {
            return true;
        }
    }
    let line_start = head.rfind('\n').map_or(0, |k| k + 1);
    let lead = cut::between(text, line_start, t.start);
    if !lead
        .chars()
        .all(|c| c.is_whitespace() || matches!(c, '*' | '#' | '>' | '_'))
    {
        return false;
    }
    let Some(after) = cut::after(text, t.end).strip_prefix(['.', ')']) else {
        return false;
    };
    let line = after.split('\n').next().unwrap_or("");
    after.starts_with([' ', '\t']) && !line.trim().is_empty()
}

/// How far a phrase may be from its number.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gap {
    /// Only markup and hedges: `is: $\boxed{`, `is:**\n\n`, `is approximately`.
    Markup,
    /// The sentence after the phrase, whose last number is its conclusion ("Answer: the total
    /// cost of the 8 pens is $12.00").
    Sentence,
}

/// The number a phrase ending at byte `i` states, if any. When the number opens a calculation
/// (`18 (left) + 28 (bought) = 46 apples`), the result is the answer.
fn number_after(text: &str, i: usize, gap: Gap) -> Option<Token> {
    let first = next_number(text, i, text.len())?;
    let between = cut::between(text, i, first.start);
    if is_markup(between) {
        return Some(resolve_equation(text, first, text.len()));
    }
    match gap {
        Gap::Markup => None,
        Gap::Sentence => numbers_in(text, i, sentence_end(text, i)).pop(),
    }
}

/// Where the sentence starting at `i` ends: a full stop, or a line break after words (a line of
/// markup, like `**Answer:**` alone, does not end it).
fn sentence_end(text: &str, i: usize) -> usize {
    let b = text.as_bytes();
    let mut line_start = i;
    for k in i..b.len() {
        match b[k] {
            b'.' | b'!' | b'?' if b.get(k + 1).is_none_or(u8::is_ascii_whitespace) => return k,
            b'\n' => {
                if !is_markup(cut::between(text, line_start, k)) {
                    return k;
                }
                line_start = k + 1;
            }
            _ => {}
        }
    }
    b.len()
}

/// Only markup (`: $\boxed{`, `**`, line breaks) and hedges ("approximately"). A sentence in
/// between ("the final answer is: Paige now has 10 songs") is not taken: such replies tend to
/// go on to restate other numbers of the problem, and the model never wrote the pattern.
fn is_markup(gap: &str) -> bool {
    gap.split(|c: char| !c.is_ascii_alphabetic())
        .all(|w| w.is_empty() || is_latex_word(w) || is_hedge(w))
}

fn is_latex_word(w: &str) -> bool {
    matches!(
        w,
        "boxed"
            | "text"
            | "textbf"
            | "mathbf"
            | "mathrm"
            | "displaystyle"
            | "quad"
            | "approx"
            | "left"
            | "right"
            | "fbox"
    )
}

fn is_hedge(w: &str) -> bool {
    matches!(
        w.to_ascii_lowercase().as_str(),
        "approximately" | "about" | "around" | "roughly" | "exactly" | "equal" | "to" | "then"
    )
}

/// If `first` opens a calculation on its line, `a + b = c`, the number after the last `=`.
/// Parenthesised asides (`40 (with x = 8)`) do not count, and the text up to the `=` must hold
/// an operator, so that "40 when n = 8" stays 40.
fn resolve_equation(text: &str, first: Token, bound: usize) -> Token {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut last_eq = None;
    let mut has_op = false;
    let mut k = first.end;
    while k < bound {
        let rest = cut::between(text, k, bound);
        let c = b[k];
        if c == b'\n' || (c == b'}' && depth == 0) {
            break;
        }
        if matches!(c, b'.' | b'!' | b'?') && b.get(k + 1).is_none_or(u8::is_ascii_whitespace) {
            break;
        }
        if rest.starts_with("\\(") || rest.starts_with("\\)") {
            k += 2;
            continue;
        }
        match c {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth > 0 => {}
            b'=' => last_eq = Some(k + 1),
            b'+' | b'-' | b'*' | b'/' => has_op = true,
            _ => {
                if ["\u{d7}", "\u{f7}", "\\times", "\\cdot", "\\div", " x "]
                    .iter()
                    .any(|op| rest.starts_with(op))
                {
                    has_op = true;
                } else if let Some(op) = ["\u{2248}", "\\approx"]
                    .iter()
                    .find(|op| rest.starts_with(*op))
                {
                    last_eq = Some(k + op.len());
                }
            }
        }
        k += rest.chars().next().map_or(1, char::len_utf8);
    }
    let Some(eq) = last_eq.filter(|_| has_op) else {
        return first;
    };
    match next_number(text, eq, k) {
        Some(t) if is_markup(cut::between(text, eq, t.start)) => t,
        _ => first,
    }
}

// ---------------------------------------------------------------------------------------------
// The rules

fn extract_from_text(text: &str) -> Extracted {
    match find_commitment(text) {
        Some((rule, t)) => Extracted {
            value: Some(t.value),
            rule,
            text: Some(t.written_in(text).to_string()),
        },
        None => Extracted::miss(),
    }
}

/// The number the text commits to, by the first rule that finds one, and where it is.
fn find_commitment(text: &str) -> Option<(Rule, Token)> {
    let lower = text.to_ascii_lowercase();
    phrase_rule(text, &lower, Rule::AnswerIs)
        .map(|t| (Rule::AnswerIs, t))
        .or_else(|| {
            phrase_rule(text, &lower, Rule::FinalAnswerIs).map(|t| (Rule::FinalAnswerIs, t))
        })
        .or_else(|| boxed(text).map(|t| (Rule::Boxed, t)))
        .or_else(|| hashes(text).map(|t| (Rule::Hashes, t)))
        .or_else(|| answer_colon(text, &lower).map(|t| (Rule::AnswerColon, t)))
        .or_else(|| numbers(text).pop().map(|t| (Rule::LastNumber, t)))
}

/// The word right before byte `i` (lower case).
fn word_before(lower: &str, i: usize) -> &str {
    let head = cut::before(lower, i).trim_end_matches([' ', '*', '_']);
    let word = head
        .bytes()
        .rev()
        .take_while(u8::is_ascii_alphabetic)
        .count();
    cut::after(head, head.len() - word)
}

/// "answer is X" (not after "final") or "final answer is X": the last one that states a number.
fn phrase_rule(text: &str, lower: &str, rule: Rule) -> Option<Token> {
    lower.rmatch_indices("answer is").find_map(|(i, p)| {
        let is_final = word_before(lower, i) == "final";
        if is_final != (rule == Rule::FinalAnswerIs) {
            return None;
        }
        number_after(text, i + p.len(), Gap::Markup)
    })
}

/// The last `\boxed{...}` holding a number; `\boxed{3 + 6 = 9}` is 9.
fn boxed(text: &str) -> Option<Token> {
    let b = text.as_bytes();
    text.rmatch_indices("\\boxed").find_map(|(i, p)| {
        let mut j = i + p.len();
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        if b.get(j) != Some(&b'{') {
            return None;
        }
        let mut depth = 0usize;
        let close = (j..b.len()).find(|&k| {
            match b[k] {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ => {}
            }
            depth == 0
        })?;
        let first = next_number(text, j + 1, close)?;
        Some(resolve_equation(text, first, close))
    })
}

/// The last `#### X`; a Markdown heading like `#### 4. Compare` is no answer.
fn hashes(text: &str) -> Option<Token> {
    let b = text.as_bytes();
    text.rmatch_indices("####").find_map(|(i, p)| {
        let mut j = i + p.len();
        while b.get(j).is_some_and(|&c| c == b' ' || c == b'\t') {
            j += 1;
        }
        number_at(text, j).filter(|t| !is_list_marker(text, *t))
    })
}

/// The last "Answer: X", the number in the same sentence.
fn answer_colon(text: &str, lower: &str) -> Option<Token> {
    lower.rmatch_indices("answer").find_map(|(i, p)| {
        let after = cut::after(lower, i + p.len());
        let colon = after.trim_start_matches(['*', '_', ' ']);
        if !colon.starts_with(':') {
            return None;
        }
        number_after(text, text.len() - colon.len() + 1, Gap::Sentence)
    })
}
