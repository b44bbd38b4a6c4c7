//! The generation stage: attack every valid problem (or a seeded sample of them, [`select`]),
//! render the variants, and stream them to the hive-partitioned `variants` table with a
//! `generation_stats` row per (problem, numeric attack).
//!
//! Numeric attacks need a validated solution program; punctuation noise needs only the question
//! and its gold answer, so without a problem sample it also noises problems that have no valid
//! program (ArithmAttack noises every question of a test set). A problem gets an `original` row
//! whenever it takes part in the run, so that clean and attacked rows cover the same problems.
//!
//! Problems are processed in chunks: a chunk is attacked in parallel, then written in problem
//! order, so memory is bounded by the chunk and the bytes do not depend on the thread count.

pub mod audit;
mod chunk;
mod config;
pub mod family;
pub mod guided;
mod made;
pub mod select;
pub mod shard;
mod summary;
mod support;

pub use config::GenerateConfig;
pub use summary::GenerateSummary;

use std::collections::{BTreeMap, HashSet};

use crate::progress::Progress;
use rayon::prelude::*;

use crate::agreement::{is_one, render_agreeing_as};
use crate::attack::coherence::{reader_rules, Constraints, ReaderRule};
use crate::cut;
use crate::error::{Error, Result};
use crate::num::wide::Value;
use crate::num::Num;
use crate::program::tree::num_text;
use crate::program::ErrorKind;
use crate::question::rendering::{format_like, format_mixed, render};
use crate::question::shown::{text_constraints, TextConstraint};
use crate::question::{find_slots, Slot};
use crate::store::problems::{read_problems, ProblemRecord};
use crate::vocab::AttackSpec;

use crate::attack::sample::Method;
use crate::program::Program;
use crate::store::lock::WriterLock;
use crate::store::variants::{DatasetWriters, Row};
use crate::vocab::Family;
use chunk::ChunkWriter;
use family::{Draw, Drawing, GuidedDraw, NumericDraw};
use guided::FailureModel;
use made::made_by;
use support::Supporters;

/// A problem ready to attack: its record, slots with their formatting, and slot values.
struct Prepared<'a> {
    record: &'a ProblemRecord,
    slots: Vec<Slot>,
    values: Vec<Num>,
    /// What the question's text asks of its numbers (proper fractions, percentages).
    text: Vec<TextConstraint>,
    /// Whether each slot's count reads as one in the question ("1", "one").
    was_one: Vec<bool>,
    /// The problem's valid programs of other sources (see [`support`]).
    supporters: Vec<&'a Program>,
    /// A reader's rules for its numbers (none under the paper's constraints).
    rules: Vec<ReaderRule>,
    /// The rules described for `generation_stats.reader_rules` (`None` under the paper's).
    rules_text: Option<String>,
}

impl<'a> Prepared<'a> {
    fn new(
        record: &'a ProblemRecord,
        supporters: &'a Supporters,
        constraints: Constraints,
    ) -> std::result::Result<Self, String> {
        let slots = find_slots(&record.question);
        let values = record.slot_nums();
        if slots.len() != values.len() {
            return Err(format!(
                "{}: the question's numbers no longer match the table",
                record.problem_id
            ));
        }
        let was_one = slots
            .iter()
            .map(|s| is_one(s.written_in(&record.question)))
            .collect();
        let (rules, rules_text) = match (&record.tree, constraints) {
            (Some(program), Constraints::Reader) if record.is_valid() => {
                let mut nodes = vec![Num::ZERO; program.nodes.len()];
                // A program the original numbers overflow gets the paper's constraints only.
                let rules = match program.eval_into(&values, &mut nodes) {
                    Ok(()) => reader_rules(&record.question, &slots, program, &nodes),
                    Err(_) => Vec::new(),
                };
                let text = rules
                    .iter()
                    .map(|r| r.describe(&record.question, &slots, &nodes))
                    .collect::<Vec<_>>()
                    .join("; ");
                (rules, Some(text))
            }
            (_, Constraints::Reader) => (Vec::new(), Some(String::new())),
            (_, Constraints::Paper) => (Vec::new(), None),
        };
        Ok(Prepared {
            record,
            rules,
            rules_text,
            supporters: supporters.of(record),
            was_one,
            text: text_constraints(&record.question, &slots),
            slots,
            values,
        })
    }

    /// The question with these slot values, its nouns agreeing with changed counts if asked
    /// (and, for a reader, its articles and nouns past adjectives).
    fn question_with(&self, values: &[Num], config: &GenerateConfig, fractions: bool) -> String {
        let texts = self.slot_texts(values, fractions);
        if config.noun_agreement {
            render_agreeing_as(
                &self.record.question_template,
                &texts,
                &self.was_one,
                &self.record.question,
                config.constraints == Constraints::Reader,
            )
        } else {
            render(&self.record.question_template, &texts)
        }
    }

    /// Each slot's text: as written where unchanged, else the new value in the original's
    /// style, a part written as a mixed number when `fractions` ("3 1/2").
    fn slot_texts(&self, values: &[Num], fractions: bool) -> Vec<String> {
        self.slots
            .iter()
            .zip(values)
            .enumerate()
            .map(|(i, (s, v))| {
                if v.eq_num(self.values[i]) {
                    s.written_in(&self.record.question).to_string()
                } else if fractions && !v.is_integer() {
                    format_mixed(*v, s)
                } else if s.decimals == 0
                    && !v.is_integer()
                    && cut::before(&self.record.question, s.start).ends_with('$')
                {
                    // A whole sum of money converted to a part is written in cents ("$4.50").
                    format_like(*v, &Slot { decimals: 2, ..*s })
                } else {
                    format_like(*v, s)
                }
            })
            .collect()
    }

    // Each argument is one column of the row; a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        attack: &str,
        index: usize,
        noise: u32,
        question: String,
        values: &[Num],
        answer: Option<&Value>,
        seed: u64,
        support: u32,
    ) -> Row {
        Row {
            variant_id: format!("{}/{attack}/{index}", self.record.problem_id),
            problem_id: self.record.problem_id.clone(),
            noise_level: noise as i32,
            variant_index: index as i32,
            question,
            answer: answer.map(Value::to_string),
            answer_exact: answer.map(Value::exact_text),
            numbers: values.iter().map(num_text::to_text).collect(),
            seed,
            support: support as i32,
            distractor: None,
        }
    }

    /// How many programs give the problem's own gold answer: its valid program and every
    /// supporter (each reproduced that answer to be valid), or none.
    fn original_support(&self) -> u32 {
        if self.record.is_valid() {
            1 + self.supporters.len() as u32
        } else {
            0
        }
    }
}

/// What became of one problem of a chunk.
enum ProblemWork<'a> {
    /// Attacked: its draws, to be rendered and written.
    Attacked(Box<(Prepared<'a>, ProblemOutput)>),
    /// Left out with a warning (its numbers no longer match the table).
    Skipped(String),
    /// Its work panicked: nothing of it is written, and the run ends with exit 1 naming it.
    Failed(&'a ProblemRecord, String),
}

/// Everything one problem contributes to a chunk.
#[derive(Default)]
struct ProblemOutput {
    /// Each draw family's variants and attempts (none for a problem without a valid program).
    drawn: BTreeMap<Family, Drawing>,
    error: Option<String>,
}

/// One problem drawn by every draw family of the run, in their order.
fn attack_problem(p: &Prepared, config: &GenerateConfig, draws: &[&dyn Draw]) -> ProblemOutput {
    let mut out = ProblemOutput::default();
    // A problem without a valid program is here for punctuation noise only.
    let Some(program) = p.record.tree.as_ref().filter(|_| p.record.is_valid()) else {
        return out;
    };
    for draw in draws {
        match draw.draw(p, program, config) {
            Ok(drawing) => {
                out.drawn.insert(draw.family(), drawing);
            }
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        }
    }
    out
}

/// The draw families a run makes: the guided attack alone (it runs alone), or the numeric
/// methods its attacks start from, each drawn once whatever composes with it.
fn draws_of<'g>(methods: &[Method], guide: Option<&'g FailureModel>) -> Vec<Box<dyn Draw + 'g>> {
    match guide {
        Some(guide) => vec![Box::new(GuidedDraw(guide))],
        None => methods
            .iter()
            .map(|&m| Box::new(NumericDraw(m)) as Box<dyn Draw>)
            .collect(),
    }
}

const CHUNK: usize = 64;

/// Can punctuation noise use a problem that has no valid program? It needs a question and a
/// numeric gold answer to grade responses by, one its question does not contradict.
fn noise_usable(r: &ProblemRecord) -> bool {
    !r.question.trim().is_empty()
        && r.answer.as_deref().and_then(Value::parse_decimal).is_some()
        && r.error
            .as_ref()
            .is_none_or(|e| !matches!(e.kind, ErrorKind::BadInput | ErrorKind::WrongLabel))
}

/// Run the generation stage over every valid problem in `config.tables`: the one front door of
/// every attack. Only a run that asks for the guided attack fits its guide first.
pub fn generate(config: &GenerateConfig) -> Result<GenerateSummary> {
    config.check()?;
    if config.attacks.contains(&AttackSpec::Guided) {
        let fitted = guided::fitted_for(config)?;
        return generate_with(config, Some(&fitted));
    }
    generate_with(config, None)
}

fn generate_with(config: &GenerateConfig, guide: Option<&FailureModel>) -> Result<GenerateSummary> {
    let records = read_problems(&config.tables)?;
    let pool = {
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(t) = config.threads {
            b = b.num_threads(t);
        }
        b.build().map_err(|e| {
            Error::usage(format!(
                "cannot start {} threads: {e}",
                config.threads.unwrap_or(0)
            ))
        })?
    };
    let supporters = Supporters::load(&config.tables)?;
    let summary = pool.install(|| generate_records(&records, &supporters, config, guide))?;
    crate::progress::note!("{}", summary.tally().line());
    Ok(summary)
}

fn generate_records(
    records: &[ProblemRecord],
    supporters: &Supporters,
    config: &GenerateConfig,
    guide: Option<&FailureModel>,
) -> Result<GenerateSummary> {
    let mut summary = GenerateSummary {
        read: records.len(),
        ..Default::default()
    };
    let mut by_dataset: BTreeMap<&str, Vec<&ProblemRecord>> = BTreeMap::new();
    // A sample is drawn from the problems every attack can use, so program-less problems (usable
    // by punctuation noise alone) join only unsampled runs.
    let noise_only =
        config.sample_problems.is_none() && config.attacks.contains(&AttackSpec::Punct);
    for r in records {
        if r.is_valid() {
            by_dataset.entry(&r.dataset).or_default().push(r);
        } else if noise_only && noise_usable(r) {
            summary.noise_only += 1;
            by_dataset.entry(&r.dataset).or_default().push(r);
        } else {
            summary.skipped_invalid += 1;
        }
    }
    if by_dataset.is_empty() {
        return Err(Error::invalid(
            crate::store::problems::dir(&config.tables).display(),
            "no valid problems to attack",
        ));
    }
    let mut methods: Vec<Method> = config.attacks.iter().filter_map(|a| a.method()).collect();
    methods.sort();
    methods.dedup();
    let guide = match (config.attacks.contains(&AttackSpec::Guided), guide) {
        (false, _) => None,
        (true, None) => return Err(Error::setting("attacks", "guided needs its fitted guide")),
        (true, Some(fitted)) => {
            let g = config
                .guided
                .as_ref()
                .expect("a checked guided config has its guide");
            let held_out = guided::held_out(records, g);
            let keep: HashSet<&str> = held_out.iter().copied().collect();
            for problems in by_dataset.values_mut() {
                problems.retain(|r| keep.contains(r.problem_id.as_str()));
            }
            by_dataset.retain(|_, problems| !problems.is_empty());
            let mut per_dataset: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for r in records
                .iter()
                .filter(|r| keep.contains(r.problem_id.as_str()))
            {
                per_dataset
                    .entry(&r.dataset)
                    .or_default()
                    .push(&r.problem_id);
            }
            let recorded: BTreeMap<String, crate::store::runs::GuidedRecord> = per_dataset
                .into_iter()
                .map(|(d, ids)| {
                    (
                        d.to_string(),
                        guided::record(g, fitted, config.budget, &ids),
                    )
                })
                .collect();
            Some((fitted, recorded))
        }
    };
    if let Some(n) = config.sample_problems {
        for (dataset, problems) in by_dataset.iter_mut() {
            let (chosen, report) =
                select::sample_reaching(dataset, problems, n, config, &methods, supporters);
            *problems = chosen;
            summary.samples.push(report);
        }
    }
    if let Some(shard) = config.shard {
        for problems in by_dataset.values_mut() {
            *problems = shard.slice(problems).to_vec();
        }
    }
    // A shard writes a tables folder of its own; problems are read from the shared one.
    let out = match config.shard {
        Some(shard) => shard.tables(&config.tables),
        None => config.tables.clone(),
    };
    let draws = draws_of(&methods, guide.as_ref().map(|(f, _)| *f));
    let draw_refs: Vec<&dyn Draw> = draws.iter().map(|d| d.as_ref()).collect();
    let total: usize = by_dataset.values().map(Vec::len).sum();
    let bar = if config.progress {
        Progress::new("generate", "problems", total as u64)
    } else {
        Progress::hidden()
    };
    for (dataset, problems) in by_dataset {
        // A second run on the dataset would stage beside this one and swap its partition away.
        std::fs::create_dir_all(&out).map_err(|e| Error::file(&out, e))?;
        let _lock = WriterLock::acquire(&out, "generate", dataset)?;
        crate::store::variants::remove_dead_staging(&out, dataset)?;
        let mut dataset_chunks = ChunkWriter::new(
            config,
            dataset,
            DatasetWriters::new(&out, dataset),
            made_by(
                config,
                &draw_refs,
                dataset,
                guide.as_ref().and_then(|(_, r)| r.get(dataset)),
            ),
            &draw_refs,
        );
        for chunk in problems.chunks(CHUNK) {
            let worked: Vec<ProblemWork> = chunk
                .par_iter()
                .map(|r| {
                    // A panic in one problem is that problem's failure: the chunk goes on.
                    crate::contain::run(|| {
                        crate::contain::planted_panic(|| format!("generate:{}", r.problem_id));
                        match Prepared::new(r, supporters, config.constraints) {
                            Ok(p) => {
                                let output = attack_problem(&p, config, &draw_refs);
                                ProblemWork::Attacked(Box::new((p, output)))
                            }
                            Err(e) => ProblemWork::Skipped(e),
                        }
                    })
                    .unwrap_or_else(|panicked| ProblemWork::Failed(r, panicked.to_string()))
                })
                .collect();
            dataset_chunks.write(&worked, &mut summary)?;
            bar.inc(chunk.len() as u64);
        }
        dataset_chunks.publish(&out)?;
    }
    bar.finish();
    Ok(summary)
}
