//! The text attacks beyond numbers (`names`, `noop` and their compositions with M1–M3): what
//! `generate` writes and counts, that the offline models react to them, and the hand-built
//! tables `tests/slt/symbolic/*.slt` check GSM-Symbolic's view and the distractor rate on.
//!
//! Symbolic fixture (template `xie2024`, dataset `toy`, problems p0..p3 = `toy/test/0..3`; every
//! gold is 10; the no-op numbers are 2 for variant 0 and 3 for variant 1; 1 = answered right,
//! and a wrong answer's extracted value in brackets):
//!
//! | model | attack | p0 | p1 | p2 | p3 |
//! |---|---|---|---|---|---|
//! | model-a | original | 1 | 1 | 1 | 0 |
//! | model-a | names (0, 1) | 1 1 | 1 0 | 0 1 | |
//! | model-a | m3 (0, 1) | 1 0 | 1 1 | 0 0 | 1 1 |
//! | model-a | m3+names (0, 1) | 0 1 | 0 0 | | |
//! | model-a | noop (0, 1) | 1 0[7] | 0[8] 1 | 0[12] 0[none] | 1 1, and an ungraded 2 |
//! | sim-z | original | 1 | | | |
//! | sim-z | noop (0, 1) | 1 1 | | | |

use std::path::{Path, PathBuf};

use crate::fixtures::{write_responses, Resp};
use crate::util::{advmath, sql_csv, stderr_of, stdout_of};
use advmath::store::variants::{rows_to_batch, Row};

/// (model, attack, problem, index, correct, extracted).
type Answer = (
    &'static str,
    &'static str,
    usize,
    usize,
    Option<bool>,
    Option<&'static str>,
);

const ANSWERS: &[Answer] = &[
    ("model-a", "original", 0, 0, Some(true), Some("10")),
    ("model-a", "original", 1, 0, Some(true), Some("10")),
    ("model-a", "original", 2, 0, Some(true), Some("10")),
    ("model-a", "original", 3, 0, Some(false), Some("4")),
    ("model-a", "names", 0, 0, Some(true), Some("10")),
    ("model-a", "names", 0, 1, Some(true), Some("10")),
    ("model-a", "names", 1, 0, Some(true), Some("10")),
    ("model-a", "names", 1, 1, Some(false), Some("9")),
    ("model-a", "names", 2, 0, Some(false), Some("9")),
    ("model-a", "names", 2, 1, Some(true), Some("10")),
    ("model-a", "m3", 0, 0, Some(true), Some("10")),
    ("model-a", "m3", 0, 1, Some(false), Some("1")),
    ("model-a", "m3", 1, 0, Some(true), Some("10")),
    ("model-a", "m3", 1, 1, Some(true), Some("10")),
    ("model-a", "m3", 2, 0, Some(false), Some("1")),
    ("model-a", "m3", 2, 1, Some(false), Some("1")),
    ("model-a", "m3", 3, 0, Some(true), Some("10")),
    ("model-a", "m3", 3, 1, Some(true), Some("10")),
    ("model-a", "m3+names", 0, 0, Some(false), Some("1")),
    ("model-a", "m3+names", 0, 1, Some(true), Some("10")),
    ("model-a", "m3+names", 1, 0, Some(false), Some("1")),
    ("model-a", "m3+names", 1, 1, Some(false), Some("1")),
    ("model-a", "noop", 0, 0, Some(true), Some("10")),
    ("model-a", "noop", 0, 1, Some(false), Some("7")),
    ("model-a", "noop", 1, 0, Some(false), Some("8")),
    ("model-a", "noop", 1, 1, Some(true), Some("10")),
    ("model-a", "noop", 2, 0, Some(false), Some("12")),
    ("model-a", "noop", 2, 1, Some(false), None),
    ("model-a", "noop", 3, 0, Some(true), Some("10")),
    ("model-a", "noop", 3, 1, Some(true), Some("10")),
    ("model-a", "noop", 3, 2, None, None),
    ("sim-z", "original", 0, 0, Some(true), Some("10")),
    ("sim-z", "noop", 0, 0, Some(true), Some("10")),
    ("sim-z", "noop", 0, 1, Some(true), Some("10")),
];

/// The symbolic fixture's tables: the variants every answer is about, and the answers.
pub fn symbolic_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let mut variants: std::collections::BTreeMap<&str, Vec<Row>> = Default::default();
    let mut seen = std::collections::BTreeSet::new();
    for &(_, attack, p, i, _, _) in ANSWERS {
        if !seen.insert((attack, p, i)) {
            continue;
        }
        variants.entry(attack).or_default().push(Row {
            variant_id: format!("toy/test/{p}/{attack}/{i}"),
            problem_id: format!("toy/test/{p}"),
            noise_level: 0,
            variant_index: i as i32,
            question: format!("question {p} {attack} {i}"),
            answer: "10".into(),
            answer_exact: "10".into(),
            numbers: vec!["4".into()],
            seed: 0,
            support: 1,
            distractor: attack.contains("noop").then_some(2 + i as i64),
        });
    }
    for (attack, rows) in variants {
        let path = tables
            .join(format!("variants/dataset=toy/attack={attack}"))
            .join("part-0.parquet");
        advmath::store::write_batch(&path, &rows_to_batch(&rows).unwrap()).unwrap();
    }
    let responses: Vec<Resp> = ANSWERS
        .iter()
        .map(|&(model, attack, p, i, correct, extracted)| {
            let mut r = crate::fixtures::graded(model, p, attack, i, correct.unwrap_or(false));
            r.correct = correct;
            r.extracted = extracted;
            r.simulated = model.starts_with("sim-");
            r
        })
        .collect();
    write_responses(&tables, &responses);
    (dir, tables)
}
