//! `advmath run`: the stages chained, nothing else.
//!
//! [`run`] is the chain `ingest`, `generate`, `respond` per model, `features`, `regress`,
//! `metrics`, `publish`, each on its stage's defaults, which live in the library configs alone
//! ([`GenerateConfig::default`], [`crate::respond::RespondConfig::default`],
//! [`crate::regress::RegressConfig::default`], [`crate::metrics::MetricsConfig::default`],
//! [`crate::publish::PublishConfig::new`]) and are read by each command's clap arguments too;
//! `tests/cli/defaults.rs` checks that both ways write the same bytes.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::generate::{generate, GenerateConfig, GenerateSummary};
use crate::ingest::{ingest, IngestConfig, IngestOptions, IngestSummary};
use crate::store::{reports_dir, tables_dir};

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
    crate::progress::note!("generating variants ...");
    let generate = generate(&config.generation)?;
    let mut responses = Vec::new();
    for r in &config.responders {
        crate::progress::note!("asking {} ...", r.model);
        // A fresh run answers afresh: stale responses to replaced variants would not join.
        let dir = crate::store::responses::model_dir(&r.tables, &r.model);
        if matches!(r.backend, crate::respond::Backend::Offline) && dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| Error::file(&dir, e))?;
        }
        let summary = crate::respond::respond(r)?;
        if let Some(note) = summary.unanswerable_note(&r.model) {
            crate::progress::note!("{note}");
        }
        responses.push((r.model.clone(), summary));
    }
    crate::progress::note!("computing features ...");
    for set in crate::feature_sets::FeatureSet::ALL {
        crate::features::build_feature_set_table(&tables_dir(&config.out), set)?;
    }
    // The feature study fits the variants of its attacks (Table 8: M3); a run that makes none
    // has nothing to fit, which is no failure of the run.
    let studied = config
        .generation
        .attacks
        .iter()
        .flat_map(|spec| spec.attacks(&config.generation.noise_levels))
        .any(|a| config.regression.attacks.contains(&a.to_string()));
    let regression = if config.responders.is_empty() {
        None
    } else if !studied {
        crate::progress::note!(
            "no feature study: it fits the variants of {}, and this run makes none",
            config.regression.attacks.join(", ")
        );
        None
    } else {
        crate::progress::note!("fitting the feature study ...");
        Some(crate::regress::regress(&config.regression)?)
    };
    crate::progress::note!("computing metrics ...");
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
    crate::progress::note!("hub-ready dataset folder -> {}", hub.display());
    Ok(RunSummary {
        ingest,
        generate,
        responses,
        regression,
        metrics,
        publish,
    })
}
