//! Any question text: rendered with agreement and its own numbers it comes back unchanged, and
//! rendering with every count crossing one never panics.
//!
//! The property lives in `advmath_core::fuzz_checks::agreement`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::agreement(data));
