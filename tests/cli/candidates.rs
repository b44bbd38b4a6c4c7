//! `advmath ingest --candidates`: published model-written programs (ToRA, Program-of-Thoughts,
//! GSM-Hard's PAL) read row by row, bad lines named and skipped, each program judged against the
//! problem it matches, the first valid one taken by a problem without a valid program of its own,
//! and every verdict kept in `candidate_programs`. The fixtures are hand-written here in the
//! released formats; the real files are read from `../shared/data` when it is there.

use std::fs;
use std::path::Path;

use serde_json::json;

use crate::util::{advmath, problems_in, shared_data, sql_csv, stderr_of};

const APPLES: &str = "Tom has 5 apples and buys 7 more. How many apples does he have?";
const PENS: &str = "Ann has 3 pens and buys 4 more pens. How many pens does she have?";
const PAGES: &str = "Sam reads 6 pages a day for 5 days. How many pages does he read?";

/// Three GSM8K problems: the first with a calculator annotation (its own program validates), the
/// other two with worked solutions no program can be synthesised from.
fn problems(dir: &Path) -> std::path::PathBuf {
    let rows = [
        json!({"question": APPLES, "answer": "He has 5+7=<<5+7=12>>12 apples.\n#### 12"}),
        json!({"question": PENS, "answer": "She has seven pens.\n#### 7"}),
        json!({"question": PAGES, "answer": "He reads thirty.\n#### 30"}),
    ];
    let path = dir.join("test.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    fs::write(&path, text).unwrap();
    path
}

/// A ToRA row: `idx`, the question, and one model output holding a fenced program.
fn tora(idx: u64, question: &str, program: &str) -> String {
    let output = format!("```python\n{program}\n```\n```output\n1\n```\n\\boxed{{1}}");
    json!({"idx": idx, "question": question, "gt": "1", "code": [output]}).to_string()
}

/// A ToRA file whose lines 3, 5, 6, 7 and 9 are bad (malformed, truncated, not UTF-8, no
/// program, not an object), line 4 blank, line 8 matching no problem, and lines 10 and 11 right
/// for the pens and pages problems; and a few-shot PoT file, prompt line first, with two valid
/// programs for the pens problem.
fn candidate_files(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut a: Vec<u8> = Vec::new();
    let mut line = |text: &[u8]| {
        a.extend_from_slice(text);
        a.push(b'\n');
    };
    line(
        tora(
            0,
            APPLES,
            "def solution():\n    apples = 5\n    bought = 7\n    return apples + bought\n\nprint(solution())",
        )
        .as_bytes(),
    );
    line(
        tora(
            1,
            PENS,
            "def solution():\n    return 4 - 3\n\nprint(solution())",
        )
        .as_bytes(),
    );
    line(br#"{"idx": 2, "question": broken"#);
    line(b"  ");
    line(br#"{"idx": 1, "question": "Ann has"#);
    line(b"{\"idx\": 1, \"question\": \"caf\xe9 \xff\"}");
    line(
        json!({"idx": 1, "question": PENS, "code": ["The answer is \\boxed{7}."]})
            .to_string()
            .as_bytes(),
    );
    line(
        tora(
            1,
            "Ann has 3 cats.",
            "def solution():\n    return 3 + 4\n\nprint(solution())",
        )
        .as_bytes(),
    );
    line(b"[1, 2]");
    // A right program for the pens problem, which the PoT file's confirms, and one for the pages
    // problem that nothing confirms.
    line(
        tora(
            1,
            PENS,
            "def solution():\n    pens = 3\n    bought = 4\n    return pens + bought\n\nprint(solution())",
        )
        .as_bytes(),
    );
    line(
        tora(
            2,
            PAGES,
            "def solution():\n    return 6 * 5\n\nprint(solution())",
        )
        .as_bytes(),
    );
    let tora_file = dir.join("tora-small.gsm8k_test.jsonl");
    fs::write(&tora_file, a).unwrap();
    let pot = [
        json!({"prompt": "Question: ...\n# Python code, return ans"}),
        json!({"question": PENS, "answer": 7.0, "generated": ["pens = 3\nmore = 4\nans = pens + more"]}),
        json!({"question": PENS, "answer": 7.0, "generated": ["ans = 3 + 4"]}),
        json!({"question": PAGES, "answer": 30.0, "generated": ["ans = 6 + 5"]}),
        json!({"question": "What is 2 and 2?", "answer": 4.0, "generated": ["ans = 2 + 2"]}),
    ];
    let pot_file = dir.join("pot-small.jsonl");
    fs::write(
        &pot_file,
        pot.iter().map(|r| format!("{r}\n")).collect::<String>(),
    )
    .unwrap();
    (tora_file, pot_file)
}

#[test]
fn bad_candidate_lines_are_named_and_the_rest_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = problems(dir.path());
    let (tora_file, pot_file) = candidate_files(dir.path());
    let tables = dir.path().join("tables");
    let out = advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(&input)
        .arg("--candidates")
        .args([&tora_file, &pot_file])
        .assert()
        .success();
    let stderr = stderr_of(&out);
    let named = tora_file.display().to_string();
    for (line, reason) in [
        (3, "malformed JSON"),
        (5, "malformed JSON: EOF while parsing"),
        (6, "not valid UTF-8"),
        (7, "the model output has no ```python block"),
        (9, "the row is not a JSON object"),
    ] {
        assert!(
            stderr.contains(&format!("warning: {named}:{line}: {reason}")),
            "line {line} is not named: {stderr}"
        );
    }
    assert!(!stderr.contains(&format!("{named}:4:")), "{stderr}");
    assert!(
        stderr.contains(&format!("{named}:8: index 1: row 1 of")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:5: no problem", pot_file.display())),
        "{stderr}"
    );
    // The good rows of both files were read and judged.
    let verdicts = sql_csv(
        &tables,
        "SELECT source, line FROM candidate_programs ORDER BY source, line",
    );
    assert_eq!(
        verdicts,
        "source,line\npot:pot-small,2\npot:pot-small,3\npot:pot-small,4\n\
         tora:tora-small.gsm8k_test,1\ntora:tora-small.gsm8k_test,2\n\
         tora:tora-small.gsm8k_test,10\ntora:tora-small.gsm8k_test,11\n"
    );
}

/// A ToRA row names its GSM8K test line; another release of the same question (a file that is
/// not GSM8K's, as Xie et al.'s is) is matched by the question instead.
#[test]
fn an_indexed_row_matches_another_release_of_its_question_by_text() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("release.jsonl");
    fs::write(
        &input,
        format!(
            "{}\n",
            json!({"question": APPLES, "answer": "12", "program": "print(5 + 7)"})
        ),
    )
    .unwrap();
    let tora_file = dir.path().join("tora-small.gsm8k_test.jsonl");
    let program = "def solution():\n    apples = 5\n    bought = 7\n    return apples + bought\n\nprint(solution())";
    // Line 7 of GSM8K test in ToRA's file: the release has no line 7, but has the question.
    fs::write(&tora_file, format!("{}\n", tora(7, APPLES, program))).unwrap();
    let tables = dir.path().join("tables");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(&input)
        .arg("--candidates")
        .arg(&tora_file)
        .assert()
        .success();
    let rows = sql_csv(
        &tables,
        "SELECT source, line, status FROM candidate_programs",
    );
    assert_eq!(
        rows,
        "source,line,status\ntora:tora-small.gsm8k_test,1,valid\n"
    );
}

#[test]
fn a_problem_keeps_its_own_valid_program_and_one_without_takes_the_first_valid_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let input = problems(dir.path());
    let (tora_file, pot_file) = candidate_files(dir.path());
    let plain = dir.path().join("plain");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&plain)
        .arg(&input)
        .assert()
        .success();
    let tables = dir.path().join("tables");
    let report = dir.path().join("coverage.md");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(&input)
        .arg("--report")
        .arg(&report)
        .arg("--candidates")
        .args([&tora_file, &pot_file])
        .assert()
        .success();
    let before = problems_in(&plain.join("problems/gsm8k__test.parquet"));
    let after = problems_in(&tables.join("problems/gsm8k__test.parquet"));
    // The problem whose own program validates keeps it, byte for byte.
    assert!(before[0].is_valid());
    assert_eq!(after[0], before[0]);
    // The pens problem takes the ToRA file's right program, which the PoT file's confirm (the
    // ToRA file's first program for it is wrong).
    assert!(!before[1].is_valid());
    assert!(after[1].is_valid(), "{:?}", after[1].error);
    assert_eq!(
        after[1].program_origin,
        "published:tora:tora-small.gsm8k_test"
    );
    assert!(
        after[1]
            .program
            .as_deref()
            .is_some_and(|p| p.contains("return pens + bought")),
        "{:?}",
        after[1].program
    );
    // The pages problem's one valid program is confirmed by no other: it stays as it was.
    assert_eq!(after[2], before[2]);
    // One row per (candidate, problem), in the problems' order, then the order of preference.
    let rows = sql_csv(
        &tables,
        "SELECT problem_id, source, line, status, error_kind, chosen, confirmed_by, \
         file LIKE '%pot-small.jsonl' AS pot FROM candidate_programs",
    );
    assert_eq!(
        rows,
        "problem_id,source,line,status,error_kind,chosen,confirmed_by,pot\n\
         gsm8k/test/0,tora:tora-small.gsm8k_test,1,valid,,false,,false\n\
         gsm8k/test/1,tora:tora-small.gsm8k_test,2,refused,wrong_answer,false,,false\n\
         gsm8k/test/1,tora:tora-small.gsm8k_test,10,valid,,true,pot:pot-small,false\n\
         gsm8k/test/1,pot:pot-small,2,valid,,false,tora:tora-small.gsm8k_test,true\n\
         gsm8k/test/1,pot:pot-small,3,valid,,false,tora:tora-small.gsm8k_test,true\n\
         gsm8k/test/2,tora:tora-small.gsm8k_test,11,valid,,false,,false\n\
         gsm8k/test/2,pot:pot-small,4,refused,wrong_answer,false,,true\n"
    );
    let text = fs::read_to_string(&report).unwrap();
    assert!(text.contains("## Published candidate programs"), "{text}");
    assert!(
        text.contains("| pot:pot-small | [wenhuchen/Program-of-Thoughts](https://github.com/wenhuchen/Program-of-Thoughts) | MIT | 4 | 3 | 3 | 2 | 0 | wrong_answer 1 |"),
        "{text}"
    );
    assert!(
        text.contains("[microsoft/ToRA](https://github.com/microsoft/ToRA) | MIT | 5 | 4 | 4 | 3 | 1 | wrong_answer 1 |"),
        "{text}"
    );
    assert!(
        text.contains("published:tora:tora-small.gsm8k_test 1"),
        "{text}"
    );

    // Each variant's gold is given by every program of another source that reads what it
    // changes: the apples problem's own program and the ToRA file's, the pens problem's ToRA
    // program and the PoT file's (one vote per source); nothing disagrees here.
    advmath()
        .args(["generate", "--tables"])
        .arg(&tables)
        .args(["--attack", "m2", "--attempts", "400", "--variants", "5"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "gsm8k\tm2\t2\t10\t10\ngsm8k\toriginal\t2\t2\t2",
        ));
    assert_eq!(
        sql_csv(
            &tables,
            "SELECT problem_id, attack, min(support) AS lo, max(support) AS hi, count(*) AS n \
             FROM variants GROUP BY problem_id, attack ORDER BY problem_id, attack",
        ),
        "problem_id,attack,lo,hi,n\n\
         gsm8k/test/0,m2,2,2,5\ngsm8k/test/0,original,2,2,1\n\
         gsm8k/test/1,m2,2,2,5\ngsm8k/test/1,original,2,2,1\n"
    );
    assert_eq!(
        sql_csv(
            &tables,
            "SELECT sum(rejected_disagreement) AS n FROM generation_stats"
        ),
        "n\n0\n"
    );
    // The dataset card counts them and names where the second programs came from.
    let hub = dir.path().join("hub");
    crate::util::publish(&tables, &hub);
    let card = fs::read_to_string(hub.join("README.md")).unwrap();
    for expected in [
        "## Gold answers and the programs that give them",
        "| `gsm8k` | 10 | 10 | 100.0% |",
        "- `gsm8k`: `pot:pot-small`, from [wenhuchen/Program-of-Thoughts](https://github.com/wenhuchen/Program-of-Thoughts), MIT",
        "- `gsm8k`: `tora:tora-small.gsm8k_test`, from [microsoft/ToRA](https://github.com/microsoft/ToRA), MIT",
    ] {
        assert!(card.contains(expected), "the card lacks {expected:?}:\n{card}");
    }

    // Ingested again without candidates, the problems are the plain ones and the verdicts,
    // which judged programs against the replaced problems, are gone.
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(&input)
        .assert()
        .success();
    assert_eq!(
        fs::read(tables.join("problems/gsm8k__test.parquet")).unwrap(),
        fs::read(plain.join("problems/gsm8k__test.parquet")).unwrap()
    );
    assert!(!tables
        .join("candidate_programs/gsm8k__test.parquet")
        .exists());
    assert_eq!(
        sql_csv(&tables, "SELECT count(*) AS n FROM candidate_programs"),
        "n\n0\n"
    );
    let leftovers: Vec<_> = fs::read_dir(&tables)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// GSM8K test with every published GSM8K program file: the published programs lift the valid
/// problems from 850 (the calculator annotations alone) to 1,010 here, the floor leaving room for
/// the reader to change; the report lists the problems' and the programs' refusals by reason.
/// Every program taken is confirmed by a second source, and none uses a constant the question
/// does not explain: the problems a blind audit found wrong golds in stay refused (544 and 1220
/// divide by 5 for "4 times as much" and the one share, in all four families' programs; the others
/// had one program right by coincidence).
#[test]
fn shared_gsm8k_test_with_the_published_programs() {
    let Some(data) = shared_data() else { return };
    let programs = data.join("model-programs");
    if !programs.is_dir() {
        crate::util::skip("../shared/data/model-programs is absent");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let report = dir.path().join("coverage.md");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(data.join("gsm8k/test.jsonl"))
        .arg("--report")
        .arg(&report)
        .arg("--candidates")
        .args([
            programs.join("tora/tora-70b-v1.0.gsm8k_test.jsonl"),
            programs.join("tora/tora-code-34b-v1.0.gsm8k_test.jsonl"),
            programs.join("pot/gsm8K_s0_e-1_11_17_10_20.jsonl"),
            programs.join("pot/gsm8K_zs_s0_e-1_11_19_09_55.jsonl"),
            programs.join("pal-gsmhard/gsmhardv2.jsonl"),
        ])
        .assert()
        .success();
    let records = problems_in(&tables.join("problems/gsm8k__test.parquet"));
    assert_eq!(records.len(), 1319);
    let valid = records.iter().filter(|r| r.is_valid()).count();
    let published = records
        .iter()
        .filter(|r| r.is_valid() && r.program_origin.starts_with("published:"))
        .count();
    eprintln!("GSM8K test: {valid} valid, {published} of them with a published program");
    // 1,007 before the blind read of every test label refused the four valid problems whose
    // programs reproduced a label the question contradicts (119, 403, 768, 952).
    assert!(valid >= 1003, "{valid} valid");
    assert!(published >= 155, "{published} published");
    // 783 too: the one program that validates for it (GSM-Hard's PAL) is confirmed by none; and
    // 584, whose two agreeing programs read its "2 boxes" as the 2 contacts of a pair. 132 and
    // 831 write a question's 2 once more than the question does with no word for it (Pam and
    // Fred's two riders; shelves Angela does not have): reading the 2 twice gave wrong golds.
    for audited in [
        1, 132, 427, 544, 584, 749, 783, 815, 831, 931, 950, 1181, 1220,
    ] {
        let r = &records[audited];
        assert!(!r.is_valid(), "gsm8k/test/{audited}: {}", r.program_origin);
    }
    let unconfirmed = sql_csv(
        &tables,
        "SELECT count(*) AS n FROM candidate_programs WHERE chosen AND confirmed_by IS NULL",
    );
    assert_eq!(unconfirmed, "n\n0\n");
    let text = fs::read_to_string(&report).unwrap();
    for expected in [
        "published:tora:tora-70b-v1.0.gsm8k_test",
        "| tora:tora-70b-v1.0.gsm8k_test | [microsoft/ToRA]",
        "| pal:gsmhardv2 | [reasoning-machines/pal](https://github.com/reasoning-machines/pal) | Apache-2.0 |",
        "number_misalignment",
        "unused_number",
        "gsm_hard_replaced_at_several_places",
    ] {
        assert!(text.contains(expected), "the report lacks {expected:?}");
    }
    // Each rejected problem names its nearest published program and whose rule stops it, and the
    // classes count every rejected problem once.
    let rejected = records.len() - valid;
    let row_of = |id: usize| {
        let prefix = format!("| gsm8k/test/{id} |");
        text.lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("the report does not list gsm8k/test/{id}"))
            .to_string()
    };
    assert!(
        row_of(783).ends_with("| unconfirmed (pal:gsmhardv2) |"),
        "{}",
        row_of(783)
    );
    assert!(
        row_of(544).contains("| unexplained_constant ("),
        "{}",
        row_of(544)
    );
    assert!(row_of(584).contains("| unit_reading ("), "{}", row_of(584));
    let table = text
        .split("| nearest published program | problems |")
        .nth(1)
        .expect("the report has the table of nearest published programs");
    let classes: usize = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.split('|')
                .nth(2)
                .unwrap()
                .trim()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(classes, rejected, "{table}");
    let rejected_section = text
        .split("## Published candidate programs")
        .next()
        .unwrap();
    let listed = rejected_section
        .lines()
        .filter(|l| l.starts_with("| gsm8k/test/"))
        .count();
    assert_eq!(listed, rejected);
    assert!(
        text.contains(&format!("Valid: {valid} of 1319 (")),
        "the report states the valid count under the table"
    );
    // The labels the programs dispute are listed for a reader: the two the errata list refuses
    // among them, with the answer the question gives.
    let disputes = text
        .split("### Labels the published programs dispute")
        .nth(1)
        .expect("the report lists disputed labels");
    for (id, label, answer) in [(454, 150, 240), (823, 14, 18), (1309, 2280, 2180)] {
        let row = format!("| gsm8k/test/{id} | {label} | {answer} |");
        let line = disputes
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("{row} is not listed"));
        assert!(line.ends_with("| wrong_label |"), "{line}");
    }
    // Every candidate row of the files gave one verdict row (GSM8K test asks no question twice).
    let n = sql_csv(&tables, "SELECT count(*) AS n FROM candidate_programs");
    assert_eq!(n, "n\n6428\n");

    // Each variant is held to the other sources' programs. Test 75's synthesised program builds
    // the 4 levels of its sandcastle into its shape and reads the 4 only as the divisor; GSM-Hard's
    // PAL sums 16 * (2 ** levels - 1): the two agree on no changed count of levels, so 75 writes
    // no variant instead of golds true only for 4 levels.
    advmath()
        .args(["generate", "--tables"])
        .arg(&tables)
        .args(["--attack", "m3", "--attempts", "2000", "--variants", "10"])
        .assert()
        .success();
    let dropped = sql_csv(
        &tables,
        "SELECT problem_id, unique_valid, rejected_disagreement > 0 AS dropped, valid > 0 AS drawn \
         FROM generation_stats WHERE problem_id = 'gsm8k/test/75'",
    );
    assert_eq!(
        dropped,
        "problem_id,unique_valid,dropped,drawn\ngsm8k/test/75,0,true,true\n"
    );
    let shares = sql_csv(
        &tables,
        "SELECT attack, round(avg(CASE WHEN support >= 2 THEN 1.0 ELSE 0.0 END), 2) >= 0.8 AS most, \
         min(support) >= 1 AS each FROM variants GROUP BY attack ORDER BY attack",
    );
    assert_eq!(
        shares,
        "attack,most,each\nm3,true,true\noriginal,true,true\n"
    );
}
