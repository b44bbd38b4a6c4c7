//! advmath's tables folder: every table's location, schema, column docs and row <-> batch codec,
//! and the durable file steps that write them (atomic files, locks, switching a stage's outputs in
//! whole, compaction). It knows nothing of query engines, object storage or models: the engine
//! (the `advmath` crate) reads and writes through it, and Cargo keeps it from reaching back up.
//!
//! A table lives under a root folder (`--tables`, `out/tables` by default) at a relative key: a
//! folder named after the table, hive partitions `key=value` below it where the table has them,
//! and Parquet parts. Each table has one file here holding its location pattern, its Arrow schema,
//! its column descriptions and its row <-> batch codec; the stages ask these files for paths and
//! batches and never spell a path or a column order themselves.
//!
//! The floor plan, bottom up (each module imports only those below it, by name; this file only
//! declares and re-exports, and `tests/cli/layers.rs` checks the map): the errors ([`Error`]) and [`note`];
//! [`atomic`] (the durable file steps), [`machine`] (this host and whether a process of it runs),
//! [`paths`] (names and paths) and [`layout`] (which tables exist); [`parquet`] (the one place
//! that reads and writes Parquet and lists parts and partitions), [`lock`] and [`commit`]
//! (switching a stage's outputs in whole); the tables' own files; then [`foreign`] and
//! [`compact`]. Object storage and query sessions sit above this crate, in the engine.

pub mod annotations;
pub mod atomic;
pub mod candidate_programs;
pub mod coefficients;
pub mod columns;
pub mod commit;
pub mod compact;
pub mod doc;
pub mod efficient_responses;
mod error;
pub mod fault;
pub mod feature_tables;
pub mod foreign;
pub mod generation_stats;
pub mod layout;
pub mod lock;
pub mod machine;
pub mod note;
pub mod parquet;
pub mod paths;
pub mod problems;
pub mod reply_merge;
pub mod responses;
pub mod runs;
pub mod variants;

pub use atomic::{tmp_path, write_text};
pub use commit::{remove_leftovers, swap_in};
pub use error::{ColumnProblem, Error, Result};
pub use layout::{TableLayout, TABLE_LAYOUTS};
pub use parquet::{
    is_parquet, parquet_files_under, partitions, parts, read_batches, read_columns, table_entries,
    text_column, write_batch, writer_properties, AtomicParquet, TableFile, ROW_GROUP_ROWS,
};
pub use paths::{
    default_tables, guard_writes_below, hive_dir, is_staging_of, name_component, name_of,
    part_file, refuse_links, refuse_output_inside, reports_dir, resolved, tables_dir, DEFAULT_OUT,
    PARQUET_EXT,
};

/// Columns a table gained after parts of it were written, which a reader of older parts sees
/// as null: a query engine registers the table with them added when no part has them, so that
/// the shared views over it read older tables too.
pub fn later_columns(layout: &TableLayout) -> Vec<arrow::datatypes::Field> {
    match layout.name {
        "responses" => responses::later_columns(),
        _ => Vec::new(),
    }
}

/// The schema an optional table (made only by some runs) is registered with when absent, so
/// that a metric over it gives no row instead of an error.
pub fn optional_schema(layout: &TableLayout) -> Option<arrow::datatypes::SchemaRef> {
    match layout.name {
        "efficient_responses" => Some(efficient_responses::schema()),
        "annotations" => Some(annotations::schema()),
        "candidate_programs" => Some(candidate_programs::schema()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::{Schema, SchemaRef};

    use super::*;

    /// The columns `efficient_responses` adds (the others are documented with `responses`).
    fn efficient_only() -> SchemaRef {
        let base = responses::schema().fields().len();
        Arc::new(Schema::new(
            efficient_responses::schema().fields()[base..]
                .iter()
                .map(|f| f.as_ref().clone())
                .collect::<Vec<_>>(),
        ))
    }

    /// The tables' reference documents every column, in schema order.
    #[test]
    fn the_reference_documents_every_column() {
        let reference = doc::tables_markdown();
        let readme = reference.as_str();
        for (schema, partition) in [
            (problems::schema(), vec![]),
            (candidate_programs::schema(), vec![]),
            (variants::schema(), vec!["dataset", "attack"]),
            (generation_stats::schema(), vec!["dataset"]),
            (responses::schema(), vec![]),
            (feature_tables::advmath_schema(), vec!["dataset", "attack"]),
            (feature_tables::xie2024_schema(), vec!["dataset", "attack"]),
            (coefficients::schema(), vec![]),
            (efficient_only(), vec![]),
            (annotations::schema(), vec![]),
        ] {
            let mut at = 0;
            let names: Vec<String> = partition
                .iter()
                .map(|s| s.to_string())
                .chain(schema.fields().iter().map(|f| f.name().clone()))
                .filter(|n| !n.starts_with("rejected_"))
                .collect();
            for name in names {
                let needle = format!("| {name} |");
                let found = readme[at..].find(&needle);
                assert!(
                    found.is_some(),
                    "the reference lacks column {name} (after byte {at})"
                );
                at += found.unwrap();
            }
        }
    }

    /// `docs/tables.md` is the reference as the store's docs write it (rewritten with
    /// `ADVMATH_UPDATE_DOCS=1`), so the published docs cannot drift from the schemas.
    #[test]
    fn docs_tables_md_is_written_from_the_column_docs() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tables.md");
        let expected = doc::tables_markdown();
        let found = std::fs::read_to_string(&path).unwrap_or_default();
        // The SQL views' section after the marker is the root crate's to write.
        let (tables, views) = match found.find("\n<!-- views:") {
            Some(at) => found.split_at(at),
            None => (found.as_str(), ""),
        };
        if std::env::var_os("ADVMATH_UPDATE_DOCS").is_some() {
            std::fs::write(&path, format!("{expected}{views}")).unwrap();
        }
        assert!(
            tables == expected || std::env::var_os("ADVMATH_UPDATE_DOCS").is_some(),
            "{} differs from the store's column docs: rerun with ADVMATH_UPDATE_DOCS=1",
            path.display()
        );
    }
}
