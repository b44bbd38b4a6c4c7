//! `regression.md`: the Table 8 summary (each fit's two most positive and two most negative
//! features), every coefficient with its test (Wald for the logistic fit, t for least squares),
//! and the Figure 8 panels.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::plots::PanelOut;
use super::{ModelFit, RegressConfig, RegressMethod, RegressSummary, Term};
use crate::feature_sets::FeatureSet;

/// Fewer right (or wrong) answers than this in a fit, and its coefficients say nothing worth
/// naming: a logistic fit learns about as much as its rarer outcome holds.
pub const MIN_ANSWERS_EACH_WAY: usize = 50;

/// The significance level below which a feature may be named as most positive or negative.
pub const NAMING_LEVEL: f64 = 0.05;

/// Why a fit is not informative, if it is not: too few right or wrong answers, or no feature
/// significant at [`NAMING_LEVEL`].
pub fn not_informative(fit: &ModelFit) -> Option<String> {
    let right = (fit.accuracy * fit.n as f64).round() as usize;
    let wrong = fit.n - right.min(fit.n);
    let (fewer, way) = match right <= wrong {
        true => (right, "right"),
        false => (wrong, "wrong"),
    };
    if fewer < MIN_ANSWERS_EACH_WAY {
        return Some(format!(
            "only {fewer} of {} answers are {way} (fewer than {MIN_ANSWERS_EACH_WAY})",
            fit.n
        ));
    }
    let significant = fit
        .terms
        .iter()
        .any(|t| t.feature != "intercept" && t.p_value.is_some_and(|p| p < NAMING_LEVEL));
    (!significant).then(|| format!("no feature is significant at p < {NAMING_LEVEL}"))
}

/// The two most positive and two most negative features of a fit among those significant at
/// [`NAMING_LEVEL`]; none when the fit is not informative.
pub fn extremes(fit: &ModelFit) -> (Vec<String>, Vec<String>) {
    let (top, bottom) = extreme_terms(fit);
    let names = |v: Vec<&Term>| v.into_iter().map(|t| t.feature.clone()).collect();
    (names(top), names(bottom))
}

/// [`extremes`] as terms, for a caller that shows their coefficients and p-values.
pub fn extreme_terms(fit: &ModelFit) -> (Vec<&Term>, Vec<&Term>) {
    if not_informative(fit).is_some() {
        return (Vec::new(), Vec::new());
    }
    let mut est: Vec<&Term> = fit
        .terms
        .iter()
        .filter(|t| {
            t.feature != "intercept"
                && t.coefficient.is_some()
                && t.p_value.is_some_and(|p| p < NAMING_LEVEL)
        })
        .collect();
    est.sort_by(|a, b| {
        b.coefficient
            .partial_cmp(&a.coefficient)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let top: Vec<&Term> = est
        .iter()
        .take(2)
        .filter(|t| t.coefficient.unwrap_or(0.0) > 0.0)
        .copied()
        .collect();
    let bottom: Vec<&Term> = est
        .iter()
        .rev()
        .take(2)
        .filter(|t| t.coefficient.unwrap_or(0.0) < 0.0)
        .copied()
        .collect();
    (top, bottom)
}

fn set_sentence(set: FeatureSet) -> String {
    match set {
        FeatureSet::Xie2024 => format!(
            "the {} columns of the `xie2024` set, the feature family of the authors' code \
             (`generation/feature_map.py`; table `features_xie2024`)",
            set.count()
        ),
        FeatureSet::Advmath => format!(
            "advmath's own {} features (the `advmath` set, table `features`; not the authors' list, \
             see `src/features.rs`)",
            set.count()
        ),
    }
}

pub(super) fn report(
    config: &RegressConfig,
    s: &RegressSummary,
    simulated: &HashMap<String, bool>,
    panels: &[PanelOut],
) -> String {
    let mut md = String::from("# Feature study: what makes a variant hard\n\n");
    let label = |model: &str, template: &str| {
        if simulated.get(model).copied().unwrap_or(false) {
            format!("{model} ({template}, simulated)")
        } else {
            format!("{model} ({template})")
        }
    };
    md.push_str("| model (template) | variants | accuracy | most positive | most negative | not estimable |\n|---|---:|---:|---|---|---:|\n");
    for f in &s.fits {
        let (top, bottom) = extremes(f);
        let ne = f.terms.iter().filter(|t| !t.estimable).count();
        let (top, bottom) = match not_informative(f) {
            Some(why) => (format!("not informative: {why}"), String::new()),
            None => (top.join(", "), bottom.join(", ")),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {:.1}% | {} | {} | {} |",
            label(&f.model, &f.template),
            f.n,
            100.0 * f.accuracy,
            top,
            bottom,
            ne
        );
    }
    for (m, t, reason) in &s.skipped {
        let _ = writeln!(md, "| {} | | | not fitted: {reason} | | |", label(m, t));
    }
    let how = match s.method {
        RegressMethod::Logistic => format!(
            "a logistic regression of correctness on {}, fitted per model and prompt template (never pooled \
             across templates), attacks: {}, L2 alpha = {} (scikit-learn C = 1/alpha){}. A positive coefficient makes a \
             correct answer more likely. Standard errors and p-values are Wald's, from the inverse Hessian at the fit. A \
             feature that is constant in a fit's data is not estimable (—)",
            set_sentence(config.set),
            attacks_sentence(config),
            config.alpha,
            if config.standardize {
                ", features standardised (coefficients per standard deviation)"
            } else {
                ", raw features (the authors' setting)"
            }
        ),
        RegressMethod::Linear => format!(
            "the authors' default regression (`--regression_method linear`: statsmodels OLS): least squares of \
             correctness (1 right, 0 wrong) on {} and an intercept, raw features, fitted per model and prompt template \
             (never pooled across templates), attacks: {}. A positive coefficient raises the share answered correctly. \
             Where features are collinear the coefficients are the minimum-norm ones and those not identified are \
             marked not estimable; standard errors are OLS's, p-values Student's t with n - rank degrees of freedom",
            set_sentence(config.set),
            attacks_sentence(config),
        ),
    };
    let title = match s.method {
        RegressMethod::Linear => "Xie et al. 2024, Table 8, by the authors' method (linear fit)",
        RegressMethod::Logistic => {
            "Table 8's features by this project's default method (logistic fit; the authors' default, which gives \
             their Table 8, is `advmath regress --method linear`)"
        }
    };
    let _ = writeln!(
        md,
        "\n{title}: {how}. **▲** marks a fit's two most positive features, **▼** its two most \
         negative ones, among those significant at p < {NAMING_LEVEL}; a fit with fewer than {MIN_ANSWERS_EACH_WAY} right or \
         {MIN_ANSWERS_EACH_WAY} wrong answers, or with no significant feature, is not informative and names none. Simulated models (oracle, sim-*) are not LLMs: their rows show the method, not a finding.\n"
    );
    if !s.fits.is_empty() {
        coefficient_table(&mut md, s, &label, config.set);
    }
    md.push_str("## Accuracy against features (Figure 8)\n\n");
    md.push_str(
        "One line per model and template; beside each plot, `<name>.csv` holds its points. The two range panels \
         count every number in a log-4 bin (round(log4 |v|)), question numbers and constants pooled, as the authors' code does.\n\n",
    );
    for p in panels {
        match (&p.file, &p.note) {
            (Some(file), _) => {
                let _ = writeln!(md, "![{}]({file})\n", p.title);
            }
            (None, note) => {
                let _ = writeln!(
                    md,
                    "{}: not drawn, {}.\n",
                    p.title,
                    note.as_deref().unwrap_or("no data")
                );
            }
        }
    }
    md
}

fn coefficient_table(
    md: &mut String,
    s: &RegressSummary,
    label: &dyn Fn(&str, &str) -> String,
    set: FeatureSet,
) {
    md.push_str("| feature: coefficient (standard error) |");
    for f in &s.fits {
        let _ = write!(md, " {} |", label(&f.model, &f.template));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(s.fits.len()));
    md.push('\n');
    let marks: Vec<(Vec<String>, Vec<String>)> = s.fits.iter().map(extremes).collect();
    for (j, name) in std::iter::once("intercept")
        .chain(set.names().iter().copied())
        .enumerate()
    {
        let _ = write!(md, "| {name} |");
        for (fi, f) in s.fits.iter().enumerate() {
            let t = &f.terms[j];
            let cell = match (t.coefficient, t.p_value) {
                (Some(c), p) => {
                    let mark = if marks[fi].0.contains(&t.feature) {
                        " **▲**"
                    } else if marks[fi].1.contains(&t.feature) {
                        " **▼**"
                    } else {
                        ""
                    };
                    let star = match p {
                        Some(p) if p < 0.001 => "***",
                        Some(p) if p < 0.01 => "**",
                        Some(p) if p < 0.05 => "*",
                        _ => "",
                    };
                    format!(
                        "{c:.3}{star} ({}){mark}",
                        t.std_error
                            .map(|s| format!("{s:.3}"))
                            .unwrap_or_else(|| "—".into())
                    )
                }
                (None, _) => "—".to_string(),
            };
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    md.push_str("\nCells: coefficient, significance (* p < 0.05, ** p < 0.01, *** p < 0.001), (standard error).\n\n");
}

fn attacks_sentence(config: &RegressConfig) -> String {
    if config.attacks.is_empty() {
        "all".to_string()
    } else {
        config.attacks.join(", ")
    }
}
