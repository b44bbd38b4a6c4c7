//! A sample designed for evaluation: `--problems N` problems per dataset drawn with a seed from
//! those every selected attack covers (one problem set for every attack, as Xie et al.'s Table 1
//! has one P), and `--per-problem K` variants of each, the first K in `variant_index` order (the
//! generator draws variants independently, so the first K are already a uniform sample of them).
//! Originals are always kept; a budget (`--limit`) is applied later, to requests.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::rows::Item;
use crate::seed::{fnv1a, mix};
use crate::vocab::Attack;

/// How a sample was drawn, per dataset: the problems every selected attack covers, and how many
/// of them were taken.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleReport {
    /// dataset -> (problems covered by every attack asked, problems taken).
    pub datasets: BTreeMap<String, (usize, usize)>,
}

impl SampleReport {
    /// One line per dataset where fewer problems could be taken than asked for.
    pub fn shortfalls(&self, asked: usize) -> Vec<String> {
        self.datasets
            .iter()
            .filter(|(_, (_, taken))| *taken < asked)
            .map(|(d, (pool, _))| {
                format!(
                    "{d}: only {pool} problems have a question of every attack asked; all {pool} are taken"
                )
            })
            .collect()
    }
}

fn problem_of(it: &Item) -> (&str, &str) {
    (
        it.dataset.as_deref().unwrap_or_default(),
        it.problem_id.as_deref().unwrap_or_default(),
    )
}

/// Keep `n` problems per dataset, drawn with `seed` from the problems that have a question of
/// every attack the items hold for that dataset (their original included); the draw ranks the
/// problems by a hash of (seed, problem id), so it does not depend on the table order, the
/// attacks asked or the other datasets.
pub fn draw_problems(items: &mut Vec<Item>, n: usize, seed: u64) -> SampleReport {
    let mut attacks: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut covered: HashMap<(&str, &str), BTreeSet<&str>> = HashMap::new();
    for it in items.iter() {
        let (dataset, problem) = problem_of(it);
        let attack = it.attack.as_deref().unwrap_or_default();
        attacks.entry(dataset).or_default().insert(attack);
        covered
            .entry((dataset, problem))
            .or_default()
            .insert(attack);
    }
    let mut report = SampleReport::default();
    let mut chosen: BTreeSet<(String, String)> = BTreeSet::new();
    for (dataset, all) in &attacks {
        let mut pool: Vec<(u64, &str)> = covered
            .iter()
            .filter(|((d, _), held)| d == dataset && *held == all)
            .map(|((_, p), _)| (mix(seed ^ fnv1a(p.as_bytes())), *p))
            .collect();
        pool.sort_unstable();
        let taken = pool.len().min(n);
        report
            .datasets
            .insert(dataset.to_string(), (pool.len(), taken));
        chosen.extend(
            pool.into_iter()
                .take(n)
                .map(|(_, p)| (dataset.to_string(), p.to_string())),
        );
    }
    items.retain(|it| {
        let (d, p) = problem_of(it);
        chosen.contains(&(d.to_string(), p.to_string()))
    });
    report
}

/// Keep the first `k` variants of each problem and attack in `variant_index` order, and every
/// original.
pub fn first_per_problem(items: &mut Vec<Item>, k: usize) {
    let mut indices: HashMap<(&str, &str, &str), Vec<i32>> = HashMap::new();
    for it in items.iter() {
        let (d, p) = problem_of(it);
        indices
            .entry((d, p, it.attack.as_deref().unwrap_or_default()))
            .or_default()
            .push(it.variant_index);
    }
    let cut: HashMap<(String, String, String), i32> = indices
        .into_iter()
        .map(|((d, p, a), mut v)| {
            v.sort_unstable();
            let last = v[v.len().min(k).saturating_sub(1)];
            ((d.to_string(), p.to_string(), a.to_string()), last)
        })
        .collect();
    items.retain(|it| {
        let attack = it.attack.as_deref().unwrap_or_default();
        if Attack::is_original(attack) {
            return true;
        }
        let (d, p) = problem_of(it);
        cut.get(&(d.to_string(), p.to_string(), attack.to_string()))
            .is_some_and(|last| it.variant_index <= *last)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(dataset: &str, problem: &str, attack: &str, index: i32) -> Item {
        Item {
            variant_id: Some(format!("{dataset}/{problem}/{attack}/{index}")),
            problem_id: Some(problem.into()),
            dataset: Some(dataset.into()),
            attack: Some(attack.into()),
            noise_level: None,
            question: format!("q {problem} {attack} {index}"),
            gold: None,
            variant_index: index,
        }
    }

    fn items() -> Vec<Item> {
        let mut v = Vec::new();
        for p in 0..20 {
            let p = p.to_string();
            v.push(item("d", &p, "original", 0));
            v.push(item("d", &p, "punct10", 0));
            // Problems 15..20 have no numeric variant (no valid program).
            if p.parse::<u32>().unwrap() < 15 {
                for i in (0..6).rev() {
                    v.push(item("d", &p, "m3", i));
                }
            }
        }
        v
    }

    #[test]
    fn problems_are_drawn_among_those_every_attack_covers_the_same_for_every_attack() {
        let mut v = items();
        let report = draw_problems(&mut v, 4, 1);
        assert_eq!(report.datasets["d"], (15, 4));
        let per_attack = |a: &str| -> BTreeSet<String> {
            v.iter()
                .filter(|it| it.attack.as_deref() == Some(a))
                .map(|it| it.problem_id.clone().unwrap())
                .collect()
        };
        assert_eq!(per_attack("original").len(), 4);
        assert_eq!(per_attack("original"), per_attack("m3"));
        assert_eq!(per_attack("original"), per_attack("punct10"));
        // Another seed draws another set; the same seed the same one, whatever the order.
        let mut w = items();
        w.reverse();
        draw_problems(&mut w, 4, 1);
        let mut x = items();
        draw_problems(&mut x, 4, 2);
        let set = |v: &[Item]| -> BTreeSet<String> {
            v.iter().map(|it| it.problem_id.clone().unwrap()).collect()
        };
        assert_eq!(set(&v), set(&w));
        assert_ne!(set(&v), set(&x));
        let mut all = items();
        assert_eq!(draw_problems(&mut all, 50, 1).shortfalls(50).len(), 1);
    }

    #[test]
    fn the_first_k_variants_in_index_order_and_every_original_are_kept() {
        let mut v = items();
        first_per_problem(&mut v, 2);
        let m3: Vec<i32> = v
            .iter()
            .filter(|it| {
                it.attack.as_deref() == Some("m3") && it.problem_id.as_deref() == Some("3")
            })
            .map(|it| it.variant_index)
            .collect();
        assert_eq!(m3, vec![1, 0]);
        assert_eq!(
            v.iter()
                .filter(|it| it.attack.as_deref() == Some("original"))
                .count(),
            20
        );
        assert_eq!(
            v.iter()
                .filter(|it| it.attack.as_deref() == Some("punct10"))
                .count(),
            20
        );
    }
}
