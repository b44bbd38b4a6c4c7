//! Generation in shards: `generate --shard K/N` attacks the K-th of N contiguous slices of each
//! dataset's problems, and `generate --merge-shards N` joins the N outputs into the tables.
//!
//! A shard writes a tables layout of its own under `<tables>/_shards/generate/<K>-of-<N>/`
//! (the leading `_` keeps every table lister, ours, DataFusion's and DuckDB's, out of it). Every
//! problem's variants depend only on the run seed and the problem, and slices are contiguous in
//! the single-machine order, so the shards' rows in shard order are the single-machine rows in
//! its order; Parquet files are written in fixed-size batches
//! ([`crate::store::parquet::WRITE_BATCH_ROWS`]), so the merge writes the same bytes too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::store::variants::{self, DatasetWriters, Made};
use crate::store::{generation_stats, parts, read_batches, runs};

/// One of N disjoint slices of the problems (`index` counts from 1, as `--shard 1/3` does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard: write K/N with 1 <= K <= N, e.g. 2/8");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// This shard's contiguous slice of `items`: the slices of 1/N .. N/N cover `items` in order,
    /// each once, and differ in length by at most one.
    pub fn slice<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        let at = |k: usize| items.len() * k / self.count;
        &items[at(self.index - 1)..at(self.index)]
    }

    /// `<tables>/_shards/generate/<K>-of-<N>`: the tables folder this shard writes.
    pub fn tables(&self, tables: &Path) -> PathBuf {
        shards_dir(tables).join(format!("{}-of-{}", self.index, self.count))
    }
}

/// `<tables>/_shards/generate`.
pub fn shards_dir(tables: &Path) -> PathBuf {
    tables.join("_shards").join("generate")
}

/// What a merge wrote: per dataset, the rows of variants it holds.
#[derive(Debug, Default)]
pub struct MergeSummary {
    pub datasets: Vec<(String, usize)>,
}

/// A shard's run record without its `shard` field: what the single-machine run records.
fn unsharded_record(path: &Path) -> Result<String> {
    let record = runs::RunRecord {
        shard: None,
        ..runs::RunRecord::read(path)?
    };
    Ok(record.to_json())
}

/// Join the outputs of `generate --shard 1/N` .. `N/N` into `tables`' `variants`,
/// `generation_stats` and run records, dataset by dataset, each switched in whole as a
/// generation run's. Every shard must be there and must have been made with the same settings;
/// the shard folders are removed once everything is merged.
pub fn merge_shards(tables: &Path, count: usize) -> Result<MergeSummary> {
    if count == 0 {
        return Err(Error::setting("merge_shards", "must be at least 1"));
    }
    let shards: Vec<PathBuf> = (1..=count)
        .map(|index| Shard { index, count }.tables(tables))
        .collect();
    let mut datasets = BTreeSet::new();
    for (k, dir) in shards.iter().enumerate() {
        if !dir.is_dir() {
            return Err(Error::invalid(
                dir.display(),
                format!(
                    "shard {}/{count} is missing: run `advmath generate --shard {}/{count}` first",
                    k + 1,
                    k + 1
                ),
            ));
        }
        for (dataset, _) in variants::datasets(dir)? {
            datasets.insert(dataset);
        }
    }
    let mut summary = MergeSummary::default();
    for dataset in &datasets {
        let mut records: Option<Vec<(String, String)>> = None;
        for (k, dir) in shards.iter().enumerate() {
            let paths = runs::generate_records(dir, dataset)?;
            if paths.is_empty() {
                return Err(Error::invalid(
                    dir.display(),
                    format!(
                        "shard {}/{count} has no variants of dataset `{dataset}`: \
                         rerun `advmath generate --shard {}/{count}`",
                        k + 1,
                        k + 1
                    ),
                ));
            }
            let this = paths
                .iter()
                .map(|(attack, path)| Ok((attack.clone(), unsharded_record(path)?)))
                .collect::<Result<Vec<_>>>()?;
            match &records {
                None => records = Some(this),
                Some(first) if *first != this => {
                    return Err(Error::invalid(
                        dir.display(),
                        format!(
                            "shard {}/{count} of `{dataset}` was made with other settings than \
                             shard 1/{count}; rerun every shard with the same options",
                            k + 1
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let _lock = crate::store::lock::WriterLock::acquire(tables, "generate", dataset)?;
        variants::remove_dead_staging(tables, dataset)?;
        let mut writers = DatasetWriters::new(tables, dataset);
        let mut made = Made::default();
        let mut attacks = BTreeSet::new();
        for dir in &shards {
            for (attack, _) in variants::attacks(&variants::dataset_dir(dir, dataset))? {
                attacks.insert(attack);
            }
        }
        let mut rows = 0;
        for attack in &attacks {
            for dir in &shards {
                let folder = variants::attack_dir(dir, dataset, attack);
                if !folder.is_dir() {
                    continue;
                }
                for part in parts(&folder)? {
                    for batch in read_batches(&part)? {
                        rows += batch.num_rows();
                        if attack == crate::vocab::Attack::ORIGINAL {
                            let ids = variants::problem_ids_of(&batch, &part)?;
                            made.originals
                                .extend(ids.iter().flatten().map(str::to_string));
                        }
                        writers.variants(attack)?.write(&batch)?;
                    }
                }
            }
        }
        for dir in &shards {
            let folder = generation_stats::dataset_dir(dir, dataset);
            if !folder.is_dir() {
                continue;
            }
            for part in parts(&folder)? {
                for batch in read_batches(&part)? {
                    let methods = generation_stats::attacks_of(&batch, &part)?;
                    made.methods
                        .extend(methods.iter().flatten().map(str::to_string));
                    writers.stats()?.write(&batch)?;
                }
            }
        }
        made.attacks = attacks
            .into_iter()
            .filter(|a| a != crate::vocab::Attack::ORIGINAL)
            .collect();
        made.records = records.unwrap_or_default();
        writers.publish(tables, dataset, &made)?;
        summary.datasets.push((dataset.clone(), rows));
    }
    for dir in &shards {
        std::fs::remove_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    }
    // Other shard counts' folders may still be there; the parents go only when empty.
    let _ = std::fs::remove_dir(shards_dir(tables));
    let _ = std::fs::remove_dir(tables.join("_shards"));
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_items_once_in_order() {
        for len in [0usize, 1, 2, 7, 64, 100] {
            for count in 1..=5 {
                let items: Vec<usize> = (0..len).collect();
                let joined: Vec<usize> = (1..=count)
                    .flat_map(|index| Shard { index, count }.slice(&items).to_vec())
                    .collect();
                assert_eq!(joined, items, "len {len}, {count} shards");
            }
        }
    }

    #[test]
    fn shard_text_is_k_of_n() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 1, count: 8 }.to_string(), "1/8");
    }
}
