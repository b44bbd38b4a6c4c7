//! The two feature sets and where each is stored: advmath's own 51 (`features`) and the authors'
//! family (`features_xie2024`), side by side so that both can be computed and fitted.

use std::fmt;

use super::xie2024::{self, Xie2024Scratch, XIE2024_COUNT, XIE2024_NAMES};
use super::{FeatureScratch, FEATURE_COUNT, FEATURE_NAMES};
use crate::num::{EvalError, Num};
use crate::program::Program;

/// A feature set: a fixed list of Float64 columns computed from a variant's tree and numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum FeatureSet {
    /// advmath's 51 features (`crates/advmath-core/src/feature_sets.rs`), table `features`.
    Advmath,
    /// The family of the authors' `feature_map.py` (`crates/advmath-core/src/feature_sets/xie2024.rs`), table
    /// `features_xie2024`.
    Xie2024,
}

impl FeatureSet {
    pub const ALL: [FeatureSet; 2] = [FeatureSet::Advmath, FeatureSet::Xie2024];

    pub fn name(self) -> &'static str {
        match self {
            FeatureSet::Advmath => "advmath",
            FeatureSet::Xie2024 => "xie2024",
        }
    }

    /// The table folder under `tables/`.
    pub fn table(self) -> &'static str {
        match self {
            FeatureSet::Advmath => "features",
            FeatureSet::Xie2024 => "features_xie2024",
        }
    }

    pub fn names(self) -> &'static [&'static str] {
        match self {
            FeatureSet::Advmath => &FEATURE_NAMES,
            FeatureSet::Xie2024 => &XIE2024_NAMES,
        }
    }

    pub fn count(self) -> usize {
        self.names().len()
    }

    pub fn index(self, name: &str) -> Option<usize> {
        self.names().iter().position(|n| *n == name)
    }
}

impl fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Working space for either set; reused across rows without allocating.
#[derive(Clone, Debug, Default)]
pub struct SetScratch {
    advmath: FeatureScratch,
    xie2024: Xie2024Scratch,
}

/// The features of `set` for `program` on `slot_values`, written into `out` (`set.count()` long).
pub fn compute_set_into(
    set: FeatureSet,
    scratch: &mut SetScratch,
    program: &Program,
    slot_values: &[Num],
    out: &mut [f64],
) -> std::result::Result<(), EvalError> {
    match set {
        FeatureSet::Advmath => {
            let mut row = [0.0; FEATURE_COUNT];
            super::compute_into(&mut scratch.advmath, program, slot_values, &mut row)?;
            out.copy_from_slice(&row);
        }
        FeatureSet::Xie2024 => {
            let mut row = [0.0; XIE2024_COUNT];
            xie2024::compute_into(&mut scratch.xie2024, program, slot_values, &mut row)?;
            out.copy_from_slice(&row);
        }
    }
    Ok(())
}
