//! GSM-Hard's PAL programs brought back to GSM8K. GSM-Hard replaced one number of a GSM8K test
//! question by a large one (`input`) and the same number in PAL's program (`code`), leaving
//! the original question as the program's docstring. Comparing the docstring with `input` finds
//! the number (original `o`, new `n`); the one literal `n` in the code, outside strings, becomes
//! `o` again. Anything less certain is refused with its [`Refusal`], never guessed: the code is
//! read (parsed, lexed), never run.

use std::fmt;

use rustpython_parser::ast::{Constant, Expr, Stmt};
use rustpython_parser::{lexer, Mode, Tok};

use super::Restoration;
use crate::num::Num;
use crate::program::lower::parse_module;
use crate::program::ProgramError;

/// Why a GSM-Hard program is not restored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// The code does not parse, so its docstring cannot be read.
    Unparsable,
    /// The function has no docstring: the original question is unknown.
    NoDocstring,
    /// The two questions differ in more than a number (a word, or how many tokens they have).
    TextsDiffer,
    /// Two or more different numbers differ (GSM-Hard's text replacement also hit a number
    /// that contains the replaced one: "1.50" became "1.3299286" when 50 was replaced).
    SeveralNumbersDiffer,
    /// The one replaced number occurs at several places of the question: which literals of the
    /// code were replaced is not known.
    ReplacedAtSeveralPlaces,
    /// The replaced text is a word that is not a number ("half").
    NotANumber,
    /// The new number is not a literal of the code (GSM-Hard wrote `8/7` for 1.1428571428571428).
    ChangedNumberNotInCode,
    /// The new number is more than one literal of the code.
    ChangedNumberInCodeSeveralTimes,
}

impl Refusal {
    pub const ALL: [Refusal; 8] = [
        Refusal::Unparsable,
        Refusal::NoDocstring,
        Refusal::TextsDiffer,
        Refusal::SeveralNumbersDiffer,
        Refusal::ReplacedAtSeveralPlaces,
        Refusal::NotANumber,
        Refusal::ChangedNumberNotInCode,
        Refusal::ChangedNumberInCodeSeveralTimes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Unparsable => "unparsable",
            Refusal::NoDocstring => "no_docstring",
            Refusal::TextsDiffer => "texts_differ",
            Refusal::SeveralNumbersDiffer => "several_numbers_differ",
            Refusal::ReplacedAtSeveralPlaces => "replaced_at_several_places",
            Refusal::NotANumber => "not_a_number",
            Refusal::ChangedNumberNotInCode => "changed_number_not_in_code",
            Refusal::ChangedNumberInCodeSeveralTimes => "changed_number_in_code_several_times",
        }
    }

    fn sentence(self) -> &'static str {
        match self {
            Refusal::Unparsable => "the code does not parse",
            Refusal::NoDocstring => {
                "the function has no docstring to read the original question from"
            }
            Refusal::TextsDiffer => "the questions differ in more than a number",
            Refusal::SeveralNumbersDiffer => "more than one number differs between the questions",
            Refusal::ReplacedAtSeveralPlaces => {
                "the replaced number occurs at several places of the question"
            }
            Refusal::NotANumber => "the replaced text is not a number",
            Refusal::ChangedNumberNotInCode => "the new number is not a literal of the code",
            Refusal::ChangedNumberInCodeSeveralTimes => {
                "the new number is more than one literal of the code"
            }
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.sentence(), self.as_str())
    }
}

/// A GSM-Hard row brought back: PAL's program for the original question.
#[derive(Clone, Debug, PartialEq)]
pub struct Restored {
    pub program: String,
    /// The original question (the docstring).
    pub question: String,
    pub restoration: Restoration,
}

/// The docstring of the program's first function, if it has one.
pub fn docstring(code: &str) -> Result<Option<String>, ProgramError> {
    let body = parse_module(code)?;
    let doc = body.iter().find_map(|s| match s {
        Stmt::FunctionDef(f) => Some(f.body.first().and_then(|first| match first {
            Stmt::Expr(e) => match e.value.as_ref() {
                Expr::Constant(c) => match &c.value {
                    Constant::Str(s) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })),
        _ => None,
    });
    Ok(doc.flatten())
}

/// Undo GSM-Hard's replacement in `code`, given its changed question `input`.
pub fn restore(code: &str, input: &str) -> Result<Restored, Refusal> {
    let original = docstring(code)
        .map_err(|_| Refusal::Unparsable)?
        .ok_or(Refusal::NoDocstring)?;
    let (before, after) = (tokens(&original), tokens(input));
    if before.len() != after.len() {
        return Err(Refusal::TextsDiffer);
    }
    let differ: Vec<(&Token, &Token)> = before
        .iter()
        .zip(&after)
        .filter(|(o, n)| !o.same(n))
        .collect();
    let Some(&(o, n)) = differ.first() else {
        return Ok(Restored {
            program: code.to_string(),
            question: original,
            restoration: Restoration::Unchanged,
        });
    };
    let Some(new_value) = n.number() else {
        return Err(Refusal::TextsDiffer);
    };
    for &(other_o, other_n) in &differ {
        if other_n.number().is_none() {
            return Err(Refusal::TextsDiffer);
        }
        if other_o.text != o.text || other_n.text != n.text {
            return Err(Refusal::SeveralNumbersDiffer);
        }
    }
    if differ.len() > 1 {
        return Err(Refusal::ReplacedAtSeveralPlaces);
    }
    let restored_text = match o.kind {
        Kind::Number => o.text.replace(',', ""),
        // A number word GSM-Hard replaced ("with four" became "with 4933828").
        Kind::Word => match crate::question::number_word_value(&o.text) {
            Some(v) => v.to_string(),
            None => return Err(Refusal::NotANumber),
        },
        Kind::Other => return Err(Refusal::TextsDiffer),
    };
    let mut at = numeric_literals(code)
        .into_iter()
        .filter(|(_, text)| Num::parse_decimal(text).is_some_and(|v| v.eq_num(new_value)));
    let (start, end, changed) = match (at.next(), at.next()) {
        (None, _) => return Err(Refusal::ChangedNumberNotInCode),
        (Some(_), Some(_)) => return Err(Refusal::ChangedNumberInCodeSeveralTimes),
        (Some(((start, end), text)), None) => (start, end, text),
    };
    let (Some(head), Some(tail)) = (code.get(..start), code.get(end..)) else {
        return Err(Refusal::Unparsable);
    };
    Ok(Restored {
        program: format!("{head}{restored_text}{tail}"),
        question: original,
        restoration: Restoration::Undone {
            changed,
            original: o.text.clone(),
        },
    })
}

/// The numeric literals of a program (strings, docstrings and comments left out): byte range
/// and text.
fn numeric_literals(code: &str) -> Vec<((usize, usize), String)> {
    lexer::lex(code, Mode::Module)
        .map_while(Result::ok)
        .filter(|(tok, _)| matches!(tok, Tok::Int { .. } | Tok::Float { .. }))
        .filter_map(|(_, range)| {
            let (start, end) = (range.start().to_usize(), range.end().to_usize());
            Some(((start, end), code.get(start..end)?.to_string()))
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Number,
    Word,
    Other,
}

#[derive(Clone, Debug, PartialEq)]
struct Token {
    kind: Kind,
    text: String,
}

impl Token {
    fn number(&self) -> Option<Num> {
        match self.kind {
            Kind::Number => Num::parse_decimal(&self.text),
            _ => None,
        }
    }

    /// The same token, or the same number written another way (`5,000` and `5000`).
    fn same(&self, other: &Token) -> bool {
        if self.text == other.text {
            return true;
        }
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => a.eq_num(b),
            _ => false,
        }
    }
}

/// Numbers (`1,200`, `2.50`, `.5`), words, and every other non-space character on its own.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let digit = |i: usize| chars.get(i).is_some_and(|c| c.is_ascii_digit());
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let start = i;
        let kind = if c.is_ascii_digit() || (c == '.' && digit(i + 1)) {
            while digit(i) {
                i += 1;
            }
            // Thousands groups: a comma and exactly three digits.
            while chars.get(i) == Some(&',') && (1..=3).all(|k| digit(i + k)) && !digit(i + 4) {
                i += 4;
            }
            if chars.get(i) == Some(&'.') && digit(i + 1) {
                i += 1;
                while digit(i) {
                    i += 1;
                }
            }
            Kind::Number
        } else if c.is_alphabetic() {
            while chars.get(i).is_some_and(|c| c.is_alphabetic()) {
                i += 1;
            }
            Kind::Word
        } else {
            i += 1;
            if c.is_whitespace() {
                continue;
            }
            Kind::Other
        };
        out.push(Token {
            kind,
            text: chars.get(start..i).unwrap_or_default().iter().collect(),
        });
    }
    out
}
