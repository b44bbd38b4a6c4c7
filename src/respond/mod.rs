//! The responses stage: ask a model about variants and keep every answer in the `responses`
//! table, crash-safely.
//!
//! Each response is keyed by a hash of (model, template, decoding settings, question). Finished
//! responses go first to a write-ahead log (one JSON line each, flushed at once), then every K
//! responses or T seconds into a Parquet part written atomically, after which the log is
//! dropped. A rerun first folds any log left by a killed run into a part (skipping keys already
//! stored), then skips every stored key: a kill loses only the requests in flight and never
//! duplicates a row.

pub mod client;
pub mod outside;
pub mod programs;
pub mod sim;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::extract::{extract, is_correct, is_correct_exact};
use crate::ingest::{read_problems, sanitize};
use crate::num::Num;
use crate::program::tree::num_text;
use crate::prompt::Template;
use crate::schema;
use crate::seed::{fnv1a, mix};
use crate::table::{read_batches, write_batch};

pub use client::{Decoding, Endpoint};

/// How answers are read from responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Extraction {
    /// advmath's rules: the stated answer ("the answer is", boxed, ...), else the last number.
    #[default]
    Standard,
    /// The last number of the reply, as the ArithmAttack study scored (to reproduce its figures).
    LastNumber,
    /// Xie et al.'s scorer: the last match of `\d+\.?,?\d*`, no sign (to reproduce their figures).
    Xie2024,
}

/// One question to ask: a variant, or an outside row.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub variant_id: Option<String>,
    pub problem_id: Option<String>,
    pub dataset: Option<String>,
    pub attack: Option<String>,
    pub noise_level: Option<i32>,
    pub question: String,
    pub gold: Option<Num>,
    pub variant_index: i32,
}

/// One row of the `responses` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseRow {
    pub response_key: String,
    pub model: String,
    pub template: String,
    pub variant_id: Option<String>,
    pub problem_id: Option<String>,
    pub dataset: Option<String>,
    pub attack: Option<String>,
    pub noise_level: Option<i32>,
    pub question: String,
    pub response: Option<String>,
    pub extracted: Option<String>,
    pub extraction_rule: String,
    pub gold: Option<String>,
    pub correct: Option<bool>,
    pub correct_exact: Option<bool>,
    pub latency_ms: Option<f64>,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub finish_reason: Option<String>,
    pub source: String,
    pub simulated: bool,
    pub error: Option<String>,
}

impl ResponseRow {
    /// A row for a generated text: extraction and scoring happen here, once.
    pub fn scored(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
    ) -> ResponseRow {
        Self::scored_by(
            key,
            model,
            template,
            item,
            text,
            source,
            Extraction::Standard,
        )
    }

    /// As [`ResponseRow::scored`], with a chosen extraction scheme.
    pub fn scored_by(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
        extraction: Extraction,
    ) -> ResponseRow {
        let e = match extraction {
            Extraction::Standard => extract(&text),
            Extraction::LastNumber => crate::extract::extract_last_number(&text),
            Extraction::Xie2024 => crate::extract::extract_xie2024(&text),
        };
        ResponseRow {
            response_key: key,
            model: model.to_string(),
            template: template.to_string(),
            variant_id: item.variant_id.clone(),
            problem_id: item.problem_id.clone(),
            dataset: item.dataset.clone(),
            attack: item.attack.clone(),
            noise_level: item.noise_level,
            question: item.question.clone(),
            response: Some(text),
            extracted: e.value.map(|v| num_text::to_text(&v)),
            extraction_rule: e.rule.name().to_string(),
            gold: item.gold.map(|g| num_text::to_text(&g)),
            correct: item.gold.map(|g| is_correct(e.value, g)),
            correct_exact: item.gold.map(|g| is_correct_exact(e.value, g)),
            latency_ms: None,
            prompt_tokens: None,
            completion_tokens: None,
            finish_reason: None,
            source: source.to_string(),
            simulated: sim::is_simulated(model),
            error: None,
        }
    }
}

/// The resume key: hex of two independent 64-bit hashes of the settings and the question.
pub fn response_key(
    model: &str,
    template: &Template,
    decoding: &Decoding,
    question: &str,
) -> String {
    let text = format!(
        "{model}\u{0}{}\u{0}{}\u{0}{question}",
        template.text,
        decoding.key_text()
    );
    let a = fnv1a(text.as_bytes());
    let b = mix(a ^ fnv1a(&[text.as_bytes(), b"\x01"].concat()));
    format!("{a:016x}{b:016x}")
}

pub fn rows_to_batch(rows: &[ResponseRow]) -> Result<RecordBatch> {
    let s = |f: &dyn Fn(&ResponseRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    Ok(RecordBatch::try_new(
        schema::responses(),
        vec![
            s(&|r| Some(&r.response_key)),
            s(&|r| Some(&r.model)),
            s(&|r| Some(&r.template)),
            s(&|r| r.variant_id.as_deref()),
            s(&|r| r.problem_id.as_deref()),
            s(&|r| r.dataset.as_deref()),
            s(&|r| r.attack.as_deref()),
            Arc::new(rows.iter().map(|r| r.noise_level).collect::<Int32Array>()),
            s(&|r| Some(&r.question)),
            s(&|r| r.response.as_deref()),
            s(&|r| r.extracted.as_deref()),
            s(&|r| Some(&r.extraction_rule)),
            s(&|r| r.gold.as_deref()),
            Arc::new(rows.iter().map(|r| r.correct).collect::<BooleanArray>()),
            Arc::new(
                rows.iter()
                    .map(|r| r.correct_exact)
                    .collect::<BooleanArray>(),
            ),
            Arc::new(rows.iter().map(|r| r.latency_ms).collect::<Float64Array>()),
            Arc::new(rows.iter().map(|r| r.prompt_tokens).collect::<Int64Array>()),
            Arc::new(
                rows.iter()
                    .map(|r| r.completion_tokens)
                    .collect::<Int64Array>(),
            ),
            s(&|r| r.finish_reason.as_deref()),
            s(&|r| Some(&r.source)),
            Arc::new(
                rows.iter()
                    .map(|r| Some(r.simulated))
                    .collect::<BooleanArray>(),
            ),
            s(&|r| r.error.as_deref()),
        ],
    )?)
}

/// The folder of one model's responses.
pub fn model_dir(tables: &Path, model: &str) -> PathBuf {
    tables.join("responses").join(sanitize(model))
}

fn part_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// What resume and selection need of a stored response:
/// (response_key, variant_id, attack, correct, problem_id).
pub type StoredRow = (
    String,
    Option<String>,
    Option<String>,
    Option<bool>,
    Option<String>,
);

/// Read the [`StoredRow`] of every stored response of a model.
pub fn stored_rows(tables: &Path, model: &str) -> Result<Vec<StoredRow>> {
    let mut out = Vec::new();
    for f in part_files(&model_dir(tables, model)) {
        for b in read_batches(&f)? {
            let col = |n: &str| b.column_by_name(n).map(|c| c.as_string::<i32>().clone());
            let (Some(keys), Some(vids), Some(attacks), Some(pids)) = (
                col("response_key"),
                col("variant_id"),
                col("attack"),
                col("problem_id"),
            ) else {
                return Err(Error::invalid(f.display(), "not a responses table"));
            };
            let correct = b.column_by_name("correct").map(|c| c.as_boolean().clone());
            for i in 0..b.num_rows() {
                let opt = |a: &StringArray| (!a.is_null(i)).then(|| a.value(i).to_string());
                let c = correct
                    .as_ref()
                    .and_then(|c| (!c.is_null(i)).then(|| c.value(i)));
                out.push((
                    keys.value(i).to_string(),
                    opt(&vids),
                    opt(&attacks),
                    c,
                    opt(&pids),
                ));
            }
        }
    }
    Ok(out)
}

/// Every variant in the tables, as items, in table order.
pub fn variant_items(tables: &Path, attacks: &[String], datasets: &[String]) -> Result<Vec<Item>> {
    let root = tables.join("variants");
    if !root.is_dir() {
        return Err(Error::invalid(
            root.display(),
            "no variants table (run `advmath generate` first, or pass --tables)",
        ));
    }
    let mut items = Vec::new();
    for (dataset, ddir) in crate::table::partitions(&root, "dataset")? {
        if !datasets.is_empty() && !datasets.contains(&dataset) {
            continue;
        }
        for (attack, adir) in crate::table::partitions(&ddir, "attack")? {
            if !attacks.is_empty() && !attacks.contains(&attack) && attack != "original" {
                continue;
            }
            for f in part_files(&adir) {
                for b in read_batches(&f)? {
                    let col = |n: &str| crate::table::text_column(&b, n, &f);
                    let (vid, pid, q, gold) = (
                        col("variant_id")?,
                        col("problem_id")?,
                        col("question")?,
                        col("answer_exact")?,
                    );
                    let noise = b
                        .column_by_name("noise_level")
                        .map(|c| c.as_primitive::<arrow::datatypes::Int32Type>().clone());
                    let index = b
                        .column_by_name("variant_index")
                        .map(|c| c.as_primitive::<arrow::datatypes::Int32Type>().clone());
                    for i in 0..b.num_rows() {
                        items.push(Item {
                            variant_id: Some(vid.value(i).to_string()),
                            problem_id: Some(pid.value(i).to_string()),
                            dataset: Some(dataset.clone()),
                            attack: Some(attack.clone()),
                            noise_level: noise.as_ref().map(|n| n.value(i)),
                            question: q.value(i).to_string(),
                            gold: num_text::from_text(gold.value(i)),
                            variant_index: index.as_ref().map(|n| n.value(i)).unwrap_or(0),
                        });
                    }
                }
            }
        }
    }
    Ok(items)
}

/// The efficient attack (paper 4.2): keep originals, and only the variants that fooled `cheap`
/// on problems whose original `cheap` answered correctly; at most `per_problem` per problem.
pub fn select_failures(
    items: Vec<Item>,
    tables: &Path,
    cheap: &str,
    per_problem: Option<usize>,
) -> Result<Vec<Item>> {
    let rows = stored_rows(tables, cheap)?;
    if rows.is_empty() {
        return Err(Error::invalid(
            model_dir(tables, cheap).display(),
            format!("no responses of {cheap} to select failures from"),
        ));
    }
    let mut fooled = HashSet::new();
    let mut original_right = HashSet::new();
    for (_, vid, attack, correct, pid) in &rows {
        match (attack.as_deref(), correct, vid, pid) {
            (Some("original"), Some(true), _, Some(p)) => {
                original_right.insert(p.clone());
            }
            (Some(a), Some(false), Some(v), _) if a != "original" => {
                fooled.insert(v.clone());
            }
            _ => {}
        }
    }
    let mut taken: HashMap<String, usize> = HashMap::new();
    Ok(items
        .into_iter()
        .filter(|it| {
            if it.attack.as_deref() == Some("original") {
                return true;
            }
            let pid = it.problem_id.clone().unwrap_or_default();
            if !original_right.contains(&pid)
                || !it.variant_id.as_ref().is_some_and(|v| fooled.contains(v))
            {
                return false;
            }
            let n = taken.entry(pid).or_default();
            *n += 1;
            per_problem.is_none_or(|k| *n <= k)
        })
        .collect())
}

/// Where answers come from.
#[derive(Clone, Debug)]
pub enum Backend {
    Endpoint(Endpoint),
    /// `oracle` or a `sim-*` model.
    Offline,
}

#[derive(Clone, Debug)]
pub struct RespondConfig {
    pub tables: PathBuf,
    pub model: String,
    pub template: Template,
    pub decoding: Decoding,
    pub backend: Backend,
    pub attacks: Vec<String>,
    pub datasets: Vec<String>,
    pub from_failures_of: Option<String>,
    pub per_problem: Option<usize>,
    pub limit: Option<usize>,
    pub concurrency: usize,
    pub flush_every: usize,
    pub flush_seconds: f64,
    pub progress: bool,
}

#[derive(Clone, Debug, Default)]
pub struct RespondSummary {
    pub asked: usize,
    pub skipped_done: usize,
    pub failed: usize,
    pub written: usize,
    pub correct: usize,
}

/// Fold write-ahead logs of a killed run into a part, keeping only keys not yet stored.
fn recover_logs(dir: &Path, done: &mut HashSet<String>) -> Result<usize> {
    let mut logs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "wal"))
                .collect()
        })
        .unwrap_or_default();
    logs.sort();
    let mut rows = Vec::new();
    for log in &logs {
        let f = File::open(log).map_err(|e| Error::file(log, e))?;
        for line in BufReader::new(f).lines() {
            let Ok(line) = line else { break };
            // A kill mid-line leaves a torn last line: it was never acknowledged, skip it.
            if let Ok(row) = serde_json::from_str::<ResponseRow>(&line) {
                if done.insert(row.response_key.clone()) {
                    rows.push(row);
                }
            }
        }
    }
    if !rows.is_empty() {
        write_batch(&dir.join(part_name("recovered")), &rows_to_batch(&rows)?)?;
    }
    for log in logs {
        fs::remove_file(&log).map_err(|e| Error::file(&log, e))?;
    }
    Ok(rows.len())
}

fn part_name(tag: &str) -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    format!("part-{ms:014}-{}-{tag}.parquet", std::process::id())
}

/// Buffered, logged writer of one model's responses.
struct Sink {
    dir: PathBuf,
    log_path: PathBuf,
    log: File,
    buffer: Vec<ResponseRow>,
    seq: usize,
    last_flush: Instant,
    written: usize,
}

impl Sink {
    fn new(dir: &Path) -> Result<Sink> {
        fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        let log_path = dir.join(format!(
            "log-{}-{}.wal",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        ));
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| Error::file(&log_path, e))?;
        Ok(Sink {
            dir: dir.to_path_buf(),
            log_path,
            log,
            buffer: Vec::new(),
            seq: 0,
            last_flush: Instant::now(),
            written: 0,
        })
    }

    fn push(&mut self, row: ResponseRow) -> Result<()> {
        let mut line = serde_json::to_string(&row)?;
        line.push('\n');
        self.log
            .write_all(line.as_bytes())
            .map_err(|e| Error::file(&self.log_path, e))?;
        self.buffer.push(row);
        Ok(())
    }

    fn due(&self, every: usize, seconds: f64) -> bool {
        self.buffer.len() >= every
            || (!self.buffer.is_empty() && self.last_flush.elapsed().as_secs_f64() >= seconds)
    }

    /// Part first (atomic), then a fresh log: a kill in between only duplicates into the old
    /// log, which recovery de-duplicates by key.
    fn flush(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        write_batch(
            &self.dir.join(part_name(&format!("{:05}", self.seq))),
            &rows_to_batch(&self.buffer)?,
        )?;
        self.seq += 1;
        self.written += self.buffer.len();
        self.buffer.clear();
        self.log
            .set_len(0)
            .map_err(|e| Error::file(&self.log_path, e))?;
        self.last_flush = Instant::now();
        Ok(())
    }

    fn close(mut self) -> Result<usize> {
        self.flush()?;
        drop(self.log);
        let _ = fs::remove_file(&self.log_path);
        Ok(self.written)
    }
}

/// Ask the model about every selected variant not yet answered.
pub fn respond(config: &RespondConfig) -> Result<RespondSummary> {
    let mut items = variant_items(&config.tables, &config.attacks, &config.datasets)?;
    if let Some(cheap) = &config.from_failures_of {
        items = select_failures(items, &config.tables, cheap, config.per_problem)?;
    } else if let Some(k) = config.per_problem {
        items.retain(|it| {
            it.attack.as_deref() == Some("original") || (it.variant_index as usize) < k
        });
    }
    if let Some(n) = config.limit {
        items.truncate(n);
    }
    let dir = model_dir(&config.tables, &config.model);
    let mut done: HashSet<String> = stored_rows(&config.tables, &config.model)?
        .into_iter()
        .map(|r| r.0)
        .collect();
    let recovered = recover_logs(&dir, &mut done)?;
    if recovered > 0 {
        eprintln!("recovered {recovered} responses logged by an interrupted run");
    }
    let mut summary = RespondSummary::default();
    let mut seen = HashSet::new();
    let todo: Vec<(String, Item)> = items
        .into_iter()
        .filter_map(|it| {
            let key = response_key(
                &config.model,
                &config.template,
                &config.decoding,
                &it.question,
            );
            if done.contains(&key) {
                summary.skipped_done += 1;
                return None;
            }
            // The same question twice (an original and an unchanged noise copy) is asked once.
            seen.insert(key.clone()).then_some((key, it))
        })
        .collect();
    summary.asked = todo.len();
    if todo.is_empty() {
        return Ok(summary);
    }
    match &config.backend {
        Backend::Offline => respond_offline(config, todo, &dir, &mut summary)?,
        Backend::Endpoint(endpoint) => {
            respond_endpoint(config, endpoint, todo, &dir, &mut summary)?
        }
    }
    Ok(summary)
}

fn respond_offline(
    config: &RespondConfig,
    todo: Vec<(String, Item)>,
    dir: &Path,
    summary: &mut RespondSummary,
) -> Result<()> {
    if !sim::is_simulated(&config.model) || !sim::SIMULATED.contains(&config.model.as_str()) {
        return Err(Error::Usage(format!(
            "model {} needs --endpoint (offline models: {})",
            config.model,
            sim::SIMULATED.join(", ")
        )));
    }
    let problems: HashMap<String, crate::ingest::ProblemRecord> = read_problems(&config.tables)?
        .into_iter()
        .map(|p| (p.problem_id.clone(), p))
        .collect();
    let numbers = variant_numbers(&config.tables)?;
    let rows: Vec<ResponseRow> = todo
        .par_iter()
        .filter_map(|(key, it)| {
            let p = problems.get(it.problem_id.as_deref()?)?;
            let nums = it
                .variant_id
                .as_ref()
                .and_then(|v| numbers.get(v))
                .cloned()
                .unwrap_or_else(|| p.slot_nums());
            let text = sim::simulate(
                &config.model,
                it.variant_id.as_deref()?,
                p.tree.as_ref()?,
                &nums,
                it.noise_level.unwrap_or(0),
            )?;
            let source = if config.model == "oracle" {
                "oracle"
            } else {
                "simulated"
            };
            Some(ResponseRow::scored(
                key.clone(),
                &config.model,
                &config.template.name,
                it,
                text,
                source,
            ))
        })
        .collect();
    summary.failed = todo.len() - rows.len();
    summary.correct = rows.iter().filter(|r| r.correct == Some(true)).count();
    summary.written = rows.len();
    fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    // Deterministic name and content: offline runs are reproducible byte for byte.
    let path = dir.join(format!("part-offline-{:05}.parquet", part_files(dir).len()));
    write_batch(&path, &rows_to_batch(&rows)?)?;
    Ok(())
}

/// variant_id -> slot values, for simulated models.
fn variant_numbers(tables: &Path) -> Result<HashMap<String, Vec<Num>>> {
    let mut out = HashMap::new();
    for (p, _) in crate::table::parquet_files_under(&tables.join("variants"))? {
        for b in read_batches(&p)? {
            let (Some(v), Some(n)) = (b.column_by_name("variant_id"), b.column_by_name("numbers"))
            else {
                continue;
            };
            let (v, n) = (v.as_string::<i32>(), n.as_list::<i32>());
            for i in 0..b.num_rows() {
                let arr = n.value(i);
                let nums = arr
                    .as_string::<i32>()
                    .iter()
                    .map(|s| s.and_then(num_text::from_text).unwrap_or(Num::ZERO))
                    .collect();
                out.insert(v.value(i).to_string(), nums);
            }
        }
    }
    Ok(out)
}

fn respond_endpoint(
    config: &RespondConfig,
    endpoint: &Endpoint,
    todo: Vec<(String, Item)>,
    dir: &Path,
    summary: &mut RespondSummary,
) -> Result<()> {
    let total = todo.len();
    let queue = Arc::new(Mutex::new(todo.into_iter().collect::<VecDeque<_>>()));
    let agent = client::agent(endpoint.timeout, config.concurrency);
    let (tx, rx) = mpsc::channel::<std::result::Result<ResponseRow, (Item, String)>>();
    let mut workers = Vec::new();
    for w in 0..config.concurrency.max(1) {
        let (queue, agent, tx, endpoint, config) = (
            queue.clone(),
            agent.clone(),
            tx.clone(),
            endpoint.clone(),
            config.clone(),
        );
        workers.push(std::thread::spawn(move || loop {
            let Some((key, item)) = queue.lock().expect("queue lock").pop_front() else {
                break;
            };
            let prompt = config.template.render(&item.question);
            let jitter = mix(fnv1a(key.as_bytes()) ^ w as u64);
            let msg = match client::complete(&agent, &endpoint, &prompt, &config.decoding, jitter) {
                Ok(c) => {
                    let mut row = ResponseRow::scored(
                        key,
                        &config.model,
                        &config.template.name,
                        &item,
                        c.text,
                        "endpoint",
                    );
                    row.latency_ms = Some(c.latency_ms);
                    row.prompt_tokens = c.prompt_tokens;
                    row.completion_tokens = c.completion_tokens;
                    row.finish_reason = c.finish_reason;
                    Ok(row)
                }
                Err(e) => Err((item, e)),
            };
            if tx.send(msg).is_err() {
                break;
            }
        }));
    }
    drop(tx);
    let bar = if config.progress {
        ProgressBar::new(total as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(config.model.clone());
    let mut sink = Sink::new(dir)?;
    let mut failures: BTreeMap<String, usize> = BTreeMap::new();
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(row)) => {
                if row.correct == Some(true) {
                    summary.correct += 1;
                }
                sink.push(row)?;
                bar.inc(1);
            }
            Ok(Err((item, reason))) => {
                summary.failed += 1;
                bar.inc(1);
                let short: String = reason.chars().take(120).collect();
                *failures.entry(short).or_default() += 1;
                if summary.failed <= 5 {
                    bar.suspend(|| {
                        eprintln!(
                            "warning: {}: {reason}",
                            item.variant_id.as_deref().unwrap_or("?")
                        )
                    });
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if sink.due(config.flush_every, config.flush_seconds) {
            sink.flush()?;
        }
    }
    for w in workers {
        let _ = w.join();
    }
    summary.written = sink.close()?;
    bar.finish_and_clear();
    for (reason, n) in failures {
        eprintln!("{n} request(s) failed for good (a rerun retries them): {reason}");
    }
    Ok(())
}
