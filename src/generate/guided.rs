//! What the generation stage knows of the guided attack: the seeded split of the problems into
//! training and held-out ones (a problem is wholly on one side), and the fitted failure model
//! it scores candidates with, fitted (by [`fit`], the feature study's own fit) before the
//! held-out problems are drawn. A held-out problem's M3 candidates are scored on features computed exactly
//! as `features` computes them, and [`crate::attack::guided::guided_attack`] keeps the K
//! likeliest failures.

mod fit;

pub use fit::fit;
pub(super) use fit::fitted_for;

use crate::error::{Error, Result};
use crate::feature_sets::{compute_set_into, FeatureSet, SetScratch};
use crate::num::Num;
use crate::program::Program;
use crate::seed::{fnv1a, mix};
use crate::store::problems::ProblemRecord;

/// The guiding model and the split the guided attack learns from.
#[derive(Clone, Debug, PartialEq)]
pub struct GuidedConfig {
    /// The model whose graded M3 responses are learnt from (as `responses.model` names it).
    pub model: String,
    /// Only this run's responses of the model (every run when `None`).
    pub run: Option<String>,
    /// Share of the problems the failure model is fitted on; the rest are attacked.
    pub train_share: f64,
    /// Seed of the problem split, independent of the run seed so that a study can vary one
    /// without moving the other.
    pub split_seed: u64,
    /// The features the failure model reads.
    pub set: FeatureSet,
}

impl GuidedConfig {
    pub fn new(model: impl Into<String>) -> Self {
        GuidedConfig {
            model: model.into(),
            run: None,
            train_share: 0.5,
            split_seed: 42,
            set: FeatureSet::Xie2024,
        }
    }

    pub fn check(&self) -> Result<()> {
        if self.model.trim().is_empty() {
            return Err(Error::setting("guided_by", "needs a model name"));
        }
        if !(self.train_share > 0.0 && self.train_share < 1.0) {
            return Err(Error::setting(
                "train_share",
                "must be strictly between 0 and 1 (some problems to learn from, some to attack)",
            ));
        }
        Ok(())
    }

    /// Whether a problem belongs to the training split: a seeded hash of its id, so the split
    /// does not depend on which other problems exist or in which order they are read.
    pub fn is_training(&self, problem_id: &str) -> bool {
        let h = mix(self.split_seed ^ fnv1a(problem_id.as_bytes()));
        ((h >> 11) as f64 / (1u64 << 53) as f64) < self.train_share
    }
}

/// The problem a variant belongs to: its id without the attack and index.
pub fn problem_of(variant_id: &str) -> Option<&str> {
    let (rest, _index) = variant_id.rsplit_once('/')?;
    Some(rest.rsplit_once('/')?.0)
}

/// A fitted P(correct) = sigmoid(intercept + x.weights); a feature the fit could not estimate
/// weighs nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureModel {
    pub set: FeatureSet,
    pub intercept: f64,
    pub weights: Vec<f64>,
    /// Training problems with at least one graded response, and those responses.
    pub problems: usize,
    pub labels: usize,
    /// The guiding model's accuracy on the training labels.
    pub accuracy: f64,
}

impl FailureModel {
    /// A scorer of candidate tuples for one program: the logit of failure, or `None` where the
    /// features cannot be computed (the candidate then ranks last).
    pub fn scorer<'a>(&'a self, program: &'a Program) -> impl FnMut(&[Num]) -> Option<f64> + 'a {
        let mut scratch = SetScratch::default();
        let mut row = vec![0.0; self.set.count()];
        move |slots: &[Num]| {
            compute_set_into(self.set, &mut scratch, program, slots, &mut row).ok()?;
            let eta = self.intercept
                + row
                    .iter()
                    .zip(&self.weights)
                    .map(|(x, w)| x * w)
                    .sum::<f64>();
            eta.is_finite().then_some(-eta)
        }
    }
}

/// The held-out problems of `records` (valid ones not in the training split), by id.
pub fn held_out<'r>(records: &'r [ProblemRecord], config: &GuidedConfig) -> Vec<&'r str> {
    records
        .iter()
        .filter(|r| r.is_valid() && !config.is_training(&r.problem_id))
        .map(|r| r.problem_id.as_str())
        .collect()
}

/// What a guided run records about its guide (in the run record and the dataset card).
pub fn record(
    config: &GuidedConfig,
    fitted: &FailureModel,
    budget: usize,
    held_out: &[&str],
) -> crate::store::runs::GuidedRecord {
    crate::store::runs::GuidedRecord {
        budget,
        feature_set: config.set.name().to_string(),
        held_out: held_out.iter().map(|s| s.to_string()).collect(),
        model: config.model.clone(),
        run: config.run.clone(),
        split_seed: config.split_seed,
        train_share: config.train_share,
        training_accuracy: fitted.accuracy,
        training_labels: fitted.labels,
        training_problems: fitted.problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_seeded_and_near_its_share() {
        let config = GuidedConfig::new("m");
        let ids: Vec<String> = (0..2000).map(|i| format!("d/test/{i}")).collect();
        let train = ids.iter().filter(|i| config.is_training(i)).count();
        assert!((900..1100).contains(&train), "{train}");
        let other = GuidedConfig {
            split_seed: 7,
            ..config.clone()
        };
        let moved = ids
            .iter()
            .filter(|i| config.is_training(i) != other.is_training(i))
            .count();
        assert!(moved > 500, "{moved}");
        assert!(ids
            .iter()
            .all(|i| config.is_training(i) == config.is_training(i)));
    }

    #[test]
    fn a_variant_names_its_problem() {
        assert_eq!(
            problem_of("xie2024-gsm8k/test/174/m3/12"),
            Some("xie2024-gsm8k/test/174")
        );
        assert_eq!(problem_of("m3/1"), None);
        assert_eq!(problem_of("1"), None);
    }
}
