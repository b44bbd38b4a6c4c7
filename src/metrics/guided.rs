//! Bootstrap intervals of the guided-against-random comparison (`guided_attack.sql`): the
//! problems are resampled with replacement through their eight outcome cells.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::result::{Cell, ResultTable};
use super::stats::{binomial, count, percentile_interval, text, Interval};
use crate::error::Result;
use crate::store::columns;

/// The cells `c_<o><g><r>` in the SQL's order: bit 2 the original right, bit 1 every guided
/// variant below K right, bit 0 every M3 variant below K right.
const CELLS: [&str; 8] = [
    "c_000", "c_001", "c_010", "c_011", "c_100", "c_101", "c_110", "c_111",
];

/// A multinomial draw of `n` over the shares of `counts`, as successive binomials (exact).
fn multinomial(rng: &mut Pcg64Mcg, counts: &[u64; 8]) -> [u64; 8] {
    let n: u64 = counts.iter().sum();
    let mut left_n = n;
    let mut left_mass: u64 = n;
    let mut out = [0u64; 8];
    for (o, &c) in out.iter_mut().zip(counts) {
        if left_mass == 0 {
            break;
        }
        *o = binomial(rng, left_n, c as f64 / left_mass as f64);
        left_n -= *o;
        left_mass -= c;
    }
    out
}

/// Guided ASR, random ASR and their difference from the cells; `None` without a solved original.
fn asrs(c: &[u64; 8]) -> Option<(f64, f64, f64)> {
    let solved: u64 = c[4..].iter().sum();
    if solved == 0 {
        return None;
    }
    let guided_ok: u64 = [2, 3, 6, 7].iter().map(|&i| c[i]).sum();
    let random_ok: u64 = [1, 3, 5, 7].iter().map(|&i| c[i]).sum();
    let g = (solved as f64 - guided_ok as f64) / solved as f64;
    let r = (solved as f64 - random_ok as f64) / solved as f64;
    Some((g, r, g - r))
}

/// 95% intervals of (guided ASR, random ASR, difference) over `replicates` resamples.
pub fn intervals(cells: [u64; 8], replicates: usize, seed: u64) -> [Option<Interval>; 3] {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut draws: [Vec<f64>; 3] = Default::default();
    if cells.iter().sum::<u64>() > 0 {
        for _ in 0..replicates {
            if let Some((g, r, d)) = asrs(&multinomial(&mut rng, &cells)) {
                draws[0].push(g);
                draws[1].push(r);
                draws[2].push(d);
            }
        }
    }
    draws.map(percentile_interval)
}

/// Add guided_asr_low/high, random_asr_low/high and difference_low/high to the rows of
/// `guided_attack.sql`; each row's generator is seeded by its group key and K.
pub fn add_interval_columns(table: &mut ResultTable, replicates: usize, seed: u64) -> Result<()> {
    let mut all = Vec::with_capacity(table.len());
    for row in 0..table.len() {
        let mut cells = [0u64; 8];
        for (c, name) in cells.iter_mut().zip(CELLS) {
            *c = count(table, row, name, "guided_attack")?;
        }
        let key: Vec<String> = [columns::MODEL, columns::TEMPLATE, columns::DATASET, "k"]
            .iter()
            .map(|c| match table.get(row, c) {
                Some(Cell::Int(k)) => k.to_string(),
                _ => text(table, row, c),
            })
            .collect();
        let group_seed = crate::seed::mix(seed ^ crate::seed::fnv1a(key.join("\0").as_bytes()));
        all.push(intervals(cells, replicates, group_seed));
    }
    for (i, name) in ["guided_asr", "random_asr", "difference"]
        .iter()
        .enumerate()
    {
        for (low, suffix) in [(true, "low"), (false, "high")] {
            let values = all
                .iter()
                .map(|row| match row[i] {
                    Some(v) => Cell::Float(if low { v.low } else { v.high }),
                    None => Cell::Null,
                })
                .collect();
            table.push_values(&format!("{name}_{suffix}"), values);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resampling_keeps_the_problem_count_and_brackets_the_estimate() {
        let cells = [3, 1, 0, 2, 30, 5, 4, 55];
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        for _ in 0..100 {
            assert_eq!(multinomial(&mut rng, &cells).iter().sum::<u64>(), 100);
        }
        let (g, r, d) = asrs(&cells).unwrap();
        // 94 solved originals; every guided variant right on 61 problems (c_010, c_011, c_110,
        // c_111: the original not required, as Eq. 5), every M3 variant on 63.
        assert!((g - 33.0 / 94.0).abs() < 1e-12 && (r - 31.0 / 94.0).abs() < 1e-12);
        let [gi, ri, di] = intervals(cells, 2000, 9);
        let (gi, ri, di) = (gi.unwrap(), ri.unwrap(), di.unwrap());
        assert!(gi.low < g && g < gi.high && ri.low < r && r < ri.high);
        assert!(di.low < d && d < di.high);
        assert_eq!(intervals(cells, 2000, 9), [Some(gi), Some(ri), Some(di)]);
        // A clear gap: guided breaks 40 of 50 solved problems, random 10; the interval excludes 0.
        let gap = [0, 0, 0, 0, 10, 30, 0, 10];
        let di = intervals(gap, 2000, 9)[2].unwrap();
        assert!(di.low > 0.0, "{di:?}");
        assert_eq!(intervals([0; 8], 100, 9), [None, None, None]);
    }
}
