//! Any text a model may write: extraction never panics, a miss carries no value, and whatever is
//! found is graded without panicking.
#![no_main]

use advmath_core::extract::{extract, extract_last_number, is_correct, is_correct_exact, Rule};
use advmath_core::num::Num;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for found in [extract(&text), extract_last_number(&text)] {
        assert_eq!(found.rule == Rule::Miss, found.value.is_none(), "{found:?}");
        if let Some(v) = found.value {
            let _ = is_correct(Some(v), Num::int(42));
            let _ = is_correct_exact(Some(v), v);
        }
    }
});
