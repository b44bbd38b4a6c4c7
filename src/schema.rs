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
    ("program_origin", "`given`, `gsm8k_annotations`, `multiarith_equations`, `llm:<model>` (`advmath programs`, kept also when rejected) or `none`"),
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
    ("variant_index", "0-based index within (problem, attack), in a seeded random order (the first k are a uniform sample of the m)"),
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

/// `features`: one row per variant, hive-partitioned like `variants` as
/// `features/dataset=<d>/attack=<a>/part-0.parquet`. advmath's own 51 features (the `advmath`
/// set, not the authors' list: see `src/features/mod.rs`) in the fixed order of
/// [`crate::features::FEATURE_NAMES`]; every feature is Float64, counts and 0/1 flags included, so
/// that the table is one numeric matrix.
pub fn features() -> SchemaRef {
    let mut fields = vec![utf8("variant_id", false)];
    for name in crate::features::FEATURE_NAMES {
        fields.push(Field::new(name, DataType::Float64, false));
    }
    Arc::new(Schema::new(fields))
}

/// `features_xie2024`: the `xie2024` set, the feature family of the authors' code
/// (`src/features/xie2024.rs`), one row per variant, partitioned like `features` as
/// `features_xie2024/dataset=<d>/attack=<a>/part-0.parquet`; columns in the fixed order of
/// [`crate::features::xie2024::XIE2024_NAMES`], all Float64.
pub fn features_xie2024() -> SchemaRef {
    let mut fields = vec![utf8("variant_id", false)];
    for name in crate::features::xie2024::XIE2024_NAMES {
        fields.push(Field::new(name, DataType::Float64, false));
    }
    Arc::new(Schema::new(fields))
}

/// Column descriptions of `features_xie2024`, partitions first, then schema order.
pub fn features_xie2024_doc() -> Vec<(String, String)> {
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
    out.extend(crate::features::xie2024::column_docs());
    out
}

/// Column descriptions of `features`, partitions first, then schema order. "Operations" are
/// `Bin`, `Neg` and `Call` nodes; "leaves" are question numbers (constants are not leaves);
/// "intermediate results" are the values of operations other than the answer; range bins are
/// on |value|. See `src/features/mod.rs` for the full definitions.
pub const FEATURES_DOC: &[(&str, &str)] = &[
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

/// `responses`: one row per (model, prompt, variant), at `responses/<model>/part-*.parquet` (the folder
/// name is the sanitised model name; the `model` column holds the real one).
pub fn responses() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("response_key", false),
        utf8("model", false),
        utf8("template", false),
        utf8("variant_id", true),
        utf8("problem_id", true),
        utf8("dataset", true),
        utf8("attack", true),
        Field::new("noise_level", DataType::Int32, true),
        utf8("question", false),
        utf8("response", true),
        utf8("extracted", true),
        utf8("extraction_rule", false),
        utf8("gold", true),
        Field::new("correct", DataType::Boolean, true),
        Field::new("correct_exact", DataType::Boolean, true),
        Field::new("latency_ms", DataType::Float64, true),
        Field::new("prompt_tokens", DataType::Int64, true),
        Field::new("completion_tokens", DataType::Int64, true),
        utf8("finish_reason", true),
        utf8("source", false),
        Field::new("simulated", DataType::Boolean, false),
        utf8("error", true),
    ]))
}

pub const RESPONSES_DOC: &[(&str, &str)] = &[
    ("response_key", "hash of (model, template, decoding settings, question): the request key; with variant_id, the resume key (identical questions share one reply, each variant has its row)"),
    ("model", "model name as asked (`sim-*` models are simulated, `oracle` answers from the tree)"),
    ("template", "prompt template name (`xie2024`, `arithmattack`, or a file name)"),
    ("variant_id", "the variant asked about (joins `variants`; null for outside rows that match none)"),
    ("problem_id", "its problem"),
    ("dataset", "its dataset"),
    ("attack", "its attack (`original`, `m3`, `punct30`, ...)"),
    ("noise_level", "punctuation noise level of the question, percent"),
    ("question", "the question text sent"),
    ("response", "the raw generation (null when the request failed for good)"),
    ("extracted", "the answer read from the response (null: nothing found, never zero)"),
    ("extraction_rule", "which rule found it: answer_is, final_answer_is, boxed, hashes, answer_colon, last_number, miss"),
    ("gold", "the exact gold answer"),
    ("correct", "extracted equals gold after rounding both to 2 decimals (the paper's rule)"),
    ("correct_exact", "extracted equals gold exactly"),
    ("latency_ms", "request latency, milliseconds"),
    ("prompt_tokens", "prompt tokens reported by the server"),
    ("completion_tokens", "completion tokens reported by the server"),
    ("finish_reason", "the server's finish reason"),
    ("source", "`endpoint`, `simulated`, `oracle`, `openai_batch`, `lm_eval`, `arithmattack_csv`, `gsm8k_solutions`, `generic`"),
    ("simulated", "true for offline models (oracle and sim-*): never a real LLM"),
    ("error", "why the request failed, when it did"),
];

/// `efficient_responses`: the rows of efficient-attack runs (`respond --efficient-from`), at
/// `efficient_responses/<target>/part-*.parquet`: every `responses` column, then where the row
/// sits in the protocol. A table of its own, so these requests never mix with the target's full
/// run in the other metrics.
pub fn efficient_responses() -> SchemaRef {
    let mut fields: Vec<Field> = responses()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.extend([
        utf8("cheap_model", false),
        utf8("efficient_compat", false),
        Field::new("top_problems", DataType::Int32, false),
        Field::new("per_problem", DataType::Int32, true),
        utf8("plan_attack", false),
        Field::new("problem_rank", DataType::Int32, false),
        Field::new("step", DataType::Int32, false),
        Field::new("candidates", DataType::Int32, false),
        Field::new("problem_variants", DataType::Int32, false),
        Field::new("attack_problems", DataType::Int32, false),
        Field::new("attack_variants", DataType::Int32, false),
    ]);
    Arc::new(Schema::new(fields))
}

/// The columns `efficient_responses` adds to those of `responses`.
pub const EFFICIENT_RESPONSES_DOC: &[(&str, &str)] = &[
    ("cheap_model", "the cheap model whose answers ranked the problems and supplied the candidates"),
    ("efficient_compat", "`paper` (the cheap model's adversarial examples; the target's original asked first) or `reference` (every variant the cheap model gets wrong; no original asked, as the authors' script)"),
    ("top_problems", "problems attacked per dataset and attack (`--top-problems`, the paper's 50)"),
    ("per_problem", "at most this many candidates per problem (`--per-problem`; null: all)"),
    ("plan_attack", "the attack whose run the row belongs to (an original row is written for each attack that selected its problem)"),
    ("problem_rank", "the problem's rank in that run: 1 = most candidates (ties in problem-id order, numbers compared as numbers)"),
    ("step", "0 for the original, k for the k-th candidate sent"),
    ("candidates", "candidates queued for the problem, after the cap"),
    ("problem_variants", "the problem's variants of the attack: the requests a full attack sends for it"),
    ("attack_problems", "problems of the dataset with variants of the attack (a full attack on all of them)"),
    ("attack_variants", "their variants of the attack"),
];

/// `coefficients`: one row per (model, template, term) of the feature study, the intercept
/// included, at `coefficients/part-0.parquet`.
pub fn coefficients() -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("model", false),
        utf8("template", false),
        utf8("feature_set", false),
        utf8("feature", false),
        Field::new("coefficient", DataType::Float64, true),
        Field::new("std_error", DataType::Float64, true),
        Field::new("z", DataType::Float64, true),
        Field::new("p_value", DataType::Float64, true),
        Field::new("estimable", DataType::Boolean, false),
        Field::new("n", DataType::Int64, false),
        Field::new("accuracy", DataType::Float64, false),
        Field::new("simulated", DataType::Boolean, false),
    ]))
}

pub const COEFFICIENTS_DOC: &[(&str, &str)] = &[
    ("model", "the model whose correctness is fitted"),
    ("template", "the prompt template of its responses: each (model, template) is fitted on its own, never pooled"),
    ("feature_set", "the feature set fitted: `xie2024` (the authors' family, table `features_xie2024`) or `advmath` (table `features`)"),
    ("feature", "`intercept` or a column of that feature set"),
    ("coefficient", "fitted log-odds coefficient (per standard deviation when standardised); null when not estimable"),
    ("std_error", "Wald standard error, from the inverse Hessian at the fit"),
    ("z", "coefficient / std_error"),
    ("p_value", "two-sided p-value of z"),
    ("estimable", "false when the feature is constant in this model's data"),
    ("n", "variants in the fit"),
    ("accuracy", "share of them answered correctly"),
    ("simulated", "true for offline models (oracle and sim-*)"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns `efficient_responses` adds (the others are documented with `responses`).
    fn efficient_only() -> SchemaRef {
        let base = responses().fields().len();
        Arc::new(Schema::new(
            efficient_responses().fields()[base..]
                .iter()
                .map(|f| f.as_ref().clone())
                .collect::<Vec<_>>(),
        ))
    }

    /// The README documents every column, in schema order.
    #[test]
    fn readme_documents_every_column() {
        let readme = include_str!("../README.md");
        for (schema, partition) in [
            (problems(), vec![]),
            (variants(), vec!["dataset", "attack"]),
            (generation_stats(), vec!["dataset"]),
            (responses(), vec![]),
            (features(), vec!["dataset", "attack"]),
            (features_xie2024(), vec!["dataset", "attack"]),
            (coefficients(), vec![]),
            (efficient_only(), vec![]),
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
            .chain(RESPONSES_DOC)
            .chain(FEATURES_DOC)
            .chain(COEFFICIENTS_DOC)
            .chain(EFFICIENT_RESPONSES_DOC)
        {
            assert!(
                readme.contains(&format!("| {name} |")) || name.starts_with("rejected_"),
                "{name}"
            );
        }
        for (name, doc) in features_xie2024_doc() {
            assert!(
                readme.contains(&format!("| {name} | {doc} |")),
                "README lacks `| {name} | {doc} |`"
            );
        }
    }
}
