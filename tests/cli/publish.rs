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

/// `tests/python/check_hub.py` on a published folder, offline, with `datasets`' cache under
/// `scratch`: its stdout, after asserting that it passed.
fn check_hub(folder: &Path, expected: &Path, scratch: &Path) -> String {
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/check_hub.py"))
        .arg(folder)
        .arg(expected)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HOME", scratch.join("hf-home"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
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
    let stdout = check_hub(&hub, &expected, dir.path());
    assert!(stdout.contains("m3_punct30\ttest\t"), "{stdout}");
    assert!(stdout.contains("hub folder OK"));

    // With the responses as a config, the card's account of them (models, settings, sample)
    // is checked against the published rows too.
    let tables = dir.path().join("tables");
    let with_responses = dir.path().join("hub-responses");
    advmath()
        .args(["publish", "--include", "responses,features", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&with_responses)
        .assert()
        .success();
    let mut configs = expected_configs(&tables);
    let responses: usize = walk(&tables.join("responses"))
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "parquet"))
        .flat_map(|f| read_batches(f).unwrap())
        .map(|b| b.num_rows())
        .sum();
    configs["responses"] = serde_json::json!({ "test": responses });
    fs::write(&expected, configs.to_string()).unwrap();
    let stdout = check_hub(&with_responses, &expected, dir.path());
    assert!(stdout.contains("responses\tsim-carry\t"), "{stdout}");
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
        .stderr(predicate::str::contains(
            "--force is needed to publish into",
        ));
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

/// Publishing into a clone of a Hub dataset repository: `.git/`, `.gitattributes` and the
/// user's other files keep every byte; only publish's own outputs (`data/`, `README.md`,
/// `lm_eval/`) are replaced, and an old config's shards go with the old `data/`.
#[test]
fn publishing_into_a_cloned_repository_keeps_what_publish_does_not_write() {
    let (dir, tables) = small_tables();
    let hub = dir.path().join("clone");
    let theirs = [
        (".git/HEAD", "ref: refs/heads/main\n"),
        (".git/objects/ab/cdef0123", "blob"),
        (
            ".gitattributes",
            "*.parquet filter=lfs diff=lfs merge=lfs -text\n",
        ),
        ("notes/plan.txt", "mine"),
    ];
    for (path, text) in theirs {
        let p = hub.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
    }
    let stale = hub.join("data/old_config/test-00000-of-00001.parquet");
    fs::create_dir_all(stale.parent().unwrap()).unwrap();
    fs::write(&stale, "old shard").unwrap();
    fs::write(hub.join("README.md"), "an old card").unwrap();
    advmath()
        .args(["publish", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&hub)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    advmath()
        .args(["publish", "--force", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&hub)
        .assert()
        .success();
    for (path, text) in theirs {
        assert_eq!(fs::read_to_string(hub.join(path)).unwrap(), text, "{path}");
    }
    assert!(!stale.exists(), "an old config's shards go");
    assert!(fs::read_to_string(hub.join("README.md"))
        .unwrap()
        .starts_with("---"));
    assert!(hub.join("data/m3").is_dir());
    // Nothing else appeared beside them.
    let mut top: Vec<String> = fs::read_dir(&hub)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(
        top,
        [
            ".git",
            ".gitattributes",
            "README.md",
            "data",
            "lm_eval",
            "notes"
        ]
    );
}
