//! Xie et al.'s own answer reading, offered to grade responses exactly as their evaluation did.
//!
//! Their scorer takes the last match of the pattern `\d+\.?,?\d*` in the generation, keeps only its
//! digits and dots, drops a trailing dot and rounds to 2 decimals. It reads no sign, and it reads a
//! number with two thousands separators by its last group (`12,345,678` → `678`) or a decimal after
//! a separator by its fraction (`1,234.50` → `50`): those quirks are part of the figures the paper
//! reports, so they are reproduced, not repaired. advmath's [`super::extract`] is the default.
//!
//! Two deliberate differences, both documented in `reports/paper_fidelity.md`: the pattern is
//! applied to the model's reply only (the authors' files also held the prompt, whose last number
//! became the "answer" of a reply without one), and rounding is exact decimal rounding instead of
//! binary floating point.

use super::{assistant_text, Extracted, Rule};
use crate::num::Num;

/// The answer Xie et al.'s evaluation reads from a response.
pub fn extract_xie2024(response: &str) -> Extracted {
    let text = assistant_text(response);
    match last_match(&text) {
        Some(matched) => {
            let kept: String = matched
                .chars()
                .filter(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let kept = kept.strip_suffix('.').unwrap_or(&kept);
            let value =
                Num::parse_decimal(kept).or_else(|| kept.parse::<f64>().ok().map(Num::from_f64));
            Extracted {
                value,
                rule: if value.is_some() {
                    Rule::Xie2024Pattern
                } else {
                    Rule::Miss
                },
                text: Some(matched.to_string()),
            }
        }
        None => Extracted {
            value: None,
            rule: Rule::Miss,
            text: None,
        },
    }
}

/// The last non-overlapping, leftmost match of `\d+\.?,?\d*` (ASCII digits).
fn last_match(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let digits_from = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut last = None;
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = digits_from(i);
        if b.get(end) == Some(&b'.') {
            end += 1;
        }
        if b.get(end) == Some(&b',') {
            end += 1;
        }
        end = digits_from(end);
        last = Some(crate::cut::between(text, start, end));
        i = end;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<String> {
        extract_xie2024(text).value.map(|v| v.to_f64().to_string())
    }

    #[test]
    fn reads_the_last_match_with_the_authors_quirks() {
        // The stated answer does not matter: the last number wins.
        assert_eq!(read("the answer is 12. Check: 3 + 9").as_deref(), Some("9"));
        // No sign: -5 reads 5.
        assert_eq!(read("the answer is -5").as_deref(), Some("5"));
        // One separator is read whole; two leave the last group only.
        assert_eq!(read("the answer is 1,234").as_deref(), Some("1234"));
        assert_eq!(read("the answer is 12,345,678").as_deref(), Some("678"));
        // A decimal after a separator: only its fraction is matched last.
        assert_eq!(read("costs 1,234.50").as_deref(), Some("50"));
        // A sentence-ending dot is dropped; decimals are kept and rounded to 2 places on grading.
        assert_eq!(read("the answer is 42.").as_deref(), Some("42"));
        assert_eq!(read("the answer is 2.5").as_deref(), Some("2.5"));
        // "5,"  (a comma after the number) reads 5.
        assert_eq!(read("we get 5, done").as_deref(), Some("5"));
    }

    #[test]
    fn a_reply_without_digits_is_a_miss() {
        let e = extract_xie2024("I cannot tell.");
        assert_eq!(e.rule, Rule::Miss);
        assert_eq!(e.value, None);
    }

    #[test]
    fn grading_rounds_to_two_decimals() {
        let gold = Num::parse_decimal("3.333").unwrap();
        let e = extract_xie2024("so 3.33");
        assert!(super::super::is_correct(e.value, gold));
        assert_eq!(e.rule, Rule::Xie2024Pattern);
    }
}
