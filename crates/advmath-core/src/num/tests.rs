use super::*;

fn n(s: &str) -> Num {
    Num::parse_decimal(s).unwrap()
}

#[test]
fn decimal_arithmetic_is_exact() {
    assert_eq!(n("0.1").add(n("0.2")).unwrap().to_string(), "0.3");
    assert!(n("1.5").mul(n("4")).unwrap().is_integer());
    assert_eq!(n("10").div(n("4")).unwrap().to_string(), "2.5");
    assert_eq!(n("10").div(n("3")).unwrap().to_string(), "3.333333");
    assert!(n("2").div(n("3")).unwrap().is_proper_fraction());
}

#[test]
fn python_floor_semantics() {
    assert_eq!(n("-7").floordiv(n("2")).unwrap().to_string(), "-4");
    assert_eq!(n("-7").rem(n("2")).unwrap().to_string(), "1");
    assert_eq!(n("7").rem(n("-2")).unwrap().to_string(), "-1");
    assert_eq!(n("7.5").floordiv(n("2")).unwrap().to_string(), "3");
    assert_eq!(n("-2.5").trunc().to_string(), "-2");
    assert_eq!(n("2.1").ceil().to_string(), "3");
}

#[test]
fn round_half_even_like_python() {
    assert_eq!(n("2.5").round(0).unwrap().to_string(), "2");
    assert_eq!(n("3.5").round(0).unwrap().to_string(), "4");
    assert_eq!(n("2.675").round(2).unwrap().to_string(), "2.68");
    assert_eq!(n("1250").round(-2).unwrap().to_string(), "1200");
}

#[test]
fn division_by_zero_is_an_error() {
    assert_eq!(n("1").div(Num::ZERO), Err(EvalError::DivisionByZero));
    assert_eq!(n("1").rem(Num::ZERO), Err(EvalError::DivisionByZero));
}

#[test]
fn an_exact_value_past_the_range_is_an_error_not_a_float() {
    let big = Num::int(i128::MAX / 2);
    assert_eq!(big.mul(Num::int(4)), Err(EvalError::Overflow));
    assert_eq!(
        big.add(big).and_then(|s| s.add(big)),
        Err(EvalError::Overflow)
    );
    assert_eq!(Num::int(58).pow(Num::int(48)), Err(EvalError::Overflow));
    assert_eq!(Num::int(2).pow(Num::int(200)), Err(EvalError::Overflow));
    // In range, powers are exact however large the exponent.
    assert_eq!(
        Num::int(2).pow(Num::int(70)).unwrap().to_string(),
        "1180591620717411303424"
    );
    assert_eq!(Num::int(2).pow(Num::int(127)), Err(EvalError::Overflow));
    assert_eq!(Num::int(-1).pow(Num::int(1_000_001)).unwrap(), Num::int(-1));
    assert_eq!(Num::int(1).pow(Num::int(10_000)).unwrap(), Num::ONE);
    assert_eq!(
        n("0.5").pow(Num::int(-3)).unwrap(),
        Num::int(8),
        "negative exponents stay exact"
    );
    // Irrational results are still floats, and arithmetic on a float stays a float.
    let root = Num::int(2).sqrt().unwrap();
    assert!(!root.is_exact());
    assert!(!root.mul(big).unwrap().is_exact());
}

#[test]
fn parses_question_numbers() {
    assert_eq!(n("1,200").to_string(), "1200");
    assert_eq!(n(".5").to_string(), "0.5");
    assert_eq!(n("2.50").to_string(), "2.5");
    assert_eq!(n("1e3").to_string(), "1000");
    assert!(Num::parse_decimal("abc").is_none());
    assert!(Num::parse_decimal(".").is_none());
}

#[test]
fn decimal_parts_are_exact() {
    assert_eq!(n("0.57").decimal_parts(12), Some((57, -2)));
    assert_eq!(n("1.005").decimal_parts(12), Some((1005, -3)));
    assert_eq!(n("2400").decimal_parts(12), Some((24, 2)));
    // Found by the `number` fuzz target: 38 significant digits overflowed on the way.
    let big = n("55500440476388370006371544047638.837032");
    assert_eq!(
        big.decimal_parts(12),
        Some((55500440476388370006371544047638837032, -6))
    );
    assert_eq!(big.to_string(), "55500440476388370006371544047638.837032");
    assert_eq!(n("1").div(n("3")).unwrap().decimal_parts(12), None);
}
