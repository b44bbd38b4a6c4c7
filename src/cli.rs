//! Every clap type of the command line, and their conversion into checked library configs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use advmath::generate::{AttackSpec, GenerateConfig};
use advmath::ingest::{Columns, Format, IngestOptions, ProgramSource};
use advmath::noise::NoiseCount;
use advmath::pipeline::{IngestConfig, RunConfig};
use advmath::publish::PublishConfig;

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
    /// Make variants of every valid problem: numeric attacks M1/M2/M3 and punctuation noise.
    Generate(GenerateArgs),
    /// Write a folder ready for `hf upload`: sharded Parquet per attack and split, and a dataset card.
    Publish(PublishArgs),
    /// Run the default pipeline (on the embedded default dataset when no input is given).
    Run(RunArgs),
}

#[derive(Args, Debug)]
pub struct PublishArgs {
    /// The folder to write (refused if it exists, unless --force).
    #[arg(long)]
    pub out: PathBuf,
    /// Folder of the Parquet tables to publish from.
    #[arg(long, default_value = "out/tables")]
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
    #[arg(long, default_value_t = 500_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_shard_rows: u64,
}

impl PublishArgs {
    pub fn config(&self) -> PublishConfig {
        PublishConfig {
            tables: self.tables.clone(),
            out: self.out.clone(),
            name: self
                .name
                .clone()
                .unwrap_or_else(|| advmath::publish::default_name(&self.tables)),
            include: self.include.clone(),
            force: self.force,
            max_shard_rows: self.max_shard_rows as usize,
        }
    }
}

fn parse_attack(s: &str) -> Result<AttackSpec, String> {
    AttackSpec::parse(s)
}

/// Generation settings shared by `generate` and `run`.
#[derive(Args, Debug, Clone)]
pub struct GenerationArgs {
    /// Attacks, comma-separated: m1 (free), m2 (same digit count), m3 (same significant digits),
    /// punct (ArithmAttack noise on the originals), or a composition such as m3+punct.
    #[arg(long, value_delimiter = ',', value_parser = parse_attack, default_value = "m1,m2,m3,punct")]
    pub attack: Vec<AttackSpec>,
    /// Attempts per problem and numeric attack (the paper's N).
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub attempts: u64,
    /// Variants per problem and attack (m); a problem that does not reach m distinct valid
    /// variants gets none for that attack.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub variants: u32,
    /// At most this many problems per attack (default: all that reach m variants).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub problems: Option<u32>,
    /// Significant digits for M1 draws (the paper's c).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=15))]
    pub digits: u32,
    /// Punctuation noise levels, percent of the word count.
    #[arg(long, value_delimiter = ',', default_value = "10,30,50", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub noise: Vec<u32>,
    /// Noised copies per problem and noise level (ArithmAttack makes one).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub noise_variants: u32,
    /// `paper`: round(p x words) insertions; `reference`: the original script's
    /// randint(1, int(p x words + 1)).
    #[arg(long, value_enum, default_value_t = Compat::Paper)]
    pub compat: Compat,
    /// Run seed; every variant's own seed derives from it, the problem id, the attack and the index.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Compat {
    Paper,
    Reference,
}

impl GenerationArgs {
    pub fn config(&self, tables: PathBuf) -> GenerateConfig {
        GenerateConfig {
            tables,
            attacks: self.attack.clone(),
            attempts: self.attempts,
            variants: self.variants as usize,
            problems: self.problems.map(|p| p as usize),
            digits: self.digits,
            noise_levels: self.noise.clone(),
            noise_variants: self.noise_variants as usize,
            noise_count: match self.compat {
                Compat::Paper => NoiseCount::Paper,
                Compat::Reference => NoiseCount::Reference,
            },
            seed: self.seed,
            threads: self.threads.map(|t| t as usize),
            progress: true,
        }
    }
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Folder of the Parquet tables: reads `problems/`, writes `variants/` and `generation_stats/`.
    #[arg(long, default_value = "out/tables")]
    pub tables: PathBuf,
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
    #[command(flatten)]
    pub generation: GenerationArgs,
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
            generation: self
                .generation
                .config(advmath::pipeline::tables_dir(&self.out)),
        }
    }
}
