//! Any decimal text: a parsed number's canonical text parses back to it (exactly up to 12
//! decimal places, rounded to 6 past them).
//!
//! The property lives in `advmath_core::fuzz_checks::number`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::number(data));
