//! One writer per table across machines: two `respond` runs for one model against one bucket from
//! two cache folders (two "machines", whose local file locks know nothing of each other). The
//! store's lease refuses the second while the first lives, and lets it proceed once the first
//! has ended, or once the first's lease has expired after a kill -9. Each "machine" has its own
//! name (`ADVMATH_HOST`, its cache folder's name): on one machine a dead holder's lease is taken
//! over at once, as the s3 crash tests' reruns show.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::s3::Moto;

/// The lease's time to live in these tests (a heartbeat every second).
const LEASE_SECONDS: u64 = 3;

/// `advmath respond` for `model` on the bucket's tables, from the machine whose cache folder is
/// `cache` (and whose name is that folder's).
fn respond_command(moto: &Moto, cache: &Path, model: &str) -> Command {
    let mut cmd = Command::new(crate::util::advmath_path());
    moto.env(&mut cmd, cache)
        .env("ADVMATH_HOST", cache.file_name().unwrap())
        .env("ADVMATH_LEASE_SECONDS", LEASE_SECONDS.to_string())
        .args([
            "respond",
            "--tables",
            "s3://lab-bucket/lease/tables",
            "--model",
        ])
        .arg(model);
    cmd
}

/// [`respond_command`], held just before its push commits (`hold` appears then, and the run goes
/// on when it is removed).
fn held_respond(moto: &Moto, cache: &Path, model: &str, hold: &Path) -> Child {
    respond_command(moto, cache, model)
        .env("ADVMATH_HOLD_AT", "commit manifest")
        .env("ADVMATH_HOLD_FILE", hold)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for_file(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the held run ended before its hold: {status}");
        }
        assert!(start.elapsed() < Duration::from_secs(180), "no hold");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn respond(moto: &Moto, cache: &Path, model: &str) -> std::process::Output {
    respond_command(moto, cache, model).output().unwrap()
}

/// `sql --format csv` over the bucket's committed tables, as a third machine reads them: the
/// rows of the result, header left out.
fn sql_rows(moto: &Moto, cache: &Path, sql: &str) -> Vec<String> {
    let out = moto
        .advmath(cache)
        .args([
            "sql",
            "--format",
            "csv",
            "--tables",
            "s3://lab-bucket/lease/tables",
            sql,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines().skip(1).map(str::to_string).collect()
}

/// (variants, rows) of `model` in the bucket's committed responses.
fn rows_per_variant(moto: &Moto, cache: &Path, model: &str) -> (i64, i64) {
    let rows = sql_rows(
        moto,
        cache,
        &format!(
            "SELECT COUNT(DISTINCT variant_id) AS variants, COUNT(*) AS n \
             FROM responses WHERE model = '{model}'"
        ),
    );
    let (variants, n) = rows[0].split_once(',').unwrap();
    (variants.parse().unwrap(), n.parse().unwrap())
}

fn variants(moto: &Moto, cache: &Path) -> i64 {
    sql_rows(moto, cache, "SELECT COUNT(*) FROM variants")[0]
        .parse()
        .unwrap()
}

#[test]
fn a_second_machine_is_refused_until_the_first_ends_or_its_lease_expires() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b, reader) = (
        dir.path().join("machine-a"),
        dir.path().join("machine-b"),
        dir.path().join("reader"),
    );
    moto.advmath(&a)
        .args(["run", "--models", "sim-carry"])
        .args(crate::util::SMALL_GENERATION)
        .args(["--out", "s3://lab-bucket/lease"])
        .assert()
        .success();
    let total = variants(&moto, &reader);
    assert!(total > 50, "{total} variants");

    // 1. The first machine ends normally: the second, refused meanwhile, then proceeds.
    let hold = dir.path().join("hold-1");
    let mut first = held_respond(&moto, &a, "oracle", &hold);
    wait_for_file(&hold, &mut first);
    let pid = std::fs::read_to_string(&hold).unwrap();
    let refused = respond(&moto, &b, "oracle");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {pid} on machine-a")) && stderr.contains("_advmath/locks/"),
        "the refusal names the holder and its lease: {stderr}"
    );
    // Another model from the second machine meanwhile: not this lease.
    let other = respond(&moto, &b, "sim-careful");
    assert!(
        other.status.success(),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
    std::fs::remove_file(&hold).unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = respond(&moto, &b, "oracle");
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(rows_per_variant(&moto, &reader, "oracle"), (total, total));
    assert_eq!(
        rows_per_variant(&moto, &reader, "sim-careful"),
        (total, total)
    );

    // 2. The first machine is killed (-9) holding the lease: refused until it expires.
    let hold = dir.path().join("hold-2");
    let mut first = held_respond(&moto, &a, "sim-divweak", &hold);
    wait_for_file(&hold, &mut first);
    first.kill().unwrap();
    first.wait().unwrap();
    let killed_at = Instant::now();
    let refused = respond(&moto, &b, "sim-divweak");
    // The lease was renewed within the last second or so: still live.
    if killed_at.elapsed() < Duration::from_secs(LEASE_SECONDS - 1) {
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&refused.stderr)
        );
    }
    std::thread::sleep(Duration::from_secs(LEASE_SECONDS + 1));
    let after = respond(&moto, &b, "sim-divweak");
    assert!(
        after.status.success(),
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );
    assert_eq!(
        rows_per_variant(&moto, &reader, "sim-divweak"),
        (total, total)
    );
    // Every lease is gone once its writer ended (the killed one's was taken over and released).
    assert!(moto.objects("lease/_advmath/locks").is_empty());
}
