//! The RobustMath rephrasing-attack baseline of Xie et al. 2024 (Table 3) as an attack of its
//! own: `robustBase.json` holds the original questions and `robustMath.json` rephrasings of them,
//! both `[{"Problem", "final_ans"}]`. They become `variants` rows of dataset `robustmath`: each
//! original as attack `original`, each rephrased question as a variant of attack `rephrase` of
//! its original, so that `advmath respond` can ask them and the metrics grade them. These
//! problems have no program and get no `problems` row.
//!
//! The release links no rephrasing to its original (300 rephrasings of 214 originals; only the
//! first ~110 happen to sit at the same position), so they are paired by content: a rephrased
//! question belongs to the original with the same final answer that shares the most words
//! (Jaccard similarity of the sets of lower-case alphanumeric words). A rephrasing whose best
//! match shares too few words, or that two originals match about equally well, is left out and
//! reported, never guessed.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use arrow::record_batch::RecordBatch;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::num::Num;
use crate::output::tsv_row;
use crate::program::tree::num_text;
use crate::store::variants;
use crate::vocab::Attack;

/// The dataset name of the rephrasing attack.
pub const DATASET: &str = "robustmath";
/// File of the rephrased questions.
pub const REPHRASED_FILE: &str = "robustMath.json";
/// File of the original questions.
pub const ORIGINALS_FILE: &str = "robustBase.json";
/// A pair needs at least this word-set Jaccard similarity ...
pub const MIN_SIMILARITY: f64 = 0.5;
/// ... and must beat the next-best original of the same answer by this much.
pub const MIN_MARGIN: f64 = 0.1;

/// Whether `path` is a RobustMath release folder (or one of its two files).
pub fn is_robustmath(path: &Path) -> bool {
    release_dir(path).is_some()
}

fn release_dir(path: &Path) -> Option<PathBuf> {
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        let name = path.file_name()?.to_str()?;
        if name != REPHRASED_FILE && name != ORIGINALS_FILE {
            return None;
        }
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    };
    (dir.join(REPHRASED_FILE).is_file() && dir.join(ORIGINALS_FILE).is_file()).then_some(dir)
}

/// One question of either file.
#[derive(Debug, Clone)]
struct Item {
    question: String,
    answer: Num,
}

/// A rephrasing left out, with the reason.
#[derive(Debug, Clone)]
pub struct Unpaired {
    /// Its position in `robustMath.json`.
    pub index: usize,
    pub reason: String,
}

/// What [`ingest_robustmath`] wrote.
#[derive(Debug, Clone)]
pub struct RobustMathSummary {
    pub originals: usize,
    pub rephrased: usize,
    /// Rephrasings paired with an original (variants of attack `rephrase`).
    pub paired: usize,
    /// Originals with at least one paired rephrasing.
    pub originals_paired: usize,
    pub unpaired: Vec<Unpaired>,
    pub written: Vec<PathBuf>,
}

impl RobustMathSummary {
    /// One tab-separated line, with its header, for stdout.
    pub fn write_table(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        tsv_row(
            &mut *out,
            [
                "dataset",
                "originals",
                "rephrased",
                "paired",
                "originals_paired",
                "unpaired",
            ],
        )?;
        tsv_row(
            &mut *out,
            [
                DATASET.to_string(),
                self.originals.to_string(),
                self.rephrased.to_string(),
                self.paired.to_string(),
                self.originals_paired.to_string(),
                self.unpaired.len().to_string(),
            ],
        )
    }
}

fn read_items(path: &Path) -> Result<Vec<Item>> {
    let text = fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    let items = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(items)) => items,
        Ok(_) => {
            return Err(Error::invalid(
                path.display(),
                "expected a JSON array of {\"Problem\", \"final_ans\"}",
            ))
        }
        Err(e) => {
            return Err(Error::invalid(
                path.display(),
                format!("malformed JSON: {e}"),
            ))
        }
    };
    if items.is_empty() {
        return Err(Error::invalid(path.display(), "no question in the file"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let at = |what: &str| Error::invalid(path.display(), format!("item {i}: {what}"));
            let question = v
                .get("Problem")
                .and_then(Value::as_str)
                .ok_or_else(|| at("missing \"Problem\" text"))?;
            let answer = match v.get("final_ans") {
                Some(Value::Number(n)) => Num::parse_decimal(&n.to_string()),
                Some(Value::String(s)) => Num::parse_decimal(s),
                _ => None,
            }
            .ok_or_else(|| at("missing or non-numeric \"final_ans\""))?;
            Ok(Item {
                question: question.trim().to_string(),
                answer,
            })
        })
        .collect()
}

fn words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// For each rephrasing, the original it belongs to (its index in the originals), or why none.
fn pair(originals: &[Item], rephrased: &[Item]) -> Vec<std::result::Result<usize, String>> {
    let original_words: Vec<BTreeSet<String>> =
        originals.iter().map(|o| words(&o.question)).collect();
    rephrased
        .iter()
        .map(|r| {
            let w = words(&r.question);
            let mut scored: Vec<(f64, usize)> = originals
                .iter()
                .enumerate()
                .filter(|(_, o)| o.answer == r.answer)
                .map(|(j, _)| (jaccard(&w, &original_words[j]), j))
                .collect();
            // Best first; equal scores by position so that the outcome never depends on order.
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let Some(&(best, j)) = scored.first() else {
                return Err(format!("no original has the final answer {}", r.answer));
            };
            if best < MIN_SIMILARITY {
                return Err(format!(
                    "best original (item {j} of {ORIGINALS_FILE}) shares only {best:.2} of the words (< {MIN_SIMILARITY})"
                ));
            }
            if let Some(&(second, k)) = scored.get(1) {
                if best - second < MIN_MARGIN {
                    return Err(format!(
                        "ambiguous: items {j} ({best:.2}) and {k} ({second:.2}) of {ORIGINALS_FILE} match about equally"
                    ));
                }
            }
            Ok(j)
        })
        .collect()
}

struct Row {
    problem_id: String,
    attack: Attack,
    index: usize,
    question: String,
    answer: Num,
}

fn batch(rows: &[Row]) -> Result<RecordBatch> {
    let rows: Vec<variants::Row> = rows
        .iter()
        .map(|r| variants::Row {
            variant_id: format!("{}/{}/{}", r.problem_id, r.attack, r.index),
            problem_id: r.problem_id.clone(),
            noise_level: 0,
            variant_index: r.index as i32,
            question: r.question.clone(),
            answer: Some(r.answer.to_string()),
            answer_exact: Some(num_text::to_text(&r.answer)),
            numbers: Vec::new(),
            seed: 0,
            support: 0,
            distractor: None,
        })
        .collect();
    Ok(variants::rows_to_batch(&rows)?)
}

/// Read the RobustMath release at `path` (its folder, or one of its two files) and write
/// `variants/dataset=robustmath/attack={original,rephrase}/part-0.parquet` under `tables`,
/// replacing that dataset's variants. Problem ids are `robustmath/test/<index in
/// robustBase.json>`; the rephrasings of an original are its variants 0, 1, ... in file order.
pub fn ingest_robustmath(path: &Path, tables: &Path) -> Result<RobustMathSummary> {
    let dir = release_dir(path).ok_or_else(|| {
        Error::invalid(
            path.display(),
            format!("not a RobustMath release: expected a folder with {REPHRASED_FILE} and {ORIGINALS_FILE}"),
        )
    })?;
    let originals = read_items(&dir.join(ORIGINALS_FILE))?;
    let rephrased = read_items(&dir.join(REPHRASED_FILE))?;
    let pairing = pair(&originals, &rephrased);

    let pid = |j: usize| format!("{DATASET}/test/{j}");
    let mut by_original: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut unpaired = Vec::new();
    for (i, p) in pairing.into_iter().enumerate() {
        match p {
            Ok(j) => by_original.entry(j).or_default().push(i),
            Err(reason) => unpaired.push(Unpaired { index: i, reason }),
        }
    }
    let original_rows: Vec<Row> = originals
        .iter()
        .enumerate()
        .map(|(j, o)| Row {
            problem_id: pid(j),
            attack: Attack::Original,
            index: 0,
            question: o.question.clone(),
            answer: o.answer,
        })
        .collect();
    let mut rephrase_rows = Vec::new();
    for (&j, list) in &by_original {
        for (k, &i) in list.iter().enumerate() {
            rephrase_rows.push(Row {
                problem_id: pid(j),
                attack: Attack::Rephrase,
                index: k,
                question: rephrased[i].question.clone(),
                answer: rephrased[i].answer,
            });
        }
    }

    // The partition is written whole beside the old one and switched in, as `generate` does.
    let _lock = crate::store::lock::WriterLock::acquire(tables, variants::MADE_BY, DATASET)?;
    variants::remove_dead_staging(tables, DATASET)?;
    let staging = variants::staging_dir(tables, DATASET);
    let target = variants::dataset_dir(tables, DATASET);
    let staged = (|| -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        for (attack, rows) in [
            (Attack::Original, &original_rows),
            (Attack::Rephrase, &rephrase_rows),
        ] {
            if rows.is_empty() {
                continue;
            }
            let part = crate::store::part_file(
                &crate::store::variants::staged_attack_dir(&staging, &attack.to_string()),
                0,
            );
            crate::store::write_batch(&part, &batch(rows)?)?;
            written.push(crate::store::part_file(
                &variants::attack_dir(tables, DATASET, &attack.to_string()),
                0,
            ));
        }
        fs::create_dir_all(&staging).map_err(|e| Error::file(&staging, e))?;
        let _switch = crate::store::commit::TablesLock::exclusive(tables)?;
        crate::store::swap_in(&staging, &target)?;
        Ok(written)
    })();
    if staged.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    let written = staged?;
    for u in &unpaired {
        crate::progress::note!(
            "warning: {}: item {} not paired: {}",
            dir.join(REPHRASED_FILE).display(),
            u.index,
            u.reason
        );
    }
    Ok(RobustMathSummary {
        originals: originals.len(),
        rephrased: rephrased.len(),
        paired: rephrase_rows.len(),
        originals_paired: by_original.len(),
        unpaired,
        written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(q: &str, a: i128) -> Item {
        Item {
            question: q.into(),
            answer: Num::int(a),
        }
    }

    #[test]
    fn pairs_by_answer_and_shared_words() {
        let originals = vec![
            item("Tom has 3 apples and buys 2 more. How many apples?", 5),
            item("Ann reads 5 pages a day for 2 days. How many pages?", 10),
            item("Bob has 3 pears and buys 2 more. How many pears?", 5),
        ];
        let rephrased = vec![
            // Same answer as items 0 and 2; shares far more words with item 2.
            item("bob owns 3 pears and gets 2 more . how many pears ?", 5),
            // Paired with item 1 although item 1 is not at its position.
            item(
                "ann reads 5 pages each day for 2 days ; how many pages?",
                10,
            ),
            // No original with answer 7.
            item("Tom has 3 apples and buys 4 more. How many apples?", 7),
            // Answer 10 but almost no shared word.
            item("a completely different text", 10),
        ];
        let p = pair(&originals, &rephrased);
        assert_eq!(p[0], Ok(2));
        assert_eq!(p[1], Ok(1));
        assert!(p[2].as_ref().unwrap_err().contains("final answer 7"));
        assert!(p[3].as_ref().unwrap_err().contains("shares only"));
        // Two originals that match equally well: ambiguous, never guessed.
        let twins = vec![item("x y z", 1), item("x y z", 1)];
        let p = pair(&twins, &[item("x y z w", 1)]);
        assert!(p[0].as_ref().unwrap_err().contains("ambiguous"), "{p:?}");
    }
}
