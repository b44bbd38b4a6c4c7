//! No code: this crate exists for its `Cargo.toml`, which names the features the test build turns
//! on in dependencies the default build also compiles, so that both compile each of them once.
