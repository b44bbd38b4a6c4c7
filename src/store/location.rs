//! Where a folder or file lives: a local path (plain, or a `file://` URL) or an object-storage
//! URL (`s3://bucket/prefix`, on AWS or any S3-compatible store).
//!
//! The S3 client takes the standard AWS environment variables: `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`), and
//! `AWS_ENDPOINT_URL` for an S3-compatible store (MinIO, Ceph, R2, moto); an `http://` endpoint
//! is allowed without also setting `AWS_ALLOW_HTTP`. Requests use path-style URLs
//! (`<endpoint>/<bucket>/<key>`) unless `AWS_VIRTUAL_HOSTED_STYLE_REQUEST=true`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;

use crate::error::{Error, Result};

/// A folder or file given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Local(PathBuf),
    Remote(RemoteUrl),
}

/// `s3://bucket/prefix`: a bucket and a key prefix (no leading or trailing `/`; empty for the
/// bucket's root).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RemoteUrl {
    pub bucket: String,
    pub prefix: String,
}

impl std::fmt::Display for RemoteUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.prefix.is_empty() {
            true => write!(f, "s3://{}", self.bucket),
            false => write!(f, "s3://{}/{}", self.bucket, self.prefix),
        }
    }
}

impl RemoteUrl {
    /// The key of `relative` (a `/`-separated path) under this prefix.
    pub fn key(&self, relative: &str) -> String {
        join_key(&self.prefix, relative)
    }

    /// The URL of a folder or file below this one.
    pub fn child(&self, relative: &str) -> RemoteUrl {
        RemoteUrl {
            bucket: self.bucket.clone(),
            prefix: self.key(relative),
        }
    }
}

/// `a/b` from `a` and `b`, either of which may be empty.
pub fn join_key(prefix: &str, relative: &str) -> String {
    match (prefix.is_empty(), relative.is_empty()) {
        (true, _) => relative.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}/{relative}"),
    }
}

impl Location {
    /// Read a command-line path: `s3://bucket/prefix`, `file:///abs/path`, or a plain path.
    pub fn parse(path: &Path) -> Result<Location> {
        let Some(text) = path.to_str() else {
            return Ok(Location::Local(path.to_path_buf()));
        };
        if let Some(rest) = text.strip_prefix("file://") {
            // `file:///abs` is `/abs`; `file://localhost/abs` is too.
            let rest = rest.strip_prefix("localhost").unwrap_or(rest);
            if !rest.starts_with('/') {
                return Err(Error::Usage(format!(
                    "{text}: a file:// URL names an absolute path (file:///home/me/tables)"
                )));
            }
            return Ok(Location::Local(PathBuf::from(rest)));
        }
        if let Some(rest) = text.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.len() < 3 {
                return Err(Error::Usage(format!(
                    "{text}: an S3 URL is s3://<bucket>/<prefix>, with a bucket name of 3 \
                     characters or more"
                )));
            }
            let prefix = prefix.trim_matches('/');
            if prefix.split('/').any(|part| part == "." || part == "..") {
                return Err(Error::Usage(format!(
                    "{text}: an S3 prefix cannot hold `.` or `..`"
                )));
            }
            return Ok(Location::Remote(RemoteUrl {
                bucket: bucket.to_string(),
                prefix: prefix.to_string(),
            }));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(Error::Usage(format!(
                    "{text}: `{scheme}://` is not supported; use a local path, file:// or s3://"
                )));
            }
        }
        Ok(Location::Local(path.to_path_buf()))
    }

    /// Is this path an object-storage URL?
    pub fn is_remote(path: &Path) -> bool {
        matches!(Location::parse(path), Ok(Location::Remote(_)))
    }
}

/// The S3 client of `url`'s bucket, configured from the environment.
pub fn object_store(url: &RemoteUrl) -> Result<Arc<dyn ObjectStore>> {
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(&url.bucket);
    let endpoint = std::env::var("AWS_ENDPOINT_URL_S3")
        .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
        .or_else(|_| std::env::var("AWS_ENDPOINT"));
    if endpoint.is_ok_and(|e| e.starts_with("http://")) {
        builder = builder.with_allow_http(true);
    }
    if std::env::var("AWS_REGION").is_err() && std::env::var("AWS_DEFAULT_REGION").is_err() {
        builder = builder.with_region("us-east-1");
    }
    let store = builder.build().map_err(|e| Error::Remote {
        url: url.to_string(),
        action: "configure the S3 client",
        source: Box::new(e),
    })?;
    Ok(Arc::new(store))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Location> {
        Location::parse(Path::new(text))
    }

    #[test]
    fn locations_read_as_written() {
        assert_eq!(
            parse("out/tables").unwrap(),
            Location::Local("out/tables".into())
        );
        assert_eq!(
            parse("file:///data/t").unwrap(),
            Location::Local("/data/t".into())
        );
        let remote = parse("s3://lab-bucket/runs/2026/").unwrap();
        assert_eq!(
            remote,
            Location::Remote(RemoteUrl {
                bucket: "lab-bucket".into(),
                prefix: "runs/2026".into()
            })
        );
        let Location::Remote(url) = remote else {
            unreachable!()
        };
        assert_eq!(url.to_string(), "s3://lab-bucket/runs/2026");
        assert_eq!(
            url.child("tables").key("variants"),
            "runs/2026/tables/variants"
        );
        assert_eq!(
            parse("s3://lab").unwrap(),
            Location::Remote(RemoteUrl {
                bucket: "lab".into(),
                prefix: String::new()
            })
        );
        for bad in [
            "s3://ab/x",
            "file://relative",
            "gs://bucket/x",
            "s3://lab/a/../b",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}

/// Local copies made by this process, and the URLs they stand for.
static ALIASES: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());

/// `path` as the user named it: a path inside a local copy of a remote folder is shown as the
/// remote URL (a report names `s3://bucket/study/tables`, not the cache folder).
pub fn display(path: &Path) -> String {
    let aliases = ALIASES.lock().expect("aliases lock");
    for (local, url) in aliases.iter() {
        if let Ok(rest) = path.strip_prefix(local) {
            let rest = rest.to_string_lossy();
            return match rest.is_empty() {
                true => url.clone(),
                false => format!("{url}/{rest}"),
            };
        }
    }
    path.display().to_string()
}

/// The local paths of one command's locations: a remote folder is worked on in its
/// [`Mirror`](super::mirror::Mirror), a remote input is downloaded first, and a remote output
/// file is written locally; [`Places::push`] sends the folders' changes and the output files to
/// the store. Local paths pass through unchanged.
#[derive(Default)]
pub struct Places {
    mirrors: Vec<super::mirror::Mirror>,
    outputs: Vec<(PathBuf, RemoteUrl)>,
}

impl Places {
    /// A folder the command reads or writes.
    pub fn folder(&mut self, path: &Path) -> Result<PathBuf> {
        let url = match Location::parse(path)? {
            Location::Local(path) => return Ok(path),
            Location::Remote(url) => url,
        };
        if let Some(m) = self.mirrors.iter().find(|m| *m.url() == url) {
            return Ok(m.path().to_path_buf());
        }
        let mirror = super::mirror::Mirror::open(&url)?;
        let local = mirror.path().to_path_buf();
        eprintln!("{url}: working in its local copy {}", local.display());
        ALIASES
            .lock()
            .expect("aliases lock")
            .push((local.clone(), url.to_string()));
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
        let local = super::mirror::cache_dir()
            .join("inputs")
            .join(super::sanitize(&url.bucket))
            .join(&url.prefix);
        let remote_error = |action, e: object_store::Error| Error::Remote {
            url: url.to_string(),
            action,
            source: Box::new(e),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::Io)?;
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
        let local = super::mirror::cache_dir()
            .join("outputs")
            .join(super::sanitize(&url.bucket))
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
                eprintln!("{}: {n} object(s) pushed", mirror.url());
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
                .map_err(Error::Io)?;
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
            eprintln!("{url}: written");
        }
        Ok(())
    }
}
