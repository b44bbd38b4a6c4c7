//! The problem sample: Xie et al. attack 100 randomly selected problems per dataset, each with m
//! variants in every method (Algorithm 2 returns m new problems per problem).
//!
//! Every problem of a dataset gets a rank, a hash of (run seed, problem id). [`sample_reaching`]
//! walks the problems in rank order and keeps the first n that reach m distinct valid variants in
//! every requested numeric attack, skipping (and counting, by attack) those that fall short. The
//! walk depends only on the seed, the candidates and the generation settings, never on the thread
//! count. With punctuation noise alone every problem qualifies, so the sample is the n
//! lowest-ranked problems ([`sample`]).
//!
//! The authors' script walks one seeded permutation per attack level and keeps the first 100
//! problems that reach m variants for that level, so its problem sets differ between M1, M2 and
//! M3; here one problem set serves every requested attack, so the methods are compared on the
//! same problems.

use std::collections::BTreeMap;

use rayon::prelude::*;

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

/// How a sample that must reach m variants per method was drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleReport {
    pub dataset: String,
    /// Problems asked for (n).
    pub wanted: usize,
    /// Problems that reached m in every requested numeric attack and were kept.
    pub chosen: usize,
    /// Candidates walked over because some attack fell short of m.
    pub skipped: usize,
    /// For each numeric attack, how many skipped problems it fell short on.
    pub short_by_attack: BTreeMap<String, usize>,
    /// The first few skipped problems, for the log.
    pub first_skipped: Vec<String>,
}

impl SampleReport {
    /// One line for the log: what was skipped and why, and any shortfall.
    pub fn summary(&self) -> String {
        let reasons: Vec<String> = self
            .short_by_attack
            .iter()
            .map(|(a, n)| format!("{n} short of the variants in {a}"))
            .collect();
        let mut line = format!(
            "{}: sampled {} of {} problems",
            self.dataset, self.chosen, self.wanted
        );
        if self.skipped > 0 {
            line.push_str(&format!(
                "; skipped {} ({}), e.g. {}",
                self.skipped,
                reasons.join(", "),
                self.first_skipped.join(", ")
            ));
        }
        if self.chosen < self.wanted {
            line.push_str(&format!(
                "; only {} problems of the dataset reach the variant count in every attack \
                 (a shortfall of {})",
                self.chosen,
                self.wanted - self.chosen
            ));
        }
        line
    }
}

/// The first `n` problems in rank order that reach `config.variants` distinct valid variants in
/// every one of `methods`, in their original order, and how the walk went. Problems are attacked
/// a chunk at a time (in parallel) and judged in rank order, so the result is the same whatever
/// the thread count.
pub fn sample_reaching<'a>(
    dataset: &str,
    problems: &[&'a ProblemRecord],
    n: usize,
    config: &super::GenerateConfig,
    methods: &[super::Method],
    supporters: &super::Supporters,
) -> (Vec<&'a ProblemRecord>, SampleReport) {
    let mut report = SampleReport {
        dataset: dataset.to_string(),
        wanted: n,
        ..Default::default()
    };
    if methods.is_empty() {
        let chosen = sample(problems, n, config.seed);
        report.chosen = chosen.len();
        return (chosen, report);
    }
    let mut ranked: Vec<(u64, &str, &'a ProblemRecord)> = problems
        .iter()
        .map(|p| (rank(config.seed, &p.problem_id), p.problem_id.as_str(), *p))
        .collect();
    ranked.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut chosen: Vec<&'a ProblemRecord> = Vec::with_capacity(n);
    for chunk in ranked.chunks(super::CHUNK) {
        if chosen.len() >= n {
            break;
        }
        let short: Vec<Vec<String>> = chunk
            .par_iter()
            .map(|(_, _, r)| short_attacks(r, config, methods, supporters))
            .collect();
        for ((_, id, r), short) in chunk.iter().zip(short) {
            if chosen.len() >= n {
                break;
            }
            if short.is_empty() {
                chosen.push(r);
                continue;
            }
            report.skipped += 1;
            if report.first_skipped.len() < 3 {
                report.first_skipped.push(id.to_string());
            }
            for a in short {
                *report.short_by_attack.entry(a).or_default() += 1;
            }
        }
    }
    report.chosen = chosen.len();
    let order: std::collections::HashMap<&str, usize> = problems
        .iter()
        .enumerate()
        .map(|(i, p)| (p.problem_id.as_str(), i))
        .collect();
    chosen.sort_by_key(|p| order[p.problem_id.as_str()]);
    (chosen, report)
}

/// The numeric attacks in which a problem falls short of `config.variants` variants.
fn short_attacks(
    record: &ProblemRecord,
    config: &super::GenerateConfig,
    methods: &[super::Method],
    supporters: &super::Supporters,
) -> Vec<String> {
    let Ok(p) = super::Prepared::new(record, supporters, config.constraints) else {
        return methods.iter().map(|m| m.name().to_string()).collect();
    };
    let draws = super::draws_of(methods, None);
    let draws: Vec<&dyn super::Draw> = draws.iter().map(|d| d.as_ref()).collect();
    let out = super::attack_problem(&p, config, &draws);
    draws
        .iter()
        .filter(|d| {
            out.drawn
                .get(&d.family())
                .is_none_or(|drawing| drawing.drawn.len() < d.wanted(config))
        })
        .map(|d| d.attack().to_string())
        .collect()
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
