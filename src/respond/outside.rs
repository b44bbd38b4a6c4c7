//! Results made elsewhere, brought into the same `responses` table as advmath's own and scored
//! by advmath's own extractor.
//!
//! Each outside layout has its own reader behind the `Layout` trait, one file each: OpenAI Batch
//! output (`openai_batch`, which also writes the Batch request file), lm-evaluation-harness
//! samples (`lm_eval`), the ArithmAttack CSVs (`arithmattack`), GSM8K's example model solutions
//! (`gsm8k_solutions`) and any table with a response column (`generic`). This module holds what
//! they share: matching a question to its problem, keying and describing an outside row, and
//! writing one table part per model and input.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::grade::parse_gold;
use super::grade::Extraction;
use super::rows::Item;
use crate::error::{Error, Result};
use crate::llm::client::Decoding;
use crate::llm::prompt::Template;
use crate::num::Num;
use crate::seed::fnv1a;
use crate::store::lock::WriterLock;
use crate::store::problems::read_problems;
use crate::store::reply_merge::merge_model_rows;
use crate::store::responses::model_dir;
use crate::store::responses::ResponseRow;
use crate::vocab::Attack;

mod arithmattack;
mod generic;
mod gsm8k_solutions;
mod lm_eval;
mod openai_batch;

pub use crate::input::{read_csv, read_csv_numbered};
pub use arithmattack::arithmattack_authors_value;
pub use openai_batch::export_batch;

/// Outside layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OutsideFormat {
    /// OpenAI Batch API output JSONL (custom_id = advmath's response key).
    OpenaiBatch,
    /// lm-evaluation-harness `--log_samples` JSONL.
    LmEval,
    /// ArithmAttack CSVs: a folder `<dataset>/<model>/{clean,noise10,noise30,noise50}.csv`, or one CSV.
    Arithmattack,
    /// GSM8K `example_model_solutions.jsonl` (one model per set-up).
    Gsm8kSolutions,
    /// Any JSONL/CSV/Parquet with `--question-col` and `--response-col`.
    Generic,
}

impl OutsideFormat {
    fn layout(self) -> &'static dyn Layout {
        match self {
            OutsideFormat::OpenaiBatch => &openai_batch::OpenaiBatch,
            OutsideFormat::LmEval => &lm_eval::LmEval,
            OutsideFormat::Arithmattack => &arithmattack::Arithmattack,
            OutsideFormat::Gsm8kSolutions => &gsm8k_solutions::Gsm8kSolutions,
            OutsideFormat::Generic => &generic::Generic,
        }
    }
}

/// The reader of one outside layout.
trait Layout {
    /// Every row of the input, scored, each naming its model. The whole input is read before
    /// anything is written, so an input that fails part-way leaves the tables as they were.
    fn read(&self, config: &OutsideConfig) -> Result<Vec<ResponseRow>>;
}

#[derive(Clone, Debug)]
pub struct OutsideConfig {
    pub tables: PathBuf,
    pub input: PathBuf,
    pub format: OutsideFormat,
    /// Model name when the input does not carry one.
    pub model: Option<String>,
    pub template: Template,
    pub decoding: Decoding,
    pub question_col: String,
    pub response_col: String,
    pub gold_col: Option<String>,
    pub noise_level: Option<i32>,
    pub extraction: Extraction,
}

/// Ingest outside results; returns rows written per model.
pub fn ingest_responses(config: &OutsideConfig) -> Result<HashMap<String, usize>> {
    let mut by_model: HashMap<String, Vec<ResponseRow>> = HashMap::new();
    // Batch output answers advmath's own requests, made with these flags; the other layouts
    // hold someone else's run, whose settings advmath does not know.
    let run = match config.format {
        OutsideFormat::OpenaiBatch => {
            let completions = false;
            super::rows::run_label(&config.decoding, config.extraction, completions)
        }
        _ => IMPORTED_RUN.to_string(),
    };
    for row in config.format.layout().read(config)? {
        by_model
            .entry(row.model.clone())
            .or_default()
            .push(row.in_run(&run));
    }
    let current = current_questions(&config.tables)?;
    let mut written = HashMap::new();
    let mut models: Vec<_> = by_model.into_iter().collect();
    models.sort_by(|a, b| a.0.cmp(&b.0));
    for (model, rows) in models {
        // The writer of the model's folder, as `respond` and `compact` take it: an import
        // beside them would be lost to a compaction or interleave with a run.
        let _lock = WriterLock::acquire(&config.tables, "respond", &model)?;
        crate::store::remove_leftovers(&model_dir(&config.tables, &model), None)?;
        let n = rows.len();
        merge_model_rows(&config.tables, &model, rows, &current)?;
        written.insert(model, n);
    }
    Ok(written)
}

/// Each variant's question now (variant id -> question), to supersede replies to a question a
/// regenerated variant no longer asks; empty when there are no variants.
pub(crate) fn current_questions(tables: &Path) -> Result<HashMap<String, String>> {
    if !crate::store::variants::dir(tables).is_dir() {
        return Ok(HashMap::new());
    }
    Ok(super::items::variant_items(tables, &[], &[])?
        .into_iter()
        .filter_map(|it| Some((it.variant_id?, it.question)))
        .collect())
}

/// The run of rows imported from someone else's run (see the `responses` table's `run`).
pub const IMPORTED_RUN: &str = "imported";

/// The attack of an unattacked question: outside originals join advmath's own originals.
fn original_attack() -> &'static str {
    Attack::ORIGINAL
}

/// `--model`, for layouts whose input does not name the model; `why` is the usage error.
fn required_model(config: &OutsideConfig, why: &str) -> Result<String> {
    config
        .model
        .clone()
        .ok_or_else(|| Error::setting("model", why.to_string()))
}

/// A problem of the `problems` table, as an outside question is matched to it.
struct Problem {
    id: String,
    dataset: String,
    gold: Option<Num>,
}

/// The problems table by question text, compared after [`normalise`]: outside inputs copy the
/// text with their own spacing and case. A text several problems share (MultiArith repeats some
/// questions) keeps them in table order.
struct Problems(HashMap<String, Vec<Problem>>);

impl Problems {
    /// No problems table matches nothing: outside rows are kept even when none joins a variant.
    fn load(tables: &Path) -> Problems {
        let by_text = read_problems(tables)
            .map(|ps| {
                let mut by_text: HashMap<String, Vec<Problem>> = HashMap::new();
                for p in ps {
                    let gold = p.answer.as_deref().and_then(Num::parse_decimal);
                    by_text
                        .entry(normalise(&p.question))
                        .or_default()
                        .push(Problem {
                            id: p.problem_id,
                            dataset: p.dataset,
                            gold,
                        });
                }
                by_text
            })
            .unwrap_or_default();
        Problems(by_text)
    }

    /// A matcher for one input file, read in order.
    fn matcher(&self) -> Matcher<'_> {
        Matcher {
            problems: self,
            seen: HashMap::new(),
        }
    }
}

/// Matches the questions of one input file to problems: the k-th occurrence of a text goes to
/// the k-th problem with that text (an input lists a test set in its order, so a repeated
/// question pairs by position); occurrences past the last problem go to the last.
struct Matcher<'a> {
    problems: &'a Problems,
    seen: HashMap<String, usize>,
}

impl<'a> Matcher<'a> {
    fn find(&mut self, question: &str) -> Option<&'a Problem> {
        let key = normalise(question);
        let candidates = self.problems.0.get(&key)?;
        let k = self.seen.entry(key).or_default();
        let problem = candidates.get(*k).or(candidates.last());
        *k += 1;
        problem
    }
}

fn normalise(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The item an outside row answers. The problems table's gold wins over the input's own.
fn outside_item(
    question: &str,
    noise: Option<i32>,
    gold: Option<Num>,
    attack: &str,
    problem: Option<&Problem>,
) -> Item {
    Item {
        // An outside noised text is the only variant of its attack for that model, so it takes
        // index 0 (metrics read the index).
        variant_id: problem.map(|p| format!("{}/{attack}/0", p.id)),
        problem_id: problem.map(|p| p.id.clone()),
        dataset: problem.map(|p| p.dataset.clone()),
        attack: Some(attack.to_string()),
        noise_level: noise,
        question: question.to_string(),
        gold: problem
            .and_then(|p| p.gold)
            .or(gold)
            .map(super::grade::Gold::Answer),
        variant_index: 0,
    }
}

/// The response key of an outside row. An outside input does not record the request settings
/// [`super::rows::response_key`] hashes, so the row is keyed by where it came from; the position keeps
/// two rows asking the same question apart.
fn outside_key(model: &str, source: &str, position: usize, question: &str) -> String {
    let a = fnv1a(format!("{model}\u{0}{source}\u{0}{position}\u{0}{question}").as_bytes());
    let b = fnv1a(format!("{question}\u{1}{position}\u{1}{source}\u{1}{model}").as_bytes());
    format!("{a:016x}{b:016x}")
}

/// The JSON value of every non-blank line, with its 0-based line index. A bad line (not UTF-8,
/// not a JSON object, nested too deep) is reported on stderr by file and line and left out, as a
/// bad row of any other input is.
fn jsonl_values(path: &Path) -> Result<Vec<(usize, Value)>> {
    let bytes = fs::read(path).map_err(|e| Error::file(path, e))?;
    let mut values = Vec::new();
    let mut bad = Vec::new();
    let lines = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace));
    for (row, (i, line)) in lines.enumerate() {
        let value = crate::input::screen_json_line(line).and_then(|text| {
            serde_json::from_str::<Value>(text).map_err(|e| format!("malformed JSON: {e}"))
        });
        match value {
            Ok(v) => values.push((i, v)),
            Err(reason) => bad.push(crate::input::BadRow {
                row,
                line: i + 1,
                reason,
            }),
        }
    }
    crate::input::warn_skipped(path, &bad);
    Ok(values)
}
