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
                return Err(Error::usage(format!(
                    "{text}: a file:// URL names an absolute path (file:///home/me/tables)"
                )));
            }
            return Ok(Location::Local(PathBuf::from(rest)));
        }
        if let Some(rest) = text.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.len() < 3 {
                return Err(Error::usage(format!(
                    "{text}: an S3 URL is s3://<bucket>/<prefix>, with a bucket name of 3 \
                     characters or more"
                )));
            }
            let prefix = prefix.trim_matches('/');
            if prefix.split('/').any(|part| part == "." || part == "..") {
                return Err(Error::usage(format!(
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
                return Err(Error::usage(format!(
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

/// Show paths under `local` as under `url` from now on (a copy of a remote folder).
pub(super) fn alias(local: &Path, url: &RemoteUrl) {
    ALIASES
        .lock()
        .expect("aliases lock")
        .push((local.to_path_buf(), url.to_string()));
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
