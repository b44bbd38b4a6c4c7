//! The sheets themselves: written as CSV for people to fill, read back (through polars, as every
//! user's table is) into rows of the `annotations` table.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{SheetKind, SheetRow};
use crate::error::{Error, Result};
use crate::store::annotations::{self, AnnotationRow};
use crate::store::columns;
use crate::store::lock::WriterLock;

/// Every field quoted (replies hold commas, quotes and newlines), quotes doubled (RFC 4180).
pub(super) fn to_csv(kind: SheetKind, rows: &[SheetRow]) -> String {
    let columns = kind.columns();
    let quote = |v: &str| format!("\"{}\"", v.replace('"', "\"\""));
    let mut out = columns
        .iter()
        .map(|c| quote(c))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in rows {
        let line: Vec<String> = columns
            .iter()
            .map(|c| quote(row.get(c).map(String::as_str).unwrap_or("")))
            .collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// A verdict cell: 1/0, yes/no, y/n, true/false (any case); empty is "not rated".
fn verdict(cell: &str) -> std::result::Result<Option<i32>, ()> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "1" | "yes" | "y" | "true" => Ok(Some(1)),
        "0" | "no" | "n" | "false" => Ok(Some(0)),
        _ => Err(()),
    }
}

/// What ingesting the sheets did.
#[derive(Debug, Default)]
pub struct IngestSummary {
    /// Per sheet: its file, kind, annotators, verdicts written and cells left empty.
    pub sheets: Vec<(PathBuf, SheetKind, Vec<String>, usize, usize)>,
    /// Cells that are no verdict, each naming file, row, column and value; their rows' other
    /// verdicts are kept.
    pub bad: Vec<String>,
}

/// Read filled sheets and write each one's verdicts to `annotations/<kind>/<annotator>.parquet`
/// (replacing what an earlier ingest of the same sheet wrote). The kind is read from the
/// header; the annotator from each row's `annotator` cell, else the file name.
pub fn ingest(tables: &Path, sheets: &[PathBuf]) -> Result<IngestSummary> {
    let mut summary = IngestSummary::default();
    for path in sheets {
        let rows = crate::input::read_csv_numbered(path)?;
        let header: Vec<&String> = rows
            .first()
            .map(|(_, r)| r.keys().collect())
            .unwrap_or_default();
        let kind = if header.iter().any(|c| *c == "correctness") {
            SheetKind::HumanEval
        } else if header.iter().any(|c| *c == "missed") {
            SheetKind::MissRate
        } else if rows.is_empty() {
            return Err(Error::invalid(path.display(), "the sheet has no rows"));
        } else {
            return Err(Error::invalid(
                path.display(),
                "not an annotation sheet: no `correctness` column (human evaluation) and no `missed` column (miss rate); draw one with `advmath annotate sample`",
            ));
        };
        let sheet = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut out = Vec::new();
        let mut empty = 0;
        let mut annotators: Vec<String> = Vec::new();
        for (row, cells) in &rows {
            // The header is line 1.
            let line = row + 2;
            let get = |c: &str| {
                cells
                    .get(c)
                    .map(|v| v.trim().to_string())
                    .unwrap_or_default()
            };
            let required = [columns::ITEM, columns::MODEL, columns::DATASET];
            if let Some(c) = required.iter().find(|c| get(c).is_empty()) {
                summary.bad.push(format!(
                    "{}: row {line}: column `{c}` is empty; the row is left out",
                    path.display()
                ));
                continue;
            }
            let annotator = Some(get(columns::ANNOTATOR))
                .filter(|a| !a.is_empty())
                .unwrap_or_else(|| sheet.clone());
            if !annotators.contains(&annotator) {
                annotators.push(annotator.clone());
            }
            let base = base_row(kind, &sheet, &annotator, cells);
            for criterion in kind.criteria() {
                let cell = get(criterion);
                match verdict(&cell) {
                    Ok(Some(value)) => out.push(AnnotationRow {
                        criterion: criterion.to_string(),
                        value,
                        ..base.clone()
                    }),
                    Ok(None) => empty += 1,
                    Err(()) => summary.bad.push(format!(
                        "{}: row {line}: column `{criterion}` holds {cell:?}, not 1/0 (yes/no); that verdict is left out",
                        path.display()
                    )),
                }
            }
        }
        // Keyed by annotator and item: two annotators' sheets of one name, or one sheet
        // ingested twice under two names, never replace or double each other.
        let _lock = WriterLock::wait(tables, "annotate", kind.name())?;
        crate::store::remove_leftovers(&tables.join(annotations::TABLE).join(kind.name()), None)?;
        for annotator in &annotators {
            let theirs: Vec<AnnotationRow> = out
                .iter()
                .filter(|r| &r.annotator == annotator)
                .cloned()
                .collect();
            annotations::merge(tables, kind.name(), annotator, &theirs)?;
        }
        summary
            .sheets
            .push((path.clone(), kind, annotators, out.len(), empty));
    }
    Ok(summary)
}

fn base_row(
    kind: SheetKind,
    sheet: &str,
    annotator: &str,
    cells: &HashMap<String, String>,
) -> AnnotationRow {
    let get = |c: &str| {
        cells
            .get(c)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let opt = |c: &str| Some(get(c)).filter(|v| !v.is_empty());
    AnnotationRow {
        kind: kind.name().to_string(),
        sheet: sheet.to_string(),
        annotator: annotator.to_string(),
        item: get(columns::ITEM),
        model: get(columns::MODEL),
        template: opt(columns::TEMPLATE),
        dataset: get(columns::DATASET),
        attack: match kind {
            SheetKind::HumanEval => get(columns::METHOD),
            SheetKind::MissRate => get(columns::ATTACK),
        },
        problem_id: opt(columns::PROBLEM_ID),
        variant_id: opt(columns::VARIANT_ID),
        criterion: String::new(),
        value: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_and_quotes_doubled() {
        let mut row = SheetRow::new();
        row.insert("item", "m00001".into());
        row.insert("response", "He said \"12\",\nthen 13.".into());
        let csv = to_csv(SheetKind::MissRate, &[row]);
        let second = csv.split_once('\n').unwrap().1;
        assert!(second.starts_with("\"m00001\","), "{csv}");
        assert!(csv.contains("\"He said \"\"12\"\",\nthen 13.\""), "{csv}");
    }

    #[test]
    fn verdicts_read_as_people_write_them() {
        for (cell, want) in [
            ("1", Some(1)),
            (" Yes", Some(1)),
            ("n", Some(0)),
            ("", None),
        ] {
            assert_eq!(verdict(cell), Ok(want), "{cell:?}");
        }
        assert_eq!(verdict("maybe"), Err(()));
    }
}
