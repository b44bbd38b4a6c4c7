//! The logistic regression itself: an L2-penalised fit with linfa-logistic, then Wald standard
//! errors, z and p-values from the inverse Hessian of the penalised negative log-likelihood.
//!
//! linfa minimises `sum of log-losses + alpha/2 * |w|^2` with the intercept unpenalised, which is
//! scikit-learn's `LogisticRegression(C = 1/alpha)`: alpha = 1 is scikit-learn's default, which
//! the authors' `generation/regression.py` uses for its logistic option (no standardisation);
//! their default method is linear least squares (`--method linear` here).
//!
//! On raw features, whose scales differ by orders of magnitude, linfa's L-BFGS from zero needs
//! hundreds of passes over the data (minutes on half a million rows). It is therefore started
//! from a Newton estimate of the same optimum ([`newton`]: a few passes, each one matrix product,
//! computed on standardised columns where the Hessian is well conditioned), and linfa confirms
//! it: it stops as soon as its gradient test holds, or carries on from there.

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
    // Column means and variances in row order: one pass each over the row-major matrix.
    let mut means = vec![0.0; k];
    for row in x.rows() {
        for (sum, v) in means.iter_mut().zip(row) {
            *sum += v;
        }
    }
    means.iter_mut().for_each(|m| *m /= n as f64);
    let mut vars = vec![0.0; k];
    for row in x.rows() {
        for ((sum, v), mean) in vars.iter_mut().zip(row).zip(&means) {
            *sum += (v - mean) * (v - mean);
        }
    }
    vars.iter_mut().for_each(|v| *v /= n as f64);
    let keep: Vec<usize> = (0..k).filter(|&j| vars[j] > 1e-12).collect();
    let sds: Vec<f64> = (0..k)
        .map(|j| {
            if standardize && vars[j] > 1e-12 {
                vars[j].sqrt()
            } else {
                1.0
            }
        })
        .collect();
    let m = keep.len();
    let mut xs = Array2::<f64>::zeros((n, m));
    for (mut out, row) in xs.rows_mut().into_iter().zip(x.rows()) {
        for (o, &j) in out.iter_mut().zip(&keep) {
            // Centring keeps the intercept well conditioned; it does not change slopes.
            *o = (row[j] - means[j]) / sds[j];
        }
    }
    // The Newton estimate, in linfa's parametrisation: weights then intercept, for linfa's
    // positive class, which is the larger one (the first seen on a tie). Newton works on the
    // columns scaled by their spread in `xs`'s units.
    let col_var: Vec<f64> = keep.iter().map(|&j| vars[j] / (sds[j] * sds[j])).collect();
    let start = newton(&xs, y, alpha, &col_var);
    let larger_is_correct = match (2 * positives).cmp(&n) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => y[0],
    };
    let toward = if larger_is_correct { 1.0 } else { -1.0 };
    let initial = Array1::from_iter(
        start[1..]
            .iter()
            .chain(std::iter::once(&start[0]))
            .map(|v| v * toward),
    );
    let targets = Array1::from_iter(y.iter().copied());
    let dataset = Dataset::new(xs.clone(), targets);
    let model = LogisticRegression::default()
        .alpha(alpha)
        .max_iterations(500)
        // The gradient is a sum over the rows, so its rounding noise grows with them: a fixed
        // bound that small samples meet is out of reach on half a million rows.
        .gradient_tolerance(1e-6 * n as f64)
        .initial_params(initial)
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

/// Newton's method for the penalised log-likelihood over `xs` (centred columns) with the
/// intercept unpenalised: `[intercept, weights...]` at the optimum, in `xs`'s units.
///
/// It iterates on the columns standardised by `var` (each column's variance in `xs`'s units),
/// where the penalty of a weight becomes `alpha / var`; Newton's steps do not depend on that
/// scaling, but the Hessian solved at each step is far better conditioned. Each step halves until
/// the objective decreases; it stops when a step changes no coefficient by more than 1e-10
/// (relative), or after 100 steps (linfa takes over from wherever it is).
pub(crate) fn newton(xs: &Array2<f64>, y: &[bool], alpha: f64, var: &[f64]) -> Vec<f64> {
    let (n, m) = xs.dim();
    let dim = m + 1;
    let scale: Vec<f64> = var.iter().map(|v| v.sqrt().max(1e-300)).collect();
    // z = [1, xs / scale]: the design in standardised units.
    let mut z = Array2::<f64>::zeros((n, dim));
    for i in 0..n {
        z[[i, 0]] = 1.0;
        for c in 0..m {
            z[[i, c + 1]] = xs[[i, c]] / scale[c];
        }
    }
    let penalty: Vec<f64> = std::iter::once(0.0)
        .chain(var.iter().map(|v| alpha / v.max(1e-300)))
        .collect();
    let objective = |beta: &Array1<f64>| -> f64 {
        let eta = z.dot(beta);
        let mut loss = 0.0;
        for (e, &yi) in eta.iter().zip(y) {
            // log(1 + exp(-s)) for s = +-eta, without overflow.
            let s = if yi { *e } else { -*e };
            loss += if s > 0.0 {
                (-s).exp().ln_1p()
            } else {
                -s + s.exp().ln_1p()
            };
        }
        loss + 0.5
            * beta
                .iter()
                .zip(&penalty)
                .map(|(b, p)| p * b * b)
                .sum::<f64>()
    };
    let mut beta = Array1::<f64>::zeros(dim);
    let mut current = objective(&beta);
    for _ in 0..100 {
        let eta = z.dot(&beta);
        let p: Vec<f64> = eta.iter().map(|e| 1.0 / (1.0 + (-e).exp())).collect();
        // Gradient and Hessian: z' (p - y) + penalty * beta, z' W z + diag(penalty).
        let resid = Array1::from_iter(
            p.iter()
                .zip(y)
                .map(|(pi, &yi)| pi - f64::from(u8::from(yi))),
        );
        let mut grad = z.t().dot(&resid);
        let mut hess = weighted_gram(&z, &p);
        for a in 0..dim {
            grad[a] += penalty[a] * beta[a];
            hess[[a, a]] += penalty[a];
        }
        let flat: Vec<f64> = hess.iter().copied().collect();
        let Some(inv) = invert_spd(&flat, dim) else {
            break;
        };
        let step: Array1<f64> = Array1::from_iter(
            (0..dim).map(|a| (0..dim).map(|b| inv[a * dim + b] * grad[b]).sum::<f64>()),
        );
        let mut t = 1.0;
        let mut accepted = false;
        while t > 1e-10 {
            let candidate = &beta - &(&step * t);
            let value = objective(&candidate);
            if value <= current {
                beta = candidate;
                current = value;
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        let moved = step
            .iter()
            .zip(beta.iter())
            .map(|(s, b)| (s * t).abs() / b.abs().max(1.0))
            .fold(0.0, f64::max);
        if !accepted || moved < 1e-10 {
            break;
        }
    }
    std::iter::once(beta[0])
        .chain((0..m).map(|c| beta[c + 1] / scale[c]))
        .collect()
}

/// z' W z with W = diag(p (1 - p)), by blocks of rows on every core: a block's weighted copy is
/// all the extra memory, and each block is one matrix product.
fn weighted_gram(z: &Array2<f64>, p: &[f64]) -> Array2<f64> {
    use ndarray::{s, Axis};
    use rayon::prelude::*;
    const BLOCK: usize = 4096;
    let dim = z.ncols();
    let blocks: Vec<usize> = (0..z.nrows()).step_by(BLOCK).collect();
    let parts: Vec<Array2<f64>> = blocks
        .par_iter()
        .map(|&start| {
            let end = (start + BLOCK).min(z.nrows());
            let zb = z.slice(s![start..end, ..]);
            let mut wb = zb.to_owned();
            for (mut row, pi) in wb.axis_iter_mut(Axis(0)).zip(&p[start..end]) {
                row *= pi * (1.0 - pi);
            }
            zb.t().dot(&wb)
        })
        .collect();
    // Summed in block order, so that the result does not depend on the thread count.
    parts
        .into_iter()
        .fold(Array2::zeros((dim, dim)), |sum, part| sum + part)
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
