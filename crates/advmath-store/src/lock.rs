//! Writer locks: one writer at a time per model's responses and per dataset's generation.
//!
//! A lock is an exclusive OS file lock (`flock` on Unix) on `<tables>/.locks/<stage>-<name>.lock`,
//! holding the owner's pid as text for the message a second writer prints. The kernel drops the
//! lock when its process ends, killed or not, so a dead run never blocks the next one. The
//! guarantee holds for processes sharing one local filesystem; over a network filesystem
//! (NFS, SMB) file locks are only as good as the server's, so two machines must not write the
//! same model's responses into one shared folder at once. A folder that is a copy of a remote
//! one takes the store's lease too (`mirror`, through [`set_remote_lease`]), which holds across
//! machines.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::paths::name_component;

/// The folder of the lock files, hidden from every table lister.
pub const FOLDER: &str = ".locks";

/// Takes the store's lease for a writer lock on a copy of a remote folder: set by `mirror`, which
/// sits above this module.
type RemoteLease = fn(&Path, &'static str, &str) -> Result<()>;
static REMOTE_LEASE: std::sync::OnceLock<RemoteLease> = std::sync::OnceLock::new();

pub fn set_remote_lease(take: RemoteLease) {
    let _ = REMOTE_LEASE.set(take);
}

/// Held while the value lives.
#[derive(Debug)]
pub struct WriterLock {
    file: File,
    path: PathBuf,
}

impl WriterLock {
    /// Take the lock of `stage` on `name` (a model or a dataset) under `tables`, or fail with
    /// [`Error::Locked`] naming the process that holds it.
    pub fn acquire(tables: &Path, stage: &'static str, name: &str) -> Result<WriterLock> {
        let dir = tables.join(FOLDER);
        let path = dir.join(format!("{stage}-{}.lock", name_component(name)));
        // A planted `.locks` or lock file that links outside would take the pid written below
        // and the truncation when the lock drops.
        crate::paths::refuse_links(&path)?;
        fs::create_dir_all(&dir).map_err(|e| Error::file(&dir, e))?;
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
        let mut file = options.open(&path).map_err(|e| Error::file(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(Error::Locked {
                    stage,
                    name: name.to_string(),
                    holder: holder.trim().to_string(),
                    path,
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::file(&path, e)),
        }
        let pid = std::process::id().to_string();
        file.set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(pid.as_bytes()))
            .and_then(|_| file.flush())
            .map_err(|e| Error::file(&path, e))?;
        if let Some(take) = REMOTE_LEASE.get() {
            take(tables, stage, name)?;
        }
        Ok(WriterLock { file, path })
    }

    /// Take the lock of `stage` on `name`, waiting for its holder to finish (a stage that merges
    /// a few rows into another stage's output waits its turn instead of failing).
    pub fn wait(tables: &Path, stage: &'static str, name: &str) -> Result<WriterLock> {
        loop {
            match WriterLock::acquire(tables, stage, name) {
                Err(Error::Locked { .. }) => {
                    std::thread::sleep(std::time::Duration::from_millis(200))
                }
                other => return other,
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriterLock {
    /// The pid goes with the lock, so a finished run leaves an empty lock file behind.
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriterLock::acquire(dir.path(), "respond", "gpt-4o").unwrap();
        match WriterLock::acquire(dir.path(), "respond", "gpt-4o") {
            Err(Error::Locked { holder, .. }) => {
                assert_eq!(holder, std::process::id().to_string())
            }
            other => panic!("expected Locked, got {other:?}"),
        }
        // Another model, or another stage, is another lock.
        let _other = WriterLock::acquire(dir.path(), "respond", "llama").unwrap();
        let _stage = WriterLock::acquire(dir.path(), "generate", "gpt-4o").unwrap();
        drop(first);
        WriterLock::acquire(dir.path(), "respond", "gpt-4o").unwrap();
    }
}
