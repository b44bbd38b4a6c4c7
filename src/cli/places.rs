//! Object-storage locations on the command line. Each command says which of its arguments are
//! folders, inputs and output files ([`Located`], beside the command's arguments); before it runs,
//! every one that is an `s3://` URL is made local (a mirror of the folder, a download of the
//! input, a local file for the output), and after it [`Places::push`] sends the results back.

use std::path::{Path, PathBuf};

use advmath::store::places::Places;

/// A command's arguments that may name object storage.
pub trait Located {
    /// Replace each location by its local path.
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()>;

    /// The output files written from a tables folder, each with that folder: one among the
    /// tables it is made from would overwrite a part or be read back as table data. The
    /// folder outputs (`metrics --out`, `publish --out`, `regress --report-dir`, `sql
    /// --output`) are guarded where they are written.
    fn outputs_beside_tables(&self) -> Vec<(&Path, &Path)> {
        Vec::new()
    }
}

/// Run `command` on `args` with every location made local, then push what it wrote: what the
/// command committed locally goes to the store even when it then failed (a respond run with
/// failed requests).
pub fn located<A: Located>(
    mut args: A,
    command: impl FnOnce(A) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut places = Places::default();
    args.localize(&mut places)?;
    for (output, tables) in args.outputs_beside_tables() {
        advmath::store::refuse_output_inside(output, tables)?;
    }
    let result = command(args);
    let pushed = places.push();
    result?;
    Ok(pushed?)
}

/// An input file: downloaded when remote.
pub fn input(places: &mut Places, path: &mut PathBuf) -> advmath::Result<()> {
    *path = places.input(path)?;
    Ok(())
}

/// A folder read or written whole: mirrored when remote.
pub fn folder(places: &mut Places, path: &mut PathBuf) -> advmath::Result<()> {
    *path = places.folder(path)?;
    Ok(())
}

/// An output file: written locally, uploaded after the command.
pub fn output_file(places: &mut Places, path: &mut PathBuf) -> advmath::Result<()> {
    *path = places.output_file(path)?;
    Ok(())
}

/// The tables of `sql` and `metrics`: on a cluster a bucket is read in place by the executors
/// (a local copy would be out of reach of executors on other machines); otherwise through its
/// local copy.
pub fn tables_for_sql(
    places: &mut Places,
    path: &mut PathBuf,
    cluster: &Option<String>,
) -> advmath::Result<()> {
    if cluster.is_some() && advmath::store::location::Location::is_remote(path) {
        return Ok(());
    }
    folder(places, path)
}
