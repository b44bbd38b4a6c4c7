//! Benchmark: publish GSM8K train + test M3 variants (100 per problem) as a hub-ready folder.
//! Goal: under 30 s on this machine. Run: `cargo bench --bench publish`.
//! Generation uses fewer attempts than the paper (it is not what is timed here).

#[path = "common.rs"]
#[allow(dead_code)] // each benchmark uses part of the shared helpers
mod common;

use std::time::Instant;

use advmath::attack::sample::Method;
use advmath::generate::GenerateConfig;
use advmath::ingest::IngestOptions;
use advmath::ingest::{ingest, IngestConfig};
use advmath::publish::{publish, PublishConfig};
use advmath::vocab::AttackSpec;

fn main() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    ingest(&IngestConfig {
        inputs: vec![
            data.join("gsm8k/train.jsonl"),
            data.join("gsm8k/test.jsonl"),
        ],
        options: IngestOptions::default(),
        tables: tables.clone(),
        report: None,
    })
    .unwrap();
    advmath::generate::generate(&GenerateConfig {
        attempts: 5_000,
        variants: 100,
        ..GenerateConfig::new(tables.clone(), vec![AttackSpec::Numeric(Method::M3)])
    })
    .unwrap();
    let mut times = Vec::new();
    let mut rows = 0;
    for run in 0..3 {
        let out = dir.path().join(format!("hub{run}"));
        let start = Instant::now();
        let summary = publish(&PublishConfig {
            name: "advmath-gsm8k".into(),
            max_shard_rows: 500_000,
            ..PublishConfig::new(tables.clone(), out)
        })
        .unwrap();
        times.push(start.elapsed().as_secs_f64());
        rows = summary.configs.values().flat_map(|s| s.values()).sum();
    }
    let m = common::median(&mut times);
    println!(
        "publish gsm8k train+test (m3 + original, {rows} rows): median {m:.2} s over 3 runs (goal < 30 s): {}",
        if m < 30.0 { "PASS" } else { "FAIL" }
    );
}
