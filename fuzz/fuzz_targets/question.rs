//! Any question text: its number slots are found without panicking, and filling the template with
//! the slots' own texts gives the question back.
#![no_main]

use advmath_core::question::rendering::{render, template};
use advmath_core::question::{find_slots, word_numbers};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let slots = find_slots(&text);
    let own: Vec<String> = slots
        .iter()
        .map(|s| text[s.start..s.end].to_string())
        .collect();
    assert_eq!(render(&template(&text, &slots), &own), text);
    let _ = word_numbers(&text);
});
