//! Hand-checked fixtures of the `xie2024` set, one or more per column family: operator counts
//! (with a value reached by two paths), unary minus, function calls, variable and constant counts,
//! and the int / float / zero / negative / log-4 classes of the answer, the intermediate results
//! and the leaves with constants, ties of round() included.

use super::tests::{nums, program};
use super::xie2024::*;
use crate::num::Num;
use crate::program::Program;

/// The expected row: the listed columns, every other one 0.
fn expected(nonzero: &[(&str, f64)]) -> [f64; XIE2024_COUNT] {
    let mut out = [0.0; XIE2024_COUNT];
    for (name, v) in nonzero {
        let i = xie2024_index(name).unwrap_or_else(|| panic!("no column {name}"));
        assert_eq!(out[i], 0.0, "{name} listed twice");
        assert_ne!(*v, 0.0, "{name}: list only non-zero values");
        out[i] = *v;
    }
    out
}

fn check(name: &str, p: &Program, slots: &[&str], want: &[(&str, f64)]) {
    let got = compute(p, &nums(slots)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = expected(want);
    let diffs: Vec<String> = XIE2024_NAMES
        .iter()
        .enumerate()
        .filter(|(i, _)| got[*i] != want[*i])
        .map(|(i, n)| format!("{n}: got {} want {}", got[i], want[i]))
        .collect();
    assert!(diffs.is_empty(), "{name}:\n{}", diffs.join("\n"));
}

#[test]
fn the_column_list_is_fixed_and_complete() {
    assert_eq!(XIE2024_NAMES.len(), 75);
    let mut sorted = XIE2024_NAMES.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), XIE2024_COUNT, "no name twice");
    // The log-4 columns sit where log4_column says, for every prefix and bin.
    for (p, prefix) in PREFIXES.iter().enumerate() {
        for k in LOG4_MIN..=LOG4_MAX {
            let (suffix, _) = bin_label(k);
            assert_eq!(
                XIE2024_NAMES[log4_column(p, k)],
                format!("{prefix}_log_4_val_{suffix}")
            );
        }
    }
    assert_eq!(column_docs().len(), XIE2024_COUNT);
}

/// Operators, and a value read twice: `per` feeds both `total` and the product, so the authors'
/// recursive walk visits `per` (and, below it, `boxes` and `pens`) twice; `bags` feeds `total`
/// and the division, twice too.
#[test]
fn operators_and_shared_values_count_per_path() {
    let p = program(
        "Tom packs 3 boxes with 4 pens each and has 2 bags.",
        "boxes = 3\npens = 4\nbags = 2\nper = boxes * pens\ntotal = per + bags\n\
         print(total * per / bags)",
        "84",
    );
    // per = 12 (twice), total = 14, total * per = 168, answer 84.
    // log4: 84 -> 3.20 -> 3; 168 -> 3.70 -> 4; 14 -> 1.90 -> 2; 12 -> 1.79 -> 2;
    // 3 -> 0.79 -> 1; 4 -> 1; 2 -> 0.5, a tie, to the even 0.
    check(
        "the original numbers",
        &p,
        &["3", "4", "2"],
        &[
            ("mult_count", 3.0),
            ("add_count", 1.0),
            ("divide_count", 1.0),
            ("operation_count", 5.0),
            ("var_count", 6.0),
            ("final_int_num", 1.0),
            ("final_log_4_val_3", 1.0),
            ("inter_int_num", 4.0),
            ("inter_log_4_val_4", 1.0),
            ("inter_log_4_val_2", 3.0),
            ("end_int_num", 6.0),
            ("end_log_4_val_1", 4.0),
            ("end_log_4_val_0", 2.0),
        ],
    );
    // Numbers 5, 8, 4: per = 40 (twice), total = 44, product 1760, answer 440.
    // log4: 440 -> 4.39 -> 4; 1760 -> 5.39 -> 5; 44 -> 2.73 -> 3; 40 -> 2.66 -> 3;
    // 5 -> 1.16 -> 1; 8 -> 1.5, a tie, to the even 2; 4 -> 1.
    check(
        "variant",
        &p,
        &["5", "8", "4"],
        &[
            ("mult_count", 3.0),
            ("add_count", 1.0),
            ("divide_count", 1.0),
            ("operation_count", 5.0),
            ("var_count", 6.0),
            ("final_int_num", 1.0),
            ("final_log_4_val_4", 1.0),
            ("inter_int_num", 4.0),
            ("inter_log_4_val_5", 1.0),
            ("inter_log_4_val_3", 3.0),
            ("end_int_num", 6.0),
            ("end_log_4_val_1", 4.0),
            ("end_log_4_val_2", 2.0),
        ],
    );
}

/// Floor division, modulo, unary minus (classified by its operand's value), a call (not an
/// operation), a constant, a zero and negative values.
#[test]
fn negation_calls_zero_and_negatives() {
    let p = program(
        "A club has 17 members and 5 teams. The fee is 2.5 dollars.",
        "import math\nmembers = 17\nteams = 5\nfee = 2.5\nt = members // teams\n\
         r = members % teams\nn = -r\nm = fee * t\nk = math.ceil(m)\nz = r - 2\n\
         print(n - k + z)",
        "-10",
    );
    // t = 3, r = 2 (read by n and z: two visits, and members, teams three each), n = -2,
    // m = 7.5, k = 8, z = 0, n - k = -10, answer -10.
    // final: -10, negative, log4 10 = 1.66 -> 2.
    // inter: -10 (negative, bin 2), z = 0 (zero: no bin), t = 3 (bin 1), r = 2 twice (tie -> 0),
    //   n counted with r's value 2 (bin 0, not negative), m = 7.5 (float, 1.45 -> 1),
    //   k = 8 (tie 1.5 -> 2).
    // end: members 17 x3 (2.04 -> 2), teams 5 x3 (1.16 -> 1), fee 2.5 (float, 0.66 -> 1),
    //   constant 2 (tie -> 0).
    check(
        "club",
        &p,
        &["17", "5", "2.5"],
        &[
            ("add_count", 1.0),
            ("minus_count", 2.0),
            ("mult_count", 1.0),
            ("floordiv_count", 1.0),
            ("mod_count", 2.0),
            ("negate_count", 1.0),
            ("ceil_count", 1.0),
            ("operation_count", 8.0),
            ("var_count", 7.0),
            ("const_count", 1.0),
            ("final_int_num", 1.0),
            ("final_is_negative", 1.0),
            ("final_log_4_val_2", 1.0),
            ("inter_int_num", 7.0),
            ("inter_float_num", 1.0),
            ("inter_is_zero", 1.0),
            ("inter_is_negative", 1.0),
            ("inter_log_4_val_2", 2.0),
            ("inter_log_4_val_1", 2.0),
            ("inter_log_4_val_0", 3.0),
            ("end_int_num", 7.0),
            ("end_float_num", 1.0),
            ("end_log_4_val_2", 3.0),
            ("end_log_4_val_1", 4.0),
            ("end_log_4_val_0", 1.0),
        ],
    );
}

/// Small values and the clipped lowest bin, constants of every kind, `**` (advmath's extension)
/// and `abs`.
#[test]
fn small_values_constants_and_power() {
    let p = program(
        "A drop weighs 0.01 grams and a cup holds 3 drops.",
        "w = 0.01\nc = 3\ns = w / 100\nh = abs(w - 0.2)\np = c ** 2\nprint(s + h * p)",
        "1.7101",
    );
    // w is read twice. s = 0.0001 (log4 -6.64, clipped to -3), w - 0.2 = -0.19 (negative,
    // -1.20 -> -1), abs gives 0.19 (-1), p = 9 (1.58 -> 2), h * p = 1.71 (0.39 -> 0), answer
    // 1.7101 (0.39 -> 0). Ends: 0.01 twice (-3.32, clipped to -3), 3 (1), constants 100
    // (3.32 -> 3), 0.2 (-1.16 -> -1), 2 (tie -> 0).
    check(
        "drops",
        &p,
        &["0.01", "3"],
        &[
            ("divide_count", 1.0),
            ("minus_count", 1.0),
            ("mult_count", 1.0),
            ("add_count", 1.0),
            ("power_count", 1.0),
            ("abs_count", 1.0),
            ("operation_count", 5.0),
            ("var_count", 3.0),
            ("const_count", 3.0),
            ("final_float_num", 1.0),
            ("final_log_4_val_0", 1.0),
            ("inter_int_num", 1.0),
            ("inter_float_num", 4.0),
            ("inter_is_negative", 1.0),
            ("inter_log_4_val_neg3", 1.0),
            ("inter_log_4_val_neg1", 2.0),
            ("inter_log_4_val_2", 1.0),
            ("inter_log_4_val_0", 1.0),
            ("end_int_num", 3.0),
            ("end_float_num", 3.0),
            ("end_log_4_val_neg3", 2.0),
            ("end_log_4_val_1", 1.0),
            ("end_log_4_val_3", 1.0),
            ("end_log_4_val_neg1", 1.0),
            ("end_log_4_val_0", 1.0),
        ],
    );
}

/// Every whitelisted function has its own count; calls are not operations.
#[test]
fn every_function_has_its_count() {
    let p = program(
        "A box holds 10 pens and 4 pencils.",
        "import math\na = 10\nb = 4\nx = round(a / 3)\ny = int(float(b))\n\
         z = min(a, b) + max(a, b)\nw = math.floor(math.sqrt(b)) + pow(b, 2)\n\
         print(x + y + z + w)",
        "39",
    );
    let got = compute(&p, &nums(&["10", "4"])).unwrap();
    let col = |n: &str| got[xie2024_index(n).unwrap()];
    for f in ["round", "int", "min", "max", "floor", "sqrt", "pow"] {
        assert_eq!(col(&format!("{f}_count")), 1.0, "{f}");
    }
    // `float()` is the identity on exact numbers and is not kept in advmath's tree, so its count
    // stays 0 (a documented difference from the authors' walk of the Python AST).
    for f in ["abs", "ceil", "float"] {
        assert_eq!(col(&format!("{f}_count")), 0.0, "{f}");
    }
    // Additions: x + y, + z, + w, and inside z and w: 5; the division a / 3: 1.
    assert_eq!(col("add_count"), 5.0);
    assert_eq!(col("divide_count"), 1.0);
    assert_eq!(col("operation_count"), 6.0);
    // a is read 3 times (a / 3, min, max), b 5 times; constants 3 and 2.
    assert_eq!(col("var_count"), 8.0);
    assert_eq!(col("const_count"), 2.0);
}

/// `//` that divides evenly on the original numbers is a division for every variant (the
/// authors decide when the tree is built, on the original numbers).
#[test]
fn floor_division_is_decided_on_the_original_numbers() {
    let p = program("12 cookies are shared by 4 kids.", "print(12 // 4)", "3");
    for slots in [["12", "4"], ["13", "4"]] {
        let got = compute(&p, &nums(&slots)).unwrap();
        assert_eq!(got[xie2024_index("divide_count").unwrap()], 1.0);
        assert_eq!(got[xie2024_index("floordiv_count").unwrap()], 0.0);
    }
}

/// The answer is a question number: its value is classified under `final`, not `end`. One
/// case per class boundary: ties of round() go to the even bin, |v| <= 1e-6 is zero,
/// within 1e-6 of an integer is an integer, the ends clip to -3 and 10.
#[test]
fn answer_classes_and_bin_boundaries() {
    let p = program("Sam has 7 apples.", "apples = 7\nprint(apples)", "7");
    let cases: &[(&str, &[(&str, f64)])] = &[
        // log4 7 = 1.40 -> 1
        ("7", &[("final_int_num", 1.0), ("final_log_4_val_1", 1.0)]),
        ("0", &[("final_int_num", 1.0), ("final_is_zero", 1.0)]),
        // 1e-7 is zero and within 1e-6 of 0, so an integer; no sign, no bin.
        (
            "0.0000001",
            &[("final_int_num", 1.0), ("final_is_zero", 1.0)],
        ),
        // 1.9999999 is within 1e-6 of 2, so an integer, but binned by its value: 0.4999 -> 0.
        (
            "1.9999999",
            &[("final_int_num", 1.0), ("final_log_4_val_0", 1.0)],
        ),
        (
            "2.00001",
            &[("final_float_num", 1.0), ("final_log_4_val_1", 1.0)],
        ),
        // 0.5: log4 = -0.5, a tie, to 0; 0.125: -1.5 to -2; 32: 2.5 to 2; 128: 3.5 to 4.
        (
            "0.5",
            &[("final_float_num", 1.0), ("final_log_4_val_0", 1.0)],
        ),
        (
            "0.125",
            &[("final_float_num", 1.0), ("final_log_4_val_neg2", 1.0)],
        ),
        ("32", &[("final_int_num", 1.0), ("final_log_4_val_2", 1.0)]),
        ("128", &[("final_int_num", 1.0), ("final_log_4_val_4", 1.0)]),
        // 2^17: 8.5 to 8; 2^19: 9.5 to 10; 2,000,000: 10.47, clipped to 10.
        (
            "131072",
            &[("final_int_num", 1.0), ("final_log_4_val_8", 1.0)],
        ),
        (
            "524288",
            &[("final_int_num", 1.0), ("final_log_4_val_10", 1.0)],
        ),
        (
            "2000000",
            &[("final_int_num", 1.0), ("final_log_4_val_10", 1.0)],
        ),
        // 0.001: -4.98, clipped to -3; 0.03125 = 2^-5: -2.5, a tie, to -2.
        (
            "0.001",
            &[("final_float_num", 1.0), ("final_log_4_val_neg3", 1.0)],
        ),
        (
            "0.03125",
            &[("final_float_num", 1.0), ("final_log_4_val_neg2", 1.0)],
        ),
        // -0.3: log4 0.3 = -0.87 -> -1.
        (
            "-0.3",
            &[
                ("final_float_num", 1.0),
                ("final_is_negative", 1.0),
                ("final_log_4_val_neg1", 1.0),
            ],
        ),
    ];
    for (slot, want) in cases {
        let mut all = vec![("var_count", 1.0)];
        all.extend_from_slice(want);
        check(slot, &p, &[slot], &all);
    }
}

/// The exact bins agree with Python's `round(math.log(v, 4))` (clipped) away from ties, and with
/// the even neighbour at every tie 2^(2k+1).
#[test]
fn exact_bins_match_the_float_formula() {
    for k in LOG4_MIN..LOG4_MAX {
        let e = 2 * k + 1;
        let tie = if e >= 0 {
            Num::int(1 << e)
        } else {
            Num::ratio(1, 1 << -e).unwrap()
        };
        assert_eq!(log4_bin(tie), if k % 2 == 0 { k } else { k + 1 }, "2^{e}");
    }
    let mut v = 1u64;
    while v < 5_000_000 {
        for x in [v, v + 1, v * 3 / 2 + 1] {
            let f = ((x as f64).ln() / 4f64.ln())
                .clamp(-3.0, 10.0)
                .round_ties_even() as i32;
            assert_eq!(log4_bin(Num::int(x as i128)), f, "{x}");
            let r = Num::ratio(1, x as i128).unwrap();
            let f = ((1.0 / x as f64).ln() / 4f64.ln())
                .clamp(-3.0, 10.0)
                .round_ties_even() as i32;
            assert_eq!(log4_bin(r), f, "1/{x}");
        }
        v = v * 3 + 1;
    }
    assert_eq!(log4_bin(Num::Float(9.0)), 2);
}
