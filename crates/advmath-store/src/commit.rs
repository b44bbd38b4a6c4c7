//! Switching a stage's new outputs in whole, or not at all.
//!
//! A stage writes its complete new version beside the old one, in a staging folder named with
//! its pid, and switches it in last:
//! - one path (a features partition, a metrics folder, a published dataset) switches with
//!   [`replace`]: one atomic exchange of the two names (`renameat2(RENAME_EXCHANGE)` on Linux),
//!   after which the old version, now under the staging name, is removed;
//! - several paths that must change together (a dataset's variants, generation statistics and
//!   run record) switch with [`commit_journal`]: a `COMMIT` file listing the moves is written into
//!   the staging folder (atomically), and from that instant the new version is decided. The moves
//!   are idempotent, so whoever finds the journal of a dead writer replays them ([`settle`]): the
//!   next run of the stage, or any advmath command that reads the tables.
//!
//! Inside a tables folder, advmath's readers hold a shared lock (`.locks/tables.lock`) while they
//! read, and a switch takes it exclusively ([`TablesLock`]): an advmath reader never sees a
//! switch half done, nor a file removed under it. A reader outside advmath (DuckDB on the folder)
//! is not in on the lock and can, for the instant of the moves, see one of the paths switched and
//! the others not.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::atomic::{step, write_text};
use crate::error::{Error, Result};
use crate::lock;
use crate::paths::is_staging_of;

/// The journal file of a staging folder: present only once its version is decided.
pub(crate) const JOURNAL: &str = "COMMIT";

mod staged_folder;
pub use staged_folder::StagedFolder;

/// Where a journal parks the versions it replaces until it is done.
const REPLACED: &str = ".replaced";

/// Swap two existing paths in one atomic step; false when the filesystem cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths that outlive the call; renameat2 only reads them.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Remove a file or a folder, whichever `path` is (nothing when absent).
pub(crate) fn remove_path(path: &Path) -> Result<()> {
    let result = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
    };
    result.map_err(|e| Error::file(path, e))
}

/// Put `staged` (a complete file or folder) at `target`, replacing what was there in one atomic
/// step: a reader sees the old version or the new one, never neither. The old version is removed.
pub fn replace(staged: &Path, target: &Path) -> Result<()> {
    crate::paths::refuse_links(target)?;
    step(target, "replace")?;
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| Error::file(parent, e))?;
    }
    if fs::symlink_metadata(target).is_err() {
        fs::rename(staged, target).map_err(|e| Error::file(target, e))?;
        return step(target, "renamed in");
    }
    if exchange(staged, target).map_err(|e| Error::file(target, e))? {
        step(target, "exchanged")?;
        return remove_path(staged);
    }
    // No exchange on this filesystem: the old version steps aside under a hidden name (which
    // every table lister skips) for the instant between two renames.
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let aside = target.with_file_name(format!(".{name}.{}.replaced", std::process::id()));
    fs::rename(target, &aside).map_err(|e| Error::file(target, e))?;
    fs::rename(staged, target).map_err(|e| Error::file(target, e))?;
    step(target, "renamed in")?;
    remove_path(&aside)
}

/// A switch of several paths under `tables` that must change together.
pub struct Move {
    /// Under the staging folder.
    pub staged: PathBuf,
    /// Under the tables folder.
    pub target: PathBuf,
}

/// Decide the staged version (write the journal), then make the moves, remove `removals`
/// (paths under the tables folder) and remove the staging folder. Call it holding the exclusive
/// [`TablesLock`] and the stage's writer lock.
pub fn commit_journal(
    tables: &Path,
    staging: &Path,
    moves: &[Move],
    removals: &[PathBuf],
) -> Result<()> {
    let mut text: String = moves
        .iter()
        .map(|m| format!("{}\t{}\n", m.staged.display(), m.target.display()))
        .collect();
    for r in removals {
        text.push_str(&format!("{REMOVE}\t{}\n", r.display()));
    }
    write_text(&staging.join(JOURNAL), &text)?;
    replay(tables, staging)
}

/// The staged side of a journal line that removes its target instead of moving a file in (no
/// staged path is empty).
const REMOVE: &str = "";

/// `rel` under `base`, when it names a path inside it: relative, made of plain names only (no
/// `..`, no root), and no existing step of it a symlink. A tables folder is untrusted input (people
/// download and share them), so a journal may name nothing else.
fn confined(base: &Path, rel: &str) -> Option<PathBuf> {
    let path = Path::new(rel);
    if rel.is_empty()
        || !path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    {
        return None;
    }
    let mut at = base.to_path_buf();
    for c in path.components() {
        at.push(c);
        if fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return None;
        }
    }
    Some(at)
}

/// A journal's lines as (staged, target) paths, every one checked by [`confined`] before any
/// move is made: one line naming anything outside the staging or the tables folder refuses the
/// whole journal, which is then never replayed.
fn journal_moves(tables: &Path, staging: &Path) -> Result<Vec<(Option<PathBuf>, PathBuf)>> {
    let journal = staging.join(JOURNAL);
    let refuse = |reason: String| {
        Error::invalid(
            journal.display(),
            format!(
                "{reason}; the journal is refused, nothing was moved (remove {} to clear it)",
                staging.display()
            ),
        )
    };
    if fs::symlink_metadata(staging).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(refuse("the staging folder is a symlink".into()));
    }
    let text = fs::read_to_string(&journal).map_err(|e| Error::file(&journal, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some((staged, target)) = line.split_once('\t') else {
            return Err(refuse(format!("line {}: not `staged<TAB>target`", i + 1)));
        };
        let Some(target) = confined(tables, target) else {
            return Err(refuse(format!(
                "line {}: target {target:?} is not a path inside the tables folder",
                i + 1
            )));
        };
        let staged = match staged {
            REMOVE => None,
            s => Some(confined(staging, s).ok_or_else(|| {
                refuse(format!(
                    "line {}: {s:?} is not a path inside the staging folder",
                    i + 1
                ))
            })?),
        };
        out.push((staged, target));
    }
    Ok(out)
}

/// Make the moves a journal lists (those not made yet), then remove its staging folder.
fn replay(tables: &Path, staging: &Path) -> Result<()> {
    for (i, (staged, target)) in journal_moves(tables, staging)?.into_iter().enumerate() {
        let Some(staged) = staged else {
            if fs::symlink_metadata(&target).is_ok() {
                remove_path(&target)?;
                step(&target, "removed")?;
            }
            continue;
        };
        if fs::symlink_metadata(&staged).is_err() {
            continue;
        }
        if fs::symlink_metadata(&target).is_ok() {
            let parked = staging.join(REPLACED).join(i.to_string());
            fs::create_dir_all(staging.join(REPLACED))
                .map_err(|e| Error::file(staging.join(REPLACED), e))?;
            fs::rename(&target, &parked).map_err(|e| Error::file(&target, e))?;
            step(&target, "moved aside")?;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::file(parent, e))?;
        }
        fs::rename(&staged, &target).map_err(|e| Error::file(&target, e))?;
        step(&target, "moved in")?;
    }
    remove_path(staging)
}

/// Staging folders directly under `tables` whose version was decided (they hold a journal).
fn journals(tables: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(tables) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".staging-"))
                && p.join(JOURNAL).is_file()
        })
        .collect();
    found.sort();
    found
}

/// Finish the switches dead writers decided but did not complete. Call it holding the
/// exclusive [`TablesLock`] (every journal is then a dead writer's). Returns how many.
pub fn settle(tables: &Path) -> Result<usize> {
    let found = journals(tables);
    for staging in &found {
        crate::note::note!(
            "finishing the switch an interrupted run decided: {}",
            staging.display()
        );
        replay(tables, staging)?;
    }
    Ok(found.len())
}

/// Replace `target` with the folder `staged` (when one was written) in one atomic step: the last
/// step of a stage that rewrites a partition whole.
pub fn swap_in(staged: &Path, target: &Path) -> Result<()> {
    if staged.exists() {
        replace(staged, target)
    } else {
        remove_path(target)
    }
}

/// Remove what dead runs of a stage left directly in `dir`: staging folders named
/// `<staging_prefix><pid>` (when a prefix is given) that hold no journal, and half-written `*.tmp`
/// files. Call it holding the stage's writer lock, so that no live run of the stage owns them.
/// Returns how many were removed.
pub fn remove_leftovers(dir: &Path, staging_prefix: Option<&str>) -> Result<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(0);
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let staging = staging_prefix.is_some_and(|prefix| is_staging_of(&name, prefix));
        // A staging folder holding a journal is a decided switch: the next switch lock
        // finishes it, so it is never thrown away.
        let decided = path.join(JOURNAL).is_file();
        let result = if staging && path.is_dir() && !decided {
            std::fs::remove_dir_all(&path)
        } else if name.ends_with(".tmp") && path.is_file() {
            std::fs::remove_file(&path)
        } else {
            continue;
        };
        result.map_err(|e| Error::file(&path, e))?;
        removed += 1;
    }
    Ok(removed)
}

/// Remove every half-written file (`.<name>.<pid>.tmp`) below `tables` whose process is gone:
/// what a killed writer of any stage left. A live writer's file is left alone, so no lock is
/// needed. Returns how many were removed.
pub fn remove_dead_tmp_files(tables: &Path) -> Result<usize> {
    let mut removed = 0;
    let mut folders = vec![tables.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            // Links are never followed: a planted one could lead outside the tables.
            if kind.is_dir() {
                folders.push(path);
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_suffix(".tmp")
                .filter(|_| name.starts_with('.') && kind.is_file())
                .and_then(|stem| stem.rsplit('.').next())
                .and_then(|pid| pid.parse::<u32>().ok());
            if pid.is_some_and(|pid| !crate::machine::process_alive(pid)) {
                fs::remove_file(&path).map_err(|e| Error::file(&path, e))?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// Finish every switch a killed command decided in `tables`, as `advmath settle` does: waits
/// for the folder's readers, then replays each journal (refusing one that names anything outside
/// the tables). Returns how many were finished.
pub fn settle_tables(tables: &Path) -> Result<usize> {
    if !tables.is_dir() {
        return Err(Error::file(
            tables,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no tables folder"),
        ));
    }
    let pending = journals(tables).len();
    drop(TablesLock::exclusive(tables)?);
    remove_dead_tmp_files(tables)?;
    Ok(pending)
}

/// The tables folder's switch lock: shared by readers, exclusive for a switch.
#[derive(Debug)]
pub struct TablesLock {
    _file: Option<File>,
}

impl TablesLock {
    /// The lock file, `None` where it cannot be made (no folder, a read-only copy); a link on
    /// its way is refused, as every writer refuses one.
    fn open(tables: &Path) -> Result<Option<File>> {
        if !tables.is_dir() {
            return Ok(None);
        }
        let dir = tables.join(lock::FOLDER);
        let path = dir.join("tables.lock");
        crate::paths::refuse_links(&path)?;
        if fs::create_dir_all(&dir).is_err() {
            return Ok(None);
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
        Ok(options.open(path).ok())
    }

    /// For a switch: waits for the readers (and any other switch) to finish, then finishes what
    /// dead writers left decided.
    pub fn exclusive(tables: &Path) -> Result<TablesLock> {
        let path = tables.join(lock::FOLDER).join("tables.lock");
        let Some(file) = Self::open(tables)? else {
            return Err(Error::file(
                &path,
                std::io::Error::other("cannot create the lock file"),
            ));
        };
        if file.try_lock().is_err() {
            crate::note::note!(
                "waiting for other advmath commands reading {} ...",
                tables.display()
            );
            file.lock().map_err(|e| Error::file(&path, e))?;
        }
        settle(tables)?;
        Ok(TablesLock { _file: Some(file) })
    }

    /// For reading: a consistent view until dropped. A tables folder this process cannot write
    /// to (a read-only copy) is read without the lock: nothing switches in it.
    pub fn shared(tables: &Path) -> Result<TablesLock> {
        loop {
            if !journals(tables).is_empty() {
                drop(Self::exclusive(tables)?);
            }
            let Some(file) = Self::open(tables)? else {
                return Ok(TablesLock { _file: None });
            };
            let path = tables.join(lock::FOLDER).join("tables.lock");
            file.lock_shared().map_err(|e| Error::file(&path, e))?;
            // A writer that died between our look and our lock left a journal: settle it first.
            if journals(tables).is_empty() {
                return Ok(TablesLock { _file: Some(file) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_switches_a_folder_and_removes_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let staged = dir.path().join(".out.staging-1");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("old.md"), "old").unwrap();
        fs::create_dir_all(&staged).unwrap();
        fs::write(staged.join("new.md"), "new").unwrap();
        replace(&staged, &target).unwrap();
        assert_eq!(fs::read_to_string(target.join("new.md")).unwrap(), "new");
        assert!(!target.join("old.md").exists());
        assert!(!staged.exists());
        // A first switch has nothing to replace.
        let fresh = dir.path().join("fresh");
        fs::create_dir_all(&staged).unwrap();
        replace(&staged, &fresh).unwrap();
        assert!(fresh.is_dir() && !staged.exists());
    }

    #[test]
    fn a_journal_replayed_twice_moves_each_path_once() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path();
        let staging = tables.join(".staging-d-1");
        fs::create_dir_all(tables.join("a/dataset=d")).unwrap();
        fs::write(tables.join("a/dataset=d/part-0.parquet"), "old a").unwrap();
        fs::write(tables.join("b.json"), "old b").unwrap();
        fs::create_dir_all(staging.join("a")).unwrap();
        fs::write(staging.join("a/part-0.parquet"), "new a").unwrap();
        fs::write(staging.join("b.json"), "new b").unwrap();
        let moves = [
            Move {
                staged: "a".into(),
                target: "a/dataset=d".into(),
            },
            Move {
                staged: "b.json".into(),
                target: "b.json".into(),
            },
        ];
        // Decided, then interrupted after the first move.
        let text: String = moves
            .iter()
            .map(|m| format!("{}\t{}\n", m.staged.display(), m.target.display()))
            .collect();
        fs::write(staging.join(JOURNAL), text).unwrap();
        fs::create_dir_all(staging.join(REPLACED)).unwrap();
        fs::rename(tables.join("a/dataset=d"), staging.join(REPLACED).join("0")).unwrap();
        fs::rename(staging.join("a"), tables.join("a/dataset=d")).unwrap();
        assert_eq!(settle(tables).unwrap(), 1);
        assert_eq!(
            fs::read_to_string(tables.join("a/dataset=d/part-0.parquet")).unwrap(),
            "new a"
        );
        assert_eq!(fs::read_to_string(tables.join("b.json")).unwrap(), "new b");
        assert!(!staging.exists());
        assert_eq!(settle(tables).unwrap(), 0);
    }

    /// A planted journal naming `..`, an absolute path or a path through a symlink is refused
    /// whole: nothing outside the tables folder changes, and nothing inside moves either.
    #[test]
    fn journals_that_name_anything_outside_the_tables_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables");
        let outside = dir.path().join("victim");
        fs::create_dir_all(outside.join("sub")).unwrap();
        fs::write(outside.join("sub/keep.txt"), "mine").unwrap();
        fs::create_dir_all(tables.join("problems")).unwrap();
        fs::write(tables.join("problems/p.parquet"), "p").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, tables.join("link")).unwrap();
        let victim = outside.display().to_string();
        for (n, journal) in [
            "\t../victim\n".to_string(),
            format!("payload\t{victim}/sub/keep.txt\n"),
            "payload\tproblems/../../victim/sub/keep.txt\n".to_string(),
            "\tlink/sub\n".to_string(),
            "../../victim/sub\tproblems/q\n".to_string(),
            "payload\tproblems/p.parquet\n\t../victim\n".to_string(),
        ]
        .iter()
        .enumerate()
        {
            let staging = tables.join(format!(".staging-x-{n}"));
            fs::create_dir_all(&staging).unwrap();
            fs::write(staging.join("payload"), "planted").unwrap();
            fs::write(staging.join(JOURNAL), journal).unwrap();
            let err = settle(&tables).unwrap_err().to_string();
            assert!(err.contains("refused"), "{journal:?}: {err}");
            fs::remove_dir_all(&staging).unwrap();
        }
        // A staging folder that is itself a symlink is never emptied.
        #[cfg(unix)]
        {
            fs::write(outside.join(JOURNAL), "\tproblems\n").unwrap();
            std::os::unix::fs::symlink(&outside, tables.join(".staging-y-1")).unwrap();
            assert!(settle(&tables).is_err());
            fs::remove_file(tables.join(".staging-y-1")).unwrap();
        }
        assert_eq!(
            fs::read_to_string(outside.join("sub/keep.txt")).unwrap(),
            "mine"
        );
        assert_eq!(
            fs::read_to_string(tables.join("problems/p.parquet")).unwrap(),
            "p"
        );
    }
}
