//! The `annotations` table: people's verdicts from filled annotation sheets (`advmath annotate
//! ingest`), one row per (sheet, item, criterion), at `annotations/<kind>/<sheet>.parquet`.
//! Ingesting a sheet again replaces its file, so a corrected sheet never counts twice.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::columns::utf8;
use super::parquet::write_batch;
use super::paths::name_component;
use crate::error::Result;

/// The table's folder name under the tables root.
pub const TABLE: &str = "annotations";

/// What makes the table.
pub const MADE_BY: &str = "advmath annotate ingest";

/// `<tables>/annotations/<kind>/<sheet>.parquet`.
pub fn file(tables: &Path, kind: &str, sheet: &str) -> PathBuf {
    tables.join(TABLE).join(name_component(kind)).join(format!(
        "{}{}",
        name_component(sheet),
        super::paths::PARQUET_EXT
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
    ("sheet", "the sheet's file name, without extension: ingesting it again replaces its rows"),
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

/// Replace one sheet's rows.
pub fn write(tables: &Path, kind: &str, sheet: &str, rows: &[AnnotationRow]) -> Result<PathBuf> {
    write_batch(&file(tables, kind, sheet), &rows_to_batch(rows)?)
}
