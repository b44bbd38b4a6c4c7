//! Help text, usage errors (exit 2) and the messages of runtime errors (exit 1).

use std::fs;

use predicates::prelude::*;

use crate::util::{advmath, assert_snapshot};

/// Help is documentation users read: its text is snapshotted (at a fixed width), so every change
/// to it is reviewed.
#[test]
fn help_explains_the_commands() {
    let help = |args: &[&str]| {
        let out = advmath()
            .args(args)
            .env("COLUMNS", "100")
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let text = help(&["--help"]);
    assert!(text.contains("ingest") && text.contains("generate") && text.contains("run"));
    assert!(text.contains("Exit codes"));
    // The `cluster` feature adds the `cluster` command.
    let name = if cfg!(feature = "cluster") {
        "help_cluster"
    } else {
        "help"
    };
    assert_snapshot(name, text);
    assert_snapshot("help_generate", help(&["generate", "--help"]));
    assert_snapshot("help_respond", help(&["respond", "--help"]));
}

/// An error and its cause are printed once each, not "reason: reason".
#[test]
fn an_error_cause_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.parquet");
    fs::write(&broken, "x").unwrap();
    let out = advmath()
        .arg("ingest")
        .arg(&broken)
        .arg("--tables")
        .arg(dir.path().join("t"))
        .assert()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains(&format!(
            "error: {}: cannot be read as a table: ",
            broken.display()
        )),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("out of specification").count(),
        1,
        "{stderr}"
    );
}

/// A stage run before the stage that feeds it says which table is missing and what to run.
#[rstest::rstest]
#[case::generate(&["generate"], "problems", "advmath ingest")]
#[case::features(&["features"], "problems", "advmath ingest")]
#[case::regress(&["regress"], "features_xie2024", "advmath features")]
#[case::respond(&["respond", "--model", "oracle"], "variants", "advmath generate")]
fn a_stage_without_its_input_says_what_to_run(
    #[case] args: &[&str],
    #[case] table: &str,
    #[case] hint: &str,
) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    fs::create_dir_all(&tables).unwrap();
    advmath()
        .args(args)
        .arg("--tables")
        .arg(&tables)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "{}: no {table} table",
            tables.join(table).display()
        )))
        .stderr(predicate::str::contains(hint))
        .stderr(predicate::str::contains("(os error").not());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["generate", "--variants", "0"],
        vec!["generate", "--digits", "0"],
        vec!["generate", "--attack", "m4"],
        vec!["generate", "--attack", "m3+noise"],
        vec!["generate", "--noise", "0"],
        vec!["generate", "--noise-count", "ceil"],
        vec!["generate", "--sample-problems", "0"],
    ] {
        advmath().args(&args).assert().code(2);
    }
}

/// A setting the library refuses is named by the flag that sets it: the library speaks of its
/// config fields (`setting \`format\``), the command line of its flags.
#[test]
fn a_refused_setting_names_its_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (args, expected) in [
        (
            vec!["sql", "SELECT 1", "--format", "parquet"],
            "error: --format parquet needs an output file",
        ),
        (
            vec!["generate", "--shard", "1/2", "--sample-problems", "3"],
            "error: --shard cannot be combined with a problem count or a problem sample",
        ),
    ] {
        let out = advmath()
            .current_dir(dir.path())
            .args(&args)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.starts_with(expected), "{args:?}: {stderr}");
    }
    let e = advmath::Error::setting("top_problems", "must be at least 1");
    assert_eq!(e.to_string(), "setting `top_problems` must be at least 1");
}
