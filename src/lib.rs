//! advmath: adversarial math-word-problem datasets on Arrow.
//!
//! Stages, one module each: [`ingest`] problems and their solution programs, [`program`] trees
//! (parsed, never executed), [`synth`]esised programs from worked solutions, and the Parquet
//! [`table`]s whose [`schema`]s are defined in one place. [`pipeline`] strings them together for the
//! command line.

pub mod error;
pub mod features;
pub mod generate;
pub mod ingest;
pub mod metrics;
pub mod output;
pub mod pipeline;
pub mod plot;
pub mod publish;
pub mod regress;
pub mod respond;
pub mod store;

pub use advmath_core::{extract, num, program, question, seed, synth, vocab};

pub use error::{Error, Result};
