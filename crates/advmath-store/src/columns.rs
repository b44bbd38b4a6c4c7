//! The tables' column names that other modules ask for by name (a SQL result's column, a sheet's,
//! a batch's): each spelled here once, so that a rename is one edit and its readers follow. The
//! schemas themselves, with every column's meaning, are in each table's file.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field};

/// The source dataset: a partition key of `variants` and the feature tables, a column elsewhere.
pub const DATASET: &str = "dataset";
/// The attack (`original`, `m3`, `punct30`, ...): a partition key of `variants` and the feature tables, a column elsewhere.
pub const ATTACK: &str = "attack";
/// A problem's stable id (`problems`, `variants`, `responses`, `annotations`).
pub const PROBLEM_ID: &str = "problem_id";
/// A variant's id (`variants`, the feature tables, `responses`, `annotations`).
pub const VARIANT_ID: &str = "variant_id";
/// A variant's index within its problem and attack (`variants`).
pub const VARIANT_INDEX: &str = "variant_index";
/// Punctuation noise in percent of the words (`variants`, `responses`).
pub const NOISE_LEVEL: &str = "noise_level";
/// The question text (`problems`, `variants`, `responses`).
pub const QUESTION: &str = "question";
/// The gold answer, canonical text (`problems`, `variants`).
pub const ANSWER: &str = "answer";
/// The model asked (`responses`, `coefficients`, `annotations`).
pub const MODEL: &str = "model";
/// The prompt template (`responses`, `coefficients`, `annotations`).
pub const TEMPLATE: &str = "template";
/// Whether a model's rows are simulated (`responses`, `coefficients`).
pub const SIMULATED: &str = "simulated";
/// The gold answer a response was checked against (`responses`).
pub const GOLD: &str = "gold";
/// Whether a reply's extracted answer equals the gold one (`responses`).
pub const CORRECT: &str = "correct";
/// Which extraction rule read a reply's answer (`responses`).
pub const EXTRACTION_RULE: &str = "extraction_rule";
/// The settings that produced a reply beyond model and template (`responses`).
pub const RUN: &str = "run";
/// A model's reply text (`responses`).
pub const RESPONSE: &str = "response";
/// The answer read from a reply (`responses`).
pub const EXTRACTED: &str = "extracted";
/// An annotation sheet's item id (`annotations`).
pub const ITEM: &str = "item";
/// Who filled an annotation sheet (`annotations`).
pub const ANNOTATOR: &str = "annotator";
/// The method a row is about (`coefficients`; Xie et al.'s M1-M3 in the human-evaluation sheet).
pub const METHOD: &str = "method";
/// What an annotator judged (`annotations`).
pub const CRITERION: &str = "criterion";
/// A share of correct replies (`coefficients`).
pub const ACCURACY: &str = "accuracy";
/// A test's p-value (`coefficients`).
pub const P_VALUE: &str = "p_value";
/// A p-value adjusted for the other tests of its family by Holm's step-down method (`mcnemar`).
pub const P_HOLM: &str = "p_holm";

pub(crate) fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

pub(crate) fn utf8_list(name: &str) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
        false,
    )
}
