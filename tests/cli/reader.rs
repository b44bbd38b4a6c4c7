//! Variants a reader accepts: the questions whose variants blind readers flagged (a part larger
//! than its whole, a 98 day work week, 1,644 hours a month, a man 300293 years old, a $31 bill,
//! "an 5 hour day", "1 photograph frames") give no such variant under the default constraints,
//! and do under `--constraints paper`, which is the paper's. Read from `../shared/data`.

use std::fs;
use std::path::{Path, PathBuf};

use advmath::agreement::reads_with_vowel;
use advmath::num::Num;
use advmath::question::find_slots;

use crate::gold::{variants, Variant};
use crate::util::{advmath, shared_data};

/// GSM8K test lines of the flagged problems, and the train line.
const TEST_LINES: &[usize] = &[320, 1247, 1099, 1063, 566, 1239];
const TRAIN_LINE: usize = 7087;

/// A folder of inputs holding only the flagged problems, copied from the shared data at test
/// time: GSM8K test and train lines, MultiArith 141 and Xie et al.'s GSM8K 22.
fn flagged_inputs(data: &Path, dir: &Path) -> Vec<PathBuf> {
    let lines = |file: &str, keep: &[usize]| -> String {
        let text = fs::read_to_string(data.join(file)).unwrap();
        let all: Vec<&str> = text.lines().collect();
        keep.iter().map(|&i| format!("{}\n", all[i])).collect()
    };
    let test = dir.join("test.jsonl");
    fs::write(&test, lines("gsm8k/test.jsonl", TEST_LINES)).unwrap();
    let train = dir.join("train.jsonl");
    fs::write(&train, lines("gsm8k/train.jsonl", &[TRAIN_LINE])).unwrap();
    let multiarith: Vec<serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(data.join("multiarith/MultiArith.json")).unwrap())
            .unwrap();
    let ma = dir.join("MultiArith.json");
    let kept: Vec<&serde_json::Value> = multiarith.iter().filter(|p| p["iIndex"] == 141).collect();
    fs::write(&ma, serde_json::to_string(&kept).unwrap()).unwrap();
    // The release's folder name makes the dataset's (`xie2024-gsm8k`).
    let xie = dir.join("xie2024").join("gsm8k");
    fs::create_dir_all(xie.join("code")).unwrap();
    let release: Vec<serde_json::Value> = serde_json::from_str(
        &fs::read_to_string(data.join("xie2024/gsm8k/200_samples.json")).unwrap(),
    )
    .unwrap();
    let kept: Vec<&serde_json::Value> = release.iter().filter(|p| p["index"] == 22).collect();
    fs::write(
        xie.join("200_samples.json"),
        serde_json::to_string(&kept).unwrap(),
    )
    .unwrap();
    fs::copy(
        data.join("xie2024/gsm8k/code/22.py"),
        xie.join("code/22.py"),
    )
    .unwrap();
    vec![test, train, ma, xie]
}

fn digits(question: &str) -> Vec<i128> {
    find_slots(question)
        .into_iter()
        .filter(|s| !s.word)
        .map(|s| {
            s.value
                .as_integer()
                .filter(|_| s.value.is_integer())
                .unwrap_or(-1)
        })
        .collect()
}

fn answer(v: &Variant) -> Num {
    advmath::num::wide::Value::parse_decimal(&v.answer_exact)
        .and_then(|a| a.as_num())
        .unwrap_or_else(|| panic!("{}: no answer", v.question))
}

/// What a reader flags in a variant, if anything: one check per flagged problem, told apart by
/// the original question's opening words.
fn flagged(v: &Variant) -> Option<&'static str> {
    let q = &v.question;
    let d = digits(q);
    let ans = answer(v);
    let more_than = |a: Num, max: i128| a.cmp_num(Num::int(max)) == std::cmp::Ordering::Greater;
    let bad = if q.starts_with("At the beginning of the party") {
        // [men, women, 1/4, stayed]
        (d[4] > d[0]).then_some("more men stayed than came")
    } else if q.starts_with("Brendan has a bag of marbles") {
        (2 * d[1] > d[0]).then_some("found more marbles than dropped")
    } else if q.starts_with("The biggest waterslide") {
        (d[2] >= d[0]).then_some("the second biggest slide is the longer")
    } else if q.starts_with("James gets") {
        (d[2] > 7).then_some("a work week of more than 7 days")
    } else if q.starts_with("Shiloh is") {
        (d[0] > 120 || more_than(ans, 120)).then_some("an age over 120")
    } else if q.starts_with("To earn an airplane pilot certificate") {
        more_than(ans, 744).then_some("more hours a month than a month has")
    } else if q.contains("Haley scored") {
        (d[1] > d[0]).then_some("ate more candy than she had")
    } else if q.starts_with("Sally bought") {
        if ![1, 2, 5, 10, 20, 50, 100].contains(&d[2]) {
            Some("a bill that does not exist")
        } else if d[0] == 1 && q.contains("1 photograph frames") {
            Some("1 photograph frames")
        } else {
            None
        }
    } else if q.starts_with("A custodian") {
        // "If they work an 8 hour day": the article before the hours.
        let (_, rest) = q.split_once("If they work a").expect("the hours' sentence");
        let hours = rest.trim_start_matches('n').trim_start();
        (rest.starts_with('n') != reads_with_vowel(hours)).then_some("a/an disagrees")
    } else {
        None
    };
    bad
}

/// The flagged problems, generated with the defaults and these extra options: per problem, how
/// many variants a reader flags, and for what; and the problems that have variants.
type Flags = Vec<(String, usize, &'static str)>;

/// The flags, the problems attacked, and `generate`'s log.
fn flags(extra: &[&str]) -> (Flags, Vec<String>, String) {
    let Some(data) = shared_data() else {
        return (Vec::new(), Vec::new(), String::new());
    };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let mut ingest = advmath();
    ingest.args(["ingest", "--tables"]).arg(&tables);
    for input in flagged_inputs(&data, dir.path()) {
        ingest.arg(input);
    }
    ingest.assert().success();
    let generated = advmath()
        .args(["generate", "--attack", "m1,m2,m3", "--tables"])
        .arg(&tables)
        .args(extra)
        .assert()
        .success();
    let log = crate::util::stderr_of(&generated);
    let mut out: Flags = Vec::new();
    let mut attacked = Vec::new();
    for dataset in ["gsm8k", "multiarith", "xie2024-gsm8k"] {
        for attack in ["m1", "m2", "m3"] {
            for v in variants(&tables, dataset, attack) {
                let problem = v.problem_id.clone();
                if !attacked.contains(&problem) {
                    attacked.push(problem.clone());
                }
                if let Some(why) = flagged(&v) {
                    match out.iter_mut().find(|(p, _, w)| *p == problem && *w == why) {
                        Some((_, n, _)) => *n += 1,
                        None => out.push((problem, 1, why)),
                    }
                }
            }
        }
    }
    out.sort();
    attacked.sort();
    (out, attacked, log)
}

#[test]
fn the_flagged_problems_give_no_variant_a_reader_flags() {
    if shared_data().is_none() {
        return;
    }
    let (found, attacked, log) = flags(&[]);
    assert!(found.is_empty(), "{found:?}");
    // Every one of them is still attacked (a rule that left a problem no variant would pass the
    // check above without showing anything) but Shiloh's: only his age of 44 varies, and the
    // ages up to 120 that keep his nephew's a whole number are fewer than 100.
    let mut all: Vec<String> = (0..TEST_LINES.len())
        .filter(|&i| TEST_LINES[i] != 566)
        .map(|i| format!("gsm8k/test/{i}"))
        .collect();
    all.extend(
        [
            "gsm8k/train/0",
            "multiarith/test/141",
            "xie2024-gsm8k/test/22",
        ]
        .map(String::from),
    );
    all.sort();
    assert_eq!(attacked, all);
    // And the log counts the problems whose M1 only the rules cut short (Shiloh's among them:
    // his M1 variants exist under the paper's constraints only).
    let lost = log
        .lines()
        .find_map(|l| l.strip_prefix("gsm8k m1: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok());
    assert!(lost.is_some_and(|n| n >= 1), "{log}");
}

#[test]
fn the_paper_s_constraints_still_give_them() {
    if shared_data().is_none() {
        return;
    }
    let (found, _, log) = flags(&["--constraints", "paper"]);
    assert!(!log.contains("reader's rules"), "{log}");
    let mut whys: Vec<&str> = found.iter().map(|(_, _, w)| *w).collect();
    whys.sort();
    whys.dedup();
    assert_eq!(
        whys,
        vec![
            "1 photograph frames",
            "a bill that does not exist",
            "a work week of more than 7 days",
            "a/an disagrees",
            "an age over 120",
            "ate more candy than she had",
            "found more marbles than dropped",
            "more hours a month than a month has",
            "more men stayed than came",
            "the second biggest slide is the longer",
        ],
        "{found:?}"
    );
}
