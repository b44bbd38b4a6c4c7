//! The ingest stage as one call: read every source, validate its programs, write one problems
//! file per (dataset, split), and report the coverage.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::output::tsv_row;
use crate::store;

use super::candidates::{
    judge, match_candidates, read_candidates, start_report, Candidates, CandidatesReport,
};
use super::coverage;
use super::default_dataset::default_source;
use super::{borrow_programs, build_records_linked, read_source, Coverage, IngestOptions, Source};
use crate::store::candidate_programs;
use crate::store::problems::records_to_batch;
use crate::store::problems::ProblemRecord;

/// `advmath ingest`: the inputs, how to read them, where the tables go.
#[derive(Clone, Debug)]
pub struct IngestConfig {
    pub inputs: Vec<PathBuf>,
    pub options: IngestOptions,
    pub tables: PathBuf,
    pub report: Option<PathBuf>,
}

/// What an ingest produced.
pub struct IngestSummary {
    pub sources: Vec<Vec<ProblemRecord>>,
    pub written: Vec<PathBuf>,
    /// What the `--candidates` files gave, when there were any.
    pub candidates: Option<CandidatesReport>,
}

/// The published programs one source's problems are offered: every candidate read, the pairs
/// (problem row, candidate) matched to this source, and the report judging adds to.
pub struct Offered<'a> {
    pub candidates: &'a Candidates,
    pub matched: &'a [(usize, usize)],
    pub report: &'a mut CandidatesReport,
}

impl IngestSummary {
    pub fn total_valid(&self) -> usize {
        self.sources
            .iter()
            .flatten()
            .filter(|r| r.is_valid())
            .count()
    }

    /// The rows whose validation failed with an internal error, as the error that ends the run
    /// with exit 1 (every other row was written); `Ok` when none did.
    pub fn failures(&self) -> Result<()> {
        let failed: Vec<(String, String)> = self
            .sources
            .iter()
            .flatten()
            .filter_map(|r| {
                let e = r.error.as_ref()?;
                (e.kind == crate::program::ErrorKind::Internal)
                    .then(|| (r.problem_id.clone(), e.detail.clone()))
            })
            .collect();
        if failed.is_empty() {
            return Ok(());
        }
        Err(Error::UnitsFailed {
            stage: "ingest",
            unit: "row",
            failed,
        })
    }

    /// The stage's closing line: problems read, refused (invalid: no valid program), failed
    /// (an internal error); every problem is written as a row, valid or not.
    pub fn tally(&self) -> crate::output::Tally {
        let rows = self.sources.iter().flatten();
        let failed = rows
            .clone()
            .filter(|r| {
                r.error
                    .as_ref()
                    .is_some_and(|e| e.kind == crate::program::ErrorKind::Internal)
            })
            .count();
        let read = rows.count();
        crate::output::Tally {
            stage: "ingest",
            unit: "problems",
            read,
            refused: read - self.total_valid() - failed,
            failed,
            written: read,
            detail: (read > self.total_valid() + failed).then(|| {
                "a refused problem is kept as an invalid row: noise attacks still use it".into()
            }),
            ..Default::default()
        }
    }

    /// One line per source, tab-separated, for stdout.
    pub fn write_table(&self, out: &mut impl Write) -> std::io::Result<()> {
        tsv_row(
            out,
            [
                "dataset",
                "split",
                "problems",
                "valid",
                "valid_pct",
                "rejected",
            ],
        )?;
        for records in &self.sources {
            let c = Coverage::of(records);
            let kinds: Vec<String> = c.by_kind.iter().map(|(k, v)| format!("{k}={v}")).collect();
            tsv_row(
                out,
                [
                    c.dataset.clone(),
                    c.split.clone(),
                    c.total.to_string(),
                    c.valid.to_string(),
                    format!("{:.1}", 100.0 * c.valid_share()),
                    kinds.join(","),
                ],
            )?;
        }
        Ok(())
    }
}

/// Validate and write one source's problems table, and with `offered` candidate programs, judge
/// them and write their verdicts beside it.
pub fn ingest_source(
    source: &Source,
    config: &IngestConfig,
    offered: Option<Offered<'_>>,
) -> Result<(Vec<ProblemRecord>, PathBuf)> {
    let mut records = build_records_linked(source, config.options.programs, config.options.links);
    let bad: Vec<String> = records
        .iter()
        .filter_map(|r| r.error.as_ref())
        .filter(|e| e.kind == crate::program::ErrorKind::BadInput)
        .map(|e| e.detail.clone())
        .collect();
    crate::input::warn_first_few(&source.path, &bad);
    let judged = offered.map(|o| {
        judge(
            &mut records,
            o.matched,
            o.candidates,
            config.options.links,
            o.report,
        )
    });
    let judged = judged
        .map(|rows| candidate_programs::records_to_batch(&rows))
        .transpose()?;
    let path = candidate_programs::write_with_problems(
        &config.tables,
        &source.dataset,
        &source.split,
        &records_to_batch(&records)?,
        judged.as_ref(),
    )?;
    Ok((records, path))
}

pub fn ingest(config: &IngestConfig) -> Result<IngestSummary> {
    let mut summary = IngestSummary {
        sources: Vec::new(),
        written: Vec::new(),
        candidates: None,
    };
    let mut sources: Vec<Source> = if config.inputs.is_empty() {
        vec![default_source()?]
    } else {
        config
            .inputs
            .iter()
            .map(|p| read_source(p, &config.options))
            .collect::<Result<_>>()?
    };
    if let Some(from) = &config.options.programs_from {
        let donor = read_source(from, &IngestOptions::default())?;
        for source in &mut sources {
            let n = borrow_programs(source, &donor);
            crate::progress::note!(
                "{}: {n} problems took a program or worked solution from {}",
                source.path.display(),
                from.display()
            );
        }
    }
    let mut offered = if config.options.candidates.is_empty() {
        None
    } else {
        let mut candidates = read_candidates(&config.options.candidates)?;
        let matched = match_candidates(&mut candidates, &sources);
        let report = start_report(&candidates, &matched);
        Some((candidates, matched, report))
    };
    // One ingest at a time writes a tables folder's problems; what a dead one half-wrote goes.
    let _lock = crate::store::lock::WriterLock::acquire(&config.tables, "ingest", "problems")?;
    // Every writer finishes the switches dead writers decided (and refuses a journal naming
    // anything outside the tables) before it writes.
    drop(crate::store::commit::TablesLock::exclusive(&config.tables)?);
    store::remove_leftovers(&store::problems::dir(&config.tables), None)?;
    candidate_programs::remove_dead_staging(&config.tables)?;
    for (s, source) in sources.iter().enumerate() {
        let offer = offered
            .as_mut()
            .map(|(candidates, matched, report)| Offered {
                candidates,
                matched: &matched[s],
                report,
            });
        let (records, path) = ingest_source(source, config, offer)?;
        let c = Coverage::of(&records);
        crate::progress::note!(
            "{}: {} problem{}, {} valid ({:.1}%) -> {}",
            source.path.display(),
            c.total,
            if c.total == 1 { "" } else { "s" },
            c.valid,
            100.0 * c.valid_share(),
            path.display()
        );
        summary.sources.push(records);
        summary.written.push(path);
    }
    if let Some((_, _, report)) = offered {
        for s in &report.sources {
            crate::progress::note!(
                "candidates {}: {} read, {} matched, {} valid, {} chosen",
                s.source,
                s.read,
                s.matched,
                s.valid,
                s.chosen
            );
        }
        summary.candidates = Some(report);
    }
    if let Some(report) = &config.report {
        let mut text = coverage::markdown(&summary.sources, summary.candidates.as_ref());
        if let Some(candidates) = &summary.candidates {
            text.push_str(&coverage::candidates_markdown(candidates));
        }
        store::write_text(report, &text)?;
        crate::progress::note!("coverage report -> {}", report.display());
    }
    if summary.total_valid() == 0 {
        return Err(Error::invalid(
            inputs_label(&config.inputs),
            no_valid_problem(&summary.sources, &config.tables),
        ));
    }
    crate::progress::note!("{}", summary.tally().line());
    Ok(summary)
}

/// Why no problem is valid, by rejection kind, and the commands that show the rows and give
/// programs to the problems that lack one.
fn no_valid_problem(sources: &[Vec<ProblemRecord>], tables: &std::path::Path) -> String {
    let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for r in sources.iter().flatten() {
        if let Some(e) = &r.error {
            *kinds.entry(e.kind.as_str().to_string()).or_default() += 1;
        }
    }
    let by_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let mut text = format!(
        "no problem has a valid solution program ({})",
        by_kind.join(", ")
    );
    let records = || sources.iter().flatten();
    let missing = |lacks: &dyn Fn(&ProblemRecord) -> bool| {
        first_rows(records().filter(|r| lacks(r)).map(|r| r.source_index))
    };
    let no_program = missing(&|r| {
        r.error
            .as_ref()
            .is_some_and(|e| e.kind.as_str() == "missing_program")
    });
    if let Some(rows) = &no_program {
        text.push_str(&format!(
            "; {rows} no `program` field (another name: --program-col) and no worked solution to read one from"
        ));
    }
    if let Some(rows) = missing(&|r| r.answer.is_none()) {
        text.push_str(&format!(
            "; {rows} no `answer` field (another name: --answer-col)"
        ));
    }
    text.push_str(&format!(
        "; see the rows with: advmath sql --tables {} \"SELECT problem_id, error_kind, error_detail FROM problems WHERE error_kind IS NOT NULL LIMIT 20\"",
        tables.display()
    ));
    if no_program.is_some() {
        text.push_str(
            "; problems without a program get one from a model with: advmath programs --endpoint URL --model M",
        );
    }
    text
}

/// "row 3 has" or "rows 1, 2, 5 and 7 more have", counting rows from 1; `None` for no row.
fn first_rows(indices: impl Iterator<Item = i64>) -> Option<String> {
    let all: Vec<i64> = indices.collect();
    let shown: Vec<String> = all.iter().take(3).map(|i| (i + 1).to_string()).collect();
    match all.len() {
        0 => None,
        1 => Some(format!("row {} has", shown[0])),
        n if n <= 3 => Some(format!("rows {} have", shown.join(", "))),
        n => Some(format!("rows {} and {} more have", shown.join(", "), n - 3)),
    }
}

fn inputs_label(inputs: &[PathBuf]) -> String {
    if inputs.is_empty() {
        return "default dataset".into();
    }
    inputs
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The inputs of an ingest by what they are: RobustMath releases (a rephrasing attack, written as
/// variants of dataset `robustmath`, not as problems) and problem sources.
pub fn split_rephrasings(config: &IngestConfig) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let forced = config.options.format == Some(super::Format::Robustmath);
    config
        .inputs
        .iter()
        .cloned()
        .partition(|p| forced || (config.options.format.is_none() && super::is_robustmath(p)))
}
