//! A remote folder's manifest: where it is (the folder's own or its nearest parent's), what it
//! lists, and the committed state a reader that must not see a push in progress reads.

use std::collections::BTreeMap;

use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, ObjectStore, ObjectStoreExt, UpdateVersion};

use super::copy::local_only;
use super::{Entry, Manifest, MANIFEST};
use crate::error::{Error, Result};
use crate::store::location::{join_key, RemoteUrl};

pub(super) fn remote_error(
    bucket: &str,
    key: &str,
    action: &'static str,
    e: object_store::Error,
) -> Error {
    Error::Remote {
        url: format!("s3://{bucket}/{key}"),
        action,
        source: Box::new(e),
    }
}

/// The nearest folder at or above `url` that has a manifest (`url` itself if none has), and
/// `url`'s path below it.
pub(super) async fn manifest_root(
    store: &dyn ObjectStore,
    url: &RemoteUrl,
) -> Result<(String, String)> {
    let mut candidate = url.prefix.clone();
    loop {
        let key = join_key(&candidate, MANIFEST);
        match store.head(&ObjectPath::from(key.as_str())).await {
            Ok(_) => {
                let below_root = url
                    .prefix
                    .strip_prefix(&candidate)
                    .unwrap_or_default()
                    .trim_start_matches('/')
                    .to_string();
                return Ok((candidate, below_root));
            }
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(remote_error(&url.bucket, &key, "look for a manifest", e)),
        }
        match candidate.rsplit_once('/') {
            Some((parent, _)) => candidate = parent.to_string(),
            None if !candidate.is_empty() => candidate = String::new(),
            None => break,
        }
    }
    Ok((url.prefix.clone(), String::new()))
}

/// The manifest of the folder `root` and its version; without one, a listing of the folder.
pub(super) async fn read_manifest(
    store: &dyn ObjectStore,
    bucket: &str,
    root: &str,
) -> Result<(Manifest, Option<UpdateVersion>)> {
    let key = join_key(root, MANIFEST);
    let got = async {
        let result = store
            .get_opts(&ObjectPath::from(key.as_str()), GetOptions::default())
            .await?;
        let version = UpdateVersion {
            e_tag: result.meta.e_tag.clone(),
            version: result.meta.version.clone(),
        };
        Ok::<_, object_store::Error>((result.bytes().await?, version))
    }
    .await;
    match got {
        Ok((bytes, version)) => {
            let manifest = serde_json::from_slice(&bytes).map_err(|e| {
                Error::invalid(
                    format!("s3://{bucket}/{key}"),
                    format!("not an advmath manifest: {e}"),
                )
            })?;
            Ok((manifest, Some(version)))
        }
        Err(object_store::Error::NotFound { .. }) => {
            Ok((listing(store, bucket, root).await?, None))
        }
        Err(e) => Err(remote_error(bucket, &key, "read the manifest", e)),
    }
}

/// Every object under the folder `root`, as a manifest (for folders no advmath has pushed).
async fn listing(store: &dyn ObjectStore, bucket: &str, root: &str) -> Result<Manifest> {
    let prefix = (!root.is_empty()).then(|| ObjectPath::from(root));
    let metas: Vec<object_store::ObjectMeta> = store
        .list(prefix.as_ref())
        .try_collect()
        .await
        .map_err(|e| remote_error(bucket, root, "list the folder", e))?;
    let mut manifest = Manifest::default();
    for meta in metas {
        let key = meta.location.to_string();
        let relative = match root.is_empty() {
            true => key.as_str(),
            false => key
                .strip_prefix(root)
                .map(|k| k.trim_start_matches('/'))
                .unwrap_or(&key),
        };
        // advmath's own objects (the manifest, sessions' scratch areas) at any level.
        if relative.split('/').any(|part| part == "_advmath") || local_only(relative) {
            continue;
        }
        manifest.objects.insert(
            relative.to_string(),
            Entry {
                size: meta.size,
                e_tag: meta.e_tag,
                version: meta.version,
            },
        );
    }
    Ok(manifest)
}

/// The committed state of the folder `url`: the objects its manifest (its own or its nearest
/// parent's) lists below it, keys relative to `url`, or, for a folder no advmath has pushed, a
/// listing of it. What a reader that must not see a push in progress reads.
pub async fn committed(
    store: &dyn ObjectStore,
    url: &RemoteUrl,
) -> Result<BTreeMap<String, Entry>> {
    let (root, below_root) = manifest_root(store, url).await?;
    let (manifest, _) = read_manifest(store, &url.bucket, &root).await?;
    Ok(manifest
        .objects
        .into_iter()
        .filter_map(|(key, entry)| {
            let relative = if below_root.is_empty() {
                key
            } else {
                key.strip_prefix(&below_root)?
                    .strip_prefix('/')?
                    .to_string()
            };
            Some((relative, entry))
        })
        .collect())
}
