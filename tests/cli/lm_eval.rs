//! The lm-evaluation-harness tasks `publish` writes, run by the real harness (`lm_eval` from
//! PyPI, the version `.ci/run` pins) against the SmolLM2 server `.ci/smollm2.sh` starts: every
//! task of the default run's folder evaluates, its sample log ingests back under the variants it
//! asked about, and the harness's accuracy is advmath's, reply by reply and per task (the
//! ArithmAttack accuracy table for the clean and noisy questions, the graded rows for M1-M3).
//! SmolLM2-135M rarely answers right, so a second round asks a server that is right on every
//! other question: both grades occur.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::server::{spawn_with, Reply};
use crate::util::{advmath, python_has, skip, sql_csv, stdout_of};

/// The tasks the default run publishes: one per attack its `variants` table holds (original,
/// m1–m3, punct10/30/50, names, noop, m3+names, m3+noop, missing, decimals, fractions).
fn published_tasks(tables: &Path) -> usize {
    let n = sql_csv(tables, "SELECT COUNT(DISTINCT attack) AS n FROM variants");
    let n: usize = n.lines().nth(1).unwrap().parse().unwrap();
    assert!(n >= 14, "the default run's attacks: {n}");
    n
}

#[test]
fn the_published_tasks_run_in_the_harness_and_score_as_advmath_scores() {
    let Ok(url) = std::env::var("ADVMATH_SMOLLM2_URL") else {
        return skip("ADVMATH_SMOLLM2_URL is not set (.ci/run starts the SmolLM2 server)");
    };
    if !python_has("lm_eval") {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_advmath");
    let dir = crate::util::default_run();
    let (tables, hub) = (dir.path().join("tables"), dir.path().join("hub"));
    let tasks = hub.join("lm_eval");
    assert!(tasks.join("advmath.yaml").is_file() && tasks.join("utils.py").is_file());

    // The task's grading is advmath's: a reply stating the gold is right, another is wrong.
    let check = Command::new("python3")
        .current_dir(&tasks)
        .env("ADVMATH_BIN", bin)
        .args([
            "-c",
            "import utils\n\
             doc = {'question': 'q', 'answer': '1200'}\n\
             print(utils.process_results(doc, ['Step 1: 3 * 400 = 1200.\\nSo the answer is $1,200.'])['acc'],\n\
                   utils.process_results(doc, ['So the answer is 1201.'])['acc'],\n\
                   utils.doc_to_text({'question': 'Q?'}).splitlines()[1])",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&check.stdout).trim(),
        "1.0 0.0 Question: Q?",
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // SmolLM2, the real model; then a server that states the gold answer of every other question
    // and a wrong one of the rest, so that both grades occur.
    // Replies cut at 96 tokens (the published tasks allow 512): on the CI's two cores a reply's
    // time grows with its length, and the test is of the grading, not of the model.
    let smollm2 = harness_round(
        &tables,
        &tasks,
        dir.path(),
        &url,
        "smollm2-harness",
        Some(96),
    );
    eprintln!("SmolLM2 through the harness, accuracy per task (one question each): {smollm2:?}");
    agrees_with_advmath(&tables, dir.path(), "smollm2-harness", &smollm2);

    let variants = stdout_of(
        &advmath()
            .args(["sql", "--format", "jsonl", "--tables"])
            .arg(&tables)
            .arg("SELECT question, answer FROM variants")
            .assert()
            .success(),
    );
    // A `missing` question has no gold (null).
    let golds: HashMap<String, Option<String>> = variants
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["question"].as_str().unwrap().to_string(),
                v["answer"].as_str().map(str::to_string),
            )
        })
        .collect();
    let server = spawn_with(
        move |n, body| {
            let body: Value = serde_json::from_str(body).unwrap_or_default();
            let prompt = body["messages"][0]["content"].as_str().unwrap_or("");
            let question = prompt
                .split_once("Question: ")
                .and_then(|(_, q)| q.split_once("\nAnswer:"))
                .map_or("", |(q, _)| q);
            let gold = golds.get(question).cloned().unwrap_or_else(|| {
                eprintln!("no gold for the question of {body}");
                Some(String::new())
            });
            let text = match (gold, n % 2 == 0) {
                (Some(gold), true) => format!("Step 1: think. So the answer is {gold}."),
                (Some(gold), false) => format!("Step 1: guess. So the answer is {gold}1."),
                (None, true) => {
                    "Step 1: think. The count is not given, so it cannot be determined.".to_string()
                }
                (None, false) => "Step 1: guess. So the answer is 5.".to_string(),
            };
            Reply::Text(Box::leak(text.into_boxed_str()))
        },
        Duration::ZERO,
    );
    let fixed = harness_round(
        &tables,
        &tasks,
        dir.path(),
        &format!("http://127.0.0.1:{}", server.port),
        "alternating-harness",
        None,
    );
    eprintln!("a server right on every other question, accuracy per task: {fixed:?}");
    assert!(
        fixed.values().any(|a| *a > 0.0) && fixed.values().any(|a| *a < 1.0),
        "both grades occur: {fixed:?}"
    );
    agrees_with_advmath(&tables, dir.path(), "alternating-harness", &fixed);
}

/// Run the harness on every published task (one question each, replies cut at `max_tokens`
/// when given) against `url` and ingest its
/// sample logs as `model`: each reply lands once, under the variant it answered, graded as the
/// harness graded it. The harness's accuracy per attack.
fn harness_round(
    tables: &Path,
    tasks: &Path,
    dir: &Path,
    url: &str,
    model: &str,
    max_tokens: Option<u32>,
) -> BTreeMap<String, f64> {
    let out = dir.join(model);
    let mut harness = Command::new("lm_eval");
    if let Some(n) = max_tokens {
        harness.arg("--gen_kwargs").arg(format!("max_gen_toks={n}"));
    }
    let harness = harness
        .args(["--model", "local-chat-completions", "--apply_chat_template", "--model_args"])
        .arg(format!(
            "base_url={url}/v1/chat/completions,model=smollm2,tokenizer_backend=None,tokenized_requests=False,timeout=600"
        ))
        .arg("--include_path")
        .arg(tasks)
        .args(["--tasks", "advmath", "--limit", "1", "--log_samples", "--output_path"])
        .arg(&out)
        .env("ADVMATH_BIN", env!("CARGO_BIN_EXE_advmath"))
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HOME", dir.join("hf"))
        .output()
        .unwrap();
    assert!(
        harness.status.success(),
        "lm_eval failed:\n{}",
        String::from_utf8_lossy(&harness.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(out.join("smollm2"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let name_starts =
        |p: &Path, prefix: &str| p.file_name().unwrap().to_string_lossy().starts_with(prefix);
    let results_file = files.iter().find(|p| name_starts(p, "results_")).unwrap();
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(results_file).unwrap()).unwrap();
    let mut samples = 0;
    for log in files.iter().filter(|p| name_starts(p, "samples_advmath_")) {
        advmath()
            .args([
                "ingest-responses",
                "--format",
                "lm-eval",
                "--model",
                model,
                "--tables",
            ])
            .arg(tables)
            .arg(log)
            .assert()
            .success();
        for line in std::fs::read_to_string(log).unwrap().lines() {
            let s: Value = serde_json::from_str(line).unwrap();
            let variant = s["doc"]["variant_id"].as_str().unwrap();
            let stored = stdout_of(
                &advmath()
                    .args(["sql", "--format", "jsonl", "--tables"])
                    .arg(tables)
                    .arg(format!(
                        "SELECT response, correct FROM responses WHERE model = '{model}' AND variant_id = '{variant}'"
                    ))
                    .assert()
                    .success(),
            );
            let rows: Vec<Value> = stored
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(rows.len(), 1, "{variant}: {stored}");
            assert_eq!(rows[0]["response"], s["resps"][0][0], "{variant}");
            assert_eq!(
                rows[0]["correct"].as_bool().unwrap(),
                s["acc"].as_f64().unwrap() == 1.0,
                "{variant}"
            );
            samples += 1;
        }
    }
    let tasks = published_tasks(tables);
    assert_eq!(samples, tasks, "one question of each task");
    let acc: BTreeMap<String, f64> = results["results"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(task, r)| {
            Some((
                task.strip_prefix("advmath_default_")?.to_string(),
                r["acc,none"].as_f64()?,
            ))
        })
        .collect();
    assert_eq!(acc.len(), tasks, "{results}");
    acc
}

/// advmath's figures over the ingested rows of `model` are the harness's: the mean of the graded
/// rows per attack, and for the clean and noisy questions the ArithmAttack accuracy table that
/// `metrics` writes.
fn agrees_with_advmath(
    tables: &Path,
    dir: &Path,
    model: &str,
    harness_acc: &BTreeMap<String, f64>,
) {
    let per_attack = sql_csv(
        tables,
        &format!(
            "SELECT attack, AVG(CAST(ok AS DOUBLE)) AS accuracy FROM graded WHERE model = '{model}' GROUP BY attack ORDER BY attack"
        ),
    );
    assert_eq!(
        per_attack.lines().count(),
        1 + published_tasks(tables),
        "{per_attack}"
    );
    for line in per_attack.lines().skip(1) {
        let (attack, acc) = line.split_once(',').unwrap();
        // A task is named by its attack with `+` as `_` (`m3+names`: `advmath_default_m3_names`).
        let task = attack.replace('+', "_");
        assert_eq!(acc.parse::<f64>().unwrap(), harness_acc[&task], "{attack}");
    }
    let metrics = dir.join(format!("metrics-{model}"));
    advmath()
        .args(["metrics", "--replicates", "10", "--tables"])
        .arg(tables)
        .arg("--out")
        .arg(&metrics)
        .assert()
        .success();
    let table = std::fs::read_to_string(metrics.join("arithmattack_accuracy.csv")).unwrap();
    let header: Vec<&str> = table.lines().next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let mut levels = 0;
    for line in table.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        if cells[col("model")] != model {
            continue;
        }
        let attack = match cells[col("noise_level")] {
            "0" => "original".to_string(),
            level => format!("punct{level}"),
        };
        assert_eq!(
            cells[col("accuracy")].parse::<f64>().unwrap(),
            harness_acc[&attack],
            "{attack}"
        );
        levels += 1;
    }
    assert_eq!(levels, 4, "{table}");
}
