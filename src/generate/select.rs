//! The problem sample: Xie et al. attack 100 randomly selected problems per dataset.
//!
//! Every problem of a dataset gets a rank, a hash of (run seed, problem id); the sample is the n
//! problems with the lowest ranks. The sample therefore depends only on the seed and the ids of
//! the candidate problems, never on the attacks requested, their order, the invocation or the
//! thread count: `--attack m1` and a later `--attack m3,punct` with the same seed attack the same
//! problems. Adding candidates can only displace sampled problems by lower-ranked newcomers.
//!
//! The authors' script instead walks one seeded permutation per attack level and keeps the first
//! 100 problems that reach m variants for that level, so its problem sets differ between M1, M2
//! and M3; here a sampled problem that does not reach m simply gets no variants for that attack.

use crate::seed::stream_key;
use crate::store::problems::ProblemRecord;

/// The rank of a problem under a run seed (lower ranks are sampled first).
pub fn rank(seed: u64, problem_id: &str) -> u64 {
    stream_key(seed, problem_id, "sample")
}

/// The `n` lowest-ranked problems, in their original order.
pub fn sample<'a>(problems: &[&'a ProblemRecord], n: usize, seed: u64) -> Vec<&'a ProblemRecord> {
    let mut ranked: Vec<(u64, &str, usize)> = problems
        .iter()
        .enumerate()
        .map(|(i, p)| (rank(seed, &p.problem_id), p.problem_id.as_str(), i))
        .collect();
    // Ids are unique within a table, so (rank, id) orders candidates whatever their input order.
    ranked.sort_unstable();
    let mut chosen: Vec<usize> = ranked.into_iter().take(n).map(|(_, _, i)| i).collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| problems[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> ProblemRecord {
        ProblemRecord {
            problem_id: id.to_string(),
            dataset: "d".into(),
            split: "test".into(),
            source_index: 0,
            question: "q".into(),
            question_template: "q".into(),
            slot_values: Vec::new(),
            answer: None,
            program: None,
            program_origin: "none".into(),
            tree: None,
            error: None,
        }
    }

    fn ids(v: &[&ProblemRecord]) -> Vec<String> {
        v.iter().map(|r| r.problem_id.clone()).collect()
    }

    #[test]
    fn the_sample_depends_on_seed_and_ids_only() {
        let records: Vec<ProblemRecord> =
            (0..200).map(|i| record(&format!("d/test/{i}"))).collect();
        let forward: Vec<&ProblemRecord> = records.iter().collect();
        let backward: Vec<&ProblemRecord> = records.iter().rev().collect();
        let a = sample(&forward, 20, 42);
        let b = sample(&backward, 20, 42);
        assert_eq!(a.len(), 20);
        let (mut sa, mut sb) = (ids(&a), ids(&b));
        sa.sort();
        sb.sort();
        assert_eq!(sa, sb);
        // Kept in the order given.
        assert_eq!(
            ids(&a),
            ids(&forward
                .iter()
                .copied()
                .filter(|r| sa.contains(&r.problem_id))
                .collect::<Vec<_>>())
        );
        assert_ne!(ids(&sample(&forward, 20, 43)), ids(&a));
        // More than there are: all of them.
        assert_eq!(sample(&forward, 500, 42).len(), 200);
    }
}
