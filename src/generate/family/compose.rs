//! Any attack's rows of one problem, made from its families alone: the questions it starts from
//! (the original, or a draw's variants when the problem reached the variants wanted), then each
//! edit in order on the attack's own seed stream. An attack with an edit that can refuse gets a
//! `generation_stats` row counting the questions tried, changed and refused per reason.

use std::collections::{BTreeMap, BTreeSet};

use super::{parts, Edit, Given, Needs};
use crate::attack::text::missing::needed_slots;
use crate::generate::{GenerateConfig, Prepared, ProblemOutput};
use crate::num::wide::Value;
use crate::num::Num;
use crate::seed::{draw_seed, stream_key};
use crate::store::generation_stats::StatRow;
use crate::store::variants::Row;
use crate::vocab::{Attack, Family};

/// What every attack of one problem reads.
pub(in crate::generate) struct Cx<'a> {
    pub p: &'a Prepared<'a>,
    pub out: &'a ProblemOutput,
    pub config: &'a GenerateConfig,
    /// Per draw: whether the problem reached the variants wanted, and whether they are written
    /// (reached, and under the `--problems` cap).
    pub written: &'a BTreeMap<Family, (bool, bool)>,
    pub original_answer: &'a Value,
}

/// A question an attack starts from: its index, text, numbers, gold, support and seed.
struct Source<'q> {
    index: usize,
    question: String,
    values: &'q [Num],
    answer: &'q Value,
    support: u32,
    seed: u64,
    /// Which of its numbers the answer needs, when an edit reads it (else empty).
    needed: Vec<bool>,
}

/// The rows of `attack` for one problem, by attack name, and its statistics row if it counts
/// refusals.
pub(in crate::generate) fn attack_rows(
    cx: &Cx,
    attack: Attack,
    rows: &mut Vec<(String, Row)>,
    stats: &mut Vec<StatRow>,
) {
    let (draw, edits) = parts(attack);
    if draw.is_none() && edits.is_empty() {
        return; // the original's row is every problem's, written before any attack's
    }
    let p = cx.p;
    let valid_only = edits.iter().any(|e| e.needs() == Needs::ValidProgram);
    if valid_only && !p.record.is_valid() {
        return;
    }
    let Some(mut sources) = sources(cx, draw) else {
        return;
    };
    if let Some(program) = p
        .record
        .tree
        .as_ref()
        .filter(|_| edits.iter().any(|e| e.reads_tree()))
    {
        for s in &mut sources {
            s.needed = needed_slots(program, s.values);
        }
    }
    let name = attack.to_string();
    if edits.is_empty() {
        for s in sources {
            let row = p.row(
                &name,
                s.index,
                0,
                s.question,
                s.values,
                Some(s.answer),
                s.seed,
                s.support,
            );
            rows.push((name.clone(), row));
        }
        return;
    }
    let edited = Edited::new(cx, attack, &name, &edits, draw.is_none(), &sources);
    let counted = edits.iter().any(|e| !e.refusals().is_empty());
    if counted {
        stats.push(edited.stat_row(&p.record.problem_id, &name));
    }
    rows.extend(edited.rows.into_iter().map(|r| (name.clone(), r)));
}

/// The questions an attack starts from: the original, or the draw's variants when the problem
/// reached the variants wanted and they are written (`None`: the attack makes nothing of it).
fn sources<'c>(cx: &'c Cx, draw: Option<Family>) -> Option<Vec<Source<'c>>> {
    let p = cx.p;
    let Some(family) = draw else {
        return Some(vec![Source {
            index: 0,
            question: p.record.question.clone(),
            values: &p.values,
            answer: cx.original_answer,
            support: p.original_support(),
            seed: 0,
            needed: Vec::new(),
        }]);
    };
    // No draw: the problem has no valid program, and is here for noise only.
    let drawing = cx.out.drawn.get(&family)?;
    let fractions = matches!(family, Family::Numeric(m) if m.writes_fractions());
    if !cx.written.get(&family).is_some_and(|&(_, write)| write) {
        return None;
    }
    Some(
        drawing
            .drawn
            .iter()
            .enumerate()
            .map(|(i, d)| Source {
                index: i,
                question: p.question_with(&d.slots, cx.config, fractions),
                values: &d.slots,
                answer: &d.answer,
                support: d.support,
                seed: d.seed,
                needed: Vec::new(),
            })
            .collect(),
    )
}

/// The rows an attack's edits made of its sources, and what they tried and refused.
struct Edited {
    rows: Vec<Row>,
    tried: u64,
    refused: BTreeMap<&'static str, usize>,
}

impl Edited {
    /// Each source edited on its own seed of the attack's stream. On the original, the edits'
    /// copies are drawn: distinct ones from at most four draws a copy (two draws can give the
    /// same names or the same sentence), each going to the next free index.
    fn new(
        cx: &Cx,
        attack: Attack,
        name: &str,
        edits: &[Box<dyn Edit>],
        on_original: bool,
        sources: &[Source],
    ) -> Edited {
        let stream = stream_key(cx.config.seed, &cx.p.record.problem_id, name);
        let distinct = edits.iter().any(|e| e.distinct());
        let copies = edits[0].copies(cx.config);
        let draws: Vec<(usize, u64)> = match (on_original, distinct) {
            (true, true) => (0..4 * copies as u64)
                .map(|j| (0, draw_seed(stream, j)))
                .collect(),
            (true, false) => (0..copies as u64)
                .map(|j| (0, draw_seed(stream, j)))
                .collect(),
            (false, _) => sources
                .iter()
                .map(|s| (s.index, draw_seed(stream, s.index as u64)))
                .collect(),
        };
        let mut out = Edited {
            rows: Vec::new(),
            tried: 0,
            refused: BTreeMap::new(),
        };
        let mut seen = BTreeSet::new();
        for (j, (source, seed)) in draws.into_iter().enumerate() {
            let s = &sources[source.min(sources.len() - 1)];
            let index = match (on_original, distinct) {
                (true, true) => seen.len(),
                (true, false) => j,
                (false, _) => s.index,
            };
            if on_original && distinct && seen.len() == copies {
                break;
            }
            out.tried += 1;
            let given = Given {
                text: &s.question,
                values: s.values,
                needed: &s.needed,
            };
            match apply_all(edits, &given, seed, cx.config) {
                Ok(edited) => {
                    if distinct && !seen.insert(edited.text.clone()) {
                        continue;
                    }
                    let mut row = cx.p.row(
                        name,
                        index,
                        attack.noise_level(),
                        edited.text,
                        s.values,
                        attack.answerable().then_some(s.answer),
                        seed,
                        s.support,
                    );
                    row.distractor = edited.distractor.and_then(|k| i64::try_from(k).ok());
                    out.rows.push(row);
                }
                Err((edit, reason)) => {
                    *out.refused.entry(reason).or_default() += 1;
                    if on_original && edit.refuses_every_seed(reason) {
                        break;
                    }
                }
            }
        }
        out
    }

    /// The `generation_stats` row of the attack on one problem.
    fn stat_row(&self, problem_id: &str, name: &str) -> StatRow {
        StatRow {
            problem_id: problem_id.to_string(),
            attack: name.to_string(),
            stats: crate::attack::sample::AttackStats {
                attempts: self.tried,
                ..Default::default()
            },
            emitted: self.rows.len(),
            reached: !self.rows.is_empty(),
            failure: None,
            reader_rules: None,
            lost_to_reader_rules: false,
            refused: (!self.refused.is_empty()).then(|| {
                self.refused
                    .iter()
                    .map(|(reason, n)| format!("{reason}: {n}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            }),
        }
    }
}

/// The question through every edit in order, each on the same seed (an edit that needs a stream
/// of its own mixes it); the first refusal, with the edit that made it, stops it.
fn apply_all<'e>(
    edits: &'e [Box<dyn Edit>],
    question: &Given,
    seed: u64,
    config: &GenerateConfig,
) -> Result<crate::attack::text::Edited, (&'e dyn Edit, &'static str)> {
    let mut out = crate::attack::text::Edited {
        text: question.text.to_string(),
        distractor: None,
    };
    for edit in edits {
        let given = Given {
            text: &out.text,
            ..*question
        };
        let next = edit
            .apply(&given, seed, config)
            .map_err(|reason| (edit.as_ref(), reason))?;
        out = crate::attack::text::Edited {
            text: next.text,
            distractor: next.distractor.or(out.distractor),
        };
    }
    Ok(out)
}

/// The first reason a problem's statistics row gives, for a problem none of whose questions
/// changed.
pub(in crate::generate) fn first_refusal(stats: &StatRow) -> Option<&str> {
    (stats.emitted == 0)
        .then(|| stats.refused.as_deref()?.split(':').next())
        .flatten()
}
