//! The `advmath` binary: parse arguments, call the library, map errors to exit codes.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout has gone (`advmath sql ... | head`): nothing is wrong.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", error_chain(&err));
            if let Some(advmath::Error::MissingTable { .. }) = err.downcast_ref::<advmath::Error>()
            {
                eprintln!("hint: --tables names another tables folder");
            }
            let code = err
                .downcast_ref::<advmath::Error>()
                .map(advmath::Error::exit_code)
                .unwrap_or(2);
            ExitCode::from(code as u8)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let io = cause.downcast_ref::<std::io::Error>().or_else(|| {
            match cause.downcast_ref::<advmath::Error>() {
                Some(advmath::Error::Io(e)) => Some(e),
                _ => None,
            }
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

fn dispatch(mut cli: Cli) -> anyhow::Result<()> {
    advmath::progress::set_quiet(cli.quiet);
    let mut places = advmath::store::places::Places::default();
    cli::places::localize(&mut cli.command, &mut places)?;
    let result = cli::run(cli.command);
    // What the command wrote is committed locally even when it then failed (a respond run with
    // failed requests): it goes to the store either way.
    let pushed = places.push();
    result?;
    Ok(pushed?)
}
