//! The abstention detector on real replies: `tests/fixtures/abstention.tsv` names replies of the
//! ArithmAttack study (in `../shared/data`) and `tests/fixtures/abstention_smollm2.jsonl` holds
//! SmolLM2-135M's replies to GSM8K test questions and their `missing` variants (made for advmath
//! by the CI's server at temperature 0, 256 tokens), each with what two blind readers read its last
//! word to be; the detector must read every one the readers agree on as they do, except the
//! misreads listed here with their reason, so that a change in either direction fails.

use std::collections::BTreeMap;

use advmath::extract::abstains;
use advmath::respond::outside::read_csv;

use crate::util::shared_data;

/// Replies the detector reads otherwise than both readers, and why (file, row).
const MISREADS: &[(&str, usize, &str)] = &[
    (
        "multiarith/zephyr-7b-beta/noise10.csv",
        127,
        "\"we couldn't find a solution\", then a closing sentence that restates the question's 81",
    ),
    (
        "multiarith/zephyr-7b-beta/noise50.csv",
        68,
        "\"cannot be solved\", then a final answer in words whose sentence restates the question's $5",
    ),
];

/// SmolLM2's replies the detector reads otherwise than both readers, and why (variant id).
const SMOLLM2_MISREADS: &[(&str, &str)] = &[(
    "gsm8k/test/161/original/0",
    "\"we can't find the number of sea horses\" in a loop, cut off after a restated 10",
)];

/// SmolLM2's replies: the detector reads every one two readers agree on as they do, except the
/// listed misreads.
#[test]
fn the_detector_reads_smollm2_s_replies_as_two_readers_do() {
    let fixture = include_str!("../fixtures/abstention_smollm2.jsonl");
    let (mut agreed, mut unclear) = (BTreeMap::<(String, &str), usize>::new(), 0);
    let mut wrong = Vec::new();
    for line in fixture.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let (id, label) = (
            row["variant_id"].as_str().unwrap(),
            row["label"].as_str().unwrap(),
        );
        if label == "unclear" {
            unclear += 1;
            continue;
        }
        let reply = row["response"].as_str().unwrap();
        let read = if abstains(reply).is_some() {
            "abstains"
        } else {
            "answers"
        };
        *agreed.entry((label.to_string(), read)).or_default() += 1;
        if read != label && !SMOLLM2_MISREADS.iter().any(|&(v, _)| v == id) {
            wrong.push(format!("{id}: readers {label}, detector {read}"));
        }
    }
    eprintln!("SmolLM2 fixture (readers, detector): {agreed:?}; unclear {unclear}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let misread: usize = agreed
        .iter()
        .filter(|((l, r), _)| l != r)
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        misread,
        SMOLLM2_MISREADS.len(),
        "a listed misread is now read right"
    );
    assert!(agreed.values().sum::<usize>() >= 40, "{agreed:?}");
}

#[test]
fn the_detector_reads_real_replies_as_two_readers_do() {
    let Some(data) = shared_data() else {
        return;
    };
    let fixture = include_str!("../fixtures/abstention.tsv");
    let mut replies: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut agreed, mut unclear) = (BTreeMap::<(&str, &str), usize>::new(), 0);
    let mut wrong = Vec::new();
    for line in fixture.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, row, label, _note] = cols[..] else {
            panic!("abstention.tsv: a row has {} columns: {line}", cols.len());
        };
        let row: usize = row.parse().unwrap();
        if label == "unclear" {
            unclear += 1;
            continue;
        }
        let column = replies.entry(file.to_string()).or_insert_with(|| {
            let path = data.join("arithmattack").join(file);
            read_csv(&path)
                .unwrap_or_else(|e| panic!("{e}"))
                .iter()
                .map(|r| r.get("Answer - LLM").cloned().unwrap_or_default())
                .collect()
        });
        let read = if abstains(&column[row]).is_some() {
            "abstains"
        } else {
            "answers"
        };
        *agreed.entry((label, read)).or_default() += 1;
        if read != label && !MISREADS.iter().any(|&(f, r, _)| f == file && r == row) {
            wrong.push(format!(
                "{file} row {row}: readers {label}, detector {read}"
            ));
        }
    }
    eprintln!("abstention fixture (readers, detector): {agreed:?}; unclear {unclear}");
    let misread = agreed
        .iter()
        .filter(|((l, r), _)| l != r)
        .map(|(_, n)| n)
        .sum::<usize>();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        misread,
        MISREADS.len(),
        "a listed misread is now read right"
    );
    assert!(agreed.values().sum::<usize>() >= 40, "{agreed:?}");
}
