//! The per-model feature study (Xie et al. 2024, section 5 and appendix J, Table 8 and
//! Figure 8): a logistic regression of each model's correctness on the 51 features of the
//! variants it answered, fitted with linfa-logistic.
//!
//! What the paper's table lacks is added: Wald standard errors, z and p-values from the inverse
//! Hessian of the (penalised) log-likelihood at the fit. Constant columns of a model's data carry
//! no information and are reported as not estimable instead of breaking the fit.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};

use crate::error::{Error, Result};
use crate::features::{FEATURE_COUNT, FEATURE_NAMES};
use crate::table::{read_batches, write_batch};

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

#[derive(Clone, Debug, PartialEq)]
pub struct ModelFit {
    pub model: String,
    pub n: usize,
    pub accuracy: f64,
    pub terms: Vec<Term>,
}

/// Fit P(y = 1 | x) = sigmoid(b0 + x.b) with an L2 penalty `alpha` (not on the intercept).
/// Columns with zero variance are not estimable. With `standardize`, coefficients are per
/// standard deviation of their feature.
pub fn fit(
    x: &Array2<f64>,
    y: &[bool],
    names: &[&str],
    alpha: f64,
    standardize: bool,
) -> std::result::Result<Vec<Term>, String> {
    let (n, k) = x.dim();
    if n == 0 {
        return Err("no rows".into());
    }
    let positives = y.iter().filter(|&&b| b).count();
    if positives == 0 || positives == n {
        return Err(format!(
            "all {n} answers are {}: correctness does not vary, so no coefficient can be estimated",
            if positives == n { "correct" } else { "wrong" }
        ));
    }
    let mut keep = Vec::new();
    let mut means = vec![0.0; k];
    let mut sds = vec![1.0; k];
    for j in 0..k {
        let col = x.column(j);
        let mean = col.sum() / n as f64;
        let var = col.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        if var > 1e-12 {
            keep.push(j);
            means[j] = mean;
            if standardize {
                sds[j] = var.sqrt();
            }
        }
    }
    let m = keep.len();
    let mut xs = Array2::<f64>::zeros((n, m));
    for (c, &j) in keep.iter().enumerate() {
        for i in 0..n {
            // Centring keeps the intercept well conditioned; it does not change slopes.
            xs[[i, c]] = (x[[i, j]] - means[j]) / sds[j];
        }
    }
    let targets = Array1::from_iter(y.iter().copied());
    let dataset = Dataset::new(xs.clone(), targets);
    let model = LogisticRegression::default()
        .alpha(alpha)
        .max_iterations(500)
        .gradient_tolerance(1e-6)
        .fit(&dataset)
        .map_err(|e| format!("the fit failed: {e}"))?;
    // linfa models the larger class; turn that into P(correct).
    let sign = if model.labels().pos.class { 1.0 } else { -1.0 };
    let w: Vec<f64> = model.params().iter().map(|v| v * sign).collect();
    let b0_centred = model.intercept() * sign;
    // Wald: covariance = inverse Hessian of the penalised negative log-likelihood.
    let dim = m + 1;
    let mut h = vec![0.0; dim * dim];
    let mut row = vec![0.0; dim];
    for i in 0..n {
        row[0] = 1.0;
        let mut eta = b0_centred;
        for c in 0..m {
            row[c + 1] = xs[[i, c]];
            eta += w[c] * xs[[i, c]];
        }
        let p = 1.0 / (1.0 + (-eta).exp());
        let wt = p * (1.0 - p);
        for a in 0..dim {
            let ra = row[a] * wt;
            for b in a..dim {
                h[a * dim + b] += ra * row[b];
            }
        }
    }
    for a in 0..dim {
        for b in 0..a {
            h[a * dim + b] = h[b * dim + a];
        }
        if a > 0 {
            h[a * dim + a] += alpha;
        }
    }
    let cov = invert_spd(&h, dim);
    let mut terms = Vec::with_capacity(k + 1);
    // Back to the raw intercept: b0 = b0_centred - sum(w_j * mean_j / sd_j).
    let intercept = b0_centred
        - keep
            .iter()
            .enumerate()
            .map(|(c, &j)| w[c] * means[j] / sds[j])
            .sum::<f64>();
    terms.push(wald(
        "intercept",
        Some(intercept),
        cov.as_ref().map(|c| c[0]),
    ));
    for (j, name) in names.iter().enumerate().take(k) {
        match keep.iter().position(|&kj| kj == j) {
            Some(c) => terms.push(wald(
                name,
                Some(w[c]),
                cov.as_ref().map(|cv| cv[(c + 1) * dim + c + 1]),
            )),
            None => terms.push(Term {
                feature: name.to_string(),
                coefficient: None,
                std_error: None,
                z: None,
                p_value: None,
                estimable: false,
            }),
        }
    }
    Ok(terms)
}

fn wald(name: &str, coef: Option<f64>, var: Option<f64>) -> Term {
    let se = var.filter(|v| *v > 0.0 && v.is_finite()).map(f64::sqrt);
    let z = coef.zip(se).map(|(c, s)| c / s);
    Term {
        feature: name.to_string(),
        coefficient: coef,
        std_error: se,
        z,
        p_value: z.map(|z| erfc(z.abs() / std::f64::consts::SQRT_2)),
        estimable: true,
    }
}

/// Inverse of a symmetric positive-definite matrix by Cholesky; `None` when singular.
fn invert_spd(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if s <= 1e-12 {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    // inv(A) = inv(L)^T inv(L)
    let mut linv = vec![0.0; n * n];
    for i in 0..n {
        linv[i * n + i] = 1.0 / l[i * n + i];
        for j in 0..i {
            let mut s = 0.0;
            for k in j..i {
                s -= l[i * n + k] * linv[k * n + j];
            }
            linv[i * n + j] = s / l[i * n + i];
        }
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (i..n).map(|k| linv[k * n + i] * linv[k * n + j]).sum();
            inv[i * n + j] = s;
            inv[j * n + i] = s;
        }
    }
    Some(inv)
}

/// Complementary error function (W. J. Cody's rational approximations via erfc = 1 - erf for
/// small x; relative error below 1e-7 over the range used for p-values).
pub fn erfc(x: f64) -> f64 {
    // Numerical Recipes' erfcc: fractional error < 1.2e-7 everywhere.
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Features by variant_id, for the chosen attacks (empty: all).
fn read_features(
    tables: &Path,
    attacks: &[String],
) -> Result<HashMap<String, [f64; FEATURE_COUNT]>> {
    let root = tables.join("features");
    if !root.is_dir() {
        return Err(Error::invalid(
            root.display(),
            "no features table (run `advmath features` first)",
        ));
    }
    let mut out = HashMap::new();
    for (p, parts) in crate::table::parquet_files_under(&root)? {
        let attack = parts
            .iter()
            .find(|(k, _)| k == "attack")
            .map(|(_, v)| v.as_str());
        if !attacks.is_empty() && !attack.is_some_and(|a| attacks.iter().any(|x| x == a)) {
            continue;
        }
        for b in read_batches(&p)? {
            let ids = crate::table::text_column(&b, "variant_id", &p)?;
            let cols: Vec<Float64Array> = FEATURE_NAMES
                .iter()
                .map(|f| {
                    b.column_by_name(f)
                        .map(|c| c.as_primitive::<arrow::datatypes::Float64Type>().clone())
                        .ok_or_else(|| {
                            Error::invalid(p.display(), format!("no feature column {f}"))
                        })
                })
                .collect::<Result<_>>()?;
            for i in 0..b.num_rows() {
                let mut row = [0.0; FEATURE_COUNT];
                for (j, c) in cols.iter().enumerate() {
                    row[j] = c.value(i);
                }
                out.insert(ids.value(i).to_string(), row);
            }
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(
            root.display(),
            "no features (run `advmath features` first)",
        ));
    }
    Ok(out)
}

/// (model, variant_id, correct, simulated) of every scored response.
fn read_labels(tables: &Path) -> Result<Vec<(String, String, bool, bool)>> {
    let root = tables.join("responses");
    let mut out = Vec::new();
    for (p, _) in crate::table::parquet_files_under(&root)? {
        for b in read_batches(&p)? {
            let (Some(m), Some(v), Some(c)) = (
                b.column_by_name("model"),
                b.column_by_name("variant_id"),
                b.column_by_name("correct"),
            ) else {
                continue;
            };
            let (m, v, c) = (m.as_string::<i32>(), v.as_string::<i32>(), c.as_boolean());
            let sim = b
                .column_by_name("simulated")
                .map(|s| s.as_boolean().clone());
            for i in 0..b.num_rows() {
                if v.is_null(i) || c.is_null(i) {
                    continue;
                }
                let simulated = sim.as_ref().is_some_and(|s| s.value(i));
                out.push((
                    m.value(i).to_string(),
                    v.value(i).to_string(),
                    c.value(i),
                    simulated,
                ));
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Debug)]
pub struct RegressConfig {
    pub tables: PathBuf,
    pub attacks: Vec<String>,
    pub alpha: f64,
    pub standardize: bool,
    /// Where the Markdown report and the plots go.
    pub report_dir: PathBuf,
}

#[derive(Clone, Debug, Default)]
pub struct RegressSummary {
    pub fits: Vec<ModelFit>,
    /// Models that could not be fitted, with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Fit every model, write `coefficients/part-0.parquet`, the Table 8-style report and plots.
pub fn regress(config: &RegressConfig) -> Result<RegressSummary> {
    let features = read_features(&config.tables, &config.attacks)?;
    let labels = read_labels(&config.tables)?;
    // model -> (feature rows, correct, simulated)
    type ModelData = (Vec<[f64; FEATURE_COUNT]>, Vec<bool>, bool);
    let mut by_model: BTreeMap<String, ModelData> = BTreeMap::new();
    for (model, vid, correct, simulated) in labels {
        if let Some(f) = features.get(&vid) {
            let e = by_model
                .entry(model)
                .or_insert_with(|| (Vec::new(), Vec::new(), simulated));
            e.0.push(*f);
            e.1.push(correct);
        }
    }
    if by_model.is_empty() {
        return Err(Error::invalid(
            config.tables.join("responses").display(),
            "no response joins a features row (check --attack)",
        ));
    }
    let mut summary = RegressSummary::default();
    let mut simulated = HashMap::new();
    let mut data_for_plots = BTreeMap::new();
    for (model, (rows, y, sim)) in by_model {
        simulated.insert(model.clone(), sim);
        let n = rows.len();
        let x = Array2::from_shape_fn((n, FEATURE_COUNT), |(i, j)| rows[i][j]);
        let accuracy = y.iter().filter(|&&b| b).count() as f64 / n as f64;
        match fit(&x, &y, &FEATURE_NAMES, config.alpha, config.standardize) {
            Ok(terms) => summary.fits.push(ModelFit {
                model: model.clone(),
                n,
                accuracy,
                terms,
            }),
            Err(reason) => {
                // The oracle answers from the tree, so it is always right by construction: not
                // worth a warning on every default run.
                let level = if model.starts_with("oracle") {
                    "note"
                } else {
                    "warning"
                };
                eprintln!("{level}: {model}: {reason}");
                summary.skipped.push((model.clone(), reason));
            }
        }
        data_for_plots.insert(model, (rows, y));
    }
    write_coefficients(&config.tables, &summary, &simulated)?;
    fs::create_dir_all(&config.report_dir).map_err(|e| Error::file(&config.report_dir, e))?;
    let plots = crate::regress_plots::figure8(&config.report_dir, &data_for_plots)?;
    let md = report(config, &summary, &simulated, &plots);
    crate::table::write_text(&config.report_dir.join("regression.md"), &md)?;
    Ok(summary)
}

fn write_coefficients(
    tables: &Path,
    s: &RegressSummary,
    simulated: &HashMap<String, bool>,
) -> Result<()> {
    let rows: Vec<(&ModelFit, &Term)> = s
        .fits
        .iter()
        .flat_map(|f| f.terms.iter().map(move |t| (f, t)))
        .collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(
            rows.iter()
                .map(|(f, _)| Some(f.model.as_str()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|(_, t)| Some(t.feature.as_str()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|(_, t)| t.coefficient)
                .collect::<Float64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|(_, t)| t.std_error)
                .collect::<Float64Array>(),
        ),
        Arc::new(rows.iter().map(|(_, t)| t.z).collect::<Float64Array>()),
        Arc::new(
            rows.iter()
                .map(|(_, t)| t.p_value)
                .collect::<Float64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|(_, t)| Some(t.estimable))
                .collect::<BooleanArray>(),
        ),
        Arc::new(rows.iter().map(|(f, _)| f.n as i64).collect::<Int64Array>()),
        Arc::new(
            rows.iter()
                .map(|(f, _)| Some(f.accuracy))
                .collect::<Float64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|(f, _)| Some(simulated.get(&f.model).copied().unwrap_or(false)))
                .collect::<BooleanArray>(),
        ),
    ];
    let batch = RecordBatch::try_new(crate::schema::coefficients(), cols)?;
    write_batch(&tables.join("coefficients").join("part-0.parquet"), &batch)?;
    Ok(())
}

/// The two most positive and two most negative estimable features of a fit.
pub fn extremes(fit: &ModelFit) -> (Vec<String>, Vec<String>) {
    let mut est: Vec<&Term> = fit
        .terms
        .iter()
        .filter(|t| t.feature != "intercept" && t.coefficient.is_some())
        .collect();
    est.sort_by(|a, b| {
        b.coefficient
            .partial_cmp(&a.coefficient)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let top: Vec<String> = est
        .iter()
        .take(2)
        .filter(|t| t.coefficient.unwrap_or(0.0) > 0.0)
        .map(|t| t.feature.clone())
        .collect();
    let bottom: Vec<String> = est
        .iter()
        .rev()
        .take(2)
        .filter(|t| t.coefficient.unwrap_or(0.0) < 0.0)
        .map(|t| t.feature.clone())
        .collect();
    (top, bottom)
}

fn report(
    config: &RegressConfig,
    s: &RegressSummary,
    simulated: &HashMap<String, bool>,
    plots: &[(String, String)],
) -> String {
    let mut md = String::from("# Feature study: what makes a variant hard\n\n");
    let label = |m: &str| {
        if simulated.get(m).copied().unwrap_or(false) {
            format!("{m} (simulated)")
        } else {
            m.to_string()
        }
    };
    md.push_str("| model | variants | accuracy | most positive | most negative | not estimable |\n|---|---:|---:|---|---|---:|\n");
    for f in &s.fits {
        let (top, bottom) = extremes(f);
        let ne = f.terms.iter().filter(|t| !t.estimable).count();
        let _ = writeln!(
            md,
            "| {} | {} | {:.1}% | {} | {} | {} |",
            label(&f.model),
            f.n,
            100.0 * f.accuracy,
            top.join(", "),
            bottom.join(", "),
            ne
        );
    }
    for (m, reason) in &s.skipped {
        let _ = writeln!(md, "| {} | | | not fitted: {reason} | | |", label(m));
    }
    let _ = writeln!(
        md,
        "\nLogistic regression of correctness on the 51 features (Xie et al. 2024, Table 8), per model, attacks: {}, L2 alpha = {}{}. \
         A positive coefficient makes a correct answer more likely. **▲** marks a model's two most positive features, **▼** its two most \
         negative ones; standard errors and p-values are Wald's, from the inverse Hessian at the fit. A feature that is constant in a \
         model's data is not estimable (—). Simulated models (oracle, sim-*) are not LLMs: their rows show the method, not a finding.\n",
        if config.attacks.is_empty() { "all".to_string() } else { config.attacks.join(", ") },
        config.alpha,
        if config.standardize { ", features standardised" } else { "" }
    );
    if s.fits.is_empty() {
        return md;
    }
    md.push_str("| feature |");
    for f in &s.fits {
        let _ = write!(md, " {} |", label(&f.model));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(s.fits.len()));
    md.push('\n');
    let marks: Vec<(Vec<String>, Vec<String>)> = s.fits.iter().map(extremes).collect();
    for (j, name) in std::iter::once("intercept")
        .chain(FEATURE_NAMES.iter().copied())
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
    md.push_str("\nCells: coefficient, significance (* p < 0.05, ** p < 0.01, *** p < 0.001), (standard error).\n\n## Accuracy against features (Figure 8)\n\n");
    for (title, file) in plots {
        let _ = writeln!(md, "![{title}]({file})\n");
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn erfc_matches_known_values() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-7);
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 1e-7);
        // Two-sided p for z = 1.96 is 0.05.
        assert!((erfc(1.96 / std::f64::consts::SQRT_2) - 0.05).abs() < 1e-4);
    }

    /// Parameter recovery: correctness drawn from a known logistic function of 51 features
    /// (fixed seed, 20,000 variants) is fitted back: every coefficient above 0.5 in magnitude has
    /// the right sign, and fitted and true coefficients correlate at r >= 0.95.
    #[test]
    fn recovers_known_coefficients() {
        let mut rng = Pcg64Mcg::seed_from_u64(20_000);
        let n = 20_000;
        let truth: Vec<f64> = (0..FEATURE_COUNT)
            .map(|_| rng.random_range(-1.2..1.2))
            .collect();
        let x = Array2::from_shape_fn((n, FEATURE_COUNT), |_| rng.random_range(-1.0..1.0f64) * 1.7);
        let y: Vec<bool> = (0..n)
            .map(|i| {
                let eta: f64 = 0.3
                    + (0..FEATURE_COUNT)
                        .map(|j| truth[j] * x[[i, j]])
                        .sum::<f64>();
                rng.random_bool(1.0 / (1.0 + (-eta).exp()))
            })
            .collect();
        let terms = fit(&x, &y, &FEATURE_NAMES, 1e-3, false).unwrap();
        let est: Vec<f64> = terms[1..].iter().map(|t| t.coefficient.unwrap()).collect();
        for (t, e) in truth.iter().zip(&est) {
            if t.abs() > 0.5 {
                assert_eq!(t.signum(), e.signum(), "true {t} fitted {e}");
            }
        }
        let r = pearson(&truth, &est);
        assert!(r >= 0.95, "r = {r}");
        assert!(
            (terms[0].coefficient.unwrap() - 0.3).abs() < 0.15,
            "intercept {:?}",
            terms[0].coefficient
        );
        assert!(terms[1..]
            .iter()
            .all(|t| t.std_error.is_some_and(|s| s > 0.0 && s < 0.2)));
    }

    #[test]
    fn constant_columns_are_not_estimable_and_one_class_is_an_error() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let n = 500;
        let x = Array2::from_shape_fn((n, 3), |(_, j)| {
            if j == 1 {
                4.0
            } else {
                rng.random_range(0.0..1.0)
            }
        });
        let y: Vec<bool> = (0..n).map(|i| x[[i, 0]] > 0.5).collect();
        let terms = fit(&x, &y, &["a", "b", "c"], 1.0, true).unwrap();
        assert!(terms[1].coefficient.unwrap() > 0.0);
        assert!(!terms[2].estimable && terms[2].coefficient.is_none());
        assert!(terms[3].estimable);
        let err = fit(&x, &vec![true; n], &["a", "b", "c"], 1.0, false).unwrap_err();
        assert!(err.contains("all 500 answers are correct"), "{err}");
    }

    fn pearson(a: &[f64], b: &[f64]) -> f64 {
        let n = a.len() as f64;
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
        let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
        cov / (va * vb).sqrt()
    }
}
