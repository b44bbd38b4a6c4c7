//! The generation stage's settings: which attacks, how many attempts and variants, the noise
//! and text settings, the constraints, the seed, threads and shards; their defaults are the
//! paper's, and [`GenerateConfig::check`] refuses a setting no run can honour.

use std::path::PathBuf;

use super::guided::GuidedConfig;
use super::shard;
use crate::attack::coherence::Constraints;
use crate::attack::noise::NoiseCount;
use crate::attack::sample::Method;
use crate::error::{Error, Result};
use crate::vocab::{AttackSpec, TextEdit};

/// A checked generation config.
#[derive(Clone, Debug)]
pub struct GenerateConfig {
    pub tables: PathBuf,
    pub attacks: Vec<AttackSpec>,
    pub attempts: u64,
    pub variants: usize,
    pub problems: Option<usize>,
    /// Attack only this many problems per dataset, one seeded sample shared by every attack
    /// (see [`super::select`]).
    pub sample_problems: Option<usize>,
    pub digits: u32,
    pub noise_levels: Vec<u32>,
    pub noise_variants: usize,
    pub noise_count: NoiseCount,
    /// Distinct variants per problem of a text attack on the original (`names`, `noop`), from at
    /// most 4 times as many draws. Composed with M1–M3, one per numeric variant.
    pub text_variants: usize,
    /// Make the noun after a count that becomes one, or stops being one, agree with it
    /// ("1 notebook", "5 hours"), and the article before a number with it ("an 8"; see
    /// [`crate::agreement`]); `false` changes only the numbers, as the paper's text does.
    pub noun_agreement: bool,
    /// The paper's node constraints alone, or a reader's rules too (see
    /// [`crate::attack::coherence`]); the paper's also renders the noun right after a count
    /// only, as versions before the reader's rules did.
    pub constraints: Constraints,
    pub seed: u64,
    pub threads: Option<usize>,
    /// Attack only this slice of each dataset's problems, into the shard's own folder (see
    /// [`shard`]).
    pub shard: Option<shard::Shard>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// The guiding model and problem split of the guided attack (required by it, unused by
    /// the others).
    pub guided: Option<GuidedConfig>,
    /// Variants the guided attack keeps per held-out problem (K).
    pub budget: usize,
}

impl Default for GenerateConfig {
    /// The paper's settings (N = 30,000, m = 100, c = 6, noise 10/30/50) for M1, M2, M3 and
    /// punctuation noise, the text attacks (names, no-op) alone and on M3, and a missing number
    /// (its blind read passed: `reports/missing_audit.md`), on the default tables, run seed 42,
    /// all cores, no progress bar.
    fn default() -> Self {
        GenerateConfig {
            tables: crate::store::default_tables(),
            attacks: vec![
                AttackSpec::Numeric(Method::M1),
                AttackSpec::Numeric(Method::M2),
                AttackSpec::Numeric(Method::M3),
                AttackSpec::Punct,
                AttackSpec::Text(None, TextEdit::NAMES),
                AttackSpec::Text(None, TextEdit::NOOP),
                AttackSpec::Text(Some(Method::M3), TextEdit::NAMES),
                AttackSpec::Text(Some(Method::M3), TextEdit::NOOP),
                AttackSpec::Text(None, TextEdit::MISSING),
                AttackSpec::Numeric(Method::Decimals),
                AttackSpec::Numeric(Method::Fractions),
            ],
            attempts: 30_000,
            variants: 100,
            problems: None,
            sample_problems: None,
            digits: 6,
            noise_levels: vec![10, 30, 50],
            noise_variants: 1,
            noise_count: NoiseCount::Floor,
            text_variants: 5,
            noun_agreement: true,
            constraints: Constraints::Reader,
            seed: 42,
            threads: None,
            shard: None,
            progress: false,
            guided: None,
            budget: 20,
        }
    }
}

impl GenerateConfig {
    /// The defaults for these attacks on these tables; change fields with struct-update syntax.
    pub fn new(tables: PathBuf, attacks: Vec<AttackSpec>) -> Self {
        GenerateConfig {
            tables,
            attacks,
            ..Default::default()
        }
    }

    pub fn check(&self) -> Result<()> {
        if self.attacks.is_empty() {
            return Err(Error::setting("attacks", "needs at least one attack"));
        }
        if self.variants == 0 {
            return Err(Error::setting("variants", "must be at least 1"));
        }
        if self.attempts == 0 {
            return Err(Error::setting("attempts", "must be at least 1"));
        }
        if !(1..=15).contains(&self.digits) {
            return Err(Error::setting("digits", "must be between 1 and 15"));
        }
        if self
            .noise_levels
            .iter()
            .any(|p| !crate::vocab::NOISE_LEVELS.contains(p))
        {
            return Err(Error::setting(
                "noise_levels",
                "must be percentages between 1 and 100",
            ));
        }
        if self.sample_problems == Some(0) {
            return Err(Error::setting("sample_problems", "must be at least 1"));
        }
        if self.threads == Some(0) {
            return Err(Error::setting("threads", "must be at least 1"));
        }
        if self.attacks.contains(&AttackSpec::Guided) {
            if self.attacks.len() > 1 {
                return Err(Error::setting(
                    "attacks",
                    "guided runs alone: it learns from the graded responses to an earlier M3 run",
                ));
            }
            let Some(guided) = &self.guided else {
                return Err(Error::setting(
                    "guided_by",
                    "names the model the guided attack learns from, and is missing",
                ));
            };
            guided.check()?;
            if self.budget == 0 {
                return Err(Error::setting("budget", "must be at least 1"));
            }
            if self.sample_problems.is_some() {
                return Err(Error::setting(
                    "sample_problems",
                    "cannot be combined with the guided attack, which attacks its held-out split",
                ));
            }
        }
        if self.shard.is_some() && (self.problems.is_some() || self.sample_problems.is_some()) {
            // Both take the first n problems that reach m variants, which only a walk over the
            // problems before them knows, so one slice cannot be made alone.
            return Err(Error::setting(
                "shard",
                "cannot be combined with a problem count or a problem sample (which problems \
                 reach the variant count depends on every problem before them); run the sample \
                 in one process",
            ));
        }
        Ok(())
    }
}
