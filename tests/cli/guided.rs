//! The guided attack end to end, on the Xie et al. release: a model whose weakness is planted
//! (it fails exactly when the answer has more than 3 digits) is learnt from its M3 answers, and
//! the guided variants of the held-out problems are the ones it fails; they pass the checks every
//! numeric variant passes, and do not depend on the thread count.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use advmath::attack::coherence::reader_rules;
use advmath::attack::sample::{attack, Attacker, Method};
use advmath::program::tree::num_text;
use advmath::question::find_slots;
use advmath::question::shown::text_constraints;
use advmath::seed::stream_key;
use advmath::store::problems::read_problems;
use advmath::store::read_batches;
use arrow::array::AsArray;

use crate::util::shared_data as data;
use crate::util::{advmath, copy_dir, ingest_xie_release, verify_variants};

const ATTEMPTS: &str = "2000";
const BUDGET: usize = 5;

/// More than 3 digits before the point: what the planted model cannot do.
fn big(answer: &str) -> bool {
    num_text::from_text(answer).is_some_and(|v| v.to_f64().abs() >= 1000.0)
}

/// Per problem, the answers of an attack's variants in variant order.
fn answers_by_problem(tables: &Path, attack: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<(i32, String)>> = BTreeMap::new();
    for dataset in ["xie2024-gsm8k", "xie2024-multiarith"] {
        let part = tables.join(format!(
            "variants/dataset={dataset}/attack={attack}/part-0.parquet"
        ));
        if !part.exists() {
            continue;
        }
        for b in read_batches(&part).unwrap() {
            let text = |c: &str| advmath::store::text_column(&b, c, &part).unwrap();
            let (ids, answers) = (text("problem_id"), text("answer_exact"));
            let index = b
                .column_by_name("variant_index")
                .unwrap()
                .as_primitive::<arrow::datatypes::Int32Type>()
                .clone();
            for i in 0..b.num_rows() {
                out.entry(ids.value(i).to_string())
                    .or_default()
                    .push((index.value(i), answers.value(i).to_string()));
            }
        }
    }
    out.into_iter()
        .map(|(id, mut v)| {
            v.sort();
            (id, v.into_iter().map(|(_, a)| a).collect())
        })
        .collect()
}

/// The planted model's graded responses to every original and M3 variant: right exactly when
/// the gold answer has at most 3 digits.
fn plant_the_weakness(tables: &Path) {
    use advmath::store::responses::{model_dir, outside_part, rows_to_batch, ResponseRow};
    let mut rows = Vec::new();
    for dataset in ["xie2024-gsm8k", "xie2024-multiarith"] {
        for attack in ["original", "m3"] {
            let part = tables.join(format!(
                "variants/dataset={dataset}/attack={attack}/part-0.parquet"
            ));
            for b in read_batches(&part).unwrap() {
                let text = |c: &str| advmath::store::text_column(&b, c, &part).unwrap();
                let (ids, problems, questions, answers) = (
                    text("variant_id"),
                    text("problem_id"),
                    text("question"),
                    text("answer_exact"),
                );
                for i in 0..b.num_rows() {
                    let right = !big(answers.value(i));
                    let reply = if right { answers.value(i) } else { "-1" };
                    rows.push(ResponseRow {
                        response_key: format!("planted-{}", ids.value(i)),
                        model: "m".into(),
                        template: "planted".into(),
                        run: "default".into(),
                        variant_id: Some(ids.value(i).into()),
                        problem_id: Some(problems.value(i).into()),
                        dataset: Some(dataset.into()),
                        attack: Some(attack.into()),
                        noise_level: Some(0),
                        question: questions.value(i).into(),
                        response: Some(format!("The answer is {reply}.")),
                        extracted: Some(reply.into()),
                        extraction_rule: "planted".into(),
                        gold: Some(answers.value(i).into()),
                        abstained: Some(false),
                        correct: Some(right),
                        correct_exact: Some(right),
                        latency_ms: None,
                        prompt_tokens: None,
                        completion_tokens: None,
                        finish_reason: None,
                        source: "planted".into(),
                        simulated: true,
                        error: None,
                    });
                }
            }
        }
    }
    let path = outside_part(&model_dir(tables, "m"), "planted");
    advmath::store::write_batch(&path, &rows_to_batch(&rows).unwrap()).unwrap();
}

fn guided(tables: &Path, threads: &str) {
    advmath()
        .args(["generate", "--attack", "guided", "--guided-by", "m"])
        .args([
            "--guided-features",
            "advmath",
            "--budget",
            &BUDGET.to_string(),
        ])
        .args(["--attempts", ATTEMPTS, "--threads", threads, "--tables"])
        .arg(tables)
        .assert()
        .success();
}

#[test]
fn a_planted_weakness_is_what_the_guided_attack_exploits() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest_xie_release(&data, &tables);
    advmath()
        .args(["generate", "--attack", "m3", "--attempts", ATTEMPTS])
        .args(["--variants", "20", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    plant_the_weakness(&tables);
    advmath()
        .args(["features", "--set", "advmath", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let two = dir.path().join("two");
    copy_dir(&tables, &two);
    guided(&tables, "1");
    guided(&two, "2");

    // The same seed, any thread count: the same bytes.
    for dataset in ["xie2024-gsm8k", "xie2024-multiarith"] {
        let part = format!("variants/dataset={dataset}/attack=guided/part-0.parquet");
        assert_eq!(
            fs::read(tables.join(&part)).unwrap(),
            fs::read(two.join(&part)).unwrap(),
            "{part}"
        );
    }

    // The run record names the guide and the held-out problems; only those are attacked.
    let record: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(advmath::store::runs::generate_record(
            &tables,
            "xie2024-gsm8k",
            "guided",
        ))
        .unwrap(),
    )
    .unwrap();
    let guide = &record["guided"];
    assert_eq!(guide["model"], "m");
    assert_eq!(guide["budget"], BUDGET);
    let held_out: BTreeSet<String> = guide["held_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(guide["training_problems"].as_u64().unwrap() > 30, "{guide}");
    let hub = dir.path().join("hub");
    crate::util::publish(&tables, &hub);
    let card = fs::read_to_string(hub.join("README.md")).unwrap();
    assert!(
        card.contains("- **guided** (xie2024-gsm8k; advmath's extension")
            && card.contains("logistic fit of `m`'s answers"),
        "{card}"
    );
    let guided_answers = answers_by_problem(&tables, "guided");
    let random_answers = answers_by_problem(&tables, "m3");
    let gsm8k: Vec<&String> = guided_answers
        .keys()
        .filter(|id| id.starts_with("xie2024-gsm8k/"))
        .collect();
    assert!(gsm8k.len() > 30, "{} guided GSM8K problems", gsm8k.len());
    assert!(gsm8k.iter().all(|id| held_out.contains(*id)));

    // Where the problem allows it (its guided candidates, drawn again here from the same
    // stream, include answers of more than 3 digits), every guided variant has such an answer.
    let problems: BTreeMap<String, _> = read_problems(&tables)
        .unwrap()
        .into_iter()
        .map(|p| (p.problem_id.clone(), p))
        .collect();
    let (mut allowed, mut found, mut random_big, mut random_n) = (0, 0, 0, 0);
    for (id, answers) in &guided_answers {
        assert_eq!(answers.len(), BUDGET, "{id}");
        let p = &problems[id];
        let tree = p.tree.as_ref().unwrap();
        let slots = find_slots(&p.question);
        // The reader's rules, as `generate` holds every candidate to them by default.
        let mut nodes = vec![advmath::num::Num::ZERO; tree.nodes.len()];
        tree.eval_into(&p.slot_nums(), &mut nodes).unwrap();
        let rules = reader_rules(&p.question, &slots, tree, &nodes);
        let attacker = Attacker::new(tree, p.slot_nums(), Method::M3, 6)
            .unwrap()
            .with_text_constraints(&text_constraints(&p.question, &slots))
            .with_reader_rules(&rules);
        let stream = stream_key(42, id, "guided");
        let (all, _) = attack(&attacker, stream, ATTEMPTS.parse().unwrap(), 2000);
        let possible = all
            .iter()
            .filter(|d| big(&d.answer.exact_text()))
            .count()
            .min(BUDGET);
        let got = answers.iter().filter(|a| big(a)).count();
        assert_eq!(got, possible, "{id}: guided {answers:?}");
        allowed += possible;
        found += got;
        if let Some(r) = random_answers.get(id) {
            random_big += r.iter().take(BUDGET).filter(|a| big(a)).count();
            random_n += r.len().min(BUDGET);
        }
    }
    assert!(
        allowed > 50,
        "{allowed} guided slots could have a big answer"
    );
    eprintln!(
        "planted weakness: guided K={BUDGET}: {found} of {} variants have more than 3 digits \
         ({allowed} possible); random M3, first {BUDGET}: {random_big} of {random_n}",
        guided_answers.len() * BUDGET
    );

    // Every check a numeric variant passes: the text holds the numbers, the gold is the tree
    // on them, every node keeps its constraints, and nothing the text fixes has changed.
    let m3_checked = verify_variants(&tables, "xie2024-gsm8k");
    assert!(m3_checked > guided_answers.len() * BUDGET / 2);
    let breaks = advmath::generate::audit::text_property_breaks(&tables).unwrap();
    for ((dataset, attack), b) in &breaks {
        if attack == "guided" {
            assert!(b.variants > 0, "{dataset}");
            assert!(b.problems.is_empty(), "{dataset}: {b:?}");
        }
    }
}

/// What a newcomer gets wrong first: no guide, a guided attack beside another, a guide with no
/// features or no answers. Each is refused with what to run, before anything is written.
#[test]
fn a_guided_run_says_what_it_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    crate::util::ingest(&tables, &[]).success();
    let generate = |args: &[&str]| {
        advmath()
            .arg("generate")
            .args(args)
            .arg("--tables")
            .arg(&tables)
            .assert()
    };
    generate(&["--attack", "guided"])
        .code(2)
        .stderr(predicates::str::contains("--guided-by names the model"));
    generate(&["--attack", "guided,m3", "--guided-by", "sim-carry"])
        .code(2)
        .stderr(predicates::str::contains("guided runs alone"));
    generate(&["--attack", "m3", "--attempts", "500", "--variants", "5"]).success();
    advmath()
        .args(["respond", "--model", "sim-carry", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    generate(&["--attack", "guided", "--guided-by", "sim-carry"])
        .code(1)
        .stderr(predicates::str::contains("no features_xie2024 table"));
    advmath()
        .args(["features", "--set", "xie2024", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    generate(&["--attack", "guided", "--guided-by", "sim-cary"])
        .code(1)
        .stderr(predicates::str::contains(
            "no graded M3 response of sim-cary",
        ))
        .stderr(predicates::str::contains(
            "models with responses: sim-carry",
        ));
    assert!(!tables
        .join("variants/dataset=default/attack=guided")
        .exists());
}

/// A real model as the guide (SmolLM2-135M on the server `.ci/run` starts): a seeded sample of 8
/// default problems, 2 M3 variants each (24 requests). The model is tiny and nearly always wrong
/// at arithmetic, so its failure model usually cannot be fitted; then the guided run is refused with the reason and writes
/// nothing. When the fit does vary, the guided variants are written for held-out problems and
/// pass every numeric variant's checks. Either way the test says which it saw.
#[test]
fn smollm2_as_the_guide() {
    let Ok(url) = std::env::var("ADVMATH_SMOLLM2_URL") else {
        crate::util::skip("ADVMATH_SMOLLM2_URL is not set (.ci/run starts the SmolLM2 server)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    crate::util::ingest(&tables, &[]).success();
    let run = |args: &[&str]| advmath().args(args).arg("--tables").arg(&tables).assert();
    run(&[
        "generate",
        "--attack",
        "m3",
        "--attempts",
        "3000",
        "--variants",
        "2",
        "--sample-problems",
        "8",
    ])
    .success();
    run(&[
        "respond",
        "--model",
        "smollm2",
        "--endpoint",
        &url,
        "--max-tokens",
        "64",
        "--concurrency",
        "1",
        "--timeout",
        "300",
    ])
    .success();
    run(&["features", "--set", "xie2024"]).success();
    let guided = run(&[
        "generate",
        "--attack",
        "guided",
        "--guided-by",
        "smollm2",
        "--budget",
        "2",
    ]);
    let stderr = crate::util::stderr_of(&guided);
    let correct = crate::util::sql_csv(
        &tables,
        "SELECT COUNT(*) AS n, SUM(CASE WHEN correct THEN 1 ELSE 0 END) AS ok FROM responses",
    );
    if guided.get_output().status.success() {
        let checked = verify_variants(&tables, "default");
        assert!(tables
            .join("variants/dataset=default/attack=guided")
            .is_dir());
        eprintln!("smollm2 as the guide: fitted ({correct:?}); {checked} numeric variants checked");
    } else {
        assert_eq!(guided.get_output().status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("smollm2's failure model cannot be fitted"),
            "{stderr}"
        );
        assert!(!tables
            .join("variants/dataset=default/attack=guided")
            .exists());
        eprintln!("smollm2 as the guide: refused ({correct:?}): {stderr}");
    }
}
