//! The library's error type: one enum, `#[from]` conversions for the storage and I/O layers.
//!
//! A variant that wraps another error names only its own context and exposes the wrapped error
//! as its `source()`, so that printing the chain (`{:#}` on an `anyhow::Error`, as the binary
//! does) shows each cause once: `out/tables/problems: No such file or directory (os error 2)`.

use std::path::PathBuf;

/// Every fallible library call returns this.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("I/O error")]
    Io(#[from] std::io::Error),
    #[error("{}", path.display())]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("Arrow error")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("Parquet error")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("Polars error")]
    Polars(#[from] polars::error::PolarsError),
    #[error("JSON error")]
    Json(#[from] serde_json::Error),
    /// A SQL query failed: malformed or unplannable (exit 2) or failing on the data (exit 1).
    #[error("SQL")]
    DataFusion(#[from] datafusion::error::DataFusionError),
    /// A table a stage reads is absent, or its folder holds no part. `made_by` is the stage
    /// that writes it.
    #[error("{}: no {table} table (run `advmath {made_by}` first)", dir.display())]
    MissingTable {
        table: &'static str,
        dir: PathBuf,
        made_by: &'static str,
    },
    /// A column a reader needs is absent from a file, or holds another type.
    #[error("{}: {problem}", file.display())]
    BadColumn {
        file: PathBuf,
        problem: ColumnProblem,
    },
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
    /// Another process is writing what this one would write.
    #[error(
        "{stage} of {name:?} is being written by another process (pid {holder}); wait for it to end (lock: {})",
        path.display()
    )]
    Locked {
        stage: &'static str,
        name: String,
        holder: String,
        path: PathBuf,
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
    /// A query result would be written inside the tables folder it reads.
    #[error(
        "{}: inside the tables folder {}; a result written there would be read as table data",
        output.display(),
        tables.display()
    )]
    OutputInsideTables { output: PathBuf, tables: PathBuf },
    /// An output folder that a stage replaces whole holds the tables folder it reads.
    #[error(
        "{}: holds the tables folder {}; replacing it would destroy the tables",
        output.display(),
        tables.display()
    )]
    OutputHoldsTables { output: PathBuf, tables: PathBuf },
    /// A table folder holds a symbolic link. A tables folder is untrusted input: a link could
    /// lead a reader outside it or round in a loop, so every reader refuses it the same way.
    #[error(
        "{}: a symbolic link inside table `{table}` (to {}); tables are read only through real folders and files: replace the link with what it points to",
        link.display(),
        target.display()
    )]
    LinkInTable {
        table: String,
        link: PathBuf,
        target: PathBuf,
    },
    /// No server answers at an endpoint's URL.
    #[error(
        "{url}: no server answers there ({reason}); check that the server is running, and the host, port and scheme given to --endpoint"
    )]
    Unreachable { url: String, reason: String },
    /// A write would pass through a symbolic link below a folder the command writes: planted
    /// in a tables folder, it would steer the write outside.
    #[error(
        "{}: would be written through the symbolic link {} (to {}); advmath writes only through real folders and files below {}: replace the link with what it points to",
        path.display(),
        link.display(),
        target.display(),
        root.display()
    )]
    WriteThroughLink {
        path: PathBuf,
        link: PathBuf,
        target: PathBuf,
        root: PathBuf,
    },
    /// A setting of a config is out of its range or conflicts with another, named as the config
    /// field (`variants`, `top_problems`); the command line shows it as its flag.
    #[error("setting `{setting}` {problem}")]
    Setting {
        setting: &'static str,
        problem: String,
    },
    /// The input as a whole cannot be used (empty file, unknown layout).
    #[error("{path}: {reason}")]
    InvalidInput { path: String, reason: String },
    /// A user-facing argument is out of range or inconsistent.
    #[error("{0}")]
    Usage(String),
    /// An object store request failed (unreachable, denied, missing bucket).
    #[error("{url}: cannot {action}")]
    Remote {
        url: String,
        action: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
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

/// What is wrong with a column of a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ColumnProblem {
    #[error("no {column} column")]
    Missing { column: String },
    #[error("column {column} is {found}, expected {expected}")]
    WrongType {
        column: String,
        found: String,
        expected: &'static str,
    },
}

impl Error {
    pub fn missing_table(
        table: &'static str,
        dir: impl Into<PathBuf>,
        made_by: &'static str,
    ) -> Self {
        Error::MissingTable {
            table,
            dir: dir.into(),
            made_by,
        }
    }

    pub fn invalid(path: impl std::fmt::Display, reason: impl Into<String>) -> Self {
        Error::InvalidInput {
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    pub fn file(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::File {
            path: path.into(),
            source,
        }
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
            Error::MetricQuery { source, .. } => source.exit_code(),
            Error::Usage(_)
            | Error::BadQuery { .. }
            | Error::Setting { .. }
            | Error::OutputInsideTables { .. }
            | Error::OutputHoldsTables { .. }
            | Error::Locked { .. } => 2,
            Error::InvalidInput { .. }
            | Error::MissingTable { .. }
            | Error::BadColumn { .. }
            | Error::JsonLine { .. }
            | Error::ReadTable { .. }
            | Error::LinkInTable { .. }
            | Error::WriteThroughLink { .. }
            | Error::Unreachable { .. }
            | Error::QueryTimeout { .. }
            | Error::QueryMemory { .. }
            | Error::Register { .. }
            | Error::Plot { .. }
            | Error::Remote { .. }
            | Error::RemoteChanged { .. }
            | Error::Json(_)
            | Error::File { .. } => 1,
            Error::Polars(_) => 1,
            Error::DataFusion(e) if is_query_error(e) => 2,
            Error::DataFusion(_) => 1,
            Error::Io(_) | Error::Arrow(_) | Error::Parquet(_) => 2,
        }
    }
}

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
