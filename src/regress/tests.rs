//! Tests of the feature study: the fit recovers known coefficients, and each (model, template) is
//! fitted on its own.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, RecordBatch, StringArray,
};
use arrow::datatypes::{DataType, Field, Schema};

use super::*;
use crate::feature_sets::{FEATURE_COUNT, FEATURE_NAMES};
use crate::store::write_batch;
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

/// The Newton start changes where linfa begins, not what it minimises: on columns whose scales
/// differ by twelve orders of magnitude, the fit's penalised objective is no worse than linfa's
/// own L-BFGS from zero run to a strict bound, and the objective's gradient at the fit vanishes.
#[test]
fn the_newton_start_reaches_the_optimum_on_badly_scaled_columns() {
    use linfa::prelude::*;
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let (n, k) = (3_000, 4);
    let scales = [1.0, 1e3, 1e-3, 1e6];
    let x = Array2::from_shape_fn((n, k), |(_, j)| rng.random_range(-1.0..1.0f64) * scales[j]);
    let y: Vec<bool> = (0..n)
        .map(|i| {
            let eta =
                0.2 + 0.8 * x[[i, 0]] - 0.9e-3 * x[[i, 1]] + 5e2 * x[[i, 2]] + 1e-6 * x[[i, 3]];
            rng.random_bool(1.0 / (1.0 + (-eta).exp()))
        })
        .collect();
    let names = ["a", "b", "c", "d"];
    let terms = fit(&x, &y, &names, 1.0, false).unwrap();
    let ours: Vec<f64> = terms.iter().map(|t| t.coefficient.unwrap()).collect();

    // linfa from zero, on the same centred columns; its intercept back to the raw columns.
    let means: Vec<f64> = (0..k).map(|j| x.column(j).sum() / n as f64).collect();
    let centred = Array2::from_shape_fn((n, k), |(i, j)| x[[i, j]] - means[j]);
    let cold = linfa_logistic::LogisticRegression::default()
        .alpha(1.0)
        .max_iterations(5_000)
        .gradient_tolerance(1e-9)
        .fit(&Dataset::new(centred, ndarray::Array1::from(y.clone())))
        .unwrap();
    let sign = if cold.labels().pos.class { 1.0 } else { -1.0 };
    let w: Vec<f64> = cold.params().iter().map(|v| v * sign).collect();
    let b0 = cold.intercept() * sign - (0..k).map(|j| w[j] * means[j]).sum::<f64>();
    let theirs: Vec<f64> = std::iter::once(b0).chain(w).collect();

    let objective = |p: &[f64]| -> f64 {
        let mut loss = 0.0;
        for i in 0..n {
            let eta = p[0] + (0..k).map(|j| p[j + 1] * x[[i, j]]).sum::<f64>();
            let s = if y[i] { eta } else { -eta };
            // log(1 + e^-s), without overflow.
            loss += if s > 0.0 {
                (-s).exp().ln_1p()
            } else {
                -s + s.exp().ln_1p()
            };
        }
        loss + 0.5 * p[1..].iter().map(|w| w * w).sum::<f64>()
    };
    let (mine, cold_value) = (objective(&ours), objective(&theirs));
    assert!(
        mine <= cold_value + 1e-9 * cold_value.abs(),
        "objective {mine} vs linfa from zero {cold_value}"
    );
    let mut grad = vec![0.0; k];
    for i in 0..n {
        let eta = ours[0] + (0..k).map(|j| ours[j + 1] * x[[i, j]]).sum::<f64>();
        let r = 1.0 / (1.0 + (-eta).exp()) - f64::from(u8::from(y[i]));
        for j in 0..k {
            grad[j] += r * x[[i, j]];
        }
    }
    for j in 0..k {
        // Per row and per unit of the column's scale, so that every column is judged alike.
        let g = (grad[j] + ours[j + 1]) / scales[j] / n as f64;
        assert!(g.abs() <= 1e-6, "{}: gradient {g}", names[j]);
    }
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

/// Writes a `features` table of `n` M3 variants (`add` = i mod 5, every other feature 0) and one
/// responses part per (model, template, correctness rule).
/// (model, template, whether the i-th variant is answered correctly).
type Answers<'a> = (&'a str, &'a str, fn(usize) -> bool);

fn two_template_tables(dir: &Path, n: usize, answers: &[Answers]) {
    let ids: Vec<String> = (0..n).map(|i| format!("d/test/{i}/m3/0")).collect();
    let mut cols: Vec<ArrayRef> = vec![Arc::new(StringArray::from(ids.clone()))];
    for name in FEATURE_NAMES {
        let v: Vec<f64> = (0..n)
            .map(|i| if name == "add" { (i % 5) as f64 } else { 0.0 })
            .collect();
        cols.push(Arc::new(Float64Array::from(v)));
    }
    let batch = RecordBatch::try_new(crate::store::feature_tables::advmath_schema(), cols).unwrap();
    write_batch(
        &crate::store::part_file(
            &crate::store::hive_dir(
                &crate::store::feature_tables::dataset_dir(dir, FeatureSet::Advmath, "d"),
                "attack",
                "m3",
            ),
            0,
        ),
        &batch,
    )
    .unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("model", DataType::Utf8, false),
        Field::new("template", DataType::Utf8, false),
        Field::new("variant_id", DataType::Utf8, true),
        Field::new("correct", DataType::Boolean, true),
        Field::new("simulated", DataType::Boolean, false),
    ]));
    for (k, (model, template, rule)) in answers.iter().enumerate() {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec![*model; n])),
            Arc::new(StringArray::from(vec![*template; n])),
            Arc::new(StringArray::from(ids.clone())),
            Arc::new(BooleanArray::from((0..n).map(rule).collect::<Vec<_>>())),
            Arc::new(BooleanArray::from(vec![true; n])),
        ];
        let batch = RecordBatch::try_new(schema.clone(), cols).unwrap();
        write_batch(
            &crate::store::part_file(&crate::store::responses::model_dir(dir, model), k),
            &batch,
        )
        .unwrap();
    }
}

/// One model answered the same 200 variants under two templates: under `up` a larger `add` makes
/// a correct answer likelier, under `down` less likely. Fitted per (model, template), the two
/// `add` coefficients have opposite signs and each fit has 200 rows; pooled, there would be one fit
/// of 400 rows with a coefficient near 0. A template whose answers are all wrong is skipped on its
/// own, without touching the other template's fit.
#[test]
fn two_templates_are_never_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let reports = tempfile::tempdir().unwrap();
    let up = |i: usize| (i % 5 >= 2) != i.is_multiple_of(7);
    let down = |i: usize| (i % 5 < 2) != i.is_multiple_of(7);
    let never = |_: usize| false;
    two_template_tables(
        dir.path(),
        200,
        &[("m", "up", up), ("m", "down", down), ("m", "never", never)],
    );
    let config = RegressConfig {
        tables: dir.path().to_path_buf(),
        set: FeatureSet::Advmath,
        report_dir: reports.path().to_path_buf(),
        ..RegressConfig::default()
    };
    let s = regress(&config).unwrap();
    let keys: Vec<(&str, &str, usize)> = s
        .fits
        .iter()
        .map(|f| (f.model.as_str(), f.template.as_str(), f.n))
        .collect();
    assert_eq!(keys, vec![("m", "down", 200), ("m", "up", 200)]);
    assert_eq!(s.skipped.len(), 1);
    assert_eq!(
        (s.skipped[0].0.as_str(), s.skipped[0].1.as_str()),
        ("m", "never")
    );
    let add = |f: &ModelFit| {
        f.terms[1 + FEATURE_NAMES.iter().position(|n| *n == "add").unwrap()]
            .coefficient
            .unwrap()
    };
    assert!(add(&s.fits[0]) < -0.3, "down: {}", add(&s.fits[0]));
    assert!(add(&s.fits[1]) > 0.3, "up: {}", add(&s.fits[1]));

    // The coefficients table names the template of every row.
    let batches =
        crate::store::read_batches(&crate::store::coefficients::file(dir.path())).unwrap();
    let templates: std::collections::BTreeSet<String> = batches
        .iter()
        .flat_map(|b| {
            let t = b
                .column_by_name("template")
                .unwrap()
                .as_string::<i32>()
                .clone();
            (0..t.len()).map(move |i| t.value(i).to_string())
        })
        .collect();
    assert_eq!(
        templates.into_iter().collect::<Vec<_>>(),
        vec!["down".to_string(), "up".to_string()]
    );
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 2 * (1 + FEATURE_COUNT));
}

/// The library's defaults are the authors' setup: M3, their feature family, C = 1, raw features.
#[test]
fn defaults_follow_the_authors_regression() {
    let d = RegressConfig::default();
    assert_eq!(d.attacks, vec!["m3".to_string()]);
    assert_eq!(d.alpha, 1.0);
    assert!(!d.standardize);
    assert_eq!(d.set, FeatureSet::Xie2024);
}
