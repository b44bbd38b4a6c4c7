//! `advmath sql` and the SQL engine: output formats, clear errors, the registered tables and
//! views, and the same metric results in DuckDB.

use std::path::Path;
use std::sync::Arc;

use advmath::metrics::{self, Cell, OutputFormat, ResultTable, SqlEngine, TableState};
use arrow::array::{ArrayRef, Int32Array, RecordBatch, StringArray};

use crate::fixtures::{every_metric_fixture, fixture, responses_batch};

use crate::util::{advmath, embedded_sql, skip, sql_csv, stderr_of};

#[test]
fn metrics_errors_are_clear() {
    let (dir, tables) = fixture();
    // A table that is not there.
    let err = metrics::run_sql(&tables, "SELECT * FROM features", OutputFormat::Csv).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("table `features` is missing")
            && msg.contains("features/dataset=<d>/attack=<a>"),
        "{msg}"
    );
    assert!(msg.contains("available tables: responses"), "{msg}");
    assert_eq!(err.exit_code(), 1);
    // A folder without Parquet files.
    std::fs::create_dir_all(tables.join("variants/dataset=toy")).unwrap();
    let engine = SqlEngine::open(&tables).unwrap();
    let variants = engine
        .tables()
        .iter()
        .find(|t| t.layout.name == "variants")
        .unwrap();
    assert_eq!(variants.state, TableState::Empty);
    let msg = engine
        .query("SELECT COUNT(*) FROM variants")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("table `variants` is empty"), "{msg}");
    // A malformed query, and one naming a column that does not exist: usage errors (exit 2).
    let err =
        metrics::run_sql(&tables, "SELEC model FROM responses", OutputFormat::Table).unwrap_err();
    // As the binary prints it: the error, then its cause (DataFusion's message).
    let chain = |e: &advmath::Error| {
        let mut text = e.to_string();
        let mut cause = std::error::Error::source(e);
        while let Some(c) = cause {
            text += &format!(": {c}");
            cause = c.source();
        }
        text
    };
    assert!(
        chain(&err).starts_with("SQL syntax: Expected: an SQL statement, found: SELEC")
            && chain(&err).contains("DataFusion SQL, as in the files under sql/"),
        "{}",
        chain(&err)
    );
    assert_eq!(err.exit_code(), 2);
    // A table name that is neither a table nor a view lists those there are.
    let err = metrics::run_sql(&tables, "SELECT * FROM respones", OutputFormat::Table).unwrap_err();
    assert!(
        chain(&err).starts_with("no table or view `respones` in ")
            && chain(&err).contains("the query can read: responses, "),
        "{}",
        chain(&err)
    );
    assert_eq!(err.exit_code(), 2);
    let err = metrics::run_sql(
        &tables,
        "SELECT no_such_column FROM responses",
        OutputFormat::Table,
    )
    .unwrap_err();
    assert!(chain(&err).contains("no_such_column"), "{}", chain(&err));
    assert_eq!(err.exit_code(), 2);
    // Read-only: no DDL or DML.
    let err =
        metrics::run_sql(&tables, "CREATE TABLE t AS SELECT 1", OutputFormat::Table).unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
    // No tables folder at all.
    let err =
        metrics::run_sql(&dir.path().join("nope"), "SELECT 1", OutputFormat::Table).unwrap_err();
    assert!(err.to_string().contains("no such tables folder"), "{err}");
    // run_metrics without responses, and with a responses table without rows.
    let empty = dir.path().join("empty-tables");
    std::fs::create_dir_all(&empty).unwrap();
    let err = metrics::run_metrics(&empty, &dir.path().join("o1")).unwrap_err();
    assert!(
        err.to_string()
            .contains("holds no advmath table; name the `tables/` folder of a run"),
        "{err}"
    );
    let no_rows = responses_batch(&[]);
    advmath::store::write_batch(&empty.join("responses/m/part-0.parquet"), &no_rows).unwrap();
    let err = metrics::run_metrics(&empty, &dir.path().join("o2")).unwrap_err();
    assert!(
        err.to_string().contains("table `responses` is empty"),
        "{err}"
    );
    // A broken user metric file names the metric.
    let sql_dir = dir.path().join("sql");
    std::fs::create_dir_all(&sql_dir).unwrap();
    std::fs::write(
        sql_dir.join("bad.sql"),
        "-- Table 0: broken\nSELECT nope FROM responses",
    )
    .unwrap();
    let mut config = metrics::MetricsConfig::new(&tables, dir.path().join("o3"));
    config.sql_dir = Some(sql_dir);
    let err = metrics::run_metrics_with(&config).unwrap_err();
    assert!(err.to_string().contains("metric bad"), "{err}");
}

#[test]
fn metrics_sql_command_output_formats() {
    let (dir, tables) = fixture();
    let q = "SELECT model, COUNT(*) AS n, AVG(CASE WHEN correct THEN 1.0 ELSE 0.0 END) AS acc \
             FROM responses WHERE template = 'xie2024' AND correct IS NOT NULL \
             GROUP BY model ORDER BY model";
    // model-a: 25 graded rows (5 originals + 20 variants; the NULL one is left out), model-b 25
    // (with the outside row), sim-c 24.
    let csv = metrics::run_sql(&tables, q, OutputFormat::Csv).unwrap();
    assert_eq!(csv.rows, 3);
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(lines[0], "model,n,acc");
    assert!(lines[1].starts_with("model-a,25,"), "{}", csv.text);
    assert!(lines[2].starts_with("model-b,25,"), "{}", csv.text);
    let jsonl = metrics::run_sql(&tables, q, OutputFormat::Jsonl).unwrap();
    let first: serde_json::Value =
        serde_json::from_str(jsonl.text.lines().next().unwrap()).unwrap();
    assert_eq!(first["model"], "model-a");
    assert_eq!(first["n"], 25);
    // `json` is one document: an array of the same rows.
    let json = metrics::run_sql(&tables, q, OutputFormat::Json).unwrap();
    let array: serde_json::Value = serde_json::from_str(&json.text).unwrap();
    assert_eq!(array.as_array().unwrap().len(), 3);
    assert_eq!(array[0], first);
    let table = metrics::run_sql(&tables, q, OutputFormat::Table).unwrap();
    assert!(table.text.contains("| model-a |"), "{}", table.text);
    // The shared views of sql/views/ are there for users too: `graded` leaves out model-b's
    // outside row, which matches no variant.
    let graded = metrics::run_sql(
        &tables,
        "SELECT model, COUNT(*) AS n FROM graded WHERE template = 'xie2024' \
         GROUP BY model ORDER BY model",
        OutputFormat::Csv,
    )
    .unwrap();
    assert_eq!(graded.text, "model,n\nmodel-a,25\nmodel-b,24\nsim-c,24\n");
    let path = dir.path().join("out/result.parquet");
    let pq = metrics::run_sql(&tables, q, OutputFormat::Parquet(path.clone())).unwrap();
    assert_eq!(pq.parquet.as_deref(), Some(path.as_path()));
    let batches = advmath::store::read_batches(&path).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
    assert_eq!(
        batches[0].schema().field(0).data_type(),
        &arrow::datatypes::DataType::Utf8
    );
    // An empty result still has its header.
    let none = metrics::run_sql(
        &tables,
        "SELECT model FROM responses WHERE 1 = 0",
        OutputFormat::Csv,
    )
    .unwrap();
    assert_eq!((none.rows, none.text.as_str()), (0, "model\n"));
    // The config form, from a file.
    let file = dir.path().join("q.sql");
    std::fs::write(&file, q).unwrap();
    let config = metrics::SqlConfig {
        tables: tables.clone(),
        query: metrics::QuerySource::File(file),
        format: OutputFormat::Csv,
        limits: metrics::EngineLimits {
            threads: Some(1),
            ..Default::default()
        },
    };
    let mut buf = Vec::new();
    assert_eq!(metrics::run_sql_config(&config, &mut buf).unwrap(), 3);
    assert_eq!(String::from_utf8(buf).unwrap(), csv.text);
}

/// Each metric ends with `ORDER BY` its key columns, in the order they appear; DataFusion must
/// honour it, also where an unnested list could lead it to drop sort keys it thinks redundant.
fn assert_sorted_by_keys(name: &str, t: &ResultTable) {
    const KEYS: &[&str] = &[
        "model",
        "template",
        "dataset",
        "attack",
        "source",
        "target",
        "cheap",
        "k",
        "bin",
        "noise_level",
    ];
    let keys: Vec<usize> = (0..t.columns.len())
        .filter(|&i| KEYS.contains(&t.columns[i].as_str()))
        .collect();
    let key = |r: usize| -> Vec<(Option<i64>, Option<String>)> {
        keys.iter()
            .map(|&i| {
                let c = &t.rows[r][i];
                (c.as_i64(), c.as_str().map(str::to_string))
            })
            .collect()
    };
    for r in 1..t.len() {
        assert!(
            key(r - 1) <= key(r),
            "{name}: rows {} and {r} out of order",
            r - 1
        );
    }
}

/// Every embedded metric gives the same rows in DuckDB (tests/python/duckdb_parity.py) as in
/// DataFusion, on both fixtures plus hive-partitioned tables.
#[test]
fn metrics_duckdb_parity() {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        skip("metrics_duckdb_parity needs python3 with duckdb (pip install duckdb)");
        return;
    }
    let (dir, tables) = every_metric_fixture();
    crate::efficient::write_table5_fixture(&tables);
    crate::annotate::write_annotation_fixture(&tables);
    let engine = SqlEngine::open(&tables).unwrap();
    let mut results = serde_json::Map::new();
    for (name, text) in embedded_sql().iter() {
        let t = engine.query_table(text).unwrap();
        assert!(!t.is_empty(), "{name} has rows on the fixture");
        assert_sorted_by_keys(name, &t);
        results.insert(name.to_string(), t.to_json());
    }
    let json = dir.path().join("datafusion.json");
    std::fs::write(&json, serde_json::Value::Object(results).to_string()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(root.join("tests/python/duckdb_parity.py"))
        .arg(&tables)
        .arg(root.join("sql"))
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "DuckDB parity failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains(&format!(
            "{} passed, 0 failed",
            advmath::metrics::METRICS.len()
        )),
        "{stdout}"
    );
}

#[test]
fn metrics_hive_tables_are_registered_with_partition_columns() {
    let (dir, tables) = fixture();
    // A variants partition written the way `advmath generate` does (dataset and attack only in
    // the path), plus an unrelated flat table.
    let numbers = {
        let mut b = arrow::array::ListBuilder::new(arrow::array::StringBuilder::new()).with_field(
            Arc::new(arrow::datatypes::Field::new(
                "item",
                arrow::datatypes::DataType::Utf8,
                false,
            )),
        );
        b.values().append_value("3");
        b.append(true);
        Arc::new(b.finish()) as ArrayRef
    };
    let batch = RecordBatch::try_new(
        advmath::store::variants::schema(),
        vec![
            Arc::new(StringArray::from(vec!["toy/test/0/m3/0"])),
            Arc::new(StringArray::from(vec!["toy/test/0"])),
            Arc::new(Int32Array::from(vec![0])),
            Arc::new(Int32Array::from(vec![0])),
            Arc::new(StringArray::from(vec!["q"])),
            Arc::new(StringArray::from(vec!["1"])),
            Arc::new(StringArray::from(vec!["1"])),
            numbers,
            Arc::new(arrow::array::UInt64Array::from(vec![7u64])),
            Arc::new(Int32Array::from(vec![1])),
            Arc::new(arrow::array::Int64Array::from(vec![None::<i64>])),
        ],
    )
    .unwrap();
    advmath::store::write_batch(
        &tables.join("variants/dataset=toy/attack=m3/part-0.parquet"),
        &batch,
    )
    .unwrap();
    let engine = SqlEngine::open(&tables).unwrap();
    assert_eq!(engine.registered(), vec!["variants", "responses"]);
    let t = engine
        .query_table(
            "SELECT v.dataset, v.attack, v.variant_index, COUNT(*) AS answers \
             FROM variants v JOIN responses r ON r.variant_id = v.variant_id \
             GROUP BY v.dataset, v.attack, v.variant_index",
        )
        .unwrap();
    assert_eq!(
        t.rows,
        vec![vec![
            Cell::Text("toy".into()),
            Cell::Text("m3".into()),
            Cell::Int(0),
            Cell::Int(3)
        ]]
    );
    drop(dir);
}

/// `sql --output` never writes among the tables it reads, and CSV output writes list columns as
/// JSON text.
#[test]
fn sql_output_stays_out_of_the_tables_and_csv_writes_lists() {
    let (_dir, tables) = fixture();
    let inside = tables.join("responses/result.parquet");
    let out = advmath()
        .args(["sql", "SELECT 1 AS one", "--format", "parquet", "--output"])
        .arg(&inside)
        .arg("--tables")
        .arg(&tables)
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("inside the tables folder"), "{stderr}");
    assert!(!inside.exists());
    assert_eq!(
        sql_csv(
            &tables,
            "SELECT 'a' AS s, make_array(1, 2) AS l, CAST(NULL AS INT) AS n"
        ),
        "s,l,n\na,\"[1,2]\",\n"
    );
}

/// `sql` is bounded: a query past `--timeout` or past `--memory-limit` fails with exit 1 and says
/// which bound it hit, instead of running for hours or aborting the process.
#[test]
fn sql_queries_are_bounded_in_time_and_memory() {
    let (_dir, tables) = fixture();
    let start = std::time::Instant::now();
    let out = advmath()
        .args([
            "sql",
            "--timeout",
            "2",
            "SELECT sum(a.value * b.value) FROM generate_series(1, 100000) a \
             CROSS JOIN generate_series(1, 100000) b",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .code(1);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("longer than 2 s (its time limit)"),
        "{stderr}"
    );
    // Ten billion products: unbounded, this runs for many minutes.
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    let out = advmath()
        .args([
            "sql",
            "--memory-limit",
            "100MiB",
            "SELECT count(DISTINCT a.value * 100003 + b.value) FROM generate_series(1, 10000) a \
             CROSS JOIN generate_series(1, 10000) b",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .code(1);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("more than its memory limit of 104857600 bytes"),
        "{stderr}"
    );
    // Within the bounds, the same kind of query answers.
    advmath()
        .args([
            "sql",
            "--timeout",
            "30",
            "--memory-limit",
            "1GiB",
            "--format",
            "csv",
            "SELECT count(DISTINCT value) AS n FROM generate_series(1, 1000)",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success()
        .stdout("n\n1000\n");
}

/// `docs/tables.md` ends with every SQL view a user can query, written from the views' own
/// files (rewritten with `ADVMATH_UPDATE_DOCS=1`), so the reference names what `SHOW TABLES`
/// lists.
#[test]
fn views_md_documents_every_view() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tables.md");
    let found = std::fs::read_to_string(&path).unwrap();
    let tables = found
        .split_once(&format!("\n{}", metrics::VIEWS_MARKER))
        .map_or(found.as_str(), |(t, _)| t)
        .trim_end_matches('\n');
    let expected = format!("{tables}\n\n{}", metrics::views_markdown());
    if std::env::var_os("ADVMATH_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    assert_eq!(
        found, expected,
        "docs/tables.md lacks the views as sql/views/ writes them: rerun with ADVMATH_UPDATE_DOCS=1"
    );
    for (name, _) in metrics::EMBEDDED_VIEWS {
        assert!(found.contains(&format!("### {name}\n")), "{name}");
    }
}

/// A newcomer explores the tables the way SQL users do: SHOW TABLES lists the tables and the
/// views, DESCRIBE gives a table's columns, information_schema answers queries, and JSON output
/// is one document (JSON Lines on request).
#[test]
fn the_tables_can_be_explored_with_show_describe_and_information_schema() {
    let (_dir, tables) = crate::util::small_tables();
    let shown = crate::util::sql_csv(&tables, "SHOW TABLES");
    for name in [
        "problems",
        "variants",
        "responses",
        "graded",
        "paper_accuracy",
    ] {
        assert!(
            shown.contains(&format!(",{name},")),
            "{name} missing from SHOW TABLES:\n{shown}"
        );
    }
    let described = crate::util::sql_csv(&tables, "DESCRIBE variants");
    assert!(described.contains("variant_id,Utf8"), "{described}");
    let counted = crate::util::sql_csv(
        &tables,
        "SELECT COUNT(*) AS n FROM information_schema.columns WHERE table_name = 'graded'",
    );
    assert_ne!(counted.trim(), "n\n0", "{counted}");
}

/// Responses written before replies were read for abstention (or before the run column) have
/// neither column: the views read them as null, and every metric still runs.
#[test]
fn responses_written_before_their_later_columns_still_read() {
    let (dir, tables) = fixture();
    let old = dir.path().join("old");
    let parts = advmath::store::parquet_files_under(&tables.join("responses")).unwrap();
    for (entry, _) in parts {
        let batch = advmath::store::read_batches(&entry).unwrap().remove(0);
        let keep: Vec<usize> = (0..batch.num_columns())
            .filter(|&i| !["run", "abstained"].contains(&batch.schema().field(i).name().as_str()))
            .collect();
        let target = old.join(entry.strip_prefix(&tables).unwrap());
        advmath::store::write_batch(&target, &batch.project(&keep).unwrap()).unwrap();
    }
    let out = sql_csv(
        &old,
        "SELECT COUNT(*) > 0 AS rows, COUNT(abstained) AS read, COUNT(DISTINCT run) AS runs \
         FROM graded",
    );
    assert_eq!(out, "rows,read,runs\ntrue,0,1\n");
    let summary = metrics::run_metrics(&old, &dir.path().join("metrics")).unwrap();
    assert!(summary
        .metrics
        .iter()
        .any(|m| m.name == "abstention" && m.rows == 0));
}
