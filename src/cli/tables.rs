//! `advmath compact` and `advmath settle`: upkeep of a tables folder.

use std::path::PathBuf;

use clap::Args;

use super::places::{folder, Located};
use advmath::output::tsv_row;
use advmath::store::default_tables;
use advmath::store::places::Places;

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// Folder of the Parquet tables.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// The tables to compact (default: all), e.g. `responses`.
    pub table: Vec<String>,
    /// Parts smaller than this are folded into parts of up to this size (e.g. 128MiB, 1GiB).
    #[arg(long, default_value = "128MiB", value_parser = super::size)]
    pub part_size: usize,
}

#[derive(Args, Debug)]
pub struct SettleArgs {
    /// Folder of the Parquet tables.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
}

impl Located for CompactArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)
    }
}

impl Located for SettleArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)
    }
}

pub fn compact(args: CompactArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let done =
        advmath::store::compact::compact_tables(&args.tables, &args.table, args.part_size as u64)?;
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
    Ok(())
}

pub fn settle(args: SettleArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let finished = advmath::store::commit::settle_tables(&args.tables)?;
    let mut out = stdout.lock();
    tsv_row(&mut out, ["tables", "switches_finished"])?;
    tsv_row(
        &mut out,
        [args.tables.display().to_string(), finished.to_string()],
    )?;
    Ok(())
}
