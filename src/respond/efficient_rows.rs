//! The `efficient_responses` table: its row type, where its parts live, and its Arrow codec.
//! Rows are `responses` rows plus where they sit in the efficient-attack protocol
//! ([`super::efficient`]); its columns are defined in `schema::efficient_responses`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, RecordBatch, StringArray};
use serde::{Deserialize, Serialize};

use super::store::{part_files, Logged};
use super::{batch_to_rows, rows_to_batch, ResponseRow};
use crate::error::{Error, Result};
use crate::ingest::sanitize;
use crate::table::read_batches;

/// One row of `efficient_responses`: a response row, and where it sits in the protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EfficientRow {
    #[serde(flatten)]
    pub row: ResponseRow,
    pub cheap_model: String,
    pub efficient_compat: String,
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

/// Identifies a row: (run settings, plan attack, request key, variant).
pub(super) type RowId = (String, String, String, Option<String>);

/// The settings that make a run: rows of another cheap model, protocol, N or cap are another run.
pub(super) fn run_tag(
    cheap: &str,
    compat: &str,
    top_problems: i32,
    per_problem: Option<i32>,
) -> String {
    format!("{cheap}\u{0}{compat}\u{0}{top_problems}\u{0}{per_problem:?}")
}

impl EfficientRow {
    pub(super) fn run_tag(&self) -> String {
        run_tag(
            &self.cheap_model,
            &self.efficient_compat,
            self.top_problems,
            self.per_problem,
        )
    }
}

impl Logged for EfficientRow {
    type Id = RowId;
    fn id(&self) -> RowId {
        (
            self.run_tag(),
            self.plan_attack.clone(),
            self.row.response_key.clone(),
            self.row.variant_id.clone(),
        )
    }
    fn batch(rows: &[Self]) -> Result<RecordBatch> {
        efficient_batch(rows)
    }
}

/// The folder of a target's efficient-attack rows.
pub fn efficient_dir(tables: &Path, model: &str) -> PathBuf {
    tables.join("efficient_responses").join(sanitize(model))
}

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
        text(&|r| &r.efficient_compat),
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
    Ok(RecordBatch::try_new(
        crate::schema::efficient_responses(),
        columns,
    )?)
}

/// Every stored row of a target's efficient attacks.
pub fn read_efficient_rows(tables: &Path, model: &str) -> Result<Vec<EfficientRow>> {
    let mut out = Vec::new();
    for f in part_files(&efficient_dir(tables, model)) {
        for b in read_batches(&f)? {
            let base = batch_to_rows(&b, &f)?;
            let text = |n: &str| crate::table::text_column(&b, n, &f);
            let int = |n: &str| {
                b.column_by_name(n)
                    .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int32Type>().cloned())
                    .ok_or_else(|| Error::invalid(f.display(), format!("no Int32 column {n}")))
            };
            let (cheap, compat, plan) = (
                text("cheap_model")?,
                text("efficient_compat")?,
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
                    efficient_compat: compat.value(i).to_string(),
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
