//! `report.html` of the default run, opened in headless Chromium and used as a reader would
//! (`tests/python/report_browser.py` drives it over the DevTools protocol): every section renders,
//! a column sorts both ways, the example browser shows the stored reply of the model and variant
//! picked with the extracted answer marked, the plots carry their exact figures, and the page
//! makes no request. The screenshot is kept as `target/report-browser.png`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::util::{advmath, skip, sql_csv, stdout_of};

fn chromium() -> Option<String> {
    let candidates = [
        std::env::var("CHROMIUM").ok(),
        Some("chromium".into()),
        Some("chromium-browser".into()),
    ];
    candidates.into_iter().flatten().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The first row of a CSV query's answer, split on commas (the values asked for hold none).
fn first_row(csv: &str) -> Vec<String> {
    let line = csv.lines().nth(1).expect("a row");
    line.split(',').map(str::to_string).collect()
}

#[test]
fn the_default_runs_report_opens_sorts_and_browses_offline_in_chromium() {
    let Some(browser) = chromium() else {
        return skip("no chromium on PATH (Debian's package `chromium`)");
    };
    let dir = crate::util::default_run();
    let metrics = dir.path().join("reports/metrics");
    let report = metrics.join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    let tables = dir.path().join("tables");

    // An adversarial example of the sample, and the reply stored for it.
    let sample = advmath()
        .args(["sql", "--format", "jsonl", "--tables"])
        .arg(&tables)
        .arg("--file")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("sql/report/examples.sql"))
        .assert()
        .success();
    let rows: Vec<Value> = stdout_of(&sample)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let example = rows
        .iter()
        .find(|r| r["adversarial"] == true && r["attack"] == "m3")
        .expect("the default run has an M3 adversarial example");
    let (variant, model, template) = (
        example["variant_id"].as_str().unwrap(),
        example["model"].as_str().unwrap(),
        example["template"].as_str().unwrap(),
    );
    let stored = first_row(&sql_csv(
        &tables,
        &format!(
            "SELECT extracted, length(response) AS chars FROM responses WHERE variant_id = '{variant}' AND model = '{model}' AND template = '{template}'"
        ),
    ));
    let stored_reply = advmath()
        .args(["sql", "--format", "jsonl", "--tables"])
        .arg(&tables)
        .arg(format!(
            "SELECT response FROM responses WHERE variant_id = '{variant}' AND model = '{model}' AND template = '{template}'"
        ))
        .assert()
        .success();
    let stored_reply: Value =
        serde_json::from_str(stdout_of(&stored_reply).lines().next().unwrap()).unwrap();

    let screenshot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-browser.png");
    let out = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/report_browser.py"))
        .arg(&report)
        .arg(&screenshot)
        .args([example["dataset"].as_str().unwrap(), "m3", variant])
        .arg(format!("{model} · {template}"))
        .env("CHROMIUM", &browser)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the browser driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();

    // Every section renders, each metric with all the rows of its CSV.
    let sections = seen["sections"].as_array().unwrap();
    let csvs = std::fs::read_dir(&metrics)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "csv")
        })
        .count();
    assert_eq!(
        sections.len(),
        csvs + 1,
        "a section per metric and the examples: {sections:?}"
    );
    for s in sections {
        assert_eq!(s["visible"], true, "{s}");
        assert!(!s["heading"].as_str().unwrap().is_empty(), "{s}");
        let id = s["id"].as_str().unwrap();
        if id != "examples" {
            let csv = std::fs::read_to_string(metrics.join(format!("{id}.csv"))).unwrap();
            // The page holds a table's first 2,000 rows; the CSV has them all.
            let rows = (csv.lines().count() - 1).min(2000);
            assert_eq!(s["rows"].as_u64().unwrap() as usize, rows, "{id}");
        }
    }
    assert!(
        sections.iter().any(|s| s["svgs"].as_u64().unwrap() > 0),
        "the plots are inline"
    );

    // Sorting a column reorders it: ascending, then descending, the same values.
    let sorting = &seen["sorting"];
    let values = |k: &str| -> Vec<f64> {
        sorting[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (before, up, down) = (values("before"), values("up"), values("down"));
    let mut sorted = before.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(up, sorted, "{sorting}");
    assert_eq!(
        down,
        sorted.iter().rev().copied().collect::<Vec<_>>(),
        "{sorting}"
    );
    assert_ne!(before, up, "the column was not in order already: {sorting}");
    assert_eq!(sorting["state"], "descending");

    // The example browser shows the stored reply with the extracted answer marked.
    let shown = &seen["example"];
    assert_eq!(
        shown["picked"],
        serde_json::json!([true, true, true, true]),
        "{shown}"
    );
    assert_eq!(shown["variant_heading"], format!("Variant {variant}"));
    assert_eq!(shown["reply"], stored_reply["response"], "{shown}");
    assert_eq!(
        shown["reply"].as_str().unwrap().chars().count().to_string(),
        stored[1]
    );
    assert_eq!(shown["marked"], serde_json::json!([stored[0]]), "{shown}");
    assert!(shown["read_as"]
        .as_str()
        .unwrap()
        .contains(&format!("reply read as {}", stored[0])));
    assert!(
        shown["verdict"]
            .as_str()
            .unwrap()
            .starts_with("An adversarial example for"),
        "{shown}"
    );
    assert!(
        !shown["changed"].as_array().unwrap().is_empty(),
        "M3 changed a number: {shown}"
    );

    // The plots' tips give exact figures: the attack curve's, as its CSV holds them.
    let tips: Vec<&str> = seen["tips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(!tips.is_empty());
    let curve = std::fs::read_to_string(metrics.join("xie_attack_curve.csv")).unwrap();
    let header: Vec<&str> = curve.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let row: Vec<&str> = curve.lines().nth(1).unwrap().split(',').collect();
    let figure = row[column("aa")];
    assert!(
        tips.iter().any(|t| t.ends_with(&format!(" {figure}"))),
        "no tip shows the attack curve's {figure}: {tips:?}"
    );

    // Nothing but the page itself was requested; no script error.
    assert_eq!(
        seen["requests"],
        serde_json::json!([seen["url"]]),
        "{}",
        seen["requests"]
    );
    assert_eq!(seen["exceptions"], serde_json::json!([]));
    assert_eq!(seen["console_errors"], serde_json::json!([]));
    assert!(screenshot.is_file());
}

/// The report's sample of adversarial examples is portable SQL, as the metrics are: DuckDB gives
/// the rows DataFusion gives on the default run (`tests/python/duckdb_parity.py`, over a folder
/// holding the shared views and the report's query alone).
#[test]
fn the_example_sample_gives_the_same_rows_in_duckdb() {
    if !crate::util::python_has("duckdb") {
        return;
    }
    let dir = crate::util::default_run();
    let tables = dir.path().join("tables");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let query = std::fs::read_to_string(root.join("sql/report/examples.sql")).unwrap();
    let examples = advmath::metrics::SqlEngine::open(&tables)
        .unwrap()
        .query_table(&query)
        .unwrap();
    assert!(examples.len() > 100, "{} rows", examples.len());
    let sql = dir.path().join("sql");
    crate::util::copy_dir(&root.join("sql/views"), &sql.join("views"));
    std::fs::create_dir_all(sql.join("report")).unwrap();
    std::fs::write(sql.join("report/examples.sql"), &query).unwrap();
    let json = dir.path().join("datafusion.json");
    let results = serde_json::json!({ "report/examples": examples.to_json() });
    std::fs::write(&json, results.to_string()).unwrap();
    let out = Command::new("python3")
        .arg(root.join("tests/python/duckdb_parity.py"))
        .arg(&tables)
        .arg(&sql)
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed, 0 failed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
