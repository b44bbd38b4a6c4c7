//! Answer extraction on real LLM responses (`../shared/data`): the ArithmAttack paper's accuracy
//! figures, agreement with the authors' own extraction, and the grading of GSM8K's example
//! model solutions. Each test is skipped, with a message, when the data is absent.

use std::path::Path;

use advmath::extract::{agree, extract, extract_last_number, is_correct, Extracted};
use advmath::num::Num;
use advmath::respond::outside::{arithmattack_authors_value, read_csv};

use crate::util::shared_data;

const LEVELS: [&str; 4] = ["clean", "noise10", "noise30", "noise50"];

/// Cells whose shipped file does not reproduce the published figure (data README): either
/// figure is an acceptable target.
const FILE_DIFFERS: &[(&str, &str, &str)] = &[
    ("gsm8k", "Llama-3.1-8B-Instruct", "noise10"),
    ("multiarith", "Mistral-7B-Instruct-v0.2", "clean"),
];

const TOLERANCE: f64 = 2.0;

/// One scored response.
struct Row {
    gold: Num,
    authors: Option<Num>,
    advmath: Extracted,
    /// The study's own scheme (last number of the reply), as advmath's `last-number` extraction.
    last: Extracted,
}

fn read_cell(data: &Path, dataset: &str, model: &str, level: &str) -> Vec<Row> {
    let path = data
        .join("arithmattack")
        .join(dataset)
        .join(model)
        .join(format!("{level}.csv"));
    let csv = read_csv(&path).unwrap_or_else(|e| panic!("{e}"));
    let column = |name: &str| -> Vec<String> {
        csv.iter()
            .map(|row| row.get(name).cloned().unwrap_or_default())
            .collect()
    };
    let responses = column("Answer - LLM");
    let golds = column("Answer - Ground Truth Converted");
    let authors = column("Answer - LLM Converted");
    let expected = if dataset == "gsm8k" { 1319 } else { 180 };
    assert_eq!(responses.len(), expected, "{}", path.display());
    responses
        .iter()
        .zip(&golds)
        .zip(&authors)
        .map(|((r, g), a)| Row {
            gold: Num::parse_decimal(g).unwrap_or_else(|| panic!("{}: gold {g:?}", path.display())),
            authors: arithmattack_authors_value(a),
            advmath: extract(r),
            last: extract_last_number(r),
        })
        .collect()
}

fn pct(k: usize, n: usize) -> f64 {
    100.0 * k as f64 / n as f64
}

#[test]
fn arithmattack_accuracy_reproduces_the_published_figures() {
    let Some(data) = shared_data() else {
        return;
    };
    let mut failures = Vec::new();
    eprintln!(
        "dataset     model                      level    published  file  advmath(last-number)"
    );
    for &(dataset, model, published, _) in advmath::metrics::arithmattack_published() {
        for (level, published) in LEVELS.iter().zip(published) {
            let rows = read_cell(&data, dataset, model, level);
            let n = rows.len();
            // The published figures were scored with the last number of each reply: reproduce them
            // with advmath's `last-number` extraction. (advmath's standard rules read the stated
            // answer and score higher where a reply restates numbers after its answer; printed.)
            let ours = rows
                .iter()
                .filter(|r| is_correct(r.last.value, r.gold))
                .count();
            let standard = rows
                .iter()
                .filter(|r| is_correct(r.advmath.value, r.gold))
                .count();
            let theirs = rows
                .iter()
                .filter(|r| is_correct(r.authors, r.gold))
                .count();
            let (acc, file) = (pct(ours, n), pct(theirs, n));
            let cell = (dataset, model, *level);
            let verdict = if (acc - published).abs() <= TOLERANCE {
                "ok"
            } else if FILE_DIFFERS.contains(&cell) && (acc - file).abs() <= TOLERANCE {
                "ok (file-derived figure)"
            } else {
                failures.push(format!(
                    "{dataset}/{model}/{level}: advmath {acc:.2} vs published {published:.2} \
                     (file {file:.2})"
                ));
                "FAIL"
            };
            eprintln!(
                "{dataset:11} {model:26} {level:8} {published:9.2} {file:6.2} {acc:7.2}  {verdict} (standard rules: {:.2})",
                pct(standard, n)
            );
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn extraction_agrees_with_the_authors_converted_answers() {
    let Some(data) = shared_data() else {
        return;
    };
    let (mut agreeing, mut total) = (0, 0);
    for &(dataset, model, _, _) in advmath::metrics::arithmattack_published() {
        for level in LEVELS {
            let rows = read_cell(&data, dataset, model, level);
            let same = rows
                .iter()
                .filter(|r| agree(r.advmath.value, r.authors))
                .count();
            eprintln!(
                "{dataset}/{model}/{level}: agreement {:.2}%",
                pct(same, rows.len())
            );
            agreeing += same;
            total += rows.len();
        }
    }
    let rate = pct(agreeing, total);
    eprintln!("agreement with the authors' extraction: {agreeing}/{total} = {rate:.2}%");
    assert!(rate >= 95.0, "agreement {rate:.2}% < 95%");
}

#[test]
fn gsm8k_example_solutions_are_graded_like_the_release() {
    let Some(data) = shared_data() else {
        return;
    };
    let read = |name: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(data.join("gsm8k").join(name))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let test = read("test.jsonl");
    let solutions = read("example_model_solutions.jsonl");
    assert_eq!(test.len(), solutions.len());
    // The solutions file follows test.jsonl's order; check rather than assume.
    let golds: Vec<Num> = test
        .iter()
        .zip(&solutions)
        .map(|(t, s)| {
            assert_eq!(t["question"], s["question"], "rows out of order");
            let answer = t["answer"].as_str().unwrap();
            let gold = answer.rsplit("####").next().unwrap();
            Num::parse_decimal(gold.trim()).unwrap()
        })
        .collect();
    for setup in [
        "6b_finetuning",
        "6b_verification",
        "175b_finetuning",
        "175b_verification",
    ] {
        let agree = solutions
            .iter()
            .zip(&golds)
            .filter(|(s, gold)| {
                let solution = s[setup]["solution"].as_str().unwrap();
                let graded = s[setup]["is_correct"].as_bool().unwrap();
                is_correct(extract(solution).value, **gold) == graded
            })
            .count();
        let rate = pct(agree, solutions.len());
        eprintln!(
            "{setup}: advmath agrees with is_correct on {agree}/{} = {rate:.2}%",
            solutions.len()
        );
        assert!(rate >= 99.0, "{setup}: agreement {rate:.2}% < 99%");
    }
}

/// Qwen's chat template keeps the user turn verbatim, so its released generations show exactly
/// what the study's scripts sent: the `arithmattack` template must render it byte for byte.
#[test]
fn the_arithmattack_template_is_the_user_turn_the_study_sent() {
    let Some(data) = shared_data() else {
        return;
    };
    let template = advmath::llm::prompt::Template::resolve("arithmattack").unwrap();
    let (mut same, mut total) = (0, 0);
    for dataset in ["gsm8k", "multiarith"] {
        for level in LEVELS {
            let path = data
                .join("arithmattack")
                .join(dataset)
                .join("Qwen2.5-1.5B-Instruct")
                .join(format!("{level}.csv"));
            for row in read_csv(&path).unwrap_or_else(|e| panic!("{e}")) {
                let raw = &row["Answer - LLM"];
                let sent = raw
                    .split_once("<|im_start|>user\n")
                    .and_then(|(_, rest)| rest.split_once("<|im_end|>"))
                    .map(|(user, _)| user)
                    .unwrap_or_else(|| panic!("{}: no user turn in {raw:?}", path.display()));
                total += 1;
                if sent == template.render(&row["Question"]) {
                    same += 1;
                } else if total - same <= 3 {
                    eprintln!("differs: {sent:?}");
                }
            }
        }
    }
    eprintln!("arithmattack template: {same}/{total} user turns identical");
    assert!(total > 3000, "only {total} rows read");
    assert_eq!(same, total);
}
