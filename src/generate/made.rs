//! What one generation run makes of a dataset, for the store to switch in whole: the
//! partitions and statistics it replaces, and its run record per attack (settings, and the
//! guided attack's guide).

use super::family::{self, Draw};
use super::GenerateConfig;
use crate::store::variants::Made;
use crate::vocab::AttackSpec;

/// The record of the settings that made one attack of a dataset's variants; `attacks` lists
/// everything the same run made.
fn run_record(
    config: &GenerateConfig,
    dataset: &str,
    attack: &AttackSpec,
    guided: Option<&crate::store::runs::GuidedRecord>,
) -> String {
    crate::store::runs::RunRecord {
        advmath_version: env!("CARGO_PKG_VERSION").to_string(),
        attack: Some(attack.to_string()),
        attacks: config.attacks.iter().map(|a| a.to_string()).collect(),
        attempts: config.attempts,
        dataset: dataset.to_string(),
        digits: config.digits,
        guided: guided.filter(|_| *attack == AttackSpec::Guided).cloned(),
        noise_count: Some(config.noise_count.name().to_string()),
        noise_levels: config.noise_levels.clone(),
        noise_variants: config.noise_variants,
        text_variants: Some(config.text_variants),
        noun_agreement: Some(config.noun_agreement),
        constraints: Some(config.constraints.name().to_string()),
        problems: config.problems,
        sample_problems: config.sample_problems,
        seed: config.seed,
        shard: config.shard.map(|s| s.to_string()),
        variants: config.variants,
    }
    .to_json()
}

/// What a run of `config` makes of a dataset (the originals are added as they are written): the
/// partitions of its attacks, and the statistics of its draws and of the attacks whose edits
/// count refusals.
pub(super) fn made_by(
    config: &GenerateConfig,
    draws: &[&dyn Draw],
    dataset: &str,
    guided: Option<&crate::store::runs::GuidedRecord>,
) -> Made {
    let mut made = Made::default();
    for spec in &config.attacks {
        for attack in spec.attacks(&config.noise_levels) {
            if !family::refusals(attack).is_empty() {
                made.methods.insert(attack.to_string());
            }
            made.attacks.insert(attack.to_string());
        }
        made.records
            .push((spec.to_string(), run_record(config, dataset, spec, guided)));
    }
    made.methods
        .extend(draws.iter().map(|d| d.attack().to_string()));
    made
}
