//! The statistics done in Rust on SQL-produced counts: bootstrap intervals for AA and ASR, the
//! exact McNemar test, and the ArithmAttack paper's published figures.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_distr::{Binomial, Distribution};
use rand_pcg::Pcg64Mcg;

use super::result::{Cell, ResultTable};
use crate::error::{Error, Result};
use crate::store::columns;

/// A two-sided percentile interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// Default number of bootstrap replicates.
pub const BOOTSTRAP_REPLICATES: usize = 2000;
/// Default bootstrap seed.
pub const BOOTSTRAP_SEED: u64 = 20240605;

/// The four outcomes of a problem with a graded original and a graded variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcomes {
    /// Original and every variant right.
    pub robust: u64,
    /// Original right, some variant wrong.
    pub broken: u64,
    /// Original wrong, every variant right.
    pub fixed: u64,
    /// Original wrong and some variant wrong.
    pub both_wrong: u64,
}

impl Outcomes {
    fn n(&self) -> u64 {
        self.robust + self.broken + self.fixed + self.both_wrong
    }
}

/// 95% percentile bootstrap intervals for the paper's AA and ASR (Eq. 5-6) from the four
/// per-problem outcome counts of one model x dataset x attack.
///
/// AA = (robust + fixed) / n (every variant right, the original not required), OA = (robust +
/// broken) / n and ASR = (OA - AA) / OA = (broken - fixed) / (robust + broken). Resampling the n
/// problems with replacement only changes how many problems of each outcome are drawn, a
/// multinomial draw of n over the observed shares, done as successive binomials: robust* ~
/// Bin(n, robust / n), broken* ~ Bin(n - robust*, broken / (n - robust)), fixed* ~ Bin(n -
/// robust* - broken*, fixed / (fixed + both_wrong)). That is exact and costs O(replicates), not
/// O(replicates x problems). A replicate without a solved original leaves ASR undefined and is
/// skipped for ASR only; ASR's interval is `None` when every replicate is undefined (no solved
/// original at all). Deterministic: the generator is seeded with `seed` (callers mix the group
/// key in).
pub fn bootstrap_interval(
    counts: Outcomes,
    replicates: usize,
    seed: u64,
) -> (Option<Interval>, Option<Interval>) {
    let n = counts.n();
    if n == 0 || replicates == 0 {
        return (None, None);
    }
    let share = |part: u64, of: u64| {
        if of == 0 {
            0.0
        } else {
            part as f64 / of as f64
        }
    };
    let p_robust = share(counts.robust, n);
    let p_broken = share(counts.broken, n - counts.robust);
    let p_fixed = share(counts.fixed, counts.fixed + counts.both_wrong);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut aa = Vec::with_capacity(replicates);
    let mut asr = Vec::with_capacity(replicates);
    for _ in 0..replicates {
        let r = binomial(&mut rng, n, p_robust);
        let b = binomial(&mut rng, n - r, p_broken);
        let f = binomial(&mut rng, n - r - b, p_fixed);
        aa.push((r + f) as f64 / n as f64);
        if r + b > 0 {
            asr.push((b as f64 - f as f64) / (r + b) as f64);
        }
    }
    (percentile_interval(aa), percentile_interval(asr))
}

pub(super) fn binomial(rng: &mut Pcg64Mcg, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        0
    } else if p >= 1.0 {
        n
    } else {
        Binomial::new(n, p).expect("0 < p < 1").sample(rng)
    }
}

/// The 2.5 and 97.5 percentiles (linear interpolation between order statistics).
pub(super) fn percentile_interval(mut values: Vec<f64>) -> Option<Interval> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(Interval {
        low: quantile(&values, 0.025),
        high: quantile(&values, 0.975),
    })
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// The exact two-sided McNemar test: a binomial test of `b` successes in `b + c` trials at
/// p = 1/2, p = min(1, 2 P(X <= min(b, c))); 1 when there is no discordant pair.
pub fn mcnemar_exact_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // log C(n, i) - n log 2, summed with log-sum-exp so that large n does not overflow.
    let ln2n = n as f64 * std::f64::consts::LN_2;
    let mut ln_choose = 0.0f64; // ln C(n, 0)
    let mut terms = Vec::with_capacity(k as usize + 1);
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        terms.push(ln_choose - ln2n);
    }
    let max = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let tail = max.exp() * terms.iter().map(|t| (t - max).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

pub(super) fn count(table: &ResultTable, row: usize, column: &str, metric: &str) -> Result<u64> {
    let cell = table.get(row, column).ok_or_else(|| {
        Error::usage(format!(
            "metric {metric}: the SQL result has no column `{column}`"
        ))
    })?;
    match cell {
        Cell::Null => Ok(0),
        c => c
            .as_i64()
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| {
                Error::usage(format!(
                    "metric {metric}: column `{column}` holds {c:?}, not a count"
                ))
            }),
    }
}

pub(super) fn text(table: &ResultTable, row: usize, column: &str) -> String {
    match table.get(row, column) {
        Some(Cell::Text(s)) => s.clone(),
        Some(c) => format!("{c:?}"),
        None => String::new(),
    }
}

/// Add `aa_low`, `aa_high`, `asr_low`, `asr_high` to the rows of `bootstrap_ci.sql` (columns
/// robust, broken, fixed, both_wrong; the group key columns model, template, dataset, attack seed
/// each group's generator, so a row's interval does not depend on the other rows).
pub fn add_bootstrap_columns(table: &mut ResultTable, replicates: usize, seed: u64) -> Result<()> {
    let mut intervals = Vec::with_capacity(table.len());
    for row in 0..table.len() {
        let counts = Outcomes {
            robust: count(table, row, "robust", "bootstrap_ci")?,
            broken: count(table, row, "broken", "bootstrap_ci")?,
            fixed: count(table, row, "fixed", "bootstrap_ci")?,
            both_wrong: count(table, row, "both_wrong", "bootstrap_ci")?,
        };
        let key: Vec<String> = [
            columns::MODEL,
            columns::TEMPLATE,
            columns::DATASET,
            columns::ATTACK,
        ]
        .iter()
        .map(|c| text(table, row, c))
        .collect();
        let group_seed = crate::seed::mix(seed ^ crate::seed::fnv1a(key.join("\0").as_bytes()));
        intervals.push(bootstrap_interval(counts, replicates, group_seed));
    }
    let pick = |i: Option<Interval>, low: bool| match i {
        Some(i) => Cell::Float(if low { i.low } else { i.high }),
        None => Cell::Null,
    };
    table.push_values(
        "aa_low",
        intervals.iter().map(|i| pick(i.0, true)).collect(),
    );
    table.push_values(
        "aa_high",
        intervals.iter().map(|i| pick(i.0, false)).collect(),
    );
    table.push_values(
        "asr_low",
        intervals.iter().map(|i| pick(i.1, true)).collect(),
    );
    table.push_values(
        "asr_high",
        intervals.iter().map(|i| pick(i.1, false)).collect(),
    );
    Ok(())
}

/// Holm's step-down adjustment of a family of p-values (Holm 1979; statsmodels'
/// `multipletests(method="holm")`): the i-th smallest of m is multiplied by m - i + 1, capped at
/// 1, and made no smaller than the adjusted value before it. Returned in the input's order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0f64;
    for (i, &at) in order.iter().enumerate() {
        running = running.max(((m - i) as f64 * p[at]).min(1.0));
        adjusted[at] = running;
    }
    adjusted
}

/// Add `p_value` (exact McNemar) to the rows of `mcnemar.sql` (columns clean_only,
/// attacked_only), and `p_holm`: the p-values of a model's attacks on one dataset under one
/// template adjusted together by [`holm`], since a reader of that model's row asks which of its
/// drops hold when all of them are tested.
pub fn add_mcnemar_column(table: &mut ResultTable) -> Result<()> {
    let mut p = Vec::with_capacity(table.len());
    let mut families: BTreeMap<[String; 3], Vec<usize>> = BTreeMap::new();
    for row in 0..table.len() {
        let b = count(table, row, "clean_only", "mcnemar")?;
        let c = count(table, row, "attacked_only", "mcnemar")?;
        p.push(mcnemar_exact_p(b, c));
        let key = [columns::MODEL, columns::TEMPLATE, columns::DATASET].map(|col| {
            table
                .get(row, col)
                .and_then(Cell::as_str)
                .unwrap_or_default()
                .to_string()
        });
        families.entry(key).or_default().push(row);
    }
    let mut adjusted = vec![0.0; p.len()];
    for rows in families.values() {
        let family: Vec<f64> = rows.iter().map(|&r| p[r]).collect();
        for (&r, a) in rows.iter().zip(holm(&family)) {
            adjusted[r] = a;
        }
    }
    table.push_values(columns::P_VALUE, p.into_iter().map(Cell::Float).collect());
    table.push_values(
        columns::P_HOLM,
        adjusted.into_iter().map(Cell::Float).collect(),
    );
    Ok(())
}

/// ArithmAttack's published figures: (dataset, model, accuracy % clean / noise 10 / 30 / 50,
/// ASR %), from Abedin et al., "ArithmAttack: Evaluating Robustness of LLMs to Noisy Context in
/// Math Problem Solving" (Tables 1 and 3), as listed in `../shared/data/README.md`. ASR there is
/// the share of clean-correct items answered wrongly under noise, averaged over 10/30/50. Model
/// names are the folder names of the authors' released responses.
#[rustfmt::skip]
pub fn arithmattack_published() -> &'static [(&'static str, &'static str, [f64; 4], f64)] {
    &[
        ("gsm8k", "Llama-3.1-8B-Instruct", [82.25, 81.04, 78.84, 77.02], 12.53),
        ("gsm8k", "Qwen2.5-1.5B-Instruct", [61.10, 56.02, 52.69, 49.35], 31.59),
        ("multiarith", "Llama-3.1-8B-Instruct", [99.44, 94.44, 91.66, 83.88], 9.67),
        ("multiarith", "Mathstral-7b-v0.1", [96.11, 92.77, 86.11, 87.22], 9.47),
        ("multiarith", "Meta-Llama-3-8B-Instruct", [95.00, 92.77, 91.66, 88.33], 7.79),
        ("multiarith", "Mistral-7B-Instruct-v0.2", [73.88, 72.77, 71.11, 65.55], 23.66),
        ("multiarith", "gemma-2-2b-it", [89.44, 82.77, 78.88, 72.22], 19.45),
        ("multiarith", "zephyr-7b-beta", [37.22, 22.22, 16.11, 12.77], 77.10),
        ("multiarith", "Qwen2.5-1.5B-Instruct", [97.22, 94.44, 85.55, 83.88], 11.04),
    ]
}

/// Whether an advmath model name is a published model (`Llama-3.1-8B-Instruct` matches itself
/// and `meta-llama/Llama-3.1-8B-Instruct`, case-insensitively).
pub fn matches_published_model(model: &str, published: &str) -> bool {
    let m = model.to_ascii_lowercase();
    let p = published.to_ascii_lowercase();
    m == p || m.ends_with(&format!("/{p}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_hand_computed_binomial_tails() {
        // b = 10, c = 0: 2 * (1/2)^10.
        assert!((mcnemar_exact_p(10, 0) - 2.0 / 1024.0).abs() < 1e-15);
        // b = 7, c = 2, n = 9: 2 * (C(9,0) + C(9,1) + C(9,2)) / 2^9 = 2 * 46 / 512.
        assert!((mcnemar_exact_p(7, 2) - 92.0 / 512.0).abs() < 1e-12);
        assert!((mcnemar_exact_p(2, 7) - 92.0 / 512.0).abs() < 1e-12);
        // Balanced: capped at 1.
        assert_eq!(mcnemar_exact_p(3, 3), 1.0);
        assert_eq!(mcnemar_exact_p(0, 0), 1.0);
        // Large n stays finite and tiny.
        let p = mcnemar_exact_p(5000, 4000);
        assert!(p > 0.0 && p < 1e-20, "{p}");
    }

    /// The exact test against scipy 1.17.1's `binomtest(b, b + c, 0.5).pvalue` (two-sided), on
    /// tables with ties, an empty off-diagonal and a large n; computed there with
    /// `[binomtest(b, b + c, 0.5).pvalue for b, c in tables]`.
    #[test]
    fn mcnemar_equals_scipy_s_exact_binomial_test() {
        for (b, c, scipy) in [
            (0, 0, 1.0),
            (5, 0, 0.0625),
            (0, 5, 0.0625),
            (3, 3, 1.0),
            (10, 2, 0.03857421875),
            (7, 8, 1.0),
            (40, 25, 0.08168153394154003),
            (100, 70, 0.025844387581341693),
            (1, 0, 1.0),
        ] {
            let p = mcnemar_exact_p(b, c);
            assert!((p - scipy).abs() < 1e-9, "{b} {c}: {p} vs {scipy}");
        }
    }

    /// Holm against statsmodels 0.15.0's `multipletests(p, method="holm")[1]` on families with
    /// ties, one test alone and values capped at 1.
    #[test]
    fn holm_equals_statsmodels_multipletests() {
        for (p, statsmodels) in [
            (vec![0.01, 0.04, 0.03, 0.005], vec![0.03, 0.06, 0.06, 0.02]),
            (vec![0.2, 0.2, 0.01], vec![0.4, 0.4, 0.03]),
            (vec![1.0], vec![1.0]),
            (
                vec![0.5, 0.04, 0.04, 0.001, 0.9],
                vec![1.0, 0.16, 0.16, 0.005, 1.0],
            ),
        ] {
            let adjusted = holm(&p);
            for (a, s) in adjusted.iter().zip(&statsmodels) {
                assert!(
                    (a - s).abs() < 1e-12,
                    "{p:?}: {adjusted:?} vs {statsmodels:?}"
                );
            }
        }
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_estimate() {
        // AA = (40 + 10) / 100 = 0.5; ASR = (30 - 10) / (40 + 30) = 2/7.
        let counts = Outcomes {
            robust: 40,
            broken: 30,
            fixed: 10,
            both_wrong: 20,
        };
        let (aa, asr) = bootstrap_interval(counts, 2000, 7);
        let (aa2, asr2) = bootstrap_interval(counts, 2000, 7);
        assert_eq!(aa, aa2);
        assert_eq!(asr, asr2);
        let aa = aa.unwrap();
        let asr = asr.unwrap();
        assert!(aa.low < 0.5 && 0.5 < aa.high, "{aa:?}");
        assert!(asr.low < 2.0 / 7.0 && 2.0 / 7.0 < asr.high, "{asr:?}");
        // Roughly the normal-approximation width for a proportion: 2 * 1.96 * sqrt(.25 / 100).
        assert!((aa.high - aa.low - 0.196).abs() < 0.04, "{aa:?}");
        // No solved original, every variant wrong: ASR undefined, AA degenerate at 0.
        let none = Outcomes {
            both_wrong: 5,
            ..Outcomes::default()
        };
        let (aa, asr) = bootstrap_interval(none, 100, 1);
        assert_eq!(
            aa,
            Some(Interval {
                low: 0.0,
                high: 0.0
            })
        );
        assert_eq!(asr, None);
    }

    #[test]
    fn published_names_match_with_an_organisation_prefix() {
        assert!(matches_published_model(
            "meta-llama/Llama-3.1-8B-Instruct",
            "Llama-3.1-8B-Instruct"
        ));
        assert!(!matches_published_model(
            "Llama-3.1-8B",
            "Llama-3.1-8B-Instruct"
        ));
        assert_eq!(arithmattack_published().len(), 9);
    }
}
