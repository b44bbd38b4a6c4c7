//! The folder `publish` writes for the Hugging Face Hub: one config per attack (and the feature
//! tables), `data/<config>/<split>-NNNNN-of-MMMMM.parquet` shards, the dataset card `README.md`
//! and `LICENSE.md`. The card's `data_files` globs name the same shards.

use std::path::{Path, PathBuf};

/// The top-level entries of a published folder that publish writes (and replaces); everything
/// else in the folder is the user's and is kept.
pub const OWNED: &[&str] = &["data", "README.md", "lm_eval"];

/// `<folder>/data/<config>`: one config's shards.
pub fn config_dir(folder: &Path, config: &str) -> PathBuf {
    folder.join("data").join(config)
}

/// A shard while it is written; renamed by [`shard`] once the count is known.
pub fn partial_shard(dir: &Path, split: &str, n: usize) -> PathBuf {
    dir.join(format!("{split}-{n:05}.partial.parquet"))
}

/// `<split>-NNNNN-of-MMMMM.parquet`, the Hub's shard naming.
pub fn shard(dir: &Path, split: &str, n: usize, total: usize) -> PathBuf {
    dir.join(format!("{split}-{n:05}-of-{total:05}.parquet"))
}

/// The card's `data_files` path of one split of a config.
pub fn split_glob(config: &str, split: &str) -> String {
    format!("data/{config}/{split}-*.parquet")
}

/// The dataset card.
pub fn card(folder: &Path) -> PathBuf {
    folder.join("README.md")
}

/// The licence the card links to.
pub fn license(folder: &Path) -> PathBuf {
    folder.join(LICENSE_FILE)
}

pub const LICENSE_FILE: &str = "LICENSE.md";

/// The card's `source_datasets` entry for data written for the dataset itself (the Hub's
/// vocabulary, not an attack).
pub const SOURCE_DATASET_ORIGINAL: &str = "original";
