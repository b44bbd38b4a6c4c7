//! The bounds a query runs within, watched from outside the query's runtime.
//!
//! A query's operators run on the runtime's worker threads, and while every worker is busy
//! computing (an aggregation over an in-memory source never waits on anything) the runtime's
//! timers are not turned: a bound watched with `tokio::time::sleep` fires seconds late, and the
//! process grows far past its memory limit meanwhile. So a [`Watchdog`] is a plain OS thread that
//! reads the clock and the resident size every few milliseconds and wakes the query's task
//! through a [`tokio::sync::Notify`], which needs no timer.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the watchdog looks.
const EVERY: Duration = Duration::from_millis(5);

/// Which bound was passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Passed {
    Time,
    Memory,
}

/// A thread watching one query's bounds until dropped.
pub(super) struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Shared {
    stop: AtomicBool,
    /// 0 while within the bounds, else 1 + the [`Passed`] bound.
    passed: AtomicU8,
    wake: tokio::sync::Notify,
}

impl Watchdog {
    /// Watch the time from now against `timeout`, and the process's resident size against
    /// `memory` bytes (never where the resident size cannot be read). No bound, no thread.
    pub(super) fn start(timeout: Option<Duration>, memory: Option<usize>) -> Watchdog {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            passed: AtomicU8::new(0),
            wake: tokio::sync::Notify::new(),
        });
        let memory = memory.filter(|_| resident_bytes().is_some());
        let deadline = timeout.map(|t| Instant::now() + t);
        let thread = (deadline.is_some() || memory.is_some()).then(|| {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("advmath-bounds".into())
                .spawn(move || {
                    while !shared.stop.load(Ordering::Relaxed) {
                        let passed = if deadline.is_some_and(|d| Instant::now() >= d) {
                            Some(Passed::Time)
                        } else if memory
                            .is_some_and(|m| resident_bytes().is_some_and(|rss| rss > m))
                        {
                            Some(Passed::Memory)
                        } else {
                            None
                        };
                        if let Some(passed) = passed {
                            shared.passed.store(1 + passed as u8, Ordering::Release);
                            shared.wake.notify_one();
                            return;
                        }
                        std::thread::sleep(EVERY);
                    }
                })
                .expect("a thread to watch the query's bounds")
        });
        Watchdog { shared, thread }
    }

    /// Returns once a bound is passed (never when none is).
    pub(super) async fn passed(&self) -> Passed {
        if self.thread.is_none() {
            return std::future::pending().await;
        }
        loop {
            match self.shared.passed.load(Ordering::Acquire) {
                0 => self.shared.wake.notified().await,
                1 => return Passed::Time,
                _ => return Passed::Memory,
            }
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The process's resident memory, from `/proc/self/status` where there is one.
pub(super) fn resident_bytes() -> Option<usize> {
    proc_kib("/proc/self/status", "VmRSS:")
}

/// Total memory from `/proc/meminfo`, where there is one.
pub(super) fn physical_memory() -> Option<usize> {
    proc_kib("/proc/meminfo", "MemTotal:")
}

fn proc_kib(file: &str, key: &str) -> Option<usize> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound fires while the runtime's only worker never yields: no timer is needed.
    #[test]
    fn a_deadline_fires_while_every_worker_is_busy() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let busy = Arc::new(AtomicBool::new(true));
        let spin = Arc::clone(&busy);
        runtime.spawn(async move {
            while spin.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        let start = Instant::now();
        let watchdog = Watchdog::start(Some(Duration::from_millis(100)), None);
        let passed = runtime.block_on(async {
            tokio::select! {
                passed = watchdog.passed() => Some(passed),
                () = tokio::time::sleep(Duration::from_secs(30)) => None,
            }
        });
        busy.store(false, Ordering::Relaxed);
        assert_eq!(passed, Some(Passed::Time));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(Watchdog::start(None, None).thread.is_none());
    }
}
