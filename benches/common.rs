//! Shared helpers for the benchmark binaries (included with `#[path]`, not a bench itself).

use std::path::PathBuf;
use std::time::Duration;

/// `../shared/data`, or `None` with a message: benchmarks on real data are skipped without it.
pub fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED: ../shared/data is absent");
        None
    }
}

/// CPU time (user + system) of this process so far.
pub fn cpu_time() -> Duration {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Peak resident set size of this process, in MiB (VmHWM).
pub fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// Reset this process's peak RSS to its current RSS (Linux `clear_refs`), so that a later
/// [`peak_rss_mib`] measures only what runs after.
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Print the missed goals (or that all were met) and exit 1 when one was missed.
pub fn finish(failed: &[String]) {
    if failed.is_empty() {
        println!("all goals met");
        return;
    }
    for f in failed {
        println!("GOAL MISSED: {f}");
    }
    std::process::exit(1);
}
