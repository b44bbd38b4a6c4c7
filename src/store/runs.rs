//! `runs/`: the settings of the generation run that made each attack of each dataset, as JSON
//! (read by `publish` for the dataset card). A run rewrites the records of the attacks it made
//! and leaves the others'.

use std::path::{Path, PathBuf};

use super::sanitize;
use crate::error::{Error, Result};

/// The folder name under the tables root.
pub const FOLDER: &str = "runs";

/// `<tables>/runs/generate__<dataset>__<attack>.json`: the run that made `attack` (an attack as
/// `--attack` names it: `m3`, `punct`, `m3+punct`).
pub fn generate_record(tables: &Path, dataset: &str, attack: &str) -> PathBuf {
    tables.join(FOLDER).join(format!(
        "generate__{}__{}.json",
        sanitize(dataset),
        sanitize(attack)
    ))
}

/// `<tables>/runs/generate__<dataset>.json`: the one record per dataset earlier versions wrote.
fn legacy_record(tables: &Path, dataset: &str) -> PathBuf {
    tables
        .join(FOLDER)
        .join(format!("generate__{}.json", sanitize(dataset)))
}

/// The run records of a dataset's attacks, by attack, in attack order; a folder written by an
/// earlier version has one record for the whole dataset, listed under the attack `*`.
pub fn generate_records(tables: &Path, dataset: &str) -> Result<Vec<(String, PathBuf)>> {
    let dir = tables.join(FOLDER);
    let prefix = format!("generate__{}__", sanitize(dataset));
    let mut out = Vec::new();
    if dir.is_dir() {
        for e in std::fs::read_dir(&dir).map_err(|e| Error::file(&dir, e))? {
            let path = e.map_err(|e| Error::file(&dir, e))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if let Some(attack) = name
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".json"))
            {
                out.push((attack.to_string(), path.clone()));
            }
        }
    }
    out.sort();
    let legacy = legacy_record(tables, dataset);
    if out.is_empty() && legacy.is_file() {
        out.push(("*".to_string(), legacy));
    }
    Ok(out)
}
