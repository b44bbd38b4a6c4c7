//! A tables folder and the paths people pass are untrusted: no output may land among the tables
//! (where it would be read as data) or replace the folder that holds them, whatever missing
//! folders, `..` or symlinks the path goes through.

use std::path::Path;

use crate::util::{advmath, small_tables, stderr_of, walk};

fn listing(tables: &Path) -> Vec<(std::path::PathBuf, u64)> {
    let mut files: Vec<_> = walk(tables)
        .into_iter()
        .map(|f| {
            let len = std::fs::metadata(&f).unwrap().len();
            (f, len)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn no_output_lands_among_the_tables_or_replaces_them() {
    let (dir, tables) = small_tables();
    let before = listing(&tables);
    let sneaky = dir
        .path()
        .join("x/nonexistent/../../tables/variants/part-9.parquet");
    let out = advmath()
        .args(["sql", "SELECT 1 AS one", "--format", "parquet", "--tables"])
        .arg(&tables)
        .arg("--output")
        .arg(&sneaky)
        .assert()
        .code(2);
    assert!(
        stderr_of(&out).contains("inside the tables folder"),
        "{}",
        stderr_of(&out)
    );
    for replaced in [tables.clone(), dir.path().to_path_buf()] {
        let out = advmath()
            .args(["publish", "--force", "--tables"])
            .arg(&tables)
            .arg("--out")
            .arg(&replaced)
            .assert()
            .code(2);
        assert!(
            stderr_of(&out).contains("holds the tables folder"),
            "{}",
            stderr_of(&out)
        );
    }
    // Outputs that would land among the tables, each through the flag that names it.
    let cases: [(&[&str], &str, std::path::PathBuf); 3] = [
        (&["publish", "--force"], "--out", tables.join("variants")),
        (&["regress"], "--report-dir", tables.join("reports")),
        (&["metrics"], "--out", dir.path().join("y/../tables/m")),
    ];
    for (command, flag, output) in cases {
        let out = advmath()
            .args(command)
            .arg("--tables")
            .arg(&tables)
            .arg(flag)
            .arg(&output)
            .assert()
            .code(2);
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains("inside the tables folder"),
            "{command:?}: {stderr}"
        );
    }
    assert_eq!(listing(&tables), before, "the tables are as they were");
}

/// Options out of range are refused when parsed, and an option that would be ignored is refused
/// instead of ignored.
#[test]
fn absurd_options_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["sql", "SELECT 1", "--threads", "100000"][..],
        &["generate", "--threads", "100000"],
        &["metrics", "--threads", "0"],
    ] {
        let out = advmath()
            .args(args)
            .arg("--tables")
            .arg(dir.path())
            .assert()
            .code(2);
        assert!(
            stderr_of(&out).contains("from 1 to 1024") || stderr_of(&out).contains("1..=1024"),
            "{args:?}: {}",
            stderr_of(&out)
        );
    }
    let out = advmath()
        .args(["sql", "SELECT 1", "--format", "csv", "--output"])
        .arg(dir.path().join("result.csv"))
        .arg("--tables")
        .arg(dir.path())
        .assert()
        .code(2);
    assert!(stderr_of(&out).contains("--output is for the parquet format"));
    assert!(!dir.path().join("result.csv").exists());
}

/// A part that is no Parquet file is named, file and all, with exit 1 (a data failure).
#[test]
fn a_corrupt_part_is_named() {
    let (_dir, tables) = small_tables();
    let part = walk(&tables.join("variants"))
        .into_iter()
        .find(|f| f.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    let mut bytes = std::fs::read(&part).unwrap();
    let n = bytes.len();
    bytes[n - 20..n - 8].fill(0);
    std::fs::write(&part, bytes).unwrap();
    let out = advmath()
        .args(["sql", "SELECT COUNT(*) FROM variants", "--tables"])
        .arg(&tables)
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(
        err.contains(&part.display().to_string()) && err.contains("not a readable Parquet file"),
        "{err}"
    );
}

/// `advmath sql --tables <tables> <bounds...> <query>` as a child: its exit code, wall time and
/// peak RSS in MiB. The peak is the child's own high-water mark (`VmHWM`, read while it runs):
/// `wait4`'s `ru_maxrss` would count the test process's size at the fork.
fn bounded_sql(
    tables: &Path,
    bounds: &[&str],
    query: &str,
) -> (Option<i32>, std::time::Duration, f64) {
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(crate::util::advmath_path())
        .arg("sql")
        .args(bounds)
        .arg("--tables")
        .arg(tables)
        .arg(query)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    let peak_mib = peak_kib as f64 / 1024.0;
    eprintln!(
        "{query}: exit {:?} after {elapsed:?}, peak RSS {peak_mib:.0} MiB",
        status.code()
    );
    (status.code(), elapsed, peak_mib)
}

/// A result too long to print within the bounds fails within them: the printer runs under the
/// query's timeout and memory bound.
#[test]
fn printing_a_huge_result_stays_within_the_bounds() {
    let (_dir, tables) = small_tables();
    let (code, elapsed, peak_mib) = bounded_sql(
        &tables,
        &["--memory-limit", "512MiB", "--timeout", "5"],
        "SELECT value FROM generate_series(1, 20000000)",
    );
    assert_eq!(code, Some(1));
    assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    assert!(peak_mib > 0.0 && peak_mib < 1024.0, "{peak_mib} MiB");
}

/// A `count(DISTINCT …)` that grows outside DataFusion's memory pool fails at the memory limit,
/// within the stated margin (the limit plus what the process held before the query, under
/// 192 MiB here), and promptly: the bound is watched from a thread of its own, which busy query
/// workers cannot starve.
#[test]
fn a_distinct_count_over_the_memory_limit_fails_within_the_margin() {
    let (_dir, tables) = small_tables();
    let (code, elapsed, peak_mib) = bounded_sql(
        &tables,
        &["--memory-limit", "1GiB"],
        "SELECT COUNT(DISTINCT CAST(value AS VARCHAR)) FROM generate_series(1, 100000000)",
    );
    assert_eq!(code, Some(1));
    assert!(elapsed < std::time::Duration::from_secs(60), "{elapsed:?}");
    assert!(
        peak_mib > 0.0 && peak_mib < 1024.0 + 192.0,
        "{peak_mib} MiB"
    );
}

/// A symbolic link inside a table, whether a loop (`responses/<model>/loop -> ..`) or a part
/// pointing outside the tables, is refused by every command that reads the table, naming the
/// link, exit 1: nothing is published or computed from it, and nothing outside changes.
#[test]
fn links_inside_a_table_are_refused_by_every_reader() {
    let (dir, tables) = small_tables();
    let model = std::fs::read_dir(tables.join("responses"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let model_name = model.file_name().unwrap().to_str().unwrap().to_string();
    let loop_link = model.join("loop");
    std::os::unix::fs::symlink("..", &loop_link).unwrap();
    let t = tables.to_str().unwrap().to_string();
    let hub = dir.path().join("hub-links");
    let metrics = dir.path().join("metrics-links");
    let reports = dir.path().join("reports-links");
    let refused = |args: &[&str], link: &Path| {
        let out = advmath().args(args).assert().code(1);
        let err = stderr_of(&out);
        assert!(
            err.contains(&format!("{}: a symbolic link inside table", link.display())),
            "advmath {args:?}: {err}"
        );
    };
    let hub_s = hub.to_str().unwrap();
    for args in [
        vec!["sql", "--tables", &t, "SELECT COUNT(*) FROM responses"],
        vec![
            "publish",
            "--tables",
            &t,
            "--include",
            "responses",
            "--out",
            hub_s,
        ],
        vec![
            "metrics",
            "--tables",
            &t,
            "--out",
            metrics.to_str().unwrap(),
        ],
        vec!["compact", "--tables", &t],
        vec!["respond", "--tables", &t, "--model", &model_name],
        vec![
            "regress",
            "--tables",
            &t,
            "--report-dir",
            reports.to_str().unwrap(),
        ],
    ] {
        refused(&args, &loop_link);
    }
    std::fs::remove_file(&loop_link).unwrap();

    let outside = dir.path().join("outside.parquet");
    let part = walk(&tables.join("variants"))
        .into_iter()
        .find(|f| f.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    std::fs::copy(&part, &outside).unwrap();
    let outside_before = std::fs::read(&outside).unwrap();
    let planted = part.with_file_name("part-99.parquet");
    std::os::unix::fs::symlink(&outside, &planted).unwrap();
    for args in [
        vec!["sql", "--tables", &t, "SELECT COUNT(*) FROM variants"],
        vec!["publish", "--tables", &t, "--out", hub_s],
        vec!["features", "--tables", &t],
    ] {
        refused(&args, &planted);
    }
    assert!(!hub.exists() && !metrics.exists() && !reports.exists());
    assert_eq!(std::fs::read(&outside).unwrap(), outside_before);
}

/// Journals planted in a tables folder that name a path outside it (`..`, an absolute path, a
/// path through a symlink) are refused by every command that reads or writes the tables, exit 1,
/// naming the journal; no file outside the tables changes and the journal is never replayed.
#[test]
fn planted_journals_are_refused_by_every_command() {
    let (dir, tables) = small_tables();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    std::os::unix::fs::symlink(&outside, tables.join("link")).unwrap();
    let t = tables.to_str().unwrap().to_string();
    let scratch = dir.path().join("scratch");
    let s = scratch.to_str().unwrap().to_string();
    let model = std::fs::read_dir(tables.join("responses"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .next()
        .unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["sql", "--tables", &t, "SELECT COUNT(*) FROM variants"],
        vec!["metrics", "--tables", &t, "--out", &s],
        vec![
            "generate",
            "--tables",
            &t,
            "--attack",
            "m1",
            "--variants",
            "2",
        ],
        vec!["features", "--tables", &t],
        vec!["publish", "--tables", &t, "--out", &s],
        vec!["compact", "--tables", &t],
        vec!["respond", "--tables", &t, "--model", &model],
        vec!["regress", "--tables", &t, "--report-dir", &s],
        vec!["ingest", "--tables", &t],
    ];
    let staging = tables.join(".staging-x-1");
    for journal in [
        "\t../../outside/victim\n".to_string(),
        format!("payload\t{}\n", victim.display()),
        "payload\tlink/victim\n".to_string(),
    ] {
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::write(staging.join("payload"), "overwritten").unwrap();
        std::fs::write(staging.join("COMMIT"), &journal).unwrap();
        for args in &commands {
            let out = advmath().args(args).assert().code(1);
            let err = stderr_of(&out);
            assert!(
                err.contains(".staging-x-1/COMMIT") && err.contains("the journal is refused"),
                "{journal:?} advmath {args:?}: {err}"
            );
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
            assert!(staging.join("COMMIT").exists(), "never replayed");
            assert!(!scratch.exists());
        }
        std::fs::remove_dir_all(&staging).unwrap();
    }
}
