//! Every clap type of the command line, and their conversion into checked library configs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use advmath::ingest::{Columns, Format, IngestOptions, ProgramSource};
use advmath::pipeline::{IngestConfig, RunConfig};

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
    after_help = "Start with `advmath run` (the default dataset, no input needed)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Read problem sources, validate their solution programs, write the `problems` table.
    Ingest(IngestArgs),
    /// Run the default pipeline (on the embedded default dataset when no input is given).
    Run(RunArgs),
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
    /// Generic tables: column holding a problem id.
    #[arg(long)]
    pub id_col: Option<String>,
    /// Generic tables: column holding the question.
    #[arg(long, default_value = "question")]
    pub question_col: String,
    /// Generic tables: column holding the final answer (a GSM8K-style worked solution works too).
    #[arg(long, default_value = "answer")]
    pub answer_col: String,
    /// Generic tables: column holding a Python solution program.
    #[arg(long)]
    pub program_col: Option<String>,
    /// Which programs to use: given ones, ones synthesised from worked solutions, or given
    /// with a synthesised fallback.
    #[arg(long, value_enum, default_value_t = ProgramSource::Auto)]
    pub programs: ProgramSource,
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
    #[arg(long, default_value = "out/tables")]
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
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
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
    pub fn config(&self) -> RunConfig {
        RunConfig {
            inputs: self.inputs.clone(),
            options: self.source.options(),
            out: self.out.clone(),
        }
    }
}
