//! Compaction: a table folder's runs of small Parquet parts folded into few large ones.
//!
//! `respond` writes a part every `--flush-every` replies, so a long run leaves hundreds of small
//! files, and every reader pays for each on every query. A run of consecutive parts (in name
//! order, which is the order readers see) smaller than the target size is rewritten as parts of
//! up to the target size, row groups as the other tables have them, every row and its order
//! kept. The new parts are staged, then switched in by a journal that also removes the old ones
//! ([`crate::commit`]): a kill at any moment leaves the old parts or the new ones, never both, and
//! the next compaction or advmath reader finishes a switch that was decided.

use std::fs;
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;

use crate::commit::{commit_journal, Move, TablesLock};
use crate::error::{Error, Result};
use crate::layout::TABLE_LAYOUTS;
use crate::lock::WriterLock;
use crate::parquet::{parquet_files_under, read_batches, AtomicParquet};
use crate::paths::{name_component, PARQUET_EXT};

/// The default size a compacted part grows to.
pub const DEFAULT_TARGET_BYTES: u64 = 128 * 1024 * 1024;

/// What compacting one folder did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Compacted {
    pub folder: PathBuf,
    pub parts_before: usize,
    pub parts_after: usize,
    pub rows: u64,
}

/// The Parquet parts of a folder in part order, with their sizes.
fn sized_parts(dir: &Path) -> Result<Vec<(PathBuf, u64)>> {
    crate::parquet::parts(dir)?
        .into_iter()
        .map(|p| {
            let size = fs::metadata(&p).map_err(|e| Error::file(&p, e))?.len();
            Ok((p, size))
        })
        .collect()
}

/// Runs of at least two consecutive parts smaller than `target`.
fn small_runs(parts: &[(PathBuf, u64)], target: u64) -> Vec<Vec<PathBuf>> {
    let mut runs: Vec<Vec<PathBuf>> = vec![Vec::new()];
    for (path, size) in parts {
        if *size < target {
            runs.last_mut().expect("never empty").push(path.clone());
        } else if !runs.last().expect("never empty").is_empty() {
            runs.push(Vec::new());
        }
    }
    runs.retain(|r| r.len() >= 2);
    runs
}

/// The name of the `k`th part compacted from a run that starts at `first`: it sorts where the
/// run did (a suffix an earlier compaction gave is replaced, not stacked).
fn compacted_name(first: &Path, k: usize) -> String {
    let stem = first
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(PARQUET_EXT))
        .unwrap_or("part");
    let base = match stem.rsplit_once("-compact") {
        Some((base, suffix)) if suffix.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => stem,
    };
    format!("{base}-compact{k:03}{PARQUET_EXT}")
}

/// Fold the small parts of `dir` (a folder under `tables`). Call it holding the writer lock of
/// whatever writes the folder; [`compact_table`] takes it.
pub fn compact_folder(tables: &Path, dir: &Path, target: u64) -> Result<Compacted> {
    // A killed compaction may have decided its switch (its staging holds a journal): finish it
    // before reading the parts or clearing any staging, or its rows would be written twice.
    drop(TablesLock::exclusive(tables)?);
    let before = sized_parts(dir)?;
    let mut report = Compacted {
        folder: dir.to_path_buf(),
        parts_before: before.len(),
        parts_after: before.len(),
        rows: 0,
    };
    let relative = dir
        .strip_prefix(tables)
        .map_err(|_| Error::invalid(dir.display(), "not inside the tables folder"))?
        .to_path_buf();
    let prefix = format!(
        ".staging-compact-{}-",
        name_component(&relative.to_string_lossy())
    );
    crate::commit::remove_leftovers(tables, Some(&prefix))?;
    for run in small_runs(&before, target) {
        let staging = tables.join(format!("{prefix}{}", std::process::id()));
        let _ = fs::remove_dir_all(&staging);
        let result = fold_run(tables, &relative, &run, &staging, target);
        if result.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        let (outputs, rows) = result?;
        report.parts_after = report.parts_after + outputs - run.len();
        report.rows += rows;
    }
    Ok(report)
}

/// Write one run's rows as new parts in `staging` and switch them in for the run; returns how
/// many parts were written and how many rows they hold.
fn fold_run(
    tables: &Path,
    relative: &Path,
    run: &[PathBuf],
    staging: &Path,
    target: u64,
) -> Result<(usize, u64)> {
    let mut names = Vec::new();
    let mut current: Option<(AtomicParquet, SchemaRef, u64)> = None;
    let mut rows = 0u64;
    for part in run {
        let size = fs::metadata(part).map_err(|e| Error::file(part, e))?.len();
        for batch in read_batches(part)? {
            // Parts with other columns (written by another version) start a part of their own.
            if current
                .as_ref()
                .is_some_and(|(_, schema, _)| *schema != batch.schema())
            {
                let (writer, _, _) = current.take().expect("present");
                writer.finish()?;
            }
            if current.is_none() {
                let name = compacted_name(&run[0], names.len());
                let writer = AtomicParquet::create(&staging.join(&name), batch.schema())?;
                names.push(name);
                current = Some((writer, batch.schema(), 0));
            }
            let (writer, _, _) = current.as_mut().expect("just opened");
            writer.write(&batch)?;
            rows += batch.num_rows() as u64;
        }
        // Input sizes measure the output well enough (same codec, same columns).
        if let Some((_, _, bytes)) = current.as_mut() {
            *bytes += size;
            if *bytes >= target {
                let (writer, _, _) = current.take().expect("present");
                writer.finish()?;
            }
        }
    }
    if let Some((writer, _, _)) = current.take() {
        writer.finish()?;
    }
    let moves: Vec<Move> = names
        .iter()
        .map(|name| Move {
            staged: name.into(),
            target: relative.join(name),
        })
        .collect();
    let removals: Vec<PathBuf> = run
        .iter()
        .filter_map(|p| p.file_name())
        .filter(|n| {
            !names
                .iter()
                .any(|name| n.to_string_lossy() == name.as_str())
        })
        .map(|n| relative.join(n))
        .collect();
    let _switch = TablesLock::exclusive(tables)?;
    commit_journal(tables, staging, &moves, &removals)?;
    Ok((names.len(), rows))
}

/// The writer lock that guards a folder of a table: the stage that writes it, and for which
/// model or dataset (`None`: a table written as one file, with nothing to fold).
fn writer_of(table: &str, first: &str) -> Option<(&'static str, String)> {
    let name = |c: &str| crate::paths::name_of(c).unwrap_or_else(|| c.to_string());
    let dataset = || first.strip_prefix("dataset=").map(name);
    match table {
        "responses" | "efficient_responses" => Some(("respond", name(first))),
        "variants" | "generation_stats" => Some(("generate", dataset()?)),
        "features" => Some(("features", dataset()?)),
        "features_xie2024" => Some(("features_xie2024", dataset()?)),
        _ => None,
    }
}

/// Compact every folder of the named tables (every table when `names` is empty), each under the
/// writer lock of the stage that writes it.
pub fn compact_tables(tables: &Path, names: &[String], target: u64) -> Result<Vec<Compacted>> {
    crate::commit::remove_dead_tmp_files(tables)?;
    for name in names {
        if !TABLE_LAYOUTS.iter().any(|l| l.name == name) {
            return Err(Error::Usage(format!(
                "no table named {name} (tables: {})",
                TABLE_LAYOUTS
                    .iter()
                    .map(|l| l.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let mut done = Vec::new();
    for layout in TABLE_LAYOUTS {
        if !names.is_empty() && !names.iter().any(|n| n == layout.name) {
            continue;
        }
        let root = tables.join(layout.name);
        if !root.is_dir() {
            continue;
        }
        let files = parquet_files_under(&root)?;
        // Folded in, a foreign part would pass for one of the table's own.
        crate::foreign::refuse_foreign_parts(layout.name, &root, &files)?;
        let mut folders: Vec<PathBuf> = files
            .into_iter()
            .filter_map(|(file, _)| file.parent().map(Path::to_path_buf))
            .collect();
        folders.dedup();
        for folder in folders {
            let first = folder
                .strip_prefix(&root)
                .ok()
                .and_then(|r| r.components().next())
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .unwrap_or_default();
            let Some((stage, name)) = writer_of(layout.name, &first) else {
                continue;
            };
            let _lock = WriterLock::acquire(tables, stage, &name)?;
            done.push(compact_folder(tables, &folder, target)?);
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_runs_of_small_parts_fold_and_names_keep_their_place() {
        let p = |n: &str, size| (PathBuf::from(n), size);
        let parts = [
            p("part-1.parquet", 10),
            p("part-2.parquet", 10),
            p("part-3.parquet", 500),
            p("part-4.parquet", 10),
            p("part-5.parquet", 10),
            p("part-6.parquet", 10),
            p("part-7.parquet", 500),
            p("part-8.parquet", 10),
        ];
        let runs = small_runs(&parts, 100);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].len(), 2);
        assert_eq!(runs[1].len(), 3);
        assert_eq!(
            compacted_name(Path::new("part-0001-77-00000.parquet"), 0),
            "part-0001-77-00000-compact000.parquet"
        );
        assert_eq!(
            compacted_name(Path::new("part-0001-77-00000-compact000.parquet"), 1),
            "part-0001-77-00000-compact001.parquet"
        );
    }
}
