use super::*;
use crate::num::wide::Value;
use crate::program::{validate_program, AlignMode, Links};
use crate::question::find_slots;

/// A given program read as the paper reads it: every number in digits a leaf, a 1 that divides
/// ("r1 = a / b" with a = 1) included.
pub(super) fn program(question: &str, src: &str, gold: &str) -> Program {
    validate_program(
        src,
        question,
        &find_slots(question),
        Value::parse_decimal(gold),
        AlignMode::Given,
        Links {
            factor_ones: true,
            ..Links::DIGITS
        },
    )
    .unwrap_or_else(|e| panic!("{question}: {e}"))
}

pub(super) fn nums(texts: &[&str]) -> Vec<Num> {
    texts
        .iter()
        .map(|t| Num::parse_decimal(t).unwrap_or_else(|| panic!("{t}")))
        .collect()
}

/// The expected row: the listed features, every other one 0.
fn expected(nonzero: &[(&str, f64)]) -> [f64; FEATURE_COUNT] {
    let mut out = [0.0; FEATURE_COUNT];
    for (name, v) in nonzero {
        let i = feature_index(name).unwrap_or_else(|| panic!("no feature {name}"));
        assert_eq!(out[i], 0.0, "{name} listed twice");
        assert_ne!(*v, 0.0, "{name}: list only non-zero values");
        out[i] = *v;
    }
    out
}

struct Case {
    name: &'static str,
    got: [f64; FEATURE_COUNT],
    want: [f64; FEATURE_COUNT],
}

fn case(name: &'static str, p: &Program, slots: &[&str], want: &[(&str, f64)]) -> Case {
    Case {
        name,
        got: compute(p, &nums(slots)).unwrap_or_else(|e| panic!("{name}: {e}")),
        want: expected(want),
    }
}

/// Six programs, ten (program, numbers) cases, every value worked out by hand. Features not
/// listed are 0.
fn fixtures() -> Vec<Case> {
    // F1: a chain of additions whose intermediate results visit every range bin.
    let chain = program(
        "The store sold 1 pen, 5 pads, 20 cups, 100 forks, 300 plates, 1000 bags, 5000 clips, \
         10000 pins and 50000 beads. How many items?",
        "a = 1\nb = 5\nc = 20\nd = 100\ne = 300\nf = 1000\ng = 5000\nh = 10000\nk = 50000\n\
         r1 = a / b\nr2 = b - a\nr3 = c + r2\nr4 = d + r3\nr5 = e + r4\nr6 = f + r5\n\
         r7 = g + r6\nr8 = h + r7\nr9 = k + r8\nprint(r9 + r1)",
        "66424.2",
    );
    // F2: floor division, modulo, unary minus, round, power and a constant; negative answer.
    let club = program(
        "A club has 17 members and 5 teams. The fee is 2.5 dollars.",
        "members = 17\nteams = 5\nfee = 2.5\nt = members // teams\nr = members % teams\n\
         n = -r\nm = fee * t\nk = round(m)\np = k ** 2\nprint(n - p)",
        "-66",
    );
    // F3: one division.
    let pie = program(
        "A pie is cut into 8 slices and Sam eats 3 of them. What part of the pie did he eat?",
        "print(3 / 8)",
        "0.375",
    );
    // F4: abs and max over a negative intermediate result.
    let stickers = program(
        "Ann has 250 stickers. She gives 40 to Bob and 300 to Cal.",
        "a = 250\nd = a - 300\ne = abs(d)\nf = max(e, 40)\nprint(a + f)",
        "300",
    );
    // F5: a percentage with the constants 1 and 100.
    let coat = program(
        "A coat costs 2400 dollars and is 25% off. What is the sale price?",
        "price = 2400\noff = 25 / 100\nprint(price * (1 - off))",
        "1800",
    );
    // F6: one product.
    let boxes = program(
        "There are 12 boxes with 640 apples in each box. How many apples are there?",
        "print(12 * 640)",
        "7680",
    );
    vec![
        case(
            "F1 chain",
            &chain,
            &[
                "1", "5", "20", "100", "300", "1000", "5000", "10000", "50000",
            ],
            &[
                ("add", 8.0),                  // r3..r9 and the answer r9 + r1
                ("sub", 1.0),                  // r2 = 5 - 1
                ("div", 1.0),                  // r1 = 1 / 5
                ("operation_count", 10.0),     // r1..r9 and the answer
                ("var_count", 9.0),            // the nine question numbers, each one node
                ("node_count", 19.0),          // 10 operations + 9 leaves
                ("tree_depth", 10.0),          // answer > r9 > r8 > ... > r3 > r2 > leaf
                ("int_result_ops", 8.0),       // r2..r9; r1 = 0.2 and the answer are not
                ("answer_digits", 6.0),        // "66424.2"
                ("answer_sig_digits", 6.0),    // 664242
                ("answer_range_ge32k", 1.0),   // 66424.2
                ("leaf_int_count", 9.0),       // all leaves are integers
                ("leaf_max_digits", 5.0),      // "10000", "50000"
                ("leaf_range_lt2", 1.0),       // 1
                ("leaf_range_2_8", 1.0),       // 5
                ("leaf_range_8_32", 1.0),      // 20
                ("leaf_range_32_128", 1.0),    // 100
                ("leaf_range_128_512", 1.0),   // 300
                ("leaf_range_512_2k", 1.0),    // 1000
                ("leaf_range_2k_8k", 1.0),     // 5000
                ("leaf_range_8k_32k", 1.0),    // 10000
                ("leaf_range_ge32k", 1.0),     // 50000
                ("inter_int_count", 8.0),      // r2..r9
                ("inter_float_count", 1.0),    // r1 = 0.2
                ("inter_fraction_count", 1.0), // r1 = 0.2
                ("inter_range_lt2", 1.0),      // r1 = 0.2
                ("inter_range_2_8", 1.0),      // r2 = 4
                ("inter_range_8_32", 1.0),     // r3 = 24
                ("inter_range_32_128", 1.0),   // r4 = 124
                ("inter_range_128_512", 1.0),  // r5 = 424
                ("inter_range_512_2k", 1.0),   // r6 = 1424
                ("inter_range_2k_8k", 1.0),    // r7 = 6424
                ("inter_range_8k_32k", 1.0),   // r8 = 16424
                ("inter_range_ge32k", 1.0),    // r9 = 66424
            ],
        ),
        case(
            "F2 club, original numbers",
            &club,
            &["17", "5", "2.5"],
            &[
                ("sub", 1.0),                  // answer n - p
                ("mul", 1.0),                  // m = 2.5 * 3
                ("floordiv", 1.0),             // t = 17 // 5 = 3 (17 / 5 is not an integer)
                ("mod", 1.0),                  // r = 17 % 5 = 2
                ("func", 3.0),                 // n = -r, k = round(m), p = k ** 2
                ("operation_count", 7.0),      // t, r, n, m, k, p, answer
                ("var_count", 3.0),            // 17, 5, 2.5
                ("const_count", 1.0),          // the exponent 2
                ("node_count", 11.0),          // 7 + 3 + 1
                ("tree_depth", 6.0),           // answer > p > k > m > t > leaf
                ("int_result_ops", 6.0), // t=3, r=2, n=-2, k=8, p=64, answer=-66 (m=7.5 is not)
                ("answer_is_int", 1.0),  // -66
                ("answer_is_negative", 1.0), // -66
                ("answer_digits", 2.0),  // "-66"
                ("answer_sig_digits", 2.0), // 66
                ("answer_range_32_128", 1.0), // |-66|
                ("leaf_int_count", 2.0), // 17, 5
                ("leaf_float_count", 1.0), // 2.5
                ("leaf_max_digits", 2.0), // "17", "2.5"
                ("leaf_range_2_8", 2.0), // 5, 2.5
                ("leaf_range_8_32", 1.0), // 17
                ("inter_int_count", 5.0), // t=3, r=2, n=-2, k=8 (round half even of 7.5), p=64
                ("inter_float_count", 1.0), // m = 7.5
                ("inter_negative_count", 1.0), // n = -2
                ("inter_range_2_8", 4.0), // t=3, r=2, |n|=2, m=7.5
                ("inter_range_8_32", 1.0), // k = 8
                ("inter_range_32_128", 1.0), // p = 64
            ],
        ),
        case(
            "F2 club, 20 members: 20 // 5 divides evenly and counts as div",
            &club,
            &["20", "5", "2.5"],
            &[
                ("sub", 1.0),                 // answer n - p = 0 - 100
                ("mul", 1.0),                 // m = 2.5 * 4
                ("div", 1.0),                 // t = 20 // 5 = 4, divides evenly
                ("mod", 1.0),                 // r = 20 % 5 = 0
                ("func", 3.0),                // n = -0, k = round(10), p = 10 ** 2
                ("operation_count", 7.0),     // as above
                ("var_count", 3.0),           // 20, 5, 2.5
                ("const_count", 1.0),         // the exponent 2
                ("node_count", 11.0),         // 7 + 3 + 1
                ("tree_depth", 6.0),          // the same tree
                ("int_result_ops", 7.0),      // t=4, r=0, n=0, m=10, k=10, p=100, answer=-100
                ("answer_is_int", 1.0),       // -100
                ("answer_is_negative", 1.0),  // -100
                ("answer_digits", 3.0),       // "-100"
                ("answer_sig_digits", 1.0),   // 1 (an integer's trailing zeros are stripped)
                ("answer_range_32_128", 1.0), // |-100|
                ("leaf_int_count", 2.0),      // 20, 5
                ("leaf_float_count", 1.0),    // 2.5
                ("leaf_max_digits", 2.0),     // "20", "2.5"
                ("leaf_range_2_8", 2.0),      // 5, 2.5
                ("leaf_range_8_32", 1.0),     // 20
                ("inter_int_count", 6.0),     // t=4, r=0, n=0, m=10, k=10, p=100
                ("inter_range_lt2", 2.0),     // r = 0, n = 0
                ("inter_range_2_8", 1.0),     // t = 4
                ("inter_range_8_32", 2.0),    // m = 10, k = 10
                ("inter_range_32_128", 1.0),  // p = 100
            ],
        ),
        case(
            "F3 pie, original numbers",
            &pie,
            &["8", "3"],
            &[
                ("div", 1.0),               // 3 / 8
                ("operation_count", 1.0),   // the answer
                ("var_count", 2.0),         // 3, 8
                ("node_count", 3.0),        // 1 + 2
                ("tree_depth", 2.0),        // answer > leaf
                ("answer_digits", 4.0),     // "0.375"
                ("answer_sig_digits", 3.0), // 375 (the leading zero is stripped)
                ("answer_range_lt2", 1.0),  // 0.375
                ("leaf_int_count", 2.0),    // 3, 8
                ("leaf_max_digits", 1.0),   // "3", "8"
                ("leaf_range_2_8", 1.0),    // 3
                ("leaf_range_8_32", 1.0),   // 8
            ],
        ),
        case(
            "F3 pie, 20 of 4 slices",
            &pie,
            &["4", "20"],
            &[
                ("div", 1.0),               // 20 / 4
                ("operation_count", 1.0),   // the answer
                ("var_count", 2.0),         // 20, 4
                ("node_count", 3.0),        // 1 + 2
                ("tree_depth", 2.0),        // answer > leaf
                ("int_result_ops", 1.0),    // 20 / 4 = 5
                ("answer_is_int", 1.0),     // 5
                ("answer_digits", 1.0),     // "5"
                ("answer_sig_digits", 1.0), // 5
                ("answer_range_2_8", 1.0),  // 5
                ("leaf_int_count", 2.0),    // 20, 4
                ("leaf_max_digits", 2.0),   // "20"
                ("leaf_range_2_8", 1.0),    // 4
                ("leaf_range_8_32", 1.0),   // 20
            ],
        ),
        case(
            "F3 pie, 25 of 2 slices",
            &pie,
            &["2", "25"],
            &[
                ("div", 1.0),               // 25 / 2
                ("operation_count", 1.0),   // the answer
                ("var_count", 2.0),         // 25, 2
                ("node_count", 3.0),        // 1 + 2
                ("tree_depth", 2.0),        // answer > leaf
                ("answer_digits", 3.0),     // "12.5"
                ("answer_sig_digits", 3.0), // 125
                ("answer_range_8_32", 1.0), // 12.5
                ("leaf_int_count", 2.0),    // 25, 2
                ("leaf_max_digits", 2.0),   // "25"
                ("leaf_range_2_8", 1.0),    // 2
                ("leaf_range_8_32", 1.0),   // 25
            ],
        ),
        case(
            "F4 stickers",
            &stickers,
            &["250", "40", "300"],
            &[
                ("add", 1.0),                  // answer a + f
                ("sub", 1.0),                  // d = 250 - 300
                ("func", 2.0),                 // e = abs(d), f = max(e, 40)
                ("operation_count", 4.0),      // d, e, f, answer
                ("var_count", 3.0),            // 250 (read twice, one node), 40, 300
                ("node_count", 7.0),           // 4 + 3
                ("tree_depth", 5.0),           // answer > f > e > d > leaf
                ("int_result_ops", 4.0),       // d=-50, e=50, f=50, answer=300
                ("answer_is_int", 1.0),        // 300
                ("answer_digits", 3.0),        // "300"
                ("answer_sig_digits", 1.0),    // 3
                ("answer_range_128_512", 1.0), // 300
                ("leaf_int_count", 3.0),       // 250, 40, 300
                ("leaf_max_digits", 3.0),      // "250", "300"
                ("leaf_range_32_128", 1.0),    // 40
                ("leaf_range_128_512", 2.0),   // 250, 300
                ("inter_int_count", 3.0),      // d, e, f
                ("inter_negative_count", 1.0), // d = -50
                ("inter_range_32_128", 3.0),   // |d| = e = f = 50
            ],
        ),
        case(
            "F5 coat",
            &coat,
            &["2400", "25"],
            &[
                ("sub", 1.0),                  // w = 1 - off
                ("mul", 1.0),                  // answer price * w
                ("div", 1.0),                  // off = 25 / 100
                ("operation_count", 3.0),      // off, w, answer
                ("var_count", 2.0),            // 2400, 25
                ("const_count", 2.0),          // 100, 1
                ("node_count", 7.0),           // 3 + 2 + 2
                ("tree_depth", 4.0),           // answer > w > off > leaf
                ("int_result_ops", 1.0),       // the answer 1800
                ("answer_is_int", 1.0),        // 1800
                ("answer_digits", 4.0),        // "1800"
                ("answer_sig_digits", 2.0),    // 18
                ("answer_range_512_2k", 1.0),  // 1800
                ("leaf_int_count", 2.0),       // 2400, 25
                ("leaf_max_digits", 4.0),      // "2400"
                ("leaf_range_8_32", 1.0),      // 25
                ("leaf_range_2k_8k", 1.0),     // 2400
                ("inter_float_count", 2.0),    // off = 0.25, w = 0.75
                ("inter_fraction_count", 2.0), // off = 0.25, w = 0.75
                ("inter_range_lt2", 2.0),      // off = 0.25, w = 0.75
            ],
        ),
        case(
            "F6 boxes",
            &boxes,
            &["12", "640"],
            &[
                ("mul", 1.0),                // 12 * 640
                ("operation_count", 1.0),    // the answer
                ("var_count", 2.0),          // 12, 640
                ("node_count", 3.0),         // 1 + 2
                ("tree_depth", 2.0),         // answer > leaf
                ("int_result_ops", 1.0),     // 7680
                ("answer_is_int", 1.0),      // 7680
                ("answer_digits", 4.0),      // "7680"
                ("answer_sig_digits", 3.0),  // 768
                ("answer_range_2k_8k", 1.0), // 7680
                ("leaf_int_count", 2.0),     // 12, 640
                ("leaf_max_digits", 3.0),    // "640"
                ("leaf_range_8_32", 1.0),    // 12
                ("leaf_range_512_2k", 1.0),  // 640
            ],
        ),
        case(
            "F6 boxes, 25 boxes",
            &boxes,
            &["25", "640"],
            &[
                ("mul", 1.0),                 // 25 * 640
                ("operation_count", 1.0),     // the answer
                ("var_count", 2.0),           // 25, 640
                ("node_count", 3.0),          // 1 + 2
                ("tree_depth", 2.0),          // answer > leaf
                ("int_result_ops", 1.0),      // 16000
                ("answer_is_int", 1.0),       // 16000
                ("answer_digits", 5.0),       // "16000"
                ("answer_sig_digits", 2.0),   // 16
                ("answer_range_8k_32k", 1.0), // 16000
                ("leaf_int_count", 2.0),      // 25, 640
                ("leaf_max_digits", 3.0),     // "640"
                ("leaf_range_8_32", 1.0),     // 25
                ("leaf_range_512_2k", 1.0),   // 640
            ],
        ),
    ]
}

#[test]
fn fixtures_match_hand_computed_values() {
    let mut wrong = Vec::new();
    for c in fixtures() {
        for (k, name) in FEATURE_NAMES.iter().enumerate() {
            if c.got[k] != c.want[k] {
                wrong.push(format!(
                    "{}: {name} = {}, expected {}",
                    c.name, c.got[k], c.want[k]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn fixtures_cover_every_column() {
    let cases = fixtures();
    assert!(cases.len() >= 5);
    for (k, name) in FEATURE_NAMES.iter().enumerate() {
        assert!(
            cases.iter().any(|c| c.want[k] != 0.0 && c.got[k] != 0.0),
            "no fixture has a non-zero {name}"
        );
    }
}

#[test]
fn names_and_indices_agree() {
    let unique: std::collections::HashSet<&str> = FEATURE_NAMES.iter().copied().collect();
    assert_eq!(unique.len(), FEATURE_COUNT);
    let at = |i: usize, name: &str| assert_eq!(FEATURE_NAMES[i], name);
    for (i, name) in [
        (ADD, "add"),
        (SUB, "sub"),
        (MUL, "mul"),
        (DIV, "div"),
        (FLOORDIV, "floordiv"),
        (MOD, "mod"),
        (FUNC, "func"),
        (OPERATION_COUNT, "operation_count"),
        (VAR_COUNT, "var_count"),
        (CONST_COUNT, "const_count"),
        (NODE_COUNT, "node_count"),
        (TREE_DEPTH, "tree_depth"),
        (INT_RESULT_OPS, "int_result_ops"),
        (ANSWER_IS_INT, "answer_is_int"),
        (ANSWER_IS_NEGATIVE, "answer_is_negative"),
        (ANSWER_DIGITS, "answer_digits"),
        (ANSWER_SIG_DIGITS, "answer_sig_digits"),
        (LEAF_INT_COUNT, "leaf_int_count"),
        (LEAF_FLOAT_COUNT, "leaf_float_count"),
        (LEAF_MAX_DIGITS, "leaf_max_digits"),
        (INTER_INT_COUNT, "inter_int_count"),
        (INTER_FLOAT_COUNT, "inter_float_count"),
        (INTER_NEGATIVE_COUNT, "inter_negative_count"),
        (INTER_FRACTION_COUNT, "inter_fraction_count"),
    ] {
        at(i, name);
    }
    for (k, suffix) in RANGE_SUFFIXES.iter().enumerate() {
        at(ANSWER_RANGE + k, &format!("answer_range_{suffix}"));
        at(LEAF_RANGE + k, &format!("leaf_range_{suffix}"));
        at(INTER_RANGE + k, &format!("inter_range_{suffix}"));
    }
}

#[test]
fn range_bins_are_exact_at_the_bounds() {
    let bin = |t: &str| range_bin(Num::parse_decimal(t).unwrap());
    assert_eq!(bin("0"), 0);
    assert_eq!(bin("1.999999999999999999999"), 0);
    assert_eq!(bin("2"), 1);
    assert_eq!(bin("-2"), 1);
    assert_eq!(bin("7.99"), 1);
    assert_eq!(bin("8"), 2);
    assert_eq!(bin("32767"), 7);
    assert_eq!(bin("32768"), 8);
    assert_eq!(range_bin(Num::ratio(65535, 2).unwrap()), 7);
    assert_eq!(range_bin(Num::ratio(i128::MAX, i128::MAX - 1).unwrap()), 0);
    assert_eq!(range_bin(Num::Float(2.0)), 1);
    assert_eq!(range_bin(Num::Float(-1e300)), 8);
}

/// The allocation-free canonical text agrees with `Num`'s `Display` on every kind of value.
#[test]
fn canonical_digits_agree_with_display() {
    let mut values: Vec<Num> = [
        "0",
        "7",
        "-7",
        "1200",
        "-1200",
        "0.375",
        "-0.05",
        "100.5",
        "12.5",
        "66424.2",
        "0.000000000001",
        "123456789.123456789",
        "1e30",
        "-0.0000001",
    ]
    .iter()
    .map(|t| Num::parse_decimal(t).unwrap())
    .collect();
    values.extend([
        Num::ratio(1, 3).unwrap(),
        Num::ratio(-2, 3).unwrap(),
        Num::ratio(1, 3_000_000_000).unwrap(),
        Num::ratio(-1, 3_000_000_000).unwrap(),
        Num::ratio(29_999_999_999, 10_000_000_000_000).unwrap(),
        Num::ratio(i128::MAX, 7).unwrap(),
        Num::int(i128::MIN + 1),
        Num::Float(0.1),
        Num::Float(-2.5e-9),
        Num::Float(1e17),
        Num::Float(-1e18),
        Num::Float(1.7976931348623157e308),
        Num::Float(std::f64::consts::PI),
        Num::Float(-0.0),
    ]);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state = crate::seed::mix(state);
        state
    };
    for _ in 0..20_000 {
        let n = (next() % 2_000_001) as i128 - 1_000_000;
        let d = (next() % 100_000) as i128 + 1;
        values.push(Num::ratio(n, d).unwrap());
        values.push(Num::ratio(n, [1, 2, 4, 5, 8, 10, 16, 25, 1000][(d % 9) as usize]).unwrap());
        values.push(Num::Float(
            f64::from_bits(next() >> 2) * if n < 0 { -1.0 } else { 1.0 },
        ));
        values.push(Num::Float(n as f64 / d as f64));
    }
    for v in values {
        let mut buf = TextBuf::new();
        write_canonical(&mut buf, v).unwrap();
        let display = v.to_string();
        assert_eq!(buf.as_str(), display, "{v:?}");
        assert_eq!(canonical_digits(v), text_digits(&display), "{v:?}");
    }
    assert_eq!(text_digits("0"), (1, 0));
    assert_eq!(text_digits("-1200"), (4, 2));
    assert_eq!(text_digits("0.05"), (3, 1));
    assert_eq!(text_digits("100.5"), (4, 4));
}

#[test]
fn answer_leaf_and_errors() {
    // The answer is a leaf: no operation, depth 1, no intermediate result.
    let p = program("Tom has 15 apples.", "print(15)", "15");
    let f = compute(&p, &nums(&["15"])).unwrap();
    assert_eq!(
        f,
        expected(&[
            ("var_count", 1.0),
            ("node_count", 1.0),
            ("tree_depth", 1.0),
            ("answer_is_int", 1.0),
            ("answer_digits", 2.0),
            ("answer_sig_digits", 2.0),
            ("answer_range_8_32", 1.0),
            ("leaf_int_count", 1.0),
            ("leaf_max_digits", 2.0),
            ("leaf_range_8_32", 1.0),
        ])
    );
    let pie = program("A pie has 8 slices; Sam eats 3.", "print(3 / 8)", "0.375");
    assert_eq!(
        compute(&pie, &nums(&["0", "3"])),
        Err(EvalError::DivisionByZero)
    );
    assert_eq!(compute(&pie, &nums(&["8"])), Err(EvalError::Domain));
}

/// Dead nodes (not reachable from the answer) are ignored, even when they would fail.
#[test]
fn only_nodes_the_answer_depends_on_count() {
    use crate::program::{ConstKind, Func};
    let nodes = vec![
        Node::Leaf { slot: 0 },
        Node::Leaf { slot: 1 },
        Node::Const {
            value: Num::ZERO,
            kind: ConstKind::Literal,
        },
        Node::Bin {
            op: BinOp::Div,
            lhs: 0,
            rhs: 2,
        },
        Node::Call {
            func: Func::Sqrt,
            args: vec![1],
        },
    ];
    let p = Program {
        nodes,
        answer: 4,
        ties: Vec::new(),
    };
    let f = compute(&p, &nums(&["5", "16"])).unwrap();
    assert_eq!(f[FUNC], 1.0);
    assert_eq!(f[DIV], 0.0);
    assert_eq!(f[NODE_COUNT], 2.0);
    assert_eq!(f[VAR_COUNT], 1.0);
    assert_eq!(f[CONST_COUNT], 0.0);
    assert_eq!(f[ANSWER_DIGITS], 1.0);
}

#[test]
fn scratch_is_reused_across_programs_of_any_size() {
    let cases = fixtures();
    let long = program(
        "The store sold 1 pen, 5 pads, 20 cups, 100 forks, 300 plates, 1000 bags, \
         5000 clips, 10000 pins and 50000 beads. How many items?",
        "print(1 + 5 + 20 + 100 + 300 + 1000 + 5000 + 10000 + 50000)",
        "66426",
    );
    let pie = program("A pie has 8 slices; Sam eats 3.", "print(3 / 8)", "0.375");
    let long_slots = nums(&[
        "1", "5", "20", "100", "300", "1000", "5000", "10000", "50000",
    ]);
    let mut scratch = FeatureScratch::new();
    let mut out = [0.0; FEATURE_COUNT];
    // Small, then larger (the scratch grows), then small again (stale values are ignored).
    compute_into(&mut scratch, &pie, &nums(&["8", "3"]), &mut out).unwrap();
    assert_eq!(out, cases[3].got);
    compute_into(&mut scratch, &long, &long_slots, &mut out).unwrap();
    assert_eq!(out, compute(&long, &long_slots).unwrap());
    assert_eq!(out[ADD], 8.0);
    assert_eq!(out[TREE_DEPTH], 9.0);
    compute_into(&mut scratch, &pie, &nums(&["8", "3"]), &mut out).unwrap();
    assert_eq!(out, cases[3].got);
}
