//! Progress of the long stages on stderr: an indicatif bar on a terminal, and plain lines when
//! stderr is a file or a pipe (nohup, a batch job, CI), where a bar would print nothing.
//!
//! A line is printed at most every 15 seconds (`ADVMATH_PROGRESS_SECONDS` changes it) as work
//! completes, and once at the end:
//! `respond gpt-4o: 120/3000 questions (4.0%), 2.1/s, elapsed 57s, ETA 22m51s, 0 failed`.
//! `--quiet` ([`set_quiet`]) silences both.
//!
//! Everything else the library has to say (warnings, what a stage skipped, where it wrote) goes
//! through [`note!`] too: above a running bar instead of through it, and lost rather than a panic
//! when stderr is closed (the standard print macros panic there). The library prints nothing any other way.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

static QUIET: AtomicBool = AtomicBool::new(false);

/// The bar on screen, if any: a note is printed above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// One line on stderr, above the bar on screen if there is one.
pub fn write_note(line: std::fmt::Arguments<'_>) {
    let bar = BAR.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let write = || {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    };
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// `note!("{} rows", n)`: a line of log through [`write_note`], formatted like `format!`.
macro_rules! note {
    () => {
        $crate::progress::write_note(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::progress::write_note(format_args!($($arg)*))
    };
}
pub(crate) use note;

/// No progress at all, bar or line (the CLI's `--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

fn line_interval() -> Duration {
    std::env::var("ADVMATH_PROGRESS_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(Duration::from_secs(15), Duration::from_secs_f64)
}

enum Display {
    Bar(ProgressBar),
    Lines {
        every: Duration,
        last: Mutex<Instant>,
    },
    Hidden,
}

struct Inner {
    what: String,
    unit: &'static str,
    total: u64,
    done: AtomicU64,
    failed: AtomicU64,
    start: Instant,
    display: Display,
}

/// The progress of one stage over `total` units; cheap to clone into worker threads.
#[derive(Clone)]
pub struct Progress(Arc<Inner>);

impl Progress {
    /// `what` names the stage (and its subject: `respond gpt-4o`), `unit` what is counted.
    pub fn new(what: impl Into<String>, unit: &'static str, total: u64) -> Progress {
        let what = what.into();
        let display = if QUIET.load(Ordering::Relaxed) {
            Display::Hidden
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{spinner}} {what} [{{bar:30}}] {{pos}}/{{len}} {unit} {{per_sec}} ETA {{eta}} {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            *BAR.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar.clone());
            // The store's notes (a lock being waited for) then print above the bar too.
            advmath_store::note::set_sink(write_note);
            Display::Bar(bar)
        } else {
            Display::Lines {
                every: line_interval(),
                last: Mutex::new(Instant::now()),
            }
        };
        Progress(Arc::new(Inner {
            what,
            unit,
            total,
            done: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            start: Instant::now(),
            display,
        }))
    }

    /// Progress nobody sees (library calls that asked for none).
    pub fn hidden() -> Progress {
        Progress(Arc::new(Inner {
            what: String::new(),
            unit: "",
            total: 0,
            done: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            start: Instant::now(),
            display: Display::Hidden,
        }))
    }

    /// `n` more units done.
    pub fn inc(&self, n: u64) {
        self.0.done.fetch_add(n, Ordering::Relaxed);
        match &self.0.display {
            Display::Bar(bar) => bar.inc(n),
            Display::Lines { every, last } => {
                let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
                if last.elapsed() >= *every {
                    *last = Instant::now();
                    note!("{}", self.line());
                }
            }
            Display::Hidden => {}
        }
    }

    /// `n` more units failed (they count as done too: call [`Progress::inc`] as well).
    pub fn fail(&self, n: u64) {
        let failed = self.0.failed.fetch_add(n, Ordering::Relaxed) + n;
        if let Display::Bar(bar) = &self.0.display {
            bar.set_message(format!("{failed} failed"));
        }
    }

    /// Print a message without tearing the bar.
    pub fn println(&self, message: &str) {
        match &self.0.display {
            Display::Bar(bar) => bar.println(message),
            _ => note!("{message}"),
        }
    }

    /// The end: the bar goes, a log gets its last line.
    pub fn finish(&self) {
        match &self.0.display {
            Display::Bar(bar) => {
                bar.finish_and_clear();
                let mut on_screen = BAR.lock().unwrap_or_else(|p| p.into_inner());
                if on_screen.as_ref().is_some_and(|b| b.is_finished()) {
                    *on_screen = None;
                }
            }
            Display::Lines { .. } => note!("{}", self.line()),
            Display::Hidden => {}
        }
    }

    /// `<what>: done/total unit (pct), rate/s, elapsed, ETA, failed`.
    pub fn line(&self) -> String {
        let inner = &self.0;
        let done = inner.done.load(Ordering::Relaxed);
        let failed = inner.failed.load(Ordering::Relaxed);
        let elapsed = inner.start.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 {
            done as f64 / elapsed
        } else {
            0.0
        };
        let pct = if inner.total > 0 {
            100.0 * done as f64 / inner.total as f64
        } else {
            100.0
        };
        let eta = if done >= inner.total {
            "done".to_string()
        } else if rate > 0.0 {
            clock((inner.total - done) as f64 / rate)
        } else {
            "?".to_string()
        };
        // A rate over less than a second is the clock's noise, not a speed.
        let rate = match elapsed >= 1.0 {
            true => format!("{rate:.1}"),
            false => "-".to_string(),
        };
        format!(
            "{}: {done}/{} {} ({pct:.1}%), {rate}/s, elapsed {}, ETA {eta}, {failed} failed",
            inner.what,
            inner.total,
            inner.unit,
            clock(elapsed)
        )
    }
}

/// `7s`, `3m05s`, `2h03m`.
fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_how_far_how_fast_and_how_long() {
        let p = Progress::new("respond m", "questions", 3000);
        p.inc(120);
        p.fail(2);
        let line = p.line();
        assert!(
            line.starts_with("respond m: 120/3000 questions (4.0%), "),
            "{line}"
        );
        assert!(line.ends_with(", 2 failed"), "{line}");
        assert!(line.contains("/s, elapsed "), "{line}");
        assert_eq!(clock(7.0), "7s");
        assert_eq!(clock(185.0), "3m05s");
        assert_eq!(clock(7380.0), "2h03m");
    }
}
