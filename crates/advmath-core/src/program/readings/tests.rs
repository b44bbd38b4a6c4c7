use super::*;
use crate::num::wide::Value;
use crate::program::BinOp;
use crate::program::{validate_program, AlignMode};
use crate::question::find_slots;

fn given(question: &str, source: &str, gold: &str) -> Res<Program> {
    let slots = find_slots(question);
    validate_program(
        source,
        question,
        &slots,
        Value::parse_decimal(gold),
        AlignMode::Given,
        Links::DIGITS,
    )
}

/// The answer of the program when slot values are set by the question's own numbers, given as
/// `(slot, value)`: ties are applied as the generator applies them.
fn answer_with(p: &Program, question: &str, set: &[(u32, i128)]) -> String {
    let mut values: Vec<Num> = find_slots(question).iter().map(|s| s.value).collect();
    for &(s, v) in set {
        values[s as usize] = Num::int(v);
    }
    p.apply_ties(&mut values);
    p.eval_value(&values).unwrap().to_string()
}

#[test]
fn a_repeated_number_read_two_ways_is_tied() {
    // xie2024-gsm8k/test/174: twice Tuesday or twice Wednesday?
    let q = "Marcus sells 125 chimichangas on Tuesdays, 125 chimichangas on Wednesdays and twice as many on Friday. How many does he sell?";
    let src =
        "tuesday = 125\nwednesday = 125\nfriday = 2 * tuesday\nprint(tuesday + wednesday + friday)";
    let p = given(q, src, "500").unwrap();
    assert_eq!(p.variable_slots(), vec![0]);
    assert_eq!(
        p.ties,
        vec![Tie {
            slot: 1,
            follows: 0
        }]
    );
    // Any new value shows in both places, and the answer is the text's: 4 x 448.
    assert_eq!(answer_with(&p, q, &[(0, 448)]), "1792");
}

#[test]
fn a_repeated_number_read_one_way_stays_free() {
    let q = "Mary has 5 apples and 5 oranges. How many fruits does she have?";
    let p = given(q, "apples = 5\noranges = 5\nprint(apples + oranges)", "10").unwrap();
    assert!(p.ties.is_empty());
    assert_eq!(p.variable_slots(), vec![0, 1]);
}

#[test]
fn three_equal_numbers_in_a_quotient_are_tied() {
    // MultiArith 372: the dataset's alignment puts the first 5 on the capacity.
    let q = "Roger can only carry 5 trays at a time. He had to pick up 5 trays from one table and 5 trays from another. How many trips will he make?";
    let p = given(q, "print((5 + 5) / 5)", "2").unwrap();
    assert_eq!(p.variable_slots(), vec![0]);
    assert_eq!(p.ties.len(), 2);
    assert_eq!(answer_with(&p, q, &[(0, 86)]), "2");
}

#[test]
fn a_value_also_used_as_a_constant_stays_constant() {
    let q = "A box holds 4 pens and 4 pencils. Each pen costs 3 dollars. What is it all worth?";
    let slots = find_slots(q);
    // pens * 3 + 4, the second 4 a constant: which 4 the leaf reads cannot be told.
    let program = Program {
        nodes: vec![
            Node::Leaf { slot: 0 },
            Node::Const {
                value: Num::int(4),
                kind: ConstKind::Stated("4".into()),
            },
            Node::Leaf { slot: 2 },
            Node::Bin {
                op: crate::program::BinOp::Mul,
                lhs: 0,
                rhs: 2,
            },
            Node::Bin {
                op: crate::program::BinOp::Add,
                lhs: 3,
                rhs: 1,
            },
        ],
        answer: 4,
        ties: Vec::new(),
    };
    let p = settle(program, &slots, q, Links::DIGITS);
    assert_eq!(p.variable_slots(), vec![2]);
    assert!(p.ties.is_empty());
}

#[test]
fn a_number_the_program_ignores_refuses_the_problem() {
    let q = "He has 12 racquets. 3 of them need strings, 5 of them need grips and 4 of them need both. He charges $2 a racquet. How much does he earn?";
    let err = given(q, "print((3 + 5 + 4) * 2)", "24").unwrap_err();
    assert_eq!(err.kind, ErrorKind::UnusedNumber);
    assert!(err.detail.starts_with("12 appears 1 time(s)"), "{err}");
}

#[test]
fn percentages_and_fractions_read_as_their_value_are_used() {
    let q = "A $50 coat is 20% off and 3/4 of the buyers pay cash. What do they pay?";
    assert!(given(q, "print(50 * 0.8 * 0.75)", "30").is_ok());
}

#[test]
fn a_unit_s_length_is_a_constant_unless_asked() {
    let q = "He earns $20 a day. How much does he earn for a normal 30 day month?";
    let p = given(q, "print(20 * 30)", "600").unwrap();
    assert_eq!(p.variable_slots(), vec![0]);
    let slots = find_slots(q);
    let paper = validate_program(
        "print(20 * 30)",
        q,
        &slots,
        Value::parse_decimal("600"),
        AlignMode::Given,
        Links {
            unit_lengths: true,
            ..Links::DIGITS
        },
    )
    .unwrap();
    assert_eq!(paper.variable_slots(), vec![0, 1]);
}

#[test]
fn readings_are_bijections_when_counts_agree() {
    let r = readings(3, 3).unwrap();
    assert_eq!(r.len(), 6);
    assert!(r.iter().all(|x| {
        let mut y = x.clone();
        y.sort();
        y == vec![0, 1, 2]
    }));
    assert_eq!(readings(1, 2).unwrap().len(), 2);
}

#[test]
fn tied_readings_tell_the_readings_apart() {
    let q = "Marcus sells 125 chimichangas on Tuesdays, 125 chimichangas on Wednesdays and twice as many on Friday. How many does he sell?";
    let src =
        "tuesday = 125\nwednesday = 125\nfriday = 2 * tuesday\nprint(tuesday + wednesday + friday)";
    let p = given(q, src, "500").unwrap();
    let originals: Vec<Num> = find_slots(q).iter().map(|s| s.value).collect();
    let tied = tied_readings(&p, &originals);
    assert_eq!(tied.len(), 1);
    let t = &tied[0];
    assert_eq!(t.readings.len(), 2);
    assert!(t.readings.iter().all(|r| r.ties.is_empty()));
    let (tue, wed) = (t.slots[0], t.slots[1]);
    assert!(!tue.eq_num(wed));
    let twice = |x: Num| x.mul(Num::int(2)).unwrap();
    let expect = |x: Num| Value::Num(tue.add(wed).unwrap().add(twice(x)).unwrap());
    assert!(t.answers.contains(&expect(tue)) && t.answers.contains(&expect(wed)));
}

#[test]
fn a_stated_one_that_multiplies_or_divides_is_a_constant_unless_asked() {
    // "4 miles * 1 mph" and "4 miles / 1 mph" agree on the original numbers.
    let q = "Dia bikes 10 miles at 1 mph. How many hours does it take?";
    let p = given(q, "print(10 * 1)", "10").unwrap();
    assert_eq!(p.variable_slots(), vec![0]);
    assert_eq!(p.eval(&[Num::int(7), Num::int(3)]).unwrap(), Num::int(7));
    let slots = find_slots(q);
    let paper = validate_program(
        "print(10 * 1)",
        q,
        &slots,
        Value::parse_decimal("10"),
        AlignMode::Given,
        Links {
            factor_ones: true,
            ..Links::DIGITS
        },
    )
    .unwrap();
    assert_eq!(paper.variable_slots(), vec![0, 1]);
    // A fraction's 1 is not such a 1: its slash says what it does.
    let q = "Eve had 20 pomelos and kept 1/4 of them. How many did she keep?";
    let p = given(q, "print(20 * 1 / 4)", "5").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    // Nor is a 1 that is added to a count.
    let q = "Sam has 10 pens and buys 1 more. How many pens does he have?";
    let p = given(q, "print(10 + 1)", "11").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
}

#[test]
fn a_stated_one_that_a_share_is_added_to_is_a_constant_unless_asked() {
    // GSM8K test 661, as ToRA wrote it: the 1 of "1 + 20%" is the whole the increase raises, which
    // the question's "1 pound of coffee per day" equals by coincidence; linked, a variant's "79
    // pounds a day" would make the coffee 79.2 times its normal price.
    let q =
        "Coffee costs $5 per pound. The other brand costs 20% more. He buys a week's worth and \
             uses 1 pound per day. He also buys a donut for $2. How much did everything cost?";
    let src = "price = 5 * (1 + 0.20)\nprint(price * 7 + 2)";
    let p = given(q, src, "44").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 3]);
    let with = |pounds: i128| answer_with(&p, q, &[(2, pounds)]);
    assert_eq!(with(79), with(1), "the pounds a day stay out of the price");
    let slots = find_slots(q);
    let paper = validate_program(
        src,
        q,
        &slots,
        Value::parse_decimal("44"),
        AlignMode::Given,
        Links {
            factor_ones: true,
            ..Links::DIGITS
        },
    )
    .unwrap();
    assert_eq!(paper.variable_slots(), vec![0, 2, 3]);
}

fn paper(question: &str, source: &str, gold: &str) -> Program {
    validate_program(
        source,
        question,
        &find_slots(question),
        Value::parse_decimal(gold),
        AlignMode::Given,
        Links {
            halves: true,
            ..Links::DIGITS
        },
    )
    .unwrap()
}

#[test]
fn a_stated_half_that_multiplies_is_a_constant_unless_asked() {
    // gsm8k/test/821: the cars left are `70 * 1/2` only because 1/2 = 1 - 1/2; a variant's "1/4
    // had gone" leaves 3/4 of the cars, not 1/4.
    let q = "Hunter counted 50 cars. Then he counted 20 more cars. Then 1/2 the number of cars had gone. How many cars are left?";
    let src = "cars = 50 + 20\nprint(1 / 2 * cars)";
    let p = given(q, src, "35").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
    assert_eq!(answer_with(&p, q, &[(0, 30), (1, 10), (3, 4)]), "20");
    assert_eq!(paper(q, src, "35").variable_slots(), vec![0, 1, 2, 3]);
    // Dividing by the denominator is the same multiplication.
    let p = given(q, "cars = 50 + 20\nhalf = 1\nprint(cars * half / 2)", "35").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
    // A percentage of 50, and a half divided by, too ("x / (1/2)" is "x / (1 - 1/2)").
    let q = "A $60 shirt is 50% off. What does it cost now?";
    let p = given(q, "print(60 * 50 / 100)", "30").unwrap();
    assert_eq!(p.variable_slots(), vec![0]);
    let q = "After spending 1/2 of his money he has $35 left. How much did he have?";
    let p = given(q, "print(35 / (1 / 2))", "70").unwrap();
    assert_eq!(p.variable_slots(), vec![2]);
}

#[test]
fn halves_are_named_like_the_other_links() {
    let halves = Links::parse("halves").unwrap();
    assert!(halves.halves && !halves.factor_ones);
    assert_eq!(halves.name(), "digits,halves");
    assert!(Links::NAMES.contains(&"halves"));
    // `all` is the extensions; a half varies only when named.
    assert!(!Links::parse("all").unwrap().halves);
    assert!(Links::parse("all,halves").unwrap().halves);
}

#[test]
fn a_half_whose_program_shows_what_it_means_keeps_its_link() {
    // A share taken from or added to the quantity it is a share of: the complement is written.
    let q = "A 16 GB drive is 50% full. How many GB are free?";
    let p = given(q, "total = 16\nprint(total - total * 50 / 100)", "8").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
    assert_eq!(answer_with(&p, q, &[(0, 20), (1, 25)]), "15");
    let q = "Saturday she sold 60 boxes and Sunday 50% more. How many did she sell?";
    let src = "sat = 60\nsun = sat + sat * (50 / 100)\nprint(sat + sun)";
    assert_eq!(given(q, src, "150").unwrap().variable_slots(), vec![0, 1]);
    let q = "1/2 of the 70 cars had gone. How many are left?";
    // `cars * (1 - 1/2)`, the complement's 1 a constant of the program's own.
    let complement = Program {
        nodes: vec![
            Node::Leaf { slot: 2 },
            Node::Const {
                value: Num::ONE,
                kind: ConstKind::Unit("one whole".into()),
            },
            Node::Leaf { slot: 0 },
            Node::Leaf { slot: 1 },
            Node::Bin {
                op: BinOp::Div,
                lhs: 2,
                rhs: 3,
            },
            Node::Bin {
                op: BinOp::Sub,
                lhs: 1,
                rhs: 4,
            },
            Node::Bin {
                op: BinOp::Mul,
                lhs: 0,
                rhs: 5,
            },
        ],
        answer: 6,
        ties: Vec::new(),
    };
    let p = settle(complement, &find_slots(q), q, Links::DIGITS);
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    let p = given(q, "cars = 70\nprint(cars - cars * 1 / 2)", "35").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    assert_eq!(answer_with(&p, q, &[(1, 4)]), "52.5");
    // A half that is added is a measure, not a share.
    let q = "He walked 1/2 mile, then 3 miles. How far did he walk?";
    let p = given(q, "print(1 / 2 + 3)", "3.5").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    // Neither a mixed number's "1/2" nor a price of $0.50 is a half.
    let q = "Each cake takes 3 1/2 cups of flour. How much do 4 cakes take?";
    let p = given(q, "print((3 + 1 / 2) * 4)", "14").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2, 3]);
    let q = "Pens cost $0.50 each. What do 8 pens cost?";
    let p = given(q, "print(0.5 * 8)", "4").unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
}
