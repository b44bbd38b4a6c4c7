//! Shared views computed once: a metrics run holds the per-problem outcomes (in memory, or in a
//! temporary Parquet file when they are too big; on a cluster, as Parquet parts in the session's
//! scratch area where every executor reads them) so that the metric files reading them share one
//! computation.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::datasource::MemTable;
use datafusion::execution::spill_file::{SpillFile, SpillWriter};
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use parquet::arrow::ArrowWriter;

use super::super::{ATTACKS_VIEW, EMBEDDED_VIEWS};
use super::SqlEngine;
use crate::error::{Error, Result};

/// A shared view being written to a temporary Parquet file, and its writer.
type ViewFile = (
    Arc<dyn SpillFile>,
    PathBuf,
    ArrowWriter<Box<dyn SpillWriter>>,
);

impl SqlEngine {
    /// Compute the shared views named in `names` once, as in-memory tables, so that every metric
    /// file reading them (and every later view built on them) shares one computation instead of
    /// repeating it. The views' SQL is unchanged: each is created again, in file order, over the
    /// tables materialised before it, and its result replaces it. Results up to `budget` bytes in
    /// all are held in memory; a bigger one is written to a temporary Parquet file (in
    /// DataFusion's spill folder, deleted with the session) and read from there, so memory stays
    /// bounded on tables of any size. Returns the views materialised.
    pub fn materialise_views(&self, names: &[&str], budget: usize) -> Result<Vec<String>> {
        use futures::StreamExt;
        if self.require("responses").is_err() {
            return Ok(Vec::new());
        }
        if let Some(session) = &self.session {
            return self.materialise_in_session(session, names);
        }
        let partitions = self.ctx.state().config().target_partitions().max(1);
        for (name, _) in EMBEDDED_VIEWS {
            self.ctx.deregister_table(*name)?;
        }
        let serial = SessionContext::new_with_state(
            datafusion::execution::SessionStateBuilder::new_from_existing(self.ctx.state())
                .with_config(
                    self.ctx
                        .state()
                        .config()
                        .clone()
                        .with_target_partitions(1)
                        // The catalog is the session's own: creating a default one would hide it.
                        .with_create_default_catalog_and_schema(false),
                )
                .build(),
        );
        let mut done = Vec::new();
        let mut held = 0usize;
        for (name, sql) in EMBEDDED_VIEWS {
            let wanted = names.contains(name);
            let register = async {
                self.ctx.sql(sql).await?.collect().await?;
                if !wanted {
                    return Ok(false);
                }
                // One partition: a parallel plan yields its rows in an order the threads decide,
                // and a metric's floating-point sums over the table depend on that order. (Sorting
                // a parallel result instead fails: DataFusion's sorter counts the aggregate's
                // shared buffers once per batch, gigabytes for a few hundred megabytes.)
                let df = serial.table(*name).await?;
                let schema: SchemaRef = Arc::clone(df.schema().inner());
                let mut stream = df.execute_stream().await?;
                let mut batches = Vec::new();
                let mut bytes = 0usize;
                let mut seen = HashSet::new();
                let mut file: Option<ViewFile> = None;
                while let Some(batch) = stream.next().await {
                    let batch = batch?;
                    if let Some((_, _, writer)) = file.as_mut() {
                        writer.write(&batch)?;
                        continue;
                    }
                    for column in batch.columns() {
                        bytes += unseen_bytes(&column.to_data(), &mut seen);
                    }
                    batches.push(batch);
                    if held + bytes > budget {
                        // Too big to hold: the rows go to a Parquet file, which every reader
                        // scans instead of computing the view again.
                        let temp = self.ctx.runtime_env().disk_manager.create_tmp_file(name)?;
                        let Some(path) = temp.path().map(PathBuf::from) else {
                            // Spill storage that is not a local file: recompute where read.
                            return Ok(false);
                        };
                        let mut writer =
                            ArrowWriter::try_new(temp.open_writer()?, Arc::clone(&schema), None)?;
                        for held_batch in batches.drain(..) {
                            writer.write(&held_batch)?;
                        }
                        file = Some((temp, path, writer));
                    }
                }
                self.ctx.deregister_table(*name)?;
                match file {
                    Some((temp, path, writer)) => {
                        writer.into_inner()?.finish()?;
                        let options = ParquetReadOptions::default().file_extension("");
                        self.ctx
                            .register_parquet(*name, &*path.to_string_lossy(), options)
                            .await?;
                        self.held_files
                            .lock()
                            .unwrap_or_else(|poisoned| poisoned.into_inner())
                            .push(temp);
                    }
                    None => {
                        // Spread over the session's partitions, so that scans of it stay parallel.
                        let mut parts = vec![Vec::new(); partitions];
                        for (i, batch) in batches.into_iter().enumerate() {
                            parts[i % partitions].push(batch);
                        }
                        let table = MemTable::try_new(schema, parts)?;
                        self.ctx.register_table(*name, Arc::new(table))?;
                        held += bytes;
                    }
                }
                Ok::<_, datafusion::error::DataFusionError>(true)
            };
            let outcome = self.runtime().block_on(register);
            self.note_view(name, outcome, &mut done)?;
        }
        Ok(done)
    }
}

impl SqlEngine {
    /// One view's outcome: materialised (named in `done`), left a view, or an error naming it.
    fn note_view(
        &self,
        name: &str,
        outcome: datafusion::error::Result<bool>,
        done: &mut Vec<String>,
    ) -> Result<()> {
        let materialised = outcome.map_err(|source| Error::Register {
            name: name.to_string(),
            dir: self.tables_dir.clone(),
            source,
        })?;
        if materialised {
            done.push(name.to_string());
        }
        Ok(())
    }
}

/// Rows per part of a view written for a cluster, and per row group within it (a scan splits a
/// part at its row groups, so that every executor gets a share).
const VIEW_PART_ROWS: usize = 4 << 20;
const VIEW_GROUP_ROWS: usize = 128 << 10;

fn view_writer(schema: &SchemaRef) -> datafusion::error::Result<ArrowWriter<Vec<u8>>> {
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(VIEW_GROUP_ROWS))
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    Ok(ArrowWriter::try_new(
        Vec::new(),
        Arc::clone(schema),
        Some(properties),
    )?)
}

impl SqlEngine {
    /// [`SqlEngine::materialise_views`] on a cluster: each wanted view is computed once by the
    /// executors, its rows come back to this process and go as Parquet parts to the session's
    /// scratch area (beside the tables, which every executor reads), and the view is replaced by
    /// a table over those parts. Their order is the cluster's, so sums over a view may differ in
    /// the last bits between runs, as every cluster result may.
    fn materialise_in_session(
        &self,
        session: &crate::store::sessions::Session,
        names: &[&str],
    ) -> Result<Vec<String>> {
        use datafusion::datasource::file_format::parquet::ParquetFormat;
        use datafusion::datasource::listing::ListingOptions;
        use futures::StreamExt;
        for (name, _) in EMBEDDED_VIEWS {
            self.ctx.deregister_table(*name)?;
        }
        let mut done = Vec::new();
        for (name, sql) in EMBEDDED_VIEWS {
            let wanted = names.contains(name);
            let register = async {
                self.ctx.sql(sql).await?.collect().await?;
                if !wanted {
                    return Ok(false);
                }
                let df = self.ctx.table(*name).await?;
                let schema: SchemaRef = Arc::clone(df.schema().inner());
                let mut stream = df.execute_stream().await?;
                let (mut part, mut rows) = (0, 0);
                let mut writer = view_writer(&schema)?;
                loop {
                    let batch = stream.next().await.transpose()?;
                    let end = batch.is_none();
                    if let Some(batch) = batch {
                        rows += batch.num_rows();
                        writer.write(&batch)?;
                    }
                    // The last part is written even when empty: a view without rows is a
                    // table of its schema.
                    if rows >= VIEW_PART_ROWS || (end && (rows > 0 || part == 0)) {
                        let full = std::mem::replace(&mut writer, view_writer(&schema)?);
                        let bytes = full.into_inner()?;
                        session
                            .write_view_part(name, part, bytes)
                            .await
                            .map_err(|e| {
                                datafusion::error::DataFusionError::External(Box::new(e))
                            })?;
                        (part, rows) = (part + 1, 0);
                    }
                    if end {
                        break;
                    }
                }
                self.ctx.deregister_table(*name)?;
                // Strings as `Utf8`, as the session's tables (see `tables::register`).
                let format = ParquetFormat::default().with_force_view_types(false);
                let options = ListingOptions::new(Arc::new(format))
                    .with_file_extension(crate::store::PARQUET_EXT);
                self.ctx
                    .register_listing_table(
                        *name,
                        session.view_url(name),
                        options,
                        Some(schema),
                        None,
                    )
                    .await?;
                Ok::<_, datafusion::error::DataFusionError>(true)
            };
            let outcome = self.runtime().block_on(register);
            self.note_view(name, outcome, &mut done)?;
        }
        Ok(done)
    }
}

/// The `attacks` catalogue as a table, its rows the vocabulary's: in memory, or on a cluster
/// (which an in-memory table cannot reach) one Parquet part in the session's scratch area. The
/// SQL file that writes the same rows as values (for DuckDB; a test checks them equal) would be
/// planned again, several hundred rows of literals, in every query that reads it, and on a
/// cluster sent with every task.
pub(super) fn hold_attacks(
    runtime: &tokio::runtime::Runtime,
    ctx: &SessionContext,
    session: Option<&crate::store::sessions::Session>,
) -> datafusion::error::Result<()> {
    use datafusion::datasource::file_format::parquet::ParquetFormat;
    use datafusion::datasource::listing::ListingOptions;
    let name = ATTACKS_VIEW.0;
    let batch = attacks_batch()?;
    let schema = batch.schema();
    let Some(session) = session else {
        ctx.register_table(
            name,
            Arc::new(MemTable::try_new(schema, vec![vec![batch]])?),
        )?;
        return Ok(());
    };
    runtime.block_on(async {
        let mut writer = view_writer(&schema)?;
        writer.write(&batch)?;
        session
            .write_view_part(name, 0, writer.into_inner()?)
            .await
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        let format = ParquetFormat::default().with_force_view_types(false);
        let options =
            ListingOptions::new(Arc::new(format)).with_file_extension(crate::store::PARQUET_EXT);
        ctx.register_listing_table(name, session.view_url(name), options, Some(schema), None)
            .await
    })
}

/// [`crate::vocab::catalogue_rows`] as a batch, typed as `sql/views/00_attacks.sql` types them.
fn attacks_batch() -> datafusion::error::Result<arrow::record_batch::RecordBatch> {
    use arrow::array::{ArrayRef, BooleanArray, Int32Array, StringArray};
    use arrow::datatypes::{Field, Schema};
    let rows = crate::vocab::catalogue_rows();
    let text = |f: fn(&crate::vocab::AttackRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    let flag = |f: fn(&crate::vocab::AttackRow) -> bool| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<BooleanArray>())
    };
    let columns = vec![
        text(|r| Some(r.attack.as_str())),
        flag(|r| r.is_original),
        text(|r| Some(r.kind)),
        text(|r| r.families.as_deref()),
        text(|r| r.method),
        Arc::new(
            rows.iter()
                .map(|r| i32::try_from(r.noise_level).ok())
                .collect::<Int32Array>(),
        ),
        flag(|r| r.answerable),
        flag(|r| r.changes_numbers),
        text(|r| r.gsm_plus),
        text(|r| r.gsm_symbolic),
    ];
    let fields: Vec<Field> = crate::vocab::CATALOGUE_COLUMNS
        .iter()
        .zip(&columns)
        .map(|(name, c)| Field::new(*name, c.data_type().clone(), c.null_count() > 0))
        .collect();
    Ok(arrow::record_batch::RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns,
    )?)
}

/// Bytes of the buffers behind `data` not counted before: batches of one result often share
/// their string data, which a per-batch size would count again and again.
fn unseen_bytes(data: &arrow::array::ArrayData, seen: &mut HashSet<usize>) -> usize {
    let mut bytes = 0;
    let buffers = data
        .buffers()
        .iter()
        .chain(data.nulls().map(|n| n.buffer()));
    for buffer in buffers {
        if seen.insert(buffer.data_ptr().as_ptr() as usize) {
            bytes += buffer.capacity();
        }
    }
    for child in data.child_data() {
        bytes += unseen_bytes(child, seen);
    }
    bytes
}
