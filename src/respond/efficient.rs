//! Xie et al. 2024's efficient attack (Table 5; the authors' `attack/efficient_attack.py`), run
//! as a protocol against an expensive target: rank the problems of each (dataset, attack) by how
//! many adversarial examples a cheap model has, take the top N, and send the target those
//! examples one at a time per problem, in variant order, stopping a problem at its first success.
//! Requests run concurrently across problems, never within one.
//!
//! The rows go to their own table, `efficient_responses/<target>/`, so that they never mix with
//! the target's full run in the other metrics; `sql/xie_efficient.sql` reads them. A rerun with
//! the same flags rebuilds the same plan, skips every row already stored and continues each
//! problem where it stopped (identical questions are asked once per run when decoding is
//! greedy).
//!
//! Protocols (`--efficient-protocol`). `wrong-variants`, the default, is the paper's text and the
//! authors' script: a problem's candidates are every variant the cheap model answers wrongly, sent
//! in variant order (capped at `--per-problem`) until the target answers one wrongly; the
//! target's original is not asked. `solved-originals` is stricter: only problems whose original
//! the cheap model solves, and the target is asked the original first; a problem it gets wrong
//! is not attacked (a wrong variant would be no flip).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use rayon::prelude::*;

use super::ask::{ask_endpoint, progress_bar, Failures};
use super::config::{Backend, EfficientConfig, EfficientProtocol, RespondConfig, RespondSummary};
use super::items::variant_items;
use super::log::read_rows;
use super::log::{recover_logs, Logged, Sink};
use super::offline::Offline;
use super::rows::{response_key, Item};
use crate::error::{Error, Result};
use crate::respond::rows::Scored;
use crate::store::efficient_responses::{
    efficient_batch, efficient_dir, read_efficient_rows, EfficientRow,
};
use crate::store::responses::model_dir;
use crate::store::responses::ResponseRow;
use crate::store::write_batch;
use crate::vocab::Attack;

/// One attack's plan for a problem.
#[derive(Clone, Debug)]
struct Plan {
    attack: String,
    rank: i32,
    candidates: Vec<Item>,
    problem_variants: i32,
    attack_problems: i32,
    attack_variants: i32,
}

/// One problem of the run: its original and its plans (one per attack that selected it).
#[derive(Clone, Debug)]
struct Job {
    original: Option<Item>,
    plans: Vec<Plan>,
}

/// The plan: per (dataset, attack), the problems with at least one candidate, most candidates
/// first (ties in problem order), the top `top_problems`, each with its candidates in variant
/// order, at most `per_problem`.
fn plan(config: &RespondConfig, eff: &EfficientConfig) -> Result<Vec<Job>> {
    let items = variant_items(&config.tables, &config.attacks, &config.datasets)?;
    let cheap_dir = model_dir(&config.tables, &eff.cheap);
    let mut cheap: Vec<ResponseRow> = read_rows(&cheap_dir)?
        .into_iter()
        .filter(|r| r.template == config.template.name)
        .collect();
    let runs: std::collections::BTreeSet<&str> = cheap.iter().map(|r| r.run.as_str()).collect();
    match &eff.cheap_run {
        Some(run) if !runs.contains(run.as_str()) => {
            return Err(Error::invalid(
                cheap_dir.display(),
                format!(
                    "{} has no run `{run}` with template {} (its runs: {})",
                    eff.cheap,
                    config.template.name,
                    runs.into_iter().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        Some(run) => {
            let run = run.clone();
            cheap.retain(|r| r.run == run);
        }
        None if runs.len() > 1 => {
            return Err(Error::setting(
                "cheap_run",
                format!(
                    "must name one of the runs of {} with template {} that rank the problems: {}",
                    eff.cheap,
                    config.template.name,
                    runs.into_iter().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        None => {}
    }
    if cheap.is_empty() {
        return Err(Error::invalid(
            cheap_dir.display(),
            format!(
                "no responses of {} with template {} to rank the problems by (run `advmath respond --model {}` first)",
                eff.cheap, config.template.name, eff.cheap
            ),
        ));
    }
    let mut cheap_solves: HashMap<&str, bool> = HashMap::new();
    let mut cheap_wrong: HashSet<&str> = HashSet::new();
    for r in &cheap {
        let (Some(pid), Some(vid), Some(ok)) = (&r.problem_id, &r.variant_id, r.correct) else {
            continue;
        };
        if r.attack.as_deref().is_some_and(Attack::is_original) {
            let e = cheap_solves.entry(pid.as_str()).or_insert(true);
            *e &= ok;
        } else if !ok {
            cheap_wrong.insert(vid.as_str());
        }
    }
    let mut originals: HashMap<String, Item> = HashMap::new();
    let mut groups: BTreeMap<(String, String), BTreeMap<String, Vec<Item>>> = BTreeMap::new();
    for it in items {
        let (Some(d), Some(a), Some(p)) = (&it.dataset, &it.attack, &it.problem_id) else {
            continue;
        };
        if Attack::is_original(a) {
            originals.insert(p.clone(), it);
        } else {
            groups
                .entry((d.clone(), a.clone()))
                .or_default()
                .entry(p.clone())
                .or_default()
                .push(it);
        }
    }
    let mut jobs: Vec<Job> = Vec::new();
    let mut job_of: HashMap<String, usize> = HashMap::new();
    for ((_, attack), problems) in groups {
        let attack_problems = problems.len() as i32;
        let attack_variants = problems.values().map(Vec::len).sum::<usize>() as i32;
        let mut ranked: Vec<(String, Vec<Item>, i32)> = problems
            .into_iter()
            .filter_map(|(pid, mut variants)| {
                let solves = cheap_solves.get(pid.as_str()) == Some(&true);
                if eff.protocol == EfficientProtocol::SolvedOriginals && !solves {
                    return None;
                }
                variants.sort_by_key(|v| v.variant_index);
                let total = variants.len() as i32;
                let cands: Vec<Item> = variants
                    .into_iter()
                    .filter(|v| {
                        v.variant_id
                            .as_deref()
                            .is_some_and(|id| cheap_wrong.contains(id))
                    })
                    .collect();
                (!cands.is_empty()).then_some((pid, cands, total))
            })
            .collect();
        ranked.sort_by(|a, b| {
            b.1.len()
                .cmp(&a.1.len())
                .then_with(|| crate::vocab::natural_key(&a.0).cmp(&crate::vocab::natural_key(&b.0)))
        });
        for (i, (pid, mut cands, total)) in ranked.into_iter().take(eff.top_problems).enumerate() {
            if let Some(k) = config.per_problem {
                cands.truncate(k);
            }
            let j = *job_of.entry(pid.clone()).or_insert_with(|| {
                jobs.push(Job {
                    original: originals.get(&pid).cloned(),
                    plans: Vec::new(),
                });
                jobs.len() - 1
            });
            if eff.protocol == EfficientProtocol::SolvedOriginals && jobs[j].original.is_none() {
                return Err(Error::invalid(
                    crate::store::variants::dir(&config.tables).display(),
                    format!(
                        "problem {pid} has no `{}` variant to ask the target first",
                        Attack::ORIGINAL
                    ),
                ));
            }
            jobs[j].plans.push(Plan {
                attack: attack.clone(),
                rank: i as i32 + 1,
                candidates: cands,
                problem_variants: total,
                attack_problems,
                attack_variants,
            });
        }
    }
    Ok(jobs)
}

/// What a job needs while it runs: the run's settings, its stored rows, the replies so far.
struct Walk<'a> {
    config: &'a RespondConfig,
    eff: &'a EfficientConfig,
    stored: &'a HashMap<(String, Option<String>), EfficientRow>,
    replies: Mutex<HashMap<String, ResponseRow>>,
    asked: AtomicUsize,
}

impl Walk<'_> {
    fn row(&self, row: ResponseRow, plan: &Plan, step: i32) -> EfficientRow {
        EfficientRow {
            row,
            cheap_model: self.eff.cheap.clone(),
            efficient_protocol: self.eff.protocol.name().to_string(),
            top_problems: self.eff.top_problems as i32,
            per_problem: self.config.per_problem.map(|k| k as i32),
            plan_attack: plan.attack.clone(),
            problem_rank: plan.rank,
            step,
            candidates: plan.candidates.len() as i32,
            problem_variants: plan.problem_variants,
            attack_problems: plan.attack_problems,
            attack_variants: plan.attack_variants,
        }
    }

    /// The target's graded answer to `item` in `plan`: stored, or reused from an identical
    /// question of this run, or asked now (and emitted).
    fn answer(
        &self,
        item: &Item,
        plan: &Plan,
        step: i32,
        ask: &(dyn Fn(&str, &Item) -> std::result::Result<ResponseRow, String> + Sync),
        emit: &mut dyn FnMut(EfficientRow),
    ) -> std::result::Result<Option<bool>, Box<(Item, String)>> {
        if let Some(r) = self
            .stored
            .get(&(plan.attack.clone(), item.variant_id.clone()))
        {
            return Ok(r.row.correct);
        }
        let key = response_key(
            &self.config.model,
            &self.config.template,
            &self.config.decoding,
            item,
        );
        let known = self
            .replies
            .lock()
            .expect("replies lock")
            .get(&key)
            .cloned();
        let row = match known {
            Some(reply) => reply.reusing(item, self.config.extraction, &self.config.run()),
            None => {
                self.asked.fetch_add(1, Ordering::Relaxed);
                let row = ask(&key, item).map_err(|e| (item.clone(), e))?;
                self.replies
                    .lock()
                    .expect("replies lock")
                    .insert(key, row.clone());
                row
            }
        };
        let correct = row.correct;
        emit(self.row(row, plan, step));
        Ok(correct)
    }

    /// Run one problem: the original (paper protocol), then each plan's candidates in order
    /// until the first wrong answer. Stops at the first request that fails for good.
    fn job(
        &self,
        job: &Job,
        ask: &(dyn Fn(&str, &Item) -> std::result::Result<ResponseRow, String> + Sync),
        emit: &mut dyn FnMut(EfficientRow),
    ) -> std::result::Result<(), Box<(Item, String)>> {
        if self.eff.protocol == EfficientProtocol::SolvedOriginals {
            let original = job.original.as_ref().expect("checked by plan()");
            let mut solved = true;
            for plan in &job.plans {
                solved &= self.answer(original, plan, 0, ask, emit)? == Some(true);
            }
            if !solved {
                return Ok(());
            }
        }
        for plan in &job.plans {
            for (k, cand) in plan.candidates.iter().enumerate() {
                if self.answer(cand, plan, k as i32 + 1, ask, emit)? == Some(false) {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// Run the efficient attack of `config.efficient` against `config.model`.
pub fn run(config: &RespondConfig) -> Result<RespondSummary> {
    let eff = config.efficient.as_ref().expect("an efficient run");
    if eff.top_problems == 0 {
        return Err(Error::setting("top_problems", "must be at least 1"));
    }
    let mut jobs = plan(config, eff)?;
    if let Some(n) = config.limit {
        jobs.truncate(n);
    }
    let dir = efficient_dir(&config.tables, &config.model);
    let existing = read_efficient_rows(&config.tables, &config.model)?;
    let mut done: HashSet<RowId> = existing.iter().map(Logged::id).collect();
    let recovered: Vec<EfficientRow> = recover_logs(&dir, &mut done)?;
    if !recovered.is_empty() {
        crate::progress::note!(
            "recovered {} responses logged by an interrupted run",
            recovered.len()
        );
    }
    let run = config.run();
    let tag = run_tag(
        &eff.cheap,
        eff.protocol.name(),
        eff.top_problems as i32,
        config.per_problem.map(|k| k as i32),
        &run,
    );
    let mut stored = HashMap::new();
    let mut replies = HashMap::new();
    for r in existing.into_iter().chain(recovered) {
        if row_run_tag(&r) != tag {
            continue;
        }
        if r.row.response.is_some() {
            replies
                .entry(r.row.response_key.clone())
                .or_insert_with(|| r.row.clone());
        }
        stored.insert((r.plan_attack.clone(), r.row.variant_id.clone()), r);
    }
    let mut summary = RespondSummary {
        skipped_done: stored.len(),
        ..RespondSummary::default()
    };
    let walk = Walk {
        config,
        eff,
        stored: &stored,
        replies: Mutex::new(replies),
        asked: AtomicUsize::new(0),
    };
    match &config.backend {
        Backend::Offline => {
            let offline = Offline::open(config)?;
            let ask = |key: &str, it: &Item| -> std::result::Result<ResponseRow, String> {
                let (text, source) = offline
                    .answer(it)
                    .ok_or_else(|| "no solution tree to simulate an answer from".to_string())?;
                Ok(ResponseRow::scored_by(
                    key.to_string(),
                    &config.model,
                    &config.template.name,
                    it,
                    text,
                    source,
                    config.extraction,
                )
                .in_run(&run))
            };
            // Problems are independent here: each runs to its end in parallel, and the rows are
            // written in plan order, so the part is the same byte for byte on every run.
            let results: Vec<(Vec<EfficientRow>, bool)> = jobs
                .par_iter()
                .map(|job| {
                    let mut rows = Vec::new();
                    let ok = walk
                        .job(job, &ask, &mut |r: EfficientRow| rows.push(r))
                        .is_ok();
                    (rows, ok)
                })
                .collect();
            summary.failed = results.iter().filter(|(_, ok)| !ok).count();
            let rows: Vec<EfficientRow> = results.into_iter().flat_map(|(r, _)| r).collect();
            summary.correct = rows.iter().filter(|r| r.row.correct == Some(true)).count();
            summary.written = rows.len();
            if !rows.is_empty() {
                fs::create_dir_all(&dir).map_err(|e| Error::file(&dir, e))?;
                let path = crate::store::responses::offline_part(&dir)?;
                write_batch(&path, &efficient_batch(&rows)?)?;
            }
        }
        Backend::Endpoint(endpoint) => {
            run_endpoint(config, endpoint, &walk, jobs, &dir, &mut summary)?;
        }
    }
    summary.asked = walk.asked.load(Ordering::Relaxed);
    summary.reused = summary
        .written
        .saturating_sub(summary.asked - summary.failed);
    Ok(summary)
}

enum Message {
    Row(Box<EfficientRow>),
    Failed(Box<(Item, String)>),
    Done,
}

fn run_endpoint(
    config: &RespondConfig,
    endpoint: &crate::llm::client::Endpoint,
    walk: &Walk<'_>,
    jobs: Vec<Job>,
    dir: &Path,
    summary: &mut RespondSummary,
) -> Result<()> {
    let total = jobs.len();
    let queue = Mutex::new(jobs.into_iter().collect::<VecDeque<_>>());
    let servers = crate::llm::servers::Servers::new(endpoint, config.concurrency);
    let bar = progress_bar(config, total, "problems");
    let mut sink: Sink<EfficientRow> = Sink::new(dir)?;
    let mut failures = Failures::default();
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = mpsc::channel::<Message>();
        for _ in 0..servers.capacity() {
            let (tx, queue, servers) = (tx.clone(), &queue, &servers);
            scope.spawn(move || loop {
                let Some(job) = queue.lock().expect("queue lock").pop_front() else {
                    break;
                };
                let ask = |key: &str, it: &Item| ask_endpoint(servers, config, key, it);
                let mut emit = |r: EfficientRow| {
                    let _ = tx.send(Message::Row(Box::new(r)));
                };
                let msg = match walk.job(&job, &ask, &mut emit) {
                    Ok(()) => Message::Done,
                    Err(failure) => Message::Failed(failure),
                };
                if tx.send(msg).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(Message::Row(row)) => {
                    summary.tally(&row.row);
                    sink.push(*row)?;
                }
                Ok(Message::Done) => bar.inc(1),
                Ok(Message::Failed(failure)) => {
                    let (item, reason) = *failure;
                    failures.add(&bar, item.variant_id.as_deref(), &reason);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            sink.flush_if_due(config.flush_every, config.flush_seconds)?;
        }
        Ok(())
    })?;
    summary.written = sink.close()?;
    bar.finish();
    summary.failed += failures.count();
    failures.report();
    super::ask::report_servers(&servers);
    Ok(())
}

/// Identifies a row: (run settings, plan attack, request key, variant).
pub(super) type RowId = (String, String, String, Option<String>);

/// The settings that make a run: rows of another cheap model, protocol, N, cap or target run
/// (decoding, extraction) are another run.
pub(super) fn run_tag(
    cheap: &str,
    protocol: &str,
    top_problems: i32,
    per_problem: Option<i32>,
    run: &str,
) -> String {
    format!("{cheap}\u{0}{protocol}\u{0}{top_problems}\u{0}{per_problem:?}\u{0}{run}")
}

/// The run tag of a written row, as [`run_tag`] makes it for the run's settings.
fn row_run_tag(r: &EfficientRow) -> String {
    run_tag(
        &r.cheap_model,
        &r.efficient_protocol,
        r.top_problems,
        r.per_problem,
        &r.row.run,
    )
}

impl Logged for EfficientRow {
    type Id = RowId;
    fn id(&self) -> RowId {
        (
            row_run_tag(self),
            self.plan_attack.clone(),
            self.row.response_key.clone(),
            self.row.variant_id.clone(),
        )
    }
    fn batch(rows: &[Self]) -> Result<arrow::array::RecordBatch> {
        Ok(efficient_batch(rows)?)
    }
}
