//! Benchmark (not a test): the metrics suite on a local Ballista cluster, a scheduler and two
//! executors each in its own process, against the same suite in one process, over the metrics
//! benchmark's synthetic responses (100 million rows by default: 20 models x 200,000 problems x
//! 25 variants). Run: `cargo bench --features cluster --bench cluster`.
//!
//! Reports, for each side, the wall time, the CPU time and the peak resident memory of every
//! process (from `wait4`), and the time of every metric file, so that the difference shows where
//! it goes. Checks only that both sides succeed with the same row counts per metric: on one
//! 2-core machine the cluster is not expected to be faster. `ADVMATH_BENCH_PROBLEMS` and
//! `ADVMATH_BENCH_MODELS` change the size; `ADVMATH_BENCH_DIR` keeps (and reuses) the table.

#[path = "common.rs"]
#[allow(dead_code)]
mod common;
#[path = "synthetic.rs"]
mod synthetic;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_advmath");

/// What a process used: wall seconds (for the commands), CPU seconds, peak RSS in MiB.
struct Usage {
    cpu: f64,
    peak_mib: f64,
}

/// Wait for `child` and read its own resource use.
fn reap(mut child: Child) -> (std::process::ExitStatus, Usage) {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child writes into the status and rusage we own.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let _ = child.try_wait();
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let exit = std::os::unix::process::ExitStatusExt::from_raw(status);
    (
        exit,
        Usage {
            cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
            peak_mib: usage.ru_maxrss as f64 / 1024.0,
        },
    )
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for(port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(30), "port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `advmath metrics` over `tables` (on `cluster` when given): wall seconds, usage, and the
/// metrics' (rows, seconds) by name.
fn metrics(
    tables: &Path,
    out: &Path,
    cluster: Option<&str>,
) -> (f64, Usage, BTreeMap<String, (u64, f64)>) {
    let mut cmd = Command::new(BIN);
    cmd.args(["--quiet", "metrics", "--tables"])
        .arg(tables)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(url) = cluster {
        cmd.args(["--cluster", url]);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("advmath starts");
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let (status, usage) = reap(child);
    let wall = start.elapsed().as_secs_f64();
    assert!(status.success(), "advmath metrics failed");
    let per_metric = stdout
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let rows = f.get(1)?.parse().ok()?;
            let seconds = f.get(2)?.trim_end_matches('s').parse().ok()?;
            Some((f[0].to_string(), (rows, seconds)))
        })
        .collect();
    (wall, usage, per_metric)
}

fn main() {
    let (dir, tables, _rows) = synthetic::tables(20, 200_000);

    let (one_wall, one, one_metrics) = metrics(&tables, &dir.path().join("one"), None);
    println!(
        "one process: {one_wall:.1} s wall, {:.1} s CPU, peak RSS {:.0} MiB",
        one.cpu, one.peak_mib
    );

    let port = free_port();
    let scheduler = Command::new(BIN)
        .args([
            "cluster",
            "scheduler",
            "--bind",
            &format!("127.0.0.1:{port}"),
        ])
        .stdout(Stdio::null())
        .spawn()
        .expect("scheduler starts");
    wait_for(port);
    let executors: Vec<Child> = (0..2)
        .map(|i| {
            let flight = free_port();
            let child = Command::new(BIN)
                .args(["cluster", "executor", "--slots", "1"])
                .args(["--scheduler", &format!("127.0.0.1:{port}")])
                .args(["--port", &flight.to_string(), "--work-dir"])
                .arg(dir.path().join(format!("executor-{i}")))
                .stdout(Stdio::null())
                .spawn()
                .expect("executor starts");
            wait_for(flight);
            child
        })
        .collect();
    let url = format!("df://127.0.0.1:{port}");
    let (cl_wall, client, cl_metrics) = metrics(&tables, &dir.path().join("cluster"), Some(&url));
    let mut processes = vec![("client (advmath metrics --cluster)".to_string(), client)];
    for (i, mut e) in executors.into_iter().enumerate() {
        let _ = e.kill();
        processes.push((format!("executor {}", i + 1), reap(e).1));
    }
    let mut scheduler = scheduler;
    let _ = scheduler.kill();
    processes.push(("scheduler".into(), reap(scheduler).1));
    println!("cluster (scheduler + 2 executors, 1 task slot each): {cl_wall:.1} s wall");
    for (name, u) in &processes {
        println!(
            "  {name:<36} {:>8.1} s CPU, peak RSS {:>6.0} MiB",
            u.cpu, u.peak_mib
        );
    }
    let total_cpu: f64 = processes.iter().map(|(_, u)| u.cpu).sum();
    println!(
        "  all processes: {total_cpu:.1} s CPU ({:.2}x one process's)",
        total_cpu / one.cpu
    );
    println!(
        "\n{:<28} {:>10} {:>12} {:>12}",
        "metric", "rows", "one (s)", "cluster (s)"
    );
    let mut failed = Vec::new();
    for (name, (rows, seconds)) in &one_metrics {
        let (cl_rows, cl_seconds) = cl_metrics.get(name).copied().unwrap_or((0, f64::NAN));
        println!("{name:<28} {rows:>10} {seconds:>12.2} {cl_seconds:>12.2}");
        if cl_rows != *rows {
            failed.push(format!(
                "{name}: {rows} rows in one process, {cl_rows} on the cluster"
            ));
        }
    }
    println!(
        "\ncluster / one process: {:.2}x wall time",
        cl_wall / one_wall
    );
    common::finish(&failed);
}
