//! Names and paths of a tables folder that every part of the store shares: the default output
//! folders, safe path components, staging names, hive partition folders and part files, and where
//! a path will be once written (for the output guards).

use std::fs;
use std::path::{Path, PathBuf};

/// The output folder of every command left to its defaults: `run --out`, and the parent of every
/// other command's tables and reports.
pub const DEFAULT_OUT: &str = "out";

/// `<out>/tables`: the tables folder of an output folder.
pub fn tables_dir(out: &Path) -> PathBuf {
    out.join("tables")
}

/// `<out>/reports`: where the reports of an output folder go.
pub fn reports_dir(out: &Path) -> PathBuf {
    out.join("reports")
}

/// The tables folder of every command but `run` (`run` puts it under its `--out`).
pub fn default_tables() -> PathBuf {
    tables_dir(Path::new(DEFAULT_OUT))
}

/// A name made safe as one path component: anything but ASCII letters, digits, `-` and `_`
/// becomes `_`.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether `name` is a staging folder `<prefix><pid>` of a run of some process.
pub fn is_staging_of(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Where `path` will be once written: its nearest existing ancestor resolved (symlinks
/// followed), the rest normalised as the writer's `create_dir_all` will walk it (`a/missing/../b`
/// is `a/b`). Output guards compare these, so no missing folder, `..` or symlink slips past them.
pub fn resolved(path: &Path) -> crate::error::Result<PathBuf> {
    let absolute = std::path::absolute(path).map_err(|e| crate::error::Error::file(path, e))?;
    let mut existing = absolute.as_path();
    while fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(parent) => existing = parent,
            None => break,
        }
    }
    let mut out = existing
        .canonicalize()
        .map_err(|e| crate::error::Error::file(existing, e))?;
    for c in absolute
        .strip_prefix(existing)
        .unwrap_or(Path::new(""))
        .components()
    {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    Ok(out)
}

/// `<dir>/<key>=<value>`: one hive partition folder.
pub fn hive_dir(dir: &Path, key: &str, value: &str) -> PathBuf {
    dir.join(format!("{key}={value}"))
}

/// The `n`th part file of a folder written whole by one stage.
pub fn part_file(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("part-{n}{PARQUET_EXT}"))
}

/// The file extension of every table part.
pub const PARQUET_EXT: &str = ".parquet";
