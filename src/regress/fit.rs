//! The logistic regression itself: an L2-penalised fit with linfa-logistic, then Wald standard
//! errors, z and p-values from the inverse Hessian of the penalised negative log-likelihood.
//!
//! linfa minimises `sum of log-losses + alpha/2 * |w|^2` with the intercept unpenalised, which is
//! scikit-learn's `LogisticRegression(C = 1/alpha)`: alpha = 1 is the authors' setting
//! (`generation/regression.py`, scikit-learn's defaults, no standardisation).

use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};

use super::Term;

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
