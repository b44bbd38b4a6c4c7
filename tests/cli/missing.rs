//! `missing`: a number the answer needs taken out of the question, on the embedded dataset. Its
//! refusals are counted, its gold is null (and only its partitions' answer columns may be), each
//! variant writes one number fewer than its source, replies to it are graded by abstention, and
//! the published config and `advmath extract` carry the null gold as such.

use std::path::Path;

use advmath::question::find_slots;

use crate::text_attacks::{default_tables, refusals_sum_to_the_rest};
use crate::util::{advmath, sql_csv, stderr_of, stdout_of};

const ATTACKS: [&str; 3] = ["missing", "m3+missing", "missing+names"];

fn generate(tables: &Path) -> String {
    let out = advmath()
        .args(["generate", "--attack", &ATTACKS.join(",")])
        .args(["--attempts", "3000", "--variants", "10", "--tables"])
        .arg(tables)
        .assert()
        .success();
    stderr_of(&out)
}

/// (attack, question, the question it was made from) of every `missing` variant: the original's
/// question, or the M3 variant's of the same index.
fn variants_and_sources(tables: &Path) -> Vec<(String, String, String)> {
    let csv = sql_csv(
        tables,
        "SELECT v.attack, v.question AS q, s.question AS source FROM variants v \
         JOIN variants s ON s.variant_id = CASE \
             WHEN v.attack = 'm3+missing' \
             THEN regexp_replace(v.variant_id, '/m3\\+missing/', '/m3/') \
             ELSE v.problem_id || '/original/0' END \
         WHERE v.attack IN ('missing', 'm3+missing') ORDER BY v.variant_id",
    );
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[1].to_string(), r[2].to_string())
        })
        .collect()
}

#[test]
fn missing_takes_one_needed_number_out_and_leaves_no_gold() {
    let (_dir, tables) = default_tables();
    // M3's own variants are the sources of m3+missing's.
    advmath()
        .args([
            "generate",
            "--attack",
            "m3",
            "--attempts",
            "3000",
            "--variants",
            "10",
        ])
        .arg("--tables")
        .arg(&tables)
        .assert()
        .success();
    let stderr = generate(&tables);
    for attack in ATTACKS {
        refusals_sum_to_the_rest(&stderr, attack);
    }
    // The gold is null on every row of the three attacks, and on no other row.
    let golds = sql_csv(
        &tables,
        "SELECT attack, COUNT(*) AS n, COUNT(answer) AS golds, COUNT(answer_exact) AS exact \
         FROM variants GROUP BY attack HAVING COUNT(answer) < COUNT(*) ORDER BY attack",
    );
    let lines: Vec<&str> = golds.lines().skip(1).collect();
    assert_eq!(lines.len(), 3, "{golds}");
    for (line, attack) in lines.iter().zip(["m3+missing", "missing", "missing+names"]) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], attack, "{golds}");
        assert!(cells[1].parse::<usize>().unwrap() > 0, "{golds}");
        assert_eq!(&cells[2..], ["0", "0"], "{golds}");
    }
    // Each variant writes exactly one number fewer than the question it was made from, and
    // says "a certain", "some" or "several" where it was.
    let pairs = variants_and_sources(&tables);
    assert!(pairs.iter().any(|(a, _, _)| a == "m3+missing"), "{pairs:?}");
    for (attack, q, source) in &pairs {
        assert_eq!(
            find_slots(q).len() + 1,
            find_slots(source).len(),
            "{attack}: {q:?} from {source:?}"
        );
        let lower = q.to_lowercase();
        assert!(
            ["a certain", "some", "several"]
                .iter()
                .any(|w| lower.contains(w)),
            "{q}"
        );
    }
    // Only a partition of questions with no answer has nullable answer columns: every other
    // keeps the bytes it always had.
    for (attack, nullable) in [("missing", true), ("m3", false), ("original", false)] {
        let dir = tables.join(format!("variants/dataset=default/attack={attack}"));
        let part = advmath::store::parts(&dir).unwrap().remove(0);
        let batch = advmath::store::read_batches(&part).unwrap().remove(0);
        let field = batch.schema().field_with_name("answer").unwrap().clone();
        assert_eq!(field.is_nullable(), nullable, "{attack}");
    }
}

#[test]
fn a_reply_to_a_question_with_no_answer_is_right_only_when_it_says_so() {
    let (dir, tables) = default_tables();
    generate(&tables);
    for model in ["oracle", "sim-careful"] {
        advmath()
            .args([
                "respond", "--model", model, "--attack", "missing", "--tables",
            ])
            .arg(&tables)
            .assert()
            .success();
    }
    let graded = sql_csv(
        &tables,
        "SELECT model, COUNT(*) AS n, SUM(CASE WHEN correct = abstained THEN 1 ELSE 0 END) AS \
         agree, SUM(CASE WHEN correct THEN 1 ELSE 0 END) AS right_, COUNT(gold) AS golds \
         FROM responses WHERE attack = 'missing' GROUP BY model ORDER BY model",
    );
    let rows: Vec<Vec<usize>> = graded
        .lines()
        .skip(1)
        .map(|l| l.split(',').skip(1).map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{graded}");
    let (oracle, careful) = (&rows[0], &rows[1]);
    assert!(
        oracle[0] > 0 && oracle[1] == oracle[0] && oracle[2] == oracle[0],
        "{graded}"
    );
    assert_eq!(
        oracle[3], 0,
        "no gold is written for a question with none: {graded}"
    );
    assert_eq!(careful[1], careful[0], "{graded}");
    assert!(careful[2] > 0 && careful[2] < careful[0], "{graded}");
    // The abstention view: the oracle abstains on every question with no answer, and on no
    // original.
    let out = dir.path().join("metrics");
    advmath()
        .args(["metrics", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.join("abstention.csv")).unwrap();
    let rate = |attack: &str| {
        let row = csv
            .lines()
            .find(|l| l.starts_with("oracle,") && l.contains(&format!(",{attack},")))
            .unwrap_or_else(|| panic!("no oracle row of {attack}: {csv}"));
        row.split(',').nth(7).unwrap().to_string()
    };
    assert_eq!(
        (rate("missing"), rate("original")),
        ("1".into(), "0".into()),
        "{csv}"
    );
}

#[test]
fn the_published_config_and_extract_carry_no_answer_as_such() {
    let (dir, tables) = default_tables();
    generate(&tables);
    let hub = dir.path().join("hub");
    crate::util::publish(&tables, &hub);
    let part = advmath::store::parts(&hub.join("data/missing"))
        .unwrap()
        .remove(0);
    let batch = advmath::store::read_batches(&part).unwrap().remove(0);
    let answer = batch.column_by_name("answer").unwrap();
    assert!(batch.num_rows() > 0 && answer.null_count() == batch.num_rows());
    let card = std::fs::read_to_string(hub.join("README.md")).unwrap();
    assert!(
        card.contains("- **missing**"),
        "the card describes the family"
    );
    for (reply, right) in [
        (
            "We cannot determine the answer: the price is not given.",
            "true",
        ),
        ("The answer is 12.", "false"),
    ] {
        let out = advmath()
            .args(["extract", "--no-answer"])
            .write_stdin(reply)
            .assert()
            .success();
        let line: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
        assert_eq!(line["correct"].to_string(), right, "{reply}: {line}");
    }
}
