//! A run is a unit: the same model asked again under other settings is a second run, shown
//! beside the first in every metric (Table 5's efficient runs and the miss-rate sheets included)
//! and never pooled with it; asked again under the same settings, it resumes and adds nothing.

use advmath::metrics::{Cell, ResultTable, SqlEngine};

use std::time::Duration;

use advmath::store::responses::stored_rows;

use crate::server::{spawn, Reply};
use crate::util::{advmath, embedded_sql, ingest, small_tables, stdout_of};

/// The rows of `table` whose column `column` is `value`.
fn rows_where(table: &ResultTable, column: &str, value: &str) -> Vec<Vec<Cell>> {
    let Some(c) = table.column(column) else {
        return Vec::new();
    };
    table
        .rows
        .iter()
        .filter(|r| r[c].as_str() == Some(value))
        .cloned()
        .collect()
}

/// A miss-rate sheet of sim-carry's replies: (model, variant, reply) per row.
fn miss_rate_sheet(tables: &std::path::Path) -> Vec<(String, String, String)> {
    let sheet = tables.parent().unwrap().join("miss_rate.csv");
    crate::util::draw_miss_rate_sheet(tables, "sim-carry", &sheet);
    let mut rows: Vec<(String, String, String)> = advmath::respond::outside::read_csv(&sheet)
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                r["model"].clone(),
                r["variant_id"].clone(),
                r["response"].clone(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// Metrics that compare models with each other: a second run is one more model there, so its
/// rows change by design (Table 4 counts the models that share an example; Figure 3 is checked
/// apart, cell by cell).
const ACROSS_MODELS: [&str; 2] = ["xie_universal", "xie_transfer"];

/// Figure 3's cells (template, dataset, attack, model_a, model_b, ...), with `renamed`'s model
/// names rewritten, the rows naming `without` left out, in one order.
fn transfer_cells(
    tables: &std::path::Path,
    renamed: (&str, &str),
    without: &str,
) -> Vec<Vec<Cell>> {
    let sql = embedded_sql()
        .iter()
        .find(|(name, _)| *name == "xie_transfer")
        .unwrap()
        .1;
    let table = SqlEngine::open(tables).unwrap().query_table(sql).unwrap();
    let pair = [
        table.column("model_a").unwrap(),
        table.column("model_b").unwrap(),
    ];
    let mut rows: Vec<Vec<Cell>> = table
        .rows
        .iter()
        .filter(|r| pair.iter().all(|&c| r[c].as_str() != Some(without)))
        .map(|r| {
            let mut r = r.clone();
            for c in pair {
                if r[c].as_str() == Some(renamed.0) {
                    r[c] = Cell::Text(renamed.1.to_string());
                }
            }
            r
        })
        .collect();
    rows.sort_by_key(|r| format!("{r:?}"));
    rows
}

/// The rows of `table` whose `model` is `model`, each with `model` rewritten to `as_model`.
fn rows_of(table: &ResultTable, model: &str, as_model: &str) -> Vec<Vec<Cell>> {
    let Some(m) = table.column("model") else {
        return Vec::new();
    };
    table
        .rows
        .iter()
        .filter(|r| r[m].as_str() == Some(model))
        .map(|r| {
            let mut r = r.clone();
            r[m] = Cell::Text(as_model.to_string());
            r
        })
        .collect()
}

/// Equal rows, floats to 1e-12 (a mean's sum may be added up in another order).
fn same(a: &[Vec<Cell>], b: &[Vec<Cell>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| match (p, q) {
                    (Cell::Float(p), Cell::Float(q)) => (p - q).abs() <= 1e-12 * p.abs().max(1.0),
                    _ => p == q,
                })
        })
}

fn metrics(tables: &std::path::Path) -> Vec<(&'static str, ResultTable)> {
    let engine = SqlEngine::open(tables).unwrap();
    embedded_sql()
        .iter()
        .filter(|(name, _)| !ACROSS_MODELS.contains(name) && *name != "xie_generations")
        .map(|(name, sql)| (*name, engine.query_table(sql).unwrap()))
        .collect()
}

fn respond_again(tables: &std::path::Path) -> String {
    let out = advmath()
        .args(["respond", "--model", "sim-carry", "--attack", "m3"])
        .args(["--temperature", "0.3", "--tables"])
        .arg(tables)
        .assert()
        .success();
    stdout_of(&out)
}

#[test]
fn a_second_run_of_a_model_is_a_second_row_of_every_metric_never_pooled() {
    let (_dir, tables) = small_tables();
    // An efficient run of sim-carry (Table 5), made with the default settings.
    advmath()
        .args([
            "respond",
            "--model",
            "sim-carry",
            "--efficient-from",
            "sim-careful",
        ])
        .args(["--attack", "m3", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let before = metrics(&tables);
    let sheet_before = miss_rate_sheet(&tables);
    let second_run = "sim-carry [temperature=0.3]";
    let transfer_before = transfer_cells(&tables, ("", ""), second_run);

    let first = respond_again(&tables);
    let again = respond_again(&tables);
    let after = metrics(&tables);

    // The rerun with the same settings asks nothing and writes nothing.
    let counts = |out: &str| -> (i64, i64) {
        let line = out.lines().find(|l| l.starts_with("sim-carry\t")).unwrap();
        let f: Vec<&str> = line.split('\t').collect();
        // model, requests, shared, reused, skipped, written, ...
        (f[4].parse().unwrap(), f[5].parse().unwrap())
    };
    let (skipped, written) = counts(&first);
    assert_eq!(skipped, 0, "{first}");
    assert!(written > 0, "{first}");
    assert_eq!(counts(&again), (written, 0), "{again}");

    let attack_is = |table: &ResultTable, row: &[Cell], attacks: &[&str]| {
        table
            .column("attack")
            .is_none_or(|a| attacks.contains(&row[a].as_str().unwrap_or("")))
    };
    let mut compared = 0;
    for ((name, was), (_, now)) in before.iter().zip(&after) {
        // Table 5 names the target with its run in a column of its own: the default run's rows,
        // and the full attack they compare with, are unchanged by the second run.
        let efficient = rows_where(was, "target", "sim-carry");
        if !efficient.is_empty() {
            let now_rows = rows_where(now, "target", "sim-carry");
            assert!(
                same(&now_rows, &efficient),
                "{name}: the efficient run changed: {now_rows:?} vs {efficient:?}"
            );
            let full = was.column("full_problems").unwrap();
            assert!(
                efficient.iter().all(|r| r[full].as_i64() > Some(0)),
                "{name}: {efficient:?}"
            );
            compared += 1;
            continue;
        }
        let single = rows_of(was, "sim-carry", "sim-carry");
        if single.is_empty() {
            continue;
        }
        assert!(
            rows_of(now, "sim-carry", "sim-carry").is_empty(),
            "{name}: the two runs pooled under the plain name"
        );
        // The first run's figures are unchanged by the second.
        let first_run = rows_of(now, "sim-carry [default]", "sim-carry");
        assert!(
            same(&first_run, &single),
            "{name}: the first run changed: {first_run:?} vs {single:?}"
        );
        // The second run answered the originals and m3 (an offline model answers the same at
        // any temperature): per attack, its rows are the first run's rows of those attacks.
        let mut second = rows_of(now, "sim-carry [temperature=0.3]", "sim-carry");
        let mut expected: Vec<Vec<Cell>> = single
            .iter()
            .filter(|r| attack_is(was, r, &["m3", "original"]))
            .cloned()
            .collect();
        // The problems a run shares across its attacks depend on which attacks it was asked:
        // the second run was asked two, the first every one.
        if let Some(c) = was.column("shared_problems") {
            for r in second.iter_mut().chain(expected.iter_mut()) {
                r[c] = Cell::Null;
            }
        }
        if was.column("attack").is_some() {
            assert!(
                same(&second, &expected),
                "{name}: the second run's rows: {second:?} vs {expected:?}"
            );
        }
        eprintln!(
            "{name}: first run {} rows, second run {} rows",
            single.len(),
            second.len()
        );
        compared += 1;
    }
    assert!(compared >= 7, "metrics compared: {compared}");

    // Figure 3 pairs models, so the second run is one more row and column of it; every cell
    // between the other runs is as it was.
    let transfer_after = transfer_cells(&tables, ("sim-carry [default]", "sim-carry"), second_run);
    assert!(!transfer_before.is_empty());
    assert!(
        same(&transfer_after, &transfer_before),
        "Figure 3's cells changed: {transfer_after:?} vs {transfer_before:?}"
    );
    assert!(
        transfer_cells(&tables, ("", ""), "none").len() > transfer_after.len(),
        "the second run has no cells of its own"
    );

    // A miss-rate sheet drawn now shows the two runs apart: the first run's replies as before.
    let sheet_after = miss_rate_sheet(&tables);
    let of = |rows: &[(String, String, String)], model: &str| -> Vec<(String, String)> {
        rows.iter()
            .filter(|r| r.0 == model)
            .map(|r| (r.1.clone(), r.2.clone()))
            .collect()
    };
    assert!(
        of(&sheet_after, "sim-carry").is_empty(),
        "the sheet pools the runs"
    );
    assert_eq!(
        of(&sheet_after, "sim-carry [default]"),
        of(&sheet_before, "sim-carry")
    );
    assert!(!of(&sheet_after, "sim-carry [temperature=0.3]").is_empty());
}

/// Two variants with the same question share one reply when decoding is greedy (it would give the
/// same text again) and get a sample each when it samples (`--temperature` above 0): a sampling
/// run measures each variant, as the authors' code at temperature 0.1 does.
#[test]
fn identical_questions_share_a_reply_only_when_decoding_is_greedy() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("twice.jsonl");
    let line = |id: &str| {
        format!(
            "{{\"id\": \"{id}\", \"question\": \"Tom has 15 apples and buys 27 more. How many apples does he have?\", \"answer\": \"42\", \"program\": \"a = 15\\nb = 27\\nans = a + b\"}}\n"
        )
    };
    std::fs::write(&input, line("a") + &line("b")).unwrap();
    for (temperature, requests) in [("0", 1), ("0.3", 2)] {
        let tables = dir.path().join(format!("t{temperature}"));
        ingest(&tables, &[&input]).success();
        advmath()
            .args(["generate", "--attack", "punct", "--tables"])
            .arg(&tables)
            .assert()
            .success();
        let server = spawn(|_| Reply::Ok, Duration::ZERO);
        advmath()
            .args(["respond", "--model", "test-model", "--attack", "original"])
            .args(["--temperature", temperature, "--tables"])
            .arg(&tables)
            .arg("--endpoint")
            .arg(format!("http://127.0.0.1:{}", server.port))
            .assert()
            .success();
        assert_eq!(
            server.requests.load(std::sync::atomic::Ordering::SeqCst),
            requests,
            "temperature {temperature}"
        );
        let rows = stored_rows(&tables, "test-model").unwrap();
        assert_eq!(
            rows.len(),
            2,
            "temperature {temperature}: a row per variant"
        );
    }
}
