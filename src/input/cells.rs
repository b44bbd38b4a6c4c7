//! Users' tables read as text cells: CSV, Parquet or JSON Lines through polars, one map of
//! column name to cell text per row, each row screened first. The outside layouts of responses,
//! the ArithmAttack CSVs and the filled annotation sheets all read their files this way.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use super::{screen_csv, screen_json_lines, separator_of, warn_skipped};
use crate::error::{Error, Result};

/// A CSV file with a header, every cell as text, one map per row (quoted fields may hold
/// newlines, as the ArithmAttack replies do). A bad row is reported on stderr and left out.
pub fn read_csv(path: &Path) -> Result<Vec<HashMap<String, String>>> {
    Ok(read_csv_numbered(path)?
        .into_iter()
        .map(|(_, row)| row)
        .collect())
}

/// [`read_csv`], each row with its 0-based number in the file: rows set aside keep their
/// numbers out, so the others keep theirs.
pub fn read_csv_numbered(path: &Path) -> Result<Vec<(usize, HashMap<String, String>)>> {
    read_generic_with(path, true)
}

/// A CSV, TSV, Parquet or JSONL file (by extension; anything else is read as JSONL), every cell
/// as text, one map per row with its 0-based row number. A bad row (ragged, not UTF-8, not a
/// JSON object, nested too deep to parse) is reported on stderr, by file and row, and left out;
/// the other rows keep their numbers.
pub fn read_generic(path: &Path) -> Result<Vec<(usize, HashMap<String, String>)>> {
    read_generic_with(
        path,
        path.extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("csv") || x.eq_ignore_ascii_case("tsv")),
    )
}

/// Every column is cast to text so that a reader can look a value up by column name whatever
/// type the file gave it; a null cell is simply absent from its row's map.
fn read_generic_with(path: &Path, csv: bool) -> Result<Vec<(usize, HashMap<String, String>)>> {
    use polars::prelude::{
        CsvReadOptions, DataType as PlType, JsonFormat, JsonReader, ParquetReader, SerReader,
    };
    let mut numbers: Option<Vec<usize>> = None;
    let df = if path.extension().is_some_and(|x| x == "parquet") && !csv {
        ParquetReader::new(fs::File::open(path).map_err(|e| Error::file(path, e))?).finish()?
    } else {
        let bytes = fs::read(path).map_err(|e| Error::file(path, e))?;
        let screened = if csv {
            screen_csv(&bytes, separator_of(path))
                .map_err(|reason| Error::invalid(path.display(), reason))?
        } else {
            screen_json_lines(&bytes)
        };
        warn_skipped(path, &screened.bad);
        if screened.rows.is_empty() {
            return Ok(Vec::new());
        }
        numbers = Some(screened.rows);
        let text = std::io::Cursor::new(screened.text);
        if csv {
            CsvReadOptions::default()
                .with_has_header(true)
                .with_infer_schema_length(Some(0))
                .into_reader_with_file_handle(text)
                .finish()?
        } else {
            JsonReader::new(text)
                .with_json_format(JsonFormat::JsonLines)
                .finish()?
        }
    };
    let mut rows = vec![HashMap::new(); df.height()];
    for c in df.columns() {
        let name = c.name().to_string();
        let s = c.cast(&PlType::String)?;
        let ca = s.str()?;
        for (i, row) in rows.iter_mut().enumerate() {
            if let Some(v) = ca.get(i) {
                row.insert(name.clone(), v.to_string());
            }
        }
    }
    let numbers = numbers.unwrap_or_else(|| (0..rows.len()).collect());
    Ok(numbers.into_iter().zip(rows).collect())
}
