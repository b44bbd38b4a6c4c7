//! Every table's Arrow schema, defined once. The README's "Tables" section documents the same
//! columns; a test keeps the two in step.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

fn utf8_list(name: &str) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
        false,
    )
}

/// `problems`: one row per source problem, valid or not.
pub fn problems() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("problem_id", false),
        utf8("dataset", false),
        utf8("split", false),
        Field::new("source_index", DataType::Int64, false),
        utf8("question", false),
        utf8("question_template", false),
        utf8_list("slot_values"),
        utf8("answer", true),
        utf8("program", true),
        utf8("program_origin", false),
        utf8("tree", true),
        utf8("status", false),
        utf8("error_kind", true),
        utf8("error_detail", true),
    ]))
}

/// Column descriptions, in schema order, for the README and the dataset card.
pub const PROBLEMS_DOC: &[(&str, &str)] = &[
    ("problem_id", "stable id `<dataset>/<split>/<source_index>`"),
    ("dataset", "source dataset (`gsm8k`, `multiarith`, `xie2024-gsm8k`, `default`, ...)"),
    ("split", "source split (`train`, `test`)"),
    ("source_index", "row or index in the source file"),
    ("question", "the original question text"),
    ("question_template", "the question with its numbers replaced by `{0}`, `{1}`, ... (literal braces doubled)"),
    ("slot_values", "the numbers of the question, exact decimal text, in slot order"),
    ("answer", "the gold answer, canonical text (null when the source has none)"),
    ("program", "the Python solution program (given, or synthesised from the worked solution)"),
    ("program_origin", "`given`, `gsm8k_annotations`, `multiarith_equations` or `none`"),
    ("tree", "the validated solution tree as JSON (null when invalid)"),
    ("status", "`valid` or `invalid`"),
    ("error_kind", "why the problem is invalid: has_loop, has_branch, has_comparison, wrong_answer, number_misalignment, unresolved_constant, unsupported, parse_error, eval_error, missing_program, bad_input"),
    ("error_detail", "a sentence naming the construct, value or file row at fault"),
];

/// `variants`: hive-partitioned as `variants/dataset=<d>/attack=<a>/part-N.parquet`; `dataset` and
/// `attack` come from the path (they are not stored in the files, so DataFusion and DuckDB can add
/// them as partition columns). Originals are rows with attack `original`.
pub fn variants() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("variant_id", false),
        utf8("problem_id", false),
        Field::new("noise_level", DataType::Int32, false),
        Field::new("variant_index", DataType::Int32, false),
        utf8("question", false),
        utf8("answer", false),
        utf8("answer_exact", false),
        utf8_list("numbers"),
        Field::new("seed", DataType::UInt64, false),
    ]))
}

pub const VARIANTS_DOC: &[(&str, &str)] = &[
    ("dataset", "partition: source dataset"),
    ("attack", "partition: `original`, `m1`, `m2`, `m3`, `punct10/30/50`, or a composition such as `m3+punct30`"),
    ("variant_id", "`<problem_id>/<attack>/<variant_index>`"),
    ("problem_id", "the problem it was made from (joins `problems`)"),
    ("noise_level", "punctuation noise in percent of the word count (0 when none)"),
    ("variant_index", "0-based index within (problem, attack), in attempt order"),
    ("question", "the question text shown to a model"),
    ("answer", "the exact answer, canonical text (integers without a decimal point; at most 6 decimals)"),
    ("answer_exact", "the exact answer as a decimal or a fraction `n/d`"),
    ("numbers", "the value of every question slot, exact text, in slot order"),
    ("seed", "the draw seed: the variant can be regenerated from it alone"),
];

/// `generation_stats`: one row per (problem, numeric attack), at `generation_stats/dataset=<d>/`.
pub fn generation_stats() -> SchemaRef {
    let mut fields = vec![
        utf8("problem_id", false),
        utf8("attack", false),
        Field::new("attempts", DataType::Int64, false),
        Field::new("valid", DataType::Int64, false),
        Field::new("unique_valid", DataType::Int64, false),
        Field::new("emitted", DataType::Int64, false),
        Field::new("reached_target", DataType::Boolean, false),
    ];
    for name in crate::generate::REJECT_NAMES {
        fields.push(Field::new(
            format!("rejected_{name}"),
            DataType::Int64,
            false,
        ));
    }
    Arc::new(Schema::new(fields))
}

pub const GENERATION_STATS_DOC: &[(&str, &str)] = &[
    ("dataset", "partition: source dataset"),
    ("problem_id", "the problem"),
    ("attack", "`m1`, `m2` or `m3`"),
    ("attempts", "attempts made (N)"),
    ("valid", "attempts whose every node kept its constraints (duplicates included)"),
    ("unique_valid", "distinct valid number tuples (the original excluded)"),
    ("emitted", "variants written (m when the target was reached, else 0)"),
    ("reached_target", "at least m distinct valid tuples were found"),
    ("rejected_<reason>", "attempts discarded per reason: division_by_zero, domain, not_integer, not_positive, not_proper_fraction, original, duplicate"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The README documents every column, in schema order.
    #[test]
    fn readme_documents_every_column() {
        let readme = include_str!("../README.md");
        for (schema, partition) in [
            (problems(), vec![]),
            (variants(), vec!["dataset", "attack"]),
            (generation_stats(), vec!["dataset"]),
        ] {
            let mut at = 0;
            let names: Vec<String> = partition
                .iter()
                .map(|s| s.to_string())
                .chain(schema.fields().iter().map(|f| f.name().clone()))
                .filter(|n| !n.starts_with("rejected_"))
                .collect();
            for name in names {
                let needle = format!("| {name} |");
                let found = readme[at..].find(&needle);
                assert!(
                    found.is_some(),
                    "README lacks column {name} (after byte {at})"
                );
                at += found.unwrap();
            }
        }
        for (name, _) in PROBLEMS_DOC
            .iter()
            .chain(VARIANTS_DOC)
            .chain(GENERATION_STATS_DOC)
        {
            assert!(
                readme.contains(&format!("| {name} |")) || name.starts_with("rejected_"),
                "{name}"
            );
        }
    }
}
