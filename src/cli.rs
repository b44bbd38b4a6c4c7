//! The command line: one module per command (or family of commands), each holding its clap
//! types, their conversion into checked library configs, and the `run` that calls the library and
//! prints the command's summary (data on stdout, notes on stderr). This module holds what they
//! share and the dispatch.

use clap::{Parser, Subcommand};

use places::located;

mod annotate;
#[cfg(feature = "cluster")]
mod cluster;
mod extract;
mod features;
mod generate;
mod ingest;
mod places;
mod programs;
mod publish;
mod query;
mod regress;
mod respond;
mod run;
mod tables;

pub use annotate::AnnotateCommand;
#[cfg(feature = "cluster")]
pub use cluster::ClusterCommand;
pub use features::FeaturesArgs;
pub use generate::{GenerateArgs, GenerationArgs};
pub use ingest::{IngestArgs, SourceArgs};
pub use programs::ProgramsArgs;
pub use publish::PublishArgs;
pub use query::{MetricsArgs, SqlArgs};
pub use regress::RegressArgs;
pub use respond::*;
pub use run::RunArgs;
pub use tables::{CompactArgs, SettleArgs};

/// A list default as the comma-separated text its `value_delimiter = ','` argument parses, so
/// that `--help` shows it the way it is typed.
pub(crate) fn comma_list<T: std::fmt::Display>(items: &[T]) -> &'static str {
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
        advmath metrics                            # both papers' tables -> out/reports/metrics/report.md\n  \
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
pub(crate) const MAX_THREADS: usize = 1024;

/// A `--threads` value: 1 to [`MAX_THREADS`].
pub(crate) fn threads(s: &str) -> Result<usize, String> {
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
    /// Make variants of every valid problem: numeric attacks M1/M2/M3, punctuation noise, and
    /// the text attacks names and noop (alone and on M1-M3).
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
    /// Run every metric SQL file (both papers' tables and figures) into CSV, Markdown, plots,
    /// report.md and report.html (one page for a browser, with an adversarial-example browser)
    Metrics(MetricsArgs),
    /// Human judgements: draw the sample a paper's annotators saw as a sheet to fill, and ingest
    /// the filled sheets (Xie et al. Figure 2, ArithmAttack Table 2).
    #[command(subcommand)]
    Annotate(AnnotateCommand),
    /// Run an SQL query over the tables (problems, variants, responses, features, ...).
    Sql(SqlArgs),
    /// Read the answer of a reply from standard input as the tables grade replies (the rule that
    /// found it, and whether it is right), as one JSON line; `--jsonl` grades many.
    Extract(extract::ExtractArgs),
    /// Write a folder ready for `hf upload`: sharded Parquet per attack and split, a dataset card
    /// and lm-evaluation-harness tasks.
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

/// `4GiB`, `512MiB`, `300MB`, `1000000` (bytes): a memory size as people write it.
pub(crate) fn size(text: &str) -> std::result::Result<usize, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("not a size: {text:?} (e.g. 4GiB, 512MiB)"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "kib" | "k" => 1024.0,
        "mib" | "m" => 1024.0 * 1024.0,
        "gib" | "g" => 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("unknown size unit {other:?} in {text:?}")),
    };
    Ok((value * scale) as usize)
}

/// The flag that sets a library config field named in an error: `--` and the field's name with
/// dashes, where the flag is not named otherwise (`attacks` is `--attack`).
pub fn flag_of(setting: &str) -> String {
    let name = match setting {
        "attacks" => "attack",
        "noise_levels" => "noise",
        other => other,
    };
    format!("--{}", name.replace('_', "-"))
}

/// Run one parsed command, its locations made local first ([`places::located`]).
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Ingest(args) => located(args, ingest::run),
        Command::Generate(args) => located(args, generate::run),
        Command::Respond(args) => located(args, respond::respond),
        Command::ExportBatch(args) => located(args, respond::export_batch),
        Command::IngestResponses(args) => located(args, respond::ingest_responses),
        Command::Programs(args) => located(args, programs::programs),
        Command::Features(args) => located(args, features::run),
        Command::Regress(args) => located(args, regress::run),
        Command::Metrics(args) => located(args, query::metrics),
        Command::Annotate(command) => located(command, |command| {
            annotate::run(command, &mut std::io::stdout().lock())
        }),
        Command::Sql(args) => located(args, query::sql),
        // Reads standard input only.
        Command::Extract(args) => extract::run(args),
        Command::Publish(args) => located(args, publish::run),
        Command::Compact(args) => located(args, tables::compact),
        Command::Settle(args) => located(args, tables::settle),
        Command::Run(args) => located(args, run::run),
        #[cfg(feature = "cluster")]
        Command::Cluster(process) => cluster::run(process),
    }
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size("4GiB"), Ok(4 << 30));
        assert_eq!(size("512MiB"), Ok(512 << 20));
        assert_eq!(size("300MB"), Ok(300_000_000));
        assert_eq!(size("1000"), Ok(1000));
        assert_eq!(size("1.5 GiB"), Ok(3 << 29));
        assert!(size("lots").is_err() && size("4XB").is_err());
    }
}
