//! Asking an endpoint: one request scored into a row, the workers that keep the servers busy,
//! the run's progress and the failures it reports.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::Result;
use crate::progress::Progress;
use crate::respond::rows::Scored;

use super::config::{RespondConfig, RespondSummary};
use super::log::Sink;
use super::rows::Item;
use crate::llm::client::Endpoint;
use crate::llm::servers::Servers;
use crate::store::responses::ResponseRow;

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
    /// One request failed for good: counted, and the item done on the progress bar.
    pub(crate) fn add(&mut self, progress: &Progress, what: Option<&str>, reason: &str) {
        self.1 += 1;
        progress.inc(1);
        progress.fail(1);
        let short: String = reason.chars().take(120).collect();
        *self.0.entry(short).or_default() += 1;
        if self.1 <= 5 {
            progress.println(&format!("warning: {}: {reason}", what.unwrap_or("?")));
        }
    }

    /// How many requests failed for good.
    pub(crate) fn count(&self) -> usize {
        self.1
    }

    pub(crate) fn report(self) {
        for (reason, n) in self.0 {
            crate::progress::note!(
                "{n} request(s) failed for good (a rerun retries them): {reason}"
            );
        }
    }
}

type Answered = std::result::Result<Vec<ResponseRow>, (Item, String)>;

pub(super) fn respond_endpoint(
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
        summary.tally(&row);
        sink.push(row)?;
    }
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(rows)) => {
                // Every variant of one reply is logged together: a rerun that finds only some of
                // them reuses the stored reply for the rest.
                for row in rows {
                    summary.tally(&row);
                    sink.push(row)?;
                }
                bar.inc(1);
            }
            Ok(Err((item, reason))) => {
                failures.add(&bar, item.variant_id.as_deref(), &reason);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        sink.flush_if_due(config.flush_every, config.flush_seconds)?;
    }
    for w in workers {
        let _ = w.join();
    }
    summary.written = sink.close()?;
    bar.finish();
    summary.failed += failures.count();
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
        crate::progress::note!(
            "server {}: {} requests, {} answered, taken out of service {} time(s)",
            c.url,
            c.requests,
            c.answered,
            c.taken_out
        );
    }
}
