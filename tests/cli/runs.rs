//! A run is a unit: the same model asked again under other settings is a second run, shown
//! beside the first in every metric and never pooled with it; asked again under the same
//! settings, it resumes and adds nothing.

use advmath::metrics::{Cell, ResultTable, SqlEngine, EMBEDDED_SQL};

use crate::util::{advmath, small_tables, stdout_of};

/// Metrics that compare models with each other: a second run is one more model there, so its
/// rows change by design.
const ACROSS_MODELS: [&str; 2] = ["xie_universal", "xie_transfer"];

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
    EMBEDDED_SQL
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
    let before = metrics(&tables);

    let first = respond_again(&tables);
    let again = respond_again(&tables);
    let after = metrics(&tables);

    // The rerun with the same settings asks nothing and writes nothing.
    let counts = |out: &str| -> (i64, i64) {
        let line = out.lines().find(|l| l.starts_with("sim-carry\t")).unwrap();
        let f: Vec<&str> = line.split('\t').collect();
        (f[2].parse().unwrap(), f[3].parse().unwrap())
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
        let second = rows_of(now, "sim-carry [temperature=0.3]", "sim-carry");
        let expected: Vec<Vec<Cell>> = single
            .iter()
            .filter(|r| attack_is(was, r, &["m3", "original"]))
            .cloned()
            .collect();
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
    assert!(compared >= 6, "metrics compared: {compared}");
}
