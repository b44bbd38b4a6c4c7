//! `advmath generate`: reproducible whatever the thread count, one problem sample reaching the
//! variant count in every attack, other attacks' partitions kept, invalid problems skipped, the
//! noun after a count agreeing with it; and a property test of the attacker's kept variants.

use std::fs;
use std::path::Path;

use advmath::attack::sample::{attack, Attacker, Method};
use advmath::ingest::default_dataset::default_source;
use advmath::ingest::{build_records, ProgramSource};
use advmath::store::read_batches;
use predicates::prelude::*;
use proptest::prelude::*;

use crate::util::{
    advmath, assert_snapshot, copy_dir, ingest, ingest_xie_release, shared_data, small_tables,
    stdout_of, walk, SMALL_GENERATION,
};

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

/// `--sample-problems n`: n problems per dataset, each with m variants in every requested
/// attack (Algorithm 2's m new problems per problem), drawn in a seeded order that skips the
/// problems falling short and says how many it skipped; the same whatever the thread count, and
/// another seed draws another sample.
#[test]
fn sample_problems_reach_the_variant_count_in_every_attack() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[]).success();
    let run = |attacks: &str, threads: &str, seed: &str| {
        let out = advmath()
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
        (problems_by_attack(&tables), crate::util::stderr_of(&out))
    };
    let (together, log) = run("m1,m2,m3,punct", "2", "7");
    let sample = together["original"].clone();
    assert_eq!(sample.len(), 10, "{sample:?}");
    for attack in [
        "m1", "m2", "m3", "punct10", "punct30", "punct50", "stats:m1", "stats:m2", "stats:m3",
    ] {
        assert_eq!(together[attack], sample, "{attack}");
    }
    assert!(log.contains("sampled 10 of 10 problems"), "{log}");
    let (again, _) = run("m1,m2,m3,punct", "1", "7");
    assert_eq!(again, together, "one thread, the same sample");
    let (other, _) = run("m1,m2,m3,punct", "2", "8");
    assert_eq!(other["original"].len(), 10);
    assert_ne!(other["original"], sample, "another seed, another sample");
}

/// More problems asked for than reach the variant count: all that do, and the shortfall said.
#[test]
fn a_sample_short_of_problems_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[]).success();
    let out = advmath()
        .args([
            "generate",
            "--sample-problems",
            "100000",
            "--attempts",
            "300",
            "--variants",
            "40",
            "--attack",
            "m3",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    let log = crate::util::stderr_of(&out);
    assert!(log.contains("short of the variants in m3"), "{log}");
    assert!(log.contains("a shortfall of"), "{log}");
    let by_attack = problems_by_attack(&tables);
    assert_eq!(by_attack["m3"], by_attack["original"]);
}

/// Generating one attack leaves every other attack's variants, statistics and run record of
/// the dataset as they were.
#[test]
fn generating_one_attack_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest(&tables, &[]).success();
    let generate = |attack: &str| {
        advmath()
            .args([
                "generate",
                "--attempts",
                "2000",
                "--variants",
                "10",
                "--attack",
                attack,
            ])
            .arg("--tables")
            .arg(&tables)
            .assert()
            .success();
    };
    let files_of = |dir: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut files: Vec<_> = walk(dir)
            .into_iter()
            .map(|f| (f.clone(), fs::read(&f).unwrap()))
            .collect();
        files.sort();
        files
    };
    generate("m3");
    let variants = tables.join("variants");
    let dataset = fs::read_dir(&variants)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .next()
        .unwrap();
    let m3 = files_of(&dataset.join("attack=m3"));
    assert!(!m3.is_empty());
    let before = problems_by_attack(&tables);
    let runs_before = files_of(&tables.join("runs"));
    generate("punct");
    assert_eq!(
        files_of(&dataset.join("attack=m3")),
        m3,
        "m3 byte-identical"
    );
    let after = problems_by_attack(&tables);
    assert_eq!(after["m3"], before["m3"]);
    assert_eq!(after["stats:m3"], before["stats:m3"]);
    assert!(!after["punct10"].is_empty());
    assert!(after["original"].is_superset(&after["m3"]));
    let runs_after = files_of(&tables.join("runs"));
    for record in &runs_before {
        assert!(runs_after.contains(record), "{:?} kept as it was", record.0);
    }
    assert_eq!(
        runs_after.len(),
        runs_before.len() + 1,
        "punct's record added"
    );
    // And the other way round: m3 again leaves punct's partitions alone.
    let punct = files_of(&dataset.join("attack=punct30"));
    generate("m3");
    assert_eq!(files_of(&dataset.join("attack=punct30")), punct);
    assert_eq!(
        files_of(&dataset.join("attack=m3")),
        m3,
        "a rerun makes the same bytes"
    );
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
    let bin = crate::util::advmath_path();
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
    // The first run is held at its first durable step (the fault rig), by then holding the lock,
    // until the second has been refused: no race, and no long run to keep it busy.
    let hold = dir.path().join("hold");
    let mut first = generate("2000")
        .env("ADVMATH_HOLD_AT", "")
        .env("ADVMATH_HOLD_FILE", &hold)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lock = tables.join(".locks/generate-default.lock");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&hold).unwrap_or_default().trim() != first.id().to_string() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the first run never reached its first step"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap().trim(),
        first.id().to_string(),
        "the lock file holds the first run's pid"
    );
    let second = generate("2000").output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains(&format!("(pid {})", first.id())),
        "{stderr}"
    );
    std::fs::remove_file(&hold).unwrap();
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

/// On the Xie et al. release, a count that becomes one takes a singular noun and one that stops
/// being one a plural ("1 notebook", "5 hours"), and nothing else changes: the same variants,
/// the same numbers, the same words but the noun right after such a count. Every change is
/// listed in a snapshot, which is the audited list (each pair read and found right).
#[test]
fn nouns_agree_with_counts_that_cross_one_on_the_xie_release() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (agreeing, kept) = (dir.path().join("agreeing"), dir.path().join("kept"));
    ingest_xie_release(&data, &agreeing);
    copy_dir(&agreeing, &kept);
    let questions = |tables: &Path, extra: &[&str]| {
        advmath()
            .args([
                "generate",
                "--attack",
                "m1,m2,m3",
                "--attempts",
                "3000",
                "--tables",
            ])
            .arg(tables)
            .args(extra)
            .assert()
            .success();
        let json = stdout_of(
            &advmath()
                .args(["sql", "--format", "jsonl", "--tables"])
                .arg(tables)
                .arg("SELECT variant_id, question FROM variants ORDER BY variant_id")
                .assert()
                .success(),
        );
        json.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["variant_id"].as_str().unwrap().to_string(),
                    v["question"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (agreeing, kept) = (
        questions(&agreeing, &[]),
        questions(&kept, &["--keep-noun-forms"]),
    );
    assert_eq!(agreeing.len(), kept.len());
    let is_count = |w: &str| {
        let w = w.trim_start_matches('$').replace(',', "");
        let words = [
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        ];
        w.parse::<f64>().is_ok() || words.contains(&w.to_lowercase().as_str())
    };
    let mut pairs: std::collections::BTreeMap<String, usize> = Default::default();
    let mut changed = 0;
    for ((id, a), (id_kept, k)) in agreeing.iter().zip(&kept) {
        assert_eq!(id, id_kept);
        if a == k {
            continue;
        }
        changed += 1;
        let (wa, wk): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), k.split(' ').collect());
        assert_eq!(wa.len(), wk.len(), "{id}: {k} / {a}");
        for i in (0..wa.len()).filter(|&i| wa[i] != wk[i]) {
            let article = ["a", "an", "A", "An"].contains(&wk[i])
                && wa
                    .get(i + 1)
                    .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()));
            if article {
                *pairs
                    .entry(format!("{} -> {} (article)", wk[i], wa[i]))
                    .or_default() += 1;
                continue;
            }
            // The count is right before the noun, or up to two modifiers before it ("1
            // photograph frame").
            let count = (i.saturating_sub(3)..i).rev().find(|&j| is_count(wa[j]));
            let Some(j) = count else {
                panic!("{id}: a word changed after no count and before none: {a}");
            };
            let one = advmath::agreement::is_one(wa[j]);
            let direction = if one { "singular" } else { "plural" };
            let past = if j + 1 < i { ", past modifiers" } else { "" };
            *pairs
                .entry(format!("{} -> {} ({direction}{past})", wk[i], wa[i]))
                .or_default() += 1;
        }
    }
    assert!(changed > 0, "no count crossed one");
    let text: String = pairs
        .iter()
        .map(|(pair, n)| format!("{pair}: {n}\n"))
        .collect();
    assert_snapshot(
        "noun_agreement_xie_release",
        format!("{changed} of {} variants changed\n{text}", agreeing.len()),
    );
}
