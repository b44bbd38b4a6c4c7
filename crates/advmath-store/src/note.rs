//! The store's one way to say something (a dead writer's switch being finished, a wait for
//! another command's lock): a line handed to the sink the application installed, plain stderr
//! until it installs one. The engine installs its progress channel's writer, which prints the
//! line above a running bar; either way a closed stderr loses the line instead of panicking.

use std::fmt::Arguments;
use std::io::Write;
use std::sync::OnceLock;

type Sink = fn(Arguments<'_>);

static SINK: OnceLock<Sink> = OnceLock::new();

/// Route every later note through `sink`. The first call wins: there is one channel a process.
pub fn set_sink(sink: Sink) {
    let _ = SINK.set(sink);
}

/// One line through the installed sink.
pub fn write(line: Arguments<'_>) {
    match SINK.get() {
        Some(sink) => sink(line),
        None => {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
}

/// `note!("{} rows", n)`: a line through [`write`], formatted like `format!`.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::note::write(format_args!($($arg)*))
    };
}
pub(crate) use note;
