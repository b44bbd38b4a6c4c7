//! ArithmAttack punctuation noise: insert marks from `. , ! ? ; :` before randomly chosen words.
//!
//! Words are never added, removed or changed, so the answer stands. The number of insertions is
//! round(p x words) (the paper; half to even, like Python); `NoiseCount::Reference` reproduces the
//! original script's `randint(1, int(p * n + 1))` for side-by-side studies.

use rand::{Rng, RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub const MARKS: [char; 6] = ['.', ',', '!', '?', ';', ':'];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseCount {
    /// round(p * words), as the paper states.
    Paper,
    /// randint(1, int(p * words + 1)), as the released script does.
    Reference,
}

/// Insertions for `words` words at `percent`% noise.
pub fn insertion_count(words: usize, percent: u32, mode: NoiseCount, rng: &mut impl Rng) -> usize {
    let exact = words as f64 * percent as f64 / 100.0;
    match mode {
        NoiseCount::Paper => {
            let r = exact.round();
            // Half to even, like Python's round().
            let r = if (exact - exact.trunc() - 0.5).abs() < 1e-12 && r % 2.0 != 0.0 {
                r - 1.0
            } else {
                r
            };
            (r as usize).min(words)
        }
        NoiseCount::Reference => {
            let hi = (exact + 1.0) as usize;
            rng.random_range(1..=hi.max(1)).min(words)
        }
    }
}

/// Noised text: each chosen word gets one mark (and a space) before it.
pub fn add_noise(text: &str, percent: u32, mode: NoiseCount, seed: u64) -> String {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let words: Vec<&str> = text.split_whitespace().collect();
    let k = insertion_count(words.len(), percent, mode, &mut rng);
    // Choose k distinct positions (partial Fisher-Yates), then mark them.
    let mut order: Vec<usize> = (0..words.len()).collect();
    for i in 0..k {
        let j = rng.random_range(i..order.len());
        order.swap(i, j);
    }
    let mut marked = vec![None; words.len()];
    for &pos in &order[..k] {
        marked[pos] = Some(MARKS[rng.random_range(0..MARKS.len())]);
    }
    let mut out = String::with_capacity(text.len() + 2 * k);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if let Some(m) = marked[i] {
            out.push(m);
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The words of a text with inserted marks removed (standalone mark tokens).
pub fn strip_marks(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .filter(|w| !(w.chars().count() == 1 && MARKS.contains(&w.chars().next().unwrap())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn count_follows_the_paper() {
        let mut rng = Pcg64Mcg::seed_from_u64(0);
        assert_eq!(insertion_count(40, 10, NoiseCount::Paper, &mut rng), 4);
        assert_eq!(insertion_count(45, 10, NoiseCount::Paper, &mut rng), 4); // 4.5 -> 4
        assert_eq!(insertion_count(35, 10, NoiseCount::Paper, &mut rng), 4); // 3.5 -> 4
        assert_eq!(insertion_count(33, 50, NoiseCount::Paper, &mut rng), 16); // 16.5 -> 16
        for _ in 0..100 {
            let k = insertion_count(40, 30, NoiseCount::Reference, &mut rng);
            assert!((1..=13).contains(&k));
        }
    }

    proptest! {
        #[test]
        fn noise_only_adds_marks(words in proptest::collection::vec("[A-Za-z0-9$%']{1,8}", 1..60), p in prop::sample::select(vec![10u32, 30, 50]), seed: u64) {
            let text = words.join(" ");
            let noisy = add_noise(&text, p, NoiseCount::Paper, seed);
            prop_assert_eq!(strip_marks(&noisy), text.split_whitespace().collect::<Vec<_>>());
            let inserted = noisy.split_whitespace().count() - words.len();
            let mut rng = Pcg64Mcg::seed_from_u64(0);
            prop_assert_eq!(inserted, insertion_count(words.len(), p, NoiseCount::Paper, &mut rng));
        }
    }
}
