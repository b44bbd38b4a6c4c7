//! The human-judgement workflows end to end: draw a sheet, fill two annotators' copies, ingest
//! them, and read Xie et al. Figure 2 (`xie_human_eval`, with its plot) and ArithmAttack Table 2
//! (`arithmattack_miss_rate`) from `advmath metrics`.

use std::collections::HashMap;
use std::path::Path;

use advmath::metrics::{Cell, ResultTable, SqlEngine};

use crate::util::{advmath, embedded_sql, small_tables, stderr_of, stdout_of};

/// A filled copy of `sheet`: `fill(row)` gives each criterion's verdict, `annotator` signs it.
pub(crate) fn fill(
    sheet: &Path,
    out: &Path,
    annotator: &str,
    criteria: &[&str],
    verdict: impl Fn(&HashMap<String, String>, &str) -> String,
) -> Vec<HashMap<String, String>> {
    let rows = advmath::respond::outside::read_csv(sheet).unwrap();
    let header: Vec<String> = std::fs::read_to_string(sheet)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(|c| c.trim_matches('"').to_string())
        .collect();
    let quote = |v: &str| format!("\"{}\"", v.replace('"', "\"\""));
    let mut text = header
        .iter()
        .map(|c| quote(c))
        .collect::<Vec<_>>()
        .join(",")
        + "\n";
    let mut filled = Vec::new();
    for row in rows {
        let mut row = row.clone();
        for c in criteria {
            let v = verdict(&row, c);
            row.insert(c.to_string(), v);
        }
        row.insert("annotator".into(), annotator.into());
        let line: Vec<String> = header
            .iter()
            .map(|c| quote(row.get(c).map(String::as_str).unwrap_or("")))
            .collect();
        text += &(line.join(",") + "\n");
        filled.push(row);
    }
    std::fs::write(out, text).unwrap();
    filled
}

fn metric(tables: &Path, name: &str) -> ResultTable {
    let sql = embedded_sql().iter().find(|(n, _)| *n == name).unwrap().1;
    SqlEngine::open(tables).unwrap().query_table(sql).unwrap()
}

fn item_number(row: &HashMap<String, String>) -> usize {
    advmath::cut::after(&row["item"], 1).parse().unwrap()
}

#[test]
fn human_evaluation_sheets_give_figure_2() {
    let (dir, tables) = small_tables();
    let draw = |out: &Path| {
        let drawn = advmath()
            .args(["annotate", "sample", "human-eval", "--model", "sim-carry"])
            .args(["--problems", "3", "--tables"])
            .arg(&tables)
            .arg("--out")
            .arg(out)
            .assert()
            .success();
        stdout_of(&drawn)
    };
    let sheet = dir.path().join("human_eval.csv");
    let drawn = draw(&sheet);
    assert!(drawn.contains("human_eval\t18"), "{drawn}");
    // The same seed draws the same sheet.
    let again = dir.path().join("again.csv");
    draw(&again);
    assert_eq!(
        std::fs::read(&sheet).unwrap(),
        std::fs::read(&again).unwrap()
    );

    let criteria = ["correctness", "coherence", "similarity"];
    // Annotator a says yes to everything. Annotator b: correctness yes; coherence yes for M3
    // only; similarity yes on odd items.
    fill(&sheet, &dir.path().join("a.csv"), "a", &criteria, |_, _| {
        "1".into()
    });
    let b = fill(
        &sheet,
        &dir.path().join("b.csv"),
        "b",
        &criteria,
        |row, c| {
            let yes = match c {
                "correctness" => true,
                "coherence" => row["method"] == "m3",
                _ => item_number(row) % 2 == 1,
            };
            if yes { "yes" } else { "no" }.into()
        },
    );
    let ingested = advmath()
        .args(["annotate", "ingest", "--tables"])
        .arg(&tables)
        .arg(dir.path().join("a.csv"))
        .arg(dir.path().join("b.csv"))
        .assert()
        .success();
    assert!(
        stdout_of(&ingested).contains("\thuman_eval\ta\t54\t0"),
        "{}",
        stdout_of(&ingested)
    );

    let t = metric(&tables, "xie_human_eval");
    assert_eq!(t.len(), 9, "3 methods x 3 criteria");
    for r in 0..t.len() {
        let method = t
            .get(r, "method")
            .and_then(Cell::as_str)
            .unwrap()
            .to_string();
        let criterion = t
            .get(r, "criterion")
            .and_then(Cell::as_str)
            .unwrap()
            .to_string();
        let mine: Vec<&HashMap<String, String>> =
            b.iter().filter(|row| row["method"] == method).collect();
        assert_eq!(mine.len(), 6, "{method}: 3 problems x 2 examples");
        let b_yes = match criterion.as_str() {
            "correctness" => 6,
            "coherence" if method == "m3" => 6,
            "coherence" => 0,
            _ => mine.iter().filter(|row| item_number(row) % 2 == 1).count(),
        };
        let what = format!("{method} {criterion}");
        assert_eq!(t.get(r, "items").and_then(Cell::as_i64), Some(6), "{what}");
        assert_eq!(
            t.get(r, "annotators").and_then(Cell::as_i64),
            Some(2),
            "{what}"
        );
        let mean = t.get(r, "mean_score").and_then(Cell::as_f64).unwrap();
        assert!(
            (mean - (6 + b_yes) as f64 / 12.0).abs() < 1e-12,
            "{what}: {mean}"
        );
        let unanimous = t.get(r, "unanimous").and_then(Cell::as_f64).unwrap();
        assert!((unanimous - b_yes as f64 / 6.0).abs() < 1e-12, "{what}");
        // Fleiss' kappa: an item both call yes agrees (P = 1), a split one does not (P = 0).
        let p_one = (6 + b_yes) as f64 / 12.0;
        let pe = p_one * p_one + (1.0 - p_one) * (1.0 - p_one);
        let p_bar = b_yes as f64 / 6.0;
        match t.get(r, "fleiss_kappa") {
            Some(Cell::Float(k)) => {
                assert!((k - (p_bar - pe) / (1.0 - pe)).abs() < 1e-12, "{what}")
            }
            other => assert!(
                b_yes == 6 && matches!(other, Some(Cell::Null)),
                "{what}: {other:?}"
            ),
        }
    }

    // Figure 2 in the metrics report, with its plot.
    let out = dir.path().join("metrics");
    advmath()
        .args(["metrics", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.join("xie_human_eval.csv")).unwrap();
    assert_eq!(csv.lines().count(), 10, "{csv}");
    let plots: Vec<_> = std::fs::read_dir(out.join("plots"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("xie_human_eval")
        })
        .collect();
    assert_eq!(plots.len(), 1);
    let svg = std::fs::read_to_string(plots[0].path()).unwrap();
    assert!(svg.contains("M3 coherence"), "the bars are labelled");
}

#[test]
fn miss_rate_sheets_give_table_2_and_bad_cells_are_named() {
    let (dir, tables) = small_tables();
    let sheet = dir.path().join("miss_rate.csv");
    let drawn = advmath()
        .args([
            "annotate",
            "sample",
            "miss-rate",
            "--model",
            "sim-carry,sim-careful",
        ])
        .arg("--tables")
        .arg(&tables)
        .arg("--out")
        .arg(&sheet)
        .assert()
        .success();
    let rows = advmath::respond::outside::read_csv(&sheet).unwrap();
    let per_model = |m: &str| rows.iter().filter(|r| r["model"] == m).count();
    let (carry, careful) = (per_model("sim-carry"), per_model("sim-careful"));
    assert!(carry > 10 && carry == careful, "{}", stdout_of(&drawn));
    // Every reply is shown with what the extraction read from it.
    assert!(rows
        .iter()
        .all(|r| r.contains_key("response") && r.contains_key("extracted")));

    // a marks the first 3 replies of each model missed, b the first 2.
    let rank = |row: &HashMap<String, String>| {
        rows.iter()
            .filter(|r| r["model"] == row["model"])
            .position(|r| r["item"] == row["item"])
            .unwrap()
    };
    fill(
        &sheet,
        &dir.path().join("a.csv"),
        "a",
        &["missed"],
        |row, _| u8::from(rank(row) < 3).to_string(),
    );
    fill(
        &sheet,
        &dir.path().join("b.csv"),
        "b",
        &["missed"],
        |row, _| u8::from(rank(row) < 2).to_string(),
    );
    advmath()
        .args(["annotate", "ingest", "--tables"])
        .arg(&tables)
        .arg(dir.path().join("a.csv"))
        .arg(dir.path().join("b.csv"))
        .assert()
        .success();
    let t = metric(&tables, "arithmattack_miss_rate");
    assert_eq!(t.len(), 2);
    for r in 0..2 {
        let n = carry as f64;
        assert_eq!(
            t.get(r, "replies").and_then(Cell::as_i64),
            Some(carry as i64)
        );
        assert_eq!(t.get(r, "missed").and_then(Cell::as_i64), Some(5));
        let rate = t.get(r, "miss_rate").and_then(Cell::as_f64).unwrap();
        assert!((rate - 5.0 / (2.0 * n)).abs() < 1e-12);
        let majority = t
            .get(r, "majority_miss_rate")
            .and_then(Cell::as_f64)
            .unwrap();
        assert!((majority - 2.0 / n).abs() < 1e-12);
    }

    // A cell that is no verdict is named by file, row and column; the rest of the sheet counts.
    let bad = dir.path().join("c.csv");
    fill(&sheet, &bad, "c", &["missed"], |row, _| {
        if rank(row) == 0 && row["model"] == "sim-careful" {
            "maybe"
        } else {
            "0"
        }
        .into()
    });
    let failed = advmath()
        .args(["annotate", "ingest", "--tables"])
        .arg(&tables)
        .arg(&bad)
        .assert()
        .code(1);
    let err = stderr_of(&failed);
    assert!(
        err.contains("c.csv: row 2: column `missed` holds \"maybe\""),
        "{err}"
    );
    let t = metric(&tables, "arithmattack_miss_rate");
    let ratings: i64 = (0..t.len())
        .map(|r| t.get(r, "ratings").and_then(Cell::as_i64).unwrap())
        .sum();
    assert_eq!(ratings as usize, 3 * (carry + careful) - 1);
}

/// Two annotators' sheets with one file name (`alice/ms.csv`, `bob/ms.csv`) keep each their
/// verdicts; a sheet ingested again, or under another name, replaces its verdicts instead of
/// adding them; a sheet named in another script keeps its own name.
#[test]
fn verdicts_are_kept_per_annotator_and_item() {
    let (dir, tables) = small_tables();
    let sheet = dir.path().join("drawn.csv");
    crate::util::draw_miss_rate_sheet(&tables, "sim-carry", &sheet);
    let items = advmath::respond::outside::read_csv(&sheet).unwrap().len();
    for who in ["alice", "bob"] {
        std::fs::create_dir_all(dir.path().join(who)).unwrap();
        fill(
            &sheet,
            &dir.path().join(who).join("ms.csv"),
            who,
            &["missed"],
            |_, _| "0".into(),
        );
    }
    let copy = dir.path().join("ms-again.csv");
    std::fs::copy(dir.path().join("alice/ms.csv"), &copy).unwrap();
    let unsigned = dir.path().join("标注.csv");
    fill(&sheet, &unsigned, "", &["missed"], |_, _| "1".into());
    for sheets in [
        vec![
            dir.path().join("alice/ms.csv"),
            dir.path().join("bob/ms.csv"),
        ],
        vec![
            dir.path().join("alice/ms.csv"),
            copy.clone(),
            unsigned.clone(),
        ],
    ] {
        advmath()
            .args(["annotate", "ingest", "--tables"])
            .arg(&tables)
            .args(&sheets)
            .assert()
            .success();
    }
    let counts = crate::util::sql_csv(
        &tables,
        "SELECT annotator, COUNT(*) AS n, COUNT(DISTINCT item) AS items FROM annotations GROUP BY annotator ORDER BY annotator",
    );
    assert_eq!(
        counts,
        format!(
            "annotator,n,items\nalice,{items},{items}\nbob,{items},{items}\n标注,{items},{items}\n"
        ),
        "{counts}"
    );
}

/// Verdicts written straight to the table, for the DuckDB parity test: two annotators on three
/// human-evaluation items of two methods (agreeing on some), and on four replies of a model.
pub fn write_annotation_fixture(tables: &Path) {
    use advmath::store::annotations::{merge, AnnotationRow};
    let row = |kind: &str, annotator: &str, item: &str, attack: &str, criterion: &str, value| {
        AnnotationRow {
            kind: kind.into(),
            sheet: format!("sheet-{annotator}"),
            annotator: annotator.into(),
            item: item.into(),
            model: "model-a".into(),
            template: Some("xie2024".into()),
            dataset: "toy".into(),
            attack: attack.into(),
            problem_id: Some("toy/test/0".into()),
            variant_id: Some(format!("toy/test/0/{attack}/0")),
            criterion: criterion.into(),
            value,
        }
    };
    for (annotator, flips) in [("a", 0), ("b", 1)] {
        let mut rows = Vec::new();
        for (i, (item, method)) in [("h1", "m1"), ("h2", "m1"), ("h3", "m3")]
            .iter()
            .enumerate()
        {
            for (j, c) in ["correctness", "coherence", "similarity"]
                .iter()
                .enumerate()
            {
                let v = i32::from((i + j + flips * i) % 2 == 0);
                rows.push(row("human_eval", annotator, item, method, c, v));
            }
        }
        merge(tables, "human_eval", annotator, &rows).unwrap();
        let rows: Vec<AnnotationRow> = (0..4)
            .map(|i| {
                let v = i32::from(i < 1 + flips);
                row(
                    "miss_rate",
                    annotator,
                    &format!("m{i}"),
                    "original",
                    "missed",
                    v,
                )
            })
            .collect();
        merge(tables, "miss_rate", annotator, &rows).unwrap();
    }
}
