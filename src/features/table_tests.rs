//! The features tables: schema agreement with the names, and the table built from variants.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::array::{Int32Array, ListBuilder, StringBuilder, UInt64Array};

use super::*;
use crate::ingest::{build_record, ProgramSource, RawProblem};
use crate::num::Num;
use crate::program::Links;
use crate::store::problems::problems_path;
use crate::store::problems::records_to_batch;
use crate::vocab::Attack;

#[test]
fn schema_and_docs_follow_the_names() {
    let fields: Vec<String> = crate::store::feature_tables::advmath_schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(fields[0], "variant_id");
    assert_eq!(&fields[1..], &FEATURE_NAMES.map(String::from)[..]);
    let documented: Vec<&str> = crate::store::feature_tables::ADVMATH_DOC
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(documented[..2], ["dataset", "attack"]);
    assert_eq!(
        documented[2..],
        fields.iter().map(|s| s.as_str()).collect::<Vec<_>>()[..]
    );
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
        crate::store::variants::schema(),
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
            Arc::new(Int32Array::from(vec![1; rows.len()])),
            Arc::new(arrow::array::Int64Array::from(vec![
                None::<i64>;
                rows.len()
            ])),
        ],
    )
    .unwrap()
}

fn read_features(path: &Path) -> (Vec<String>, Vec<[f64; FEATURE_COUNT]>) {
    let mut ids = Vec::new();
    let mut rows = Vec::new();
    for b in crate::store::read_batches(path).unwrap() {
        assert_eq!(b.schema(), crate::store::feature_tables::advmath_schema());
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
            Links::DIGITS,
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
            Links::DIGITS,
        ),
        // Invalid: the answer does not match.
        build_record(
            &raw(2, "Tom has 5 apples and 7 pears.", "13", "print(5 + 7)"),
            "toy",
            "test",
            ProgramSource::Given,
            Links::DIGITS,
        ),
    ];
    assert!(records[0].is_valid() && records[1].is_valid() && !records[2].is_valid());
    crate::store::write_batch(
        &problems_path(tables, "toy", "test"),
        &records_to_batch(&records).unwrap(),
    )
    .unwrap();
    let part = |attack: &str, n: usize| {
        crate::store::part_file(
            &crate::store::variants::attack_dir(tables, "toy", attack),
            n,
        )
    };
    let (pie, boxes, bad) = ("toy/test/0", "toy/test/1", "toy/test/2");
    crate::store::write_batch(
        &part(Attack::ORIGINAL, 0),
        &variants_batch(&[
            ("toy/test/0/original/0", pie, &["8", "3"]),
            ("toy/test/1/original/0", boxes, &["12", "640"]),
            ("toy/test/2/original/0", bad, &["5", "7"]),
        ]),
    )
    .unwrap();
    // Parts are read in numeric order: part-2 before part-10.
    crate::store::write_batch(
        &part("m1", 10),
        &variants_batch(&[("toy/test/1/m1/1", boxes, &["25", "640"])]),
    )
    .unwrap();
    crate::store::write_batch(
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
        crate::store::part_file(
            &crate::store::hive_dir(
                &crate::store::feature_tables::dataset_dir(tables, FeatureSet::Advmath, "toy"),
                "attack",
                attack,
            ),
            0,
        )
    };
    let (ids, rows) = read_features(&out(Attack::ORIGINAL));
    assert_eq!(ids, ["toy/test/0/original/0", "toy/test/1/original/0"]);
    // The table holds what the core computes for each variant's numbers.
    let expect = |record: usize, numbers: &[&str]| {
        let values: Vec<Num> = numbers
            .iter()
            .map(|t| Num::parse_decimal(t).unwrap())
            .collect();
        compute(records[record].tree.as_ref().unwrap(), &values).unwrap()
    };
    assert_eq!(rows, [expect(0, &["8", "3"]), expect(1, &["12", "640"])]);
    let (ids, rows) = read_features(&out("m1"));
    assert_eq!(
        ids,
        ["toy/test/0/m1/0", "toy/test/0/m1/5", "toy/test/1/m1/1"]
    );
    assert_eq!(
        rows,
        [
            expect(0, &["4", "20"]),
            expect(0, &["2", "25"]),
            expect(1, &["25", "640"])
        ]
    );

    // Same bytes on a second run, with one thread or many.
    let first = (
        fs::read(out(Attack::ORIGINAL)).unwrap(),
        fs::read(out("m1")).unwrap(),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| build_features_table(tables)).unwrap(), 5);
    assert_eq!(first.0, fs::read(out(Attack::ORIGINAL)).unwrap());
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
    let records = vec![build_record(
        &raw,
        "toy",
        "test",
        ProgramSource::Given,
        Links::DIGITS,
    )];
    crate::store::write_batch(
        &problems_path(dir.path(), "toy", "test"),
        &records_to_batch(&records).unwrap(),
    )
    .unwrap();
    assert!(build_features_table(dir.path()).is_err());
}
