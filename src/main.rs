//! The `advmath` binary: parse arguments, call the library, map errors to exit codes.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use advmath::output::tsv_row;
use clap::Parser;

use cli::{Cli, Command};

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
        let text = cause.to_string();
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
    let mut places = advmath::store::location::Places::default();
    cli::locations::localize(&mut cli.command, &mut places)?;
    let result = run(cli.command);
    // What the command wrote is committed locally even when it then failed (a respond run with
    // failed requests): it goes to the store either way.
    let pushed = places.push();
    result?;
    Ok(pushed?)
}

fn run(command: Command) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    match command {
        Command::Ingest(args) => {
            let mut config = args.config();
            // The RobustMath release is an attack (variants of dataset `robustmath`), not a
            // problem source: it is written apart from the problems.
            let forced = config.options.format == Some(advmath::ingest::Format::Robustmath);
            let (rephrasing, sources): (Vec<_>, Vec<_>) =
                config.inputs.iter().cloned().partition(|p| {
                    forced || (config.options.format.is_none() && advmath::ingest::is_robustmath(p))
                });
            for dir in &rephrasing {
                let s = advmath::ingest::ingest_robustmath(dir, &config.tables)?;
                for f in &s.written {
                    eprintln!("{} -> {}", dir.display(), f.display());
                }
                s.write_table(&mut stdout.lock())?;
            }
            if !sources.is_empty() || rephrasing.is_empty() {
                config.inputs = sources;
                let summary = advmath::pipeline::ingest(&config)?;
                summary.write_table(&mut stdout.lock())?;
            }
        }
        Command::Generate(args) => {
            if let Some(count) = args.merge_shards {
                let merged = advmath::generate::shard::merge_shards(&args.tables, count as usize)?;
                let mut out = stdout.lock();
                tsv_row(&mut out, ["dataset", "variant_rows"])?;
                for (dataset, rows) in &merged.datasets {
                    tsv_row(&mut out, [dataset.clone(), rows.to_string()])?;
                }
                return Ok(());
            }
            let mut config = args.generation.config(args.tables.clone());
            config.shard = args.shard;
            let summary = advmath::generate::generate(&config)?;
            eprintln!(
                "{} attempts; {} invalid problems skipped",
                summary.attempts, summary.skipped_invalid
            );
            for sample in &summary.samples {
                eprintln!("{}", sample.summary());
            }
            if summary.noise_only > 0 {
                eprintln!(
                    "{} problems without a valid program got punctuation noise only",
                    summary.noise_only
                );
            }
            summary.write_table(&mut stdout.lock())?;
        }
        Command::Respond(args) => {
            let config = args.config()?;
            let s = advmath::respond::respond(&config)?;
            let mut out = stdout.lock();
            tsv_row(
                &mut out,
                [
                    "model",
                    "asked",
                    "skipped_done",
                    "written",
                    "failed",
                    "correct",
                    "reused",
                ],
            )?;
            tsv_row(
                &mut out,
                [
                    config.model.clone(),
                    s.asked.to_string(),
                    s.skipped_done.to_string(),
                    s.written.to_string(),
                    s.failed.to_string(),
                    s.correct.to_string(),
                    s.reused.to_string(),
                ],
            )?;
            if let Some(note) = s.unanswerable_note(&config.model) {
                eprintln!("{note}");
            }
            if s.failed > 0 {
                return Err(advmath::Error::invalid(
                    &config.model,
                    format!(
                        "{} request(s) failed for good; rerun the same command to retry them",
                        s.failed
                    ),
                )
                .into());
            }
        }
        Command::ExportBatch(args) => {
            let n = advmath::respond::outside::export_batch(
                &args.tables,
                &args.out,
                &args.model,
                &args.prompt.template()?,
                &args.prompt.decoding(),
                &args.attack,
                args.completions,
            )?;
            eprintln!("{n} requests -> {}", args.out.display());
        }
        Command::IngestResponses(args) => {
            let written = advmath::respond::outside::ingest_responses(&args.config()?)?;
            let mut models: Vec<_> = written.into_iter().collect();
            models.sort();
            let mut out = stdout.lock();
            tsv_row(&mut out, ["model", "rows"])?;
            for (m, n) in models {
                tsv_row(&mut out, [m, n.to_string()])?;
            }
        }
        Command::Metrics(args) => {
            let summary = advmath::metrics::run_metrics_with(&args.config())?;
            summary.write_table(&mut stdout.lock())?;
        }
        Command::Annotate(command) => annotate(command, &mut stdout.lock())?,
        Command::Compact(args) => {
            let done = advmath::store::compact::compact_tables(
                &args.tables,
                &args.table,
                args.part_size as u64,
            )?;
            let mut out = stdout.lock();
            tsv_row(
                &mut out,
                ["folder", "parts_before", "parts_after", "rows_folded"],
            )?;
            for c in done {
                tsv_row(
                    &mut out,
                    [
                        c.folder.display().to_string(),
                        c.parts_before.to_string(),
                        c.parts_after.to_string(),
                        c.rows.to_string(),
                    ],
                )?;
            }
        }
        Command::Settle(args) => {
            let finished = advmath::store::commit::settle_tables(&args.tables)?;
            let mut out = stdout.lock();
            tsv_row(&mut out, ["tables", "switches_finished"])?;
            tsv_row(
                &mut out,
                [args.tables.display().to_string(), finished.to_string()],
            )?;
        }
        Command::Sql(args) => {
            advmath::metrics::run_sql_config(&args.config()?, &mut stdout.lock())?;
        }
        Command::Programs(args) => {
            let s = advmath::ingest::programs::write_programs(&args.config()?)?;
            let mut out = stdout.lock();
            tsv_row(&mut out, ["asked", "now_valid", "rejected", "failed"])?;
            tsv_row(
                &mut out,
                [s.asked, s.now_valid, s.rejected, s.failed].map(|n| n.to_string()),
            )?;
        }
        Command::Features(args) => {
            let mut sets = args.set.clone();
            sets.sort();
            sets.dedup();
            for set in sets {
                let rows = advmath::features::build_feature_set_table(&args.tables, set)?;
                tsv_row(&mut stdout.lock(), [set.table(), &rows.to_string()])?;
            }
        }
        Command::Regress(args) => {
            let config = args.config();
            let s = advmath::regress::regress(&config)?;
            let mut out = stdout.lock();
            tsv_row(
                &mut out,
                [
                    "model",
                    "template",
                    "n",
                    "accuracy",
                    "most_positive",
                    "most_negative",
                ],
            )?;
            for f in &s.fits {
                let (top, bottom) = advmath::regress::extremes(f);
                tsv_row(
                    &mut out,
                    [
                        f.model.clone(),
                        f.template.clone(),
                        f.n.to_string(),
                        format!("{:.4}", f.accuracy),
                        top.join(","),
                        bottom.join(","),
                    ],
                )?;
            }
            eprintln!(
                "report -> {}",
                advmath::store::location::display(&config.report_dir.join("regression.md"))
            );
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
        #[cfg(feature = "cluster")]
        Command::Cluster(process) => match process {
            cli::ClusterCommand::Scheduler {
                bind,
                executor_timeout,
            } => advmath::cluster::run_scheduler(&advmath::cluster::SchedulerOptions {
                bind,
                executor_timeout: std::time::Duration::from_secs(executor_timeout),
            })?,
            cli::ClusterCommand::Executor {
                scheduler,
                host,
                port,
                slots,
                work_dir,
                memory,
                heartbeat,
            } => advmath::cluster::run_executor(&advmath::cluster::ExecutorOptions {
                scheduler,
                host,
                flight_port: port,
                grpc_port: port
                    .checked_add(1)
                    .ok_or_else(|| advmath::Error::Usage("--port must be below 65535".into()))?,
                slots,
                work_dir,
                memory: memory.map(|m| m as u64),
                heartbeat: std::time::Duration::from_secs(heartbeat),
            })?,
        },
        Command::Run(args) => {
            let config = args.config()?;
            let summary = advmath::pipeline::run(&config)?;
            let mut out = stdout.lock();
            summary.ingest.write_table(&mut out)?;
            writeln!(out)?;
            summary.generate.write_table(&mut out)?;
            writeln!(out)?;
            tsv_row(&mut out, ["model", "responses", "correct"])?;
            for (model, s) in &summary.responses {
                tsv_row(
                    &mut out,
                    [model.clone(), s.written.to_string(), s.correct.to_string()],
                )?;
            }
            eprintln!(
                "outputs in {}",
                advmath::store::location::display(&config.out)
            );
        }
    }
    Ok(())
}

/// `advmath annotate ...`: a sheet written (its items on stdout as a count), or sheets ingested
/// (one line per sheet; cells that are no verdict listed on stderr, exit 1).
fn annotate(command: cli::AnnotateCommand, out: &mut impl Write) -> anyhow::Result<()> {
    use advmath::annotate::{self, SheetKind};
    use cli::{AnnotateCommand, SampleCommand};
    match command {
        AnnotateCommand::Sample(sample) => {
            let (kind, rows, path) = match &sample {
                SampleCommand::HumanEval(a) => (
                    SheetKind::HumanEval,
                    annotate::sample_human_eval(&a.config())?,
                    &a.out,
                ),
                SampleCommand::MissRate(a) => (
                    SheetKind::MissRate,
                    annotate::sample_miss_rate(&a.config())?,
                    &a.out,
                ),
            };
            annotate::write_sheet(path, kind, &rows)?;
            tsv_row(out, ["sheet", "kind", "items"])?;
            tsv_row(
                out,
                [
                    path.display().to_string(),
                    kind.name().to_string(),
                    rows.len().to_string(),
                ],
            )?;
            eprintln!(
                "give each annotator a copy: fill {} with 1 or 0 (yes/no), `annotator` with a name; then `advmath annotate ingest` the copies",
                kind.criteria().join(", ")
            );
        }
        AnnotateCommand::Ingest(a) => {
            let summary = annotate::ingest(&a.tables, &a.sheets)?;
            tsv_row(out, ["sheet", "kind", "annotators", "verdicts", "empty"])?;
            for (path, kind, annotators, verdicts, empty) in &summary.sheets {
                tsv_row(
                    out,
                    [
                        path.display().to_string(),
                        kind.name().to_string(),
                        annotators.join(","),
                        verdicts.to_string(),
                        empty.to_string(),
                    ],
                )?;
            }
            if !summary.bad.is_empty() {
                for line in &summary.bad {
                    eprintln!("{line}");
                }
                return Err(advmath::Error::invalid(
                    "annotation sheets",
                    format!(
                        "{} cells hold no verdict (listed above); the other verdicts were written",
                        summary.bad.len()
                    ),
                )
                .into());
            }
        }
    }
    Ok(())
}
