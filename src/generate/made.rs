//! What one generation run makes of a dataset, for the store to switch in whole: the
//! partitions and statistics it replaces, and its run record per attack (settings, and the
//! guided attack's guide).

use super::GenerateConfig;
use crate::attack::sample::Method;
use crate::store::variants::Made;
use crate::vocab::{Attack, AttackSpec};

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

/// What a run of `config` makes of a dataset (the originals are added as they are written).
pub(super) fn made_by(
    config: &GenerateConfig,
    methods: &[Method],
    dataset: &str,
    guided: Option<&crate::store::runs::GuidedRecord>,
) -> Made {
    let mut made = Made::default();
    for attack in &config.attacks {
        match *attack {
            AttackSpec::Numeric(m) => {
                made.attacks.insert(m.name().to_string());
            }
            AttackSpec::Punct => {
                for &level in &config.noise_levels {
                    made.attacks.insert(Attack::Punct(level).to_string());
                }
            }
            AttackSpec::NumericPunct(m) => {
                for &level in &config.noise_levels {
                    made.attacks
                        .insert(Attack::NumericPunct(m, level).to_string());
                }
            }
            AttackSpec::Guided => {
                made.attacks.insert(Attack::GUIDED.to_string());
            }
            AttackSpec::Text(m, e) => {
                made.attacks.insert(Attack::Text(m, e).to_string());
            }
        }
        made.records.push((
            attack.to_string(),
            run_record(config, dataset, attack, guided),
        ));
    }
    made.methods = methods.iter().map(|m| m.name().to_string()).collect();
    for attack in &config.attacks {
        if let AttackSpec::Text(m, e) = *attack {
            made.methods.insert(Attack::Text(m, e).to_string());
        }
    }
    if config.attacks.contains(&AttackSpec::Guided) {
        made.methods.insert(Attack::GUIDED.to_string());
    }
    made
}
