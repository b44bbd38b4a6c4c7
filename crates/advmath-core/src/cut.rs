//! Cutting text at byte positions without ever cutting a character in two.
//!
//! Questions, solutions and replies are any Unicode (curly quotes, dashes, accents, currency
//! signs, emoji, combining marks, other scripts' digits, no-break spaces), while the scanners
//! that find numbers and words step over their bytes. A position a scanner computes is a
//! character boundary when it comes from a `find`, from the end of a match, or from just after an
//! ASCII byte (no byte of a multi-byte character is ASCII); these helpers take such positions.
//! Should one ever fall inside a character or past the end, it is moved back to the boundary
//! before it (the end, past the end) instead of panicking; on a boundary they are exactly the
//! slice `s[..i]`, `s[i..]` or `s[a..b]`, so they change no output of text cut correctly.

/// The boundary of `s` at or before byte `i` (the length when `i` is past it).
pub fn floor_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    // At most 3 steps: a character is at most 4 bytes long, and 0 is a boundary.
    (0..=i).rev().find(|&k| s.is_char_boundary(k)).unwrap_or(0)
}

/// The boundary of `s` at or after byte `i` (the length when `i` is past it).
pub fn ceil_boundary(s: &str, i: usize) -> usize {
    (i..s.len())
        .find(|&k| s.is_char_boundary(k))
        .unwrap_or(s.len())
}

/// `s[..i]` and `s[i..]`, `i` moved back to a boundary if it is not one.
pub fn split(s: &str, i: usize) -> (&str, &str) {
    s.split_at_checked(i)
        .or_else(|| s.split_at_checked(floor_boundary(s, i)))
        .unwrap_or((s, ""))
}

/// `s[..i]`, `i` moved back to a boundary if it is not one.
pub fn before(s: &str, i: usize) -> &str {
    split(s, i).0
}

/// `s[i..]`, `i` moved back to a boundary if it is not one.
pub fn after(s: &str, i: usize) -> &str {
    split(s, i).1
}

/// `s[a..b]`, both moved back to boundaries if they are not; empty when `a` is past `b`.
pub fn between(s: &str, a: usize, b: usize) -> &str {
    let head = before(s, b);
    if a > head.len() {
        return "";
    }
    after(head, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_cut_as_slices_do() {
        let s = "a\u{410}b";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                assert_eq!(split(s, i), s.split_at(i));
            }
        }
        assert_eq!(between(s, 1, 3), "\u{410}");
        assert_eq!(between(s, 0, 4), s);
    }

    #[test]
    fn a_position_inside_a_character_moves_back_to_its_start() {
        let s = "a\u{410}b";
        assert_eq!(split(s, 2), ("a", "\u{410}b"));
        assert_eq!(between(s, 2, 3), "\u{410}");
        assert_eq!(between(s, 0, 2), "a");
        assert_eq!(ceil_boundary(s, 2), 3);
        assert_eq!(floor_boundary(s, 2), 1);
        // Past the end, or a start past the end: the end, and nothing.
        assert_eq!(split(s, 9), (s, ""));
        assert_eq!(between(s, 3, 1), "");
        assert_eq!(between(s, 7, 9), "");
    }
}
