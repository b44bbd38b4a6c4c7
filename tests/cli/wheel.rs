//! `pip install advmath`: the wheel maturin makes (`.ci/run` builds it with the test build's
//! profile, to share its compilation, and names it in ADVMATH_WHEEL; users build it with
//! `--release`, the same packaging) installs into a fresh virtual environment, puts `advmath` on
//! its PATH, and the default run from an empty folder writes the same tables, byte for byte, as
//! the binary `cargo` builds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{advmath, skip, walk};

/// Every file of a tables folder by its folder and content: response parts are named by time and
/// process, so two runs name them differently; lock files are not data.
fn contents(tables: &Path) -> BTreeMap<(PathBuf, Vec<u8>), usize> {
    let mut out = BTreeMap::new();
    for f in walk(tables) {
        let rel = f.strip_prefix(tables).unwrap().to_path_buf();
        if rel.starts_with(".locks") {
            continue;
        }
        let folder = rel.parent().unwrap().to_path_buf();
        *out.entry((folder, std::fs::read(&f).unwrap())).or_default() += 1;
    }
    out
}

#[test]
fn the_wheel_installs_and_its_default_run_writes_the_tables_cargo_run_writes() {
    let Some(wheel) = std::env::var_os("ADVMATH_WHEEL") else {
        return skip("ADVMATH_WHEEL is not set (.ci/run builds the wheel with maturin)");
    };
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    // The wheel needs nothing else: installed with no index, it cannot fetch anything.
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--no-index"])
        .arg(&wheel)
        .output()
        .unwrap();
    assert!(
        pip.status.success(),
        "{}",
        String::from_utf8_lossy(&pip.stderr)
    );
    let installed = venv.join("bin/advmath");
    assert!(
        installed.is_file(),
        "the wheel puts advmath on the environment's PATH"
    );

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = Command::new(&installed)
        .current_dir(&empty)
        .args(["run", "--out", "X"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let reference = dir.path().join("cargo");
    advmath()
        .arg("run")
        .arg("--out")
        .arg(&reference)
        .assert()
        .success();
    let (a, b) = (
        contents(&empty.join("X/tables")),
        contents(&reference.join("tables")),
    );
    assert!(a.len() > 20, "{} files", a.len());
    let names = |m: &BTreeMap<(PathBuf, Vec<u8>), usize>| -> Vec<PathBuf> {
        m.keys().map(|(f, _)| f.clone()).collect()
    };
    assert_eq!(names(&a), names(&b), "the same files in the same folders");
    assert!(
        a == b,
        "a table's bytes differ between the wheel's run and cargo's"
    );
}
