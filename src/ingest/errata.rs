//! Known wrong labels (`errata.tsv`): a problem whose dataset answer contradicts its own question
//! is refused as `wrong_label`, for every attack, since any gold derived from that answer is
//! wrong on the question as written. Matched by the MD5 of the normalised question and the label
//! itself, so that no dataset text is kept here and a corrected release is left alone.

use std::sync::OnceLock;

use md5::Digest;

use crate::num::wide::Value;
use crate::num::Num;
use crate::program::{ErrorKind, ProgramError};
use crate::published::normalise_question;

const ERRATA: &str = include_str!("errata.tsv");

/// One known wrong label.
#[derive(Clone, Debug, PartialEq)]
pub struct Erratum {
    pub question_md5: String,
    pub label: Value,
    /// The answer the question as written gives.
    pub text_answer: Value,
    /// Where it was found (`gsm8k/test/1309`).
    pub found_at: String,
    pub why: String,
}

/// Parse an errata table: tab-separated rows, `#` comments and blank lines skipped.
pub fn parse(text: &str) -> Result<Vec<Erratum>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [md5, label, text_answer, found_at, why] = fields[..] else {
            return Err(format!("line {}: expected 5 tab-separated fields", i + 1));
        };
        // A decimal, or `n/d` for an answer no decimal writes exactly (1288000/13).
        let number = |s: &str| {
            Value::parse_decimal(s)
                .or_else(|| {
                    let (n, d) = s.split_once('/')?;
                    Num::ratio(n.parse().ok()?, d.parse().ok()?).map(Value::Num)
                })
                .ok_or_else(|| format!("line {}: {s:?} is not a number", i + 1))
        };
        out.push(Erratum {
            question_md5: md5.to_string(),
            label: number(label)?,
            text_answer: number(text_answer)?,
            found_at: found_at.to_string(),
            why: why.to_string(),
        });
    }
    Ok(out)
}

fn known() -> &'static [Erratum] {
    static KNOWN: OnceLock<Vec<Erratum>> = OnceLock::new();
    KNOWN.get_or_init(|| parse(ERRATA).expect("the shipped errata table parses"))
}

/// The MD5 of a question's normalised text, in lowercase hex.
pub fn question_md5(question: &str) -> String {
    let digest = md5::Md5::digest(normalise_question(question).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a problem's label is known wrong, if it is: its question and label match an erratum.
pub fn wrong_label(question: &str, label: &Value) -> Option<ProgramError> {
    wrong_label_in(known(), question, label)
}

fn wrong_label_in(errata: &[Erratum], question: &str, label: &Value) -> Option<ProgramError> {
    let md5 = question_md5(question);
    let e = errata
        .iter()
        .find(|e| e.question_md5 == md5 && e.label == *label)?;
    Some(ProgramError::new(
        ErrorKind::WrongLabel,
        format!(
            "the dataset's answer {} contradicts its question, which gives {}: {} (advmath's errata, {})",
            e.label,
            e.text_answer.exact_text(),
            e.why,
            e.found_at
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_parses_and_names_where_each_was_found() {
        let errata = known();
        assert!(!errata.is_empty());
        for e in errata {
            assert_eq!(e.question_md5.len(), 32, "{e:?}");
            assert_ne!(e.label, e.text_answer, "{e:?}");
            assert!(e.found_at.contains('/'), "{e:?}");
        }
    }

    #[test]
    fn a_question_and_label_match_and_a_corrected_label_or_another_question_does_not() {
        let question = "Ann has 3 pens and buys 2 more. How many pens does she have?";
        let table = format!(
            "# comment\n\n{}\t6\t5\ttoy/test/0\tthe label adds one pen too many\n",
            question_md5(question)
        );
        let errata = parse(&table).unwrap();
        let six = Value::parse_decimal("6").unwrap();
        let five = Value::parse_decimal("5").unwrap();
        let e = wrong_label_in(&errata, question, &six).expect("matches");
        assert_eq!(e.kind, ErrorKind::WrongLabel);
        assert!(
            e.detail.contains("answer 6") && e.detail.contains("gives 5"),
            "{}",
            e.detail
        );
        // Whitespace and typographic quotes aside, the same question.
        let spaced = "Ann  has 3 pens and buys 2 more.\nHow many pens does she have?";
        assert!(wrong_label_in(&errata, spaced, &six).is_some());
        assert!(
            wrong_label_in(&errata, question, &five).is_none(),
            "a corrected label"
        );
        assert!(wrong_label_in(&errata, "Ann has 4 pens.", &six).is_none());
        assert!(parse("abc\t1\t2\n").is_err());
        assert!(parse("abc\tx\t2\tw\twhy\n").is_err());
    }
}
