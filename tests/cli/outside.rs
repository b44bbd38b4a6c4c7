//! `advmath ingest-responses`: replies made elsewhere, read from their files; bad files and bad
//! rows named, good rows kept.

use std::path::Path;

use advmath::store::responses::stored_rows;

use crate::util::{advmath, small_tables, stderr_of};

/// `advmath ingest-responses FILE --model m --tables TABLES` with `args` (the format and its flags).
fn ingest_responses(tables: &Path, file: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    advmath()
        .args(["ingest-responses", "--model", "m"])
        .args(args)
        .arg("--tables")
        .arg(tables)
        .arg(file)
        .assert()
}

/// The generic layout with the question in column `q` and the reply in `r`: the flags of
/// [`crate::util::IMPORT_AS_M`] after the command and model.
fn generic_qr() -> &'static [&'static str] {
    &crate::util::IMPORT_AS_M[3..]
}

/// An ArithmAttack file without its replies is refused, naming the file and the column, instead
/// of being graded all wrong.
#[test]
fn an_arithmattack_file_without_replies_is_refused() {
    let (dir, tables) = small_tables();
    let file = dir.path().join("clean.csv");
    std::fs::write(
        &file,
        "Question,Answer - Ground Truth Converted\nTom has 3 apples and buys 4 more. How many?,7\n",
    )
    .unwrap();
    let out = ingest_responses(&tables, &file, &["--format", "arithmattack"]).code(1);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("clean.csv: no Answer - LLM column"),
        "{stderr}"
    );
    assert!(stored_rows(&tables, "m").unwrap().is_empty());
}

/// A generic JSONL row nested 10,000 levels deep is one skipped row, named by file and row; the
/// good rows land with the keys they would have had without it.
#[test]
fn a_deeply_nested_reply_row_is_skipped_and_the_good_rows_land() {
    let (dir, tables) = small_tables();
    let file = dir.path().join("replies.jsonl");
    let deep = format!(
        "{{\"q\": \"x\", \"r\": {}1{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let good = |q: &str, r: &str| serde_json::json!({"q": q, "r": r}).to_string();
    std::fs::write(
        &file,
        format!(
            "{}\n{deep}\n{}\n",
            good(
                "Tom has 3 apples and buys 4 more. How many?",
                "The answer is 7."
            ),
            good("Ann has 10 pens and gives away 4. How many?", "6")
        ),
    )
    .unwrap();
    let out = ingest_responses(&tables, &file, generic_qr()).success();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(
            "replies.jsonl: row 2 (line 2): JSON nested deeper than 64 levels; row skipped"
        ),
        "{stderr}"
    );
    let rows =
        advmath::respond::read_rows(&advmath::store::responses::model_dir(&tables, "m")).unwrap();
    let mut replies: Vec<_> = rows.iter().map(|r| r.response.clone().unwrap()).collect();
    replies.sort();
    assert_eq!(replies, ["6", "The answer is 7."]);
}

/// A reply CSV with a ragged record and one that is not UTF-8, and an lm-evaluation-harness file
/// with a line that is not JSON: each bad row is skipped, named by file, row and line; the good
/// rows land.
#[test]
fn bad_rows_of_reply_csvs_and_jsonl_are_skipped_by_number_and_the_good_rows_land() {
    let (dir, tables) = small_tables();
    let tom = "Tom has 3 apples and buys 4 more. How many?";
    let ann = "Ann has 10 pens and gives away 4. How many?";
    let csv = dir.path().join("replies.csv");
    let mut bytes = format!("q,r\n\"{tom}\",\"The answer is 7.\"\nragged,1,2\n").into_bytes();
    bytes.extend_from_slice(b"x,\"caf\xe9\"\n");
    bytes.extend_from_slice(format!("\"{ann}\",6\n").as_bytes());
    std::fs::write(&csv, bytes).unwrap();
    let stderr = stderr_of(&ingest_responses(&tables, &csv, generic_qr()).success());
    for expected in [
        "replies.csv: row 2 (line 3): 3 field(s) where the header has 2; row skipped",
        "replies.csv: row 3 (line 4): field 2 is not valid UTF-8; row skipped",
    ] {
        assert!(stderr.contains(expected), "{expected} not in {stderr}");
    }
    let rows =
        advmath::respond::read_rows(&advmath::store::responses::model_dir(&tables, "m")).unwrap();
    let mut replies: Vec<_> = rows.iter().map(|r| r.response.clone().unwrap()).collect();
    replies.sort();
    assert_eq!(replies, ["6", "The answer is 7."]);

    let samples = dir.path().join("samples.jsonl");
    let sample = |q: &str, r: &str| {
        serde_json::json!({"doc": {"question": q}, "resps": [[r]], "target": "7"}).to_string()
    };
    std::fs::write(
        &samples,
        format!(
            "{}\n{{\"doc\": cut\n{}\n",
            sample(tom, "7"),
            sample(ann, "6")
        ),
    )
    .unwrap();
    let out = advmath()
        .args(["ingest-responses", "--format", "lm-eval", "--model", "lm"])
        .arg("--tables")
        .arg(&tables)
        .arg(&samples)
        .assert()
        .success();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("samples.jsonl: row 2 (line 2): malformed JSON"),
        "{stderr}"
    );
    let rows =
        advmath::respond::read_rows(&advmath::store::responses::model_dir(&tables, "lm")).unwrap();
    assert_eq!(rows.len(), 2);
}
