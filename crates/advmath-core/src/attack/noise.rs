//! ArithmAttack punctuation noise: insert marks from `. , ! ? ; :` before randomly chosen words.
//!
//! "Words" are what the study's script splits on: `question.split(' ')`, single spaces, so a
//! leading, trailing or doubled space yields an empty word that can take a mark too (a mark before
//! the trailing empty word ends the question). Each chosen word gets one mark and a space before
//! it; nothing else changes, so removing the inserted `"<mark> "` pieces gives the text back byte
//! for byte and the answer stands.
//!
//! The number of marks is floor(p x words) by default: every one of the 11,694 noised questions
//! the study released has exactly that many. `Round` (half to even, like Python) and `Randint`
//! (the released script's `randint(1, int(p * n + 1))`) are named alternatives.

use rand::{Rng, RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub const MARKS: [char; 6] = ['.', ',', '!', '?', ';', ':'];

/// How many marks a question of n words gets at p% noise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum NoiseCount {
    /// floor(p * words): the count of every noised question the study released.
    #[default]
    Floor,
    /// round(p * words), half to even like Python's round().
    Round,
    /// randint(1, int(p * words + 1)), as the study's published script draws it.
    Randint,
}

impl NoiseCount {
    pub fn name(self) -> &'static str {
        match self {
            NoiseCount::Floor => "floor",
            NoiseCount::Round => "round",
            NoiseCount::Randint => "randint",
        }
    }
}

/// The words marks go before: the pieces of `text.split(' ')`, empty ones included.
pub fn words(text: &str) -> Vec<&str> {
    text.split(' ').collect()
}

/// Insertions for `words` words at `percent`% noise.
pub fn insertion_count(words: usize, percent: u32, mode: NoiseCount, rng: &mut impl Rng) -> usize {
    match mode {
        // Exact in integers; equal to Python's floor(p * n) for p = 0.1, 0.3, 0.5 and every n
        // a question has.
        NoiseCount::Floor => (words * percent as usize / 100).min(words),
        NoiseCount::Round => {
            let exact = words as f64 * percent as f64 / 100.0;
            let r = exact.round();
            // Half to even, like Python's round().
            let r = if (exact - exact.trunc() - 0.5).abs() < 1e-12 && r % 2.0 != 0.0 {
                r - 1.0
            } else {
                r
            };
            (r as usize).min(words)
        }
        NoiseCount::Randint => {
            let exact = words as f64 * percent as f64 / 100.0;
            let hi = (exact + 1.0) as usize;
            rng.random_range(1..=hi.max(1)).min(words)
        }
    }
}

/// Noised text: k distinct words, chosen uniformly, each get a uniformly chosen mark and a space
/// before them.
pub fn add_noise(text: &str, percent: u32, mode: NoiseCount, seed: u64) -> String {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let words = words(text);
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

/// Is this word one inserted mark?
pub fn is_mark(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if MARKS.contains(&c))
}

/// The words of a noised text without its standalone marks (for a clean text that has none, the
/// clean text's [`words`]).
pub fn strip_marks(text: &str) -> Vec<&str> {
    words(text).into_iter().filter(|w| !is_mark(w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_by_rule() {
        let mut rng = Pcg64Mcg::seed_from_u64(0);
        let mut count = |n, p, mode| insertion_count(n, p, mode, &mut rng);
        assert_eq!(count(40, 10, NoiseCount::Floor), 4);
        assert_eq!(count(49, 10, NoiseCount::Floor), 4);
        assert_eq!(count(33, 50, NoiseCount::Floor), 16);
        assert_eq!(count(9, 10, NoiseCount::Floor), 0);
        assert_eq!(count(45, 10, NoiseCount::Round), 4); // 4.5 -> 4
        assert_eq!(count(35, 10, NoiseCount::Round), 4); // 3.5 -> 4
        assert_eq!(count(37, 10, NoiseCount::Round), 4); // 3.7 -> 4, floor 3
        assert_eq!(count(33, 50, NoiseCount::Round), 16); // 16.5 -> 16
        for _ in 0..100 {
            assert!((1..=13).contains(&count(40, 30, NoiseCount::Randint)));
        }
    }

    #[test]
    fn spaces_are_words_as_in_the_study() {
        // " a b " splits into ["", "a", "b", ""]: 4 words, 2 marks at 50%.
        let noisy = add_noise(" a b ", 50, NoiseCount::Floor, 3);
        assert_eq!(words(&noisy).len(), 6, "{noisy:?}");
        assert_eq!(strip_marks(&noisy), words(" a b "));
    }

    proptest! {
        #[test]
        fn noise_only_adds_marks(text in "[A-Za-z0-9$%' ]{0,80}", p in prop::sample::select(vec![10u32, 30, 50]), seed: u64, mode in prop::sample::select(vec![NoiseCount::Floor, NoiseCount::Round, NoiseCount::Randint])) {
            let noisy = add_noise(&text, p, mode, seed);
            prop_assert_eq!(strip_marks(&noisy), words(&text));
            let inserted = words(&noisy).len() - words(&text).len();
            let n = words(&text).len();
            match mode {
                NoiseCount::Floor => prop_assert_eq!(inserted, n * p as usize / 100),
                NoiseCount::Round => prop_assert!(inserted.abs_diff(n * p as usize / 100) <= 1),
                NoiseCount::Randint => prop_assert!((1..=n).contains(&inserted)),
            }
            prop_assert_eq!(add_noise(&text, p, mode, seed), noisy);
        }
    }
}
