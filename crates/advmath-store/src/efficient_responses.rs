//! The `efficient_responses` table: the rows of efficient-attack runs, at
//! `efficient_responses/<target>/part-*.parquet`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};

use crate::columns::utf8;
use crate::error::{Error, Result};
use crate::parquet::parts;
use crate::parquet::read_batches;
use crate::paths::name_component;
use crate::responses::{batch_to_rows, rows_to_batch, ResponseRow};

/// The table's folder name under the tables root.
pub const TABLE: &str = "efficient_responses";

/// `efficient_responses`: the rows of efficient-attack runs (`respond --efficient-from`), at
/// `efficient_responses/<target>/part-*.parquet`: every `responses` column, then where the row
/// sits in the protocol. A table of its own, so these requests never mix with the target's full
/// run in the other metrics.
pub fn schema() -> SchemaRef {
    let mut fields: Vec<Field> = crate::responses::schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.extend([
        utf8("cheap_model", false),
        utf8("efficient_protocol", false),
        Field::new("top_problems", DataType::Int32, false),
        Field::new("per_problem", DataType::Int32, true),
        utf8("plan_attack", false),
        Field::new("problem_rank", DataType::Int32, false),
        Field::new("step", DataType::Int32, false),
        Field::new("candidates", DataType::Int32, false),
        Field::new("problem_variants", DataType::Int32, false),
        Field::new("attack_problems", DataType::Int32, false),
        Field::new("attack_variants", DataType::Int32, false),
    ]);
    Arc::new(Schema::new(fields))
}

/// The columns `efficient_responses` adds to those of `responses`.
pub const DOC: &[(&str, &str)] = &[
    ("cheap_model", "the cheap model whose answers ranked the problems and supplied the candidates"),
    ("efficient_protocol", "`wrong-variants` (the paper's text and the authors' script: every variant the cheap model gets wrong; no original asked) or `solved-originals` (only problems whose original the cheap model solves; the target's original asked first)"),
    ("top_problems", "problems attacked per dataset and attack (`--top-problems`, the paper's 50)"),
    ("per_problem", "at most this many candidates per problem (`--per-problem`; null: all)"),
    ("plan_attack", "the attack whose run the row belongs to (an original row is written for each attack that selected its problem)"),
    ("problem_rank", "the problem's rank in that run: 1 = most candidates (ties in problem-id order, numbers compared as numbers)"),
    ("step", "0 for the original, k for the k-th candidate sent"),
    ("candidates", "candidates queued for the problem, after the cap"),
    ("problem_variants", "the problem's variants of the attack: the requests a full attack sends for it"),
    ("attack_problems", "problems of the dataset with variants of the attack (a full attack on all of them)"),
    ("attack_variants", "their variants of the attack"),
];

/// One row of `efficient_responses`: a response row, and where it sits in the protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EfficientRow {
    #[serde(flatten)]
    pub row: ResponseRow,
    pub cheap_model: String,
    pub efficient_protocol: String,
    pub top_problems: i32,
    pub per_problem: Option<i32>,
    /// The attack whose plan the row belongs to (an original row is written for each plan).
    pub plan_attack: String,
    /// The problem's 1-based rank in that plan.
    pub problem_rank: i32,
    /// 0 for the original, k for the k-th candidate.
    pub step: i32,
    /// Candidates queued for the problem (after the cap).
    pub candidates: i32,
    /// The problem's variants of the attack: what a full attack would send for it.
    pub problem_variants: i32,
    /// Problems of the dataset with variants of the attack, and those variants: a full attack
    /// on every problem.
    pub attack_problems: i32,
    pub attack_variants: i32,
}

/// The folder of a target's efficient-attack rows.
pub fn efficient_dir(tables: &Path, model: &str) -> PathBuf {
    tables.join(TABLE).join(name_component(model))
}

/// Rows as a batch in the table's schema.
pub fn efficient_batch(rows: &[EfficientRow]) -> Result<RecordBatch> {
    let base: Vec<ResponseRow> = rows.iter().map(|r| r.row.clone()).collect();
    let mut columns: Vec<ArrayRef> = rows_to_batch(&base)?.columns().to_vec();
    let text = |f: &dyn Fn(&EfficientRow) -> &str| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
    };
    let int = |f: &dyn Fn(&EfficientRow) -> Option<i32>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<Int32Array>())
    };
    columns.extend([
        text(&|r| &r.cheap_model),
        text(&|r| &r.efficient_protocol),
        int(&|r| Some(r.top_problems)),
        int(&|r| r.per_problem),
        text(&|r| &r.plan_attack),
        int(&|r| Some(r.problem_rank)),
        int(&|r| Some(r.step)),
        int(&|r| Some(r.candidates)),
        int(&|r| Some(r.problem_variants)),
        int(&|r| Some(r.attack_problems)),
        int(&|r| Some(r.attack_variants)),
    ]);
    Ok(RecordBatch::try_new(schema(), columns)?)
}

/// Every stored row of a target's efficient attacks.
pub fn read_efficient_rows(tables: &Path, model: &str) -> Result<Vec<EfficientRow>> {
    let mut out = Vec::new();
    for f in parts(&efficient_dir(tables, model))? {
        for b in read_batches(&f)? {
            let base = batch_to_rows(&b, &f)?;
            let text = |n: &str| crate::parquet::text_column(&b, n, &f);
            let int = |n: &str| {
                b.column_by_name(n)
                    .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int32Type>().cloned())
                    .ok_or_else(|| Error::invalid(f.display(), format!("no Int32 column {n}")))
            };
            let (cheap, protocol, plan) = (
                text("cheap_model")?,
                text("efficient_protocol")?,
                text("plan_attack")?,
            );
            let (top, cap, rank, step, cands) = (
                int("top_problems")?,
                int("per_problem")?,
                int("problem_rank")?,
                int("step")?,
                int("candidates")?,
            );
            let (pvars, aprobs, avars) = (
                int("problem_variants")?,
                int("attack_problems")?,
                int("attack_variants")?,
            );
            for (i, row) in base.into_iter().enumerate() {
                out.push(EfficientRow {
                    row,
                    cheap_model: cheap.value(i).to_string(),
                    efficient_protocol: protocol.value(i).to_string(),
                    top_problems: top.value(i),
                    per_problem: (!cap.is_null(i)).then(|| cap.value(i)),
                    plan_attack: plan.value(i).to_string(),
                    problem_rank: rank.value(i),
                    step: step.value(i),
                    candidates: cands.value(i),
                    problem_variants: pvars.value(i),
                    attack_problems: aprobs.value(i),
                    attack_variants: avars.value(i),
                });
            }
        }
    }
    Ok(out)
}
