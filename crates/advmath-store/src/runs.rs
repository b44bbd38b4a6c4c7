//! `runs/`: the settings of the generation run that made each attack of each dataset, as JSON
//! (read by `publish` for the dataset card, compared by the shard merge). A run rewrites the
//! records of the attacks it made and leaves the others'. [`RunRecord`] is the one type every
//! writer and reader uses; a record that does not read as one is an error naming its file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::paths::name_component;

/// The settings that made one attack of a dataset's variants (no timestamp: reruns stay
/// identical). Fields in name order: the file's keys are in that order, as they always were.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub advmath_version: String,
    /// The attack this record is for (`m3`, `punct`, `m3+punct`); absent from the one
    /// per-dataset record earlier versions wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<String>,
    /// Every attack the same run made.
    pub attacks: Vec<String>,
    pub attempts: u64,
    pub dataset: String,
    pub digits: u32,
    /// The guide of a guided attack's record; absent from every other attack's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guided: Option<GuidedRecord>,
    /// How many punctuation marks a question gets (`floor`, `round`, `randint`); absent from
    /// records of versions that had one rule only.
    #[serde(default)]
    pub noise_count: Option<String>,
    pub noise_levels: Vec<u32>,
    pub noise_variants: usize,
    /// Variants per problem of a text attack on the original; absent from records of versions
    /// without text attacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_variants: Option<usize>,
    /// Whether the noun after a count that crosses one was made to agree with it (`false`:
    /// only the numbers changed, as the paper's text); absent from records of versions that
    /// had no such rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noun_agreement: Option<bool>,
    /// `paper` (the paper's node constraints alone) or `reader` (a reader's rules too); absent
    /// from records of versions that had the paper's only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<String>,
    pub problems: Option<usize>,
    #[serde(default)]
    pub sample_problems: Option<usize>,
    pub seed: u64,
    /// `K/N` for a shard's own record; the merged record has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub variants: usize,
}

/// What a guided attack learnt from: the guiding model, its failure fit and the problem split
/// (the held-out problems are the attacked ones, so a study can compare on exactly them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GuidedRecord {
    /// Variants kept per held-out problem (K).
    pub budget: usize,
    pub feature_set: String,
    pub held_out: Vec<String>,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    pub split_seed: u64,
    pub train_share: f64,
    pub training_accuracy: f64,
    pub training_labels: usize,
    pub training_problems: usize,
}

impl RunRecord {
    /// The record as its file holds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a run record serialises")
    }

    /// Read a record file; one that is not a record is an error naming it.
    pub fn read(path: &Path) -> Result<RunRecord> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
        serde_json::from_str(&text)
            .map_err(|e| Error::invalid(path.display(), format!("not a run record: {e}")))
    }
}

/// The folder name under the tables root.
pub const FOLDER: &str = "runs";

/// `<tables>/runs/generate__<dataset>__<attack>.json`: the run that made `attack` (an attack as
/// `--attack` names it: `m3`, `punct`, `m3+punct`).
pub fn generate_record(tables: &Path, dataset: &str, attack: &str) -> PathBuf {
    tables.join(FOLDER).join(format!(
        "generate__{}__{}.json",
        name_component(dataset),
        name_component(attack)
    ))
}

/// `<tables>/runs/generate__<dataset>.json`: the one record per dataset earlier versions wrote.
fn legacy_record(tables: &Path, dataset: &str) -> PathBuf {
    tables
        .join(FOLDER)
        .join(format!("generate__{}.json", name_component(dataset)))
}

/// The run records of a dataset's attacks, by attack, in attack order; a folder written by an
/// earlier version has one record for the whole dataset, listed under the attack `*`.
pub fn generate_records(tables: &Path, dataset: &str) -> Result<Vec<(String, PathBuf)>> {
    let dir = tables.join(FOLDER);
    let prefix = format!("generate__{}__", name_component(dataset));
    let mut out = Vec::new();
    if dir.is_dir() {
        for e in std::fs::read_dir(&dir).map_err(|e| Error::file(&dir, e))? {
            let path = e.map_err(|e| Error::file(&dir, e))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if let Some(attack) = name
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".json"))
            {
                let attack = crate::paths::name_of(attack).unwrap_or_else(|| attack.to_string());
                out.push((attack, path.clone()));
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
