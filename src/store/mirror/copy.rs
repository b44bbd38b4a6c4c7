//! The local copy of a remote folder, as files on disk: which of its files go to the store,
//! which keys of the store may come into it, its index of what was last exchanged, and the
//! stamps that tell a changed file from an unchanged one.
//!
//! A manifest or a listing is untrusted input, as a tables folder is: a key that would land
//! outside the copy (`..`, an absolute path) or among its local-only files (a staging folder's
//! journal, a lock) is refused by [`shared_key`] before anything is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// What the copy last exchanged with the store, per file (keys relative to the copy).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Synced {
    pub size: u64,
    pub modified_ns: u128,
    pub e_tag: Option<String>,
    /// The object's version on a bucket that keeps versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A local file's size and modification time.
pub(super) type Stamp = (u64, u128);

/// Is a copy's file local only: hidden (locks, staging, temporary files) or a write-ahead log?
pub(super) fn local_only(relative: &str) -> bool {
    relative.split('/').any(|part| part.starts_with('.')) || relative.ends_with(".wal")
}

/// Why a key the store names may not come into the copy, if it may not: it must be a relative
/// path of plain names (no `..`, `.`, empty part, root, backslash or NUL), and not a local-only
/// file, which the copy makes for itself and never takes from a store.
pub(super) fn refused_key(relative: &str) -> Option<&'static str> {
    if relative.is_empty() || relative.starts_with('/') {
        return Some("not a relative path");
    }
    if relative.contains(['\\', '\0']) {
        return Some("a backslash or NUL in the key");
    }
    if relative
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Some("an empty, `.` or `..` part would lead outside the folder");
    }
    if local_only(relative) {
        return Some("a hidden file or write-ahead log (staging folders, journals and locks are never taken from a store)");
    }
    None
}

/// The index file of the copy at `local`: beside it, not in it.
pub(super) fn index_path(local: &Path) -> PathBuf {
    let mut name = local.file_name().unwrap_or_default().to_os_string();
    name.push(".index.json");
    local.with_file_name(name)
}

pub(super) fn read_index(local: &Path) -> Result<BTreeMap<String, Synced>> {
    let path = index_path(local);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| Error::invalid(path.display(), format!("unreadable mirror index: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(Error::file(&path, e)),
    }
}

pub(super) fn write_index(local: &Path, index: &BTreeMap<String, Synced>) -> Result<()> {
    let text = serde_json::to_string(index).expect("the index serialises");
    Ok(crate::store::atomic::write_text(&index_path(local), &text)?)
}

/// Every file of the copy at `local` that goes to the store, with its stamp. Symbolic links are
/// neither files nor folders here: never followed, never sent.
pub(super) fn scan(local: &Path) -> Result<BTreeMap<String, Stamp>> {
    let mut out = BTreeMap::new();
    if !local.is_dir() {
        return Ok(out);
    }
    let mut stack = vec![local.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| Error::file(&dir, e))? {
            let entry = entry.map_err(|e| Error::file(&dir, e))?;
            let path = entry.path();
            let relative = path
                .strip_prefix(local)
                .expect("below the copy")
                .to_string_lossy()
                .replace('\\', "/");
            if local_only(&relative) {
                continue;
            }
            let meta = entry.metadata().map_err(|e| Error::file(&path, e))?;
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                out.insert(relative, stamp(&meta));
            }
        }
    }
    Ok(out)
}

/// Does the file at `path` hold what the store has as `synced`? A single-part upload's ETag is
/// the MD5 of its bytes; a multipart one's is not, and counts as different.
pub(super) fn same_content(path: &Path, synced: &Synced) -> Result<bool> {
    use md5::Digest;
    let Some(e_tag) = synced.e_tag.as_deref().map(|t| t.trim_matches('"')) else {
        return Ok(false);
    };
    if e_tag.contains('-') {
        return Ok(false);
    }
    let mut file = std::fs::File::open(path).map_err(|e| Error::file(path, e))?;
    let mut hasher = md5::Md5::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| Error::file(path, e))?;
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(digest.eq_ignore_ascii_case(e_tag))
}

pub(super) fn stamp(meta: &std::fs::Metadata) -> Stamp {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    (meta.len(), modified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_staging_and_logs_stay_local() {
        for local in [
            ".locks/tables.lock",
            "variants/.staging-d-1/x.parquet",
            "responses/m/.part-0.parquet.7.tmp",
            "responses/m/log-1-2.wal",
        ] {
            assert!(local_only(local), "{local}");
        }
        for shared in [
            "variants/dataset=d/attack=m1/part-0.parquet",
            "runs/generate__d.json",
            "_shards/generate/1-of-2/variants/dataset=d/attack=m1/part-0.parquet",
        ] {
            assert!(!local_only(shared), "{shared}");
            assert_eq!(refused_key(shared), None, "{shared}");
        }
    }

    #[test]
    fn keys_outside_the_copy_or_among_its_local_files_are_refused() {
        for key in [
            "../../victim",
            "tables/../../victim",
            "/etc/passwd",
            "tables//x.parquet",
            "./x",
            "a\\..\\b",
            "tables/.staging-x-1/COMMIT",
            ".locks/tables.lock",
            "responses/m/log-1.wal",
            "",
        ] {
            assert!(refused_key(key).is_some(), "{key:?}");
        }
    }
}
