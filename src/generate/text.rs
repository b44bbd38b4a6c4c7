//! The text attacks' rows (`names`, `noop`, and their compositions with M1–M3): each question
//! of a problem, the original's or a numeric variant's, is changed by
//! [`crate::attack::text::apply`] on its own seed; the numbers and the gold stay the question's.
//! On the original, `--text-variants` distinct texts are kept, each with the seed that drew it.
//! One `generation_stats` row per (problem, text attack) counts the questions tried, changed
//! and refused per reason.

use std::collections::BTreeMap;

use super::{GenerateConfig, Prepared};
use crate::attack::sample::{AttackStats, Drawn};
use crate::attack::text::apply;
use crate::num::wide::Value;
use crate::num::Num;
use crate::seed::{draw_seed, stream_key};
use crate::store::generation_stats::StatRow;
use crate::store::variants::Row;
use crate::vocab::{Attack, Method, TextEdit};

/// A question to change: its index, its numbers, gold and support, and the text before the
/// change (the original's, or a numeric variant's).
struct Source<'q> {
    index: usize,
    question: String,
    values: &'q [Num],
    answer: &'q Value,
    support: u32,
}

/// The rows of one text attack of one problem (on the original when `drawn` is `None`, else on
/// each drawn numeric variant), and its statistics row.
pub(super) fn text_rows(
    p: &Prepared,
    config: &GenerateConfig,
    method: Option<Method>,
    edit: TextEdit,
    drawn: Option<&[Drawn]>,
    original_answer: &Value,
) -> (Vec<(String, Row)>, StatRow) {
    let name = Attack::Text(method, edit).to_string();
    let stream = stream_key(config.seed, &p.record.problem_id, &name);
    let sources: Vec<Source> = match drawn {
        None => vec![Source {
            index: 0,
            question: p.record.question.clone(),
            values: &p.values,
            answer: original_answer,
            support: p.original_support(),
        }],
        Some(drawn) => drawn
            .iter()
            .enumerate()
            .map(|(i, d)| Source {
                index: i,
                question: p.question_with(&d.slots, config),
                values: &d.slots,
                answer: &d.answer,
                support: d.support,
            })
            .collect(),
    };
    let mut rows = Vec::new();
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    // On the original, K distinct texts from at most 4K draws (two draws can give the same
    // names or the same sentence): draw j goes to the next free index.
    let draws: Vec<(usize, u64)> = match drawn {
        None => (0..4 * config.text_variants as u64)
            .map(|j| (0, draw_seed(stream, j)))
            .collect(),
        Some(_) => sources
            .iter()
            .map(|s| (s.index, draw_seed(stream, s.index as u64)))
            .collect(),
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut tried = 0;
    for (source, seed) in draws {
        let s = &sources[source.min(sources.len() - 1)];
        let index = if drawn.is_none() { seen.len() } else { s.index };
        if drawn.is_none() && seen.len() == config.text_variants {
            break;
        }
        tried += 1;
        match apply(edit, &s.question, seed) {
            Ok(edited) => {
                if !seen.insert(edited.text.clone()) {
                    continue;
                }
                let mut row = p.row(
                    &name,
                    index,
                    0,
                    edited.text,
                    s.values,
                    s.answer,
                    seed,
                    s.support,
                );
                row.distractor = edited.distractor.and_then(|k| i64::try_from(k).ok());
                rows.push((name.clone(), row));
            }
            Err(reason) => {
                *refused.entry(reason).or_default() += 1;
                // A question one edit refuses, every draw refuses: the rules read the text,
                // not the seed, save the no-op's number.
                if drawn.is_none() && reason != "no_place" {
                    break;
                }
            }
        }
    }
    let stats = StatRow {
        problem_id: p.record.problem_id.clone(),
        attack: name,
        stats: AttackStats {
            attempts: tried,
            ..Default::default()
        },
        emitted: rows.len(),
        reached: !rows.is_empty(),
        failure: None,
        reader_rules: None,
        lost_to_reader_rules: false,
        refused: (!refused.is_empty()).then(|| {
            refused
                .iter()
                .map(|(reason, n)| format!("{reason}: {n}"))
                .collect::<Vec<_>>()
                .join("; ")
        }),
    };
    (rows, stats)
}

/// The first reason a problem's statistics row gives, for a problem none of whose questions
/// changed.
pub(super) fn first_refusal(stats: &StatRow) -> Option<&str> {
    (stats.emitted == 0)
        .then(|| stats.refused.as_deref()?.split(':').next())
        .flatten()
}
