//! The abstention detector on real replies: `tests/fixtures/abstention.tsv` names replies of the
//! ArithmAttack study (in `../shared/data`) and what two blind readers read each one's last word
//! to be; the detector must read every one the readers agree on as they do, except the misreads
//! listed here with their reason, so that a change in either direction fails.

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
