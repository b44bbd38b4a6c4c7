//! The feature family of Xie et al. 2024's own code (`generation/feature_map.py` with
//! `generation/problem_solving_tree.py`), as a fixed list of columns: the `xie2024` feature set.
//!
//! The authors collect, per M3 variant, named counts while walking the solution tree from the
//! answer down (`obtain_features`), and keep every name seen in their data (their 51 features).
//! advmath fixes the list instead ([`XIE2024_NAMES`], lower-cased authors' names), so that the
//! schema never depends on the data: every operator and function advmath's program subset
//! supports, and every value bin.
//!
//! Per visit of a node (the walk recurses into children without remembering visited nodes, so a
//! value used twice, such as a Python variable read twice, is visited once per path from the
//! answer; [`compute_into`] counts paths through the DAG to do the same):
//! - a binary operation adds 1 to its operator's count (`add_count`, `minus_count`,
//!   `mult_count`, `divide_count`, `floordiv_count`, `mod_count`; a `//` that divides evenly on
//!   the original numbers is already a `/` in advmath's tree, as in the authors' constructor) and
//!   to `operation_count`, and classifies its own value;
//! - unary minus adds 1 to `negate_count` and `operation_count`, and classifies the value of its
//!   operand (the authors' `UnaryOpNode` passes the child's value, not its own);
//! - a function call adds 1 to `<name>_count` (the name after the last dot: `math.ceil` is
//!   `ceil_count`, `pow` and `math.pow` are `pow_count`), not to `operation_count`, and
//!   classifies its own value;
//! - a question number adds 1 to `var_count`, a constant to `const_count`; each classifies its
//!   value.
//!
//! A value is classified under the prefix `final` when it is the answer node's, else `inter` for
//! operations and calls and `end` for question numbers and constants (pooled, as the authors do):
//! `<p>_int_num` (within 1e-6 of an integer) or `<p>_float_num`; then, if |v| <= 1e-6, only
//! `<p>_is_zero`; else `<p>_is_negative` when v < 0 and `<p>_log_4_val_<k>` with
//! k = round(clip(log4 |v|, -3, 10)), Python's round (half to even), `neg3` for -3.
//!
//! The bins are computed exactly on rational values: bin k holds 2^(2k-1) < |v| < 2^(2k+1), and a
//! boundary 2^(2k+1) (where log4 is exactly k + 0.5, as the float logarithm gives it too) goes to
//! the even neighbour: `[1/2, 2]` is bin 0, `(2, 8)` bin 1, `[8, 32]` bin 2, `(32, 128)` bin 3, ...
//! Bin -3 holds everything below 2^-5, bin 10 everything from 2^19 up.
//!
//! One extension: `**` (which advmath accepts and the authors' parser rejects) counts as
//! `power_count` and an operation. One difference: `float()` is the identity on advmath's exact
//! numbers and is dropped when the program is lowered to a tree, so `float_count` is always 0
//! here, where the authors count each `float(...)` call of the program.

use crate::num::{EvalError, Num};
use crate::program::{BinOp, Func, Node, Program};

/// Lowest and highest log-4 bin.
pub const LOG4_MIN: i32 = -3;
pub const LOG4_MAX: i32 = 10;
const BINS: usize = (LOG4_MAX - LOG4_MIN + 1) as usize;

/// Number of columns of the set.
pub const XIE2024_COUNT: usize = 21 + 3 * (4 + BINS);

/// The prefixes of value classes, in column order.
pub const PREFIXES: [&str; 3] = ["final", "inter", "end"];

/// The columns, in order.
pub const XIE2024_NAMES: [&str; XIE2024_COUNT] = [
    "add_count",
    "minus_count",
    "mult_count",
    "divide_count",
    "floordiv_count",
    "mod_count",
    "power_count",
    "negate_count",
    "round_count",
    "int_count",
    "float_count",
    "abs_count",
    "min_count",
    "max_count",
    "ceil_count",
    "floor_count",
    "sqrt_count",
    "pow_count",
    "operation_count",
    "var_count",
    "const_count",
    "final_int_num",
    "final_float_num",
    "final_is_zero",
    "final_is_negative",
    "final_log_4_val_neg3",
    "final_log_4_val_neg2",
    "final_log_4_val_neg1",
    "final_log_4_val_0",
    "final_log_4_val_1",
    "final_log_4_val_2",
    "final_log_4_val_3",
    "final_log_4_val_4",
    "final_log_4_val_5",
    "final_log_4_val_6",
    "final_log_4_val_7",
    "final_log_4_val_8",
    "final_log_4_val_9",
    "final_log_4_val_10",
    "inter_int_num",
    "inter_float_num",
    "inter_is_zero",
    "inter_is_negative",
    "inter_log_4_val_neg3",
    "inter_log_4_val_neg2",
    "inter_log_4_val_neg1",
    "inter_log_4_val_0",
    "inter_log_4_val_1",
    "inter_log_4_val_2",
    "inter_log_4_val_3",
    "inter_log_4_val_4",
    "inter_log_4_val_5",
    "inter_log_4_val_6",
    "inter_log_4_val_7",
    "inter_log_4_val_8",
    "inter_log_4_val_9",
    "inter_log_4_val_10",
    "end_int_num",
    "end_float_num",
    "end_is_zero",
    "end_is_negative",
    "end_log_4_val_neg3",
    "end_log_4_val_neg2",
    "end_log_4_val_neg1",
    "end_log_4_val_0",
    "end_log_4_val_1",
    "end_log_4_val_2",
    "end_log_4_val_3",
    "end_log_4_val_4",
    "end_log_4_val_5",
    "end_log_4_val_6",
    "end_log_4_val_7",
    "end_log_4_val_8",
    "end_log_4_val_9",
    "end_log_4_val_10",
];

const MULT: usize = 2;
const POWER: usize = 6;
const NEGATE: usize = 7;
const FUNC0: usize = 8;
const OPERATION_COUNT: usize = 18;
const VAR_COUNT: usize = 19;
const CONST_COUNT: usize = 20;
const VALUES0: usize = 21;
const PER_PREFIX: usize = 4 + BINS;

/// Index of a column.
pub fn xie2024_index(name: &str) -> Option<usize> {
    XIE2024_NAMES.iter().position(|n| *n == name)
}

/// The column of `<prefix>_log_4_val_<bin>`.
pub fn log4_column(prefix: usize, bin: i32) -> usize {
    VALUES0 + prefix * PER_PREFIX + 4 + (bin - LOG4_MIN) as usize
}

fn op_column(op: BinOp) -> usize {
    match op {
        BinOp::Add => 0,
        BinOp::Sub => 1,
        BinOp::Mul => MULT,
        BinOp::Div => 3,
        BinOp::FloorDiv => 4,
        BinOp::Mod => 5,
        BinOp::Pow => POWER,
    }
}

fn func_column(f: Func) -> usize {
    FUNC0
        + match f {
            Func::Round => 0,
            Func::Int => 1,
            Func::Float => 2,
            Func::Abs => 3,
            Func::Min => 4,
            Func::Max => 5,
            Func::Ceil => 6,
            Func::Floor => 7,
            Func::Sqrt => 8,
            Func::Pow => 9,
        }
}

/// `|v - round(v)| < 1e-6` (the authors' `util.is_int`), exact for rational values.
pub fn near_integer(v: Num) -> bool {
    match v {
        Num::Ratio { n, d } => {
            let d = d.unsigned_abs();
            let r = n.unsigned_abs() % d;
            let dist = r.min(d - r);
            match dist.checked_mul(1_000_000) {
                Some(x) => x < d,
                None => (dist as f64 / d as f64) < 1e-6,
            }
        }
        Num::Float(x) => (x - x.round()).abs() < 1e-6,
    }
}

/// `|v| <= 1e-6` (the authors' `util.is_same_num(v, 0)`), exact for rational values.
pub fn near_zero(v: Num) -> bool {
    match v {
        Num::Ratio { n, d } => match n.unsigned_abs().checked_mul(1_000_000) {
            Some(x) => x <= d.unsigned_abs(),
            None => false,
        },
        Num::Float(x) => x.abs() <= 1e-6,
    }
}

/// `a / d` compared with `2^e`, when it fits in u128.
fn cmp_pow2(a: u128, d: u128, e: i32) -> Option<std::cmp::Ordering> {
    if e >= 0 {
        Some(a.cmp(&d.checked_mul(1u128 << e)?))
    } else {
        Some(a.checked_mul(1u128 << -e)?.cmp(&d))
    }
}

/// round(clip(log4 |v|, -3, 10)) with Python's round, for v not near zero.
pub fn log4_bin(v: Num) -> i32 {
    if let Num::Ratio { n, d } = v {
        let (a, d) = (n.unsigned_abs(), d.unsigned_abs());
        let mut bin = LOG4_MIN;
        let mut exact = true;
        // The boundary between bins k and k + 1 is 2^(2k+1).
        for k in LOG4_MIN..LOG4_MAX {
            match cmp_pow2(a, d, 2 * k + 1) {
                Some(std::cmp::Ordering::Greater) => bin = k + 1,
                Some(std::cmp::Ordering::Equal) => {
                    bin = if k % 2 == 0 { k } else { k + 1 };
                    break;
                }
                Some(std::cmp::Ordering::Less) => break,
                None => {
                    exact = false;
                    break;
                }
            }
        }
        if exact {
            return bin;
        }
    }
    let l = (v.to_f64().abs().ln() / 4f64.ln()).clamp(LOG4_MIN as f64, LOG4_MAX as f64);
    l.round_ties_even() as i32
}

/// Add `weight` visits of a value under `prefix` (0 final, 1 inter, 2 end).
fn classify(out: &mut [f64; XIE2024_COUNT], prefix: usize, v: Num, weight: f64) {
    let base = VALUES0 + prefix * PER_PREFIX;
    out[base + if near_integer(v) { 0 } else { 1 }] += weight;
    if near_zero(v) {
        out[base + 2] += weight;
        return;
    }
    if v.is_negative() {
        out[base + 3] += weight;
    }
    out[log4_column(prefix, log4_bin(v))] += weight;
}

/// Caller-owned working space for [`compute_into`].
#[derive(Clone, Debug, Default)]
pub struct Xie2024Scratch {
    values: Vec<Num>,
    paths: Vec<f64>,
}

/// The `xie2024` features of `program` evaluated on `slot_values`.
pub fn compute(
    program: &Program,
    slot_values: &[Num],
) -> std::result::Result<[f64; XIE2024_COUNT], EvalError> {
    let mut out = [0.0; XIE2024_COUNT];
    compute_into(
        &mut Xie2024Scratch::default(),
        program,
        slot_values,
        &mut out,
    )?;
    Ok(out)
}

/// [`compute`] into `out` with caller-owned scratch. The program must be well formed (children
/// before parents), as every validated program is; a leaf whose slot is beyond `slot_values` is
/// `EvalError::Domain`.
pub fn compute_into(
    scratch: &mut Xie2024Scratch,
    program: &Program,
    slot_values: &[Num],
    out: &mut [f64; XIE2024_COUNT],
) -> std::result::Result<(), EvalError> {
    let answer = program.answer as usize;
    let Xie2024Scratch { values, paths } = scratch;
    if values.len() <= answer {
        values.resize(answer + 1, Num::ZERO);
        paths.resize(answer + 1, 0.0);
    }
    // Paths from the answer to each node: how often the authors' recursive walk visits it.
    paths[..=answer].fill(0.0);
    paths[answer] = 1.0;
    for i in (0..=answer).rev() {
        let p = paths[i];
        if p == 0.0 {
            continue;
        }
        match &program.nodes[i] {
            Node::Bin { lhs, rhs, .. } => {
                paths[*lhs as usize] += p;
                paths[*rhs as usize] += p;
            }
            Node::Neg { arg } => paths[*arg as usize] += p,
            Node::Call { args, .. } => args.iter().for_each(|&a| paths[a as usize] += p),
            Node::Leaf { .. } | Node::Const { .. } => {}
        }
    }
    out.fill(0.0);
    for i in 0..=answer {
        let w = paths[i];
        if w == 0.0 {
            continue;
        }
        let node = &program.nodes[i];
        if let Node::Leaf { slot } = node {
            if *slot as usize >= slot_values.len() {
                return Err(EvalError::Domain);
            }
        }
        let v = program.eval_node(i, slot_values, values)?;
        values[i] = v;
        let terminal_prefix = if i == answer { 0 } else { 2 };
        let op_prefix = if i == answer { 0 } else { 1 };
        match node {
            Node::Leaf { .. } => {
                out[VAR_COUNT] += w;
                classify(out, terminal_prefix, v, w);
            }
            Node::Const { .. } => {
                out[CONST_COUNT] += w;
                classify(out, terminal_prefix, v, w);
            }
            Node::Bin { op, .. } => {
                out[op_column(*op)] += w;
                out[OPERATION_COUNT] += w;
                classify(out, op_prefix, v, w);
            }
            Node::Neg { arg } => {
                out[NEGATE] += w;
                out[OPERATION_COUNT] += w;
                classify(out, op_prefix, values[*arg as usize], w);
            }
            Node::Call { func, .. } => {
                out[func_column(*func)] += w;
                classify(out, op_prefix, v, w);
            }
        }
    }
    Ok(())
}

/// One sentence per column, in column order, for the README and the dataset card.
pub fn column_docs() -> Vec<(String, String)> {
    let op = |name: &str, what: &str| (name.to_string(), what.to_string());
    let mut out = vec![
        op("add_count", "visits of `+` (authors: `Add_count`)"),
        op("minus_count", "visits of binary `-` (`Minus_count`)"),
        op("mult_count", "visits of `*` (`Mult_count`)"),
        op(
            "divide_count",
            "visits of `/`, and of `//` that divides evenly on the original numbers (`Divide_count`)",
        ),
        op("floordiv_count", "visits of the other `//` (`FloorDiv_count`)"),
        op("mod_count", "visits of `%` (`Mod_count`)"),
        op(
            "power_count",
            "visits of `**` (advmath extension: the authors' parser rejects `**`)",
        ),
        op(
            "negate_count",
            "visits of unary minus (`negate_count`)",
        ),
    ];
    for f in [
        "round", "int", "float", "abs", "min", "max", "ceil", "floor", "sqrt", "pow",
    ] {
        out.push(op(
            &format!("{f}_count"),
            &format!("visits of calls of `{f}` (`{f}_count`; not operations)"),
        ));
    }
    out.push(op(
        "operation_count",
        "visits of binary operations and unary minus (function calls excluded, as in the authors' code)",
    ));
    out.push(op("var_count", "visits of question numbers"));
    out.push(op("const_count", "visits of constants"));
    let whose = [
        "the answer",
        "intermediate results (operations and calls other than the answer; unary minus gives its operand's value)",
        "question numbers and constants",
    ];
    for (p, prefix) in PREFIXES.iter().enumerate() {
        let w = whose[p];
        out.push(op(
            &format!("{prefix}_int_num"),
            &format!("visits of {w} within 1e-6 of an integer"),
        ));
        out.push(op(
            &format!("{prefix}_float_num"),
            &format!("visits of {w} not within 1e-6 of an integer"),
        ));
        out.push(op(
            &format!("{prefix}_is_zero"),
            &format!("visits of {w} with absolute value <= 1e-6 (no sign or bin counted)"),
        ));
        out.push(op(
            &format!("{prefix}_is_negative"),
            &format!("visits of {w} below 0 (not zero)"),
        ));
        for k in LOG4_MIN..=LOG4_MAX {
            let (name, range) = bin_label(k);
            out.push(op(
                &format!("{prefix}_log_4_val_{name}"),
                &format!("visits of {w} in log-4 bin {k}: absolute value in {range}"),
            ));
        }
    }
    out
}

/// Column suffix and exact range of a log-4 bin.
pub fn bin_label(k: i32) -> (String, String) {
    let name = if k < 0 {
        format!("neg{}", -k)
    } else {
        k.to_string()
    };
    let pow = |e: i32| {
        if e >= 0 {
            format!("{}", 1u64 << e)
        } else {
            format!("1/{}", 1u64 << -e)
        }
    };
    let (lo, hi) = (pow(2 * k - 1), pow(2 * k + 1));
    let range = if k == LOG4_MIN {
        format!("(0, {hi})")
    } else if k == LOG4_MAX {
        format!("[{lo}, inf)")
    } else if k % 2 == 0 {
        format!("[{lo}, {hi}]")
    } else {
        format!("({lo}, {hi})")
    };
    (name, range)
}
