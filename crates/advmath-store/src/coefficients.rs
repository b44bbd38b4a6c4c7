//! The `coefficients` table: the feature study's fitted terms, at `coefficients/part-0.parquet`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::columns::utf8;
use crate::error::Result;
use crate::parquet::write_batch;
use crate::paths::part_file;

/// The table's folder name under the tables root.
pub const TABLE: &str = "coefficients";

/// `<tables>/coefficients/part-0.parquet`: the table is one file, rewritten by every fit.
pub fn file(tables: &Path) -> PathBuf {
    part_file(&tables.join(TABLE), 0)
}

/// One row: a term of one (model, template) fit.
#[derive(Clone, Debug, PartialEq)]
pub struct CoefficientRow {
    pub model: String,
    pub template: String,
    pub feature_set: String,
    pub method: String,
    pub feature: String,
    pub coefficient: Option<f64>,
    pub std_error: Option<f64>,
    pub z: Option<f64>,
    pub p_value: Option<f64>,
    pub estimable: bool,
    pub n: i64,
    pub accuracy: f64,
    pub simulated: bool,
}

/// Rows as a batch in the table's schema.
pub fn rows_to_batch(rows: &[CoefficientRow]) -> Result<RecordBatch> {
    let text = |f: fn(&CoefficientRow) -> &str| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
    };
    let float = |f: fn(&CoefficientRow) -> Option<f64>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<Float64Array>())
    };
    let flag = |f: fn(&CoefficientRow) -> bool| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<BooleanArray>())
    };
    let cols: Vec<ArrayRef> = vec![
        text(|r| &r.model),
        text(|r| &r.template),
        text(|r| &r.feature_set),
        text(|r| &r.method),
        text(|r| &r.feature),
        float(|r| r.coefficient),
        float(|r| r.std_error),
        float(|r| r.z),
        float(|r| r.p_value),
        flag(|r| r.estimable),
        Arc::new(rows.iter().map(|r| r.n).collect::<Int64Array>()),
        float(|r| Some(r.accuracy)),
        flag(|r| r.simulated),
    ];
    Ok(RecordBatch::try_new(schema(), cols)?)
}

/// Replace the table with `rows`.
pub fn write(tables: &Path, rows: &[CoefficientRow]) -> Result<PathBuf> {
    write_batch(&file(tables), &rows_to_batch(rows)?)
}

/// `coefficients`: one row per (model, template, term) of the feature study, the intercept
/// included, at `coefficients/part-0.parquet`.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("model", false),
        utf8("template", false),
        utf8("feature_set", false),
        utf8("method", false),
        utf8("feature", false),
        Field::new("coefficient", DataType::Float64, true),
        Field::new("std_error", DataType::Float64, true),
        Field::new("z", DataType::Float64, true),
        Field::new("p_value", DataType::Float64, true),
        Field::new("estimable", DataType::Boolean, false),
        Field::new("n", DataType::Int64, false),
        Field::new("accuracy", DataType::Float64, false),
        Field::new("simulated", DataType::Boolean, false),
    ]))
}

pub const DOC: &[(&str, &str)] = &[
    ("model", "the model whose correctness is fitted"),
    ("template", "the prompt template of its responses: each (model, template) is fitted on its own, never pooled"),
    ("feature_set", "the feature set fitted: `xie2024` (the authors' family, table `features_xie2024`) or `advmath` (table `features`)"),
    ("method", "`logistic` (penalised logistic regression, linfa; the default) or `linear` (the authors' least squares, statsmodels OLS with an intercept)"),
    ("feature", "`intercept` or a column of that feature set"),
    ("coefficient", "`logistic`: fitted log-odds coefficient (per standard deviation when standardised), null when not estimable; `linear`: least-squares coefficient on the 1/0 correctness, the minimum-norm one where features are collinear"),
    ("std_error", "`logistic`: Wald standard error, from the inverse Hessian at the fit; `linear`: classical OLS standard error"),
    ("z", "coefficient / std_error (a t statistic for `linear`)"),
    ("p_value", "two-sided p-value of z (normal for `logistic`, Student's t with n - rank degrees of freedom for `linear`)"),
    ("estimable", "`logistic`: false when the feature is constant in this model's data; `linear`: false when the coefficient is not identified (its column is collinear with others)"),
    ("n", "variants in the fit"),
    ("accuracy", "share of them answered correctly"),
    ("simulated", "true for offline models (oracle and sim-*)"),
];
