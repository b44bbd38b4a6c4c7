//! Judging the published programs matched to one source's problems: each validated as a given
//! program is, then held to what a published program must show besides (constants the question
//! explains, no question number read where a unit the question names may be meant, a second
//! source that agrees on every set of distinguishing numbers), and the first confirmed one taken
//! by a problem without a valid program of its own.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rayon::prelude::*;

use super::shortfall::{ProblemShortfall, Shortfall, Stage};
use super::{Candidates, CandidatesReport, Dispute, ReadCandidate, SourceCounts, ORIGIN_PREFIX};
use crate::num::Num;
use crate::program::align::validate_published;
use crate::program::align::{computed_answer, justify_constant};
use crate::program::links::UNIT_CONSTANTS;
use crate::program::readings::agree;
use crate::program::{ConstKind, Node, Program};
use crate::program::{ErrorKind, Links, ProgramError};
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
    let verdicts: Vec<Verdict> = matched
        .par_iter()
        .map(|&(pos, c)| {
            let (record, program) = (&records[pos], &candidates.rows[c].candidate.program);
            crate::contain::run(|| verdict(record, program, links)).unwrap_or_else(|panicked| {
                Err((
                    ProgramError::new(ErrorKind::Internal, panicked.to_string()),
                    Stage::Validation,
                ))
            })
        })
        .collect();
    let confirmations = confirmations(records, matched, candidates, &verdicts);
    let mut rows = Vec::with_capacity(matched.len());
    let mut nearest: BTreeMap<usize, ProblemShortfall> = BTreeMap::new();
    // Per problem, the answers of its programs that miss the gold: (answer, source, family).
    let mut missed: BTreeMap<usize, Vec<(String, String, &'static str)>> = BTreeMap::new();
    for ((&(pos, c), verdict), confirmation) in matched.iter().zip(verdicts).zip(confirmations) {
        let read = &candidates.rows[c];
        let record = &mut records[pos];
        let counts = counts_of(report, read, &candidates.files[read.file].path);
        counts.judged += 1;
        let taken = verdict.and_then(|readings| {
            taken_reading(readings, confirmation).map_err(|e| (e, Stage::Readings))
        });
        // A confirmed program is taken, so only an unconfirmed one can leave a problem invalid.
        let shortfall = match &taken {
            Ok(_) => Shortfall::Unconfirmed,
            Err((e, stage)) => Shortfall::of_error(e, *stage),
        };
        if nearest.get(&pos).is_none_or(|n| shortfall < n.shortfall) {
            let source = read.source.clone();
            nearest.insert(pos, ProblemShortfall { shortfall, source });
        }
        if let Err((e, Stage::Validation)) = &taken {
            if e.kind == ErrorKind::WrongAnswer {
                let program = &read.candidate.program;
                if let Ok(Ok(answer)) = crate::contain::run(|| computed_answer(program)) {
                    missed.entry(pos).or_default().push((
                        answer.to_string(),
                        read.source.clone(),
                        read.candidate.family.as_str(),
                    ));
                }
            }
        }
        let error = match taken.map_err(|(e, _)| e) {
            Ok((tree, confirmed_by)) => {
                counts.valid += 1;
                // Once it took one the problem is valid, so later candidates are not chosen.
                let chosen = confirmed_by.is_some() && takes_a_candidate(record);
                if chosen {
                    counts.chosen += 1;
                    record.program = Some(read.candidate.program.clone());
                    record.program_origin = format!("{ORIGIN_PREFIX}{}", read.source);
                    record.tree = Some(tree.clone());
                    record.error = None;
                }
                let mut verdict = row(record, read, candidates, None, chosen);
                verdict.confirmed_by = confirmed_by;
                verdict.tree = Some(tree);
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
    for (pos, mut n) in nearest {
        let record = &records[pos];
        if record.is_valid() {
            continue;
        }
        // No program may give a label the question contradicts, whatever its verdict.
        if record.error.as_ref().map(|e| e.kind) == Some(ErrorKind::WrongLabel) {
            n.shortfall = Shortfall::NoGold;
        }
        report.shortfalls.insert(record.problem_id.clone(), n);
    }
    for (pos, answers) in missed {
        if let Some(d) = dispute(&records[pos], answers) {
            report.disputes.push(d);
        }
    }
    rows
}

/// Programs that agree on one answer other than the label: at least this many...
const DISPUTE_PROGRAMS: usize = 3;
/// ...from at least this many projects.
const DISPUTE_FAMILIES: usize = 2;

/// The label a problem's published programs dispute, if enough of them, from enough projects,
/// agree on one other answer. Agreement is no proof (models share mistakes), so this is only
/// listed for a reader, never acted on.
fn dispute(
    record: &ProblemRecord,
    answers: Vec<(String, String, &'static str)>,
) -> Option<Dispute> {
    let mut by_answer: BTreeMap<String, (Vec<String>, std::collections::BTreeSet<&str>)> =
        BTreeMap::new();
    for (answer, source, family) in answers {
        let entry = by_answer.entry(answer).or_default();
        entry.0.push(source);
        entry.1.insert(family);
    }
    let (answer, (sources, _)) = by_answer
        .into_iter()
        .filter(|(_, (s, f))| s.len() >= DISPUTE_PROGRAMS && f.len() >= DISPUTE_FAMILIES)
        .max_by_key(|(_, (s, _))| s.len())?;
    Some(Dispute {
        problem_id: record.problem_id.clone(),
        label: record.answer.clone().unwrap_or_default(),
        answer,
        sources,
        status: match &record.error {
            None => record.status().to_string(),
            Some(e) => e.kind.to_string(),
        },
    })
}

/// A candidate's readings, or why it was refused and at which stage.
type Verdict = std::result::Result<Vec<Program>, (ProgramError, Stage)>;

/// What the other sources' programs say of one candidate's readings.
#[derive(Clone, Debug, PartialEq)]
enum Confirmation {
    /// No other source's program agrees with any reading.
    None,
    /// Reading `reading` is the one another source (`by`, the first in the files' order)
    /// agrees with.
    One { reading: usize, by: String },
    /// Other sources agree with different readings of it.
    Several,
}

/// The reading a candidate is taken as, with its confirming source: its only reading (confirmed
/// or not), or the one reading of several that another source confirms. A program that reads the
/// question several ways, none or more than one of them confirmed, is refused: which one the
/// model meant is not written anywhere.
fn taken_reading(
    mut readings: Vec<Program>,
    confirmation: Confirmation,
) -> std::result::Result<(Program, Option<String>), ProgramError> {
    let n = readings.len();
    match confirmation {
        Confirmation::One { reading, by } => Ok((readings.swap_remove(reading), Some(by))),
        _ if n == 1 => Ok((readings.swap_remove(0), None)),
        Confirmation::None => Err(ProgramError::new(
            ErrorKind::NumberMisalignment,
            format!(
                "writes a number of the question more often than the question does, which reads {n} ways; no other source's program confirms one"
            ),
        )),
        Confirmation::Several => Err(ProgramError::new(
            ErrorKind::NumberMisalignment,
            format!(
                "writes a number of the question more often than the question does, which reads {n} ways; other sources confirm more than one"
            ),
        )),
    }
}

/// For each matched (problem, candidate) with readings, which of them the valid candidates of
/// the same problem from other sources confirm: a reading is confirmed by a program of another
/// source that gives the same answer on every set of distinguishing numbers. One program that
/// reproduces the gold answer may do so by coincidence on the original numbers alone (a share
/// gone read as the share left at one half; a 3 that is the question's count and also 2 + 1): a
/// second program written independently that agrees with it everywhere is the evidence that it
/// reads the question as written.
fn confirmations(
    records: &[ProblemRecord],
    matched: &[(usize, usize)],
    candidates: &Candidates,
    verdicts: &[Verdict],
) -> Vec<Confirmation> {
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
            let Ok(readings) = &verdicts[i] else {
                return Confirmation::None;
            };
            let originals = records[pos].slot_nums();
            let source = &candidates.rows[c].source;
            // Per reading, its first confirming source: among the programs with one reading
            // (which the paper's counting rule links), then among those with several.
            let mut decided = Confirmation::None;
            for several in [false, true] {
                let mut confirmed: Vec<Option<&String>> = vec![None; readings.len()];
                for &j in &by_problem[&pos] {
                    let other = &candidates.rows[matched[j].1].source;
                    let Ok(others) = &verdicts[j] else { continue };
                    if other == source || (others.len() > 1) != several {
                        continue;
                    }
                    for (r, by) in readings.iter().zip(confirmed.iter_mut()) {
                        if by.is_some() {
                            continue;
                        }
                        // A bug while comparing is no confirmation.
                        let same = others
                            .iter()
                            .any(|o| crate::contain::run(|| agree(r, o, &originals)) == Ok(true));
                        if same {
                            *by = Some(other);
                        }
                    }
                }
                let mut hits = confirmed
                    .iter()
                    .enumerate()
                    .filter_map(|(k, b)| Some((k, (*b)?)));
                decided = match (hits.next(), hits.next()) {
                    (None, _) => continue,
                    (Some((reading, by)), None) => Confirmation::One {
                        reading,
                        by: by.clone(),
                    },
                    (Some(_), Some(_)) => Confirmation::Several,
                };
                break;
            }
            decided
        })
        .collect()
}

/// A problem that may take a candidate: no valid program of its own, and a usable row whose
/// validation did not fail on a bug and whose label is not known wrong.
fn takes_a_candidate(record: &ProblemRecord) -> bool {
    !record.is_valid()
        && record.error.as_ref().is_none_or(|e| {
            !matches!(
                e.kind,
                ErrorKind::BadInput | ErrorKind::Internal | ErrorKind::WrongLabel
            )
        })
}

/// A candidate program validated against a problem as a given program is, with the readings a
/// published program may have besides (see [`validate_published`]); each reading is held to
/// what a published program must show.
fn verdict(record: &ProblemRecord, program: &str, links: Links) -> Verdict {
    let Some(gold) = record
        .answer
        .as_deref()
        .and_then(crate::num::wide::Value::parse_decimal)
    else {
        return Err((
            ProgramError::new(
                ErrorKind::BadInput,
                "the problem has no gold answer to check the program against",
            ),
            Stage::Validation,
        ));
    };
    let slots = find_slots(&record.question);
    let readings = validate_published(program, &record.question, &slots, Some(gold), links)
        .map_err(|e| (e, Stage::Validation))?;
    let mut kept = Vec::with_capacity(readings.len());
    let mut first_error = None;
    for tree in readings {
        match explained(&tree, record, &slots) {
            Ok(()) => kept.push(tree),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) if kept.is_empty() => Err((e, Stage::Explained)),
        _ => Ok(kept),
    }
}

/// A small count a solution writes for things the text names without a number ("Saturday and
/// Sunday" are 2 days, "Betsy and Donovan" split a meal in 2): an integer from 2 to 12 that no
/// one operation on the question's numbers gives (a sum, difference, product or quotient of two
/// of them, or one of them plus or minus 1). The constants the blind audit found wrong were
/// such results (`/ 5` for "4 times as much" and the one share); a count of named things does
/// not move when a variant changes the numbers.
fn structural_constant(value: Num, slots: &[crate::question::Slot]) -> bool {
    let Some(n) = value.as_integer() else {
        return false;
    };
    if !(2..=12).contains(&n) {
        return false;
    }
    let numbers: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let one = Num::ONE;
    let derived = numbers.iter().any(|&a| {
        [a.add(one), a.sub(one)]
            .into_iter()
            .any(|r| r.is_ok_and(|r| r.eq_num(value)))
            || numbers.iter().any(|&b| {
                [a.add(b), a.sub(b), a.mul(b), a.div(b)]
                    .into_iter()
                    .any(|r| r.is_ok_and(|r| r.eq_num(value)))
            })
    });
    !derived
}

/// What a published program must show besides a given program's checks.
fn explained(
    tree: &Program,
    record: &ProblemRecord,
    slots: &[crate::question::Slot],
) -> std::result::Result<(), ProgramError> {
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
            if justify_constant(*value, &record.question, slots).is_none()
                && !structural_constant(*value, slots)
            {
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
    Ok(())
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
        tree: None,
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
