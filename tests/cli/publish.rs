//! `advmath publish`: the hub folder loads with `datasets` offline, and publishing is
//! reproducible and never leaves a half-written folder.

use std::fs;
use std::path::Path;

use advmath::store::read_batches;
use predicates::prelude::*;

use crate::util::{advmath, python_has, small_run, small_tables, walk};

/// Rows per published config and split, counted from advmath's own variants table.
fn expected_configs(tables: &Path) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for entry in fs::read_dir(tables.join("variants/dataset=default")).unwrap() {
        let dir = entry.unwrap().path();
        let attack = dir
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .trim_start_matches("attack=")
            .replace('+', "_");
        let rows: usize = walk(&dir)
            .iter()
            .flat_map(|f| read_batches(f).unwrap())
            .map(|b| b.num_rows())
            .sum();
        out.insert(attack, serde_json::json!({ "test": rows }));
    }
    // `run` also publishes the features table as a config of its own.
    let features: usize = walk(&tables.join("features"))
        .iter()
        .flat_map(|f| read_batches(f).unwrap())
        .map(|b| b.num_rows())
        .sum();
    out.insert("features".into(), serde_json::json!({ "test": features }));
    serde_json::Value::Object(out)
}

#[test]
fn published_folder_loads_with_datasets_offline() {
    let dir = tempfile::tempdir().unwrap();
    small_run(dir.path());
    let hub = dir.path().join("hub");
    assert!(hub.join("README.md").is_file(), "run ends by publishing");
    if !python_has("datasets, huggingface_hub") {
        return;
    }
    let expected = dir.path().join("expected.json");
    fs::write(
        &expected,
        expected_configs(&dir.path().join("tables")).to_string(),
    )
    .unwrap();
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/check_hub.py"))
        .arg(&hub)
        .arg(&expected)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HOME", dir.path().join("hf-home"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("m3_punct30\ttest\t"), "{stdout}");
    assert!(stdout.contains("hub folder OK"));
}

#[test]
fn publishing_is_reproducible_and_never_half_written() {
    let (dir, tables) = small_tables();
    let publish = |out: &Path| {
        let mut c = advmath();
        c.args([
            "publish",
            "--name",
            "toy",
            "--max-shard-rows",
            "7",
            "--tables",
        ])
        .arg(&tables)
        .arg("--out")
        .arg(out);
        c
    };
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    publish(&a).assert().success();
    publish(&b).assert().success();
    let files = |root: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = walk(root)
            .into_iter()
            .map(|p| {
                (
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let fa = files(&a);
    assert!(
        fa.iter()
            .any(|(p, _)| p.to_str().unwrap().contains("m3/test-00001-of-")),
        "shards of bounded size"
    );
    assert_eq!(fa, files(&b), "same inputs, same bytes");
    publish(&a)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force is needed to replace"));
    // A failing publish over an existing folder leaves it as it was, with no staging debris.
    publish(&a)
        .args(["--force", "--include", "no_such_table"])
        .assert()
        .code(1);
    assert_eq!(files(&a), fa);
    let debris: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(debris.is_empty(), "{debris:?}");
    publish(&a).arg("--force").assert().success();
    assert_eq!(files(&a), fa);
}
