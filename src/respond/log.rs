//! A run's resume log: each model's folder of Parquet parts, read back for resume, and the
//! write-ahead log that makes a run crash-safe. A finished response goes to the log at once (one
//! JSON line, flushed), then every K responses or T seconds into an atomically written part,
//! after which the log is emptied; a rerun folds a killed run's log into a part first.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::hash::Hash;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use arrow::array::RecordBatch;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::store::parts;
use crate::store::responses::{batch_to_rows, part_name, rows_to_batch, ResponseRow};
use crate::store::{read_batches, write_batch};

/// A row the write-ahead log and the parts can hold.
pub(crate) trait Logged: Serialize + DeserializeOwned {
    /// What makes a row unique in its folder (recovery skips a row whose id is stored).
    type Id: Eq + Hash;
    fn id(&self) -> Self::Id;
    fn batch(rows: &[Self]) -> Result<RecordBatch>;
}

impl Logged for ResponseRow {
    type Id = crate::store::responses::RowId;
    fn id(&self) -> Self::Id {
        self.row_id()
    }
    fn batch(rows: &[Self]) -> Result<RecordBatch> {
        Ok(rows_to_batch(rows)?)
    }
}

/// Every stored row of a model folder, in part order.
pub fn read_rows(dir: &Path) -> Result<Vec<ResponseRow>> {
    let mut out = Vec::new();
    for f in parts(dir)? {
        for b in read_batches(&f)? {
            out.extend(batch_to_rows(&b, &f)?);
        }
    }
    Ok(out)
}

/// Fold write-ahead logs of a killed run into a part, keeping only rows not yet stored; returns
/// the rows recovered.
pub(crate) fn recover_logs<R: Logged>(dir: &Path, done: &mut HashSet<R::Id>) -> Result<Vec<R>> {
    let (rows, logs) = logged_rows(dir, done)?;
    if !rows.is_empty() {
        write_batch(&dir.join(part_name("recovered")), &R::batch(&rows)?)?;
    }
    for log in logs {
        fs::remove_file(&log).map_err(|e| Error::file(&log, e))?;
    }
    Ok(rows)
}

/// The rows the logs in `dir` hold that `done` does not (added to it), and the logs read;
/// nothing is written or removed.
pub(crate) fn logged_rows<R: Logged>(
    dir: &Path,
    done: &mut HashSet<R::Id>,
) -> Result<(Vec<R>, Vec<PathBuf>)> {
    let mut logs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "wal"))
                .collect()
        })
        .unwrap_or_default();
    logs.sort();
    let mut rows = Vec::new();
    for log in &logs {
        let f = File::open(log).map_err(|e| Error::file(log, e))?;
        for line in BufReader::new(f).lines() {
            let Ok(line) = line else { break };
            // A kill mid-line leaves a torn last line: it was never acknowledged, skip it.
            if let Ok(row) = serde_json::from_str::<R>(&line) {
                if done.insert(row.id()) {
                    rows.push(row);
                }
            }
        }
    }
    Ok((rows, logs))
}

/// Buffered, logged writer of one model's responses.
pub(crate) struct Sink<R: Logged> {
    dir: PathBuf,
    log_path: PathBuf,
    log: File,
    buffer: Vec<R>,
    seq: usize,
    last_flush: Instant,
    written: usize,
}

impl<R: Logged> Sink<R> {
    pub(crate) fn new(dir: &Path) -> Result<Sink<R>> {
        fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        let log_path = dir.join(format!(
            "log-{}-{}.wal",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        ));
        crate::store::refuse_links(&log_path)?;
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| Error::file(&log_path, e))?;
        Ok(Sink {
            dir: dir.to_path_buf(),
            log_path,
            log,
            buffer: Vec::new(),
            seq: 0,
            last_flush: Instant::now(),
            written: 0,
        })
    }

    pub(crate) fn push(&mut self, row: R) -> Result<()> {
        let mut line = serde_json::to_string(&row)?;
        line.push('\n');
        self.log
            .write_all(line.as_bytes())
            .map_err(|e| Error::file(&self.log_path, e))?;
        self.buffer.push(row);
        Ok(())
    }

    /// Flush once `every` rows wait or the oldest has waited `seconds`.
    pub(crate) fn flush_if_due(&mut self, every: usize, seconds: f64) -> Result<()> {
        let due = self.buffer.len() >= every
            || (!self.buffer.is_empty() && self.last_flush.elapsed().as_secs_f64() >= seconds);
        if due {
            self.flush()?;
        }
        Ok(())
    }

    /// Part first (atomic), then a fresh log: a kill in between only duplicates into the old
    /// log, which recovery de-duplicates by key.
    pub(crate) fn flush(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        write_batch(
            &self.dir.join(part_name(&format!("{:05}", self.seq))),
            &R::batch(&self.buffer)?,
        )?;
        self.seq += 1;
        self.written += self.buffer.len();
        self.buffer.clear();
        self.log
            .set_len(0)
            .map_err(|e| Error::file(&self.log_path, e))?;
        self.last_flush = Instant::now();
        Ok(())
    }

    pub(crate) fn close(mut self) -> Result<usize> {
        self.flush()?;
        drop(self.log);
        let _ = fs::remove_file(&self.log_path);
        Ok(self.written)
    }
}
