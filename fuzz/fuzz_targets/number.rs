//! Any decimal text: a parsed number's canonical text parses back to it exactly when it has at
//! most 12 decimal places, and to it rounded to 6 places otherwise, as `Num`'s `Display` says
//! (only a value whose rounding does not fit 38 digits is printed through f64, approximately).
#![no_main]

use advmath_core::num::Num;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(n) = Num::parse_decimal(text) else {
        return;
    };
    let printed = n.to_string();
    let back = Num::parse_decimal(&printed);
    assert!(
        back.is_some(),
        "{text:?} printed as {printed:?}, which does not parse"
    );
    let expected = if n.decimal_parts(12).is_some() {
        Some(n)
    } else {
        n.round(6).ok().filter(|r| r.decimal_parts(6).is_some())
    };
    if expected.is_some() {
        assert_eq!(back, expected, "{text:?} printed as {printed:?}");
    }
});
