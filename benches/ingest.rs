//! Benchmark: ingest GSM8K train + test (8,792 problems) from JSONL to the problems table.
//! Goal: under 5 s on this machine. Run: `cargo bench --bench ingest`.

#[path = "common.rs"]
#[allow(dead_code)] // each benchmark uses part of the shared helpers
mod common;

use std::time::Instant;

use advmath::ingest::{build_records, read_source, IngestOptions};
use advmath::store::problems::problems_path;
use advmath::store::problems::records_to_batch;

fn main() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let mut problems = 0;
        let mut valid = 0;
        for file in ["gsm8k/train.jsonl", "gsm8k/test.jsonl"] {
            let source = read_source(&data.join(file), &IngestOptions::default()).unwrap();
            let records = build_records(&source, Default::default());
            problems += records.len();
            valid += records.iter().filter(|r| r.is_valid()).count();
            let path = problems_path(dir.path(), &source.dataset, &source.split);
            advmath::store::write_batch(&path, &records_to_batch(&records).unwrap()).unwrap();
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!("ingest: {problems} problems ({valid} valid) in {secs:.3} s");
        times.push(secs);
    }
    let m = common::median(&mut times);
    println!(
        "ingest gsm8k train+test: median {m:.3} s over 5 runs (goal < 5 s): {}",
        if m < 5.0 { "PASS" } else { "FAIL" }
    );
}
