//! Benchmark: a whole study at the size people run, stage by stage with the release binary.
//! Run: `cargo bench --bench study` (needs `../shared/data`; python3 with scikit-learn and
//! pyarrow for the fit comparison).
//!
//! GSM8K train + test (programs synthesised from the calculator annotations), M1/M2/M3 at 100
//! variants per problem with N = 30,000 attempts, punctuation at 10/30/50, the five offline
//! models, both feature sets, the per-model fit (the authors' defaults: M3, `xie2024`, C = 1, raw
//! features), every metric and a publish. Each stage is a child process, so its wall time, CPU
//! time and peak RSS are its own (`wait4`). The table goes to `reports/study_benchmark.md`.
//!
//! Then the fit alone, on the largest model's matrix, against scikit-learn: the Python side
//! (`benches/sklearn_fit.py`) builds the matrix from the tables, times
//! `LogisticRegression(C = 1, max_iter = 1000)` on it and writes the matrix; this side times
//! `advmath::regress::fit` on those same bytes and compares the coefficients.
//!
//! Goals: under 3 minutes of wall time for the stages, under 2 GiB peak RSS in every stage, every
//! stage exiting 0 with a log of summary lines (at most `MAX_LOG_LINES`), never one line per row.
//! `ADVMATH_STUDY_VARIANTS` and `ADVMATH_STUDY_ATTEMPTS` shrink the run. Exits 1 when a goal is
//! missed.

#[path = "common.rs"]
#[allow(dead_code)]
mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const OFFLINE_MODELS: [&str; 5] = [
    "oracle",
    "sim-careful",
    "sim-carry",
    "sim-divweak",
    "sim-distracted",
];

/// One stage's measurements.
struct Stage {
    name: String,
    wall: Duration,
    cpu: Duration,
    peak_rss_mib: f64,
    /// What the stage wrote on stderr.
    log: Vec<String>,
}

/// Most lines of log one stage may write: a stage reports what it skipped in summary lines, so
/// more than this is a per-row flood burying the user's log.
const MAX_LOG_LINES: usize = 12;

/// Run `advmath args...` as a child and measure it; a stage that does not exit 0 ends the
/// benchmark. Its log (stderr, progress off) is kept in `logs` for the report.
fn stage(name: &str, args: &[&str], logs: &Path) -> Stage {
    let bin = env!("CARGO_BIN_EXE_advmath");
    let log_path = logs.join(format!("{}.log", name.replace([' ', ',', '(', ')'], "_")));
    let log = std::fs::File::create(&log_path).expect("stage log file");
    let start = Instant::now();
    // Reaped by `wait4` below, which also gives the child's own CPU time and peak RSS.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(bin)
        .args(args)
        .arg("--quiet")
        // Each stage's summary table is data on stdout; the benchmark prints its own.
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("{bin} cannot start: {e}"));
    let (status, usage) = wait_with_usage(child.id() as libc::pid_t);
    let wall = start.elapsed();
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        eprint!("{log}");
        eprintln!("stage {name} failed (wait status {status}): advmath {args:?}");
        std::process::exit(1);
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let s = Stage {
        name: name.to_string(),
        wall,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        // Linux reports ru_maxrss in KiB. The child execs straight after fork from this small
        // process, so the figure is the stage's own.
        peak_rss_mib: usage.ru_maxrss as f64 / 1024.0,
        log: log.lines().map(str::to_string).collect(),
    };
    eprintln!(
        "{:<26} {:>7.1} s wall {:>7.1} s CPU {:>7.0} MiB",
        s.name,
        s.wall.as_secs_f64(),
        s.cpu.as_secs_f64(),
        s.peak_rss_mib
    );
    s
}

fn wait_with_usage(pid: libc::pid_t) -> (libc::c_int, libc::rusage) {
    let mut status: libc::c_int = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both out-pointers are to locals we own; the pid is our own child, reaped here.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    (status, usage)
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// Rows of a table, through `advmath sql` (CSV on stdout).
fn count(tables: &Path, sql: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_advmath"))
        .args(["sql", "--tables"])
        .arg(tables)
        .args(["--format", "csv", sql])
        .output()
        .expect("advmath sql runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .unwrap_or("?")
        .to_string()
}

fn main() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let variants = env_or("ADVMATH_STUDY_VARIANTS", "100");
    let attempts = env_or("ADVMATH_STUDY_ATTEMPTS", "30000");
    let dir = tempfile::tempdir().expect("temporary folder");
    let tables = dir.path().join("tables");
    let t = tables.to_str().expect("UTF-8 temporary path");
    let train = data.join("gsm8k/train.jsonl");
    let test = data.join("gsm8k/test.jsonl");
    let reports = dir.path().join("reports");
    let metrics = dir.path().join("metrics");
    let hub = dir.path().join("hub");
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).expect("log folder");
    let logs = logs.as_path();
    let p = |p: &PathBuf| p.to_str().expect("UTF-8 path").to_string();
    let (train, test, reports, metrics, hub) =
        (p(&train), p(&test), p(&reports), p(&metrics), p(&hub));

    let mut stages = vec![
        stage("ingest", &["ingest", &train, &test, "--tables", t], logs),
        stage(
            "generate m1,m2,m3,punct",
            &[
                "generate",
                "--tables",
                t,
                "--attack",
                "m1,m2,m3,punct",
                "--variants",
                &variants,
                "--attempts",
                &attempts,
            ],
            logs,
        ),
    ];
    for model in OFFLINE_MODELS {
        // An offline model cannot answer the noisy copies of problems whose program did not
        // validate (they have no tree); it says so in one note and still exits 0.
        stages.push(stage(
            &format!("respond {model}"),
            &["respond", "--tables", t, "--model", model],
            logs,
        ));
    }
    stages.push(stage("features", &["features", "--tables", t], logs));
    stages.push(stage(
        "regress (m3, xie2024)",
        &["regress", "--tables", t, "--report-dir", &reports],
        logs,
    ));
    stages.push(stage(
        "metrics",
        &["metrics", "--tables", t, "--out", &metrics],
        logs,
    ));
    stages.push(stage(
        "publish",
        &["publish", "--tables", t, "--out", &hub],
        logs,
    ));

    let problems = count(
        &tables,
        "SELECT COUNT(*) FROM problems WHERE status = 'valid'",
    );
    let variant_rows = count(&tables, "SELECT COUNT(*) FROM variants");
    let m3 = count(&tables, "SELECT COUNT(*) FROM variants WHERE attack = 'm3'");
    let responses = count(&tables, "SELECT COUNT(*) FROM responses");

    let wall: Duration = stages.iter().map(|s| s.wall).sum();
    let cpu: Duration = stages.iter().map(|s| s.cpu).sum();
    let peak = stages.iter().map(|s| s.peak_rss_mib).fold(0.0, f64::max);

    let fit = compare_fit(&tables);

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Whole-study benchmark\n\nWritten by `cargo bench --bench study` (release binary, one child process per stage; \
         wall time, CPU time and peak RSS from `wait4`). Machine: {} cores.\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let _ = writeln!(
        md,
        "GSM8K train + test: {problems} valid problems; M1/M2/M3 at {variants} variants per problem with N = {attempts}, \
         punctuation 10/30/50: {variant_rows} variants ({m3} M3); five offline models: {responses} responses.\n"
    );
    let _ = writeln!(md, "| stage | wall (s) | CPU (s) | peak RSS (MiB) |");
    let _ = writeln!(md, "|---|---:|---:|---:|");
    for s in &stages {
        let _ = writeln!(
            md,
            "| {} | {:.1} | {:.1} | {:.0} |",
            s.name,
            s.wall.as_secs_f64(),
            s.cpu.as_secs_f64(),
            s.peak_rss_mib
        );
    }
    let _ = writeln!(
        md,
        "| **total** | **{:.1}** | **{:.1}** | **{:.0}** (largest stage) |\n",
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        peak
    );
    // The browser report's size: its example sample is bounded, so it must not grow with N.
    let page = Path::new(&metrics).join("report.html");
    let page_mb = std::fs::metadata(&page).map_or(f64::NAN, |m| m.len() as f64 / 1e6);
    let _ = writeln!(
        md,
        "`metrics` wrote `report.html` of {page_mb:.1} MB (self-contained: tables, plots and the example browser's sample).\n"
    );
    if let Some(fit) = &fit {
        let _ = writeln!(md, "{fit}");
    }
    let _ = writeln!(
        md,
        "Every stage exited 0. What each wrote on stderr (progress off), in full:\n"
    );
    for s in &stages {
        let _ = writeln!(md, "- `{}`: {} line(s)", s.name, s.log.len());
        for line in &s.log {
            let _ = writeln!(md, "  > {line}");
        }
    }
    let _ = writeln!(
        md,
        "\nGoals: the stages under 180 s of wall time in total, every stage under 2048 MiB peak RSS, \
         every stage exiting 0 with at most {MAX_LOG_LINES} lines of log."
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let report = root.join("reports/study_benchmark.md");
    std::fs::write(&report, &md).expect("write the report");
    print!("{md}");
    println!("written to {}", report.display());

    let mut failed = Vec::new();
    if wall.as_secs_f64() >= 180.0 {
        failed.push(format!(
            "{:.1} s of wall time (goal: under 180 s)",
            wall.as_secs_f64()
        ));
    }
    for s in stages.iter().filter(|s| s.log.len() > MAX_LOG_LINES) {
        failed.push(format!(
            "stage {} wrote {} lines of log (goal: at most {MAX_LOG_LINES})",
            s.name,
            s.log.len()
        ));
    }
    if peak >= 2048.0 {
        failed.push(format!(
            "a stage peaked at {peak:.0} MiB (goal: under 2048 MiB)"
        ));
    }
    common::finish(&failed);
}

/// Time the fit of the model with the most M3 answers here and in scikit-learn, on one matrix.
fn compare_fit(tables: &Path) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tables.parent().expect("tables has a parent").join("fit");
    std::fs::create_dir_all(&dir).expect("fit folder");
    let out = Command::new("python3")
        .arg(root.join("benches/sklearn_fit.py"))
        .arg(tables)
        .arg(&dir)
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            println!(
                "SKIPPED: the scikit-learn comparison failed (pip install scikit-learn pyarrow): {}",
                String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or("")
            );
            return None;
        }
        Err(e) => {
            println!("SKIPPED: the scikit-learn comparison needs python3: {e}");
            return None;
        }
    };
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("JSON from sklearn_fit.py");
    let n = v["rows"].as_u64().expect("rows") as usize;
    let names: Vec<String> = v["features"]
        .as_array()
        .expect("features")
        .iter()
        .map(|s| s.as_str().expect("name").to_string())
        .collect();
    let k = names.len();
    let read = |file: &str| std::fs::read(dir.join(file)).expect("matrix file");
    let x: Vec<f64> = read("x.f64")
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let y: Vec<bool> = read("y.u8").iter().map(|&b| b == 1).collect();
    assert_eq!((x.len(), y.len()), (n * k, n), "matrix size");
    let x = ndarray::Array2::from_shape_vec((n, k), x).expect("matrix shape");
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let start = Instant::now();
    let terms = advmath::regress::fit(&x, &y, &refs, 1.0, false).expect("the fit");
    let ours = start.elapsed().as_secs_f64();
    let sk: Vec<f64> = v["coefficients"]
        .as_array()
        .expect("coefficients")
        .iter()
        .map(|c| c.as_f64().unwrap_or(f64::NAN))
        .collect();
    // scikit-learn gives a constant column 0; advmath reports it as not estimable.
    let diff = terms
        .iter()
        .skip(1)
        .zip(&sk)
        .filter_map(|(t, s)| t.coefficient.map(|c| (c - s).abs()))
        .fold(0.0, f64::max);
    let sk_seconds = v["seconds"].as_f64().unwrap_or(f64::NAN);
    // Which solution is nearer the optimum: the penalised objective both minimise, at each.
    let ours_params: Vec<f64> = terms.iter().map(|t| t.coefficient.unwrap_or(0.0)).collect();
    let sk_params: Vec<f64> = std::iter::once(v["intercept"].as_f64().unwrap_or(f64::NAN))
        .chain(sk.iter().copied())
        .collect();
    let (ours_obj, sk_obj) = (
        objective(&x, &y, &ours_params),
        objective(&x, &y, &sk_params),
    );
    Some(format!(
        "The fit alone ({model}, {n} answers x {k} features, C = 1, raw features): advmath {ours:.2} s, \
         scikit-learn {sk_seconds:.2} s (`lbfgs`, max_iter = 1000, {iters} iterations); largest coefficient \
         difference {diff:.2e}. The objective both minimise (log-losses + |w|^2 / 2): advmath {ours_obj:.6}, \
         scikit-learn {sk_obj:.6}.\n",
        model = v["model"].as_str().unwrap_or("?"),
        iters = v["iterations"],
    ))
}

/// Sum of log-losses plus |w|^2 / 2 (C = 1) at `params` = [intercept, weights...].
fn objective(x: &ndarray::Array2<f64>, y: &[bool], params: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (row, &yi) in x.rows().into_iter().zip(y) {
        let eta: f64 = params[0]
            + row
                .iter()
                .zip(&params[1..])
                .map(|(a, b)| a * b)
                .sum::<f64>();
        let s = if yi { eta } else { -eta };
        loss += if s > 0.0 {
            (-s).exp().ln_1p()
        } else {
            -s + s.exp().ln_1p()
        };
    }
    loss + 0.5 * params[1..].iter().map(|w| w * w).sum::<f64>()
}
