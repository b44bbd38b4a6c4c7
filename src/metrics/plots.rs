//! The plots of `advmath metrics`, by metric: Figures 3 and 7 and Appendices F and G of Xie et al.,
//! Figures 2 and 3 of ArithmAttack and the human evaluation's bars, each drawn from its metric's
//! result table; and the helpers that read a result table for a plot.

pub(super) mod appendix;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::Cell;
use super::{ResultTable, MAX_PLOTS};
use crate::error::{Error, Result};
use crate::plot;
use crate::store::columns;

pub(super) fn text_of(table: &ResultTable, row: usize, column: &str) -> String {
    table
        .get(row, column)
        .and_then(Cell::as_str)
        .unwrap_or_default()
        .to_string()
}

pub(super) fn float_of(table: &ResultTable, row: usize, column: &str) -> Option<f64> {
    table.get(row, column).and_then(Cell::as_f64)
}

fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<dir>/<metric>__<key part>__....svg`, the folder made first.
pub(super) fn plot_path(dir: &Path, metric: &str, key: &[String]) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    let parts: Vec<String> = key.iter().map(|k| file_part(k)).collect();
    Ok(dir.join(format!("{metric}__{}.svg", parts.join("__"))))
}

pub(super) fn display_model(model: &str, simulated: &HashSet<String>) -> String {
    if simulated.contains(model) {
        format!("{model} (simulated)")
    } else {
        model.to_string()
    }
}

/// Rows grouped by the values of `keys`, in first-seen order.
pub(super) fn groups(table: &ResultTable, keys: &[&str]) -> Vec<(Vec<String>, Vec<usize>)> {
    let mut order: Vec<Vec<String>> = Vec::new();
    let mut rows: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for r in 0..table.len() {
        let key: Vec<String> = keys.iter().map(|k| text_of(table, r, k)).collect();
        let entry = rows.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(r);
    }
    order
        .into_iter()
        .map(|k| {
            let v = rows.remove(&k).unwrap_or_default();
            (k, v)
        })
        .collect()
}

/// One line per model through the (`x`, `y`) points of `rows` (rows missing either are left
/// out), and the largest x seen (0 when none).
fn model_lines(
    table: &ResultTable,
    rows: &[usize],
    (x, y): (&str, &str),
    simulated: &HashSet<String>,
) -> (Vec<plot::Series>, f64) {
    let mut by_model: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut max_x: f64 = 0.0;
    for &r in rows {
        let (Some(px), Some(py)) = (float_of(table, r, x), float_of(table, r, y)) else {
            continue;
        };
        max_x = max_x.max(px);
        by_model
            .entry(display_model(&text_of(table, r, columns::MODEL), simulated))
            .or_default()
            .push((px, py));
    }
    let series = by_model
        .into_iter()
        .map(|(name, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            plot::Series { name, points }
        })
        .collect();
    (series, max_x)
}

/// Figure 7: attack accuracy against k, one chart per template x dataset x attack.
pub(super) fn attack_curve_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(
        table,
        &[columns::TEMPLATE, columns::DATASET, columns::ATTACK],
    ) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let (series, max_k) = model_lines(table, &rows, ("k", "aa"), simulated);
        if max_k < 2.0 {
            continue; // one variant per problem: no curve
        }
        let title = format!(
            "Attack accuracy vs attacks per problem: {} / {} ({})",
            key[1], key[2], key[0]
        );
        let path = plot_path(dir, "xie_attack_curve", &key)?;
        plot::line_chart(
            &path,
            &title,
            "k (first k variants of each problem)",
            "attack accuracy",
            (1.0, max_k),
            &series,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// Figure 3: share of problems with a variant both models answer wrongly (symmetric), one heatmap
/// per group.
pub(super) fn transfer_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(
        table,
        &[columns::TEMPLATE, columns::DATASET, columns::ATTACK],
    ) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        for &r in &rows {
            names.insert(text_of(table, r, "model_a"));
            names.insert(text_of(table, r, "model_b"));
        }
        let names: Vec<String> = names.into_iter().collect();
        if names.len() < 2 {
            continue; // one model: nothing transfers
        }
        let index = |m: &str| names.iter().position(|n| n == m);
        let mut values = vec![vec![None; names.len()]; names.len()];
        for &r in &rows {
            if let (Some(s), Some(t)) = (
                index(&text_of(table, r, "model_a")),
                index(&text_of(table, r, "model_b")),
            ) {
                values[s][t] = float_of(table, r, "transfer_share");
            }
        }
        let labels: Vec<String> = names
            .iter()
            .map(|n| {
                if simulated.contains(n) {
                    format!("{n}*")
                } else {
                    n.clone()
                }
            })
            .collect();
        let marked = if names.iter().any(|n| simulated.contains(n)) {
            "; * simulated"
        } else {
            ""
        };
        let title = format!(
            "Transferability: {} / {} ({}{marked})",
            key[1], key[2], key[0]
        );
        let path = plot_path(dir, "xie_transfer", &key)?;
        plot::heatmap(
            &path,
            &title,
            columns::MODEL,
            "model (share of problems with a variant both get wrong)",
            &labels,
            &values,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// ArithmAttack Figure 2: accuracy against the noise level, one chart per template x dataset.
pub(super) fn noise_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(table, &[columns::TEMPLATE, columns::DATASET]) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let (series, max_level) = model_lines(
            table,
            &rows,
            (columns::NOISE_LEVEL, columns::ACCURACY),
            simulated,
        );
        if max_level <= 0.0 {
            continue; // clean questions only: no noise curve
        }
        let title = format!("Accuracy vs punctuation noise: {} ({})", key[1], key[0]);
        let path = plot_path(dir, "arithmattack_accuracy", &key)?;
        plot::line_chart(
            &path,
            &title,
            "noise level (% of words with a punctuation mark)",
            columns::ACCURACY,
            (0.0, max_level.max(10.0)),
            &series,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// ArithmAttack Figure 3: the attack success rate of each model (averaged over the noise levels,
/// `asr_mean`), one bar chart per template x dataset.
pub(super) fn asr_bar_plots(
    table: &ResultTable,
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(table, &[columns::TEMPLATE, columns::DATASET]) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let mut by_model: BTreeMap<String, Option<f64>> = BTreeMap::new();
        for &r in &rows {
            by_model
                .entry(display_model(&text_of(table, r, columns::MODEL), simulated))
                .or_insert_with(|| float_of(table, r, "asr_mean"));
        }
        let bars: Vec<(String, Option<f64>)> = by_model.into_iter().collect();
        let title = format!(
            "Attack success rate of punctuation noise: {} ({})",
            key[1], key[0]
        );
        let path = plot_path(dir, "arithmattack_asr", &key)?;
        plot::bar_chart(
            &path,
            &title,
            columns::MODEL,
            "ASR (mean over the noise levels)",
            &bars,
        )?;
        made.push((title, path));
    }
    Ok(made)
}

/// Xie et al. Figure 2: the mean human score of each method on each criterion, one bar chart
/// per model x template x dataset (bars in method order, criteria within).
pub(super) fn human_eval_plots(table: &ResultTable, dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut made = Vec::new();
    for (key, rows) in groups(
        table,
        &[columns::MODEL, columns::TEMPLATE, columns::DATASET],
    ) {
        if made.len() == MAX_PLOTS {
            break;
        }
        let bars: Vec<(String, Option<f64>)> = rows
            .iter()
            .map(|&r| {
                (
                    format!(
                        "{} {}",
                        text_of(table, r, columns::METHOD).to_uppercase(),
                        text_of(table, r, columns::CRITERION)
                    ),
                    float_of(table, r, "mean_score"),
                )
            })
            .collect();
        let title = format!(
            "Human evaluation of {}'s adversarial examples: {} ({})",
            key[0], key[2], key[1]
        );
        let path = plot_path(dir, "xie_human_eval", &key)?;
        plot::bar_chart(&path, &title, "method and criterion", "mean score", &bars)?;
        made.push((title, path));
    }
    Ok(made)
}
