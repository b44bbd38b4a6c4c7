//! Any program and question: parsing, alignment and validation reject or accept, never panic, and
//! an accepted program evaluates on its own numbers and survives a JSON round trip.
#![no_main]

use advmath_core::program::{validate_program, AlignMode, Program};
use advmath_core::question::find_slots;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The question comes first, then a NUL, then the program.
    let (question, source) = text.split_once('\0').unwrap_or(("", text));
    let slots = find_slots(question);
    for mode in [AlignMode::Given, AlignMode::Synthesised] {
        if let Ok(program) = validate_program(source, question, &slots, None, mode) {
            let json = program.to_json();
            let back = Program::from_json(&json).expect("own JSON reads back");
            assert_eq!(back.to_json(), json);
        }
    }
});
