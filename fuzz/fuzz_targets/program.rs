//! Any question and program (`question NUL program`): parsing, alignment and validation accept
//! or reject, never panic; an accepted program is a tree over the question's slots, evaluates on
//! its numbers and survives a JSON round trip.
//!
//! The property lives in `advmath_core::fuzz_checks::program`, which `cargo test` also runs over a
//! corpus on the stable toolchain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| advmath_core::fuzz_checks::program(data));
