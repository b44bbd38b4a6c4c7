//! The drawing loop every numeric attack shares: attempts from their seeds, each distinct valid
//! tuple shown once, and the uniform sample of m of them that M1, M2 and M3 keep.

use std::collections::HashSet;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{Attacker, Reject, Scratch, REJECT_NAMES};
use crate::num::wide::Value;
use crate::num::Num;
use crate::seed::{draw_seed, mix};

/// One kept variant: the attempt it came from and the numbers of every slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    pub attempt: u64,
    pub seed: u64,
    pub slots: Vec<Num>,
    pub answer: Value,
    /// How many independent programs computed `answer` (see [`Attacker::with_supporters`]).
    pub support: u32,
}

/// Outcome of attacking one problem with one method.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttackStats {
    pub attempts: u64,
    /// Attempts that passed every node constraint (duplicates included).
    pub valid: u64,
    /// Distinct valid tuples every second program agrees on.
    pub unique: u64,
    pub rejections: [u64; REJECT_NAMES.len()],
}

impl AttackStats {
    /// The reason most attempts were rejected for (the first of the most frequent), the one a
    /// problem that fell short of its variants is counted under; `None` when none was.
    pub fn main_rejection(&self) -> Option<&'static str> {
        let (i, &n) = self
            .rejections
            .iter()
            .enumerate()
            .rev()
            .max_by_key(|&(_, n)| n)?;
        (n > 0).then_some(REJECT_NAMES[i])
    }
}

/// Run `attempts` attempts and keep a uniform sample of at most `keep` distinct valid tuples
/// (reservoir sampling, so memory does not grow with the attempt count).
/// Run `attempts` attempts from `stream` and show `visit` each distinct valid tuple once, in
/// attempt order, with its attempt index, seed and the scratch holding it; the statistics of
/// every attempt are returned. Every numeric attack draws through this one loop.
#[inline]
pub fn each_unique(
    attacker: &Attacker,
    stream: u64,
    attempts: u64,
    mut visit: impl FnMut(u64, u64, &Scratch, &AttackStats),
) -> AttackStats {
    each_unique_until(attacker, stream, attempts, |j, seed, scratch, stats| {
        visit(j, seed, scratch, stats);
        true
    })
}

/// Whether `attempts` attempts from `stream` find `keep` distinct valid tuples; stops at the
/// `keep`-th (the attempts are the same as [`attack`]'s, so the answer is its).
pub fn reaches(attacker: &Attacker, stream: u64, attempts: u64, keep: usize) -> bool {
    let mut found = 0;
    each_unique_until(attacker, stream, attempts, |_, _, _, _| {
        found += 1;
        found < keep
    });
    found >= keep
}

/// [`each_unique`], stopping after the first tuple `visit` answers `false` to.
#[inline]
fn each_unique_until(
    attacker: &Attacker,
    stream: u64,
    attempts: u64,
    mut visit: impl FnMut(u64, u64, &Scratch, &AttackStats) -> bool,
) -> AttackStats {
    let mut stats = AttackStats::default();
    let mut scratch = attacker.scratch();
    let mut seen: HashSet<u128> = HashSet::with_capacity((attempts as usize).min(1 << 16));
    for j in 0..attempts {
        stats.attempts += 1;
        let seed = draw_seed(stream, j);
        if let Err(r) = attacker.attempt(seed, &mut scratch) {
            stats.rejections[r.index()] += 1;
            continue;
        }
        stats.valid += 1;
        if !seen.insert(attacker.tuple_key(&scratch)) {
            stats.rejections[Reject::Duplicate.index()] += 1;
            continue;
        }
        // Once per distinct tuple (draws repeat, M3's most of all); a repeat of a tuple a second
        // program answers otherwise is counted as a duplicate.
        if let Err(r) = attacker.check_supporters(&mut scratch) {
            stats.rejections[r.index()] += 1;
            continue;
        }
        stats.unique += 1;
        if !visit(j, seed, &scratch, &stats) {
            break;
        }
    }
    stats
}

pub fn attack(
    attacker: &Attacker,
    stream: u64,
    attempts: u64,
    keep: usize,
) -> (Vec<Drawn>, AttackStats) {
    let mut reservoir: Vec<Drawn> = Vec::with_capacity(keep);
    let mut pick = Pcg64Mcg::seed_from_u64(mix(stream ^ 0x5e1e_c7ed));
    let stats = each_unique(attacker, stream, attempts, |j, seed, scratch, stats| {
        let slot = if reservoir.len() < keep {
            reservoir.push(Drawn {
                attempt: j,
                seed,
                slots: Vec::new(),
                answer: Value::Num(Num::ZERO),
                support: 0,
            });
            reservoir.len() - 1
        } else {
            let r = pick.random_range(0..stats.unique) as usize;
            if r >= keep {
                return;
            }
            r
        };
        let d = &mut reservoir[slot];
        d.attempt = j;
        d.seed = seed;
        d.slots.clear();
        d.slots.extend_from_slice(&scratch.slots);
        d.answer = attacker.answer(scratch);
        d.support = scratch.support;
    });
    // The kept tuples are numbered in a seeded random order, as the authors' `random.sample`
    // returns them: the first k of them are then a uniform k-subset, which Figure 7 (attacks vs
    // k) relies on. Attempt order would not do: under M3's Poisson draws the tuples found first
    // are the likeliest ones, closest to the original numbers. Sorting first makes the shuffle's
    // input independent of the reservoir's replacement history.
    reservoir.sort_by_key(|d| d.attempt);
    reservoir.shuffle(&mut pick);
    (reservoir, stats)
}
