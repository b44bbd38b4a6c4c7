//! The `advmath` binary: parse arguments, call the library, map errors to exit codes.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    say_what_an_interrupt_keeps();
    // A panic that no stage contained is a bug: one line naming where, and exit 2 as for any
    // internal error (never Rust's 101). Stages contain panics per problem or row themselves, so
    // this is only for code outside those units.
    let outcome = match advmath::contain::run(|| dispatch(cli)) {
        Ok(outcome) => outcome,
        Err(panicked) => {
            eprintln!("error: {panicked}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout has gone (`advmath sql ... | head`): nothing is wrong.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", error_chain(&err));
            let missing_table = |cause| {
                matches!(
                    store_error(cause),
                    Some(advmath::store::Error::MissingTable { .. })
                )
            };
            if err.chain().any(missing_table) {
                eprintln!("hint: --tables names another tables folder");
            }
            ExitCode::from(exit_code(&err) as u8)
        }
    }
}

/// On Ctrl-C, one line that says the state is consistent and how to finish, then exit 130 as the
/// default action would: every stage commits whole or not at all, so stopping anywhere is safe.
/// A process started with SIGINT ignored (a background job of a script) keeps ignoring it.
fn say_what_an_interrupt_keeps() {
    use signal_hook::consts::SIGINT;
    // SAFETY: a query of the current action (null new action) changes nothing.
    let ignored = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(SIGINT, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    };
    if ignored {
        return;
    }
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            eprintln!(
                "\ninterrupted: the tables keep what each stage committed, whole; run the same command again to finish the job"
            );
            std::process::exit(130);
        }
    });
}

/// The exit code of an error by its kind: the engine's, or the store's, which a command may
/// return as it is; anything else is internal.
fn exit_code(err: &anyhow::Error) -> i32 {
    match (
        err.downcast_ref::<advmath::Error>(),
        err.downcast_ref::<advmath::store::Error>(),
    ) {
        (Some(e), _) => e.exit_code(),
        (None, Some(e)) => e.exit_code(),
        (None, None) => 2,
    }
}

/// The store's error inside `cause`, whether the engine wraps it or it came as it is.
fn store_error<'a>(
    cause: &'a (dyn std::error::Error + 'static),
) -> Option<&'a advmath::store::Error> {
    match cause.downcast_ref::<advmath::Error>() {
        Some(advmath::Error::Store(e)) => Some(e),
        _ => cause.downcast_ref::<advmath::store::Error>(),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let io = cause
            .downcast_ref::<std::io::Error>()
            .or_else(|| match store_error(cause) {
                Some(advmath::store::Error::Io(e)) => Some(e),
                _ => None,
            });
        io.is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes, joined as `{:#}` joins them, minus a cause whose text is already
/// printed: advmath's own errors name only their context, but some libraries' messages repeat
/// their `source()` (a DataFusion schema error would otherwise print its message three times).
fn error_chain(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        // The library names a setting by its config field; here it is the flag people typed.
        let text = match cause.downcast_ref::<advmath::Error>() {
            Some(advmath::Error::Setting { setting, problem }) => {
                format!("{} {problem}", cli::flag_of(setting))
            }
            _ => cause.to_string(),
        };
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    advmath::progress::set_quiet(cli.quiet);
    cli::run(cli.command)
}
