//! Any question text: its slots are found in order on character boundaries, and the template
//! filled with the slots' own texts gives the question back.
//!
//! The property lives in `advmath_core::fuzz_checks::question`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::question(data));
