//! Fault injection at the store's durable steps, for the crash and disk-full tests.
//!
//! Every step that changes what is on disk (a file created, a batch written, a rename, a
//! removal) passes through [`point`]. Normally that is one relaxed atomic load. Three
//! environment variables turn it into a test rig, so the tests can exercise the real binary
//! without a debugger or `strace`:
//! - `ADVMATH_FAULT_LOG=<file>` appends `<n> <step>` for each step, so a test can count them;
//! - `ADVMATH_CRASH_AT=<n>` kills the process with SIGKILL at its n-th step (no destructor, no
//!   flush, as `kill -9` from outside);
//! - `ADVMATH_FAIL_AT=<n>` makes the n-th step fail as a full disk does (`ENOSPC`).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

struct Rig {
    log: Option<std::path::PathBuf>,
    crash_at: Option<usize>,
    fail_at: Option<usize>,
}

fn rig() -> Option<&'static Rig> {
    static RIG: OnceLock<Option<Rig>> = OnceLock::new();
    RIG.get_or_init(|| {
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        let rig = Rig {
            log: std::env::var_os("ADVMATH_FAULT_LOG").map(Into::into),
            crash_at: number("ADVMATH_CRASH_AT"),
            fail_at: number("ADVMATH_FAIL_AT"),
        };
        (rig.log.is_some() || rig.crash_at.is_some() || rig.fail_at.is_some()).then_some(rig)
    })
    .as_ref()
}

/// One durable step, named for the log (`rename variants/...`). Returns the injected failure
/// when the rig asks for one at this step; the caller reports it with the path it was writing.
pub fn point(step: impl FnOnce() -> String) -> std::io::Result<()> {
    let Some(rig) = rig() else {
        return Ok(());
    };
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(log) = &rig.log {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{n} {}", step());
        }
    }
    if rig.crash_at == Some(n) {
        // SAFETY: kill(2) on our own pid with a valid signal number has no memory effects.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
    if rig.fail_at == Some(n) {
        return Err(std::io::Error::from_raw_os_error(libc::ENOSPC));
    }
    Ok(())
}
