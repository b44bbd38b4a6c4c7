//! `runs/`: the settings of the last generation run of each dataset, as JSON (read by `publish`
//! for the dataset card).

use std::path::{Path, PathBuf};

use super::sanitize;

/// The folder name under the tables root.
pub const FOLDER: &str = "runs";

/// `<tables>/runs/generate__<dataset>.json`.
pub fn generate_record(tables: &Path, dataset: &str) -> PathBuf {
    tables
        .join(FOLDER)
        .join(format!("generate__{}.json", sanitize(dataset)))
}
