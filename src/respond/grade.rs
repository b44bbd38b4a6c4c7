//! Grading one reply: the answer the extraction reads, the rule that read it, and whether it is
//! right. Every stored reply is graded by [`grade`], and so is every reply `advmath extract` is
//! given ([`grade_lines`]), so that a grader outside advmath that calls the command (the
//! lm-evaluation-harness tasks `publish` writes) agrees with the tables by construction.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

use crate::error::Result;
use crate::extract::{extract, is_correct, is_correct_exact};
use crate::num::Num;
use crate::program::tree::num_text;
use crate::store::columns;

/// How answers are read from responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Extraction {
    /// advmath's rules: the stated answer ("the answer is", boxed, ...), else the last number; a
    /// reply whose last word is that the question cannot be answered is wrong on a question that
    /// has an answer (and right on one that has none).
    #[default]
    Standard,
    /// The last number of the reply, as the ArithmAttack study scored (to reproduce its figures).
    LastNumber,
    /// Xie et al.'s scorer: the last match of `\d+\.?,?\d*`, no sign (to reproduce their figures).
    Xie2024,
}

impl Extraction {
    pub fn name(self) -> &'static str {
        match self {
            Extraction::Standard => "standard",
            Extraction::LastNumber => "last-number",
            Extraction::Xie2024 => "xie2024",
        }
    }
}

/// What a question asks of a reply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gold {
    /// This number.
    Answer(Num),
    /// That it cannot be answered: a number it needs was taken out (`missing`).
    NoAnswer,
}

impl Gold {
    /// The number, for a question that has one.
    pub fn answer(self) -> Option<Num> {
        match self {
            Gold::Answer(n) => Some(n),
            Gold::NoAnswer => None,
        }
    }

    /// The gold of a variants row of an attack: its exact answer; none where the attack's
    /// questions have no answer; and not known (the row is left ungraded) where a table that
    /// should hold an answer holds none, or one that does not read as a number.
    pub fn of_row(answer_exact: Option<&str>, answerable: bool) -> Option<Gold> {
        match answer_exact {
            Some(text) => num_text::from_text(text).map(Gold::Answer),
            None if !answerable => Some(Gold::NoAnswer),
            None => None,
        }
    }
}

/// How one reply reads: the answer found (canonical text), the rule that found it, whether it
/// says the question cannot be answered, and whether it is right when the gold is known.
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    pub extracted: Option<String>,
    pub rule: &'static str,
    /// The reply's last word is that the question cannot be answered
    /// ([`crate::extract::abstains`]).
    pub abstained: bool,
    /// Xie et al.'s matching rule: equal after rounding both to 2 decimals. On a question with no
    /// answer: the reply says so.
    pub correct: Option<bool>,
    pub correct_exact: Option<bool>,
}

/// Grade one reply against `gold` with the chosen extraction.
pub fn grade(text: &str, gold: Option<Gold>, extraction: Extraction) -> Graded {
    // A reply is paid for and kept whatever happens: a bug that panics while reading it leaves
    // the row ungraded under its own rule, and the stage names it at the end.
    crate::contain::run(|| grade_reply(text, gold, extraction)).unwrap_or_else(|panicked| {
        crate::progress::note!("error: grading a reply: {panicked}");
        Graded {
            extracted: None,
            rule: GRADING_FAILED,
            abstained: false,
            correct: None,
            correct_exact: None,
        }
    })
}

/// The extraction rule of a reply whose grading failed with an internal error.
pub const GRADING_FAILED: &str = "internal_error";

fn grade_reply(text: &str, gold: Option<Gold>, extraction: Extraction) -> Graded {
    crate::contain::planted_panic(|| format!("grade:{text}"));
    let e = match extraction {
        Extraction::Standard => extract(text),
        Extraction::LastNumber => crate::extract::extract_last_number(text),
        Extraction::Xie2024 => crate::extract::extract_xie2024(text),
    };
    let abstained = crate::extract::abstains(text).is_some();
    let (correct, correct_exact) = match gold {
        None => (None, None),
        // advmath's rules: a reply that ends saying the question cannot be answered did not
        // answer it, whatever number it passed on the way. The papers' scorers read numbers only.
        Some(Gold::Answer(_)) if abstained && extraction == Extraction::Standard => {
            (Some(false), Some(false))
        }
        Some(Gold::Answer(g)) => (
            Some(is_correct(e.value, g)),
            Some(is_correct_exact(e.value, g)),
        ),
        // Whatever number it reaches on the way, the reply is right only if it ends saying the
        // question cannot be answered.
        Some(Gold::NoAnswer) => (Some(abstained), Some(abstained)),
    };
    Graded {
        extracted: e.value.map(|v| num_text::to_text(&v)),
        rule: e.rule.name(),
        abstained,
        correct,
        correct_exact,
    }
}

/// What [`grade_lines`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GradeSummary {
    pub graded: usize,
    /// Bad lines, each named by number and reason; each got an `error` object in its place.
    pub bad: Vec<String>,
}

/// Grade JSON Lines: each input line `{"response": "...", "gold": "18"}` (`gold` optional: a
/// number, a fraction `n/d`, a worked solution ending `#### 18`, or `{"no_answer": true}` for a
/// question that has none) gives one output line `{"extracted": "18", "rule": "answer_is",
/// "abstained": false, "correct": true, "correct_exact": true}`. A line that cannot be read gives
/// `{"error": "..."}` in its place, so the output lines stay in step with the input's.
pub fn grade_lines(
    input: impl BufRead,
    mut out: impl Write,
    extraction: Extraction,
) -> Result<GradeSummary> {
    let mut summary = GradeSummary::default();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match read_line(&line) {
            Ok((response, gold)) => {
                summary.graded += 1;
                let g = grade(&response, gold, extraction);
                json!({
                    "extracted": g.extracted,
                    "rule": g.rule,
                    "abstained": g.abstained,
                    "correct": g.correct,
                    "correct_exact": g.correct_exact,
                })
            }
            Err(reason) => {
                summary.bad.push(format!("line {}: {reason}", i + 1));
                json!({ "error": reason })
            }
        };
        writeln!(out, "{answer}")?;
    }
    out.flush()?;
    Ok(summary)
}

fn read_line(line: &str) -> std::result::Result<(String, Option<Gold>), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let response = v[columns::RESPONSE]
        .as_str()
        .ok_or("no text field `response`")?
        .to_string();
    let gold = match &v[columns::GOLD] {
        Value::Null => None,
        Value::String(s) => Some(Gold::Answer(
            parse_gold(s).ok_or_else(|| format!("gold {s:?} is not a number"))?,
        )),
        Value::Number(n) => Some(Gold::Answer(
            parse_gold(&n.to_string()).ok_or_else(|| format!("gold {n} is not a number"))?,
        )),
        Value::Object(o) if o.get(NO_ANSWER) == Some(&Value::Bool(true)) && o.len() == 1 => {
            Some(Gold::NoAnswer)
        }
        other => {
            return Err(format!(
                "gold {other} is not a number or {{\"{NO_ANSWER}\": true}}"
            ))
        }
    };
    Ok((response, gold))
}

/// The key of the gold that says a question has no answer: `{"no_answer": true}`.
pub const NO_ANSWER: &str = "no_answer";

/// A gold answer as a number, a fraction or a worked solution's `#### 18`, with thousands
/// separators and dollar signs.
pub(crate) fn parse_gold(text: &str) -> Option<Num> {
    let t = text
        .rsplit_once("####")
        .map(|(_, a)| a)
        .or_else(|| text.rsplit_once("A:").map(|(_, a)| a))
        .unwrap_or(text);
    let t = t.trim().replace([',', '$'], "");
    Num::parse_decimal(&t).or_else(|| {
        let (n, d) = t.split_once('/')?;
        Num::parse_decimal(n.trim())?
            .div(Num::parse_decimal(d.trim())?)
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_graded_in_step_and_bad_ones_are_named() {
        let input = concat!(
            "{\"response\": \"So the answer is 18.\", \"gold\": \"18\"}\n",
            "not json\n",
            "{\"response\": \"I think 7\", \"gold\": \"#### 1,200\"}\n",
            "{\"response\": \"no number\"}\n",
            "{\"response\": \"It cannot be determined.\", \"gold\": {\"no_answer\": true}}\n",
            "{\"response\": \"The answer is 4.\", \"gold\": {\"no_answer\": true}}\n",
            "{\"response\": \"x\", \"gold\": {\"no_answer\": false}}\n",
        );
        let mut out = Vec::new();
        let s = grade_lines(input.as_bytes(), &mut out, Extraction::Standard).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(s.graded, 5);
        assert_eq!(s.bad.len(), 2);
        assert!(s.bad[0].starts_with("line 2: not a JSON object"));
        assert!(s.bad[1].starts_with("line 7: gold"), "{:?}", s.bad);
        assert_eq!(lines.len(), 7);
        assert_eq!(
            lines[0],
            json!({"extracted": "18", "rule": "answer_is", "abstained": false, "correct": true,
                   "correct_exact": true})
        );
        assert_eq!(
            (&lines[4]["abstained"], &lines[4]["correct"]),
            (&json!(true), &json!(true))
        );
        assert_eq!(
            (&lines[5]["abstained"], &lines[5]["correct"]),
            (&json!(false), &json!(false))
        );
        assert!(lines[1]["error"].is_string());
        assert_eq!(lines[2]["extracted"], "7");
        assert_eq!(lines[2]["correct"], false);
        assert_eq!(
            lines[3],
            json!({"extracted": null, "rule": "miss", "abstained": false, "correct": null,
                   "correct_exact": null})
        );
    }

    #[test]
    fn an_abstaining_reply_is_wrong_where_there_is_an_answer_under_advmath_s_rules_only() {
        let reply = "The sum is 48 + C, so we cannot determine the answer.";
        let gold = Some(Gold::Answer(Num::int(48)));
        let standard = grade(reply, gold, Extraction::Standard);
        assert!(standard.abstained);
        assert_eq!(standard.correct, Some(false));
        assert_eq!(standard.correct_exact, Some(false));
        // The papers' scorers read the last number, as the papers did.
        assert_eq!(
            grade(reply, gold, Extraction::LastNumber).correct,
            Some(true)
        );
        assert_eq!(
            grade(reply, Some(Gold::NoAnswer), Extraction::Standard).correct,
            Some(true)
        );
    }

    #[test]
    fn a_null_gold_means_no_answer_only_where_the_attack_has_none() {
        assert_eq!(Gold::of_row(None, false), Some(Gold::NoAnswer));
        assert_eq!(Gold::of_row(None, true), None);
        assert_eq!(
            Gold::of_row(Some("3/4"), true),
            Num::int(3).div(Num::int(4)).ok().map(Gold::Answer)
        );
    }

    #[test]
    fn golds_read_as_people_write_them() {
        assert_eq!(parse_gold("#### 1,234"), Num::parse_decimal("1234"));
        assert_eq!(parse_gold("$18.50"), Num::parse_decimal("18.5"));
        assert_eq!(parse_gold("1/3"), Num::int(1).div(Num::int(3)).ok());
        assert_eq!(parse_gold("many"), None);
    }
}
