//! A folder in object storage, worked on through a local copy.
//!
//! Every stage keeps its atomic local machinery (staging folders, journals, locks, write-ahead
//! logs) and runs on a local copy of the remote folder (the mirror, under the cache folder).
//! [`Mirror::open`] brings the copy up to date with the store; [`Mirror::push`] sends back what
//! the command changed. The store holds a manifest, `_advmath/manifest.json`, listing every
//! object of a pushed state with its size and ETag:
//!
//! - a push uploads the new and changed files first (each object appears whole or not at all:
//!   a single PUT, or a multipart upload that is invisible until completed), then commits the
//!   manifest with a conditional PUT (`If-Match` on the manifest it read, `If-None-Match` for the
//!   first), merging with a manifest another machine committed meanwhile, and only then deletes
//!   the objects it removed. A reader following the manifest sees the state before or after a
//!   push, never a mix; a push killed before its commit changes nothing a reader sees;
//! - a pull downloads what the manifest lists and the copy lacks, each object checked against
//!   its manifest ETag (`If-Match`), and removes what the store no longer holds. Local changes
//!   that were never pushed (a command killed before its push) are kept and go with the next push.
//!
//! The manifest of a folder is its own or, when it has none, its nearest parent's: `run --out
//! s3://b/study` commits `study/_advmath/manifest.json`, which `--tables s3://b/study/tables`
//! then follows. A prefix without any manifest (tables uploaded by hand) is read by listing.
//! Hidden files (locks, staging folders, temporary files) and write-ahead logs (`*.wal`) stay
//! local: never sent, and never taken from a store, whose manifest or listing may name anything
//! (`copy` keeps those rules). One command at a time uses a copy (a second one is refused), and
//! one writer at a time, on any machine, writes a table's part (a stage's writer lock on a copy
//! also takes the store's lease: `lease`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{
    GetOptions, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion,
};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::location::{join_key, object_store, RemoteUrl};
use crate::store::lock::WriterLock;
use copy::{read_index, refused_key, same_content, scan, stamp, write_index, Stamp, Synced};

mod copy;
mod lease;
mod manifest;

pub use manifest::committed;
use manifest::{manifest_root, read_manifest, remote_error};

/// The manifest's key under its folder.
pub const MANIFEST: &str = "_advmath/manifest.json";

/// Transfers in flight at once.
const PARALLEL: usize = 8;

/// Files larger than this are uploaded in parts of this size.
const PART_BYTES: usize = 16 << 20;

/// An object of a pushed state (keys relative to the manifest's folder): its size, its ETag, and
/// on a bucket that keeps versions its version, by which a reader gets exactly these bytes even
/// after a later push replaced them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub size: u64,
    pub e_tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Manifest {
    objects: BTreeMap<String, Entry>,
}

/// A remote folder's local copy, held by this process until dropped.
pub struct Mirror {
    url: RemoteUrl,
    store: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
    local: PathBuf,
    /// The folder whose manifest this copy follows, and this folder's path below it.
    root: String,
    below_root: String,
    /// The store's leases this command took (held until it ends).
    leases: std::sync::Mutex<Vec<lease::Lease>>,
    _lock: WriterLock,
}

/// The cache folder: `ADVMATH_CACHE_DIR`, else `$XDG_CACHE_HOME/advmath`, else
/// `~/.cache/advmath`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("ADVMATH_CACHE_DIR") {
        return dir.into();
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("advmath");
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache").join("advmath"),
        None => std::env::temp_dir().join("advmath-cache"),
    }
}

impl Mirror {
    /// The local copy of `url`, brought up to date with the store; the writer locks taken in it
    /// take the store's leases too.
    pub fn open(url: &RemoteUrl) -> Result<Arc<Mirror>> {
        let name = format!(
            "{}-{:016x}",
            crate::store::paths::name_component(&url.prefix),
            crate::seed::fnv1a(url.prefix.as_bytes())
        );
        let bucket_dir = cache_dir()
            .join("mirrors")
            .join(crate::store::paths::name_component(&url.bucket));
        // The copy's lock and index live beside it, not in it: a stage that replaces its
        // output folder whole (metrics, publish) swaps the copy's folder, and an output folder
        // the store does not have yet must not exist locally either (`publish` refuses an
        // existing one).
        std::fs::create_dir_all(&bucket_dir).map_err(|e| Error::file(&bucket_dir, e))?;
        let lock = WriterLock::acquire(&bucket_dir, "mirror", &name)?;
        let local = bucket_dir.join(&name);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::from)?;
        let mut mirror = Mirror {
            store: object_store(url)?,
            url: url.clone(),
            runtime,
            local,
            root: url.prefix.clone(),
            below_root: String::new(),
            leases: Default::default(),
            _lock: lock,
        };
        mirror.find_root()?;
        // Switches a killed command decided are finished before anything is compared.
        for dir in [mirror.local.clone(), mirror.local.join("tables")] {
            if dir
                .join(crate::store::lock::FOLDER)
                .join("tables.lock")
                .exists()
            {
                drop(crate::store::commit::TablesLock::exclusive(&dir)?);
            }
        }
        mirror.pull()?;
        let mirror = Arc::new(mirror);
        lease::register_copy(&mirror);
        Ok(mirror)
    }

    /// The local folder to work in.
    pub fn path(&self) -> &Path {
        &self.local
    }

    pub fn url(&self) -> &RemoteUrl {
        &self.url
    }

    fn remote_error(&self, key: &str, action: &'static str, e: object_store::Error) -> Error {
        remote_error(&self.url.bucket, key, action, e)
    }

    /// The nearest folder at or above this one that has a manifest (this one if none has).
    fn find_root(&mut self) -> Result<()> {
        let (root, below_root) = self
            .runtime
            .block_on(manifest_root(self.store.as_ref(), &self.url))?;
        self.root = root;
        self.below_root = below_root;
        Ok(())
    }

    /// The manifest and its version; without one, a listing of the folder.
    fn read_manifest(&self) -> Result<(Manifest, Option<UpdateVersion>)> {
        self.runtime.block_on(read_manifest(
            self.store.as_ref(),
            &self.url.bucket,
            &self.root,
        ))
    }

    /// `relative` (to this copy) as a key relative to the manifest's folder, and back.
    fn root_relative(&self, relative: &str) -> String {
        join_key(&self.below_root, relative)
    }

    fn copy_relative<'a>(&self, root_relative: &'a str) -> Option<&'a str> {
        if self.below_root.is_empty() {
            return Some(root_relative);
        }
        root_relative
            .strip_prefix(&self.below_root)
            .and_then(|k| k.strip_prefix('/'))
    }

    /// Bring the copy up to date with the store's manifest (see the module documentation).
    fn pull(&self) -> Result<()> {
        let (manifest, _) = self.read_manifest()?;
        let mut remote: BTreeMap<&str, &Entry> = BTreeMap::new();
        let mut refused = Vec::new();
        for (key, entry) in &manifest.objects {
            let Some(relative) = self.copy_relative(key) else {
                continue;
            };
            match refused_key(relative) {
                None => {
                    remote.insert(relative, entry);
                }
                Some(why) => refused.push(format!("{key:?}: {why}")),
            }
        }
        if !refused.is_empty() {
            // Nothing is downloaded from a store that names such keys: it is not one advmath
            // wrote, or someone planted them.
            return Err(Error::invalid(
                self.url.to_string(),
                format!(
                    "the store names {} key(s) a copy may not take, so nothing is read from it: {}",
                    refused.len(),
                    refused
                        .iter()
                        .take(3)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ));
        }
        let mut index = read_index(&self.local)?;
        let local = scan(&self.local)?;
        let mut wanted = Vec::new();
        for (&relative, &entry) in &remote {
            let synced = index.get(relative);
            let same = synced.is_some_and(|s| s.e_tag == entry.e_tag && s.size == entry.size);
            if !same {
                wanted.push((relative.to_string(), entry.clone()));
            }
        }
        for (relative, stamp) in &local {
            if remote.contains_key(relative.as_str()) {
                continue;
            }
            // Synced before and unchanged since: the store removed it. Otherwise it is a local
            // change not pushed yet, kept for the next push.
            if let Some(synced) = index.get(relative) {
                if (synced.size, synced.modified_ns) == *stamp {
                    let path = self.local.join(relative);
                    std::fs::remove_file(&path).map_err(|e| Error::file(&path, e))?;
                    index.remove(relative);
                }
            }
        }
        index.retain(|k, _| remote.contains_key(k.as_str()) || local.contains_key(k));
        let downloaded = self.download(wanted)?;
        for (relative, synced) in downloaded {
            index.insert(relative, synced);
        }
        write_index(&self.local, &index)
    }

    fn download(&self, wanted: Vec<(String, Entry)>) -> Result<Vec<(String, Synced)>> {
        let jobs = wanted.into_iter().map(|(relative, entry)| {
            let key = join_key(&self.root, &self.root_relative(&relative));
            let path = self.local.join(&relative);
            async move {
                let options = GetOptions {
                    if_match: entry.e_tag.clone(),
                    version: entry.version.clone(),
                    ..Default::default()
                };
                let got = self
                    .store
                    .get_opts(&ObjectPath::from(key.as_str()), options)
                    .await;
                let bytes = match got {
                    Ok(result) => result.bytes().await,
                    Err(e) => Err(e),
                };
                let bytes = bytes.map_err(|e| match e {
                    object_store::Error::Precondition { .. }
                    | object_store::Error::NotFound { .. } => Error::RemoteChanged {
                        url: self.url.to_string(),
                        key: key.clone(),
                        reason: e.to_string(),
                    },
                    e => self.remote_error(&key, "download", e),
                })?;
                if bytes.len() as u64 != entry.size {
                    return Err(Error::RemoteChanged {
                        url: self.url.to_string(),
                        key,
                        reason: format!("{} bytes, the manifest says {}", bytes.len(), entry.size),
                    });
                }
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
                }
                let tmp = crate::store::atomic::tmp_path(&path);
                std::fs::write(&tmp, &bytes).map_err(|e| Error::file(&tmp, e))?;
                std::fs::rename(&tmp, &path).map_err(|e| Error::file(&path, e))?;
                let meta = std::fs::metadata(&path).map_err(|e| Error::file(&path, e))?;
                let (size, modified_ns) = stamp(&meta);
                Ok((
                    relative,
                    Synced {
                        size,
                        modified_ns,
                        e_tag: entry.e_tag,
                        version: entry.version,
                    },
                ))
            }
        });
        self.runtime.block_on(
            futures::stream::iter(jobs)
                .buffer_unordered(PARALLEL)
                .try_collect(),
        )
    }

    /// Send the copy's changes to the store and commit them to the manifest. Returns how many
    /// objects were uploaded and removed.
    pub fn push(&self) -> Result<usize> {
        let mut index = read_index(&self.local)?;
        let local = scan(&self.local)?;
        let mut changed = Vec::new();
        let mut restamped = false;
        for (relative, stamp) in &local {
            let Some(synced) = index.get_mut(relative) else {
                changed.push((relative.clone(), *stamp));
                continue;
            };
            if (synced.size, synced.modified_ns) == *stamp {
                continue;
            }
            // Rewritten with the bytes the store already has (every rerun rewrites its files).
            if synced.size == stamp.0 && same_content(&self.local.join(relative), synced)? {
                synced.modified_ns = stamp.1;
                restamped = true;
            } else {
                changed.push((relative.clone(), *stamp));
            }
        }
        let removed: Vec<String> = index
            .keys()
            .filter(|k| !local.contains_key(*k))
            .cloned()
            .collect();
        if changed.is_empty() && removed.is_empty() {
            if restamped {
                write_index(&self.local, &index)?;
            }
            return Ok(0);
        }
        let uploaded = self.upload(changed)?;
        crate::store::fault::point(|| format!("commit manifest of {}", self.url))
            .map_err(|e| Error::file(copy::index_path(&self.local), e))?;
        // A writer whose lease another took over must not add its rows to the other's.
        if let Some(lost) = self
            .leases
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|l| l.lost())
        {
            return Err(Error::invalid(
                format!("s3://{}/{}", self.url.bucket, lost.key),
                "this command's lease was taken over by another writer while it ran (its renewals stopped for longer than the lease's time to live), so its changes are not committed; they stay in the local copy",
            ));
        }
        self.commit(&uploaded, &removed)?;
        for relative in &removed {
            let key = join_key(&self.root, &self.root_relative(relative));
            match self
                .runtime
                .block_on(self.store.delete(&ObjectPath::from(key.as_str())))
            {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(self.remote_error(&key, "delete", e)),
            }
            index.remove(relative);
        }
        let count = uploaded.len() + removed.len();
        for (relative, synced) in uploaded {
            index.insert(relative, synced);
        }
        write_index(&self.local, &index)?;
        Ok(count)
    }

    fn upload(&self, changed: Vec<(String, Stamp)>) -> Result<Vec<(String, Synced)>> {
        let jobs = changed.into_iter().map(|(relative, (size, modified_ns))| {
            let key = join_key(&self.root, &self.root_relative(&relative));
            let path = self.local.join(&relative);
            async move {
                crate::store::fault::point(|| format!("upload {key}"))
                    .map_err(|e| Error::file(&path, e))?;
                let bytes = std::fs::read(&path).map_err(|e| Error::file(&path, e))?;
                let location = ObjectPath::from(key.as_str());
                let result = if bytes.len() <= PART_BYTES {
                    self.store.put(&location, PutPayload::from(bytes)).await
                } else {
                    // Invisible until `complete`: a killed upload leaves no object.
                    let mut upload = self
                        .store
                        .put_multipart(&location)
                        .await
                        .map_err(|e| self.remote_error(&key, "upload", e))?;
                    for part in bytes.chunks(PART_BYTES) {
                        upload
                            .put_part(PutPayload::from(part.to_vec()))
                            .await
                            .map_err(|e| self.remote_error(&key, "upload", e))?;
                    }
                    upload.complete().await
                };
                let result = result.map_err(|e| self.remote_error(&key, "upload", e))?;
                Ok::<_, Error>((
                    relative,
                    Synced {
                        size,
                        modified_ns,
                        e_tag: result.e_tag,
                        version: result.version,
                    },
                ))
            }
        });
        self.runtime.block_on(
            futures::stream::iter(jobs)
                .buffer_unordered(PARALLEL)
                .try_collect(),
        )
    }

    /// Commit the uploads and removals to the manifest, merged into whatever the manifest holds
    /// now (another machine may have committed since this copy was pulled).
    fn commit(&self, uploaded: &[(String, Synced)], removed: &[String]) -> Result<()> {
        let key = join_key(&self.root, MANIFEST);
        for _ in 0..50 {
            let (mut manifest, version) = self.read_manifest()?;
            for (relative, synced) in uploaded {
                manifest.objects.insert(
                    self.root_relative(relative),
                    Entry {
                        size: synced.size,
                        e_tag: synced.e_tag.clone(),
                        version: synced.version.clone(),
                    },
                );
            }
            for relative in removed {
                manifest.objects.remove(&self.root_relative(relative));
            }
            let text = serde_json::to_string_pretty(&manifest).expect("the manifest serialises");
            let mode = match version {
                Some(version) => PutMode::Update(version),
                None => PutMode::Create,
            };
            let options = PutOptions {
                mode,
                ..Default::default()
            };
            let put = self.runtime.block_on(self.store.put_opts(
                &ObjectPath::from(key.as_str()),
                PutPayload::from(text.into_bytes()),
                options,
            ));
            match put {
                Ok(_) => return Ok(()),
                Err(object_store::Error::Precondition { .. })
                | Err(object_store::Error::AlreadyExists { .. }) => continue,
                Err(e) => return Err(self.remote_error(&key, "commit the manifest", e)),
            }
        }
        Err(Error::Remote {
            url: format!("s3://{}/{key}", self.url.bucket),
            action: "commit the manifest",
            source: "other writers kept committing first (50 tries)".into(),
        })
    }
}
