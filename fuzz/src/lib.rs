//! The parsing modules of advmath, compiled from the project's own source files so that the fuzz
//! targets build without polars and DataFusion (see Cargo.toml). `crate::num` and
//! `crate::question` resolve here exactly as they do in the advmath crate.

#[path = "../../src/extract/mod.rs"]
pub mod extract;
#[path = "../../src/num.rs"]
pub mod num;
#[path = "../../src/program/mod.rs"]
pub mod program;
#[path = "../../src/question.rs"]
pub mod question;
