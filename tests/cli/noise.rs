//! ArithmAttack punctuation noise against the study's released files (`../shared/data`, skipped
//! with a message when absent): the insertion count of every noised question, where the marks go,
//! and the study's 180 MultiArith test questions ingested and noised end to end.

use std::path::Path;

use advmath::attack::noise::{insertion_count, is_mark, strip_marks, words, NoiseCount};
use advmath::respond::outside::read_csv;
use rand::SeedableRng;

use crate::util::{advmath, problems_in, shared_data};

const LEVELS: [u32; 3] = [10, 30, 50];

fn questions(path: &Path) -> Vec<String> {
    read_csv(path)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|row| row.get("Question").cloned().unwrap_or_default())
        .collect()
}

/// How a noised question departs from its clean one, if only by inserted marks: the marks
/// inserted, else `None`.
fn inserted_marks(clean: &str, noisy: &str) -> Option<usize> {
    let (c, n) = (words(clean), words(noisy));
    // Marks are whole words, never two before the same word, and removing them gives the
    // clean question's words back (the clean questions contain no standalone mark).
    let doubled = n.windows(2).any(|w| is_mark(w[0]) && is_mark(w[1]));
    (!doubled && c.iter().all(|w| !is_mark(w)) && strip_marks(noisy) == c)
        .then(|| n.len() - c.len())
}

/// Every noised question of the released study files carries exactly floor(p x words) marks,
/// words being the clean question split on single spaces: advmath's default count.
#[test]
fn released_noise_counts_follow_the_default_rule() {
    let Some(data) = shared_data() else {
        return;
    };
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    let (mut checked, mut floor_agrees, mut round_agrees) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for dataset in ["gsm8k", "multiarith"] {
        let mut models: Vec<_> = std::fs::read_dir(data.join("arithmattack").join(dataset))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        models.sort();
        for model in models {
            let clean = questions(&model.join("clean.csv"));
            for level in LEVELS {
                let noisy = questions(&model.join(format!("noise{level}.csv")));
                assert_eq!(clean.len(), noisy.len(), "{}", model.display());
                for (row, (c, n)) in clean.iter().zip(&noisy).enumerate() {
                    checked += 1;
                    let words = words(c).len();
                    let inserted = inserted_marks(c, n);
                    let floor = insertion_count(words, level, NoiseCount::Floor, &mut rng);
                    let round = insertion_count(words, level, NoiseCount::Round, &mut rng);
                    round_agrees += usize::from(inserted == Some(round));
                    if inserted == Some(floor) {
                        floor_agrees += 1;
                    } else if disagreements.len() < 5 {
                        disagreements.push(format!(
                            "{} noise{level} row {row}: {inserted:?} marks, floor rule {floor}",
                            model.display()
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "released noised questions checked: {checked}; floor(p x words) agrees on {floor_agrees}, \
         round(p x words) on {round_agrees}"
    );
    assert_eq!(
        checked, 11_694,
        "the data README lists 11,694 noised questions"
    );
    assert_eq!(floor_agrees, checked, "{disagreements:#?}");
}

/// The 180 MultiArith test questions of the study: ingested with programs borrowed from
/// MultiArith.json by question text, every one gets an original and one noised copy per level,
/// each with floor(p x words) marks and otherwise the question byte for byte.
#[test]
fn arithmattack_multiarith_questions_ingest_and_noise() {
    let Some(data) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args([
            "ingest",
            "--dataset",
            "multiarith",
            "--split",
            "arithmattack",
        ])
        .arg(data.join("arithmattack/multiarith_test_questions.json"))
        .arg("--programs-from")
        .arg(data.join("multiarith/MultiArith.json"))
        .arg("--tables")
        .arg(&tables)
        .assert()
        .success()
        .stderr(predicates::str::contains("180 problems took a program"));
    let problems = problems_in(&tables.join("problems/multiarith__arithmattack.parquet"));
    assert_eq!(problems.len(), 180);
    let valid = problems.iter().filter(|p| p.is_valid()).count();
    eprintln!("ArithmAttack MultiArith questions with a valid program: {valid}/180");
    advmath()
        .args(["generate", "--attack", "punct", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let clean: std::collections::HashMap<String, String> = problems
        .iter()
        .map(|p| (p.problem_id.clone(), p.question.clone()))
        .collect();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    for attack in ["original", "punct10", "punct30", "punct50"] {
        let part = tables.join(format!(
            "variants/dataset=multiarith/attack={attack}/part-0.parquet"
        ));
        let mut rows = 0;
        for batch in advmath::store::read_batches(&part).unwrap() {
            let text = |name: &str| advmath::store::text_column(&batch, name, &part).unwrap();
            let (pid, question) = (text("problem_id"), text("question"));
            for i in 0..batch.num_rows() {
                rows += 1;
                let c = &clean[pid.value(i)];
                let n = question.value(i);
                let level = attack
                    .strip_prefix("punct")
                    .map_or(0, |l| l.parse().unwrap());
                let expected = insertion_count(words(c).len(), level, NoiseCount::Floor, &mut rng);
                assert_eq!(inserted_marks(c, n), Some(expected), "{attack}: {n:?}");
            }
        }
        assert_eq!(rows, 180, "{attack}");
    }
}
