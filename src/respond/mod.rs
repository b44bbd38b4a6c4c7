//! The responses stage: ask a model about variants and keep every answer in the `responses`
//! table, crash-safely.
//!
//! A request is keyed by a hash of (model, template, decoding settings, question); a row by that
//! key and its variant, so two variants with the same question each get their own graded row
//! from one reply, asked once. Finished rows go to a write-ahead log at once and into atomically
//! written Parquet parts (`respond::log`); a rerun folds a killed run's log first, then asks only what
//! has no row yet, reusing a stored reply when an identical question was already answered. A kill
//! loses only the requests in flight and never duplicates a row.
//!
//! `--efficient-from` runs Xie et al.'s efficient attack instead ([`efficient`]).

pub mod client;
pub mod efficient;
mod log;
mod offline;
pub mod outside;
pub mod prompt;
mod rows;
pub mod servers;
pub mod sim;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::progress::Progress;
use arrow::array::AsArray;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::program::tree::num_text;

use crate::store::lock::WriterLock;
use crate::store::{read_columns, variants};
use crate::vocab::Attack;

pub use self::log::{model_dir, read_rows, stored_rows, StoredRow};
use self::log::{part_files, recover_logs, Sink};
use crate::store::responses::RowId;
pub use client::{Decoding, Endpoint};
pub use efficient::{EfficientConfig, EfficientProtocol};
use offline::respond_offline;
pub(crate) use offline::Offline;
pub use rows::{
    batch_to_rows, response_key, rows_to_batch, Extraction, Item, ResponseKeys, ResponseRow,
};
use servers::Servers;

/// Every variant in the tables, as items, in table order.
pub fn variant_items(tables: &Path, attacks: &[String], datasets: &[String]) -> Result<Vec<Item>> {
    let _read = crate::store::commit::TablesLock::shared(tables)?;
    let root = variants::dir(tables);
    if !root.is_dir() {
        return Err(Error::missing_table(
            variants::TABLE,
            root,
            variants::MADE_BY,
        ));
    }
    let mut chosen = Vec::new();
    for (dataset, ddir) in crate::store::partitions(&root, "dataset")? {
        if !datasets.is_empty() && !datasets.contains(&dataset) {
            continue;
        }
        for (attack, adir) in crate::store::partitions(&ddir, "attack")? {
            chosen.push((dataset.clone(), attack, adir));
        }
    }
    let wanted = resolve_attacks(attacks, chosen.iter().map(|(_, a, _)| a.as_str()))?;
    let mut items = Vec::new();
    for (dataset, attack, adir) in chosen {
        if !attacks.is_empty() && !wanted.contains(&attack) && !Attack::is_original(&attack) {
            continue;
        }
        for f in part_files(&adir)? {
            let columns = [
                "variant_id",
                "problem_id",
                "question",
                "answer_exact",
                "noise_level",
                "variant_index",
            ];
            for b in read_columns(&f, &columns)? {
                let col = |n: &str| crate::store::text_column(&b, n, &f);
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
    Ok(items)
}

/// The attacks `requested` names among those the tables hold: a name held as is, or a family
/// whose levels the tables hold (`punct` is `punct10`, `punct30`, `punct50`; `m3+punct` likewise).
/// A name that matches nothing is an error listing what there is, never an empty selection.
fn resolve_attacks<'a>(
    requested: &[String],
    held: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>> {
    let mut held: Vec<&str> = held.collect();
    held.sort();
    held.dedup();
    let mut out = Vec::new();
    for name in requested {
        let family: Vec<&str> = held
            .iter()
            .copied()
            .filter(|a| {
                *a == name
                    || a.strip_prefix(name.as_str()).is_some_and(|level| {
                        !level.is_empty() && level.bytes().all(|b| b.is_ascii_digit())
                    })
            })
            .collect();
        if family.is_empty() && !Attack::is_original(name) {
            return Err(Error::Usage(format!(
                "no variants of attack `{name}` in the tables (attacks held: {})",
                held.join(", ")
            )));
        }
        out.extend(family.into_iter().map(String::from));
    }
    Ok(out)
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
    pub template: crate::respond::prompt::Template,
    pub decoding: Decoding,
    pub backend: Backend,
    pub attacks: Vec<String>,
    pub datasets: Vec<String>,
    /// Run the efficient attack from this cheaper model's answers instead of asking everything.
    pub efficient: Option<EfficientConfig>,
    /// At most k variants per problem (with `efficient`: at most k of the cheap model's examples).
    pub per_problem: Option<usize>,
    /// How answers are read from the replies (advmath's rules, or a paper's own scorer).
    pub extraction: Extraction,
    pub limit: Option<usize>,
    pub concurrency: usize,
    pub flush_every: usize,
    pub flush_seconds: f64,
    /// The size a folded part grows to when the run compacts the model's folder at its end.
    pub part_size: u64,
    pub progress: bool,
}

impl Default for RespondConfig {
    /// Every variant of the default tables, asked offline with Xie et al.'s prompt, greedy,
    /// 8 requests in flight, read by advmath's rules, a part written every 200 responses or
    /// 10 seconds, no progress bar; `model` is empty: name one ([`RespondConfig::new`]).
    fn default() -> Self {
        RespondConfig {
            tables: crate::store::default_tables(),
            model: String::new(),
            template: prompt::Template::default(),
            decoding: Decoding::default(),
            backend: Backend::Offline,
            attacks: Vec::new(),
            datasets: Vec::new(),
            efficient: None,
            per_problem: None,
            extraction: Extraction::default(),
            limit: None,
            concurrency: 8,
            flush_every: 200,
            flush_seconds: 10.0,
            part_size: crate::store::compact::DEFAULT_TARGET_BYTES,
            progress: false,
        }
    }
}

impl RespondConfig {
    pub fn new(tables: PathBuf, model: impl Into<String>) -> Self {
        RespondConfig {
            tables,
            model: model.into(),
            ..Default::default()
        }
    }

    /// The run this configuration makes: the settings beyond model and template that change
    /// what is asked or how it is graded, those that differ from the defaults, in a fixed order
    /// (`default` when none does). Two runs are never pooled by the metrics; a rerun with the
    /// same settings is the same run and resumes it.
    pub fn run(&self) -> String {
        let completions = matches!(&self.backend, Backend::Endpoint(e) if e.completions);
        rows::run_label(&self.decoding, self.extraction, completions)
    }
}

#[derive(Clone, Debug, Default)]
pub struct RespondSummary {
    /// Requests made (one per distinct question).
    pub asked: usize,
    /// Variants skipped because they already have a row.
    pub skipped_done: usize,
    /// Requests that failed for good (a rerun retries them).
    pub failed: usize,
    /// Rows written (one per variant answered, replies reused included).
    pub written: usize,
    /// Rows answered by a reply already given to an identical question, without a new request.
    pub reused: usize,
    pub correct: usize,
    /// Questions an offline model cannot answer by construction (their problem has no solution
    /// tree to simulate from, e.g. noise-only variants of a problem without a valid program):
    /// not asked, not failures, nothing to retry.
    pub unanswerable: usize,
    /// The first few of them.
    pub unanswerable_first: Vec<String>,
}

impl RespondSummary {
    /// The one line that reports the questions an offline model cannot answer, if any.
    pub fn unanswerable_note(&self, model: &str) -> Option<String> {
        (self.unanswerable > 0).then(|| {
            format!(
                "note: {} question(s) have no solution tree for {model} to answer from (their problem has no valid program): not asked, not failures (first: {})",
                self.unanswerable,
                self.unanswerable_first.join(", ")
            )
        })
    }
}

/// Ask the model about every selected variant that has no row yet.
pub fn respond(config: &RespondConfig) -> Result<RespondSummary> {
    // Two runs for one model would ask every question twice and store every row twice.
    let _lock = WriterLock::acquire(&config.tables, "respond", &config.model)?;
    // Parts half-written by a dead run of this model (the log keeps their rows).
    crate::store::remove_leftovers(&model_dir(&config.tables, &config.model), None)?;
    let (summary, folder) = match config.efficient {
        Some(_) => (
            efficient::run(config)?,
            efficient::efficient_dir(&config.tables, &config.model),
        ),
        None => (
            respond_all(config)?,
            model_dir(&config.tables, &config.model),
        ),
    };
    // The run's parts, and those of killed runs before it, folded into few large ones.
    if folder.is_dir() {
        let c = crate::store::compact::compact_folder(&config.tables, &folder, config.part_size)?;
        if c.parts_after < c.parts_before {
            eprintln!(
                "compacted {}: {} parts -> {}",
                folder.display(),
                c.parts_before,
                c.parts_after
            );
        }
    }
    Ok(summary)
}

/// Every variant asked of (or answered for) one model, the run's lock held.
fn respond_all(config: &RespondConfig) -> Result<RespondSummary> {
    let mut items = variant_items(&config.tables, &config.attacks, &config.datasets)?;
    if let Some(k) = config.per_problem {
        items.retain(|it| {
            it.attack.as_deref().is_some_and(Attack::is_original) || (it.variant_index as usize) < k
        });
    }
    if let Some(n) = config.limit {
        items.truncate(n);
    }
    let dir = model_dir(&config.tables, &config.model);
    let stored = read_rows(&dir)?;
    let run = config.run();
    let mut done: HashSet<RowId> = stored.iter().map(|r| r.row_id()).collect();
    let recovered: Vec<ResponseRow> = recover_logs(&dir, &mut done)?;
    if !recovered.is_empty() {
        eprintln!(
            "recovered {} responses logged by an interrupted run",
            recovered.len()
        );
    }
    // A stored reply answers every later variant with the same question.
    let mut replies: HashMap<String, ResponseRow> = HashMap::new();
    for r in stored.into_iter().chain(recovered) {
        if r.response.is_some() {
            replies.entry(r.response_key.clone()).or_insert(r);
        }
    }
    let mut summary = RespondSummary::default();
    let mut reused = Vec::new();
    // Questions in first-seen order; each key is held once, by `slot`, until the end.
    let mut groups: Vec<Vec<Item>> = Vec::new();
    let mut slot: HashMap<String, usize> = HashMap::new();
    let hasher = ResponseKeys::new(&config.model, &config.template, &config.decoding);
    let keys: Vec<String> = items
        .par_iter()
        .map(|it| hasher.key(&it.question))
        .collect();
    for (it, key) in items.into_iter().zip(keys) {
        if !done.is_empty() && done.contains(&(run.clone(), key.clone(), it.variant_id.clone())) {
            summary.skipped_done += 1;
            continue;
        }
        if let Some(reply) = replies.get(&key) {
            reused.push(reply.reusing(&it, config.extraction, &run));
            continue;
        }
        match slot.get(&key) {
            Some(&i) => groups[i].push(it),
            None => {
                slot.insert(key, groups.len());
                groups.push(vec![it]);
            }
        }
    }
    let mut keys_by_slot = vec![String::new(); groups.len()];
    for (key, i) in slot {
        keys_by_slot[i] = key;
    }
    let todo: Vec<(String, Vec<Item>)> = keys_by_slot.into_iter().zip(groups).collect();
    summary.asked = todo.len();
    if todo.is_empty() && reused.is_empty() {
        return Ok(summary);
    }
    match &config.backend {
        Backend::Offline => respond_offline(config, todo, reused, &dir, &mut summary)?,
        Backend::Endpoint(endpoint) => {
            respond_endpoint(config, endpoint, todo, reused, &dir, &mut summary)?
        }
    }
    Ok(summary)
}

/// Ask the endpoint's servers about `item` once and score the reply.
pub(crate) fn ask_endpoint(
    servers: &Servers,
    config: &RespondConfig,
    key: &str,
    item: &Item,
) -> std::result::Result<ResponseRow, String> {
    let prompt = config.template.render(&item.question);
    let c = servers.complete(&prompt, &config.decoding)?;
    let mut row = ResponseRow::scored_by(
        key.to_string(),
        &config.model,
        &config.template.name,
        item,
        c.text,
        "endpoint",
        config.extraction,
    )
    .in_run(&config.run());
    row.latency_ms = Some(c.latency_ms);
    row.prompt_tokens = c.prompt_tokens;
    row.completion_tokens = c.completion_tokens;
    row.finish_reason = c.finish_reason;
    Ok(row)
}

/// The run's progress on stderr (none unless asked for): a bar on a terminal, lines in a log.
pub(crate) fn progress_bar(config: &RespondConfig, total: usize, unit: &'static str) -> Progress {
    if config.progress {
        Progress::new(format!("respond {}", config.model), unit, total as u64)
    } else {
        Progress::hidden()
    }
}

/// Requests that failed for good, counted by reason (the first few printed at once).
#[derive(Default)]
pub(crate) struct Failures(BTreeMap<String, usize>, usize);

impl Failures {
    pub(crate) fn add(&mut self, progress: &Progress, what: Option<&str>, reason: &str) {
        self.1 += 1;
        progress.fail(1);
        let short: String = reason.chars().take(120).collect();
        *self.0.entry(short).or_default() += 1;
        if self.1 <= 5 {
            progress.println(&format!("warning: {}: {reason}", what.unwrap_or("?")));
        }
    }

    pub(crate) fn report(self) {
        for (reason, n) in self.0 {
            eprintln!("{n} request(s) failed for good (a rerun retries them): {reason}");
        }
    }
}

type Answered = std::result::Result<Vec<ResponseRow>, (Item, String)>;

fn respond_endpoint(
    config: &RespondConfig,
    endpoint: &Endpoint,
    todo: Vec<(String, Vec<Item>)>,
    reused: Vec<ResponseRow>,
    dir: &Path,
    summary: &mut RespondSummary,
) -> Result<()> {
    let total = todo.len();
    let queue = Arc::new(Mutex::new(todo.into_iter().collect::<VecDeque<_>>()));
    let servers = Arc::new(Servers::new(endpoint, config.concurrency));
    let (tx, rx) = mpsc::channel::<Answered>();
    let mut workers = Vec::new();
    for _ in 0..servers.capacity() {
        let (queue, servers, tx, config) =
            (queue.clone(), servers.clone(), tx.clone(), config.clone());
        workers.push(std::thread::spawn(move || loop {
            let Some((key, items)) = queue.lock().expect("queue lock").pop_front() else {
                break;
            };
            let msg = match ask_endpoint(&servers, &config, &key, &items[0]) {
                Ok(first) => {
                    let mut rows: Vec<ResponseRow> = items[1..]
                        .iter()
                        .map(|it| first.reusing(it, config.extraction, &first.run))
                        .collect();
                    rows.insert(0, first);
                    Ok(rows)
                }
                Err(e) => Err((items[0].clone(), e)),
            };
            if tx.send(msg).is_err() {
                break;
            }
        }));
    }
    drop(tx);
    let bar = progress_bar(config, total, "questions");
    let mut sink = Sink::new(dir)?;
    let mut failures = Failures::default();
    summary.reused = reused.len();
    for row in reused {
        summary.correct += usize::from(row.correct == Some(true));
        sink.push(row)?;
    }
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(rows)) => {
                // Every variant of one reply is logged together: a rerun that finds only some of
                // them reuses the stored reply for the rest.
                for row in rows {
                    summary.correct += usize::from(row.correct == Some(true));
                    sink.push(row)?;
                }
                bar.inc(1);
            }
            Ok(Err((item, reason))) => {
                summary.failed += 1;
                bar.inc(1);
                failures.add(&bar, item.variant_id.as_deref(), &reason);
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
    bar.finish();
    failures.report();
    report_servers(&servers);
    Ok(())
}

/// What each server did, on stderr, when there are several.
pub(crate) fn report_servers(servers: &Servers) {
    let counts = servers.counts();
    if counts.len() < 2 {
        return;
    }
    for c in counts {
        eprintln!(
            "server {}: {} requests, {} answered, taken out of service {} time(s)",
            c.url, c.requests, c.answered, c.taken_out
        );
    }
}
