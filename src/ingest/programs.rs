//! LLM-written solution programs (paper section 3.1, appendix A.1): ask a model for a program for
//! every problem that lacks a valid one, and keep it only if it passes exactly the validation a
//! given program does. The program is parsed, never run.
//!
//! Replies are paid for, so none is lost: every answered problem is written back to its
//! `problems` file (atomically, every [`FLUSH_EVERY`] replies or [`FLUSH_SECONDS`] seconds and at
//! the end), a rejected program included, with the model's name in `program_origin` and the
//! reason in `error_detail`. A rerun with the same model asks only what it has not answered.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::llm::client::{Decoding, Endpoint};
use crate::llm::prompt::xie2024_program;
use crate::llm::servers::Servers;
use crate::program::{validate_program, AlignMode, ErrorKind, Links, ProgramError};
use crate::question::find_slots;
use crate::store::lock::WriterLock;
use crate::store::problems::{records_to_batch, ProblemRecord};
use crate::store::{problems, write_batch};

#[derive(Clone, Debug)]
pub struct ProgramsConfig {
    pub tables: PathBuf,
    pub endpoint: Endpoint,
    pub decoding: Decoding,
    pub concurrency: usize,
    pub limit: Option<usize>,
    /// What the model's programs may link beyond the numbers written in digits.
    pub links: Links,
}

impl ProgramsConfig {
    /// Greedy replies of up to 1024 tokens (a program is longer than an answer), 4 requests in
    /// flight, every problem that lacks a program.
    pub fn new(tables: PathBuf, endpoint: Endpoint) -> Self {
        ProgramsConfig {
            tables,
            endpoint,
            decoding: Decoding {
                max_tokens: 1024,
                ..Decoding::default()
            },
            concurrency: 4,
            limit: None,
            links: Links::DIGITS,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProgramsSummary {
    pub asked: usize,
    pub now_valid: usize,
    pub rejected: usize,
    pub failed: usize,
}

/// The code of a reply: the first fenced block (```python or ```), else the whole reply.
pub fn code_block(reply: &str) -> String {
    if let Some((_, after)) = reply.split_once("```") {
        let body = after
            .strip_prefix("python")
            .or_else(|| after.strip_prefix("py"))
            .unwrap_or(after);
        let body = body.strip_prefix('\n').unwrap_or(body);
        return body
            .split_once("```")
            .map_or(body, |(code, _)| code)
            .to_string();
    }
    reply.to_string()
}

/// A problem worth asking about: invalid for a program reason, with a question and a gold answer.
/// Replies between two writes of the problems files.
pub const FLUSH_EVERY: usize = 16;
/// Longest time between two writes while replies arrive.
pub const FLUSH_SECONDS: u64 = 30;

/// A problem the model should be asked about: no valid program, usable, and not answered by this
/// model before (its program, valid or rejected, is already recorded).
fn wants_program(r: &ProblemRecord, origin: &str) -> bool {
    !r.is_valid()
        && r.program_origin != origin
        && r.answer.is_some()
        && !r.question.trim().is_empty()
        && r.error
            .as_ref()
            .is_none_or(|e| !matches!(e.kind, ErrorKind::BadInput | ErrorKind::WrongLabel))
}

pub fn write_programs(config: &ProgramsConfig) -> Result<ProgramsSummary> {
    crate::llm::preflight::check_endpoint(&config.endpoint)?;
    let mut tables: Vec<(PathBuf, Vec<ProblemRecord>)> = Vec::new();
    for f in problems::files(&config.tables)? {
        let recs = problems::read_file(&f)?;
        tables.push((f, recs));
    }
    let model = config.endpoint.model.clone();
    let origin = format!("llm:{model}");
    let mut todo: Vec<(usize, usize)> = Vec::new();
    for (t, (_, recs)) in tables.iter().enumerate() {
        for (i, r) in recs.iter().enumerate() {
            if wants_program(r, &origin) {
                todo.push((t, i));
            }
        }
    }
    if let Some(n) = config.limit {
        todo.truncate(n);
    }
    let mut summary = ProgramsSummary {
        asked: todo.len(),
        ..Default::default()
    };
    // The paper's prompt gives the model the problem and its final answer.
    let jobs: Vec<(usize, usize, String)> = todo
        .iter()
        .map(|&(t, i)| {
            let r = &tables[t].1[i];
            let answer = r
                .answer
                .as_deref()
                .expect("only problems with an answer are asked");
            (t, i, xie2024_program(&r.question, answer))
        })
        .collect();
    let progress =
        crate::progress::Progress::new(format!("programs {model}"), "problems", jobs.len() as u64);
    let queue = Arc::new(Mutex::new(jobs.into_iter().collect::<VecDeque<_>>()));
    let servers = Arc::new(Servers::new(&config.endpoint, config.concurrency));
    let (tx, rx) = mpsc::channel();
    let mut workers = Vec::new();
    for _ in 0..servers.capacity() {
        let (queue, servers, tx, decoding) = (
            queue.clone(),
            servers.clone(),
            tx.clone(),
            config.decoding.clone(),
        );
        workers.push(std::thread::spawn(move || loop {
            let Some((t, i, prompt)) = queue.lock().expect("queue lock").pop_front() else {
                break;
            };
            let reply = servers.complete(&prompt, &decoding);
            if tx.send((t, i, reply)).is_err() {
                break;
            }
        }));
    }
    drop(tx);
    let mut dirty: BTreeSet<usize> = BTreeSet::new();
    // problem id -> its index in its file, for the programs not saved yet.
    let mut answered: HashMap<String, usize> = HashMap::new();
    let (mut unsaved, mut saved_at) = (0usize, Instant::now());
    for (t, i, reply) in rx {
        progress.inc(1);
        let record = &mut tables[t].1[i];
        let text = match reply {
            Ok(c) => c.text,
            Err(e) => {
                summary.failed += 1;
                progress.fail(1);
                progress.println(&format!("warning: {}: {e}", record.problem_id));
                continue;
            }
        };
        let code = code_block(&text);
        let slots = find_slots(&record.question);
        let gold = record
            .answer
            .as_deref()
            .and_then(crate::num::wide::Value::parse_decimal);
        let outcome = validate_program(
            &code,
            &record.question,
            &slots,
            gold,
            AlignMode::Given,
            config.links,
        );
        record.program = Some(code);
        record.program_origin = origin.clone();
        match outcome {
            Ok(tree) => {
                record.tree = Some(tree);
                record.error = None;
                summary.now_valid += 1;
            }
            Err(e) => {
                summary.rejected += 1;
                crate::progress::note!(
                    "{}: the model's program was rejected: {e}",
                    record.problem_id
                );
                record.tree = None;
                record.error = Some(ProgramError::new(
                    e.kind,
                    format!("program written by {model}: {}", e.detail),
                ));
            }
        }
        dirty.insert(t);
        answered.insert(record.problem_id.clone(), i);
        unsaved += 1;
        if unsaved >= FLUSH_EVERY || saved_at.elapsed() >= Duration::from_secs(FLUSH_SECONDS) {
            save(&config.tables, &tables, &mut dirty, &mut answered)?;
            (unsaved, saved_at) = (0, Instant::now());
        }
    }
    for w in workers {
        let _ = w.join();
    }
    save(&config.tables, &tables, &mut dirty, &mut answered)?;
    progress.finish();
    Ok(summary)
}

/// Merge the programs answered since the last save into the problems files as they are now,
/// under `ingest`'s writer lock: an `ingest` that ran while the model was thinking keeps what it
/// wrote. A program lands only on a problem that still asks the same question and still has no
/// valid program.
fn save(
    tables_dir: &Path,
    tables: &[(PathBuf, Vec<ProblemRecord>)],
    dirty: &mut BTreeSet<usize>,
    answered: &mut HashMap<String, usize>,
) -> Result<()> {
    if dirty.is_empty() {
        return Ok(());
    }
    let _lock = WriterLock::wait(tables_dir, INGEST_STAGE, INGEST_LOCK)?;
    for t in std::mem::take(dirty) {
        let (path, asked) = &tables[t];
        if !path.is_file() {
            continue;
        }
        let mut now = problems::read_file(path)?;
        let mut changed = false;
        for rec in now.iter_mut() {
            let Some(&i) = answered.get(&rec.problem_id) else {
                continue;
            };
            let mine = &asked[i];
            if rec.question == mine.question && !rec.is_valid() {
                rec.program.clone_from(&mine.program);
                rec.program_origin.clone_from(&mine.program_origin);
                rec.tree.clone_from(&mine.tree);
                rec.error.clone_from(&mine.error);
                changed = true;
            }
        }
        if changed {
            write_batch(path, &records_to_batch(&now)?)?;
        }
    }
    answered.clear();
    Ok(())
}

/// The writer lock `ingest` holds over the problems table.
const INGEST_STAGE: &str = "ingest";
const INGEST_LOCK: &str = "problems";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_code_in_a_reply() {
        assert_eq!(
            code_block("Sure:\n```python\nx = 1\nprint(x)\n```\nDone."),
            "x = 1\nprint(x)\n"
        );
        assert_eq!(code_block("```\ny = 2\n```"), "y = 2\n");
        assert_eq!(code_block("print(3)"), "print(3)");
    }
}
