//! Any text a model may write: extraction never panics, only a miss carries no value, a found
//! number is written in the reply and is graded without panicking.
//!
//! The property lives in `advmath_core::fuzz_checks::extract`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::extract(data));
