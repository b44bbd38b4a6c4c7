//! The `generation_stats` table: one row per (problem, numeric or text attack), at
//! `generation_stats/dataset=<d>/part-0.parquet`.

use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::columns::utf8;
use crate::error::Result;
use advmath_core::attack::sample::AttackStats;
use advmath_core::vocab::REJECT_NAMES;

/// The table's folder name under the tables root.
pub const TABLE: &str = "generation_stats";

/// `generation_stats`: one row per (problem, numeric attack), at `generation_stats/dataset=<d>/`.
/// `<tables>/generation_stats/dataset=<d>`: the partition a generation run of a dataset replaces.
pub fn dataset_dir(tables: &std::path::Path, dataset: &str) -> std::path::PathBuf {
    crate::paths::hive_dir(&tables.join(TABLE), "dataset", dataset)
}

pub fn schema() -> SchemaRef {
    let mut fields = vec![
        utf8("problem_id", false),
        utf8("attack", false),
        Field::new("attempts", DataType::Int64, false),
        Field::new("valid", DataType::Int64, false),
        Field::new("unique_valid", DataType::Int64, false),
        Field::new("emitted", DataType::Int64, false),
        Field::new("reached_target", DataType::Boolean, false),
    ];
    for name in REJECT_NAMES {
        fields.push(Field::new(
            format!("rejected_{name}"),
            DataType::Int64,
            false,
        ));
    }
    fields.push(utf8("failure", true));
    fields.push(utf8("reader_rules", true));
    fields.push(Field::new("lost_to_reader_rules", DataType::Boolean, false));
    fields.push(utf8("refused", true));
    Arc::new(Schema::new(fields))
}

pub const DOC: &[(&str, &str)] = &[
    ("dataset", "partition: source dataset"),
    ("problem_id", "the problem"),
    ("attack", "`m1`, `m2`, `m3`, or a text attack (`names`, `noop`, `m3+names`, …)"),
    ("attempts", "attempts made (N); for a text attack, the questions it was tried on"),
    ("valid", "attempts whose every node kept its constraints (duplicates included)"),
    ("unique_valid", "distinct valid number tuples (the original excluded) that every second program agrees on"),
    ("emitted", "variants written (m when the target was reached, else 0; for a text attack, the questions it changed)"),
    ("reached_target", "at least m distinct valid tuples were found"),
    ("rejected_<reason>", "attempts discarded per reason: division_by_zero, domain, not_integer, not_positive, not_proper_fraction, original, duplicate, disagreement (a distinct valid tuple on which another independent program of the problem computes another answer: see `variants.support`), and the reader's rules of `reader_rules`: order (a part larger than its whole, ranked numbers of one noun out of the question's order, a count after \"only\" not below the one before it), unit_bound (a count outside its unit, such as an 8 day week or a person 300 years old; a fact of the world changed, such as a spider's 8 legs; a count of the people the question names changed; a plural count become one), denomination (a bill or coin that does not exist)"),
    ("failure", "null, or why the problem's work failed as a whole (an internal error, with where it happened): its other columns are then 0 and no variant of it is written"),
    ("reader_rules", "the reader's rules the problem's numbers keep (`generate --constraints reader`, the default), `; `-separated, each with why it was inferred: `22 <= 25 ('stayed': a part is at most its whole of 'man')`, `3 <= [5] ('came up with': a part is at most its whole)` (a bracketed value is one the program computes, shown on the original numbers); empty when none applies, null under `--constraints paper`"),
    ("lost_to_reader_rules", "the problem fell short of m variants in this attack only because of the reader's rules: drawn again with the paper's constraints alone (same stream), it reaches m. `generate` counts these per dataset and attack on stderr"),
    ("refused", "a text attack only: why it left questions unchanged, with how many (`no_name: 1`: the question names no person; `unsure_name`: a capitalised word that may be a person the rules do not see; `names_alike`: two names one letter apart; `no_name_left`; `no_place`: no count of listed items nor person a no-op sentence can speak of without touching what the question asks), `; `-separated; null when it changed every question"),
];

/// One row of the `generation_stats` table.
pub struct StatRow {
    pub problem_id: String,
    pub attack: String,
    pub stats: AttackStats,
    pub emitted: usize,
    pub reached: bool,
    /// Why the problem's work failed as a whole (nothing of it is written), if it did.
    pub failure: Option<String>,
    /// The reader's rules the problem keeps, described (`None` under the paper's constraints).
    pub reader_rules: Option<String>,
    /// The problem fell short of m only because of the reader's rules.
    pub lost_to_reader_rules: bool,
    /// A text attack's refusals with their counts (`no_name: 1`), if any.
    pub refused: Option<String>,
}

/// Rows as a batch in the table's schema.
pub fn stats_to_batch(rows: &[StatRow]) -> Result<RecordBatch> {
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(
            rows.iter()
                .map(|r| Some(r.problem_id.as_str()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.attack.as_str()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.stats.attempts as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.stats.valid as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.stats.unique as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| r.emitted as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.reached))
                .collect::<BooleanArray>(),
        ),
    ];
    for k in 0..REJECT_NAMES.len() {
        cols.push(Arc::new(
            rows.iter()
                .map(|r| r.stats.rejections[k] as i64)
                .collect::<Int64Array>(),
        ));
    }
    cols.push(Arc::new(
        rows.iter()
            .map(|r| r.failure.as_deref())
            .collect::<StringArray>(),
    ));
    cols.push(Arc::new(
        rows.iter()
            .map(|r| r.reader_rules.as_deref())
            .collect::<StringArray>(),
    ));
    cols.push(Arc::new(
        rows.iter()
            .map(|r| Some(r.lost_to_reader_rules))
            .collect::<BooleanArray>(),
    ));
    cols.push(Arc::new(
        rows.iter()
            .map(|r| r.refused.as_deref())
            .collect::<StringArray>(),
    ));
    Ok(RecordBatch::try_new(schema(), cols)?)
}

/// The attacks of a batch read whole from `part` (the shard merge copies it on).
pub fn attacks_of(batch: &RecordBatch, part: &std::path::Path) -> Result<StringArray> {
    crate::parquet::text_column(batch, "attack", part)
}
