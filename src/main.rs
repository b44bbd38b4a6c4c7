//! The `advmath` binary: parse arguments, call the library, map errors to exit codes.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            let code = err
                .downcast_ref::<advmath::Error>()
                .map(advmath::Error::exit_code)
                .unwrap_or(2);
            ExitCode::from(code as u8)
        }
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    match cli.command {
        Command::Ingest(args) => {
            let summary = advmath::pipeline::ingest(&args.config())?;
            summary.write_table(&mut stdout.lock())?;
        }
        Command::Generate(args) => {
            let config = args.generation.config(args.tables.clone());
            let summary = advmath::generate::generate(&config)?;
            eprintln!(
                "{} attempts; {} invalid problems skipped",
                summary.attempts, summary.skipped_invalid
            );
            summary.write_table(&mut stdout.lock())?;
        }
        Command::Publish(args) => {
            let config = args.config();
            let summary = advmath::publish::publish(&config)?;
            summary.write_table(&mut stdout.lock())?;
            eprintln!(
                "published to {}; upload with: hf upload <user>/{} {} --repo-type dataset",
                config.out.display(),
                config.name,
                config.out.display()
            );
        }
        Command::Run(args) => {
            let config = args.config();
            let summary = advmath::pipeline::run(&config)?;
            let mut out = stdout.lock();
            summary.ingest.write_table(&mut out)?;
            writeln!(out)?;
            summary.generate.write_table(&mut out)?;
            eprintln!("outputs in {}", config.out.display());
        }
    }
    Ok(())
}
