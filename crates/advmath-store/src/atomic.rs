//! The durable file steps everything in the store is built from, at the bottom of the store:
//! each one a point of the fault rig (kill -9 and full-disk tests), a hidden temporary name beside
//! a file being written, and a text file written whole or not at all.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fault;

/// A durable step for the fault rig; an injected failure is reported with `path`.
pub fn step(path: &Path, what: &str) -> Result<()> {
    fault::point(|| format!("{what} {}", path.display())).map_err(|e| Error::file(path, e))
}

/// `.<name>.<pid>.tmp` beside `path`: hidden, so no table lister (ours, DataFusion's, DuckDB's
/// globs) ever takes a half-written file for a part.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Write a text file atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    crate::paths::refuse_links(path)?;
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    }
    let tmp = tmp_path(path);
    let done = step(&tmp, "write")
        .and_then(|()| fs::write(&tmp, text).map_err(|e| Error::file(&tmp, e)))
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| Error::file(path, e)));
    if done.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    done?;
    step(path, "renamed in")
}
