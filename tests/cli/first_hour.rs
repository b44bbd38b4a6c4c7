//! A new user's first hour: the twelve mistakes newcomers make each end with a message that names
//! the file, row or flag and says what to do. The messages are pinned as one snapshot, with the
//! temporary folder written `[DIR]` and a closed port `[PORT]`; Ctrl-C in the middle of a run is
//! one of them, and the same command run again finishes the job without asking twice.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::server::{spawn, Reply};
use crate::util::{advmath, advmath_path, assert_snapshot, sql_csv};

/// The lines a person reads when a command fails: errors, hints, warnings and the interrupt
/// notice (progress lines vary from run to run and are left out).
fn message_lines(stderr: &[u8], dir: &Path, port: u16) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| {
            ["error:", "hint:", "warning:", "interrupted:"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(|l| {
            l.replace(&dir.display().to_string(), "[DIR]")
                .replace(&format!(":{port}"), ":[PORT]")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `advmath respond` of model `m` over tables `t` at `endpoint`.
fn respond_at(endpoint: &str) -> Vec<&str> {
    vec![
        "respond",
        "--tables",
        "t",
        "--model",
        "m",
        "--endpoint",
        endpoint,
    ]
}

#[test]
fn a_new_users_mistakes_are_named_with_their_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("problems.jsonl"),
        "{\"question\": \"Tom has 15 apples and buys 27 more. How many apples does he have?\", \"answer\": \"42\", \"program\": \"a = 15\\nb = 27\\nans = a + b\"}\n\
         {\"question\": \"Ann has 36 pens and gives away 14. How many pens are left?\", \"answer\": \"22\", \"program\": \"a = 36\\nb = 14\\nans = a - b\"}\n",
    )
    .unwrap();
    fs::write(
        d.join("other.csv"),
        "q,a\nTom has 3 apples and buys 4 more. How many?,7\n",
    )
    .unwrap();
    fs::write(
        d.join("noprog.jsonl"),
        "{\"question\": \"Tom has 15 apples and buys 27 more. How many?\", \"answer\": \"42\"}\n",
    )
    .unwrap();
    fs::write(
        d.join("nofields.jsonl"),
        "{\"question\": \"Tom has 15 apples and buys 27 more. How many?\"}\n\
         {\"question\": \"Ann has 3 pens and buys 4 more. How many?\", \"answer\": \"7\"}\n",
    )
    .unwrap();
    fs::write(d.join("afile"), "").unwrap();
    fs::create_dir(d.join("empty")).unwrap();
    advmath()
        .current_dir(d)
        .args(["ingest", "--tables", "t", "problems.jsonl"])
        .assert()
        .success();
    advmath()
        .current_dir(d)
        .args([
            "generate",
            "--tables",
            "t",
            "--attack",
            "m1",
            "--variants",
            "3",
        ])
        .assert()
        .success();
    // A port nothing listens on: bound, then released.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = format!("http://127.0.0.1:{closed}");
    let cases: Vec<(&str, Vec<&str>, i32)> = vec![
        (
            "wrong path",
            vec!["ingest", "--tables", "t1", "problem.jsonl"],
            1,
        ),
        (
            "missing fields",
            vec!["ingest", "--tables", "t2", "nofields.jsonl"],
            1,
        ),
        (
            "other column names",
            vec!["ingest", "--tables", "t3", "other.csv"],
            1,
        ),
        (
            "no program",
            vec!["ingest", "--tables", "t4", "noprog.jsonl"],
            1,
        ),
        (
            "generate before ingest",
            vec!["generate", "--tables", "new"],
            1,
        ),
        ("unreachable endpoint", respond_at(&unreachable), 1),
        (
            "an endpoint without its scheme",
            respond_at("127.0.0.1:8080"),
            2,
        ),
        (
            "an empty folder as input",
            vec!["ingest", "--tables", "t5", "empty"],
            1,
        ),
        (
            "an empty folder as tables",
            vec!["metrics", "--tables", "empty"],
            1,
        ),
        (
            "typo in --attack",
            vec!["generate", "--tables", "t", "--attack", "m4"],
            2,
        ),
        (
            "SQL syntax error",
            vec!["sql", "--tables", "t", "SELEC * FROM problems"],
            2,
        ),
        (
            "unknown table",
            vec!["sql", "--tables", "t", "SELECT * FROM problem"],
            2,
        ),
        (
            "publish",
            vec!["publish", "--tables", "t", "--out", "hub"],
            0,
        ),
        (
            "publish twice",
            vec!["publish", "--tables", "t", "--out", "hub"],
            2,
        ),
        (
            "a file as --tables",
            vec!["generate", "--tables", "afile"],
            2,
        ),
        (
            "a file as --tables",
            vec!["sql", "--tables", "afile", "SELECT 1"],
            2,
        ),
    ];
    let mut text = String::new();
    for (what, args, code) in &cases {
        let started = Instant::now();
        let out = advmath().current_dir(d).args(args).assert().code(*code);
        if *what == "unreachable endpoint" {
            assert!(started.elapsed() < Duration::from_secs(10), "{what}");
        }
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.replace(&format!(":{closed}"), ":[PORT]"))
            .collect();
        text.push_str(&format!(
            "{what} (advmath {}): exit {code}\n{}\n\n",
            shown.join(" "),
            message_lines(&out.get_output().stderr, d, closed)
        ));
    }
    text.push_str(&interrupt_then_rerun(d, &d.join("t")));
    assert_snapshot("new_user_mistakes", text);
}

/// Ctrl-C while `respond` asks its questions, then the same command again: the first exits 130
/// with one line saying what is kept, the second asks only what was not answered and finishes;
/// every variant ends with one reply. What it says, for the snapshot.
fn interrupt_then_rerun(dir: &Path, tables: &Path) -> String {
    let total: usize = sql_csv(tables, "SELECT count(*) FROM variants")
        .lines()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let slow = spawn(|_| Reply::Ok, Duration::from_millis(300));
    let respond = |port: u16| {
        let mut c = Command::new(advmath_path());
        c.current_dir(dir)
            .args([
                "respond",
                "--tables",
                "t",
                "--model",
                "m",
                "--concurrency",
                "1",
            ])
            .args(["--flush-every", "1", "--endpoint"])
            .arg(format!("http://127.0.0.1:{port}"));
        c
    };
    let mut first = respond(slow.port);
    // A terminal's Ctrl-C reaches a process whose SIGINT is at its default. A test runner started
    // in the background of a script has SIGINT ignored, and advmath keeps an inherited ignore
    // (as a background job should), so the child starts with the default restored.
    // SAFETY: between fork and exec only the async-signal-safe `signal` is called.
    unsafe {
        first.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let child = first
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while slow.requests.load(Ordering::SeqCst) < 3 {
        assert!(Instant::now() < deadline, "respond never asked 3 questions");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a signal to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let interrupted = child.wait_with_output().unwrap();
    assert_eq!(interrupted.status.code(), Some(130), "{interrupted:?}");
    let kept: usize = sql_csv(tables, "SELECT count(*) FROM responses")
        .lines()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(kept >= 1 && kept < total, "{kept} of {total} kept");

    let fast = spawn(|_| Reply::Ok, Duration::ZERO);
    let rerun = respond(fast.port).output().unwrap();
    assert!(rerun.status.success(), "{rerun:?}");
    // Nothing committed is asked again; a reply that arrived but was not yet in a part is
    // recovered from the run's log rather than asked again, and at most the one question in
    // flight at the interrupt (one request at a time) is asked twice.
    let (asked_first, asked_again) = (
        slow.requests.load(Ordering::SeqCst),
        fast.requests.load(Ordering::SeqCst),
    );
    assert!(
        asked_again <= total - kept && asked_first + asked_again <= total + 1,
        "asked {asked_first} then {asked_again} for {total} questions, {kept} kept"
    );
    let counts = sql_csv(
        tables,
        "SELECT count(*) AS replies, count(DISTINCT variant_id) AS variants FROM responses",
    );
    assert_eq!(counts, format!("replies,variants\n{total},{total}\n"));
    format!(
        "Ctrl-C during respond (advmath respond --tables t --model m ...): exit 130\n{}\n\nthe same command again: exit 0, the unanswered questions asked, {total} replies for {total} variants\n",
        message_lines(&interrupted.stderr, dir, slow.port)
    )
}
