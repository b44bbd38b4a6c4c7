//! The efficient attack (Xie et al. Table 5) as a protocol: `respond --efficient-from`, against a
//! local server that answers by the question, on a hand-built fixture whose requests and early
//! stops are worked out below; then offline, with two simulated models on the default dataset.
//!
//! Fixture: dataset `toy`, attack `m3`, problems p0..p3 (`toy/test/0..3`), five variants each
//! (index 0..4), every gold answer 1. The cheap model (`cheap`; 1 = answered correctly):
//!
//! | problem | original | variants 0..4 | wrong variants |
//! |---|---|---|---|
//! | p0 | 1 | 10101 | v1 v3 |
//! | p1 | 1 | 00010 | v0 v1 v2 v4 |
//! | p2 | 1 | 11011 | v2 |
//! | p3 | 0 | 00000 | v0..v4 |
//!
//! The target answers 2 (wrong) to the original of p0, to p1/v2 and to p3/v1, and 1 to
//! everything else.
//!
//! `solved-originals` protocol, top 2: candidates are the cheap model's wrong variants of the
//! problems whose original it solves: p1 4, p0 2, p2 1 (p3 is out: the cheap model fails its original). Ranked p1, p0.
//! p1: original right, v0 right, v1 right, v2 wrong: stop, 4 requests, broken. p0: original
//! wrong: not attacked, 1 request. Requests 5; problems 2, solved 1, broken 1, ASR 1. A full
//! attack on p1 and p0 sends 2 originals + 10 variants = 12; on all four problems 4 + 20 = 24.
//!
//! `solved-originals`, top 2, `--per-problem 2`: p1 sends original, v0, v1 (both right,
//! candidates exhausted), 3 requests; p0 1. Requests 4, solved 1, broken 0, ASR 0.
//!
//! `wrong-variants` protocol (the default, the paper's text), top 2: candidates are every wrong
//! variant: p3 5, p1 4, p0 2, p2 1; ranked p3, p1; no original asked. p3: v0 right, v1 wrong, 2 requests. p1: v0, v1, v2 (wrong), 3
//! requests. Requests 5; problems 2, solved 2 (all attacked), broken 2, ASR 1. Full attack: 10
//! variants on p3 and p1, 20 on all.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use advmath::metrics::{Cell, ResultTable, SqlEngine};
use advmath::respond::{Item, Scored};
use advmath::store::responses::rows_to_batch;
use advmath::store::responses::ResponseRow;
use arrow::array::{ArrayRef, Int32Array, ListBuilder, RecordBatch, StringArray, StringBuilder};

use crate::server::{spawn_with, Reply};
use crate::util::{advmath, embedded_sql, small_tables};

const CHEAP_ORIGINALS: &str = "1110";
const CHEAP_VARIANTS: [&str; 4] = ["10101", "00010", "11011", "00000"];
/// Questions the target answers wrongly (markers in the question text).
const TARGET_WRONG: [&str; 3] = ["[P0 O]", "[P1 V2]", "[P3 V1]"];

fn question(p: usize, v: Option<usize>) -> String {
    match v {
        None => format!("Box [P{p} O] holds one apple. How many apples are in it?"),
        Some(v) => format!("Box [P{p} V{v}] holds one apple. How many apples are in it?"),
    }
}

fn write_variants(tables: &Path, attack: &str, rows: &[(usize, usize, String)]) {
    let mut numbers = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
        arrow::datatypes::Field::new("item", arrow::datatypes::DataType::Utf8, false),
    ));
    for _ in rows {
        numbers.values().append_value("1");
        numbers.append(true);
    }
    let text = |f: &dyn Fn(&(usize, usize, String)) -> String| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let batch = RecordBatch::try_new(
        advmath::store::variants::schema(),
        vec![
            text(&|(p, i, _)| format!("toy/test/{p}/{attack}/{i}")),
            text(&|(p, _, _)| format!("toy/test/{p}")),
            Arc::new(Int32Array::from(vec![0; rows.len()])),
            Arc::new(Int32Array::from(
                rows.iter().map(|r| r.1 as i32).collect::<Vec<_>>(),
            )),
            text(&|r| r.2.clone()),
            text(&|_| "1".into()),
            text(&|_| "1".into()),
            Arc::new(numbers.finish()),
            Arc::new(arrow::array::UInt64Array::from(vec![7u64; rows.len()])),
            Arc::new(Int32Array::from(vec![1; rows.len()])),
            Arc::new(arrow::array::Int64Array::from(vec![
                None::<i64>;
                rows.len()
            ])),
        ],
    )
    .unwrap();
    let path = tables.join(format!(
        "variants/dataset=toy/attack={attack}/part-0.parquet"
    ));
    advmath::store::write_batch(&path, &batch).unwrap();
}

/// The item of problem `p`'s original (`None`) or m3 variant `Some(v)`; every gold answer is 1.
fn toy_item(p: usize, variant: Option<usize>) -> Item {
    let (attack, index) = variant.map_or(("original", 0), |v| ("m3", v));
    Item {
        variant_id: Some(format!("toy/test/{p}/{attack}/{index}")),
        problem_id: Some(format!("toy/test/{p}")),
        dataset: Some("toy".into()),
        attack: Some(attack.into()),
        noise_level: Some(0),
        question: question(p, variant),
        gold: advmath::num::Num::parse_decimal("1").map(advmath::respond::grade::Gold::Answer),
        variant_index: index as i32,
    }
}

/// The fixture's variants and the cheap model's responses.
pub fn fixture(tables: &Path) {
    let originals: Vec<_> = (0..4).map(|p| (p, 0, question(p, None))).collect();
    write_variants(tables, "original", &originals);
    let m3: Vec<_> = (0..4)
        .flat_map(|p| (0..5).map(move |v| (p, v, question(p, Some(v)))))
        .collect();
    write_variants(tables, "m3", &m3);
    let mut rows = Vec::new();
    for (p, variants) in CHEAP_VARIANTS.iter().enumerate() {
        let mut answer = |attack: &str, index: usize, right: bool, q: String| {
            let item = Item {
                variant_id: Some(format!("toy/test/{p}/{attack}/{index}")),
                problem_id: Some(format!("toy/test/{p}")),
                dataset: Some("toy".into()),
                attack: Some(attack.into()),
                noise_level: Some(0),
                question: q,
                gold: advmath::num::Num::parse_decimal("1")
                    .map(advmath::respond::grade::Gold::Answer),
                variant_index: index as i32,
            };
            let text = if right {
                "So the answer is 1."
            } else {
                "So the answer is 2."
            };
            rows.push(ResponseRow::scored(
                format!("cheap-{p}-{attack}-{index}"),
                "cheap",
                "xie2024",
                &item,
                text.into(),
                "endpoint",
            ));
        };
        answer(
            "original",
            0,
            CHEAP_ORIGINALS.as_bytes()[p] == b'1',
            question(p, None),
        );
        for v in 0..5 {
            answer(
                "m3",
                v,
                variants.as_bytes()[v] == b'1',
                question(p, Some(v)),
            );
        }
    }
    advmath::store::write_batch(
        &tables.join("responses/cheap/part-0.parquet"),
        &rows_to_batch(&rows).unwrap(),
    )
    .unwrap();
}

fn efficient(tables: &Path, port: u16, extra: &[&str]) -> String {
    let out = advmath()
        .args([
            "respond",
            "--model",
            "target",
            "--efficient-from",
            "cheap",
            "--top-problems",
            "2",
            "--concurrency",
            "2",
            "--endpoint",
            &format!("http://127.0.0.1:{port}"),
            "--tables",
        ])
        .arg(tables)
        .args(extra)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

fn table5(tables: &Path) -> ResultTable {
    let sql = embedded_sql()
        .iter()
        .find(|(n, _)| *n == "xie_efficient")
        .unwrap()
        .1;
    SqlEngine::open(tables).unwrap().query_table(sql).unwrap()
}

/// The row of a run: (protocol, per-problem cap as text or "" for none).
fn run_row(t: &ResultTable, protocol: &str, cap: Option<i64>) -> usize {
    (0..t.len())
        .find(|&r| {
            t.get(r, "protocol").and_then(Cell::as_str) == Some(protocol)
                && t.get(r, "per_problem").and_then(Cell::as_i64) == cap
        })
        .unwrap_or_else(|| panic!("no {protocol} run with cap {cap:?}"))
}

fn int(t: &ResultTable, r: usize, c: &str) -> i64 {
    t.get(r, c)
        .and_then(Cell::as_i64)
        .unwrap_or_else(|| panic!("{c}"))
}

fn float(t: &ResultTable, r: usize, c: &str) -> f64 {
    t.get(r, c)
        .and_then(Cell::as_f64)
        .unwrap_or_else(|| panic!("{c}"))
}

#[test]
fn efficient_attack_counts_requests_and_stops_each_problem_at_its_first_success() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    fixture(&tables);
    let server = spawn_with(
        |_, body| {
            if TARGET_WRONG.iter().any(|m| body.contains(m)) {
                Reply::Text("So the answer is 2.")
            } else {
                Reply::Text("So the answer is 1.")
            }
        },
        Duration::ZERO,
    );
    let asked = || server.requests.load(Ordering::SeqCst);

    // Interrupted after the first problem (p1: original, v0, v1, v2), then resumed: p0's
    // original is the only request left, and a third run asks nothing.
    let strict = ["--efficient-protocol", "solved-originals"];
    let first = efficient(
        &tables,
        server.port,
        &[&strict[..], &["--limit", "1"]].concat(),
    );
    assert!(first.contains("target\t4\t0\t0\t0\t4\t0\t3"), "{first}");
    assert_eq!(asked(), 4);
    let second = efficient(&tables, server.port, &strict);
    assert!(second.contains("target\t1\t0\t0\t4\t1\t0\t0"), "{second}");
    assert_eq!(asked(), 5);
    let third = efficient(&tables, server.port, &strict);
    assert!(third.contains("target\t0\t0\t0\t5\t0\t0\t0"), "{third}");
    assert_eq!(asked(), 5);

    efficient(
        &tables,
        server.port,
        &[&strict[..], &["--per-problem", "2"]].concat(),
    );
    assert_eq!(asked(), 5 + 4);
    // The default protocol is the paper's text: every wrong variant of the cheap model.
    efficient(&tables, server.port, &[]);
    assert_eq!(asked(), 5 + 4 + 5);

    let t = table5(&tables);
    assert_eq!(t.len(), 3, "one row per run");
    // (protocol, cap, problems, solved, broken, requests, full selected, full all)
    let expected = [
        ("solved-originals", None, 2, 1, 1, 5, 12, 24),
        ("solved-originals", Some(2), 2, 1, 0, 4, 12, 24),
        ("wrong-variants", None, 2, 2, 2, 5, 10, 20),
    ];
    for (protocol, cap, problems, solved, broken, requests, full_sel, full_all) in expected {
        let r = run_row(&t, protocol, cap);
        let what = format!("{protocol} {cap:?}");
        assert_eq!(int(&t, r, "top_problems"), 2, "{what}");
        assert_eq!(int(&t, r, "problems"), problems, "{what}");
        assert_eq!(int(&t, r, "solved"), solved, "{what}");
        assert_eq!(int(&t, r, "broken"), broken, "{what}");
        assert_eq!(int(&t, r, "requests"), requests, "{what}");
        assert_eq!(int(&t, r, "full_requests_selected"), full_sel, "{what}");
        assert_eq!(int(&t, r, "full_requests_all"), full_all, "{what}");
        let asr = broken as f64 / solved as f64;
        assert!((float(&t, r, "asr") - asr).abs() < 1e-12, "{what}");
        let saving = 1.0 - requests as f64 / full_sel as f64;
        assert!(
            (float(&t, r, "saving_selected") - saving).abs() < 1e-12,
            "{what}"
        );
        let saving = 1.0 - requests as f64 / full_all as f64;
        assert!(
            (float(&t, r, "saving_all") - saving).abs() < 1e-12,
            "{what}"
        );
    }
    let paper = run_row(&t, "solved-originals", Some(2));
    assert_eq!(t.get(paper, "requests_per_broken"), Some(&Cell::Null));

    // The early stop, row by row: p1 of the paper run stops at its third candidate (step 3).
    let rows = advmath::store::efficient_responses::read_efficient_rows(&tables, "target").unwrap();
    let mut p1: Vec<(i32, String)> = rows
        .iter()
        .filter(|r| r.efficient_protocol == "solved-originals" && r.per_problem.is_none())
        .filter(|r| r.row.problem_id.as_deref() == Some("toy/test/1"))
        .map(|r| (r.step, r.row.variant_id.clone().unwrap()))
        .collect();
    p1.sort();
    assert_eq!(
        p1,
        [
            (0, "toy/test/1/original/0".to_string()),
            (1, "toy/test/1/m3/0".to_string()),
            (2, "toy/test/1/m3/1".to_string()),
            (3, "toy/test/1/m3/2".to_string()),
        ]
    );
    assert!(rows
        .iter()
        .filter(|r| r.efficient_protocol == "solved-originals" && r.per_problem.is_none())
        .all(|r| r.top_problems == 2 && r.plan_attack == "m3"));
    // The full run's metrics never see these requests: `responses` holds the cheap model only.
    let models = SqlEngine::open(&tables)
        .unwrap()
        .query_table("SELECT DISTINCT model FROM responses")
        .unwrap();
    assert_eq!(models.len(), 1);
}

/// End to end offline: sim-carry's adversarial examples against sim-careful on the default
/// dataset; the run costs fewer requests than a full attack, and a rerun asks nothing.
#[test]
fn efficient_attack_offline_costs_fewer_requests_than_the_full_attack() {
    let (_dir, tables) = small_tables();
    let run = || {
        let out = advmath()
            .args([
                "respond",
                "--model",
                "sim-careful",
                "--efficient-from",
                "sim-carry",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let first = run();
    let second = run();
    assert!(
        second.contains("sim-careful\t0\t"),
        "a rerun asks nothing: {second}"
    );
    let t = table5(&tables);
    assert!(!t.is_empty(), "no Table 5 row:\n{first}");
    let mut total = (0, 0, 0);
    for r in 0..t.len() {
        let attack = t
            .get(r, "attack")
            .and_then(Cell::as_str)
            .unwrap()
            .to_string();
        let (requests, full_sel, full_all) = (
            int(&t, r, "requests"),
            int(&t, r, "full_requests_selected"),
            int(&t, r, "full_requests_all"),
        );
        eprintln!(
            "{attack}: problems {} solved {} broken {} requests {requests} full(selected) {full_sel} full(all) {full_all}",
            int(&t, r, "problems"),
            int(&t, r, "solved"),
            int(&t, r, "broken"),
        );
        // Punctuation attacks have one variant per problem here, so stopping early saves
        // nothing on them; every numeric attack (many variants per problem) must save.
        if attack.starts_with("punct") {
            assert!(requests <= full_sel, "{attack}: {requests} > {full_sel}");
        } else {
            assert!(requests < full_sel, "{attack}: {requests} >= {full_sel}");
        }
        assert!(full_sel <= full_all, "{attack}");
        total = (total.0 + requests, total.1 + full_sel, total.2 + full_all);
    }
    eprintln!(
        "all attacks: requests {} full(selected) {} full(all) {}",
        total.0, total.1, total.2
    );
    assert!(total.0 < total.1, "{total:?}");
}

/// Two efficient runs written by hand (the metrics' Xie fixture as the protocol would answer
/// it), for tests/slt/efficient/xie_efficient.slt and the DuckDB parity test.
///
/// Run 1: target model-a from sim-c, `solved-originals`, top 2. sim-c's adversarial examples: p0/4, p2/0,
/// p2/4, so p2 (2) then p0 (1). p2: original right, v0 wrong: 2 rows, broken. p0: original
/// right, v4 right, exhausted: 2 rows. Problems 2, solved 2, broken 1, ASR 0.5, requests 4 (4
/// per broken); full attack on p2 and p0: 2 + 10 = 12, on all four problems: 4 + 20 = 24.
///
/// Run 2: same pair, `wrong-variants`, top 1, `--per-problem 1`: every wrong variant of sim-c ranks p3
/// (5) first; its first candidate v0 is answered right. Problems 1, solved 1, broken 0, ASR 0,
/// requests 1 (per broken: undefined); full attack 5 on p3, 20 on all (no originals).
pub fn write_table5_fixture(tables: &Path) {
    use advmath::store::efficient_responses::efficient_batch;
    use advmath::store::efficient_responses::EfficientRow;
    let row = |protocol: &str,
               top: i32,
               cap: Option<i32>,
               p: usize,
               rank: i32,
               step: i32,
               variant: Option<usize>,
               cands: i32,
               right: bool| {
        let item = toy_item(p, variant);
        let text = if right {
            "the answer is 1"
        } else {
            "the answer is 2"
        };
        EfficientRow {
            row: ResponseRow::scored(
                format!("{protocol}-{p}-{step}"),
                "model-a",
                "xie2024",
                &item,
                text.into(),
                "endpoint",
            ),
            cheap_model: "sim-c".into(),
            efficient_protocol: protocol.into(),
            top_problems: top,
            per_problem: cap,
            plan_attack: "m3".into(),
            problem_rank: rank,
            step,
            candidates: cands,
            problem_variants: 5,
            attack_problems: 4,
            attack_variants: 20,
        }
    };
    let rows = vec![
        row("solved-originals", 2, None, 2, 1, 0, None, 2, true),
        row("solved-originals", 2, None, 2, 1, 1, Some(0), 2, false),
        row("solved-originals", 2, None, 0, 2, 0, None, 1, true),
        row("solved-originals", 2, None, 0, 2, 1, Some(4), 1, true),
        row("wrong-variants", 1, Some(1), 3, 1, 1, Some(0), 1, true),
    ];
    advmath::store::write_batch(
        &tables.join("efficient_responses/model-a/part-0.parquet"),
        &efficient_batch(&rows).unwrap(),
    )
    .unwrap();
    write_target_full_run(tables);
}

/// model-a's own full run on `toy` (1 = right; originals p0..p3, then variants 0..4): p0 wrong,
/// all its variants right; p1 wrong; p2 right, v1 wrong; p3 right, v0 wrong. Run 1 selected p2
/// and p0: 2 problems, 1 solved (p2), 1 with every variant right (p0), 1 solved and broken (p2):
/// Eq. 6 gives (1 - 1) / 1 = 0, the broken share 1 / 1. Run 2 selected p3: 1, 1, 0, 1: both 1.
/// A second run of model-a at another temperature answers everything wrong: the efficient runs,
/// made with the default settings, never read it.
fn write_target_full_run(tables: &Path) {
    for (run, originals, variants, part) in [
        ("default", "0011", ["11111", "11111", "10111", "01111"], 0),
        ("temperature=0.3", "0000", ["00000"; 4], 1),
    ] {
        let mut rows = Vec::new();
        for (p, (original, marks)) in originals.chars().zip(variants).enumerate() {
            let right = std::iter::once((None, original))
                .chain(marks.chars().enumerate().map(|(v, c)| (Some(v), c)));
            for (variant, flag) in right {
                let (attack, index) = variant.map_or(("original", 0), |v| ("m3", v));
                let item = toy_item(p, variant);
                let text = if flag == '1' {
                    "the answer is 1"
                } else {
                    "the answer is 2"
                };
                rows.push(
                    ResponseRow::scored(
                        format!("full-{run}-{p}-{attack}-{index}"),
                        "model-a",
                        "xie2024",
                        &item,
                        text.into(),
                        "endpoint",
                    )
                    .in_run(run),
                );
            }
        }
        advmath::store::write_batch(
            &tables.join(format!("responses/model-a/part-{part}.parquet")),
            &rows_to_batch(&rows).unwrap(),
        )
        .unwrap();
    }
}

/// Without an efficient run, `efficient_responses` is registered empty: Table 5 has no row and
/// no error. With the runs of [`write_table5_fixture`], its figures are checked by
/// `tests/slt/efficient/xie_efficient.slt`.
#[test]
fn metrics_xie_table5_is_empty_without_an_efficient_run() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    fixture(&tables);
    assert!(table5(&tables).is_empty());
    write_table5_fixture(&tables);
    assert_eq!(table5(&tables).len(), 2, "one row per run");
}
