//! The tables folder, and everything about how advmath's tables are laid out in it.
//!
//! A table lives under a root folder (`--tables`, `out/tables` by default) at a relative key: a
//! folder named after the table, hive partitions `key=value` below it where the table has them,
//! and Parquet parts. Each table has one file here holding its location pattern, its Arrow schema,
//! its column descriptions and its row <-> batch codec; the stages ask these files for paths and
//! batches and never spell a path or a column order themselves. [`parquet`] is the one place that
//! reads and writes Parquet (atomically) and lists part files and partitions.

pub mod annotations;
pub mod coefficients;
mod columns;
pub mod commit;
pub mod compact;
pub mod doc;
pub mod efficient_responses;
pub mod fault;
pub mod features;
pub mod generation_stats;
pub mod hub;
pub mod location;
pub mod lock;
pub mod mirror;
pub mod parquet;
pub mod problems;
pub mod responses;
pub mod runs;
pub mod variants;

use std::fs;
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;

pub use parquet::{
    is_parquet, numbered_parts, parquet_files_under, partitions, read_batches, read_columns,
    swap_in, table_entries, text_column, tmp_path, write_batch, write_text, writer_properties,
    AtomicParquet, TableFile, PARQUET_EXT, ROW_GROUP_ROWS,
};

/// The output folder of every command left to its defaults: `run --out`, and the parent of every
/// other command's tables and reports.
pub const DEFAULT_OUT: &str = "out";

/// `<out>/tables`: the tables folder of an output folder.
pub fn tables_dir(out: &Path) -> PathBuf {
    out.join("tables")
}

/// `<out>/reports`: where the reports of an output folder go.
pub fn reports_dir(out: &Path) -> PathBuf {
    out.join("reports")
}

/// The tables folder of every command but `run` (`run` puts it under its `--out`).
pub fn default_tables() -> PathBuf {
    tables_dir(Path::new(DEFAULT_OUT))
}

/// A name made safe as one path component: anything but ASCII letters, digits, `-` and `_`
/// becomes `_`.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Remove what dead runs of a stage left directly in `dir`: staging folders named
/// `<staging_prefix><pid>` (when a prefix is given) that hold no journal, and half-written `*.tmp`
/// files. Call it holding the stage's writer lock, so that no live run of the stage owns them.
/// Returns how many were removed.
pub fn remove_leftovers(dir: &Path, staging_prefix: Option<&str>) -> crate::error::Result<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(0);
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let staging = staging_prefix.is_some_and(|prefix| is_staging_of(&name, prefix));
        // A staging folder holding a journal is a decided switch: the next switch lock
        // finishes it, so it is never thrown away.
        let decided = path.join(commit::JOURNAL).is_file();
        let result = if staging && path.is_dir() && !decided {
            std::fs::remove_dir_all(&path)
        } else if name.ends_with(".tmp") && path.is_file() {
            std::fs::remove_file(&path)
        } else {
            continue;
        };
        result.map_err(|e| crate::error::Error::file(&path, e))?;
        removed += 1;
    }
    Ok(removed)
}

/// Whether `name` is a staging folder `<prefix><pid>` of a run of some process.
pub fn is_staging_of(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Where `path` will be once written: its nearest existing ancestor resolved (symlinks
/// followed), the rest normalised as the writer's `create_dir_all` will walk it (`a/missing/../b`
/// is `a/b`). Output guards compare these, so no missing folder, `..` or symlink slips past them.
pub fn resolved(path: &Path) -> crate::error::Result<PathBuf> {
    let absolute = std::path::absolute(path).map_err(|e| crate::error::Error::file(path, e))?;
    let mut existing = absolute.as_path();
    while fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(parent) => existing = parent,
            None => break,
        }
    }
    let mut out = existing
        .canonicalize()
        .map_err(|e| crate::error::Error::file(existing, e))?;
    for c in absolute
        .strip_prefix(existing)
        .unwrap_or(Path::new(""))
        .components()
    {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    Ok(out)
}

/// `<dir>/<key>=<value>`: one hive partition folder.
pub fn hive_dir(dir: &Path, key: &str, value: &str) -> PathBuf {
    dir.join(format!("{key}={value}"))
}

/// The `n`th part file of a folder written whole by one stage.
pub fn part_file(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("part-{n}{PARQUET_EXT}"))
}

/// How a table is laid out under `tables/`.
#[derive(Debug, Clone, Copy)]
pub struct TableLayout {
    pub name: &'static str,
    /// Hive partition columns, outermost first (they are in the path, not in the files).
    pub partitions: &'static [&'static str],
    /// The expected file layout, for messages.
    pub pattern: &'static str,
    /// Made only by some runs: when absent it is registered empty (its schema, no row), so a
    /// metric over it gives no row instead of an error.
    pub optional: Option<fn() -> SchemaRef>,
}

/// Every table advmath knows.
pub const TABLE_LAYOUTS: &[TableLayout] = &[
    TableLayout {
        name: "problems",
        partitions: &[],
        pattern: "problems/<dataset>__<split>.parquet",
        optional: None,
    },
    TableLayout {
        name: "variants",
        partitions: &["dataset", "attack"],
        pattern: "variants/dataset=<d>/attack=<a>/part-N.parquet",
        optional: None,
    },
    TableLayout {
        name: "generation_stats",
        partitions: &["dataset"],
        pattern: "generation_stats/dataset=<d>/part-0.parquet",
        optional: None,
    },
    TableLayout {
        name: "responses",
        partitions: &[],
        pattern: "responses/<model-folder>/part-*.parquet",
        optional: None,
    },
    TableLayout {
        name: "features",
        partitions: &["dataset", "attack"],
        pattern: "features/dataset=<d>/attack=<a>/part-0.parquet",
        optional: None,
    },
    TableLayout {
        name: "coefficients",
        partitions: &[],
        pattern: "coefficients/part-0.parquet",
        optional: None,
    },
    TableLayout {
        name: "efficient_responses",
        partitions: &[],
        pattern: "efficient_responses/<target-folder>/part-*.parquet",
        optional: Some(efficient_responses::schema),
    },
    TableLayout {
        name: "annotations",
        partitions: &[],
        pattern: "annotations/<kind>/<sheet>.parquet",
        optional: Some(annotations::schema),
    },
];

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::Schema;

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
            (variants::schema(), vec!["dataset", "attack"]),
            (generation_stats::schema(), vec!["dataset"]),
            (responses::schema(), vec![]),
            (features::advmath_schema(), vec!["dataset", "attack"]),
            (features::xie2024_schema(), vec!["dataset", "attack"]),
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
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tables.md");
        let expected = doc::tables_markdown();
        if std::env::var_os("ADVMATH_UPDATE_DOCS").is_some() {
            std::fs::write(&path, &expected).unwrap();
        }
        let found = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            found == expected,
            "{} differs from the store's column docs: rerun with ADVMATH_UPDATE_DOCS=1",
            path.display()
        );
    }
}
