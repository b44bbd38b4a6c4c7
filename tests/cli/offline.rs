//! `advmath respond` with the offline models: every variant graded once, the extraction chosen,
//! parts after compactions, attack families, and what an offline model cannot answer.

use crate::util::{advmath, ingest, small_tables, sql_csv, stderr_of};
use advmath::store::responses::stored_rows;

/// The default run answers every variant for every model, also variants whose question text
/// equals another's (an M2 and an M3 draw of the same numbers, a repeated noise draw): each
/// has its own graded row, and no variant has two.
#[test]
fn default_run_grades_every_variant_of_every_model() {
    let dir = crate::util::default_run();
    let engine = advmath::metrics::SqlEngine::open(&dir.path().join("tables")).unwrap();
    let count = |sql: &str| -> Vec<(String, String, i64)> {
        let t = engine.query_table(sql).unwrap();
        (0..t.len())
            .map(|r| {
                let s = |c: &str| t.get(r, c).and_then(|v| v.as_str()).unwrap().to_string();
                let n = t.get(r, "n").and_then(|v| v.as_i64()).unwrap();
                (s("model"), s("attack"), n)
            })
            .collect()
    };
    let unanswered = count(
        "SELECT m.model, v.attack, COUNT(*) AS n \
         FROM variants v CROSS JOIN (SELECT DISTINCT model FROM responses) m \
         LEFT JOIN responses r ON r.model = m.model AND r.variant_id = v.variant_id \
             AND r.correct IS NOT NULL \
         WHERE r.variant_id IS NULL GROUP BY m.model, v.attack ORDER BY m.model, v.attack",
    );
    assert_eq!(
        unanswered,
        Vec::new(),
        "(model, attack, variants without a graded row)"
    );
    let doubled = count(
        "SELECT model, attack, COUNT(*) AS n FROM ( \
             SELECT model, attack, variant_id FROM responses \
             GROUP BY model, attack, variant_id HAVING COUNT(*) > 1) d \
         GROUP BY model, attack ORDER BY model, attack",
    );
    assert_eq!(
        doubled,
        Vec::new(),
        "(model, attack, variants with two rows)"
    );
    // The case under test occurs in this run: some question is asked by two variants.
    let shared = engine
        .query_table(
            "SELECT COUNT(*) AS n FROM (SELECT question FROM variants \
             GROUP BY question HAVING COUNT(*) > 1) q",
        )
        .unwrap();
    let shared = shared.get(0, "n").and_then(|v| v.as_i64()).unwrap();
    assert!(
        shared > 0,
        "no two variants share a question text in the default run"
    );
}

/// Offline models answer every variant; the oracle is always right.
#[test]
fn offline_models_answer_everything() {
    let (_dir, tables) = small_tables();
    let rows = stored_rows(&tables, "oracle").unwrap();
    assert!(rows.len() > 500);
    assert!(
        rows.iter().all(|r| r.3 == Some(true)),
        "the oracle is always right"
    );
    let carry = stored_rows(&tables, "sim-carry").unwrap();
    let wrong = carry.iter().filter(|r| r.3 == Some(false)).count();
    assert!(
        wrong > 0 && wrong < carry.len(),
        "sim-carry makes some mistakes: {wrong}/{}",
        carry.len()
    );
}

/// `--extraction xie2024` grades with Xie et al.'s scorer: every row of the run says so.
#[test]
fn respond_grades_with_the_chosen_extraction() {
    let (_dir, tables) = small_tables();
    std::fs::remove_dir_all(tables.join("responses").join("sim-careful")).unwrap();
    advmath()
        .args([
            "respond",
            "--model",
            "sim-careful",
            "--extraction",
            "xie2024",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    let text = sql_csv(
        &tables,
        "SELECT extraction_rule, COUNT(*) AS n FROM responses \
         WHERE model = 'sim-careful' GROUP BY extraction_rule ORDER BY extraction_rule",
    );
    let rules: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert!(rules.contains(&"xie2024_pattern"), "{text}");
    assert!(
        rules
            .iter()
            .all(|r| ["xie2024_pattern", "miss"].contains(r)),
        "{text}"
    );
}

/// Offline runs that follow compactions never write a part over an existing one: four runs,
/// compacting between them, keep every row, and a last run finds nothing left to ask.
#[test]
fn offline_runs_after_compactions_lose_no_part() {
    // The default dataset: its m1 part outgrows 120KB, so the compaction after the third run
    // leaves two parts, one of them numbered 2.
    let dir = tempfile::tempdir().unwrap();
    advmath()
        .args(["run", "--models", "sim-careful", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    let tables = dir.path().join("tables");
    let run = |extra: &[&str]| {
        let out = advmath()
            .args(["respond", "--model", "sim-carry", "--tables"])
            .arg(&tables)
            .args(extra)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    // Every run asks about m1 and m2 alone, so the last one finds every stored row its own.
    run(&["--attack", "m1,m2", "--limit", "50", "--part-size", "1"]);
    run(&["--attack", "m1,m2", "--limit", "100", "--part-size", "1"]);
    run(&["--attack", "m1", "--part-size", "120KB"]);
    run(&["--attack", "m2", "--part-size", "120KB"]);
    let rows = stored_rows(&tables, "sim-carry").unwrap();
    let ids: std::collections::HashSet<_> = rows.iter().map(|r| (&r.0, &r.1)).collect();
    assert_eq!(ids.len(), rows.len(), "no row twice");
    let last = run(&["--attack", "m1,m2"]);
    let line = last.lines().find(|l| l.starts_with("sim-carry\t")).unwrap();
    let fields: Vec<&str> = line.split('\t').collect();
    // model, requests, shared, reused, skipped, written, ...
    assert_eq!((fields[1], fields[5]), ("0", "0"), "nothing lost: {last}");
    assert_eq!(fields[4], rows.len().to_string(), "{last}");
}

/// `--attack` names an attack the tables hold or a family of them (`punct` is every noise
/// level); a name that matches nothing is refused, never an empty selection.
#[test]
fn attack_families_expand_and_unknown_attacks_are_refused() {
    let (_dir, tables) = small_tables();
    std::fs::remove_dir_all(tables.join("responses/sim-carry")).unwrap();
    advmath()
        .args([
            "respond",
            "--model",
            "sim-carry",
            "--attack",
            "punct",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    let mut attacks: Vec<String> = stored_rows(&tables, "sim-carry")
        .unwrap()
        .into_iter()
        .filter_map(|r| r.2)
        .collect();
    attacks.sort();
    attacks.dedup();
    assert_eq!(attacks, ["original", "punct10", "punct30", "punct50"]);
    let out = advmath()
        .args([
            "respond",
            "--model",
            "sim-carry",
            "--attack",
            "nope",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .code(2);
    assert!(
        stderr_of(&out).contains("no variants of attack `nope`"),
        "{}",
        stderr_of(&out)
    );
}

/// Problems without a valid program get noise variants only; an offline model cannot answer
/// those: one note with the count, exit 0, nothing left to retry; `features` says once per
/// reason what it skipped, not once per variant.
#[test]
fn questions_an_offline_model_cannot_answer_are_one_note_not_failures() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("two.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"question": "Tom has 3 apples and buys 4 more. How many apples does he have now?", "answer": "Tom has 3+4=<<3+4=7>>7 apples.\n#### 7"}"#,
            "\n",
            r#"{"question": "A farmer has 5 cows. How many legs do they have?", "answer": "Each cow has legs.\n#### 20"}"#,
            "\n"
        ),
    )
    .unwrap();
    let tables = dir.path().join("tables");
    ingest(&tables, &[&input]).success();
    advmath()
        .args([
            "generate",
            "--attack",
            "m1,punct",
            "--attempts",
            "2000",
            "--variants",
            "5",
        ])
        .arg("--tables")
        .arg(&tables)
        .assert()
        .success();
    let out = advmath()
        .args(["respond", "--model", "sim-carry", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let err = stderr_of(&out);
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("no solution tree"))
        .collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("note: 4 question(s)"), "{err}");
    assert!(!err.contains("failed for good"), "{err}");
    let out = advmath()
        .args(["features", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let err = stderr_of(&out);
    assert!(
        err.lines().filter(|l| l.contains("skipped")).count() <= 4,
        "one line per reason and table: {err}"
    );
    assert!(!err.contains("skipped variant"), "{err}");
}
