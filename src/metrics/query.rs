//! One user query over the tables (what `advmath sql` runs), its result printed as a table, CSV or
//! JSON as it is computed, or written to Parquet.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::{QueryOutput, SqlEngine};
use crate::error::{Error, Result};

/// Output of [`run_sql`].
#[derive(Debug, Clone, PartialEq)]
pub enum OutputFormat {
    /// A pretty text table.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON array of row objects, nulls explicit.
    Json,
    /// JSON Lines: one object per line, nulls explicit.
    Jsonl,
    /// A Parquet file at this path (zstd, written atomically).
    Parquet(PathBuf),
}

impl OutputFormat {
    /// From a CLI name (`table`, `csv`, `json`, `parquet`); Parquet needs `path`.
    pub fn from_name(name: &str, path: Option<PathBuf>) -> Result<Self> {
        let name = name.to_ascii_lowercase();
        if path.is_some() && name != "parquet" {
            return Err(Error::setting(
                "output",
                format!(
                    "is for the parquet format; {name} goes to stdout (redirect it with > FILE)"
                ),
            ));
        }
        match name.as_str() {
            "table" | "pretty" => Ok(OutputFormat::Table),
            "csv" => Ok(OutputFormat::Csv),
            "json" => Ok(OutputFormat::Json),
            "jsonl" | "ndjson" => Ok(OutputFormat::Jsonl),
            "parquet" => path
                .map(OutputFormat::Parquet)
                .ok_or_else(|| Error::setting("format", "parquet needs an output file")),
            other => Err(Error::usage(format!(
                "unknown output format `{other}`: expected table, csv, json, jsonl or parquet"
            ))),
        }
    }
}

/// Where a user query comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum QuerySource {
    Text(String),
    File(PathBuf),
}

impl QuerySource {
    pub fn read(&self) -> Result<String> {
        match self {
            QuerySource::Text(s) => Ok(s.clone()),
            QuerySource::File(p) => std::fs::read_to_string(p).map_err(|e| Error::file(p, e)),
        }
    }
}

/// Options of `advmath sql` (clap-free).
#[derive(Debug, Clone)]
pub struct SqlConfig {
    pub tables: PathBuf,
    pub query: QuerySource,
    pub format: OutputFormat,
    /// Threads, memory and time the query may use.
    pub limits: super::EngineLimits,
}

/// What [`run_sql`] produced.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlOutput {
    pub rows: usize,
    /// The rendered result (empty for Parquet).
    pub text: String,
    /// The Parquet file written, for [`OutputFormat::Parquet`].
    pub parquet: Option<PathBuf>,
}

/// Run one user query over `tables` and render it.
pub fn run_sql(tables: &Path, query: &str, format: OutputFormat) -> Result<SqlOutput> {
    if let OutputFormat::Parquet(path) = &format {
        refuse_inside_tables(path, tables)?;
    }
    let engine = SqlEngine::open(tables)?;
    let output = engine.query(query)?;
    render(&output, &format)
}

/// [`run_sql`] from a [`SqlConfig`], writing text output to `out`; returns the row count.
pub fn run_sql_config(config: &SqlConfig, out: &mut dyn Write) -> Result<usize> {
    if let OutputFormat::Parquet(path) = &config.format {
        refuse_inside_tables(path, &config.tables)?;
    }
    let query = config.query.read()?;
    let engine = SqlEngine::open_limited(&config.tables, config.limits.clone())?;
    if let OutputFormat::Parquet(_) = &config.format {
        let output = engine.query(&query)?;
        return Ok(render(&output, &config.format)?.rows);
    }
    // Text is printed as the rows come, a chunk at a time, within the query's bounds: a huge
    // result neither waits whole in memory nor outlives the timeout while it prints.
    let mut chunk = QueryOutput {
        schema: Arc::new(Schema::empty()),
        batches: Vec::new(),
    };
    let mut rows = 0;
    let chunks = std::cell::Cell::new(0);
    let json_array = config.format == OutputFormat::Json;
    if json_array {
        out.write_all(b"[")?;
    }
    let flush = |chunk: &mut QueryOutput, out: &mut dyn Write| -> Result<()> {
        // A JSON array printed a chunk at a time: each chunk's rows as lines, joined by commas.
        if json_array {
            let lines = render(chunk, &OutputFormat::Jsonl)?.text;
            for line in lines.lines() {
                let sep: &[u8] = if chunks.get() == 0 { b"\n" } else { b",\n" };
                out.write_all(sep)?;
                out.write_all(line.as_bytes())?;
                chunks.set(chunks.get() + 1);
            }
            chunk.batches.clear();
            return Ok(());
        }
        let rendered = render(chunk, &config.format)?;
        let text = match (&config.format, chunks.get()) {
            // The CSV header once, with the first chunk.
            (OutputFormat::Csv, n) if n > 0 => rendered
                .text
                .split_once('\n')
                .map_or("", |(_, rest)| rest)
                .to_string(),
            _ => rendered.text,
        };
        out.write_all(text.as_bytes())?;
        chunks.set(chunks.get() + 1);
        chunk.batches.clear();
        Ok(())
    };
    let schema = engine.query_each(&query, &mut |schema, batch| {
        rows += batch.num_rows();
        chunk.schema = Arc::clone(schema);
        chunk.batches.push(batch);
        if chunk.rows() >= PRINT_CHUNK_ROWS {
            flush(&mut chunk, out)?;
        }
        Ok(())
    })?;
    if chunks.get() == 0 || !chunk.batches.is_empty() {
        chunk.schema = schema;
        flush(&mut chunk, out)?;
    }
    if json_array {
        out.write_all(if rows == 0 { b"]\n" } else { b"\n]\n" })?;
    }
    Ok(rows)
}

/// `batches` as JSON in the layout `F` (an array, or one object per line), nulls explicit.
fn json_text<F: arrow::json::writer::JsonFormat + Default>(
    batches: &[RecordBatch],
) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = arrow::json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .build::<_, F>(&mut buf);
    for b in batches {
        w.write(b)?;
    }
    w.finish()?;
    drop(w);
    Ok(buf)
}

/// Rows printed at a time: a result that fits is one table; a longer one is printed in tables
/// of this many rows as it is computed.
const PRINT_CHUNK_ROWS: usize = 10_000;

/// A result written among the tables would be read back as table data by the next query.
fn refuse_inside_tables(output: &Path, tables: &Path) -> Result<()> {
    Ok(crate::store::refuse_output_inside(output, tables)?)
}

/// Nested columns (lists, structs, maps) as JSON text, one value per row: CSV has no nested
/// values, and JSON keeps them readable and exact.
fn nested_as_json(
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let nested = |t: &DataType| t.is_nested();
    if !schema.fields().iter().any(|f| nested(f.data_type())) {
        return Ok((Arc::clone(schema), batches.to_vec()));
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            if nested(f.data_type()) {
                Field::new(f.name(), DataType::Utf8, true)
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    let out_schema = Arc::new(Schema::new(fields));
    let mut out = Vec::with_capacity(batches.len());
    for b in batches {
        let mut columns = Vec::with_capacity(b.num_columns());
        for (column, field) in b.columns().iter().zip(schema.fields()) {
            if !nested(field.data_type()) {
                columns.push(Arc::clone(column));
                continue;
            }
            let one = RecordBatch::try_new(
                Arc::new(Schema::new(vec![field.as_ref().clone()])),
                vec![Arc::clone(column)],
            )?;
            let buf = json_text::<arrow::json::writer::LineDelimited>(std::slice::from_ref(&one))?;
            let text = String::from_utf8_lossy(&buf);
            let values: Vec<Option<String>> = text
                .lines()
                .map(|line| {
                    let row: serde_json::Value = serde_json::from_str(line)?;
                    Ok(match &row[field.name()] {
                        serde_json::Value::Null => None,
                        v => Some(v.to_string()),
                    })
                })
                .collect::<std::result::Result<_, serde_json::Error>>()?;
            columns.push(Arc::new(arrow::array::StringArray::from(values)) as _);
        }
        out.push(RecordBatch::try_new(Arc::clone(&out_schema), columns)?);
    }
    Ok((out_schema, out))
}

/// View types (DataFusion reads strings as Utf8View) become plain Utf8/Binary so that every
/// writer and reader handles the output.
fn plain(output: &QueryOutput) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let plain_type = |t: &DataType| match t {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        other => other.clone(),
    };
    let fields: Vec<Field> = output
        .schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(plain_type(f.data_type())))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut batches = Vec::with_capacity(output.batches.len());
    for b in &output.batches {
        let columns = b
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(Arc::clone(c))
                } else {
                    cast(c, f.data_type())
                }
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        batches.push(RecordBatch::try_new(Arc::clone(&schema), columns)?);
    }
    Ok((schema, batches))
}

fn render(output: &QueryOutput, format: &OutputFormat) -> Result<SqlOutput> {
    let rows = output.rows();
    let (schema, batches) = plain(output)?;
    let text = match format {
        OutputFormat::Table => {
            let mut s = arrow::util::pretty::pretty_format_batches_with_schema(
                Arc::clone(&schema),
                &batches,
            )?
            .to_string();
            s.push('\n');
            s
        }
        OutputFormat::Csv => {
            let (schema, batches) = nested_as_json(&schema, &batches)?;
            let mut buf = Vec::new();
            if batches.is_empty() {
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                buf.extend_from_slice(names.join(",").as_bytes());
                buf.push(b'\n');
            } else {
                let mut w = arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(&mut buf);
                for b in &batches {
                    w.write(b)?;
                }
            }
            String::from_utf8_lossy(&buf).into_owned()
        }
        OutputFormat::Json => {
            let mut buf = json_text::<arrow::json::writer::JsonArray>(&batches)?;
            if buf.is_empty() {
                buf.extend_from_slice(b"[]");
            }
            buf.push(b'\n');
            String::from_utf8_lossy(&buf).into_owned()
        }
        OutputFormat::Jsonl => {
            String::from_utf8_lossy(&json_text::<arrow::json::writer::LineDelimited>(&batches)?)
                .into_owned()
        }
        OutputFormat::Parquet(path) => {
            let mut w = crate::store::AtomicParquet::create(path, Arc::clone(&schema))?;
            for b in &batches {
                w.write(b)?;
            }
            let written = w.finish()?;
            return Ok(SqlOutput {
                rows,
                text: String::new(),
                parquet: Some(written),
            });
        }
    };
    Ok(SqlOutput {
        rows,
        text,
        parquet: None,
    })
}
