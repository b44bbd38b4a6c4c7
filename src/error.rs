//! The library's error type: one enum, the store's errors wrapped whole beside the engine's own
//! (the query engine, users' tables, models' servers, object storage).
//!
//! A variant that wraps another error names only its own context and exposes the wrapped error
//! as its `source()`, so that printing the chain (`{:#}` on an `anyhow::Error`, as the binary
//! does) shows each cause once: `out/tables/problems: No such file or directory (os error 2)`.

use std::path::PathBuf;

pub use advmath_store::ColumnProblem;

/// Every fallible library call returns this.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing the tables folder or a file: the store's errors, shown as they are.
    #[error(transparent)]
    Store(advmath_store::Error),
    #[error("Polars error")]
    Polars(#[from] polars::error::PolarsError),
    /// A SQL query failed: malformed or unplannable (exit 2) or failing on the data (exit 1).
    #[error("SQL")]
    DataFusion(#[from] datafusion::error::DataFusionError),
    /// A line of a JSON Lines file does not parse.
    #[error("{}: line {line}: malformed JSON", file.display())]
    JsonLine {
        file: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    /// The query engine cannot register a table or view of a tables folder.
    #[error("{}: cannot register `{name}`", dir.display())]
    Register {
        name: String,
        dir: PathBuf,
        #[source]
        source: datafusion::error::DataFusionError,
    },
    /// A figure cannot be drawn.
    #[error("{}: cannot draw the plot", path.display())]
    Plot {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A tabular input (CSV, JSON Lines, Parquet) cannot be read as a table.
    #[error("{}: cannot be read as a table", file.display())]
    ReadTable {
        file: PathBuf,
        #[source]
        source: polars::error::PolarsError,
    },
    /// A query that cannot run as written: its syntax, or a table it names that is not there.
    /// `hint` says what to do.
    #[error("{reason}; {hint}")]
    BadQuery { reason: String, hint: String },
    /// A query ran past its time bound.
    #[error("the query ran longer than {} s (its time limit)", limit.as_secs_f64())]
    QueryTimeout { limit: std::time::Duration },
    /// A query needed more memory than its bound.
    #[error("the query needs more than its memory limit of {limit} bytes")]
    QueryMemory {
        limit: usize,
        #[source]
        source: Option<datafusion::error::DataFusionError>,
    },
    /// A metric file's query hit a bound (time or memory): which metric, and the bound.
    #[error("metric {metric} ({origin})")]
    MetricQuery {
        metric: String,
        origin: String,
        #[source]
        source: Box<Error>,
    },
    /// No server answers at an endpoint's URL.
    #[error(
        "{url}: no server answers there ({reason}); check that the server is running, and the host, port and scheme given to --endpoint"
    )]
    Unreachable { url: String, reason: String },
    /// A setting of a config is out of its range or conflicts with another, named as the config
    /// field (`variants`, `top_problems`); the command line shows it as its flag.
    #[error("setting `{setting}` {problem}")]
    Setting {
        setting: &'static str,
        problem: String,
    },
    /// An object store request failed (unreachable, denied, missing bucket).
    #[error("{url}: cannot {action}")]
    Remote {
        url: String,
        action: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Units of a stage's work (problems, rows) failed with an internal error; every other unit's
    /// output was written. `failed` holds each unit's name and reason.
    #[error("{stage}: {} failed with an internal error, and everything else was written: {}", count(failed.len(), unit), list_failed(failed))]
    UnitsFailed {
        stage: &'static str,
        /// What one unit is (`problem`, `row`, `variant`).
        unit: &'static str,
        failed: Vec<(String, String)>,
    },
    /// An object changed under a reader: another writer is pushing to the same place, or died
    /// while pushing.
    #[error("{url}: {key} changed since its manifest was written ({reason}); another advmath is pushing there, or died pushing: rerun its command")]
    RemoteChanged {
        url: String,
        key: String,
        reason: String,
    },
}

impl Error {
    /// A [`advmath_store::Error::MissingTable`].
    pub fn missing_table(
        table: &'static str,
        dir: impl Into<PathBuf>,
        made_by: &'static str,
    ) -> Self {
        advmath_store::Error::missing_table(table, dir, made_by).into()
    }

    /// A [`advmath_store::Error::InvalidInput`].
    pub fn invalid(path: impl std::fmt::Display, reason: impl Into<String>) -> Self {
        advmath_store::Error::invalid(path, reason).into()
    }

    /// A [`advmath_store::Error::File`].
    pub fn file(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        advmath_store::Error::file(path, source).into()
    }

    /// A [`advmath_store::Error::Usage`].
    pub fn usage(message: impl Into<String>) -> Self {
        advmath_store::Error::Usage(message.into()).into()
    }

    /// A [`Error::Setting`].
    pub fn setting(setting: &'static str, problem: impl Into<String>) -> Error {
        Error::Setting {
            setting,
            problem: problem.into(),
        }
    }

    /// Exit code convention: 1 for data or validation failures, 2 for usage and internal errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Store(e) => e.exit_code(),
            Error::MetricQuery { source, .. } => source.exit_code(),
            Error::BadQuery { .. } | Error::Setting { .. } => 2,
            Error::JsonLine { .. }
            | Error::ReadTable { .. }
            | Error::Unreachable { .. }
            | Error::QueryTimeout { .. }
            | Error::QueryMemory { .. }
            | Error::Register { .. }
            | Error::Plot { .. }
            | Error::Remote { .. }
            | Error::RemoteChanged { .. }
            | Error::UnitsFailed { .. } => 1,
            Error::Polars(_) => 1,
            Error::DataFusion(e) if is_query_error(e) => 2,
            Error::DataFusion(_) => 1,
        }
    }
}

impl From<advmath_store::Error> for Error {
    /// An error this crate raised in a hook of the store's comes back as itself.
    fn from(e: advmath_store::Error) -> Self {
        match e {
            advmath_store::Error::Above(above) => match above.downcast::<Error>() {
                Ok(own) => *own,
                Err(other) => Error::Store(advmath_store::Error::Above(other)),
            },
            e => Error::Store(e),
        }
    }
}

impl From<Error> for advmath_store::Error {
    /// This crate's error raised inside a hook of the store's (the inverse of the above).
    fn from(e: Error) -> Self {
        match e {
            Error::Store(e) => e,
            e => advmath_store::Error::Above(Box::new(e)),
        }
    }
}

/// The errors of the I/O layers convert as the store's do, so that `?` on them works here too.
macro_rules! through_the_store {
    ($($from:ty),*) => {$(
        impl From<$from> for Error {
            fn from(e: $from) -> Self {
                Error::Store(e.into())
            }
        }
    )*};
}
through_the_store!(
    std::io::Error,
    arrow::error::ArrowError,
    parquet::errors::ParquetError,
    serde_json::Error
);

/// Whether a DataFusion error is the user's (a malformed or unplannable query) rather than the
/// data's: a usage error, not a data failure.
pub fn is_query_error(e: &datafusion::error::DataFusionError) -> bool {
    use datafusion::error::DataFusionError;
    matches!(
        e.find_root(),
        DataFusionError::SQL(..)
            | DataFusionError::Plan(_)
            | DataFusionError::SchemaError(..)
            | DataFusionError::NotImplemented(_)
            | DataFusionError::Configuration(_)
            | DataFusionError::Internal(_)
    )
}

fn count(n: usize, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// The failed units, the first few in full: a run over a broken build could fail thousands.
fn list_failed(failed: &[(String, String)]) -> String {
    const SHOWN: usize = 5;
    let mut out: Vec<String> = failed
        .iter()
        .take(SHOWN)
        .map(|(unit, reason)| format!("{unit} ({reason})"))
        .collect();
    if failed.len() > SHOWN {
        out.push(format!("and {} more", failed.len() - SHOWN));
    }
    out.join("; ")
}
