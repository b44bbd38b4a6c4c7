//! The commands' work, as library calls: each takes a checked config and returns a summary.
//!
//! [`run`] is the chain `ingest`, `generate`, `respond` per model, `features`, `regress`,
//! `metrics`, `publish`, each on its stage's defaults, which live in the library configs alone
//! ([`GenerateConfig::default`], [`crate::respond::RespondConfig::default`],
//! [`crate::regress::RegressConfig::default`], [`crate::metrics::MetricsConfig::default`],
//! [`crate::publish::PublishConfig::new`]) and are read by each command's clap arguments too;
//! `tests/cli/defaults.rs` checks that both ways write the same bytes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::generate::{generate, GenerateConfig, GenerateSummary};
use crate::ingest::coverage;
use crate::ingest::default_dataset::default_source;
use crate::ingest::{
    borrow_programs, build_records_linked, problems_path, read_source, records_to_batch, Coverage,
    IngestOptions, ProblemRecord, Source,
};
use crate::output::tsv_row;
use crate::store::{self, reports_dir, tables_dir};

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
}

impl IngestSummary {
    pub fn total_valid(&self) -> usize {
        self.sources
            .iter()
            .flatten()
            .filter(|r| r.is_valid())
            .count()
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

/// Validate and write one source's problems table.
pub fn ingest_source(
    source: &Source,
    config: &IngestConfig,
) -> Result<(Vec<ProblemRecord>, PathBuf)> {
    let records = build_records_linked(source, config.options.programs, config.options.links);
    let bad: Vec<String> = records
        .iter()
        .filter_map(|r| r.error.as_ref())
        .filter(|e| e.kind == crate::program::ErrorKind::BadInput)
        .map(|e| e.detail.clone())
        .collect();
    crate::input::warn_first_few(&source.path, &bad);
    let path = problems_path(&config.tables, &source.dataset, &source.split);
    store::write_batch(&path, &records_to_batch(&records)?)?;
    Ok((records, path))
}

pub fn ingest(config: &IngestConfig) -> Result<IngestSummary> {
    let mut summary = IngestSummary {
        sources: Vec::new(),
        written: Vec::new(),
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
            eprintln!(
                "{}: {n} problems took a program or worked solution from {}",
                source.path.display(),
                from.display()
            );
        }
    }
    // One ingest at a time writes a tables folder's problems; what a dead one half-wrote goes.
    let _lock = crate::store::lock::WriterLock::acquire(&config.tables, "ingest", "problems")?;
    // Every writer finishes the switches dead writers decided (and refuses a journal naming
    // anything outside the tables) before it writes.
    drop(crate::store::commit::TablesLock::exclusive(&config.tables)?);
    store::remove_leftovers(&store::problems::dir(&config.tables), None)?;
    for source in &sources {
        let (records, path) = ingest_source(source, config)?;
        let c = Coverage::of(&records);
        eprintln!(
            "{}: {} problems, {} valid ({:.1}%) -> {}",
            source.path.display(),
            c.total,
            c.valid,
            100.0 * c.valid_share(),
            path.display()
        );
        summary.sources.push(records);
        summary.written.push(path);
    }
    if let Some(report) = &config.report {
        store::write_text(report, &coverage::markdown(&summary.sources))?;
        eprintln!("coverage report -> {}", report.display());
    }
    if summary.total_valid() == 0 {
        return Err(Error::invalid(
            inputs_label(&config.inputs),
            "no problem has a valid solution program (see error_kind in the problems table)",
        ));
    }
    Ok(summary)
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

/// `advmath run`: the default pipeline, stage after stage, into one output folder.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub inputs: Vec<PathBuf>,
    pub options: IngestOptions,
    pub out: PathBuf,
    pub generation: GenerateConfig,
    /// One respond config per model (offline models by default).
    pub responders: Vec<crate::respond::RespondConfig>,
    /// The feature study: [`RunConfig::regression_for`] gives `advmath regress`'s defaults.
    pub regression: crate::regress::RegressConfig,
}

impl RunConfig {
    /// The feature study of a run into `out`: `advmath regress`'s defaults
    /// ([`crate::regress::RegressConfig::default`]) on the run's tables and reports.
    pub fn regression_for(out: &Path) -> crate::regress::RegressConfig {
        crate::regress::RegressConfig {
            tables: tables_dir(out),
            report_dir: reports_dir(out),
            ..Default::default()
        }
    }
}

/// What the default pipeline produced.
pub struct RunSummary {
    pub ingest: IngestSummary,
    pub generate: GenerateSummary,
    pub responses: Vec<(String, crate::respond::RespondSummary)>,
    pub regression: Option<crate::regress::RegressSummary>,
    pub metrics: crate::metrics::MetricsSummary,
    pub publish: crate::publish::PublishSummary,
}

/// The models `run` asks when none is named: the offline ones, so it needs no network.
pub const DEFAULT_MODELS: [&str; 5] = crate::vocab::SIMULATED_MODELS;

pub fn run(config: &RunConfig) -> Result<RunSummary> {
    let ingest_config = IngestConfig {
        inputs: config.inputs.clone(),
        options: config.options.clone(),
        tables: tables_dir(&config.out),
        report: Some(reports_dir(&config.out).join("program_coverage.md")),
    };
    config.generation.check()?;
    let ingest = ingest(&ingest_config)?;
    eprintln!("generating variants ...");
    let generate = generate(&config.generation)?;
    let mut responses = Vec::new();
    for r in &config.responders {
        eprintln!("asking {} ...", r.model);
        // A fresh run answers afresh: stale responses to replaced variants would not join.
        let dir = crate::respond::model_dir(&r.tables, &r.model);
        if matches!(r.backend, crate::respond::Backend::Offline) && dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| Error::file(&dir, e))?;
        }
        let summary = crate::respond::respond(r)?;
        if let Some(note) = summary.unanswerable_note(&r.model) {
            eprintln!("{note}");
        }
        responses.push((r.model.clone(), summary));
    }
    eprintln!("computing features ...");
    for set in crate::features::FeatureSet::ALL {
        crate::features::build_feature_set_table(&tables_dir(&config.out), set)?;
    }
    let regression = if config.responders.is_empty() {
        None
    } else {
        eprintln!("fitting the feature study ...");
        Some(crate::regress::regress(&config.regression)?)
    };
    eprintln!("computing metrics ...");
    let metrics = crate::metrics::run_metrics(
        &tables_dir(&config.out),
        &reports_dir(&config.out).join("metrics"),
    )?;
    let hub = config.out.join("hub");
    let publish = crate::publish::publish(&crate::publish::PublishConfig {
        include: vec!["features".into()],
        force: true,
        ..crate::publish::PublishConfig::new(tables_dir(&config.out), hub.clone())
    })?;
    eprintln!("hub-ready dataset folder -> {}", hub.display());
    Ok(RunSummary {
        ingest,
        generate,
        responses,
        regression,
        metrics,
        publish,
    })
}

impl GenerateSummary {
    /// One line per (dataset, attack), tab-separated, for stdout.
    pub fn write_table(&self, out: &mut impl Write) -> std::io::Result<()> {
        tsv_row(out, ["dataset", "attack", "problems", "variants"])?;
        for ((dataset, attack), (problems, rows)) in &self.rows {
            tsv_row(
                out,
                [
                    dataset.clone(),
                    attack.clone(),
                    problems.to_string(),
                    rows.to_string(),
                ],
            )?;
        }
        Ok(())
    }
}
