//! The decimal text of numbers: taking a literal apart (`1,200.50`, `1e3`) and writing the
//! canonical text (`Display`, [`format_fixed`]), shared by both number widths.

use std::fmt;

use super::{pow10, Num};

/// A decimal literal as written in a question or a program (`1,200`, `2.50`, `.5`, `-3`, `1e3`),
/// taken apart so that each number type builds its value from the digits.
pub(crate) struct DecimalLiteral {
    pub negative: bool,
    /// Every digit, separators dropped (`1,200.50` -> `120050`); never empty.
    pub digits: String,
    /// How many of the digits follow the decimal point.
    pub scale: i32,
    /// The `e` exponent (0 when none).
    pub exp: i32,
}

impl DecimalLiteral {
    pub fn lex(text: &str) -> Option<DecimalLiteral> {
        let t = text.trim();
        let (negative, t) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (mantissa, exp) = match t.split_once(['e', 'E']) {
            Some((mantissa, exp)) => (mantissa, exp.parse::<i32>().ok()?),
            None => (t, 0),
        };
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mut digits = String::with_capacity(mantissa.len());
        for c in int_part.chars() {
            match c {
                '0'..='9' => digits.push(c),
                ',' | '_' => {}
                _ => return None,
            }
        }
        let mut scale = 0;
        for c in frac_part.chars() {
            match c {
                '0'..='9' => {
                    digits.push(c);
                    scale += 1;
                }
                '_' => {}
                _ => return None,
            }
        }
        if digits.is_empty() {
            return None;
        }
        Some(DecimalLiteral {
            negative,
            digits,
            scale,
            exp,
        })
    }

    /// The power of ten the digits are scaled by.
    pub fn exponent(&self) -> i32 {
        self.exp.saturating_sub(self.scale)
    }
}

impl fmt::Display for Num {
    /// Canonical text: integers without a decimal point, terminating decimals in full (up to 12
    /// places), anything else rounded to 6 decimals with trailing zeros removed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Num::Ratio { n, d: 1 } => write!(f, "{n}"),
            Num::Ratio { .. } => match self.decimal_parts(12) {
                Some((m, e)) => f.write_str(&format_scaled(m, e)),
                None => f.write_str(&format_fixed(*self, 6)),
            },
            Num::Float(x) if x.fract() == 0.0 && x.abs() < 1e18 => write!(f, "{}", x as i128),
            Num::Float(_) => f.write_str(&format_fixed(*self, 6)),
        }
    }
}

/// `m * 10^e` as plain decimal text.
fn format_scaled(m: i128, e: i32) -> String {
    if e >= 0 {
        return format!("{}", m * pow10(e as u32));
    }
    point_text(m < 0, &m.unsigned_abs().to_string(), (-e) as usize)
}

/// The digits of a magnitude with a decimal point `scale` places from the right (`"5", 3` is
/// `0.005`), and the sign.
pub(crate) fn point_text(negative: bool, digits: &str, scale: usize) -> String {
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale - digits.len() + 1))
    } else {
        digits.to_string()
    };
    let (i, frac) = padded.split_at(padded.len() - scale);
    format!("{}{i}.{frac}", if negative { "-" } else { "" })
}

/// Rounded (half even) to at most `places` decimals, trailing zeros trimmed.
pub fn format_fixed(x: Num, places: u32) -> String {
    let r = x.round(places as i32).unwrap_or(x);
    match r.decimal_parts(places) {
        Some((m, e)) => format_scaled(m, e),
        None => {
            let s = format!("{:.*}", places as usize, r.to_f64());
            let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
            if s == "-0" {
                "0".into()
            } else {
                s
            }
        }
    }
}
