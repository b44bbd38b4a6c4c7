//! `advmath features`: the feature tables of every variant's solution tree.

use std::path::PathBuf;

use clap::Args;

use advmath::output::tsv_row;
use advmath::store::default_tables;

use super::comma_list;
use super::places::{folder, Located};
use advmath::feature_sets::FeatureSet;
use advmath::store::places::Places;

#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// Folder of the Parquet tables (reads problems and variants, writes the feature tables).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Feature sets to compute, comma-separated: `xie2024` (the authors' feature family, table
    /// `features_xie2024`), `advmath` (advmath's own 51, table `features`).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = comma_list(&FeatureSet::ALL)
    )]
    pub set: Vec<FeatureSet>,
}

impl Located for FeaturesArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)
    }
}

pub fn run(args: FeaturesArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut sets = args.set.clone();
    sets.sort();
    sets.dedup();
    // A set whose rows failed is written all the same: the other sets are computed before the
    // failure is reported.
    let mut failed = None;
    for set in sets {
        match advmath::features::build_feature_set_table(&args.tables, set) {
            Ok(rows) => tsv_row(&mut stdout.lock(), [set.table(), &rows.to_string()])?,
            Err(e @ advmath::Error::UnitsFailed { .. }) => {
                failed.get_or_insert(e);
            }
            Err(e) => return Err(e.into()),
        }
    }
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
