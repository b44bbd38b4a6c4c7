//! Numbers as a reply writes them, read exactly: integers with thousands groups, decimals,
//! scientific notation (`2.5e2`), plain and LaTeX fractions; each with its byte span.

use super::{is_list_marker, Token};
use crate::cut;
use crate::num::Num;

fn is_digit(b: Option<&u8>) -> bool {
    b.is_some_and(u8::is_ascii_digit)
}

fn digits_end(b: &[u8], mut i: usize) -> usize {
    while is_digit(b.get(i)) {
        i += 1;
    }
    i
}

/// The number whose text starts exactly at `start`, if any: an optional sign and currency sign,
/// digits with `,` thousands groups, decimals, scientific notation `1e3`, `a/b`, a mixed number
/// `1 1/2`, `\frac{a}{b}`, and a trailing `%`.
pub(super) fn number_at(text: &str, start: usize) -> Option<Token> {
    let b = text.as_bytes();
    let mut i = start;
    let mut neg = false;
    if b.get(i) == Some(&b'-') {
        neg = true;
        i += 1;
    } else if cut::after(text, i).starts_with('\u{2212}') {
        neg = true;
        i += '\u{2212}'.len_utf8();
    }
    if neg {
        // "3-5" is a range or a subtraction, never a negative five.
        let prev = cut::before(text, start).chars().next_back();
        if prev.is_some_and(|c| c.is_alphanumeric() || c == ')' || c == '.') {
            return None;
        }
    }
    if b.get(i) == Some(&b'$') {
        i += 1;
    } else if cut::after(text, i).starts_with("\\$") {
        i += 2;
    }
    if !neg && b.get(i) == Some(&b'-') && i > start {
        neg = true;
        i += 1;
    }
    let (value, mut end) = match latex_frac(text, i) {
        Some(frac) => frac,
        None => plain_number(text, i)?,
    };
    let after = cut::after(text, end);
    if after.starts_with('%') {
        end += 1;
    } else if after.starts_with("\\%") {
        end += 2;
    }
    let value = if neg { value.neg() } else { value };
    Some(Token { value, start, end })
}

/// Digits (with thousands groups and decimals), scientific notation `2.5e2`, a fraction `a/b` or
/// a mixed number `1 1/2`.
fn plain_number(text: &str, i: usize) -> Option<(Num, usize)> {
    let b = text.as_bytes();
    let int_end = digits_end(b, i);
    let mut end = int_end;
    // `1,234`: a comma followed by exactly three digits continues the number; `1, 2` does not.
    if end > i {
        while b.get(end) == Some(&b',') && digits_end(b, end + 1) == end + 4 {
            end += 4;
        }
    }
    let grouped = end != int_end;
    let mut decimal = false;
    if b.get(end) == Some(&b'.') && is_digit(b.get(end + 1)) {
        end = digits_end(b, end + 1);
        decimal = true;
    }
    if end == i {
        return None;
    }
    // Nobody writes `1,000e3`: a grouped number followed by `e` is a number and a word.
    if !grouped {
        if let Some(sci) = scientific(text, i, end) {
            return Some(sci);
        }
    }
    let whole = Num::parse_decimal(cut::between(text, i, end))?;
    if decimal || end != int_end {
        return Some((whole, end));
    }
    if let Some((den, fend)) = simple_fraction(text, end) {
        if let Ok(v) = whole.div(den) {
            return Some((v, fend));
        }
    }
    // A mixed number: `2 1/2` and `17\frac{1}{3}` are two and a half and seventeen and a third,
    // but only with a proper fraction (`3 12/4` is two numbers).
    let gap = usize::from(b.get(end) == Some(&b' '));
    let frac = latex_frac(text, end + gap).or_else(|| match gap {
        1 => simple_fraction_at(text, end + 1),
        _ => None,
    });
    if let Some((frac, fend)) = frac.filter(|(f, _)| f.is_proper_fraction()) {
        if let Ok(v) = whole.add(frac) {
            return Some((v, fend));
        }
    }
    Some((whole, end))
}

/// The mantissa `text[i..end]` with an exponent right after it (`1e3`, `2.5E+2`, `3e-2`): its
/// value and end. Read as a whole word only, so that "3eggs", "1e" and "2e3x" keep their plain
/// number instead of swallowing a letter of a word. Exact when the value fits a [`Num`] ratio; a
/// float past that (`2e40`), since taking the mantissa alone would be off by the whole power of
/// ten; the mantissa alone only when no float holds it either (`1e999`).
fn scientific(text: &str, i: usize, end: usize) -> Option<(Num, usize)> {
    let b = text.as_bytes();
    if !matches!(b.get(end), Some(b'e' | b'E')) {
        return None;
    }
    let mut j = end + 1;
    if matches!(b.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let exp_end = digits_end(b, j);
    if exp_end == j {
        return None;
    }
    let glued = cut::after(text, exp_end)
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    // `2e3.5` is no notation anyone writes; reading `2e3` would leave a stray `.5`.
    let fractional_exp = b.get(exp_end) == Some(&b'.') && is_digit(b.get(exp_end + 1));
    if glued || fractional_exp {
        return None;
    }
    let literal = cut::between(text, i, exp_end);
    let value = Num::parse_decimal(literal).or_else(|| {
        let x = literal.parse::<f64>().ok()?;
        Num::float(x).ok()
    })?;
    Some((value, exp_end))
}

/// `/d` right at `i` (after a numerator): the denominator and its end. `1/0` is no fraction.
fn simple_fraction(text: &str, i: usize) -> Option<(Num, usize)> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'/') {
        return None;
    }
    let dend = digits_end(b, i + 1);
    if dend == i + 1 || (b.get(dend) == Some(&b'.') && is_digit(b.get(dend + 1))) {
        return None;
    }
    let den = Num::parse_decimal(cut::between(text, i + 1, dend))?;
    if den.is_zero() {
        return None;
    }
    Some((den, dend))
}

/// `n/d` starting at `i`, as a value.
fn simple_fraction_at(text: &str, i: usize) -> Option<(Num, usize)> {
    let b = text.as_bytes();
    let nend = digits_end(b, i);
    if nend == i {
        return None;
    }
    let (den, dend) = simple_fraction(text, nend)?;
    let num = Num::parse_decimal(cut::between(text, i, nend))?;
    Some((num.div(den).ok()?, dend))
}

/// `\frac{a}{b}`, `\dfrac{a}{b}`, `\tfrac{a}{b}` and the brace-less `\frac12`.
fn latex_frac(text: &str, i: usize) -> Option<(Num, usize)> {
    let rest = cut::after(text, i);
    let after = ["\\frac", "\\dfrac", "\\tfrac"]
        .iter()
        .find_map(|p| rest.strip_prefix(p))?;
    let base = text.len() - after.len();
    let (num, e1) = frac_part(text, base)?;
    let (den, e2) = frac_part(text, e1)?;
    Some((num.div(den).ok()?, e2))
}

/// One argument of `\frac`: `{12}`, `{1,200}`, `{-3}` or a single digit.
fn frac_part(text: &str, i: usize) -> Option<(Num, usize)> {
    let b = text.as_bytes();
    let mut j = i;
    while b.get(j) == Some(&b' ') {
        j += 1;
    }
    if b.get(j) == Some(&b'{') {
        let (inner, _) = cut::after(text, j + 1).split_once('}')?;
        let close = j + 1 + inner.len();
        let inner = inner.trim();
        let inner = inner.strip_prefix("\\$").unwrap_or(inner);
        let v = Num::parse_decimal(inner)?;
        return Some((v, close + 1));
    }
    if is_digit(b.get(j)) {
        return Some((Num::int((b[j] - b'0') as i128), j + 1));
    }
    None
}

/// Every number of the text, in order, none overlapping; list markers (`3. Then ...`) are
/// enumerations, not quantities the model states.
pub(super) fn numbers(text: &str) -> Vec<Token> {
    numbers_in(text, 0, text.len())
}

pub(super) fn numbers_in(text: &str, from: usize, to: usize) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = from;
    while let Some(t) = next_number(text, i, to) {
        out.push(t);
        i = t.end;
    }
    out
}

/// The first number of `text[from..to]`.
pub(super) fn next_number(text: &str, from: usize, to: usize) -> Option<Token> {
    let b = text.as_bytes();
    let mut i = from;
    while i < to {
        let c = b[i];
        let starts = c.is_ascii_digit()
            || c == b'-'
            || c == b'$'
            || c == b'\\'
            || (c == 0xE2 && cut::after(text, i).starts_with('\u{2212}'));
        // A digit right after a digit or a decimal point continues something else: `1.5` must
        // not restart at `5`.
        if starts && (!c.is_ascii_digit() || i == 0 || !continues_token(b[i - 1])) {
            if let Some(t) = number_at(text, i).filter(|t| t.end <= to) {
                if !is_list_marker(text, t) {
                    return Some(t);
                }
                i = t.end;
                continue;
            }
        }
        i += cut::after(text, i).chars().next().map_or(1, char::len_utf8);
    }
    None
}

fn continues_token(prev: u8) -> bool {
    prev.is_ascii_digit() || prev == b'.'
}
