//! Results made elsewhere: export prompts as an OpenAI Batch file, and ingest outside results
//! (Batch output, lm-evaluation-harness samples, the ArithmAttack CSV layout, GSM8K's example
//! model solutions, or any table with a response column) into the same `responses` table, scored
//! by advmath's own extractor.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{model_dir, response_key, rows_to_batch, variant_items, Decoding, Item, ResponseRow};
use crate::error::{Error, Result};
use crate::ingest::read_problems;
use crate::num::Num;
use crate::prompt::Template;
use crate::seed::fnv1a;
use crate::table::write_batch;

mod cells;

pub use cells::read_csv;
use cells::read_generic;

/// Outside layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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
    pub extraction: super::Extraction,
}

/// Write the OpenAI Batch API request file for every selected variant.
pub fn export_batch(
    tables: &Path,
    out: &Path,
    model: &str,
    template: &Template,
    decoding: &Decoding,
    attacks: &[String],
    completions: bool,
) -> Result<usize> {
    let items = variant_items(tables, attacks, &[])?;
    let endpoint = super::Endpoint {
        url: String::new(),
        model: model.to_string(),
        completions,
        api_key: None,
        timeout: std::time::Duration::from_secs(1),
        max_attempts: 1,
        backoff_base: std::time::Duration::ZERO,
        backoff_cap: std::time::Duration::ZERO,
    };
    let url = if completions {
        "/v1/completions"
    } else {
        "/v1/chat/completions"
    };
    let mut text = String::new();
    let mut seen = std::collections::HashSet::new();
    for it in &items {
        let key = response_key(model, template, decoding, &it.question);
        if !seen.insert(key.clone()) {
            continue;
        }
        let line = json!({ "custom_id": key, "method": "POST", "url": url, "body": endpoint.body(&template.render(&it.question), decoding) });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    crate::table::write_text(out, &text)?;
    Ok(seen.len())
}

fn normalise(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Problems by normalised question text: (problem_id, dataset, gold).
fn problems_by_text(tables: &Path) -> HashMap<String, (String, String, Option<Num>)> {
    read_problems(tables)
        .map(|ps| {
            ps.into_iter()
                .map(|p| {
                    let gold = p.answer.as_deref().and_then(Num::parse_decimal);
                    (normalise(&p.question), (p.problem_id, p.dataset, gold))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn outside_key(model: &str, source: &str, position: usize, question: &str) -> String {
    let a = fnv1a(format!("{model}\u{0}{source}\u{0}{position}\u{0}{question}").as_bytes());
    let b = fnv1a(format!("{question}\u{1}{position}\u{1}{source}\u{1}{model}").as_bytes());
    format!("{a:016x}{b:016x}")
}

fn parse_gold(text: &str) -> Option<Num> {
    let t = text
        .rsplit_once("####")
        .map(|(_, a)| a)
        .or_else(|| text.rsplit_once("A:").map(|(_, a)| a))
        .unwrap_or(text);
    Num::parse_decimal(&t.trim().replace([',', '$'], ""))
}

/// Ingest outside results; returns rows written per model.
pub fn ingest_responses(config: &OutsideConfig) -> Result<HashMap<String, usize>> {
    let by_text = problems_by_text(&config.tables);
    let mut out: HashMap<String, Vec<ResponseRow>> = HashMap::new();
    let source_name = config
        .input
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("input")
        .to_string();
    let item_for = |question: &str,
                    noise: Option<i32>,
                    gold: Option<Num>,
                    attack: &str,
                    problem: Option<&(String, String, Option<Num>)>| Item {
        // Originals join advmath's own `original` rows. An outside noised text is the only
        // variant of its attack for that model, so it takes index 0 (metrics read the index).
        variant_id: problem.map(|p| {
            if attack == "original" {
                format!("{}/original/0", p.0)
            } else {
                format!("{}/{attack}/0", p.0)
            }
        }),
        problem_id: problem.map(|p| p.0.clone()),
        dataset: problem.map(|p| p.1.clone()),
        attack: Some(attack.to_string()),
        noise_level: noise,
        question: question.to_string(),
        gold: problem.and_then(|p| p.2).or(gold),
        variant_index: 0,
    };
    match config.format {
        OutsideFormat::Arithmattack => {
            for (dataset, model, level, path) in arithmattack_files(&config.input, config)? {
                let rows = read_csv(&path)?;
                let match_questions = |rows: &[HashMap<String, String>]| {
                    rows.iter()
                        .map(|r| {
                            let question = r.get("Question").map(String::as_str).unwrap_or("");
                            by_text.get(&normalise(question)).cloned()
                        })
                        .collect::<Vec<Option<(String, String, Option<Num>)>>>()
                };
                let problems = if level == 0 {
                    match_questions(&rows)
                } else if let Some(clean) = arithmattack_clean(&path) {
                    // Noised rows align by position with the clean file of the same model.
                    match_questions(&read_csv(&clean)?)
                } else {
                    Vec::new()
                };
                let attack = if level == 0 {
                    "original".to_string()
                } else {
                    format!("punct{level}")
                };
                for (i, r) in rows.iter().enumerate() {
                    let q = r.get("Question").cloned().unwrap_or_default();
                    let text = r.get("Answer - LLM").cloned().unwrap_or_default();
                    let gold = r
                        .get("Answer - Ground Truth Converted")
                        .and_then(|g| Num::parse_decimal(g.trim()));
                    let problem = problems.get(i).and_then(|p| p.as_ref());
                    let mut item = item_for(&q, Some(level), gold, &attack, problem);
                    if item.dataset.is_none() {
                        item.dataset = Some(dataset.clone());
                    }
                    let key =
                        outside_key(&model, &format!("arithmattack/{dataset}/{level}"), i, &q);
                    out.entry(model.clone())
                        .or_default()
                        .push(ResponseRow::scored_by(
                            key,
                            &model,
                            "arithmattack",
                            &item,
                            text,
                            "arithmattack_csv",
                            config.extraction,
                        ));
                }
            }
        }
        OutsideFormat::Gsm8kSolutions => {
            for (i, v) in jsonl_values(&config.input)? {
                let q = v["question"].as_str().unwrap_or("").to_string();
                let gold = v["ground_truth"].as_str().and_then(parse_gold);
                let problem = by_text.get(&normalise(&q));
                for (model, sol) in v.as_object().into_iter().flatten() {
                    let Some(solution) = sol.get("solution").and_then(Value::as_str) else {
                        continue;
                    };
                    let item = item_for(&q, Some(0), gold, "original", problem);
                    let key = outside_key(model, "gsm8k_solutions", i, &q);
                    out.entry(model.clone())
                        .or_default()
                        .push(ResponseRow::scored_by(
                            key,
                            model,
                            "gsm8k",
                            &item,
                            solution.to_string(),
                            "gsm8k_solutions",
                            config.extraction,
                        ));
                }
            }
        }
        OutsideFormat::OpenaiBatch => {
            let model = config.model.clone().ok_or_else(|| {
                Error::Usage("--model names the model the batch was run with".into())
            })?;
            // One request per distinct question: its reply answers every variant asking it.
            let mut items: HashMap<String, Vec<Item>> = HashMap::new();
            for it in variant_items(&config.tables, &[], &[])? {
                let key = response_key(&model, &config.template, &config.decoding, &it.question);
                items.entry(key).or_default().push(it);
            }
            for (i, v) in jsonl_values(&config.input)? {
                let where_ = format!("{}: line {}", config.input.display(), i + 1);
                let key = v["custom_id"].as_str().unwrap_or("").to_string();
                let Some(asking) = items.get(&key) else {
                    eprintln!(
                        "warning: {where_}: custom_id {key} matches no variant with these settings"
                    );
                    continue;
                };
                let body = &v["response"]["body"];
                let completions = body["object"].as_str() == Some("text_completion");
                let (text, p, c, f) =
                    match super::client::parse_completion(&body.to_string(), completions) {
                        Ok(parsed) => parsed,
                        Err(e) => {
                            eprintln!("warning: {where_}: {e}");
                            continue;
                        }
                    };
                for item in asking {
                    let mut row = ResponseRow::scored_by(
                        key.clone(),
                        &model,
                        &config.template.name,
                        item,
                        text.clone(),
                        "openai_batch",
                        config.extraction,
                    );
                    row.prompt_tokens = p;
                    row.completion_tokens = c;
                    row.finish_reason = f.clone();
                    out.entry(model.clone()).or_default().push(row);
                }
            }
        }
        OutsideFormat::LmEval => {
            let model = config
                .model
                .clone()
                .ok_or_else(|| Error::Usage("--model names the evaluated model".into()))?;
            for (i, v) in jsonl_values(&config.input)? {
                let q = v["doc"]["question"]
                    .as_str()
                    .or(v["doc"]["problem"].as_str())
                    .unwrap_or("")
                    .to_string();
                let resp = v["resps"][0][0]
                    .as_str()
                    .or(v["resps"][0].as_str())
                    .unwrap_or("")
                    .to_string();
                let gold = v["target"]
                    .as_str()
                    .and_then(parse_gold)
                    .or(v["target"].as_f64().map(Num::from_f64));
                let item = item_for(&q, Some(0), gold, "original", by_text.get(&normalise(&q)));
                let key = outside_key(&model, "lm_eval", i, &q);
                out.entry(model.clone())
                    .or_default()
                    .push(ResponseRow::scored_by(
                        key,
                        &model,
                        "lm_eval",
                        &item,
                        resp,
                        "lm_eval",
                        config.extraction,
                    ));
            }
        }
        OutsideFormat::Generic => {
            let model = config
                .model
                .clone()
                .ok_or_else(|| Error::Usage("--model names the model".into()))?;
            for (i, r) in read_generic(&config.input)?.iter().enumerate() {
                let q = r.get(&config.question_col).cloned().ok_or_else(|| {
                    Error::invalid(
                        config.input.display(),
                        format!("row {}: no column {}", i + 1, config.question_col),
                    )
                })?;
                let resp = r.get(&config.response_col).cloned().unwrap_or_default();
                let gold = config
                    .gold_col
                    .as_ref()
                    .and_then(|c| r.get(c))
                    .and_then(|g| parse_gold(g));
                let item = item_for(
                    &q,
                    config.noise_level.or(Some(0)),
                    gold,
                    "original",
                    by_text.get(&normalise(&q)),
                );
                let key = outside_key(&model, &source_name, i, &q);
                out.entry(model.clone())
                    .or_default()
                    .push(ResponseRow::scored_by(
                        key,
                        &model,
                        "outside",
                        &item,
                        resp,
                        "generic",
                        config.extraction,
                    ));
            }
        }
    }
    let mut written = HashMap::new();
    for (model, rows) in out {
        let tag = format!(
            "{:016x}",
            fnv1a(config.input.display().to_string().as_bytes())
        );
        let path = model_dir(&config.tables, &model).join(format!("part-outside-{tag}.parquet"));
        // One file per (model, input): ingesting the same input again replaces it.
        write_batch(&path, &rows_to_batch(&rows)?)?;
        written.insert(model, rows.len());
    }
    Ok(written)
}

/// The JSON value of every non-blank line, with its 0-based line index; a malformed line is an
/// error naming the file and line (outside results are all-or-nothing per file).
fn jsonl_values(path: &Path) -> Result<Vec<(usize, Value)>> {
    let text = fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .map(|v| (i, v))
                .map_err(|e| Error::invalid(path.display(), format!("line {}: {e}", i + 1)))
        })
        .collect()
}

/// (dataset, model, noise level, file) for an ArithmAttack folder or file.
fn arithmattack_files(
    input: &Path,
    config: &OutsideConfig,
) -> Result<Vec<(String, String, i32, PathBuf)>> {
    let level_of = |p: &Path| -> Option<i32> {
        let stem = p.file_stem()?.to_str()?;
        if stem == "clean" {
            Some(0)
        } else {
            stem.strip_prefix("noise")?.parse().ok()
        }
    };
    let mut files = Vec::new();
    let mut stack = vec![input.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in fs::read_dir(&p)
                .map_err(|e| Error::file(&p, e))?
                .filter_map(|e| e.ok())
            {
                stack.push(e.path());
            }
        } else if p.extension().is_some_and(|x| x == "csv") {
            let level = level_of(&p).or(config.noise_level);
            let Some(level) = level else { continue };
            let model = config
                .model
                .clone()
                .or_else(|| p.parent()?.file_name()?.to_str().map(String::from))
                .unwrap_or_else(|| "model".into());
            let dataset = p
                .parent()
                .and_then(|m| m.parent())
                .and_then(|d| d.file_name())
                .and_then(|d| d.to_str())
                .unwrap_or("arithmattack")
                .to_string();
            files.push((dataset, model, level, p));
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::invalid(
            input.display(),
            "no ArithmAttack CSV (clean.csv, noiseNN.csv) found",
        ));
    }
    Ok(files)
}

fn arithmattack_clean(noised: &Path) -> Option<PathBuf> {
    let clean = noised.with_file_name("clean.csv");
    clean.is_file().then_some(clean)
}

/// The ArithmAttack authors' own extraction, `Answer - LLM Converted`: their code writes
/// `sys.maxsize` when it finds no number, which is a miss, not a value.
pub fn arithmattack_authors_value(text: &str) -> Option<Num> {
    Num::parse_decimal(text).filter(|v| v.to_f64() < 9.0e18)
}
