//! The tables folder as the stages see it: the `advmath-store` crate (every table's location,
//! schema and codec, and the durable file steps), re-exported here so that the code says
//! `crate::store::…` for all of it, and above it what needs the network or a query engine's view:
//! [`location`] (where tables live: a folder or a bucket), [`mirror`] (a bucket's tables mirrored
//! in a local folder, pulled and pushed whole), [`places`] (a command's remote paths made local)
//! and [`sessions`] (the committed objects a query session pinned).
//!
//! Cargo holds the line between the two: the store crate cannot name anything of these modules.

pub use advmath_store::*;

pub mod location;
pub mod mirror;
pub mod places;
pub mod sessions;
