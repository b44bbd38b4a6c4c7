//! An output folder outside the tables (a metrics report, a published dataset), written whole
//! beside the old one and switched in by one [`replace`]; the files the stage does not own can be
//! carried over by hard links.

use std::fs;
use std::path::{Path, PathBuf};

use super::{remove_path, replace};
use crate::error::{Error, Result};
use crate::lock;
use crate::paths::{is_staging_of, resolved};

/// An output folder outside the tables (a metrics report, a published dataset) written whole in a
/// staging folder beside it, `.<name>.<stage>-<pid>`, and switched in by [`StagedFolder::commit`].
/// One run of the stage writes a given folder at a time (a writer lock, kept with the locks of
/// the tables folder it reads, so the user's folders get no lock files); the staging folders of
/// dead runs go when the next run begins, and a run that fails or is dropped removes its own.
pub struct StagedFolder {
    pub staging: PathBuf,
    out: PathBuf,
    _lock: Option<lock::WriterLock>,
}

impl StagedFolder {
    pub fn begin(out: &Path, stage: &'static str, tables: &Path) -> Result<StagedFolder> {
        // The folder is replaced whole: inside the tables it would be read as table data, and
        // holding them it would take them away.
        if let Ok(tables) = tables.canonicalize() {
            let resolved = resolved(out)?;
            if tables.starts_with(&resolved) {
                return Err(Error::OutputHoldsTables {
                    output: out.to_path_buf(),
                    tables,
                });
            }
            if resolved.starts_with(&tables) {
                return Err(Error::OutputInsideTables {
                    output: out.to_path_buf(),
                    tables,
                });
            }
        }
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(parent).map_err(|e| Error::file(parent, e))?;
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| stage.to_string());
        // No tables folder: the stage fails reading it, and no lock should create it.
        let lock = match tables.is_dir() {
            true => Some(lock::WriterLock::acquire(
                tables,
                stage,
                &lock_name(out, tables)?,
            )?),
            false => None,
        };
        let prefix = format!(".{name}.{stage}-");
        for entry in fs::read_dir(parent)
            .map_err(|e| Error::file(parent, e))?
            .flatten()
        {
            if is_staging_of(&entry.file_name().to_string_lossy(), &prefix) {
                remove_path(&entry.path())?;
            }
        }
        let staging = parent.join(format!("{prefix}{}", std::process::id()));
        fs::create_dir_all(&staging).map_err(|e| Error::file(&staging, e))?;
        Ok(StagedFolder {
            staging,
            out: out.to_path_buf(),
            _lock: lock,
        })
    }

    /// `path` under the staging folder, as it will be under the output folder.
    pub fn final_path(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.staging) {
            Ok(rel) => self.out.join(rel),
            Err(_) => path.to_path_buf(),
        }
    }

    /// Switch the complete staging folder in, replacing the output folder in one step.
    pub fn commit(self) -> Result<()> {
        replace(&self.staging, &self.out)
    }

    /// Switch the new version in, keeping every entry of the old folder whose name is not among
    /// `owned` (the stage's own outputs): a `.git/`, a `.gitattributes`, a user's notes. They are
    /// hard-linked into the new version before the switch (links to the same files, no copy), so
    /// a kill at any moment leaves them in the old folder or in both.
    pub fn commit_keeping(self, owned: &[&str]) -> Result<()> {
        if let Ok(entries) = fs::read_dir(&self.out) {
            for entry in entries {
                let entry = entry.map_err(|e| Error::file(&self.out, e))?;
                let name = entry.file_name();
                if owned.iter().any(|o| name == **o) {
                    continue;
                }
                let to = self.staging.join(&name);
                if fs::symlink_metadata(&to).is_err() {
                    link_tree(&entry.path(), &to)?;
                }
            }
        }
        self.commit()
    }
}

/// `to` made a copy of the tree at `from` by hard links (folders recreated, files linked,
/// symbolic links recreated as links, never followed).
fn link_tree(from: &Path, to: &Path) -> Result<()> {
    let kind = fs::symlink_metadata(from).map_err(|e| Error::file(from, e))?;
    if kind.file_type().is_symlink() {
        let target = fs::read_link(from).map_err(|e| Error::file(from, e))?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, to).map_err(|e| Error::file(to, e))?;
        return Ok(());
    }
    if kind.is_dir() {
        fs::create_dir_all(to).map_err(|e| Error::file(to, e))?;
        for entry in fs::read_dir(from).map_err(|e| Error::file(from, e))? {
            let entry = entry.map_err(|e| Error::file(from, e))?;
            link_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    fs::hard_link(from, to).map_err(|e| Error::file(from, e))
}

/// The output folder as its lock names it: relative to the tables folder's parent when it lies
/// under it (`reports/metrics` for `out/reports/metrics` beside `out/tables`, the same wherever
/// `out` is), else its absolute path.
fn lock_name(out: &Path, tables: &Path) -> Result<String> {
    let out = std::path::absolute(out).map_err(|e| Error::file(out, e))?;
    let tables = std::path::absolute(tables).map_err(|e| Error::file(tables, e))?;
    let name = match tables.parent().and_then(|base| out.strip_prefix(base).ok()) {
        Some(relative) => relative.to_string_lossy().to_string(),
        None => out.to_string_lossy().to_string(),
    };
    Ok(name)
}

impl Drop for StagedFolder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.staging);
    }
}
