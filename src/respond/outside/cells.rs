//! Outside tables read as text cells: CSV, Parquet or JSON Lines through polars, one map of
//! column name to cell text per row. The generic layout and the ArithmAttack CSVs both read
//! their inputs this way.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::error::{Error, Result};
use crate::input::{shallow_json_lines, MAX_JSON_DEPTH};

/// A CSV file with a header, every cell as text, one map per row (quoted fields may hold
/// newlines, as the ArithmAttack replies do).
pub fn read_csv(path: &Path) -> Result<Vec<HashMap<String, String>>> {
    Ok(read_generic_with(path, true)?
        .into_iter()
        .map(|(_, row)| row)
        .collect())
}

/// A CSV, Parquet or JSONL file (by extension; anything else is read as JSONL), every cell as
/// text, one map per row with its 0-based row number. A JSON row nested too deep to parse is
/// reported on stderr, by file and row, and left out; the other rows keep their numbers.
pub(super) fn read_generic(path: &Path) -> Result<Vec<(usize, HashMap<String, String>)>> {
    read_generic_with(path, path.extension().is_some_and(|x| x == "csv"))
}

/// Every column is cast to text so that a reader can look a value up by column name whatever
/// type the file gave it; a null cell is simply absent from its row's map.
fn read_generic_with(path: &Path, csv: bool) -> Result<Vec<(usize, HashMap<String, String>)>> {
    use polars::prelude::{
        CsvReadOptions, DataType as PlType, JsonFormat, JsonReader, ParquetReader, SerReader,
    };
    let file = || fs::File::open(path).map_err(|e| Error::file(path, e));
    let mut numbers: Option<Vec<usize>> = None;
    let df = if csv {
        CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .try_into_reader_with_file_path(Some(path.to_path_buf()))?
            .finish()?
    } else if path.extension().is_some_and(|x| x == "parquet") {
        ParquetReader::new(file()?).finish()?
    } else {
        let bytes = fs::read(path).map_err(|e| Error::file(path, e))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| Error::invalid(path.display(), format!("not UTF-8 text: {e}")))?;
        let split = shallow_json_lines(text);
        for row in &split.too_deep {
            eprintln!(
                "warning: {}: row {}: JSON nested deeper than {MAX_JSON_DEPTH} levels; row skipped",
                path.display(),
                row + 1
            );
        }
        if split.rows.is_empty() {
            return Ok(Vec::new());
        }
        numbers = Some(split.rows);
        JsonReader::new(std::io::Cursor::new(split.text.into_bytes()))
            .with_json_format(JsonFormat::JsonLines)
            .finish()?
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
