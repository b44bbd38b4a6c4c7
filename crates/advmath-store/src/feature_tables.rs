//! The feature tables, one per feature set: `features` (advmath's 51) and `features_xie2024` (the
//! authors' family), each hive-partitioned like `variants` as
//! `<table>/dataset=<d>/attack=<a>/part-0.parquet`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::columns::utf8;
use crate::paths::{hive_dir, part_file};
use advmath_core::feature_sets::FeatureSet;

/// `features`: one row per variant, hive-partitioned like `variants` as
/// `features/dataset=<d>/attack=<a>/part-0.parquet`. advmath's own 51 features (the `advmath`
/// set, not the authors' list: see `crates/advmath-core/src/feature_sets.rs`) in the fixed order of
/// [`advmath_core::feature_sets::FEATURE_NAMES`]; every feature is Float64, counts and 0/1 flags included, so
/// that the table is one numeric matrix.
pub fn advmath_schema() -> SchemaRef {
    let mut fields = vec![utf8("variant_id", false)];
    for name in advmath_core::feature_sets::FEATURE_NAMES {
        fields.push(Field::new(name, DataType::Float64, false));
    }
    Arc::new(Schema::new(fields))
}

/// `features_xie2024`: the `xie2024` set, the feature family of the authors' code
/// (`crates/advmath-core/src/feature_sets/xie2024.rs`), one row per variant, partitioned like `features` as
/// `features_xie2024/dataset=<d>/attack=<a>/part-0.parquet`; columns in the fixed order of
/// [`advmath_core::feature_sets::xie2024::XIE2024_NAMES`], all Float64.
pub fn xie2024_schema() -> SchemaRef {
    let mut fields = vec![utf8("variant_id", false)];
    for name in advmath_core::feature_sets::xie2024::XIE2024_NAMES {
        fields.push(Field::new(name, DataType::Float64, false));
    }
    Arc::new(Schema::new(fields))
}

/// Column descriptions of `features_xie2024`, partitions first, then schema order.
pub fn xie2024_doc() -> Vec<(String, String)> {
    let mut out = vec![
        (
            "dataset".to_string(),
            "partition: source dataset".to_string(),
        ),
        (
            "attack".to_string(),
            "partition: the attack, as in `variants`".to_string(),
        ),
        (
            "variant_id".to_string(),
            "the variant (joins `variants`)".to_string(),
        ),
    ];
    out.extend(advmath_core::feature_sets::xie2024::column_docs());
    out
}

/// Column descriptions of `features`, partitions first, then schema order. "Operations" are
/// `Bin`, `Neg` and `Call` nodes; "leaves" are question numbers (constants are not leaves);
/// "intermediate results" are the values of operations other than the answer; range bins are
/// on |value|. See `crates/advmath-core/src/feature_sets.rs` for the full definitions.
pub const ADVMATH_DOC: &[(&str, &str)] = &[
    ("dataset", "partition: source dataset"),
    ("attack", "partition: the attack, as in `variants`"),
    ("variant_id", "the variant (joins `variants`)"),
    ("add", "operations `+`"),
    ("sub", "operations `-` (binary)"),
    ("mul", "operations `*`"),
    ("div", "operations `/`, and `//` whose operands divide evenly on this variant's numbers"),
    ("floordiv", "operations `//` that do not divide evenly on this variant's numbers"),
    ("mod", "operations `%`"),
    ("func", "function calls, unary minus and `**`"),
    ("operation_count", "all operations (add + sub + mul + div + floordiv + mod + func)"),
    ("var_count", "leaves: question numbers the answer depends on (one per tree node)"),
    ("const_count", "constants: literals not in the question, unit constants, number words"),
    ("node_count", "operation_count + var_count + const_count"),
    ("tree_depth", "nodes on the longest path from the answer to a leaf or constant (a single leaf is 1)"),
    ("int_result_ops", "operations, the answer included, whose value is an integer"),
    ("answer_is_int", "1 when the answer is an integer, else 0"),
    ("answer_is_negative", "1 when the answer is below 0, else 0"),
    ("answer_digits", "digits 0-9 in the answer's canonical text (no sign, no decimal point)"),
    ("answer_sig_digits", "significant digits of the answer's canonical text (leading zeros, and an integer's trailing zeros, stripped; 0 for zero)"),
    ("answer_range_lt2", "1 when |answer| < 2"),
    ("answer_range_2_8", "1 when 2 <= |answer| < 8"),
    ("answer_range_8_32", "1 when 8 <= |answer| < 32"),
    ("answer_range_32_128", "1 when 32 <= |answer| < 128"),
    ("answer_range_128_512", "1 when 128 <= |answer| < 512"),
    ("answer_range_512_2k", "1 when 512 <= |answer| < 2048"),
    ("answer_range_2k_8k", "1 when 2048 <= |answer| < 8192"),
    ("answer_range_8k_32k", "1 when 8192 <= |answer| < 32768"),
    ("answer_range_ge32k", "1 when |answer| >= 32768"),
    ("leaf_int_count", "leaves whose value is an integer"),
    ("leaf_float_count", "leaves whose value is not an integer"),
    ("leaf_max_digits", "most digits 0-9 in a leaf's canonical text"),
    ("leaf_range_lt2", "leaves with |value| < 2"),
    ("leaf_range_2_8", "leaves with 2 <= |value| < 8"),
    ("leaf_range_8_32", "leaves with 8 <= |value| < 32"),
    ("leaf_range_32_128", "leaves with 32 <= |value| < 128"),
    ("leaf_range_128_512", "leaves with 128 <= |value| < 512"),
    ("leaf_range_512_2k", "leaves with 512 <= |value| < 2048"),
    ("leaf_range_2k_8k", "leaves with 2048 <= |value| < 8192"),
    ("leaf_range_8k_32k", "leaves with 8192 <= |value| < 32768"),
    ("leaf_range_ge32k", "leaves with |value| >= 32768"),
    ("inter_int_count", "intermediate results (operations other than the answer) that are integers"),
    ("inter_float_count", "intermediate results that are not integers"),
    ("inter_negative_count", "intermediate results below 0"),
    ("inter_fraction_count", "intermediate results strictly between 0 and 1"),
    ("inter_range_lt2", "intermediate results with |value| < 2"),
    ("inter_range_2_8", "intermediate results with 2 <= |value| < 8"),
    ("inter_range_8_32", "intermediate results with 8 <= |value| < 32"),
    ("inter_range_32_128", "intermediate results with 32 <= |value| < 128"),
    ("inter_range_128_512", "intermediate results with 128 <= |value| < 512"),
    ("inter_range_512_2k", "intermediate results with 512 <= |value| < 2048"),
    ("inter_range_2k_8k", "intermediate results with 2048 <= |value| < 8192"),
    ("inter_range_8k_32k", "intermediate results with 8192 <= |value| < 32768"),
    ("inter_range_ge32k", "intermediate results with |value| >= 32768"),
];

/// The schema of a feature set's table.
pub fn schema(set: FeatureSet) -> SchemaRef {
    match set {
        FeatureSet::Advmath => advmath_schema(),
        FeatureSet::Xie2024 => xie2024_schema(),
    }
}

/// The stage that writes the tables.
pub const MADE_BY: &str = "features";

/// `<tables>/<set's table>`.
pub fn dir(tables: &Path, set: FeatureSet) -> PathBuf {
    tables.join(set.table())
}

/// `<tables>/<set's table>/dataset=<d>`: the partition one features run of a dataset replaces.
pub fn dataset_dir(tables: &Path, set: FeatureSet, dataset: &str) -> PathBuf {
    hive_dir(&dir(tables, set), "dataset", dataset)
}

/// Where a dataset's partition is written before it replaces the old one.
pub fn staging_dir(tables: &Path, set: FeatureSet, dataset: &str) -> PathBuf {
    tables.join(format!(
        "{}{}",
        staging_prefix(set, dataset),
        std::process::id()
    ))
}

fn staging_prefix(set: FeatureSet, dataset: &str) -> String {
    format!(
        ".staging-{}-dataset={}-",
        set.table(),
        crate::paths::name_component(dataset)
    )
}

/// Remove the staging folders dead features runs of `dataset` left (hold its writer lock).
pub fn remove_dead_staging(
    tables: &Path,
    set: FeatureSet,
    dataset: &str,
) -> crate::error::Result<usize> {
    crate::commit::remove_leftovers(tables, Some(&staging_prefix(set, dataset)))
}

/// The one part of an attack inside a staged dataset partition.
pub fn staged_part(staging: &Path, attack: &str) -> PathBuf {
    part_file(&hive_dir(staging, "attack", attack), 0)
}

/// Each variant's feature values of `set` (in the set's column order), by variant id, for the
/// variants of `attacks` (every one when empty); `None` when the table is absent. Only the id
/// and the set's columns are decoded.
pub fn vectors(
    tables: &Path,
    set: FeatureSet,
    attacks: &[String],
) -> crate::error::Result<Option<std::collections::HashMap<String, Vec<f64>>>> {
    use arrow::array::{AsArray, Float64Array};
    let root = dir(tables, set);
    if !root.is_dir() {
        return Ok(None);
    }
    let mut out = std::collections::HashMap::new();
    let columns: Vec<&str> = std::iter::once("variant_id")
        .chain(set.names().iter().copied())
        .collect();
    for p in crate::parquet::files_where(&root, "attack", attacks)? {
        for b in crate::parquet::read_columns(&p, &columns)? {
            let ids = crate::parquet::text_column(&b, "variant_id", &p)?;
            let cols: Vec<Float64Array> = set
                .names()
                .iter()
                .map(|f| {
                    b.column_by_name(f)
                        .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Float64Type>())
                        .cloned()
                        .ok_or_else(|| {
                            crate::error::Error::invalid(
                                p.display(),
                                format!("no Float64 feature column {f}"),
                            )
                        })
                })
                .collect::<crate::error::Result<_>>()?;
            for i in 0..b.num_rows() {
                let row: Vec<f64> = cols.iter().map(|c| c.value(i)).collect();
                out.insert(ids.value(i).to_string(), row);
            }
        }
    }
    Ok(Some(out))
}
