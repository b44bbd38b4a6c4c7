//! How each number of a question is drawn: the paper's decomposition h = a·10^b and the
//! M1/M2/M3 draws of a, narrowed where the question's text asks it (a plural count, a bounded
//! unit, a bill that exists).

use rand::RngExt;
use rand_distr::{Distribution, Poisson};
use rand_pcg::Pcg64Mcg;

use crate::num::{pow10, Num};
use crate::vocab::Method;

/// `h = a * 10^b`, `a` not divisible by 10 (for a terminating decimal).
pub fn decompose(h: Num) -> Option<(i128, i32)> {
    let (a, b) = h.decimal_parts(18)?;
    Some((a.abs(), b))
}

/// `a·10^b` rounded (half up) to at most `c` significant digits, `a` again not divisible by 10:
/// the paper's "a is an integer that is not divisible by 10 and with at most c digits".
pub fn at_most_digits(a: i128, b: i32, c: u32) -> (i128, i32) {
    let (mut a, mut b) = (a, b);
    let n = digit_count(a);
    if n > c {
        let k = n - c;
        let p = pow10(k);
        a = (a + p / 2) / p;
        b += k as i32;
    }
    while a != 0 && a % 10 == 0 {
        a /= 10;
        b += 1;
    }
    (a, b)
}

/// Number of decimal digits of a positive integer.
pub fn digit_count(a: i128) -> u32 {
    if a == 0 {
        1
    } else {
        a.unsigned_abs().ilog10() + 1
    }
}

#[derive(Clone, Debug)]
pub(super) enum Draw {
    /// a' ~ U(lo, hi), value a' * 10^exp; `no_trailing_zero` redraws multiples of 10.
    Uniform {
        lo: i64,
        hi: i64,
        exp: i32,
        no_trailing_zero: bool,
    },
    /// a' ~ Poisson(lambda), value a' * 10^exp, redrawn below `min`.
    Poisson {
        dist: Poisson<f64>,
        exp: i32,
        min: i64,
    },
    /// The value cannot be decomposed (a non-terminating fraction); it is left as is.
    Keep(Num),
    /// One of these values, each as likely (a bill's denominations within the method's range).
    Choice(Vec<Num>),
    /// GSM-Plus's digit expansion: k ~ U{1, 2, 3}, then, each as likely, h * 10^k, or a' with
    /// `digits + k` digits, value a' * 10^exp (a decimal keeps its scale; `no_trailing_zero`
    /// redraws multiples of 10). `h` is the original, kept where the text bounds the number
    /// (see [`Draw::bounded_by`]).
    Digits {
        h: Num,
        digits: u32,
        exp: i32,
        no_trailing_zero: bool,
    },
    /// GSM-Plus's integer–decimal conversion: a whole amount `h` gains a quarter, a half or
    /// three quarters, each as likely ("$4" becomes "$4.25", "3 hours" "3.5 hours"): parts that
    /// read as well in a fraction, and keep every sum and product of a few of them in cents.
    Convert(Num),
}

/// The most digits a mantissa may have after gaining three, so that it stays an `i64`.
const DIGITS_MAX: u32 = 18;

fn scaled(a: i64, exp: i32) -> Num {
    if exp >= 0 {
        Num::int(a as i128 * pow10(exp as u32))
    } else {
        Num::ratio(a as i128, pow10((-exp) as u32)).expect("power of ten is non-zero")
    }
}

impl Draw {
    pub(super) fn plan(method: Method, h: Num, divisor: bool, digits: u32) -> Draw {
        let negative = h.is_negative();
        let Some((a, b)) = decompose(h) else {
            return Draw::Keep(h);
        };
        if a == 0 || negative {
            // Zero and negative numbers in questions are labels more than quantities.
            return Draw::Keep(h);
        }
        // M2 keeps the digits as written; M1 and M3 see h ≈ a·10^b with a of at most c digits.
        let (a, b) = match method {
            Method::M2 | Method::Digits | Method::Decimals | Method::Fractions => (a, b),
            Method::M1 | Method::M3 => at_most_digits(a, b, digits),
        };
        match method {
            Method::Digits => Draw::digits(h, a, b),
            // A conversion changes only the amounts the text says are divisible (see
            // `Attacker::converting`); every other number is written as it was.
            Method::Decimals | Method::Fractions => Draw::Keep(h),
            Method::M1 => {
                let cap = if divisor { digits / 2 } else { digits };
                Draw::Uniform {
                    lo: 1,
                    hi: 10i64.pow(cap.max(1)),
                    exp: b,
                    no_trailing_zero: false,
                }
            }
            Method::M2 => {
                // The digits as written: an integer with its trailing zeros, a decimal's mantissa.
                let (m, exp) = if b >= 0 {
                    (a * pow10(b as u32), 0)
                } else {
                    (a, b)
                };
                let d = digit_count(m);
                let (lo, hi) = if d == 1 {
                    (1, 99)
                } else {
                    (10i64.pow(d - 1), 10i64.pow(d) - 1)
                };
                Draw::Uniform {
                    lo,
                    hi,
                    exp,
                    no_trailing_zero: exp < 0 && d > 1,
                }
            }
            Method::M3 => {
                if a <= 9 {
                    Draw::Uniform {
                        lo: 1,
                        hi: 9,
                        exp: b,
                        no_trailing_zero: false,
                    }
                } else {
                    Draw::Poisson {
                        dist: Poisson::new(a as f64).expect("positive lambda"),
                        exp: b,
                        min: 0,
                    }
                }
            }
        }
    }

    /// The digit expansion of `h = a·10^b`: an integer with all its digits (3000 has four), a
    /// decimal's mantissa at its scale (4.50 is 45 at 10^-1). A part (a value below 1) is not a
    /// quantity that gains digits, and is kept.
    fn digits(h: Num, a: i128, b: i32) -> Draw {
        let (m, exp) = if b >= 0 {
            (a * pow10(b as u32), 0)
        } else {
            (a, b)
        };
        let digits = digit_count(m);
        if h.cmp_num(Num::ONE).is_lt() || digits + 3 > DIGITS_MAX {
            return Draw::Keep(h);
        }
        Draw::Digits {
            h,
            digits,
            exp,
            no_trailing_zero: exp < 0,
        }
    }

    /// The draw of a number the text bounds: by `max` (a count of a smaller unit in a larger
    /// one), or in a way no expansion keeps (`None`: a percentage of at most 100, a written
    /// fraction that stays proper). A digit expansion the bound leaves no room keeps the number
    /// as written; every other draw is unchanged (the constraint then rejects what breaks it).
    pub(super) fn bounded_by(self, max: Option<Num>) -> Draw {
        match (self, max) {
            (Draw::Digits { h, .. } | Draw::Convert(h), None) => Draw::Keep(h),
            (d @ Draw::Digits { .. }, Some(max)) => d.at_most(max),
            (other, _) => other,
        }
    }

    /// The same draw conditioned on a value of at least 2 (a plural count), for an integer.
    pub(super) fn at_least_two(self) -> Draw {
        match self {
            Draw::Uniform {
                lo,
                hi,
                exp: 0,
                no_trailing_zero,
            } => Draw::Uniform {
                lo: lo.max(2).min(hi),
                hi,
                exp: 0,
                no_trailing_zero,
            },
            Draw::Poisson { dist, exp: 0, .. } => Draw::Poisson {
                dist,
                exp: 0,
                min: 2,
            },
            other => other,
        }
    }

    /// The same draw conditioned on a value of at most `max` (a count of a bounded unit): a
    /// uniform draw's range is cut there, so that the bound does not cost M1 its attempts. A
    /// range the bound leaves empty, and other draws, are kept (the rule then rejects).
    pub(super) fn at_most(mut self, max: Num) -> Draw {
        if let Draw::Digits {
            h,
            digits,
            exp,
            no_trailing_zero,
        } = self
        {
            // A bound even the smallest expansion passes keeps the number as written; another
            // draws the longer numbers within it ("8 hours a day" becomes 10 to 24).
            let top = max
                .div(scaled(1, exp))
                .ok()
                .and_then(|q| q.floor().as_integer());
            let lo = 10i64.pow(digits);
            return match top {
                Some(top) if top >= i128::from(lo) => Draw::Uniform {
                    lo,
                    hi: top.min(i128::from(10i64.pow(digits + 3) - 1)) as i64,
                    exp,
                    no_trailing_zero,
                },
                _ => Draw::Keep(h),
            };
        }
        if let Draw::Uniform { lo, hi, exp, .. } = &mut self {
            // The largest a with a·10^exp at most max.
            let top = max
                .div(scaled(1, *exp))
                .ok()
                .and_then(|q| q.floor().as_integer());
            if let Some(top) = top.filter(|&t| t >= i128::from(*lo) && t < i128::from(*hi)) {
                *hi = top as i64;
            }
        }
        self
    }

    /// The same draw restricted to `values` (the bills or coins that exist): those the uniform
    /// range can give, each as likely. A range that gives none, and other draws, are kept (the
    /// rule then rejects).
    pub(super) fn one_of(self, values: &[i128]) -> Draw {
        if let Draw::Convert(h) = self {
            // A bill or a coin has no parts: it is paid as written.
            return Draw::Keep(h);
        }
        if let Draw::Digits {
            h, digits, exp: 0, ..
        } = self
        {
            // The bills of one to three more digits than the one written.
            let longer: Vec<Num> = values
                .iter()
                .filter(|&&v| (digits + 1..=digits + 3).contains(&digit_count(v)))
                .map(|&v| Num::int(v))
                .collect();
            return match longer.is_empty() {
                true => Draw::Keep(h),
                false => Draw::Choice(longer),
            };
        }
        let Draw::Uniform {
            lo,
            hi,
            exp,
            no_trailing_zero,
        } = self
        else {
            return self;
        };
        let within: Vec<Num> = values
            .iter()
            .filter_map(|&v| {
                let a = Num::int(v).div(scaled(1, exp)).ok()?;
                let a = a.as_integer().filter(|_| a.is_integer())?;
                let fits = a >= i128::from(lo) && a <= i128::from(hi);
                (fits && !(no_trailing_zero && a % 10 == 0)).then(|| Num::int(v))
            })
            .collect();
        if within.is_empty() {
            self
        } else {
            Draw::Choice(within)
        }
    }

    #[inline]
    pub(super) fn sample(&self, rng: &mut Pcg64Mcg) -> Num {
        match self {
            Draw::Uniform {
                lo,
                hi,
                exp,
                no_trailing_zero,
            } => {
                let mut a = rng.random_range(*lo..=*hi);
                while *no_trailing_zero && a % 10 == 0 {
                    a = rng.random_range(*lo..=*hi);
                }
                scaled(a, *exp)
            }
            Draw::Poisson { dist, exp, min } => {
                let mut a = dist.sample(rng) as i64;
                // Only a linked number word has a minimum, and its Poisson mean is at least 10,
                // so a redraw is rare; the bound keeps the loop finite whatever the mean.
                for _ in 0..64 {
                    if a >= *min {
                        break;
                    }
                    a = dist.sample(rng) as i64;
                }
                scaled(a.max(*min), *exp)
            }
            Draw::Keep(v) => *v,
            Draw::Convert(h) => {
                let quarters = rng.random_range(1..=3);
                h.add(Num::ratio(quarters, 4).expect("four is non-zero"))
                    .unwrap_or(*h)
            }
            Draw::Choice(values) => values[rng.random_range(0..values.len())],
            Draw::Digits {
                h,
                digits,
                exp,
                no_trailing_zero,
            } => {
                let k = rng.random_range(1..=3u32);
                if rng.random_bool(0.5) {
                    // The value times 10^k: its digits kept, so that what divided it evenly
                    // or stayed below it still can ("16" becomes "1600").
                    return h.mul(Num::int(pow10(k))).unwrap_or(*h);
                }
                let n = digits + k;
                let (lo, hi) = (10i64.pow(n - 1), 10i64.pow(n) - 1);
                let mut a = rng.random_range(lo..=hi);
                while *no_trailing_zero && a % 10 == 0 {
                    a = rng.random_range(lo..=hi);
                }
                scaled(a, *exp)
            }
        }
    }
}
