//! `advmath generate`: reproducible whatever the thread count, one problem sample for every
//! attack, invalid problems skipped; and a property test of the attacker's kept variants.

use std::fs;
use std::path::Path;

use advmath::generate::{attack, Attacker, Method};
use advmath::ingest::default_dataset::default_source;
use advmath::ingest::{build_records, ProgramSource};
use advmath::store::read_batches;
use predicates::prelude::*;
use proptest::prelude::*;

use crate::util::{advmath, ingest, small_tables, walk, SMALL_GENERATION};

#[test]
fn generation_is_byte_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[]).success();
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        advmath()
            .arg("generate")
            .args(SMALL_GENERATION)
            .args(["--threads", threads, "--tables"])
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
    ingest(&tables, &[]).success();
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
            prop_assert_eq!(tree.eval_value(&d.slots).unwrap(), d.answer.clone());
            prop_assert_eq!(m1.check_slots(&d.slots), Ok(d.answer));
            prop_assert!(d.slots != p.slot_nums());
        }
    }
}

/// Two `generate` runs on one dataset at once: the second exits 2 naming the first, which
/// finishes normally.
#[test]
fn a_second_generate_on_the_same_dataset_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[]).success();
    let bin = assert_cmd::cargo::cargo_bin("advmath");
    let generate = |attempts: &str| {
        let mut c = std::process::Command::new(&bin);
        c.args([
            "generate",
            "--attempts",
            attempts,
            "--threads",
            "1",
            "--tables",
        ])
        .arg(&tables)
        .stdout(std::process::Stdio::null());
        c
    };
    let mut first = generate("200000")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The lock file holds the first run's pid once it has the lock.
    let lock = tables.join(".locks/generate-default.lock");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&lock).unwrap_or_default().trim() != first.id().to_string() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the first run never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let second = generate("2000").output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains(&format!("(pid {})", first.id())),
        "{stderr}"
    );
    assert!(first.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        "",
        "a finished run leaves no pid"
    );
}

/// What a killed run left (a staging folder of a dead pid, a half-written part) is removed by the
/// next run of the same stage; what another dataset's or model's run owns is left alone.
#[test]
fn leftovers_of_dead_runs_are_removed_by_the_next_run() {
    let (_dir, tables) = small_tables();
    let dead_generate = tables.join(".staging-default-4000000");
    let dead_features = tables.join(".staging-features-dataset=default-4000001");
    let other_dataset = tables.join(".staging-default-other-4000002");
    for folder in [&dead_generate, &dead_features, &other_dataset] {
        std::fs::create_dir_all(folder.join("variants")).unwrap();
        std::fs::write(folder.join("variants/part-0.parquet"), b"half").unwrap();
    }
    let model_dir = tables.join("responses/oracle");
    let half_part = model_dir.join("part-offline-00009.parquet.4000003.tmp");
    std::fs::write(&half_part, b"half").unwrap();
    for args in [
        vec!["generate", "--attempts", "2000", "--variants", "10"],
        vec!["features", "--set", "advmath"],
        vec!["respond", "--model", "oracle"],
    ] {
        advmath()
            .args(&args)
            .arg("--tables")
            .arg(&tables)
            .assert()
            .success();
    }
    assert!(
        !dead_generate.exists(),
        "generate left a dead run's staging"
    );
    assert!(
        !dead_features.exists(),
        "features left a dead run's staging"
    );
    assert!(!half_part.exists(), "respond left a half-written part");
    assert!(
        other_dataset.exists(),
        "another dataset's staging is not this run's to remove"
    );
}
