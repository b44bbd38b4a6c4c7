//! `advmath run`: the whole pipeline on the default dataset, its tables and reports, and its
//! byte-identical output whatever the thread count.

use std::fs;
use std::path::Path;

use advmath::store::problems::ProblemRecord;
use predicates::prelude::*;

use crate::util::{advmath, assert_snapshot, problems_in, small_run_with, verify_variants, walk};

#[test]
fn run_on_the_default_dataset_makes_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let run = advmath()
        .args(["run", "--attempts", "3000", "--variants", "20", "--out"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("default\ttest\t36\t36"))
        .stdout(predicate::str::contains("default\tm3\t"));
    let problems = problems_in(&dir.path().join("tables/problems/default__test.parquet"));
    assert_eq!(problems.len(), 36);
    assert!(
        problems.iter().all(ProblemRecord::is_valid),
        "every default problem is valid"
    );
    for attack in [
        "original", "m1", "m2", "m3", "punct10", "punct30", "punct50",
    ] {
        let part = dir.path().join(format!(
            "tables/variants/dataset=default/attack={attack}/part-0.parquet"
        ));
        assert!(part.is_file(), "{attack} partition missing");
    }
    assert!(dir
        .path()
        .join("tables/generation_stats/dataset=default/part-0.parquet")
        .is_file());
    assert!(dir.path().join("reports/program_coverage.md").is_file());
    let checked = verify_variants(&dir.path().join("tables"), "default");
    assert!(checked > 1000, "checked {checked} variants");

    // The texts people read are products too: snapshotted (the temporary folder redacted), so a
    // change to any figure or wording in them shows up for review.
    let stdout = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    assert_snapshot("run_stdout", stdout);
    let read = |relative: &str| {
        fs::read_to_string(dir.path().join(relative))
            .unwrap()
            .replace(dir.path().to_str().unwrap(), "[OUT]")
    };
    assert_snapshot("run_program_coverage", read("reports/program_coverage.md"));
    assert_snapshot("run_regression", read("reports/regression.md"));
    assert_snapshot("run_metrics_report", read("reports/metrics/report.md"));
    assert_snapshot("run_dataset_card", read("hub/README.md"));
}

/// Every file `advmath run` writes (tables, responses of the offline models, features, the fit,
/// metrics, plots, the hub folder) is byte-identical with one thread and with two; only the
/// output folder's own name, quoted in the metrics report, differs.
#[test]
fn the_whole_pipeline_is_byte_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str| {
        let out = dir.path().join(format!("t{threads}"));
        small_run_with(&out, &["--threads", threads]);
        out
    };
    let (one, two) = (run("1"), run("2"));
    let files = walk(&one);
    assert!(files.len() > 50, "{} files", files.len());
    for f in files {
        let relative = f.strip_prefix(&one).unwrap();
        let other = two.join(relative);
        let (a, b) = (fs::read(&f).unwrap(), fs::read(&other).unwrap());
        if a != b {
            let unquote = |bytes: Vec<u8>, out: &Path| {
                String::from_utf8(bytes)
                    .map(|t| t.replace(out.to_str().unwrap(), "[OUT]"))
                    .unwrap_or_default()
            };
            assert_eq!(
                unquote(a, &one),
                unquote(b, &two),
                "{} differs",
                relative.display()
            );
        }
    }
    assert_eq!(walk(&two).len(), walk(&one).len());
}

/// `run` ends with the headline (model × dataset × attack: OA, AA, ASR, the noise accuracy and
/// its ASR) and the two reports' paths; `report.md` opens with the same table, read from the
/// papers' own tables.
#[test]
fn run_ends_with_the_headline_and_the_reports_open_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::util::advmath()
        .arg("run")
        .args(crate::util::SMALL_GENERATION)
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
    let err = crate::util::stderr_of(&out);
    let header = err
        .lines()
        .position(|l| {
            l.split_whitespace().collect::<Vec<_>>()
                == [
                    "model", "dataset", "attack", "problems", "asked", "OA", "AA", "ASR",
                    "accuracy",
                ]
        })
        .unwrap_or_else(|| panic!("no headline: {err}"));
    assert!(
        err.lines().nth(header + 1).unwrap().starts_with("oracle "),
        "{err}"
    );
    let reports = dir.path().join("reports/metrics");
    for name in ["report.html", "report.md"] {
        assert!(
            err.contains(&format!("report: {}", reports.join(name).display())),
            "{err}"
        );
    }
    let md = std::fs::read_to_string(reports.join("report.md")).unwrap();
    assert!(
        md.starts_with("# advmath metrics report\n\n## Headline\n\n| model | dataset | attack | problems | asked | OA | AA | ASR | accuracy |"),
        "{}",
        advmath::cut::before(&md, 300)
    );
    // The figures are the paper tables': sim-carry's m1 row is xie_asr's.
    let xie = std::fs::read_to_string(reports.join("xie_asr.csv")).unwrap();
    let row = xie
        .lines()
        .find(|l| l.starts_with("sim-carry,xie2024,default,m1,"))
        .unwrap();
    let f: Vec<&str> = row.split(',').collect();
    let oa: f64 = f[8].parse().unwrap();
    let aa: f64 = f[9].parse().unwrap();
    let line = md
        .lines()
        .find(|l| l.starts_with("| sim-carry | default | m1 | "))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(line.contains(&format!(" | {oa:.3} | {aa:.3} | ")), "{line}");
}

/// A run without the feature study's attack (M3) finishes: it says there is nothing to fit and
/// writes every other output.
#[test]
fn a_run_without_m3_finishes_without_the_feature_study() {
    let dir = tempfile::tempdir().unwrap();
    advmath()
        .args([
            "run",
            "--attempts",
            "2000",
            "--variants",
            "10",
            "--attack",
            "m1,digits",
        ])
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "no feature study: it fits the variants of m3, and this run makes none",
        ));
    for file in ["reports/metrics/report.md", "hub/README.md"] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }
    assert!(!dir.path().join("tables/coefficients").exists());
}
