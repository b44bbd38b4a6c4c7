//! Published model-written programs as candidates (`ingest --candidates FILE...`): the released
//! program files of ToRA, Program-of-Thoughts and PAL (inside GSM-Hard), read row by row
//! ([`crate::published::extract`]), matched to the problems being ingested, and each judged
//! exactly as a given program is (the paper's appendix A.1 filter: a program counts only when it
//! reproduces the gold answer). Nothing is run.
//!
//! - Reading: each file line by line, as bytes. A line that is not UTF-8, not a whole JSON object,
//!   or a row `extract` refuses is a bad line, named `file:line: reason` on stderr and counted; the
//!   rest are read. Blank lines and PoT's prompt line are skipped.
//! - Source: `<family>:<model>`, the model the row names, else the file's name without its
//!   extension (`tora:tora-70b-v1.0.gsm8k_test`): stable across runs, and one name per released
//!   file.
//! - Matching: an index (ToRA's `idx`) names the row of that index of a GSM8K source, when its
//!   question is the candidate's; a question names every row of every source with that question
//!   ([`crate::published::normalise_question`] on both sides).
//! - Choosing: a problem whose own program (given or synthesised) is valid keeps it; one whose own
//!   is not takes its first valid candidate, in the order the files were named, then by line.
//!   Problems whose row is unusable (`bad_input`) or whose validation failed on a bug take none.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::PathBuf;

use serde_json::Value;

use super::{Format, Source};
use crate::error::{Error, Result};
use crate::program::ErrorKind;
use crate::published::{
    extract, normalise_question, Candidate, Extracted, Family, MatchKey, RowError,
};

mod judge;
pub mod shortfall;

use judge::counts_of;
pub use judge::judge;

pub use crate::store::candidate_programs::ORIGIN_PREFIX;

/// How many unmatched candidates of one file are named one by one before the rest are counted.
const NAMED_UNMATCHED: usize = 5;

pub use crate::published::{publication, Publication, PUBLICATIONS};

/// One candidate file, as read.
#[derive(Clone, Debug, Default)]
pub struct CandidateFile {
    pub path: PathBuf,
    /// Non-blank lines.
    pub lines: usize,
    /// PoT's few-shot prompt lines (skipped).
    pub prompts: usize,
    /// Bad lines, each `file:line: reason`.
    pub bad: Vec<String>,
    /// How many bad lines each reason has (`malformed_json`, `not_utf8`, `no_python_block`,
    /// `gsm_hard_texts_differ`, ...).
    pub bad_by_reason: BTreeMap<String, usize>,
    /// Candidates that matched no problem, each `file:line: reason`.
    pub unmatched: Vec<String>,
}

/// One usable row of a candidate file.
#[derive(Clone, Debug)]
pub struct ReadCandidate {
    /// Index into [`Candidates::files`].
    pub file: usize,
    /// From 1.
    pub line: u64,
    /// `<family>:<model or file stem>`.
    pub source: String,
    pub candidate: Candidate,
}

/// Every candidate file, read in the order named; candidates in file, then line order, which is
/// the order of preference.
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    pub files: Vec<CandidateFile>,
    pub rows: Vec<ReadCandidate>,
}

/// Counts for one candidate source, for the coverage report.
#[derive(Clone, Debug)]
pub struct SourceCounts {
    pub source: String,
    pub family: Family,
    /// The files its rows came from, in the order named.
    pub files: Vec<PathBuf>,
    /// Rows that gave a program.
    pub read: usize,
    /// Of those, rows matched to at least one problem.
    pub matched: usize,
    /// (program, problem) pairs judged: rows of `candidate_programs`.
    pub judged: usize,
    pub valid: usize,
    /// Problems that took one of its programs.
    pub chosen: usize,
    pub refused: BTreeMap<ErrorKind, usize>,
}

/// What the candidates did in an ingest: per file and per source.
#[derive(Clone, Debug, Default)]
pub struct CandidatesReport {
    pub files: Vec<CandidateFile>,
    /// In the order first read.
    pub sources: Vec<SourceCounts>,
    /// Each problem offered candidates that is still without a valid program, by problem id:
    /// its nearest candidate's shortfall.
    pub shortfalls: BTreeMap<String, shortfall::ProblemShortfall>,
    /// Labels that several published programs agree on another answer than, in problem order.
    pub disputes: Vec<Dispute>,
}

/// A label the published programs dispute: enough of them, from enough projects, agree on one
/// other answer. Listed for a reader to check; models share mistakes, so nothing acts on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispute {
    pub problem_id: String,
    pub label: String,
    /// The answer they agree on.
    pub answer: String,
    /// Their sources.
    pub sources: Vec<String>,
    /// `valid`, or why the problem is not.
    pub status: String,
}

/// Read every candidate file. A file that cannot be read at all is an error naming it; its bad
/// lines are not (they are warned about, counted, and the rest read).
pub fn read_candidates(paths: &[PathBuf]) -> Result<Candidates> {
    let mut out = Candidates::default();
    for (index, path) in paths.iter().enumerate() {
        let file = std::fs::File::open(path).map_err(|e| Error::file(path, e))?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut read = CandidateFile {
            path: path.clone(),
            ..CandidateFile::default()
        };
        let mut reader = std::io::BufReader::new(file);
        let mut line = Vec::new();
        for number in 1u64.. {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| Error::file(path, e))?;
            if n == 0 {
                break;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            read.lines += 1;
            let mut bad = |key: String, reason: String| {
                read.bad
                    .push(format!("{}:{number}: {reason}", path.display()));
                *read.bad_by_reason.entry(key).or_default() += 1;
            };
            let row = match parse_line(&line) {
                Ok(row) => row,
                Err((key, reason)) => {
                    bad(key.to_string(), reason);
                    continue;
                }
            };
            match extract(&row, None) {
                Ok(Extracted::Prompt) => read.prompts += 1,
                Ok(Extracted::Candidate(candidate)) => {
                    let name = candidate.model.as_deref().unwrap_or(&stem);
                    out.rows.push(ReadCandidate {
                        file: index,
                        line: number,
                        source: format!("{}:{name}", candidate.family),
                        candidate: *candidate,
                    });
                }
                Err(e) => bad(row_error_key(&e), e.to_string()),
            }
        }
        crate::input::warn_first_few(path, &read.bad);
        out.files.push(read);
    }
    Ok(out)
}

/// One line as a JSON value, or why not: a short key and a sentence.
fn parse_line(line: &[u8]) -> std::result::Result<Value, (&'static str, String)> {
    let text = std::str::from_utf8(line).map_err(|e| {
        (
            "not_utf8",
            format!("not valid UTF-8 (byte {})", e.valid_up_to()),
        )
    })?;
    let text = text.trim_end_matches(['\n', '\r']);
    // Nesting this deep would overflow the parser's stack; no released row comes near it.
    if crate::input::json_depth(text) > crate::input::MAX_JSON_DEPTH {
        return Err((
            "too_deep",
            format!(
                "JSON nested deeper than {} levels",
                crate::input::MAX_JSON_DEPTH
            ),
        ));
    }
    serde_json::from_str(text).map_err(|e| ("malformed_json", format!("malformed JSON: {e}")))
}

/// The short key of a row `extract` refuses, for counting reasons.
fn row_error_key(e: &RowError) -> String {
    match e {
        RowError::NotAnObject => "not_an_object".into(),
        RowError::NoCode(_) => "no_program".into(),
        RowError::UnknownShape(_) => "unknown_format".into(),
        RowError::NoMatchKey => "no_index_or_question".into(),
        RowError::FenceMissing => "no_python_block".into(),
        RowError::FenceUnclosed => "python_block_unclosed".into(),
        RowError::SeveralBlocks(_) => "several_python_blocks".into(),
        RowError::Restoration(r) => format!("gsm_hard_{}", r.as_str()),
    }
}

/// The problems each candidate matched: per source, (row position, candidate index) pairs in the
/// order of the source's rows, then of preference. Candidates that matched nothing are named in
/// their file's `unmatched`.
pub fn match_candidates(
    candidates: &mut Candidates,
    sources: &[Source],
) -> Vec<Vec<(usize, usize)>> {
    let mut by_question: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    let mut by_index: HashMap<i64, Vec<(usize, usize)>> = HashMap::new();
    for (s, source) in sources.iter().enumerate() {
        for (pos, row) in source.rows.iter().enumerate() {
            if row.row_error.is_some() {
                continue;
            }
            by_question
                .entry(normalise_question(&row.question))
                .or_default()
                .push((s, pos));
            if source.format == Format::Gsm8k {
                by_index.entry(row.source_index).or_default().push((s, pos));
            }
        }
    }
    let mut matched: Vec<Vec<(usize, usize)>> = vec![Vec::new(); sources.len()];
    for (c, read) in candidates.rows.iter().enumerate() {
        let found: std::result::Result<Vec<(usize, usize)>, String> = match &read.candidate.key {
            MatchKey::Question(q) => by_question
                .get(q)
                .cloned()
                .ok_or_else(|| "no problem being ingested has this question".to_string()),
            MatchKey::Index(i) => {
                let at = i64::try_from(*i).ok().and_then(|i| by_index.get(&i));
                let wanted = normalise_question(&read.candidate.question);
                // The index names a line of GSM8K's own file. When no such file is being
                // ingested (another release of the same problems, such as Xie et al.'s), the row
                // is matched by its question; beside a GSM8K file, an index that names another
                // question there is a row of another version, and is not matched at all.
                let by_text = by_question.get(&wanted).filter(|_| by_index.is_empty());
                match (by_text, at) {
                    (Some(rows), _) => Ok(rows.clone()),
                    (None, at) => match at {
                        None => Err(format!(
                            "index {i}: no GSM8K source being ingested has a row {i}"
                        )),
                        Some(rows) => {
                            let same: Vec<(usize, usize)> = rows
                                .iter()
                                .copied()
                                .filter(|&(s, pos)| {
                                    normalise_question(&sources[s].rows[pos].question) == wanted
                                })
                                .collect();
                            if same.is_empty() {
                                Err(format!(
                                    "index {i}: row {i} of {} has another question",
                                    sources[rows[0].0].path.display()
                                ))
                            } else {
                                Ok(same)
                            }
                        }
                    },
                }
            }
        };
        match found {
            Ok(rows) => {
                for (s, pos) in rows {
                    matched[s].push((pos, c));
                }
            }
            Err(reason) => {
                let file = &mut candidates.files[read.file];
                file.unmatched
                    .push(format!("{}:{}: {reason}", file.path.display(), read.line));
            }
        }
    }
    for m in &mut matched {
        m.sort_unstable();
    }
    for file in &candidates.files {
        note_unmatched(file);
    }
    matched
}

fn note_unmatched(file: &CandidateFile) {
    for u in file.unmatched.iter().take(NAMED_UNMATCHED) {
        crate::progress::note!("unmatched: {u}");
    }
    if file.unmatched.len() > NAMED_UNMATCHED {
        crate::progress::note!(
            "unmatched: {}: {} more candidate(s) matched no problem ({} in all)",
            file.path.display(),
            file.unmatched.len() - NAMED_UNMATCHED,
            file.unmatched.len()
        );
    }
}

/// The report's per-source read and matched counts (judging fills in the rest), and its files.
pub fn start_report(candidates: &Candidates, matched: &[Vec<(usize, usize)>]) -> CandidatesReport {
    let mut report = CandidatesReport {
        files: candidates.files.clone(),
        sources: Vec::new(),
        shortfalls: BTreeMap::new(),
        disputes: Vec::new(),
    };
    let mut hit = vec![false; candidates.rows.len()];
    for &(_, c) in matched.iter().flatten() {
        hit[c] = true;
    }
    for (c, read) in candidates.rows.iter().enumerate() {
        let counts = counts_of(&mut report, read, &candidates.files[read.file].path);
        counts.read += 1;
        counts.matched += usize::from(hit[c]);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::RawProblem;
    use serde_json::json;

    fn source(name: &str, format: Format, questions: &[&str]) -> Source {
        Source {
            path: PathBuf::from(name),
            format,
            dataset: "d".into(),
            split: name.into(),
            rows: questions
                .iter()
                .enumerate()
                .map(|(i, q)| RawProblem {
                    source_index: i as i64,
                    question: q.to_string(),
                    ..Default::default()
                })
                .collect(),
        }
    }

    fn read(rows: &[Value]) -> Candidates {
        let rows = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let Ok(Extracted::Candidate(candidate)) = extract(row, None) else {
                    panic!("not a candidate: {row}");
                };
                ReadCandidate {
                    file: 0,
                    line: i as u64 + 1,
                    source: format!("{}:f", candidate.family),
                    candidate: *candidate,
                }
            })
            .collect();
        Candidates {
            files: vec![CandidateFile {
                path: PathBuf::from("f.jsonl"),
                ..CandidateFile::default()
            }],
            rows,
        }
    }

    /// An index names the row of that index only in a GSM8K source asking the same question (so
    /// a test file's index does not land on the train file's row); a question names every row
    /// asking it, in every source.
    #[test]
    fn indices_match_only_the_same_question_and_questions_match_every_row() {
        let test = source("test", Format::Gsm8k, &["A has 1.", "B has 2.", "C has 3."]);
        let train = source("train", Format::Gsm8k, &["X has 9.", "B has 2."]);
        let list = source(
            "list",
            Format::Jsonl,
            &["C has 3.", "Z has 0.", "C  has 3."],
        );
        let fenced = "```python\nprint(1)\n```";
        let mut candidates = read(&[
            json!({"idx": 1, "question": "B has 2.", "code": [fenced]}),
            json!({"idx": 0, "question": "B has 2.", "code": [fenced]}),
            json!({"idx": 7, "question": "B has 2.", "code": [fenced]}),
            json!({"question": "C has\u{a0}3.", "generated": "ans = 3"}),
            json!({"question": "Nobody asks this.", "generated": "ans = 3"}),
        ]);
        let matched = match_candidates(&mut candidates, &[test, train, list]);
        assert_eq!(matched[0], vec![(1, 0), (2, 3)]);
        assert_eq!(matched[1], vec![(1, 0)]);
        assert_eq!(matched[2], vec![(0, 3), (2, 3)]);
        assert_eq!(
            candidates.files[0].unmatched,
            [
                "f.jsonl:2: index 0: row 0 of test has another question",
                "f.jsonl:3: index 7: no GSM8K source being ingested has a row 7",
                "f.jsonl:5: no problem being ingested has this question",
            ]
        );
    }
}
