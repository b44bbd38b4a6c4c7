//! `advmath metrics` and `advmath sql`: the queries over the tables, and their bounds.

use std::path::PathBuf;

use clap::Args;

use advmath::store::default_tables;

use super::places::{folder, input, output_file, tables_for_sql, Located};
use super::threads;
use advmath::metrics::{MetricsConfig, OutputFormat, QuerySource, SqlConfig};
use advmath::store::places::Places;

#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// Folder of the Parquet tables.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Where the CSV and Markdown per metric, the plots and report.md go.
    #[arg(long, default_value_os_t = MetricsConfig::default().out)]
    pub out: PathBuf,
    /// Read the metric .sql files from this folder instead of the built-in ones.
    #[arg(long)]
    pub sql_dir: Option<PathBuf>,
    /// Bootstrap replicates for the 95% intervals.
    #[arg(long, default_value_t = MetricsConfig::default().replicates)]
    pub replicates: usize,
    /// Bootstrap seed (each row mixes in its model, template, dataset and attack).
    #[arg(long, default_value_t = MetricsConfig::default().seed)]
    pub seed: u64,
    /// DataFusion worker threads, 1 to 1024 (default: all cores). The results do not depend on it.
    #[arg(long, value_parser = threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub bounds: QueryBounds,
    /// Universal attacks (Table 4): the order in which the prefix figure adds models,
    /// comma-separated; models not listed follow by name. Default: every model by name.
    #[arg(long, value_delimiter = ',')]
    pub model_order: Vec<String>,
}

impl MetricsArgs {
    pub fn config(&self) -> MetricsConfig {
        MetricsConfig {
            sql_dir: self.sql_dir.clone(),
            replicates: self.replicates,
            seed: self.seed,
            limits: self.bounds.limits(self.threads),
            model_order: self.model_order.clone(),
            ..MetricsConfig::new(&self.tables, &self.out)
        }
    }
}

/// Bounds on every query of `sql` and `metrics`.
#[derive(Args, Debug, Clone)]
pub struct QueryBounds {
    /// Memory the operators of one query may hold (e.g. 4GiB, 512MiB), the process's resident
    /// memory watched too; a query needing more fails with exit 1. Default: no hard limit;
    /// operators share 2 GiB (half of this machine's memory if less), and aggregations and
    /// sorts spill to disk past it.
    #[arg(long, value_parser = super::size)]
    pub memory_limit: Option<usize>,
    /// Seconds one query may run; a query running longer fails with exit 1. Default: no limit.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Run the queries on a Ballista cluster: its scheduler's URL, e.g. df://127.0.0.1:50050.
    /// Needs a build with the `cluster` feature (`cargo build --release --features cluster`),
    /// which also adds the `advmath cluster scheduler|executor` commands that start one. Same
    /// SQL, same results; the executors read the tables' files, so they must see the --tables
    /// path (one machine, a shared file system).
    #[arg(long, value_name = "URL")]
    pub cluster: Option<String>,
}

impl QueryBounds {
    fn limits(&self, threads: Option<usize>) -> advmath::metrics::EngineLimits {
        advmath::metrics::EngineLimits {
            threads,
            cluster: self.cluster.clone(),
            memory: self.memory_limit,
            timeout: self
                .timeout
                .filter(|t| t.is_finite() && *t > 0.0)
                .map(std::time::Duration::from_secs_f64),
        }
    }
}

#[derive(Args, Debug)]
pub struct SqlArgs {
    /// The query (omit with --file).
    pub query: Option<String>,
    /// Read the query from this file.
    #[arg(long, conflicts_with = "query")]
    pub file: Option<PathBuf>,
    /// Folder of the Parquet tables to query.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Output: table, csv, json (one array of row objects), jsonl (one object per line) or
    /// parquet (needs --output).
    #[arg(long, default_value = "table")]
    pub format: String,
    /// File for --format parquet.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// DataFusion worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub bounds: QueryBounds,
}

impl SqlArgs {
    pub fn config(&self) -> anyhow::Result<SqlConfig> {
        let query = match (&self.query, &self.file) {
            (Some(q), None) => QuerySource::Text(q.clone()),
            (None, Some(f)) => QuerySource::File(f.clone()),
            _ => return Err(advmath::Error::usage("give a query or --file").into()),
        };
        Ok(SqlConfig {
            tables: self.tables.clone(),
            query,
            format: OutputFormat::from_name(&self.format, self.output.clone())?,
            limits: self.bounds.limits(self.threads),
        })
    }
}

impl Located for MetricsArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        tables_for_sql(places, &mut self.tables, &self.bounds.cluster)?;
        folder(places, &mut self.out)?;
        if let Some(path) = &mut self.sql_dir {
            input(places, path)?;
        }
        Ok(())
    }
}

impl Located for SqlArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        tables_for_sql(places, &mut self.tables, &self.bounds.cluster)?;
        if let Some(path) = &mut self.file {
            input(places, path)?;
        }
        if let Some(path) = &mut self.output {
            output_file(places, path)?;
        }
        Ok(())
    }
}

pub fn metrics(args: MetricsArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let summary = advmath::metrics::run_metrics_with(&args.config())?;
    summary.write_table(&mut stdout.lock())?;
    eprint!("{}", headline_text(&summary));
    Ok(())
}

/// The headline table and where the reports are, for the end of `metrics` and `run`.
pub fn headline_text(summary: &advmath::metrics::MetricsSummary) -> String {
    let mut text = String::new();
    if !summary.headline.is_empty() {
        text.push('\n');
        text.push_str(&advmath::metrics::headline::plain(&summary.headline));
        text.push('\n');
    }
    for (what, path) in [
        ("report", &summary.report_html),
        ("report", &summary.report),
    ] {
        text.push_str(&format!(
            "{what}: {}\n",
            advmath::store::location::display(path)
        ));
    }
    text
}

pub fn sql(args: SqlArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    advmath::metrics::run_sql_config(&args.config()?, &mut stdout.lock())?;
    Ok(())
}
