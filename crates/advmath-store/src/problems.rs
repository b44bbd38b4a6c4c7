//! The `problems` table: one file per (dataset, split) at `problems/<dataset>__<split>.parquet`,
//! one row per source problem, valid or not.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, ListBuilder, RecordBatch, StringArray, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::columns::{utf8, utf8_list};
use crate::error::{Error, Result};
use crate::paths::name_component;
use advmath_core::num::Num;
use advmath_core::program::{ErrorKind, Program, ProgramError};

/// The table's folder name under the tables root.
pub const TABLE: &str = "problems";

/// `problems`: one row per source problem, valid or not.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("problem_id", false),
        utf8("dataset", false),
        utf8("split", false),
        Field::new("source_index", DataType::Int64, false),
        utf8("question", false),
        utf8("question_template", false),
        utf8_list("slot_values"),
        utf8("answer", true),
        utf8("program", true),
        utf8("program_origin", false),
        utf8("tree", true),
        utf8("status", false),
        utf8("error_kind", true),
        utf8("error_detail", true),
    ]))
}

/// Column descriptions, in schema order, for the README and the dataset card.
pub const DOC: &[(&str, &str)] = &[
    ("problem_id", "stable id `<dataset>/<split>/<id>`: the source's id (`--id-col`, an `id` column, the Xie index) or the row index; a repeated id is kept as an invalid row `<id>#<row>`"),
    ("dataset", "source dataset (`gsm8k`, `multiarith`, `xie2024-gsm8k`, `default`, ...)"),
    ("split", "source split (`train`, `test`)"),
    ("source_index", "row or index in the source file"),
    ("question", "the original question text"),
    ("question_template", "the question with its numbers replaced by `{0}`, `{1}`, ... (literal braces doubled)"),
    ("slot_values", "the numbers of the question, exact decimal text, in slot order"),
    ("answer", "the gold answer, canonical text (null when the source has none)"),
    ("program", "the Python solution program (given, or synthesised from the worked solution)"),
    ("program_origin", "`given`, `gsm8k_annotations`, `multiarith_equations`, `published:<source>` (a published model-written program, `ingest --candidates`; its verdicts in `candidate_programs`), `llm:<model>` (`advmath programs`, kept also when rejected) or `none`"),
    ("tree", "the validated solution tree as JSON (null when invalid)"),
    ("status", "`valid` or `invalid`"),
    ("error_kind", "why the problem is invalid: has_loop, has_branch, has_comparison, wrong_answer (the program does not compute the dataset's answer, which stays the gold; for a synthesised program: no worked step computes it), number_misalignment, unresolved_constant, unsupported, parse_error, eval_error, missing_program, bad_input, unused_number (the question writes a number more often than the program uses it), ambiguous_operand (a synthesised step's operand could be two earlier quantities that give different answers), wrong_label (the dataset's answer contradicts its question: advmath's errata list)"),
    ("error_detail", "a sentence naming the construct, value or file row at fault"),
];

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

    /// The table's `status`: `valid` or `invalid`.
    pub fn status(&self) -> &'static str {
        if self.is_valid() {
            "valid"
        } else {
            "invalid"
        }
    }

    pub fn slot_nums(&self) -> Vec<Num> {
        self.slot_values
            .iter()
            .map(|s| advmath_core::program::tree::num_text::from_text(s).unwrap_or(Num::ZERO))
            .collect()
    }
}

/// The table file for one source: `<tables>/problems/<dataset>__<split>.parquet`.
pub fn problems_path(tables: &Path, dataset: &str, split: &str) -> PathBuf {
    tables.join(TABLE).join(format!(
        "{}__{}.parquet",
        name_component(dataset),
        name_component(split)
    ))
}

/// Read all `problems` tables under `tables`.
pub fn read_problems(tables: &Path) -> Result<Vec<ProblemRecord>> {
    let dir = tables.join(TABLE);
    if !dir.is_dir() {
        return Err(Error::missing_table(TABLE, dir, MADE_BY));
    }
    let files = files(tables)?;
    if files.is_empty() {
        return Err(Error::missing_table(TABLE, dir, MADE_BY));
    }
    let mut out = Vec::new();
    for f in files {
        out.extend(read_file(&f)?);
    }
    Ok(out)
}

/// `<tables>/problems`.
pub fn dir(tables: &Path) -> PathBuf {
    tables.join(TABLE)
}

/// The stage that writes the table.
pub const MADE_BY: &str = "ingest";

/// The table's files, one per (dataset, split), in name order; an absent table is an error
/// naming its folder.
pub fn files(tables: &Path) -> Result<Vec<PathBuf>> {
    let dir = tables.join(TABLE);
    if !dir.is_dir() {
        fs::read_dir(&dir).map_err(|e| Error::file(&dir, e))?;
    }
    crate::parquet::parts(&dir)
}

/// The records of one file of the table.
pub fn read_file(file: &Path) -> Result<Vec<ProblemRecord>> {
    let mut out = Vec::new();
    for b in crate::parquet::read_batches(file)? {
        out.extend(batch_to_records(&b)?);
    }
    Ok(out)
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
        s(|r| Some(r.status().to_string())),
        s(|r| r.error.as_ref().map(|e| e.kind.as_str().to_string())),
        s(|r| r.error.as_ref().map(|e| e.detail.clone())),
    ];
    Ok(RecordBatch::try_new(schema(), columns)?)
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
                let kind = ErrorKind::from_name(&k).unwrap_or(ErrorKind::BadInput);
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
