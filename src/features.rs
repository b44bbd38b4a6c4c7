//! The features stage: the feature sets of `crate::feature_sets` computed for every variant
//! and written as the `features` / `features_xie2024` tables next to the `variants` table.
//!
//! Every feature is defined in the core crate: advmath's 51 in
//! `crates/advmath-core/src/feature_sets.rs`, the authors' family in
//! `crates/advmath-core/src/feature_sets/xie2024.rs` (the regression report points here).

use crate::feature_sets::*;

mod table;
#[cfg(test)]
mod table_tests;

pub use table::{build_feature_set_table, build_features_table};
