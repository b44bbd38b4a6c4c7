//! `advmath annotate`: the human-judgement workflows (Xie et al. Figure 2, ArithmAttack Table 2).

use std::path::{Path, PathBuf};

use super::places::{folder, input, output_file, Located};
use advmath::annotate::{HumanEvalConfig, MissRateConfig};
use advmath::output::tsv_row;
use advmath::store::default_tables;
use advmath::store::places::Places;
use clap::{Args, Subcommand};

#[derive(Subcommand, Debug)]
pub enum AnnotateCommand {
    /// Draw a sample and write the sheet annotators fill (CSV; one copy per annotator).
    #[command(subcommand)]
    Sample(SampleCommand),
    /// Read filled sheets into the `annotations` table (a sheet ingested again replaces its
    /// rows); `advmath metrics` then reports Figure 2 (`xie_human_eval`) and Table 2
    /// (`arithmattack_miss_rate`).
    Ingest(IngestArgs),
}

#[derive(Subcommand, Debug)]
pub enum SampleCommand {
    /// Xie et al. §5 human evaluation: problems the model failed (each with enough adversarial
    /// examples in every method), two adversarial examples each; annotators score correctness,
    /// coherence and similarity with 1 or 0.
    HumanEval(HumanEvalArgs),
    /// ArithmAttack §4.1 miss rate: every reply of a MultiArith-like dataset and the first N of a
    /// GSM8K-like one, with the answer the extraction read; annotators mark `missed` 1 where
    /// the reply states the right answer and the extracted one is not it.
    MissRate(MissRateArgs),
}

#[derive(Args, Debug)]
pub struct HumanEvalArgs {
    /// Folder of the Parquet tables (reads variants and responses).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// The model whose adversarial examples are drawn (the paper: GPT-3.5).
    #[arg(long)]
    pub model: String,
    /// Prompt template of its responses (needed when it has several).
    #[arg(long)]
    pub template: Option<String>,
    /// Dataset (needed when it has adversarial examples in several; the paper: GSM8K).
    #[arg(long)]
    pub dataset: Option<String>,
    /// Methods compared, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = HumanEvalConfig::new(PathBuf::new(), "").methods)]
    pub method: Vec<String>,
    /// Problems drawn (the paper: 30).
    #[arg(long, default_value_t = HumanEvalConfig::new(PathBuf::new(), "").problems)]
    pub problems: usize,
    /// Adversarial examples per problem and method (the paper: 2).
    #[arg(long, default_value_t = HumanEvalConfig::new(PathBuf::new(), "").per_problem)]
    pub per_problem: usize,
    /// Seed of the draw: the same seed and tables give the same sheet.
    #[arg(long, default_value_t = HumanEvalConfig::new(PathBuf::new(), "").seed)]
    pub seed: u64,
    /// The sheet to write.
    #[arg(long)]
    pub out: PathBuf,
}

impl HumanEvalArgs {
    pub fn config(&self) -> HumanEvalConfig {
        HumanEvalConfig {
            tables: self.tables.clone(),
            model: self.model.clone(),
            template: self.template.clone(),
            dataset: self.dataset.clone(),
            methods: self.method.clone(),
            problems: self.problems,
            per_problem: self.per_problem,
            seed: self.seed,
        }
    }
}

#[derive(Args, Debug)]
pub struct MissRateArgs {
    /// Folder of the Parquet tables (reads responses).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Models whose replies are read, comma-separated (default: every model).
    #[arg(long, value_delimiter = ',')]
    pub model: Vec<String>,
    /// Replies read from a dataset whose name contains `gsm8k` (the study: the first 100);
    /// every reply of the other datasets is read.
    #[arg(long, default_value_t = 100)]
    pub first: usize,
    /// The sheet to write.
    #[arg(long)]
    pub out: PathBuf,
}

impl MissRateArgs {
    pub fn config(&self) -> MissRateConfig {
        MissRateConfig {
            tables: self.tables.clone(),
            models: self.model.clone(),
            first: self.first,
        }
    }
}

#[derive(Args, Debug)]
pub struct IngestArgs {
    /// Folder of the Parquet tables (writes annotations/).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Filled sheets (CSV), one per annotator.
    #[arg(required = true)]
    pub sheets: Vec<PathBuf>,
}

impl Located for AnnotateCommand {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        match self {
            AnnotateCommand::Sample(SampleCommand::HumanEval(a)) => {
                folder(places, &mut a.tables)?;
                output_file(places, &mut a.out)
            }
            AnnotateCommand::Sample(SampleCommand::MissRate(a)) => {
                folder(places, &mut a.tables)?;
                output_file(places, &mut a.out)
            }
            AnnotateCommand::Ingest(a) => {
                for path in &mut a.sheets {
                    input(places, path)?;
                }
                folder(places, &mut a.tables)
            }
        }
    }

    fn outputs_beside_tables(&self) -> Vec<(&Path, &Path)> {
        match self {
            AnnotateCommand::Sample(SampleCommand::HumanEval(a)) => {
                vec![(a.out.as_path(), a.tables.as_path())]
            }
            AnnotateCommand::Sample(SampleCommand::MissRate(a)) => {
                vec![(a.out.as_path(), a.tables.as_path())]
            }
            AnnotateCommand::Ingest(_) => Vec::new(),
        }
    }
}

/// `advmath annotate ...`: a sheet written (its items on stdout as a count), or sheets ingested
/// (one line per sheet; cells that are no verdict listed on stderr, exit 1).
pub fn run(command: AnnotateCommand, out: &mut impl std::io::Write) -> anyhow::Result<()> {
    use advmath::annotate::{self, SheetKind};
    match command {
        AnnotateCommand::Sample(sample) => {
            let (kind, rows, path) = match &sample {
                SampleCommand::HumanEval(a) => (
                    SheetKind::HumanEval,
                    annotate::sample_human_eval(&a.config())?,
                    &a.out,
                ),
                SampleCommand::MissRate(a) => (
                    SheetKind::MissRate,
                    annotate::sample_miss_rate(&a.config())?,
                    &a.out,
                ),
            };
            annotate::write_sheet(path, kind, &rows)?;
            tsv_row(out, ["sheet", "kind", "items"])?;
            tsv_row(
                out,
                [
                    path.display().to_string(),
                    kind.name().to_string(),
                    rows.len().to_string(),
                ],
            )?;
            eprintln!(
                "give each annotator a copy: fill {} with 1 or 0 (yes/no), `annotator` with a name; then `advmath annotate ingest` the copies",
                kind.criteria().join(", ")
            );
        }
        AnnotateCommand::Ingest(a) => {
            let summary = annotate::ingest(&a.tables, &a.sheets)?;
            tsv_row(out, ["sheet", "kind", "annotators", "verdicts", "empty"])?;
            for (path, kind, annotators, verdicts, empty) in &summary.sheets {
                tsv_row(
                    out,
                    [
                        path.display().to_string(),
                        kind.name().to_string(),
                        annotators.join(","),
                        verdicts.to_string(),
                        empty.to_string(),
                    ],
                )?;
            }
            if !summary.bad.is_empty() {
                for line in &summary.bad {
                    eprintln!("{line}");
                }
                return Err(advmath::Error::invalid(
                    "annotation sheets",
                    format!(
                        "{} cells hold no verdict (listed above); the other verdicts were written",
                        summary.bad.len()
                    ),
                )
                .into());
            }
        }
    }
    Ok(())
}
