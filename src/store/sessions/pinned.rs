//! The bucket client of a query session's processes: it serves the sessions' virtual folders
//! (`<tables>/_advmath/sessions/<id>/at/...`) from their pins, each read going to the real object
//! at its pinned version (or ETag), and passes every other key through.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions,
};

use super::{Pins, AT, PINS, REMOTE};
use crate::store::location::join_key;

/// A key of a session's virtual folder, split: the session's key, and the table-relative key
/// below `at/` (empty for the folder itself).
fn virtual_key(key: &str) -> Option<(&str, &str)> {
    let start = if key.starts_with(REMOTE) {
        0
    } else {
        key.find(&format!("/{REMOTE}/"))? + 1
    };
    let (session_key, after) = key.split_at_checked(start + REMOTE.len())?;
    let after = after.strip_prefix('/')?;
    let (id, rest) = after.split_once('/')?;
    let rest = match rest.strip_prefix(AT) {
        Some("") => "",
        Some(r) => r.strip_prefix('/')?,
        None => return None,
    };
    let session = key.get(..session_key.len() + 1 + id.len())?;
    Some((session, rest))
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
            let Some(rest) = meta.location.as_ref().strip_prefix(below.as_str()) else {
                continue;
            };
            let rest = rest.trim_start_matches('/');
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
}
