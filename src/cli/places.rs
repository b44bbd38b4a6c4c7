//! Object-storage locations on the command line: before a command runs, each of its folders,
//! inputs and output files that is an `s3://` URL is made local (a mirror of the folder, a
//! download of the input, a local file for the output); [`Places::push`] sends the results back.

use std::path::PathBuf;

use advmath::store::places::Places;

use crate::cli::{AnnotateCommand, Command, SampleCommand};

fn input(places: &mut Places, path: &mut PathBuf) -> advmath::Result<()> {
    *path = places.input(path)?;
    Ok(())
}

fn folder(places: &mut Places, path: &mut PathBuf) -> advmath::Result<()> {
    *path = places.folder(path)?;
    Ok(())
}

fn output_file(places: &mut Places, path: &mut PathBuf) -> advmath::Result<()> {
    *path = places.output_file(path)?;
    Ok(())
}

/// The tables of `sql` and `metrics`: on a cluster a bucket is read in place by the executors
/// (a local copy would be out of reach of executors on other machines); otherwise through its
/// local copy.
fn tables_for_sql(
    places: &mut Places,
    path: &mut PathBuf,
    cluster: &Option<String>,
) -> advmath::Result<()> {
    if cluster.is_some() && advmath::store::location::Location::is_remote(path) {
        return Ok(());
    }
    folder(places, path)
}

/// Replace every location of `command` by its local path.
pub fn localize(command: &mut Command, places: &mut Places) -> advmath::Result<()> {
    match command {
        Command::Ingest(a) => {
            for path in &mut a.inputs {
                input(places, path)?;
            }
            if let Some(path) = &mut a.source.programs_from {
                input(places, path)?;
            }
            folder(places, &mut a.tables)?;
            if let Some(path) = &mut a.report {
                output_file(places, path)?;
            }
        }
        Command::Run(a) => {
            for path in &mut a.inputs {
                input(places, path)?;
            }
            if let Some(path) = &mut a.source.programs_from {
                input(places, path)?;
            }
            folder(places, &mut a.out)?;
        }
        Command::Generate(a) => folder(places, &mut a.tables)?,
        Command::Respond(a) => folder(places, &mut a.tables)?,
        Command::Programs(a) => folder(places, &mut a.tables)?,
        Command::Features(a) => folder(places, &mut a.tables)?,
        Command::Compact(a) => folder(places, &mut a.tables)?,
        Command::Settle(a) => folder(places, &mut a.tables)?,
        // Reads standard input only.
        Command::Extract(_) => {}
        Command::ExportBatch(a) => {
            folder(places, &mut a.tables)?;
            output_file(places, &mut a.out)?;
        }
        Command::IngestResponses(a) => {
            input(places, &mut a.input)?;
            folder(places, &mut a.tables)?;
        }
        Command::Regress(a) => {
            folder(places, &mut a.tables)?;
            folder(places, &mut a.report_dir)?;
        }
        Command::Metrics(a) => {
            tables_for_sql(places, &mut a.tables, &a.bounds.cluster)?;
            folder(places, &mut a.out)?;
            if let Some(path) = &mut a.sql_dir {
                input(places, path)?;
            }
        }
        Command::Sql(a) => {
            tables_for_sql(places, &mut a.tables, &a.bounds.cluster)?;
            if let Some(path) = &mut a.file {
                input(places, path)?;
            }
            if let Some(path) = &mut a.output {
                output_file(places, path)?;
            }
        }
        Command::Publish(a) => {
            folder(places, &mut a.tables)?;
            folder(places, &mut a.out)?;
        }
        Command::Annotate(AnnotateCommand::Sample(SampleCommand::HumanEval(a))) => {
            folder(places, &mut a.tables)?;
            output_file(places, &mut a.out)?;
        }
        Command::Annotate(AnnotateCommand::Sample(SampleCommand::MissRate(a))) => {
            folder(places, &mut a.tables)?;
            output_file(places, &mut a.out)?;
        }
        Command::Annotate(AnnotateCommand::Ingest(a)) => {
            for path in &mut a.sheets {
                input(places, path)?;
            }
            folder(places, &mut a.tables)?;
        }
        #[cfg(feature = "cluster")]
        Command::Cluster(_) => {}
    }
    Ok(refuse_outputs_inside_tables(command)?)
}

/// An output file written among the tables it is made from would overwrite a part or be read
/// back as table data; the folder outputs (`metrics --out`, `publish --out`, `regress
/// --report-dir`, `sql --output`) are guarded where they are written.
fn refuse_outputs_inside_tables(command: &Command) -> advmath::store::Result<()> {
    use advmath::store::refuse_output_inside;
    match command {
        Command::Ingest(a) => match &a.report {
            Some(report) => refuse_output_inside(report, &a.tables),
            None => Ok(()),
        },
        Command::ExportBatch(a) => refuse_output_inside(&a.out, &a.tables),
        Command::Annotate(AnnotateCommand::Sample(SampleCommand::HumanEval(a))) => {
            refuse_output_inside(&a.out, &a.tables)
        }
        Command::Annotate(AnnotateCommand::Sample(SampleCommand::MissRate(a))) => {
            refuse_output_inside(&a.out, &a.tables)
        }
        _ => Ok(()),
    }
}
