//! The synthetic `responses` table of the metrics and cluster benchmarks (included with
//! `#[path]`, not a benchmark itself): `problems` x 25 variants per model, one Parquet file per
//! model as `advmath respond` lays it out. Correctness is a deterministic hash draw: a variant's
//! hardness shared by all models plus a per-model draw, against a skill from 0.55 to 0.95, so
//! adversarial examples overlap between models as they do with real models. Two models are
//! simulated (`sim-` names).

use std::path::Path;
use std::sync::Arc;

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

pub fn env_usize(name: &str, default: usize) -> usize {
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
        // `run`: NULL, the default run.
        Arc::new(StringArray::from(vec![None::<&str>; n])),
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
        // `abstained`: every synthetic reply states a number.
        Arc::new(BooleanArray::from(vec![false; n])),
    ];
    RecordBatch::try_new(advmath::store::responses::schema(), columns).expect("responses schema")
}

/// Write `models` files of `problems` x 25 rows under `tables/responses/`; returns the row count.
pub fn write_responses(tables: &Path, models: usize, problems: usize) -> usize {
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

/// The synthetic tables folder of `models` x `problems` (`ADVMATH_BENCH_MODELS` and
/// `ADVMATH_BENCH_PROBLEMS` override them): in `ADVMATH_BENCH_DIR` when set (kept, and reused by
/// the next run), else in a temporary folder that lives as long as the returned guard. Returns
/// the guard, the tables folder and the row count.
pub fn tables(models: usize, problems: usize) -> (tempfile::TempDir, std::path::PathBuf, usize) {
    let models = env_usize("ADVMATH_BENCH_MODELS", models);
    let problems = env_usize("ADVMATH_BENCH_PROBLEMS", problems);
    let dir = tempfile::tempdir().expect("temporary folder");
    let tables = match std::env::var_os("ADVMATH_BENCH_DIR") {
        Some(d) => Path::new(&d).join("tables"),
        None => dir.path().join("tables"),
    };
    let t = std::time::Instant::now();
    let rows = if tables.join("responses").is_dir() {
        models * problems * 25
    } else {
        write_responses(&tables, models, problems)
    };
    println!(
        "synthetic responses: {rows} rows ({models} models x {} variants) ready in {:.1} s",
        rows / models.max(1),
        t.elapsed().as_secs_f64()
    );
    (dir, tables, rows)
}
