//! One source of defaults: `advmath run` and the chain of commands it consists of, each left to
//! its own defaults, write the same tables, reports and hub folder, byte for byte.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use advmath::pipeline::DEFAULT_MODELS;
use advmath::store::DEFAULT_OUT;

use crate::util::{advmath, walk};

/// Every file under `out`, by its path relative to `out`, with its contents, sorted:
/// a response part's name holds a timestamp and a process id, so parts are named by their folder
/// only, and a text names the folder it was written in, so `root` is masked.
fn fingerprint(root: &Path) -> BTreeMap<PathBuf, Vec<Vec<u8>>> {
    let out = root.join(DEFAULT_OUT);
    let mut files: BTreeMap<PathBuf, Vec<Vec<u8>>> = BTreeMap::new();
    for f in walk(&out) {
        let relative = f.strip_prefix(&out).unwrap();
        let name = relative.file_name().unwrap().to_string_lossy();
        let key = if name.starts_with("part-") && name.matches('-').count() >= 2 {
            relative.with_file_name("part-*.parquet")
        } else {
            relative.to_path_buf()
        };
        let bytes = fs::read(&f).unwrap();
        let bytes = match String::from_utf8(bytes) {
            Ok(text) => text.replace(root.to_str().unwrap(), "[ROOT]").into_bytes(),
            Err(e) => e.into_bytes(),
        };
        files.entry(key).or_default().push(bytes);
    }
    for contents in files.values_mut() {
        contents.sort();
    }
    files
}

/// `run` with no flag in one folder; in another, the commands `src/pipeline.rs` runs, in its order,
/// each given only what `run` sets on purpose (its output folders, the coverage report, the hub's
/// extra table), never a default again.
#[test]
fn run_and_the_chain_of_its_commands_write_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, chain) = (dir.path().join("run"), dir.path().join("chain"));
    fs::create_dir_all(&whole).unwrap();
    fs::create_dir_all(&chain).unwrap();
    advmath().current_dir(&whole).arg("run").assert().success();

    let step = |args: &[&str]| {
        advmath().current_dir(&chain).args(args).assert().success();
    };
    step(&["ingest", "--report", "out/reports/program_coverage.md"]);
    step(&["generate"]);
    for model in DEFAULT_MODELS {
        step(&["respond", "--model", model]);
    }
    step(&["features"]);
    step(&["regress"]);
    step(&["metrics", "--out", "out/reports/metrics"]);
    step(&["publish", "--out", "out/hub", "--include", "features"]);

    let (a, b) = (fingerprint(&whole), fingerprint(&chain));
    for folder in ["tables/responses", "tables/coefficients", "reports", "hub"] {
        assert!(
            a.keys().any(|k| k.starts_with(folder)),
            "run wrote nothing under {folder}"
        );
    }
    let only = |x: &BTreeMap<PathBuf, _>, y: &BTreeMap<PathBuf, _>| -> Vec<PathBuf> {
        x.keys().filter(|k| !y.contains_key(*k)).cloned().collect()
    };
    assert_eq!(only(&a, &b), Vec::<PathBuf>::new(), "written by run only");
    assert_eq!(
        only(&b, &a),
        Vec::<PathBuf>::new(),
        "written by the chain only"
    );
    let differ: Vec<&PathBuf> = a.keys().filter(|k| a[*k] != b[*k]).collect();
    assert!(differ.is_empty(), "run and the chain differ in {differ:?}");
}
