//! The feature study end to end: the authors' feature family on the Xie et al. problems' M3
//! variants, Figure 8's plotted points, and one source of defaults for `run` and `regress`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use advmath::feature_sets::FeatureSet;
use advmath::store::{parquet_files_under, read_batches};
use arrow::array::AsArray;
use arrow::datatypes::Float64Type;

use crate::util::shared_data as data;
use crate::util::{advmath, ingest_xie_release};

/// Per column of a feature table (attack `m3`): (min, max, rows).
fn column_ranges(tables: &Path, set: FeatureSet) -> (Vec<(f64, f64)>, usize) {
    let mut ranges = vec![(f64::INFINITY, f64::NEG_INFINITY); set.count()];
    let mut rows = 0;
    for (path, parts) in parquet_files_under(&tables.join(set.table())).unwrap() {
        if !parts.iter().any(|(k, v)| k == "attack" && v == "m3") {
            continue;
        }
        for b in read_batches(&path).unwrap() {
            rows += b.num_rows();
            for (j, name) in set.names().iter().enumerate() {
                let c = b
                    .column_by_name(name)
                    .unwrap()
                    .as_primitive::<Float64Type>();
                for v in c.values().iter() {
                    ranges[j].0 = ranges[j].0.min(*v);
                    ranges[j].1 = ranges[j].1.max(*v);
                }
            }
        }
    }
    (ranges, rows)
}

/// The authors' 51 are the features their code saw at least once on their M3 variants
/// (`features.txt`); the `xie2024` set fixes the list instead. On the 200 + 200 problems' M3
/// variants (programs as given), this prints how many of its columns vary and how many are ever
/// non-zero (the authors' rule), beside 51, and checks what must hold whatever the draw: every
/// row of the table is an M3 variant, every family has varying columns (an operator count, the
/// variable count, bins of the answer, of intermediate results and of the numbers), and a column
/// that varies is non-zero somewhere.
#[test]
fn xie2024_columns_on_the_xie_m3_variants() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest_xie_release(&data, &tables);
    let attempts = std::env::var("ADVMATH_XIE_ATTEMPTS").unwrap_or_else(|_| "3000".into());
    let variants = std::env::var("ADVMATH_XIE_VARIANTS").unwrap_or_else(|_| "20".into());
    advmath()
        .args(["generate", "--attack", "m3", "--attempts", &attempts])
        .args(["--variants", &variants, "--tables"])
        .arg(&tables)
        .assert()
        .success();
    advmath()
        .args(["features", "--set", "xie2024", "--tables"])
        .arg(&tables)
        .assert()
        .success()
        .stdout(predicates::str::contains("features_xie2024\t"));
    let (ranges, rows) = column_ranges(&tables, FeatureSet::Xie2024);
    let variant_rows: usize = parquet_files_under(&tables.join("variants"))
        .unwrap()
        .into_iter()
        .filter(|(_, parts)| parts.iter().any(|(k, v)| k == "attack" && v == "m3"))
        .flat_map(|(p, _)| read_batches(&p).unwrap())
        .map(|b| b.num_rows())
        .sum();
    assert!(rows > 1000, "{rows} M3 variants");
    assert_eq!(rows, variant_rows, "one features row per M3 variant");

    let names = FeatureSet::Xie2024.names();
    let vary: Vec<&str> = names
        .iter()
        .zip(&ranges)
        .filter(|(_, (lo, hi))| hi > lo)
        .map(|(n, _)| *n)
        .collect();
    let seen: Vec<&str> = names
        .iter()
        .zip(&ranges)
        .filter(|(_, (lo, hi))| *lo != 0.0 || *hi != 0.0)
        .map(|(n, _)| *n)
        .collect();
    let m = names.len();
    println!(
        "{} of {m} columns vary (paper: 51); {} of {m} are non-zero somewhere (the authors' rule for their 51)",
        vary.len(),
        seen.len()
    );
    println!("varying: {}", vary.join(" "));
    let never: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !seen.contains(n))
        .collect();
    println!("always 0: {}", never.join(" "));
    println!(
        "non-zero but constant: {}",
        seen.iter()
            .filter(|n| !vary.contains(n))
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert!(vary.iter().all(|n| seen.contains(n)));
    for family in [
        "_count",
        "var_count",
        "final_log_4_val_",
        "inter_log_4_val_",
        "end_log_4_val_",
    ] {
        assert!(
            vary.iter().any(|n| n.contains(family)),
            "no varying column in family {family}"
        );
    }
}

/// Runs `advmath run` on the default dataset (small), then checks Figure 8 and the defaults.
#[test]
fn figure8_points_and_one_source_of_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    advmath()
        .args(["run", "--attempts", "3000", "--variants", "20", "--out"])
        .arg(&out)
        .assert()
        .success();
    let reports = out.join("reports");

    // Every panel is drawn, and its points sit at three or more distinct x values.
    for panel in [
        "fig8_multiplications",
        "fig8_operations",
        "fig8_answer_length",
        "fig8_ast_nodes",
        "fig8_number_range",
        "fig8_answer_range",
    ] {
        assert!(
            reports.join(format!("{panel}.svg")).is_file(),
            "{panel}.svg"
        );
        let csv = fs::read_to_string(reports.join(format!("{panel}.csv"))).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("model,template,x,label,correct,total,accuracy")
        );
        let mut xs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for line in lines {
            let fields: Vec<&str> = line.split(',').collect();
            xs.entry(fields[0].to_string())
                .or_default()
                .insert(fields[2].to_string());
        }
        let all: BTreeSet<&String> = xs.values().flatten().collect();
        eprintln!("{panel}: x = {all:?}");
        assert!(all.len() >= 3, "{panel}: points at {all:?}");
        assert_eq!(xs.len(), 5, "{panel}: one series per offline model");
    }
    let report = fs::read_to_string(reports.join("regression.md")).unwrap();
    assert!(!report.contains("not drawn"), "{report}");

    // `regress` alone, with its defaults, gives the coefficients table and report `run` wrote.
    let tables = out.join("tables");
    let coefficients = tables.join("coefficients/part-0.parquet");
    let from_run = fs::read(&coefficients).unwrap();
    let again = dir.path().join("again");
    advmath()
        .args(["regress", "--tables"])
        .arg(&tables)
        .arg("--report-dir")
        .arg(&again)
        .assert()
        .success();
    assert!(
        fs::read(&coefficients).unwrap() == from_run,
        "run and regress wrote different coefficients"
    );
    assert_eq!(
        fs::read_to_string(again.join("regression.md")).unwrap(),
        report
    );
}

/// Both fits against the Python reference on the same matrices (tests/python/check_regression.py):
/// `--method linear` equals numpy's minimum-norm least squares with an intercept (statsmodels'
/// OLS, the authors' default) to 1e-8, and the default logistic fit equals scikit-learn's
/// `LogisticRegression(C = 1)` optimum to 1e-6.
#[test]
fn linear_fit_equals_least_squares_and_logistic_fit_equals_scikit_learn() {
    if !crate::util::python_has("numpy, sklearn, pyarrow") {
        return;
    }
    let (dir, tables) = crate::util::small_tables();
    let coefficients = advmath::store::coefficients::file(&tables);
    let logistic = dir.path().join("logistic.parquet");
    fs::copy(&coefficients, &logistic).unwrap();
    advmath()
        .args(["regress", "--method", "linear", "--tables"])
        .arg(&tables)
        .arg("--report-dir")
        .arg(dir.path().join("linear-report"))
        .assert()
        .success();
    let linear = dir.path().join("linear.parquet");
    fs::copy(&coefficients, &linear).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/check_regression.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .args([&tables, &linear, &logistic])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    eprintln!("{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{report}");
    for method in ["linear", "logistic"] {
        let fits = report
            .lines()
            .filter(|l| l.contains(&format!("\"method\": \"{method}\"")))
            .count();
        assert!(fits >= 3, "{method}: {fits} fits compared");
    }
}
