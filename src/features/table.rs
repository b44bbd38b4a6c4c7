//! The feature tables (`features`, `features_xie2024`): every variant of the `variants` table
//! through its set's computation, batches in parallel, written in order.

use std::collections::HashMap;
use std::fs::{self};
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float64Array, RecordBatch, StringArray};

use rayon::prelude::*;

use super::{compute_set_into, FeatureSet, SetScratch};
use super::{finite, slots_needed};
use crate::contain::Panicked;
use crate::error::{Error, Result};
use crate::num::Num;
use crate::program::tree::num_text;
use crate::program::Program;
use crate::store::commit::TablesLock;
use crate::store::lock::WriterLock;
use crate::store::problems::read_problems;
use crate::store::variants::NumbersBatch;
use crate::store::{self, feature_tables, variants, AtomicParquet};

/// Rows per batch read from the variants table.
const BATCH_ROWS: usize = 8192;

struct Prepared<'a> {
    program: &'a Program,
    slots_needed: usize,
}

/// Compute advmath's `features` table ([`build_feature_set_table`] with [`FeatureSet::Advmath`]).
pub fn build_features_table(tables: &Path) -> Result<usize> {
    build_feature_set_table(tables, FeatureSet::Advmath)
}

/// Compute the table of `set`: for every `tables/variants/dataset=<d>/attack=<a>/part-*.parquet`
/// (parts in numeric order, rows in file order), write
/// `tables/<set table>/dataset=<d>/attack=<a>/part-0.parquet` with one row per variant. Batches are
/// computed in parallel and written in order, so the bytes do not depend on the thread count.
/// Each dataset's partition is staged and then replaces the old one.
///
/// A row whose problem is unknown or invalid, whose numbers do not parse (or are too few for the
/// tree), or whose evaluation fails is skipped with a warning naming the variant. Returns the
/// number of rows written.
pub fn build_feature_set_table(tables: &Path, set: FeatureSet) -> Result<usize> {
    let records = read_problems(tables)?;
    let mut programs: HashMap<&str, Prepared> = HashMap::new();
    for r in &records {
        let Some(tree) = r.tree.as_ref().filter(|_| r.is_valid()) else {
            continue;
        };
        match slots_needed(tree) {
            Some(slots_needed) => {
                programs.insert(
                    &r.problem_id,
                    Prepared {
                        program: tree,
                        slots_needed,
                    },
                );
            }
            None => crate::progress::note!(
                "warning: features: the tree of {} is malformed; its variants are skipped",
                r.problem_id
            ),
        }
    }
    let variants = variants::dir(tables);
    if !variants.is_dir() {
        return Err(Error::missing_table(
            variants::TABLE,
            variants,
            variants::MADE_BY,
        ));
    }
    let datasets = variants::datasets(tables)?;
    if datasets.is_empty() {
        return Err(Error::missing_table(
            variants::TABLE,
            variants,
            variants::MADE_BY,
        ));
    }
    let mut totals = Totals::default();
    let mut parts = 0;
    for (_, dataset_dir) in &datasets {
        for (_, attack_dir) in variants::attacks(dataset_dir)? {
            parts += store::parts(&attack_dir)?.len() as u64;
        }
    }
    let progress = crate::progress::Progress::new(set.table(), "variant parts", parts);
    for (dataset, dataset_dir) in datasets {
        // One writer per feature table and dataset; what a dead one left goes first.
        let _lock = WriterLock::acquire(tables, set.table(), &dataset)?;
        feature_tables::remove_dead_staging(tables, set, &dataset)?;
        let staging = feature_tables::staging_dir(tables, set, &dataset);
        let _ = fs::remove_dir_all(&staging);
        let outcome = (|| -> Result<()> {
            {
                let _read = TablesLock::shared(tables)?;
                for (attack, attack_dir) in variants::attacks(&dataset_dir)? {
                    let path = feature_tables::staged_part(&staging, &attack);
                    let mut writer = AtomicParquet::create(&path, feature_tables::schema(set))?;
                    for part in store::parts(&attack_dir)? {
                        features_of_file(set, &part, &programs, &mut writer, &mut totals)?;
                        progress.inc(1);
                    }
                    writer.finish()?;
                }
            }
            let _switch = TablesLock::exclusive(tables)?;
            Ok(store::swap_in(
                &staging,
                &feature_tables::dataset_dir(tables, set, &dataset),
            )?)
        })();
        if outcome.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        outcome?;
    }
    progress.finish();
    // One line per reason, not one per variant: a study's log stays readable.
    for (reason, (n, first)) in &totals.skipped_by {
        crate::progress::note!(
            "note: {}: {n} variants refused: {reason} (first: {})",
            set.table(),
            first.join(", ")
        );
    }
    let tally = crate::output::Tally {
        stage: set.table(),
        unit: "variants",
        read: totals.written + totals.skipped + totals.failed.len(),
        refused: totals.skipped,
        failed: totals.failed.len(),
        written: totals.written,
        ..Default::default()
    };
    crate::progress::note!("{}", tally.line());
    if !totals.failed.is_empty() {
        return Err(Error::UnitsFailed {
            stage: set.table(),
            unit: "variant",
            failed: totals.failed,
        });
    }
    Ok(totals.written)
}

#[derive(Default)]
struct Totals {
    written: usize,
    skipped: usize,
    /// Rows whose computation panicked, with the reason: the stage exits 1 naming them.
    failed: Vec<(String, String)>,
    /// Skipped variants by reason: how many, and the first few names.
    skipped_by: std::collections::BTreeMap<String, (usize, Vec<String>)>,
}

impl Totals {
    fn skip(&mut self, reason: String, name: String) {
        self.skipped += 1;
        let (n, first) = self.skipped_by.entry(reason).or_default();
        *n += 1;
        if first.len() < 3 {
            first.push(name);
        }
    }
}

fn features_of_file(
    set: FeatureSet,
    path: &Path,
    programs: &HashMap<&str, Prepared>,
    writer: &mut AtomicParquet,
    totals: &mut Totals,
) -> Result<()> {
    let mut first_row = 0;
    crate::store::variants::each_numbers_batch(path, BATCH_ROWS, &mut |batch| {
        let out = features_of_batch(set, &batch, programs, path, first_row, totals)?;
        first_row += batch.len();
        if out.num_rows() > 0 {
            writer.write(&out)?;
        }
        Ok(())
    })?;
    Ok(())
}

fn features_of_batch(
    set: FeatureSet,
    batch: &NumbersBatch,
    programs: &HashMap<&str, Prepared>,
    path: &Path,
    first_row: usize,
    totals: &mut Totals,
) -> Result<RecordBatch> {
    let (ids, problem_ids, numbers) = (&batch.variant_ids, &batch.problem_ids, &batch.numbers);
    let items = numbers.values().as_string::<i32>();
    let offsets = numbers.value_offsets();

    let k = set.count();
    let row = |scratch: &mut SetScratch,
               slots: &mut Vec<Num>,
               i: usize|
     -> std::result::Result<Vec<f64>, String> {
        if ids.is_null(i) {
            return Err("variant_id is null".into());
        }
        if problem_ids.is_null(i) {
            return Err("problem_id is null".into());
        }
        crate::contain::planted_panic(|| format!("features:{}", ids.value(i)));
        let pid = problem_ids.value(i);
        let prepared = programs
            .get(pid)
            .ok_or_else(|| "its problem has no valid program (unknown or invalid)".to_string())?;
        if numbers.is_null(i) {
            return Err("numbers is null".into());
        }
        slots.clear();
        for j in offsets[i] as usize..offsets[i + 1] as usize {
            if items.is_null(j) {
                return Err(format!("number {} is null", j - offsets[i] as usize));
            }
            let t = items.value(j);
            match num_text::from_text(t).filter(|v| finite(*v)) {
                Some(v) => slots.push(v),
                None => return Err(format!("number {t:?} does not parse")),
            }
        }
        if slots.len() < prepared.slots_needed {
            return Err(format!(
                "{} numbers, but the tree reads slot {}",
                slots.len(),
                prepared.slots_needed - 1
            ));
        }
        let mut out = vec![0.0; k];
        compute_set_into(set, scratch, prepared.program, slots, &mut out)
            .map_err(|e| format!("the tree does not evaluate: {e}"))?;
        Ok(out)
    };
    // Per row: its features, or why it is skipped; or, outside, the panic that failed it.
    type Computed = std::result::Result<std::result::Result<Vec<f64>, String>, Panicked>;
    let rows: Vec<Computed> = (0..batch.len())
        .into_par_iter()
        .map_init(
            || (SetScratch::default(), Vec::new()),
            |(scratch, slots), i| {
                // A panic in one row is that row's failure; the batch goes on.
                crate::contain::run(|| row(scratch, slots, i)).inspect_err(|_| {
                    // The scratch may be half-written: the next row starts from a fresh one.
                    *scratch = SetScratch::default();
                })
            },
        )
        .collect();

    let mut kept_ids: Vec<&str> = Vec::with_capacity(rows.len());
    let mut columns: Vec<Vec<f64>> = (0..k).map(|_| Vec::with_capacity(rows.len())).collect();
    for (i, r) in rows.iter().enumerate() {
        let name = || {
            if ids.is_null(i) {
                format!("at row {} of {}", first_row + i, path.display())
            } else {
                ids.value(i).to_string()
            }
        };
        match r {
            Ok(Ok(values)) => {
                kept_ids.push(ids.value(i));
                for (c, v) in columns.iter_mut().zip(values) {
                    c.push(*v);
                }
            }
            Ok(Err(reason)) => totals.skip(reason.clone(), name()),
            Err(panicked) => {
                totals.failed.push((name(), panicked.to_string()));
                totals.skip(panicked.to_string(), name());
            }
        }
    }
    totals.written += kept_ids.len();
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(k + 1);
    arrays.push(Arc::new(StringArray::from(kept_ids)));
    for c in columns {
        arrays.push(Arc::new(Float64Array::from(c)));
    }
    Ok(RecordBatch::try_new(
        crate::store::feature_tables::schema(set),
        arrays,
    )?)
}
