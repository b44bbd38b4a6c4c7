//! One stored reply per (template, run, variant) in a model's `responses` folder: an import
//! replaces the rows it answers again, a row whose variant now asks another question (the
//! variants were regenerated) is superseded, and a part holding another model's rows is refused.
//!
//! The folder is rewritten whole beside the old one and switched in by one atomic exchange, under
//! the model's writer lock (the caller's) and the tables' switch lock: a reader sees the old rows
//! or the new ones, and a kill leaves the old folder.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::commit::{remove_path, replace, TablesLock};
use crate::error::{Error, Result};
use crate::parquet::{parts, read_batches, write_batch};
use crate::responses::{batch_to_rows, model_dir, offline_part, rows_to_batch, ResponseRow};

/// What identifies a stored reply: template, run, and the variant it answers (a row that
/// answers no variant is keyed by its request key instead).
pub type ReplyKey = (String, String, String);

/// The [`ReplyKey`] of a row.
pub fn reply_key(row: &ResponseRow) -> ReplyKey {
    let about = match &row.variant_id {
        Some(v) => format!("variant:{v}"),
        None => format!("request:{}", row.response_key),
    };
    (row.template.clone(), row.run.clone(), about)
}

/// What a merge did to the stored rows.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Rows replaced by a row with their key (an incoming one, or a later stored one).
    pub replaced: usize,
    /// Rows dropped because their variant now asks another question.
    pub superseded: usize,
}

/// Every row of a model's folder, in part order; a row of another model is refused, naming its
/// part (a part planted in, or copied into, the wrong folder).
pub fn read_model_rows(tables: &Path, model: &str) -> Result<Vec<ResponseRow>> {
    let dir = model_dir(tables, model);
    let mut out = Vec::new();
    for f in parts(&dir)? {
        for b in read_batches(&f)? {
            let rows = batch_to_rows(&b, &f)?;
            if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.model != model) {
                return Err(Error::invalid(
                    f.display(),
                    format!(
                        "row {} holds a reply of model {:?} in the folder of model {model:?}; remove the part or move it to its model's folder",
                        out.len() + i + 1,
                        r.model
                    ),
                ));
            }
            out.extend(rows);
        }
    }
    Ok(out)
}

/// Merge `incoming` rows into `model`'s folder: every [`ReplyKey`] keeps one row (an incoming
/// row wins over a stored one, a later stored row over an earlier one), and a row whose variant
/// asks another question now (`current`: variant id -> question) is dropped. Nothing is written
/// when nothing changes. Returns what was done and the folder's rows after it, so a caller need
/// not read them again. The caller holds the model's writer lock.
pub fn merge_model_rows(
    tables: &Path,
    model: &str,
    incoming: Vec<ResponseRow>,
    current: &HashMap<String, String>,
) -> Result<(Merged, Vec<ResponseRow>)> {
    let stored = read_model_rows(tables, model)?;
    let mut merged = Merged::default();
    let mut order: Vec<ReplyKey> = Vec::new();
    let mut by_key: HashMap<ReplyKey, ResponseRow> = HashMap::new();
    let changed_question = |r: &ResponseRow| {
        r.variant_id
            .as_ref()
            .and_then(|v| current.get(v))
            .is_some_and(|q| *q != r.question)
    };
    let incoming_count = incoming.len();
    for row in stored.into_iter().chain(incoming) {
        if changed_question(&row) {
            merged.superseded += 1;
            continue;
        }
        let key = reply_key(&row);
        if by_key.insert(key.clone(), row).is_some() {
            merged.replaced += 1;
        } else {
            order.push(key);
        }
    }
    let rows: Vec<ResponseRow> = order
        .into_iter()
        .map(|k| by_key.remove(&k).expect("every key has its row"))
        .collect();
    if incoming_count > 0 || merged != Merged::default() {
        rewrite_folder(tables, model, &rows)?;
    }
    Ok((merged, rows))
}

/// Write `rows` as the whole of `model`'s folder: staged beside it, the folder's other files
/// (write-ahead logs of killed runs) carried over, then exchanged in one step.
fn rewrite_folder(tables: &Path, model: &str, rows: &[ResponseRow]) -> Result<()> {
    let dir = model_dir(tables, model);
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.merge-");
    let staging = dir.with_file_name(format!("{prefix}{}", std::process::id()));
    // The caller holds the model's lock: a merge folder of another process is a killed run's.
    if let Some(parent) = dir.parent() {
        crate::commit::remove_leftovers(parent, Some(&prefix))?;
    }
    remove_path(&staging)?;
    let done = stage(&dir, &staging, rows).and_then(|()| {
        let _switch = TablesLock::exclusive(tables)?;
        replace(&staging, &dir)
    });
    if done.is_err() {
        let _ = remove_path(&staging);
    }
    done
}

fn stage(dir: &Path, staging: &Path, rows: &[ResponseRow]) -> Result<()> {
    fs::create_dir_all(staging).map_err(|e| Error::file(staging, e))?;
    if dir.is_dir() {
        let existing: Vec<PathBuf> = parts(dir)?;
        for entry in fs::read_dir(dir).map_err(|e| Error::file(dir, e))? {
            let path = entry.map_err(|e| Error::file(dir, e))?.path();
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if !existing.contains(&path) && !hidden && path.is_file() {
                let to = staging.join(path.file_name().expect("an entry has a name"));
                fs::hard_link(&path, &to).map_err(|e| Error::file(&path, e))?;
            }
        }
    }
    if !rows.is_empty() {
        // Numbered past the folder's parts, so later offline runs keep numbering after it.
        let part = offline_part(dir)?;
        let target = staging.join(part.file_name().expect("a part has a name"));
        write_batch(&target, &rows_to_batch(rows)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, variant: &str, question: &str, response: &str) -> ResponseRow {
        ResponseRow {
            response_key: format!("k-{question}"),
            model: model.into(),
            template: "xie2024".into(),
            run: "imported".into(),
            variant_id: Some(variant.into()),
            problem_id: None,
            dataset: None,
            attack: None,
            noise_level: None,
            question: question.into(),
            response: Some(response.into()),
            extracted: None,
            extraction_rule: "miss".into(),
            gold: None,
            abstained: None,
            correct: None,
            correct_exact: None,
            latency_ms: None,
            prompt_tokens: None,
            completion_tokens: None,
            finish_reason: None,
            source: "generic".into(),
            simulated: false,
            error: None,
        }
    }

    #[test]
    fn a_key_keeps_one_row_and_a_changed_question_supersedes_its_reply() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path();
        let current: HashMap<String, String> = [("v1", "q1"), ("v2", "q2")]
            .map(|(v, q)| (v.to_string(), q.to_string()))
            .into_iter()
            .collect();
        let first = vec![row("m", "v1", "q1", "a"), row("m", "v2", "q2", "b")];
        let (m, rows) = merge_model_rows(tables, "m", first.clone(), &current).unwrap();
        assert_eq!((rows.len(), m.replaced, m.superseded), (2, 0, 0));
        // The same import again replaces, never adds.
        let (m, rows) = merge_model_rows(tables, "m", first, &current).unwrap();
        assert_eq!((rows.len(), m.replaced, m.superseded), (2, 2, 0));
        // v2 regenerated: its old reply goes.
        let now: HashMap<String, String> = [("v1", "q1"), ("v2", "q2 new")]
            .map(|(v, q)| (v.to_string(), q.to_string()))
            .into_iter()
            .collect();
        let (m, rows) = merge_model_rows(tables, "m", vec![], &now).unwrap();
        assert_eq!((rows.len(), m.replaced, m.superseded), (1, 0, 1));
        let rows = read_model_rows(tables, "m").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].variant_id.as_deref(), Some("v1"));
        // Nothing to do: nothing is written.
        let parts_before = parts(&model_dir(tables, "m")).unwrap();
        merge_model_rows(tables, "m", vec![], &now).unwrap();
        assert_eq!(parts(&model_dir(tables, "m")).unwrap(), parts_before);
    }

    #[test]
    fn a_part_of_another_model_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path();
        let planted = model_dir(tables, "m").join("part-planted.parquet");
        write_batch(
            &planted,
            &rows_to_batch(&[row("other", "v1", "q1", "a")]).unwrap(),
        )
        .unwrap();
        let err = read_model_rows(tables, "m").unwrap_err().to_string();
        assert!(
            err.contains("part-planted.parquet") && err.contains("\"other\""),
            "{err}"
        );
    }
}
