//! Scaling out: generation in shards joins into the single-machine tables byte for byte.

use std::fs;
use std::path::Path;

use predicates::prelude::*;

use crate::util::{advmath, ingest_xie_release, shared_data, walk, SMALL_GENERATION};

/// Every file of the generation outputs (variants, statistics, run records), by relative path.
fn generation_files(tables: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for table in ["variants", "generation_stats", "runs"] {
        for entry in walk(&tables.join(table)) {
            let relative = entry.strip_prefix(tables).unwrap().to_path_buf();
            files.push((relative, fs::read(&entry).unwrap()));
        }
    }
    files.sort();
    files
}

fn generate(tables: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    advmath()
        .arg("generate")
        .args(SMALL_GENERATION)
        .args(extra)
        .arg("--tables")
        .arg(tables)
        .assert()
}

/// Three shards over the Xie et al. release (200 + 200 problems: slices of 66 and 67, so no
/// shard boundary falls on a write batch's), merged, are the unsharded run's files.
#[test]
fn shards_merged_equal_one_unsharded_run() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (whole, sharded) = (dir.path().join("whole"), dir.path().join("sharded"));
    ingest_xie_release(&data, &whole);
    ingest_xie_release(&data, &sharded);
    generate(&whole, &[]).success();
    for k in 1..=3 {
        generate(&sharded, &["--shard", &format!("{k}/3")]).success();
    }
    // A shard writes only its own folder; the tables get nothing until the merge.
    assert!(!sharded.join("variants").exists());
    let shard_rows: usize = (1..=3)
        .map(|k| walk(&sharded.join(format!("_shards/generate/{k}-of-3/variants"))).len())
        .sum();
    assert!(shard_rows > 0);
    advmath()
        .args(["generate", "--merge-shards", "3", "--tables"])
        .arg(&sharded)
        .assert()
        .success()
        .stdout(predicate::str::contains("xie2024-gsm8k"));
    let (expected, merged) = (generation_files(&whole), generation_files(&sharded));
    assert!(expected.len() >= 10, "{} files", expected.len());
    assert_eq!(
        expected.iter().map(|f| &f.0).collect::<Vec<_>>(),
        merged.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for ((path, a), (_, b)) in expected.iter().zip(&merged) {
        assert!(
            a == b,
            "{} differs from the unsharded run's",
            path.display()
        );
    }
    assert!(!sharded.join("_shards").exists());
}

/// A merge with a shard missing names it and changes nothing; so does a shard made with other
/// settings. `--shard` refuses `--problems`, whose quota only a whole run can fill.
#[test]
fn a_merge_needs_every_shard_made_alike() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    crate::util::ingest(&tables, &[]).success();
    generate(&tables, &["--shard", "1/2"]).success();
    advmath()
        .args(["generate", "--merge-shards", "2", "--tables"])
        .arg(&tables)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("shard 2/2 is missing"));
    generate(&tables, &["--shard", "2/2", "--seed", "7"]).success();
    advmath()
        .args(["generate", "--merge-shards", "2", "--tables"])
        .arg(&tables)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("other settings"));
    assert!(!tables.join("variants").exists());
    generate(&tables, &["--shard", "2/2", "--problems", "3"])
        .code(2)
        .stderr(predicate::str::contains("--problems"));
    advmath()
        .args(["generate", "--shard", "3/2", "--tables"])
        .arg(&tables)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("K/N"));
}

/// Three servers of one model, one of which dies mid-run (its in-flight replies cut mid-body,
/// then its port closed): the other two take its requests, and every variant gets exactly one
/// response.
#[test]
fn responses_from_three_servers_one_killed_mid_run() {
    use crate::server::{spawn, Reply};
    use std::time::Duration;

    let (_dir, tables) = crate::util::small_tables();
    let delay = Duration::from_millis(5);
    let (a, c) = (spawn(|_| Reply::Ok, delay), spawn(|_| Reply::Ok, delay));
    let b = spawn(
        |n| {
            if n < 15 {
                Reply::Ok
            } else {
                Reply::ResetMidBody
            }
        },
        delay,
    );
    let urls: Vec<String> = [a.port, b.port, c.port]
        .iter()
        .map(|p| format!("http://127.0.0.1:{p}"))
        .collect();
    let child = std::process::Command::new(crate::util::advmath_path())
        .args([
            "respond",
            "--model",
            "m",
            "--concurrency",
            "2",
            "--backoff",
            "0.05",
        ])
        .args(["--endpoint", &urls.join(","), "--tables"])
        .arg(&tables)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while b.requests.load(std::sync::atomic::Ordering::SeqCst) < 15 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let served_by_b = b.requests.load(std::sync::atomic::Ordering::SeqCst);
    drop(b);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let counts = [a.requests.clone(), c.requests.clone()]
        .map(|r| r.load(std::sync::atomic::Ordering::SeqCst));
    eprintln!(
        "requests: server A {}, server B {served_by_b} (then killed), server C {}",
        counts[0], counts[1]
    );
    eprintln!("{stderr}");
    assert!(stderr.contains("taken out of service"), "{stderr}");
    assert!(counts.iter().all(|&n| n > 0));
    let variants = advmath::respond::variant_items(&tables, &[], &[]).unwrap();
    let rows = advmath::store::responses::stored_rows(&tables, "m").unwrap();
    let mut ids: Vec<&str> = rows.iter().map(|r| r.1.as_deref().unwrap()).collect();
    ids.sort_unstable();
    let answered = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), answered, "a variant has two responses");
    assert_eq!(answered, variants.len(), "a variant has no response");
}

/// Without the `cluster` feature `--cluster` is a usage error that says how to get it; CI builds
/// the feature, and there this test is replaced by the cluster tests.
#[cfg(not(feature = "cluster"))]
#[test]
fn the_cluster_needs_its_feature() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    crate::util::ingest(&tables, &[]).success();
    advmath()
        .args(["sql", "--cluster", "df://127.0.0.1:1", "--tables"])
        .arg(&tables)
        .arg("SELECT 1")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`cluster` feature"));
    crate::util::skip("the Ballista cluster tests need `cargo test --features cluster`");
}
