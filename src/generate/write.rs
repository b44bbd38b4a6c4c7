//! Writing a generation run: variant and statistics rows as Arrow batches, and the per-dataset
//! Parquet writers that stage every partition and replace the old ones only when all are written.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanArray, Int32Array, Int64Array, ListBuilder, RecordBatch, StringArray,
    StringBuilder, UInt64Array,
};

use super::{AttackStats, REJECT_NAMES};
use crate::error::{Error, Result};
use crate::ingest::sanitize;
use crate::schema;
use crate::table::AtomicParquet;

pub(super) struct Row {
    pub(super) variant_id: String,
    pub(super) problem_id: String,
    pub(super) noise_level: i32,
    pub(super) variant_index: i32,
    pub(super) question: String,
    pub(super) answer: String,
    pub(super) answer_exact: String,
    pub(super) numbers: Vec<String>,
    pub(super) seed: u64,
}

pub(super) struct StatRow {
    pub(super) problem_id: String,
    pub(super) attack: String,
    pub(super) stats: AttackStats,
    pub(super) emitted: usize,
    pub(super) reached: bool,
}

pub(super) fn rows_to_batch(rows: &[Row]) -> Result<RecordBatch> {
    let s = |f: &dyn Fn(&Row) -> &str| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
    };
    let mut numbers = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
        arrow::datatypes::Field::new("item", arrow::datatypes::DataType::Utf8, false),
    ));
    for r in rows {
        for n in &r.numbers {
            numbers.values().append_value(n);
        }
        numbers.append(true);
    }
    Ok(RecordBatch::try_new(
        schema::variants(),
        vec![
            s(&|r| &r.variant_id),
            s(&|r| &r.problem_id),
            Arc::new(rows.iter().map(|r| r.noise_level).collect::<Int32Array>()),
            Arc::new(rows.iter().map(|r| r.variant_index).collect::<Int32Array>()),
            s(&|r| &r.question),
            s(&|r| &r.answer),
            s(&|r| &r.answer_exact),
            Arc::new(numbers.finish()),
            Arc::new(rows.iter().map(|r| r.seed).collect::<UInt64Array>()),
        ],
    )?)
}

pub(super) fn stats_to_batch(rows: &[StatRow]) -> Result<RecordBatch> {
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(
            rows.iter()
                .map(|r| Some(r.problem_id.as_str()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.attack.as_str()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.stats.attempts as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.stats.valid as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.stats.unique as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.emitted as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.reached))
                .collect::<BooleanArray>(),
        ),
    ];
    for k in 0..REJECT_NAMES.len() {
        cols.push(Arc::new(
            rows.iter()
                .map(|r| r.stats.rejections[k] as i64)
                .collect::<Int64Array>(),
        ));
    }
    Ok(RecordBatch::try_new(schema::generation_stats(), cols)?)
}

/// Writers for one dataset's partitions, created on first use, in a staging folder.
pub(super) struct DatasetWriters {
    pub(super) staging: PathBuf,
    pub(super) variants: BTreeMap<String, AtomicParquet>,
    pub(super) stats: Option<AtomicParquet>,
}

impl DatasetWriters {
    pub(super) fn variants(&mut self, attack: &str) -> Result<&mut AtomicParquet> {
        if !self.variants.contains_key(attack) {
            let path = self
                .staging
                .join("variants")
                .join(format!("attack={attack}"))
                .join("part-0.parquet");
            self.variants.insert(
                attack.to_string(),
                AtomicParquet::create(&path, schema::variants())?,
            );
        }
        Ok(self.variants.get_mut(attack).expect("just inserted"))
    }

    pub(super) fn stats(&mut self) -> Result<&mut AtomicParquet> {
        if self.stats.is_none() {
            let path = self.staging.join("generation_stats").join("part-0.parquet");
            self.stats = Some(AtomicParquet::create(&path, schema::generation_stats())?);
        }
        Ok(self.stats.as_mut().expect("just created"))
    }

    /// Close every file, then move the staged partitions over the old ones.
    pub(super) fn publish(self, tables: &Path, dataset: &str) -> Result<()> {
        for (_, w) in self.variants {
            w.finish()?;
        }
        if let Some(w) = self.stats {
            w.finish()?;
        }
        let part = format!("dataset={}", sanitize(dataset));
        for table in ["variants", "generation_stats"] {
            let staged = self.staging.join(table);
            let target = tables.join(table).join(&part);
            if target.exists() {
                fs::remove_dir_all(&target).map_err(|e| Error::file(&target, e))?;
            }
            if staged.exists() {
                fs::create_dir_all(tables.join(table))
                    .map_err(|e| Error::file(tables.join(table), e))?;
                fs::rename(&staged, &target).map_err(|e| Error::file(&target, e))?;
            }
        }
        let _ = fs::remove_dir_all(&self.staging);
        Ok(())
    }
}
