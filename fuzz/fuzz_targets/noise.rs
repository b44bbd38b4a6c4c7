//! Any question text: punctuation noise only adds marks, as many as the count rule says.
//!
//! The property lives in `advmath_core::fuzz_checks::noise`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::noise(data));
