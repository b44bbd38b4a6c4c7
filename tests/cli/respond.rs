//! `advmath respond` and `advmath programs` against local test servers: retries, kill and
//! resume, one writer per model, a real small LLM when one is served.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::server::{spawn, spawn_with, Reply};
use crate::util::{advmath, ingest, problems_in, skip, small_tables, stderr_of, walk};
use advmath::store::responses::stored_rows;

fn respond(tables: &Path, port: u16, extra: &[&str]) -> assert_cmd::assert::Assert {
    advmath()
        .args([
            "respond",
            "--model",
            "test-model",
            "--endpoint",
            &format!("http://127.0.0.1:{port}"),
            "--tables",
        ])
        .arg(tables)
        .args(extra)
        .assert()
}

/// A server asking to wait for a day is waited on no longer than the request timeout (and never
/// longer than the documented maximum), and the run says so.
#[test]
fn a_huge_retry_after_is_capped_and_logged() {
    let (_dir, tables) = small_tables();
    let server = spawn(
        |n| {
            if n == 0 {
                Reply::TooMany {
                    retry_after: 100_000,
                }
            } else {
                Reply::Ok
            }
        },
        Duration::ZERO,
    );
    let start = Instant::now();
    let out = respond(
        &tables,
        server.port,
        &[
            "--limit",
            "1",
            "--concurrency",
            "1",
            "--timeout",
            "2",
            "--attempts",
            "2",
        ],
    )
    .success();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("the server asked to wait 100000.0 s (Retry-After); waiting 2.0 s"),
        "{stderr}"
    );
    // Uncapped, the run would sleep for a day; capped, the wait is the 2 s timeout.
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(stored_rows(&tables, "test-model").unwrap().len(), 1);
}

/// A server that echoes the API key in an error body: the key is neither printed nor stored,
/// whole or in part, even where the body is cut for the message right across the key.
#[test]
fn an_echoed_api_key_is_redacted() {
    echoed_key_is_redacted(Reply::EchoAuthorization);
    // A message keeps the first 200 characters of this body, which end inside the key.
    echoed_key_is_redacted(Reply::EchoAuthorizationAfter(165));
}

fn echoed_key_is_redacted(reply: Reply) {
    let (_dir, tables) = small_tables();
    let server = spawn(move |_| reply, Duration::ZERO);
    let key = "sk-test-0123456789abcdef";
    let out = advmath()
        .env("ADVMATH_TEST_KEY", key)
        .args([
            "respond",
            "--model",
            "test-model",
            "--endpoint",
            &format!("http://127.0.0.1:{}", server.port),
            "--api-key-env",
            "ADVMATH_TEST_KEY",
            "--attempts",
            "1",
            "--limit",
            "2",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .code(1);
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.get_output().stdout),
        String::from_utf8_lossy(&out.get_output().stderr)
    );
    assert!(
        !printed.contains(advmath::cut::before(key, 10)),
        "{printed}"
    );
    assert!(printed.contains("[redacted]"), "{printed}");
    for file in walk(&tables) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !bytes.windows(key.len()).any(|w| w == key.as_bytes()),
            "{} holds the key",
            file.display()
        );
    }
}

/// Every fault a real server produces is retried until it succeeds; Retry-After is honoured.
#[test]
fn retries_every_transient_fault() {
    let (_dir, tables) = small_tables();
    let faults = [
        Reply::TooMany { retry_after: 1 },
        Reply::ServerError,
        Reply::Hang(Duration::from_secs(3)),
        Reply::Malformed,
        Reply::ResetMidBody,
    ];
    let server = spawn(
        move |n| {
            if n % 2 == 0 {
                faults[(n / 2) % faults.len()]
            } else {
                Reply::Ok
            }
        },
        Duration::ZERO,
    );
    let start = Instant::now();
    respond(
        &tables,
        server.port,
        &[
            "--limit",
            "5",
            "--concurrency",
            "1",
            "--timeout",
            "1",
            "--backoff",
            "0.01",
            "--attempts",
            "4",
        ],
    )
    .success()
    .stdout(predicates::str::contains("test-model\t5\t0\t0\t0\t5\t0\t"));
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was not honoured"
    );
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::SeqCst),
        10
    );
    let rows = stored_rows(&tables, "test-model").unwrap();
    assert_eq!(rows.len(), 5);
    // A server that never recovers: the run ends, says so, and exits 1; a rerun retries.
    let down = spawn(|_| Reply::ServerError, Duration::ZERO);
    advmath()
        .args([
            "respond",
            "--model",
            "other",
            "--endpoint",
            &format!("http://127.0.0.1:{}", down.port),
            "--limit",
            "2",
            "--attempts",
            "2",
            "--backoff",
            "0.01",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("HTTP 500"));
}

/// A server that answers every request with `content: null` is up, not out of service: each
/// request is made `--attempts` times and then counted as failed, and the run ends (exit 1,
/// nothing stored). Taken for an outage, the server was backed off further at every reply until
/// no question was asked any more ("no server of the endpoint answered").
#[test]
fn replies_without_content_spend_the_attempts_then_fail() {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    let (_dir, tables) = small_tables();
    let asked: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let server = {
        let asked = asked.clone();
        spawn_with(
            move |_, body| {
                *asked.lock().unwrap().entry(body.to_string()).or_default() += 1;
                Reply::NullContent
            },
            Duration::ZERO,
        )
    };
    // One request at a time and a short timeout: the old backoff's stall limit (twice the 30 s
    // backoff cap plus the timeout) cut the run short well before its 24 requests.
    let out = respond(
        &tables,
        server.port,
        &[
            "--limit",
            "12",
            "--attempts",
            "2",
            "--concurrency",
            "1",
            "--timeout",
            "1",
        ],
    )
    .code(1);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(
            "12 request(s) failed for good (a rerun retries them): gave up after 2 attempts: no text in the first choice"
        ),
        "{stderr}"
    );
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 12, "distinct questions asked");
    assert!(
        asked.values().all(|&n| n == 2),
        "each request made exactly --attempts times: {:?}",
        asked.values().collect::<Vec<_>>()
    );
    assert!(stored_rows(&tables, "test-model").unwrap().is_empty());
}

/// kill -9 in the middle of a run (the originals and the m3 variants: about 390 questions), then
/// rerun: every question has exactly one row, none twice.
#[test]
fn kill_and_resume_loses_nothing_and_duplicates_nothing() {
    let (_dir, tables) = small_tables();
    let total: usize = crate::util::sql_csv(
        &tables,
        "SELECT COUNT(*) AS n FROM variants WHERE attack IN ('original', 'm3')",
    )
    .lines()
    .nth(1)
    .unwrap()
    .parse()
    .unwrap();
    let server = spawn(|_| Reply::Ok, Duration::from_millis(12));
    let bin = crate::util::advmath_path();
    let args = |c: &mut std::process::Command| {
        c.args([
            "respond",
            "--model",
            "m",
            "--endpoint",
            &format!("http://127.0.0.1:{}", server.port),
            "--attack",
            "m3",
            "--concurrency",
            "4",
            "--flush-every",
            "37",
            "--tables",
        ])
        .arg(&tables)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    };
    let mut c = std::process::Command::new(&bin);
    args(&mut c);
    let mut child = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = stored_rows(&tables, "m").unwrap().len();
    assert!(
        before < total,
        "the kill came too late to test anything ({before} of {total} rows)"
    );
    let mut c = std::process::Command::new(&bin);
    args(&mut c);
    assert!(c.status().unwrap().success());
    let rows = stored_rows(&tables, "m").unwrap();
    let ids: std::collections::HashSet<_> =
        rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
    assert_eq!(rows.len(), total, "rows after resume");
    assert_eq!(ids.len(), total, "duplicate rows (request key, variant)");
}

/// Two `respond` runs for one model at once: the second exits 2 naming the first's pid, and the
/// server is asked each question once; the table holds one row per key.
#[test]
fn a_second_respond_for_the_same_model_is_refused() {
    let (_dir, tables) = small_tables();
    let server = spawn(|_| Reply::Ok, Duration::from_millis(20));
    let bin = crate::util::advmath_path();
    let command = || {
        let mut c = std::process::Command::new(&bin);
        c.args([
            "respond",
            "--model",
            "m",
            "--endpoint",
            &format!("http://127.0.0.1:{}", server.port),
            // 20 problems: their originals and 4 m3 variants each, 100 questions.
            "--attack",
            "m3",
            "--problems",
            "20",
            "--per-problem",
            "4",
            "--concurrency",
            "2",
            "--tables",
        ])
        .arg(&tables)
        .stdout(std::process::Stdio::null());
        c
    };
    let mut first = command()
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first run is asking (it holds the lock from its start).
    let start = Instant::now();
    while server.requests.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the first run never asked"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = command().output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains(&format!("(pid {})", first.id())),
        "{stderr}"
    );
    assert!(first.wait().unwrap().success());
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::SeqCst),
        100,
        "each question asked once"
    );
    let rows = stored_rows(&tables, "m").unwrap();
    let ids: std::collections::HashSet<_> =
        rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
    assert_eq!((rows.len(), ids.len()), (100, 100));
    // The lock went with the first run: a third run starts, finds everything done, asks nothing.
    let third = command().output().unwrap();
    assert!(third.status.success());
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::SeqCst),
        100
    );
}

/// A real LLM: SmolLM2-135M served by llama.cpp (started by `.ci/smollm2.sh`, whose URL is in
/// ADVMATH_SMOLLM2_URL). Skipped, saying so, when no such server was started.
#[test]
fn smollm2_end_to_end() {
    let Ok(url) = std::env::var("ADVMATH_SMOLLM2_URL") else {
        skip("ADVMATH_SMOLLM2_URL is not set (.ci/run starts the SmolLM2 server)");
        return;
    };
    let (_dir, tables) = small_tables();
    advmath()
        .args([
            "respond",
            "--model",
            "smollm2",
            "--endpoint",
            &url,
            "--limit",
            "10",
            "--max-tokens",
            "64",
            "--concurrency",
            "1",
            "--timeout",
            "300",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success()
        .stdout(predicates::str::contains("smollm2\t10\t0\t0\t0\t10\t0\t"));
    let rows = stored_rows(&tables, "smollm2").unwrap();
    assert_eq!(rows.len(), 10);
    // The model is tiny and mostly wrong at maths: the pipeline is under test, not its accuracy.
    let batches: Vec<_> = walk(&advmath::store::responses::model_dir(&tables, "smollm2"))
        .iter()
        .flat_map(|f| advmath::store::read_batches(f).unwrap())
        .collect();
    use arrow::array::AsArray;
    for b in &batches {
        let text = b.column_by_name("response").unwrap().as_string::<i32>();
        let latency = b
            .column_by_name("latency_ms")
            .unwrap()
            .as_primitive::<arrow::datatypes::Float64Type>();
        for i in 0..b.num_rows() {
            assert!(!text.value(i).trim().is_empty(), "an empty generation");
            assert!(latency.value(i) > 0.0);
        }
    }
}

/// LLM-written programs: kept only when they validate; never executed.
#[test]
fn llm_programs_are_validated_like_given_ones() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("noprog.jsonl");
    std::fs::write(
        &input,
        "{\"question\": \"Tom has 15 apples and buys 27 more. How many?\", \"answer\": \"42\"}\n\
         {\"question\": \"Ann has 3 pens and 9 pencils. How many?\", \"answer\": \"12\"}\n",
    )
    .unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[&input]).code(1);
    // The first reply computes 15 + 27; the second is wrong for its problem (15 + 27 != 12).
    let server = spawn(
        |_| Reply::Text("Here:\n```python\na = 15\nb = 27\nprint(a + b)\n```"),
        Duration::ZERO,
    );
    advmath()
        .args([
            "programs",
            "--model",
            "coder",
            "--concurrency",
            "1",
            "--endpoint",
            &format!("http://127.0.0.1:{}", server.port),
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success()
        .stdout(predicates::str::contains("2\t1\t1\t0"));
    let recs = problems_in(&tables.join("problems/noprog__test.parquet"));
    assert!(recs[0].is_valid() && recs[0].program_origin == "llm:coder");
    // The rejected program is kept with its reason, so a rerun does not pay for it again.
    assert!(!recs[1].is_valid());
    assert_eq!(recs[1].program_origin, "llm:coder");
    let detail = &recs[1].error.as_ref().unwrap().detail;
    assert!(detail.starts_with("program written by coder: "), "{detail}");
    let asked_before = server.requests.load(std::sync::atomic::Ordering::SeqCst);
    advmath()
        .args(["programs", "--model", "coder", "--endpoint"])
        .arg(format!("http://127.0.0.1:{}", server.port))
        .arg("--tables")
        .arg(&tables)
        .assert()
        .success()
        .stdout(predicates::str::contains("0\t0\t0\t0"));
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::SeqCst),
        asked_before
    );
}

/// `programs` waiting on a slow server while `ingest` rewrites the same dataset: the programs
/// land on the problems as `ingest` left them, and what `ingest` wrote is kept.
#[test]
fn programs_merge_into_the_problems_an_ingest_wrote_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("noprog.jsonl");
    let questions = [
        "Tom has 15 apples and buys 27 more. How many?",
        "Ann has 3 pens and 9 pencils. How many?",
    ];
    let without: String = questions
        .iter()
        .zip(["42", "12"])
        .map(|(q, a)| format!("{{\"question\": \"{q}\", \"answer\": \"{a}\"}}\n"))
        .collect();
    std::fs::write(&input, without).unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[&input]).code(1);
    // A slow model: every reply comes 3 s after its request.
    let server = spawn(
        |_| {
            std::thread::sleep(Duration::from_secs(3));
            Reply::Text("```python\na = 15\nb = 27\nprint(a + b)\n```")
        },
        Duration::ZERO,
    );
    let programs = std::process::Command::new(crate::util::advmath_path())
        .args([
            "programs",
            "--model",
            "coder",
            "--concurrency",
            "1",
            "--endpoint",
        ])
        .arg(format!("http://127.0.0.1:{}", server.port))
        .arg("--tables")
        .arg(&tables)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "programs never asked");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Meanwhile the same dataset is ingested again, now with worked solutions.
    let with: String = [
        (questions[0], "15 + 27 = <<15+27=42>>42\\n#### 42"),
        (questions[1], "3 + 9 = <<3+9=12>>12\\n#### 12"),
    ]
    .iter()
    .map(|(q, a)| format!("{{\"question\": \"{q}\", \"answer\": \"{a}\"}}\n"))
    .collect();
    std::fs::write(&input, with).unwrap();
    advmath()
        .args(["ingest", "--dataset", "noprog", "--tables"])
        .arg(&tables)
        .arg(&input)
        .assert()
        .success();
    let status = programs.wait_with_output().unwrap().status;
    assert!(status.success(), "{status:?}");
    let recs = problems_in(&tables.join("problems/noprog__test.parquet"));
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert!(r.is_valid(), "{}: {:?}", r.problem_id, r.error);
        assert_ne!(r.program_origin, "llm:coder", "{}", r.problem_id);
    }
}

/// A wrong endpoint is found before the first question: nobody listening at the URL ends the
/// run with one line naming it (exit 1), and a URL without its scheme is refused with the fix
/// (exit 2), for `respond` and `programs` alike.
#[test]
fn a_wrong_endpoint_is_named_before_the_first_question() {
    let (_dir, tables) = small_tables();
    for command in [["respond", "--model", "m"], ["programs", "--model", "m"]] {
        let out = advmath()
            .args(command)
            .args(["--endpoint", "http://127.0.0.1:9", "--tables"])
            .arg(&tables)
            .timeout(Duration::from_secs(60))
            .assert()
            .code(1);
        let err = stderr_of(&out);
        assert_eq!(err.lines().count(), 1, "{command:?}: {err}");
        assert!(
            err.contains("http://127.0.0.1:9: no server answers there"),
            "{command:?}: {err}"
        );
        let out = advmath()
            .args(command)
            .args(["--endpoint", "127.0.0.1:8080", "--tables"])
            .arg(&tables)
            .assert()
            .code(2);
        let err = stderr_of(&out);
        assert!(
            err.contains("--endpoint http://127.0.0.1:8080"),
            "{command:?}: {err}"
        );
    }
}
