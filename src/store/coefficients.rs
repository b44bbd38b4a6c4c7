//! The `coefficients` table: the feature study's fitted terms, at `coefficients/part-0.parquet`.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::columns::utf8;

/// `coefficients`: one row per (model, template, term) of the feature study, the intercept
/// included, at `coefficients/part-0.parquet`.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("model", false),
        utf8("template", false),
        utf8("feature_set", false),
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
    ("feature", "`intercept` or a column of that feature set"),
    ("coefficient", "fitted log-odds coefficient (per standard deviation when standardised); null when not estimable"),
    ("std_error", "Wald standard error, from the inverse Hessian at the fit"),
    ("z", "coefficient / std_error"),
    ("p_value", "two-sided p-value of z"),
    ("estimable", "false when the feature is constant in this model's data"),
    ("n", "variants in the fit"),
    ("accuracy", "share of them answered correctly"),
    ("simulated", "true for offline models (oracle and sim-*)"),
];
