//! Metrics as SQL. Every metric is one portable SQL file under `sql/` (embedded in the
//! binary, or read from a folder), run by DataFusion over the Parquet tables of a `tables/`
//! folder; the same files run unchanged in DuckDB (`tests/python/duckdb_parity.py`).
//!
//! [`run_metrics`] runs them all and writes `<out>/<metric>.csv`, `<out>/<metric>.md`, SVG plots
//! under `<out>/plots/` and `<out>/report.md`. [`run_sql`] runs one user query for
//! `advmath sql`. The bootstrap intervals and the McNemar p-values are computed in Rust from
//! SQL-produced counts ([`stats`]).
//!
//! The metrics and what each does besides its query are one table, [`METRICS`]
//! (`registry.rs`). The tables are registered from the store's layouts (`store::TABLE_LAYOUTS`,
//! described in `docs/tables.md`), each only when its folder holds Parquet files (the optional
//! ones empty when absent), plus `model_order`, in memory, `(model, position)` from
//! `--model-order` (Table 4's prefix order; empty: by name).

mod engine;
mod guided;
pub mod headline;
mod html;
mod plots;
mod query;
mod registry;
mod report;
mod result;
mod sources;
pub mod stats;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use engine::{
    default_executor_memory, default_operator_memory, EngineLimits, QueryOutput, SqlEngine,
    TableState, TableStatus,
};
pub use query::{run_sql, run_sql_config, OutputFormat, QuerySource, SqlConfig, SqlOutput};
pub use registry::{Metric, METRICS};
use report::report_markdown;
pub use result::{Cell, ResultTable, MODEL_COLUMNS};
pub use sources::{
    embedded_metrics, metrics_from_dir, views_markdown, MetricSql, ATTACKS_VIEW, EMBEDDED_VIEWS,
    VIEWS_MARKER,
};
pub use stats::{
    arithmattack_published, bootstrap_interval, mcnemar_exact_p, Interval, Outcomes,
    BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED,
};

use crate::error::{Error, Result};
use crate::output::tsv_row;
use crate::store::commit::StagedFolder;

/// Options of [`run_metrics_with`] (the CLI's `advmath metrics`).
#[derive(Debug, Clone)]
pub struct MetricsConfig {
    /// The `tables/` folder.
    pub tables: PathBuf,
    /// Where the CSV, Markdown, plots and report go.
    pub out: PathBuf,
    /// Read the metric SQL files from this folder instead of the embedded ones.
    pub sql_dir: Option<PathBuf>,
    /// Bootstrap replicates per row of `bootstrap_ci`.
    pub replicates: usize,
    /// Bootstrap seed (each row mixes in its model, template, dataset and attack).
    pub seed: u64,
    /// Threads, memory and time each query may use.
    pub limits: EngineLimits,
    /// The order in which Table 4's prefix figure adds models (`model_order`); models not
    /// listed follow by name, and an empty list means every model by name.
    pub model_order: Vec<String>,
}

impl Default for MetricsConfig {
    /// The embedded metrics over the default tables into `out/reports/metrics` (where `run`
    /// writes them too), [`BOOTSTRAP_REPLICATES`]
    /// replicates seeded with [`BOOTSTRAP_SEED`], all cores, models by name.
    fn default() -> Self {
        MetricsConfig {
            tables: crate::store::default_tables(),
            out: crate::store::reports_dir(Path::new(crate::store::DEFAULT_OUT)).join("metrics"),
            sql_dir: None,
            replicates: BOOTSTRAP_REPLICATES,
            seed: BOOTSTRAP_SEED,
            limits: EngineLimits::default(),
            model_order: Vec::new(),
        }
    }
}

impl MetricsConfig {
    pub fn new(tables: impl Into<PathBuf>, out: impl Into<PathBuf>) -> Self {
        MetricsConfig {
            tables: tables.into(),
            out: out.into(),
            ..Default::default()
        }
    }
}

/// What one metric wrote.
#[derive(Debug, Clone)]
pub struct MetricOutput {
    pub name: String,
    pub title: String,
    pub rows: usize,
    pub csv: PathBuf,
    pub markdown: PathBuf,
    pub seconds: f64,
}

/// What [`run_metrics`] did.
#[derive(Debug, Clone)]
pub struct MetricsSummary {
    /// The registered tables.
    pub tables: Vec<String>,
    pub metrics: Vec<MetricOutput>,
    /// Metrics not run, each with the reason (a table they read is missing or empty).
    pub skipped: Vec<(String, String)>,
    pub report: PathBuf,
    /// The same report as one self-contained page, with the adversarial-example browser.
    pub report_html: PathBuf,
    pub plots: Vec<PathBuf>,
    /// Models marked simulated in every table.
    pub simulated_models: Vec<String>,
    /// The shared views computed once for every metric, and the seconds that took.
    pub shared_views: Vec<String>,
    pub shared_views_seconds: f64,
    pub seconds: f64,
    /// Model × dataset × attack: OA, AA, ASR and the noise accuracy ([`headline`]).
    pub headline: Vec<headline::HeadlineRow>,
}

impl MetricsSummary {
    /// One line per metric: name, rows, seconds, CSV path (tab-separated); a line for the shared
    /// views computed once (`shared_views`, how many, seconds, their names); then the reports.
    /// The stage's closing line: metrics read, skipped (a table they read is missing or
    /// empty), and the result rows written.
    pub fn tally(&self) -> crate::output::Tally {
        crate::output::Tally {
            stage: "metrics",
            unit: "metrics",
            read: self.metrics.len() + self.skipped.len(),
            skipped: self.skipped.len(),
            written: self.metrics.iter().map(|m| m.rows).sum(),
            ..Default::default()
        }
    }

    pub fn write_table(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        for m in &self.metrics {
            tsv_row(
                &mut *out,
                [
                    m.name.clone(),
                    m.rows.to_string(),
                    format!("{:.2}s", m.seconds),
                    m.csv.display().to_string(),
                ],
            )?;
        }
        for (name, reason) in &self.skipped {
            tsv_row(&mut *out, [name.as_str(), "skipped", reason.as_str()])?;
        }
        if !self.shared_views.is_empty() {
            tsv_row(
                &mut *out,
                [
                    "shared_views".to_string(),
                    self.shared_views.len().to_string(),
                    format!("{:.2}s", self.shared_views_seconds),
                    self.shared_views.join(","),
                ],
            )?;
        }
        tsv_row(
            &mut *out,
            ["report".to_string(), self.report.display().to_string()],
        )?;
        tsv_row(
            &mut *out,
            [
                "report_html".to_string(),
                self.report_html.display().to_string(),
            ],
        )
    }
}

/// Run every embedded metric over `tables` and write the outputs under `out`.
pub fn run_metrics(tables: &Path, out: &Path) -> Result<MetricsSummary> {
    run_metrics_with(&MetricsConfig::new(tables, out))
}

/// The shared views a metrics run computes once and keeps, in creation order: the runs per model
/// (a handful of rows, held so that the engine knows it is small and joins it whole to every
/// share of the responses), the per-problem outcomes (one pass over the responses), the two views that split them into originals and
/// attacks (held on their own so that the engine knows their sizes when it plans a join), the
/// models of each attack, and the paper's accuracy. `graded` (a row per response) and
/// `adversarial_examples` (one file reads it) stay views: holding them would cost more than
/// recomputing them saves time.
const SHARED_ONCE: &[&str] = &[
    "model_runs",
    "problem_outcomes",
    "original_outcomes",
    "attack_outcomes",
    "attack_models",
    "paper_accuracy",
];
/// Memory the views of [`SHARED_ONCE`] may hold together; past it the rest go to temporary
/// Parquet files.
const SHARED_ONCE_BUDGET: usize = 1 << 30;

/// Rows of a metric table shown in `report.md` (the `.md` and `.csv` files have them all).
const REPORT_ROWS: usize = 40;
/// At most this many plots per figure kind.
const MAX_PLOTS: usize = 12;

/// Run the metrics of `config` and write `<out>/<metric>.csv`, `<out>/<metric>.md`,
/// `<out>/plots/*.svg` and `<out>/report.md`.
///
/// The folder is replaced whole: everything is written in a staging folder beside it and switched
/// in at the end, so a reader (or a killed run) sees the previous reports or the new ones.
pub fn run_metrics_with(config: &MetricsConfig) -> Result<MetricsSummary> {
    refuse_foreign_folder(&config.out)?;
    let folder = StagedFolder::begin(&config.out, "metrics", &config.tables)?;
    let staged = MetricsConfig {
        out: folder.staging.clone(),
        ..config.clone()
    };
    let mut summary = write_metrics(&staged)?;
    for m in &mut summary.metrics {
        m.csv = folder.final_path(&m.csv);
        m.markdown = folder.final_path(&m.markdown);
    }
    summary.report = folder.final_path(&summary.report);
    summary.report_html = folder.final_path(&summary.report_html);
    for p in &mut summary.plots {
        *p = folder.final_path(p);
    }
    folder.commit()?;
    crate::progress::note!("{}", summary.tally().line());
    Ok(summary)
}

/// `metrics` replaces its output folder whole, so a folder holding anything but a metrics report
/// (a typo'd `--out .`) is refused rather than emptied.
fn refuse_foreign_folder(out: &Path) -> Result<()> {
    let Ok(mut entries) = std::fs::read_dir(out) else {
        if out.exists() {
            return Err(Error::setting(
                "out",
                format!(
                    "names a folder for the reports, and {} is a file",
                    out.display()
                ),
            ));
        }
        return Ok(());
    };
    if entries.next().is_none() || out.join("report.md").is_file() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "{} holds files but no report.md: `metrics` replaces its output folder whole, so give it a new or empty folder, or a previous metrics folder",
        out.display()
    )))
}

fn write_metrics(config: &MetricsConfig) -> Result<MetricsSummary> {
    let start = Instant::now();
    let metrics = match &config.sql_dir {
        Some(dir) => metrics_from_dir(dir)?,
        None => embedded_metrics(),
    };
    let engine = SqlEngine::open_limited(&config.tables, config.limits.clone())?;
    if engine.row_count("responses")? == 0 {
        return Err(Error::invalid(
            crate::store::responses::dir(engine.tables_dir()).display(),
            "table `responses` is empty: its Parquet files hold no row, so there is nothing to measure (run `advmath respond` first)",
        ));
    }
    engine.set_model_order(&config.model_order)?;
    // The per-problem outcomes and the paper's accuracy feed most metric files: computed once.
    let views_start = Instant::now();
    let shared_views = engine.materialise_views(SHARED_ONCE, SHARED_ONCE_BUDGET)?;
    let shared_views_seconds = views_start.elapsed().as_secs_f64();
    let simulated: BTreeSet<String> = engine.simulated_models()?;
    let simulated_set: HashSet<String> = simulated.iter().cloned().collect();
    std::fs::create_dir_all(&config.out).map_err(|e| Error::file(&config.out, e))?;

    let mut outputs = Vec::new();
    let mut results: Vec<(MetricSql, ResultTable)> = Vec::new();
    let mut skipped = Vec::new();
    let progress = crate::progress::Progress::new("metrics", "metrics", metrics.len() as u64);
    for metric in metrics {
        let t0 = Instant::now();
        // A metric over a table this run lacks (Appendix G needs `generation_stats`) is skipped
        // and named in the report, not an error: responses alone still give every other table.
        let unavailable = engine
            .unavailable_tables(&metric.sql)
            .map_err(|e| match e {
                Error::DataFusion(e) => Error::invalid(
                    format!("metric {} ({})", metric.name, metric.origin),
                    e.to_string(),
                ),
                other => other,
            })?;
        if !unavailable.is_empty() {
            let reason = format!(
                "needs table{} {} (missing or empty)",
                if unavailable.len() > 1 { "s" } else { "" },
                unavailable
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            progress.println(&format!("metric {}: skipped, {reason}", metric.name));
            skipped.push((metric.name.clone(), reason));
            progress.inc(1);
            continue;
        }
        let mut table = engine.query_table(&metric.sql).map_err(|e| match e {
            Error::DataFusion(e) => Error::invalid(
                format!("metric {} ({})", metric.name, metric.origin),
                e.to_string(),
            ),
            bound @ (Error::QueryMemory { .. } | Error::QueryTimeout { .. }) => {
                Error::MetricQuery {
                    metric: metric.name.clone(),
                    origin: metric.origin.clone(),
                    source: Box::new(bound),
                }
            }
            other => other,
        })?;
        if let Some(add) = registry::hooks_of(&metric.name).statistics {
            add(&mut table, config)?;
        }
        table.mark_simulated(&simulated_set);
        let csv = config.out.join(format!("{}.csv", metric.name));
        let markdown = config.out.join(format!("{}.md", metric.name));
        crate::store::write_text(&csv, &table.to_csv())?;
        let md = format!(
            "# {}\n\n{}\n\n{}",
            metric.title(),
            metric.description(),
            table.to_markdown(&simulated_set, None)
        );
        crate::store::write_text(&markdown, &md)?;
        outputs.push(MetricOutput {
            name: metric.name.clone(),
            title: metric.title(),
            rows: table.len(),
            csv,
            markdown,
            seconds: t0.elapsed().as_secs_f64(),
        });
        results.push((metric, table));
        progress.inc(1);
    }

    let additions = registry::additions(&results, &config.out.join("plots"), &simulated_set)?;
    progress.finish();
    let report = config.out.join("report.md");
    let text = report_markdown(
        config,
        &engine,
        &results,
        &simulated,
        &simulated_set,
        &additions,
        &skipped,
    );
    crate::store::write_text(&report, &text)?;
    let report_html = html::write_report_html(
        &config.out,
        &engine,
        &results,
        &simulated_set,
        &additions.plots,
        &skipped,
    )?;
    Ok(MetricsSummary {
        tables: engine
            .registered()
            .into_iter()
            .map(str::to_string)
            .collect(),
        metrics: outputs,
        skipped,
        report,
        report_html,
        plots: additions
            .plots
            .into_values()
            .flatten()
            .map(|(_, p)| p)
            .collect(),
        simulated_models: simulated.into_iter().collect(),
        shared_views,
        shared_views_seconds,
        seconds: start.elapsed().as_secs_f64(),
        headline: headline::headline(&results),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sql_file_is_embedded_and_documented() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        let from_dir = metrics_from_dir(&dir).unwrap();
        let embedded = embedded_metrics();
        assert_eq!(
            from_dir.iter().map(|m| &m.name).collect::<Vec<_>>(),
            embedded.iter().map(|m| &m.name).collect::<Vec<_>>(),
            "sql/ and METRICS list the same metrics in the same order"
        );
        for m in &embedded {
            let title = m.title();
            assert!(
                title.contains("Table")
                    || title.contains("Figure")
                    || title.contains("Appendix")
                    || title.contains("an advmath extension, not a paper's"),
                "{}: the opening comment names the paper table, figure or appendix, or says it is \
                 an extension: {title}",
                m.name
            );
            assert!(m.description().len() > 80, "{} is described", m.name);
            let code: String = m
                .sql
                .lines()
                .filter(|l| !l.trim_start().starts_with("--"))
                .collect();
            assert!(!code.contains("::"), "{}: no engine-specific casts", m.name);
        }
    }

    #[test]
    fn output_format_names() {
        assert_eq!(
            OutputFormat::from_name("csv", None).unwrap(),
            OutputFormat::Csv
        );
        assert!(OutputFormat::from_name("parquet", None).is_err());
        assert!(OutputFormat::from_name("xml", None).is_err());
    }
}
