//! Human judgements as a workflow: draw the sample a paper's annotators saw, write it as a CSV
//! sheet to fill, and ingest the filled sheets of several annotators into the `annotations`
//! table, which `sql/xie_human_eval.sql` (Xie et al. Figure 2) and
//! `sql/arithmattack_miss_rate.sql` (ArithmAttack Table 2) read.
//!
//! Xie et al. §5: "We randomly select 30 problems that GPT-3.5 failed on for GSM8K and select 2
//! adversarial examples from each problem"; three evaluators score correctness, coherence and
//! similarity, each yes or no. [`sample_human_eval`] draws, with a seed, `problems` problems that
//! have at least `per_problem` adversarial examples of the model in every method asked (so the
//! methods are compared on the same problems), then `per_problem` of each.
//!
//! ArithmAttack §4.1: the miss rate, "the rate with which the correct answer is not extracted",
//! from a manual reading of "the entire responses for the MultiArith dataset and the first 100
//! responses from the GSM8K dataset". [`sample_miss_rate`] writes those replies with the answer
//! the extraction read; the annotator marks each reply whose right answer was missed.

mod sheet;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::error::{Error, Result};
use crate::metrics::{Cell, ResultTable, SqlEngine};
use crate::store::columns;
pub use sheet::{ingest, IngestSummary};

/// Which sheet: the paper element it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SheetKind {
    /// Xie et al. Figure 2.
    HumanEval,
    /// ArithmAttack Table 2.
    MissRate,
}

impl SheetKind {
    pub fn name(self) -> &'static str {
        match self {
            SheetKind::HumanEval => "human_eval",
            SheetKind::MissRate => "miss_rate",
        }
    }

    /// The columns an annotator fills (1 = yes, 0 = no).
    pub fn criteria(self) -> &'static [&'static str] {
        match self {
            SheetKind::HumanEval => &["correctness", "coherence", "similarity"],
            SheetKind::MissRate => &["missed"],
        }
    }

    /// The sheet's columns, in order: what identifies and shows an item, the criteria, then
    /// `annotator` and `note`.
    pub fn columns(self) -> Vec<&'static str> {
        let shown: &[&str] = match self {
            SheetKind::HumanEval => &[
                columns::ITEM,
                columns::MODEL,
                columns::TEMPLATE,
                columns::DATASET,
                columns::METHOD,
                columns::PROBLEM_ID,
                columns::VARIANT_ID,
                "original_question",
                "original_answer",
                columns::QUESTION,
                columns::ANSWER,
            ],
            SheetKind::MissRate => &[
                columns::ITEM,
                columns::MODEL,
                columns::TEMPLATE,
                columns::DATASET,
                columns::ATTACK,
                columns::PROBLEM_ID,
                columns::VARIANT_ID,
                columns::QUESTION,
                columns::GOLD,
                columns::RESPONSE,
                columns::EXTRACTED,
            ],
        };
        shown
            .iter()
            .chain(self.criteria())
            .chain(&[columns::ANNOTATOR, "note"])
            .copied()
            .collect()
    }
}

/// `annotate sample human-eval`: the paper's defaults are 30 problems, 2 examples each, M1-M3.
#[derive(Clone, Debug)]
pub struct HumanEvalConfig {
    pub tables: PathBuf,
    /// The model whose adversarial examples are drawn (the paper: GPT-3.5).
    pub model: String,
    /// Needed when the model answered under several templates.
    pub template: Option<String>,
    /// Needed when the model has adversarial examples in several datasets (the paper: GSM8K).
    pub dataset: Option<String>,
    pub methods: Vec<String>,
    pub problems: usize,
    pub per_problem: usize,
    pub seed: u64,
}

impl HumanEvalConfig {
    pub fn new(tables: PathBuf, model: impl Into<String>) -> Self {
        HumanEvalConfig {
            tables,
            model: model.into(),
            template: None,
            dataset: None,
            methods: crate::vocab::Method::XIE
                .iter()
                .map(|m| m.name().to_string())
                .collect(),
            problems: 30,
            per_problem: 2,
            seed: 0,
        }
    }
}

/// `annotate sample miss-rate`: every reply of each dataset, the first `first` of a dataset
/// whose name contains `gsm8k`.
#[derive(Clone, Debug)]
pub struct MissRateConfig {
    pub tables: PathBuf,
    /// Empty: every model with replies.
    pub models: Vec<String>,
    pub first: usize,
}

/// One row of a sheet: a value per column of [`SheetKind::columns`] (criteria left empty).
pub type SheetRow = BTreeMap<&'static str, String>;

fn text(t: &ResultTable, r: usize, c: &str) -> String {
    match t.get(r, c) {
        Some(Cell::Text(s)) => s.clone(),
        Some(Cell::Null) | None => String::new(),
        Some(Cell::Int(i)) => i.to_string(),
        Some(Cell::Float(f)) => f.to_string(),
        Some(Cell::Bool(b)) => b.to_string(),
    }
}

/// The one value of `what` among `seen`, or `wanted` when given and present; an error naming
/// the choices otherwise.
fn pick_one(
    what: &'static str,
    wanted: &Option<String>,
    seen: &[String],
    model: &str,
) -> Result<String> {
    match wanted {
        Some(w) if seen.contains(w) => Ok(w.clone()),
        Some(w) => Err(Error::usage(format!(
            "{model} has no adversarial example with {what} {w} (it has: {})",
            seen.join(", ")
        ))),
        None if seen.len() == 1 => Ok(seen[0].clone()),
        None if seen.is_empty() => Err(Error::usage(format!(
            "{model} has no adversarial example (a variant answered wrongly whose original it solves): run `advmath respond --model {model}` first"
        ))),
        None => Err(Error::setting(
            what,
            format!(
                "must choose: {model} has adversarial examples under several {what}s ({})",
                seen.join(", ")
            ),
        )),
    }
}

/// Draw Xie et al.'s human-evaluation sample: the sheet's rows, in item order.
pub fn sample_human_eval(config: &HumanEvalConfig) -> Result<Vec<SheetRow>> {
    if config.problems == 0 || config.per_problem == 0 {
        let setting = if config.problems == 0 {
            "problems"
        } else {
            "per_problem"
        };
        return Err(Error::setting(setting, "must be at least 1"));
    }
    let engine = SqlEngine::open(&config.tables)?;
    let pool = engine.query_table(include_str!("../sql/annotate/human_eval_pool.sql"))?;
    let rows: Vec<usize> = (0..pool.len())
        .filter(|&r| text(&pool, r, columns::MODEL) == config.model)
        .collect();
    let distinct = |c: &str, rows: &[usize]| -> Vec<String> {
        let mut v: Vec<String> = rows.iter().map(|&r| text(&pool, r, c)).collect();
        v.sort();
        v.dedup();
        v
    };
    let template = pick_one(
        columns::TEMPLATE,
        &config.template,
        &distinct(columns::TEMPLATE, &rows),
        &config.model,
    )?;
    let rows: Vec<usize> = rows
        .into_iter()
        .filter(|&r| text(&pool, r, columns::TEMPLATE) == template)
        .collect();
    let dataset = pick_one(
        columns::DATASET,
        &config.dataset,
        &distinct(columns::DATASET, &rows),
        &config.model,
    )?;
    // problem -> method -> examples (row numbers), in variant order.
    let mut by_problem: BTreeMap<String, BTreeMap<String, Vec<usize>>> = BTreeMap::new();
    for r in rows {
        let method = text(&pool, r, columns::ATTACK);
        if text(&pool, r, columns::DATASET) != dataset || !config.methods.contains(&method) {
            continue;
        }
        by_problem
            .entry(text(&pool, r, columns::PROBLEM_ID))
            .or_default()
            .entry(method)
            .or_default()
            .push(r);
    }
    let index = |r: usize| pool.get(r, columns::VARIANT_INDEX).and_then(Cell::as_i64);
    let mut eligible: Vec<String> = by_problem
        .iter()
        .filter(|(_, m)| {
            config
                .methods
                .iter()
                .all(|method| m.get(method).is_some_and(|e| e.len() >= config.per_problem))
        })
        .map(|(p, _)| p.clone())
        .collect();
    eligible.sort_by_key(|p| crate::vocab::natural_key(p));
    if eligible.len() < config.problems {
        crate::progress::note!(
            "warning: only {} problems of {dataset} have {} adversarial examples of {} in each of {}; all are taken",
            eligible.len(),
            config.per_problem,
            config.model,
            config.methods.join(", ")
        );
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(config.seed);
    eligible.shuffle(&mut rng);
    eligible.truncate(config.problems);
    eligible.sort_by_key(|p| crate::vocab::natural_key(p));
    let mut out = Vec::new();
    for problem in &eligible {
        for method in &config.methods {
            let mut examples = by_problem[problem][method].clone();
            examples.sort_by_key(|&r| index(r));
            examples.shuffle(&mut rng);
            examples.truncate(config.per_problem);
            examples.sort_by_key(|&r| index(r));
            for r in examples {
                let item = format!("h{:04}", out.len() + 1);
                let mut row = sheet_row(item, &config.model, &template, &dataset, &pool, r);
                row.insert(columns::METHOD, method.clone());
                out.push(row);
            }
        }
    }
    Ok(out)
}

/// Draw ArithmAttack's miss-rate sample: per model and dataset, every reply, or the first
/// `first` of a GSM8K-like dataset, in the study's order (the clean questions, then the noise
/// levels; problems in source order).
pub fn sample_miss_rate(config: &MissRateConfig) -> Result<Vec<SheetRow>> {
    let engine = SqlEngine::open(&config.tables)?;
    let pool = engine.query_table(include_str!("../sql/annotate/miss_rate_pool.sql"))?;
    let mut groups: BTreeMap<(String, String, String), Vec<usize>> = BTreeMap::new();
    for r in 0..pool.len() {
        let model = text(&pool, r, columns::MODEL);
        // `--model m` asks for every run of m; `--model "m [run]"` for that run.
        let asked =
            config.models.contains(&model) || config.models.contains(&text(&pool, r, "base_model"));
        if !config.models.is_empty() && !asked {
            continue;
        }
        groups
            .entry((
                model,
                text(&pool, r, columns::TEMPLATE),
                text(&pool, r, columns::DATASET),
            ))
            .or_default()
            .push(r);
    }
    if groups.is_empty() {
        return Err(Error::usage(format!(
            "no stored replies{} to inspect: run `advmath respond` or `advmath ingest-responses` first",
            if config.models.is_empty() {
                String::new()
            } else {
                format!(" of {}", config.models.join(", "))
            }
        )));
    }
    let mut out = Vec::new();
    for ((model, template, dataset), mut rows) in groups {
        let order = |r: usize| {
            let attack = text(&pool, r, columns::ATTACK);
            let level = if crate::vocab::Attack::is_original(&attack) {
                0
            } else {
                1
            };
            (
                level,
                attack,
                crate::vocab::natural_key(&text(&pool, r, columns::VARIANT_ID)),
            )
        };
        rows.sort_by_cached_key(|&r| order(r));
        if dataset.to_ascii_lowercase().contains("gsm8k") {
            rows.truncate(config.first);
        }
        for r in rows {
            let item = format!("m{:05}", out.len() + 1);
            out.push(sheet_row(item, &model, &template, &dataset, &pool, r));
        }
    }
    Ok(out)
}

/// A sheet row for pool row `r`: the item's id and source, and every pool column the sheet shows
/// (the columns a sheet has and the pool lacks are left to the caller).
fn sheet_row(
    item: String,
    model: &str,
    template: &str,
    dataset: &str,
    pool: &ResultTable,
    r: usize,
) -> SheetRow {
    let mut row = SheetRow::new();
    row.insert(columns::ITEM, item);
    row.insert(columns::MODEL, model.to_string());
    row.insert(columns::TEMPLATE, template.to_string());
    row.insert(columns::DATASET, dataset.to_string());
    let shown = SheetKind::HumanEval
        .columns()
        .into_iter()
        .chain(SheetKind::MissRate.columns())
        .filter(|c| !row.contains_key(c) && pool.column(c).is_some());
    for c in shown.collect::<Vec<_>>() {
        row.insert(c, text(pool, r, c));
    }
    row
}

/// Write `rows` as a sheet of `kind` at `path` (CSV, every field quoted; criteria, annotator and
/// note empty).
pub fn write_sheet(path: &Path, kind: SheetKind, rows: &[SheetRow]) -> Result<()> {
    Ok(crate::store::write_text(path, &sheet::to_csv(kind, rows))?)
}
