//! Parts that do not belong where they lie. A tables folder is untrusted input: a part of another
//! table copied into a table's folder, a part of another model's replies planted in a model's
//! folder, or a second copy of a variants part would be read as rows of the table, merged or
//! counted twice. Each part's footer is checked (its columns, its statistics) before a reader
//! takes the folder, and a foreign part is refused naming its file.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use arrow::datatypes::SchemaRef;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;

use crate::error::{Error, Result};
use crate::parquet::TableFile;

/// [`refuse_foreign_parts`] over the whole of table `table` under `tables` (nothing when it is
/// absent).
pub fn refuse_foreign_in(tables: &Path, table: &str) -> Result<()> {
    let dir = tables.join(table);
    if !dir.is_dir() {
        return Ok(());
    }
    refuse_foreign_parts(table, &dir, &crate::parquet::parquet_files_under(&dir)?)
}

/// The columns a table's parts may hold (its schema; partition columns live in the path).
fn columns_of(table: &str) -> Option<SchemaRef> {
    Some(match table {
        "problems" => crate::problems::schema(),
        "candidate_programs" => crate::candidate_programs::schema(),
        "variants" => crate::variants::schema(),
        "generation_stats" => crate::generation_stats::schema(),
        "responses" => crate::responses::schema(),
        "efficient_responses" => crate::efficient_responses::schema(),
        "features" => {
            crate::feature_tables::schema(advmath_core::feature_sets::FeatureSet::Advmath)
        }
        "features_xie2024" => {
            crate::feature_tables::schema(advmath_core::feature_sets::FeatureSet::Xie2024)
        }
        "coefficients" => crate::coefficients::schema(),
        "annotations" => crate::annotations::schema(),
        _ => return None,
    })
}

/// Refuse a part of `files` (the parts of table `table` under `dir`, as listed) that holds a
/// column the table does not have, a reply of another model than its folder's, or the same
/// variants as another part of its folder.
pub fn refuse_foreign_parts(table: &str, dir: &Path, files: &[TableFile]) -> Result<()> {
    let Some(expected) = columns_of(table) else {
        return Ok(());
    };
    let mut variant_ranges: HashMap<(std::path::PathBuf, String), std::path::PathBuf> =
        HashMap::new();
    for (path, _) in files {
        let Ok(file) = File::open(path) else {
            continue;
        };
        // An unreadable footer is named by the reader that fails on it.
        let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(file) else {
            continue;
        };
        let foreign: Vec<&str> = builder
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .filter(|n| expected.field_with_name(n).is_err())
            .collect();
        if !foreign.is_empty() {
            return Err(Error::invalid(
                path.display(),
                format!(
                    "holds column(s) {} that table `{table}` does not have: a part of another table; remove it",
                    foreign.join(", ")
                ),
            ));
        }
        let metadata = builder.metadata();
        if table == "responses" || table == "efficient_responses" {
            let folder = path
                .strip_prefix(dir)
                .ok()
                .and_then(|r| r.components().next())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            let model = crate::paths::name_of(&folder).unwrap_or(folder);
            if let Some(other) = string_values(metadata, "model")
                .into_iter()
                .find(|m| *m != model)
            {
                return Err(Error::invalid(
                    path.display(),
                    format!(
                        "holds replies of model {other:?} in the folder of model {model:?}; remove the part or move it to its model's folder"
                    ),
                ));
            }
        }
        if table == "variants" {
            if let (Some((min, max)), Some(folder)) =
                (string_range(metadata, "variant_id"), path.parent())
            {
                let rows = metadata.file_metadata().num_rows();
                let key = (folder.to_path_buf(), format!("{rows}\u{0}{min}\u{0}{max}"));
                if let Some(first) = variant_ranges.insert(key, path.clone()) {
                    return Err(Error::invalid(
                        path.display(),
                        format!(
                            "holds the same variants as {} (the same rows and ids): a copy; remove it",
                            first.display()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The column's index in the file's leaf columns.
fn column_index(metadata: &ParquetMetaData, name: &str) -> Option<usize> {
    metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| c.path().string() == name)
}

/// The distinct minimum and maximum values a string column's row-group statistics record.
fn string_values(metadata: &ParquetMetaData, name: &str) -> Vec<String> {
    let Some(i) = column_index(metadata, name) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for rg in metadata.row_groups() {
        if let Some(Statistics::ByteArray(s)) = rg.column(i).statistics() {
            // A truncated bound is not a value of the column.
            let exact = [
                s.min_opt().filter(|_| s.min_is_exact()),
                s.max_opt().filter(|_| s.max_is_exact()),
            ];
            for v in exact.into_iter().flatten() {
                if let Ok(text) = v.as_utf8() {
                    if !out.iter().any(|o| o == text) {
                        out.push(text.to_string());
                    }
                }
            }
        }
    }
    out
}

/// A string column's smallest and largest value over the file, from its statistics.
fn string_range(metadata: &ParquetMetaData, name: &str) -> Option<(String, String)> {
    let i = column_index(metadata, name)?;
    let mut range: Option<(String, String)> = None;
    for rg in metadata.row_groups() {
        let Some(Statistics::ByteArray(s)) = rg.column(i).statistics() else {
            return None;
        };
        if !s.min_is_exact() || !s.max_is_exact() {
            return None;
        }
        let min = s.min_opt()?.as_utf8().ok()?.to_string();
        let max = s.max_opt()?.as_utf8().ok()?.to_string();
        range = Some(match range {
            None => (min, max),
            Some((a, b)) => (a.min(min), b.max(max)),
        });
    }
    range
}
