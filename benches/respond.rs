//! Benchmark: client overhead of `advmath respond` against a local server that answers at once.
//! Goal: at least 2,000 requests/s with concurrency 64. Run: `cargo bench --bench respond`.
//! The variants come from the default dataset (no shared data needed).

#[allow(dead_code)] // each benchmark uses some of the helpers
mod common;
#[path = "../tests/support/server.rs"]
#[allow(dead_code)] // the fault-injection replies serve the tests
mod server;

use std::time::{Duration, Instant};

use advmath::attack::sample::Method;
use advmath::generate::GenerateConfig;
use advmath::llm::client::{Decoding, Endpoint};
use advmath::llm::prompt::Template;
use advmath::respond::{respond, Backend, RespondConfig};
use advmath::vocab::AttackSpec;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    advmath::ingest::ingest(&advmath::ingest::IngestConfig {
        inputs: Vec::new(),
        options: Default::default(),
        tables: tables.clone(),
        report: None,
    })
    .unwrap();
    advmath::generate::generate(&GenerateConfig {
        attempts: 30_000,
        variants: 300,
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
    let srv = server::spawn(|_| server::Reply::Ok, Duration::ZERO);
    let mut rates = Vec::new();
    for run in 0..3 {
        let config = RespondConfig {
            tables: tables.clone(),
            model: format!("bench-{run}"),
            template: Template::resolve("xie2024").unwrap(),
            decoding: Decoding {
                temperature: 0.0,
                top_p: None,
                max_tokens: 256,
                seed: None,
                stop: Vec::new(),
            },
            backend: Backend::Endpoint(Endpoint {
                urls: vec![format!("http://127.0.0.1:{}", srv.port)],
                model: "bench".into(),
                completions: false,
                api_key: None,
                timeout: Duration::from_secs(10),
                max_attempts: 3,
                backoff_base: Duration::from_millis(10),
                backoff_cap: Duration::from_secs(1),
            }),
            attacks: Vec::new(),
            datasets: Vec::new(),
            efficient: None,
            per_problem: None,
            extraction: Default::default(),
            limit: Some(20_000),
            concurrency: 64,
            flush_every: 1000,
            flush_seconds: 5.0,
            part_size: advmath::store::compact::DEFAULT_TARGET_BYTES,
            progress: false,
            ..RespondConfig::default()
        };
        let start = Instant::now();
        let s = respond(&config).unwrap();
        let secs = start.elapsed().as_secs_f64();
        let rate = s.written as f64 / secs;
        eprintln!(
            "run {run}: {} responses in {secs:.2} s = {rate:.0} requests/s ({} failed)",
            s.written, s.failed
        );
        rates.push(rate);
    }
    let median = common::median(&mut rates);
    println!("respond client, concurrency 64, local server: median {median:.0} requests/s (goal >= 2,000): {}", if median >= 2000.0 { "PASS" } else { "FAIL" });
}
