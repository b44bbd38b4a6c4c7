//! advmath: adversarial math-word-problem datasets on Arrow.
//!
//! The pure parts (numbers, programs and trees, generation, noise, extraction, features) are the
//! `advmath-core` crate, re-exported here. This crate is the engine around them: the [`store`]
//! owns the tables folder (every table's location, schema and codec); one module per stage
//! ([`ingest`], [`generate`], [`respond`], [`features`], [`regress`], [`metrics`], [`publish`])
//! reads and writes through it; [`pipeline`] strings the stages together for `advmath run`.
//! [`cluster`] (the `cluster` feature) runs the SQL on a Ballista cluster.
//! [`output`] and [`plot`] write what people read, [`progress`] how far a stage is; [`input`] holds the limits every reader of
//! users' files applies; [`error`] is the one error type; [`contain`] makes a panic in one problem
//! or row that unit's failure instead of the stage's.

pub mod annotate;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod contain;
pub mod error;
pub mod features;
pub mod generate;
pub mod ingest;
pub mod input;
pub mod llm;
pub mod metrics;
pub mod output;
pub mod pipeline;
pub mod plot;
pub mod progress;
pub mod publish;
pub mod regress;
pub mod respond;
pub mod store;

// The core's modules under this crate's name, so that the code says `crate::num` everywhere and
// no module name means two things: the core's are named apart from the stages (`attack` beside
// the `generate` stage, `feature_sets` beside the `features` stage).
pub use advmath_core::{
    agreement, attack, cut, extract, feature_sets, num, program, published, question, seed, synth,
    vocab,
};

pub use error::{Error, Result};
