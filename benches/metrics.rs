//! Benchmark: the whole metrics suite (`advmath::metrics::run_metrics`, every `sql/*.sql` file)
//! at scale. Run: `cargo bench --bench metrics`.
//!
//! A synthetic `responses` table of 10 million rows (20 models x 500,000 variants: 20,000
//! problems x (1 original + m1, m2, m3 x 7 variants + punct10/30/50 x 1)) is written to a
//! temporary folder, one Parquet file per model as `advmath respond` lays it out. Correctness is
//! a deterministic hash draw: a variant's hardness shared by all models plus a per-model draw,
//! against a skill from 0.55 to 0.95, so adversarial examples overlap between models (transfer,
//! universal attacks) as they do with real models. Two models are simulated (`sim-` names).
//! `ADVMATH_BENCH_MODELS` and `ADVMATH_BENCH_PROBLEMS` change the size.
//!
//! Goals: the suite in under 5 s at the default 10 M rows, peak RSS (VmHWM, reset after the
//! synthetic table is written) under 4 GiB at any size, and, at the default size, no slower than
//! DuckDB running the same SQL files on the same Parquet files (`python3
//! tests/python/duckdb_parity.py --bench`, in its own process), both with the shared views as
//! written and with them materialised once as tables (`--materialise`), as advmath's metrics run
//! computes them once; larger runs print the ratios. The DuckDB runs are skipped,
//! saying so, without python3 + duckdb. Exits 1 when a goal is missed. No real data is read.

#[path = "common.rs"]
#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use advmath::seed::{fnv1a, mix};
use advmath::store::AtomicParquet;
use arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};

const VARIANTS_PER_ATTACK: [(&str, i32, usize); 7] = [
    ("original", 0, 1),
    ("m1", 0, 7),
    ("m2", 0, 7),
    ("m3", 0, 7),
    ("punct10", 10, 1),
    ("punct30", 30, 1),
    ("punct50", 50, 1),
];
const BATCH: usize = 64 * 1024;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn uniform(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// One row of the synthetic table, before it becomes Arrow columns.
struct Row {
    problem_id: String,
    attack: &'static str,
    noise: i32,
    variant_id: String,
    correct: bool,
}

fn model_name(m: usize) -> String {
    if m < 2 {
        format!("sim-bench-{m:02}")
    } else {
        format!("bench-model-{m:02}")
    }
}

fn batch(model: &str, simulated: bool, rows: &[Row]) -> RecordBatch {
    let n = rows.len();
    let same = |s: &str| -> ArrayRef { Arc::new(StringArray::from(vec![s; n])) };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| format!("{model}|{}", r.variant_id)),
        )),
        same(model),
        same("xie2024"),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.variant_id.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.problem_id.as_str()),
        )),
        same("synth"),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.attack))),
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.noise))),
        same("How many apples are left?"),
        same("The answer is 42."),
        same("42"),
        same("answer_is"),
        same("42"),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| Some(r.correct)).collect::<Vec<_>>(),
        )),
        Arc::new(BooleanArray::from(
            rows.iter().map(|r| Some(r.correct)).collect::<Vec<_>>(),
        )),
        Arc::new(Float64Array::from(vec![120.0; n])),
        Arc::new(Int64Array::from(vec![60; n])),
        Arc::new(Int64Array::from(vec![12; n])),
        same("stop"),
        same(if simulated { "simulated" } else { "endpoint" }),
        Arc::new(BooleanArray::from(vec![simulated; n])),
        Arc::new(StringArray::from(vec![None::<&str>; n])),
    ];
    RecordBatch::try_new(advmath::store::responses::schema(), columns).expect("responses schema")
}

/// Write `models` files of `problems` x 25 rows under `tables/responses/`; returns the row count.
fn write_responses(tables: &Path, models: usize, problems: usize) -> usize {
    let mut total = 0;
    for m in 0..models {
        let model = model_name(m);
        let simulated = m < 2;
        let skill = 0.55 + 0.4 * m as f64 / (models.max(2) - 1) as f64;
        let path = tables.join("responses").join(&model).join("part-0.parquet");
        let mut w = AtomicParquet::create(&path, advmath::store::responses::schema()).unwrap();
        let mut rows = Vec::with_capacity(BATCH);
        for p in 0..problems {
            let problem_id = format!("synth/test/{p}");
            for (attack, noise, count) in VARIANTS_PER_ATTACK {
                for i in 0..count {
                    let variant_id = format!("{problem_id}/{attack}/{i}");
                    let hardness = uniform(mix(fnv1a(variant_id.as_bytes())));
                    let own = uniform(mix(fnv1a(variant_id.as_bytes()) ^ mix(m as u64 + 1)));
                    rows.push(Row {
                        problem_id: problem_id.clone(),
                        attack,
                        noise,
                        variant_id,
                        correct: 0.5 * hardness + 0.5 * own < skill,
                    });
                    if rows.len() == BATCH {
                        w.write(&batch(&model, simulated, &rows)).unwrap();
                        total += rows.len();
                        rows.clear();
                    }
                }
            }
        }
        if !rows.is_empty() {
            w.write(&batch(&model, simulated, &rows)).unwrap();
            total += rows.len();
        }
        w.finish().unwrap();
    }
    total
}

fn main() {
    let models = env_usize("ADVMATH_BENCH_MODELS", 20);
    let problems = env_usize("ADVMATH_BENCH_PROBLEMS", 20_000);
    let dir = tempfile::tempdir().expect("temporary folder");
    // ADVMATH_BENCH_DIR keeps the synthetic table there (and reuses it) for profiling.
    let tables = match std::env::var_os("ADVMATH_BENCH_DIR") {
        Some(d) => Path::new(&d).join("tables"),
        None => dir.path().join("tables"),
    };
    let t = Instant::now();
    let rows = if tables.join("responses").is_dir() {
        models * problems * 25
    } else {
        write_responses(&tables, models, problems)
    };
    println!(
        "synthetic responses: {rows} rows ({models} models x {} variants) written in {:.1} s",
        rows / models.max(1),
        t.elapsed().as_secs_f64()
    );
    // The peak from here on is the metrics run's own, not the synthetic table's writer's.
    common::reset_peak_rss();
    let rss_before = common::peak_rss_mib();

    let out = dir.path().join("metrics");
    let t = Instant::now();
    let summary = advmath::metrics::run_metrics(&tables, &out).expect("metrics run");
    let seconds = t.elapsed().as_secs_f64();
    let rss = common::peak_rss_mib();
    for m in &summary.metrics {
        println!("  {:<28} {:>7} rows {:>7.2} s", m.name, m.rows, m.seconds);
    }
    println!("advmath (DataFusion): {seconds:.2} s, peak RSS {rss:.0} MiB (at the start: {rss_before:.0} MiB)");

    let mut failed = Vec::new();
    // The time goal is set for the default size; larger runs report their time beside DuckDB's.
    if rows <= 10_000_000 && seconds >= 5.0 {
        failed.push(format!(
            "suite took {seconds:.1} s (goal: under 5 s at 10 M rows)"
        ));
    }
    if rss >= 4096.0 {
        failed.push(format!("peak RSS {rss:.0} MiB (goal: under 4096 MiB)"));
    }

    let has_duckdb = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if has_duckdb {
        for (label, flags) in [
            ("views as written", &["--bench"][..]),
            (
                "shared views materialised",
                &["--bench", "--materialise"][..],
            ),
        ] {
            match duckdb(&tables, flags) {
                Ok((duck, duck_rss)) => {
                    let ratio = seconds / duck;
                    println!(
                        "DuckDB ({label}; python, same SQL files and Parquet): {duck:.2} s, peak RSS {duck_rss:.0} MiB; advmath / DuckDB = {ratio:.2}"
                    );
                    // Like the time goal, the ratio goals are set for the default size.
                    if rows <= 10_000_000 && (ratio.is_nan() || ratio > 1.0) {
                        failed.push(format!(
                            "{ratio:.2}x DuckDB's time with {label} (goal: at most 1.0x)"
                        ));
                    }
                }
                Err(e) => failed.push(e),
            }
        }
    } else {
        println!("SKIPPED: the DuckDB comparison needs python3 with duckdb (pip install duckdb)");
    }

    common::finish(&failed);
}

/// DuckDB on the same SQL files and Parquet, in its own process: (seconds, peak RSS in MiB).
fn duckdb(tables: &Path, flags: &[&str]) -> Result<(f64, f64), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(root.join("tests/python/duckdb_parity.py"))
        .args(flags)
        .arg(tables)
        .arg(root.join("sql"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "DuckDB run failed: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON from the script");
    Ok((
        v["seconds"].as_f64().unwrap_or(f64::NAN),
        v["peak_rss_mib"].as_f64().unwrap_or(f64::NAN),
    ))
}
