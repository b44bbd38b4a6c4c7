//! Parquet I/O for our own tables: atomic writes (temp file + rename), zstd, row-group statistics.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use arrow::array::{AsArray, RecordBatch, StringArray};
use arrow::datatypes::SchemaRef;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::atomic::{step, tmp_path};
use crate::error::{ColumnProblem, Error, Result};
use crate::paths::PARQUET_EXT;

/// Column `name` of a batch read from `file` as text, or an error naming the file and the column
/// (never a panic on a file whose column is missing or has another type).
pub fn text_column(batch: &RecordBatch, name: &str, file: &Path) -> Result<StringArray> {
    let column = batch.column_by_name(name).ok_or_else(|| Error::BadColumn {
        file: file.to_path_buf(),
        problem: ColumnProblem::Missing {
            column: name.to_string(),
        },
    })?;
    column
        .as_string_opt::<i32>()
        .cloned()
        .ok_or_else(|| Error::BadColumn {
            file: file.to_path_buf(),
            problem: ColumnProblem::WrongType {
                column: name.to_string(),
                found: column.data_type().to_string(),
                expected: "text",
            },
        })
}

/// Rows per row group of every table we write.
pub const ROW_GROUP_ROWS: usize = 64 * 1024;

pub fn writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(3).expect("valid level"),
        ))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        // No creator string with a version in it: identical inputs must give identical bytes.
        .set_created_by("advmath".to_string())
        .build()
}

/// Rows per batch handed to the Parquet writer. The writer's page boundaries depend on the
/// batches it is given, so every file is written in batches of this size whatever the caller's
/// batches were: the same rows in the same order give the same bytes, however they were cut
/// (a merge of generation shards re-reads what each shard wrote).
pub const WRITE_BATCH_ROWS: usize = 4096;

/// A Parquet file that appears under its final name only when complete; dropped unfinished (a
/// failed run), its partial file is removed.
pub struct AtomicParquet {
    writer: Option<ArrowWriter<File>>,
    /// Rows given but not yet written, fewer than [`WRITE_BATCH_ROWS`].
    pending: std::collections::VecDeque<RecordBatch>,
    pending_rows: usize,
    tmp: PathBuf,
    path: PathBuf,
}

impl AtomicParquet {
    pub fn create(path: &Path, schema: SchemaRef) -> Result<Self> {
        crate::paths::refuse_links(path)?;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        }
        let tmp = tmp_path(path);
        step(&tmp, "create")?;
        let file = File::create(&tmp).map_err(|e| Error::file(&tmp, e))?;
        let writer = ArrowWriter::try_new(file, schema, Some(writer_properties()))
            .map_err(|e| written(&tmp, e))?;
        Ok(AtomicParquet {
            writer: Some(writer),
            pending: std::collections::VecDeque::new(),
            pending_rows: 0,
            tmp,
            path: path.to_path_buf(),
        })
    }

    fn writer(&mut self) -> &mut ArrowWriter<File> {
        self.writer.as_mut().expect("only finish takes the writer")
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        step(&self.tmp, "write")?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.pending_rows += batch.num_rows();
        self.pending.push_back(batch.clone());
        while self.pending_rows >= WRITE_BATCH_ROWS {
            self.write_pending(WRITE_BATCH_ROWS)?;
        }
        Ok(())
    }

    /// Write the first `rows` pending rows as one batch and keep the rest pending.
    fn write_pending(&mut self, rows: usize) -> Result<()> {
        let mut pieces = Vec::new();
        let mut need = rows;
        while need > 0 {
            let Some(first) = self.pending.pop_front() else {
                break;
            };
            if first.num_rows() <= need {
                need -= first.num_rows();
                pieces.push(first);
            } else {
                pieces.push(first.slice(0, need));
                self.pending
                    .push_front(first.slice(need, first.num_rows() - need));
                need = 0;
            }
        }
        self.pending_rows -= rows - need;
        let tmp = self.tmp.clone();
        let batch = match pieces.len() {
            0 => return Ok(()),
            1 => pieces.pop().expect("one piece"),
            _ => arrow::compute::concat_batches(&pieces[0].schema(), &pieces)
                .map_err(|e| Error::file(&tmp, std::io::Error::other(e)))?,
        };
        self.writer().write(&batch).map_err(|e| written(&tmp, e))
    }

    /// Close a row group now (bounded memory for long streams).
    pub fn flush(&mut self) -> Result<()> {
        step(&self.tmp, "flush")?;
        self.write_pending(self.pending_rows)?;
        let tmp = self.tmp.clone();
        self.writer().flush().map_err(|e| written(&tmp, e))
    }

    /// Complete the file and give it its name. On failure the partial file is removed.
    pub fn finish(mut self) -> Result<PathBuf> {
        if let Err(e) = self.write_pending(self.pending_rows) {
            let _ = fs::remove_file(&self.tmp);
            self.writer = None;
            return Err(e);
        }
        let writer = self.writer.take().expect("finished once");
        let (tmp, path) = (self.tmp.clone(), self.path.clone());
        let done = (|| {
            step(&tmp, "close")?;
            let file = writer.into_inner().map_err(|e| written(&tmp, e))?;
            file.sync_all().map_err(|e| Error::file(&tmp, e))?;
            drop(file);
            fs::rename(&tmp, &path).map_err(|e| Error::file(&path, e))?;
            step(&path, "renamed in")
        })();
        if done.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        done.map(|()| path)
    }
}

impl Drop for AtomicParquet {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// A Parquet writer's failure on `file`, with the file named (a full disk surfaces here).
fn written(file: &Path, e: parquet::errors::ParquetError) -> Error {
    Error::file(file, std::io::Error::other(e))
}

/// Write one batch as a whole file, atomically.
pub fn write_batch(path: &Path, batch: &RecordBatch) -> Result<PathBuf> {
    let mut w = AtomicParquet::create(path, batch.schema())?;
    w.write(batch)?;
    w.finish()
}

/// Read every batch of a Parquet file.
pub fn read_batches(path: &Path) -> Result<Vec<RecordBatch>> {
    let file = File::open(path).map_err(|e| Error::file(path, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)?
        .with_batch_size(8192)
        .build()?;
    Ok(reader.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// `batch` in `schema`'s columns: each taken by name, a nullable one the batch lacks (a part
/// written before the column existed) filled with nulls; a required one it lacks is an error
/// naming `file`.
pub fn conform(batch: &RecordBatch, schema: &SchemaRef, file: &Path) -> Result<RecordBatch> {
    if batch.schema().fields() == schema.fields() {
        return Ok(batch.clone());
    }
    let columns = schema
        .fields()
        .iter()
        .map(|f| match batch.column_by_name(f.name()) {
            Some(c) => Ok(c.clone()),
            None if f.is_nullable() => Ok(arrow::array::new_null_array(
                f.data_type(),
                batch.num_rows(),
            )),
            None => Err(Error::BadColumn {
                file: file.to_path_buf(),
                problem: ColumnProblem::Missing {
                    column: f.name().clone(),
                },
            }),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// Hand `each` the named top-level columns of a Parquet file, `batch_rows` rows at a time, as
/// they are decoded (a file larger than memory streams through).
pub fn each_batch_of_columns(
    path: &Path,
    names: &[&str],
    batch_rows: usize,
    each: &mut dyn FnMut(RecordBatch) -> Result<()>,
) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::file(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?.with_batch_size(batch_rows);
    let roots = names
        .iter()
        .map(|c| {
            builder.schema().index_of(c).map_err(|_| Error::BadColumn {
                file: path.to_path_buf(),
                problem: ColumnProblem::Missing {
                    column: c.to_string(),
                },
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    for batch in builder.with_projection(mask).build()? {
        each(batch?)?;
    }
    Ok(())
}

/// Read only the named top-level columns of a Parquet file (those it has), batch by batch: the
/// questions and replies of a large table are never decoded when a stage needs its ids.
pub fn read_columns(path: &Path, names: &[&str]) -> Result<Vec<RecordBatch>> {
    let file = File::open(path).map_err(|e| Error::file(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?.with_batch_size(8192);
    let roots: Vec<usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| names.contains(&f.name().as_str()))
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let reader = builder.with_projection(mask).build()?;
    Ok(reader.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// `<dir>/<key>=<value>` hive partitions directly under `dir`, as (value, folder) sorted by
/// folder, the value read back from its [`crate::paths::name_component`]; none when `dir` is
/// absent.
pub fn partitions(dir: &Path, key: &str) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    let prefix = format!("{key}=");
    for p in table_entries(dir)? {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(v) = name.strip_prefix(&prefix) {
            if p.is_dir() {
                let value = crate::paths::name_of(v).unwrap_or_else(|| v.to_string());
                out.push((value, p));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

/// A Parquet file of a table folder, with the hive partition values (`key=value` folders) on
/// its path.
pub type TableFile = (PathBuf, Vec<(String, String)>);

/// Every Parquet file below `dir`: each folder's parts in part order ([`parts`]), then its
/// sub-folders in name order. Folders named `key=value` contribute a
/// partition value; other folders (`responses/<model>/`) are descended into as they are. Names
/// starting with `.` or `_` are skipped, as the SQL engine's listing skips them.
///
/// A symbolic link in the table (its folder itself, or any entry the walk would read) is
/// refused with [`Error::LinkInTable`]: followed, it could read files outside the tables or
/// list one folder many times over (a loop). Every reader of a local table walks it here, the
/// SQL engine included, so every command refuses a link the same way.
pub fn parquet_files_under(dir: &Path) -> Result<Vec<TableFile>> {
    let table = table_of(dir);
    refuse_link(&table, dir)?;
    let mut out = Vec::new();
    walk_table(dir, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// The entries of a folder of a table (`variants/dataset=x`, `responses/<model>`), sorted, with a
/// symbolic link among them refused ([`Error::LinkInTable`]) as [`parquet_files_under`] refuses
/// it; an absent folder has none.
pub fn table_entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::file(dir, e)),
    };
    let table = table_of(dir);
    let mut out: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    out.sort();
    for p in &out {
        refuse_link(&table, p)?;
    }
    Ok(out)
}

/// The table a folder belongs to: the nearest ancestor named as a table is (`responses` for
/// `tables/responses/m`), else the folder's own name.
fn table_of(dir: &Path) -> String {
    dir.ancestors()
        .filter_map(|a| a.file_name()?.to_str())
        .find(|n| crate::layout::TABLE_LAYOUTS.iter().any(|t| t.name == *n))
        .or_else(|| dir.file_name()?.to_str())
        .unwrap_or_default()
        .to_string()
}

fn refuse_link(table: &str, p: &Path) -> Result<()> {
    match fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::LinkInTable {
            table: table.to_string(),
            link: p.to_path_buf(),
            target: fs::read_link(p).unwrap_or_default(),
        }),
        _ => Ok(()),
    }
}

fn walk_table(
    dir: &Path,
    parts_kv: &mut Vec<(String, String)>,
    out: &mut Vec<TableFile>,
) -> Result<()> {
    out.extend(parts(dir)?.into_iter().map(|p| (p, parts_kv.clone())));
    for p in table_entries(dir)? {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if name.starts_with('.') || name.starts_with('_') || !p.is_dir() {
            continue;
        }
        let part = name
            .split_once('=')
            .map(|(k, v)| (k.to_string(), v.to_string()));
        let pushed = part.is_some();
        parts_kv.extend(part);
        walk_table(&p, parts_kv, out)?;
        if pushed {
            parts_kv.pop();
        }
    }
    Ok(())
}

/// The Parquet files of a table (at `root`) whose partition `key` holds one of `values` (every
/// file when `values` is empty), in path order.
pub fn files_where(root: &Path, key: &str, values: &[String]) -> Result<Vec<PathBuf>> {
    Ok(parquet_files_under(root)?
        .into_iter()
        .filter(|(_, parts)| {
            let value = parts.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            values.is_empty() || value.is_some_and(|v| values.contains(v))
        })
        .map(|(p, _)| p)
        .collect())
}

/// The Parquet parts of one folder of a table, in part order: `part-N` by N (`part-2` before
/// `part-10`), other names by name (a response folder's parts, named by time, in write order).
/// Hidden and `_` names are skipped, as every lister of tables skips them, and a link among the
/// entries is refused ([`table_entries`]); an absent folder has none. Every reader of one
/// folder's parts lists them here; [`parquet_files_under`] walks a whole table.
pub fn parts(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<(u64, String, PathBuf)> = table_entries(dir)?
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            if name.starts_with('.') || name.starts_with('_') || !is_parquet(&name) {
                return None;
            }
            let n = name
                .strip_prefix("part-")
                .and_then(|n| n.strip_suffix(PARQUET_EXT))
                .and_then(|n| n.parse().ok())
                .unwrap_or(u64::MAX);
            Some((n, name, p))
        })
        .collect();
    out.sort();
    Ok(out.into_iter().map(|(_, _, p)| p).collect())
}

/// Whether a file name is a Parquet part.
pub fn is_parquet(name: &str) -> bool {
    name.ends_with(PARQUET_EXT)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    #[test]
    fn text_column_names_the_file_instead_of_panicking() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("question", DataType::Utf8, false),
            Field::new("problem_id", DataType::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(vec!["Tom has 5 apples."])),
                Arc::new(Int32Array::from(vec![7])),
            ],
        )
        .unwrap();
        let file = Path::new("variants/part-0.parquet");
        assert_eq!(
            text_column(&batch, "question", file).unwrap().value(0),
            "Tom has 5 apples."
        );
        let wrong_type = text_column(&batch, "problem_id", file).unwrap_err();
        assert_eq!(
            wrong_type.to_string(),
            "variants/part-0.parquet: column problem_id is Int32, expected text"
        );
        let missing = text_column(&batch, "answer", file).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "variants/part-0.parquet: no answer column"
        );
    }
}
