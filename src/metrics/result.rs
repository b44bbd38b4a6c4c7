//! A small, owned result table: metric outputs are aggregates (hundreds or thousands of rows), so
//! they are copied out of Arrow once and then rendered as CSV, Markdown, JSON and plots.

use std::collections::HashSet;
use std::fmt::Write as _;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Float64Type, Int64Type, Schema};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use crate::error::Result;
use crate::output::{Csv, CsvField, Quote};
use crate::store::columns;

/// One value of a result table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl Cell {
    pub fn is_null(&self) -> bool {
        matches!(self, Cell::Null)
    }

    /// The value as a number (integers widen; NULL, text and booleans are `None`).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(v) => Some(*v as f64),
            Cell::Float(v) => Some(*v),
            _ => None,
        }
    }

    /// The value as an integer (a float only when it is integral).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Cell::Int(v) => Some(*v),
            Cell::Float(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => Some(*v as i64),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Cell::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The CSV field: NULL is the empty field; floats keep full (round-trip) precision.
    fn csv(&self) -> CsvField<'_> {
        match self {
            Cell::Null => CsvField::Empty,
            Cell::Bool(b) => CsvField::Number(b.to_string()),
            Cell::Int(v) => CsvField::Number(v.to_string()),
            Cell::Float(v) => CsvField::Number(v.to_string()),
            Cell::Text(s) => CsvField::Text(s.as_str().into()),
        }
    }

    /// The cell as a report shows it: NULL is empty, floats have four decimals.
    pub(crate) fn display(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Bool(b) => b.to_string(),
            Cell::Int(v) => v.to_string(),
            Cell::Float(v) if *v != 0.0 && v.abs() < 1e-4 => format!("{v:.2e}"),
            Cell::Float(v) if v.is_finite() => format!("{v:.4}"),
            Cell::Float(v) => v.to_string(),
            Cell::Text(s) => s.clone(),
        }
    }

    /// Markdown text: [`Cell::display`] with `|` and line breaks escaped.
    fn markdown(&self) -> String {
        match self {
            Cell::Text(s) => markdown_escape(s),
            other => other.display(),
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Cell::Null => serde_json::Value::Null,
            Cell::Bool(b) => serde_json::Value::Bool(*b),
            Cell::Int(v) => serde_json::Value::from(*v),
            Cell::Float(v) => serde_json::Number::from_f64(*v)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Cell::Text(s) => serde_json::Value::String(s.clone()),
        }
    }
}

fn markdown_escape(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Columns that name a model; each gets a simulated flag.
pub const MODEL_COLUMNS: &[&str] = &[
    columns::MODEL,
    "model_a",
    "model_b",
    "source",
    "target",
    "cheap",
    "added_model",
];

/// The flag column added for a model column: `simulated` for `model`, `<col>_simulated` else.
pub(crate) fn simulated_column(model_column: &str) -> String {
    if model_column == columns::MODEL {
        columns::SIMULATED.to_string()
    } else {
        format!("{model_column}_simulated")
    }
}

/// An owned table of cells, column names first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl ResultTable {
    /// Copy Arrow batches into cells. Integers become `Int`, floats and decimals `Float`, strings
    /// of every encoding `Text`, anything else (lists, dates) its display text.
    pub fn from_batches(schema: &Schema, batches: &[RecordBatch]) -> Result<Self> {
        let columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let mut rows = Vec::with_capacity(batches.iter().map(|b| b.num_rows()).sum());
        for batch in batches {
            let converted: Vec<Vec<Cell>> = batch
                .columns()
                .iter()
                .map(column_cells)
                .collect::<Result<_>>()?;
            for r in 0..batch.num_rows() {
                rows.push(converted.iter().map(|c| c[r].clone()).collect());
            }
        }
        Ok(ResultTable { columns, rows })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The index of a column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The cell of `row` in column `name` (`None` when there is no such column).
    pub fn get(&self, row: usize, name: &str) -> Option<&Cell> {
        let c = self.column(name)?;
        self.rows.get(row).map(|r| &r[c])
    }

    /// Append a column computed from each row.
    pub fn push_column(&mut self, name: &str, mut f: impl FnMut(&[Cell]) -> Cell) {
        for row in &mut self.rows {
            let v = f(row);
            row.push(v);
        }
        self.columns.push(name.to_string());
    }

    /// Append a column of values, one per row.
    pub fn push_values(&mut self, name: &str, values: Vec<Cell>) {
        assert_eq!(values.len(), self.rows.len(), "one value per row");
        for (row, v) in self.rows.iter_mut().zip(values) {
            row.push(v);
        }
        self.columns.push(name.to_string());
    }

    /// Add a boolean `simulated` / `<col>_simulated` column after every model column that lacks
    /// one.
    pub fn mark_simulated(&mut self, simulated: &HashSet<String>) {
        for col in MODEL_COLUMNS {
            if self.column(col).is_none() || self.column(&simulated_column(col)).is_some() {
                continue;
            }
            let idx = self.column(col).expect("checked");
            self.push_column(&simulated_column(col), |row| match &row[idx] {
                Cell::Text(m) => Cell::Bool(simulated.contains(m)),
                _ => Cell::Null,
            });
        }
    }

    /// RFC 4180 CSV with a header line.
    pub fn to_csv(&self) -> String {
        let mut csv = Csv::new(&self.columns, Quote::Needed);
        for row in &self.rows {
            let fields: Vec<CsvField> = row.iter().map(Cell::csv).collect();
            csv.row(&fields);
        }
        csv.finish()
    }

    /// What a report shows of the table: every column but the simulated flags `mark_simulated`
    /// adds (the model names are marked instead), and which of those name a model.
    pub(crate) fn shown_columns(&self) -> (Vec<usize>, HashSet<usize>) {
        let flags: HashSet<String> = MODEL_COLUMNS.iter().map(|c| simulated_column(c)).collect();
        let shown = (0..self.columns.len())
            .filter(|&i| !flags.contains(&self.columns[i]))
            .collect();
        let models = MODEL_COLUMNS
            .iter()
            .filter_map(|c| self.column(c))
            .collect();
        (shown, models)
    }

    /// A Markdown (GFM) table. Model names of simulated models get " *(simulated)*"; the flag
    /// columns themselves are left out. At most `max_rows` rows, with a note when cut.
    pub fn to_markdown(&self, simulated: &HashSet<String>, max_rows: Option<usize>) -> String {
        let (shown, model_cols) = self.shown_columns();
        let numeric: Vec<bool> = shown
            .iter()
            .map(|&i| {
                self.rows
                    .iter()
                    .any(|r| matches!(r[i], Cell::Int(_) | Cell::Float(_)))
            })
            .collect();
        let mut out = String::new();
        let header: Vec<String> = shown
            .iter()
            .map(|&i| markdown_escape(&self.columns[i]))
            .collect();
        let _ = writeln!(out, "| {} |", header.join(" | "));
        let rule: Vec<&str> = numeric
            .iter()
            .map(|&n| if n { "---:" } else { "---" })
            .collect();
        let _ = writeln!(out, "| {} |", rule.join(" | "));
        let limit = max_rows.unwrap_or(usize::MAX);
        for row in self.rows.iter().take(limit) {
            let cells: Vec<String> = shown
                .iter()
                .map(|&i| {
                    let text = row[i].markdown();
                    match &row[i] {
                        Cell::Text(m) if model_cols.contains(&i) && simulated.contains(m) => {
                            format!("{text} *(simulated)*")
                        }
                        _ => text,
                    }
                })
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        if self.rows.len() > limit {
            let _ = writeln!(out, "\n*{} more rows not shown.*", self.rows.len() - limit);
        }
        if self.rows.is_empty() {
            out.push_str("\n*No rows.*\n");
        }
        out
    }

    /// `{"columns": [...], "rows": [[...], ...]}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "columns": self.columns,
            "rows": self.rows.iter().map(|r| r.iter().map(Cell::to_json).collect::<Vec<_>>()).collect::<Vec<_>>(),
        })
    }
}

fn column_cells(array: &ArrayRef) -> Result<Vec<Cell>> {
    let n = array.len();
    let cells = match array.data_type() {
        DataType::Boolean => {
            let a = array.as_boolean();
            (0..n)
                .map(|i| {
                    if a.is_null(i) {
                        Cell::Null
                    } else {
                        Cell::Bool(a.value(i))
                    }
                })
                .collect()
        }
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32 => {
            let c = cast(array, &DataType::Int64)?;
            let a = c.as_primitive::<Int64Type>();
            (0..n)
                .map(|i| {
                    if a.is_null(i) {
                        Cell::Null
                    } else {
                        Cell::Int(a.value(i))
                    }
                })
                .collect()
        }
        DataType::UInt64 => {
            let a = array.as_primitive::<arrow::datatypes::UInt64Type>();
            (0..n)
                .map(|i| {
                    if a.is_null(i) {
                        Cell::Null
                    } else {
                        i64::try_from(a.value(i))
                            .map(Cell::Int)
                            .unwrap_or(Cell::Float(a.value(i) as f64))
                    }
                })
                .collect()
        }
        DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => {
            let c = cast(array, &DataType::Float64)?;
            let a = c.as_primitive::<Float64Type>();
            (0..n)
                .map(|i| {
                    if a.is_null(i) {
                        Cell::Null
                    } else {
                        Cell::Float(a.value(i))
                    }
                })
                .collect()
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Dictionary(..) => {
            let c = cast(array, &DataType::Utf8)?;
            let a = c.as_string::<i32>();
            (0..n)
                .map(|i| {
                    if a.is_null(i) {
                        Cell::Null
                    } else {
                        Cell::Text(a.value(i).to_string())
                    }
                })
                .collect()
        }
        _ => {
            let options = FormatOptions::default();
            let f = ArrayFormatter::try_new(array.as_ref(), &options)?;
            (0..n)
                .map(|i| {
                    if array.is_null(i) {
                        Cell::Null
                    } else {
                        Cell::Text(f.value(i).to_string())
                    }
                })
                .collect()
        }
    };
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_markdown_render_nulls_as_empty() {
        let t = ResultTable {
            columns: vec!["model".into(), "asr".into(), "note".into()],
            rows: vec![
                vec![
                    Cell::Text("sim-a".into()),
                    Cell::Null,
                    Cell::Text("a,\"b\"".into()),
                ],
                vec![
                    Cell::Text("m".into()),
                    Cell::Float(0.5),
                    Cell::Text("x|y".into()),
                ],
            ],
        };
        assert_eq!(
            t.to_csv(),
            "model,asr,note\nsim-a,,\"a,\"\"b\"\"\"\nm,0.5,x|y\n"
        );
        let sim: HashSet<String> = ["sim-a".to_string()].into();
        let md = t.to_markdown(&sim, None);
        assert!(md.contains("| sim-a *(simulated)* |  | a,\"b\" |"), "{md}");
        assert!(md.contains("| m | 0.5000 | x\\|y |"), "{md}");
        let mut t2 = t.clone();
        t2.mark_simulated(&sim);
        assert_eq!(t2.columns.last().unwrap(), "simulated");
        assert_eq!(t2.rows[0].last(), Some(&Cell::Bool(true)));
        assert_eq!(t2.rows[1].last(), Some(&Cell::Bool(false)));
    }
}
