//! Source readers: detect a file's layout and turn its rows into [`RawProblem`]s, a bad row
//! becoming a problem that carries its reason.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{Columns, Format, IngestOptions, RawProblem, Source, Worked};
use crate::error::{Error, Result};
use crate::input::{
    question_too_long, screen_csv, screen_json_lines, separator_of, BadRow, Screened,
};
use crate::num::Num;
use crate::synth;

/// The files beside a missing input whose names are closest to it, as a suggestion.
fn near_names(path: &Path) -> String {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Some(wanted) = path.file_name().map(|n| n.to_string_lossy().to_lowercase()) else {
        return String::new();
    };
    let Ok(entries) = fs::read_dir(parent) else {
        return format!(" (no folder {})", parent.display());
    };
    let mut near: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            let n = n.to_lowercase();
            let stem = |s: &str| s.split('.').next().unwrap_or_default().to_string();
            n.starts_with(&stem(&wanted)) || wanted.starts_with(&stem(&n)) && !stem(&n).is_empty()
        })
        .collect();
    near.sort();
    near.truncate(3);
    if near.is_empty() {
        String::new()
    } else {
        format!(" (beside it: {})", near.join(", "))
    }
}

/// Detect the layout of `path`.
pub fn detect_format(path: &Path) -> Result<Format> {
    if !path.exists() {
        return Err(Error::invalid(
            path.display(),
            format!("no such file or folder{}; ingest reads a .jsonl, .json, .csv or .parquet file, or the Xie et al. release folder", near_names(path)),
        ));
    }
    if super::robustmath::is_robustmath(path) {
        return Ok(Format::Robustmath);
    }
    if path.is_dir() {
        if path.join("200_samples.json").is_file() {
            return Ok(Format::Xie);
        }
        return Err(Error::invalid(
            path.display(),
            "a folder is only read as the Xie et al. release (200_samples.json + code/) or its RobustMath release (robustMath.json + robustBase.json); pass a file",
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
                    "unknown JSON layout (expected MultiArith or the Xie release); name the format",
                ))
            }
        }
        _ => Err(Error::invalid(
            path.display(),
            "cannot tell the format from the file name; name the format",
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
        Format::Robustmath => {
            return Err(Error::invalid(
                path.display(),
                "the RobustMath release is a rephrasing attack, not a problem source: `advmath ingest` writes it as variants (ingest::ingest_robustmath)",
            ))
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

pub(super) fn bad_row(index: i64, reason: String) -> RawProblem {
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
        if let Some(reason) = question_too_long(q) {
            rows.push(bad_row(index, format!("{where_}: {reason}")));
            continue;
        }
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

/// Why the question `text` of an item of a JSON file is a bad row, if it is.
fn question_problem(text: &str, where_: &str) -> Option<String> {
    if text.contains('\u{FFFD}') {
        return Some(format!("{where_}: contains bytes that are not valid UTF-8"));
    }
    question_too_long(text).map(|reason| format!("{where_}: {reason}"))
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
            if let Some(reason) = question_problem(q, &where_) {
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
            if let Some(reason) = question_problem(q, &where_) {
                return bad_row(index, reason);
            }
            let answer = v.get("final_ans").and_then(|a| match a {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
            let code_path = code_dir.join(format!("{index}.py"));
            // A question list with no code folder beside it gives no programs (they can be
            // borrowed with --programs-from); a release with one file missing records that file.
            let program = if !code_dir.is_dir() {
                None
            } else {
                Some(match fs::read(&code_path) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(s) => Ok(s),
                        Err(e) => Err(format!(
                            "{}: not valid UTF-8 (byte {})",
                            code_path.display(),
                            e.utf8_error().valid_up_to()
                        )),
                    },
                    Err(e) => Err(format!("{}: {e}", code_path.display())),
                })
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
                program,
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
    // Read once: the emptiness check and the table reader share the bytes.
    let bytes = read_nonempty(path)?;
    let unreadable = |source| Error::ReadTable {
        file: path.to_path_buf(),
        source,
    };
    // A bad row of a CSV or JSON Lines file (ragged, not UTF-8, not a JSON object, nested too
    // deep for the parser's stack) is set aside with its number; only the others reach polars.
    // `rows[k]` is the source row of table row k.
    let (df, rows, bad) = match format {
        Format::Csv | Format::Jsonl => {
            let Screened { text, rows, bad } = if format == Format::Csv {
                screen_csv(&bytes, separator_of(path))
                    .map_err(|reason| Error::invalid(path.display(), reason))?
            } else {
                screen_json_lines(&bytes)
            };
            if rows.is_empty() {
                return Ok(bad_rows(path, &bad));
            }
            let df = if format == Format::Csv {
                CsvReadOptions::default()
                    .with_has_header(true)
                    .with_infer_schema_length(Some(0))
                    .into_reader_with_file_handle(std::io::Cursor::new(text))
                    .finish()
            } else {
                JsonReader::new(std::io::Cursor::new(text))
                    .with_json_format(JsonFormat::JsonLines)
                    .finish()
            };
            (df.map_err(unreadable)?, rows, bad)
        }
        _ => (
            ParquetReader::new(std::io::Cursor::new(bytes))
                .finish()
                .map_err(unreadable)?,
            Vec::new(),
            Vec::new(),
        ),
    };
    let column = |name: &str| -> Result<Vec<Option<String>>> {
        let c = df.column(name).map_err(|_| {
            let have: Vec<String> = df
                .get_column_names()
                .iter()
                .map(|s| s.to_string())
                .collect();
            // Say which flag names this column, so the fix is one option away.
            let flag = if name == cols.question {
                "--question-col"
            } else if name == cols.answer {
                "--answer-col"
            } else if cols.id.as_deref() == Some(name) {
                "--id-col"
            } else {
                "--program-col"
            };
            Error::invalid(
                path.display(),
                format!(
                    "no column \"{name}\" (columns: {}); name the file's column with {flag} (the columns are named by --id-col, --question-col, --answer-col and --program-col)",
                    have.join(", ")
                ),
            )
        })?;
        let c = c.cast(&PlType::String)?;
        let ca = c.str()?;
        Ok((0..ca.len()).map(|i| ca.get(i).map(String::from)).collect())
    };
    let questions = column(&cols.question)?;
    let answers = column(&cols.answer)?;
    // Unnamed id and program columns are taken from columns called `id` and `program` when the
    // table has them, as a user who wrote such a file would expect.
    let has = |name: &str| df.get_column_names().iter().any(|c| c.as_str() == name);
    let conventional = |given: &Option<String>, name: &str| {
        given
            .clone()
            .or_else(|| has(name).then(|| name.to_string()))
    };
    let ids = conventional(&cols.id, "id")
        .as_deref()
        .map(column)
        .transpose()?;
    let programs = conventional(&cols.program, "program")
        .as_deref()
        .map(column)
        .transpose()?;
    let source_row = |k: usize| rows.get(k).copied().unwrap_or(k);
    let mut out: Vec<RawProblem> = questions
        .into_iter()
        .enumerate()
        .map(|(k, q)| {
            let i = source_row(k);
            let where_ = format!("{}: row {}", path.display(), i + 1);
            let Some(q) = q.filter(|q| !q.trim().is_empty()) else {
                return bad_row(i as i64, format!("{where_}: empty question"));
            };
            if let Some(reason) = question_too_long(&q) {
                return bad_row(i as i64, format!("{where_}: {reason}"));
            }
            let answer = answers[k].clone();
            // A GSM8K-style answer column carries a worked solution.
            let worked = answer
                .as_ref()
                .filter(|a| a.contains("<<"))
                .map(|a| Worked::Gsm8k(a.clone()));
            let answer = answer.map(|a| synth::gsm8k_final_answer(&a).unwrap_or(a));
            RawProblem {
                source_index: i as i64,
                id: ids.as_ref().and_then(|v| v[k].clone()),
                question: q,
                answer,
                program: programs.as_ref().map(|p| {
                    p[k].clone()
                        .ok_or_else(|| format!("{where_}: empty program"))
                }),
                worked,
                ..Default::default()
            }
        })
        .collect();
    out.extend(bad_rows(path, &bad));
    out.sort_by_key(|r| r.source_index);
    Ok(out)
}

fn bad_rows(path: &Path, bad: &[BadRow]) -> Vec<RawProblem> {
    bad.iter()
        .map(|b| bad_row(b.row as i64, b.describe(path)))
        .collect()
}
