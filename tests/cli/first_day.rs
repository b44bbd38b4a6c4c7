//! A researcher's first day: a fair, small sample asked of a real endpoint (a local fake here),
//! what was asked said before and after, a headline that says what each row stands on, SQL to
//! explore, an honest feature study and one vocabulary of counts. Each test pins one friction a
//! newcomer met.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::Duration;

use advmath::store::responses::stored_rows;

use crate::server::{spawn, Reply};
use crate::util::{advmath, sql_csv, stderr_of, stdout_of};

/// A dataset of `n` two-number problems, every one with a valid program.
fn many_problems(dir: &Path, n: usize) -> std::path::PathBuf {
    let names = ["Tom", "Ann", "Raj", "Mia", "Leo", "Zoë"];
    let mut text = String::new();
    for i in 0..n {
        let (a, b) = (12 + i * 7 % 80, 5 + i * 3 % 40);
        let who = names[i % names.len()];
        text.push_str(&format!(
            "{{\"question\": \"{who} has {a} marbles and finds {b} more. How many marbles does {who} have now?\", \"answer\": \"{}\", \"program\": \"a = {a}\\nb = {b}\\nans = a + b\"}}\n",
            a + b
        ));
    }
    let path = dir.join("marbles.jsonl");
    fs::write(&path, text).unwrap();
    path
}

/// Tables with `n` problems and attacks m1, m3 and punctuation noise, 10 variants each.
fn tables_of(dir: &Path, n: usize) -> std::path::PathBuf {
    let input = many_problems(dir, n);
    let tables = dir.join("tables");
    crate::util::ingest(&tables, &[input.as_path()]).success();
    advmath()
        .args([
            "generate",
            "--attack",
            "m1,m3,punct",
            "--variants",
            "10",
            "--attempts",
            "2000",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    tables
}

/// `respond --per-problem 5 --problems 50 --seed 1` asks exactly 50 originals and 5 variants of
/// each of those 50 problems per attack, the same problems for every attack; the estimate is
/// printed before the first request; the headline's rows all stand on those 50 problems.
#[test]
fn a_fair_sample_asks_the_same_problems_of_every_attack() {
    let dir = tempfile::tempdir().unwrap();
    let tables = tables_of(dir.path(), 60);
    let server = spawn(|_| Reply::Ok, Duration::ZERO);
    let endpoint = format!("http://127.0.0.1:{}", server.port);
    let sample = ["--per-problem", "5", "--problems", "50", "--seed", "1"];
    let respond = |extra: &[&str]| {
        let mut c = advmath();
        c.args(["respond", "--model", "fake", "--endpoint", &endpoint])
            .args(sample)
            .args(extra)
            .arg("--tables")
            .arg(&tables);
        c
    };
    // A dry run lists the requests and their cost and asks nothing.
    let dry = respond(&["--dry-run"]).assert().success();
    let planned = stdout_of(&dry).lines().count() - 1;
    // One request per distinct question: two variants that read alike share one.
    assert!(
        (690..=50 + 50 * 5 * 2 + 50 * 3).contains(&planned),
        "{}",
        stdout_of(&dry)
    );
    assert!(
        stderr_of(&dry).contains(&format!("fake: {planned} requests, about ")),
        "{}",
        stderr_of(&dry)
    );
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 0);
    let out = respond(&[]).assert().success();
    let stderr = stderr_of(&out);
    let estimate = stderr.find(&format!("fake: {planned} requests, about "));
    let first_progress = stderr.find("respond fake:");
    assert!(
        estimate.is_some() && (first_progress.is_none() || estimate < first_progress),
        "{stderr}"
    );
    let rows = advmath::respond::read_rows(&advmath::store::responses::model_dir(&tables, "fake"))
        .unwrap();
    let mut per_attack: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for r in &rows {
        *per_attack
            .entry(r.attack.clone().unwrap())
            .or_default()
            .entry(r.problem_id.clone().unwrap())
            .or_default() += 1;
    }
    let originals: BTreeSet<&String> = per_attack["original"].keys().collect();
    assert_eq!(originals.len(), 50);
    for (attack, problems) in &per_attack {
        let want = match attack.as_str() {
            "m1" | "m3" => 5,
            _ => 1,
        };
        assert_eq!(
            problems.keys().collect::<BTreeSet<_>>(),
            originals,
            "{attack}"
        );
        assert!(
            problems.values().all(|n| *n == want),
            "{attack}: {problems:?}"
        );
    }
    // The same draw again asks nothing: every question has its row.
    let again = respond(&[]).assert().success();
    assert!(
        stdout_of(&again).contains("fake\t0\t0\t0\t"),
        "{}",
        stdout_of(&again)
    );
    let metrics = advmath()
        .args(["metrics", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(dir.path().join("metrics"))
        .assert()
        .success();
    let headline = stderr_of(&metrics);
    let rows: Vec<&str> = headline
        .lines()
        .filter(|l| l.starts_with("fake "))
        .collect();
    assert_eq!(rows.len(), 6, "{headline}");
    for row in rows {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[3], "50", "{row}");
    }
    assert!(
        headline.contains("every row stands on the same 50 problems"),
        "{headline}"
    );
    assert!(headline.contains("5 of 10"), "{headline}");
}

/// `run --endpoint` without `--models` would send the offline models' names to a real server:
/// it is a usage error naming the fix.
#[test]
fn run_against_an_endpoint_needs_its_models_named() {
    let out = advmath()
        .args(["run", "--endpoint", "http://127.0.0.1:9", "--out", "never"])
        .assert()
        .code(2);
    assert!(stderr_of(&out).contains("--models"), "{}", stderr_of(&out));
}

/// `--limit` is a budget of requests: questions already answered do not count, so a second run
/// with the same budget asks the next ones.
#[test]
fn limit_counts_new_requests_only() {
    let dir = tempfile::tempdir().unwrap();
    let tables = tables_of(dir.path(), 6);
    let server = spawn(|_| Reply::Ok, Duration::ZERO);
    let endpoint = format!("http://127.0.0.1:{}", server.port);
    for expected in [4, 8] {
        advmath()
            .args([
                "respond",
                "--model",
                "fake",
                "--endpoint",
                &endpoint,
                "--limit",
                "4",
            ])
            .arg("--tables")
            .arg(&tables)
            .assert()
            .success();
        assert_eq!(stored_rows(&tables, "fake").unwrap().len(), expected);
    }
}

/// Every stage of the default run ends with one line in one vocabulary (read = used + refused
/// + skipped + failed), and the counts add up.
#[test]
fn every_stage_tallies_in_one_vocabulary() {
    let dir = tempfile::tempdir().unwrap();
    let out = advmath()
        .args(["run", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    let stderr = stderr_of(&out);
    let mut stages = BTreeSet::new();
    for line in stderr.lines().filter(|l| l.contains(" done: ")) {
        let (stage, rest) = line.split_once(" done: ").unwrap();
        stages.insert(stage.to_string());
        let words: Vec<&str> = rest.split_whitespace().collect();
        // "<read> <unit...> read = <used> used + <r> refused + <s> skipped + <f> failed; ..."
        let at = words.iter().position(|w| *w == "=").unwrap();
        let n = |i: usize| words[i].parse::<usize>().unwrap();
        let read = n(0);
        assert_eq!(words[at + 2], "used", "{line}");
        assert_eq!(words[at + 5], "refused", "{line}");
        assert_eq!(words[at + 8], "skipped", "{line}");
        assert_eq!(words[at + 11].trim_end_matches(';'), "failed", "{line}");
        assert_eq!(
            read,
            n(at + 1) + n(at + 4) + n(at + 7) + n(at + 10),
            "{line}"
        );
    }
    for stage in [
        "ingest", "generate", "respond", "features", "regress", "metrics", "publish",
    ] {
        assert!(stages.contains(stage), "{stage} has no tally:\n{stderr}");
    }
    assert!(!stderr.contains("invalid problems skipped"), "{stderr}");
    // A rate over a fraction of a second is not printed as a speed.
    for line in stderr.lines().filter(|l| l.contains("elapsed 0s")) {
        assert!(line.contains(" -/s, "), "{line}");
    }
}

/// A feature study with too few wrong answers names no feature, says why, and stdout carries
/// the counts and the significance.
#[test]
fn an_uninformative_fit_names_no_feature() {
    let dir = tempfile::tempdir().unwrap();
    let tables = tables_of(dir.path(), 20);
    advmath()
        .args(["respond", "--model", "sim-careful", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    advmath()
        .args(["features", "--set", "xie2024", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let out = advmath()
        .args(["regress", "--tables"])
        .arg(&tables)
        .arg("--report-dir")
        .arg(dir.path().join("reports"))
        .assert()
        .success();
    let stdout = stdout_of(&out);
    let header = stdout.lines().next().unwrap();
    assert!(header.contains("\tright\twrong\t"), "{header}");
    assert!(header.contains("\tinformative\t"), "{header}");
    let row = stdout.lines().nth(1).unwrap();
    assert!(row.contains("\tno: only "), "{row}");
    let report = fs::read_to_string(dir.path().join("reports/regression.md")).unwrap();
    assert!(report.contains("not informative: only "), "{report}");
    assert!(report.contains("| feature: coefficient (standard error) |"));
}

/// `--format json` is one JSON document; `jsonl` is one object per line.
#[test]
fn json_is_one_document_and_jsonl_one_row_per_line() {
    let (_dir, tables) = crate::util::small_tables();
    let q = "SELECT problem_id FROM problems ORDER BY source_index LIMIT 3";
    let json = advmath()
        .args(["sql", "--format", "json", "--tables"])
        .arg(&tables)
        .arg(q)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&json)).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    let jsonl = advmath()
        .args(["sql", "--format", "jsonl", "--tables"])
        .arg(&tables)
        .arg(q)
        .assert()
        .success();
    assert_eq!(stdout_of(&jsonl).lines().count(), 3);
    assert!(sql_csv(&tables, "SHOW TABLES").contains(",graded,"));
}

/// `wrong_answer` faults the program, not the gold, and the report says so; problems listed by
/// text id are not in their source's order, and the reference says how to get it.
#[test]
fn a_refused_program_is_explained_and_source_order_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.jsonl");
    fs::write(
        &input,
        "{\"question\": \"Tom has 15 apples and buys 27 more. How many apples does he have?\", \"answer\": \"42\", \"program\": \"a = 15\\nb = 27\\nans = a - b\"}\n",
    )
    .unwrap();
    let tables = dir.path().join("tables");
    let report = dir.path().join("coverage.md");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg("--report")
        .arg(&report)
        .arg(&input)
        .assert()
        .code(1);
    let text = fs::read_to_string(&report).unwrap();
    assert!(text.contains("wrong_answer"), "{text}");
    assert!(
        text.contains("`wrong_answer` faults the program, not the gold"),
        "{text}"
    );
    let docs =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tables.md")).unwrap();
    assert!(docs.contains("order by its `source_index`"));
}
