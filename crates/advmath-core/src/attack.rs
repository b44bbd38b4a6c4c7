//! Variant generation's pure half: the numeric attacks' sampler ([`sample`]) and ArithmAttack's
//! punctuation noise ([`noise`]). Reading problems and writing the `variants` table is the
//! engine crate's `generate` stage.

pub mod noise;
pub mod sample;
