//! Tests of program alignment and validation.

use super::*;
use crate::question::find_slots;

fn check(q: &str, src: &str, gold: &str, mode: AlignMode) -> Res<Program> {
    let slots = find_slots(q);
    validate_program(src, q, &slots, Value::parse_decimal(gold), mode)
}

#[test]
fn links_literals_to_slots() {
    let q = "Pam has 10 bags with 3 boxes of 40 apples each.";
    let p = check(
        q,
        "a = 10\nb = 3 * 40\nprint(f'{a * b} apples')",
        "1200",
        AlignMode::Given,
    )
    .unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    let v = p.eval(&[Num::int(2), Num::int(5), Num::int(7)]).unwrap();
    assert_eq!(v, Num::int(70));
}

#[test]
fn repeated_values_must_agree_in_count() {
    let q = "In 2004 there were 60 kids; in 2005 half of 2004's count came.";
    let err = check(q, "a = 60\nb=a/2\nc=2004\nprint(b)", "30", AlignMode::Given).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NumberMisalignment);
    let q2 = "He has 5 red and 5 blue balls and 2 bags.";
    let p = check(
        q2,
        "r = 5\nb = 5\nprint((r + b) * 2)",
        "20",
        AlignMode::Given,
    )
    .unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
}

#[test]
fn percentages_become_expressions_of_the_leaf() {
    let q = "A $50 coat is 20% off.";
    let p = check(q, "print(50 * 0.8)", "40", AlignMode::Synthesised).unwrap();
    // Changing 20% to 50% changes the answer.
    assert_eq!(p.eval(&[Num::int(50), Num::int(50)]).unwrap(), Num::int(25));
}

#[test]
fn synthesised_constants_need_a_reason() {
    // 7 is a unit constant (days per week); "two" is a number word, linked as a slot.
    let q = "Tom reads 3 pages a day. How many in two weeks?";
    let ok = check(q, "print(3 * 7 * 2)", "42", AlignMode::Synthesised).unwrap();
    assert_eq!(ok.variable_slots(), vec![0, 1]);
    // Twice "two" in the question but once in the program: the word stays a constant.
    let q2 = "Tom reads 3 pages a day for two weeks, two times a year.";
    let ok = check(q2, "print(3 * 7 * 2)", "42", AlignMode::Synthesised).unwrap();
    assert_eq!(ok.variable_slots(), vec![0]);
    let err = check(
        "Tom reads 3 pages.",
        "print(3 * 17)",
        "51",
        AlignMode::Synthesised,
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::UnresolvedConstant);
    assert!(check(
        "Tom reads 3 pages.",
        "print(3 * 17)",
        "51",
        AlignMode::Given
    )
    .is_ok());
}

#[test]
fn taxonomy() {
    let q = "He has 5 apples.";
    let kind = |src: &str| check(q, src, "5", AlignMode::Given).unwrap_err().kind;
    assert_eq!(
        kind("x = 0\nwhile x < 5:\n    x += 1\nprint(x)"),
        ErrorKind::HasLoop
    );
    assert_eq!(
        kind("x = 5\nif x > 1:\n    x = 5\nprint(x)"),
        ErrorKind::HasBranch
    );
    assert_eq!(kind("x = 5\ny = x > 2\nprint(x)"), ErrorKind::HasComparison);
    assert_eq!(kind("x = 5\nprint(x + 1)"), ErrorKind::WrongAnswer);
    assert_eq!(kind("import os\nx = 5\nprint(x)"), ErrorKind::Unsupported);
    assert_eq!(kind("x = 5\nexec('x=1')\nprint(x)"), ErrorKind::Unsupported);
    assert_eq!(kind("x = (5\nprint(x)"), ErrorKind::ParseError);
    assert_eq!(kind("x = 5 / 0\nprint(x)"), ErrorKind::EvalError);
    assert_eq!(
        check(
            q,
            "x = 1000000000000000000000000000000\nprint(5)",
            "5",
            AlignMode::Given
        )
        .unwrap_err()
        .kind,
        ErrorKind::Unsupported
    );
}

#[test]
fn print_forms() {
    let q = "He has 5 apples and buys 3.";
    for src in [
        "t = 5 + 3\nprint(t)",
        "t = 5 + 3\nprint(f'He has {t} apples')",
        "t = 5 + 3\nprint('He has ' + str(t) + ' apples')",
        "t = 5 + 3\nprint('He has {} apples'.format(t))",
        "t = 5 + 3\nprint('He has', t, 'apples')",
        "import math\nt = math.ceil(5 + 3)\nprint(t)",
    ] {
        let p = check(q, src, "8", AlignMode::Given).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(
            p.eval(&[Num::int(1), Num::int(2)]).unwrap(),
            Num::int(3),
            "{src}"
        );
    }
}
