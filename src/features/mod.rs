//! The features stage: the feature sets of `advmath_core::features` computed for every variant
//! and written as the `features` / `features_xie2024` tables next to the `variants` table.

pub use advmath_core::features::*;

mod table;
#[cfg(test)]
mod table_tests;

pub use table::{build_feature_set_table, build_features_table};
