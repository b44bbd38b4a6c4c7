//! One writer per table across machines: a lease object in the store beside the manifest,
//! `_advmath/locks/<folder>/<stage>-<name>.json`, taken by every writer lock on a copy of a remote
//! folder (the copy's local file lock covers one machine only).
//!
//! A lease is taken with a create-if-absent write, renewed by a heartbeat (a write conditional on
//! the version it last wrote) every third of its time to live, and deleted when the command ends.
//! A lease the store last saw renewed more than its time to live ago belongs to a dead writer and
//! is taken over with a write conditional on that very version, so two machines cannot both take
//! it; so is one whose holder ran on this machine and has ended. A writer whose heartbeat finds the lease taken over has lost it: its push is refused, so
//! what it wrote never joins the other writer's. The store's clock dates the renewals and this
//! machine's judges them: the machines' clocks must agree within a few seconds (NTP).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use serde::{Deserialize, Serialize};

use super::Mirror;
use crate::error::{Error, Result};
use crate::store::location::join_key;
use crate::store::machine::{host, process_alive};

/// The leases' folder under the manifest's folder.
pub(super) const FOLDER: &str = "_advmath/locks";

/// A lease's time to live: `ADVMATH_LEASE_SECONDS`, else 30 s.
fn time_to_live() -> Duration {
    let seconds = std::env::var("ADVMATH_LEASE_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&s| s >= 1)
        .unwrap_or(30);
    Duration::from_secs(seconds)
}

/// What a lease object holds: who, and for how long after each renewal.
#[derive(Debug, Serialize, Deserialize)]
struct Holder {
    host: String,
    pid: u32,
    ttl_seconds: u64,
}

impl Holder {
    fn me(ttl: Duration) -> Holder {
        Holder {
            host: host(),
            pid: std::process::id(),
            ttl_seconds: ttl.as_secs(),
        }
    }
}

/// A lease this process holds, renewed by its own thread until dropped (then deleted).
pub(super) struct Lease {
    pub key: String,
    lost: Arc<AtomicBool>,
    stop: Option<Sender<()>>,
    heartbeat: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// Whether another writer took the lease over (this one's renewals stopped for longer than
    /// its time to live).
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(h) = self.heartbeat.take() {
            let _ = h.join();
        }
    }
}

fn put_options(mode: PutMode) -> PutOptions {
    PutOptions {
        mode,
        ..Default::default()
    }
}

fn version_of(result: &object_store::PutResult) -> UpdateVersion {
    UpdateVersion {
        e_tag: result.e_tag.clone(),
        version: result.version.clone(),
    }
}

/// Take the lease at `key` in `store` (`url_of` names a key for messages), or fail with
/// [`advmath_store::Error::Locked`] naming the live holder.
pub(super) fn take(
    runtime: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    url_of: &dyn Fn(&str) -> String,
    key: &str,
    stage: &'static str,
    name: &str,
) -> Result<Lease> {
    let ttl = time_to_live();
    let location = ObjectPath::from(key);
    let body = || PutPayload::from(serde_json::to_vec(&Holder::me(ttl)).expect("serialises"));
    let remote = |action, e: object_store::Error| Error::Remote {
        url: url_of(key),
        action,
        source: Box::new(e),
    };
    let mut held = None;
    for _ in 0..20 {
        match runtime.block_on(store.put_opts(&location, body(), put_options(PutMode::Create))) {
            Ok(result) => {
                held = Some(version_of(&result));
                break;
            }
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => {}
            Err(e) => return Err(remote("take the lease", e)),
        }
        let got = runtime.block_on(async {
            let result = store.get(&location).await?;
            let meta = result.meta.clone();
            Ok::<_, object_store::Error>((meta, result.bytes().await?))
        });
        let (meta, bytes) = match got {
            Ok(got) => got,
            // Released meanwhile: try again.
            Err(object_store::Error::NotFound { .. }) => continue,
            Err(e) => return Err(remote("read the lease", e)),
        };
        let holder: Option<Holder> = serde_json::from_slice(&bytes).ok();
        let lease_ttl = holder
            .as_ref()
            .map_or(ttl, |h| Duration::from_secs(h.ttl_seconds.max(1)));
        let age = std::time::SystemTime::now()
            .duration_since(std::time::SystemTime::from(meta.last_modified))
            .unwrap_or_default();
        // A holder on this machine whose process has ended is dead now, as the kernel knows of
        // a local lock's holder: a rerun after a kill -9 need not wait for the expiry.
        let dead_here = holder.as_ref().is_some_and(|h| {
            h.host == host() && h.pid != std::process::id() && !process_alive(h.pid)
        });
        if age <= lease_ttl && !dead_here {
            let who = holder.map_or_else(
                || "an unreadable lease".to_string(),
                |h| format!("{} on {}", h.pid, h.host),
            );
            return Err(advmath_store::Error::Locked {
                stage,
                name: name.to_string(),
                holder: format!(
                    "{who}, lease renewed {} s ago, expires after {} s without renewal",
                    age.as_secs(),
                    lease_ttl.as_secs()
                ),
                path: url_of(key).into(),
            }
            .into());
        }
        // Expired: take it over, only if nobody renewed or took it since it was read.
        let expired = UpdateVersion {
            e_tag: meta.e_tag,
            version: meta.version,
        };
        match runtime.block_on(store.put_opts(
            &location,
            body(),
            put_options(PutMode::Update(expired)),
        )) {
            Ok(result) => {
                held = Some(version_of(&result));
                break;
            }
            Err(object_store::Error::Precondition { .. })
            | Err(object_store::Error::NotFound { .. }) => continue,
            Err(e) => return Err(remote("take over the expired lease", e)),
        }
    }
    let Some(version) = held else {
        return Err(Error::Remote {
            url: url_of(key),
            action: "take the lease",
            source: "other writers kept taking it first (20 tries)".into(),
        });
    };
    Ok(heartbeat(Arc::clone(store), key.to_string(), version, ttl))
}

/// Renew the lease every third of its time to live until the returned value is dropped, then
/// delete it (if it is still this process's).
fn heartbeat(
    store: Arc<dyn ObjectStore>,
    key: String,
    mut version: UpdateVersion,
    ttl: Duration,
) -> Lease {
    let lost = Arc::new(AtomicBool::new(false));
    let (stop, stopped) = channel::<()>();
    let thread = {
        let (lost, key) = (Arc::clone(&lost), key.clone());
        std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            let location = ObjectPath::from(key.as_str());
            let mut renewed = std::time::Instant::now();
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(ttl / 3) {
                let body =
                    PutPayload::from(serde_json::to_vec(&Holder::me(ttl)).expect("serialises"));
                let mode = PutMode::Update(version.clone());
                match runtime.block_on(store.put_opts(&location, body, put_options(mode))) {
                    Ok(result) => {
                        version = version_of(&result);
                        renewed = std::time::Instant::now();
                    }
                    Err(object_store::Error::Precondition { .. })
                    | Err(object_store::Error::NotFound { .. }) => {
                        lost.store(true, Ordering::SeqCst);
                        crate::progress::note!(
                            "warning: the lease {key} was taken over by another writer"
                        );
                        return;
                    }
                    // A failed renewal is tried again; past the time to live the lease is gone.
                    Err(_) if renewed.elapsed() > ttl => {
                        lost.store(true, Ordering::SeqCst);
                        crate::progress::note!(
                            "warning: the lease {key} could not be renewed in time"
                        );
                        return;
                    }
                    Err(_) => {}
                }
            }
            // Released: delete it, unless another writer holds it by now.
            let ours = runtime
                .block_on(store.head(&location))
                .is_ok_and(|meta| meta.e_tag == version.e_tag);
            if ours && !lost.load(Ordering::SeqCst) {
                let _ = runtime.block_on(store.delete(&location));
            }
        })
    };
    Lease {
        key,
        lost,
        stop: Some(stop),
        heartbeat: Some(thread),
    }
}

/// The copies open in this process, for the writer locks taken in them.
static COPIES: std::sync::Mutex<Vec<(PathBuf, std::sync::Weak<Mirror>)>> =
    std::sync::Mutex::new(Vec::new());

/// A writer lock's lease: when `tables` is in a copy open in this process, take the store's
/// lease of `stage` on `name` for it (once per command), and bring the copy up to date, since
/// another machine may have pushed between the copy's opening and this lease.
fn take_lease(tables: &Path, stage: &'static str, name: &str) -> Result<()> {
    let found = COPIES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find_map(|(local, mirror)| {
            let relative = tables.strip_prefix(local).ok()?;
            Some((relative.to_path_buf(), mirror.upgrade()?))
        });
    let Some((relative, mirror)) = found else {
        return Ok(());
    };
    let folder = join_key(
        &join_key(FOLDER, &mirror.below_root),
        &relative.to_string_lossy(),
    );
    let key = join_key(
        &join_key(&mirror.root, &folder),
        &format!("{stage}-{}.json", crate::store::paths::name_component(name)),
    );
    if mirror
        .leases
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .any(|l| l.key == key)
    {
        return Ok(());
    }
    let bucket = mirror.url.bucket.clone();
    let taken = take(
        &mirror.runtime,
        &mirror.store,
        &|key| format!("s3://{bucket}/{key}"),
        &key,
        stage,
        name,
    )?;
    mirror
        .leases
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(taken);
    mirror.pull()
}

/// Make `mirror`'s copy known to the writer locks taken in it.
pub(super) fn register_copy(mirror: &Arc<Mirror>) {
    crate::store::lock::set_remote_lease(|tables, stage, name| {
        take_lease(tables, stage, name).map_err(Into::into)
    });
    let mut copies = COPIES.lock().unwrap_or_else(|p| p.into_inner());
    copies.retain(|(_, m)| m.strong_count() > 0);
    copies.push((mirror.local.clone(), Arc::downgrade(mirror)));
}
