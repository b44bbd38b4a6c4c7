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
