//! The feature study of Xie et al. 2024 (section 5, Table 8 and Figure 8): per model and prompt
//! template, a logistic regression of correctness on the features of the variants it answered,
//! fitted with linfa-logistic ([`fit`]), and accuracy plotted against six features ([`plots`]).
//!
//! The defaults follow the authors' `generation/regression.py`: M3 variants, the authors' feature
//! family (`xie2024`), scikit-learn's default penalty (L2, C = 1, i.e. alpha = 1) and raw,
//! unstandardised features. [`RegressConfig::default`] holds them, once, for every caller.
//!
//! What the paper's table lacks is added: Wald standard errors, z and p-values from the inverse
//! Hessian of the penalised log-likelihood at the fit. Constant columns of a fit's data carry no
//! information and are reported as not estimable instead of breaking the fit.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use ndarray::Array2;

use crate::error::{Error, Result};
use crate::feature_sets::FeatureSet;
use crate::store::coefficients::{self, CoefficientRow};
use crate::store::{feature_tables, responses};

mod fit;
mod linear;
pub mod plots;
mod report;
#[cfg(test)]
mod tests;

pub use fit::{erfc, fit};
pub use linear::{fit_linear, student_t_two_sided};

/// How correctness is fitted on the features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum RegressMethod {
    /// A penalised logistic regression with linfa (scikit-learn's `LogisticRegression(C =
    /// 1/alpha)`), Wald tests: this project's design.
    #[default]
    Logistic,
    /// Ordinary least squares of correctness (1/0) with an intercept, minimum-norm where the
    /// features are collinear, t tests: the authors' `--regression_method linear` (statsmodels
    /// OLS), whose feature labels match their Table 8.
    Linear,
}

impl RegressMethod {
    pub fn name(self) -> &'static str {
        match self {
            RegressMethod::Logistic => "logistic",
            RegressMethod::Linear => "linear",
        }
    }
}
pub use plots::AnswerLength;
pub use report::{extreme_terms, extremes, not_informative, MIN_ANSWERS_EACH_WAY, NAMING_LEVEL};

/// One fitted term.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub feature: String,
    pub coefficient: Option<f64>,
    pub std_error: Option<f64>,
    pub z: Option<f64>,
    pub p_value: Option<f64>,
    pub estimable: bool,
}

/// The fit of one (model, template).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFit {
    pub model: String,
    pub template: String,
    pub n: usize,
    pub accuracy: f64,
    pub terms: Vec<Term>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RegressConfig {
    pub tables: PathBuf,
    /// Attacks whose variants enter the fit (empty: all).
    pub attacks: Vec<String>,
    /// L2 penalty weight (scikit-learn's 1/C).
    pub alpha: f64,
    /// Standardise features, so coefficients are per standard deviation.
    pub standardize: bool,
    /// The feature set fitted.
    pub set: FeatureSet,
    /// Logistic (the default) or the authors' least squares.
    pub method: RegressMethod,
    /// Figure 8's answer length: tokens under `cl100k_base` (the default) or digits.
    pub answer_length: AnswerLength,
    /// Where the Markdown report and the plots go.
    pub report_dir: PathBuf,
}

impl Default for RegressConfig {
    /// The authors' setup (`generation/regression.py`): M3 variants, their feature family,
    /// scikit-learn's `LogisticRegression()` defaults (L2 with C = 1), no standardisation.
    fn default() -> Self {
        RegressConfig {
            tables: crate::store::default_tables(),
            attacks: vec![crate::vocab::Method::M3.name().to_string()],
            alpha: 1.0,
            standardize: false,
            set: FeatureSet::Xie2024,
            method: RegressMethod::Logistic,
            answer_length: AnswerLength::Tokens,
            report_dir: crate::store::reports_dir(Path::new(crate::store::DEFAULT_OUT)),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct RegressSummary {
    /// The method every fit used.
    pub method: RegressMethod,
    pub fits: Vec<ModelFit>,
    /// (model, template) pairs that could not be fitted, with the reason.
    pub skipped: Vec<(String, String, String)>,
}

impl RegressSummary {
    /// The stage's closing line: (model, template) fits read, refused (nothing to estimate),
    /// and the coefficient rows written.
    pub fn tally(&self) -> crate::output::Tally {
        crate::output::Tally {
            stage: "regress",
            unit: "fits",
            read: self.fits.len() + self.skipped.len(),
            refused: self.skipped.len(),
            written: self.fits.iter().map(|f| f.terms.len()).sum(),
            ..Default::default()
        }
    }
}

/// A fitted unit: responses of one model under one prompt template.
pub type GroupKey = (String, String);

/// Each variant's answer token count under `cl100k_base` (as a one-value row), for the variants
/// of `attacks` (empty: all) in the variants table.
fn read_answer_tokens(tables: &Path, attacks: &[String]) -> Result<HashMap<String, Vec<f64>>> {
    let root = crate::store::variants::dir(tables);
    let mut out = HashMap::new();
    if !root.is_dir() {
        return Ok(out);
    }
    for p in crate::store::variants::parts_of_attacks(tables, attacks)? {
        // A question with no answer has no answer's tokens: it is no row of the study.
        for (id, answer) in crate::store::variants::answers(&p)? {
            let Some(answer) = answer else { continue };
            let tokens = crate::feature_sets::tokens::cl100k_number_tokens(&answer);
            out.insert(id, vec![tokens as f64]);
        }
    }
    Ok(out)
}

/// What one (model, template) answered: the variants' ids and correctness, in reading order.
#[derive(Default)]
pub struct GroupData {
    pub variant_ids: Vec<String>,
    pub correct: Vec<bool>,
    pub simulated: bool,
}

/// Fit every (model, template) on the configured feature set; write `coefficients/part-0.parquet`,
/// the Table 8 report and the Figure 8 plots (with the plotted points as CSV beside each SVG).
pub fn regress(config: &RegressConfig) -> Result<RegressSummary> {
    let read = crate::store::commit::TablesLock::shared(&config.tables)?;
    let set = config.set;
    let root = feature_tables::dir(&config.tables, set);
    let features = feature_tables::vectors(&config.tables, set, &config.attacks)?
        .filter(|f| !f.is_empty())
        .ok_or_else(|| Error::missing_table(set.table(), root, feature_tables::MADE_BY))?;
    let mut runs: BTreeMap<(String, String, String), GroupData> = BTreeMap::new();
    responses::each_label(&config.tables, &mut |label| {
        let (model, template, run, variant_id, correct, simulated) = (
            label.model,
            label.template,
            label.run,
            label.variant_id,
            label.correct,
            label.simulated,
        );
        if !features.contains_key(variant_id) {
            return;
        }
        // Few groups and millions of rows: find the group without allocating its key.
        let g = match runs
            .iter_mut()
            .find(|((m, t, r), _)| m == model && t == template && r == run)
        {
            Some((_, g)) => g,
            None => runs
                .entry((model.to_string(), template.to_string(), run.to_string()))
                .or_insert_with(|| GroupData {
                    simulated,
                    ..Default::default()
                }),
        };
        g.variant_ids.push(variant_id.to_string());
        g.correct.push(correct);
    })?;
    drop(read);
    // A run is a unit: a model with several runs under a template is fitted once per run, named
    // as the metrics name it.
    let mut runs_of: HashMap<(String, String), usize> = HashMap::new();
    for (m, t, _) in runs.keys() {
        *runs_of.entry((m.clone(), t.clone())).or_default() += 1;
    }
    let groups: BTreeMap<GroupKey, GroupData> = runs
        .into_iter()
        .map(|((m, t, r), g)| {
            let several = runs_of[&(m.clone(), t.clone())] > 1;
            ((responses::model_as_run(&m, &r, several), t), g)
        })
        .collect();
    if groups.is_empty() {
        return Err(Error::invalid(
            responses::dir(&config.tables).display(),
            "no response joins a features row (check the attacks fitted)",
        ));
    }
    let names = set.names();
    if config.method == RegressMethod::Linear && config.standardize {
        return Err(Error::setting(
            "standardize",
            "cannot be used with the linear method, which fits the raw features as the authors' least squares does",
        ));
    }
    let mut summary = RegressSummary {
        method: config.method,
        ..RegressSummary::default()
    };
    let mut simulated = HashMap::new();
    let progress = crate::progress::Progress::new(
        format!("regress {}", set.table()),
        "fits",
        groups.len() as u64,
    );
    for ((model, template), g) in &groups {
        progress.inc(1);
        simulated.insert(model.clone(), g.simulated);
        let n = g.variant_ids.len();
        let rows: Vec<&Vec<f64>> = g.variant_ids.iter().map(|v| &features[v]).collect();
        let x = Array2::from_shape_fn((n, names.len()), |(i, j)| rows[i][j]);
        let accuracy = g.correct.iter().filter(|&&b| b).count() as f64 / n as f64;
        let fitted = match config.method {
            RegressMethod::Logistic => fit(&x, &g.correct, names, config.alpha, config.standardize),
            RegressMethod::Linear => fit_linear(&x, &g.correct, names),
        };
        match fitted {
            Ok(terms) => summary.fits.push(ModelFit {
                model: model.clone(),
                template: template.clone(),
                n,
                accuracy,
                terms,
            }),
            Err(reason) => {
                // Data that cannot be fitted is a finding about the data, the same for every
                // model: a note, counted as refused in the stage's tally.
                crate::progress::note!("note: {model} ({template}): {reason}");
                summary
                    .skipped
                    .push((model.clone(), template.clone(), reason));
            }
        }
    }
    progress.finish();
    write_coefficients(&config.tables, set, &summary, &simulated)?;
    if let Ok(tables) = config.tables.canonicalize() {
        if crate::store::resolved(&config.report_dir)?.starts_with(&tables) {
            return Err(crate::store::Error::OutputInsideTables {
                output: config.report_dir.clone(),
                tables,
            }
            .into());
        }
    }
    fs::create_dir_all(&config.report_dir).map_err(|e| Error::file(&config.report_dir, e))?;
    // Figure 8 reads both sets: its panels are defined on one or the other.
    let mut by_set = HashMap::new();
    by_set.insert(set, features);
    for other in FeatureSet::ALL.into_iter().filter(|s| *s != set) {
        if let Some(rows) = feature_tables::vectors(&config.tables, other, &config.attacks)? {
            by_set.insert(other, rows);
        }
    }
    let answer_tokens = match config.answer_length {
        AnswerLength::Tokens => read_answer_tokens(&config.tables, &config.attacks)?,
        AnswerLength::Digits => HashMap::new(),
    };
    let figure = plots::figure8(
        &config.report_dir,
        &groups,
        &by_set,
        config.answer_length,
        &answer_tokens,
    )?;
    let md = report::report(config, &summary, &simulated, &figure);
    crate::store::write_text(&config.report_dir.join("regression.md"), &md)?;
    crate::progress::note!("{}", summary.tally().line());
    Ok(summary)
}

fn write_coefficients(
    tables: &Path,
    set: FeatureSet,
    s: &RegressSummary,
    simulated: &HashMap<String, bool>,
) -> Result<()> {
    let rows: Vec<CoefficientRow> = s
        .fits
        .iter()
        .flat_map(|f| {
            f.terms.iter().map(move |t| CoefficientRow {
                model: f.model.clone(),
                template: f.template.clone(),
                feature_set: set.name().to_string(),
                method: s.method.name().to_string(),
                feature: t.feature.clone(),
                coefficient: t.coefficient,
                std_error: t.std_error,
                z: t.z,
                p_value: t.p_value,
                estimable: t.estimable,
                n: f.n as i64,
                accuracy: f.accuracy,
                simulated: simulated.get(&f.model).copied().unwrap_or(false),
            })
        })
        .collect();
    // One writer of the table at a time; a killed one's half-written file goes.
    let _lock = crate::store::lock::WriterLock::acquire(tables, "regress", coefficients::TABLE)?;
    crate::store::remove_leftovers(&tables.join(coefficients::TABLE), None)?;
    coefficients::write(tables, &rows)?;
    Ok(())
}
