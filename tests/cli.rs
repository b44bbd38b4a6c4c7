//! End-to-end tests: the real binary on tiny fixtures, plus library-level property tests and
//! checks on the real data in `../shared/data` (skipped, with a message, when it is absent).

use std::fs;
use std::path::Path;

use advmath::ingest::{batch_to_records, ProblemRecord};
use advmath::program::ErrorKind;
use advmath::store::read_batches;
use assert_cmd::Command;
use predicates::prelude::*;

fn advmath() -> Command {
    Command::cargo_bin("advmath").expect("binary built")
}

/// A test whose prerequisite is missing here says so on stderr and passes, unless
/// ADVMATH_REQUIRE_ALL_TESTS is set (`.ci/run` sets it): then the missing prerequisite fails the
/// test, so a green CI means every test really ran.
fn skip(reason: &str) {
    if std::env::var_os("ADVMATH_REQUIRE_ALL_TESTS").is_some() {
        panic!("ADVMATH_REQUIRE_ALL_TESTS is set, but this test cannot run: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

fn problems_in(path: &Path) -> Vec<ProblemRecord> {
    read_batches(path)
        .unwrap()
        .iter()
        .flat_map(|b| batch_to_records(b).unwrap())
        .collect()
}

/// Help is documentation users read: its text is snapshotted (at a fixed width), so every change
/// to it is reviewed.
#[test]
fn help_explains_the_commands() {
    let help = |args: &[&str]| {
        let out = advmath()
            .args(args)
            .env("COLUMNS", "100")
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let text = help(&["--help"]);
    assert!(text.contains("ingest") && text.contains("generate") && text.contains("run"));
    assert!(text.contains("Exit codes"));
    insta::assert_snapshot!("help", text);
    insta::assert_snapshot!("help_generate", help(&["generate", "--help"]));
    insta::assert_snapshot!("help_respond", help(&["respond", "--help"]));
}

#[test]
fn run_on_the_default_dataset_makes_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let run = advmath()
        .args(["run", "--attempts", "3000", "--variants", "20", "--out"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("default\ttest\t36\t36"))
        .stdout(predicate::str::contains("default\tm3\t"));
    let problems = problems_in(&dir.path().join("tables/problems/default__test.parquet"));
    assert_eq!(problems.len(), 36);
    assert!(
        problems.iter().all(ProblemRecord::is_valid),
        "every default problem is valid"
    );
    for attack in [
        "original", "m1", "m2", "m3", "punct10", "punct30", "punct50",
    ] {
        let part = dir.path().join(format!(
            "tables/variants/dataset=default/attack={attack}/part-0.parquet"
        ));
        assert!(part.is_file(), "{attack} partition missing");
    }
    assert!(dir
        .path()
        .join("tables/generation_stats/dataset=default/part-0.parquet")
        .is_file());
    assert!(dir.path().join("reports/program_coverage.md").is_file());
    let checked = verify_variants(&dir.path().join("tables"), "default");
    assert!(checked > 1000, "checked {checked} variants");

    // The texts people read are products too: snapshotted (the temporary folder redacted), so a
    // change to any figure or wording in them shows up for review.
    let stdout = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    insta::assert_snapshot!("run_stdout", stdout);
    let read = |relative: &str| {
        fs::read_to_string(dir.path().join(relative))
            .unwrap()
            .replace(dir.path().to_str().unwrap(), "[OUT]")
    };
    insta::assert_snapshot!("run_program_coverage", read("reports/program_coverage.md"));
    insta::assert_snapshot!("run_regression", read("reports/regression.md"));
    insta::assert_snapshot!("run_metrics_report", read("reports/metrics/report.md"));
    insta::assert_snapshot!("run_dataset_card", read("hub/README.md"));
}

/// Every numeric variant in a generated table: its text holds exactly its numbers in slot
/// order, its stored answer is the tree evaluated on them, every node keeps its constraints
/// (checked with M1's attacker, so M2 and M3 variants also pass M1's checks), and M2 keeps
/// digit counts. Returns how many variants were checked.
pub fn verify_variants(tables: &Path, dataset: &str) -> usize {
    use advmath::generate::{decompose, digit_count, Attacker, Method};
    use advmath::program::tree::num_text;
    use advmath::question::find_slots;
    use arrow::array::AsArray;
    let problems: std::collections::HashMap<String, ProblemRecord> =
        advmath::ingest::read_problems(tables)
            .unwrap()
            .into_iter()
            .map(|p| (p.problem_id.clone(), p))
            .collect();
    let mut checked = 0;
    for attack in ["m1", "m2", "m3"] {
        let part = tables.join(format!(
            "variants/dataset={dataset}/attack={attack}/part-0.parquet"
        ));
        if !part.exists() {
            continue;
        }
        for batch in read_batches(&part).unwrap() {
            let text = |name: &str| advmath::store::text_column(&batch, name, &part).unwrap();
            let (pid, question, answer) =
                (text("problem_id"), text("question"), text("answer_exact"));
            let numbers = batch
                .column_by_name("numbers")
                .unwrap()
                .as_list::<i32>()
                .clone();
            for i in 0..batch.num_rows() {
                let p = &problems[pid.value(i)];
                let nums_arr = numbers.value(i);
                let nums: Vec<_> = nums_arr
                    .as_string::<i32>()
                    .iter()
                    .map(|s| num_text::from_text(s.unwrap()).unwrap())
                    .collect();
                let in_text: Vec<_> = find_slots(question.value(i))
                    .iter()
                    .map(|s| s.value)
                    .collect();
                assert_eq!(
                    in_text,
                    nums,
                    "{}: text {:?}",
                    pid.value(i),
                    question.value(i)
                );
                let tree = p.tree.as_ref().unwrap();
                let m1 = Attacker::new(tree, p.slot_nums(), Method::M1, 6).unwrap();
                let ans = m1
                    .check_slots(&nums)
                    .unwrap_or_else(|r| panic!("{} {attack}: {r:?}", pid.value(i)));
                assert_eq!(num_text::to_text(&ans), answer.value(i));
                if attack == "m2" {
                    for (new, old) in nums.iter().zip(p.slot_nums()) {
                        let digits = |v| {
                            decompose(v).map(|(a, b)| {
                                digit_count(if b > 0 { a * 10i128.pow(b as u32) } else { a })
                            })
                        };
                        if digits(old) != Some(1) && !new.eq_num(old) {
                            assert_eq!(
                                digits(*new),
                                digits(old),
                                "{}: {new:?} vs {old:?}",
                                pid.value(i)
                            );
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    checked
}

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
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(&input)
        .assert()
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
    advmath()
        .args(["ingest", "--tables"])
        .arg(dir.path().join("t"))
        .arg(&empty)
        .assert()
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

/// Every file `advmath run` writes (tables, responses of the offline models, features, the fit,
/// metrics, plots, the hub folder) is byte-identical with one thread and with two; only the
/// output folder's own name, quoted in the metrics report, differs.
#[test]
fn the_whole_pipeline_is_byte_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str| {
        let out = dir.path().join(format!("t{threads}"));
        small_run_with(&out, &["--threads", threads]);
        out
    };
    let (one, two) = (run("1"), run("2"));
    let files = walk(&one);
    assert!(files.len() > 50, "{} files", files.len());
    for f in files {
        let relative = f.strip_prefix(&one).unwrap();
        let other = two.join(relative);
        let (a, b) = (fs::read(&f).unwrap(), fs::read(&other).unwrap());
        if a != b {
            let unquote = |bytes: Vec<u8>, out: &Path| {
                String::from_utf8(bytes)
                    .map(|t| t.replace(out.to_str().unwrap(), "[OUT]"))
                    .unwrap_or_default()
            };
            assert_eq!(
                unquote(a, &one),
                unquote(b, &two),
                "{} differs",
                relative.display()
            );
        }
    }
    assert_eq!(walk(&two).len(), walk(&one).len());
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

/// An error and its cause are printed once each, not "reason: reason".
#[test]
fn an_error_cause_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.jsonl");
    let out = advmath()
        .arg("ingest")
        .arg(&missing)
        .arg("--tables")
        .arg(dir.path().join("t"))
        .assert()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains(&format!("error: {}", missing.display())),
        "{stderr}"
    );
    assert_eq!(stderr.matches("(os error 2)").count(), 1, "{stderr}");
}

/// A stage run before the stage that feeds it says which table is missing and what to run.
#[rstest::rstest]
#[case::generate(&["generate"], "problems", "advmath ingest")]
#[case::features(&["features"], "problems", "advmath ingest")]
#[case::regress(&["regress"], "features_xie2024", "advmath features")]
#[case::respond(&["respond", "--model", "oracle"], "variants", "advmath generate")]
fn a_stage_without_its_input_says_what_to_run(
    #[case] args: &[&str],
    #[case] table: &str,
    #[case] hint: &str,
) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    fs::create_dir_all(&tables).unwrap();
    advmath()
        .args(args)
        .arg("--tables")
        .arg(&tables)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "{}: no {table} table",
            tables.join(table).display()
        )))
        .stderr(predicate::str::contains(hint))
        .stderr(predicate::str::contains("(os error").not());
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
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(&release)
        .assert()
        .success();
    let recs = problems_in(&tables.join("problems/xie2024-toy__test.parquet"));
    assert!(recs[0].is_valid());
    let e = recs[1].error.as_ref().unwrap();
    assert_eq!(e.kind, ErrorKind::MissingProgram);
    assert!(e.detail.contains("code/1.py"), "{}", e.detail);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["generate", "--variants", "0"],
        vec!["generate", "--digits", "0"],
        vec!["generate", "--attack", "m4"],
        vec!["generate", "--attack", "m3+noise"],
        vec!["generate", "--noise", "0"],
        vec!["generate", "--noise-count", "ceil"],
        vec!["generate", "--sample-problems", "0"],
    ] {
        advmath().args(&args).assert().code(2);
    }
}

#[test]
fn generation_is_byte_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        advmath()
            .args([
                "generate",
                "--attempts",
                "2000",
                "--variants",
                "10",
                "--attack",
                "m1,m2,m3,punct,m3+punct",
                "--threads",
                threads,
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        let mut files = Vec::new();
        for table in ["variants", "generation_stats"] {
            for entry in walk(&tables.join(table)) {
                files.push((
                    entry.strip_prefix(&tables).unwrap().to_path_buf(),
                    fs::read(&entry).unwrap(),
                ));
            }
        }
        files.sort();
        outputs.push(files);
    }
    assert!(outputs[0].len() >= 10);
    assert_eq!(outputs[0], outputs[1]);
}

/// The problems of each attack partition (and of `generation_stats`, per numeric attack) of a
/// tables folder.
fn problems_by_attack(
    tables: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut out: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for file in walk(&tables.join("variants")) {
        let attack = file
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("attack="))
            .unwrap()
            .to_string();
        for b in read_batches(&file).unwrap() {
            let ids = advmath::store::text_column(&b, "problem_id", &file).unwrap();
            let set = out.entry(attack.clone()).or_default();
            set.extend(ids.iter().map(|s| s.unwrap().to_string()));
        }
    }
    for file in walk(&tables.join("generation_stats")) {
        for b in read_batches(&file).unwrap() {
            let ids = advmath::store::text_column(&b, "problem_id", &file).unwrap();
            let attacks = advmath::store::text_column(&b, "attack", &file).unwrap();
            for i in 0..b.num_rows() {
                out.entry(format!("stats:{}", attacks.value(i)))
                    .or_default()
                    .insert(ids.value(i).to_string());
            }
        }
    }
    out
}

/// `--sample-problems n`: one seeded sample of n problems per dataset, shared by every attack
/// whatever the attacks requested, their order, the invocation or the thread count; the
/// originals are written for the sample only. Another seed draws another sample.
#[test]
fn sample_problems_is_one_sample_for_every_attack() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let run = |attacks: &str, threads: &str, seed: &str| {
        advmath()
            .args([
                "generate",
                "--sample-problems",
                "10",
                "--attempts",
                "1000",
                "--variants",
                "5",
                "--attack",
                attacks,
                "--threads",
                threads,
                "--seed",
                seed,
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        problems_by_attack(&tables)
    };
    let together = run("m1,m2,m3,punct", "2", "7");
    let sample = together["original"].clone();
    assert_eq!(sample.len(), 10, "{sample:?}");
    for attack in [
        "punct10", "punct30", "punct50", "stats:m1", "stats:m2", "stats:m3",
    ] {
        assert_eq!(together[attack], sample, "{attack}");
    }
    for attack in ["m1", "m2", "m3"] {
        assert!(together[attack].is_subset(&sample), "{attack}");
    }
    // Separate invocations, other orders and thread counts: the same sample.
    for (attacks, threads) in [("m3", "1"), ("punct,m2", "1"), ("m1", "2")] {
        let alone = run(attacks, threads, "7");
        assert_eq!(alone["original"], sample, "{attacks}");
        for (attack, problems) in alone.iter().filter(|(a, _)| *a != "original") {
            assert_eq!(problems, &together[attack], "{attacks}: {attack}");
        }
    }
    let other = run("m1,m2,m3,punct", "2", "8");
    assert_eq!(other["original"].len(), 10);
    assert_ne!(other["original"], sample, "another seed, another sample");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn generation_skips_invalid_problems_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mixed.jsonl");
    fs::write(
        &input,
        "{\"question\": \"Tom has 15 apples and buys 27 more.\", \"answer\": \"42\", \"program\": \"print(15 + 27)\"}\n\
         {\"question\": \"Ann has 3 pens.\", \"answer\": \"9\", \"program\": \"while True:\\n    pass\"}\n",
    )
    .unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args(["ingest", "--program-col", "program", "--tables"])
        .arg(&tables)
        .arg(&input)
        .assert()
        .success();
    advmath()
        .args([
            "generate",
            "--attempts",
            "500",
            "--variants",
            "5",
            "--attack",
            "m3",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success()
        .stderr(predicate::str::contains("1 invalid problems skipped"))
        .stdout(predicate::str::contains("mixed\tm3\t1\t5"));
}

/// Run the default pipeline small, into `dir`.
fn small_run(dir: &Path) {
    small_run_with(dir, &[]);
}

fn small_run_with(dir: &Path, extra: &[&str]) {
    advmath()
        .args([
            "run",
            "--attempts",
            "2000",
            "--variants",
            "10",
            "--attack",
            "m1,m2,m3,punct,m3+punct",
        ])
        .args(extra)
        .arg("--out")
        .arg(dir)
        .assert()
        .success();
}

fn python_has(modules: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(&format!(
            "python3 cannot import {modules} (.ci/run installs them)"
        ));
    }
    ok
}

/// Rows per published config and split, counted from advmath's own variants table.
fn expected_configs(tables: &Path) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for entry in fs::read_dir(tables.join("variants/dataset=default")).unwrap() {
        let dir = entry.unwrap().path();
        let attack = dir
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .trim_start_matches("attack=")
            .replace('+', "_");
        let rows: usize = walk(&dir)
            .iter()
            .flat_map(|f| read_batches(f).unwrap())
            .map(|b| b.num_rows())
            .sum();
        out.insert(attack, serde_json::json!({ "test": rows }));
    }
    // `run` also publishes the features table as a config of its own.
    let features: usize = walk(&tables.join("features"))
        .iter()
        .flat_map(|f| read_batches(f).unwrap())
        .map(|b| b.num_rows())
        .sum();
    out.insert("features".into(), serde_json::json!({ "test": features }));
    serde_json::Value::Object(out)
}

#[test]
fn published_folder_loads_with_datasets_offline() {
    let dir = tempfile::tempdir().unwrap();
    small_run(dir.path());
    let hub = dir.path().join("hub");
    assert!(hub.join("README.md").is_file(), "run ends by publishing");
    if !python_has("datasets, huggingface_hub") {
        return;
    }
    let expected = dir.path().join("expected.json");
    fs::write(
        &expected,
        expected_configs(&dir.path().join("tables")).to_string(),
    )
    .unwrap();
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/check_hub.py"))
        .arg(&hub)
        .arg(&expected)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HOME", dir.path().join("hf-home"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("m3_punct30\ttest\t"), "{stdout}");
    assert!(stdout.contains("hub folder OK"));
}

#[test]
fn publishing_is_reproducible_and_never_half_written() {
    let dir = tempfile::tempdir().unwrap();
    small_run(dir.path());
    let tables = dir.path().join("tables");
    let publish = |out: &Path| {
        let mut c = advmath();
        c.args([
            "publish",
            "--name",
            "toy",
            "--max-shard-rows",
            "7",
            "--tables",
        ])
        .arg(&tables)
        .arg("--out")
        .arg(out);
        c
    };
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    publish(&a).assert().success();
    publish(&b).assert().success();
    let files = |root: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = walk(root)
            .into_iter()
            .map(|p| {
                (
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let fa = files(&a);
    assert!(
        fa.iter()
            .any(|(p, _)| p.to_str().unwrap().contains("m3/test-00001-of-")),
        "shards of bounded size"
    );
    assert_eq!(fa, files(&b), "same inputs, same bytes");
    publish(&a)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exists; pass --force"));
    // A failing publish over an existing folder leaves it as it was, with no staging debris.
    publish(&a)
        .args(["--force", "--include", "no_such_table"])
        .assert()
        .code(1);
    assert_eq!(files(&a), fa);
    let debris: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(debris.is_empty(), "{debris:?}");
    publish(&a).arg("--force").assert().success();
    assert_eq!(files(&a), fa);
}

#[path = "cli/extract.rs"]
mod extract;

#[path = "cli/metrics.rs"]
mod metrics;

#[path = "cli/efficient.rs"]
mod efficient;
#[path = "cli/feature_study.rs"]
mod feature_study;
#[path = "cli/noise.rs"]
mod noise;

#[path = "support/server.rs"]
mod server;

mod responses {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use super::server::{spawn, Reply};
    use super::{advmath, small_run};
    use advmath::respond::stored_rows;

    fn respond(tables: &Path, port: u16, extra: &[&str]) -> assert_cmd::assert::Assert {
        advmath()
            .args([
                "respond",
                "--model",
                "test-model",
                "--endpoint",
                &format!("http://127.0.0.1:{port}"),
                "--tables",
            ])
            .arg(tables)
            .args(extra)
            .assert()
    }

    /// Every fault a real server produces is retried until it succeeds; Retry-After is honoured.
    #[test]
    fn retries_every_transient_fault() {
        let dir = tempfile::tempdir().unwrap();
        small_run(dir.path());
        let tables = dir.path().join("tables");
        let faults = [
            Reply::TooMany { retry_after: 1 },
            Reply::ServerError,
            Reply::Hang(Duration::from_secs(3)),
            Reply::Malformed,
            Reply::ResetMidBody,
        ];
        let server = spawn(
            move |n| {
                if n % 2 == 0 {
                    faults[(n / 2) % faults.len()]
                } else {
                    Reply::Ok
                }
            },
            Duration::ZERO,
        );
        let start = Instant::now();
        respond(
            &tables,
            server.port,
            &[
                "--limit",
                "5",
                "--concurrency",
                "1",
                "--timeout",
                "1",
                "--backoff",
                "0.01",
                "--attempts",
                "4",
            ],
        )
        .success()
        .stdout(predicates::str::contains("test-model\t5\t0\t5\t0\t"));
        assert!(
            start.elapsed() >= Duration::from_secs(1),
            "Retry-After: 1 was not honoured"
        );
        assert_eq!(
            server.requests.load(std::sync::atomic::Ordering::SeqCst),
            10
        );
        let rows = stored_rows(&tables, "test-model").unwrap();
        assert_eq!(rows.len(), 5);
        // A server that never recovers: the run ends, says so, and exits 1; a rerun retries.
        let down = spawn(|_| Reply::ServerError, Duration::ZERO);
        advmath()
            .args([
                "respond",
                "--model",
                "other",
                "--endpoint",
                &format!("http://127.0.0.1:{}", down.port),
                "--limit",
                "2",
                "--attempts",
                "2",
                "--backoff",
                "0.01",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .code(1)
            .stderr(predicates::str::contains("HTTP 500"));
    }

    /// kill -9 in the middle of 500 requests, then rerun: exactly 500 rows, none twice.
    #[test]
    fn kill_and_resume_loses_nothing_and_duplicates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        small_run(dir.path());
        let tables = dir.path().join("tables");
        let server = spawn(|_| Reply::Ok, Duration::from_millis(8));
        let bin = assert_cmd::cargo::cargo_bin("advmath");
        let args = |c: &mut std::process::Command| {
            c.args([
                "respond",
                "--model",
                "m",
                "--endpoint",
                &format!("http://127.0.0.1:{}", server.port),
                "--limit",
                "500",
                "--concurrency",
                "4",
                "--flush-every",
                "37",
                "--tables",
            ])
            .arg(&tables)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        };
        let mut c = std::process::Command::new(&bin);
        args(&mut c);
        let mut child = c.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(500));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let before = stored_rows(&tables, "m").unwrap().len();
        assert!(
            before < 500,
            "the kill came too late to test anything ({before} rows)"
        );
        let mut c = std::process::Command::new(&bin);
        args(&mut c);
        assert!(c.status().unwrap().success());
        let rows = stored_rows(&tables, "m").unwrap();
        let ids: std::collections::HashSet<_> =
            rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
        assert_eq!(rows.len(), 500, "rows after resume");
        assert_eq!(ids.len(), 500, "duplicate rows (request key, variant)");
    }

    /// A real LLM: SmolLM2-135M served by llama.cpp (started by `.ci/smollm2.sh`, whose URL is in
    /// ADVMATH_SMOLLM2_URL). Skipped, saying so, when no such server was started.
    #[test]
    fn smollm2_end_to_end() {
        let Ok(url) = std::env::var("ADVMATH_SMOLLM2_URL") else {
            super::skip("ADVMATH_SMOLLM2_URL is not set (.ci/run starts the SmolLM2 server)");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        small_run(dir.path());
        let tables = dir.path().join("tables");
        advmath()
            .args([
                "respond",
                "--model",
                "smollm2",
                "--endpoint",
                &url,
                "--limit",
                "20",
                "--max-tokens",
                "96",
                "--concurrency",
                "1",
                "--timeout",
                "300",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success()
            .stdout(predicates::str::contains("smollm2\t20\t0\t20\t0\t"));
        let rows = stored_rows(&tables, "smollm2").unwrap();
        assert_eq!(rows.len(), 20);
        // The model is tiny and mostly wrong at maths: the pipeline is under test, not its accuracy.
        let batches: Vec<_> = super::walk(&advmath::respond::model_dir(&tables, "smollm2"))
            .iter()
            .flat_map(|f| super::read_batches(f).unwrap())
            .collect();
        use arrow::array::AsArray;
        for b in &batches {
            let text = b.column_by_name("response").unwrap().as_string::<i32>();
            let latency = b
                .column_by_name("latency_ms")
                .unwrap()
                .as_primitive::<arrow::datatypes::Float64Type>();
            for i in 0..b.num_rows() {
                assert!(!text.value(i).trim().is_empty(), "an empty generation");
                assert!(latency.value(i) > 0.0);
            }
        }
    }

    /// LLM-written programs: kept only when they validate; never executed.
    #[test]
    fn llm_programs_are_validated_like_given_ones() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("noprog.jsonl");
        std::fs::write(
            &input,
            "{\"question\": \"Tom has 15 apples and buys 27 more. How many?\", \"answer\": \"42\"}\n\
             {\"question\": \"Ann has 3 pens and 9 pencils. How many?\", \"answer\": \"12\"}\n",
        )
        .unwrap();
        let tables = dir.path().join("t");
        advmath()
            .args(["ingest", "--tables"])
            .arg(&tables)
            .arg(&input)
            .assert()
            .code(1);
        // The first reply computes 15 + 27; the second is wrong for its problem (15 + 27 != 12).
        let server = spawn(
            |_| Reply::Text("Here:\n```python\na = 15\nb = 27\nprint(a + b)\n```"),
            Duration::ZERO,
        );
        advmath()
            .args([
                "programs",
                "--model",
                "coder",
                "--concurrency",
                "1",
                "--endpoint",
                &format!("http://127.0.0.1:{}", server.port),
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success()
            .stdout(predicates::str::contains("2\t1\t1\t0"));
        let recs = super::problems_in(&tables.join("problems/noprog__test.parquet"));
        assert!(recs[0].is_valid() && recs[0].program_origin == "llm:coder");
        // The rejected program is kept with its reason, so a rerun does not pay for it again.
        assert!(!recs[1].is_valid());
        assert_eq!(recs[1].program_origin, "llm:coder");
        let detail = &recs[1].error.as_ref().unwrap().detail;
        assert!(detail.starts_with("program written by coder: "), "{detail}");
        let asked_before = server.requests.load(std::sync::atomic::Ordering::SeqCst);
        advmath()
            .args(["programs", "--model", "coder", "--endpoint"])
            .arg(format!("http://127.0.0.1:{}", server.port))
            .arg("--tables")
            .arg(&tables)
            .assert()
            .success()
            .stdout(predicates::str::contains("0\t0\t0\t0"));
        assert_eq!(
            server.requests.load(std::sync::atomic::Ordering::SeqCst),
            asked_before
        );
    }

    /// The default run answers every variant for every model, also variants whose question text
    /// equals another's (an M2 and an M3 draw of the same numbers, a repeated noise draw): each
    /// has its own graded row, and no variant has two.
    #[test]
    fn default_run_grades_every_variant_of_every_model() {
        let dir = tempfile::tempdir().unwrap();
        advmath()
            .arg("run")
            .arg("--out")
            .arg(dir.path())
            .assert()
            .success();
        let engine = advmath::metrics::SqlEngine::open(&dir.path().join("tables")).unwrap();
        let count = |sql: &str| -> Vec<(String, String, i64)> {
            let t = engine.query_table(sql).unwrap();
            (0..t.len())
                .map(|r| {
                    let s = |c: &str| t.get(r, c).and_then(|v| v.as_str()).unwrap().to_string();
                    let n = t.get(r, "n").and_then(|v| v.as_i64()).unwrap();
                    (s("model"), s("attack"), n)
                })
                .collect()
        };
        let unanswered = count(
            "SELECT m.model, v.attack, COUNT(*) AS n \
             FROM variants v CROSS JOIN (SELECT DISTINCT model FROM responses) m \
             LEFT JOIN responses r ON r.model = m.model AND r.variant_id = v.variant_id \
                 AND r.correct IS NOT NULL \
             WHERE r.variant_id IS NULL GROUP BY m.model, v.attack ORDER BY m.model, v.attack",
        );
        assert_eq!(
            unanswered,
            Vec::new(),
            "(model, attack, variants without a graded row)"
        );
        let doubled = count(
            "SELECT model, attack, COUNT(*) AS n FROM ( \
                 SELECT model, attack, variant_id FROM responses \
                 GROUP BY model, attack, variant_id HAVING COUNT(*) > 1) d \
             GROUP BY model, attack ORDER BY model, attack",
        );
        assert_eq!(
            doubled,
            Vec::new(),
            "(model, attack, variants with two rows)"
        );
        // The case under test occurs in this run: some question is asked by two variants.
        let shared = engine
            .query_table(
                "SELECT COUNT(*) AS n FROM (SELECT question FROM variants \
                 GROUP BY question HAVING COUNT(*) > 1) q",
            )
            .unwrap();
        let shared = shared.get(0, "n").and_then(|v| v.as_i64()).unwrap();
        assert!(
            shared > 0,
            "no two variants share a question text in the default run"
        );
    }

    /// Offline models answer every variant; the oracle is always right.
    #[test]
    fn offline_models_answer_everything() {
        let dir = tempfile::tempdir().unwrap();
        small_run(dir.path());
        let tables = dir.path().join("tables");
        let rows = stored_rows(&tables, "oracle").unwrap();
        assert!(rows.len() > 500);
        assert!(
            rows.iter().all(|r| r.3 == Some(true)),
            "the oracle is always right"
        );
        let carry = stored_rows(&tables, "sim-carry").unwrap();
        let wrong = carry.iter().filter(|r| r.3 == Some(false)).count();
        assert!(
            wrong > 0 && wrong < carry.len(),
            "sim-carry makes some mistakes: {wrong}/{}",
            carry.len()
        );
    }

    /// `--extraction xie2024` grades with Xie et al.'s scorer: every row of the run says so.
    #[test]
    fn respond_grades_with_the_chosen_extraction() {
        let dir = tempfile::tempdir().unwrap();
        small_run(dir.path());
        let tables = dir.path().join("tables");
        std::fs::remove_dir_all(tables.join("responses").join("sim-careful")).unwrap();
        advmath()
            .args([
                "respond",
                "--model",
                "sim-careful",
                "--extraction",
                "xie2024",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        let out = advmath()
            .args([
                "sql",
                "SELECT extraction_rule, COUNT(*) AS n FROM responses \
                 WHERE model = 'sim-careful' GROUP BY extraction_rule ORDER BY extraction_rule",
                "--format",
                "csv",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let rules: Vec<&str> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap())
            .collect();
        assert!(rules.contains(&"xie2024_pattern"), "{text}");
        assert!(
            rules
                .iter()
                .all(|r| ["xie2024_pattern", "miss"].contains(r)),
            "{text}"
        );
    }
}

mod properties {
    use advmath::defaults::default_source;
    use advmath::generate::{attack, Attacker, Method};
    use advmath::ingest::{build_records, ProgramSource};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Whatever the seed: every kept tuple passes all node constraints (also M1's, so the
        /// M1 >= M2 >= M3 nesting holds) and its answer is the tree evaluated on it.
        #[test]
        fn kept_variants_satisfy_every_constraint(seed: u64, which in 0usize..36, method in prop::sample::select(vec![Method::M1, Method::M2, Method::M3])) {
            let records = build_records(&default_source().unwrap(), ProgramSource::Auto);
            let p = &records[which];
            let tree = p.tree.as_ref().unwrap();
            let at = Attacker::new(tree, p.slot_nums(), method, 6).unwrap();
            let m1 = Attacker::new(tree, p.slot_nums(), Method::M1, 6).unwrap();
            let (drawn, stats) = attack(&at, seed, 400, 50);
            prop_assert_eq!(stats.attempts, 400);
            for d in drawn {
                prop_assert_eq!(tree.eval(&d.slots).unwrap(), d.answer);
                prop_assert_eq!(m1.check_slots(&d.slots), Ok(d.answer));
                prop_assert!(d.slots != p.slot_nums());
            }
        }
    }
}

mod shared {
    //! Tests on the real data in `../shared/data`. Each is skipped, with a message, when that
    //! folder is absent (it is never copied into the project).

    use std::path::{Path, PathBuf};

    use advmath::generate::{attack, Attacker, Method};
    use advmath::ingest::{
        build_records, read_source, IngestOptions, ProblemRecord, ProgramSource,
    };
    use advmath::seed::stream_key;

    pub fn data() -> Option<PathBuf> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
        if p.is_dir() {
            Some(p)
        } else {
            super::skip("../shared/data is absent");
            None
        }
    }

    fn ingest(path: &Path, programs: ProgramSource) -> Vec<ProblemRecord> {
        let opts = IngestOptions {
            programs,
            ..Default::default()
        };
        let source = read_source(path, &opts).unwrap();
        build_records(&source, programs)
    }

    fn normalise(q: &str) -> String {
        q.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Given (GPT-4) and synthesised programs of the same Xie problem, fed the same 20 number
    /// sets (drawn as M3 variants of the given program), must agree on >= 90% of problems.
    #[test]
    fn given_and_synthesised_programs_agree() {
        let Some(data) = data() else { return };
        let mut agree = 0;
        let mut compared = 0;
        let mut disagreements = Vec::new();
        // Synthesised counterparts: GSM8K from the annotations in the Xie file itself, MultiArith
        // from MultiArith.json's equations, matched by question text.
        let multiarith = ingest(
            &data.join("multiarith/MultiArith.json"),
            ProgramSource::Synthesised,
        );
        for (dir, synth_from_self) in [("xie2024/gsm8k", true), ("xie2024/multiarith", false)] {
            let given = ingest(&data.join(dir), ProgramSource::Given);
            let synthesised: Vec<Option<ProblemRecord>> = if synth_from_self {
                ingest(&data.join(dir), ProgramSource::Synthesised)
                    .into_iter()
                    .map(Some)
                    .collect()
            } else {
                given
                    .iter()
                    .map(|g| {
                        multiarith
                            .iter()
                            .find(|m| normalise(&m.question) == normalise(&g.question))
                            .cloned()
                    })
                    .collect()
            };
            for (g, s) in given.iter().zip(&synthesised) {
                let Some(s) = s else { continue };
                if !g.is_valid() || !s.is_valid() || g.slot_values != s.slot_values {
                    continue;
                }
                let (gt, st) = (g.tree.as_ref().unwrap(), s.tree.as_ref().unwrap());
                let attacker = Attacker::new(gt, g.slot_nums(), Method::M3, 6).unwrap();
                let (sets, _) = attack(&attacker, stream_key(7, &g.problem_id, "agree"), 3000, 20);
                if sets.is_empty() {
                    continue;
                }
                compared += 1;
                let same = sets
                    .iter()
                    .all(|d| st.eval(&d.slots).is_ok_and(|a| a.eq_2dp(d.answer)));
                if same {
                    agree += 1;
                } else {
                    disagreements.push(g.problem_id.clone());
                }
            }
        }
        let share = agree as f64 / compared as f64;
        eprintln!(
            "programs agree on {agree}/{compared} problems ({:.1}%); disagree: {disagreements:?}",
            100.0 * share
        );
        assert!(
            compared >= 300,
            "only {compared} problems had both programs valid"
        );
        assert!(
            share >= 0.90,
            "agreement {share:.3} < 0.90: {disagreements:?}"
        );
    }

    fn valid(records: &[ProblemRecord]) -> usize {
        records.iter().filter(|r| r.is_valid()).count()
    }

    /// Issue 2 acceptance: the Xie release's own programs are valid for at least as many
    /// problems as the reference accepts (188 GSM8K, 189 MultiArith).
    #[test]
    fn xie_release_programs_validate() {
        let Some(data) = data() else { return };
        let gsm8k = ingest(&data.join("xie2024/gsm8k"), ProgramSource::Given);
        let multiarith = ingest(&data.join("xie2024/multiarith"), ProgramSource::Given);
        eprintln!(
            "xie2024 given programs valid: gsm8k {}/200, multiarith {}/200",
            valid(&gsm8k),
            valid(&multiarith)
        );
        assert!(valid(&gsm8k) >= 188);
        assert!(valid(&multiarith) >= 189);
    }

    /// Issue 2 acceptance: programs synthesised from annotations and equations.
    #[test]
    fn synthesised_programs_cover_gsm8k_and_multiarith() {
        let Some(data) = data() else { return };
        for (file, floor) in [
            ("gsm8k/test.jsonl", 0.85),
            ("gsm8k/train.jsonl", 0.85),
            ("multiarith/MultiArith.json", 0.97),
        ] {
            let recs = ingest(&data.join(file), ProgramSource::Synthesised);
            let share = valid(&recs) as f64 / recs.len() as f64;
            eprintln!(
                "{file}: {}/{} valid ({:.1}%)",
                valid(&recs),
                recs.len(),
                100.0 * share
            );
            assert!(share >= floor, "{file}: {share:.3} < {floor}");
        }
    }

    /// Issue 3 acceptance on real programs: M2 keeps digit counts, every variant's text, answer
    /// and constraints check out.
    #[test]
    fn xie_variants_check_out() {
        let Some(data) = data() else { return };
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("t");
        super::advmath()
            .args(["ingest", "--programs", "given", "--tables"])
            .arg(&tables)
            .arg(data.join("xie2024/gsm8k"))
            .arg(data.join("xie2024/multiarith"))
            .assert()
            .success();
        super::advmath()
            .args([
                "generate",
                "--attempts",
                "2000",
                "--variants",
                "10",
                "--attack",
                "m1,m2,m3",
                "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
        let n = super::verify_variants(&tables, "xie2024-gsm8k")
            + super::verify_variants(&tables, "xie2024-multiarith");
        eprintln!("checked {n} Xie variants");
        assert!(n > 5000);
    }

    /// The RobustMath rephrasing attack of the Xie et al. release: `advmath ingest` recognises the
    /// folder and pairs every one of the 300 rephrasings with one of the 214 originals (same final
    /// answer, most shared words), written as variants of dataset `robustmath`.
    #[test]
    fn robustmath_release_ingests_as_rephrase_attack() {
        let Some(data) = data() else { return };
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("t");
        let out = super::advmath()
            .args(["ingest", "--tables"])
            .arg(&tables)
            .arg(data.join("xie2024/robustmath"))
            .assert()
            .success();
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        assert_eq!(
            stdout,
            "dataset\toriginals\trephrased\tpaired\toriginals_paired\tunpaired\n\
             robustmath\t214\t300\t300\t214\t0\n"
        );
        assert!(!tables.join("problems").exists(), "no problems rows");
        let engine = advmath::metrics::SqlEngine::open(&tables).unwrap();
        let t = engine
            .query_table(
                "SELECT attack, COUNT(*) AS n, COUNT(DISTINCT problem_id) AS problems \
                 FROM variants GROUP BY attack ORDER BY attack",
            )
            .unwrap();
        let rows: Vec<(String, i64, i64)> = (0..t.len())
            .map(|r| {
                (
                    t.get(r, "attack")
                        .and_then(advmath::metrics::Cell::as_str)
                        .unwrap()
                        .into(),
                    t.get(r, "n")
                        .and_then(advmath::metrics::Cell::as_i64)
                        .unwrap(),
                    t.get(r, "problems")
                        .and_then(advmath::metrics::Cell::as_i64)
                        .unwrap(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![("original".into(), 214, 214), ("rephrase".into(), 300, 214)]
        );
    }

    /// Issue 5 acceptance: from the real ArithmAttack responses, the SQL metrics reproduce the
    /// published accuracies within 2.0 points and ASR within 3.0 (scored with the study's own
    /// last-number rule; GSM8K Llama-3.1 noise10 is compared with the figure derived from the
    /// shipped file, which the data README documents as differing from the published one).
    #[test]
    fn arithmattack_figures_through_sql() {
        let Some(data) = data() else { return };
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("t");
        super::advmath()
            .args(["ingest", "--tables"])
            .arg(&tables)
            .arg(data.join("gsm8k/test.jsonl"))
            .arg(data.join("multiarith/MultiArith.json"))
            .assert()
            .success();
        super::advmath()
            .args([
                "ingest-responses",
                "--format",
                "arithmattack",
                "--extraction",
                "last-number",
                "--tables",
            ])
            .arg(&tables)
            .arg(data.join("arithmattack"))
            .assert()
            .success();
        let out = dir.path().join("m");
        super::advmath()
            .args(["metrics", "--tables"])
            .arg(&tables)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let read = |name: &str| -> Vec<Vec<String>> {
            let text = std::fs::read_to_string(out.join(name)).unwrap();
            text.lines()
                .skip(1)
                .map(|l| l.split(',').map(String::from).collect())
                .collect()
        };
        let acc = read("arithmattack_accuracy.csv");
        let asr = read("arithmattack_asr.csv");
        let mut checked = 0;
        for (dataset, model, levels, paper_asr) in advmath::metrics::arithmattack_published() {
            for (i, level) in ["0", "10", "30", "50"].iter().enumerate() {
                let row = acc
                    .iter()
                    .find(|r| r[0] == *model && r[2] == *dataset && r[3] == *level)
                    .unwrap_or_else(|| panic!("{dataset}/{model}/{level} missing"));
                let ours = 100.0 * row[6].parse::<f64>().unwrap();
                let file_derived =
                    *dataset == "gsm8k" && *model == "Llama-3.1-8B-Instruct" && *level == "10";
                let target = if file_derived { 83.55 } else { levels[i] };
                assert!(
                    (ours - target).abs() <= 2.0,
                    "{dataset}/{model}/{level}: {ours:.2} vs {target:.2}"
                );
                checked += 1;
            }
            let row = asr
                .iter()
                .find(|r| r[0] == *model && r[2] == *dataset)
                .unwrap();
            let ours = 100.0 * row[9].parse::<f64>().unwrap();
            assert!(
                (ours - paper_asr).abs() <= 3.0,
                "{dataset}/{model} ASR: {ours:.2} vs {paper_asr:.2}"
            );
        }
        assert_eq!(checked, 36);
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(report.contains("paper and advmath side by side"));
    }
}
