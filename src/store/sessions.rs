//! A query session's place beside the tables: the committed state of a bucket pinned for the
//! session's whole life, and a scratch area for the shared views a metrics run computes once.
//!
//! Readers on a cluster (the scheduler lists a table's files, the executors read them) must see
//! the state a push committed, never a push in progress. The session's client reads the manifest
//! once and writes what it lists below the tables, object by object with its size, ETag and
//! version, to `<tables>/_advmath/sessions/<id>/pins.json`. The tables are then registered under
//! the session's virtual folder `<tables>/_advmath/sessions/<id>/at/<table>/...`: a
//! [`PinnedStore`] (every cluster process wraps its bucket's client in one) answers a listing of
//! that folder from the pins and a read from the real object, asked by version where the bucket
//! keeps versions and by `If-Match` on the pinned ETag otherwise. A part a push adds later is not
//! in the pins; a part it replaces is read as pinned, or, on a bucket without versions, the read
//! fails instead of mixing two states.
//!
//! Shared views go to `<session>/views/<view>/part-<n>.parquet` (in a local tables folder,
//! `.sessions/<id>/views/...`), where every executor reads them. A session removes its folder when
//! it ends; one left by a killed process is removed by a later session (same machine and a dead
//! process, or two days old).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{MultipartUpload, ObjectMeta, ObjectStore, ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};

use super::location::{join_key, RemoteUrl};
use super::machine::{host, process_alive};
use super::mirror::Entry;

mod pinned;
use crate::error::{Error, Result};
pub use pinned::PinnedStore;

/// The sessions' folder below a bucket's tables (hidden from every table lister: a `_` name).
const REMOTE: &str = "_advmath/sessions";
/// The sessions' folder in a local tables folder (hidden: a `.` name).
const LOCAL: &str = ".sessions";
const PINS: &str = "pins.json";
/// The virtual folder of the pinned tables, inside a session.
const AT: &str = "at";
const VIEWS: &str = "views";
/// A session folder older than this is taken for a dead one, whoever left it.
const STALE_SECONDS: u64 = 2 * 24 * 3600;

/// What a session pinned: the tables' real key prefix and their committed objects, keys relative
/// to it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pins {
    pub tables: String,
    pub objects: BTreeMap<String, Entry>,
}

enum Place {
    Local(PathBuf),
    Remote {
        store: Arc<dyn ObjectStore>,
        bucket: String,
        key: String,
    },
}

/// A session's folder, removed when the value is dropped.
pub struct Session {
    place: Place,
}

fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A new session's name: `<host>-<pid>-<unix seconds>-<nanos>`.
fn new_id() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!(
        "{}-{}-{}-{}",
        host(),
        std::process::id(),
        now.as_secs(),
        now.subsec_nanos()
    )
}

/// Whether the session `id` (a folder name) is left over: older than two days, or of this
/// machine and a process that has ended.
fn left_over(id: &str) -> bool {
    let mut fields = id.rsplitn(4, '-');
    let (Some(_nanos), Some(seconds), Some(pid), Some(host_name)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    let (Ok(seconds), Ok(pid)) = (seconds.parse::<u64>(), pid.parse::<i32>()) else {
        return false;
    };
    if now_seconds().saturating_sub(seconds) > STALE_SECONDS {
        return true;
    }
    host_name == host() && pid > 0 && !process_alive(pid as u32)
}

fn remote_error(bucket: &str, key: &str, action: &'static str, e: object_store::Error) -> Error {
    Error::Remote {
        url: format!("s3://{bucket}/{key}"),
        action,
        source: Box::new(e),
    }
}

impl Session {
    /// A session over a local tables folder (its scratch area only: a local folder has no
    /// manifest, and advmath's readers hold its shared lock instead).
    pub fn local(tables: &Path) -> Result<Session> {
        let sessions = tables.join(LOCAL);
        if let Ok(entries) = std::fs::read_dir(&sessions) {
            for entry in entries.flatten() {
                if left_over(&entry.file_name().to_string_lossy()) {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        Ok(Session {
            place: Place::Local(sessions.join(new_id())),
        })
    }

    /// A session over the tables of a bucket's folder `url`, with their committed state pinned
    /// (written to the session's `pins.json` before anything reads it). Returns the pins too.
    pub async fn remote(store: Arc<dyn ObjectStore>, url: &RemoteUrl) -> Result<(Session, Pins)> {
        let sessions = url.key(REMOTE);
        let old: Vec<ObjectMeta> = store
            .list(Some(&ObjectPath::from(sessions.as_str())))
            .try_collect()
            .await
            .map_err(|e| remote_error(&url.bucket, &sessions, "list the sessions", e))?;
        let mut dead = BTreeSet::new();
        for meta in &old {
            let key = meta.location.to_string();
            // A listing is the bucket's word: a key outside the prefix is nobody's session.
            let Some(id) = key.strip_prefix(sessions.as_str()) else {
                continue;
            };
            let id = id.trim_start_matches('/');
            let id = id.split('/').next().unwrap_or_default();
            if left_over(id) {
                dead.insert(meta.location.clone());
            }
        }
        for location in dead {
            let _ = store.delete(&location).await;
        }
        let objects = super::mirror::committed(store.as_ref(), url).await?;
        let pins = Pins {
            tables: url.prefix.clone(),
            objects: objects
                .into_iter()
                .filter(|(key, _)| !key.split('/').any(|p| p.starts_with(['_', '.'])))
                .collect(),
        };
        let key = join_key(&sessions, &new_id());
        let pins_key = join_key(&key, PINS);
        let text = serde_json::to_vec(&pins).expect("pins serialise");
        store
            .put(&ObjectPath::from(pins_key.as_str()), PutPayload::from(text))
            .await
            .map_err(|e| remote_error(&url.bucket, &pins_key, "write the session's pins", e))?;
        let session = Session {
            place: Place::Remote {
                store,
                bucket: url.bucket.clone(),
                key,
            },
        };
        Ok((session, pins))
    }

    /// The URL of table `name` as pinned (a bucket's session only).
    pub fn table_url(&self, name: &str) -> Option<String> {
        match &self.place {
            Place::Local(_) => None,
            Place::Remote { bucket, key, .. } => Some(format!(
                "s3://{bucket}/{}/",
                join_key(&join_key(key, AT), name)
            )),
        }
    }

    /// The URL of the folder holding shared view `name`'s parts.
    pub fn view_url(&self, name: &str) -> String {
        match &self.place {
            Place::Local(dir) => format!("{}/", dir.join(VIEWS).join(name).display()),
            Place::Remote { bucket, key, .. } => {
                format!("s3://{bucket}/{}/", join_key(&join_key(key, VIEWS), name))
            }
        }
    }

    /// Write part `n` of shared view `name`.
    pub async fn write_view_part(&self, name: &str, n: usize, bytes: Vec<u8>) -> Result<()> {
        let file = format!("part-{n:05}.parquet");
        match &self.place {
            Place::Local(dir) => {
                let folder = dir.join(VIEWS).join(name);
                std::fs::create_dir_all(&folder).map_err(|e| Error::file(&folder, e))?;
                let path = folder.join(file);
                std::fs::write(&path, bytes).map_err(|e| Error::file(&path, e))
            }
            Place::Remote { store, bucket, key } => {
                let part = join_key(&join_key(&join_key(key, VIEWS), name), &file);
                let location = ObjectPath::from(part.as_str());
                let written = if bytes.len() <= 16 << 20 {
                    store
                        .put(&location, PutPayload::from(bytes))
                        .await
                        .map(drop)
                } else {
                    let mut upload = store
                        .put_multipart(&location)
                        .await
                        .map_err(|e| remote_error(bucket, &part, "upload a view", e))?;
                    for chunk in bytes.chunks(16 << 20) {
                        upload
                            .put_part(PutPayload::from(chunk.to_vec()))
                            .await
                            .map_err(|e| remote_error(bucket, &part, "upload a view", e))?;
                    }
                    upload.complete().await.map(drop)
                };
                written.map_err(|e| remote_error(bucket, &part, "upload a view", e))
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        match &self.place {
            Place::Local(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Place::Remote { store, key, .. } => {
                // The engine's runtime may be gone or inside a call: a small runtime of its own.
                let (store, prefix) = (Arc::clone(store), ObjectPath::from(key.as_str()));
                let cleanup = std::thread::spawn(move || {
                    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    else {
                        return;
                    };
                    runtime.block_on(async {
                        let objects: Vec<ObjectMeta> = store
                            .list(Some(&prefix))
                            .try_collect()
                            .await
                            .unwrap_or_default();
                        for meta in objects {
                            let _ = store.delete(&meta.location).await;
                        }
                    });
                });
                let _ = cleanup.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_of_a_dead_process_or_two_days_old_is_left_over() {
        let now = now_seconds();
        let me = std::process::id();
        assert!(!left_over(&format!("{}-{me}-{now}-5", host())));
        assert!(left_over(&format!(
            "{}-{me}-{}-5",
            host(),
            now - STALE_SECONDS - 10
        )));
        // Another machine's session: only its age counts.
        assert!(!left_over(&format!("elsewhere-{}-{now}-5", i32::MAX)));
        assert!(left_over(&format!("{}-{}-{now}-5", host(), i32::MAX)));
        assert!(!left_over("not-a-session"));
    }
}
