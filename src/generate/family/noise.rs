//! ArithmAttack's punctuation noise as a family: marks go in before a share of the words of any
//! question it is given (the original's, or a numeric variant's), which keeps its gold; a copy per
//! `--noise-variants` of the original, each on its own seed.

use super::{Edit, Given, Needs};
use crate::attack::noise::add_noise;
use crate::attack::text::Edited;
use crate::generate::GenerateConfig;

/// Noise at one level, percent of the words.
pub(super) struct Noise {
    pub level: u32,
}

impl Edit for Noise {
    fn needs(&self) -> Needs {
        Needs::Question
    }

    fn apply(&self, q: &Given, seed: u64, config: &GenerateConfig) -> Result<Edited, &'static str> {
        Ok(Edited {
            text: add_noise(q.text, self.level, config.noise_count, seed),
            distractor: None,
        })
    }

    fn refusals(&self) -> &'static [&'static str] {
        &[]
    }

    fn refuses_every_seed(&self, _reason: &str) -> bool {
        false
    }

    fn copies(&self, config: &GenerateConfig) -> usize {
        config.noise_variants
    }

    fn distinct(&self) -> bool {
        false
    }
}
