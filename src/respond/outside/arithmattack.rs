//! The ArithmAttack study's released responses (Abedin et al., caisa-lab/ArithmAttack): per
//! dataset and model a folder `<dataset>/<model>/` of `clean.csv` and `noise10.csv`,
//! `noise30.csv`, `noise50.csv` (punctuation noise on 10/30/50 % of the words), with the columns
//! `Question`, `Answer - LLM`, `Answer - Ground Truth Converted` and the authors' own extraction,
//! `Answer - LLM Converted`. A single CSV of that shape reads too, its level from its name or
//! `--noise-level`. Rows align by position across the four files of one model.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::{original_attack, outside_item, outside_key, Layout, OutsideConfig, Problem, Problems};
use crate::error::{ColumnProblem, Error, Result};
use crate::input::read_csv_numbered as read_csv;
use crate::num::Num;
use crate::respond::rows::Scored;
use crate::store::responses::ResponseRow;

pub(super) struct Arithmattack;

impl Layout for Arithmattack {
    fn read(&self, config: &OutsideConfig) -> Result<Vec<ResponseRow>> {
        let problems = Problems::load(&config.tables);
        let mut out = Vec::new();
        for (dataset, model, level, path) in arithmattack_files(&config.input, config)? {
            let rows = read_csv(&path)?;
            require_columns(&rows, &path)?;
            // Keyed by row number: a bad row set aside in one file must not shift the others.
            let match_questions = |rows: &[(usize, HashMap<String, String>)]| {
                let mut matcher = problems.matcher();
                rows.iter()
                    .map(|(i, r)| {
                        let q = r.get("Question").map(String::as_str).unwrap_or("");
                        (*i, matcher.find(q))
                    })
                    .collect::<HashMap<usize, Option<&Problem>>>()
            };
            let matched = if level == 0 {
                match_questions(&rows)
            } else if let Some(clean) = arithmattack_clean(&path) {
                // Noised rows align by position with the clean file of the same model.
                match_questions(&read_csv(&clean)?)
            } else {
                HashMap::new()
            };
            let attack = if level == 0 {
                original_attack().to_string()
            } else {
                // Levels are percentages: from a file name's digits or a range-checked flag.
                crate::vocab::Attack::Punct(level.unsigned_abs()).to_string()
            };
            for &(i, ref r) in &rows {
                let q = r.get("Question").cloned().unwrap_or_default();
                let text = r.get("Answer - LLM").cloned().unwrap_or_default();
                let gold = r
                    .get("Answer - Ground Truth Converted")
                    .and_then(|g| Num::parse_decimal(g.trim()));
                let problem = matched.get(&i).copied().flatten();
                let mut item = outside_item(&q, Some(level), gold, &attack, problem);
                if item.dataset.is_none() {
                    item.dataset = Some(dataset.clone());
                }
                let key = outside_key(&model, &format!("arithmattack/{dataset}/{level}"), i, &q);
                out.push(ResponseRow::scored_by(
                    key,
                    &model,
                    "arithmattack",
                    &item,
                    text,
                    "arithmattack_csv",
                    config.extraction,
                ));
            }
        }
        Ok(out)
    }
}

/// The columns a study file cannot do without: a file lacking the replies would be graded all
/// wrong instead of refused.
const REQUIRED: [&str; 2] = ["Question", "Answer - LLM"];

/// A null cell is absent from its row's map, so a column is missing when no row has it.
fn require_columns(rows: &[(usize, HashMap<String, String>)], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    match REQUIRED
        .iter()
        .find(|c| !rows.iter().any(|(_, r)| r.contains_key(**c)))
    {
        Some(column) => Err(crate::store::Error::BadColumn {
            file: path.to_path_buf(),
            problem: ColumnProblem::Missing {
                column: column.to_string(),
            },
        }
        .into()),
        None => Ok(()),
    }
}

/// (dataset, model, noise level, file) for an ArithmAttack folder or file.
fn arithmattack_files(
    input: &Path,
    config: &OutsideConfig,
) -> Result<Vec<(String, String, i32, PathBuf)>> {
    let level_of = |p: &Path| -> Option<i32> {
        let stem = p.file_stem()?.to_str()?;
        if stem == "clean" {
            Some(0)
        } else {
            let level: u32 = stem.strip_prefix("noise")?.parse().ok()?;
            i32::try_from(level).ok()
        }
    };
    let mut files = Vec::new();
    let mut stack = vec![input.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in fs::read_dir(&p)
                .map_err(|e| Error::file(&p, e))?
                .filter_map(|e| e.ok())
            {
                stack.push(e.path());
            }
        } else if p.extension().is_some_and(|x| x == "csv") {
            let level = level_of(&p).or(config.noise_level);
            let Some(level) = level else { continue };
            let model = config
                .model
                .clone()
                .or_else(|| p.parent()?.file_name()?.to_str().map(String::from))
                .unwrap_or_else(|| "model".into());
            let dataset = p
                .parent()
                .and_then(|m| m.parent())
                .and_then(|d| d.file_name())
                .and_then(|d| d.to_str())
                .unwrap_or("arithmattack")
                .to_string();
            files.push((dataset, model, level, p));
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::invalid(
            input.display(),
            "no ArithmAttack CSV (clean.csv, noiseNN.csv) found",
        ));
    }
    Ok(files)
}

fn arithmattack_clean(noised: &Path) -> Option<PathBuf> {
    let clean = noised.with_file_name("clean.csv");
    clean.is_file().then_some(clean)
}

/// The ArithmAttack authors' own extraction, `Answer - LLM Converted`: their code writes
/// `sys.maxsize` when it finds no number, which is a miss, not a value.
pub fn arithmattack_authors_value(text: &str) -> Option<Num> {
    Num::parse_decimal(text).filter(|v| v.to_f64() < 9.0e18)
}
