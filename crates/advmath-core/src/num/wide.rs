//! Exact rationals past the 128-bit range, for the few programs whose values leave it (`58**48`).
//!
//! [`Num`] stays the fast, `Copy`, allocation-free type of the generation hot loop; when one of
//! its operations overflows, the evaluation of that tree is redone with [`Wide`] (big integers),
//! as Python's unbounded integers would compute it. A value past [`MAX_BITS`] is refused
//! ([`EvalError::TooLarge`]) rather than grown without bound. Only exact operations exist here:
//! an irrational result (the square root of a non-square, a fractional power) is
//! [`EvalError::Domain`], since no float is ever written as an exact value.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::{point_text, DecimalLiteral, EvalError, Num};

/// The widest numerator or denominator kept exact (about 1,233 decimal digits).
pub const MAX_BITS: u64 = 4096;

/// `n / d` in lowest terms, `d > 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Wide {
    n: BigInt,
    d: BigInt,
}

type WideResult = Result<Wide, EvalError>;

fn pow10(k: u32) -> BigInt {
    num_traits::pow(BigInt::from(10), k as usize)
}

impl Wide {
    /// `n / d` reduced; division by zero and values past [`MAX_BITS`] are errors.
    pub fn ratio(n: BigInt, d: BigInt) -> WideResult {
        if d.is_zero() {
            return Err(EvalError::DivisionByZero);
        }
        let g = n.gcd(&d);
        let (mut n, mut d) = if g.is_one() { (n, d) } else { (n / &g, d / &g) };
        if d.is_negative() {
            n = -n;
            d = -d;
        }
        if n.bits() > MAX_BITS || d.bits() > MAX_BITS {
            return Err(EvalError::TooLarge);
        }
        Ok(Wide { n, d })
    }

    pub fn int(n: impl Into<BigInt>) -> Wide {
        Wide {
            n: n.into(),
            d: BigInt::one(),
        }
    }

    /// An exact [`Num`]; a float has no exact wide value.
    pub fn from_num(x: Num) -> WideResult {
        match x {
            Num::Ratio { n, d } => Ok(Wide {
                n: n.into(),
                d: d.into(),
            }),
            Num::Float(_) => Err(EvalError::Domain),
        }
    }

    /// The same value as a [`Num`], when it fits.
    pub fn to_num(&self) -> Option<Num> {
        Num::ratio(self.n.to_i128()?, self.d.to_i128()?)
    }

    /// A decimal literal (`1,200`, `2.50`, `-3`, `1e90`), exactly; as [`Num::parse_decimal`]
    /// without its range.
    pub fn parse_decimal(text: &str) -> Option<Wide> {
        let lit = DecimalLiteral::lex(text)?;
        let e = lit.exponent();
        if e.unsigned_abs() > 2 * MAX_BITS as u32 {
            return None;
        }
        let n: BigInt = lit.digits.parse().ok()?;
        let n = if lit.negative { -n } else { n };
        let value = if e >= 0 {
            Wide::ratio(n * pow10(e as u32), BigInt::one())
        } else {
            Wide::ratio(n, pow10((-e) as u32))
        };
        value.ok()
    }

    pub fn is_integer(&self) -> bool {
        self.d.is_one()
    }

    pub fn is_zero(&self) -> bool {
        self.n.is_zero()
    }

    pub fn is_positive(&self) -> bool {
        self.n.is_positive()
    }

    /// Strictly between 0 and 1.
    pub fn is_proper_fraction(&self) -> bool {
        self.n.is_positive() && self.n < self.d
    }

    pub fn neg(&self) -> Wide {
        Wide {
            n: -&self.n,
            d: self.d.clone(),
        }
    }

    pub fn abs(&self) -> Wide {
        Wide {
            n: self.n.abs(),
            d: self.d.clone(),
        }
    }

    pub fn add(&self, rhs: &Wide) -> WideResult {
        Wide::ratio(&self.n * &rhs.d + &rhs.n * &self.d, &self.d * &rhs.d)
    }

    pub fn sub(&self, rhs: &Wide) -> WideResult {
        self.add(&rhs.neg())
    }

    pub fn mul(&self, rhs: &Wide) -> WideResult {
        Wide::ratio(&self.n * &rhs.n, &self.d * &rhs.d)
    }

    /// Python's true division `/`.
    pub fn div(&self, rhs: &Wide) -> WideResult {
        Wide::ratio(&self.n * &rhs.d, &self.d * &rhs.n)
    }

    /// Python's `//`.
    pub fn floordiv(&self, rhs: &Wide) -> WideResult {
        Ok(self.div(rhs)?.floor())
    }

    /// Python's `%`: the remainder takes the divisor's sign.
    pub fn rem(&self, rhs: &Wide) -> WideResult {
        self.sub(&rhs.mul(&self.floordiv(rhs)?)?)
    }

    /// `self ** rhs` for an integer exponent; a result past [`MAX_BITS`] is refused before it is
    /// computed.
    pub fn pow(&self, rhs: &Wide) -> WideResult {
        if !rhs.is_integer() {
            return Err(EvalError::Domain);
        }
        if rhs.n.is_negative() {
            return Wide::int(1).div(&self.pow(&rhs.neg())?);
        }
        let unit = self.d.is_one() && self.n.abs() <= BigInt::one();
        let e = match rhs.n.to_u64() {
            Some(e) if unit => e % 2 + 2 * u64::from(e > 0),
            Some(e)
                if e.saturating_mul(self.n.bits().max(self.d.bits()).saturating_sub(1))
                    <= MAX_BITS =>
            {
                e
            }
            _ => return Err(EvalError::TooLarge),
        };
        let e = e as usize;
        Wide::ratio(
            num_traits::pow(self.n.clone(), e),
            num_traits::pow(self.d.clone(), e),
        )
    }

    /// Exact square roots only.
    pub fn sqrt(&self) -> WideResult {
        if self.n.is_negative() {
            return Err(EvalError::Domain);
        }
        let (rn, rd) = (self.n.sqrt(), self.d.sqrt());
        if &rn * &rn == self.n && &rd * &rd == self.d {
            Wide::ratio(rn, rd)
        } else {
            Err(EvalError::Domain)
        }
    }

    pub fn floor(&self) -> Wide {
        Wide::int(self.n.div_floor(&self.d))
    }

    pub fn ceil(&self) -> Wide {
        Wide::int(-((-&self.n).div_floor(&self.d)))
    }

    /// Python's `int()`: toward zero.
    pub fn trunc(&self) -> Wide {
        Wide::int(&self.n / &self.d)
    }

    /// Python's `round(x, ndigits)`: half to even, exactly.
    pub fn round(&self, ndigits: i32) -> WideResult {
        let p = Wide::int(pow10(ndigits.unsigned_abs()));
        let scaled = if ndigits >= 0 {
            self.mul(&p)?
        } else {
            self.div(&p)?
        };
        let fl = scaled.n.div_floor(&scaled.d);
        let rem2: BigInt = (&scaled.n - &fl * &scaled.d) * 2;
        let r = match rem2.cmp(&scaled.d) {
            Ordering::Less => fl,
            Ordering::Greater => fl + 1,
            Ordering::Equal if fl.is_even() => fl,
            Ordering::Equal => fl + 1,
        };
        if ndigits >= 0 {
            Wide::int(r).div(&p)
        } else {
            Wide::int(r).mul(&p)
        }
    }

    /// Equal after rounding both to 2 decimals (the paper's answer-matching rule).
    pub fn eq_2dp(&self, other: &Wide) -> bool {
        matches!((self.round(2), other.round(2)), (Ok(a), Ok(b)) if a == b)
    }

    /// `(mantissa, exponent)` with value = mantissa * 10^exponent, when the value is a terminating
    /// decimal with at most `max_scale` decimals.
    fn decimal_parts(&self, max_scale: u32) -> Option<(BigInt, i32)> {
        for scale in 0..=max_scale {
            let p = pow10(scale);
            if (&p % &self.d).is_zero() {
                let mut m = &self.n * (p / &self.d);
                let mut exp = -(scale as i32);
                let ten = BigInt::from(10);
                while !m.is_zero() && (&m % &ten).is_zero() {
                    m /= &ten;
                    exp += 1;
                }
                return Some((m, exp));
            }
        }
        None
    }

    /// The exact value as text: an integer, a terminating decimal (up to 18 places) or `n/d`,
    /// as [`Num::exact_text`].
    pub fn exact_text(&self) -> String {
        if self.is_integer() {
            return self.n.to_string();
        }
        match self.decimal_parts(18) {
            Some(_) => self.to_string(),
            None => format!("{}/{}", self.n, self.d),
        }
    }
}

/// `m * 10^e` as plain decimal text.
fn scaled_text(m: &BigInt, e: i32) -> String {
    if e >= 0 {
        return (m * pow10(e as u32)).to_string();
    }
    point_text(m.is_negative(), &m.abs().to_string(), (-e) as usize)
}

impl Ord for Wide {
    fn cmp(&self, other: &Wide) -> Ordering {
        (&self.n * &other.d).cmp(&(&other.n * &self.d))
    }
}

impl PartialOrd for Wide {
    fn partial_cmp(&self, other: &Wide) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Wide {
    /// Canonical text, as [`Num`]'s: integers plain, terminating decimals in full up to 12
    /// places, anything else rounded half-even to 6 decimals, trailing zeros removed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integer() {
            return write!(f, "{}", self.n);
        }
        if let Some((m, e)) = self.decimal_parts(12) {
            return f.write_str(&scaled_text(&m, e));
        }
        match self.round(6).ok().and_then(|r| r.decimal_parts(6)) {
            Some((m, e)) => f.write_str(&scaled_text(&m, e)),
            None => write!(f, "{}/{}", self.n, self.d),
        }
    }
}

/// An exact value of either width: what an answer is.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Num(Num),
    Wide(Wide),
}

impl Value {
    /// A decimal literal in the narrow form when it fits, else the wide one.
    pub fn parse_decimal(text: &str) -> Option<Value> {
        match Num::parse_decimal(text) {
            Some(n) => Some(Value::Num(n)),
            None => Wide::parse_decimal(text).map(Value::Wide),
        }
    }

    /// The exact text (integer, terminating decimal or `n/d`).
    pub fn exact_text(&self) -> String {
        match self {
            Value::Num(n) => n.exact_text(),
            Value::Wide(w) => w.exact_text(),
        }
    }

    /// The narrow form, when the value fits one.
    pub fn as_num(&self) -> Option<Num> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Wide(w) => w.to_num(),
        }
    }

    /// Equal after rounding both to 2 decimals; a float compares only with a narrow value.
    pub fn eq_2dp(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Num(a), Value::Num(b)) => a.eq_2dp(*b),
            (a, b) => match (a.wide(), b.wide()) {
                (Some(a), Some(b)) => a.eq_2dp(&b),
                _ => false,
            },
        }
    }

    fn wide(&self) -> Option<Wide> {
        match self {
            Value::Num(n) => Wide::from_num(*n).ok(),
            Value::Wide(w) => Some(w.clone()),
        }
    }
}

impl From<Num> for Value {
    fn from(n: Num) -> Value {
        Value::Num(n)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(n) => n.fmt(f),
            Value::Wide(w) => w.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(text: &str) -> Wide {
        Wide::parse_decimal(text).unwrap()
    }

    #[test]
    fn powers_past_128_bits_are_exact() {
        let p = w("58").pow(&w("48")).unwrap();
        let by_hand = (0..48).fold(BigInt::one(), |acc, _| acc * 58);
        assert_eq!(p.to_string(), by_hand.to_string());
        assert_eq!(p.to_string().len(), 85);
        assert_eq!(p, w(&p.to_string()));
        assert_eq!(
            w("2").pow(&w("70")).unwrap().to_string(),
            "1180591620717411303424"
        );
        assert_eq!(w("2").pow(&w("-2")).unwrap().to_string(), "0.25");
        assert_eq!(w("-1").pow(&w("1000001")).unwrap().to_string(), "-1");
        assert_eq!(w("2").pow(&w("5000")), Err(EvalError::TooLarge));
        assert_eq!(w("2").pow(&w("0.5")), Err(EvalError::Domain));
    }

    #[test]
    fn python_semantics_of_division_remainder_and_rounding() {
        assert_eq!(w("-7").floordiv(&w("2")).unwrap(), w("-4"));
        assert_eq!(w("-7").rem(&w("2")).unwrap(), w("1"));
        assert_eq!(w("7").rem(&w("-2")).unwrap(), w("-1"));
        assert_eq!(w("2.5").round(0).unwrap(), w("2"));
        assert_eq!(w("3.5").round(0).unwrap(), w("4"));
        assert_eq!(w("1250").round(-2).unwrap(), w("1200"));
        assert_eq!(w("-2.5").trunc(), w("-2"));
        assert_eq!(w("-2.5").ceil(), w("-2"));
        assert_eq!(w("1").div(&w("3")).unwrap().to_string(), "0.333333");
        assert_eq!(w("1").div(&w("3")).unwrap().exact_text(), "1/3");
        assert_eq!(w("0.125").exact_text(), "0.125");
        assert_eq!(w("1").div(&w("0")), Err(EvalError::DivisionByZero));
        assert_eq!(w("144").div(&w("25")).unwrap().sqrt().unwrap(), w("2.4"));
        assert_eq!(w("2").sqrt(), Err(EvalError::Domain));
    }

    #[test]
    fn narrow_and_wide_texts_agree_where_both_exist() {
        for text in ["0", "-12", "2.5", "0.001", "1234567.125", "-0.75"] {
            let n = Num::parse_decimal(text).unwrap();
            let v = Wide::from_num(n).unwrap();
            assert_eq!(v.to_string(), n.to_string(), "{text}");
            assert_eq!(v.exact_text(), n.exact_text(), "{text}");
        }
        let third = Num::ratio(1, 3).unwrap();
        assert_eq!(
            Wide::from_num(third).unwrap().to_string(),
            third.to_string()
        );
    }
}
