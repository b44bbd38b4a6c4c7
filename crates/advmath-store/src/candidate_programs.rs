//! The `candidate_programs` table: every published model-written program (`ingest --candidates`)
//! matched to a problem, with its verdict; one file per (dataset, split) at
//! `candidate_programs/<dataset>__<split>.parquet`, named as its `problems` file is.
//!
//! The two files describe one ingest, so they are switched in together ([`write_with_problems`]):
//! the problems file and its candidate programs by one journal, or the problems file and the
//! removal of the candidate programs an earlier ingest left, when this one was given none.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::columns::utf8;
use crate::commit::{commit_journal, remove_leftovers, Move, TablesLock};
use crate::error::Result;
use crate::parquet::{read_batches, text_column, write_batch};
use crate::problems;
use advmath_core::program::{Program, ProgramError};

/// The table's folder name under the tables root.
pub const TABLE: &str = "candidate_programs";

/// The stage that writes the table.
pub const MADE_BY: &str = "ingest --candidates";

/// `program_origin` of a problem that took a published program: the prefix of its source.
pub const ORIGIN_PREFIX: &str = "published:";

/// `status` of a candidate that validated.
const VALID: &str = "valid";
/// `status` of a candidate that did not.
const REFUSED: &str = "refused";

pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("problem_id", false),
        utf8("source", false),
        utf8("family", false),
        utf8("file", false),
        Field::new("line", DataType::Int64, false),
        utf8("program", false),
        utf8("restoration", true),
        utf8("status", false),
        utf8("error_kind", true),
        utf8("error_detail", true),
        Field::new("chosen", DataType::Boolean, false),
        utf8("confirmed_by", true),
        utf8("tree", true),
    ]))
}

/// Column descriptions, in schema order.
pub const DOC: &[(&str, &str)] = &[
    ("problem_id", "the problem the program was matched to (`problems.problem_id`); a program matched to several problems (a question written twice) has a row for each"),
    ("source", "`<family>:<model>`: the model the row names, else the file's name without its extension (`tora:tora-70b-v1.0.gsm8k_test`, `pot:gsm8K_s0_e-1_11_17_10_20`, `pal:gsmhardv2`); `program_origin` of a problem that took the program is `published:<source>`"),
    ("family", "the project that released it: `tora` (microsoft/ToRA), `pot` (wenhuchen/Program-of-Thoughts) or `pal` (reasoning-machines/pal, inside GSM-Hard)"),
    ("file", "the candidate file as named on the command line"),
    ("line", "the row's line in that file, from 1"),
    ("program", "the Python program as read from the row (never run): ToRA's fenced block, PoT's script, PAL's function with GSM-Hard's number restored"),
    ("restoration", "GSM-Hard rows only: `unchanged`, or `<changed> -> <original>`, the number GSM-Hard wrote and the question's own, put back in the program"),
    ("status", "`valid` (validated exactly as a given program: parsed into the whitelisted subset, aligned with the question's numbers, computing the gold answer) or `refused`"),
    ("error_kind", "why it was refused, with the kinds of `problems.error_kind`"),
    ("error_detail", "a sentence naming the construct, value or number at fault"),
    ("chosen", "the problem took this program: its own (given or synthesised) was not valid, and this is its first valid candidate that another source confirms (`confirmed_by`), in the order the files were named, then by line"),
    ("confirmed_by", "a valid program's first confirming program: a valid candidate of another source that gives the same answer on every set of distinguishing numbers; null when none does (an unconfirmed program is never chosen: one program can match the gold answer by coincidence on the original numbers alone)"),
    ("tree", "a valid program's solution tree as JSON, as `problems.tree` (null when refused): `generate` holds each variant to it (`variants.support`)"),
];

/// One row: a candidate program judged against one problem.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateRecord {
    pub problem_id: String,
    pub source: String,
    pub family: String,
    pub file: String,
    /// From 1.
    pub line: u64,
    pub program: String,
    pub restoration: Option<String>,
    /// `None` when the program validated.
    pub error: Option<ProgramError>,
    pub chosen: bool,
    /// The source of the first other valid candidate that agrees with it, if any.
    pub confirmed_by: Option<String>,
    /// The validated tree (`None` when refused).
    pub tree: Option<Program>,
}

/// `<tables>/candidate_programs/<dataset>__<split>.parquet`, named as the problems file is.
pub fn candidate_programs_path(tables: &Path, dataset: &str, split: &str) -> PathBuf {
    tables.join(relative_file(TABLE, dataset, split))
}

/// `<table>/<dataset>__<split>.parquet`, below the tables folder.
fn relative_file(table: &str, dataset: &str, split: &str) -> PathBuf {
    let problems_file = problems::problems_path(Path::new(""), dataset, split);
    let name = problems_file
        .file_name()
        .expect("a problems file has a name")
        .to_os_string();
    Path::new(table).join(name)
}

/// Records as an Arrow batch in the table's schema.
pub fn records_to_batch(records: &[CandidateRecord]) -> Result<RecordBatch> {
    let text = |f: &dyn Fn(&CandidateRecord) -> Option<&str>| -> ArrayRef {
        Arc::new(records.iter().map(f).collect::<StringArray>())
    };
    let columns: Vec<ArrayRef> = vec![
        text(&|r| Some(&r.problem_id)),
        text(&|r| Some(&r.source)),
        text(&|r| Some(&r.family)),
        text(&|r| Some(&r.file)),
        Arc::new(
            records
                .iter()
                .map(|r| i64::try_from(r.line).unwrap_or(i64::MAX))
                .collect::<Int64Array>(),
        ),
        text(&|r| Some(&r.program)),
        text(&|r| r.restoration.as_deref()),
        text(&|r| Some(if r.error.is_none() { VALID } else { REFUSED })),
        text(&|r| r.error.as_ref().map(|e| e.kind.as_str())),
        text(&|r| r.error.as_ref().map(|e| e.detail.as_str())),
        Arc::new(
            records
                .iter()
                .map(|r| Some(r.chosen))
                .collect::<BooleanArray>(),
        ),
        text(&|r| r.confirmed_by.as_deref()),
        Arc::new(
            records
                .iter()
                .map(|r| r.tree.as_ref().map(Program::to_json))
                .collect::<StringArray>(),
        ),
    ];
    Ok(RecordBatch::try_new(schema(), columns)?)
}

/// The table's files, in name order (none when the folder is absent).
fn files(tables: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(tables.join(TABLE)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet") && p.is_file())
        .collect();
    files.sort();
    files
}

/// Each valid row of the table, in file and row order: its file, its row (from 1) and the texts
/// of `problem_id`, `source` and then the `more` columns (a row with any of them null is
/// skipped). A file without one of `more` (written by an older advmath) goes to `missing`
/// instead, once.
fn each_valid_row(
    tables: &Path,
    more: &[&str],
    mut missing: impl FnMut(&Path),
    mut row: impl FnMut(&Path, usize, &[&str]) -> Result<()>,
) -> Result<()> {
    for file in files(tables) {
        for batch in read_batches(&file)? {
            if more.iter().any(|c| batch.column_by_name(c).is_none()) {
                missing(&file);
                break;
            }
            let status = text_column(&batch, "status", &file)?;
            let columns = ["problem_id", "source"]
                .iter()
                .chain(more)
                .map(|c| text_column(&batch, c, &file))
                .collect::<Result<Vec<StringArray>>>()?;
            for i in 0..batch.num_rows() {
                if status.is_null(i) || status.value(i) != VALID {
                    continue;
                }
                let texts: Option<Vec<&str>> = columns
                    .iter()
                    .map(|c| (!c.is_null(i)).then(|| c.value(i)))
                    .collect();
                if let Some(texts) = texts {
                    row(&file, i + 1, &texts)?;
                }
            }
        }
    }
    Ok(())
}

/// One valid candidate's tree, as [`supporters`] reads it back.
#[derive(Clone, Debug)]
pub struct Supporter {
    pub source: String,
    pub tree: Program,
}

/// Each problem's valid candidate programs, one per source.
pub type SupportersByProblem = BTreeMap<String, Vec<Supporter>>;

/// Every valid candidate program of the tables, by problem, one per source (its first row):
/// the independent programs `generate` holds each variant to. A tables folder written before
/// the `tree` column has none to offer, and is read as having no supporters (say so: a
/// re-ingest writes them). A tree that does not read back is an error naming file and row.
pub fn supporters(tables: &Path) -> Result<(SupportersByProblem, Vec<PathBuf>)> {
    let mut out = SupportersByProblem::new();
    let mut without_trees = Vec::new();
    each_valid_row(
        tables,
        &["tree"],
        |file| without_trees.push(file.to_path_buf()),
        |file, row, texts| {
            let [problem, source, tree] = texts else {
                return Ok(());
            };
            let tree = Program::from_json(tree).map_err(|e| {
                crate::error::Error::invalid(
                    format!("{} row {row}", file.display()),
                    format!("the tree does not read back: {e}"),
                )
            })?;
            let of_problem = out.entry(problem.to_string()).or_default();
            if !of_problem.iter().any(|x| x.source == *source) {
                of_problem.push(Supporter {
                    source: source.to_string(),
                    tree,
                });
            }
            Ok(())
        },
    )?;
    Ok((out, without_trees))
}

/// The sources whose programs validated, per dataset (the first part of their problems' ids):
/// (family, source) pairs, for the dataset card's list of where second programs came from.
pub fn valid_sources(tables: &Path) -> Result<BTreeMap<String, BTreeSet<(String, String)>>> {
    let mut out: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    each_valid_row(
        tables,
        &["family"],
        |_| {},
        |_, _, texts| {
            if let [problem, source, family] = texts {
                let dataset = problem.split('/').next().unwrap_or(problem);
                out.entry(dataset.to_string())
                    .or_default()
                    .insert((family.to_string(), source.to_string()));
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// The prefix of an ingest's staging folder under the tables folder (the pid follows). The `=`
/// is a byte no dataset's name component holds, so no other stage's staging name shares it.
const STAGING_PREFIX: &str = ".staging-ingest=problems-";

/// Remove the staging folders dead ingests left undecided (hold the ingest's writer lock; a
/// decided one is finished by the next switch lock instead).
pub fn remove_dead_staging(tables: &Path) -> Result<usize> {
    remove_leftovers(tables, Some(STAGING_PREFIX))
}

/// Write one (dataset, split)'s problems file, and with it its candidate programs: given
/// `candidates`, both files switch in together; without, the file an earlier ingest wrote for it
/// is removed in the same switch (it judged programs against problems that are replaced). A
/// (dataset, split) with no candidate programs, old or new, is written as a single file, as
/// before. Hold the ingest's writer lock.
pub fn write_with_problems(
    tables: &Path,
    dataset: &str,
    split: &str,
    problems_batch: &RecordBatch,
    candidates: Option<&RecordBatch>,
) -> Result<PathBuf> {
    let problems_file = problems::problems_path(tables, dataset, split);
    let candidates_file = candidate_programs_path(tables, dataset, split);
    let stale = std::fs::symlink_metadata(&candidates_file).is_ok();
    if candidates.is_none() && !stale {
        write_batch(&problems_file, problems_batch)?;
        return Ok(problems_file);
    }
    let staging = tables.join(format!("{STAGING_PREFIX}{}", std::process::id()));
    let staged = (|| -> Result<()> {
        let _ = std::fs::remove_dir_all(&staging);
        let problems_rel = relative_file(problems::TABLE, dataset, split);
        let candidates_rel = relative_file(TABLE, dataset, split);
        write_batch(&staging.join(&problems_rel), problems_batch)?;
        let mut moves = vec![Move {
            staged: problems_rel.clone(),
            target: problems_rel,
        }];
        let mut removals = Vec::new();
        match candidates {
            Some(batch) => {
                write_batch(&staging.join(&candidates_rel), batch)?;
                moves.push(Move {
                    staged: candidates_rel.clone(),
                    target: candidates_rel,
                });
            }
            None => removals.push(candidates_rel),
        }
        let _switch = TablesLock::exclusive(tables)?;
        commit_journal(tables, &staging, &moves, &removals)
    })();
    if staged.is_err() && !staging.join(crate::commit::JOURNAL).is_file() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    staged?;
    Ok(problems_file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use advmath_core::program::ErrorKind;

    fn verdict(line: u64, error: Option<ProgramError>) -> CandidateRecord {
        CandidateRecord {
            problem_id: "d/test/0".into(),
            source: "pot:x".into(),
            family: "pot".into(),
            file: "x.jsonl".into(),
            line,
            program: "ans = 1 + 2".into(),
            restoration: None,
            chosen: error.is_none(),
            confirmed_by: None,
            tree: None,
            error,
        }
    }

    fn staging_left(tables: &Path) -> Vec<String> {
        std::fs::read_dir(tables)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".staging"))
            .collect()
    }

    #[test]
    fn verdicts_switch_in_with_their_problems_and_go_with_a_plain_ingest() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path();
        let problems_batch = problems::records_to_batch(&[]).unwrap();
        let verdicts = records_to_batch(&[
            verdict(2, None),
            verdict(
                3,
                Some(ProgramError::new(
                    ErrorKind::WrongAnswer,
                    "computes 4, not 3",
                )),
            ),
        ])
        .unwrap();
        let file = candidate_programs_path(tables, "d", "test");
        assert_eq!(
            file,
            tables.join("candidate_programs/d__test.parquet"),
            "named as the problems file is"
        );
        write_with_problems(tables, "d", "test", &problems_batch, Some(&verdicts)).unwrap();
        assert!(problems::problems_path(tables, "d", "test").is_file());
        let back = crate::parquet::read_batches(&file).unwrap();
        assert_eq!(back, vec![verdicts.clone()]);
        let status = crate::parquet::text_column(&back[0], "status", &file).unwrap();
        assert_eq!(
            status.iter().flatten().collect::<Vec<_>>(),
            [VALID, REFUSED]
        );
        assert!(staging_left(tables).is_empty());

        // Without candidates, the old verdicts go in the same switch as the new problems.
        write_with_problems(tables, "d", "test", &problems_batch, None).unwrap();
        assert!(!file.exists());
        assert!(problems::problems_path(tables, "d", "test").is_file());
        assert!(staging_left(tables).is_empty());
        // And with none to remove, the problems file is written alone.
        write_with_problems(tables, "e", "test", &problems_batch, None).unwrap();
        assert!(problems::problems_path(tables, "e", "test").is_file());
        assert!(!candidate_programs_path(tables, "e", "test").exists());
    }
}
