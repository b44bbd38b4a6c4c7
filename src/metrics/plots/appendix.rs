//! The plots of Xie et al.'s appendices F and G in `report.md` and `report.html`: the
//! distribution of incorrect variants per problem (one bar per tenth of a problem's variants
//! answered wrongly; numeric attacks, which make many variants per problem), and the mean number
//! of distinct valid generations per problem for each method.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::super::{ResultTable, MAX_PLOTS};
use super::{display_model, float_of, groups, plot_path, text_of};
use crate::error::Result;
use crate::plot;
use crate::store::columns;
use crate::vocab::Attack;

/// Appendix F: the share of problems per tenth of incorrect variants, one bar chart per model x
/// template x dataset x attack.
pub(in crate::metrics) fn incorrect_share_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    let keys = [
        columns::MODEL,
        columns::TEMPLATE,
        columns::DATASET,
        columns::ATTACK,
    ];
    for (key, rows) in groups(table, &keys) {
        if made.len() == MAX_PLOTS {
            break;
        }
        // Punctuation noise makes one copy per problem: no distribution to draw.
        if Attack::of(&key[3]).is_some_and(|a| matches!(a, Attack::Punct(_))) {
            continue;
        }
        let bars: Vec<(String, Option<f64>)> = rows
            .iter()
            .map(|&r| {
                let from = float_of(table, r, "share_from").unwrap_or_default();
                let to = float_of(table, r, "share_to").unwrap_or_default();
                (
                    format!("{from:.1}-{to:.1}"),
                    float_of(table, r, "share_of_problems"),
                )
            })
            .collect();
        let title = format!(
            "Incorrect variants per problem (appendix F): {}, {} {} ({})",
            display_model(&key[0], simulated),
            key[2],
            key[3],
            key[1]
        );
        let path = plot_path(dir, "xie_incorrect_share_hist", &key)?;
        plot::bar_chart(
            &path,
            &title,
            "share of the problem's variants answered wrongly",
            "share of problems",
            &bars,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// Appendix G: the mean number of distinct valid generations per problem for each attack, one
/// bar chart per dataset.
pub(in crate::metrics) fn generation_plots(
    table: &ResultTable,
    dir: &Path,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(table, &[columns::DATASET]) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let bars: Vec<(String, Option<f64>)> = rows
            .iter()
            .map(|&r| {
                (
                    text_of(table, r, columns::ATTACK),
                    float_of(table, r, "mean_unique_valid"),
                )
            })
            .collect();
        let title = format!(
            "Distinct valid generations per problem (appendix G): {}",
            key[0]
        );
        let path = plot_path(dir, "xie_generations", &key)?;
        plot::bar_chart(
            &path,
            &title,
            columns::ATTACK,
            "mean distinct valid generations per problem",
            &bars,
        )?;
        made.push((title, path));
    }
    Ok(made)
}
