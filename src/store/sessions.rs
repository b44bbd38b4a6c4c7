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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions,
};
use serde::{Deserialize, Serialize};

use super::location::{join_key, RemoteUrl};
use super::mirror::Entry;
use crate::error::{Error, Result};

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

/// This machine's name, as sessions and leases record it: `ADVMATH_HOST`, else the host name
/// (containers that share one host name each need their own).
pub(crate) fn host() -> String {
    if let Some(name) = std::env::var("ADVMATH_HOST").ok().filter(|n| !n.is_empty()) {
        return super::paths::sanitize(&name);
    }
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_else(|_| "host".into());
    super::paths::sanitize(name.trim())
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

/// Whether process `pid` of this machine is running.
pub(crate) fn process_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: kill(2) with signal 0 only checks that the process exists.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
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
            let id = key[sessions.len()..].trim_start_matches('/');
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

/// A key of a session's virtual folder, split: the session's key, and the table-relative key
/// below `at/` (empty for the folder itself).
fn virtual_key(key: &str) -> Option<(&str, &str)> {
    let start = if key.starts_with(REMOTE) {
        0
    } else {
        key.find(&format!("/{REMOTE}/"))? + 1
    };
    let after = &key[start + REMOTE.len()..];
    let after = after.strip_prefix('/')?;
    let (id, rest) = after.split_once('/')?;
    let rest = match rest.strip_prefix(AT) {
        Some("") => "",
        Some(r) => r.strip_prefix('/')?,
        None => return None,
    };
    Some((&key[..start + REMOTE.len() + 1 + id.len()], rest))
}

/// A bucket's client that serves the sessions' virtual folders from their pins (see the module
/// documentation) and passes every other key through.
#[derive(Debug)]
pub struct PinnedStore {
    inner: Arc<dyn ObjectStore>,
    pins: Arc<Mutex<HashMap<String, Arc<Pins>>>>,
}

impl std::fmt::Display for PinnedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pinned({})", self.inner)
    }
}

fn not_found(path: &str) -> object_store::Error {
    object_store::Error::NotFound {
        path: path.to_string(),
        source: "not among the session's pinned objects".into(),
    }
}

fn read_only(path: &str) -> object_store::Error {
    object_store::Error::Generic {
        store: "advmath session",
        source: format!("{path}: a session's pinned tables are read only").into(),
    }
}

/// The entries of `pins` below the table-relative folder `folder` ("" for all), as objects of
/// the virtual folder of `session`.
fn pinned_objects(session: &str, pins: &Pins, folder: &str) -> Vec<ObjectMeta> {
    let at = join_key(session, AT);
    pins.objects
        .iter()
        .filter(|(key, _)| {
            folder.is_empty()
                || key
                    .strip_prefix(folder)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .map(|(key, entry)| ObjectMeta {
            location: ObjectPath::from(join_key(&at, key).as_str()),
            last_modified: Default::default(),
            size: entry.size,
            e_tag: entry.e_tag.clone(),
            version: entry.version.clone(),
        })
        .collect()
}

impl PinnedStore {
    pub fn new(inner: Arc<dyn ObjectStore>) -> PinnedStore {
        PinnedStore {
            inner,
            pins: Default::default(),
        }
    }

    /// The pins of `session`, read once per process (a session's pins never change).
    async fn pins_of(
        inner: &Arc<dyn ObjectStore>,
        cache: &Mutex<HashMap<String, Arc<Pins>>>,
        session: &str,
    ) -> object_store::Result<Arc<Pins>> {
        if let Some(pins) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(session) {
            return Ok(Arc::clone(pins));
        }
        let key = join_key(session, PINS);
        let bytes = inner
            .get(&ObjectPath::from(key.as_str()))
            .await?
            .bytes()
            .await?;
        let pins: Pins =
            serde_json::from_slice(&bytes).map_err(|e| object_store::Error::Generic {
                store: "advmath session",
                source: format!("{key}: not a session's pins: {e}").into(),
            })?;
        let pins = Arc::new(pins);
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        // A long-lived executor serves many sessions: keep the latest few.
        if cache.len() >= 64 {
            cache.clear();
        }
        cache.insert(session.to_string(), Arc::clone(&pins));
        Ok(pins)
    }

    fn list_virtual(
        &self,
        session: String,
        folder: String,
        offset: Option<String>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        let (inner, cache) = (Arc::clone(&self.inner), Arc::clone(&self.pins));
        futures::stream::once(async move {
            let pins = Self::pins_of(&inner, &cache, &session).await?;
            let objects = pinned_objects(&session, &pins, folder.trim_end_matches('/'));
            let objects = objects
                .into_iter()
                .filter(move |m| offset.as_deref().is_none_or(|o| m.location.as_ref() > o))
                .map(Ok);
            Ok::<_, object_store::Error>(futures::stream::iter(objects))
        })
        .try_flatten()
        .boxed()
    }
}

#[async_trait::async_trait]
impl ObjectStore for PinnedStore {
    async fn put_opts(
        &self,
        location: &ObjectPath,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        if virtual_key(location.as_ref()).is_some() {
            return Err(read_only(location.as_ref()));
        }
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &ObjectPath,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        if virtual_key(location.as_ref()).is_some() {
            return Err(read_only(location.as_ref()));
        }
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &ObjectPath,
        mut options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let Some((session, relative)) = virtual_key(location.as_ref()) else {
            return self.inner.get_opts(location, options).await;
        };
        let pins = Self::pins_of(&self.inner, &self.pins, session).await?;
        let entry = pins
            .objects
            .get(relative)
            .ok_or_else(|| not_found(location.as_ref()))?;
        match &entry.version {
            Some(version) => options.version = Some(version.clone()),
            None => options.if_match = options.if_match.or_else(|| entry.e_tag.clone()),
        }
        let real = ObjectPath::from(join_key(&pins.tables, relative).as_str());
        let mut result = self
            .inner
            .get_opts(&real, options)
            .await
            .map_err(|e| match e {
                object_store::Error::Precondition { path, .. } => {
                    object_store::Error::Precondition {
                        path,
                        source: "replaced since this query's session pinned it: a push is under \
                                 way, and the bucket keeps no versions to read the pinned one \
                                 by; run the query again once the push has committed"
                            .into(),
                    }
                }
                other => other,
            })?;
        result.meta.location = location.clone();
        Ok(result)
    }

    async fn get_ranges(
        &self,
        location: &ObjectPath,
        ranges: &[Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        if virtual_key(location.as_ref()).is_none() {
            return self.inner.get_ranges(location, ranges).await;
        }
        object_store::coalesce_ranges(
            ranges,
            |range| self.get_range(location, range),
            object_store::OBJECT_STORE_COALESCE_DEFAULT,
        )
        .await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<ObjectPath>>,
    ) -> BoxStream<'static, object_store::Result<ObjectPath>> {
        let locations = locations
            .map(|l| match l {
                Ok(l) if virtual_key(l.as_ref()).is_some() => Err(read_only(l.as_ref())),
                other => other,
            })
            .boxed();
        self.inner.delete_stream(locations)
    }

    fn list(
        &self,
        prefix: Option<&ObjectPath>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        match prefix.and_then(|p| virtual_key(p.as_ref())) {
            Some((session, folder)) => {
                self.list_virtual(session.to_string(), folder.to_string(), None)
            }
            None => self.inner.list(prefix),
        }
    }

    fn list_with_offset(
        &self,
        prefix: Option<&ObjectPath>,
        offset: &ObjectPath,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        match prefix.and_then(|p| virtual_key(p.as_ref())) {
            Some((session, folder)) => self.list_virtual(
                session.to_string(),
                folder.to_string(),
                Some(offset.to_string()),
            ),
            None => self.inner.list_with_offset(prefix, offset),
        }
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&ObjectPath>,
    ) -> object_store::Result<ListResult> {
        let Some((session, folder)) = prefix.and_then(|p| virtual_key(p.as_ref())) else {
            return self.inner.list_with_delimiter(prefix).await;
        };
        let pins = Self::pins_of(&self.inner, &self.pins, session).await?;
        let folder = folder.trim_end_matches('/');
        let below = join_key(&join_key(session, AT), folder);
        let mut common = BTreeSet::new();
        let mut objects = Vec::new();
        for meta in pinned_objects(session, &pins, folder) {
            let rest = meta.location.as_ref()[below.len()..].trim_start_matches('/');
            match rest.split_once('/') {
                Some((child, _)) => {
                    common.insert(ObjectPath::from(join_key(&below, child).as_str()));
                }
                None => objects.push(meta),
            }
        }
        Ok(ListResult {
            common_prefixes: common.into_iter().collect(),
            objects,
        })
    }

    async fn copy_opts(
        &self,
        from: &ObjectPath,
        to: &ObjectPath,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        if virtual_key(to.as_ref()).is_some() || virtual_key(from.as_ref()).is_some() {
            return Err(read_only(to.as_ref()));
        }
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(
        &self,
        from: &ObjectPath,
        to: &ObjectPath,
        options: RenameOptions,
    ) -> object_store::Result<()> {
        if virtual_key(to.as_ref()).is_some() || virtual_key(from.as_ref()).is_some() {
            return Err(read_only(to.as_ref()));
        }
        self.inner.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_keys_split_into_session_and_table_key() {
        assert_eq!(
            virtual_key("lab/tables/_advmath/sessions/h-1-2-3/at/responses/m/part-0.parquet"),
            Some((
                "lab/tables/_advmath/sessions/h-1-2-3",
                "responses/m/part-0.parquet"
            ))
        );
        assert_eq!(
            virtual_key("_advmath/sessions/h-1-2-3/at"),
            Some(("_advmath/sessions/h-1-2-3", ""))
        );
        assert_eq!(
            virtual_key("lab/tables/_advmath/sessions/h-1-2-3/views/x"),
            None
        );
        assert_eq!(virtual_key("lab/tables/responses/part-0.parquet"), None);
        assert_eq!(virtual_key("lab/x_advmath/sessions/a/at/b"), None);
    }

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
