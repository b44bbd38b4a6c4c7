//! Benchmark: the 51-feature table (`src/features/`). Run: `cargo bench --bench features`.
//!
//! Variants are synthetic: the default dataset's valid problems (`datasets/default/`, embedded),
//! their numbers re-drawn by the M1, M2 and M3 attacks (a pool of distinct valid variants), cycled
//! up to 1,000,000 variants (`ADVMATH_BENCH_VARIANTS=<n>` changes the count).
//! 1. `compute_into` over every variant with rayon on all cores (goal: under 10 s), then on one
//!    thread (the per-core rate), and a check that a call allocates nothing once the scratch has
//!    grown (a counting global allocator).
//! 2. `build_features_table` end to end on a variants table of the same rows, written to a
//!    temporary folder (4 parts, one attack partition); not part of the goal, reported.
//!
//! No real data is read, so nothing is skipped.

#[path = "common.rs"]
#[allow(dead_code)]
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use advmath::attack::sample::{attack, Attacker, Method};
use advmath::feature_sets::{compute_into, FeatureScratch, FEATURE_COUNT};
use advmath::features::build_features_table;
use advmath::ingest::default_dataset::default_source;
use advmath::ingest::{build_records, ProgramSource};
use advmath::num::Num;
use advmath::program::tree::num_text;
use advmath::program::Program;
use advmath::seed::stream_key;
use advmath::store::problems::problems_path;
use advmath::store::problems::records_to_batch;
use advmath::store::problems::ProblemRecord;
use advmath::store::variants;
use advmath::store::{write_batch, AtomicParquet};
use arrow::array::{
    ArrayRef, Int32Array, ListBuilder, RecordBatch, StringArray, StringBuilder, UInt64Array,
};
use arrow::datatypes::{DataType, Field};
use rayon::prelude::*;

const DEFAULT_VARIANTS: usize = 1_000_000;
const GOAL_SECS: f64 = 10.0;
/// Attempts and kept variants per (problem, method) for the pool.
const ATTEMPTS: u64 = 20_000;
const KEEP: usize = 5_000;
const PARTS: usize = 4;
const WRITE_BATCH: usize = 65_536;

/// Counts this thread's allocations.
struct CountingAlloc;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: never fails on a live thread; during thread teardown the count is dropped.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches only a
// const-initialised thread-local `Cell` (no allocation, no destructor).
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

/// One distinct variant: its problem (index into the valid records), numbers and answer.
struct Variant {
    problem: usize,
    slots: Vec<Num>,
    answer: Num,
}

fn pool_of(valid: &[&ProblemRecord]) -> Vec<Variant> {
    valid
        .par_iter()
        .enumerate()
        .flat_map_iter(|(k, r)| {
            let program = r.tree.as_ref().expect("valid problems have a tree");
            let originals = r.slot_nums();
            let answer = program.eval(&originals).expect("valid on the originals");
            let mut out = vec![Variant {
                problem: k,
                slots: originals.clone(),
                answer,
            }];
            for m in [Method::M1, Method::M2, Method::M3] {
                let Ok(at) = Attacker::new(program, originals.clone(), m, 6) else {
                    continue;
                };
                let (drawn, _) =
                    attack(&at, stream_key(7, &r.problem_id, m.name()), ATTEMPTS, KEEP);
                out.extend(drawn.into_iter().filter_map(|d| {
                    Some(Variant {
                        problem: k,
                        answer: d.answer.as_num()?,
                        slots: d.slots,
                    })
                }));
            }
            out
        })
        .collect()
}

/// Features of variants `0..n` (variant i is `pool[i % pool.len()]`) on the current rayon pool:
/// (checksum, evaluation errors).
fn compute_all(n: usize, pool: &[Variant], programs: &[&Program]) -> (f64, usize) {
    (0..n)
        .into_par_iter()
        .map_init(FeatureScratch::new, |scratch, i| {
            let v = &pool[i % pool.len()];
            let mut out = [0.0; FEATURE_COUNT];
            match compute_into(scratch, programs[v.problem], &v.slots, &mut out) {
                Ok(()) => (out.iter().sum::<f64>(), 0),
                Err(_) => (0.0, 1),
            }
        })
        .reduce(|| (0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed().as_secs_f64())
}

/// The variants table of `n` rows under `tables`, in `PARTS` files of the `bench` attack.
fn write_variants(tables: &Path, n: usize, pool: &[Variant], valid: &[&ProblemRecord]) {
    let dir = tables.join("variants/dataset=default/attack=bench");
    let per_part = n.div_ceil(PARTS);
    for part in 0..PARTS {
        let rows = (part * per_part)..((part + 1) * per_part).min(n);
        let mut w = AtomicParquet::create(
            &dir.join(format!("part-{part}.parquet")),
            variants::schema(),
        )
        .unwrap();
        let mut start = rows.start;
        while start < rows.end {
            let end = (start + WRITE_BATCH).min(rows.end);
            w.write(&variants_batch(start..end, pool, valid)).unwrap();
            start = end;
        }
        w.finish().unwrap();
    }
}

fn variants_batch(
    rows: std::ops::Range<usize>,
    pool: &[Variant],
    valid: &[&ProblemRecord],
) -> RecordBatch {
    let picked: Vec<(usize, &Variant)> = rows.map(|i| (i, &pool[i % pool.len()])).collect();
    let record = |v: &Variant| valid[v.problem];
    let text = |f: &dyn Fn(usize, &Variant) -> String| -> ArrayRef {
        Arc::new(
            picked
                .iter()
                .map(|(i, v)| Some(f(*i, v)))
                .collect::<StringArray>(),
        )
    };
    let mut numbers = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        false,
    )));
    for (_, v) in &picked {
        for s in &v.slots {
            numbers.values().append_value(num_text::to_text(s));
        }
        numbers.append(true);
    }
    RecordBatch::try_new(
        variants::schema(),
        vec![
            text(&|i, v| format!("{}/bench/{i}", record(v).problem_id)),
            text(&|_, v| record(v).problem_id.clone()),
            Arc::new(Int32Array::from(vec![0; picked.len()])),
            Arc::new(
                picked
                    .iter()
                    .map(|(i, _)| *i as i32)
                    .collect::<Int32Array>(),
            ),
            text(&|_, v| record(v).question.clone()),
            text(&|_, v| v.answer.to_string()),
            text(&|_, v| num_text::to_text(&v.answer)),
            Arc::new(numbers.finish()),
            Arc::new(
                picked
                    .iter()
                    .map(|(i, _)| *i as u64)
                    .collect::<UInt64Array>(),
            ),
        ],
    )
    .unwrap()
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_bytes(&p)
                    } else {
                        e.metadata().map(|m| m.len()).unwrap_or(0)
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

fn main() {
    let n: usize = std::env::var("ADVMATH_BENCH_VARIANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_VARIANTS);
    let threads = rayon::current_num_threads();
    let mut ok = true;

    let source = default_source().expect("the default dataset loads");
    let records = build_records(&source, ProgramSource::Given);
    let valid: Vec<&ProblemRecord> = records.iter().filter(|r| r.is_valid()).collect();
    let programs: Vec<&Program> = valid.iter().map(|r| r.tree.as_ref().unwrap()).collect();
    let (pool, secs) = timed(|| pool_of(&valid));
    assert!(!pool.is_empty(), "no variant could be drawn");
    eprintln!(
        "pool: {} distinct variants of {} valid problems (of {}) drawn in {secs:.2} s",
        pool.len(),
        valid.len(),
        records.len()
    );

    // 1. compute_into, all cores then one thread.
    let _ = compute_all(pool.len().min(n), &pool, &programs); // warm-up
    let ((sum, errors), par_secs) = timed(|| compute_all(n, &pool, &programs));
    let pass = par_secs < GOAL_SECS && errors == 0;
    ok &= pass;
    println!(
        "features compute_into: {n} variants on {threads} threads in {par_secs:.3} s \
         ({:.0} variants/s; {errors} evaluation errors; checksum {sum:.0}) (goal < {GOAL_SECS} s): {}",
        n as f64 / par_secs,
        if pass { "PASS" } else { "FAIL" }
    );
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (_, one_secs) = timed(|| one.install(|| compute_all(n, &pool, &programs)));
    println!(
        "features compute_into: {n} variants on 1 thread in {one_secs:.3} s ({:.0} variants/s, \
         {:.2} us each; speed-up with {threads} threads: {:.2}x)",
        n as f64 / one_secs,
        one_secs * 1e6 / n as f64,
        one_secs / par_secs
    );

    // Allocations per call, on this thread, once the scratch has grown.
    let mut scratch = FeatureScratch::new();
    let mut out = [0.0; FEATURE_COUNT];
    for v in &pool {
        let _ = compute_into(&mut scratch, programs[v.problem], &v.slots, &mut out);
    }
    let before = allocations();
    for v in &pool {
        let _ = compute_into(&mut scratch, programs[v.problem], &v.slots, &mut out);
    }
    let allocs = allocations() - before;
    ok &= allocs == 0;
    println!(
        "features compute_into: {allocs} allocations in {} calls after warm-up (goal 0): {}",
        pool.len(),
        if allocs == 0 { "PASS" } else { "FAIL" }
    );

    // 2. build_features_table end to end.
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path();
    write_batch(
        &problems_path(tables, &source.dataset, &source.split),
        &records_to_batch(&records).unwrap(),
    )
    .unwrap();
    let (_, write_secs) = timed(|| write_variants(tables, n, &pool, &valid));
    let cpu0 = common::cpu_time();
    let (written, build_secs) = timed(|| build_features_table(tables).unwrap());
    let cpu = (common::cpu_time() - cpu0).as_secs_f64();
    let complete = written == n;
    ok &= complete;
    println!(
        "build_features_table: {written} of {n} rows in {build_secs:.3} s ({:.0} rows/s, \
         {:.2} CPU-s on {threads} threads); variants input {:.1} MiB written in {write_secs:.2} s, \
         features output {:.1} MiB: {}",
        written as f64 / build_secs,
        cpu,
        dir_bytes(&tables.join("variants")) as f64 / 1048576.0,
        dir_bytes(&tables.join("features")) as f64 / 1048576.0,
        if complete {
            "PASS"
        } else {
            "FAIL (rows missing)"
        }
    );
    println!("peak RSS: {:.0} MiB", common::peak_rss_mib());
    ok &= fit_speed();
    if !ok {
        std::process::exit(1);
    }
}

/// Goal: one model's fit on 20,000 x 51 takes under 1 s (median of 5 fits, standard errors
/// included). The data are drawn from a known logistic model, as in the recovery test.
fn fit_speed() -> bool {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(51);
    let (n, k) = (20_000, advmath::feature_sets::FEATURE_COUNT);
    let truth: Vec<f64> = (0..k).map(|_| rng.random_range(-1.0..1.0)).collect();
    let x = ndarray::Array2::from_shape_fn((n, k), |_| rng.random_range(-1.0..1.0f64));
    let y: Vec<bool> = (0..n)
        .map(|i| {
            let eta: f64 = (0..k).map(|j| truth[j] * x[[i, j]]).sum();
            rng.random_bool(1.0 / (1.0 + (-eta).exp()))
        })
        .collect();
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = std::time::Instant::now();
        advmath::regress::fit(&x, &y, &advmath::feature_sets::FEATURE_NAMES, 1.0, true).unwrap();
        times.push(start.elapsed().as_secs_f64());
    }
    let m = common::median(&mut times);
    println!(
        "logistic fit, 20,000 x 51 with Wald errors: median {m:.3} s over 5 (goal < 1 s): {}",
        if m < 1.0 { "PASS" } else { "FAIL" }
    );
    m < 1.0
}
