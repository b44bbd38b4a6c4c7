//! The store's error type: what can go wrong reading and writing the tables folder and the files
//! around it. The engine's error wraps it whole (`advmath::Error::Store`), so a message reads the
//! same whichever layer returns it.
//!
//! A variant that wraps another error names only its own context and exposes the wrapped error
//! as its `source()`, so that printing the chain shows each cause once:
//! `out/tables/problems: No such file or directory (os error 2)`.

use std::path::PathBuf;

/// Every fallible call of the store returns this.
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
    #[error("JSON error")]
    Json(#[from] serde_json::Error),
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
    /// The input as a whole cannot be used (empty file, unknown layout).
    #[error("{path}: {reason}")]
    InvalidInput { path: String, reason: String },
    /// A user-facing argument is out of range or inconsistent.
    #[error("{0}")]
    Usage(String),
    /// An error of a layer above the store, raised in a hook that layer installed (the lease a
    /// writer lock takes on a bucket's copy). That layer unwraps it again; shown as it is.
    #[error(transparent)]
    Above(Box<dyn std::error::Error + Send + Sync>),
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

    /// Exit code convention: 1 for data or validation failures, 2 for usage and internal errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_)
            | Error::OutputInsideTables { .. }
            | Error::OutputHoldsTables { .. }
            | Error::Locked { .. } => 2,
            Error::InvalidInput { .. }
            | Error::MissingTable { .. }
            | Error::BadColumn { .. }
            | Error::LinkInTable { .. }
            | Error::WriteThroughLink { .. }
            | Error::Json(_)
            | Error::File { .. } => 1,
            Error::Io(_) | Error::Arrow(_) | Error::Parquet(_) | Error::Above(_) => 2,
        }
    }
}
