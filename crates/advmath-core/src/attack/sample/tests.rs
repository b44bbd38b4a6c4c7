//! Tests of the numeric attacks: draws, constraints, the text's own constraints and seeds.

use super::*;
use crate::program::{validate_program, AlignMode, Links};
use crate::question::find_slots;

/// The program `src` validated against question `q` and its gold, and the question's numbers.
pub(crate) fn program(q: &str, src: &str, gold: &str) -> (Program, Vec<Num>) {
    let slots = find_slots(q);
    let p = validate_program(
        src,
        q,
        &slots,
        Value::parse_decimal(gold),
        AlignMode::Given,
        Links::DIGITS,
    )
    .unwrap();
    (p, slots.iter().map(|s| s.value).collect())
}

#[test]
fn decomposition_is_exact() {
    assert_eq!(
        decompose(Num::parse_decimal("0.57").unwrap()),
        Some((57, -2))
    );
    assert_eq!(
        decompose(Num::parse_decimal("1.005").unwrap()),
        Some((1005, -3))
    );
    assert_eq!(decompose(Num::int(3000)), Some((3, 3)));
}

#[test]
fn the_base_has_at_most_c_digits() {
    assert_eq!(at_most_digits(1234567, 0, 6), (123457, 1));
    assert_eq!(at_most_digits(9999995, -3, 6), (1, 4));
    assert_eq!(at_most_digits(125, -2, 6), (125, -2));
    // M3 on a 7-digit number: Poisson around its 6-digit base, times 10.
    let (p, orig) = program(
        "A town has 1234567 people and 3 parks.",
        "print(1234567 + 3)",
        "1234570",
    );
    let at = Attacker::new(&p, orig, Method::M3, 6).unwrap();
    let (drawn, _) = attack(&at, 1, 300, 50);
    assert!(!drawn.is_empty());
    for d in drawn {
        assert_eq!(d.slots[0].as_integer().unwrap() % 10, 0, "{:?}", d.slots);
    }
}

#[test]
fn m2_keeps_digit_counts() {
    let (p, orig) = program(
        "A 1.25 kg bag costs 320 dollars and 7 more.",
        "x = 1.25 * 320 + 7\nprint(x)",
        "407",
    );
    let at = Attacker::new(&p, orig, Method::M2, 6).unwrap();
    let (drawn, _) = attack(&at, 7, 2000, 500);
    assert!(!drawn.is_empty());
    for d in drawn {
        let (m0, _) = decompose(d.slots[0]).unwrap();
        assert_eq!(digit_count(m0), 3, "{:?}", d.slots[0]);
        assert_eq!(digit_count(d.slots[1].as_integer().unwrap()), 3);
        assert!((1..=99).contains(&d.slots[2].as_integer().unwrap()));
    }
}

#[test]
fn constraints_hold_and_answers_recompute() {
    let (p, orig) = program(
        "He has 120 apples, gives away 1/4 of them and packs the rest in bags of 6.",
        "a = 120\nleft = a - a * 1 / 4\nprint(left / 6)",
        "15",
    );
    for method in [Method::M1, Method::M2, Method::M3] {
        let at = Attacker::new(&p, orig.clone(), method, 6).unwrap();
        let (drawn, stats) = attack(&at, 11, 3000, 100);
        assert_eq!(stats.attempts, 3000);
        assert!(stats.unique >= drawn.len() as u64);
        for d in &drawn {
            let ans = p.eval(&d.slots).unwrap();
            assert_eq!(Value::Num(ans), d.answer);
            assert!(
                ans.is_integer() && ans.is_positive(),
                "{method:?} {:?}",
                d.slots
            );
        }
    }
}

/// xie2024-gsm8k/test/158: "4/5" once became "5/1". The fractions and the percentage the
/// question shows keep their constraints although no node of the program computes them.
#[test]
fn fractions_the_question_shows_stay_proper() {
    use crate::question::shown::text_constraints;
    // The age and the numerator of 4/5 are one number read two ways: tied, so both readings
    // have the same answer (see program::readings).
    let q = "Darcie is 4 years old. She is 1/6 as old as her mother and her mother is 4/5 as \
             old as her father. How old is her father?";
    let src = "d = 4\nm = d * 6\nf = (m / 4) * 5\nprint(f)";
    let (p, orig) = program(q, src, "30");
    let slots = find_slots(q);
    let text = text_constraints(q, &slots);
    assert_eq!(text.len(), 2, "{text:?}");
    for method in [Method::M1, Method::M2, Method::M3] {
        let at = Attacker::new(&p, orig.clone(), method, 6)
            .unwrap()
            .with_text_constraints(&text);
        let (drawn, stats) = attack(&at, 3, 5000, 100);
        assert!(!drawn.is_empty(), "{method:?}");
        for d in &drawn {
            let [_, one, six, four, five, ..] = d.slots[..] else {
                panic!()
            };
            assert!(one.div(six).unwrap().is_proper_fraction(), "{:?}", d.slots);
            assert!(
                four.div(five).unwrap().is_proper_fraction(),
                "{:?}",
                d.slots
            );
        }
        assert!(stats.rejections[Reject::NotProperFraction.index()] > 0);
    }
}

#[test]
fn a_linked_number_word_stays_plural() {
    use crate::program::{validate_program, AlignMode, Links};
    use crate::question::shown::text_constraints;
    let q = "Two friends share 60 apples. How many does each get?";
    let slots = find_slots(q);
    let words = Links {
        number_words: true,
        ..Links::DIGITS
    };
    let p = validate_program(
        "print(60 / 2)",
        q,
        &slots,
        Value::parse_decimal("30"),
        AlignMode::Given,
        words,
    )
    .unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
    let orig: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let at = Attacker::new(&p, orig, Method::M3, 6)
        .unwrap()
        .with_text_constraints(&text_constraints(q, &slots));
    let (drawn, _) = attack(&at, 9, 3000, 50);
    assert!(!drawn.is_empty());
    for d in drawn {
        assert!(d.slots[0].as_integer().unwrap() >= 2, "{:?}", d.slots);
    }
}

proptest::proptest! {
    /// M1 keeps a leaf's power of ten: 3000 = 3 * 10^3 becomes a' * 10^3 with a' up to 10^c,
    /// so values above 10^6 appear, every one a multiple of 1000 and at most 10^9.
    #[test]
    fn m1_keeps_the_power_of_ten(seed: u64) {
        let (p, orig) = program("A truck carries 3000 kg and 7 boxes.", "print(3000 + 7)", "3007");
        let at = Attacker::new(&p, orig, Method::M1, 6).unwrap();
        let (drawn, _) = attack(&at, seed, 200, 50);
        proptest::prop_assert_eq!(drawn.len(), 50);
        let mut above = 0;
        for d in &drawn {
            let v = d.slots[0].as_integer().unwrap();
            proptest::prop_assert!(v % 1000 == 0 && (1000..=1_000_000_000).contains(&v), "{}", v);
            above += usize::from(v > 1_000_000);
        }
        proptest::prop_assert!(above > 0, "no M1 draw of 3000 above 10^6");
    }
}

#[test]
fn m1_decimals_keep_their_scale() {
    let (p, orig) = program(
        "A pen costs 1.25 dollars and a cap 4 dollars.",
        "print(1.25 + 4)",
        "5.25",
    );
    let at = Attacker::new(&p, orig, Method::M1, 6).unwrap();
    let (drawn, _) = attack(&at, 3, 500, 20);
    assert!(!drawn.is_empty());
    for d in drawn {
        let (_, b) = decompose(d.slots[0]).unwrap();
        assert!(b >= -2, "{:?}", d.slots[0]);
    }
}

#[test]
fn same_seed_same_draws() {
    let (p, orig) = program("Tom has 15 apples and 27 pears.", "print(15 + 27)", "42");
    let at = Attacker::new(&p, orig, Method::M3, 6).unwrap();
    assert_eq!(attack(&at, 5, 500, 50), attack(&at, 5, 500, 50));
    assert_ne!(attack(&at, 5, 500, 50).0, attack(&at, 6, 500, 50).0);
}

#[test]
fn an_answer_without_an_exact_value_is_rejected() {
    // The square root of a square is exact; of anything else it is irrational, and a variant
    // whose gold answer has no exact text is never written.
    let (p, orig) = program(
        "A square tile has an area of 2.25 square feet. How long is its side?",
        "import math\nside = math.sqrt(2.25)\nprint(side)",
        "1.5",
    );
    let at = Attacker::new(&p, orig, Method::M3, 6).unwrap();
    let exact = |x: &str| Num::parse_decimal(x).unwrap();
    assert_eq!(
        at.check_slots(&[exact("2.56")]).map(|v| v.to_string()),
        Ok("1.6".to_string())
    );
    assert_eq!(at.check_slots(&[exact("2.5")]), Err(Reject::Domain));
    let (drawn, stats) = attack(&at, 7, 3000, 100);
    assert!(stats.rejections[Reject::Domain as usize] > 0, "{stats:?}");
    assert!(!drawn.is_empty());
    for d in drawn {
        let side = at.check_slots(&d.slots).unwrap();
        assert!(
            matches!(side, Value::Num(n) if n.is_exact()),
            "{:?} gives {side}",
            d.slots
        );
    }
}

/// Programs of one question: 4 + 2, and a second reading of it.
fn with_second(second: &str) -> (Program, Program, Vec<Num>) {
    let q = "Ann has 4 apples and buys 2 more. How many apples does she have?";
    let (first, orig) = program(q, "print(4 + 2)", "6");
    let (second, _) = program(q, second, "6");
    (first, second, orig)
}

#[test]
fn a_second_program_that_agrees_raises_each_variants_support() {
    let (first, second, orig) = with_second("x = 2 + 4\nprint(x)");
    let at = Attacker::new(&first, orig, Method::M2, 6)
        .unwrap()
        .with_supporters([&second]);
    let (drawn, stats) = attack(&at, 7, 300, 20);
    assert_eq!(drawn.len(), 20);
    assert!(drawn.iter().all(|d| d.support == 2), "{drawn:?}");
    assert_eq!(stats.rejections[Reject::Disagreement.index()], 0);
}

#[test]
fn a_second_program_that_reads_the_question_otherwise_rejects_where_they_differ() {
    // 4 + 2 and 4 + 2 * 2 - 2 both give 6, but only while the 2 is 2: the second program is built
    // from the first by hand, since no aligned program reads the 2 twice.
    let (first, _, orig) = with_second("x = 2 + 4\nprint(x)");
    let mut second = first.clone();
    let (four, two) = (0, 1);
    let n = second.nodes.len() as u32;
    second.nodes.extend([
        Node::Leaf { slot: four },
        Node::Leaf { slot: two },
        Node::Bin {
            op: BinOp::Mul,
            lhs: n + 1,
            rhs: n + 1,
        },
        Node::Bin {
            op: BinOp::Sub,
            lhs: n + 2,
            rhs: n + 1,
        },
        Node::Bin {
            op: BinOp::Add,
            lhs: n,
            rhs: n + 3,
        },
    ]);
    second.answer = n + 4;
    let at = Attacker::new(&first, orig, Method::M2, 6)
        .unwrap()
        .with_supporters([&second]);
    let (drawn, stats) = attack(&at, 7, 2000, 20);
    assert!(
        stats.rejections[Reject::Disagreement.index()] > 0,
        "{stats:?}"
    );
    assert!(!drawn.is_empty(), "M2 may keep the 2 and change the 4");
    for d in &drawn {
        assert_eq!(d.support, 2);
        assert!(d.slots[1].eq_num(Num::int(2)), "{d:?}");
    }
}

#[test]
fn a_program_that_keeps_a_changed_number_cannot_vouch_for_a_variant() {
    let (first, mut second, orig) = with_second("x = 2 + 4\nprint(x)");
    for node in &mut second.nodes {
        if let Node::Leaf { slot: 1 } = node {
            *node = Node::Const {
                value: Num::int(2),
                kind: crate::program::ConstKind::Literal,
            };
        }
    }
    let at = Attacker::new(&first, orig, Method::M2, 6)
        .unwrap()
        .with_supporters([&second]);
    assert_eq!(
        at.support_count(),
        1,
        "it does not read the 2 a variant changes"
    );
    let (drawn, _) = attack(&at, 7, 300, 20);
    assert!(drawn.iter().all(|d| d.support == 1));
}

/// A bound on a drawn number narrows its draw: M1 keeps its range up to the bound instead of
/// spending its attempts above it, and a bill is drawn among the bills that exist.
#[test]
fn a_reader_s_bound_narrows_the_draw() {
    use crate::attack::coherence::reader_rules;
    let q = "Sally bought 3 frames at $3 each. She paid with a $20 bill. Ann is 44 years old. \
             How much did Sally hand over and spend?";
    let src = "a = 44\nprint(20 + 3 * 3 + a - a)";
    let (p, orig) = program(q, src, "29");
    let slots = find_slots(q);
    let mut nodes = vec![Num::ZERO; p.nodes.len()];
    p.eval_into(&orig, &mut nodes).unwrap();
    let rules = reader_rules(q, &slots, &p, &nodes);
    let at = Attacker::new(&p, orig.clone(), Method::M1, 6)
        .unwrap()
        .with_reader_rules(&rules);
    let (drawn, stats) = attack(&at, 7, 3000, 100);
    assert_eq!(drawn.len(), 100, "{stats:?}");
    for d in &drawn {
        let bill = d.slots[2].as_integer().unwrap();
        assert!([1, 2, 5, 10, 20, 50, 100].contains(&bill), "{bill}");
        assert!(d.slots[3].cmp_num(Num::int(120)) != std::cmp::Ordering::Greater);
    }
    assert_eq!(stats.rejections[Reject::Denomination.index()], 0);
    assert_eq!(stats.rejections[Reject::UnitBound.index()], 0);
}

/// GSM-Plus's digit expansion: one number that can grow gains one to three digits (a decimal
/// at its scale), every other stays as written, a part below 1 and a percentage always do, and
/// the program recomputes the gold under the same constraints.
#[test]
fn digit_expansion_gains_one_to_three_digits() {
    use crate::question::shown::text_constraints;
    let q = "Ana buys 3 notebooks at $4.50 each and pays 20% tax on them. How many dollars \
             does she pay?";
    let src = "n = 3\np = 4.50\nt = 20\nprint(n * p * (1 + t / 100))";
    let (p, orig) = program(q, src, "16.2");
    let text = text_constraints(q, &find_slots(q));
    let at = Attacker::new(&p, orig.clone(), Method::Digits, 6)
        .unwrap()
        .with_text_constraints(&text);
    let (drawn, _) = attack(&at, 5, 3000, 100);
    assert_eq!(drawn.len(), 100);
    let mut gained = std::collections::BTreeSet::new();
    let mut grew = [0; 2];
    for d in &drawn {
        let changed: Vec<bool> = (0..2).map(|i| !d.slots[i].eq_num(orig[i])).collect();
        assert_eq!(changed.iter().filter(|&&c| c).count(), 1, "{:?}", d.slots);
        if changed[0] {
            grew[0] += 1;
            let n = d.slots[0].as_integer().unwrap();
            assert!((10..=9999).contains(&n), "{:?}", d.slots);
            gained.insert(digit_count(n) - 1);
        } else {
            grew[1] += 1;
            // $4.50 times 10, 100 or 1000, or drawn with its one decimal and two to four
            // digits before it.
            let times = d.slots[1].div(orig[1]).unwrap();
            let (mantissa, exp) = decompose(d.slots[1]).unwrap();
            assert!(
                [10, 100, 1000].iter().any(|&t| times.eq_num(Num::int(t)))
                    || (exp == -1 && (3..=5).contains(&digit_count(mantissa))),
                "{:?}",
                d.slots[1]
            );
        }
        assert!(
            d.slots[2].eq_num(orig[2]),
            "the percentage stays: {:?}",
            d.slots
        );
        assert_eq!(Value::Num(p.eval(&d.slots).unwrap()), d.answer);
    }
    assert_eq!(gained.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    // Each number is the one that grows about as often (100 variants: 50 each expected).
    assert!(grew.iter().all(|&g| g >= 30), "{grew:?}");
    // A part below 1 is no quantity that gains digits.
    let half = Num::parse_decimal("0.5").unwrap();
    assert!(matches!(
        Draw::plan(Method::Digits, half, false, 6),
        Draw::Keep(_)
    ));
}

#[test]
fn digit_expansion_keeps_a_bounded_count_and_a_real_bill() {
    let (p, orig) = program(
        "He works 5 days a week for 12 weeks and pays with a $20 bill.",
        "print(5 * 12 + 20)",
        "80",
    );
    let plan = |i: usize, bound: Option<Num>| {
        Draw::plan(Method::Digits, orig[i], false, 6).bounded_by(bound)
    };
    // Five days of a seven-day week cannot gain a digit: kept.
    assert!(matches!(plan(0, Some(Num::int(7))), Draw::Keep(v) if v.eq_num(Num::int(5))));
    // A $20 bill gains a digit only as a bill that exists.
    let bill = Draw::plan(Method::Digits, orig[2], false, 6).one_of(&[1, 5, 10, 20, 50, 100]);
    assert!(matches!(bill, Draw::Choice(ref v) if v.len() == 1 && v[0].eq_num(Num::int(100))));
    assert!(matches!(plan(1, None), Draw::Keep(_)));
    // Twelve under a bound of 1000 draws the longer numbers within it.
    assert!(matches!(
        plan(1, Some(Num::int(1000))),
        Draw::Uniform {
            lo: 100,
            hi: 1000,
            exp: 0,
            ..
        }
    ));
    let _ = p;
}
