//! The hand-built tables the metrics are checked on (by the `.slt` files under `tests/slt/`, by
//! the Rust tests of the report and `advmath sql`, and by the DuckDB parity test); the expected
//! value of every figure is worked out by hand in those files.
//!
//! Xie fixture (template `xie2024`, dataset `toy`, attack `m3`, problems p0..p3 = `toy/test/0..3`,
//! five variants each, index 0..4; 1 = answered correctly):
//!
//! | model | originals p0 p1 p2 p3 | variants p0 | p1 | p2 | p3 |
//! |---|---|---|---|---|---|
//! | model-a | 1 1 1 0 | 11111 | 11011 | 01111 | 11111 |
//! | model-b | 1 1 0 1 | 11111 | 11011 | 00000 | 11111 |
//! | sim-c (simulated) | 1 0 1 0 | 11110 | 10101 | 01110 | 00000 |
//!
//! plus an original without variants (model-a, p4 = `toy/test/4`, answered wrongly), which only
//! the figures over every original see, an ungraded row (model-a, p0, index 5, `correct` NULL)
//! and an outside row (model-b, no variant_id, problem_id or attack), which every metric must
//! ignore.
//!
//! Adversarial examples (original right, variant wrong): model-a {p1/2, p2/0}, model-b {p1/2},
//! sim-c {p0/4, p2/0, p2/4}.
//!
//! ArithmAttack fixture (template `arithmattack`, dataset `gsm8k`, problems `gsm8k/test/0..3`,
//! attack `original` = level 0 and `punct10/30/50`, one variant each):
//!
//! | model | clean | punct10 | punct30 | punct50 |
//! |---|---|---|---|---|
//! | Qwen2.5-1.5B-Instruct | 1110 | 1101 | 1000 | 0000 |
//! | sim-noise (simulated by name only) | 0000 | 1000 | 0000 | 0100 |

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::array::{ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, StringArray};

/// One response row of a fixture.
pub struct Resp {
    model: &'static str,
    template: &'static str,
    dataset: &'static str,
    problem: Option<usize>,
    attack: &'static str,
    index: usize,
    noise: i32,
    pub correct: Option<bool>,
    pub simulated: bool,
    /// The answer read from the reply (`1` unless a fixture says otherwise).
    pub extracted: Option<&'static str>,
    /// Whether the reply says the question cannot be answered (`None`: graded before replies
    /// were read so).
    pub abstained: Option<bool>,
}

/// The rows of `model`'s noise-free answers to problem `p` of `dataset` under the xie2024
/// template: `base(attack, index, correct)`.
fn noise_free(
    model: &'static str,
    dataset: &'static str,
    p: usize,
    simulated: bool,
) -> impl Fn(&'static str, usize, Option<bool>) -> Resp {
    move |attack, index, correct| Resp {
        model,
        template: "xie2024",
        dataset,
        problem: Some(p),
        attack,
        index,
        noise: 0,
        correct,
        simulated,
        extracted: Some("1"),
        abstained: None,
    }
}

pub fn responses_batch(rows: &[&Resp]) -> RecordBatch {
    let schema = advmath::store::responses::schema();
    let n = rows.len();
    let text = |f: &dyn Fn(&Resp) -> Option<String>| -> ArrayRef {
        Arc::new(StringArray::from(
            rows.iter().map(|r| f(r)).collect::<Vec<Option<String>>>(),
        ))
    };
    let pid = |r: &Resp| r.problem.map(|p| format!("{}/test/{p}", r.dataset));
    let vid = |r: &Resp| pid(r).map(|p| format!("{p}/{}/{}", r.attack, r.index));
    let columns: Vec<ArrayRef> = vec![
        text(&|r| {
            Some(format!(
                "{}-{:?}-{}-{}",
                r.model, r.problem, r.attack, r.index
            ))
        }),
        text(&|r| Some(r.model.to_string())),
        text(&|r| Some(r.template.to_string())),
        text(&|_| Some("default".to_string())),
        text(&|r| vid(r)),
        text(&|r| pid(r)),
        text(&|r| r.problem.map(|_| r.dataset.to_string())),
        text(&|r| r.problem.map(|_| r.attack.to_string())),
        Arc::new(Int32Array::from(
            rows.iter()
                .map(|r| r.problem.map(|_| r.noise))
                .collect::<Vec<_>>(),
        )),
        text(&|r| Some(format!("question {:?} {}", r.problem, r.index))),
        text(&|r| {
            Some(format!(
                "The answer is {}",
                r.extracted.unwrap_or("unknown")
            ))
        }),
        text(&|r| r.extracted.map(str::to_string)),
        text(&|_| Some("answer_is".to_string())),
        // A question a needed number was taken out of has no gold.
        text(&|r| (!r.attack.contains("missing")).then(|| "1".to_string())),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| r.correct).collect::<Vec<_>>(),
        )),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| r.correct).collect::<Vec<_>>(),
        )),
        Arc::new(Float64Array::from(vec![Some(12.5); n])),
        Arc::new(Int64Array::from(vec![Some(40); n])),
        Arc::new(Int64Array::from(vec![Some(8); n])),
        text(&|_| Some("stop".to_string())),
        text(&|r| Some(if r.simulated { "simulated" } else { "endpoint" }.to_string())),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| r.simulated).collect::<Vec<_>>(),
        )),
        text(&|_| None),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| r.abstained).collect::<Vec<_>>(),
        )),
    ];
    RecordBatch::try_new(schema, columns).expect("fixture matches the responses schema")
}

/// Write `rows` as `tables/responses/<model>/part-0.parquet`, one folder per model.
pub fn write_responses(tables: &Path, rows: &[Resp]) {
    let mut models: Vec<&str> = rows.iter().map(|r| r.model).collect();
    models.sort();
    models.dedup();
    for model in models {
        let mine: Vec<&Resp> = rows.iter().filter(|r| r.model == model).collect();
        let path = tables
            .join("responses")
            .join(model.replace('/', "__"))
            .join("part-0.parquet");
        advmath::store::write_batch(&path, &responses_batch(&mine)).unwrap();
    }
}

pub fn bit(s: &str, i: usize) -> Option<bool> {
    Some(s.as_bytes()[i] == b'1')
}

/// The Xie fixture of the module comment.
pub fn xie_rows() -> Vec<Resp> {
    let spec: [(&str, bool, &str, [&str; 4]); 3] = [
        (
            "model-a",
            false,
            "1110",
            ["11111", "11011", "01111", "11111"],
        ),
        (
            "model-b",
            false,
            "1101",
            ["11111", "11011", "00000", "11111"],
        ),
        ("sim-c", true, "1010", ["11110", "10101", "01110", "00000"]),
    ];
    let mut rows = Vec::new();
    for (model, simulated, originals, variants) in spec {
        for (p, answers) in variants.iter().enumerate() {
            let base = noise_free(model, "toy", p, simulated);
            rows.push(base("original", 0, bit(originals, p)));
            for i in 0..5 {
                rows.push(base("m3", i, bit(answers, i)));
            }
        }
    }
    // An original without variants (model-a, p4, answered wrongly): outside Table 1's problem set
    // P, so OA, AA and ASR do not see it; only `oa_all_originals` (every graded original) does.
    rows.push(Resp {
        model: "model-a",
        template: "xie2024",
        dataset: "toy",
        problem: Some(4),
        attack: "original",
        index: 0,
        noise: 0,
        correct: Some(false),
        simulated: false,
        extracted: Some("1"),
        abstained: None,
    });
    // Ignored rows: ungraded, and an outside row that matches no variant.
    rows.push(Resp {
        model: "model-a",
        template: "xie2024",
        dataset: "toy",
        problem: Some(0),
        attack: "m3",
        index: 5,
        noise: 0,
        correct: None,
        simulated: false,
        extracted: Some("1"),
        abstained: None,
    });
    rows.push(Resp {
        model: "model-b",
        template: "xie2024",
        dataset: "toy",
        problem: None,
        attack: "m3",
        index: 0,
        noise: 0,
        correct: Some(false),
        simulated: false,
        extracted: Some("1"),
        abstained: None,
    });
    rows
}

/// The ArithmAttack fixture of the module comment.
pub fn arithmattack_rows() -> Vec<Resp> {
    let spec: [(&str, [&str; 4]); 2] = [
        ("Qwen2.5-1.5B-Instruct", ["1110", "1101", "1000", "0000"]),
        ("sim-noise", ["0000", "1000", "0000", "0100"]),
    ];
    let mut rows = Vec::new();
    for (model, levels) in spec {
        for (l, (attack, noise)) in [
            ("original", 0),
            ("punct10", 10),
            ("punct30", 30),
            ("punct50", 50),
        ]
        .into_iter()
        .enumerate()
        {
            for p in 0..4 {
                rows.push(Resp {
                    model,
                    template: "arithmattack",
                    dataset: "gsm8k",
                    problem: Some(p),
                    attack,
                    index: 0,
                    noise,
                    correct: bit(levels[l], p),
                    simulated: false,
                    extracted: Some("1"),
                    abstained: None,
                });
            }
        }
    }
    rows
}

pub fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let mut rows = xie_rows();
    rows.extend(arithmattack_rows());
    write_responses(&tables, &rows);
    (dir, tables)
}

/// The RobustMath release of the Table 3 fixture: three originals, five rephrasings in another
/// order. By answer and shared words: rephrasing 0 -> original 2, 1 -> 0, 2 -> 1, 3 -> 0 (its
/// second variant); rephrasing 4 shares almost no word with the originals of answer 10: unpaired.
pub fn write_robustmath_release(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let base = serde_json::json!([
        {"Problem": "Tom has 3 apples and buys 2 more. How many apples does he have?", "final_ans": 5.0},
        {"Problem": "Ann reads 5 pages a day for 2 days. How many pages does she read?", "final_ans": 10.0},
        {"Problem": "Bob has 3 pears and buys 2 more. How many pears does he have?", "final_ans": 5.0},
    ]);
    let rephrased = serde_json::json!([
        {"Problem": "bob owns 3 pears and buys 2 more . how many pears does he have ?", "final_ans": 5.0},
        {"Problem": "tom has 3 apples and gets 2 more ; how many apples does he have?", "final_ans": 5.0},
        {"Problem": "ann reads 5 pages per day for 2 days . how many pages does she read?", "final_ans": 10.0},
        {"Problem": "tom owns 3 apples and buys 2 more . how many apples does he own?", "final_ans": 5.0},
        {"Problem": "a cat sleeps all afternoon, what then?", "final_ans": 10.0},
    ]);
    std::fs::write(dir.join("robustBase.json"), base.to_string()).unwrap();
    std::fs::write(dir.join("robustMath.json"), rephrased.to_string()).unwrap();
}

/// Responses of the Table 3 fixture (template `xie2024`; 1 = right):
///
/// | model | dataset | originals | variants per problem |
/// |---|---|---|---|
/// | model-a | robustmath (`rephrase`) | 110 | p0 10, p1 1, p2 0 |
/// | model-a | gsm8k (`m3`) | 11 | p0 11, p1 01 |
/// | model-a | multiarith (`m3`) | 10 | p0 1, p1 1 |
/// | model-b | robustmath (`rephrase`) | 111 | p0 11, p1 0, p2 1 |
/// | model-b | gsm8k (`m3`) | 00 | p0 11, p1 11 |
/// | model-b | multiarith (`m3`) | 11 | p0 0, p1 1 |
pub fn table3_rows() -> Vec<Resp> {
    let spec: [(&str, &str, &str, &str, &[&str]); 6] = [
        (
            "model-a",
            "robustmath",
            "rephrase",
            "110",
            &["10", "1", "0"],
        ),
        ("model-a", "gsm8k", "m3", "11", &["11", "01"]),
        ("model-a", "multiarith", "m3", "10", &["1", "1"]),
        (
            "model-b",
            "robustmath",
            "rephrase",
            "111",
            &["11", "0", "1"],
        ),
        ("model-b", "gsm8k", "m3", "00", &["11", "11"]),
        ("model-b", "multiarith", "m3", "11", &["0", "1"]),
    ];
    let mut rows = Vec::new();
    for (model, dataset, attack, originals, variants) in spec {
        for (p, answers) in variants.iter().enumerate() {
            let base = noise_free(model, dataset, p, false);
            rows.push(base("original", 0, bit(originals, p)));
            for i in 0..answers.len() {
                rows.push(base(attack, i, bit(answers, i)));
            }
        }
    }
    rows
}

/// Responses of the guided-attack fixture (`model`, template `xie2024`, dataset `toy`; 1 = right,
/// variants in index order):
///
/// | problem | original | guided | m3 |
/// |---|---|---|---|
/// | p0 | 1 | 01111 | 11110 |
/// | p1 | 1 | 10111 | 11111 |
/// | p2 | 1 | 11101 | 11111 |
/// | p3 | 0 | 11111 | 01111 |
/// | p4 | 1 | — | 00000 |
pub fn guided_rows(model: &'static str) -> Vec<Resp> {
    let spec: [(&str, Option<&str>, &str); 5] = [
        ("1", Some("01111"), "11110"),
        ("1", Some("10111"), "11111"),
        ("1", Some("11101"), "11111"),
        ("0", Some("11111"), "01111"),
        ("1", None, "00000"),
    ];
    let mut rows = Vec::new();
    for (p, (original, guided, m3)) in spec.into_iter().enumerate() {
        let base = noise_free(model, "toy", p, false);
        rows.push(base("original", 0, bit(original, 0)));
        for (attack, answers) in [("guided", guided), ("m3", Some(m3))] {
            for i in 0..answers.map_or(0, str::len) {
                rows.push(base(attack, i, bit(answers.unwrap(), i)));
            }
        }
    }
    rows
}

/// `generation_stats/dataset=toy/part-0.parquet`: (problem, attack, attempts, valid,
/// unique_valid, emitted, reached_target), every rejection count 0.
pub fn write_generation_stats(tables: &Path) {
    let rows: [(&str, &str, i64, i64, i64, i64, bool); 4] = [
        ("toy/test/0", "m1", 100, 90, 80, 5, true),
        ("toy/test/1", "m1", 100, 50, 3, 0, false),
        ("toy/test/0", "m3", 100, 40, 10, 5, true),
        ("toy/test/1", "m3", 100, 20, 6, 5, true),
    ];
    let schema = advmath::store::generation_stats::schema();
    type StatsRow<'a> = (&'a str, &'a str, i64, i64, i64, i64, bool);
    let ints = |f: &dyn Fn(&StatsRow) -> i64| -> ArrayRef {
        Arc::new(Int64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        )),
        ints(&|r| r.2),
        ints(&|r| r.3),
        ints(&|r| r.4),
        ints(&|r| r.5),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| r.6).collect::<Vec<_>>(),
        )),
    ];
    // Every rejection count 0; no problem failed (`failure` null), none lost to the reader's rules.
    while columns.len() < schema.fields().len() {
        columns.push(match schema.field(columns.len()).data_type() {
            arrow::datatypes::DataType::Utf8 => {
                Arc::new(StringArray::from(vec![None::<&str>; rows.len()]))
            }
            arrow::datatypes::DataType::Boolean => {
                Arc::new(BooleanArray::from(vec![false; rows.len()]))
            }
            _ => ints(&|_| 0),
        });
    }
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    advmath::store::write_batch(
        &tables.join("generation_stats/dataset=toy/part-0.parquet"),
        &batch,
    )
    .unwrap();
}

/// Every table a metric reads: the main fixture, the Table 3 rows and `generation_stats`.
pub fn full_fixture() -> (tempfile::TempDir, PathBuf) {
    full_fixture_with(Vec::new())
}

fn full_fixture_with(extra: Vec<Resp>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let mut rows = xie_rows();
    rows.extend(arithmattack_rows());
    rows.extend(table3_rows());
    rows.extend(extra);
    write_responses(&tables, &rows);
    write_generation_stats(&tables);
    (dir, tables)
}

/// The full fixture plus the guided attack's responses under a model of their own
/// (`model-guided`) and the symbolic fixture's variants and answers (`model-s`, `sim-z`), so
/// that every embedded metric has rows on one tables folder.
pub fn every_metric_fixture() -> (tempfile::TempDir, PathBuf) {
    let (dir, tables) = full_fixture_with(guided_rows("model-guided"));
    crate::text_attacks::write_symbolic(&tables, &write_responses);
    (dir, tables)
}

/// The Table 3 fixture: the RobustMath release above ingested (its pairing written as
/// variants), with the Table 3 responses.
pub fn robustmath_fixture() -> (
    tempfile::TempDir,
    PathBuf,
    advmath::ingest::RobustMathSummary,
) {
    let dir = tempfile::tempdir().unwrap();
    let release = dir.path().join("robustmath");
    write_robustmath_release(&release);
    let tables = dir.path().join("tables");
    let summary = advmath::ingest::ingest_robustmath(&release, &tables).unwrap();
    write_responses(&tables, &table3_rows());
    (dir, tables, summary)
}

/// A graded response to variant `index` of problem `problem` (template `xie2024`, dataset `toy`).
pub fn graded(
    model: &'static str,
    problem: usize,
    attack: &'static str,
    index: usize,
    correct: bool,
) -> Resp {
    Resp {
        model,
        template: "xie2024",
        dataset: "toy",
        problem: Some(problem),
        attack,
        index,
        noise: 0,
        correct: Some(correct),
        simulated: false,
        extracted: Some("1"),
        abstained: None,
    }
}
