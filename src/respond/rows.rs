//! One response: the question asked ([`Item`]), the scored answer ([`ResponseRow`]), its resume
//! key, and its Arrow form (the `responses` table, both ways).

use std::path::Path;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use serde::{Deserialize, Serialize};

use super::{client::Decoding, sim};
use crate::error::Result;
use crate::extract::{extract, is_correct, is_correct_exact};
use crate::num::Num;
use crate::program::tree::num_text;
use crate::prompt::Template;
use crate::schema;
use crate::seed::{fnv1a, mix};

/// How answers are read from responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Extraction {
    /// advmath's rules: the stated answer ("the answer is", boxed, ...), else the last number.
    #[default]
    Standard,
    /// The last number of the reply, as the ArithmAttack study scored (to reproduce its figures).
    LastNumber,
    /// Xie et al.'s scorer: the last match of `\d+\.?,?\d*`, no sign (to reproduce their figures).
    Xie2024,
}

/// One question to ask: a variant, or an outside row.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub variant_id: Option<String>,
    pub problem_id: Option<String>,
    pub dataset: Option<String>,
    pub attack: Option<String>,
    pub noise_level: Option<i32>,
    pub question: String,
    pub gold: Option<Num>,
    pub variant_index: i32,
}

/// One row of the `responses` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseRow {
    pub response_key: String,
    pub model: String,
    pub template: String,
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

impl ResponseRow {
    /// A row for a generated text: extraction and scoring happen here, once.
    pub fn scored(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
    ) -> ResponseRow {
        Self::scored_by(
            key,
            model,
            template,
            item,
            text,
            source,
            Extraction::Standard,
        )
    }

    /// As [`ResponseRow::scored`], with a chosen extraction scheme.
    pub fn scored_by(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
        extraction: Extraction,
    ) -> ResponseRow {
        let e = match extraction {
            Extraction::Standard => extract(&text),
            Extraction::LastNumber => crate::extract::extract_last_number(&text),
            Extraction::Xie2024 => crate::extract::extract_xie2024(&text),
        };
        ResponseRow {
            response_key: key,
            model: model.to_string(),
            template: template.to_string(),
            variant_id: item.variant_id.clone(),
            problem_id: item.problem_id.clone(),
            dataset: item.dataset.clone(),
            attack: item.attack.clone(),
            noise_level: item.noise_level,
            question: item.question.clone(),
            response: Some(text),
            extracted: e.value.map(|v| num_text::to_text(&v)),
            extraction_rule: e.rule.name().to_string(),
            gold: item.gold.map(|g| num_text::to_text(&g)),
            correct: item.gold.map(|g| is_correct(e.value, g)),
            correct_exact: item.gold.map(|g| is_correct_exact(e.value, g)),
            latency_ms: None,
            prompt_tokens: None,
            completion_tokens: None,
            finish_reason: None,
            source: source.to_string(),
            simulated: sim::is_simulated(model),
            error: None,
        }
    }
}

/// The request key: hex of two independent 64-bit hashes of the settings and the question. Two
/// variants with the same question share it (and one reply); a row is identified by the key and
/// its variant ([`ResponseRow::row_id`]).
pub fn response_key(
    model: &str,
    template: &Template,
    decoding: &Decoding,
    question: &str,
) -> String {
    let text = format!(
        "{model}\u{0}{}\u{0}{}\u{0}{question}",
        template.text,
        decoding.key_text()
    );
    let a = fnv1a(text.as_bytes());
    let b = mix(a ^ fnv1a(&[text.as_bytes(), b"\x01"].concat()));
    format!("{a:016x}{b:016x}")
}

pub fn rows_to_batch(rows: &[ResponseRow]) -> Result<RecordBatch> {
    let s = |f: &dyn Fn(&ResponseRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    Ok(RecordBatch::try_new(
        schema::responses(),
        vec![
            s(&|r| Some(&r.response_key)),
            s(&|r| Some(&r.model)),
            s(&|r| Some(&r.template)),
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
        ],
    )?)
}

impl ResponseRow {
    /// The row of `item` answered by the reply already given to an identical question: the same
    /// text and request metadata, scored against `item`'s own gold answer.
    pub fn reusing(&self, item: &Item, extraction: Extraction) -> ResponseRow {
        let mut row = ResponseRow::scored_by(
            self.response_key.clone(),
            &self.model,
            &self.template,
            item,
            self.response.clone().unwrap_or_default(),
            &self.source,
            extraction,
        );
        row.latency_ms = self.latency_ms;
        row.prompt_tokens = self.prompt_tokens;
        row.completion_tokens = self.completion_tokens;
        row.finish_reason = self.finish_reason.clone();
        row.simulated = self.simulated;
        row
    }

    /// What identifies a row: the request key and the variant it answers (two variants with the
    /// same question share the key, never the row).
    pub fn row_id(&self) -> (String, Option<String>) {
        (self.response_key.clone(), self.variant_id.clone())
    }
}

/// The rows of a `responses` batch read from `file` (columns by name, so extra columns are
/// ignored); a missing required column is an error naming the file.
pub fn batch_to_rows(b: &RecordBatch, file: &Path) -> Result<Vec<ResponseRow>> {
    let text = |n: &str| crate::table::text_column(b, n, file);
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
    let (vid, pid, dataset, attack, response, extracted, gold, finish, error) = (
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
    let (correct, correct_exact, simulated) = (
        boolean("correct"),
        boolean("correct_exact"),
        boolean("simulated"),
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
            simulated: flag(&simulated).unwrap_or_else(|| sim::is_simulated(model.value(i))),
            error: s(&error),
        });
    }
    Ok(out)
}
