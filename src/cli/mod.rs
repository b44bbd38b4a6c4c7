//! Every clap type of the command line, and their conversion into checked library configs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[cfg(feature = "cluster")]
mod cluster;
#[cfg(feature = "cluster")]
pub use cluster::ClusterCommand;
mod annotate;
pub use annotate::{AnnotateCommand, SampleCommand};
pub mod locations;
mod respond;
pub use respond::*;

use advmath::features::FeatureSet;
use advmath::generate::noise::NoiseCount;
use advmath::generate::{AttackSpec, GenerateConfig};
use advmath::ingest::{Columns, Format, IngestOptions, ProgramSource};
use advmath::metrics::{MetricsConfig, OutputFormat, QuerySource, SqlConfig};
use advmath::pipeline::{IngestConfig, RunConfig, DEFAULT_MODELS};
use advmath::program::Links;
use advmath::publish::PublishConfig;
use advmath::regress::RegressConfig;
use advmath::respond::{Backend, Endpoint, RespondConfig};
use advmath::store::{default_tables, DEFAULT_OUT};

/// A list default as the comma-separated text its `value_delimiter = ','` argument parses, so
/// that `--help` shows it the way it is typed.
fn comma_list<T: std::fmt::Display>(items: &[T]) -> &'static str {
    let text = items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",");
    // Built once per parse of the command line; clap keeps default values as `&'static str`.
    Box::leak(text.into_boxed_str())
}

#[derive(Parser, Debug)]
#[command(
    name = "advmath",
    version,
    about = "Build adversarial math-word-problem datasets and measure how language models break on them",
    long_about = "Build adversarial math-word-problem datasets on Arrow/Parquet.\n\n\
        Each problem's Python solution program is parsed (never executed) into a tree of operations over \
        numbers linked to the question; later stages re-sample those numbers (Xie et al. 2024) or add \
        punctuation noise (ArithmAttack).\n\n\
        Data goes to stdout, logs to stderr. Exit codes: 0 ok, 1 data or validation failure, 2 usage or internal error.",
    after_help = "Start with `advmath run` (the default dataset, no input needed). A study of your own:\n\n  \
        advmath ingest gsm8k/test.jsonl            # problems + validated programs -> out/tables\n  \
        advmath generate --attack m3,punct         # variants\n  \
        advmath respond --model my-llm --endpoint http://127.0.0.1:8080\n  \
        advmath features && advmath regress        # the feature study (Table 8, Figure 8)\n  \
        advmath metrics                            # both papers' tables -> out/metrics/report.md\n  \
        advmath publish --out hub                  # a folder for `hf upload`"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// No progress on stderr: neither the bars shown on a terminal nor the lines written to a
    /// log (every 15 s, `ADVMATH_PROGRESS_SECONDS` to change, and at the end of each stage).
    // Last in every command's help, wherever clap would put a global flag.
    #[arg(long, global = true, display_order = 10_000)]
    pub quiet: bool,
}

/// The most worker threads an option accepts: more would only exhaust the machine (a thread
/// pool of 100,000 aborts the process).
const MAX_THREADS: usize = 1024;

/// A `--threads` value: 1 to [`MAX_THREADS`].
fn threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 1 to {MAX_THREADS}"
        )),
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Read problem sources, validate their solution programs, write the `problems` table.
    Ingest(IngestArgs),
    /// Make variants of every valid problem: numeric attacks M1/M2/M3 and punctuation noise.
    Generate(GenerateArgs),
    /// Ask a model (an OpenAI-compatible endpoint, or an offline oracle/sim-* model) about the
    /// variants; crash-safe and resumable.
    Respond(RespondArgs),
    /// Write the OpenAI Batch API request file for the variants (custom_id = response key).
    ExportBatch(ExportBatchArgs),
    /// Ingest responses made elsewhere (Batch output, lm-eval samples, ArithmAttack CSVs, ...).
    IngestResponses(IngestResponsesArgs),
    /// Ask a model for solution programs of the problems that lack a valid one (paper appendix
    /// A.1); a program is kept only if it validates like a given one. Never executed.
    Programs(ProgramsArgs),
    /// Compute the features of every variant's solution tree: the authors' feature family
    /// (`features_xie2024`) and advmath's own 51 (`features`).
    Features(FeaturesArgs),
    /// Fit each model's correctness on a feature set, per prompt template (Xie et al. Table 8
    /// logistic regression with Wald tests, Figure 8 plots).
    Regress(RegressArgs),
    /// Run every metric SQL file (both papers' tables and figures) into CSV, Markdown and a report.
    Metrics(MetricsArgs),
    /// Human judgements: draw the sample a paper's annotators saw as a sheet to fill, and ingest
    /// the filled sheets (Xie et al. Figure 2, ArithmAttack Table 2).
    #[command(subcommand)]
    Annotate(annotate::AnnotateCommand),
    /// Run an SQL query over the tables (problems, variants, responses, features, ...).
    Sql(SqlArgs),
    /// Write a folder ready for `hf upload`: sharded Parquet per attack and split, and a dataset card.
    Publish(PublishArgs),
    /// Fold each table folder's small Parquet parts into few large ones (rows and their order
    /// kept; `respond` does it for its model at the end of every run).
    Compact(CompactArgs),
    /// Finish the stage switches that killed commands decided, so that a tables folder reads
    /// consistently to other tools too (DuckDB, pyarrow); every advmath command does this first.
    /// A journal naming anything outside the tables is refused, not replayed.
    Settle(SettleArgs),
    /// Run the default pipeline (on the embedded default dataset when no input is given).
    Run(RunArgs),
    /// Run a process of a Ballista cluster for `metrics --cluster` and `sql --cluster`: one
    /// scheduler, and executors on each machine that can read the tables.
    #[cfg(feature = "cluster")]
    #[command(subcommand)]
    Cluster(ClusterCommand),
}

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// Folder of the Parquet tables.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// The tables to compact (default: all), e.g. `responses`.
    pub table: Vec<String>,
    /// Parts smaller than this are folded into parts of up to this size (e.g. 128MiB, 1GiB).
    #[arg(long, default_value = "128MiB", value_parser = advmath::metrics::parse_size)]
    pub part_size: usize,
}

#[derive(Args, Debug)]
pub struct SettleArgs {
    /// Folder of the Parquet tables.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
}

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
    #[arg(long, value_parser = advmath::metrics::parse_size)]
    pub memory_limit: Option<usize>,
    /// Seconds one query may run; a query running longer fails with exit 1. Default: no limit.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Run the queries on a Ballista cluster: its scheduler's URL, e.g. df://127.0.0.1:50050
    /// (start one with `advmath cluster scheduler` and `advmath cluster executor`; needs the
    /// `cluster` feature). Same SQL, same results; the executors read the tables' files, so they
    /// must see the --tables path (one machine, a shared file system).
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
    /// Output: table, csv, json (one object per line) or parquet (needs --output).
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
            _ => return Err(advmath::Error::Usage("give a query or --file".into()).into()),
        };
        Ok(SqlConfig {
            tables: self.tables.clone(),
            query,
            format: OutputFormat::from_name(&self.format, self.output.clone())?,
            limits: self.bounds.limits(self.threads),
        })
    }
}

#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// Folder of the Parquet tables (reads problems and variants, writes the feature tables).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Feature sets to compute, comma-separated: `xie2024` (the authors' feature family, table
    /// `features_xie2024`), `advmath` (advmath's own 51, table `features`).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = comma_list(&FeatureSet::ALL)
    )]
    pub set: Vec<FeatureSet>,
}

/// Every default comes from [`RegressConfig::default`], which `advmath run` uses too.
#[derive(Args, Debug)]
pub struct RegressArgs {
    /// Folder of the Parquet tables (reads features and responses, writes coefficients).
    #[arg(long, default_value_os_t = RegressConfig::default().tables)]
    pub tables: PathBuf,
    /// Attacks whose variants enter the fit, comma-separated (the paper uses M3).
    #[arg(long, value_delimiter = ',', default_values_t = RegressConfig::default().attacks)]
    pub attack: Vec<String>,
    /// The feature set fitted: `xie2024` (the authors' family) or `advmath` (advmath's own 51).
    #[arg(long, value_enum, default_value_t = RegressConfig::default().set)]
    pub set: FeatureSet,
    /// `logistic`: penalised logistic regression (linfa, Wald tests), this project's design;
    /// `linear`: the authors' default, least squares of the 1/0 correctness with an intercept
    /// (statsmodels OLS; minimum-norm where features are collinear; t tests; raw features,
    /// --alpha unused).
    #[arg(long, value_enum, default_value_t = RegressConfig::default().method)]
    pub method: advmath::regress::RegressMethod,
    /// Figure 8's answer length: `tokens` under cl100k_base (GPT-3.5's and GPT-4's tokenizer:
    /// digit runs cut in threes), the paper's "token counts"; or `digits` (the token count of
    /// LLaMA-family tokenizers).
    #[arg(long, value_enum, default_value_t = RegressConfig::default().answer_length)]
    pub answer_length: advmath::regress::AnswerLength,
    /// L2 penalty weight of the logistic fit, scikit-learn's 1/C (0 for plain maximum likelihood).
    #[arg(long, default_value_t = RegressConfig::default().alpha)]
    pub alpha: f64,
    /// Standardise features, so coefficients are per standard deviation (`--standardize` alone
    /// means true).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true",
          default_value_t = RegressConfig::default().standardize)]
    pub standardize: bool,
    /// Folder for regression.md and the Figure 8 plots.
    #[arg(long, default_value_os_t = RegressConfig::default().report_dir)]
    pub report_dir: PathBuf,
}

impl RegressArgs {
    pub fn config(&self) -> RegressConfig {
        RegressConfig {
            tables: self.tables.clone(),
            attacks: self.attack.clone(),
            alpha: self.alpha,
            standardize: self.standardize,
            set: self.set,
            method: self.method,
            answer_length: self.answer_length,
            report_dir: self.report_dir.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct PublishArgs {
    /// The folder to write (refused if it exists, unless --force).
    #[arg(long)]
    pub out: PathBuf,
    /// Folder of the Parquet tables to publish from.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Dataset name for the card (default: advmath-<sources>).
    #[arg(long)]
    pub name: Option<String>,
    /// Extra tables to publish as configs of their own, comma-separated (responses, features).
    #[arg(long, value_delimiter = ',')]
    pub include: Vec<String>,
    /// Replace an existing folder.
    #[arg(long)]
    pub force: bool,
    /// Rows per Parquet shard.
    #[arg(long, default_value_t = PublishConfig::MAX_SHARD_ROWS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_shard_rows: u64,
}

impl PublishArgs {
    pub fn config(&self) -> PublishConfig {
        let config = PublishConfig::new(self.tables.clone(), self.out.clone());
        PublishConfig {
            name: self.name.clone().unwrap_or(config.name),
            include: self.include.clone(),
            force: self.force,
            max_shard_rows: self.max_shard_rows as usize,
            ..config
        }
    }
}

fn parse_attack(s: &str) -> Result<AttackSpec, String> {
    AttackSpec::parse(s)
}

/// Generation settings shared by `generate` and `run`; every default is
/// [`GenerateConfig::default`]'s.
#[derive(Args, Debug, Clone)]
pub struct GenerationArgs {
    /// Attacks, comma-separated: m1 (free), m2 (same digit count), m3 (same significant digits),
    /// punct (ArithmAttack noise on the originals), or a composition such as m3+punct.
    #[arg(long, value_delimiter = ',', value_parser = parse_attack, default_value = comma_list(&GenerateConfig::default().attacks))]
    pub attack: Vec<AttackSpec>,
    /// Attempts per problem and numeric attack (the paper's N).
    #[arg(long, default_value_t = GenerateConfig::default().attempts, value_parser = clap::value_parser!(u64).range(1..))]
    pub attempts: u64,
    /// Variants per problem and attack (m); a problem that does not reach m distinct valid
    /// variants gets none for that attack.
    #[arg(long, default_value_t = GenerateConfig::default().variants as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub variants: u32,
    /// At most this many problems per attack (default: all that reach m variants).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub problems: Option<u32>,
    /// Attack n problems per dataset, each with m variants in every requested attack (the paper
    /// attacks 100 randomly selected problems with 100 variants each): problems are taken in the
    /// order of a hash of (--seed, problem id), skipping those that fall short of m (the log says
    /// how many, and any shortfall); originals are written for them only.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub sample_problems: Option<u32>,
    /// Significant digits for M1 draws (the paper's c).
    #[arg(long, default_value_t = GenerateConfig::default().digits,
          value_parser = clap::value_parser!(u32).range(1..=15))]
    pub digits: u32,
    /// Punctuation noise levels, percent of the word count.
    #[arg(long, value_delimiter = ',', default_value = comma_list(&GenerateConfig::default().noise_levels),
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub noise: Vec<u32>,
    /// Noised copies per problem and noise level (ArithmAttack makes one).
    #[arg(long, default_value_t = GenerateConfig::default().noise_variants as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub noise_variants: u32,
    /// Punctuation marks per question, words being the question split on single spaces:
    /// `floor`: floor(p x words), the count of every noised question the ArithmAttack study
    /// released; `round`: round(p x words), half to even; `randint`: the study's published
    /// script, randint(1, int(p x words + 1)).
    #[arg(long, value_enum, default_value_t = GenerateConfig::default().noise_count)]
    pub noise_count: NoiseCount,
    /// Run seed; every variant's own seed derives from it, the problem id, the attack and the index.
    #[arg(long, default_value_t = GenerateConfig::default().seed)]
    pub seed: u64,
    /// Worker threads, 1 to 1024 (default: all cores). The output does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u32>,
}

impl GenerationArgs {
    pub fn config(&self, tables: PathBuf) -> GenerateConfig {
        GenerateConfig {
            tables,
            attacks: self.attack.clone(),
            attempts: self.attempts,
            variants: self.variants as usize,
            problems: self.problems.map(|p| p as usize),
            sample_problems: self.sample_problems.map(|p| p as usize),
            digits: self.digits,
            noise_levels: self.noise.clone(),
            noise_variants: self.noise_variants as usize,
            noise_count: self.noise_count,
            seed: self.seed,
            threads: self.threads.map(|t| t as usize),
            shard: None,
            progress: true,
        }
    }
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Folder of the Parquet tables: reads `problems/`, writes `variants/` and `generation_stats/`.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Make only the K-th of N contiguous slices of each dataset's problems (K counts from 1),
    /// into `<tables>/_shards/generate/K-of-N/`, so that N machines or jobs (a Slurm array, a
    /// Kubernetes indexed job) share a run; then `--merge-shards N` joins them. The merged
    /// tables equal a single run with the same options, byte for byte.
    #[arg(long, value_name = "K/N", conflicts_with_all = ["merge_shards", "problems"])]
    pub shard: Option<advmath::generate::shard::Shard>,
    /// Join the outputs of `--shard 1/N` .. `N/N` into the tables (every shard must be done,
    /// with the same options) and remove the shard folders. Generation options are not used.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub merge_shards: Option<u32>,
    #[command(flatten)]
    pub generation: GenerationArgs,
}

#[derive(Args, Debug, Clone)]
pub struct SourceArgs {
    /// Input layout; detected from the file name and content when omitted.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Dataset name used in problem ids (default: from the format or the file name).
    #[arg(long)]
    pub dataset: Option<String>,
    /// Split name used in problem ids (default: from the file name, else `test`).
    #[arg(long)]
    pub split: Option<String>,
    /// Generic tables: column holding a problem id [default: `id`, when the table has one;
    /// otherwise the row number].
    #[arg(long)]
    pub id_col: Option<String>,
    /// Generic tables: column holding the question.
    #[arg(long, default_value_t = Columns::default().question)]
    pub question_col: String,
    /// Generic tables: column holding the final answer (a GSM8K-style worked solution works too).
    #[arg(long, default_value_t = Columns::default().answer)]
    pub answer_col: String,
    /// Generic tables: column holding a Python solution program [default: `program`, when the
    /// table has one].
    #[arg(long)]
    pub program_col: Option<String>,
    /// Which programs to use: given ones, ones synthesised from worked solutions, or given
    /// with a synthesised fallback.
    #[arg(long, value_enum, default_value_t = ProgramSource::default())]
    pub programs: ProgramSource,
    /// A problem source (e.g. MultiArith.json) whose program or worked solution a problem
    /// without one takes when their questions match, e.g. for the ArithmAttack study's MultiArith
    /// test questions.
    #[arg(long)]
    pub programs_from: Option<PathBuf>,
    /// What a program's literals may link to beyond the numbers written in digits (the paper's
    /// alignment, the default): a comma-separated list of `number-words` ("four friends"),
    /// `percentages` (`0.4` for "40%"), `fractions` ("1/6 of" divided by 6), or `all`. Links
    /// are made only where they are unambiguous; see reports/gold_audit.md for what each gives.
    #[arg(long, value_name = "LIST", default_value = "digits", value_parser = Links::parse)]
    pub link: Links,
}

impl SourceArgs {
    fn options(&self) -> IngestOptions {
        IngestOptions {
            format: self.format,
            dataset: self.dataset.clone(),
            split: self.split.clone(),
            columns: Columns {
                id: self.id_col.clone(),
                question: self.question_col.clone(),
                answer: self.answer_col.clone(),
                program: self.program_col.clone(),
            },
            programs: self.programs,
            programs_from: self.programs_from.clone(),
            links: self.link,
        }
    }
}

#[derive(Args, Debug)]
pub struct IngestArgs {
    /// Problem files (GSM8K .jsonl, MultiArith .json, a Xie release folder, or a generic
    /// .jsonl/.csv/.parquet); none means the embedded default dataset.
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Folder of the Parquet tables (problems go to `<tables>/problems/`).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Also write a Markdown coverage report listing every rejected problem with its reason.
    #[arg(long)]
    pub report: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Problem files; none means the embedded default dataset.
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Output folder: tables in `<out>/tables`, reports in `<out>/reports`.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    #[command(flatten)]
    pub generation: GenerationArgs,
    /// Models to ask: offline ones by default (all simulated: marked so in every report).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = comma_list(&DEFAULT_MODELS)
    )]
    pub models: Vec<String>,
    /// Ask the --models at this OpenAI-compatible endpoint instead of simulating them; several
    /// base URLs (comma-separated or repeated) are servers of the same models, as in `respond`.
    #[arg(long, value_delimiter = ',')]
    pub endpoint: Vec<String>,
    /// Environment variable holding the endpoint's API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
}

impl IngestArgs {
    pub fn config(&self) -> IngestConfig {
        IngestConfig {
            inputs: self.inputs.clone(),
            options: self.source.options(),
            tables: self.tables.clone(),
            report: self.report.clone(),
        }
    }
}

impl RunArgs {
    pub fn config(&self) -> anyhow::Result<RunConfig> {
        let tables = advmath::store::tables_dir(&self.out);
        let responders = self
            .models
            .iter()
            .map(|m| {
                let backend = if self.endpoint.is_empty() {
                    Backend::Offline
                } else {
                    Backend::Endpoint(Endpoint {
                        urls: self.endpoint.clone(),
                        api_key: api_key_from(&self.api_key_env)?,
                        ..Endpoint::new("", m.as_str())
                    })
                };
                Ok(RespondConfig {
                    backend,
                    progress: true,
                    ..RespondConfig::new(tables.clone(), m.as_str())
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(RunConfig {
            inputs: self.inputs.clone(),
            options: self.source.options(),
            out: self.out.clone(),
            generation: self.generation.config(tables),
            responders,
            regression: RunConfig::regression_for(&self.out),
        })
    }
}
