//! The lm-evaluation-harness tasks `publish` writes, run by the real harness (`lm_eval` from
//! PyPI, the version `.ci/run` pins) against the SmolLM2 server `.ci/smollm2.sh` starts: every
//! task of the default run's folder evaluates, its sample log ingests back under the variants it
//! asked about, and the harness's accuracy is advmath's, reply by reply and per task (the
//! ArithmAttack accuracy table for the clean and noisy questions, the graded rows for M1-M3).

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::util::{advmath, python_has, skip, sql_csv, stdout_of};

const MODEL: &str = "smollm2-harness";

#[test]
fn the_published_tasks_run_in_the_harness_and_score_as_advmath_scores() {
    let Ok(url) = std::env::var("ADVMATH_SMOLLM2_URL") else {
        return skip("ADVMATH_SMOLLM2_URL is not set (.ci/run starts the SmolLM2 server)");
    };
    if !python_has("lm_eval") {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_advmath");
    let dir = tempfile::tempdir().unwrap();
    advmath()
        .arg("run")
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
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

    let out = dir.path().join("harness");
    let harness = Command::new("lm_eval")
        .args(["--model", "local-chat-completions", "--apply_chat_template", "--model_args"])
        .arg(format!(
            "base_url={url}/v1/chat/completions,model=smollm2,tokenizer_backend=None,tokenized_requests=False,timeout=600"
        ))
        .arg("--include_path")
        .arg(&tasks)
        .args(["--tasks", "advmath", "--limit", "3", "--log_samples", "--output_path"])
        .arg(&out)
        .env("ADVMATH_BIN", bin)
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HOME", dir.path().join("hf"))
        .output()
        .unwrap();
    assert!(
        harness.status.success(),
        "lm_eval failed:\n{}",
        String::from_utf8_lossy(&harness.stderr)
    );
    let results_dir = out.join("smollm2");
    let files: Vec<_> = std::fs::read_dir(&results_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let results_file = files
        .iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("results_")
        })
        .unwrap();
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(results_file).unwrap()).unwrap();

    // Every sample log ingests back, each reply under the variant it answered.
    let mut harness_acc: BTreeMap<String, f64> = BTreeMap::new();
    let mut samples = 0;
    for log in files.iter().filter(|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("samples_advmath_")
    }) {
        advmath()
            .args([
                "ingest-responses",
                "--format",
                "lm-eval",
                "--model",
                MODEL,
                "--tables",
            ])
            .arg(&tables)
            .arg(log)
            .assert()
            .success();
        for line in std::fs::read_to_string(log).unwrap().lines() {
            let s: Value = serde_json::from_str(line).unwrap();
            let variant = s["doc"]["variant_id"].as_str().unwrap();
            let stored = stdout_of(
                &advmath()
                    .args(["sql", "--format", "json", "--tables"])
                    .arg(&tables)
                    .arg(format!(
                        "SELECT response, correct FROM responses WHERE model = '{MODEL}' AND variant_id = '{variant}'"
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
    for (task, r) in results["results"].as_object().unwrap() {
        if let Some(attack) = task.strip_prefix("advmath_default_") {
            harness_acc.insert(attack.to_string(), r["acc,none"].as_f64().unwrap());
        }
    }
    eprintln!("harness accuracy per task (3 questions each): {harness_acc:?}");
    assert_eq!(samples, 7 * 3, "three questions of each of the seven tasks");
    assert_eq!(harness_acc.len(), 7, "{results}");

    // Per task: the harness's accuracy is advmath's mean over the same graded rows...
    let per_attack = sql_csv(
        &tables,
        &format!(
            "SELECT attack, AVG(CAST(ok AS DOUBLE)) AS accuracy FROM graded WHERE model = '{MODEL}' GROUP BY attack ORDER BY attack"
        ),
    );
    for line in per_attack.lines().skip(1) {
        let (attack, acc) = line.split_once(',').unwrap();
        assert_eq!(acc.parse::<f64>().unwrap(), harness_acc[attack], "{attack}");
    }
    // ...and, for the clean and noisy questions, the ArithmAttack accuracy table `metrics` writes.
    let metrics = dir.path().join("metrics");
    advmath()
        .args(["metrics", "--replicates", "10", "--tables"])
        .arg(&tables)
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
        if cells[col("model")] != MODEL {
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
