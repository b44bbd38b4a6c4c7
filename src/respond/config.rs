//! What a `respond` run is asked to do, and what it did.

use std::path::PathBuf;

use super::grade::Extraction;
use super::rows;
use crate::llm::client::{Decoding, Endpoint};
use crate::llm::prompt;

/// Where answers come from.
#[derive(Clone, Debug)]
pub enum Backend {
    Endpoint(Endpoint),
    /// `oracle` or a `sim-*` model.
    Offline,
}

#[derive(Clone, Debug)]
pub struct RespondConfig {
    pub tables: PathBuf,
    pub model: String,
    pub template: crate::llm::prompt::Template,
    pub decoding: Decoding,
    pub backend: Backend,
    pub attacks: Vec<String>,
    pub datasets: Vec<String>,
    /// Run the efficient attack from this cheaper model's answers instead of asking everything.
    pub efficient: Option<EfficientConfig>,
    /// At most k variants per problem and attack, the first k in `variant_index` order (with
    /// `efficient`: at most k of the cheap model's examples).
    pub per_problem: Option<usize>,
    /// Only n problems per dataset, drawn with `sample_seed` from those every attack asked
    /// covers, the same for every attack.
    pub problems: Option<usize>,
    /// The seed of the `problems` draw.
    pub sample_seed: u64,
    /// Plan the run (what would be asked, and its cost) without asking or writing anything.
    pub dry_run: bool,
    /// How answers are read from the replies (advmath's rules, or a paper's own scorer).
    pub extraction: Extraction,
    /// At most n requests this run (with `efficient`: n problems); questions already answered
    /// and replies reused do not count.
    pub limit: Option<usize>,
    pub concurrency: usize,
    pub flush_every: usize,
    pub flush_seconds: f64,
    /// The size a folded part grows to when the run compacts the model's folder at its end.
    pub part_size: u64,
    pub progress: bool,
}

impl Default for RespondConfig {
    /// Every variant of the default tables, asked offline with Xie et al.'s prompt, greedy,
    /// 8 requests in flight, read by advmath's rules, a part written every 200 responses or
    /// 10 seconds, no progress bar; `model` is empty: name one ([`RespondConfig::new`]).
    fn default() -> Self {
        RespondConfig {
            tables: crate::store::default_tables(),
            model: String::new(),
            template: prompt::Template::default(),
            decoding: Decoding::default(),
            backend: Backend::Offline,
            attacks: Vec::new(),
            datasets: Vec::new(),
            efficient: None,
            per_problem: None,
            problems: None,
            sample_seed: 0,
            dry_run: false,
            extraction: Extraction::default(),
            limit: None,
            concurrency: 8,
            flush_every: 200,
            flush_seconds: 10.0,
            part_size: crate::store::compact::DEFAULT_TARGET_BYTES,
            progress: false,
        }
    }
}

impl RespondConfig {
    pub fn new(tables: PathBuf, model: impl Into<String>) -> Self {
        RespondConfig {
            tables,
            model: model.into(),
            ..Default::default()
        }
    }

    /// The run this configuration makes: the settings beyond model and template that change
    /// what is asked or how it is graded, those that differ from the defaults, in a fixed order
    /// (`default` when none does). Two runs are never pooled by the metrics; a rerun with the
    /// same settings is the same run and resumes it.
    pub fn run(&self) -> String {
        let completions = matches!(&self.backend, Backend::Endpoint(e) if e.completions);
        rows::run_label(&self.decoding, self.extraction, completions)
    }
}

#[derive(Clone, Debug, Default)]
pub struct RespondSummary {
    /// Variants selected (after the sample): each is written, skipped, unanswerable or failed.
    pub read: usize,
    /// Variants past the budget (`limit`): asked by a later run.
    pub deferred: usize,
    /// Requests made (one per distinct question).
    pub asked: usize,
    /// Rows answered by a request of this run for another variant with the same question.
    pub shared: usize,
    /// The sample drawn (`problems`): per dataset, the problems eligible and taken.
    pub sample: Option<super::sample::SampleReport>,
    /// What the run asks (or, with `dry_run`, would ask): requests and estimated tokens.
    pub cost: super::cost::Cost,
    /// With `dry_run`: the first item of every request that would be made, in order.
    pub planned: Vec<super::rows::Item>,
    /// Variants skipped because they already have a row.
    pub skipped_done: usize,
    /// Requests that failed for good (a rerun retries them).
    pub failed: usize,
    /// Rows written (one per variant answered, replies reused included).
    pub written: usize,
    /// Rows answered by a reply already given to an identical question, without a new request.
    pub reused: usize,
    pub correct: usize,
    /// Questions an offline model cannot answer by construction (their problem has no solution
    /// tree to simulate from, e.g. noise-only variants of a problem without a valid program):
    /// not asked, not failures, nothing to retry.
    pub unanswerable: usize,
    /// The first few of them.
    pub unanswerable_first: Vec<String>,
    /// Rows whose reply could not be graded for an internal error (kept ungraded): their
    /// variant ids or keys.
    pub grading_failed: Vec<String>,
}

impl RespondSummary {
    /// Count a written row: right answers, and replies whose grading failed.
    pub fn tally(&mut self, row: &crate::store::responses::ResponseRow) {
        self.correct += usize::from(row.correct == Some(true));
        if row.extraction_rule == super::grade::GRADING_FAILED {
            self.grading_failed.push(
                row.variant_id
                    .clone()
                    .unwrap_or_else(|| row.response_key.clone()),
            );
        }
    }

    /// The rows whose grading failed, as the error that ends the stage with exit 1 (every row
    /// was written, theirs ungraded); `Ok` when none did.
    pub fn failures(&self) -> crate::error::Result<()> {
        if self.grading_failed.is_empty() {
            return Ok(());
        }
        Err(crate::error::Error::UnitsFailed {
            stage: "respond",
            unit: "reply",
            failed: self
                .grading_failed
                .iter()
                .map(|v| {
                    (
                        v.clone(),
                        "its grading failed; the row is kept ungraded".to_string(),
                    )
                })
                .collect(),
        })
    }

    /// The stage's table on stdout: one row for `model`. The counts add up: every row written
    /// is a request made (`requests`, less those that `failed`), a variant that shared a request
    /// of this run with an identical question (`shared`), or one answered by a stored reply to
    /// an identical question (`reused`); `skipped` variants already had their row.
    pub fn write_table(&self, model: &str, out: &mut impl std::io::Write) -> std::io::Result<()> {
        self.write_rows(model, true, out)
    }

    /// [`RespondSummary::write_table`]'s row, after its header when `header`.
    pub fn write_rows(
        &self,
        model: &str,
        header: bool,
        out: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        if header {
            crate::output::tsv_row(
                &mut *out,
                [
                    "model", "requests", "shared", "reused", "skipped", "written", "failed",
                    "correct",
                ],
            )?;
        }
        crate::output::tsv_row(
            out,
            [
                model.to_string(),
                self.asked.to_string(),
                self.shared.to_string(),
                self.reused.to_string(),
                self.skipped_done.to_string(),
                self.written.to_string(),
                self.failed.to_string(),
                self.correct.to_string(),
            ],
        )
    }

    /// The stage's closing line for `model`: variants read, refused (no solution tree for an
    /// offline model), skipped (answered before, or past the budget), failed (by the rows of the
    /// requests that failed for good); rows written and reused.
    pub fn stage_tally(&self, model: &str) -> crate::output::Tally {
        let failed = self
            .read
            .saturating_sub(self.written + self.skipped_done + self.deferred + self.unanswerable);
        let mut detail = format!("{model}: {} requests", self.asked);
        if self.shared > 0 {
            detail.push_str(&format!(
                ", {} rows shared a request with an identical question",
                self.shared
            ));
        }
        if self.deferred > 0 {
            detail.push_str(&format!(
                ", {} variants past --limit wait for the next run",
                self.deferred
            ));
        }
        crate::output::Tally {
            stage: "respond",
            unit: "variants",
            read: self.read,
            refused: self.unanswerable,
            skipped: self.skipped_done + self.deferred,
            failed,
            written: self.written,
            reused: self.reused,
            detail: Some(detail),
        }
    }

    /// The one line that reports the questions an offline model cannot answer, if any.
    pub fn unanswerable_note(&self, model: &str) -> Option<String> {
        (self.unanswerable > 0).then(|| {
            format!(
                "note: {} question(s) have no solution tree for {model} to answer from (their problem has no valid program): not asked, not failures (first: {})",
                self.unanswerable,
                self.unanswerable_first.join(", ")
            )
        })
    }
}

/// Which problems and candidates the cheap model offers, and whether the target's original is
/// asked first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum EfficientProtocol {
    /// The paper's text ("attacking GPT-4 using 50 adversarial examples from a cheaper model",
    /// an adversarial example being a variation the model answers wrongly), which is also what
    /// the authors' `attack/efficient_attack.py` does: candidates are every variant the cheap
    /// model answers wrongly, the target's original is not asked, every selected problem is
    /// attacked.
    #[default]
    WrongVariants,
    /// Stricter than the paper: only problems whose original the cheap model solves, and the
    /// target is asked the original first and attacked only where it solves it (so a success
    /// is a flip from right to wrong, as in Eq. 6).
    SolvedOriginals,
}

impl EfficientProtocol {
    pub fn name(self) -> &'static str {
        match self {
            EfficientProtocol::WrongVariants => "wrong-variants",
            EfficientProtocol::SolvedOriginals => "solved-originals",
        }
    }
}

/// The efficient attack's settings (`respond --efficient-from`).
#[derive(Clone, Debug)]
pub struct EfficientConfig {
    /// The cheap model whose stored responses rank the problems and supply the candidates.
    pub cheap: String,
    /// Problems attacked per (dataset, attack): the paper takes 50.
    pub top_problems: usize,
    pub protocol: EfficientProtocol,
    /// Which of the cheap model's runs ranks the problems (see the `responses` table's `run`);
    /// needed only when it has several under the template.
    pub cheap_run: Option<String>,
}

impl EfficientConfig {
    /// The paper's setup: 50 problems per (dataset, attack), every wrong variant of the cheap
    /// model a candidate.
    pub fn new(cheap: impl Into<String>) -> Self {
        EfficientConfig {
            cheap: cheap.into(),
            top_problems: 50,
            protocol: EfficientProtocol::WrongVariants,
            cheap_run: None,
        }
    }
}
