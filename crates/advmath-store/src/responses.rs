//! The `responses` table: one row per (model, prompt, variant), in one folder per model of
//! Parquet parts, `responses/<model>/part-*.parquet`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};

use crate::columns::utf8;
use crate::error::Result;
use crate::paths::name_component;
use advmath_core::vocab::is_simulated;

/// The table's folder name under the tables root.
pub const TABLE: &str = "responses";

/// `<tables>/responses`.
pub fn dir(tables: &Path) -> PathBuf {
    tables.join(TABLE)
}

/// The folder of one model's responses: `<tables>/responses/<model>`.
pub fn model_dir(tables: &Path, model: &str) -> PathBuf {
    dir(tables).join(name_component(model))
}

/// The name of a new part written by a live run: the time and process make it unique, and name
/// order is write order.
pub fn part_name(tag: &str) -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    format!("part-{ms:014}-{}-{tag}.parquet", std::process::id())
}

/// The next part of a folder written by an offline run (`part-offline-NNNNN.parquet`): one past
/// the highest number any part of the folder carries, compacted parts (`part-offline-NNNNN-compactK`)
/// included, so that it never names an existing part, and is the same on every identical run.
pub fn offline_part(dir: &Path) -> Result<PathBuf> {
    let next = crate::parquet::parts(dir)?
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let digits = name.strip_prefix("part-offline-")?.get(..5)?;
            digits.parse::<usize>().ok()
        })
        .max()
        .map_or(0, |n| n + 1);
    Ok(dir.join(format!("part-offline-{next:05}.parquet")))
}

/// The part an outside import writes (`part-outside-<tag>.parquet`).
pub fn outside_part(dir: &Path, tag: &str) -> PathBuf {
    dir.join(format!("part-outside-{tag}.parquet"))
}

/// `responses`: one row per (model, prompt, variant), at `responses/<model>/part-*.parquet` (the folder
/// name is the sanitised model name; the `model` column holds the real one).
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("response_key", false),
        utf8("model", false),
        utf8("template", false),
        // Nullable so that parts written before the column existed still read (as `default`).
        utf8("run", true),
        utf8("variant_id", true),
        utf8("problem_id", true),
        utf8("dataset", true),
        utf8("attack", true),
        Field::new("noise_level", DataType::Int32, true),
        utf8("question", false),
        utf8("response", true),
        utf8("extracted", true),
        utf8("extraction_rule", false),
        utf8("gold", true),
        Field::new("correct", DataType::Boolean, true),
        Field::new("correct_exact", DataType::Boolean, true),
        Field::new("latency_ms", DataType::Float64, true),
        Field::new("prompt_tokens", DataType::Int64, true),
        Field::new("completion_tokens", DataType::Int64, true),
        utf8("finish_reason", true),
        utf8("source", false),
        Field::new("simulated", DataType::Boolean, false),
        utf8("error", true),
        // Nullable so that parts written before the column existed still read.
        Field::new("abstained", DataType::Boolean, true),
    ]))
}

/// The columns added after the first parts were written (nullable, so older parts still read):
/// the run, and whether the reply abstains.
pub fn later_columns() -> Vec<Field> {
    let schema = schema();
    ["run", "abstained"]
        .iter()
        .filter_map(|name| schema.field_with_name(name).ok().cloned())
        .collect()
}

pub const DOC: &[(&str, &str)] = &[
    ("response_key", "hash of (model, template, decoding settings, question, and the variant when the temperature is above 0): the request key; with run and variant_id, the resume key (at temperature 0 identical questions share one reply; each variant has its row)"),
    ("model", "model name as asked (`sim-*` models are simulated, `oracle` answers from the tree)"),
    ("template", "prompt template name (`xie2024`, `arithmattack`, or a file name)"),
    ("run", "the settings beyond model and template that produced the row: `default` (greedy, 512 tokens, advmath's extraction), or those that differ, e.g. `temperature=0.3,max_tokens=2000`; `imported` for outside results. Metrics never pool two runs: a model with several shows as `model [run]`"),
    ("variant_id", "the variant asked about (joins `variants`; null for outside rows that match none)"),
    ("problem_id", "its problem"),
    ("dataset", "its dataset"),
    ("attack", "its attack (`original`, `m3`, `punct30`, ...)"),
    ("noise_level", "punctuation noise level of the question, percent"),
    ("question", "the question text sent"),
    ("response", "the raw generation (null when the request failed for good)"),
    ("extracted", "the answer read from the response (null: nothing found, never zero)"),
    ("extraction_rule", "which rule found it: answer_is, final_answer_is, boxed, hashes, answer_colon, last_number, miss"),
    ("gold", "the exact gold answer (null: none known, or the question has none: see `correct`)"),
    ("correct", "extracted equals gold after rounding both to 2 decimals (Xie et al.'s matching rule); on a question with no answer (`missing`, gold null), the reply says it cannot be answered (`abstained`)"),
    ("correct_exact", "extracted equals gold exactly (on a question with no answer, as `correct`)"),
    ("latency_ms", "request latency, milliseconds"),
    ("prompt_tokens", "prompt tokens reported by the server"),
    ("completion_tokens", "completion tokens reported by the server"),
    ("finish_reason", "the server's finish reason"),
    ("source", "`endpoint`, `simulated`, `oracle`, `openai_batch`, `lm_eval`, `arithmattack_csv`, `gsm8k_solutions`, `generic`"),
    ("simulated", "true for offline models (oracle and sim-*): never a real LLM"),
    ("error", "why the request failed, when it did"),
    ("abstained", "the reply's last word is that the question cannot be answered (`advmath::extract::abstains`, documented in reports/abstention.md); null for rows graded before the column existed"),
];

/// One row of the `responses` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseRow {
    pub response_key: String,
    pub model: String,
    pub template: String,
    /// See [`DOC`]; rows logged before the field existed are `default`.
    #[serde(default = "default_run")]
    pub run: String,
    pub variant_id: Option<String>,
    pub problem_id: Option<String>,
    pub dataset: Option<String>,
    pub attack: Option<String>,
    pub noise_level: Option<i32>,
    pub question: String,
    pub response: Option<String>,
    pub extracted: Option<String>,
    pub extraction_rule: String,
    pub gold: Option<String>,
    /// The reply ends saying the question cannot be answered (`None`: graded before the column).
    #[serde(default)]
    pub abstained: Option<bool>,
    pub correct: Option<bool>,
    pub correct_exact: Option<bool>,
    pub latency_ms: Option<f64>,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub finish_reason: Option<String>,
    pub source: String,
    pub simulated: bool,
    pub error: Option<String>,
}

/// The run of rows written with every default setting (and of rows stored without a run).
pub const DEFAULT_RUN: &str = "default";

fn default_run() -> String {
    DEFAULT_RUN.to_string()
}

/// What identifies a row: its run, the request key and the variant it answers (two variants with
/// the same question share the key, never the row; two runs never share a row).
pub type RowId = (String, String, Option<String>);

impl ResponseRow {
    /// The row as part of `run`.
    pub fn in_run(mut self, run: &str) -> ResponseRow {
        self.run = run.to_string();
        self
    }

    pub fn row_id(&self) -> RowId {
        (
            self.run.clone(),
            self.response_key.clone(),
            self.variant_id.clone(),
        )
    }
}

/// How metrics name a model's run: the model alone when it has one run (under a template),
/// `model [run]` when it has several, so that two runs are two rows and never pooled. The SQL
/// view `graded` applies the same rule.
pub fn model_as_run(model: &str, run: &str, several_runs: bool) -> String {
    if several_runs {
        format!("{model} [{run}]")
    } else {
        model.to_string()
    }
}

/// Rows as a batch in the table's schema.
pub fn rows_to_batch(rows: &[ResponseRow]) -> Result<RecordBatch> {
    let s = |f: &dyn Fn(&ResponseRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    Ok(RecordBatch::try_new(
        schema(),
        vec![
            s(&|r| Some(&r.response_key)),
            s(&|r| Some(&r.model)),
            s(&|r| Some(&r.template)),
            s(&|r| Some(&r.run)),
            s(&|r| r.variant_id.as_deref()),
            s(&|r| r.problem_id.as_deref()),
            s(&|r| r.dataset.as_deref()),
            s(&|r| r.attack.as_deref()),
            Arc::new(rows.iter().map(|r| r.noise_level).collect::<Int32Array>()),
            s(&|r| Some(&r.question)),
            s(&|r| r.response.as_deref()),
            s(&|r| r.extracted.as_deref()),
            s(&|r| Some(&r.extraction_rule)),
            s(&|r| r.gold.as_deref()),
            Arc::new(rows.iter().map(|r| r.correct).collect::<BooleanArray>()),
            Arc::new(
                rows.iter()
                    .map(|r| r.correct_exact)
                    .collect::<BooleanArray>(),
            ),
            Arc::new(rows.iter().map(|r| r.latency_ms).collect::<Float64Array>()),
            Arc::new(rows.iter().map(|r| r.prompt_tokens).collect::<Int64Array>()),
            Arc::new(
                rows.iter()
                    .map(|r| r.completion_tokens)
                    .collect::<Int64Array>(),
            ),
            s(&|r| r.finish_reason.as_deref()),
            s(&|r| Some(&r.source)),
            Arc::new(
                rows.iter()
                    .map(|r| Some(r.simulated))
                    .collect::<BooleanArray>(),
            ),
            s(&|r| r.error.as_deref()),
            Arc::new(rows.iter().map(|r| r.abstained).collect::<BooleanArray>()),
        ],
    )?)
}

/// The rows of a `responses` batch read from `file` (columns by name, so extra columns are
/// ignored); a missing required column is an error naming the file.
pub fn batch_to_rows(b: &RecordBatch, file: &Path) -> Result<Vec<ResponseRow>> {
    let text = |n: &str| crate::parquet::text_column(b, n, file);
    let opt_text = |n: &str| {
        b.column_by_name(n)
            .and_then(|c| c.as_string_opt::<i32>().cloned())
    };
    let (key, model, template, question, rule, source) = (
        text("response_key")?,
        text("model")?,
        text("template")?,
        text("question")?,
        text("extraction_rule")?,
        text("source")?,
    );
    let (run, vid, pid, dataset, attack, response, extracted, gold, finish, error) = (
        opt_text("run"),
        opt_text("variant_id"),
        opt_text("problem_id"),
        opt_text("dataset"),
        opt_text("attack"),
        opt_text("response"),
        opt_text("extracted"),
        opt_text("gold"),
        opt_text("finish_reason"),
        opt_text("error"),
    );
    let boolean = |n: &str| {
        b.column_by_name(n)
            .and_then(|c| c.as_boolean_opt().cloned())
    };
    let (correct, correct_exact, simulated, abstained) = (
        boolean("correct"),
        boolean("correct_exact"),
        boolean("simulated"),
        boolean("abstained"),
    );
    let noise = b
        .column_by_name("noise_level")
        .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int32Type>().cloned());
    let latency = b.column_by_name("latency_ms").and_then(|c| {
        c.as_primitive_opt::<arrow::datatypes::Float64Type>()
            .cloned()
    });
    let int64 = |n: &str| {
        b.column_by_name(n)
            .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int64Type>().cloned())
    };
    let (prompt_tokens, completion_tokens) = (int64("prompt_tokens"), int64("completion_tokens"));
    let mut out = Vec::with_capacity(b.num_rows());
    for i in 0..b.num_rows() {
        let s = |a: &Option<StringArray>| {
            a.as_ref()
                .and_then(|a| (!a.is_null(i)).then(|| a.value(i).to_string()))
        };
        let flag =
            |a: &Option<BooleanArray>| a.as_ref().and_then(|a| (!a.is_null(i)).then(|| a.value(i)));
        out.push(ResponseRow {
            response_key: key.value(i).to_string(),
            model: model.value(i).to_string(),
            template: template.value(i).to_string(),
            run: s(&run).unwrap_or_else(default_run),
            variant_id: s(&vid),
            problem_id: s(&pid),
            dataset: s(&dataset),
            attack: s(&attack),
            noise_level: noise
                .as_ref()
                .and_then(|a| (!a.is_null(i)).then(|| a.value(i))),
            question: question.value(i).to_string(),
            response: s(&response),
            extracted: s(&extracted),
            extraction_rule: rule.value(i).to_string(),
            gold: s(&gold),
            abstained: flag(&abstained),
            correct: flag(&correct),
            correct_exact: flag(&correct_exact),
            latency_ms: latency
                .as_ref()
                .and_then(|a| (!a.is_null(i)).then(|| a.value(i))),
            prompt_tokens: prompt_tokens
                .as_ref()
                .and_then(|a| (!a.is_null(i)).then(|| a.value(i))),
            completion_tokens: completion_tokens
                .as_ref()
                .and_then(|a| (!a.is_null(i)).then(|| a.value(i))),
            finish_reason: s(&finish),
            source: source.value(i).to_string(),
            simulated: flag(&simulated).unwrap_or_else(|| is_simulated(model.value(i))),
            error: s(&error),
        });
    }
    Ok(out)
}

/// One scored response about a variant, as the feature study reads it.
pub struct Label<'a> {
    pub model: &'a str,
    pub template: &'a str,
    pub run: &'a str,
    pub variant_id: &'a str,
    pub correct: bool,
    pub simulated: bool,
}

/// Visit every scored response about a variant, batch by batch: only the six columns the
/// labels need are decoded, and no row is kept unless `visit` keeps it. Rows without a model,
/// template, variant or grade are not labels; parts written before runs were recorded hold the
/// default run.
pub fn each_label(tables: &Path, visit: &mut dyn FnMut(Label<'_>)) -> Result<()> {
    use arrow::array::{Array, AsArray};
    for (p, _) in crate::parquet::parquet_files_under(&dir(tables))? {
        let columns = [
            "model",
            "template",
            "run",
            "variant_id",
            "correct",
            "simulated",
        ];
        for b in crate::parquet::read_columns(&p, &columns)? {
            let (Some(m), Some(t), Some(v), Some(c)) = (
                b.column_by_name("model"),
                b.column_by_name("template"),
                b.column_by_name("variant_id"),
                b.column_by_name("correct"),
            ) else {
                continue;
            };
            let bad = |c: &str| {
                crate::error::Error::invalid(p.display(), format!("column {c} has the wrong type"))
            };
            let m = m.as_string_opt::<i32>().ok_or_else(|| bad("model"))?;
            let t = t.as_string_opt::<i32>().ok_or_else(|| bad("template"))?;
            let v = v.as_string_opt::<i32>().ok_or_else(|| bad("variant_id"))?;
            let c = c.as_boolean_opt().ok_or_else(|| bad("correct"))?;
            let sim = b
                .column_by_name("simulated")
                .and_then(|s| s.as_boolean_opt().cloned());
            let run = b
                .column_by_name("run")
                .and_then(|r| r.as_string_opt::<i32>().cloned());
            for i in 0..b.num_rows() {
                if m.is_null(i) || t.is_null(i) || v.is_null(i) || c.is_null(i) {
                    continue;
                }
                visit(Label {
                    model: m.value(i),
                    template: t.value(i),
                    run: run
                        .as_ref()
                        .filter(|r| !r.is_null(i))
                        .map_or(DEFAULT_RUN, |r| r.value(i)),
                    variant_id: v.value(i),
                    correct: c.value(i),
                    simulated: sim.as_ref().is_some_and(|s| s.value(i)),
                });
            }
        }
    }
    Ok(())
}

/// What resume and selection need of a stored response:
/// (response_key, variant_id, attack, correct, problem_id).
pub type StoredRow = (
    String,
    Option<String>,
    Option<String>,
    Option<bool>,
    Option<String>,
);

/// Read the [`StoredRow`] of every stored response of a model.
pub fn stored_rows(tables: &Path, model: &str) -> Result<Vec<StoredRow>> {
    let mut out = Vec::new();
    for f in crate::parquet::parts(&model_dir(tables, model))? {
        let columns = [
            "response_key",
            "variant_id",
            "attack",
            "problem_id",
            "correct",
        ];
        for b in crate::parquet::read_columns(&f, &columns)? {
            let col = |n: &str| b.column_by_name(n).map(|c| c.as_string::<i32>().clone());
            let (Some(keys), Some(vids), Some(attacks), Some(pids)) = (
                col("response_key"),
                col("variant_id"),
                col("attack"),
                col("problem_id"),
            ) else {
                return Err(crate::error::Error::invalid(
                    f.display(),
                    "not a responses table",
                ));
            };
            let correct = b.column_by_name("correct").map(|c| c.as_boolean().clone());
            for i in 0..b.num_rows() {
                let opt = |a: &StringArray| (!a.is_null(i)).then(|| a.value(i).to_string());
                let c = correct
                    .as_ref()
                    .and_then(|c| (!c.is_null(i)).then(|| c.value(i)));
                out.push((
                    keys.value(i).to_string(),
                    opt(&vids),
                    opt(&attacks),
                    c,
                    opt(&pids),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a compaction folded parts 0 and 1, two parts remain and one is numbered 2: the next
    /// part is 3, never a second 2.
    #[test]
    fn offline_parts_never_take_an_existing_name() {
        let dir = tempfile::tempdir().unwrap();
        let name = |p: PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            name(offline_part(dir.path()).unwrap()),
            "part-offline-00000.parquet"
        );
        for f in [
            "part-offline-00000-compact000.parquet",
            "part-offline-00002.parquet",
        ] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        assert_eq!(
            name(offline_part(dir.path()).unwrap()),
            "part-offline-00003.parquet"
        );
    }
}
