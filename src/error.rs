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
    /// The input as a whole cannot be used (empty file, unknown layout, missing column).
    #[error("{path}: {reason}")]
    InvalidInput { path: String, reason: String },
    /// A user-facing argument is out of range or inconsistent.
    #[error("{0}")]
    Usage(String),
}

impl Error {
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
            Error::Usage(_) => 2,
            Error::InvalidInput { .. } | Error::Json(_) | Error::File { .. } => 1,
            Error::Polars(_) => 1,
            Error::DataFusion(e) if crate::metrics::is_query_error(e) => 2,
            Error::DataFusion(_) => 1,
            Error::Io(_) | Error::Arrow(_) | Error::Parquet(_) => 2,
        }
    }
}
