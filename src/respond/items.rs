//! The questions a run asks: every variant of the tables (the attacks and datasets asked for) as
//! an item.

use std::path::Path;

use super::grade::Gold;
use crate::error::{Error, Result};
use crate::store::variants;
use crate::vocab::Attack;

use super::rows::Item;
use crate::store::parts;

/// Every variant in the tables, as items, in table order.
pub fn variant_items(tables: &Path, attacks: &[String], datasets: &[String]) -> Result<Vec<Item>> {
    let _read = crate::store::commit::TablesLock::shared(tables)?;
    crate::store::foreign::refuse_foreign_in(tables, variants::TABLE)?;
    let root = variants::dir(tables);
    if !root.is_dir() {
        return Err(Error::missing_table(
            variants::TABLE,
            root,
            variants::MADE_BY,
        ));
    }
    let mut chosen = Vec::new();
    for (dataset, ddir) in variants::datasets(tables)? {
        if !datasets.is_empty() && !datasets.contains(&dataset) {
            continue;
        }
        for (attack, adir) in variants::attacks(&ddir)? {
            chosen.push((dataset.clone(), attack, adir));
        }
    }
    let wanted = resolve_attacks(attacks, chosen.iter().map(|(_, a, _)| a.as_str()))?;
    let mut items = Vec::new();
    for (dataset, attack, adir) in chosen {
        if !attacks.is_empty() && !wanted.contains(&attack) && !Attack::is_original(&attack) {
            continue;
        }
        // A name advmath does not make is an attack whose questions have answers.
        let answerable = Attack::of(&attack).is_none_or(|a| a.answerable());
        for f in parts(&adir)? {
            for q in variants::questions(&f)? {
                items.push(Item {
                    variant_id: Some(q.variant_id),
                    problem_id: Some(q.problem_id),
                    dataset: Some(dataset.clone()),
                    attack: Some(attack.clone()),
                    noise_level: Some(q.noise_level),
                    gold: Gold::of_row(q.answer_exact.as_deref(), answerable),
                    question: q.question,
                    variant_index: q.variant_index,
                });
            }
        }
    }
    Ok(items)
}

/// The attacks `requested` names among those the tables hold: a name held as is, or a family
/// whose levels the tables hold (`punct` is `punct10`, `punct30`, `punct50`; `m3+punct` likewise).
/// A name that matches nothing is an error listing what there is, never an empty selection.
pub(super) fn resolve_attacks<'a>(
    requested: &[String],
    held: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>> {
    let mut held: Vec<&str> = held.collect();
    held.sort();
    held.dedup();
    let mut out = Vec::new();
    for name in requested {
        let family: Vec<&str> = held
            .iter()
            .copied()
            .filter(|a| {
                *a == name
                    || a.strip_prefix(name.as_str()).is_some_and(|level| {
                        !level.is_empty() && level.bytes().all(|b| b.is_ascii_digit())
                    })
            })
            .collect();
        if family.is_empty() && !Attack::is_original(name) {
            return Err(Error::usage(format!(
                "no variants of attack `{name}` in the tables (attacks held: {})",
                held.join(", ")
            )));
        }
        out.extend(family.into_iter().map(String::from));
    }
    Ok(out)
}
