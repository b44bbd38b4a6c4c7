//! `advmath ingest`: bad rows recorded next to good ones, unsafe or huge programs rejected
//! without running them, conventional columns, duplicate ids and missing program files.

use arrow::array::AsArray;
use std::fs;

use advmath::program::ErrorKind;
use predicates::prelude::*;

use crate::util::{advmath, ingest, problems_in, stderr_of};

#[test]
fn bad_rows_are_recorded_and_good_rows_land() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("test.jsonl");
    let mut bytes = Vec::new();
    bytes.extend_from_slice(br#"{"question": "Tom has 5 apples and buys 7 more. How many?", "answer": "5+7=<<5+7=12>>12\n#### 12"}"#);
    bytes.extend_from_slice(b"\n{\"question\": broken\n");
    bytes.extend_from_slice(b"{\"question\": \"caf\xe9 \xff\", \"answer\": \"#### 1\"}\n");
    bytes.extend_from_slice(br#"{"question": "Ann has 3 pens and 4 pencils. How many?", "answer": "<<3+4=7>>7\n#### 7"}"#);
    fs::write(&input, bytes).unwrap();
    let tables = dir.path().join("tables");
    ingest(&tables, &[&input])
        .success()
        .stderr(predicate::str::contains(
            "test.jsonl: line 2: malformed JSON",
        ))
        .stderr(predicate::str::contains(
            "test.jsonl: line 3: not valid UTF-8",
        ));
    let rows = problems_in(&tables.join("problems/gsm8k__test.parquet"));
    assert_eq!(rows.len(), 4);
    assert_eq!(rows.iter().filter(|r| r.is_valid()).count(), 2);
    assert!(rows
        .iter()
        .filter(|r| !r.is_valid())
        .all(|r| r.error.as_ref().unwrap().kind == ErrorKind::BadInput));
}

#[test]
fn an_unusable_input_exits_1_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    ingest(&dir.path().join("t"), &[&empty])
        .code(1)
        .stderr(predicate::str::contains("empty.jsonl: the file is empty"));
}

#[test]
fn unsafe_or_huge_programs_are_rejected_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("progs.jsonl");
    // A statement nested thousands of levels deep would overflow the stack of the recursive tree
    // walks and abort the whole run: it must be one rejected row instead.
    let deep = format!(
        "x = 5\ny = {}7{}\nprint(x + y)",
        "(".repeat(50_000),
        ")".repeat(50_000)
    );
    let long = format!("x = 5\ny = 7{}\nprint(x + y)", " + 0".repeat(20_000));
    let rows = [
        ("a", "x = 5\ny = 7\nprint(x + y)"),
        ("b", "import os\nx = 5\ny = 7\nprint(x + y)"),
        ("c", "x = 5\ny = 7\nexec('print(12)')\nprint(x + y)"),
        (
            "d",
            "x = 5\ny = 7\nz = 1000000000000000000000000000000\nprint(x + y)",
        ),
        ("e", deep.as_str()),
        ("f", long.as_str()),
    ];
    let text: String = rows
        .iter()
        .map(|(id, p)| serde_json::json!({"id": id, "q": "Tom has 5 apples and buys 7 more.", "a": "12", "prog": p}).to_string() + "\n")
        .collect();
    fs::write(&input, text).unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args([
            "ingest",
            "--id-col",
            "id",
            "--question-col",
            "q",
            "--answer-col",
            "a",
            "--program-col",
            "prog",
            "--tables",
        ])
        .arg(&tables)
        .arg(&input)
        .assert()
        .success();
    let recs = problems_in(&tables.join("problems/progs__test.parquet"));
    let detail = |id: &str| {
        let r = recs
            .iter()
            .find(|r| r.problem_id.ends_with(&format!("/{id}")))
            .unwrap();
        r.error
            .as_ref()
            .map(|e| format!("{}: {}", e.kind, e.detail))
            .unwrap_or_default()
    };
    assert_eq!(detail("a"), "");
    assert!(
        detail("b").contains("unsupported: import os"),
        "{}",
        detail("b")
    );
    assert!(detail("c").contains("unsupported: call"), "{}", detail("c"));
    assert!(detail("d").contains("too large"), "{}", detail("d"));
    assert!(detail("e").contains("nested more than"), "{}", detail("e"));
    assert!(
        detail("f").contains("more than 256 operators"),
        "{}",
        detail("f")
    );
}

/// A table with `id` and `program` columns needs no column flags; a repeated id is one bad row.
#[test]
fn conventional_columns_are_found_and_repeated_ids_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mine.csv");
    fs::write(
        &input,
        "id,question,answer,program\n\
         q1,Tom has 5 apples and buys 7 more.,12,\"a = 5\nb = 7\nprint(a + b)\"\n\
         q2,Ann has 3 pens and 9 pencils.,12,\"p = 3\nq = 9\nprint(p + q)\"\n\
         q1,Ann has 4 pens and 9 pencils.,13,\"p = 4\nq = 9\nprint(p + q)\"\n",
    )
    .unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args(["ingest", "--programs", "given", "--tables"])
        .arg(&tables)
        .arg(&input)
        .assert()
        .success()
        .stdout(predicate::str::contains("mine\ttest\t3\t2\t"));
    let recs = problems_in(&tables.join("problems/mine__test.parquet"));
    let ids: Vec<&str> = recs.iter().map(|r| r.problem_id.as_str()).collect();
    assert_eq!(ids, ["mine/test/q1", "mine/test/q2", "mine/test/q1#3"]);
    assert_eq!(recs[0].program_origin, "given");
    assert!(recs[2]
        .error
        .as_ref()
        .unwrap()
        .detail
        .contains("row 3: duplicate id (row 1"));
}

#[test]
fn a_missing_program_file_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let release = dir.path().join("toy");
    fs::create_dir_all(release.join("code")).unwrap();
    fs::write(
        release.join("200_samples.json"),
        r#"[{"index": 0, "question": "Tom has 5 apples and buys 7 more.", "final_ans": "12"},
            {"index": 1, "question": "Ann has 3 pens and 4 pencils.", "final_ans": "7"}]"#,
    )
    .unwrap();
    fs::write(release.join("code/0.py"), "a = 5\nb = 7\nprint(a + b)\n").unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[&release]).success();
    let recs = problems_in(&tables.join("problems/xie2024-toy__test.parquet"));
    assert!(recs[0].is_valid());
    let e = recs[1].error.as_ref().unwrap();
    assert_eq!(e.kind, ErrorKind::MissingProgram);
    assert!(e.detail.contains("code/1.py"), "{}", e.detail);
}

/// A JSON Lines row nested 10,000 levels deep is one bad row naming file, row and reason; the
/// rows around it land.
#[test]
fn a_deeply_nested_json_row_is_a_bad_row() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deep.jsonl");
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    std::fs::write(
        &input,
        format!(
            "{{\"question\": \"Tom has 5 apples and buys 7 more. How many?\", \"answer\": \"12\", \"program\": \"print(5 + 7)\"}}\n\
             {{\"question\": \"deep\", \"answer\": {deep}}}\n\
             {{\"question\": \"Ann has 4 pens and 9 pencils. How many?\", \"answer\": \"13\", \"program\": \"print(4 + 9)\"}}\n"
        ),
    )
    .unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[&input]).success();
    let recs = problems_in(&tables.join("problems/deep__test.parquet"));
    assert_eq!(recs.len(), 3);
    assert_eq!(
        recs[0].question,
        "Tom has 5 apples and buys 7 more. How many?"
    );
    assert_eq!(recs[2].question, "Ann has 4 pens and 9 pencils. How many?");
    let error = recs[1].error.as_ref().expect("the deep row is invalid");
    assert!(
        error
            .detail
            .ends_with("deep.jsonl: row 2 (line 2): JSON nested deeper than 64 levels"),
        "{}",
        error.detail
    );
}

/// A ragged CSV record, a CSV record that is not UTF-8, a JSON Lines row that is not UTF-8 and
/// one that is not JSON are each one bad row naming file, row, line and reason; the rows around
/// them land, and a TSV file reads by its tabs.
#[test]
fn ragged_and_non_utf8_rows_of_csv_and_jsonl_are_bad_rows_and_the_rest_land() {
    let dir = tempfile::tempdir().unwrap();
    let tom = "Tom has 5 apples and buys 7 more. How many?";
    let ann = "Ann has 4 pens and 9 pencils. How many?";
    let csv = dir.path().join("ragged.csv");
    let mut bytes =
        format!("question,answer,program\n\"{tom}\",12,print(5 + 7)\nragged,1,2,3\n").into_bytes();
    bytes.extend_from_slice(b"caf\xe9 has 2,3,print(3)\n");
    bytes.extend_from_slice(format!("\"{ann}\",13,print(4 + 9)\n").as_bytes());
    fs::write(&csv, bytes).unwrap();
    let jsonl = dir.path().join("lines.jsonl");
    let row = |q: &str, a: &str, p: &str| {
        format!("{{\"question\": \"{q}\", \"answer\": \"{a}\", \"program\": \"{p}\"}}\n")
    };
    let mut bytes = row(tom, "12", "print(5 + 7)").into_bytes();
    bytes.extend_from_slice(
        b"{\"question\": \"caf\xe9\", \"answer\": \"1\"}\n{\"question\": broken\n",
    );
    bytes.extend_from_slice(row(ann, "13", "print(4 + 9)").as_bytes());
    fs::write(&jsonl, bytes).unwrap();
    let tsv = dir.path().join("tabs.tsv");
    fs::write(
        &tsv,
        format!("question\tanswer\tprogram\n{tom}\t12\tprint(5 + 7)\n"),
    )
    .unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[&csv, &jsonl, &tsv]).success();
    for (table, expected) in [
        (
            "ragged__test",
            [
                "ragged.csv: row 2 (line 3): 4 field(s) where the header has 3",
                "ragged.csv: row 3 (line 4): field 1 is not valid UTF-8",
            ],
        ),
        (
            "lines__test",
            [
                "lines.jsonl: row 2 (line 2): not valid UTF-8 (byte 17)",
                "lines.jsonl: row 3 (line 3): malformed JSON: expected value",
            ],
        ),
    ] {
        let recs = problems_in(&tables.join(format!("problems/{table}.parquet")));
        let (bad, good): (Vec<_>, Vec<_>) = recs.iter().partition(|r| {
            r.error
                .as_ref()
                .is_some_and(|e| e.kind == ErrorKind::BadInput)
        });
        let questions: Vec<&str> = good.iter().map(|r| r.question.as_str()).collect();
        assert_eq!(questions, [tom, ann], "{table}");
        let details: Vec<&str> = bad
            .iter()
            .map(|r| r.error.as_ref().unwrap().detail.as_str())
            .collect();
        assert_eq!(details.len(), 2, "{details:?}");
        for (detail, expected) in details.iter().zip(expected) {
            assert!(detail.contains(expected), "{detail} is not {expected}");
        }
    }
    let tabs = problems_in(&tables.join("problems/tabs__test.parquet"));
    assert_eq!(tabs.len(), 1);
    assert_eq!((tabs[0].question.as_str(), tabs[0].is_valid()), (tom, true));
}

/// A truncated Parquet input is an error that names the file, not a library dump.
#[test]
fn a_truncated_parquet_input_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("broken.parquet");
    std::fs::write(&input, b"PAR1 this is not a whole parquet file").unwrap();
    let out = ingest(&dir.path().join("t"), &[&input]).code(1);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("broken.parquet: cannot be read as a table"),
        "{stderr}"
    );
}

/// Powers past 64 bits: `2**70` and `58**48` (85 digits, past the 128-bit range) are exact
/// answers, and so is every variant the numeric attacks draw from them, each checked against
/// Python's integers.
#[test]
fn big_powers_are_exact_in_problems_and_variants() {
    let python = |program: &str| -> Option<Vec<String>> {
        let out = std::process::Command::new("python3")
            .args(["-c", program])
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(
            String::from_utf8(out.stdout)
                .ok()?
                .lines()
                .map(str::to_string)
                .collect(),
        )
    };
    let Some(answers) = python("print(2**70)\nprint(58**48)") else {
        crate::util::skip("python3 is not installed");
        return;
    };
    let (two70, fifty_eight48) = (&answers[0], &answers[1]);
    assert_eq!(fifty_eight48.len(), 85);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.jsonl");
    std::fs::write(
        &input,
        format!(
            "{{\"question\": \"What is 2 to the power 70?\", \
             \"answer\": \"{two70}\", \"program\": \"a = 2\\nb = 70\\nprint(a ** b)\"}}\n\
             {{\"question\": \"What is 58 to the power 48?\", \
             \"answer\": \"{fifty_eight48}\", \"program\": \"a = 58\\nb = 48\\nprint(a ** b)\"}}\n"
        ),
    )
    .unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[&input]).success();
    let recs = problems_in(&tables.join("problems/big__test.parquet"));
    for (rec, expected) in recs.iter().zip([two70, fifty_eight48]) {
        assert!(rec.is_valid(), "{:?}", rec.error);
        assert_eq!(rec.answer.as_deref(), Some(expected.as_str()));
        let tree = rec.tree.as_ref().unwrap();
        assert_eq!(
            &tree.eval_value(&rec.slot_nums()).unwrap().to_string(),
            expected
        );
    }

    advmath()
        .args([
            "generate",
            "--attack",
            "m2,m3",
            "--variants",
            "5",
            "--attempts",
            "2000",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    // Every variant's answer, and Python's for its numbers.
    let mut rows = Vec::new();
    for file in crate::util::walk(&tables.join("variants")) {
        for batch in advmath::store::read_batches(&file).unwrap() {
            let numbers = batch.column_by_name("numbers").unwrap().as_list::<i32>();
            let answer = batch.column_by_name("answer").unwrap().as_string::<i32>();
            let exact = batch
                .column_by_name("answer_exact")
                .unwrap()
                .as_string::<i32>();
            for i in 0..batch.num_rows() {
                let slots = numbers.value(i);
                let slots = slots.as_string::<i32>();
                let (a, b) = (slots.value(0).to_string(), slots.value(1).to_string());
                rows.push((
                    a,
                    b,
                    answer.value(i).to_string(),
                    exact.value(i).to_string(),
                ));
            }
        }
    }
    let program: String = rows
        .iter()
        .map(|(a, b, _, _)| format!("print({a}**{b})\n"))
        .collect();
    let expected = python(&program).expect("python3 ran above");
    assert_eq!(expected.len(), rows.len());
    let wide = rows
        .iter()
        .filter(|(_, _, answer, _)| advmath::num::Num::parse_decimal(answer).is_none())
        .count();
    assert!(
        rows.len() >= 20 && wide >= 10,
        "{} rows, {wide} past 128 bits",
        rows.len()
    );
    eprintln!(
        "{} variant answers checked against Python, {wide} of them past 128 bits",
        rows.len()
    );
    for ((a, b, answer, exact), python) in rows.iter().zip(&expected) {
        assert_eq!(answer, python, "{a}**{b}");
        assert_eq!(exact, python, "{a}**{b}");
    }
    // Replies are graded within 128 bits; past it they are stored ungraded, never compared as
    // floats.
    advmath()
        .args(["respond", "--model", "oracle", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let out = advmath()
        .args(["sql", "--format", "csv", "--tables"])
        .arg(&tables)
        .arg("select count(*) filter (where correct is null and gold is null) as ungraded, count(*) filter (where correct) as right from responses")
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        format!("ungraded,right\n{wide},{}\n", rows.len() - wide)
    );
}

/// Many bad rows in one file are a few named lines and one count, not a line per row.
#[test]
fn many_bad_rows_are_named_a_few_then_counted() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.jsonl");
    let mut text = String::from(
        "{\"question\": \"Tom has 5 apples and buys 7 more. How many?\", \"answer\": \"12\", \"program\": \"print(5 + 7)\"}\n",
    );
    for _ in 0..40 {
        text.push_str("{\"question\": cut\n");
    }
    fs::write(&input, text).unwrap();
    let out = ingest(&dir.path().join("t"), &[&input]).success();
    let stderr = stderr_of(&out);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning"))
        .collect();
    assert_eq!(warnings.len(), 6, "{stderr}");
    assert!(warnings[0].contains("many.jsonl: row 2 (line 2): malformed JSON"));
    assert!(
        warnings[5].ends_with("many.jsonl: 35 more bad row(s) (40 in all)"),
        "{stderr}"
    );
}

/// A question longer than the bound (100,000 bytes) is one bad row naming file, row and size, in
/// each reader (GSM8K JSON Lines, CSV, generic JSON Lines); the rows around it land, and the
/// long text is not stored.
#[test]
fn a_question_past_the_size_bound_is_a_bad_row() {
    let dir = tempfile::tempdir().unwrap();
    let tom = "Tom has 5 apples and buys 7 more. How many?";
    let ann = "Ann has 4 pens and 9 pencils. How many?";
    let long = format!("Tom has 5 apples{}. How many?", " and more".repeat(20_000));
    let size = long.len();
    assert!(size > 100_000);
    let gsm8k = dir.path().join("long_test.jsonl");
    let line = |q: &str, a: u32| {
        serde_json::json!({"question": q, "answer": format!("#### {a}")}).to_string() + "\n"
    };
    fs::write(&gsm8k, line(tom, 12) + &line(&long, 5) + &line(ann, 13)).unwrap();
    let csv = dir.path().join("long.csv");
    fs::write(
        &csv,
        format!(
            "question,answer,program\n\"{tom}\",12,print(5 + 7)\n\"{long}\",5,print(5)\n\"{ann}\",13,print(4 + 9)\n"
        ),
    )
    .unwrap();
    let jsonl = dir.path().join("lines.jsonl");
    let row = |q: &str, a: &str, p: &str| {
        serde_json::json!({"question": q, "answer": a, "program": p}).to_string() + "\n"
    };
    fs::write(
        &jsonl,
        row(tom, "12", "print(5 + 7)")
            + &row(&long, "5", "print(5)")
            + &row(ann, "13", "print(4 + 9)"),
    )
    .unwrap();
    let tables = dir.path().join("t");
    let out = ingest(&tables, &[&gsm8k, &csv, &jsonl]).success();
    let stderr = stderr_of(&out);
    let reason = format!("the question is {size} bytes, more than the 100000 a question may have");
    for (table, place) in [
        ("gsm8k__test", "long_test.jsonl: line 2"),
        ("long__test", "long.csv: row 2"),
        ("lines__test", "lines.jsonl: row 2"),
    ] {
        let recs = problems_in(&tables.join(format!("problems/{table}.parquet")));
        assert_eq!(recs.len(), 3, "{table}");
        let questions: Vec<&str> = recs.iter().map(|r| r.question.as_str()).collect();
        assert_eq!(questions, [tom, "", ann], "{table}");
        let error = recs[1].error.as_ref().expect("the long row is invalid");
        assert_eq!(error.kind, ErrorKind::BadInput, "{table}");
        let expected = format!("{place}: {reason}");
        assert!(
            error.detail.ends_with(&expected),
            "{} is not {expected}",
            error.detail
        );
        assert!(stderr.contains(&expected), "{stderr}");
    }
}

/// A CSV or TSV header wider than the bound (4,096 columns) refuses the file, naming it and the
/// count (exit 1).
#[test]
fn a_header_wider_than_the_bound_refuses_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for (name, sep) in [("wide.csv", ","), ("wide.tsv", "\t")] {
        let input = dir.path().join(name);
        let extra: Vec<String> = (4..=5_000).map(|c| format!("c{c}")).collect();
        let header = format!("question{sep}answer{sep}program{sep}{}", extra.join(sep));
        let row = format!(
            "Tom has 5 apples and buys 7 more.{sep}12{sep}print(5 + 7){}",
            sep.repeat(extra.len())
        );
        fs::write(&input, format!("{header}\n{row}\n")).unwrap();
        let out = ingest(&dir.path().join("t"), &[&input]).code(1);
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains(&format!(
                "{name}: the header has 5000 columns, more than the 4096 a table may have"
            )),
            "{stderr}"
        );
    }
}

/// A program in the form PAL and PoT datasets ship (`def solution():` ... `return result`) is
/// read like the same program written as a script: it validates, and its variants are the
/// script's, byte for byte.
#[test]
fn a_pal_solution_function_gives_the_variants_of_the_same_script() {
    let dir = tempfile::tempdir().unwrap();
    let question =
        "Olivia has $23. She bought five bagels for $3 each. How much money does she have left?";
    let script = "money_initial = 23\nbagels = 5\nbagel_cost = 3\nmoney_spent = bagels * bagel_cost\nmoney_left = money_initial - money_spent\nprint(money_left)\n";
    let pal = "def solution():\n    \"\"\"Olivia has $23. She bought five bagels for $3 each.\"\"\"\n    money_initial = 23\n    bagels = 5\n    bagel_cost = 3\n    money_spent = bagels * bagel_cost\n    money_left = money_initial - money_spent\n    result = money_left\n    return result\n\nprint(solution())\n";
    let mut variants = Vec::new();
    for (name, program) in [("script", script), ("pal", pal)] {
        let input = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(
            &input,
            format!(
                "{}\n",
                serde_json::json!({"question": question, "answer": "8", "program": program})
            ),
        )
        .unwrap();
        let tables = dir.path().join(name);
        advmath()
            .args([
                "ingest",
                "--programs",
                "given",
                "--dataset",
                "olivia",
                "--tables",
            ])
            .arg(&tables)
            .arg(&input)
            .assert()
            .success();
        advmath()
            .args([
                "generate",
                "--attack",
                "m1,m3",
                "--variants",
                "5",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        variants.push(crate::util::sql_csv(
            &tables,
            "SELECT variant_id, question, answer FROM variants ORDER BY variant_id",
        ));
    }
    assert!(variants[0].lines().count() > 5, "{}", variants[0]);
    assert_eq!(variants[0], variants[1]);
}
