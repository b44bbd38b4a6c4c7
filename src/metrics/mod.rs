//! Metrics as SQL (issue 5). Every metric is one portable SQL file under `sql/` (embedded in the
//! binary, or read from a folder), run by DataFusion over the Parquet tables of a `tables/`
//! folder; the same files run unchanged in DuckDB (`tests/python/duckdb_parity.py`).
//!
//! [`run_metrics`] runs them all and writes `<out>/<metric>.csv`, `<out>/<metric>.md`, SVG plots
//! under `<out>/plots/` and `<out>/report.md`. [`run_sql`] runs one user query for
//! `advmath sql`. The bootstrap intervals and the McNemar p-values are computed in Rust from
//! SQL-produced counts ([`stats`]).
//!
//! Tables (each registered only when its folder holds Parquet files):
//!
//! | table | layout under `tables/` |
//! |---|---|
//! | problems | `problems/<dataset>__<split>.parquet` |
//! | variants | `variants/dataset=<d>/attack=<a>/part-N.parquet` (hive) |
//! | generation_stats | `generation_stats/dataset=<d>/part-0.parquet` (hive) |
//! | responses | `responses/<model-folder>/part-*.parquet` (every column in the files; folders recursed) |
//! | features | `features/dataset=<d>/attack=<a>/part-0.parquet` (hive) |
//! | coefficients | `coefficients/part-0.parquet` |

mod plots;
mod result;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::RecordBatch;
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::ListingOptions;
use datafusion::error::DataFusionError;
use datafusion::execution::context::SQLOptions;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use result::{Cell, ResultTable};
pub use stats::{
    arithmattack_published, bootstrap_interval, mcnemar_exact_p, Interval, BOOTSTRAP_REPLICATES,
    BOOTSTRAP_SEED,
};

use crate::error::{Error, Result};

/// The metric SQL files, in report order, embedded so that the binary works anywhere.
pub const EMBEDDED_SQL: &[(&str, &str)] = &[
    ("xie_asr", include_str!("../../sql/xie_asr.sql")),
    ("bootstrap_ci", include_str!("../../sql/bootstrap_ci.sql")),
    ("mcnemar", include_str!("../../sql/mcnemar.sql")),
    (
        "xie_incorrect_share",
        include_str!("../../sql/xie_incorrect_share.sql"),
    ),
    (
        "xie_incorrect_share_hist",
        include_str!("../../sql/xie_incorrect_share_hist.sql"),
    ),
    ("xie_universal", include_str!("../../sql/xie_universal.sql")),
    ("xie_transfer", include_str!("../../sql/xie_transfer.sql")),
    ("xie_efficient", include_str!("../../sql/xie_efficient.sql")),
    (
        "xie_attack_curve",
        include_str!("../../sql/xie_attack_curve.sql"),
    ),
    (
        "arithmattack_accuracy",
        include_str!("../../sql/arithmattack_accuracy.sql"),
    ),
    (
        "arithmattack_asr",
        include_str!("../../sql/arithmattack_asr.sql"),
    ),
];

/// One metric: a name (the file stem) and its SQL text.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSql {
    pub name: String,
    pub sql: String,
    /// Where it came from: `embedded` or the file path.
    pub origin: String,
}

impl MetricSql {
    /// The first line of the opening comment: what the metric is and which paper table or
    /// figure it reproduces.
    pub fn title(&self) -> String {
        self.comment_lines()
            .into_iter()
            .find(|l| !l.is_empty())
            .unwrap_or_else(|| self.name.clone())
    }

    /// The rest of the opening comment, as Markdown paragraphs.
    pub fn description(&self) -> String {
        let lines = self.comment_lines();
        let body: Vec<String> = lines
            .into_iter()
            .skip_while(|l| l.is_empty())
            .skip(1)
            .collect();
        let mut paragraphs: Vec<String> = Vec::new();
        let mut current = String::new();
        for line in body {
            if line.is_empty() {
                if !current.is_empty() {
                    paragraphs.push(std::mem::take(&mut current));
                }
            } else {
                if !current.is_empty() {
                    current.push(' ');
                }
                current.push_str(&line);
            }
        }
        if !current.is_empty() {
            paragraphs.push(current);
        }
        paragraphs.join("\n\n")
    }

    fn comment_lines(&self) -> Vec<String> {
        self.sql
            .lines()
            .map(str::trim)
            .take_while(|l| l.starts_with("--"))
            .map(|l| l.trim_start_matches('-').trim().to_string())
            .collect()
    }
}

/// The embedded metric files, in report order.
pub fn embedded_metrics() -> Vec<MetricSql> {
    EMBEDDED_SQL
        .iter()
        .map(|(name, sql)| MetricSql {
            name: name.to_string(),
            sql: sql.to_string(),
            origin: format!("embedded sql/{name}.sql"),
        })
        .collect()
}

/// Every `*.sql` file of a folder: the known metrics in report order first, then the others by
/// name.
pub fn metrics_from_dir(dir: &Path) -> Result<Vec<MetricSql>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::file(dir, e))?;
    let mut found = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| Error::file(dir, e))?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("sql") || !path.is_file() {
            continue;
        }
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let sql = std::fs::read_to_string(&path).map_err(|e| Error::file(&path, e))?;
        found.insert(
            name.clone(),
            MetricSql {
                name,
                sql,
                origin: path.display().to_string(),
            },
        );
    }
    if found.is_empty() {
        return Err(Error::invalid(dir.display(), "no .sql file in this folder"));
    }
    let mut out = Vec::new();
    for (name, _) in EMBEDDED_SQL {
        if let Some(m) = found.remove(*name) {
            out.push(m);
        }
    }
    out.extend(found.into_values());
    Ok(out)
}

/// How a table is laid out under `tables/`.
#[derive(Debug, Clone, Copy)]
pub struct TableLayout {
    pub name: &'static str,
    /// Hive partition columns, outermost first (they are in the path, not in the files).
    pub partitions: &'static [&'static str],
    /// The expected file layout, for messages.
    pub pattern: &'static str,
}

/// Every table advmath knows.
pub const TABLE_LAYOUTS: &[TableLayout] = &[
    TableLayout {
        name: "problems",
        partitions: &[],
        pattern: "problems/<dataset>__<split>.parquet",
    },
    TableLayout {
        name: "variants",
        partitions: &["dataset", "attack"],
        pattern: "variants/dataset=<d>/attack=<a>/part-N.parquet",
    },
    TableLayout {
        name: "generation_stats",
        partitions: &["dataset"],
        pattern: "generation_stats/dataset=<d>/part-0.parquet",
    },
    TableLayout {
        name: "responses",
        partitions: &[],
        pattern: "responses/<model-folder>/part-*.parquet",
    },
    TableLayout {
        name: "features",
        partitions: &["dataset", "attack"],
        pattern: "features/dataset=<d>/attack=<a>/part-0.parquet",
    },
    TableLayout {
        name: "coefficients",
        partitions: &[],
        pattern: "coefficients/part-0.parquet",
    },
];

/// Whether a known table could be registered.
#[derive(Debug, Clone, PartialEq)]
pub enum TableState {
    /// Registered, with this many Parquet files.
    Registered { files: usize },
    /// No folder.
    Missing,
    /// A folder without any `.parquet` file.
    Empty,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableStatus {
    pub layout: TableLayout,
    pub path: PathBuf,
    pub state: TableState,
}

impl PartialEq for TableLayout {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// A query's result: its schema (also when there is no row) and its batches.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl QueryOutput {
    pub fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    pub fn to_table(&self) -> Result<ResultTable> {
        ResultTable::from_batches(&self.schema, &self.batches)
    }
}

/// A DataFusion session over one `tables/` folder, with its own tokio runtime.
pub struct SqlEngine {
    runtime: tokio::runtime::Runtime,
    ctx: SessionContext,
    tables_dir: PathBuf,
    tables: Vec<TableStatus>,
}

fn count_parquet(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        if path.is_dir() {
            n += count_parquet(&path);
        } else if name.ends_with(".parquet") {
            n += 1;
        }
    }
    n
}

impl SqlEngine {
    /// Open a `tables/` folder with one worker thread per core.
    pub fn open(tables: &Path) -> Result<Self> {
        Self::open_with_threads(tables, None)
    }

    /// Open a `tables/` folder; `threads` bounds DataFusion's parallelism (default: the cores).
    pub fn open_with_threads(tables: &Path, threads: Option<usize>) -> Result<Self> {
        if !tables.is_dir() {
            return Err(Error::invalid(
                tables.display(),
                "no such tables folder (expected the `tables/` folder of an advmath run, e.g. out/tables)",
            ));
        }
        let tables_dir = tables.canonicalize().map_err(|e| Error::file(tables, e))?;
        let threads = threads
            .filter(|&t| t > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("advmath-sql")
            .enable_all()
            .build()
            .map_err(Error::Io)?;
        let mut config = SessionConfig::new()
            .with_target_partitions(threads)
            .with_information_schema(false);
        // `responses/<model-folder>/part-*.parquet` is not hive-partitioned: read sub-folders.
        config
            .options_mut()
            .execution
            .listing_table_ignore_subdirectory = false;
        let ctx = SessionContext::new_with_config(config);
        let mut statuses = Vec::new();
        for layout in TABLE_LAYOUTS {
            let path = tables_dir.join(layout.name);
            let state = if !path.is_dir() {
                TableState::Missing
            } else {
                match count_parquet(&path) {
                    0 => TableState::Empty,
                    files => {
                        let options = ListingOptions::new(Arc::new(ParquetFormat::default()))
                            .with_file_extension(".parquet")
                            .with_table_partition_cols(
                                layout
                                    .partitions
                                    .iter()
                                    .map(|p| (p.to_string(), DataType::Utf8))
                                    .collect(),
                            );
                        let url = format!("{}/", path.display());
                        runtime
                            .block_on(ctx.register_listing_table(
                                layout.name,
                                &url,
                                options,
                                None,
                                None,
                            ))
                            .map_err(|e| {
                                Error::invalid(
                                    path.display(),
                                    format!("cannot read table `{}`: {e}", layout.name),
                                )
                            })?;
                        TableState::Registered { files }
                    }
                }
            };
            statuses.push(TableStatus {
                layout: *layout,
                path,
                state,
            });
        }
        Ok(SqlEngine {
            runtime,
            ctx,
            tables_dir,
            tables: statuses,
        })
    }

    pub fn tables_dir(&self) -> &Path {
        &self.tables_dir
    }

    /// Every known table and whether it was registered.
    pub fn tables(&self) -> &[TableStatus] {
        &self.tables
    }

    /// The names of the registered tables.
    pub fn registered(&self) -> Vec<&'static str> {
        self.tables
            .iter()
            .filter(|t| matches!(t.state, TableState::Registered { .. }))
            .map(|t| t.layout.name)
            .collect()
    }

    /// A clear error when `name` is a known table that is missing or empty.
    fn require(&self, name: &str) -> Result<()> {
        let Some(t) = self.tables.iter().find(|t| t.layout.name == name) else {
            return Ok(());
        };
        let available = {
            let r = self.registered();
            if r.is_empty() {
                "none".to_string()
            } else {
                r.join(", ")
            }
        };
        match t.state {
            TableState::Registered { .. } => Ok(()),
            TableState::Missing => Err(Error::invalid(
                t.path.display(),
                format!(
                    "table `{name}` is missing: expected {} under {}; available tables: {available}",
                    t.layout.pattern,
                    self.tables_dir.display()
                ),
            )),
            TableState::Empty => Err(Error::invalid(
                t.path.display(),
                format!(
                    "table `{name}` is empty: no .parquet file under this folder (expected {}); available tables: {available}",
                    t.layout.pattern
                ),
            )),
        }
    }

    /// Run one read-only SQL statement (no DDL, DML or `SET`) and collect its result.
    pub fn query(&self, sql: &str) -> Result<QueryOutput> {
        self.runtime.block_on(async {
            let state = self.ctx.state();
            let dialect = &state.config().options().sql_parser.dialect;
            let statement = state.sql_to_statement(sql, dialect)?;
            for reference in state.resolve_table_references(&statement)? {
                let qualified = matches!(reference.schema(), Some(s) if s != "public");
                if !qualified {
                    self.require(reference.table())?;
                }
            }
            let plan = state.statement_to_plan(statement).await?;
            SQLOptions::new()
                .with_allow_ddl(false)
                .with_allow_dml(false)
                .with_allow_statements(false)
                .verify_plan(&plan)?;
            let df = self.ctx.execute_logical_plan(plan).await?;
            let schema: SchemaRef = Arc::clone(df.schema().inner());
            let batches = df.collect().await?;
            Ok::<_, Error>(QueryOutput { schema, batches })
        })
    }

    /// Run a query and copy its result into a [`ResultTable`].
    pub fn query_table(&self, sql: &str) -> Result<ResultTable> {
        self.query(sql)?.to_table()
    }

    /// Rows of a registered table (from the Parquet footers).
    pub fn row_count(&self, table: &str) -> Result<u64> {
        self.require(table)?;
        let t = self.query_table(&format!("SELECT COUNT(*) AS n FROM {table}"))?;
        Ok(t.get(0, "n").and_then(Cell::as_i64).unwrap_or(0) as u64)
    }

    /// The models of `responses` that are simulated: `simulated` = true on any row, or a name
    /// starting with `sim-` or `oracle`.
    pub fn simulated_models(&self) -> Result<BTreeSet<String>> {
        let t = self.query_table(
            "SELECT model, MAX(CASE WHEN simulated THEN 1 ELSE 0 END) AS flag \
             FROM responses GROUP BY model",
        )?;
        Ok(t.rows
            .iter()
            .filter_map(|r| {
                let model = r[0].as_str()?;
                let flagged = r[1].as_i64() == Some(1) || is_simulated_name(model);
                flagged.then(|| model.to_string())
            })
            .collect())
    }
}

/// A model name advmath reserves for simulated models.
pub fn is_simulated_name(model: &str) -> bool {
    model.starts_with("sim-") || model.starts_with("oracle")
}

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
    /// Worker threads (default: the cores).
    pub threads: Option<usize>,
}

impl MetricsConfig {
    pub fn new(tables: impl Into<PathBuf>, out: impl Into<PathBuf>) -> Self {
        MetricsConfig {
            tables: tables.into(),
            out: out.into(),
            sql_dir: None,
            replicates: BOOTSTRAP_REPLICATES,
            seed: BOOTSTRAP_SEED,
            threads: None,
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
    pub report: PathBuf,
    pub plots: Vec<PathBuf>,
    /// Models marked simulated in every table.
    pub simulated_models: Vec<String>,
    pub seconds: f64,
}

impl fmt::Display for MetricsSummary {
    /// One line per metric: name, rows, seconds, CSV path (tab-separated), then the report.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.metrics {
            writeln!(
                f,
                "{}\t{}\t{:.2}s\t{}",
                m.name,
                m.rows,
                m.seconds,
                m.csv.display()
            )?;
        }
        write!(f, "report\t{}", self.report.display())
    }
}

/// Run every embedded metric over `tables` and write the outputs under `out`.
pub fn run_metrics(tables: &Path, out: &Path) -> Result<MetricsSummary> {
    run_metrics_with(&MetricsConfig::new(tables, out))
}

/// Rows of a metric table shown in `report.md` (the `.md` and `.csv` files have them all).
const REPORT_ROWS: usize = 40;
/// At most this many plots per figure kind.
const MAX_PLOTS: usize = 12;

/// Run the metrics of `config` and write `<out>/<metric>.csv`, `<out>/<metric>.md`,
/// `<out>/plots/*.svg` and `<out>/report.md`.
pub fn run_metrics_with(config: &MetricsConfig) -> Result<MetricsSummary> {
    let start = Instant::now();
    let metrics = match &config.sql_dir {
        Some(dir) => metrics_from_dir(dir)?,
        None => embedded_metrics(),
    };
    let engine = SqlEngine::open_with_threads(&config.tables, config.threads)?;
    if engine.row_count("responses")? == 0 {
        return Err(Error::invalid(
            engine.tables_dir().join("responses").display(),
            "table `responses` is empty: its Parquet files hold no row, so there is nothing to measure (run `advmath respond` first)",
        ));
    }
    let simulated: BTreeSet<String> = engine.simulated_models()?;
    let simulated_set: HashSet<String> = simulated.iter().cloned().collect();
    std::fs::create_dir_all(&config.out).map_err(|e| Error::file(&config.out, e))?;

    let mut outputs = Vec::new();
    let mut results: Vec<(MetricSql, ResultTable)> = Vec::new();
    for metric in metrics {
        let t0 = Instant::now();
        let mut table = engine.query_table(&metric.sql).map_err(|e| match e {
            Error::DataFusion(e) => Error::invalid(
                format!("metric {} ({})", metric.name, metric.origin),
                e.to_string(),
            ),
            other => other,
        })?;
        match metric.name.as_str() {
            "bootstrap_ci" => {
                stats::add_bootstrap_columns(&mut table, config.replicates, config.seed)?
            }
            "mcnemar" => stats::add_mcnemar_column(&mut table)?,
            _ => {}
        }
        table.mark_simulated(&simulated_set);
        let csv = config.out.join(format!("{}.csv", metric.name));
        let markdown = config.out.join(format!("{}.md", metric.name));
        crate::table::write_text(&csv, &table.to_csv())?;
        let md = format!(
            "# {}\n\n{}\n\n{}",
            metric.title(),
            metric.description(),
            table.to_markdown(&simulated_set, None)
        );
        crate::table::write_text(&markdown, &md)?;
        outputs.push(MetricOutput {
            name: metric.name.clone(),
            title: metric.title(),
            rows: table.len(),
            csv,
            markdown,
            seconds: t0.elapsed().as_secs_f64(),
        });
        results.push((metric, table));
    }

    let plots_dir = config.out.join("plots");
    let mut plots_by_metric: BTreeMap<String, Vec<(String, PathBuf)>> = BTreeMap::new();
    for (metric, table) in &results {
        let made = match metric.name.as_str() {
            "xie_attack_curve" => attack_curve_plots(table, &plots_dir, &simulated_set)?,
            "xie_transfer" => transfer_plots(table, &plots_dir, &simulated_set)?,
            "arithmattack_accuracy" => noise_plots(table, &plots_dir, &simulated_set)?,
            _ => Vec::new(),
        };
        if !made.is_empty() {
            plots_by_metric.insert(metric.name.clone(), made);
        }
    }
    let report = config.out.join("report.md");
    let text = report_markdown(
        config,
        &engine,
        &results,
        &simulated,
        &simulated_set,
        &plots_by_metric,
    );
    crate::table::write_text(&report, &text)?;
    Ok(MetricsSummary {
        tables: engine
            .registered()
            .into_iter()
            .map(str::to_string)
            .collect(),
        metrics: outputs,
        report,
        plots: plots_by_metric
            .into_values()
            .flatten()
            .map(|(_, p)| p)
            .collect(),
        simulated_models: simulated.into_iter().collect(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn text_of(table: &ResultTable, row: usize, column: &str) -> String {
    table
        .get(row, column)
        .and_then(Cell::as_str)
        .unwrap_or_default()
        .to_string()
}

fn float_of(table: &ResultTable, row: usize, column: &str) -> Option<f64> {
    table.get(row, column).and_then(Cell::as_f64)
}

fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn display_model(model: &str, simulated: &HashSet<String>) -> String {
    if simulated.contains(model) {
        format!("{model} (simulated)")
    } else {
        model.to_string()
    }
}

/// Rows grouped by the values of `keys`, in first-seen order.
fn groups(table: &ResultTable, keys: &[&str]) -> Vec<(Vec<String>, Vec<usize>)> {
    let mut order: Vec<Vec<String>> = Vec::new();
    let mut rows: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for r in 0..table.len() {
        let key: Vec<String> = keys.iter().map(|k| text_of(table, r, k)).collect();
        let entry = rows.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(r);
    }
    order
        .into_iter()
        .map(|k| {
            let v = rows.remove(&k).unwrap_or_default();
            (k, v)
        })
        .collect()
}

/// Figure 7: attack accuracy against k, one chart per template x dataset x attack.
fn attack_curve_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(table, &["template", "dataset", "attack"]) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let mut by_model: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let mut max_k: f64 = 1.0;
        for &r in &rows {
            let (Some(k), Some(aa)) = (float_of(table, r, "k"), float_of(table, r, "aa")) else {
                continue;
            };
            max_k = max_k.max(k);
            by_model
                .entry(display_model(&text_of(table, r, "model"), simulated))
                .or_default()
                .push((k, aa));
        }
        if max_k < 2.0 {
            continue; // one variant per problem: no curve
        }
        let series: Vec<plots::Series> = by_model
            .into_iter()
            .map(|(name, points)| plots::Series { name, points })
            .collect();
        let title = format!(
            "Attack accuracy vs attacks per problem: {} / {} ({})",
            key[1], key[2], key[0]
        );
        let path = dir.join(format!(
            "xie_attack_curve__{}__{}__{}.svg",
            file_part(&key[0]),
            file_part(&key[1]),
            file_part(&key[2])
        ));
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        plots::line_chart(
            &path,
            &title,
            "k (first k variants of each problem)",
            "attack accuracy",
            (1.0, max_k),
            &series,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// Figure 3: transfer-rate heatmap (rows: source, columns: target), one per group.
fn transfer_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(table, &["template", "dataset", "attack"]) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        for &r in &rows {
            names.insert(text_of(table, r, "source"));
            names.insert(text_of(table, r, "target"));
        }
        let names: Vec<String> = names.into_iter().collect();
        if names.len() < 2 {
            continue; // one model: nothing transfers
        }
        let index = |m: &str| names.iter().position(|n| n == m);
        let mut values = vec![vec![None; names.len()]; names.len()];
        for &r in &rows {
            if let (Some(s), Some(t)) = (
                index(&text_of(table, r, "source")),
                index(&text_of(table, r, "target")),
            ) {
                values[s][t] = float_of(table, r, "transfer_rate");
            }
        }
        let labels: Vec<String> = names
            .iter()
            .map(|n| {
                if simulated.contains(n) {
                    format!("{n}*")
                } else {
                    n.clone()
                }
            })
            .collect();
        let marked = if names.iter().any(|n| simulated.contains(n)) {
            "; * simulated"
        } else {
            ""
        };
        let title = format!(
            "Transferability: {} / {} ({}{marked})",
            key[1], key[2], key[0]
        );
        let path = dir.join(format!(
            "xie_transfer__{}__{}__{}.svg",
            file_part(&key[0]),
            file_part(&key[1]),
            file_part(&key[2])
        ));
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        plots::heatmap(
            &path,
            &title,
            "source (its adversarial examples)",
            "target (also fooled)",
            &labels,
            &values,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// ArithmAttack Figure 2: accuracy against the noise level, one chart per template x dataset.
fn noise_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(table, &["template", "dataset"]) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let mut by_model: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let mut max_level: f64 = 0.0;
        for &r in &rows {
            let (Some(level), Some(acc)) = (
                float_of(table, r, "noise_level"),
                float_of(table, r, "accuracy"),
            ) else {
                continue;
            };
            max_level = max_level.max(level);
            by_model
                .entry(display_model(&text_of(table, r, "model"), simulated))
                .or_default()
                .push((level, acc));
        }
        if max_level <= 0.0 {
            continue; // clean questions only: no noise curve
        }
        let series: Vec<plots::Series> = by_model
            .into_iter()
            .map(|(name, mut points)| {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                plots::Series { name, points }
            })
            .collect();
        let title = format!("Accuracy vs punctuation noise: {} ({})", key[1], key[0]);
        let path = dir.join(format!(
            "arithmattack_accuracy__{}__{}.svg",
            file_part(&key[0]),
            file_part(&key[1])
        ));
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        plots::line_chart(
            &path,
            &title,
            "noise level (% of words with a punctuation mark)",
            "accuracy",
            (0.0, max_level.max(10.0)),
            &series,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// The ArithmAttack paper's figures next to advmath's for the published models present.
fn arithmattack_side_by_side(
    results: &[(MetricSql, ResultTable)],
    simulated: &HashSet<String>,
) -> Option<String> {
    let accuracy = &results
        .iter()
        .find(|(m, _)| m.name == "arithmattack_accuracy")?
        .1;
    let asr = results
        .iter()
        .find(|(m, _)| m.name == "arithmattack_asr")
        .map(|(_, t)| t);
    // (dataset, published model) -> [(advmath model, template)]
    let mut lines = Vec::new();
    for (dataset, published, paper, paper_asr) in arithmattack_published() {
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        for r in 0..accuracy.len() {
            let model = text_of(accuracy, r, "model");
            if text_of(accuracy, r, "dataset").eq_ignore_ascii_case(dataset)
                && stats::matches_published_model(&model, published)
            {
                seen.insert((model, text_of(accuracy, r, "template")));
            }
        }
        for (model, template) in seen {
            let level = |l: f64| -> Option<f64> {
                (0..accuracy.len()).find_map(|r| {
                    (text_of(accuracy, r, "model") == model
                        && text_of(accuracy, r, "template") == template
                        && text_of(accuracy, r, "dataset").eq_ignore_ascii_case(dataset)
                        && float_of(accuracy, r, "noise_level") == Some(l))
                    .then(|| float_of(accuracy, r, "accuracy"))
                    .flatten()
                })
            };
            let ours: Vec<Option<f64>> = [0.0, 10.0, 30.0, 50.0]
                .iter()
                .map(|&l| level(l).map(|v| v * 100.0))
                .collect();
            let our_asr = asr.and_then(|t| {
                (0..t.len()).find_map(|r| {
                    (text_of(t, r, "model") == model
                        && text_of(t, r, "template") == template
                        && text_of(t, r, "dataset").eq_ignore_ascii_case(dataset))
                    .then(|| float_of(t, r, "asr_mean"))
                    .flatten()
                    .map(|v| v * 100.0)
                })
            });
            let fmt = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_default();
            let diff = |ours: Option<f64>, paper: f64| {
                ours.map(|v| format!("{:+.2}", v - paper))
                    .unwrap_or_default()
            };
            let name = display_model(&model, simulated);
            lines.push(format!(
                "| {dataset} | {published} | paper | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                paper[0], paper[1], paper[2], paper[3], paper_asr
            ));
            lines.push(format!(
                "| {dataset} | {name} ({template}) | advmath | {} | {} | {} | {} | {} |",
                fmt(ours[0]),
                fmt(ours[1]),
                fmt(ours[2]),
                fmt(ours[3]),
                fmt(our_asr)
            ));
            lines.push(format!(
                "| {dataset} | | advmath - paper | {} | {} | {} | {} | {} |",
                diff(ours[0], paper[0]),
                diff(ours[1], paper[1]),
                diff(ours[2], paper[2]),
                diff(ours[3], paper[3]),
                diff(our_asr, *paper_asr)
            ));
        }
    }
    if lines.is_empty() {
        return None;
    }
    let mut out = String::from(
        "### ArithmAttack: paper and advmath side by side\n\n\
         Accuracy (%) on clean questions and at 10 / 30 / 50 % punctuation noise, and ASR (%), \
         as published (Abedin et al., Tables 1 and 3; `advmath::metrics::arithmattack_published`) \
         and as measured here.\n\n\
         | dataset | model | source | clean | noise 10 | noise 30 | noise 50 | ASR |\n\
         |---|---|---|---:|---:|---:|---:|---:|\n",
    );
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    Some(out)
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn report_markdown(
    config: &MetricsConfig,
    engine: &SqlEngine,
    results: &[(MetricSql, ResultTable)],
    simulated: &BTreeSet<String>,
    simulated_set: &HashSet<String>,
    plots: &BTreeMap<String, Vec<(String, PathBuf)>>,
) -> String {
    let mut out = String::from("# advmath metrics report\n\n");
    out.push_str(&format!(
        "Tables: `{}` (registered: {}).\n\n",
        engine.tables_dir().display(),
        engine.registered().join(", ")
    ));
    for t in engine.tables() {
        match t.state {
            TableState::Missing => out.push_str(&format!(
                "* table `{}` is missing (expected `{}`)\n",
                t.layout.name, t.layout.pattern
            )),
            TableState::Empty => out.push_str(&format!(
                "* table `{}` is empty (no .parquet file)\n",
                t.layout.name
            )),
            TableState::Registered { .. } => {}
        }
    }
    if simulated.is_empty() {
        out.push_str("\nNo simulated model.\n\n");
    } else {
        out.push_str(&format!(
            "\nSimulated models (never a real LLM; `simulated` = true, or a name starting with `sim-` or `oracle`), marked *(simulated)* in every table: {}.\n\n",
            simulated.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    out.push_str(
        "Shares are fractions in [0, 1]. An empty cell is undefined (e.g. an ASR for a model that solves no original). \
         Each metric is one SQL file (`sql/<metric>.sql`), portable between DataFusion and DuckDB.\n\n## Contents\n\n",
    );
    for (m, t) in results {
        out.push_str(&format!(
            "* [{}](#{}) — {} rows\n",
            m.title(),
            m.name,
            t.len()
        ));
    }
    for (m, t) in results {
        out.push_str(&format!(
            "\n<a id=\"{}\"></a>\n## {}\n\n`{}` — {}\n\n",
            m.name,
            m.title(),
            m.name,
            m.description()
        ));
        out.push_str(&t.to_markdown(simulated_set, Some(REPORT_ROWS)));
        out.push_str(&format!(
            "\nFull table: [{0}.md]({0}.md), [{0}.csv]({0}.csv).\n",
            m.name
        ));
        if let Some(list) = plots.get(&m.name) {
            for (title, path) in list {
                out.push_str(&format!("\n![{title}]({})\n", relative(path, &config.out)));
            }
        }
        if m.name == "arithmattack_asr" {
            if let Some(side) = arithmattack_side_by_side(results, simulated_set) {
                out.push('\n');
                out.push_str(&side);
            }
        }
    }
    out
}

/// Output of [`run_sql`].
#[derive(Debug, Clone, PartialEq)]
pub enum OutputFormat {
    /// A pretty text table.
    Table,
    /// CSV with a header line.
    Csv,
    /// JSON lines: one object per row, nulls explicit.
    Json,
    /// A Parquet file at this path (zstd, written atomically).
    Parquet(PathBuf),
}

impl OutputFormat {
    /// From a CLI name (`table`, `csv`, `json`, `parquet`); Parquet needs `path`.
    pub fn from_name(name: &str, path: Option<PathBuf>) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "table" | "pretty" => Ok(OutputFormat::Table),
            "csv" => Ok(OutputFormat::Csv),
            "json" | "jsonl" | "ndjson" => Ok(OutputFormat::Json),
            "parquet" => path.map(OutputFormat::Parquet).ok_or_else(|| {
                Error::Usage("--format parquet needs an output path (--output FILE)".into())
            }),
            other => Err(Error::Usage(format!(
                "unknown output format `{other}`: expected table, csv, json or parquet"
            ))),
        }
    }
}

/// Where a user query comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum QuerySource {
    Text(String),
    File(PathBuf),
}

impl QuerySource {
    pub fn read(&self) -> Result<String> {
        match self {
            QuerySource::Text(s) => Ok(s.clone()),
            QuerySource::File(p) => std::fs::read_to_string(p).map_err(|e| Error::file(p, e)),
        }
    }
}

/// Options of `advmath sql` (clap-free).
#[derive(Debug, Clone)]
pub struct SqlConfig {
    pub tables: PathBuf,
    pub query: QuerySource,
    pub format: OutputFormat,
    pub threads: Option<usize>,
}

/// What [`run_sql`] produced.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlOutput {
    pub rows: usize,
    /// The rendered result (empty for Parquet).
    pub text: String,
    /// The Parquet file written, for [`OutputFormat::Parquet`].
    pub parquet: Option<PathBuf>,
}

/// Run one user query over `tables` and render it.
pub fn run_sql(tables: &Path, query: &str, format: OutputFormat) -> Result<SqlOutput> {
    let engine = SqlEngine::open(tables)?;
    let output = engine.query(query)?;
    render(&output, &format)
}

/// [`run_sql`] from a [`SqlConfig`], writing text output to `out`; returns the row count.
pub fn run_sql_config(config: &SqlConfig, out: &mut dyn Write) -> Result<usize> {
    let query = config.query.read()?;
    let engine = SqlEngine::open_with_threads(&config.tables, config.threads)?;
    let output = engine.query(&query)?;
    let rendered = render(&output, &config.format)?;
    out.write_all(rendered.text.as_bytes())?;
    Ok(rendered.rows)
}

/// View types (DataFusion reads strings as Utf8View) become plain Utf8/Binary so that every
/// writer and reader handles the output.
fn plain(output: &QueryOutput) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let plain_type = |t: &DataType| match t {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        other => other.clone(),
    };
    let fields: Vec<Field> = output
        .schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(plain_type(f.data_type())))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut batches = Vec::with_capacity(output.batches.len());
    for b in &output.batches {
        let columns = b
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(Arc::clone(c))
                } else {
                    cast(c, f.data_type())
                }
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        batches.push(RecordBatch::try_new(Arc::clone(&schema), columns)?);
    }
    Ok((schema, batches))
}

fn render(output: &QueryOutput, format: &OutputFormat) -> Result<SqlOutput> {
    let rows = output.rows();
    let (schema, batches) = plain(output)?;
    let text = match format {
        OutputFormat::Table => {
            let mut s = arrow::util::pretty::pretty_format_batches_with_schema(
                Arc::clone(&schema),
                &batches,
            )?
            .to_string();
            s.push('\n');
            s
        }
        OutputFormat::Csv => {
            let mut buf = Vec::new();
            if batches.is_empty() {
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                buf.extend_from_slice(names.join(",").as_bytes());
                buf.push(b'\n');
            } else {
                let mut w = arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(&mut buf);
                for b in &batches {
                    w.write(b)?;
                }
            }
            String::from_utf8_lossy(&buf).into_owned()
        }
        OutputFormat::Json => {
            let mut buf = Vec::new();
            {
                let mut w = arrow::json::WriterBuilder::new()
                    .with_explicit_nulls(true)
                    .build::<_, arrow::json::writer::LineDelimited>(&mut buf);
                for b in &batches {
                    w.write(b)?;
                }
                w.finish()?;
            }
            String::from_utf8_lossy(&buf).into_owned()
        }
        OutputFormat::Parquet(path) => {
            let mut w = crate::table::AtomicParquet::create(path, Arc::clone(&schema))?;
            for b in &batches {
                w.write(b)?;
            }
            let written = w.finish()?;
            return Ok(SqlOutput {
                rows,
                text: String::new(),
                parquet: Some(written),
            });
        }
    };
    Ok(SqlOutput {
        rows,
        text,
        parquet: None,
    })
}

/// Whether a DataFusion error is the user's (a malformed or unplannable query) rather than the
/// data's: used for the exit code.
pub(crate) fn is_query_error(e: &DataFusionError) -> bool {
    matches!(
        e.find_root(),
        DataFusionError::SQL(..)
            | DataFusionError::Plan(_)
            | DataFusionError::SchemaError(..)
            | DataFusionError::NotImplemented(_)
            | DataFusionError::Configuration(_)
            | DataFusionError::Internal(_)
    )
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
            "sql/ and EMBEDDED_SQL list the same metrics in the same order"
        );
        for m in &embedded {
            let title = m.title();
            assert!(
                title.contains("Table") || title.contains("Figure"),
                "{}: the opening comment names the paper table or figure: {title}",
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
