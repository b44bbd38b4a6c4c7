//! Fault injection at the store's durable steps, for the crash and disk-full tests.
//!
//! Every step that changes what is on disk (a file created, a batch written, a rename, a
//! removal) passes through [`point`]. Normally that is one relaxed atomic load. Three
//! environment variables turn it into a test rig, so the tests can exercise the real binary
//! without a debugger or `strace`:
//! - `ADVMATH_FAULT_LOG=<file>` appends `<n> <step>` for each step, so a test can count them;
//! - `ADVMATH_CRASH_AT=<n>` kills the process with SIGKILL at its n-th step (no destructor, no
//!   flush, as `kill -9` from outside);
//! - `ADVMATH_FAIL_AT=<n>` makes the n-th step fail as a full disk does (`ENOSPC`);
//! - `ADVMATH_HOLD_AT=<text>` with `ADVMATH_HOLD_FILE=<file>` holds the process at the first step
//!   whose name contains the text: it writes its pid to the file and waits until the file is
//!   removed (a test then looks at the world in that state, or kills the process there).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

struct Rig {
    log: Option<std::path::PathBuf>,
    crash_at: Option<usize>,
    fail_at: Option<usize>,
    hold: Option<(String, std::path::PathBuf)>,
}

fn rig() -> Option<&'static Rig> {
    static RIG: OnceLock<Option<Rig>> = OnceLock::new();
    RIG.get_or_init(|| {
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        let rig = Rig {
            log: std::env::var_os("ADVMATH_FAULT_LOG").map(Into::into),
            crash_at: number("ADVMATH_CRASH_AT"),
            fail_at: number("ADVMATH_FAIL_AT"),
            hold: std::env::var("ADVMATH_HOLD_AT")
                .ok()
                .zip(std::env::var_os("ADVMATH_HOLD_FILE").map(Into::into)),
        };
        let any = rig.log.is_some()
            || rig.crash_at.is_some()
            || rig.fail_at.is_some()
            || rig.hold.is_some();
        any.then_some(rig)
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
    let name = step();
    if let Some(log) = &rig.log {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{n} {name}");
        }
    }
    if let Some((text, file)) = &rig.hold {
        static HELD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if name.contains(text.as_str()) && !HELD.swap(true, Ordering::SeqCst) {
            let _ = std::fs::write(file, std::process::id().to_string());
            while file.exists() {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
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
