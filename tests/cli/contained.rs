//! No row stops a run: a panic planted in one problem (the test-only `ADVMATH_PANIC_IN` hook) is
//! that problem's failure, every other problem is written as without it, and the stage exits 1
//! naming it; and every GSM8K line that holds text outside ASCII goes through ingest and
//! generation.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::server::{spawn_with, Reply};
use crate::util::{
    advmath, ingest, shared_data, small_tables, sql_csv, stderr_of, SMALL_GENERATION,
};

/// Rows per problem of every attack partition, as `problem_id,attack,count` lines.
fn rows_per_problem(tables: &Path) -> BTreeMap<String, String> {
    sql_csv(
        tables,
        "SELECT problem_id, attack, count(*) AS n FROM variants GROUP BY problem_id, attack \
         ORDER BY problem_id, attack",
    )
    .lines()
    .skip(1)
    .map(|l| {
        let (key, n) = l.rsplit_once(',').unwrap();
        (key.to_string(), n.to_string())
    })
    .collect()
}

fn generate(tables: &Path, planted: Option<&str>) -> assert_cmd::assert::Assert {
    let mut cmd = advmath();
    cmd.arg("generate")
        .args(SMALL_GENERATION)
        .arg("--tables")
        .arg(tables);
    if let Some(p) = planted {
        cmd.env("ADVMATH_PANIC_IN", p);
    }
    cmd.assert()
}

/// The same generation with and without a panic planted in one problem, at the attack (in the
/// parallel part) or at rendering (in the writer): the other problems' rows are identical, the
/// failed one has none, its `generation_stats` rows carry the reason, and the exit code is 1.
#[test]
fn a_panic_in_one_problem_leaves_every_other_problem_written_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    ingest(&clean, &[]).success();
    generate(&clean, None).success();
    let expected = rows_per_problem(&clean);
    let victim = "default/test/3";
    assert!(
        expected
            .keys()
            .any(|k| k.starts_with(&format!("{victim},"))),
        "{victim} has variants without the plant"
    );
    for stage in ["generate", "render"] {
        let tables = dir.path().join(stage);
        ingest(&tables, &[]).success();
        let out = generate(&tables, Some(&format!("{stage}:{victim}"))).code(1);
        let err = stderr_of(&out);
        assert!(
            err.contains(&format!(
                "{victim} (internal error (a bug in advmath): planted panic"
            )),
            "{stage}: the exit names the problem and the reason: {err}"
        );
        assert!(
            !err.contains("panicked at"),
            "{stage}: no Rust panic notice: {err}"
        );
        let got = rows_per_problem(&tables);
        let others: BTreeMap<String, String> = expected
            .iter()
            .filter(|(k, _)| !k.starts_with(&format!("{victim},")))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(
            got, others,
            "{stage}: every other problem's rows, and none of its"
        );
        let stats = sql_csv(
            &tables,
            &format!(
                "SELECT attack, attempts, emitted, failure FROM generation_stats \
                 WHERE problem_id = '{victim}' ORDER BY attack"
            ),
        );
        let lines: Vec<&str> = stats.lines().skip(1).collect();
        assert!(!lines.is_empty(), "{stage}: {stats}");
        for l in lines {
            assert!(
                l.contains(",0,0,") && l.contains("planted panic in"),
                "{stage}: {l}"
            );
        }
        let failures = sql_csv(
            &tables,
            "SELECT count(*) AS n FROM generation_stats WHERE failure IS NOT NULL \
             AND problem_id <> 'default/test/3'",
        );
        assert_eq!(failures.lines().nth(1), Some("0"), "{stage}");
    }
}

/// A row whose validation panics is refused as `internal_error` naming its file and row; the
/// other rows are validated as without it, and ingest exits 1.
#[test]
fn a_panic_in_one_row_of_ingest_refuses_that_row_alone() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    ingest(&clean, &[]).success();
    let planted = dir.path().join("planted");
    let out = advmath()
        .env("ADVMATH_PANIC_IN", "ingest:5")
        .args(["ingest", "--tables"])
        .arg(&planted)
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(
        err.contains("default/test/5") && err.contains("planted panic in ingest:5"),
        "{err}"
    );
    let query = "SELECT problem_id, error_kind, program_origin FROM problems ORDER BY source_index";
    let before = sql_csv(&clean, query);
    let after = sql_csv(&planted, query);
    let differ: Vec<(&str, &str)> = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(differ.len(), 1, "{differ:?}");
    assert!(
        differ[0].1.starts_with("default/test/5,internal_error,"),
        "{differ:?}"
    );
}

/// A variant whose features panic is skipped, every other variant's features are written, and
/// `features` exits 1 naming it.
#[test]
fn a_panic_in_one_variants_features_skips_it_and_writes_the_rest() {
    let (_dir, tables) = small_tables();
    let victim = "default/test/3/m1/0";
    let out = advmath()
        .env("ADVMATH_PANIC_IN", format!("features:{victim}"))
        .args(["features", "--set", "advmath,xie2024", "--tables"])
        .arg(&tables)
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!(
            "{victim} (internal error (a bug in advmath): planted panic"
        )),
        "{err}"
    );
    let count = |query: &str| sql_csv(&tables, query).lines().nth(1).unwrap().to_string();
    let variants = count("SELECT count(*) AS n FROM variants");
    assert_eq!(
        count("SELECT count(*) AS n FROM features"),
        (variants.parse::<usize>().unwrap() - 1).to_string(),
        "every variant's features but the failed one's"
    );
    assert_eq!(
        count(&format!(
            "SELECT count(*) AS n FROM features WHERE variant_id = '{victim}'"
        )),
        "0"
    );
    // The other set is computed too, before the failure is reported.
    let xie_rows: usize = crate::util::walk(&tables.join("features_xie2024"))
        .iter()
        .flat_map(|f| advmath::store::read_batches(f).unwrap())
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(xie_rows, variants.parse::<usize>().unwrap() - 1);
}

/// A reply whose grading panics is kept, ungraded under the rule `internal_error`; every other
/// reply is graded, and `respond` exits 1 naming the failed one.
#[test]
fn a_panic_while_grading_one_reply_keeps_it_ungraded_and_grades_the_rest() {
    let (_dir, tables) = small_tables();
    let server = spawn_with(
        |n, _| {
            Reply::Text(if n == 2 {
                "So the answer is 7 apples."
            } else {
                "So the answer is 12."
            })
        },
        std::time::Duration::ZERO,
    );
    let out = advmath()
        .env("ADVMATH_PANIC_IN", "grade:So the answer is 7 apples.")
        .args([
            "respond",
            "--model",
            "graded",
            "--limit",
            "6",
            "--concurrency",
            "1",
        ])
        .args(["--endpoint", &format!("http://127.0.0.1:{}", server.port)])
        .arg("--tables")
        .arg(&tables)
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(
        err.contains("respond: 1 reply failed with an internal error"),
        "{err}"
    );
    let rows = sql_csv(
        &tables,
        "SELECT extraction_rule, correct IS NULL AS ungraded, response FROM responses \
         WHERE model = 'graded' ORDER BY extraction_rule",
    );
    let lines: Vec<&str> = rows.lines().skip(1).collect();
    assert_eq!(lines.len(), 6, "{rows}");
    let failed: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("internal_error,"))
        .collect();
    assert_eq!(failed.len(), 1, "{rows}");
    assert!(
        failed[0].starts_with("internal_error,true,So the answer is 7"),
        "{rows}"
    );
    assert!(
        lines
            .iter()
            .filter(|l| !l.starts_with("internal_error,"))
            .all(|l| l.contains(",false,")),
        "the other replies are graded: {rows}"
    );
}

/// Every GSM8K line (train and test) whose question or solution holds a character outside
/// ASCII: ingest and `generate --attack m1,m2,m3,punct` exit 0, and train line 7421 (0-based),
/// which opens with a Cyrillic "А", has variants of every attack.
#[test]
fn every_gsm8k_line_outside_ascii_goes_through_ingest_and_generation() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    let mut lines = 0;
    for split in ["train", "test"] {
        let text = fs::read_to_string(data.join(format!("gsm8k/{split}.jsonl"))).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| {
                let row: serde_json::Value = serde_json::from_str(l).unwrap();
                ["question", "answer"]
                    .iter()
                    .any(|k| !row[k].as_str().unwrap().is_ascii())
            })
            .collect();
        lines += kept.len();
        let path = dir.path().join(format!("{split}.jsonl"));
        fs::write(&path, kept.join("\n") + "\n").unwrap();
        inputs.push(path);
    }
    assert_eq!(lines, 775, "GSM8K's lines outside ASCII");
    let tables = dir.path().join("tables");
    let paths: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
    ingest(&tables, &paths).success();
    advmath()
        .args([
            "generate",
            "--attack",
            "m1,m2,m3,punct",
            "--attempts",
            "3000",
            "--variants",
            "10",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    let cyrillic = sql_csv(
        &tables,
        "SELECT v.attack, count(*) AS n FROM variants v JOIN problems p USING (problem_id) \
         WHERE p.split = 'train' AND p.question LIKE 'А Senior Center%' GROUP BY v.attack \
         ORDER BY v.attack",
    );
    let attacks: Vec<&str> = cyrillic
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        attacks,
        ["m1", "m2", "m3", "original", "punct10", "punct30", "punct50"],
        "train line 7421's variants per attack: {cyrillic}"
    );
}
