//! Tests of program alignment and validation.

use super::*;
use crate::question::find_slots;

fn check(q: &str, src: &str, gold: &str, mode: AlignMode) -> Res<Program> {
    check_linked(q, src, gold, mode, Links::DIGITS)
}

fn check_linked(q: &str, src: &str, gold: &str, mode: AlignMode, links: Links) -> Res<Program> {
    let slots = find_slots(q);
    validate_program(src, q, &slots, Value::parse_decimal(gold), mode, links)
}

const ALL: Links = Links {
    number_words: true,
    percentages: true,
    fractions: true,
    unit_lengths: false,
    factor_ones: false,
    halves: false,
};

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
fn percentages_become_expressions_of_the_leaf_only_when_asked() {
    let q = "A $50 coat is 20% off.";
    let linked = Links {
        percentages: true,
        ..Links::DIGITS
    };
    let p = check_linked(q, "print(50 * 0.8)", "40", AlignMode::Synthesised, linked).unwrap();
    // Changing 20% to 50% changes the answer.
    assert_eq!(p.eval(&[Num::int(50), Num::int(50)]).unwrap(), Num::int(25));
    // By default the percentage and its fraction both stay as they are.
    for mode in [AlignMode::Synthesised, AlignMode::Given] {
        let p = check(q, "print(50 * 0.8)", "40", mode).unwrap();
        assert_eq!(p.variable_slots(), vec![0], "{mode:?}");
    }
}

#[test]
fn number_words_stay_constants_by_default() {
    // xie2024-gsm8k/test/80: the program's 2 is "twice", not "the two farms".
    let q = "Farmer Brown's farm is 200 acres, and Farmer Smith's farm is 100 acres more than \
             twice that. How many acres do the two farms have, together?";
    let src = "a = 200\ns = (2 * a) + 100\nprint(a + s)";
    for links in [Links::DIGITS, ALL] {
        let p = check_linked(q, src, "700", AlignMode::Given, links).unwrap();
        assert_eq!(p.variable_slots(), vec![0, 1], "{links:?}");
    }
}

#[test]
fn a_number_word_links_only_when_it_is_the_only_statement_of_its_value() {
    let q = "Four friends share 20 apples equally. How many does each get?";
    let src = "print(20 / 4)";
    let p = check(q, src, "5", AlignMode::Given).unwrap();
    assert_eq!(p.variable_slots(), vec![1]);
    let words = Links {
        number_words: true,
        ..Links::DIGITS
    };
    let p = check_linked(q, src, "5", AlignMode::Given, words).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
    // "a quarter" states 4 again: the word is no longer certain.
    let q2 = "Four friends share 20 apples; a quarter of them are red. How many each?";
    let p = check_linked(q2, src, "5", AlignMode::Given, words).unwrap();
    assert_eq!(p.variable_slots(), vec![1]);
    // A numerator of a written fraction is not a count.
    let q3 = "Three fourths of 20 apples are red. How many are red?";
    let p = check_linked(q3, "print(20 * 3 / 4)", "15", AlignMode::Given, words).unwrap();
    assert_eq!(p.variable_slots(), vec![1]);
}

#[test]
fn synthesised_programs_never_link_a_value_stated_twice() {
    let q = "He buys 2 pens at $2 each and 3 pads. How much for pens?";
    let p = check(q, "print(2 * 2)", "4", AlignMode::Synthesised);
    // Nothing of the question varies: both 2s are stated twice.
    assert_eq!(p.unwrap_err().kind, ErrorKind::NumberMisalignment);
    let p = check(q, "print(2 * 2 + 3)", "7", AlignMode::Synthesised).unwrap();
    assert_eq!(p.variable_slots(), vec![2]);
    // A given program follows the paper's counting rule.
    let p = check(q, "print(2 * 2 + 3)", "7", AlignMode::Given).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
}

#[test]
fn unit_fractions_are_rewritten_only_when_asked() {
    let q = "Megan has read 32 books. Kelcie has read 1/4 the amount. How many did Kelcie read?";
    let src = "print(32 / 4)";
    let p = check(q, src, "8", AlignMode::Given).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 2]);
    let fractions = Links {
        fractions: true,
        ..Links::DIGITS
    };
    let p = check_linked(q, src, "8", AlignMode::Given, fractions).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    // 32 / (4 / 2): "2/4 the amount" is 16.
    let v = p.eval(&[Num::int(32), Num::int(2), Num::int(4)]).unwrap();
    assert_eq!(v, Num::int(16));
}

#[test]
fn links_parse_from_their_names() {
    assert_eq!(Links::parse("").unwrap(), Links::DIGITS);
    assert_eq!(Links::parse("digits").unwrap(), Links::DIGITS);
    assert_eq!(Links::parse("all").unwrap(), ALL);
    assert_eq!(
        Links::parse("percentages, number-words").unwrap().name(),
        "digits,number-words,percentages"
    );
    assert!(Links::parse("words").unwrap_err().contains("number-words"));
}

#[test]
fn synthesised_constants_need_a_reason() {
    // 7 is a unit constant (days per week); "two" is a number word, a constant by default and a
    // slot when number words are linked.
    let q = "Tom reads 3 pages a day. How many in two weeks?";
    let ok = check(q, "print(3 * 7 * 2)", "42", AlignMode::Synthesised).unwrap();
    assert_eq!(ok.variable_slots(), vec![0]);
    let words = Links {
        number_words: true,
        ..Links::DIGITS
    };
    let ok = check_linked(q, "print(3 * 7 * 2)", "42", AlignMode::Synthesised, words).unwrap();
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

/// The answer is picked as the authors' visitor picks it: the last print that shows it, and
/// inside a call written in the print, the argument (the call only when every argument differs
/// from its value).
#[test]
fn the_answer_is_the_last_print_showing_it_looked_through_calls() {
    let q = "Sam has half of Chris's 6 cars and Elon 10 more. How many does Elon have?";
    let src = "s = 6 / 2\ne = s + 10\nprint('Elon has', int(e), 'cars')";
    let p = check(q, src, "13", AlignMode::Given).unwrap();
    // The answer node is e, not int(e): 7 / 2 + 10 is 13.5, which int() would truncate.
    assert_eq!(
        p.eval(&[Num::int(7), Num::int(10)]).unwrap().to_string(),
        "13.5"
    );
    // Nested calls are searched through; a literal argument is never the answer.
    let src = "s = 6 / 2\ne = s + 10\nprint(int(float(round(e, 0))))";
    let p = check(q, src, "13", AlignMode::Given).unwrap();
    assert_eq!(
        p.eval(&[Num::int(7), Num::int(10)]).unwrap().to_string(),
        "13.5"
    );
    // round() of an inexact value differs from it: the call stays.
    let q = "10 apples shared by 3 children. How many each, to the cent?";
    let p = check(q, "print(round(10 / 3, 2))", "3.33", AlignMode::Given).unwrap();
    assert_eq!(
        p.eval(&[Num::int(20), Num::int(3)]).unwrap().to_string(),
        "6.67"
    );
    // Two prints show the answer: the last one is it.
    let q = "Weng earns $12 an hour and works 50 minutes. How much does she earn?";
    let src = "r = 12\nm = 50\nw = int(r * m / 60)\nprint(w)\nexact = r * (m / 60)\nprint(exact)";
    let p = check(q, src, "10", AlignMode::Given).unwrap();
    assert_eq!(
        p.eval(&[Num::int(13), Num::int(50)]).unwrap().exact_text(),
        "65/6"
    );
}

#[test]
fn fifty_percent_off_and_fifty_percent_of_are_not_told_apart() {
    let q = "A $8 shirt is 50% off. What does it cost?";
    let p = check_linked(q, "print(8 * 0.5)", "4", AlignMode::Given, ALL).unwrap();
    assert_eq!(p.variable_slots(), vec![0], "0.5 stays a constant");
    let q = "A $8 shirt is 40% off. What does it cost?";
    let p = check_linked(q, "print(8 * 0.6)", "4.8", AlignMode::Given, ALL).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
}

#[test]
fn a_program_s_own_answer_is_read_as_the_gold_check_reads_it() {
    let answer = |src: &str| computed_answer(src).map(|v| v.to_string());
    assert_eq!(
        answer("a = 320 + 430\nb = 400 + 300\nprint(a + 430 + b)").unwrap(),
        "1880"
    );
    // The last value printed, else the last assigned.
    assert_eq!(answer("x = 3\nprint(x * 2)\nprint(x * 5)").unwrap(), "15");
    assert_eq!(answer("x = 3\ny = x / 2").unwrap(), "1.5");
    assert!(answer("x = 1 / 0\nprint(x)").is_err());
}
