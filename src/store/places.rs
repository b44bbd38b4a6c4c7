//! One command's locations made local: a remote folder worked on in its mirror, a remote input
//! downloaded, a remote output file written locally and uploaded at the end.

use std::path::{Path, PathBuf};

use super::location::{alias, object_store, Location, RemoteUrl};
use super::mirror::{cache_dir, Mirror};
use crate::error::{Error, Result};

/// The local paths of one command's locations: a remote folder is worked on in its
/// [`Mirror`], a remote input is downloaded first, and a remote output
/// file is written locally; [`Places::push`] sends the folders' changes and the output files to
/// the store. Local paths pass through unchanged.
#[derive(Default)]
pub struct Places {
    mirrors: Vec<std::sync::Arc<Mirror>>,
    outputs: Vec<(PathBuf, RemoteUrl)>,
}

impl Places {
    /// A folder the command reads or writes.
    pub fn folder(&mut self, path: &Path) -> Result<PathBuf> {
        let url = match Location::parse(path)? {
            Location::Local(path) => {
                // One message for every command, before any of them reads `.locks` or a table
                // inside it.
                if path.exists() && !path.is_dir() {
                    return Err(Error::usage(format!(
                        "{}: a file, where a folder is expected (--tables, --out and --report-dir name folders)",
                        path.display()
                    )));
                }
                super::paths::guard_writes_below(&path);
                return Ok(path);
            }
            Location::Remote(url) => url,
        };
        if let Some(m) = self.mirrors.iter().find(|m| *m.url() == url) {
            return Ok(m.path().to_path_buf());
        }
        let mirror = Mirror::open(&url)?;
        let local = mirror.path().to_path_buf();
        super::paths::guard_writes_below(&local);
        crate::progress::note!("{url}: working in its local copy {}", local.display());
        alias(&local, &url);
        self.mirrors.push(mirror);
        Ok(local)
    }

    /// An input file or folder the command only reads: a remote one is downloaded whole (every
    /// object at or below its key) under the cache folder.
    pub fn input(&mut self, path: &Path) -> Result<PathBuf> {
        let url = match Location::parse(path)? {
            Location::Local(path) => return Ok(path),
            Location::Remote(url) => url,
        };
        let store = object_store(&url)?;
        let local = cache_dir()
            .join("inputs")
            .join(super::paths::name_component(&url.bucket))
            .join(&url.prefix);
        let remote_error = |action, e: object_store::Error| Error::Remote {
            url: url.to_string(),
            action,
            source: Box::new(e),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::from)?;
        let prefix = object_store::path::Path::from(url.prefix.as_str());
        let objects: Vec<object_store::ObjectMeta> = runtime
            .block_on(futures::TryStreamExt::try_collect(
                store.list(Some(&prefix)),
            ))
            .map_err(|e| remote_error("list the input", e))?;
        if objects.is_empty() {
            return Err(Error::invalid(
                &url,
                "no such object or folder in the store",
            ));
        }
        for meta in objects {
            let key = meta.location.to_string();
            let relative = key
                .strip_prefix(&url.prefix)
                .unwrap_or(&key)
                .trim_start_matches('/');
            let target = if relative.is_empty() {
                local.clone()
            } else {
                local.join(relative)
            };
            let bytes = runtime
                .block_on(async {
                    object_store::ObjectStoreExt::get(store.as_ref(), &meta.location)
                        .await?
                        .bytes()
                        .await
                })
                .map_err(|e| remote_error("download the input", e))?;
            if let Some(dir) = target.parent() {
                std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
            }
            std::fs::write(&target, &bytes).map_err(|e| Error::file(&target, e))?;
        }
        Ok(local)
    }

    /// A file the command writes: a remote one is written under the cache folder and uploaded
    /// by [`Places::push`].
    pub fn output_file(&mut self, path: &Path) -> Result<PathBuf> {
        let url = match Location::parse(path)? {
            Location::Local(path) => return Ok(path),
            Location::Remote(url) => url,
        };
        let local = cache_dir()
            .join("outputs")
            .join(super::paths::name_component(&url.bucket))
            .join(&url.prefix);
        if let Some(dir) = local.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        }
        self.outputs.push((local.clone(), url));
        Ok(local)
    }

    /// Send every remote folder's changes and every remote output file to the store.
    pub fn push(&mut self) -> Result<()> {
        for mirror in &self.mirrors {
            let n = mirror.push()?;
            if n > 0 {
                crate::progress::note!("{}: {n} object(s) pushed", mirror.url());
            }
        }
        for (local, url) in std::mem::take(&mut self.outputs) {
            if !local.is_file() {
                continue;
            }
            let bytes = std::fs::read(&local).map_err(|e| Error::file(&local, e))?;
            let store = object_store(&url)?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(Error::from)?;
            runtime
                .block_on(object_store::ObjectStoreExt::put(
                    store.as_ref(),
                    &object_store::path::Path::from(url.prefix.as_str()),
                    object_store::PutPayload::from(bytes),
                ))
                .map_err(|e| Error::Remote {
                    url: url.to_string(),
                    action: "upload the output",
                    source: Box::new(e),
                })?;
            crate::progress::note!("{url}: written");
        }
        Ok(())
    }
}
