//! The 51 problem features of Xie et al. 2024 (appendix J): one row per variant, computed from the
//! problem's solution tree evaluated on that variant's numbers.
//!
//! The set and order are fixed by [`FEATURE_NAMES`] (never discovered from data); every value is an
//! `f64` (counts are whole numbers, flags are 0 or 1), and the `features` table stores each as a
//! Float64 column ([`crate::schema::features`]).
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
//! [`build_features_table`] writes the `features` table next to the `variants` table.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::ingest::read_problems;
use crate::num::{EvalError, Num};
use crate::program::tree::num_text;
use crate::program::{BinOp, Node, Program};
use crate::schema;
use crate::table::AtomicParquet;

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

/// The 51 features of `program` evaluated on `slot_values` (one number per question slot).
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
fn slots_needed(p: &Program) -> Option<usize> {
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

fn finite(v: Num) -> bool {
    !matches!(v, Num::Float(x) if !x.is_finite())
}

/// Rows per batch read from the variants table.
const BATCH_ROWS: usize = 8192;

struct Prepared<'a> {
    program: &'a Program,
    slots_needed: usize,
}

/// Compute the `features` table: for every `tables/variants/dataset=<d>/attack=<a>/part-*.parquet`
/// (parts in numeric order, rows in file order), write
/// `tables/features/dataset=<d>/attack=<a>/part-0.parquet` with one row per variant. Batches are
/// computed in parallel and written in order, so the bytes do not depend on the thread count.
/// Each dataset's partition is staged and then replaces the old one.
///
/// A row whose problem is unknown or invalid, whose numbers do not parse (or are too few for the
/// tree), or whose evaluation fails is skipped with a warning naming the variant. Returns the
/// number of rows written.
pub fn build_features_table(tables: &Path) -> Result<usize> {
    let records = read_problems(tables)?;
    let mut programs: HashMap<&str, Prepared> = HashMap::new();
    for r in &records {
        let Some(tree) = r.tree.as_ref().filter(|_| r.is_valid()) else {
            continue;
        };
        match slots_needed(tree) {
            Some(slots_needed) => {
                programs.insert(
                    &r.problem_id,
                    Prepared {
                        program: tree,
                        slots_needed,
                    },
                );
            }
            None => eprintln!(
                "warning: features: the tree of {} is malformed; its variants are skipped",
                r.problem_id
            ),
        }
    }
    let variants = tables.join("variants");
    if !variants.is_dir() {
        return Err(Error::invalid(
            variants.display(),
            "no variants table (run `advmath generate` first)",
        ));
    }
    let datasets = hive_dirs(&variants, "dataset=")?;
    if datasets.is_empty() {
        return Err(Error::invalid(
            variants.display(),
            "no dataset=<d> partitions (run `advmath generate` first)",
        ));
    }
    let features = tables.join("features");
    let mut totals = Totals::default();
    for (dataset, dataset_dir) in datasets {
        let staging = tables.join(format!(
            ".staging-features-{dataset}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&staging);
        let outcome = (|| -> Result<()> {
            for (attack, attack_dir) in hive_dirs(&dataset_dir, "attack=")? {
                let path = staging.join(&attack).join("part-0.parquet");
                let mut writer = AtomicParquet::create(&path, schema::features())?;
                for part in part_files(&attack_dir)? {
                    features_of_file(&part, &programs, &mut writer, &mut totals)?;
                }
                writer.finish()?;
            }
            let target = features.join(&dataset);
            if target.exists() {
                fs::remove_dir_all(&target).map_err(|e| Error::file(&target, e))?;
            }
            if staging.exists() {
                fs::create_dir_all(&features).map_err(|e| Error::file(&features, e))?;
                fs::rename(&staging, &target).map_err(|e| Error::file(&target, e))?;
            }
            Ok(())
        })();
        if outcome.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        outcome?;
    }
    if totals.skipped > 0 {
        eprintln!(
            "warning: features: skipped {} of {} variants",
            totals.skipped,
            totals.skipped + totals.written
        );
    }
    Ok(totals.written)
}

#[derive(Default)]
struct Totals {
    written: usize,
    skipped: usize,
}

/// Subfolders `<prefix><value>` of `dir`, sorted by name.
fn hive_dirs(dir: &Path, prefix: &str) -> Result<Vec<(String, PathBuf)>> {
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .map_err(|e| Error::file(dir, e))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            name.starts_with(prefix).then(|| (name, e.path()))
        })
        .collect();
    out.sort();
    Ok(out)
}

/// `part-N.parquet` files of `dir`, in increasing N (then name).
fn part_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<(u64, String, PathBuf)> = fs::read_dir(dir)
        .map_err(|e| Error::file(dir, e))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let n = name.strip_prefix("part-")?.strip_suffix(".parquet")?;
            Some((n.parse().unwrap_or(u64::MAX), name, e.path()))
        })
        .collect();
    out.sort();
    Ok(out.into_iter().map(|(_, _, p)| p).collect())
}

fn features_of_file(
    path: &Path,
    programs: &HashMap<&str, Prepared>,
    writer: &mut AtomicParquet,
    totals: &mut Totals,
) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::file(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
    let roots = ["variant_id", "problem_id", "numbers"]
        .iter()
        .map(|c| {
            builder
                .schema()
                .index_of(c)
                .map_err(|_| Error::invalid(path.display(), format!("missing column {c}")))
        })
        .collect::<Result<Vec<usize>>>()?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()?;
    let mut first_row = 0;
    for batch in reader {
        let batch = batch?;
        let out = features_of_batch(&batch, programs, path, first_row, totals)?;
        first_row += batch.num_rows();
        if out.num_rows() > 0 {
            writer.write(&out)?;
        }
    }
    Ok(())
}

fn features_of_batch(
    batch: &RecordBatch,
    programs: &HashMap<&str, Prepared>,
    path: &Path,
    first_row: usize,
    totals: &mut Totals,
) -> Result<RecordBatch> {
    let bad =
        |what: &str| Error::invalid(path.display(), format!("column {what} has the wrong type"));
    let text = |name: &str| -> Result<&StringArray> {
        batch
            .column_by_name(name)
            .and_then(|c| c.as_string_opt::<i32>())
            .ok_or_else(|| bad(name))
    };
    let ids = text("variant_id")?;
    let problem_ids = text("problem_id")?;
    let numbers = batch
        .column_by_name("numbers")
        .and_then(|c| c.as_list_opt::<i32>())
        .ok_or_else(|| bad("numbers"))?;
    let items = numbers
        .values()
        .as_string_opt::<i32>()
        .ok_or_else(|| bad("numbers"))?;
    let offsets = numbers.value_offsets();

    let row = |scratch: &mut FeatureScratch,
               slots: &mut Vec<Num>,
               i: usize|
     -> std::result::Result<[f64; FEATURE_COUNT], String> {
        if ids.is_null(i) {
            return Err("variant_id is null".into());
        }
        if problem_ids.is_null(i) {
            return Err("problem_id is null".into());
        }
        let pid = problem_ids.value(i);
        let prepared = programs
            .get(pid)
            .ok_or_else(|| format!("problem {pid} is unknown or invalid"))?;
        if numbers.is_null(i) {
            return Err("numbers is null".into());
        }
        slots.clear();
        for j in offsets[i] as usize..offsets[i + 1] as usize {
            if items.is_null(j) {
                return Err(format!("number {} is null", j - offsets[i] as usize));
            }
            let t = items.value(j);
            match num_text::from_text(t).filter(|v| finite(*v)) {
                Some(v) => slots.push(v),
                None => return Err(format!("number {t:?} does not parse")),
            }
        }
        if slots.len() < prepared.slots_needed {
            return Err(format!(
                "{} numbers, but the tree reads slot {}",
                slots.len(),
                prepared.slots_needed - 1
            ));
        }
        let mut out = [0.0; FEATURE_COUNT];
        compute_into(scratch, prepared.program, slots, &mut out)
            .map_err(|e| format!("the tree does not evaluate: {e}"))?;
        Ok(out)
    };
    let rows: Vec<std::result::Result<[f64; FEATURE_COUNT], String>> = (0..batch.num_rows())
        .into_par_iter()
        .map_init(
            || (FeatureScratch::new(), Vec::new()),
            |(scratch, slots), i| row(scratch, slots, i),
        )
        .collect();

    let mut kept_ids: Vec<&str> = Vec::with_capacity(rows.len());
    let mut columns: Vec<Vec<f64>> = (0..FEATURE_COUNT)
        .map(|_| Vec::with_capacity(rows.len()))
        .collect();
    for (i, r) in rows.iter().enumerate() {
        match r {
            Ok(values) => {
                kept_ids.push(ids.value(i));
                for (c, v) in columns.iter_mut().zip(values) {
                    c.push(*v);
                }
            }
            Err(reason) => {
                let name = if ids.is_null(i) {
                    format!("at row {} of {}", first_row + i, path.display())
                } else {
                    ids.value(i).to_string()
                };
                eprintln!("warning: features: skipped variant {name}: {reason}");
                totals.skipped += 1;
            }
        }
    }
    totals.written += kept_ids.len();
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(FEATURE_COUNT + 1);
    arrays.push(Arc::new(StringArray::from(kept_ids)));
    for c in columns {
        arrays.push(Arc::new(Float64Array::from(c)));
    }
    Ok(RecordBatch::try_new(schema::features(), arrays)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{build_record, problems_path, records_to_batch, ProgramSource, RawProblem};
    use crate::program::{validate_program, AlignMode};
    use crate::question::find_slots;
    use arrow::array::{Int32Array, ListBuilder, StringBuilder, UInt64Array};

    fn program(question: &str, src: &str, gold: &str) -> Program {
        validate_program(
            src,
            question,
            &find_slots(question),
            Num::parse_decimal(gold),
            AlignMode::Given,
        )
        .unwrap_or_else(|e| panic!("{question}: {e}"))
    }

    fn nums(texts: &[&str]) -> Vec<Num> {
        texts
            .iter()
            .map(|t| Num::parse_decimal(t).unwrap())
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
    fn names_indices_and_schema_agree() {
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
        let fields: Vec<String> = schema::features()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(fields[0], "variant_id");
        assert_eq!(&fields[1..], &FEATURE_NAMES.map(String::from)[..]);
        let documented: Vec<&str> = schema::FEATURES_DOC.iter().map(|(n, _)| *n).collect();
        assert_eq!(documented[..2], ["dataset", "attack"]);
        assert_eq!(
            documented[2..],
            fields.iter().map(|s| s.as_str()).collect::<Vec<_>>()[..]
        );
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
            values
                .push(Num::ratio(n, [1, 2, 4, 5, 8, 10, 16, 25, 1000][(d % 9) as usize]).unwrap());
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
        let p = Program { nodes, answer: 4 };
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

    fn variants_batch(rows: &[(&str, &str, &[&str])]) -> RecordBatch {
        let mut numbers = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
            arrow::datatypes::Field::new("item", arrow::datatypes::DataType::Utf8, false),
        ));
        for (_, _, ns) in rows {
            for n in *ns {
                numbers.values().append_value(n);
            }
            numbers.append(true);
        }
        let text = |f: fn(&(&str, &str, &[&str])) -> String| -> ArrayRef {
            Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
        };
        RecordBatch::try_new(
            schema::variants(),
            vec![
                text(|r| r.0.to_string()),
                text(|r| r.1.to_string()),
                Arc::new(Int32Array::from(vec![0; rows.len()])),
                Arc::new(Int32Array::from((0..rows.len() as i32).collect::<Vec<_>>())),
                text(|_| "q".to_string()),
                text(|_| "0".to_string()),
                text(|_| "0".to_string()),
                Arc::new(numbers.finish()),
                Arc::new(UInt64Array::from(vec![0u64; rows.len()])),
            ],
        )
        .unwrap()
    }

    fn read_features(path: &Path) -> (Vec<String>, Vec<[f64; FEATURE_COUNT]>) {
        let mut ids = Vec::new();
        let mut rows = Vec::new();
        for b in crate::table::read_batches(path).unwrap() {
            assert_eq!(b.schema(), schema::features());
            let id = b.column(0).as_string::<i32>();
            for i in 0..b.num_rows() {
                ids.push(id.value(i).to_string());
                let mut r = [0.0; FEATURE_COUNT];
                for (k, v) in r.iter_mut().enumerate() {
                    *v = b
                        .column(k + 1)
                        .as_primitive::<arrow::datatypes::Float64Type>()
                        .value(i);
                }
                rows.push(r);
            }
        }
        (ids, rows)
    }

    #[test]
    fn builds_the_table_skipping_bad_rows_deterministically() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path();
        let raw = |i: i64, question: &str, answer: &str, program: &str| RawProblem {
            source_index: i,
            question: question.into(),
            answer: Some(answer.into()),
            program: Some(Ok(program.into())),
            ..Default::default()
        };
        let records = vec![
            build_record(
                &raw(
                    0,
                    "A pie is cut into 8 slices and Sam eats 3 of them.",
                    "0.375",
                    "print(3 / 8)",
                ),
                "toy",
                "test",
                ProgramSource::Given,
            ),
            build_record(
                &raw(
                    1,
                    "There are 12 boxes with 640 apples in each box.",
                    "7680",
                    "print(12 * 640)",
                ),
                "toy",
                "test",
                ProgramSource::Given,
            ),
            // Invalid: the answer does not match.
            build_record(
                &raw(2, "Tom has 5 apples and 7 pears.", "13", "print(5 + 7)"),
                "toy",
                "test",
                ProgramSource::Given,
            ),
        ];
        assert!(records[0].is_valid() && records[1].is_valid() && !records[2].is_valid());
        crate::table::write_batch(
            &problems_path(tables, "toy", "test"),
            &records_to_batch(&records).unwrap(),
        )
        .unwrap();
        let part = |attack: &str, n: usize| {
            tables
                .join("variants/dataset=toy")
                .join(format!("attack={attack}"))
                .join(format!("part-{n}.parquet"))
        };
        let (pie, boxes, bad) = ("toy/test/0", "toy/test/1", "toy/test/2");
        crate::table::write_batch(
            &part("original", 0),
            &variants_batch(&[
                ("toy/test/0/original/0", pie, &["8", "3"]),
                ("toy/test/1/original/0", boxes, &["12", "640"]),
                ("toy/test/2/original/0", bad, &["5", "7"]),
            ]),
        )
        .unwrap();
        // Parts are read in numeric order: part-2 before part-10.
        crate::table::write_batch(
            &part("m1", 10),
            &variants_batch(&[("toy/test/1/m1/1", boxes, &["25", "640"])]),
        )
        .unwrap();
        crate::table::write_batch(
            &part("m1", 2),
            &variants_batch(&[
                ("toy/test/0/m1/0", pie, &["4", "20"]),
                ("toy/test/0/m1/1", pie, &["0", "3"]),
                ("toy/test/0/m1/2", pie, &["x", "3"]),
                ("toy/test/0/m1/3", pie, &["8"]),
                ("toy/test/0/m1/4", pie, &["NaN", "3"]),
                ("toy/test/9/m1/0", "toy/test/9", &["8", "3"]),
                ("toy/test/0/m1/5", pie, &["2", "25"]),
            ]),
        )
        .unwrap();
        let written = build_features_table(tables).unwrap();
        assert_eq!(written, 5);

        let out = |attack: &str| {
            tables
                .join("features/dataset=toy")
                .join(format!("attack={attack}"))
                .join("part-0.parquet")
        };
        let (ids, rows) = read_features(&out("original"));
        assert_eq!(ids, ["toy/test/0/original/0", "toy/test/1/original/0"]);
        let cases = fixtures();
        assert_eq!(rows, [cases[3].got, cases[8].got]);
        let (ids, rows) = read_features(&out("m1"));
        assert_eq!(
            ids,
            ["toy/test/0/m1/0", "toy/test/0/m1/5", "toy/test/1/m1/1"]
        );
        assert_eq!(rows, [cases[4].got, cases[5].got, cases[9].got]);

        // Same bytes on a second run, with one thread or many.
        let first = (
            fs::read(out("original")).unwrap(),
            fs::read(out("m1")).unwrap(),
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| build_features_table(tables)).unwrap(), 5);
        assert_eq!(first.0, fs::read(out("original")).unwrap());
        assert_eq!(first.1, fs::read(out("m1")).unwrap());
        // No staging folder is left behind.
        let leftovers: Vec<_> = fs::read_dir(tables)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".staging"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn a_missing_variants_table_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let raw = RawProblem {
            source_index: 0,
            question: "Tom has 5 apples and 7 pears.".into(),
            answer: Some("12".into()),
            program: Some(Ok("print(5 + 7)".into())),
            ..Default::default()
        };
        let records = vec![build_record(&raw, "toy", "test", ProgramSource::Given)];
        crate::table::write_batch(
            &problems_path(dir.path(), "toy", "test"),
            &records_to_batch(&records).unwrap(),
        )
        .unwrap();
        assert!(build_features_table(dir.path()).is_err());
    }
}
