//! Which machine and which processes: the host name sessions and leases record, and whether a
//! process of this machine still runs (a dead writer's leftovers may go, a live one's never).

/// This machine's name, as sessions and leases record it: `ADVMATH_HOST`, else the host name
/// (containers that share one host name each need their own).
pub fn host() -> String {
    if let Some(name) = std::env::var("ADVMATH_HOST").ok().filter(|n| !n.is_empty()) {
        return crate::paths::name_component(&name);
    }
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_else(|_| "host".into());
    crate::paths::name_component(name.trim())
}

/// Whether process `pid` of this machine is running (a half-written file or a session of a dead
/// process may go).
pub fn process_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: kill(2) with signal 0 only checks that the process exists.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}
