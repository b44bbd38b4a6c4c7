//! The metrics on the hand-built fixtures (`fixtures.rs`): each metric's SQL, the report, the
//! CSV, Markdown and plot files of `advmath metrics`, and the statistics computed in Rust.

use std::path::Path;

use advmath::metrics::{self, Cell, ResultTable, SqlEngine, EMBEDDED_SQL};

use crate::fixtures::{
    fixture, full_fixture, table3_rows, write_responses, write_robustmath_release,
};

fn sql(name: &str) -> &'static str {
    EMBEDDED_SQL
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .1
}

fn metric(engine: &SqlEngine, name: &str) -> ResultTable {
    engine
        .query_table(sql(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The only row whose text columns have these values.
fn row(t: &ResultTable, keys: &[(&str, &str)]) -> usize {
    let found: Vec<usize> = (0..t.len())
        .filter(|&r| {
            keys.iter()
                .all(|(c, v)| t.get(r, c).and_then(Cell::as_str) == Some(*v))
        })
        .collect();
    assert_eq!(found.len(), 1, "rows matching {keys:?} in {t:?}");
    found[0]
}

fn num(t: &ResultTable, r: usize, column: &str) -> f64 {
    t.get(r, column)
        .and_then(Cell::as_f64)
        .unwrap_or_else(|| panic!("{column} of row {r} is {:?}", t.get(r, column)))
}

fn assert_close(t: &ResultTable, r: usize, column: &str, expected: f64) {
    let got = num(t, r, column);
    assert!(
        (got - expected).abs() < 1e-12,
        "{column} of row {r}: expected {expected}, got {got} ({:?})",
        t.rows[r]
    );
}

fn toy(model: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("model", model),
        ("template", "xie2024"),
        ("dataset", "toy"),
        ("attack", "m3"),
    ]
}

#[test]
fn metrics_xie_table1_oa_aa_asr() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "xie_asr");
    // Eq. 3-5 as in attack/eval.py: OA over the graded originals, AA over the problems with a
    // graded variant, a problem counting for AA when all its variants are right (original or not).
    // model-a: originals 1110 -> OA 3/4. All five variants right: p0 (11111) and p3 (11111, its
    // original wrong) -> AA 2/4. ASR = (3/4 - 1/2) / (3/4) = 1/3.
    let a = row(&t, &toy("model-a"));
    assert_eq!(num(&t, a, "original_problems"), 4.0);
    assert_eq!(num(&t, a, "problems"), 4.0);
    assert_eq!(
        num(&t, a, "variants"),
        20.0,
        "the ungraded sixth variant is ignored"
    );
    assert_eq!(num(&t, a, "attack_correct"), 2.0);
    assert_close(&t, a, "oa", 0.75);
    assert_close(&t, a, "aa", 0.5);
    assert_close(&t, a, "asr", 1.0 / 3.0);
    // The stricter figure, not the paper's: original and every variant right: p0 only -> 1/4;
    // solved p0 p1 p2, broken p1 p2 -> broken_share 2/3.
    assert_eq!(num(&t, a, "robust_correct"), 1.0);
    assert_close(&t, a, "robust_share", 0.25);
    assert_close(&t, a, "broken_share", 2.0 / 3.0);
    // model-b: OA 3/4 (1101); all variants right on p0 and p3 -> AA 1/2; ASR 1/3. Strict: p0 and
    // p3 (both originals right) -> 1/2; broken p1 of the solved p0 p1 p3 -> 1/3.
    let b = row(&t, &toy("model-b"));
    assert_close(&t, b, "oa", 0.75);
    assert_close(&t, b, "aa", 0.5);
    assert_close(&t, b, "asr", 1.0 / 3.0);
    assert_close(&t, b, "robust_share", 0.5);
    assert_close(&t, b, "broken_share", 1.0 / 3.0);
    // sim-c: OA 2/4 (1010); every problem has a wrong variant (p0 index 4, p1 1 and 3, p2 0 and
    // 4, p3 all) -> AA 0, ASR 1.
    let c = row(&t, &toy("sim-c"));
    assert_close(&t, c, "oa", 0.5);
    assert_close(&t, c, "aa", 0.0);
    assert_close(&t, c, "asr", 1.0);
    // ArithmAttack's punctuation attacks are attacks too. Qwen: clean 1110 -> OA 3/4; punct10
    // 1101 -> AA 3/4 -> ASR 0 (p2 broken, p3 fixed: the paper's AA does not pair them); punct30
    // 1000 -> AA 1/4 -> ASR 2/3.
    let q = row(
        &t,
        &[("model", "Qwen2.5-1.5B-Instruct"), ("attack", "punct10")],
    );
    assert_close(&t, q, "asr", 0.0);
    assert_close(&t, q, "broken_share", 1.0 / 3.0);
    let q30 = row(
        &t,
        &[("model", "Qwen2.5-1.5B-Instruct"), ("attack", "punct30")],
    );
    assert_close(&t, q30, "asr", 2.0 / 3.0);
    // sim-noise solves no clean question: ASR undefined (NULL); punct10 1000 -> AA 1/4.
    let s = row(&t, &[("model", "sim-noise"), ("attack", "punct30")]);
    assert_eq!(t.get(s, "asr"), Some(&Cell::Null));
    assert_eq!(t.get(s, "broken_share"), Some(&Cell::Null));
    assert_close(&t, s, "oa", 0.0);
    let s10 = row(&t, &[("model", "sim-noise"), ("attack", "punct10")]);
    assert_close(&t, s10, "aa", 0.25);
    // 3 Xie models + 2 ArithmAttack models x 3 levels; the outside row adds no group.
    assert_eq!(t.len(), 3 + 2 * 3);
}

#[test]
fn metrics_xie_table2_incorrect_share_and_histogram() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "xie_incorrect_share");
    // model-a: solved p0 p1 p2 with 0, 1, 1 wrong of 5 -> mean (0 + .2 + .2) / 3 = 2/15; over all
    // four problems (p3: 0 wrong) 0.4 / 4 = 0.1; pooled 2 / 15.
    let a = row(&t, &toy("model-a"));
    assert_close(&t, a, "mean_incorrect_share", 0.4 / 3.0);
    assert_close(&t, a, "mean_incorrect_share_all", 0.1);
    assert_close(&t, a, "pooled_incorrect_share", 2.0 / 15.0);
    assert_eq!(num(&t, a, "adversarial_examples"), 2.0);
    // model-b: solved p0 p1 p3 -> (0 + .2 + 0) / 3; all: p2 is 5/5 wrong -> (0 + .2 + 1 + 0) / 4.
    let b = row(&t, &toy("model-b"));
    assert_close(&t, b, "mean_incorrect_share", 0.2 / 3.0);
    assert_close(&t, b, "mean_incorrect_share_all", 0.3);
    // sim-c: solved p0 (1/5) p2 (2/5) -> 0.3; all: + p1 2/5, p3 5/5 -> (.2 + .4 + .4 + 1) / 4.
    let c = row(&t, &toy("sim-c"));
    assert_close(&t, c, "mean_incorrect_share", 0.3);
    assert_close(&t, c, "mean_incorrect_share_all", 0.5);
    // sim-noise solves nothing: the mean over solved problems is undefined.
    let s = row(&t, &[("model", "sim-noise"), ("attack", "punct10")]);
    assert_eq!(t.get(s, "mean_incorrect_share"), Some(&Cell::Null));

    let h = metric(&engine, "xie_incorrect_share_hist");
    let bins = |model: &'static str| -> Vec<i64> {
        (0..h.len())
            .filter(|&r| {
                toy(model)
                    .iter()
                    .all(|(c, v)| h.get(r, c).and_then(Cell::as_str) == Some(*v))
            })
            .map(|r| h.get(r, "problems").and_then(Cell::as_i64).unwrap())
            .collect()
    };
    // Ten bins of width 0.1; a share of 0.2 falls in bin 2 ([0.2, 0.3)), 0.4 in bin 4.
    assert_eq!(bins("model-a"), vec![1, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(bins("model-b"), vec![2, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(bins("sim-c"), vec![0, 0, 1, 0, 1, 0, 0, 0, 0, 0]);
    let a2 = (0..h.len())
        .find(|&r| {
            h.get(r, "model").and_then(Cell::as_str) == Some("model-a")
                && h.get(r, "bin").and_then(Cell::as_i64) == Some(2)
        })
        .unwrap();
    assert_close(&h, a2, "share_of_problems", 2.0 / 3.0);
    assert_close(&h, a2, "share_from", 0.2);
    assert_close(&h, a2, "share_to", 0.3);
}

#[test]
fn metrics_xie_table4_universal() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    // Variants answered wrongly, by model (originals do not matter), as sets of fooled models:
    // p0: v4 {c}; p1: v1 {c}, v2 {a, b}, v3 {c}; p2: v0 {a, b, c}, v1-v3 {b}, v4 {b, c};
    // p3: v0-v4 {c}. Four problems with graded variants: the denominator.
    // A set S counts a problem when one variant's set contains S:
    //   {a}: p1 p2 -> 2   {b}: p1 p2 -> 2   {c}: p0 p1 p2 p3 -> 4
    //   {a,b}: p1 p2 -> 2   {a,c}: p2 -> 1   {b,c}: p2 -> 1   {a,b,c}: p2 -> 1
    // Mean over the C(3, k) sets: k=1 (2+2+4)/(3*4) = 2/3, k=2 (2+1+1)/(3*4) = 1/3, k=3 1/4.
    // Prefix by name (a, b, c): {a} 2/4, {a,b} 2/4, {a,b,c} 1/4.
    // (k, added model, prefix share, subsets, mean, min, max)
    let by_name = [
        (1, "model-a", 0.5, 3, 2.0 / 3.0, 0.5, 1.0),
        (2, "model-b", 0.5, 3, 1.0 / 3.0, 0.25, 0.5),
        (3, "sim-c", 0.25, 1, 0.25, 0.25, 0.25),
    ];
    // Prefix in the order sim-c, model-b, model-a: {c} 4/4, {c,b} 1/4, {c,b,a} 1/4; the subset
    // figures do not depend on the order.
    let given = [
        (1, "sim-c", 1.0, 3, 2.0 / 3.0, 0.5, 1.0),
        (2, "model-b", 0.25, 3, 1.0 / 3.0, 0.25, 0.5),
        (3, "model-a", 0.25, 1, 0.25, 0.25, 0.25),
    ];
    for (order, expected) in [(vec![], by_name), (vec!["sim-c", "model-b"], given)] {
        let order: Vec<String> = order.into_iter().map(String::from).collect();
        engine.set_model_order(&order).unwrap();
        let t = metric(&engine, "xie_universal");
        let toy_rows: Vec<usize> = (0..t.len())
            .filter(|&r| t.get(r, "dataset").and_then(Cell::as_str) == Some("toy"))
            .collect();
        assert_eq!(toy_rows.len(), 3, "k = 1 .. 3");
        for (r, (k, added, prefix, subsets, mean, min, max)) in toy_rows.into_iter().zip(expected) {
            assert_eq!(num(&t, r, "k"), k as f64);
            assert_eq!(num(&t, r, "models"), 3.0);
            assert_eq!(num(&t, r, "problems"), 4.0);
            assert_eq!(t.get(r, "added_model").and_then(Cell::as_str), Some(added));
            assert_close(&t, r, "prefix_share", prefix);
            assert_eq!(
                num(&t, r, "prefix_universal"),
                prefix * 4.0,
                "{order:?} k = {k}"
            );
            assert_eq!(num(&t, r, "subsets"), subsets as f64);
            assert_close(&t, r, "subset_mean_share", mean);
            assert_close(&t, r, "subset_min_share", min);
            assert_close(&t, r, "subset_max_share", max);
        }
    }
    // ArithmAttack punct50: Qwen 0000 and sim-noise 0100 on one variant each: fooled sets p0 {Q, s},
    // p1 {Q}, p2 {Q, s}, p3 {Q, s}. k=1: {Q} 4/4, {s} 3/4 -> mean 7/8; k=2: 3/4.
    let t = metric(&engine, "xie_universal");
    let p50 = |k: i64| {
        (0..t.len())
            .find(|&r| {
                t.get(r, "attack").and_then(Cell::as_str) == Some("punct50")
                    && t.get(r, "k").and_then(Cell::as_i64) == Some(k)
            })
            .unwrap()
    };
    assert_close(&t, p50(1), "subset_mean_share", 7.0 / 8.0);
    assert_close(&t, p50(2), "subset_mean_share", 0.75);
    assert_close(&t, p50(2), "prefix_share", 0.75);
    // A model order naming a model with no response, or one model twice, is a usage error.
    let err = engine
        .set_model_order(&["model-z".to_string()])
        .unwrap_err();
    assert!(
        err.to_string().contains("model `model-z` has no response"),
        "{err}"
    );
    assert_eq!(err.exit_code(), 2);
    let err = engine
        .set_model_order(&["sim-c".to_string(), "sim-c".to_string()])
        .unwrap_err();
    assert!(err.to_string().contains("listed twice"), "{err}");
}

#[test]
fn metrics_xie_table3_rephrasing_from_ingested_robustmath() {
    let dir = tempfile::tempdir().unwrap();
    let release = dir.path().join("robustmath");
    write_robustmath_release(&release);
    let tables = dir.path().join("tables");
    let summary = advmath::ingest::ingest_robustmath(&release, &tables).unwrap();
    assert_eq!(
        (summary.originals, summary.rephrased, summary.paired),
        (3, 5, 4)
    );
    assert_eq!(summary.originals_paired, 3);
    assert_eq!(summary.unpaired.len(), 1);
    assert_eq!(summary.unpaired[0].index, 4);
    write_responses(&tables, &table3_rows());
    let engine = SqlEngine::open(&tables).unwrap();
    // The pairing written as variants: originals as attack `original`, each rephrasing a variant
    // of its original, numbered in file order.
    let v = engine
        .query_table(
            "SELECT attack, problem_id, variant_index, answer, question FROM variants \
             WHERE dataset = 'robustmath' ORDER BY attack, problem_id, variant_index",
        )
        .unwrap();
    let got: Vec<(String, String, i64, String)> = (0..v.len())
        .map(|r| {
            (
                v.get(r, "attack")
                    .and_then(Cell::as_str)
                    .unwrap()
                    .to_string(),
                v.get(r, "problem_id")
                    .and_then(Cell::as_str)
                    .unwrap()
                    .to_string(),
                v.get(r, "variant_index").and_then(Cell::as_i64).unwrap(),
                v.get(r, "answer")
                    .and_then(Cell::as_str)
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    let e = |a: &str, p: usize, i: i64, ans: &str| {
        (
            a.to_string(),
            format!("robustmath/test/{p}"),
            i,
            ans.to_string(),
        )
    };
    assert_eq!(
        got,
        vec![
            e("original", 0, 0, "5"),
            e("original", 1, 0, "10"),
            e("original", 2, 0, "5"),
            e("rephrase", 0, 0, "5"),
            e("rephrase", 0, 1, "5"),
            e("rephrase", 1, 0, "10"),
            e("rephrase", 2, 0, "5"),
        ]
    );
    assert!(v
        .get(4, "question")
        .and_then(Cell::as_str)
        .unwrap()
        .starts_with("tom owns"));

    let t = metric(&engine, "xie_rephrasing");
    // model-a. rephrase: OA 2/3, AA 1/3 (only p1 has every rephrasing right) -> ASR 1/2.
    // m3 gsm8k: OA 1, AA 1/2 -> ASR 1/2; multiarith: OA 1/2, AA 1 -> ASR -1 (the variants are
    // answered better than the originals). Mean over the datasets: ASR -1/4, AA 3/4.
    let a = row(&t, &[("model", "model-a")]);
    assert_close(&t, a, "rephrase_asr", 0.5);
    assert_close(&t, a, "rephrase_aa", 1.0 / 3.0);
    assert_eq!(num(&t, a, "rephrase_datasets"), 1.0);
    assert_close(&t, a, "m3_asr", -0.25);
    assert_close(&t, a, "m3_aa", 0.75);
    assert_eq!(num(&t, a, "m3_datasets"), 2.0);
    // model-b. rephrase: OA 1, AA 2/3 -> ASR 1/3. m3 gsm8k: OA 0 -> ASR undefined, left out of
    // the mean; multiarith: OA 1, AA 1/2 -> ASR 1/2.
    let b = row(&t, &[("model", "model-b")]);
    assert_close(&t, b, "rephrase_asr", 1.0 / 3.0);
    assert_close(&t, b, "m3_asr", 0.5);
    assert_eq!(num(&t, b, "m3_datasets"), 1.0);
    assert_close(&t, b, "m3_aa", 0.5);
    assert_eq!(t.len(), 2);
}

#[test]
fn metrics_xie_appendix_g_generations() {
    let (_dir, tables) = full_fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "xie_generations");
    // m1: attempts 100 + 100, valid 90 + 50, distinct 80 + 3, reached 1 of 2, emitted 5 + 0.
    let m1 = row(&t, &[("dataset", "toy"), ("attack", "m1")]);
    assert_eq!(num(&t, m1, "problems"), 2.0);
    assert_close(&t, m1, "mean_attempts", 100.0);
    assert_close(&t, m1, "mean_valid", 70.0);
    assert_close(&t, m1, "mean_unique_valid", 41.5);
    assert_eq!(num(&t, m1, "min_unique_valid"), 3.0);
    assert_eq!(num(&t, m1, "max_unique_valid"), 80.0);
    assert_eq!(num(&t, m1, "reached_target"), 1.0);
    assert_close(&t, m1, "reached_share", 0.5);
    assert_close(&t, m1, "mean_emitted", 2.5);
    // m3: valid 40 + 20, distinct 10 + 6, both reached.
    let m3 = row(&t, &[("dataset", "toy"), ("attack", "m3")]);
    assert_close(&t, m3, "mean_valid", 30.0);
    assert_close(&t, m3, "mean_unique_valid", 8.0);
    assert_close(&t, m3, "reached_share", 1.0);
    assert_eq!(t.len(), 2);
}

#[test]
fn metrics_xie_figure3_transferability() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "xie_transfer");
    let pair = |a: &'static str, b: &'static str| {
        row(&t, &[("dataset", "toy"), ("model_a", a), ("model_b", b)])
    };
    // Wrong variants, whether or not the original is solved (the authors' pairwise universal
    // attacks): model-a p1{2} p2{0}; model-b p1{2} p2{0..4}; sim-c p0{4} p1{1,3} p2{0,4}
    // p3{0..4}. Every pair was asked all 4 problems.
    // (a, b, problems with a variant both get wrong)
    let expected = [
        ("model-a", "model-a", 2), // p1, p2
        ("model-a", "model-b", 2), // p1/2, p2/0
        ("model-a", "sim-c", 1),   // p2/0 (p1: a misses 2, c misses 1 and 3)
        ("model-b", "model-b", 2), // p1, p2
        ("model-b", "sim-c", 1),   // p2/0 and p2/4
        ("sim-c", "sim-c", 4),     // every problem
    ];
    for (a, b, shared) in expected {
        for (x, y) in [(a, b), (b, a)] {
            let r = pair(x, y);
            assert_eq!(num(&t, r, "problems"), 4.0, "{x} x {y}");
            assert_eq!(num(&t, r, "shared_problems"), shared as f64, "{x} x {y}");
            assert_close(&t, r, "transfer_share", shared as f64 / 4.0);
        }
    }
    // ArithmAttack fixture, punct10: Qwen misses p2, sim-noise misses p1, p2, p3: one shared
    // problem of four, although sim-noise solves no clean question.
    let r = row(
        &t,
        &[
            ("attack", "punct10"),
            ("model_a", "sim-noise"),
            ("model_b", "Qwen2.5-1.5B-Instruct"),
        ],
    );
    assert_eq!(num(&t, r, "shared_problems"), 1.0);
    assert_close(&t, r, "transfer_share", 0.25);
}

#[test]
fn metrics_xie_figure7_attack_curve() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "xie_attack_curve");
    let aa = |model: &'static str| -> Vec<f64> {
        (0..t.len())
            .filter(|&r| {
                toy(model)
                    .iter()
                    .all(|(c, v)| t.get(r, c).and_then(Cell::as_str) == Some(*v))
            })
            .map(|r| num(&t, r, "aa"))
            .collect()
    };
    // First wrong variant index per problem (the original is not required, as for Table 1's AA)
    // -- model-a: p0 none, p1 2, p2 0, p3 none; with the first k variants a problem counts while
    // k <= its first wrong index: k=1,2: p0 p1 p3; k>=3: p0 p3. Over 4 problems.
    assert_eq!(aa("model-a"), vec![0.75, 0.75, 0.5, 0.5, 0.5]);
    // model-b: p0 none, p1 2, p2 0, p3 none -> the same.
    assert_eq!(aa("model-b"), vec![0.75, 0.75, 0.5, 0.5, 0.5]);
    // sim-c: p0 4, p1 1, p2 0, p3 0 -> k=1: p0 p1; k=2..4: p0; k=5: none.
    assert_eq!(aa("sim-c"), vec![0.5, 0.25, 0.25, 0.25, 0.0]);
    // At k = m the curve is Table 1, and ASR(k) = (OA - AA(k)) / OA.
    let at = |model: &'static str, k: i64| {
        (0..t.len())
            .find(|&r| {
                t.get(r, "model").and_then(Cell::as_str) == Some(model)
                    && t.get(r, "dataset").and_then(Cell::as_str) == Some("toy")
                    && t.get(r, "k").and_then(Cell::as_i64) == Some(k)
            })
            .unwrap()
    };
    assert_close(&t, at("sim-c", 5), "asr", 1.0);
    assert_close(&t, at("sim-c", 2), "asr", (0.5 - 0.25) / 0.5);
    assert_close(&t, at("model-a", 1), "asr", 0.0);
    assert_close(&t, at("model-a", 5), "asr", 1.0 / 3.0);
    let asr = metric(&engine, "xie_asr");
    assert_close(
        &t,
        at("model-a", 5),
        "aa",
        num(&asr, row(&asr, &toy("model-a")), "aa"),
    );
}

#[test]
fn metrics_bootstrap_intervals_and_mcnemar() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "bootstrap_ci");
    // Outcomes per problem: model-a robust p0, broken p1 p2, fixed p3 (original wrong, every
    // variant right); model-b robust p0 p3, broken p1, both wrong p2; sim-c broken p0 p2, both
    // wrong p1 p3. AA = (robust + fixed) / 4, ASR = (broken - fixed) / (robust + broken): Table 1.
    for (model, robust, broken, fixed, both_wrong, aa, asr) in [
        ("model-a", 1, 2, 1, 0, 0.5, 1.0 / 3.0),
        ("model-b", 2, 1, 0, 1, 0.5, 1.0 / 3.0),
        ("sim-c", 0, 2, 0, 2, 0.0, 1.0),
    ] {
        let r = row(&t, &toy(model));
        assert_eq!(num(&t, r, "robust"), robust as f64, "{model}");
        assert_eq!(num(&t, r, "broken"), broken as f64, "{model}");
        assert_eq!(num(&t, r, "fixed"), fixed as f64, "{model}");
        assert_eq!(num(&t, r, "both_wrong"), both_wrong as f64, "{model}");
        assert_close(&t, r, "aa", aa);
        assert_close(&t, r, "asr", asr);
    }
    // The intervals (Rust, seeded): they bracket the estimate and are reproducible.
    let dir = tempfile::tempdir().unwrap();
    let summary = metrics::run_metrics(&tables, dir.path()).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("bootstrap_ci.csv")).unwrap();
    let again = tempfile::tempdir().unwrap();
    metrics::run_metrics(&tables, again.path()).unwrap();
    assert_eq!(
        csv,
        std::fs::read_to_string(again.path().join("bootstrap_ci.csv")).unwrap(),
        "deterministic bootstrap"
    );
    assert!(summary.metrics.iter().any(|m| m.name == "bootstrap_ci"));
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let val = |name: &str| f[col(name)].parse::<f64>().ok();
        let (aa, lo, hi) = (
            val("aa").unwrap(),
            val("aa_low").unwrap(),
            val("aa_high").unwrap(),
        );
        assert!(lo <= aa && aa <= hi, "{line}");
        if f[col("model")] == "sim-c" && f[col("attack")] == "m3" {
            // Every resample has AA 0 and (when defined) ASR 1.
            assert_eq!((lo, hi), (0.0, 0.0));
            assert_eq!((val("asr_low"), val("asr_high")), (Some(1.0), Some(1.0)));
            assert_eq!(f[col("simulated")], "true");
        }
        if f[col("model")] == "sim-noise" {
            // No solved original: ASR and its interval are empty.
            assert_eq!(f[col("asr")], "");
            assert_eq!(f[col("asr_low")], "");
        }
    }

    let m = metric(&engine, "mcnemar");
    // Pairs (clean, every variant right): model-a p0 (1,1) p1 (1,0) p2 (1,0) p3 (0,1) ->
    // clean_only 2, attacked_only 1, p = 2 * P(Bin(3, .5) <= 1) = 2 * 4/8 = 1.
    // model-b: (1,1) (1,0) (0,0) (1,1) -> 1, 0, p = 2 * 1/2 = 1.
    // sim-c: (1,0) (0,0) (1,0) (0,0) -> 2, 0, p = 2 * 1/4 = 0.5.
    for (model, b, c, clean, attacked, p) in [
        ("model-a", 2, 1, 0.75, 0.5, 1.0),
        ("model-b", 1, 0, 0.75, 0.5, 1.0),
        ("sim-c", 2, 0, 0.5, 0.0, 0.5),
    ] {
        let r = row(&m, &toy(model));
        assert_eq!(num(&m, r, "clean_only"), b as f64, "{model}");
        assert_eq!(num(&m, r, "attacked_only"), c as f64, "{model}");
        assert_close(&m, r, "clean_accuracy", clean);
        assert_close(&m, r, "attacked_accuracy", attacked);
        assert!(
            (metrics::mcnemar_exact_p(b, c) - p).abs() < 1e-12,
            "{model}"
        );
    }
    let mcsv = std::fs::read_to_string(dir.path().join("mcnemar.csv")).unwrap();
    assert!(
        mcsv.lines().next().unwrap().ends_with("p_value,simulated"),
        "{mcsv}"
    );
    // Qwen punct50: clean 1110 vs noisy 0000 -> clean_only 3, attacked_only 0, p = 2/8.
    let q = row(
        &m,
        &[("model", "Qwen2.5-1.5B-Instruct"), ("attack", "punct50")],
    );
    assert_eq!(num(&m, q, "clean_only"), 3.0);
    assert!((metrics::mcnemar_exact_p(3, 0) - 0.25).abs() < 1e-12);
}

#[test]
fn metrics_arithmattack_accuracy_asr_and_paper_table() {
    let (dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let t = metric(&engine, "arithmattack_accuracy");
    let acc = |model: &'static str| -> Vec<(f64, f64)> {
        (0..t.len())
            .filter(|&r| t.get(r, "model").and_then(Cell::as_str) == Some(model))
            .map(|r| (num(&t, r, "noise_level"), num(&t, r, "accuracy")))
            .collect()
    };
    // Qwen: clean 1110, noise 10 1101, 30 1000, 50 0000.
    assert_eq!(
        acc("Qwen2.5-1.5B-Instruct"),
        vec![(0.0, 0.75), (10.0, 0.75), (30.0, 0.25), (50.0, 0.0)]
    );
    assert_eq!(
        acc("sim-noise"),
        vec![(0.0, 0.0), (10.0, 0.25), (30.0, 0.0), (50.0, 0.25)]
    );
    // Xie's toy dataset has originals but no punctuation level: level 0 only.
    assert_eq!(acc("model-a"), vec![(0.0, 0.75)]);

    let a = metric(&engine, "arithmattack_asr");
    // Qwen, clean-correct p0 p1 p2: noise 10 flips p2 (1/3) and fixes p3; 30 flips p1 p2 (2/3);
    // 50 flips all three (1). Mean over the levels: (1/3 + 2/3 + 1) / 3 = 2/3.
    let q = |level: i64| {
        (0..a.len())
            .find(|&r| {
                a.get(r, "model").and_then(Cell::as_str) == Some("Qwen2.5-1.5B-Instruct")
                    && a.get(r, "noise_level").and_then(Cell::as_i64) == Some(level)
            })
            .unwrap()
    };
    assert_close(&a, q(10), "asr", 1.0 / 3.0);
    assert_eq!(num(&a, q(10), "fixed"), 1.0);
    assert_close(&a, q(30), "asr", 2.0 / 3.0);
    assert_close(&a, q(50), "asr", 1.0);
    assert_close(&a, q(50), "asr_mean", 2.0 / 3.0);
    // sim-noise solves no clean question: ASR undefined at every level and on average.
    let noise_rows: Vec<usize> = (0..a.len())
        .filter(|&r| a.get(r, "model").and_then(Cell::as_str) == Some("sim-noise"))
        .collect();
    assert_eq!(noise_rows.len(), 3);
    for r in noise_rows {
        assert_eq!(a.get(r, "asr"), Some(&Cell::Null));
        assert_eq!(a.get(r, "asr_mean"), Some(&Cell::Null));
    }

    // The report puts the paper's figures next to advmath's for the published model present.
    let out = dir.path().join("metrics");
    metrics::run_metrics(&tables, &out).unwrap();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("paper and advmath side by side"),
        "{report}"
    );
    assert!(
        report.contains(
            "| gsm8k | Qwen2.5-1.5B-Instruct | paper | 61.10 | 56.02 | 52.69 | 49.35 | 31.59 |"
        ),
        "{report}"
    );
    assert!(
        report.contains("| gsm8k | Qwen2.5-1.5B-Instruct (arithmattack) | advmath | 75.00 | 75.00 | 25.00 | 0.00 | 66.67 |"),
        "{report}"
    );
    assert!(out
        .join("plots/arithmattack_accuracy__arithmattack__gsm8k.svg")
        .is_file());
    let published = metrics::arithmattack_published();
    assert!(published.iter().any(|(d, m, acc, asr)| *d == "multiarith"
        && *m == "zephyr-7b-beta"
        && acc[0] == 37.22
        && *asr == 77.10));
}

#[test]
fn metrics_run_writes_csv_markdown_plots_and_report() {
    let (dir, tables) = fixture();
    let out = dir.path().join("metrics");
    let summary = metrics::run_metrics(&tables, &out).unwrap();
    assert_eq!(summary.tables, vec!["responses".to_string()]);
    // Appendix G reads generation_stats, which this fixture lacks: skipped and said so.
    assert_eq!(summary.metrics.len(), EMBEDDED_SQL.len() - 1);
    assert_eq!(
        summary.skipped,
        vec![(
            "xie_generations".to_string(),
            "needs table `generation_stats` (missing or empty)".to_string()
        )]
    );
    assert!(!out.join("xie_generations.csv").exists());
    assert_eq!(
        summary.simulated_models,
        vec!["sim-c".to_string(), "sim-noise".to_string()],
        "sim-c by its flag and name, sim-noise by its name"
    );
    for m in &summary.metrics {
        assert!(m.csv.is_file() && m.markdown.is_file(), "{}", m.name);
        let md = std::fs::read_to_string(&m.markdown).unwrap();
        assert!(md.starts_with(&format!("# {}", m.title)), "{md}");
        let csv = std::fs::read_to_string(&m.csv).unwrap();
        assert_eq!(csv.lines().count(), m.rows + 1, "{}", m.name);
        // Tables that name models flag the simulated ones in the CSV and mark them in Markdown.
        let header = csv.lines().next().unwrap();
        let names_models = header
            .split(',')
            .any(|c| metrics::MODEL_COLUMNS.contains(&c));
        assert_eq!(
            names_models,
            header.contains("simulated"),
            "{}: {header}",
            m.name
        );
        if md.contains("sim-c") {
            assert!(md.contains("sim-c *(simulated)*"), "{}", m.name);
            assert!(!md.contains("| sim-c |"), "{}", m.name);
        }
    }
    // The model with no solved original has an empty ASR cell.
    let asr = std::fs::read_to_string(out.join("xie_asr.csv")).unwrap();
    let line = asr
        .lines()
        .find(|l| l.starts_with("sim-noise,arithmattack,gsm8k,punct10,"))
        .unwrap();
    assert_eq!(
        line,
        "sim-noise,arithmattack,gsm8k,punct10,4,0,4,4,1,0,0.25,,4,0,0,,true"
    );
    let report = std::fs::read_to_string(&summary.report).unwrap();
    for (name, _) in EMBEDDED_SQL {
        if *name == "xie_generations" {
            assert!(
                report.contains("* `xie_generations` — not run: it needs table `generation_stats`"),
                "{report}"
            );
        } else {
            assert!(report.contains(&format!("<a id=\"{name}\"></a>")), "{name}");
        }
    }
    for plot in &summary.plots {
        let svg = std::fs::read_to_string(plot).unwrap();
        assert!(
            svg.starts_with("<svg") || svg.contains("<svg"),
            "{}",
            plot.display()
        );
        let rel = plot.strip_prefix(&out).unwrap().display().to_string();
        assert!(
            report.contains(&format!("]({rel})")),
            "{rel} linked from the report"
        );
    }
    assert!(out
        .join("plots/xie_attack_curve__xie2024__toy__m3.svg")
        .is_file());
    assert!(out
        .join("plots/xie_transfer__xie2024__toy__m3.svg")
        .is_file());
    // ArithmAttack Figure 3: one bar per model, its ASR averaged over the noise levels.
    let bars = std::fs::read_to_string(out.join("plots/arithmattack_asr__arithmattack__gsm8k.svg"))
        .unwrap();
    assert!(
        bars.contains("Qwen2.5-1.5B-Instruct") && bars.contains("0.67"),
        "{bars}"
    );
    assert!(
        bars.contains("sim-noise (simulated)") && bars.contains("n/a"),
        "{bars}"
    );
    assert!(report.contains("sim-c *(simulated)*"));

    // The same metrics from a folder of SQL files.
    let mut config = metrics::MetricsConfig::new(&tables, dir.path().join("from-dir"));
    config.sql_dir = Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("sql"));
    let again = metrics::run_metrics_with(&config).unwrap();
    assert_eq!(
        std::fs::read_to_string(again.metrics[0].csv.clone()).unwrap(),
        std::fs::read_to_string(&summary.metrics[0].csv).unwrap()
    );
}
