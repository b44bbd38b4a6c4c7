//! advmath's own 51 problem features: one row per variant, computed from the problem's solution
//! tree evaluated on that variant's numbers.
//!
//! They are advmath's design, not the authors' list. Xie et al. 2024 (section 5, Table 8, Figure 8)
//! fit a regression (their code's default: least squares; logistic as an option) on features
//! their code collects from the tree
//! (`generation/feature_map.py`); that family is the `xie2024` set ([`xie2024`], table
//! `features_xie2024`). The 51 here cover the same kinds of quantity with definitions of their
//! own: every DAG node counted once (the authors count a value once per path from the answer),
//! function calls among the operations, per-variant `//` classification, digit counts, tree
//! depth, proper fractions, and base-4 range bins `[0,2) [2,8) ...` that are half-open and lump
//! everything below 2 (the authors' bins are round(log4 |v|), −3..10), leaves without constants.
//!
//! The set and order are fixed by [`FEATURE_NAMES`] (never discovered from data); every value is an
//! `f64` (counts are whole numbers, flags are 0 or 1), and the `features` table stores each as a
//! Float64 column.
//!
//! Definitions:
//! - **Nodes** are the nodes the answer depends on (reachable from the answer node; validated trees
//!   are already pruned). The tree is a DAG: a value computed once and used twice (a Python variable
//!   read twice) is one node and is counted once.
//! - **Operations** are `Bin`, `Neg` and `Call` nodes. `add`, `sub`, `mul`, `mod` count `+ - * %`;
//!   `div` counts `/` and every `//` whose operands divide evenly on this variant's values (the
//!   crate already turns a `//` that divides evenly on the original numbers into `/`);
//!   `floordiv` counts the other `//`; `func` counts function calls, unary minus and `**`.
//! - **Leaves** are `Leaf` nodes: the question numbers the answer depends on. Constants (`Const`
//!   nodes: literals not in the question, unit constants, number words) are not leaves; they are
//!   counted by `const_count` only.
//! - **Intermediate results** are the values of operation nodes other than the answer node. Leaves
//!   and constants are never intermediate results; a program whose answer is a leaf has none.
//! - **`tree_depth`** is the number of nodes on the longest path from the answer node down to a
//!   terminal node (a leaf or a constant): a single leaf is 1, `a + b` is 2, `(a + b) * c` is 3.
//! - **Integer / float**: exactly an integer (`Num::is_integer`), or not. **Negative**: below 0.
//!   **Fraction**: strictly between 0 and 1.
//! - **Digits** count the digits 0-9 of a value's canonical text, `Num`'s `Display` (the text of the
//!   `answer` column): no sign, no decimal point (`-35.75` has 4, `0.375` has 4). **Significant
//!   digits** strip the sign, the decimal point, leading zeros and, for text without a decimal
//!   point, trailing zeros: `0.375` has 3, `1200` has 2, `100.5` has 4, `0` has 0.
//! - **Range bins** put |value| into base-4 bins `[0,2) [2,8) [8,32) [32,128) [128,512) [512,2048)
//!   [2048,8192) [8192,32768) [32768,inf)`, compared exactly for rational values.
//!
//! [`compute_into`] allocates nothing once its [`FeatureScratch`] has grown to the program's size.

use std::fmt::{self, Write as _};

use crate::num::{EvalError, Num};
use crate::program::{BinOp, Node, Program};

pub mod set;
#[cfg(test)]
mod tests;
pub mod tokens;
pub mod xie2024;
#[cfg(test)]
mod xie2024_tests;

pub use set::{compute_set_into, FeatureSet, SetScratch};

/// Number of features.
pub const FEATURE_COUNT: usize = 51;

/// Suffixes of the range-bin columns, in bin order.
pub const RANGE_SUFFIXES: [&str; 9] = [
    "lt2", "2_8", "8_32", "32_128", "128_512", "512_2k", "2k_8k", "8k_32k", "ge32k",
];

/// Upper bounds (exclusive) of the first eight range bins; the ninth is open.
pub const RANGE_BOUNDS: [u32; 8] = [2, 8, 32, 128, 512, 2048, 8192, 32768];

/// The features, in column order.
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [
    // operation counts
    "add",
    "sub",
    "mul",
    "div",
    "floordiv",
    "mod",
    "func",
    // structure
    "operation_count",
    "var_count",
    "const_count",
    "node_count",
    "tree_depth",
    "int_result_ops",
    // answer
    "answer_is_int",
    "answer_is_negative",
    "answer_digits",
    "answer_sig_digits",
    "answer_range_lt2",
    "answer_range_2_8",
    "answer_range_8_32",
    "answer_range_32_128",
    "answer_range_128_512",
    "answer_range_512_2k",
    "answer_range_2k_8k",
    "answer_range_8k_32k",
    "answer_range_ge32k",
    // leaves
    "leaf_int_count",
    "leaf_float_count",
    "leaf_max_digits",
    "leaf_range_lt2",
    "leaf_range_2_8",
    "leaf_range_8_32",
    "leaf_range_32_128",
    "leaf_range_128_512",
    "leaf_range_512_2k",
    "leaf_range_2k_8k",
    "leaf_range_8k_32k",
    "leaf_range_ge32k",
    // intermediate results
    "inter_int_count",
    "inter_float_count",
    "inter_negative_count",
    "inter_fraction_count",
    "inter_range_lt2",
    "inter_range_2_8",
    "inter_range_8_32",
    "inter_range_32_128",
    "inter_range_128_512",
    "inter_range_512_2k",
    "inter_range_2k_8k",
    "inter_range_8k_32k",
    "inter_range_ge32k",
];

const ADD: usize = 0;
const SUB: usize = 1;
const MUL: usize = 2;
const DIV: usize = 3;
const FLOORDIV: usize = 4;
const MOD: usize = 5;
const FUNC: usize = 6;
const OPERATION_COUNT: usize = 7;
const VAR_COUNT: usize = 8;
const CONST_COUNT: usize = 9;
const NODE_COUNT: usize = 10;
const TREE_DEPTH: usize = 11;
const INT_RESULT_OPS: usize = 12;
const ANSWER_IS_INT: usize = 13;
const ANSWER_IS_NEGATIVE: usize = 14;
const ANSWER_DIGITS: usize = 15;
const ANSWER_SIG_DIGITS: usize = 16;
const ANSWER_RANGE: usize = 17;
const LEAF_INT_COUNT: usize = 26;
const LEAF_FLOAT_COUNT: usize = 27;
const LEAF_MAX_DIGITS: usize = 28;
const LEAF_RANGE: usize = 29;
const INTER_INT_COUNT: usize = 38;
const INTER_FLOAT_COUNT: usize = 39;
const INTER_NEGATIVE_COUNT: usize = 40;
const INTER_FRACTION_COUNT: usize = 41;
const INTER_RANGE: usize = 42;

/// The column index of a feature.
pub fn feature_index(name: &str) -> Option<usize> {
    FEATURE_NAMES.iter().position(|n| *n == name)
}

/// The range bin (0..9) of |v|, exact for rational values.
pub fn range_bin(v: Num) -> usize {
    let last = RANGE_BOUNDS.len();
    match v {
        Num::Ratio { n, d } => {
            let (a, d) = (n.unsigned_abs(), d.unsigned_abs());
            RANGE_BOUNDS
                .iter()
                // An overflowing bound * d is beyond any |n|.
                .position(|&b| (b as u128).checked_mul(d).is_none_or(|bd| a < bd))
                .unwrap_or(last)
        }
        Num::Float(x) => {
            let a = x.abs();
            RANGE_BOUNDS
                .iter()
                .position(|&b| a < b as f64)
                .unwrap_or(last)
        }
    }
}

/// `(digits, significant digits)` of the canonical text of `v` (its `Display`), computed without
/// allocating. See the module documentation for the rules.
pub fn canonical_digits(v: Num) -> (u32, u32) {
    if let Num::Ratio { n, d: 1 } = v {
        return integer_digits(n.unsigned_abs());
    }
    let mut buf = TextBuf::new();
    match write_canonical(&mut buf, v) {
        Ok(()) => text_digits(buf.as_str()),
        // Unreachable (the buffer holds any f64), but never wrong.
        Err(_) => text_digits(&v.to_string()),
    }
}

/// `(digits, significant digits)` of a number's text (see the module documentation).
pub fn text_digits(text: &str) -> (u32, u32) {
    let has_point = text.contains('.');
    let (mut digits, mut leading, mut zero_run, mut seen_nonzero) = (0u32, 0u32, 0u32, false);
    for b in text.bytes() {
        match b {
            b'0' if seen_nonzero => zero_run += 1,
            b'0' => leading += 1,
            b'1'..=b'9' => {
                seen_nonzero = true;
                zero_run = 0;
            }
            _ => continue,
        }
        digits += 1;
    }
    let trailing = if has_point { 0 } else { zero_run };
    (digits, digits - leading - trailing)
}

fn integer_digits(a: u128) -> (u32, u32) {
    if a == 0 {
        return (1, 0);
    }
    let digits = a.ilog10() + 1;
    let (mut x, mut trailing) = (a, 0);
    while x % 10 == 0 {
        x /= 10;
        trailing += 1;
    }
    (digits, digits - trailing)
}

/// A stack buffer for canonical texts: the longest is an f64 written with 6 decimals (< 330 bytes).
struct TextBuf {
    bytes: [u8; 512],
    len: usize,
}

impl TextBuf {
    fn new() -> Self {
        TextBuf {
            bytes: [0; 512],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is ever written.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl fmt::Write for TextBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Writes exactly what `Num`'s `Display` writes (the same branches), without allocating.
fn write_canonical(buf: &mut TextBuf, v: Num) -> fmt::Result {
    match v {
        Num::Ratio { n, d: 1 } => write!(buf, "{n}"),
        Num::Ratio { .. } => match v.decimal_parts(12) {
            Some((m, e)) => write_scaled(buf, m, e),
            None => write_fixed(buf, v, 6),
        },
        Num::Float(x) if x.fract() == 0.0 && x.abs() < 1e18 => write!(buf, "{}", x as i128),
        Num::Float(_) => write_fixed(buf, v, 6),
    }
}

/// `m * 10^e` as plain decimal text (`crate::num`'s `format_scaled`).
fn write_scaled(buf: &mut TextBuf, m: i128, e: i32) -> fmt::Result {
    if e >= 0 {
        write!(buf, "{m}")?;
        for _ in 0..e {
            buf.write_char('0')?;
        }
        return Ok(());
    }
    let scale = (-e) as usize;
    if m < 0 {
        buf.write_char('-')?;
    }
    let a = m.unsigned_abs();
    let len = if a == 0 { 1 } else { a.ilog10() as usize + 1 };
    if len <= scale {
        buf.write_str("0.")?;
        for _ in 0..scale - len {
            buf.write_char('0')?;
        }
        write!(buf, "{a}")
    } else {
        write!(buf, "{a}")?;
        if buf.len == buf.bytes.len() {
            return Err(fmt::Error);
        }
        let point = buf.len - scale;
        buf.bytes.copy_within(point..buf.len, point + 1);
        buf.bytes[point] = b'.';
        buf.len += 1;
        Ok(())
    }
}

/// Rounded half-even to `places` decimals, trailing zeros trimmed (`crate::num::format_fixed`).
fn write_fixed(buf: &mut TextBuf, x: Num, places: u32) -> fmt::Result {
    let r = x.round(places as i32).unwrap_or(x);
    match r.decimal_parts(places) {
        Some((m, e)) => write_scaled(buf, m, e),
        None => {
            let start = buf.len;
            write!(buf, "{:.*}", places as usize, r.to_f64())?;
            while buf.len > start && buf.bytes[buf.len - 1] == b'0' {
                buf.len -= 1;
            }
            while buf.len > start && buf.bytes[buf.len - 1] == b'.' {
                buf.len -= 1;
            }
            if &buf.bytes[start..buf.len] == b"-0" {
                buf.len = start;
                buf.write_char('0')?;
            }
            Ok(())
        }
    }
}

/// Caller-owned working space for [`compute_into`]; it grows to the largest program seen and is
/// then reused without allocating.
#[derive(Clone, Debug, Default)]
pub struct FeatureScratch {
    values: Vec<Num>,
    depth: Vec<u32>,
    live: Vec<bool>,
}

impl FeatureScratch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Scratch already sized for programs of up to `nodes` nodes.
    pub fn with_capacity(nodes: usize) -> Self {
        let mut s = Self::default();
        s.grow(nodes);
        s
    }

    fn grow(&mut self, nodes: usize) {
        if self.values.len() < nodes {
            self.values.resize(nodes, Num::ZERO);
            self.depth.resize(nodes, 0);
            self.live.resize(nodes, false);
        }
    }
}

/// advmath's 51 features of `program` evaluated on `slot_values` (one number per question slot).
pub fn compute(
    program: &Program,
    slot_values: &[Num],
) -> std::result::Result<[f64; FEATURE_COUNT], EvalError> {
    let mut out = [0.0; FEATURE_COUNT];
    let mut scratch = FeatureScratch::with_capacity(program.nodes.len());
    compute_into(&mut scratch, program, slot_values, &mut out)?;
    Ok(out)
}

/// [`compute`] into `out`, with caller-owned scratch: no allocation once `scratch` has grown to
/// the program's size (a call with more than 8 arguments, which no validated program has, is the
/// exception: `Program::eval_node` collects those).
///
/// Errors: an arithmetic error of the evaluation (division by zero, domain), and
/// `EvalError::Domain` for a leaf whose slot is beyond `slot_values`. The program must be well
/// formed (children before parents, the answer a node), as every validated program is.
pub fn compute_into(
    scratch: &mut FeatureScratch,
    program: &Program,
    slot_values: &[Num],
    out: &mut [f64; FEATURE_COUNT],
) -> std::result::Result<(), EvalError> {
    let answer = program.answer as usize;
    scratch.grow(program.nodes.len());
    let FeatureScratch {
        values,
        depth,
        live,
    } = scratch;
    // Nodes the answer depends on: children come before their parents.
    live[..=answer].fill(false);
    live[answer] = true;
    for i in (0..=answer).rev() {
        if !live[i] {
            continue;
        }
        match &program.nodes[i] {
            Node::Bin { lhs, rhs, .. } => {
                live[*lhs as usize] = true;
                live[*rhs as usize] = true;
            }
            Node::Neg { arg } => live[*arg as usize] = true,
            Node::Call { args, .. } => args.iter().for_each(|&a| live[a as usize] = true),
            Node::Leaf { .. } | Node::Const { .. } => {}
        }
    }

    out.fill(0.0);
    let mut leaf_max_digits = 0u32;
    for i in 0..=answer {
        if !live[i] {
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
        let (node_depth, is_operation) = match node {
            Node::Leaf { .. } => {
                out[VAR_COUNT] += 1.0;
                out[if v.is_integer() {
                    LEAF_INT_COUNT
                } else {
                    LEAF_FLOAT_COUNT
                }] += 1.0;
                leaf_max_digits = leaf_max_digits.max(canonical_digits(v).0);
                out[LEAF_RANGE + range_bin(v)] += 1.0;
                (1, false)
            }
            Node::Const { .. } => {
                out[CONST_COUNT] += 1.0;
                (1, false)
            }
            Node::Bin { op, lhs, rhs } => {
                let (l, r) = (*lhs as usize, *rhs as usize);
                let kind = match op {
                    BinOp::Add => ADD,
                    BinOp::Sub => SUB,
                    BinOp::Mul => MUL,
                    BinOp::Div => DIV,
                    BinOp::FloorDiv => {
                        if values[l].div(values[r]).is_ok_and(|q| q.is_integer()) {
                            DIV
                        } else {
                            FLOORDIV
                        }
                    }
                    BinOp::Mod => MOD,
                    BinOp::Pow => FUNC,
                };
                out[kind] += 1.0;
                (1 + depth[l].max(depth[r]), true)
            }
            Node::Neg { arg } => {
                out[FUNC] += 1.0;
                (1 + depth[*arg as usize], true)
            }
            Node::Call { args, .. } => {
                out[FUNC] += 1.0;
                let deepest = args.iter().map(|&a| depth[a as usize]).max().unwrap_or(0);
                (1 + deepest, true)
            }
        };
        depth[i] = node_depth;
        if is_operation {
            out[OPERATION_COUNT] += 1.0;
            if v.is_integer() {
                out[INT_RESULT_OPS] += 1.0;
            }
            if i != answer {
                out[if v.is_integer() {
                    INTER_INT_COUNT
                } else {
                    INTER_FLOAT_COUNT
                }] += 1.0;
                if v.is_negative() {
                    out[INTER_NEGATIVE_COUNT] += 1.0;
                }
                if v.is_proper_fraction() {
                    out[INTER_FRACTION_COUNT] += 1.0;
                }
                out[INTER_RANGE + range_bin(v)] += 1.0;
            }
        }
    }
    out[NODE_COUNT] = out[OPERATION_COUNT] + out[VAR_COUNT] + out[CONST_COUNT];
    out[TREE_DEPTH] = depth[answer] as f64;
    out[LEAF_MAX_DIGITS] = leaf_max_digits as f64;

    let a = values[answer];
    out[ANSWER_IS_INT] = a.is_integer() as u8 as f64;
    out[ANSWER_IS_NEGATIVE] = a.is_negative() as u8 as f64;
    let (digits, sig) = canonical_digits(a);
    out[ANSWER_DIGITS] = digits as f64;
    out[ANSWER_SIG_DIGITS] = sig as f64;
    out[ANSWER_RANGE + range_bin(a)] = 1.0;
    Ok(())
}

/// How many slots a program reads, when it is well formed (children before parents, the answer a
/// node, calls with a valid argument count, finite constants); `None` otherwise.
pub fn slots_needed(p: &Program) -> Option<usize> {
    if p.answer as usize >= p.nodes.len() {
        return None;
    }
    let mut needed = 0;
    for (i, node) in p.nodes.iter().enumerate() {
        let before = |x: u32| (x as usize) < i;
        let ok = match node {
            Node::Leaf { slot } => {
                needed = needed.max(*slot as usize + 1);
                true
            }
            Node::Const { value, .. } => finite(*value),
            Node::Bin { lhs, rhs, .. } => before(*lhs) && before(*rhs),
            Node::Neg { arg } => before(*arg),
            Node::Call { func, args } => {
                func.arity_ok(args.len()) && args.iter().all(|&a| before(a))
            }
        };
        if !ok {
            return None;
        }
    }
    Some(needed)
}

/// Whether a value is finite (exact values always are).
pub fn finite(v: Num) -> bool {
    !matches!(v, Num::Float(x) if !x.is_finite())
}
