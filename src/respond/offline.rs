//! Offline models (`oracle`, `sim-*`): answers simulated from the problems' trees and the
//! variants' numbers, written as one part, a row group at a time.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use rayon::prelude::*;

use super::config::{RespondConfig, RespondSummary};
use super::rows::Item;
use super::sim;
use crate::error::{Error, Result};
use crate::num::Num;
use crate::program::tree::num_text;
use crate::respond::rows::Scored;
use crate::store::problems::read_problems;
use crate::store::responses::rows_to_batch;
use crate::store::responses::ResponseRow;
use crate::store::variants;

/// The answers of an offline model: the problems' trees and the variants' numbers.
pub(crate) struct Offline {
    model: String,
    problems: HashMap<String, crate::store::problems::ProblemRecord>,
    numbers: HashMap<String, Vec<Num>>,
    /// The no-op numbers of the `noop` variants.
    distractors: HashMap<String, i64>,
}

impl Offline {
    pub(crate) fn open(config: &RespondConfig) -> Result<Offline> {
        if !crate::vocab::is_simulated(&config.model)
            || !crate::vocab::SIMULATED_MODELS.contains(&config.model.as_str())
        {
            return Err(Error::setting(
                "endpoint",
                format!(
                    "is needed to ask model {} (the offline models: {})",
                    config.model,
                    crate::vocab::SIMULATED_MODELS.join(", ")
                ),
            ));
        }
        Ok(Offline {
            model: config.model.clone(),
            problems: read_problems(&config.tables)?
                .into_iter()
                .map(|p| (p.problem_id.clone(), p))
                .collect(),
            numbers: variant_numbers(&config.tables)?,
            distractors: variants::distractors(&config.tables)?,
        })
    }

    /// The simulated reply to `it` (None when its problem has no tree), and the row's source.
    pub(crate) fn answer(&self, it: &Item) -> Option<(String, &'static str)> {
        let p = self.problems.get(it.problem_id.as_deref()?)?;
        let nums = it
            .variant_id
            .as_ref()
            .and_then(|v| self.numbers.get(v))
            .cloned()
            .unwrap_or_else(|| p.slot_nums());
        let variant_id = it.variant_id.as_deref()?;
        let seen = sim::Seen {
            noise_level: it.noise_level.unwrap_or(0),
            renamed: sim::renamed(variant_id),
            withheld: sim::withheld(variant_id),
            distractor: self
                .distractors
                .get(variant_id)
                .map(|&k| Num::int(k as i128)),
        };
        let text = sim::simulate(&self.model, variant_id, p.tree.as_ref()?, &nums, &seen)?;
        let source = if self.model == crate::vocab::ORACLE {
            crate::vocab::ORACLE
        } else {
            "simulated"
        };
        Some((text, source))
    }
}

pub(super) fn respond_offline(
    config: &RespondConfig,
    todo: Vec<(String, Vec<Item>)>,
    reused: Vec<ResponseRow>,
    dir: &Path,
    summary: &mut RespondSummary,
) -> Result<()> {
    let offline = Offline::open(config)?;
    let run = config.run();
    fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    // Deterministic name and content: offline runs are reproducible byte for byte.
    let path = crate::store::responses::offline_part(dir)?;
    let mut out = RowStream::create(&path)?;
    // Rows are made and written a slice of questions at a time, so memory holds one slice of
    // replies, not the whole table's.
    for slice in todo.chunks(OFFLINE_SLICE) {
        let answered: Vec<Option<Vec<ResponseRow>>> = slice
            .par_iter()
            .map(|(key, items)| {
                // One reply per question, simulated for its first variant, as one request would be.
                let (text, source) = offline.answer(&items[0])?;
                let first = ResponseRow::scored_by(
                    key.clone(),
                    &config.model,
                    &config.template.name,
                    &items[0],
                    text,
                    source,
                    config.extraction,
                )
                .in_run(&run);
                let mut rows: Vec<ResponseRow> = items[1..]
                    .iter()
                    .map(|it| first.reusing(it, config.extraction, &run))
                    .collect();
                rows.insert(0, first);
                Some(rows)
            })
            .collect();
        for ((_, items), a) in slice.iter().zip(&answered) {
            if a.is_none() {
                summary.unanswerable += items.len();
                if summary.unanswerable_first.len() < 3 {
                    summary
                        .unanswerable_first
                        .extend(items[0].variant_id.clone());
                }
            }
        }
        for row in answered.into_iter().flatten().flatten() {
            out.push(row, summary)?;
        }
    }
    summary.reused = reused.len();
    for row in reused {
        out.push(row, summary)?;
    }
    out.finish()
}

/// Questions simulated per parallel slice of an offline run.
const OFFLINE_SLICE: usize = 16 * 1024;

/// One Parquet part written as rows arrive, in batches of exactly one row group: the bytes are
/// those of the whole table written at once, and memory holds one row group.
struct RowStream {
    file: crate::store::AtomicParquet,
    pending: Vec<ResponseRow>,
}

impl RowStream {
    const ROWS: usize = crate::store::ROW_GROUP_ROWS;

    fn create(path: &Path) -> Result<RowStream> {
        Ok(RowStream {
            file: crate::store::AtomicParquet::create(path, crate::store::responses::schema())?,
            pending: Vec::with_capacity(Self::ROWS),
        })
    }

    fn push(&mut self, row: ResponseRow, summary: &mut RespondSummary) -> Result<()> {
        summary.written += 1;
        summary.tally(&row);
        self.pending.push(row);
        if self.pending.len() == Self::ROWS {
            self.file.write(&rows_to_batch(&self.pending)?)?;
            self.pending.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        if !self.pending.is_empty() {
            self.file.write(&rows_to_batch(&self.pending)?)?;
        }
        self.file.finish()?;
        Ok(())
    }
}

/// variant_id -> slot values, for simulated models.
fn variant_numbers(tables: &Path) -> Result<HashMap<String, Vec<Num>>> {
    let _read = crate::store::commit::TablesLock::shared(tables)?;
    let mut out = HashMap::new();
    for (p, _) in crate::store::parquet_files_under(&variants::dir(tables))? {
        variants::each_numbers_batch(&p, 8192, &mut |b| {
            for i in 0..b.len() {
                let nums = b
                    .numbers_of(i)
                    .iter()
                    .map(|s| {
                        s.as_deref()
                            .and_then(num_text::from_text)
                            .unwrap_or(Num::ZERO)
                    })
                    .collect();
                out.insert(b.variant_ids.value(i).to_string(), nums);
            }
            Ok(())
        })?;
    }
    Ok(out)
}
