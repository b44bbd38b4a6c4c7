//! A real Ballista cluster: a scheduler and two executors as separate `advmath cluster`
//! processes on 127.0.0.1. Every metric file gives the in-process results (compared as the
//! DuckDB parity test compares: sorted rows, numbers within 1e-9), over local tables and over
//! tables in S3; an executor killed mid-query leaves a correct result or a clear failure.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use advmath::metrics::{Cell, EngineLimits, ResultTable, SqlEngine};

use crate::util::{advmath, embedded_sql, small_tables};

const TOLERANCE: f64 = 1e-9;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A port `p` with `p + 1` free too (an executor takes both).
fn free_port_pair() -> u16 {
    loop {
        let p = free_port();
        if p < u16::MAX && TcpListener::bind(("127.0.0.1", p + 1)).is_ok() {
            return p;
        }
    }
}

fn wait_for(port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(30), "port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A scheduler and two executors, each its own process, stopped (SIGKILL) when dropped.
pub struct Cluster {
    pub url: String,
    pub scheduler: Child,
    pub executors: Vec<Child>,
    pub scheduler_log: PathBuf,
    _work: tempfile::TempDir,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in self.executors.iter_mut().chain([&mut self.scheduler]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Cluster {
    pub fn start() -> Cluster {
        Cluster::start_with(&|_| {})
    }

    /// A cluster whose processes get `env` (a store's credentials and endpoint).
    pub fn start_with(env: &dyn Fn(&mut Command)) -> Cluster {
        let bin = crate::util::advmath_path();
        let work = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut scheduler = Command::new(&bin);
        env(&mut scheduler);
        // Its log says when it takes an executor for dead.
        let scheduler_log = work.path().join("scheduler.log");
        let scheduler = scheduler
            .args(["cluster", "scheduler", "--bind"])
            .arg(format!("127.0.0.1:{port}"))
            .env("ADVMATH_CLUSTER_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&scheduler_log).unwrap())
            .spawn()
            .unwrap();
        wait_for(port);
        let executors = (0..2)
            .map(|i| {
                let flight = free_port_pair();
                let mut executor = Command::new(&bin);
                env(&mut executor);
                let child = executor
                    .args([
                        "cluster",
                        "executor",
                        "--slots",
                        "2",
                        "--memory-limit",
                        "4GiB",
                    ])
                    .args(["--scheduler", &format!("127.0.0.1:{port}")])
                    .args(["--port", &flight.to_string(), "--work-dir"])
                    .arg(work.path().join(format!("executor-{i}")))
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                wait_for(flight);
                child
            })
            .collect();
        Cluster {
            url: format!("df://127.0.0.1:{port}"),
            scheduler,
            executors,
            scheduler_log,
            _work: work,
        }
    }

    pub fn engine(&self, tables: &Path) -> SqlEngine {
        SqlEngine::open_limited(
            tables,
            EngineLimits {
                cluster: Some(self.url.clone()),
                ..Default::default()
            },
        )
        .unwrap()
    }
}

/// A row as text for sorting: numbers to 9 significant digits, so that sums added in another
/// order sort alike.
fn sort_key(row: &[Cell]) -> Vec<String> {
    row.iter()
        .map(|c| match c.as_f64() {
            Some(v) => format!("{v:.9e}"),
            None => format!("{c:?}"),
        })
        .collect()
}

/// The DuckDB parity test's comparison: same columns, same rows once both sides are sorted,
/// numbers within 1e-9 (absolute or relative), everything else exactly.
pub fn assert_same_result(name: &str, expected: &ResultTable, got: &ResultTable) {
    assert_eq!(expected.columns, got.columns, "{name}: columns");
    assert_eq!(expected.len(), got.len(), "{name}: rows");
    let sorted = |t: &ResultTable| {
        let mut rows = t.rows.clone();
        rows.sort_by_key(|r| sort_key(r));
        rows
    };
    for (i, (a, b)) in sorted(expected).iter().zip(sorted(got)).enumerate() {
        for (j, (x, y)) in a.iter().zip(&b).enumerate() {
            let same = match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => {
                    (x - y).abs() <= TOLERANCE || (x - y).abs() <= TOLERANCE * x.abs().max(y.abs())
                }
                _ => x == y,
            };
            assert!(
                same,
                "{name}: row {i}, column {}: {x:?} != {y:?}",
                expected.columns[j]
            );
        }
    }
}

/// A CSV the way `metrics` and `sql --format csv` write it, read back into cells (quoted fields
/// kept as text; numbers parsed).
fn from_csv(text: &str) -> ResultTable {
    fn fields(line: &str) -> Vec<(String, bool)> {
        let (mut out, mut field, mut quoted, mut in_quotes) =
            (Vec::new(), String::new(), false, false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, in_quotes) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                ('"', true) => in_quotes = false,
                ('"', false) => (in_quotes, quoted) = (true, true),
                (',', false) => out.push((std::mem::take(&mut field), std::mem::take(&mut quoted))),
                (c, _) => field.push(c),
            }
        }
        out.push((field, quoted));
        out
    }
    let mut lines = text.lines();
    let columns = fields(lines.next().unwrap_or_default())
        .into_iter()
        .map(|f| f.0)
        .collect();
    let rows = lines
        .map(|line| {
            fields(line)
                .into_iter()
                .map(|(f, quoted)| match () {
                    _ if quoted => Cell::Text(f),
                    _ if f.is_empty() => Cell::Null,
                    _ => f
                        .parse::<i64>()
                        .map(Cell::Int)
                        .or_else(|_| f.parse::<f64>().map(Cell::Float))
                        .unwrap_or(Cell::Text(f)),
                })
                .collect()
        })
        .collect();
    ResultTable { columns, rows }
}

/// Every metric file on the cluster gives the in-process results, over a default run's tables.
#[test]
fn every_metric_on_the_cluster_equals_in_process() {
    let cluster = Cluster::start();
    let (_dir, tables) = small_tables();
    let local = SqlEngine::open(&tables).unwrap();
    let remote = cluster.engine(&tables);
    let mut with_rows = 0;
    for (name, sql) in embedded_sql().iter() {
        let expected = local.query_table(sql).unwrap();
        with_rows += usize::from(!expected.is_empty());
        let got = remote
            .query_table(sql)
            .unwrap_or_else(|e| panic!("{name} on the cluster: {e}"));
        assert_same_result(name, &expected, &got);
    }
    // A default run has no efficient attack, no annotations and no guided attack: those four
    // metrics alone have no row.
    assert!(
        with_rows + 4 >= advmath::metrics::METRICS.len(),
        "{with_rows} metrics with rows"
    );
    // The command itself, with its report; the shared views were computed once, into the
    // session's scratch folder, which went with it (as did the engines' above, which hold their
    // own `attacks` there).
    drop((local, remote));
    let out = tempfile::tempdir().unwrap();
    let run = advmath()
        .args(["metrics", "--cluster", &cluster.url, "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    assert!(out.path().join("report.md").is_file());
    let stdout = String::from_utf8_lossy(&run.get_output().stdout);
    assert!(
        stdout.lines().any(|l| l.starts_with("shared_views\t")),
        "{stdout}"
    );
    let left = std::fs::read_dir(tables.join(".sessions"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(left, 0, "session folders left in the tables");
}

/// The same over tables in S3 (moto): `metrics --tables s3://... --cluster`, whose scheduler and
/// executors read the bucket in place, equals the in-process run over its local copy.
#[test]
fn every_metric_on_the_cluster_over_s3_equals_in_process() {
    let Some(moto) = crate::s3::Moto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cluster = Cluster::start_with(&|cmd| {
        moto.env(cmd, &dir.path().join("cluster-cache"));
    });
    moto.advmath(&cache)
        .arg("run")
        .args(crate::util::SMALL_GENERATION)
        .args(["--out", "s3://lab-bucket/cluster"])
        .assert()
        .success();
    let (in_process, on_cluster) = (dir.path().join("in-process"), dir.path().join("cluster"));
    let cluster_cache = dir.path().join("client-cache");
    for (out, cluster_url, cache) in [
        (&in_process, None, &cache),
        (&on_cluster, Some(&cluster.url), &cluster_cache),
    ] {
        let mut cmd = moto.advmath(cache);
        cmd.args([
            "metrics",
            "--tables",
            "s3://lab-bucket/cluster/tables",
            "--out",
        ])
        .arg(out);
        if let Some(url) = cluster_url {
            cmd.args(["--cluster", url]);
        }
        cmd.assert().success();
    }
    // On the cluster nothing was copied locally: the executors read the bucket.
    assert!(!cluster_cache.join("mirrors").exists());
    // Nor is anything left in the bucket: the session's pins and views went with it.
    assert!(moto.objects("cluster/tables/_advmath").is_empty());
    let mut compared = 0;
    for (name, _) in embedded_sql().iter() {
        let csv = |d: &PathBuf| {
            from_csv(&std::fs::read_to_string(d.join(format!("{name}.csv"))).unwrap())
        };
        assert_same_result(name, &csv(&in_process), &csv(&on_cluster));
        compared += 1;
    }
    assert_eq!(compared, advmath::metrics::METRICS.len());
}

/// An executor killed (SIGKILL) while a query runs: the query completes on the other executor
/// with the in-process result, or fails with a message saying so; never a wrong result. Either
/// way within the stated bound: the healthy query's time plus the scheduler's detection (its
/// executor timeout and a third of it, at the default settings the cluster runs with here) plus
/// ten seconds of slack for this busy machine.
#[test]
fn an_executor_killed_mid_query_never_gives_a_wrong_result() {
    let mut cluster = Cluster::start();
    let (_dir, tables) = small_tables();
    // Heavy enough to outlive the kill, light on memory: every response 4,000 times, of which a
    // task holds only the responses (a cross join holds its first input).
    let sql = "SELECT r.model, COUNT(*) AS n, SUM(LENGTH(r.response) + s.i) AS total \
               FROM responses r CROSS JOIN (SELECT UNNEST(GENERATE_SERIES(1, 4000)) AS i) s \
               GROUP BY r.model ORDER BY r.model";
    let expected = SqlEngine::open(&tables).unwrap().query_table(sql).unwrap();
    let bin = crate::util::advmath_path();
    let query = || {
        Command::new(&bin)
            .args([
                "sql",
                "--format",
                "csv",
                "--cluster",
                &cluster.url,
                "--tables",
            ])
            .arg(&tables)
            .arg(sql)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let start = Instant::now();
    let healthy = query().wait_with_output().unwrap();
    assert!(
        healthy.status.success(),
        "{}",
        String::from_utf8_lossy(&healthy.stderr)
    );
    let healthy_time = start.elapsed();
    let running = query();
    std::thread::sleep(Duration::from_millis(700));
    let victim = &mut cluster.executors[0];
    victim.kill().unwrap();
    victim.wait().unwrap();
    let killed = Instant::now();
    // The scheduler's own word that it took the executor for dead.
    let noticed = loop {
        let log = std::fs::read_to_string(&cluster.scheduler_log).unwrap_or_default();
        if log.contains("Removing executor") {
            break killed.elapsed();
        }
        assert!(
            killed.elapsed() < Duration::from_secs(120),
            "the scheduler never took the killed executor for dead"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = running.wait_with_output().unwrap();
    let recovery = killed.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let timeout = advmath::cluster::EXECUTOR_TIMEOUT;
    let detection = timeout + timeout / 3;
    let bound = healthy_time + detection + Duration::from_secs(10);
    eprintln!(
        "healthy query {:.1} s; the scheduler took the killed executor for dead after {:.1} s \
         (bound {:.1} s); the query ended {:.1} s after the kill (bound {:.1} s): exit {:?}; \
         stderr: {stderr}",
        healthy_time.as_secs_f64(),
        noticed.as_secs_f64(),
        (detection + Duration::from_secs(5)).as_secs_f64(),
        recovery.as_secs_f64(),
        bound.as_secs_f64(),
        out.status.code()
    );
    assert!(
        noticed <= detection + Duration::from_secs(5),
        "noticed after {noticed:?}"
    );
    assert!(
        recovery <= bound,
        "{recovery:?} after the kill, bound {bound:?}"
    );
    if out.status.success() {
        assert_same_result("killed", &expected, &from_csv(&stdout));
    } else {
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("error:") && stderr.contains("failed"),
            "{stderr}"
        );
        assert!(
            stdout.lines().count() <= 1,
            "a failed query printed rows: {stdout}"
        );
    }
}

/// `sql --cluster` over the bucket tables `tables`.
fn cluster_sql_output(
    moto: &crate::s3::Moto,
    cache: &Path,
    cluster: &Cluster,
    tables: &str,
    sql: &str,
) -> std::process::Output {
    moto.advmath(cache)
        .args(["sql", "--format", "csv", "--cluster", &cluster.url])
        .args(["--tables", tables, "--", sql])
        .output()
        .unwrap()
}

/// `sql --cluster` over the tables of `s3://lab-bucket/held`, as CSV.
fn cluster_sql(moto: &crate::s3::Moto, cache: &Path, cluster: &Cluster, sql: &str) -> String {
    let out = cluster_sql_output(moto, cache, cluster, "s3://lab-bucket/held/tables", sql);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Start `advmath` with `args` from cache folder `cache`, held just before its push commits;
/// returns once it is held (`hold` exists; removing it lets the run go on).
fn held(moto: &crate::s3::Moto, cache: &Path, hold: &Path, args: &[&str]) -> Child {
    let mut cmd = Command::new(crate::util::advmath_path());
    moto.env(&mut cmd, cache)
        .env("ADVMATH_HOLD_AT", "commit manifest")
        .env("ADVMATH_HOLD_FILE", hold)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    while !hold.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the push ended early");
        assert!(start.elapsed() < Duration::from_secs(120), "no hold");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn finish(hold: &Path, child: Child) {
    std::fs::remove_file(hold).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A push held half done (its new parts uploaded, its manifest not committed: the fault rig's
/// hold) while cluster queries run: they see the previous committed version exactly, though the
/// bucket's folders already hold the new parts; once the push commits they see it.
#[test]
fn a_cluster_query_sees_only_committed_tables_while_a_push_is_half_done() {
    let Some(moto) = crate::s3::Moto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start_with(&|cmd| {
        moto.env(cmd, &dir.path().join("cluster-cache"));
    });
    let (writer, client) = (dir.path().join("writer"), dir.path().join("client"));
    moto.advmath(&writer)
        .args(["run", "--models", "sim-carry,sim-careful"])
        .args(crate::util::SMALL_GENERATION)
        .args(["--out", "s3://lab-bucket/held"])
        .assert()
        .success();
    let per_model = "SELECT model, COUNT(*) AS n, SUM(CASE WHEN correct THEN 1 ELSE 0 END) AS ok \
                     FROM responses GROUP BY model ORDER BY model";
    let before = cluster_sql(&moto, &client, &cluster, per_model);
    assert_eq!(before.lines().count(), 3, "{before}");
    let metric = embedded_sql()
        .iter()
        .find(|(name, _)| *name == "xie_asr")
        .unwrap()
        .1;
    let asr_before = cluster_sql(&moto, &client, &cluster, metric);

    let hold = dir.path().join("hold");
    let push = held(
        &moto,
        &writer,
        &hold,
        &[
            "respond",
            "--tables",
            "s3://lab-bucket/held/tables",
            "--model",
            "oracle",
        ],
    );
    // Half done: the new model's parts are in the bucket's table folder.
    let uploaded = moto.objects("held/tables/responses");
    assert!(
        uploaded
            .keys()
            .any(|k| k.contains("oracle") && k.ends_with(".parquet")),
        "{:?}",
        uploaded.keys().collect::<Vec<_>>()
    );
    assert_eq!(cluster_sql(&moto, &client, &cluster, per_model), before);
    assert_eq!(cluster_sql(&moto, &client, &cluster, metric), asr_before);

    finish(&hold, push);
    let after = cluster_sql(&moto, &client, &cluster, per_model);
    assert_eq!(after.lines().count(), 4, "{after}");
    assert!(after.contains("oracle"), "{after}");
    // Each query's session removed its pins and views when it ended.
    assert!(moto.objects("held/tables/_advmath").is_empty());
}

/// A push that replaces parts (a rerun of `generate` with another seed rewrites every variants
/// part under the same key), held half done: on a bucket that keeps versions the cluster reads
/// the pinned versions and gives the previous result exactly; on one that does not, the query
/// fails saying the object changed, rather than mixing two states.
#[test]
fn a_part_replaced_by_a_push_in_progress_is_read_as_pinned_or_not_at_all() {
    let Some(moto) = crate::s3::Moto::start() else {
        return;
    };
    let versioned = "versioned-bucket";
    let base = format!("{}/{versioned}", moto.endpoint());
    assert!(ureq::put(&base).send_empty().is_ok());
    let enabled = ureq::put(&format!("{base}?versioning")).send(
        "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\
         <Status>Enabled</Status></VersioningConfiguration>",
    );
    assert!(enabled.is_ok(), "{enabled:?}");
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start_with(&|cmd| {
        moto.env(cmd, &dir.path().join("cluster-cache"));
    });
    let sql = "SELECT dataset, attack, COUNT(*) AS n, SUM(LENGTH(question)) AS chars, \
               SUM(LENGTH(answer)) AS answers FROM variants GROUP BY dataset, attack \
               ORDER BY dataset, attack";
    for bucket in [versioned, "lab-bucket"] {
        let out = format!("s3://{bucket}/replaced");
        let tables = format!("{out}/tables");
        let writer = dir.path().join(format!("writer-{bucket}"));
        let client = dir.path().join(format!("client-{bucket}"));
        moto.advmath(&writer)
            .args(["run", "--models", "sim-carry", "--out", &out])
            .args(crate::util::SMALL_GENERATION)
            .assert()
            .success();
        let before = cluster_sql_output(&moto, &client, &cluster, &tables, sql);
        assert!(before.status.success());
        let hold = dir.path().join(format!("hold-{bucket}"));
        let mut args = vec!["generate", "--tables", &tables, "--seed", "99"];
        args.extend(crate::util::SMALL_GENERATION);
        let push = held(&moto, &writer, &hold, &args);
        let during = cluster_sql_output(&moto, &client, &cluster, &tables, sql);
        let stderr = String::from_utf8_lossy(&during.stderr);
        if bucket == versioned {
            assert!(during.status.success(), "{stderr}");
            assert_eq!(
                String::from_utf8_lossy(&during.stdout),
                String::from_utf8_lossy(&before.stdout)
            );
        } else {
            eprintln!("unversioned, during the push: {stderr}");
            assert_eq!(during.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("variants"), "{stderr}");
        }
        finish(&hold, push);
        let after = cluster_sql_output(&moto, &client, &cluster, &tables, sql);
        assert!(after.status.success());
        assert_ne!(
            after.stdout, before.stdout,
            "the new seed changed the variants"
        );
    }
}
