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
#[path = "synthetic.rs"]
mod synthetic;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn main() {
    let (dir, tables, rows) = synthetic::tables(20, 20_000);
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
