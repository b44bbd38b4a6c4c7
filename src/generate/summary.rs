//! What a generation run reports: rows written per dataset and attack (and how many of them two
//! or more independent programs confirm), the problems left out, and the failed ones.

use std::collections::BTreeMap;
use std::io::Write;

use super::select;
use crate::error::{Error, Result};
use crate::output::tsv_row;

/// Totals of a generation run, per dataset and attack.
#[derive(Clone, Debug, Default)]
pub struct GenerateSummary {
    /// (dataset, attack) -> (problems with variants, rows, rows whose gold two or more
    /// independent programs give).
    pub rows: BTreeMap<(String, String), (usize, usize, usize)>,
    pub attempts: u64,
    /// Problems read from the `problems` table.
    pub read: usize,
    /// Problems no requested attack could use (no valid program, and no punctuation noise or no
    /// usable gold answer).
    pub skipped_invalid: usize,
    /// Problems without a valid program that got punctuation noise only.
    pub noise_only: usize,
    /// How each dataset's problem sample was drawn (with `--sample-problems`).
    pub samples: Vec<select::SampleReport>,
    /// Problems whose work failed as a whole (an internal error), with the reason; every other
    /// problem's rows are written.
    pub failed: Vec<(String, String)>,
    /// (dataset, attack) -> problems that fall short of m variants only because of the reader's
    /// rules (they reach m under the paper's constraints alone).
    pub lost_to_rules: BTreeMap<(String, String), usize>,
    /// (dataset, attack) -> (problems it was tried on, reason -> problems it made nothing of):
    /// a draw's problems that fell short of the variants wanted, by their main rejection; an
    /// edit's none of whose questions it could change, by the first refusal.
    pub refusals: BTreeMap<(String, String), (usize, BTreeMap<String, usize>)>,
}

impl GenerateSummary {
    /// The problems whose work failed, as the error that ends the run with exit 1 (after every
    /// other problem's rows were written); `Ok` when none did.
    pub fn failures(&self) -> Result<()> {
        if self.failed.is_empty() {
            return Ok(());
        }
        Err(Error::UnitsFailed {
            stage: "generate",
            unit: "problem",
            failed: self.failed.clone(),
        })
    }

    /// The stage's closing line: problems read, refused (no attack could use them), failed;
    /// the rows written.
    pub fn tally(&self) -> crate::output::Tally {
        crate::output::Tally {
            stage: "generate",
            unit: "problems",
            read: self.read,
            refused: self.skipped_invalid,
            failed: self.failed.len(),
            written: self.rows.values().map(|(_, rows, _)| rows).sum(),
            detail: (self.noise_only > 0).then(|| {
                format!(
                    "{} of the used problems have no valid program: punctuation noise only",
                    self.noise_only
                )
            }),
            ..Default::default()
        }
    }

    /// One line per (dataset, attack) with refusals counted, saying how many problems it made
    /// variants of, and why the others were refused (the reasons sum to the rest): "gsm8k
    /// names: 948 of 1,010 problems attacked; refused: no_name 40, unsure_name 22".
    pub fn refusal_lines(&self) -> Vec<String> {
        self.refusals
            .iter()
            .map(|((dataset, attack), (tried, refused))| {
                let none: usize = refused.values().sum();
                let mut line = format!(
                    "{dataset} {attack}: {} of {tried} problems attacked",
                    tried - none
                );
                if none > 0 {
                    let reasons: Vec<String> =
                        refused.iter().map(|(r, n)| format!("{r} {n}")).collect();
                    line.push_str(&format!("; refused: {}", reasons.join(", ")));
                }
                line
            })
            .collect()
    }

    /// One line per (dataset, attack), tab-separated, for stdout.
    pub fn write_table(&self, out: &mut impl Write) -> std::io::Result<()> {
        tsv_row(
            out,
            ["dataset", "attack", "problems", "variants", "confirmed"],
        )?;
        for ((dataset, attack), (problems, rows, confirmed)) in &self.rows {
            tsv_row(
                out,
                [
                    dataset.clone(),
                    attack.clone(),
                    problems.to_string(),
                    rows.to_string(),
                    confirmed.to_string(),
                ],
            )?;
        }
        Ok(())
    }
}
