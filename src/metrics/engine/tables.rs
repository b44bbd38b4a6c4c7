//! The engine's tables: every known table of a local `tables/` folder, or, for a cluster, of a
//! folder in object storage that the executors read themselves (its committed state, pinned by
//! the session: `store::sessions`), registered when it holds Parquet files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{DataType, SchemaRef};
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::ListingOptions;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::prelude::SessionContext;
use object_store::ObjectStore;

use super::{empty_table, TableState, TableStatus};
use crate::error::{Error, Result};
use crate::store::location::{Location, RemoteUrl};
use crate::store::sessions::{PinnedStore, Pins, Session};
use crate::store::TABLE_LAYOUTS;

/// Where the tables are.
pub(super) enum Source {
    Local(PathBuf),
    /// Read in place: only on a cluster, whose executors reach the store (in one process a
    /// remote folder is read through its local copy, `store::mirror`).
    Remote {
        url: RemoteUrl,
        store: Arc<dyn ObjectStore>,
        /// The committed objects, as the session pinned them.
        pins: Pins,
    },
}

impl Source {
    /// The tables at `tables`, and on a cluster the session that pins them (a bucket) and holds
    /// the shared views where every executor reads them.
    pub(super) fn of(
        runtime: &tokio::runtime::Runtime,
        tables: &Path,
        on_cluster: bool,
    ) -> Result<(Source, Option<Session>)> {
        match Location::parse(tables)? {
            Location::Remote(url) if on_cluster => {
                let store = crate::store::location::object_store(&url)?;
                let (session, pins) =
                    runtime.block_on(Session::remote(Arc::clone(&store), &url))?;
                Ok((Source::Remote { store, url, pins }, Some(session)))
            }
            Location::Remote(url) => Err(Error::usage(format!(
                "{url}: the SQL engine reads a remote folder through its local copy; open it with \
                 store::places::Places (as the advmath command does), or run on a cluster"
            ))),
            Location::Local(dir) => {
                if !dir.is_dir() {
                    return Err(Error::invalid(
                        dir.display(),
                        "no such tables folder (expected the `tables/` folder of an advmath run, e.g. out/tables)",
                    ));
                }
                let dir = dir.canonicalize().map_err(|e| Error::file(&dir, e))?;
                let session = on_cluster.then(|| Session::local(&dir)).transpose()?;
                Ok((Source::Local(dir), session))
            }
        }
    }

    /// The folder as reports and errors name it.
    pub(super) fn display_path(&self) -> PathBuf {
        match self {
            Source::Local(dir) => dir.clone(),
            Source::Remote { url, .. } => PathBuf::from(url.to_string()),
        }
    }

    /// Make the bucket's client known to the session (a local folder needs none), wrapped so
    /// that it serves the pinned tables.
    pub(super) fn register_store(&self, runtime_env: &RuntimeEnv) -> Result<()> {
        if let Source::Remote { url, store, .. } = self {
            let bucket = ObjectStoreUrl::parse(format!("s3://{}", url.bucket))?;
            runtime_env.register_object_store(
                bucket.as_ref(),
                Arc::new(PinnedStore::new(Arc::clone(store))),
            );
        }
        Ok(())
    }

    /// The listing URL of table `name` and how many Parquet files it holds (hidden and `_`
    /// names skipped, as the engine's listing skips them); `None` when there is no folder. A
    /// bucket's table is its pinned objects, under the session's virtual folder.
    fn table(&self, session: Option<&Session>, name: &str) -> Result<Option<(String, usize)>> {
        match self {
            Source::Local(dir) => {
                let path = dir.join(name);
                if !path.is_dir() {
                    return Ok(None);
                }
                // Walked before the engine lists it, so that a link in the table is refused here
                // as every other reader refuses it (the engine's listing would follow it).
                let files = crate::store::parquet_files_under(&path)?;
                crate::store::foreign::refuse_foreign_parts(name, &path, &files)?;
                let files = files.len();
                Ok(Some((format!("{}/", path.display()), files)))
            }
            Source::Remote { pins, .. } => {
                let Some(url) = session.and_then(|s| s.table_url(name)) else {
                    return Ok(None);
                };
                let folder = format!("{name}/");
                let mut keys = pins
                    .objects
                    .keys()
                    .filter(|k| k.starts_with(&folder))
                    .peekable();
                if keys.peek().is_none() {
                    return Ok(None);
                }
                let files = keys
                    .filter(|k| crate::store::is_parquet(k.rsplit('/').next().unwrap_or("")))
                    .count();
                Ok(Some((url, files)))
            }
        }
    }
}

/// The table's file schema with the columns it gained later added when no part has them (`None`:
/// the inferred schema as it is), so that the views reading those columns read older tables.
async fn with_later_columns(
    ctx: &SessionContext,
    layout: &crate::store::TableLayout,
    url: &str,
    options: &ListingOptions,
) -> datafusion::error::Result<Option<SchemaRef>> {
    let later = crate::store::later_columns(layout);
    if later.is_empty() {
        return Ok(None);
    }
    let table = datafusion::datasource::listing::ListingTableUrl::parse(url)?;
    let inferred = options.infer_schema(&ctx.state(), &table).await?;
    let missing: Vec<_> = later
        .into_iter()
        .filter(|f| inferred.field_with_name(f.name()).is_err())
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let mut fields: Vec<_> = inferred.fields().iter().cloned().collect();
    fields.extend(missing.into_iter().map(Arc::new));
    Ok(Some(Arc::new(arrow::datatypes::Schema::new(fields))))
}

/// Register every known table that has Parquet files; an optional table without any gets an
/// empty table of its schema.
pub(super) fn register(
    runtime: &tokio::runtime::Runtime,
    ctx: &SessionContext,
    source: &Source,
    session: Option<&Session>,
) -> Result<Vec<TableStatus>> {
    let mut statuses = Vec::new();
    for layout in TABLE_LAYOUTS {
        let path = source.display_path().join(layout.name);
        let state = match source.table(session, layout.name)? {
            None => TableState::Missing,
            Some((_, 0)) => TableState::Empty,
            Some((url, files)) => {
                // On a cluster, strings as `Utf8`, not views: Arrow IPC, which carries every
                // batch between the cluster's processes, writes all the buffers a batch of views
                // points into, and a batch sliced from a larger result points into all of its
                // strings (sending 200,000 rows of `problem_outcomes` to the client took 1.3 GB
                // and 26 s). A sliced `Utf8` array is written as its own slice.
                let format = ParquetFormat::default().with_force_view_types(session.is_none());
                let options = ListingOptions::new(Arc::new(format))
                    .with_file_extension(crate::store::PARQUET_EXT)
                    .with_table_partition_cols(
                        layout
                            .partitions
                            .iter()
                            .map(|p| (p.to_string(), DataType::Utf8))
                            .collect(),
                    );
                let registered = runtime.block_on(async {
                    let schema = with_later_columns(ctx, layout, &url, &options).await?;
                    ctx.register_listing_table(layout.name, &url, options, schema, None)
                        .await
                });
                if let Err(source) = registered {
                    // Name the part that cannot be read, when it is a local one.
                    if let Some((file, why)) = unreadable_part(&path) {
                        return Err(Error::invalid(
                            file.display(),
                            format!(
                                "not a readable Parquet file ({why}); table `{}` cannot be read until it is replaced or removed",
                                layout.name
                            ),
                        ));
                    }
                    return Err(Error::Register {
                        name: layout.name.to_string(),
                        dir: path.clone(),
                        source,
                    });
                }
                TableState::Registered { files }
            }
        };
        if let (Some(schema), false) = (
            crate::store::optional_schema(layout),
            matches!(state, TableState::Registered { .. }),
        ) {
            ctx.register_table(layout.name, empty_table(schema)?)?;
        }
        statuses.push(TableStatus {
            layout: *layout,
            path,
            state,
        });
    }
    Ok(statuses)
}

/// The first Parquet part under `dir` whose footer cannot be read, with the reason (a local folder
/// only: a listing error does not say which file it was).
fn unreadable_part(dir: &std::path::Path) -> Option<(std::path::PathBuf, String)> {
    let files = crate::store::parquet_files_under(dir).ok()?;
    files.into_iter().find_map(|(file, _)| {
        let f = std::fs::File::open(&file).ok()?;
        match parquet::file::reader::SerializedFileReader::new(f) {
            Ok(_) => None,
            Err(e) => Some((file, e.to_string())),
        }
    })
}
