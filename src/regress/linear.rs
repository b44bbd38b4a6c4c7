//! The least-squares fit of the authors' `--regression_method linear` (`generation/regression.py`:
//! statsmodels `OLS(y, [features, const]).fit()`): correctness (1/0) on the raw features plus an
//! intercept, with classical standard errors, t statistics and two-sided p-values.
//!
//! The authors' feature family is collinear (answer-range indicators sum to the intercept's
//! column), so the least-squares coefficients are not unique. The fit returns the minimum-norm
//! solution, as a pseudo-inverse does: the design is reduced to a triangle by Householder
//! reflections (backward stable on the raw columns, whose scales differ by orders of magnitude),
//! the triangle's singular values are found by one-sided Jacobi rotations, and singular values
//! at or below `eps * max(n, p) * largest` count as zero (numpy's `lstsq` rule). A coefficient
//! whose column lies in a collinear group is reported as not estimable: its value is the
//! minimum-norm one, not an identified effect.

use ndarray::Array2;

use super::Term;

/// Intercept term's name (statsmodels' `const`), as the logistic fit names it.
pub const INTERCEPT: &str = "intercept";

/// Fit y = b0 + X b by minimum-norm least squares; the terms are the intercept, then the
/// features in order, as the logistic fit's.
pub fn fit_linear(
    x: &Array2<f64>,
    y: &[bool],
    names: &[&str],
) -> std::result::Result<Vec<Term>, String> {
    let (n, k) = x.dim();
    let p = k + 1;
    if n <= p {
        return Err(format!(
            "{n} answers for {p} terms: too few for a least-squares fit"
        ));
    }
    // Column-major copy of [X, 1] and y, reduced in place.
    let mut a: Vec<Vec<f64>> = (0..k).map(|j| x.column(j).to_vec()).collect();
    a.push(vec![1.0; n]);
    let mut b: Vec<f64> = y.iter().map(|&v| f64::from(u8::from(v))).collect();
    householder(&mut a, &mut b);
    // R (p x p, upper) as columns, and c = (Q'y)[..p]; the rest of Q'y is residual.
    let r: Vec<Vec<f64>> = a.iter().map(|col| col[..p].to_vec()).collect();
    let c = &b[..p];
    let tail: f64 = b[p..].iter().map(|v| v * v).sum();
    let svd = jacobi_svd(r);
    let largest = svd.sigma.iter().cloned().fold(0.0, f64::max);
    if largest == 0.0 {
        return Err("every feature and the intercept are zero".into());
    }
    let cutoff = f64::EPSILON * n.max(p) as f64 * largest;
    let kept: Vec<usize> = (0..p).filter(|&i| svd.sigma[i] > cutoff).collect();
    let rank = kept.len();
    // Coordinates of c on R's left singular vectors; b = sum over kept of v_i (u_i'c) / s_i.
    let uc: Vec<f64> = (0..p)
        .map(|i| (0..p).map(|row| svd.u[i][row] * c[row]).sum())
        .collect();
    let mut beta = vec![0.0; p];
    for &i in &kept {
        let w = uc[i] / svd.sigma[i];
        for (bj, vij) in beta.iter_mut().zip(&svd.v[i]) {
            *bj += vij * w;
        }
    }
    // Residual: Q'y beyond R's rows, plus c's part along the dropped directions.
    let dropped: f64 = (0..p)
        .filter(|i| !kept.contains(i))
        .map(|i| uc[i] * uc[i])
        .sum();
    let ssr = tail + dropped;
    let df = (n - rank) as f64;
    let scale = ssr / df;
    let mut terms = Vec::with_capacity(p);
    for (j, name) in names.iter().copied().chain([INTERCEPT]).enumerate() {
        // Var(b_j) = scale * sum over kept of v_ij^2 / s_i^2 (the pseudo-inverse of X'X).
        let var: f64 = kept
            .iter()
            .map(|&i| (svd.v[i][j] / svd.sigma[i]).powi(2))
            .sum::<f64>()
            * scale;
        // A coefficient is identified when its unit vector has no part in the null space.
        let in_null: f64 = (0..p)
            .filter(|i| !kept.contains(i))
            .map(|i| svd.v[i][j] * svd.v[i][j])
            .sum();
        let se = var.sqrt();
        let t = (se > 0.0).then(|| beta[j] / se);
        terms.push(Term {
            feature: name.to_string(),
            coefficient: Some(beta[j]),
            std_error: Some(se),
            z: t,
            p_value: t.map(|t| student_t_two_sided(t, df)),
            estimable: in_null < 1e-9,
        });
    }
    terms.rotate_right(1);
    Ok(terms)
}

/// Reduce the columns `a` (each of length n) to upper-triangular form by Householder
/// reflections, applying the same reflections to `b`.
fn householder(a: &mut [Vec<f64>], b: &mut [f64]) {
    let n = b.len();
    let p = a.len();
    for j in 0..p.min(n) {
        let norm = a[j][j..].iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let alpha = if a[j][j] > 0.0 { -norm } else { norm };
        // v = x - alpha e1, stored over a[j][j..]; H = I - 2 v v' / (v'v).
        let mut v: Vec<f64> = a[j][j..].to_vec();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv == 0.0 {
            continue;
        }
        let reflect = |col: &mut [f64]| {
            let dot: f64 = col.iter().zip(&v).map(|(c, v)| c * v).sum();
            let f = 2.0 * dot / vv;
            for (c, v) in col.iter_mut().zip(&v) {
                *c -= f * v;
            }
        };
        for col in a.iter_mut().skip(j + 1) {
            reflect(&mut col[j..]);
        }
        reflect(&mut b[j..]);
        a[j][j] = alpha;
        a[j][j + 1..].iter_mut().for_each(|x| *x = 0.0);
    }
}

/// A = U diag(sigma) V' for a square A given by columns: `u[i]` and `v[i]` are the i-th singular
/// vectors (each of length p).
struct Svd {
    sigma: Vec<f64>,
    u: Vec<Vec<f64>>,
    v: Vec<Vec<f64>>,
}

/// One-sided Jacobi: rotate pairs of columns until every pair is orthogonal; the column norms
/// are then the singular values, the accumulated rotations V. Accurate to the last digits for
/// the small triangles here (p about 50).
fn jacobi_svd(mut a: Vec<Vec<f64>>) -> Svd {
    let p = a.len();
    let mut v: Vec<Vec<f64>> = (0..p)
        .map(|i| (0..p).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for _sweep in 0..60 {
        let mut rotated = false;
        for i in 0..p {
            for j in i + 1..p {
                let alpha: f64 = a[i].iter().map(|x| x * x).sum();
                let beta: f64 = a[j].iter().map(|x| x * x).sum();
                let gamma: f64 = a[i].iter().zip(&a[j]).map(|(x, y)| x * y).sum();
                if gamma == 0.0 || gamma.abs() <= f64::EPSILON * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let t = if zeta == 0.0 { 1.0 } else { t };
                let cs = 1.0 / (1.0 + t * t).sqrt();
                let sn = cs * t;
                for m in [&mut a, &mut v] {
                    let (left, right) = m.split_at_mut(j);
                    for (x, y) in left[i].iter_mut().zip(right[0].iter_mut()) {
                        let (xi, yj) = (*x, *y);
                        *x = cs * xi - sn * yj;
                        *y = sn * xi + cs * yj;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let sigma: Vec<f64> = a
        .iter()
        .map(|c| c.iter().map(|x| x * x).sum::<f64>().sqrt())
        .collect();
    let u = a
        .into_iter()
        .zip(&sigma)
        .map(|(c, &s)| {
            if s > 0.0 {
                c.into_iter().map(|x| x / s).collect()
            } else {
                c
            }
        })
        .collect();
    Svd { sigma, u, v }
}

/// P(|T| >= |t|) for Student's t with `df` degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2).
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    regularized_beta(df / (df + t * t), df / 2.0, 0.5)
}

/// The regularised incomplete beta function I_x(a, b), by its continued fraction (modified
/// Lentz), using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where that converges faster.
fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = a * x.ln() + b * (1.0 - x).ln() - ln_beta(a, b);
    if x < (a + 1.0) / (a + b + 2.0) {
        (ln_front.exp() * beta_fraction(x, a, b) / a).clamp(0.0, 1.0)
    } else {
        (1.0 - ln_front.exp() * beta_fraction(1.0 - x, b, a) / b).clamp(0.0, 1.0)
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    d = if d.abs() < TINY { TINY } else { d };
    d = 1.0 / d;
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            d = if d.abs() < TINY { TINY } else { d };
            c = 1.0 + numerator / c;
            c = if c.abs() < TINY { TINY } else { c };
            d = 1.0 / d;
            h *= d * c;
            if (d * c - 1.0).abs() < 1e-16 && numerator < 0.0 {
                return h;
            }
        }
    }
    h
}

fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y = 1 exactly when x1 > 1, a design whose least-squares fit is worked by hand: with
    /// x1 = 0, 1, 2, 3 and y = 0, 0, 1, 1 the line is y = -0.1 + 0.4 x1.
    #[test]
    fn a_hand_worked_line() {
        let x = Array2::from_shape_vec((4, 1), vec![0.0, 1.0, 2.0, 3.0]).unwrap();
        let terms = fit_linear(&x, &[false, false, true, true], &["x1"]).unwrap();
        assert_eq!(terms[0].feature, INTERCEPT);
        assert!((terms[0].coefficient.unwrap() + 0.1).abs() < 1e-14);
        assert!((terms[1].coefficient.unwrap() - 0.4).abs() < 1e-14);
        assert!(terms.iter().all(|t| t.estimable));
    }

    /// Two indicator columns that sum to the intercept's: the minimum-norm solution spreads the
    /// intercept over the three equally, and none of the three is identified.
    #[test]
    fn collinear_columns_get_the_minimum_norm_solution() {
        // Group A (rows 0..4) has mean 0.25, group B (rows 4..8) 0.75.
        let x = Array2::from_shape_fn((8, 2), |(i, j)| f64::from(u8::from((i < 4) == (j == 0))));
        let y = [true, false, false, false, true, true, true, false];
        let terms = fit_linear(&x, &y, &["a", "b"]).unwrap();
        // Least squares: a + c = 0.25, b + c = 0.75; minimum norm: c = (0.25 + 0.75) / 3.
        let c = 1.0 / 3.0;
        let expected = [c, 0.25 - c, 0.75 - c];
        for (t, e) in terms.iter().zip(expected) {
            assert!((t.coefficient.unwrap() - e).abs() < 1e-14, "{t:?}");
            assert!(!t.estimable, "{t:?}");
        }
    }

    /// Student's t against published values: t = 2.228 at 10 df is the two-sided 5% point,
    /// t = 1.96 at 1e6 df is the normal's.
    #[test]
    fn student_t_tails() {
        assert!((student_t_two_sided(2.228_138_851_986_27, 10.0) - 0.05).abs() < 1e-10);
        assert!((student_t_two_sided(1.959_963_984_540_054, 1e9) - 0.05).abs() < 1e-7);
        assert!((student_t_two_sided(0.0, 5.0) - 1.0).abs() < 1e-14);
        // 1 df is the Cauchy: P(|T| >= 1) = 1/2.
        assert!((student_t_two_sided(1.0, 1.0) - 0.5).abs() < 1e-12);
    }
}
