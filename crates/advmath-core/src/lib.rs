//! advmath's pure core: everything that turns a problem into variants, a reply into an answer and
//! a solution tree into features, with no storage, query engine or network behind it.
//!
//! - [`num`]: exact rational numbers and the decimal text they are read from and written as;
//! - [`question`]: the number slots of a question and rendering it with new numbers;
//! - [`program`]: solution programs parsed (never executed) into trees over the slots;
//! - [`synth`]: programs synthesised from worked solutions (calculator annotations, equations);
//! - [`published`]: model-written programs as other projects released them (ToRA, PoT, PAL in
//!   GSM-Hard), read into candidate programs and the problems they answer;
//! - [`attack`]: the numeric attacks M1–M3 and ArithmAttack's punctuation noise;
//! - [`extract`]: the final answer of a model's reply;
//! - [`feature_sets`]: the feature sets of the feature study;
//! - [`vocab`]: the names shared by every table: attacks and models;
//! - [`seed`]: the seeded streams every random choice draws from;
//! - [`fuzz_checks`]: the properties the fuzz targets under `fuzz/` assert, one function each;
//! - [`cut`]: text cut at byte positions without ever cutting a character in two.

pub mod agreement;
pub mod attack;
pub mod cut;
pub mod extract;
pub mod feature_sets;
pub mod fuzz_checks;
pub mod num;
pub mod program;
pub mod published;
pub mod question;
pub mod seed;
pub mod synth;
pub mod vocab;

#[cfg(test)]
mod unicode_tests;
