//! Benchmarks for the generation hot loop, and the side-by-side report with the reference
//! implementation (`reports/generation_vs_reference.md`).
//!
//! `cargo bench --bench generate` runs, each (dataset, method) in a fresh child process so that
//! peak memory is its own:
//! - the 200 + 200 Xie problems with their given programs, N = 30,000, M1/M2/M3, one thread:
//!   attempts per CPU-second (goal: 100x the reference per core), valid-variant statistics;
//! - the same with both cores (goal: both used);
//! - memory: 1,000 variants per problem for M1, M2 and M3 over all valid GSM8K train + test
//!   problems through the real generation stage (goal: peak RSS under 1 GiB).
//!
//! `cargo bench --bench generate -- quick` skips the memory run.
//!
//! `cargo bench --profile dev --bench generate -- yields` recomputes only the yield columns of
//! the report (valid problems, problems reaching 100 variants, valid-variant mean and median),
//! which do not depend on the build profile or the thread count, through the same attack code,
//! and rewrites those cells in `reports/generation_vs_reference.md`, leaving the speed and
//! memory figures of the last full run in place and saying so.

#[path = "common.rs"]
#[allow(dead_code)] // each benchmark uses part of the shared helpers
mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use advmath::attack::sample::{attack, Attacker, Method};
use advmath::generate::GenerateConfig;
use advmath::ingest::{build_records, read_source, IngestOptions, ProgramSource};
use advmath::seed::stream_key;
use advmath::store::problems::ProblemRecord;
use advmath::vocab::AttackSpec;
use rayon::prelude::*;
use serde_json::{json, Value};

const ATTEMPTS: u64 = 30_000;
const TARGET: usize = 100;
const WORKER: &str = "ADVMATH_BENCH_WORKER";

fn methods() -> [(Method, &'static str); 3] {
    [(Method::M1, "M1"), (Method::M2, "M2"), (Method::M3, "M3")]
}

fn load(data: &Path, dataset: &str) -> Vec<ProblemRecord> {
    let opts = IngestOptions {
        programs: ProgramSource::Given,
        ..Default::default()
    };
    let source = read_source(&data.join("xie2024").join(dataset), &opts).unwrap();
    build_records(&source, ProgramSource::Given)
}

/// Per valid problem of one dataset and method: (unique valid tuples, attempts, zero
/// divisions, variants kept).
type Outcome = (u64, u64, u64, usize);

fn attack_one(r: &ProblemRecord, method: Method) -> Outcome {
    let slots = advmath::question::find_slots(&r.question);
    let at = Attacker::new(r.tree.as_ref().unwrap(), r.slot_nums(), method, 6)
        .unwrap()
        .with_text_constraints(&advmath::question::shown::text_constraints(
            &r.question,
            &slots,
        ));
    let (drawn, stats) = attack(
        &at,
        stream_key(42, &r.problem_id, method.name()),
        ATTEMPTS,
        TARGET,
    );
    (
        stats.unique,
        stats.attempts,
        stats.rejections[0],
        drawn.len(),
    )
}

/// The yield figures of one dataset and method.
fn yields(results: &[Outcome]) -> Value {
    let mut uniques: Vec<f64> = results.iter().map(|r| r.0 as f64).collect();
    json!({
        "problems_valid": results.len(),
        "reached_target": results.iter().filter(|r| r.3 >= TARGET).count(),
        "valid_mean": uniques.iter().sum::<f64>() / uniques.len().max(1) as f64,
        "valid_median": common::median(&mut uniques),
    })
}

/// `-- yields`: recompute the yield cells of the report in place (any build profile).
fn yields_only(data: &Path) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/generation_vs_reference.md");
    let report = std::fs::read_to_string(&path).expect("a report from an earlier full run");
    let mut figures = BTreeMap::new();
    for dataset in ["gsm8k", "multiarith"] {
        let records = load(data, dataset);
        let valid: Vec<&ProblemRecord> = records.iter().filter(|r| r.is_valid()).collect();
        for (method, name) in methods() {
            let results: Vec<Outcome> = valid.par_iter().map(|r| attack_one(r, method)).collect();
            let y = yields(&results);
            eprintln!("{dataset} {name}: {y}");
            figures.insert((dataset, name), y);
        }
    }
    let mut out = String::new();
    let mut in_main_table = false;
    for line in report.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        let key = cells
            .first()
            .map(|c| c.trim_start_matches("| "))
            .zip(cells.get(1).copied());
        match key.and_then(|(d, m)| figures.iter().find(|((fd, fm), _)| *fd == d && *fm == m)) {
            Some((_, y)) if cells.len() == 9 => {
                in_main_table = true;
                let half = |c: &str| c.split(" / ").next().unwrap_or("").to_string();
                let mut new: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
                new[2] = format!("{} / {}", half(cells[2]), y["problems_valid"]);
                new[3] = format!("{} / {}", half(cells[3]), y["reached_target"]);
                new[4] = format!("{} / {:.0}", half(cells[4]), f(y, "valid_mean"));
                new[5] = format!("{} / {:.0}", half(cells[5]), f(y, "valid_median"));
                let _ = writeln!(out, "{}", new.join(" | "));
            }
            _ => {
                if in_main_table && line.trim().is_empty() {
                    in_main_table = false;
                    let _ = writeln!(
                        out,
                        "\nThe yield columns (valid problems, ≥100 valid variants, mean, median) were re-measured with \
                         `cargo bench --profile dev --bench generate -- yields`: yields do not depend on the build profile \
                         or the thread count. The speed and memory columns and sections are from the last full \
                         `cargo bench --bench generate` run, which may predate the current generation code."
                    );
                }
                if !line.starts_with("The yield columns") {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
    }
    advmath::store::write_text(&path, &out).unwrap();
    println!("{out}");
}

/// Child process: attack every valid problem of one dataset with one method.
fn worker(spec: &str) {
    let data = common::shared_data().expect("worker runs only with shared data");
    let parts: Vec<&str> = spec.split(':').collect();
    let (dataset, method_name, parallel) = (parts[0], parts[1], parts[2] == "parallel");
    let method = methods()
        .into_iter()
        .find(|(_, n)| *n == method_name)
        .unwrap()
        .0;
    let records = load(&data, dataset);
    let valid: Vec<&ProblemRecord> = records.iter().filter(|r| r.is_valid()).collect();
    let run = |r: &&ProblemRecord| attack_one(r, method);
    let cpu0 = common::cpu_time();
    let start = Instant::now();
    let results: Vec<Outcome> = if parallel {
        valid.par_iter().map(run).collect()
    } else {
        valid.iter().map(run).collect()
    };
    let wall = start.elapsed().as_secs_f64();
    let cpu = (common::cpu_time() - cpu0).as_secs_f64();
    let y = yields(&results);
    let mut uniques: Vec<f64> = results.iter().map(|r| r.0 as f64).collect();
    uniques.sort_by(f64::total_cmp);
    let attempts: u64 = results.iter().map(|r| r.1).sum();
    let out = json!({
        "dataset": dataset,
        "method": method_name,
        "parallel": parallel,
        "problems_valid": y["problems_valid"],
        "reached_target": y["reached_target"],
        "valid_mean": y["valid_mean"],
        "valid_median": y["valid_median"],
        "valid_min": uniques.first().copied().unwrap_or(0.0),
        "valid_max": uniques.last().copied().unwrap_or(0.0),
        "zero_div": results.iter().map(|r| r.2).sum::<u64>(),
        "attempts": attempts,
        "cpu_s": cpu,
        "wall_s": wall,
        "attempts_per_cpu_s": attempts as f64 / cpu,
        "attempts_per_wall_s": attempts as f64 / wall,
        "peak_rss_mib": common::peak_rss_mib(),
    });
    println!("{out}");
}

/// Child process: the memory goal through the real stage, 1,000 variants per problem.
fn memory_worker() {
    let data = common::shared_data().expect("worker runs only with shared data");
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let config = advmath::ingest::IngestConfig {
        inputs: vec![
            data.join("gsm8k/train.jsonl"),
            data.join("gsm8k/test.jsonl"),
        ],
        options: IngestOptions::default(),
        tables: tables.clone(),
        report: None,
    };
    let ingest = advmath::ingest::ingest(&config).unwrap();
    let start = Instant::now();
    let summary = advmath::generate::generate(&GenerateConfig {
        attempts: ATTEMPTS,
        variants: 1000,
        ..GenerateConfig::new(
            tables.clone(),
            vec![
                AttackSpec::Numeric(Method::M1),
                AttackSpec::Numeric(Method::M2),
                AttackSpec::Numeric(Method::M3),
            ],
        )
    })
    .unwrap();
    let rows: usize = summary.rows.values().map(|(_, r, _)| r).sum();
    let out = json!({
        "problems_valid": ingest.total_valid(),
        "attempts": summary.attempts,
        "rows": rows,
        "wall_s": start.elapsed().as_secs_f64(),
        "peak_rss_mib": common::peak_rss_mib(),
    });
    println!("{out}");
}

fn child(env: &str) -> Value {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe).env(WORKER, env).output().unwrap();
    assert!(
        out.status.success(),
        "worker {env} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// summary.csv of the reference run: (dataset, method) -> row.
fn reference(data: &Path) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let text = std::fs::read_to_string(data.join("reference-baseline/summary.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut out = BTreeMap::new();
    for line in lines {
        // The last column holds JSON with commas; the first columns are plain.
        let cells: Vec<&str> = line.splitn(header.len(), ',').collect();
        let row: BTreeMap<String, String> = header
            .iter()
            .zip(&cells)
            .map(|(h, c)| (h.to_string(), c.to_string()))
            .collect();
        let ds = if row["dataset"] == "multiArith" {
            "multiarith".to_string()
        } else {
            row["dataset"].clone()
        };
        out.insert((ds, row["level"].clone()), row);
    }
    out
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(f64::NAN)
}

fn main() {
    if let Ok(spec) = std::env::var(WORKER) {
        if spec == "memory" {
            memory_worker();
        } else {
            worker(&spec);
        }
        return;
    }
    let Some(data) = common::shared_data() else {
        return;
    };
    if std::env::args().any(|a| a == "yields") {
        yields_only(&data);
        return;
    }
    let quick = std::env::args().any(|a| a == "quick");
    let reference = reference(&data);
    let mut report = String::new();
    let _ = writeln!(
        report,
        "# Generation: advmath vs the reference implementation\n"
    );
    let _ = writeln!(
        report,
        "Written by `cargo bench --bench generate` on this machine (2 cores). Both sides: the 200 + 200 Xie et al. \
         problems with their GPT-4 programs, N = {ATTEMPTS} attempts per problem and method, single-threaded for the \
         per-core figures. Reference figures are from `../shared/data/reference-baseline/` (measured on this kind of machine).\n"
    );
    let _ = writeln!(report, "| dataset | method | valid problems (ref / advmath) | ≥100 valid variants (ref / advmath) | valid-variant mean (ref / advmath) | median (ref / advmath) | attempts per CPU-s (ref / advmath) | speed-up | peak RSS MiB (ref / advmath) |");
    let _ = writeln!(report, "|---|---|---|---|---|---|---|---|---|");
    let mut speed_ok = true;
    for dataset in ["gsm8k", "multiarith"] {
        for (_, name) in methods() {
            let ours = child(&format!("{dataset}:{name}:single"));
            let r = &reference[&(dataset.to_string(), name.to_string())];
            let rf = |k: &str| r[k].parse::<f64>().unwrap_or(f64::NAN);
            let speedup = f(&ours, "attempts_per_cpu_s") / rf("attempts_per_cpu_s");
            speed_ok &= speedup >= 100.0;
            eprintln!("{dataset} {name}: {ours}");
            let _ = writeln!(
                report,
                "| {dataset} | {name} | {} / {} | {} / {} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0}x | {:.0} / {:.0} |",
                r["n_ok"], ours["problems_valid"], r["n_ge_100"], ours["reached_target"],
                rf("valid_mean"), f(&ours, "valid_mean"), rf("valid_median"), f(&ours, "valid_median"),
                rf("attempts_per_cpu_s"), f(&ours, "attempts_per_cpu_s"), speedup,
                rf("time_v_maxrss_mb"), f(&ours, "peak_rss_mib"),
            );
        }
    }
    let _ = writeln!(report, "\n## Both cores\n");
    let _ = writeln!(report, "| dataset | method | attempts per wall-s, 1 thread | attempts per wall-s, 2 threads | scaling |");
    let _ = writeln!(report, "|---|---|---:|---:|---:|");
    for dataset in ["gsm8k", "multiarith"] {
        for (_, name) in methods() {
            let one = child(&format!("{dataset}:{name}:single"));
            let two = child(&format!("{dataset}:{name}:parallel"));
            let _ = writeln!(
                report,
                "| {dataset} | {name} | {:.0} | {:.0} | {:.2}x |",
                f(&one, "attempts_per_wall_s"),
                f(&two, "attempts_per_wall_s"),
                f(&two, "attempts_per_wall_s") / f(&one, "attempts_per_wall_s")
            );
        }
    }
    if !quick {
        let mem = child("memory");
        eprintln!("memory: {mem}");
        let _ = writeln!(report, "\n## Memory\n");
        let _ = writeln!(
            report,
            "1,000 variants per problem for M1, M2 and M3 over all {} valid GSM8K train + test problems (N = {ATTEMPTS}, both cores, \
             through the real generation stage writing Parquet): {} attempts, {} rows written in {:.0} s, **peak RSS {:.0} MiB** \
             (goal: under 1,024 MiB; the reference peaks at 3,228 MB on 200 problems for M1).",
            mem["problems_valid"], mem["attempts"], mem["rows"], f(&mem, "wall_s"), f(&mem, "peak_rss_mib")
        );
    }
    let _ = writeln!(report, "\n{}", include_str!("generation_notes.md"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/generation_vs_reference.md");
    advmath::store::write_text(&path, &report).unwrap();
    println!("{report}");
    println!(
        "per-core speed-up >= 100x on every row: {}",
        if speed_ok { "PASS" } else { "FAIL" }
    );
}
