//! `advmath ingest`: problem sources (and the RobustMath release, written as an attack) into the
//! `problems` table.

use std::path::{Path, PathBuf};

use clap::Args;

use advmath::store::default_tables;

use super::places::{folder, input, output_file, Located};
use advmath::ingest::IngestConfig;
use advmath::ingest::{Columns, Format, IngestOptions, ProgramSource};
use advmath::program::Links;
use advmath::store::places::Places;

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
    /// `percentages` (`0.4` for "40%"), `fractions` ("1/6 of" divided by 6), or `all` (these
    /// three). Links are made only where they are unambiguous; see reports/gold_audit.md for
    /// what each gives. `unit-lengths` lets a number that defines a unit ("7 days a week", "a
    /// 30 day month") vary as in the paper, `factor-ones` a stated 1 that multiplies or divides
    /// ("4 miles * 1 mph") or that a share is added to ("1 + 20%"), and `halves` a stated half
    /// that multiplies or divides ("1/2 of the cars had gone"); by default all three stay
    /// constant.
    #[arg(long, value_name = "LIST", default_value = "digits", value_parser = Links::parse)]
    pub link: Links,
}

impl SourceArgs {
    pub(crate) fn options(&self) -> IngestOptions {
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
            candidates: Vec::new(),
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
    /// Settle a number the question writes more than once, whose readings give different
    /// answers, as the paper's appendix H.4 does: ask this OpenAI-compatible server's `--model`
    /// the question with distinguishing numbers, keep the reading whose answer it gives, and
    /// discard the problem when none does. Without it such numbers are tied (one new value in
    /// every place), which is right for every reading.
    #[arg(long, value_name = "URL", requires = "model")]
    pub disambiguate_with: Option<String>,
    /// The model `--disambiguate-with` asks.
    #[arg(long, requires = "disambiguate_with")]
    pub model: Option<String>,
    /// Published model-written program files (JSONL as released: ToRA, Program-of-Thoughts,
    /// GSM-Hard's PAL programs), each row matched to its problem by index or question and
    /// validated exactly as a given program. A problem whose own program is not valid takes its
    /// first valid one, in the order the files are named, then by line; every verdict goes to
    /// the `candidate_programs` table. Name the problem files before this option.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub candidates: Vec<PathBuf>,
}

impl IngestArgs {
    pub fn config(&self) -> IngestConfig {
        let mut options = self.source.options();
        options.candidates.clone_from(&self.candidates);
        IngestConfig {
            inputs: self.inputs.clone(),
            options,
            tables: self.tables.clone(),
            report: self.report.clone(),
        }
    }
}

impl Located for IngestArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        for path in &mut self.inputs {
            input(places, path)?;
        }
        if let Some(path) = &mut self.source.programs_from {
            input(places, path)?;
        }
        for path in &mut self.candidates {
            input(places, path)?;
        }
        folder(places, &mut self.tables)?;
        if let Some(path) = &mut self.report {
            output_file(places, path)?;
        }
        Ok(())
    }

    fn outputs_beside_tables(&self) -> Vec<(&Path, &Path)> {
        self.report
            .iter()
            .map(|r| (r.as_path(), self.tables.as_path()))
            .collect()
    }
}

pub fn run(args: IngestArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut config = args.config();
    let (rephrasing, sources) = advmath::ingest::split_rephrasings(&config);
    for dir in &rephrasing {
        let s = advmath::ingest::ingest_robustmath(dir, &config.tables)?;
        for f in &s.written {
            eprintln!("{} -> {}", dir.display(), f.display());
        }
        s.write_table(&mut stdout.lock())?;
    }
    if !sources.is_empty() || rephrasing.is_empty() {
        config.inputs = sources;
        let summary = advmath::ingest::ingest(&config)?;
        summary.write_table(&mut stdout.lock())?;
        summary.failures()?;
    }
    if let (Some(url), Some(model)) = (&args.disambiguate_with, &args.model) {
        let endpoint = advmath::llm::client::Endpoint::new(url.as_str(), model.as_str());
        let s = advmath::ingest::disambiguate::disambiguate(&config.tables, &endpoint)?;
        eprintln!(
            "disambiguate with {model}: {} asked, {} settled, {} discarded, {} failed",
            s.asked, s.settled, s.discarded, s.failed
        );
    }
    Ok(())
}
