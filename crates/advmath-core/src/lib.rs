//! advmath's pure core: everything that turns a problem into variants, a reply into an answer and
//! a solution tree into features, with no storage, query engine or network behind it.
//!
//! - [`num`]: exact rational numbers and the decimal text they are read from and written as;
//! - [`question`]: the number slots of a question and rendering it with new numbers;
//! - [`program`]: solution programs parsed (never executed) into trees over the slots;
//! - [`synth`]: programs synthesised from worked solutions (calculator annotations, equations);
//! - [`attack`]: the numeric attacks M1–M3 and ArithmAttack's punctuation noise;
//! - [`extract`]: the final answer of a model's reply;
//! - [`feature_sets`]: the feature sets of the feature study;
//! - [`vocab`]: the names shared by every table: attacks and models;
//! - [`seed`]: the seeded streams every random choice draws from.

pub mod agreement;
pub mod attack;
pub mod extract;
pub mod feature_sets;
pub mod num;
pub mod program;
pub mod question;
pub mod seed;
pub mod synth;
pub mod vocab;
