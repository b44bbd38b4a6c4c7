//! A dataset's variants written chunk by chunk, in problem order whatever the thread count: each
//! problem's original, its noised copies and its drawn variants become rows of the `variants`
//! table (one part per attack), and its attempts rows of `generation_stats`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::text::{first_refusal, text_rows};
use super::{GenerateConfig, GenerateSummary, Prepared, ProblemOutput, ProblemWork};
use crate::attack::noise::add_noise;
use crate::attack::sample::Method;
use crate::error::Result;
use crate::num::wide::Value;
use crate::seed::{draw_seed, stream_key};
use crate::store::generation_stats::{stats_to_batch, StatRow};
use crate::store::variants::{rows_to_batch, DatasetWriters, Made, Row};
use crate::vocab::{Attack, AttackSpec};

/// The writers of one dataset and what they have written so far.
pub(super) struct ChunkWriter<'a> {
    config: &'a GenerateConfig,
    dataset: &'a str,
    writers: DatasetWriters,
    made: Made,
    /// Per method, the problems whose variants were written (`--problems` caps it).
    emitted: BTreeMap<Method, usize>,
}

impl<'a> ChunkWriter<'a> {
    pub(super) fn new(
        config: &'a GenerateConfig,
        dataset: &'a str,
        writers: DatasetWriters,
        made: Made,
    ) -> Self {
        ChunkWriter {
            config,
            dataset,
            writers,
            made,
            emitted: BTreeMap::new(),
        }
    }

    /// Write the rows of one chunk, in problem order. A problem whose rendering panics is a
    /// failed problem like one whose attack did: none of its rows is written.
    pub(super) fn write(
        &mut self,
        worked: &[ProblemWork],
        summary: &mut GenerateSummary,
    ) -> Result<()> {
        let mut rows: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        let mut stat_rows = Vec::new();
        for work in worked {
            let (p, out) = match work {
                ProblemWork::Attacked(attacked) => (&attacked.0, &attacked.1),
                ProblemWork::Skipped(e) => {
                    crate::progress::note!("warning: skipped {e}");
                    continue;
                }
                ProblemWork::Failed(record, reason) => {
                    self.failed(&record.problem_id, reason, &mut stat_rows, summary);
                    continue;
                }
            };
            if let Some(e) = &out.error {
                crate::progress::note!("warning: skipped {e}");
                continue;
            }
            let made = crate::contain::run(|| {
                crate::contain::planted_panic(|| format!("render:{}", p.record.problem_id));
                self.problem_rows(p, out)
            });
            match made {
                Ok(Some(made)) => self.keep(p, made, &mut rows, &mut stat_rows, summary),
                Ok(None) => {}
                Err(panicked) => self.failed(
                    &p.record.problem_id,
                    &panicked.to_string(),
                    &mut stat_rows,
                    summary,
                ),
            }
        }
        for (attack, rows) in rows {
            let entry = summary
                .rows
                .entry((self.dataset.to_string(), attack.clone()))
                .or_default();
            let problems: BTreeSet<&str> = rows.iter().map(|r| r.problem_id.as_str()).collect();
            entry.0 += problems.len();
            entry.1 += rows.len();
            entry.2 += rows.iter().filter(|r| r.support >= 2).count();
            self.writers
                .variants(&attack)?
                .write(&rows_to_batch(&rows)?)?;
        }
        if !stat_rows.is_empty() {
            self.writers.stats()?.write(&stats_to_batch(&stat_rows)?)?;
        }
        Ok(())
    }

    /// A problem whose work failed: said once on stderr, one `generation_stats` row per
    /// requested attack with the reason, and named in the summary (the run then exits 1).
    fn failed(
        &self,
        problem_id: &str,
        reason: &str,
        stat_rows: &mut Vec<StatRow>,
        summary: &mut GenerateSummary,
    ) {
        crate::progress::note!("error: {problem_id}: {reason}; its other variants are not written");
        let mut attacks: Vec<String> = Vec::new();
        for attack in &self.config.attacks {
            match *attack {
                AttackSpec::Punct => attacks.extend(
                    self.config
                        .noise_levels
                        .iter()
                        .map(|&l| Attack::Punct(l).to_string()),
                ),
                AttackSpec::Guided => attacks.push(Attack::GUIDED.to_string()),
                AttackSpec::Numeric(m) => attacks.push(m.name().to_string()),
                AttackSpec::NumericPunct(m) => attacks.extend(
                    self.config
                        .noise_levels
                        .iter()
                        .map(|&l| Attack::NumericPunct(m, l).to_string()),
                ),
                AttackSpec::Text(m, e) => attacks.push(Attack::Text(m, e).to_string()),
            }
        }
        attacks.dedup();
        for attack in attacks {
            stat_rows.push(StatRow {
                problem_id: problem_id.to_string(),
                attack,
                stats: Default::default(),
                emitted: 0,
                reached: false,
                failure: Some(reason.to_string()),
                reader_rules: None,
                lost_to_reader_rules: false,
                refused: None,
            });
        }
        summary
            .failed
            .push((problem_id.to_string(), reason.to_string()));
    }

    /// Take in one problem's rows, rendered whole: its rows by attack, its statistics, and the
    /// `--problems` cap's count.
    fn keep(
        &mut self,
        p: &Prepared,
        made: ProblemRows,
        rows: &mut BTreeMap<String, Vec<Row>>,
        stat_rows: &mut Vec<StatRow>,
        summary: &mut GenerateSummary,
    ) {
        self.made.originals.insert(p.record.problem_id.clone());
        for (attack, row) in made.rows {
            rows.entry(attack).or_default().push(row);
        }
        for m in made.emitted {
            *self.emitted.entry(m).or_default() += 1;
        }
        summary.attempts += made.attempts;
        for row in made
            .stats
            .iter()
            .filter(|r| r.refused.is_some() || r.emitted > 0)
        {
            if !row.attack.contains("names") && !row.attack.contains("noop") {
                continue;
            }
            let key = (self.dataset.to_string(), row.attack.clone());
            let entry = summary.text.entry(key).or_default();
            entry.0 += 1;
            if let Some(reason) = first_refusal(row) {
                *entry.1.entry(reason.to_string()).or_default() += 1;
            }
        }
        for row in made.stats.iter().filter(|r| r.lost_to_reader_rules) {
            *summary
                .lost_to_rules
                .entry((self.dataset.to_string(), row.attack.clone()))
                .or_default() += 1;
        }
        stat_rows.extend(made.stats);
    }

    /// Switch the dataset's new tables in (see [`DatasetWriters::publish`]).
    pub(super) fn publish(self, tables: &Path) -> Result<()> {
        Ok(self.writers.publish(tables, self.dataset, &self.made)?)
    }

    /// The rows of one problem by attack and its statistics, built apart from everything
    /// written so far (`None`: the problem is left out, with a warning).
    fn problem_rows(&self, p: &Prepared, out: &ProblemOutput) -> Option<ProblemRows> {
        let config = self.config;
        let mut made = ProblemRows::default();
        let rows = &mut made.rows;
        let original_answer = match &p.record.tree {
            Some(t) => t.eval_value(&p.values).ok(),
            None => p.record.answer.as_deref().and_then(Value::parse_decimal),
        };
        let Some(original_answer) = original_answer else {
            crate::progress::note!(
                "warning: skipped {}: its answer cannot be computed exactly",
                p.record.problem_id
            );
            return None;
        };
        // Per method: whether the problem reached m variants, and whether they are written (it
        // reached m, and the `--problems` cap is not yet met). Decided once for both uses below.
        let written: BTreeMap<Method, (bool, bool)> = out
            .numeric
            .iter()
            .map(|(&m, (drawn, _))| {
                let reached = drawn.len() >= config.variants;
                let under_cap = config
                    .problems
                    .is_none_or(|n| self.emitted.get(&m).copied().unwrap_or(0) < n);
                (m, (reached, reached && under_cap))
            })
            .collect();
        rows.push((
            Attack::ORIGINAL.into(),
            p.row(
                Attack::ORIGINAL,
                0,
                0,
                p.record.question.clone(),
                &p.values,
                &original_answer,
                0,
                p.original_support(),
            ),
        ));
        for attack in &config.attacks {
            match *attack {
                AttackSpec::Punct => {
                    for &level in &config.noise_levels {
                        let name = Attack::Punct(level).to_string();
                        let stream = stream_key(config.seed, &p.record.problem_id, &name);
                        for i in 0..config.noise_variants {
                            let seed = draw_seed(stream, i as u64);
                            let q = add_noise(&p.record.question, level, config.noise_count, seed);
                            let row = p.row(
                                &name,
                                i,
                                level,
                                q,
                                &p.values,
                                &original_answer,
                                seed,
                                p.original_support(),
                            );
                            rows.push((name.clone(), row));
                        }
                    }
                }
                AttackSpec::Guided => {
                    // Only a problem with K distinct candidates has a guided attack of budget K.
                    let Some((drawn, _)) = out.guided.as_ref() else {
                        continue;
                    };
                    if drawn.len() < config.budget {
                        continue;
                    }
                    for (i, d) in drawn.iter().enumerate() {
                        let question = p.question_with(&d.slots, config);
                        let row = p.row(
                            Attack::GUIDED,
                            i,
                            0,
                            question,
                            &d.slots,
                            &d.answer,
                            d.seed,
                            d.support,
                        );
                        rows.push((Attack::GUIDED.to_string(), row));
                    }
                }
                AttackSpec::Text(method, edit) => {
                    // Only a gold a program confirms is carried over to a changed text.
                    if !p.record.is_valid() {
                        continue;
                    }
                    let drawn = match method {
                        None => None,
                        Some(m) => match out.numeric.get(&m) {
                            Some((drawn, _)) if written.get(&m).is_some_and(|&(_, w)| w) => {
                                Some(drawn.as_slice())
                            }
                            _ => continue,
                        },
                    };
                    let (text_rows, stats) =
                        text_rows(p, config, method, edit, drawn, &original_answer);
                    rows.extend(text_rows);
                    made.stats.push(stats);
                }
                AttackSpec::Numeric(m) | AttackSpec::NumericPunct(m) => {
                    let Some((drawn, _)) = out.numeric.get(&m) else {
                        continue; // no valid program: noised only
                    };
                    if !written.get(&m).is_some_and(|&(_, write)| write) {
                        continue;
                    }
                    for (i, d) in drawn.iter().enumerate() {
                        let question = p.question_with(&d.slots, config);
                        if let AttackSpec::NumericPunct(_) = attack {
                            for &level in &config.noise_levels {
                                let name = Attack::NumericPunct(m, level).to_string();
                                let seed = draw_seed(
                                    stream_key(config.seed, &p.record.problem_id, &name),
                                    i as u64,
                                );
                                let q = add_noise(&question, level, config.noise_count, seed);
                                let row =
                                    p.row(&name, i, level, q, &d.slots, &d.answer, seed, d.support);
                                rows.push((name, row));
                            }
                        } else {
                            let row = p.row(
                                m.name(),
                                i,
                                0,
                                question,
                                &d.slots,
                                &d.answer,
                                d.seed,
                                d.support,
                            );
                            rows.push((m.name().to_string(), row));
                        }
                    }
                }
            }
        }
        for (&m, (drawn, stats)) in &out.numeric {
            let (reached, write) = written[&m];
            let emitted = if write { drawn.len() } else { 0 };
            if emitted > 0 {
                made.emitted.push(m);
            }
            made.attempts += stats.attempts;
            made.stats.push(StatRow {
                problem_id: p.record.problem_id.clone(),
                attack: m.name().to_string(),
                stats: stats.clone(),
                emitted,
                reached,
                failure: None,
                reader_rules: p.rules_text.clone(),
                lost_to_reader_rules: out.lost_to_rules.contains(&m),
                refused: None,
            });
        }
        if let Some((drawn, stats)) = &out.guided {
            let reached = drawn.len() >= config.budget;
            made.attempts += stats.attempts;
            made.stats.push(StatRow {
                problem_id: p.record.problem_id.clone(),
                attack: Attack::GUIDED.to_string(),
                stats: stats.clone(),
                emitted: if reached { drawn.len() } else { 0 },
                reached,
                failure: None,
                reader_rules: p.rules_text.clone(),
                lost_to_reader_rules: false,
                refused: None,
            });
        }
        Some(made)
    }
}

/// One problem's rows, rendered whole before any of them joins the chunk's.
#[derive(Default)]
struct ProblemRows {
    /// (attack, row), in the order they are written.
    rows: Vec<(String, Row)>,
    stats: Vec<StatRow>,
    /// The numeric methods whose variants it writes (each counts toward `--problems`).
    emitted: Vec<Method>,
    attempts: u64,
}
