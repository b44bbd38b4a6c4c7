//! Variant generation's pure half: the numeric attacks' sampler ([`sample`]) with a reader's
//! rules beside the paper's constraints ([`coherence`]), ArithmAttack's punctuation noise
//! ([`noise`]), and the guided attack's ranking of M3's candidates ([`guided`]). Reading problems and writing the `variants` table is the
//! engine crate's `generate` stage.

pub mod coherence;
pub mod guided;
pub mod noise;
pub mod sample;
pub mod text;
