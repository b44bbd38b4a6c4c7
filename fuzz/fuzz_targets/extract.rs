//! Any text a model may write: extraction and the abstention reader never panic, only a miss
//! carries no value, a found number or abstention is written in the reply, and a number is graded
//! without panicking.
//!
//! The property lives in `advmath_core::fuzz_checks::extract`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::extract(data));
