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

mod ask;
mod config;
pub mod cost;
pub mod efficient;
pub mod grade;
mod items;
mod log;
mod offline;
pub mod outside;
mod rows;
pub mod sample;
pub mod sim;

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use crate::error::Result;
use crate::store::lock::WriterLock;
use crate::store::responses::RowId;

use self::ask::respond_endpoint;
use self::log::recover_logs;
use offline::respond_offline;

pub use self::log::read_rows;
use crate::store::responses::{model_dir, ResponseRow};
pub use config::{Backend, EfficientConfig, EfficientProtocol, RespondConfig, RespondSummary};
pub use grade::Extraction;
pub use items::variant_items;
pub use rows::{response_key, Item, ResponseKeys, Scored};

/// Ask the model about every selected variant that has no row yet.
pub fn respond(config: &RespondConfig) -> Result<RespondSummary> {
    // Two runs for one model would ask every question twice and store every row twice.
    let _lock = WriterLock::acquire(&config.tables, "respond", &config.model)?;
    // A wrong endpoint is found before the first question, not after a run of retries.
    if let (Backend::Endpoint(endpoint), false) = (&config.backend, config.dry_run) {
        crate::llm::preflight::check_endpoint(endpoint)?;
    }
    if config.dry_run {
        return respond_all(config);
    }
    // Parts half-written by a dead run of this model (the log keeps their rows).
    crate::store::remove_leftovers(&model_dir(&config.tables, &config.model), None)?;
    let (summary, folder) = match config.efficient {
        Some(_) => (
            efficient::run(config)?,
            crate::store::efficient_responses::efficient_dir(&config.tables, &config.model),
        ),
        None => (
            respond_all(config)?,
            model_dir(&config.tables, &config.model),
        ),
    };
    crate::progress::note!("{}", summary.stage_tally(&config.model).line());
    // The run's parts, and those of killed runs before it, folded into few large ones.
    if folder.is_dir() {
        let c = crate::store::compact::compact_folder(&config.tables, &folder, config.part_size)?;
        if c.parts_after < c.parts_before {
            crate::progress::note!(
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
    // A variant regenerated under its id asks another question: its old reply is superseded
    // before the new one is asked, never pooled beside it.
    let current: HashMap<String, String> = items
        .iter()
        .filter_map(|it| Some((it.variant_id.clone()?, it.question.clone())))
        .collect();
    // A dry run reads what is stored and writes nothing.
    let (merged, stored) = match config.dry_run {
        true => (
            Default::default(),
            crate::store::reply_merge::read_model_rows(&config.tables, &config.model)?,
        ),
        false => crate::store::reply_merge::merge_model_rows(
            &config.tables,
            &config.model,
            Vec::new(),
            &current,
        )?,
    };
    if merged.superseded > 0 {
        crate::progress::note!(
            "{}: {} stored replies answer questions the variants no longer ask; superseded",
            config.model,
            merged.superseded
        );
    }
    let mut summary = RespondSummary::default();
    if let Some(n) = config.problems {
        let report = sample::draw_problems(&mut items, n, config.sample_seed);
        for line in report.shortfalls(n) {
            crate::progress::note!("note: {line}");
        }
        summary.sample = Some(report);
    }
    if let Some(k) = config.per_problem {
        sample::first_per_problem(&mut items, k);
    }
    let dir = model_dir(&config.tables, &config.model);
    let run = config.run();
    let mut done: HashSet<RowId> = stored.iter().map(|r| r.row_id()).collect();
    let recovered: Vec<ResponseRow> = match config.dry_run {
        true => self::log::logged_rows(&dir, &mut done)?.0,
        false => recover_logs(&dir, &mut done)?,
    };
    if !recovered.is_empty() {
        crate::progress::note!(
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
    let mut reused = Vec::new();
    // Questions in first-seen order; each key is held once, by `slot`, until the end.
    let mut groups: Vec<Vec<Item>> = Vec::new();
    let mut slot: HashMap<String, usize> = HashMap::new();
    summary.read = items.len();
    let hasher = ResponseKeys::new(&config.model, &config.template, &config.decoding);
    let keys: Vec<String> = items.par_iter().map(|it| hasher.key(it)).collect();
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
            // A budget counts requests: the questions past it wait for the next run.
            None if config.limit.is_some_and(|n| groups.len() >= n) => summary.deferred += 1,
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
    summary.cost = cost::Cost::of(
        todo.iter().map(|(_, its)| &its[0]),
        &config.template,
        config.decoding.max_tokens,
    );
    if config.dry_run {
        summary.planned = todo
            .into_iter()
            .map(|(_, mut its)| its.swap_remove(0))
            .collect();
        summary.reused = reused.len();
        return Ok(summary);
    }
    summary.asked = todo.len();
    summary.shared = todo.iter().map(|(_, its)| its.len() - 1).sum();
    if todo.is_empty() && reused.is_empty() {
        return Ok(summary);
    }
    if let Backend::Endpoint(_) = &config.backend {
        crate::progress::note!("{}", summary.cost.line(&config.model));
    }
    match &config.backend {
        Backend::Offline => respond_offline(config, todo, reused, &dir, &mut summary)?,
        Backend::Endpoint(endpoint) => {
            respond_endpoint(config, endpoint, todo, reused, &dir, &mut summary)?
        }
    }
    Ok(summary)
}
