//! The guided attack's learning step, between the feature study and generation: a guiding
//! model's failure model fitted on its graded M3 answers to the training problems of the seeded
//! split (by problem, never by variant), with which `generate` attacks the held-out problems.
//! The fit is the feature study's own (`regress`'s logistic fit, L2 alpha = 1, raw features of
//! the chosen set, read from the feature table `advmath features` wrote).

use std::collections::BTreeSet;
use std::path::Path;

use ndarray::Array2;

use super::{problem_of, FailureModel, GuidedConfig};
use crate::error::{Error, Result};
use crate::generate::GenerateConfig;
use crate::store::{feature_tables, responses};

/// The guided attack's guide for `config` (its guide is `config.guided`), fitted and said on
/// stderr; `generate` asks for it only when the guided attack is asked for.
pub(in crate::generate) fn fitted_for(config: &GenerateConfig) -> Result<FailureModel> {
    let guided = config
        .guided
        .as_ref()
        .expect("a checked guided config has its guide");
    let fitted = fit(&config.tables, guided)?;
    crate::progress::note!(
        "guided: {}'s failure model fitted on {} responses to {} training problems \
         (accuracy {:.3}); attacking the held-out problems",
        guided.model,
        fitted.labels,
        fitted.problems,
        fitted.accuracy
    );
    Ok(fitted)
}

/// Fit `config.model`'s failure model on its graded M3 responses to the training problems.
pub fn fit(tables: &Path, config: &GuidedConfig) -> Result<FailureModel> {
    let set = config.set;
    let attacks = [crate::vocab::Method::M3.name().to_string()];
    let features = feature_tables::vectors(tables, set, &attacks)?
        .filter(|f| !f.is_empty())
        .ok_or_else(|| {
            Error::missing_table(
                set.table(),
                feature_tables::dir(tables, set),
                feature_tables::MADE_BY,
            )
        })?;
    let mut rows: Vec<&Vec<f64>> = Vec::new();
    let mut correct = Vec::new();
    let mut problems = BTreeSet::new();
    let mut models_seen = BTreeSet::new();
    responses::each_label(tables, &mut |label| {
        if label.model != config.model {
            if models_seen.len() < 16 {
                models_seen.insert(label.model.to_string());
            }
            return;
        }
        if config.run.as_deref().is_some_and(|r| r != label.run) {
            return;
        }
        let Some(problem) = problem_of(label.variant_id) else {
            return;
        };
        if !config.is_training(problem) {
            return;
        }
        let Some(x) = features.get(label.variant_id) else {
            return;
        };
        if !problems.contains(problem) {
            problems.insert(problem.to_string());
        }
        rows.push(x);
        correct.push(label.correct);
    })?;
    if rows.is_empty() {
        let seen: Vec<String> = models_seen.into_iter().collect();
        return Err(Error::invalid(
            responses::dir(tables).display(),
            format!(
                "no graded M3 response of {}{} to a training problem joins the {} table: run \
                 `advmath generate --attack m3`, `advmath respond --model {}` \
                 and `advmath features --set {}` first{}",
                config.model,
                config
                    .run
                    .as_deref()
                    .map(|r| format!(" (run {r})"))
                    .unwrap_or_default(),
                set.table(),
                config.model,
                set.name(),
                if seen.is_empty() {
                    String::new()
                } else {
                    format!(" (models with responses: {})", seen.join(", "))
                }
            ),
        ));
    }
    let names = set.names();
    let x = Array2::from_shape_fn((rows.len(), names.len()), |(i, j)| rows[i][j]);
    let terms = crate::regress::fit(&x, &correct, names, 1.0, false).map_err(|reason| {
        Error::invalid(
            responses::dir(tables).display(),
            format!(
                "{}'s failure model cannot be fitted: {reason}",
                config.model
            ),
        )
    })?;
    let coefficient = |name: &str| {
        terms
            .iter()
            .find(|t| t.feature == name)
            .and_then(|t| t.coefficient)
            .unwrap_or(0.0)
    };
    Ok(FailureModel {
        set,
        intercept: coefficient("intercept"),
        weights: names.iter().map(|n| coefficient(n)).collect(),
        problems: problems.len(),
        labels: correct.len(),
        accuracy: correct.iter().filter(|&&c| c).count() as f64 / correct.len() as f64,
    })
}
