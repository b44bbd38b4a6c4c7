//! Published model-written programs: one row of a released JSONL file (ToRA, Program-of-Thoughts,
//! PAL inside GSM-Hard) turned into a [`Candidate`], the program text the program reader parses
//! and the key that matches it to its dataset problem. The format is read from the row's keys
//! and shape, never from the file name. Nothing here runs a program: GSM-Hard's programs are
//! restored by reading their text ([`gsm_hard`]).
//!
//! - ToRA: `code` is a list of model outputs. Key: `idx` when present, else `question`.
//!   Program: the first output's ```` ```python ```` block; the ```` ```output ```` and
//!   `\boxed{}` text after it is dropped.
//! - Program-of-Thoughts: `generated` is a string, or a list of one. Key: `question`. Program:
//!   the script as written.
//! - PAL: `code` is a string. Key: `question`, else the function's docstring. Program: the
//!   code; with `input` (GSM-Hard), the replaced number restored.
//!
//! The prompt line that opens a few-shot PoT file (`{"prompt": ...}`) is [`Extracted::Prompt`].

use std::fmt;

use serde_json::{Map, Value};

pub mod gsm_hard;

pub use gsm_hard::Refusal;

/// The project a program comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Tool-integrated reasoning (microsoft/ToRA): a function, its call and `print`, fenced.
    Tora,
    /// Program-of-Thoughts (wenhuchen/Program-of-Thoughts): a script ending `ans = ...`, or
    /// (zero-shot) a `solver()` function and `ans = solver()`.
    Pot,
    /// Program-aided language models (reasoning-machines/pal): `def solution(): ... return`.
    Pal,
}

/// Where each family's programs are published, and under which licence.
pub struct Publication {
    pub family: Family,
    pub project: &'static str,
    pub url: &'static str,
    pub licence: &'static str,
}

pub const PUBLICATIONS: [Publication; 3] = [
    Publication {
        family: Family::Tora,
        project: "microsoft/ToRA",
        url: "https://github.com/microsoft/ToRA",
        licence: "MIT",
    },
    Publication {
        family: Family::Pot,
        project: "wenhuchen/Program-of-Thoughts",
        url: "https://github.com/wenhuchen/Program-of-Thoughts",
        licence: "MIT",
    },
    Publication {
        family: Family::Pal,
        project: "reasoning-machines/pal",
        url: "https://github.com/reasoning-machines/pal",
        licence: "Apache-2.0",
    },
];

pub fn publication(family: Family) -> &'static Publication {
    PUBLICATIONS
        .iter()
        .find(|p| p.family == family)
        .expect("every family is listed")
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Tora => "tora",
            Family::Pot => "pot",
            Family::Pal => "pal",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a candidate's problem is found by in its dataset.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MatchKey {
    /// The problem's line in the dataset file, from 0 (ToRA's `idx`).
    Index(u64),
    /// The question as [`normalise_question`] writes it: compare it with the dataset's
    /// questions written the same way.
    Question(String),
}

/// How a GSM-Hard program was brought back to the GSM8K problem it was written for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Restoration {
    /// GSM-Hard left this problem's numbers as they were: the program is PAL's as released.
    Unchanged,
    /// The literal `changed` in the code was GSM-Hard's; it is `original` again.
    Undone { changed: String, original: String },
}

/// One usable row: a program to parse and the problem it answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub family: Family,
    /// The model that wrote the program: the row's `model`, else the one the caller named (the
    /// released files name none in their rows).
    pub model: Option<String>,
    pub key: MatchKey,
    /// The question the row states the program answers: for GSM-Hard, the original question
    /// (the docstring), not the changed one.
    pub question: String,
    /// Python source for [`crate::program::validate_program`]: never executed.
    pub program: String,
    /// Set for GSM-Hard rows only.
    pub restoration: Option<Restoration>,
}

/// What a row holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Extracted {
    Candidate(Box<Candidate>),
    /// The prompt line of a few-shot PoT file: not a problem, nothing to report.
    Prompt,
}

/// Why a row gives no program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    #[error("the row is not a JSON object")]
    NotAnObject,
    /// The key that holds the program is there but empty, null or not text.
    #[error("the row's {0:?} holds no program text")]
    NoCode(&'static str),
    #[error("no known format has these keys: {}", .0.join(", "))]
    UnknownShape(Vec<String>),
    #[error("the row gives neither an index nor a question to match its problem by")]
    NoMatchKey,
    #[error("the model output has no ```python block")]
    FenceMissing,
    #[error("the ```python block is not closed: the output was cut off")]
    FenceUnclosed,
    /// ToRA answers in several rounds when a program fails; which round's program answers is
    /// not something the text says.
    #[error("the model output has {0} ```python blocks")]
    SeveralBlocks(usize),
    #[error("GSM-Hard's changed number cannot be undone: {0}")]
    Restoration(Refusal),
}

/// Read one row (a parsed JSONL line) of a published program file. `file_model` is the model
/// the caller knows wrote the file (from its name or its description); a `model` the row names
/// itself wins.
pub fn extract(row: &Value, file_model: Option<&str>) -> Result<Extracted, RowError> {
    let Value::Object(row) = row else {
        return Err(RowError::NotAnObject);
    };
    let model = text(row, "model").or(file_model).map(str::to_string);
    let candidate = if let Some(generated) = row.get("generated") {
        pot(row, generated)?
    } else if let Some(code) = row.get("code") {
        match code {
            Value::Array(outputs) => tora(row, outputs)?,
            _ => pal(row, code)?,
        }
    } else if row.contains_key("prompt") {
        return Ok(Extracted::Prompt);
    } else {
        let mut keys: Vec<String> = row.keys().cloned().collect();
        keys.sort();
        return Err(RowError::UnknownShape(keys));
    };
    Ok(Extracted::Candidate(Box::new(Candidate {
        model,
        ..candidate
    })))
}

/// A question as matching compares it: runs of whitespace are one space, none at either end,
/// and typographic quotes are straight ones. On the released files the quotes change nothing
/// (their questions copy GSM8K's and MultiArith's, curly quotes included), but a release that
/// re-encodes them would otherwise match nothing.
pub fn normalise_question(question: &str) -> String {
    let mut out = String::with_capacity(question.len());
    for word in question.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201F}' | '\u{2033}' => '"',
            c => c,
        }));
    }
    out
}

fn text<'a>(row: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    row.get(key).and_then(Value::as_str)
}

fn question_key(row: &Map<String, Value>) -> Option<(MatchKey, String)> {
    let question = text(row, "question")?;
    Some((
        MatchKey::Question(normalise_question(question)),
        question.to_string(),
    ))
}

fn candidate(family: Family, key: (MatchKey, String), program: String) -> Candidate {
    Candidate {
        family,
        model: None,
        key: key.0,
        question: key.1,
        program,
        restoration: None,
    }
}

/// Program-of-Thoughts: `generated` is the script, or a list holding it (few-shot files).
fn pot(row: &Map<String, Value>, generated: &Value) -> Result<Candidate, RowError> {
    let script = match generated {
        Value::String(s) => s.as_str(),
        Value::Array(items) => items.first().and_then(Value::as_str).unwrap_or(""),
        _ => "",
    };
    if script.trim().is_empty() {
        return Err(RowError::NoCode("generated"));
    }
    let key = question_key(row).ok_or(RowError::NoMatchKey)?;
    Ok(candidate(Family::Pot, key, script.to_string()))
}

/// ToRA: `code` lists model outputs (the released files hold one, the greedy one); the
/// program is the first output's fenced block.
fn tora(row: &Map<String, Value>, outputs: &[Value]) -> Result<Candidate, RowError> {
    let output = outputs
        .first()
        .and_then(Value::as_str)
        .filter(|o| !o.trim().is_empty())
        .ok_or(RowError::NoCode("code"))?;
    let program = fenced_python(output)?;
    let question = text(row, "question").unwrap_or("").to_string();
    let key = match row.get("idx").and_then(Value::as_u64) {
        Some(idx) => (MatchKey::Index(idx), question),
        None => question_key(row).ok_or(RowError::NoMatchKey)?,
    };
    Ok(candidate(Family::Tora, key, program.to_string()))
}

/// PAL: `code` is the program; with `input` it is GSM-Hard's, whose changed number is undone.
fn pal(row: &Map<String, Value>, code: &Value) -> Result<Candidate, RowError> {
    let code = code
        .as_str()
        .filter(|c| !c.trim().is_empty())
        .ok_or(RowError::NoCode("code"))?;
    // A release may keep the model's fence; one without keeps the code bare.
    let code = if code.contains("```") {
        fenced_python(code)?
    } else {
        code
    };
    if let Some(changed) = text(row, "input") {
        let restored = gsm_hard::restore(code, changed).map_err(RowError::Restoration)?;
        let key = (
            MatchKey::Question(normalise_question(&restored.question)),
            restored.question,
        );
        let mut c = candidate(Family::Pal, key, restored.program);
        c.restoration = Some(restored.restoration);
        return Ok(c);
    }
    let key = match question_key(row) {
        Some(key) => key,
        None => {
            let doc = gsm_hard::docstring(code)
                .map_err(|_| RowError::NoMatchKey)?
                .filter(|d| !d.trim().is_empty())
                .ok_or(RowError::NoMatchKey)?;
            (MatchKey::Question(normalise_question(&doc)), doc)
        }
    };
    Ok(candidate(Family::Pal, key, code.to_string()))
}

/// The text of the one Python block in a model output (```` ```python ````, ```` ```py ```` or a
/// bare ```` ``` ````); what follows its closing fence (ToRA's ```` ```output ```` block and
/// `\boxed{}` answer) is dropped.
fn fenced_python(output: &str) -> Result<&str, RowError> {
    // Split at the fences, the pieces at odd positions are inside a block; an even number of
    // pieces means the last block is never closed.
    let pieces: Vec<&str> = output.split("```").collect();
    let (mut tagged, mut bare) = (Vec::new(), Vec::new());
    for (i, inside) in pieces.iter().enumerate().skip(1).step_by(2) {
        let closed = i + 1 < pieces.len();
        let (tag, body) = inside.split_once('\n').unwrap_or((inside, ""));
        match tag.trim().to_ascii_lowercase().as_str() {
            "python" | "python3" | "py" => tagged.push((body, closed)),
            "" => bare.push((body, closed)),
            _ => {}
        }
    }
    // Bare fences may hold anything (an output, say): they count only when no block is tagged.
    let python = if tagged.is_empty() { bare } else { tagged };
    match python.as_slice() {
        [] => Err(RowError::FenceMissing),
        [(body, true)] => Ok(body),
        [(_, false)] => Err(RowError::FenceUnclosed),
        blocks => Err(RowError::SeveralBlocks(blocks.len())),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod real_data;
