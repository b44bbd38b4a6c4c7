//! The text attacks beyond numbers (`names`, `noop` and their compositions with M1–M3): what
//! `generate` writes and counts, that the offline models react to them, and the hand-built
//! tables `tests/slt/symbolic/*.slt` check GSM-Symbolic's view and the distractor rate on.
//!
//! Symbolic fixture (template `xie2024`, dataset `toy`, problems p0..p3 = `toy/test/0..3`; every
//! gold is 10; the no-op numbers are 2 for variant 0 and 3 for variant 1; 1 = answered right,
//! and a wrong answer's extracted value in brackets):
//!
//! | model | attack | p0 | p1 | p2 | p3 |
//! |---|---|---|---|---|---|
//! | model-s | original | 1 | 1 | 1 | 0 |
//! | model-s | names (0, 1) | 1 1 | 1 0 | 0 1 | |
//! | model-s | m3 (0, 1) | 1 0 | 1 1 | 0 0 | 1 1 |
//! | model-s | m3+names (0, 1) | 0 1 | 0 0 | | |
//! | model-s | noop (0, 1) | 1 0[7] | 0[8] 1 | 0[12] 0[none] | 1 1, and an ungraded 2 |
//! | model-s | missing (0, 1) | 1 0[10] | 1 | 0[7] | 1 |
//! | model-s | m3+missing (0) | 0[10] | | | |
//! | sim-z | original | 1 | | | |
//! | sim-z | noop (0, 1) | 1 1 | | | |
//! | sim-z | missing (0) | 1 | | | |
//!
//! A `missing` variant has no gold (null), and a reply to it is right exactly when it says the
//! question cannot be answered (`abstained`); on every other question a reply abstains when it
//! gives no number (`0[none]` above), and every graded reply was read for abstention.

use std::path::{Path, PathBuf};

use crate::fixtures::{write_responses, Resp};
use crate::util::{advmath, sql_csv, stderr_of, stdout_of};
use advmath::store::variants::{rows_to_batch, Row};

/// (model, attack, problem, index, correct, extracted).
type Answer = (
    &'static str,
    &'static str,
    usize,
    usize,
    Option<bool>,
    Option<&'static str>,
);

const ANSWERS: &[Answer] = &[
    ("model-s", "original", 0, 0, Some(true), Some("10")),
    ("model-s", "original", 1, 0, Some(true), Some("10")),
    ("model-s", "original", 2, 0, Some(true), Some("10")),
    ("model-s", "original", 3, 0, Some(false), Some("4")),
    ("model-s", "names", 0, 0, Some(true), Some("10")),
    ("model-s", "names", 0, 1, Some(true), Some("10")),
    ("model-s", "names", 1, 0, Some(true), Some("10")),
    ("model-s", "names", 1, 1, Some(false), Some("9")),
    ("model-s", "names", 2, 0, Some(false), Some("9")),
    ("model-s", "names", 2, 1, Some(true), Some("10")),
    ("model-s", "m3", 0, 0, Some(true), Some("10")),
    ("model-s", "m3", 0, 1, Some(false), Some("1")),
    ("model-s", "m3", 1, 0, Some(true), Some("10")),
    ("model-s", "m3", 1, 1, Some(true), Some("10")),
    ("model-s", "m3", 2, 0, Some(false), Some("1")),
    ("model-s", "m3", 2, 1, Some(false), Some("1")),
    ("model-s", "m3", 3, 0, Some(true), Some("10")),
    ("model-s", "m3", 3, 1, Some(true), Some("10")),
    ("model-s", "m3+names", 0, 0, Some(false), Some("1")),
    ("model-s", "m3+names", 0, 1, Some(true), Some("10")),
    ("model-s", "m3+names", 1, 0, Some(false), Some("1")),
    ("model-s", "m3+names", 1, 1, Some(false), Some("1")),
    ("model-s", "noop", 0, 0, Some(true), Some("10")),
    ("model-s", "noop", 0, 1, Some(false), Some("7")),
    ("model-s", "noop", 1, 0, Some(false), Some("8")),
    ("model-s", "noop", 1, 1, Some(true), Some("10")),
    ("model-s", "noop", 2, 0, Some(false), Some("12")),
    ("model-s", "noop", 2, 1, Some(false), None),
    ("model-s", "noop", 3, 0, Some(true), Some("10")),
    ("model-s", "noop", 3, 1, Some(true), Some("10")),
    ("model-s", "noop", 3, 2, None, None),
    ("model-s", "missing", 0, 0, Some(true), None),
    ("model-s", "missing", 0, 1, Some(false), Some("10")),
    ("model-s", "missing", 1, 0, Some(true), None),
    ("model-s", "missing", 2, 0, Some(false), Some("7")),
    ("model-s", "missing", 3, 0, Some(true), None),
    ("model-s", "m3+missing", 0, 0, Some(false), Some("10")),
    ("sim-z", "original", 0, 0, Some(true), Some("10")),
    ("sim-z", "noop", 0, 0, Some(true), Some("10")),
    ("sim-z", "noop", 0, 1, Some(true), Some("10")),
    ("sim-z", "missing", 0, 0, Some(true), None),
];

/// The symbolic fixture's tables: the variants every answer is about, and the answers.
pub fn symbolic_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    write_symbolic(&tables, &write_responses);
    (dir, tables)
}

/// The symbolic fixture's variants and answers under `tables`, the answers written by `write`
/// (beside other fixtures' responses, their own models' folders).
pub fn write_symbolic(tables: &Path, write: &dyn Fn(&Path, &[Resp])) {
    let mut variants: std::collections::BTreeMap<&str, Vec<Row>> = Default::default();
    let mut seen = std::collections::BTreeSet::new();
    for &(_, attack, p, i, _, _) in ANSWERS {
        if !seen.insert((attack, p, i)) {
            continue;
        }
        variants.entry(attack).or_default().push(Row {
            variant_id: format!("toy/test/{p}/{attack}/{i}"),
            problem_id: format!("toy/test/{p}"),
            noise_level: 0,
            variant_index: i as i32,
            question: format!("question {p} {attack} {i}"),
            answer: (!attack.contains("missing")).then(|| "10".into()),
            answer_exact: (!attack.contains("missing")).then(|| "10".into()),
            numbers: vec!["4".into()],
            seed: 0,
            support: 1,
            distractor: attack.contains("noop").then_some(2 + i as i64),
        });
    }
    for (attack, rows) in variants {
        let path = tables
            .join(format!("variants/dataset=toy/attack={attack}"))
            .join("part-0.parquet");
        advmath::store::write_batch(&path, &rows_to_batch(&rows).unwrap()).unwrap();
    }
    let responses: Vec<Resp> = ANSWERS
        .iter()
        .map(|&(model, attack, p, i, correct, extracted)| {
            let mut r = crate::fixtures::graded(model, p, attack, i, correct.unwrap_or(false));
            r.correct = correct;
            r.extracted = extracted;
            r.abstained = correct.map(|c| {
                if attack.contains("missing") {
                    c
                } else {
                    extracted.is_none()
                }
            });
            r.simulated = model.starts_with("sim-");
            r
        })
        .collect();
    write(tables, &responses);
}

/// The embedded default dataset ingested into a new folder: its tables.
pub fn default_tables() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    crate::util::ingest(&tables, &[]).success();
    (dir, tables)
}

fn generate(tables: &Path, threads: &str) -> assert_cmd::assert::Assert {
    advmath()
        .args([
            "generate",
            "--attack",
            "names,noop,names+m3,noop+m3",
            "--attempts",
            "3000",
            "--variants",
            "10",
            "--threads",
            threads,
            "--tables",
        ])
        .arg(tables)
        .assert()
        .success()
}

/// Every variant's bytes, by path under `variants/`.
fn variant_files(tables: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walkdir(&tables.join("variants"))
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(tables).unwrap().display().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn names_and_noop_compose_with_m3_are_counted_and_reproducible() {
    let (_a, one) = default_tables();
    let (_b, four) = default_tables();
    let out = generate(&one, "1");
    generate(&four, "4");
    assert_eq!(variant_files(&one), variant_files(&four));
    let stdout = stdout_of(&out);
    for attack in ["names", "noop", "m3+names", "m3+noop"] {
        assert!(
            stdout.contains(&format!("default\t{attack}\t")),
            "{attack} missing:\n{stdout}"
        );
    }
    // Each attack that can refuse a problem (the text attacks, and the draws that fall short)
    // says how many problems it made variants of, and why it left the others: the reasons sum
    // to the rest.
    let stderr = stderr_of(&out);
    for attack in ["names", "noop", "m3+names", "m3+noop", "m3"] {
        refusals_sum_to_the_rest(&stderr, attack);
    }
    // A text attack keeps every number and the gold of the question it changed; only a no-op
    // carries a distractor, which the question writes and no number of it equals.
    let csv = sql_csv(
        &one,
        "SELECT v.attack, COUNT(*) AS rows, \
                SUM(CASE WHEN v.answer = o.answer THEN 1 ELSE 0 END) AS same_gold, \
                SUM(CASE WHEN v.distractor IS NULL THEN 0 ELSE 1 END) AS with_distractor \
         FROM variants v JOIN variants o \
           ON o.variant_id = regexp_replace(v.variant_id, '/[^/]+/[0-9]+$', '/original/0') \
         WHERE v.attack IN ('names', 'noop') GROUP BY v.attack ORDER BY v.attack",
    );
    for cols in result_rows(&csv, 2) {
        let line = cols.join(",");
        let rows: usize = cols[1].parse().unwrap();
        assert!(rows > 0);
        assert_eq!(cols[2], cols[1], "{line}: the gold changed");
        let expected = if cols[0] == "noop" { rows } else { 0 };
        assert_eq!(cols[3].parse::<usize>().unwrap(), expected, "{line}");
    }
    let csv = sql_csv(
        &one,
        "SELECT COUNT(*) FROM generation_stats WHERE attack = 'names' AND refused LIKE 'no_name%'",
    );
    assert!(
        csv.lines().nth(1).unwrap().parse::<usize>().unwrap() > 0,
        "{csv}"
    );
}

/// A metric's CSV (as `run` and `metrics` write it) as rows of named cells.
fn metric_rows(dir: &Path, name: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.csv"))).unwrap();
    let mut lines = text.lines().map(split_csv);
    let header = lines.next().unwrap();
    lines
        .map(|cells| header.iter().cloned().zip(cells).collect())
        .collect()
}

/// The families GSM-Symbolic's view has rows of for `model`.
fn families(dir: &Path, model: &str) -> std::collections::BTreeSet<String> {
    metric_rows(dir, "gsm_symbolic")
        .into_iter()
        .filter(|r| r["model"] == model)
        .map(|r| r["family"].clone())
        .collect()
}

/// One CSV line's cells (quoted cells may hold commas).
fn split_csv(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// The default run asks the simulated models about both families; `sim-distracted` uses the
/// no-op's number, the oracle never, and GSM-Symbolic's view has a row per family.
#[test]
fn the_default_run_shows_each_family_and_the_simulated_models_react() {
    let dir = crate::util::default_run();
    let metrics = dir.path().join("reports/metrics");
    let used = |model: &str| -> usize {
        metric_rows(&metrics, "gsm_symbolic_distractor")
            .iter()
            .filter(|r| r["model"] == model && r["attack"] == "noop")
            .map(|r| r["used_distractor"].parse::<usize>().unwrap())
            .sum()
    };
    assert_eq!(used("oracle"), 0);
    assert!(used("sim-distracted") > 0);
    let families = families(&metrics, "sim-careful");
    for family in [
        "names and numbers",
        "names only",
        "no-op",
        "numbers and no-op",
        "numbers only",
        "original",
    ] {
        assert!(families.contains(family), "{family} missing: {families:?}");
    }
    let headline = std::fs::read_to_string(metrics.join("report.md")).unwrap();
    for attack in ["names", "noop", "m3+names", "m3+noop"] {
        assert!(
            headline.contains(&format!("| {attack} ")),
            "{attack} not in the headline"
        );
    }
}

/// A real model (SmolLM2, started by `.ci/run`) answers a fair sample of every family, and the
/// two views have its rows.
#[test]
fn a_real_model_gets_gsm_symbolic_s_view() {
    let Ok(url) = std::env::var("ADVMATH_SMOLLM2_URL") else {
        crate::util::skip("ADVMATH_SMOLLM2_URL is not set (.ci/run starts the SmolLM2 server)");
        return;
    };
    let (dir, tables) = default_tables();
    generate(&tables, "2");
    advmath()
        .args([
            "respond",
            "--model",
            "smollm2",
            "--endpoint",
            &url,
            "--problems",
            "2",
            "--per-problem",
            "2",
            "--seed",
            "1",
            "--max-tokens",
            "64",
            "--concurrency",
            "1",
            "--timeout",
            "300",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    let out = dir.path().join("metrics");
    advmath()
        .args(["metrics", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let families = families(&out, "smollm2");
    for family in [
        "names and numbers",
        "names only",
        "no-op",
        "numbers and no-op",
        "original",
    ] {
        assert!(families.contains(family), "{family} missing: {families:?}");
    }
    let noop: Vec<String> = metric_rows(&out, "gsm_symbolic_distractor")
        .into_iter()
        .filter(|r| r["model"] == "smollm2")
        .map(|r| r["attack"].clone())
        .collect();
    assert_eq!(noop, ["m3+noop", "noop"]);
}

/// `generate --attack X,X+names,X+noop` on the embedded dataset, for a numeric family `X`: each
/// attack's refusals sum to the rest, and a composed variant is an `X` variant with its text
/// changed (same numbers, same gold).
fn composes_with_the_text_attacks(tables: &Path, family: &str) {
    let attacks = [
        family.to_string(),
        format!("{family}+names"),
        format!("{family}+noop"),
    ];
    let out = advmath()
        .args(["generate", "--attack", &attacks.join(",")])
        .args(["--attempts", "3000", "--variants", "10", "--tables"])
        .arg(tables)
        .assert()
        .success();
    let stderr = stderr_of(&out);
    for attack in &attacks {
        refusals_sum_to_the_rest(&stderr, attack);
    }
    let csv = sql_csv(
        tables,
        &format!(
            "SELECT v.attack, COUNT(*) AS rows, \
                    SUM(CASE WHEN v.answer = d.answer AND v.numbers = d.numbers THEN 1 ELSE 0 END) \
                      AS same \
             FROM variants v JOIN variants d \
               ON d.variant_id = regexp_replace(v.variant_id, '/[^/]+/([0-9]+)$', '/{family}/\\1') \
             WHERE v.attack IN ('{}', '{}') GROUP BY v.attack ORDER BY v.attack",
            attacks[1], attacks[2]
        ),
    );
    for cols in result_rows(&csv, 2) {
        assert!(cols[1].parse::<usize>().unwrap() > 0, "{csv}");
        assert_eq!(cols[1], cols[2], "{csv}");
    }
}

#[test]
fn digits_expands_one_number_and_composes_with_the_text_attacks() {
    let (_dir, tables) = default_tables();
    composes_with_the_text_attacks(&tables, "digits");
    // Each number is from the question's text, the tree's constraints hold, the gold is the
    // program's, and one number changed, gaining one to three digits.
    assert!(crate::util::verify_variants(&tables, "default") > 0);
}

#[test]
fn decimals_writes_divisible_amounts_in_parts_and_composes_with_the_text_attacks() {
    let (_dir, tables) = default_tables();
    composes_with_the_text_attacks(&tables, "decimals");
    // The text reads back to its numbers, each changed one a whole amount plus a part, and the
    // gold is the program's, in cents.
    assert!(crate::util::verify_decimals(&tables, "default") > 0);
}

#[test]
fn fractions_writes_divisible_amounts_as_mixed_numbers_and_composes_with_the_text_attacks() {
    let (_dir, tables) = default_tables();
    composes_with_the_text_attacks(&tables, "fractions");
    // Each changed number is a mixed number in the text that reads back to it, never money,
    // and the gold is the program's.
    assert!(crate::util::verify_fractions(&tables, "default") > 0);
}

/// The rows of a CSV result after its header, split into cells: exactly `n` of them.
fn result_rows(csv: &str, n: usize) -> Vec<Vec<&str>> {
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), n, "{csv}");
    rows
}

/// `generate`'s line for one attack ("default m3: 27 of 36 problems attacked; refused: order
/// 2, …"): the problems it refused, per reason, sum to the ones it did not attack.
pub fn refusals_sum_to_the_rest(stderr: &str, attack: &str) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with(&format!("default {attack}: ")))
        .unwrap_or_else(|| panic!("no line for {attack}:\n{stderr}"));
    let (counts, reasons) = line.split_once(" problems attacked").unwrap();
    let (attacked, tried) = counts
        .rsplit_once(": ")
        .unwrap()
        .1
        .split_once(" of ")
        .unwrap();
    let refused: usize = reasons.strip_prefix("; refused: ").map_or(0, |r| {
        r.split(", ")
            .map(|p| p.rsplit_once(' ').unwrap().1.parse::<usize>().unwrap())
            .sum()
    });
    assert_eq!(
        attacked.parse::<usize>().unwrap() + refused,
        tried.parse::<usize>().unwrap(),
        "{line}"
    );
}
