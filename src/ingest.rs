//! Read problem sources (GSM8K, MultiArith, the Xie et al. release, generic tables), attach a
//! validated solution program to each problem, and build the `problems` table.
//!
//! A bad row never aborts a run: it becomes an `invalid` problem whose `error_detail` names the
//! file, the row and the reason. Only an input that is unusable as a whole is an error.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, ListBuilder, RecordBatch, StringArray, StringBuilder};
use rayon::prelude::*;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::num::Num;
use crate::program::{validate_program, AlignMode, ErrorKind, Program, ProgramError};
use crate::question::{find_slots, template};
use crate::schema;
use crate::synth;

/// Source layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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
}

/// Which program a problem gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
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

/// One row of the `problems` table.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemRecord {
    pub problem_id: String,
    pub dataset: String,
    pub split: String,
    pub source_index: i64,
    pub question: String,
    pub question_template: String,
    pub slot_values: Vec<String>,
    pub answer: Option<String>,
    pub program: Option<String>,
    pub program_origin: String,
    pub tree: Option<Program>,
    pub error: Option<ProgramError>,
}

impl ProblemRecord {
    pub fn is_valid(&self) -> bool {
        self.error.is_none() && self.tree.is_some()
    }

    pub fn slot_nums(&self) -> Vec<Num> {
        self.slot_values
            .iter()
            .map(|s| crate::program::tree::num_text::from_text(s).unwrap_or(Num::ZERO))
            .collect()
    }
}

/// Detect the layout of `path`.
pub fn detect_format(path: &Path) -> Result<Format> {
    if path.is_dir() {
        if path.join("200_samples.json").is_file() {
            return Ok(Format::Xie);
        }
        return Err(Error::invalid(
            path.display(),
            "a folder is only read as the Xie et al. release (200_samples.json + code/); pass a file",
        ));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "csv" | "tsv" => Ok(Format::Csv),
        "parquet" | "pq" => Ok(Format::Parquet),
        "jsonl" | "ndjson" => {
            let bytes = read_nonempty(path)?;
            let first = bytes
                .split(|&b| b == b'\n')
                .find(|l| !l.iter().all(u8::is_ascii_whitespace))
                .unwrap_or(&[]);
            let gsm8k = serde_json::from_slice::<Value>(first)
                .ok()
                .and_then(|v| {
                    v.get("answer")
                        .and_then(Value::as_str)
                        .map(|a| a.contains("####"))
                })
                .unwrap_or(false);
            Ok(if gsm8k { Format::Gsm8k } else { Format::Jsonl })
        }
        "json" => {
            let bytes = read_nonempty(path)?;
            let text = String::from_utf8_lossy(&bytes);
            let head: String = text.chars().take(4096).collect();
            if head.contains("\"sQuestion\"") {
                Ok(Format::Multiarith)
            } else if head.contains("\"final_ans\"") {
                Ok(Format::Xie)
            } else {
                Err(Error::invalid(
                    path.display(),
                    "unknown JSON layout (expected MultiArith or the Xie release); use --format",
                ))
            }
        }
        _ => Err(Error::invalid(
            path.display(),
            "cannot tell the format from the file name; use --format",
        )),
    }
}

fn read_nonempty(path: &Path) -> Result<Vec<u8>> {
    let bytes = fs::read(path).map_err(|e| Error::file(path, e))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::invalid(path.display(), "the file is empty"));
    }
    Ok(bytes)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("data")
        .to_string()
}

fn split_from_name(path: &Path) -> Option<String> {
    let s = stem(path).to_ascii_lowercase();
    ["train", "test", "validation", "dev"]
        .iter()
        .find(|k| s == **k || s.ends_with(&format!("_{k}")) || s.ends_with(&format!("-{k}")))
        .map(|k| k.to_string())
}

/// Read a source file into raw problems.
pub fn read_source(path: &Path, opts: &IngestOptions) -> Result<Source> {
    let format = match opts.format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let (default_dataset, rows) = match format {
        Format::Gsm8k => ("gsm8k".to_string(), read_gsm8k(path)?),
        Format::Multiarith => ("multiarith".to_string(), read_multiarith(path)?),
        Format::Xie => {
            let (dir, json) = if path.is_dir() {
                (path.to_path_buf(), path.join("200_samples.json"))
            } else {
                (
                    path.parent().unwrap_or(Path::new(".")).to_path_buf(),
                    path.to_path_buf(),
                )
            };
            let name = dir
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("release")
                .to_ascii_lowercase();
            (
                format!("xie2024-{name}"),
                read_xie(&json, &dir.join("code"))?,
            )
        }
        Format::Jsonl | Format::Csv | Format::Parquet => {
            (stem(path), read_table(path, format, &opts.columns)?)
        }
    };
    if rows.is_empty() {
        return Err(Error::invalid(path.display(), "no problems in the file"));
    }
    let split = opts
        .split
        .clone()
        .or_else(|| split_from_name(path))
        .unwrap_or_else(|| "test".into());
    Ok(Source {
        path: path.to_path_buf(),
        format,
        dataset: opts.dataset.clone().unwrap_or(default_dataset),
        split,
        rows,
    })
}

fn bad_row(index: i64, reason: String) -> RawProblem {
    RawProblem {
        source_index: index,
        row_error: Some(reason),
        ..Default::default()
    }
}

fn read_gsm8k(path: &Path) -> Result<Vec<RawProblem>> {
    let bytes = read_nonempty(path)?;
    let mut rows = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let where_ = format!("{}: line {}", path.display(), i + 1);
        let index = i as i64;
        let text = match std::str::from_utf8(line) {
            Ok(t) => t,
            Err(e) => {
                rows.push(bad_row(
                    index,
                    format!("{where_}: not valid UTF-8 (byte {})", e.valid_up_to()),
                ));
                continue;
            }
        };
        let v: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                rows.push(bad_row(index, format!("{where_}: malformed JSON: {e}")));
                continue;
            }
        };
        let (Some(q), Some(a)) = (
            v.get("question").and_then(Value::as_str),
            v.get("answer").and_then(Value::as_str),
        ) else {
            rows.push(bad_row(
                index,
                format!("{where_}: missing \"question\" or \"answer\""),
            ));
            continue;
        };
        rows.push(RawProblem {
            source_index: index,
            question: q.to_string(),
            answer: synth::gsm8k_final_answer(a),
            worked: Some(Worked::Gsm8k(a.to_string())),
            ..Default::default()
        });
    }
    Ok(rows)
}

fn parse_json_array(path: &Path) -> Result<Vec<Value>> {
    let bytes = read_nonempty(path)?;
    let text = String::from_utf8_lossy(&bytes);
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(_) => Err(Error::invalid(
            path.display(),
            "expected a JSON array of problems",
        )),
        Err(e) => Err(Error::invalid(
            path.display(),
            format!("malformed JSON: {e}"),
        )),
    }
}

fn utf8_problem(text: &str, where_: &str) -> Option<String> {
    text.contains('\u{FFFD}')
        .then(|| format!("{where_}: contains bytes that are not valid UTF-8"))
}

fn read_multiarith(path: &Path) -> Result<Vec<RawProblem>> {
    let items = parse_json_array(path)?;
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let index = v.get("iIndex").and_then(Value::as_i64).unwrap_or(i as i64);
            let where_ = format!("{}: item {i} (iIndex {index})", path.display());
            let Some(q) = v.get("sQuestion").and_then(Value::as_str) else {
                return bad_row(index, format!("{where_}: missing \"sQuestion\""));
            };
            if let Some(reason) = utf8_problem(q, &where_) {
                return bad_row(index, reason);
            }
            let answer = v.get("lSolutions").and_then(|s| s.get(0)).and_then(|s| {
                s.as_f64()
                    .map(|f| Num::from_f64(f).to_string())
                    .or_else(|| s.as_str().map(String::from))
            });
            let equation = v
                .get("lEquations")
                .and_then(|e| e.get(0))
                .and_then(Value::as_str);
            let alignments: Vec<usize> = v
                .get("lAlignments")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_u64().map(|u| u as usize))
                        .collect()
                })
                .unwrap_or_default();
            RawProblem {
                source_index: index,
                question: q.to_string(),
                answer,
                worked: equation.map(|e| Worked::MultiArith {
                    equation: e.to_string(),
                    alignments,
                }),
                ..Default::default()
            }
        })
        .collect())
}

fn read_xie(json: &Path, code_dir: &Path) -> Result<Vec<RawProblem>> {
    let items = parse_json_array(json)?;
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let index = v.get("index").and_then(Value::as_i64).unwrap_or(i as i64);
            let where_ = format!("{}: item {i} (index {index})", json.display());
            let Some(q) = v.get("question").and_then(Value::as_str) else {
                return bad_row(index, format!("{where_}: missing \"question\""));
            };
            if let Some(reason) = utf8_problem(q, &where_) {
                return bad_row(index, reason);
            }
            let answer = v.get("final_ans").and_then(|a| match a {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
            let code_path = code_dir.join(format!("{index}.py"));
            let program = match fs::read(&code_path) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(s) => Ok(s),
                    Err(e) => Err(format!(
                        "{}: not valid UTF-8 (byte {})",
                        code_path.display(),
                        e.utf8_error().valid_up_to()
                    )),
                },
                Err(e) => Err(format!("{}: {e}", code_path.display())),
            };
            let worked = v
                .get("answer")
                .and_then(Value::as_str)
                .filter(|a| a.contains("<<"))
                .map(|a| Worked::Gsm8k(a.to_string()));
            RawProblem {
                source_index: index,
                question: q.to_string(),
                answer,
                program: Some(program),
                worked,
                ..Default::default()
            }
        })
        .collect())
}

/// Generic tables through polars: any column names, values read as text.
fn read_table(path: &Path, format: Format, cols: &Columns) -> Result<Vec<RawProblem>> {
    use polars::prelude::{
        CsvReadOptions, DataType as PlType, JsonFormat, JsonReader, ParquetReader, SerReader,
    };
    let file = || fs::File::open(path).map_err(|e| Error::file(path, e));
    read_nonempty(path)?;
    let df = match format {
        Format::Csv => CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .try_into_reader_with_file_path(Some(path.to_path_buf()))?
            .finish()?,
        Format::Jsonl => JsonReader::new(file()?)
            .with_json_format(JsonFormat::JsonLines)
            .finish()?,
        _ => ParquetReader::new(file()?).finish()?,
    };
    let column = |name: &str| -> Result<Vec<Option<String>>> {
        let c = df.column(name).map_err(|_| {
            let have: Vec<String> = df
                .get_column_names()
                .iter()
                .map(|s| s.to_string())
                .collect();
            Error::invalid(
                path.display(),
                format!("no column \"{name}\" (columns: {})", have.join(", ")),
            )
        })?;
        let c = c.cast(&PlType::String)?;
        let ca = c.str()?;
        Ok((0..ca.len()).map(|i| ca.get(i).map(String::from)).collect())
    };
    let questions = column(&cols.question)?;
    let answers = column(&cols.answer)?;
    let ids = cols.id.as_deref().map(column).transpose()?;
    let programs = cols.program.as_deref().map(column).transpose()?;
    Ok(questions
        .into_iter()
        .enumerate()
        .map(|(i, q)| {
            let where_ = format!("{}: row {}", path.display(), i + 1);
            let Some(q) = q.filter(|q| !q.trim().is_empty()) else {
                return bad_row(i as i64, format!("{where_}: empty question"));
            };
            let answer = answers[i].clone();
            // A GSM8K-style answer column carries a worked solution.
            let worked = answer
                .as_ref()
                .filter(|a| a.contains("<<"))
                .map(|a| Worked::Gsm8k(a.clone()));
            let answer = answer.map(|a| synth::gsm8k_final_answer(&a).unwrap_or(a));
            RawProblem {
                source_index: i as i64,
                id: ids.as_ref().and_then(|v| v[i].clone()),
                question: q,
                answer,
                program: programs.as_ref().map(|p| {
                    p[i].clone()
                        .ok_or_else(|| format!("{where_}: empty program"))
                }),
                worked,
                ..Default::default()
            }
        })
        .collect())
}

/// Validate one raw problem into a record.
pub fn build_record(
    raw: &RawProblem,
    dataset: &str,
    split: &str,
    programs: ProgramSource,
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
        Some(a) => match Num::parse_decimal(&a) {
            Some(n) => {
                record.answer = Some(n.to_string());
                Some(n)
            }
            None => {
                record.error = Some(ProgramError::new(
                    ErrorKind::BadInput,
                    format!("answer {a:?} is not a number"),
                ));
                return record;
            }
        },
        None => None,
    };
    let given = || -> Option<std::result::Result<(Program, String), ProgramError>> {
        let src = raw.program.as_ref()?;
        Some(match src {
            Err(reason) => Err(ProgramError::new(ErrorKind::MissingProgram, reason.clone())),
            Ok(src) => validate_program(src, &raw.question, &slots, gold, AlignMode::Given)
                .map(|p| (p, src.clone())),
        })
    };
    let synthesised = || -> Option<std::result::Result<(Program, &'static str), ProgramError>> {
        let worked = raw.worked.as_ref()?;
        let Some(gold) = gold else {
            return Some(Err(ProgramError::new(
                ErrorKind::BadInput,
                "no gold answer to check a synthesised program against",
            )));
        };
        Some(match worked {
            Worked::Gsm8k(solution) => synth::from_gsm8k(&raw.question, &slots, solution, gold)
                .map(|p| (p, "gsm8k_annotations")),
            Worked::MultiArith {
                equation,
                alignments,
            } => synth::from_multiarith(&raw.question, &slots, equation, alignments, gold)
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
    record
}

/// Validate every problem of a source (in parallel; order kept).
pub fn build_records(source: &Source, programs: ProgramSource) -> Vec<ProblemRecord> {
    source
        .rows
        .par_iter()
        .map(|raw| build_record(raw, &source.dataset, &source.split, programs))
        .collect()
}

/// Records as an Arrow batch in the `problems` schema.
pub fn records_to_batch(records: &[ProblemRecord]) -> Result<RecordBatch> {
    let s = |f: fn(&ProblemRecord) -> Option<String>| -> ArrayRef {
        Arc::new(records.iter().map(f).collect::<StringArray>())
    };
    let mut slots = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
        arrow::datatypes::Field::new("item", arrow::datatypes::DataType::Utf8, false),
    ));
    for r in records {
        for v in &r.slot_values {
            slots.values().append_value(v);
        }
        slots.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        s(|r| Some(r.problem_id.clone())),
        s(|r| Some(r.dataset.clone())),
        s(|r| Some(r.split.clone())),
        Arc::new(
            records
                .iter()
                .map(|r| r.source_index)
                .collect::<Int64Array>(),
        ),
        s(|r| Some(r.question.clone())),
        s(|r| Some(r.question_template.clone())),
        Arc::new(slots.finish()),
        s(|r| r.answer.clone()),
        s(|r| r.program.clone()),
        s(|r| Some(r.program_origin.clone())),
        s(|r| r.tree.as_ref().map(Program::to_json)),
        s(|r| Some(if r.is_valid() { "valid" } else { "invalid" }.to_string())),
        s(|r| r.error.as_ref().map(|e| e.kind.as_str().to_string())),
        s(|r| r.error.as_ref().map(|e| e.detail.clone())),
    ];
    Ok(RecordBatch::try_new(schema::problems(), columns)?)
}

/// Read a `problems` table back (for generation).
pub fn batch_to_records(batch: &RecordBatch) -> Result<Vec<ProblemRecord>> {
    use arrow::array::{Array, AsArray};
    let col = |name: &str| -> Result<&StringArray> {
        batch
            .column_by_name(name)
            .and_then(|c| c.as_any().downcast_ref::<StringArray>())
            .ok_or_else(|| Error::invalid("problems table", format!("missing text column {name}")))
    };
    let opt = |a: &StringArray, i: usize| (!a.is_null(i)).then(|| a.value(i).to_string());
    let (pid, ds, sp, q, qt, ans, prog, origin, tree, kind, detail) = (
        col("problem_id")?,
        col("dataset")?,
        col("split")?,
        col("question")?,
        col("question_template")?,
        col("answer")?,
        col("program")?,
        col("program_origin")?,
        col("tree")?,
        col("error_kind")?,
        col("error_detail")?,
    );
    let idx = batch
        .column_by_name("source_index")
        .and_then(|c| c.as_any().downcast_ref::<Int64Array>())
        .ok_or_else(|| Error::invalid("problems table", "missing source_index"))?;
    let slots = batch
        .column_by_name("slot_values")
        .ok_or_else(|| Error::invalid("problems table", "missing slot_values"))?
        .as_list::<i32>();
    (0..batch.num_rows())
        .map(|i| {
            let tree = match opt(tree, i) {
                Some(t) => Some(Program::from_json(&t)?),
                None => None,
            };
            let error = opt(kind, i).map(|k| {
                let kind = ALL_KINDS
                    .iter()
                    .copied()
                    .find(|x| x.as_str() == k)
                    .unwrap_or(ErrorKind::BadInput);
                ProgramError::new(kind, opt(detail, i).unwrap_or_default())
            });
            let sv = slots.value(i);
            let sv = sv.as_string::<i32>();
            Ok(ProblemRecord {
                problem_id: pid.value(i).to_string(),
                dataset: ds.value(i).to_string(),
                split: sp.value(i).to_string(),
                source_index: idx.value(i),
                question: q.value(i).to_string(),
                question_template: qt.value(i).to_string(),
                slot_values: (0..sv.len()).map(|j| sv.value(j).to_string()).collect(),
                answer: opt(ans, i),
                program: opt(prog, i),
                program_origin: origin.value(i).to_string(),
                tree,
                error,
            })
        })
        .collect()
}

const ALL_KINDS: &[ErrorKind] = &[
    ErrorKind::HasLoop,
    ErrorKind::HasBranch,
    ErrorKind::HasComparison,
    ErrorKind::WrongAnswer,
    ErrorKind::NumberMisalignment,
    ErrorKind::UnresolvedConstant,
    ErrorKind::Unsupported,
    ErrorKind::ParseError,
    ErrorKind::EvalError,
    ErrorKind::MissingProgram,
    ErrorKind::BadInput,
];

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

/// The table file for one source: `<tables>/problems/<dataset>__<split>.parquet`.
pub fn problems_path(tables: &Path, dataset: &str, split: &str) -> PathBuf {
    tables.join("problems").join(format!(
        "{}__{}.parquet",
        sanitize(dataset),
        sanitize(split)
    ))
}

pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Read all `problems` tables under `tables`.
pub fn read_problems(tables: &Path) -> Result<Vec<ProblemRecord>> {
    let dir = tables.join("problems");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| Error::file(&dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::invalid(
            dir.display(),
            "no problems tables (run `advmath ingest` first)",
        ));
    }
    let mut out = Vec::new();
    for f in files {
        for b in crate::table::read_batches(&f)? {
            out.extend(batch_to_records(&b)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            build_record(&raw, "toy", "test", ProgramSource::Auto),
            build_record(&bad, "toy", "test", ProgramSource::Auto),
        ];
        assert!(records[0].is_valid(), "{:?}", records[0].error);
        assert_eq!(records[1].error.as_ref().unwrap().kind, ErrorKind::BadInput);
        let batch = records_to_batch(&records).unwrap();
        let back = batch_to_records(&batch).unwrap();
        assert_eq!(back, records);
    }
}
