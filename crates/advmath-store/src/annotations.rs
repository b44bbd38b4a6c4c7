//! The `annotations` table: people's verdicts from filled annotation sheets (`advmath annotate
//! ingest`), one row per (annotator, item, criterion), at `annotations/<kind>/<annotator>.parquet`.
//! A verdict ingested again (a corrected sheet, the same sheet under another name) replaces the
//! one with its key, so it never counts twice, and two annotators' sheets with one file name keep
//! each their own verdicts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::columns::utf8;
use crate::error::{Error, Result};
use crate::parquet::write_batch;
use crate::paths::name_component;

/// The table's folder name under the tables root.
pub const TABLE: &str = "annotations";

/// What makes the table.
pub const MADE_BY: &str = "advmath annotate ingest";

/// `<tables>/annotations/<kind>/<annotator>.parquet`.
pub fn file(tables: &Path, kind: &str, annotator: &str) -> PathBuf {
    tables.join(TABLE).join(name_component(kind)).join(format!(
        "{}{}",
        name_component(annotator),
        crate::paths::PARQUET_EXT
    ))
}

/// `annotations`: one row per verdict.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("kind", false),
        utf8("sheet", false),
        utf8("annotator", false),
        utf8("item", false),
        utf8("model", false),
        utf8("template", true),
        utf8("dataset", false),
        utf8("attack", false),
        utf8("problem_id", true),
        utf8("variant_id", true),
        utf8("criterion", false),
        Field::new("value", DataType::Int32, false),
    ]))
}

pub const DOC: &[(&str, &str)] = &[
    ("kind", "`human_eval` (Xie et al. Figure 2) or `miss_rate` (ArithmAttack Table 2)"),
    ("sheet", "the file name (without extension) of the sheet the verdict was last ingested from"),
    ("annotator", "who filled the sheet (its `annotator` column, else the file name)"),
    ("item", "the sheet's item id (`h0001`, `m00001`, ...): the same across every annotator's copy"),
    ("model", "`human_eval`: the model whose adversarial examples were drawn; `miss_rate`: the model whose reply was read"),
    ("template", "the prompt template of those responses"),
    ("dataset", "the item's dataset"),
    ("attack", "`human_eval`: the method (m1, m2, m3, ...); `miss_rate`: the reply's attack (`original`, `punct10`, ...)"),
    ("problem_id", "the item's problem"),
    ("variant_id", "the variant shown (`human_eval`) or answered (`miss_rate`)"),
    ("criterion", "`correctness`, `coherence`, `similarity` (`human_eval`) or `missed` (`miss_rate`)"),
    ("value", "1 when the criterion holds (for `missed`: the reply states the right answer but the extracted one is not it), 0 when not"),
];

/// One verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct AnnotationRow {
    pub kind: String,
    pub sheet: String,
    pub annotator: String,
    pub item: String,
    pub model: String,
    pub template: Option<String>,
    pub dataset: String,
    pub attack: String,
    pub problem_id: Option<String>,
    pub variant_id: Option<String>,
    pub criterion: String,
    pub value: i32,
}

/// Rows as a batch in the table's schema.
pub fn rows_to_batch(rows: &[AnnotationRow]) -> Result<RecordBatch> {
    let text = |f: fn(&AnnotationRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    let cols: Vec<ArrayRef> = vec![
        text(|r| Some(&r.kind)),
        text(|r| Some(&r.sheet)),
        text(|r| Some(&r.annotator)),
        text(|r| Some(&r.item)),
        text(|r| Some(&r.model)),
        text(|r| r.template.as_deref()),
        text(|r| Some(&r.dataset)),
        text(|r| Some(&r.attack)),
        text(|r| r.problem_id.as_deref()),
        text(|r| r.variant_id.as_deref()),
        text(|r| Some(&r.criterion)),
        Arc::new(rows.iter().map(|r| r.value).collect::<Int32Array>()),
    ];
    Ok(RecordBatch::try_new(schema(), cols)?)
}

/// The verdicts stored in one file.
pub fn read(path: &Path) -> Result<Vec<AnnotationRow>> {
    let mut out = Vec::new();
    for b in crate::parquet::read_batches(path)? {
        let bad = |c: &str| {
            Error::invalid(
                path.display(),
                format!("column {c} is missing or has the wrong type"),
            )
        };
        let text = |c: &'static str| {
            b.column_by_name(c)
                .and_then(|a| a.as_string_opt::<i32>().cloned())
                .ok_or_else(|| bad(c))
        };
        let (
            kind,
            sheet,
            annotator,
            item,
            model,
            template,
            dataset,
            attack,
            problem,
            variant,
            criterion,
        ) = (
            text("kind")?,
            text("sheet")?,
            text("annotator")?,
            text("item")?,
            text("model")?,
            text("template")?,
            text("dataset")?,
            text("attack")?,
            text("problem_id")?,
            text("variant_id")?,
            text("criterion")?,
        );
        let value = b
            .column_by_name("value")
            .and_then(|a| a.as_primitive_opt::<arrow::datatypes::Int32Type>().cloned())
            .ok_or_else(|| bad("value"))?;
        let opt = |a: &StringArray, i: usize| (!a.is_null(i)).then(|| a.value(i).to_string());
        for i in 0..b.num_rows() {
            out.push(AnnotationRow {
                kind: kind.value(i).to_string(),
                sheet: sheet.value(i).to_string(),
                annotator: annotator.value(i).to_string(),
                item: item.value(i).to_string(),
                model: model.value(i).to_string(),
                template: opt(&template, i),
                dataset: dataset.value(i).to_string(),
                attack: attack.value(i).to_string(),
                problem_id: opt(&problem, i),
                variant_id: opt(&variant, i),
                criterion: criterion.value(i).to_string(),
                value: value.value(i),
            });
        }
    }
    Ok(out)
}

/// Merge one annotator's new verdicts into their file: a verdict replaces the stored one with the
/// same (item, criterion), the others stay. Returns the file.
pub fn merge(
    tables: &Path,
    kind: &str,
    annotator: &str,
    rows: &[AnnotationRow],
) -> Result<PathBuf> {
    let path = file(tables, kind, annotator);
    let mut merged: Vec<AnnotationRow> = if path.is_file() {
        read(&path)?
    } else {
        Vec::new()
    };
    let mut at: std::collections::HashMap<(String, String), usize> = merged
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.item.clone(), r.criterion.clone()), i))
        .collect();
    for r in rows {
        match at.get(&(r.item.clone(), r.criterion.clone())) {
            Some(&i) => merged[i] = r.clone(),
            None => {
                at.insert((r.item.clone(), r.criterion.clone()), merged.len());
                merged.push(r.clone());
            }
        }
    }
    merged.sort_by(|a, b| (&a.item, &a.criterion).cmp(&(&b.item, &b.criterion)));
    write_batch(&path, &rows_to_batch(&merged)?)
}
