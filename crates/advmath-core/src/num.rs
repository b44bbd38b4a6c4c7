//! Exact numbers: rationals over `i128`; `f64` only for what is not rational (a square root of a
//! non-square, a fractional power). An exact result that leaves the `i128` range is an error
//! ([`EvalError::Overflow`]), never a float written as if it were exact; the evaluation of a
//! program is then redone with big integers ([`wide`]).
//!
//! "Is an integer" and "is a proper fraction" are node constraints of the attack, so they must be
//! exact: `0.1 + 0.2` is `3/10` here, never `0.30000000000000004`. The type is `Copy` and every
//! operation is allocation-free, because it sits in the generation hot loop.

use std::cmp::Ordering;
use std::fmt;

/// A number computed by a solution program.
#[derive(Clone, Copy, Debug)]
pub enum Num {
    /// `n / d` in lowest terms, `d > 0`.
    Ratio { n: i128, d: i128 },
    /// Only after an irrational operation (sqrt of a non-square, fractional power), or arithmetic
    /// on such a value.
    Float(f64),
}

/// Why an operation has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalError {
    DivisionByZero,
    /// Not a real number, or not finite (sqrt of a negative, overflowing float).
    Domain,
    /// An exact value whose numerator or denominator leaves the 128-bit range: the evaluation is
    /// redone with [`wide::Wide`].
    Overflow,
    /// An exact value past [`wide::MAX_BITS`] bits.
    TooLarge,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EvalError::DivisionByZero => "division by zero",
            EvalError::Domain => "value is not a finite real number",
            EvalError::Overflow => "the exact value leaves the 128-bit range",
            EvalError::TooLarge => "the exact value has more than 4096 bits",
        })
    }
}

pub type NumResult = std::result::Result<Num, EvalError>;

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    if a == 0 {
        return b as i128;
    }
    if b == 0 {
        return a as i128;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            break;
        }
    }
    (a << shift) as i128
}

/// 10^k for k in 0..=38.
pub fn pow10(k: u32) -> i128 {
    10i128.pow(k)
}

// The arithmetic is fallible (division by zero, non-real results), so the `std::ops` traits,
// which cannot return an error, do not fit.
#[allow(clippy::should_implement_trait)]
impl Num {
    pub const ZERO: Num = Num::Ratio { n: 0, d: 1 };
    pub const ONE: Num = Num::Ratio { n: 1, d: 1 };

    pub fn int(n: i128) -> Num {
        Num::Ratio { n, d: 1 }
    }

    /// `n / d` reduced; `None` when `d == 0`.
    pub fn ratio(n: i128, d: i128) -> Option<Num> {
        if d == 0 {
            return None;
        }
        Some(Self::reduce(n, d))
    }

    fn reduce(mut n: i128, mut d: i128) -> Num {
        if d != 1 {
            let g = gcd(n, d);
            if g > 1 {
                n /= g;
                d /= g;
            }
            if d < 0 {
                match (n.checked_neg(), d.checked_neg()) {
                    (Some(nn), Some(dd)) => {
                        n = nn;
                        d = dd;
                    }
                    _ => return Num::Float(n as f64 / d as f64),
                }
            }
        }
        Num::Ratio { n, d }
    }

    /// A float that is exactly representable as a decimal is kept as a float; this is only used for
    /// values produced by float-only operations.
    pub fn float(x: f64) -> NumResult {
        if x.is_finite() {
            Ok(Num::Float(x))
        } else {
            Err(EvalError::Domain)
        }
    }

    /// Parse a decimal literal as written in a question or a program: `1,200`, `2.50`, `.5`, `-3`,
    /// `1e3`. Exact: `0.1` is `1/10`.
    pub fn parse_decimal(text: &str) -> Option<Num> {
        let lit = DecimalLiteral::lex(text)?;
        let n: i128 = lit.digits.parse().ok()?;
        let e = lit.exponent();
        let value = if e >= 0 {
            Num::int(n.checked_mul(pow10_checked(e as u32)?)?)
        } else {
            Num::ratio(n, pow10_checked((-e) as u32)?)?
        };
        Some(if lit.negative { value.neg() } else { value })
    }

    pub fn from_f64(x: f64) -> Num {
        if x.fract() == 0.0 && x.abs() < 1e30 {
            return Num::int(x as i128);
        }
        Num::Float(x)
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Num::Ratio { n, d } => n as f64 / d as f64,
            Num::Float(x) => x,
        }
    }

    pub fn is_exact(self) -> bool {
        matches!(self, Num::Ratio { .. })
    }

    pub fn is_integer(self) -> bool {
        match self {
            Num::Ratio { d, .. } => d == 1,
            Num::Float(x) => x.fract() == 0.0,
        }
    }

    pub fn is_zero(self) -> bool {
        match self {
            Num::Ratio { n, .. } => n == 0,
            Num::Float(x) => x == 0.0,
        }
    }

    pub fn is_positive(self) -> bool {
        match self {
            Num::Ratio { n, .. } => n > 0,
            Num::Float(x) => x > 0.0,
        }
    }

    pub fn is_negative(self) -> bool {
        match self {
            Num::Ratio { n, .. } => n < 0,
            Num::Float(x) => x < 0.0,
        }
    }

    /// Strictly between 0 and 1.
    pub fn is_proper_fraction(self) -> bool {
        match self {
            Num::Ratio { n, d } => n > 0 && n < d,
            Num::Float(x) => x > 0.0 && x < 1.0,
        }
    }

    /// The integer value, when the number is an integer that fits.
    pub fn as_integer(self) -> Option<i128> {
        match self {
            Num::Ratio { n, d: 1 } => Some(n),
            Num::Float(x) if x.fract() == 0.0 && x.abs() < 1e30 => Some(x as i128),
            _ => None,
        }
    }

    pub fn neg(self) -> Num {
        match self {
            Num::Ratio { n, d } => match n.checked_neg() {
                Some(n) => Num::Ratio { n, d },
                None => Num::Float(-(n as f64) / d as f64),
            },
            Num::Float(x) => Num::Float(-x),
        }
    }

    pub fn abs(self) -> Num {
        if self.is_negative() {
            self.neg()
        } else {
            self
        }
    }

    pub fn add(self, rhs: Num) -> NumResult {
        if let (Num::Ratio { n: a, d: b }, Num::Ratio { n: c, d: e }) = (self, rhs) {
            if b == 1 && e == 1 {
                if let Some(s) = a.checked_add(c) {
                    return Ok(Num::int(s));
                }
            } else if b == e {
                if let Some(s) = a.checked_add(c) {
                    return Ok(Self::reduce(s, b));
                }
            } else if let Some(r) = (|| {
                let num = a.checked_mul(e)?.checked_add(c.checked_mul(b)?)?;
                Some(Self::reduce(num, b.checked_mul(e)?))
            })() {
                return Ok(r);
            }
            return Err(EvalError::Overflow);
        }
        Num::float(self.to_f64() + rhs.to_f64())
    }

    pub fn sub(self, rhs: Num) -> NumResult {
        self.add(rhs.neg())
    }

    pub fn mul(self, rhs: Num) -> NumResult {
        if let (Num::Ratio { n: a, d: b }, Num::Ratio { n: c, d: e }) = (self, rhs) {
            if b == 1 && e == 1 {
                if let Some(p) = a.checked_mul(c) {
                    return Ok(Num::int(p));
                }
            } else {
                // Cross-reduce first so that products stay small.
                let g1 = gcd(a, e);
                let g2 = gcd(c, b);
                let (a, e) = if g1 > 1 { (a / g1, e / g1) } else { (a, e) };
                let (c, b) = if g2 > 1 { (c / g2, b / g2) } else { (c, b) };
                if let (Some(n), Some(d)) = (a.checked_mul(c), b.checked_mul(e)) {
                    return Ok(Num::Ratio { n, d });
                }
            }
            return Err(EvalError::Overflow);
        }
        Num::float(self.to_f64() * rhs.to_f64())
    }

    pub fn recip(self) -> NumResult {
        match self {
            Num::Ratio { n: 0, .. } => Err(EvalError::DivisionByZero),
            Num::Ratio { n, d } => Ok(Self::reduce(d, n)),
            Num::Float(0.0) => Err(EvalError::DivisionByZero),
            Num::Float(x) => Num::float(1.0 / x),
        }
    }

    /// Python's true division `/`.
    pub fn div(self, rhs: Num) -> NumResult {
        if rhs.is_zero() {
            return Err(EvalError::DivisionByZero);
        }
        if let (Num::Ratio { n: a, d: 1 }, Num::Ratio { n: c, d: 1 }) = (self, rhs) {
            if c != 0 && a % c == 0 {
                return Ok(Num::int(a / c));
            }
            return Ok(Self::reduce(a, c));
        }
        self.mul(rhs.recip()?)
    }

    /// Python's `//`: floor of the true quotient.
    pub fn floordiv(self, rhs: Num) -> NumResult {
        let q = self.div(rhs)?;
        Ok(q.floor())
    }

    /// Python's `%`: the remainder takes the divisor's sign.
    pub fn rem(self, rhs: Num) -> NumResult {
        let q = self.floordiv(rhs)?;
        self.sub(rhs.mul(q)?)
    }

    /// `self ** rhs`: exact for integer exponents (an error when the exact value leaves the
    /// range), float otherwise.
    pub fn pow(self, rhs: Num) -> NumResult {
        if let (Num::Ratio { n, d }, Some(e)) = (self, rhs.as_integer()) {
            if e < 0 {
                return Num::ONE.div(self.pow(Num::int(-e))?);
            }
            // Past 2^127 only 0, 1 and -1 have a power in range; the exponent stays small.
            let e = match u32::try_from(e) {
                Ok(e) if e <= 128 => e,
                _ if n.abs() <= 1 && d == 1 => (e % 2) as u32 + 2,
                _ => return Err(EvalError::Overflow),
            };
            return match (n.checked_pow(e), d.checked_pow(e)) {
                (Some(pn), Some(pd)) => Ok(Num::Ratio { n: pn, d: pd }),
                _ => Err(EvalError::Overflow),
            };
        }
        let r = self.to_f64().powf(rhs.to_f64());
        if r.is_nan() {
            return Err(EvalError::Domain);
        }
        Num::float(r)
    }

    pub fn sqrt(self) -> NumResult {
        if self.is_negative() {
            return Err(EvalError::Domain);
        }
        if let Num::Ratio { n, d } = self {
            if let (Some(rn), Some(rd)) = (isqrt_exact(n), isqrt_exact(d)) {
                return Ok(Num::Ratio { n: rn, d: rd });
            }
        }
        Num::float(self.to_f64().sqrt())
    }

    pub fn floor(self) -> Num {
        match self {
            Num::Ratio { n, d } => Num::int(n.div_euclid(d)),
            Num::Float(x) => Num::from_f64(x.floor()),
        }
    }

    pub fn ceil(self) -> Num {
        match self {
            Num::Ratio { n, d } => Num::int(-((-n).div_euclid(d))),
            Num::Float(x) => Num::from_f64(x.ceil()),
        }
    }

    /// Python's `int()`: truncation toward zero.
    pub fn trunc(self) -> Num {
        match self {
            Num::Ratio { n, d } => Num::int(n / d),
            Num::Float(x) => Num::from_f64(x.trunc()),
        }
    }

    /// Python's `round(x, ndigits)`: round half to even, exactly.
    pub fn round(self, ndigits: i32) -> NumResult {
        match self {
            Num::Ratio { n, d } => {
                let (scaled, back) = if ndigits >= 0 {
                    let p = pow10_checked(ndigits as u32).ok_or(EvalError::Domain)?;
                    (Num::Ratio { n, d }.mul(Num::int(p))?, Num::int(p))
                } else {
                    let p = pow10_checked((-ndigits) as u32).ok_or(EvalError::Domain)?;
                    (
                        Num::Ratio { n, d }.div(Num::int(p))?,
                        Num::ratio(1, p).unwrap(),
                    )
                };
                let Num::Ratio { n, d } = scaled else {
                    return Num::float(round_half_even_f64(self.to_f64(), ndigits));
                };
                let fl = n.div_euclid(d);
                let rem2 = 2 * n.rem_euclid(d);
                let r = match rem2.cmp(&d) {
                    Ordering::Less => fl,
                    Ordering::Greater => fl + 1,
                    Ordering::Equal if fl % 2 == 0 => fl,
                    Ordering::Equal => fl + 1,
                };
                Num::int(r).div(back)
            }
            Num::Float(x) => Num::float(round_half_even_f64(x, ndigits)),
        }
    }

    pub fn min(self, other: Num) -> Num {
        if other.cmp_num(self) == Ordering::Less {
            other
        } else {
            self
        }
    }

    pub fn max(self, other: Num) -> Num {
        if other.cmp_num(self) == Ordering::Greater {
            other
        } else {
            self
        }
    }

    /// Total order (NaN cannot occur: floats are checked finite on creation).
    pub fn cmp_num(self, other: Num) -> Ordering {
        if let (Num::Ratio { n: a, d: b }, Num::Ratio { n: c, d: e }) = (self, other) {
            if let (Some(l), Some(r)) = (a.checked_mul(e), c.checked_mul(b)) {
                return l.cmp(&r);
            }
        }
        self.to_f64()
            .partial_cmp(&other.to_f64())
            .unwrap_or(Ordering::Equal)
    }

    pub fn eq_num(self, other: Num) -> bool {
        self.cmp_num(other) == Ordering::Equal
    }

    /// Equal after rounding both to 2 decimals (the paper's answer-matching rule).
    pub fn eq_2dp(self, other: Num) -> bool {
        match (self.round(2), other.round(2)) {
            (Ok(a), Ok(b)) => a.eq_num(b) || (a.to_f64() - b.to_f64()).abs() < 1e-9,
            _ => false,
        }
    }

    /// The exact value as text: an integer, a terminating decimal (up to 18 places), `n/d`, or a
    /// float's shortest round-trip text.
    pub fn exact_text(&self) -> String {
        match *self {
            Num::Ratio { n, d: 1 } => n.to_string(),
            Num::Ratio { n, d } => match self.decimal_parts(18) {
                Some(_) => self.to_string(),
                None => format!("{n}/{d}"),
            },
            Num::Float(x) => format!("{x:?}"),
        }
    }

    /// Number of digits of the integer part (`0.5` has 1, `1200` has 4).
    pub fn int_digits(self) -> u32 {
        let i = self.abs().trunc().as_integer().unwrap_or(0);
        if i == 0 {
            1
        } else {
            i.unsigned_abs().ilog10() + 1
        }
    }

    /// Decimal expansion `(mantissa, exponent)` with `value = mantissa * 10^exponent`, mantissa not
    /// divisible by 10, when the value is a terminating decimal with at most `max_scale` decimals.
    pub fn decimal_parts(self, max_scale: u32) -> Option<(i128, i32)> {
        let Num::Ratio { n, d } = self else {
            return None;
        };
        if n == 0 {
            return Some((0, 0));
        }
        let mut scale = 0u32;
        let mut m = n;
        let mut den = d;
        // n/d is in lowest terms, so each step only trades den's factors 2 and 5 for m's; taking
        // them out of 10 first keeps m from overflowing on the way (38-digit values stay exact).
        while den != 1 {
            if scale >= max_scale {
                return None;
            }
            let g = gcd(10, den);
            if g == 1 {
                return None;
            }
            m = m.checked_mul(10 / g)?;
            den /= g;
            scale += 1;
        }
        let mut exp = -(scale as i32);
        while m % 10 == 0 {
            m /= 10;
            exp += 1;
        }
        Some((m, exp))
    }
}

fn pow10_checked(k: u32) -> Option<i128> {
    10i128.checked_pow(k)
}

fn isqrt_exact(v: i128) -> Option<i128> {
    if v < 0 {
        return None;
    }
    let r = (v as f64).sqrt().round() as i128;
    (r.max(1) - 1..=r + 1).find(|&c| c.checked_mul(c) == Some(v))
}

fn round_half_even_f64(x: f64, ndigits: i32) -> f64 {
    let p = 10f64.powi(ndigits);
    let y = x * p;
    let r = y.round();
    let r = if (y - y.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - y.signum()
    } else {
        r
    };
    r / p
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.eq_num(*other)
    }
}

pub mod text;
pub mod wide;

pub use text::format_fixed;
pub(crate) use text::{point_text, DecimalLiteral};

#[cfg(test)]
mod tests;
