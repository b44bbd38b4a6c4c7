//! One unit of work (a problem, a row) run so that a panic in it is that unit's failure, not the
//! stage's: the stage records the message against the unit, writes every other unit, and reports
//! the failed ones at the end.
//!
//! A panic is a bug, never an expected refusal, so the message keeps where it happened
//! (`file:line:col`), taken by the hook [`install_hook`] sets. Inside a contained unit the hook
//! prints nothing: the stage reports the failure once, beside its unit, instead of a Rust
//! backtrace notice in the middle of a progress bar.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many contained units this thread is inside (nested containment is allowed).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The last panic this thread's hook saw inside a contained unit, with its location.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A unit's panic: its message and, when the hook saw it, where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panicked {
    pub message: String,
}

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internal error (a bug in advmath): {}", self.message)
    }
}

/// Replace the process's panic hook once: panics outside a contained unit go to the previous
/// hook as before; panics inside one are recorded for [`run`] and print nothing.
pub fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                previous(info);
                return;
            }
            let message = payload_text(info.payload());
            let text = match info.location() {
                Some(l) => format!("{message} (at {}:{}:{})", l.file(), l.line(), l.column()),
                None => message,
            };
            LAST.with(|last| *last.borrow_mut() = Some(text));
        }));
    });
}

/// Run one unit of work; a panic in it comes back as [`Panicked`] instead of unwinding further.
///
/// The unit's partial effects are the caller's to discard: callers build a unit's output in its
/// own values and keep them only on `Ok`, so a failed unit leaves nothing half-written.
pub fn run<T>(work: impl FnOnce() -> T) -> Result<T, Panicked> {
    install_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(work));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|payload| {
        let message = LAST
            .with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| payload_text(payload.as_ref()));
        Panicked { message }
    })
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// A test-only fault: panic when `key()` (`<stage>:<unit>`) is the one `ADVMATH_PANIC_IN` names,
/// so the tests can show that one failing unit leaves the others written. Unset, it is one
/// environment lookup per process, and the key is never built.
pub fn planted_panic(key: impl FnOnce() -> String) {
    static PLANTED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let Some(planted) = PLANTED.get_or_init(|| std::env::var("ADVMATH_PANIC_IN").ok()) else {
        return;
    };
    let key = key();
    if *planted == key {
        panic!("planted panic in {key} (ADVMATH_PANIC_IN)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_units_failure_with_where_it_happened() {
        let failed = run(|| -> usize { panic!("boom {}", 7) }).unwrap_err();
        assert!(failed.message.starts_with("boom 7 (at "), "{failed:?}");
        assert!(failed.message.contains("contain.rs:"), "{failed:?}");
        assert_eq!(run(|| 3), Ok(3));
    }

    #[test]
    fn a_unit_after_a_failed_one_runs_clean() {
        let _ = run(|| panic!("first"));
        assert_eq!(run(|| "second"), Ok("second"));
        let again = run(|| panic!("third")).unwrap_err();
        assert!(again.message.starts_with("third"), "{again:?}");
    }
}
