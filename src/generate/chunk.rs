//! A dataset's variants written chunk by chunk, in problem order whatever the thread count: each
//! problem's original, its noised copies and its drawn variants become rows of the `variants`
//! table (one part per attack), and its attempts rows of `generation_stats`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::family::{attack_rows, first_refusal, Cx, Draw};
use super::{GenerateConfig, GenerateSummary, Prepared, ProblemOutput, ProblemWork};
use crate::error::Result;
use crate::num::wide::Value;
use crate::store::generation_stats::{stats_to_batch, StatRow};
use crate::store::variants::{rows_to_batch, DatasetWriters, Made, Row};
use crate::vocab::{Attack, Family};

/// The writers of one dataset and what they have written so far.
pub(super) struct ChunkWriter<'a> {
    config: &'a GenerateConfig,
    dataset: &'a str,
    writers: DatasetWriters,
    made: Made,
    /// The run's draw families.
    draws: &'a [&'a dyn Draw],
    /// Per draw, the problems whose variants were written (`--problems` caps it).
    emitted: BTreeMap<Family, usize>,
}

impl<'a> ChunkWriter<'a> {
    pub(super) fn new(
        config: &'a GenerateConfig,
        dataset: &'a str,
        writers: DatasetWriters,
        made: Made,
        draws: &'a [&'a dyn Draw],
    ) -> Self {
        ChunkWriter {
            config,
            dataset,
            writers,
            made,
            draws,
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
        for spec in &self.config.attacks {
            attacks.extend(
                spec.attacks(&self.config.noise_levels)
                    .iter()
                    .map(Attack::to_string),
            );
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
        for row in &made.stats {
            // A draw's problem that fell short is refused for its main rejection; an edit's,
            // tried on a question, for its first refusal.
            let reason = if self
                .draws
                .iter()
                .any(|d| Attack::of(&row.attack) == Some(d.attack()))
            {
                (!row.reached).then(|| row.stats.main_rejection().unwrap_or("no_attempt"))
            } else if row.refused.is_some() || row.emitted > 0 {
                first_refusal(row)
            } else {
                continue;
            };
            let key = (self.dataset.to_string(), row.attack.clone());
            let entry = summary.refusals.entry(key).or_default();
            entry.0 += 1;
            if let Some(reason) = reason {
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
        // Per draw: whether the problem reached the variants wanted, and whether they are
        // written (it reached them, and the `--problems` cap is not yet met). Decided once for
        // every attack that starts from the draw.
        let written: BTreeMap<Family, (bool, bool)> = out
            .drawn
            .iter()
            .map(|(&family, drawing)| {
                let draw = self.draws.iter().find(|d| d.family() == family);
                let wanted = draw.map_or(config.variants, |d| d.wanted(config));
                let reached = drawing.drawn.len() >= wanted;
                let under_cap = !draw.is_some_and(|d| d.capped())
                    || config
                        .problems
                        .is_none_or(|n| self.emitted.get(&family).copied().unwrap_or(0) < n);
                (family, (reached, reached && under_cap))
            })
            .collect();
        made.rows.push((
            Attack::ORIGINAL.into(),
            p.row(
                Attack::ORIGINAL,
                0,
                0,
                p.record.question.clone(),
                &p.values,
                Some(&original_answer),
                0,
                p.original_support(),
            ),
        ));
        let cx = Cx {
            p,
            out,
            config,
            written: &written,
            original_answer: &original_answer,
        };
        for spec in &config.attacks {
            for attack in spec.attacks(&config.noise_levels) {
                attack_rows(&cx, attack, &mut made.rows, &mut made.stats);
            }
        }
        for draw in self.draws {
            let family = draw.family();
            let Some(drawing) = out.drawn.get(&family) else {
                continue;
            };
            let (reached, write) = written[&family];
            let emitted = if write { drawing.drawn.len() } else { 0 };
            if emitted > 0 {
                made.emitted.push(family);
            }
            made.attempts += drawing.stats.attempts;
            made.stats.push(StatRow {
                problem_id: p.record.problem_id.clone(),
                attack: draw.attack().to_string(),
                stats: drawing.stats.clone(),
                emitted,
                reached,
                failure: None,
                reader_rules: p.rules_text.clone(),
                lost_to_reader_rules: drawing.lost_to_rules,
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
    /// The draws whose variants it writes (each counts toward `--problems`).
    emitted: Vec<Family>,
    attempts: u64,
}
