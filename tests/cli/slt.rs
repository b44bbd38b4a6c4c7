//! The metrics' expected results on the hand-built fixtures, as sqllogictest files run on
//! advmath's own SQL engine ([`SqlEngine`]: the Parquet tables, the shared views of `sql/views/`
//! and `model_order`, as `advmath metrics` sees them).
//!
//! `tests/slt/<fixture>/<name>.slt` runs on the tables of `<fixture>` (see [`build`]). Each file
//! has one test below; [`every_slt_file_has_a_test`] fails when a file has none.
//!
//! Two additions to plain SQL, both handled by the adapter ([`Engine`]):
//! - a metric's name (`xie_asr`, ...) used in a query stands for its result: the embedded metric
//!   SQL is put in front as a common table expression;
//! - `SET advmath.model_order = 'a,b'` sets the order of Table 4's prefix figure, as
//!   `advmath metrics --model-order a,b` does (`''`: by name).
//!
//! Values are written as DataFusion's own `.slt` files write them: NULL, `(empty)` for an empty
//! string, `true`/`false`, floats rounded to 12 decimals without trailing zeros. Column types are
//! checked: T text, I integer, R float, B boolean, ? anything else.

use std::path::{Path, PathBuf};

use crate::util::embedded_sql;
use advmath::metrics::SqlEngine;
use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Float32Type, Float64Type};
use sqllogictest::{ColumnType, DBOutput, Runner};

/// The column type letters of a `query` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Text,
    Integer,
    Float,
    Boolean,
    Other,
}

impl ColumnType for Type {
    fn from_char(value: char) -> Option<Self> {
        match value {
            'T' => Some(Type::Text),
            'I' => Some(Type::Integer),
            'R' => Some(Type::Float),
            'B' => Some(Type::Boolean),
            '?' => Some(Type::Other),
            _ => None,
        }
    }

    fn to_char(&self) -> char {
        match self {
            Type::Text => 'T',
            Type::Integer => 'I',
            Type::Float => 'R',
            Type::Boolean => 'B',
            Type::Other => '?',
        }
    }
}

fn column_type(t: &DataType) -> Type {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Type::Text,
        t if t.is_integer() => Type::Integer,
        t if t.is_floating()
            || matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..)) =>
        {
            Type::Float
        }
        DataType::Boolean => Type::Boolean,
        _ => Type::Other,
    }
}

fn float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let text = format!("{v:.12}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0" } else { text }.to_string()
}

fn cell(column: &ArrayRef, row: usize) -> String {
    if column.is_null(row) {
        return "NULL".into();
    }
    let text = match column.data_type() {
        DataType::Float64 => float(column.as_primitive::<Float64Type>().value(row)),
        DataType::Float32 => float(column.as_primitive::<Float32Type>().value(row) as f64),
        _ => arrow::util::display::array_value_to_string(column, row)
            .unwrap_or_else(|e| panic!("cannot show a {} value: {e}", column.data_type())),
    };
    if text.is_empty() {
        "(empty)".into()
    } else {
        text
    }
}

/// Whether `name` occurs in `sql` as a whole identifier.
fn names(sql: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    sql.match_indices(name).any(|(i, _)| {
        let before = advmath::cut::before(sql, i).chars().next_back();
        let after = advmath::cut::after(sql, i + name.len()).chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// `sql` with every metric it names defined in front of it as a common table expression.
fn with_metrics(sql: &str) -> String {
    let ctes: Vec<String> = embedded_sql()
        .iter()
        .filter(|(name, _)| names(sql, name))
        .map(|(name, text)| format!("{name} AS (\n{}\n)", text.trim().trim_end_matches(';')))
        .collect();
    if ctes.is_empty() {
        return sql.to_string();
    }
    let trimmed = sql.trim_start();
    match trimmed.split_at_checked(5) {
        Some((w, rest)) if w.eq_ignore_ascii_case("with ") => {
            format!("WITH {},\n{}", ctes.join(",\n"), rest)
        }
        _ => format!("WITH {}\n{trimmed}", ctes.join(",\n")),
    }
}

/// The models of `SET advmath.model_order = 'a,b'`, if `sql` is that statement.
fn model_order(sql: &str) -> Option<Vec<String>> {
    const PREFIX: &str = "set advmath.model_order";
    let sql = sql.trim().trim_end_matches(';');
    let (head, rest) = sql.split_at_checked(PREFIX.len())?;
    if !head.eq_ignore_ascii_case(PREFIX) {
        return None;
    }
    let value = rest.trim();
    let value = value
        .strip_prefix('=')
        .or_else(|| value.strip_prefix("TO"))?
        .trim();
    let list = value.strip_prefix('\'')?.strip_suffix('\'')?;
    Some(
        list.split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(String::from)
            .collect(),
    )
}

/// advmath's SQL engine as a sqllogictest database.
pub struct Engine(SqlEngine);

impl sqllogictest::DB for Engine {
    type Error = advmath::Error;
    type ColumnType = Type;

    fn run(&mut self, sql: &str) -> Result<DBOutput<Type>, advmath::Error> {
        if let Some(models) = model_order(sql) {
            self.0.set_model_order(&models)?;
            return Ok(DBOutput::StatementComplete(0));
        }
        let out = self.0.query(&with_metrics(sql))?;
        let types = out
            .schema
            .fields()
            .iter()
            .map(|f| column_type(f.data_type()))
            .collect();
        let mut rows = Vec::new();
        for batch in &out.batches {
            for r in 0..batch.num_rows() {
                rows.push(batch.columns().iter().map(|c| cell(c, r)).collect());
            }
        }
        Ok(DBOutput::Rows { types, rows })
    }

    fn engine_name(&self) -> &str {
        "advmath"
    }
}

fn slt_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slt")
}

/// The fixtures, by the folder of `tests/slt/` whose files run on them: the tables folder.
fn build(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    match fixture {
        "responses" => crate::fixtures::fixture(),
        "full" => crate::fixtures::full_fixture(),
        "robustmath" => {
            let (dir, tables, _) = crate::fixtures::robustmath_fixture();
            (dir, tables)
        }
        "efficient" => {
            let dir = tempfile::tempdir().unwrap();
            let tables = dir.path().join("tables");
            crate::efficient::fixture(&tables);
            crate::efficient::write_table5_fixture(&tables);
            (dir, tables)
        }
        "guided" => {
            let dir = tempfile::tempdir().unwrap();
            let tables = dir.path().join("tables");
            crate::fixtures::write_responses(&tables, &crate::fixtures::guided_rows("model-a"));
            (dir, tables)
        }
        "symbolic" => crate::text_attacks::symbolic_fixture(),
        other => panic!("tests/slt/{other}: no such fixture"),
    }
}

const FIXTURES: &[&str] = &[
    "responses",
    "full",
    "robustmath",
    "efficient",
    "guided",
    "symbolic",
];

/// Run `tests/slt/<file>` on its fixture; the first failing record fails the test.
fn run(file: &str) {
    let fixture = file.split('/').next().unwrap();
    let (_dir, tables) = build(fixture);
    let mut runner = Runner::new(move || {
        let tables = tables.clone();
        async move { SqlEngine::open_with_threads(&tables, Some(1)).map(Engine) }
    });
    runner.with_column_validator(sqllogictest::strict_column_validator);
    if let Err(e) = runner.run_file(slt_dir().join(file)) {
        panic!("{}", e.display(false));
    }
}

macro_rules! slt_tests {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                run($file);
            }
        )*
        const FILES: &[&str] = &[$($file),*];
    };
}

slt_tests! {
    slt_xie_asr => "responses/xie_asr.slt",
    slt_xie_incorrect_share => "responses/xie_incorrect_share.slt",
    slt_xie_incorrect_share_hist => "responses/xie_incorrect_share_hist.slt",
    slt_xie_universal => "responses/xie_universal.slt",
    slt_xie_transfer => "responses/xie_transfer.slt",
    slt_xie_attack_curve => "responses/xie_attack_curve.slt",
    slt_bootstrap_ci => "responses/bootstrap_ci.slt",
    slt_mcnemar => "responses/mcnemar.slt",
    slt_arithmattack_accuracy => "responses/arithmattack_accuracy.slt",
    slt_arithmattack_asr => "responses/arithmattack_asr.slt",
    slt_views => "responses/views.slt",
    slt_problem_sets => "responses/problem_sets.slt",
    slt_xie_generations => "full/xie_generations.slt",
    slt_xie_rephrasing => "robustmath/xie_rephrasing.slt",
    slt_xie_efficient => "efficient/xie_efficient.slt",
    slt_guided_attack => "guided/guided_attack.slt",
    slt_gsm_symbolic => "symbolic/gsm_symbolic.slt",
    slt_gsm_symbolic_distractor => "symbolic/gsm_symbolic_distractor.slt",
    slt_gsm_plus => "symbolic/gsm_plus.slt",
    slt_abstention => "symbolic/abstention.slt",
}

/// Every `.slt` file under `tests/slt/` is in a fixture's folder and has its test above.
#[test]
fn every_slt_file_has_a_test() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(slt_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let fixture = dir.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            dir.is_dir() && FIXTURES.contains(&fixture.as_str()),
            "{}: not a fixture folder ({FIXTURES:?})",
            dir.display()
        );
        for file in std::fs::read_dir(&dir).unwrap() {
            let name = file.unwrap().file_name().to_str().unwrap().to_string();
            found.push(format!("{fixture}/{name}"));
        }
    }
    found.sort();
    let mut listed: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        found, listed,
        "tests/slt/ files and the tests of tests/cli/slt.rs"
    );
}
