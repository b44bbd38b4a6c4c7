//! Long runs: progress lines in a log, and the compaction of a model's response parts (by the
//! run itself and by `advmath compact`), with rows, readers and kills checked.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::server::{spawn, Reply};
use crate::util::{advmath, copy_dir, python_has, small_tables, sql_csv, stderr_of};

const MODEL: &str = "test-model";

fn respond(tables: &Path, port: u16, extra: &[&str]) -> assert_cmd::assert::Assert {
    advmath()
        .args(["respond", "--model", MODEL, "--endpoint"])
        .arg(format!("http://127.0.0.1:{port}"))
        .arg("--tables")
        .arg(tables)
        .args(extra)
        .assert()
}

fn parts(tables: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(tables.join("responses").join(MODEL))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    v.sort();
    v
}

/// Every stored row of the model, every column, sorted: the table as a reader sees it.
const ALL_ROWS: &str =
    "select * from responses where model = 'test-model' order by response_key, variant_id";

#[test]
fn a_run_logged_to_a_file_prints_progress_lines() {
    let (_dir, tables) = small_tables();
    let server = spawn(|_| Reply::Ok, Duration::from_millis(40));
    // assert_cmd captures stderr through a pipe: not a terminal, as with `> log 2>&1`.
    let out = advmath()
        .env("ADVMATH_PROGRESS_SECONDS", "0.3")
        .args(["respond", "--model", "other-model", "--endpoint"])
        .arg(format!("http://127.0.0.1:{}", server.port))
        .args(["--limit", "40", "--concurrency", "1", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let stderr = stderr_of(&out);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("respond other-model: "))
        .collect();
    assert!(lines.len() >= 3, "{stderr}");
    eprintln!(
        "{} progress lines, the last: {}",
        lines.len(),
        lines.last().unwrap()
    );
    for l in &lines {
        assert!(
            l.contains("/40 questions (") && l.contains("/s, elapsed ") && l.contains(", ETA "),
            "{l}"
        );
        assert!(l.ends_with(" failed"), "{l}");
    }
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("respond other-model: 40/40 questions (100.0%)"),
        "{stderr}"
    );
    // --quiet: none.
    let quiet = advmath()
        .env("ADVMATH_PROGRESS_SECONDS", "0")
        .args(["--quiet", "respond", "--model", "third", "--endpoint"])
        .arg(format!("http://127.0.0.1:{}", server.port))
        .args(["--limit", "5", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    assert!(!stderr_of(&quiet).contains("questions ("));
}

#[test]
fn a_long_run_leaves_few_parts_and_compaction_changes_no_row() {
    let (dir, tables) = small_tables();
    let server = spawn(|_| Reply::Ok, Duration::ZERO);
    // Uncompacted (no part is smaller than one byte): one part per 50 replies.
    respond(
        &tables,
        server.port,
        &["--limit", "1000", "--flush-every", "50", "--part-size", "1"],
    )
    .success();
    let before = parts(&tables);
    assert!(before.len() >= 20, "{} parts", before.len());
    let rows = sql_csv(&tables, ALL_ROWS);
    let count = "select count(*) as n, count(distinct response_key || coalesce(variant_id, '')) as keys from responses where model = 'test-model'";
    let counts = sql_csv(&tables, count);
    assert_eq!(counts, "n,keys\n1000,1000\n");

    // Killed at every step of a compaction, then compacted again: nothing lost, nothing doubled.
    let saved = dir.path().join("saved");
    copy_dir(&tables, &saved);
    let log = dir.path().join("steps.log");
    advmath()
        .env("ADVMATH_FAULT_LOG", &log)
        .args(["compact", "responses", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let steps = fs::read_to_string(&log).unwrap().lines().count();
    assert!(steps > before.len(), "{steps} steps");
    let compacted = parts(&tables);
    assert!(compacted.len() <= 3, "{compacted:?}");
    assert_eq!(sql_csv(&tables, ALL_ROWS), rows, "compaction changed a row");
    assert_eq!(sql_csv(&tables, count), counts);
    let work = dir.path().join("work");
    for k in 1..=steps {
        copy_dir(&saved, &work);
        let killed = advmath()
            .env("ADVMATH_CRASH_AT", k.to_string())
            .args(["compact", "responses", "--tables"])
            .arg(&work)
            .output()
            .unwrap();
        assert_eq!(killed.status.signal(), Some(libc::SIGKILL), "step {k}");
        // The next command is another compaction, not a reader: it must finish the killed
        // one's decided switch before it clears that run's staging.
        advmath()
            .args(["compact", "responses", "--tables"])
            .arg(&work)
            .assert()
            .success();
        assert_eq!(
            sql_csv(&work, count),
            counts,
            "killed at step {k}, then compacted"
        );
        assert_eq!(
            sql_csv(&work, ALL_ROWS),
            rows,
            "killed at step {k}, then rerun"
        );
        assert_eq!(parts(&work).len(), compacted.len(), "step {k}");
    }
    eprintln!(
        "compaction: {} parts -> {}, {steps} kill points",
        before.len(),
        compacted.len()
    );

    // A run compacts its own parts at the end (and a killed run's, left before it).
    let other = dir.path().join("other");
    copy_dir(&saved, &other);
    fs::remove_dir_all(other.join("responses").join(MODEL)).unwrap();
    respond(
        &other,
        server.port,
        &["--limit", "1000", "--flush-every", "50"],
    )
    .success();
    assert!(parts(&other).len() <= 3, "{:?}", parts(&other));

    // DuckDB reads the compacted folder as advmath does.
    if python_has("duckdb") {
        let script = format!(
            "import duckdb\nprint(duckdb.sql(\"select count(*), count(distinct response_key || coalesce(variant_id, '')), sum(length(response)) from read_parquet('{}/responses/test-model/*.parquet')\").fetchall())",
            tables.display()
        );
        let before_dir = saved.display().to_string();
        let duck = |script: &str| {
            let out = std::process::Command::new("python3")
                .args(["-c", script])
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        let after = duck(&script);
        let before = duck(&script.replace(&tables.display().to_string(), &before_dir));
        assert_eq!(after, before);
    }
}
