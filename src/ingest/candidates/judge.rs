//! Judging the published programs matched to one source's problems: each validated as a given
//! program is, then held to what a published program must show besides (constants the question
//! explains, no question number read where a unit the question names may be meant, a second
//! source that agrees on every set of distinguishing numbers), and the first confirmed one taken
//! by a problem without a valid program of its own.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rayon::prelude::*;

use super::{Candidates, CandidatesReport, ReadCandidate, SourceCounts, ORIGIN_PREFIX};
use crate::num::Num;
use crate::program::align::justify_constant;
use crate::program::links::UNIT_CONSTANTS;
use crate::program::readings::agree;
use crate::program::{validate_program, AlignMode, ErrorKind, Links, ProgramError};
use crate::program::{ConstKind, Node};
use crate::published::Restoration;
use crate::question::find_slots;
use crate::store::candidate_programs::CandidateRecord;
use crate::store::problems::ProblemRecord;

/// Judge the candidates matched to one source's problems (`matched`, as [`match_candidates`]
/// gives them), let each problem without a valid program of its own take its first valid one,
/// and return the table rows, one per (candidate, problem), in the problems' order.
pub fn judge(
    records: &mut [ProblemRecord],
    matched: &[(usize, usize)],
    candidates: &Candidates,
    links: Links,
    report: &mut CandidatesReport,
) -> Vec<CandidateRecord> {
    let verdicts: Vec<std::result::Result<crate::program::Program, ProgramError>> = matched
        .par_iter()
        .map(|&(pos, c)| {
            let (record, program) = (&records[pos], &candidates.rows[c].candidate.program);
            crate::contain::run(|| verdict(record, program, links)).unwrap_or_else(|panicked| {
                Err(ProgramError::new(ErrorKind::Internal, panicked.to_string()))
            })
        })
        .collect();
    let confirmations = confirmations(records, matched, candidates, &verdicts);
    let mut rows = Vec::with_capacity(matched.len());
    for ((&(pos, c), verdict), confirmed_by) in matched.iter().zip(verdicts).zip(confirmations) {
        let read = &candidates.rows[c];
        let record = &mut records[pos];
        let counts = counts_of(report, read, &candidates.files[read.file].path);
        counts.judged += 1;
        let error = match verdict {
            Ok(tree) => {
                counts.valid += 1;
                // Once it took one the problem is valid, so later candidates are not chosen.
                let chosen = confirmed_by.is_some() && takes_a_candidate(record);
                if chosen {
                    counts.chosen += 1;
                    record.program = Some(read.candidate.program.clone());
                    record.program_origin = format!("{ORIGIN_PREFIX}{}", read.source);
                    record.tree = Some(tree);
                    record.error = None;
                }
                let mut verdict = row(record, read, candidates, None, chosen);
                verdict.confirmed_by = confirmed_by;
                rows.push(verdict);
                continue;
            }
            Err(e) => e,
        };
        *counts.refused.entry(error.kind).or_default() += 1;
        if error.kind == ErrorKind::Internal {
            // A bug, not a verdict on the program: said at once, beside its line.
            crate::progress::note!(
                "warning: {}:{}: {}",
                candidates.files[read.file].path.display(),
                read.line,
                error.detail
            );
        }
        rows.push(row(record, read, candidates, Some(error), false));
    }
    rows
}

/// For each matched (problem, candidate) whose program is valid, the source of the first other
/// valid candidate of the same problem, from another source, that gives the same answer on every
/// set of distinguishing numbers. One program that reproduces the gold answer may do so by
/// coincidence on the original numbers alone (a share gone read as the share left at one half;
/// a 3 that is the question's count and also 2 + 1): a second program written independently
/// that agrees with it everywhere is the evidence that it reads the question as written.
fn confirmations(
    records: &[ProblemRecord],
    matched: &[(usize, usize)],
    candidates: &Candidates,
    verdicts: &[std::result::Result<crate::program::Program, ProgramError>],
) -> Vec<Option<String>> {
    let mut by_problem: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, (&(pos, _), verdict)) in matched.iter().zip(verdicts).enumerate() {
        if verdict.is_ok() {
            by_problem.entry(pos).or_default().push(i);
        }
    }
    (0..matched.len())
        .into_par_iter()
        .map(|i| {
            let (pos, c) = matched[i];
            let Ok(tree) = &verdicts[i] else {
                return None;
            };
            let originals = records[pos].slot_nums();
            let source = &candidates.rows[c].source;
            by_problem[&pos].iter().find_map(|&j| {
                let other = &candidates.rows[matched[j].1].source;
                let Ok(other_tree) = &verdicts[j] else {
                    return None;
                };
                // A bug while comparing is no confirmation.
                let same = crate::contain::run(|| agree(tree, other_tree, &originals));
                (other != source && same == Ok(true)).then(|| other.clone())
            })
        })
        .collect()
}

/// A problem that may take a candidate: no valid program of its own, and a usable row whose
/// validation did not fail on a bug.
fn takes_a_candidate(record: &ProblemRecord) -> bool {
    !record.is_valid()
        && record
            .error
            .as_ref()
            .is_none_or(|e| !matches!(e.kind, ErrorKind::BadInput | ErrorKind::Internal))
}

/// A candidate program validated against a problem exactly as a given program is.
fn verdict(
    record: &ProblemRecord,
    program: &str,
    links: Links,
) -> std::result::Result<crate::program::Program, ProgramError> {
    let Some(gold) = record
        .answer
        .as_deref()
        .and_then(crate::num::wide::Value::parse_decimal)
    else {
        return Err(ProgramError::new(
            ErrorKind::BadInput,
            "the problem has no gold answer to check the program against",
        ));
    };
    let slots = find_slots(&record.question);
    let tree = validate_program(
        program,
        &record.question,
        &slots,
        Some(gold),
        AlignMode::Given,
        links,
    )?;
    // A model's constant that nothing in the question explains may be derived from the question's
    // numbers (`/ 5` for "4 times as much" plus the one share): right on the original numbers,
    // wrong on every variant that changes the 4, and every model that wrote it agrees with the
    // others. Only constants a synthesised program may use stand.
    for node in &tree.nodes {
        if let Node::Const {
            value,
            kind: ConstKind::Literal,
        } = node
        {
            if justify_constant(*value, &record.question, &slots).is_none() {
                return Err(ProgramError::new(
                    ErrorKind::UnresolvedConstant,
                    format!(
                        "{} is not a question number, a number word of the question or a unit constant: it may be computed from the question's numbers, which a variant changes",
                        crate::program::tree::num_text::to_text(value)
                    ),
                ));
            }
        }
    }
    // A question number of the value of a unit the question names ("2 boxes" beside "each pair")
    // may be read where the program means the unit: two models dividing the boxes' cost by one
    // box's contacts and multiplying by the 2 boxes agree with each other, and are right only
    // while the boxes are 2. A published program may not read such a number.
    let lower = record.question.to_lowercase();
    for node in &tree.nodes {
        let Node::Leaf { slot } = node else { continue };
        let Some(s) = slots.get(*slot as usize) else {
            continue;
        };
        let named = UNIT_CONSTANTS.iter().find(|(v, _, words)| {
            !words.is_empty()
                && Num::parse_decimal(v).is_some_and(|u| u.eq_num(s.value))
                && words.iter().any(|w| lower.contains(w))
        });
        if let Some((_, what, _)) = named {
            return Err(ProgramError::new(
                ErrorKind::AmbiguousOperand,
                format!(
                    "the question's {} could be read where the program means the unit it names ({what})",
                    s.written_in(&record.question)
                ),
            ));
        }
    }
    Ok(tree)
}

fn row(
    record: &ProblemRecord,
    read: &ReadCandidate,
    candidates: &Candidates,
    error: Option<ProgramError>,
    chosen: bool,
) -> CandidateRecord {
    CandidateRecord {
        problem_id: record.problem_id.clone(),
        source: read.source.clone(),
        family: read.candidate.family.as_str().to_string(),
        file: candidates.files[read.file].path.display().to_string(),
        line: read.line,
        program: read.candidate.program.clone(),
        restoration: read.candidate.restoration.as_ref().map(|r| match r {
            Restoration::Unchanged => "unchanged".to_string(),
            Restoration::Undone { changed, original } => format!("{changed} -> {original}"),
        }),
        error,
        chosen,
        confirmed_by: None,
    }
}

/// The counts of `read`'s source, created on its first row.
pub(super) fn counts_of<'a>(
    report: &'a mut CandidatesReport,
    read: &ReadCandidate,
    file: &Path,
) -> &'a mut SourceCounts {
    let at = match report.sources.iter().position(|s| s.source == read.source) {
        Some(at) => at,
        None => {
            report.sources.push(SourceCounts {
                source: read.source.clone(),
                family: read.candidate.family,
                files: Vec::new(),
                read: 0,
                matched: 0,
                judged: 0,
                valid: 0,
                chosen: 0,
                refused: BTreeMap::new(),
            });
            report.sources.len() - 1
        }
    };
    let counts = &mut report.sources[at];
    if !counts.files.iter().any(|f| f == file) {
        counts.files.push(file.to_path_buf());
    }
    counts
}
