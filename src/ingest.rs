//! Read problem sources (GSM8K, MultiArith, the Xie et al. release, generic tables), attach a
//! validated solution program to each problem, and build the `problems` table.
//!
//! A bad row never aborts a run: it becomes an `invalid` problem whose `error_detail` names the
//! file, the row and the reason. Only an input that is unusable as a whole is an error.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::num::wide::Value;
use crate::num::Num;
use crate::program::{validate_program, AlignMode, ErrorKind, Links, Program, ProgramError};
use crate::question::find_slots;
use crate::question::rendering::template;
use crate::synth;

mod borrow;
pub mod candidates;
pub mod coverage;
pub mod default_dataset;
pub mod disambiguate;
pub mod errata;
pub mod programs;
mod read;
pub mod robustmath;
mod run;

use crate::store::problems::ProblemRecord;
pub use borrow::borrow_programs;
pub use read::{detect_format, read_source};
pub use robustmath::{ingest_robustmath, is_robustmath, RobustMathSummary};
pub use run::{ingest, ingest_source, split_rephrasings, IngestConfig, IngestSummary, Offered};

/// Source layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// GSM8K JSONL: `question`, `answer` with `<<calc=annotations>>` and `#### final`.
    Gsm8k,
    /// MultiArith JSON: `sQuestion`, `lSolutions`, `lEquations`, `lAlignments`, `iIndex`.
    Multiarith,
    /// Xie et al. release: JSON list of `{index, question, final_ans}` plus `code/{index}.py`.
    Xie,
    /// Any JSONL file, columns named with `--*-col`.
    Jsonl,
    /// Any CSV file with a header, columns named with `--*-col`.
    Csv,
    /// Any Parquet file, columns named with `--*-col`.
    Parquet,
    /// The RobustMath rephrasing attack of the Xie et al. release: a folder with
    /// `robustMath.json` (rephrased) and `robustBase.json` (originals), written as `variants`
    /// of dataset `robustmath` (attacks `original` and `rephrase`), not as problems.
    Robustmath,
}

/// Which program a problem gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ProgramSource {
    /// The given program when it validates, otherwise one synthesised from the worked solution.
    #[default]
    Auto,
    /// Only given programs (the Xie release, a `--program-col`).
    Given,
    /// Only programs synthesised from annotations or equations.
    Synthesised,
}

/// Column names for generic tables.
#[derive(Clone, Debug)]
pub struct Columns {
    pub id: Option<String>,
    pub question: String,
    pub answer: String,
    pub program: Option<String>,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            id: None,
            question: "question".into(),
            answer: "answer".into(),
            program: None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    pub format: Option<Format>,
    pub dataset: Option<String>,
    pub split: Option<String>,
    pub columns: Columns,
    pub programs: ProgramSource,
    /// A source whose programs or worked solutions problems without one take, matched by
    /// question text (see [`borrow_programs`]).
    pub programs_from: Option<PathBuf>,
    /// What programs may link beyond the numbers written in digits (none by default, as in the
    /// paper).
    pub links: Links,
    /// Published model-written program files (ToRA, Program-of-Thoughts, PAL inside GSM-Hard)
    /// whose programs a problem without a valid one of its own may take (see [`candidates`]).
    pub candidates: Vec<PathBuf>,
}

/// A worked solution a program can be synthesised from.
#[derive(Clone, Debug)]
pub enum Worked {
    Gsm8k(String),
    MultiArith {
        equation: String,
        alignments: Vec<usize>,
    },
}

/// One problem as read, before validation.
#[derive(Clone, Debug, Default)]
pub struct RawProblem {
    pub source_index: i64,
    /// Source id when it differs from the index (generic `--id-col`).
    pub id: Option<String>,
    pub question: String,
    pub answer: Option<String>,
    pub program: Option<std::result::Result<String, String>>,
    pub worked: Option<Worked>,
    /// The row could not be read; the reason names file and row.
    pub row_error: Option<String>,
}

/// A source file read whole.
pub struct Source {
    pub path: PathBuf,
    pub format: Format,
    pub dataset: String,
    pub split: String,
    pub rows: Vec<RawProblem>,
}

/// Validate one raw problem into a record.
pub fn build_record(
    raw: &RawProblem,
    dataset: &str,
    split: &str,
    programs: ProgramSource,
    links: Links,
) -> ProblemRecord {
    let id_part = raw
        .id
        .clone()
        .unwrap_or_else(|| raw.source_index.to_string());
    let slots = find_slots(&raw.question);
    let mut record = ProblemRecord {
        problem_id: format!("{dataset}/{split}/{id_part}"),
        dataset: dataset.to_string(),
        split: split.to_string(),
        source_index: raw.source_index,
        question: raw.question.clone(),
        question_template: template(&raw.question, &slots),
        slot_values: slots
            .iter()
            .map(|s| crate::program::tree::num_text::to_text(&s.value))
            .collect(),
        answer: None,
        program: None,
        program_origin: "none".into(),
        tree: None,
        error: None,
    };
    if let Some(reason) = &raw.row_error {
        record.error = Some(ProgramError::new(ErrorKind::BadInput, reason.clone()));
        return record;
    }
    let gold = match raw
        .answer
        .as_deref()
        .map(|a| a.trim().replace([',', '$'], ""))
    {
        Some(a) => match Value::parse_decimal(&a) {
            Some(v) => {
                record.answer = Some(v.to_string());
                Some(v)
            }
            None => {
                // Digits that do not parse are a number past the exact range, not a typo.
                let digits = a
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit());
                let reason = if digits && !a.trim_start_matches('-').is_empty() {
                    format!("answer {a:?}: {}", crate::num::EvalError::TooLarge)
                } else {
                    format!("answer {a:?} is not a number")
                };
                record.error = Some(ProgramError::new(ErrorKind::BadInput, reason));
                return record;
            }
        },
        None => None,
    };
    let given = || -> Option<std::result::Result<(Program, String), ProgramError>> {
        let src = raw.program.as_ref()?;
        Some(match src {
            Err(reason) => Err(ProgramError::new(ErrorKind::MissingProgram, reason.clone())),
            Ok(src) => validate_program(
                src,
                &raw.question,
                &slots,
                gold.clone(),
                AlignMode::Given,
                links,
            )
            .map(|p| (p, src.clone())),
        })
    };
    let synthesised = || -> Option<std::result::Result<(Program, &'static str), ProgramError>> {
        let worked = raw.worked.as_ref()?;
        let Some(gold) = &gold else {
            return Some(Err(ProgramError::new(
                ErrorKind::BadInput,
                "no gold answer to check a synthesised program against",
            )));
        };
        let Some(gold) = gold.as_num() else {
            return Some(Err(ProgramError::new(
                ErrorKind::Unsupported,
                format!(
                    "the answer {gold} leaves the 128-bit range, where worked solutions are not synthesised"
                ),
            )));
        };
        Some(match worked {
            Worked::Gsm8k(solution) => {
                synth::from_gsm8k(&raw.question, &slots, solution, gold, links)
                    .map(|p| (p, "gsm8k_annotations"))
            }
            Worked::MultiArith {
                equation,
                alignments,
            } => synth::from_multiarith(&raw.question, &slots, equation, alignments, gold, links)
                .map(|p| (p, "multiarith_equations")),
        })
    };
    let slot_values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let outcome = match programs {
        ProgramSource::Given => given().map(|r| r.map(|(p, s)| (p, s, "given"))),
        ProgramSource::Synthesised => {
            synthesised().map(|r| r.map(|(p, o)| (p.clone(), p.to_python(&slot_values), o)))
        }
        ProgramSource::Auto => match given() {
            Some(Ok((p, s))) => Some(Ok((p, s, "given"))),
            Some(Err(given_err)) => match synthesised() {
                Some(Ok((p, o))) => Some(Ok((p.clone(), p.to_python(&slot_values), o))),
                _ => {
                    record.program = raw.program.clone().and_then(|r| r.ok());
                    record.program_origin = "given".into();
                    Some(Err(given_err))
                }
            },
            None => {
                synthesised().map(|r| r.map(|(p, o)| (p.clone(), p.to_python(&slot_values), o)))
            }
        },
    };
    match outcome {
        Some(Ok((program, text, origin))) => {
            record.tree = Some(program);
            record.program = Some(text);
            record.program_origin = origin.into();
        }
        Some(Err(e)) => {
            if record.program.is_none() {
                if let Some(Ok(src)) = &raw.program {
                    record.program = Some(src.clone());
                    record.program_origin = "given".into();
                }
            }
            record.error = Some(e);
        }
        None => {
            record.error = Some(ProgramError::new(
                ErrorKind::MissingProgram,
                "no program given and no worked solution to synthesise one from",
            ));
        }
    }
    if let Some(wrong) = gold
        .as_ref()
        .and_then(|g| errata::wrong_label(&raw.question, g))
    {
        // The program stays for the reader; nothing may be derived from its answer.
        record.tree = None;
        record.error = Some(wrong);
    }
    record
}

/// Validate every problem of a source (in parallel; order kept).
///
/// A row whose id repeats an earlier row's is kept as an invalid problem (`bad_input`, naming both
/// rows) under the id `<id>#<row>`, so that every problem id in the table stays unique.
pub fn build_records(source: &Source, programs: ProgramSource) -> Vec<ProblemRecord> {
    build_records_linked(source, programs, Links::DIGITS)
}

/// [`build_records`] with links beyond the paper's digits-only alignment.
pub fn build_records_linked(
    source: &Source,
    programs: ProgramSource,
    links: Links,
) -> Vec<ProblemRecord> {
    let mut records: Vec<ProblemRecord> = source
        .rows
        .par_iter()
        .map(|raw| {
            // A panic in one row is that row's refusal: the others are validated and written.
            crate::contain::run(|| {
                crate::contain::planted_panic(|| format!("ingest:{}", raw.source_index));
                build_record(raw, &source.dataset, &source.split, programs, links)
            })
            .unwrap_or_else(|panicked| failed_record(raw, source, panicked))
        })
        .collect();
    let mut first_row: HashMap<String, i64> = HashMap::new();
    for r in &mut records {
        if let Some(&row) = first_row.get(&r.problem_id) {
            r.error = Some(ProgramError::new(
                ErrorKind::BadInput,
                format!(
                    "{}: row {}: duplicate id (row {} has it too)",
                    source.path.display(),
                    r.source_index + 1,
                    row + 1
                ),
            ));
            r.tree = None;
            r.problem_id = format!("{}#{}", r.problem_id, r.source_index + 1);
        } else {
            first_row.insert(r.problem_id.clone(), r.source_index);
        }
    }
    records
}

/// The record of a row whose validation panicked: its question kept whole (no slots), refused
/// as `internal_error` with the panic's message and where it happened.
fn failed_record(
    raw: &RawProblem,
    source: &Source,
    panicked: crate::contain::Panicked,
) -> ProblemRecord {
    let id_part = raw
        .id
        .clone()
        .unwrap_or_else(|| raw.source_index.to_string());
    ProblemRecord {
        problem_id: format!("{}/{}/{id_part}", source.dataset, source.split),
        dataset: source.dataset.clone(),
        split: source.split.clone(),
        source_index: raw.source_index,
        question: raw.question.clone(),
        question_template: template(&raw.question, &[]),
        slot_values: Vec::new(),
        answer: None,
        program: None,
        program_origin: "none".into(),
        tree: None,
        error: Some(ProgramError::new(
            ErrorKind::Internal,
            format!(
                "{}: row {}: {panicked}",
                source.path.display(),
                raw.source_index + 1
            ),
        )),
    }
}

/// Per-source outcome counts.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    pub dataset: String,
    pub split: String,
    pub total: usize,
    pub valid: usize,
    pub by_origin: BTreeMap<String, usize>,
    pub by_kind: BTreeMap<ErrorKind, usize>,
}

impl Coverage {
    pub fn of(records: &[ProblemRecord]) -> Coverage {
        let mut c = Coverage {
            dataset: records
                .first()
                .map(|r| r.dataset.clone())
                .unwrap_or_default(),
            split: records.first().map(|r| r.split.clone()).unwrap_or_default(),
            total: records.len(),
            ..Default::default()
        };
        for r in records {
            if r.is_valid() {
                c.valid += 1;
                *c.by_origin.entry(r.program_origin.clone()).or_default() += 1;
            } else if let Some(e) = &r.error {
                *c.by_kind.entry(e.kind).or_default() += 1;
            }
        }
        c
    }

    pub fn valid_share(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.valid as f64 / self.total as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::read::bad_row;
    use super::*;
    use crate::store::problems::{batch_to_records, records_to_batch};

    #[test]
    fn records_round_trip_through_arrow() {
        let raw = RawProblem {
            source_index: 3,
            question: "Tom has 5 apples and buys 7 more.".into(),
            answer: Some("12".into()),
            program: Some(Ok("a = 5\nb = 7\nprint(a + b)".into())),
            ..Default::default()
        };
        let bad = bad_row(4, "f.jsonl: line 5: malformed JSON".into());
        let records = vec![
            build_record(&raw, "toy", "test", ProgramSource::Auto, Links::DIGITS),
            build_record(&bad, "toy", "test", ProgramSource::Auto, Links::DIGITS),
        ];
        assert!(records[0].is_valid(), "{:?}", records[0].error);
        assert_eq!(records[1].error.as_ref().unwrap().kind, ErrorKind::BadInput);
        let batch = records_to_batch(&records).unwrap();
        let back = batch_to_records(&batch).unwrap();
        assert_eq!(back, records);
    }

    #[test]
    fn a_repeated_id_is_recorded_not_merged() {
        let row = |index: i64, id: &str| RawProblem {
            source_index: index,
            id: Some(id.into()),
            question: "Tom has 5 apples and buys 7 more.".into(),
            answer: Some("12".into()),
            program: Some(Ok("a = 5\nb = 7\nprint(a + b)".into())),
            ..Default::default()
        };
        let source = Source {
            path: PathBuf::from("p.csv"),
            format: Format::Csv,
            dataset: "p".into(),
            split: "test".into(),
            rows: vec![row(0, "a"), row(1, "b"), row(2, "a")],
        };
        let records = build_records(&source, ProgramSource::Auto);
        let ids: Vec<&str> = records.iter().map(|r| r.problem_id.as_str()).collect();
        assert_eq!(ids, ["p/test/a", "p/test/b", "p/test/a#3"]);
        assert!(records[0].is_valid() && records[1].is_valid());
        let error = records[2].error.as_ref().unwrap();
        assert_eq!(error.kind, ErrorKind::BadInput);
        assert_eq!(
            error.detail,
            "p.csv: row 3: duplicate id (row 1 has it too)"
        );
    }
}
