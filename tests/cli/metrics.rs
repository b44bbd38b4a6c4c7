//! `advmath metrics` on the hand-built fixtures (`fixtures.rs`): what the SQL of each metric
//! gives is checked by `tests/slt/` (`slt.rs`); here, what SQL cannot show: the CSV, Markdown,
//! plot and report files, the statistics computed in Rust, the RobustMath pairing's summary and
//! the errors of `--model-order`.

use std::path::Path;

use crate::util::embedded_sql;
use advmath::metrics::{self, Cell, SqlEngine};

use crate::fixtures::{fixture, graded, robustmath_fixture, write_responses};

/// A model order naming a model with no response, or one model twice, is a usage error (exit 2).
#[test]
fn metrics_model_order_errors_are_usage_errors() {
    let (_dir, tables) = fixture();
    let engine = SqlEngine::open(&tables).unwrap();
    let err = engine
        .set_model_order(&["model-z".to_string()])
        .unwrap_err();
    assert!(
        err.to_string().contains("model `model-z` has no response"),
        "{err}"
    );
    assert_eq!(err.exit_code(), 2);
    let err = engine
        .set_model_order(&["sim-c".to_string(), "sim-c".to_string()])
        .unwrap_err();
    assert!(err.to_string().contains("listed twice"), "{err}");
    assert_eq!(err.exit_code(), 2);
}

/// The RobustMath release of the Table 3 fixture: three originals, five rephrasings, four paired
/// (every original at least once); rephrasing 4 shares almost no word with the originals of its
/// answer and stays unpaired. The pairing itself is checked by
/// `tests/slt/robustmath/xie_rephrasing.slt`.
#[test]
fn metrics_xie_table3_robustmath_release_is_paired() {
    let (_dir, _tables, summary) = robustmath_fixture();
    assert_eq!(
        (summary.originals, summary.rephrased, summary.paired),
        (3, 5, 4)
    );
    assert_eq!(summary.originals_paired, 3);
    assert_eq!(summary.unpaired.len(), 1);
    assert_eq!(summary.unpaired[0].index, 4);
}

#[test]
fn metrics_bootstrap_intervals_and_mcnemar() {
    let (_dir, tables) = fixture();
    // The intervals (Rust, seeded, around the counts of tests/slt/responses/bootstrap_ci.slt):
    // they bracket the estimate and are reproducible.
    let dir = tempfile::tempdir().unwrap();
    let summary = metrics::run_metrics(&tables, dir.path()).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("bootstrap_ci.csv")).unwrap();
    let again = tempfile::tempdir().unwrap();
    metrics::run_metrics(&tables, again.path()).unwrap();
    assert_eq!(
        csv,
        std::fs::read_to_string(again.path().join("bootstrap_ci.csv")).unwrap(),
        "deterministic bootstrap"
    );
    assert!(summary.metrics.iter().any(|m| m.name == "bootstrap_ci"));
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let val = |name: &str| f[col(name)].parse::<f64>().ok();
        let (aa, lo, hi) = (
            val("aa").unwrap(),
            val("aa_low").unwrap(),
            val("aa_high").unwrap(),
        );
        assert!(lo <= aa && aa <= hi, "{line}");
        if f[col("model")] == "sim-c" && f[col("attack")] == "m3" {
            // Every resample has AA 0 and (when defined) ASR 1.
            assert_eq!((lo, hi), (0.0, 0.0));
            assert_eq!((val("asr_low"), val("asr_high")), (Some(1.0), Some(1.0)));
            assert_eq!(f[col("simulated")], "true");
        }
        if f[col("model")] == "sim-noise" {
            // No solved original: ASR and its interval are empty.
            assert_eq!(f[col("asr")], "");
            assert_eq!(f[col("asr_low")], "");
        }
    }

    // McNemar's exact p-values (Rust) on the discordant pairs of tests/slt/responses/mcnemar.slt:
    // model-a clean_only 2, attacked_only 1 -> p = 2 * P(Bin(3, .5) <= 1) = 2 * 4/8 = 1;
    // model-b 1, 0 -> p = 2 * 1/2 = 1; sim-c 2, 0 -> p = 2 * 1/4 = 0.5; Qwen punct50 3, 0 -> 2/8.
    for (b, c, p) in [(2, 1, 1.0), (1, 0, 1.0), (2, 0, 0.5), (3, 0, 0.25)] {
        assert!(
            (metrics::mcnemar_exact_p(b, c) - p).abs() < 1e-12,
            "{b} {c}"
        );
    }
    let mcsv = std::fs::read_to_string(dir.path().join("mcnemar.csv")).unwrap();
    assert!(
        mcsv.lines()
            .next()
            .unwrap()
            .ends_with("p_value,p_holm,simulated"),
        "{mcsv}"
    );
}

/// The report puts the paper's figures next to advmath's for the published model present
/// (the figures themselves: tests/slt/responses/arithmattack_*.slt).
#[test]
fn metrics_arithmattack_report_sets_the_paper_beside_advmath() {
    let (dir, tables) = fixture();
    let out = dir.path().join("metrics");
    metrics::run_metrics(&tables, &out).unwrap();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("paper and advmath side by side"),
        "{report}"
    );
    assert!(
        report.contains(
            "| gsm8k | Qwen2.5-1.5B-Instruct | paper | 61.10 | 56.02 | 52.69 | 49.35 | 31.59 |"
        ),
        "{report}"
    );
    assert!(
        report.contains("| gsm8k | Qwen2.5-1.5B-Instruct (arithmattack) | advmath | 75.00 | 75.00 | 25.00 | 0.00 | 66.67 |"),
        "{report}"
    );
    assert!(out
        .join("plots/arithmattack_accuracy__arithmattack__gsm8k.svg")
        .is_file());
    let published = metrics::arithmattack_published();
    assert!(published.iter().any(|(d, m, acc, asr)| *d == "multiarith"
        && *m == "zephyr-7b-beta"
        && acc[0] == 37.22
        && *asr == 77.10));
}

#[test]
fn metrics_run_writes_csv_markdown_plots_and_report() {
    let (dir, tables) = fixture();
    let out = dir.path().join("metrics");
    let summary = metrics::run_metrics(&tables, &out).unwrap();
    assert_eq!(summary.tables, vec!["responses".to_string()]);
    // Appendix G reads generation_stats, and GSM-Symbolic's views the variants, which this
    // fixture lacks: skipped and said so.
    assert_eq!(summary.metrics.len(), advmath::metrics::METRICS.len() - 3);
    let needs_variants = "needs table `variants` (missing or empty)".to_string();
    assert_eq!(
        summary.skipped,
        vec![
            (
                "xie_generations".to_string(),
                "needs table `generation_stats` (missing or empty)".to_string()
            ),
            ("gsm_symbolic".to_string(), needs_variants.clone()),
            ("gsm_symbolic_distractor".to_string(), needs_variants),
        ]
    );
    assert!(!out.join("xie_generations.csv").exists());
    assert_eq!(
        summary.simulated_models,
        vec!["sim-c".to_string(), "sim-noise".to_string()],
        "sim-c by its flag and name, sim-noise by its name"
    );
    for m in &summary.metrics {
        assert!(m.csv.is_file() && m.markdown.is_file(), "{}", m.name);
        let md = std::fs::read_to_string(&m.markdown).unwrap();
        assert!(md.starts_with(&format!("# {}", m.title)), "{md}");
        let csv = std::fs::read_to_string(&m.csv).unwrap();
        assert_eq!(csv.lines().count(), m.rows + 1, "{}", m.name);
        // Tables that name models flag the simulated ones in the CSV and mark them in Markdown.
        let header = csv.lines().next().unwrap();
        let names_models = header
            .split(',')
            .any(|c| metrics::MODEL_COLUMNS.contains(&c));
        assert_eq!(
            names_models,
            header.contains("simulated"),
            "{}: {header}",
            m.name
        );
        if md.contains("sim-c") {
            assert!(md.contains("sim-c *(simulated)*"), "{}", m.name);
            assert!(!md.contains("| sim-c |"), "{}", m.name);
        }
    }
    // The model with no solved original has an empty ASR cell.
    let asr = std::fs::read_to_string(out.join("xie_asr.csv")).unwrap();
    let line = asr
        .lines()
        .find(|l| l.starts_with("sim-noise,arithmattack,gsm8k,punct10,"))
        .unwrap();
    assert_eq!(
        line,
        "sim-noise,arithmattack,gsm8k,punct10,4,4,0,1,0,0.25,,0,0,,4,4,0,true"
    );
    let report = std::fs::read_to_string(&summary.report).unwrap();
    for (name, _) in embedded_sql().iter() {
        if *name == "xie_generations" {
            assert!(
                report.contains("* `xie_generations` — not run: it needs table `generation_stats`"),
                "{report}"
            );
        } else if name.starts_with("gsm_symbolic") {
            assert!(
                report.contains(&format!("* `{name}` — not run: it needs table `variants`")),
                "{report}"
            );
        } else {
            assert!(report.contains(&format!("<a id=\"{name}\"></a>")), "{name}");
        }
    }
    for plot in &summary.plots {
        let svg = std::fs::read_to_string(plot).unwrap();
        assert!(
            svg.starts_with("<svg") || svg.contains("<svg"),
            "{}",
            plot.display()
        );
        let rel = plot.strip_prefix(&out).unwrap().display().to_string();
        assert!(
            report.contains(&format!("]({rel})")),
            "{rel} linked from the report"
        );
    }
    assert!(out
        .join("plots/xie_attack_curve__xie2024__toy__m3.svg")
        .is_file());
    assert!(out
        .join("plots/xie_transfer__xie2024__toy__m3.svg")
        .is_file());
    // ArithmAttack Figure 3: one bar per model, its ASR averaged over the noise levels.
    let bars = std::fs::read_to_string(out.join("plots/arithmattack_asr__arithmattack__gsm8k.svg"))
        .unwrap();
    assert!(
        bars.contains("Qwen2.5-1.5B-Instruct") && bars.contains("0.67"),
        "{bars}"
    );
    assert!(
        bars.contains("sim-noise (simulated)") && bars.contains("n/a"),
        "{bars}"
    );
    assert!(report.contains("sim-c *(simulated)*"));

    // The same metrics from a folder of SQL files.
    let mut config = metrics::MetricsConfig::new(&tables, dir.path().join("from-dir"));
    config.sql_dir = Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("sql"));
    let again = metrics::run_metrics_with(&config).unwrap();
    assert_eq!(
        std::fs::read_to_string(again.metrics[0].csv.clone()).unwrap(),
        std::fs::read_to_string(&summary.metrics[0].csv).unwrap()
    );
}

/// Transfer with more models than one 63-bit mask word holds (70 models, so two words): every
/// pair's problems and shared problems equal a direct count over the responses.
#[test]
fn metrics_xie_transfer_counts_pairs_across_mask_words() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let models: Vec<&'static str> = (0..70)
        .map(|m| &*Box::leak(format!("model-{m:02}").into_boxed_str()))
        .collect();
    // About one answer in four wrong, spread so that pairs share some problems and not others.
    let wrong = |m: usize, p: usize, i: usize| {
        (((m as u64 + 1) * (p as u64 * 5 + i as u64 + 3) * 2_654_435_761) >> 7).is_multiple_of(4)
    };
    let (problems, variants) = (3, 4);
    let mut rows = Vec::new();
    for (m, model) in models.iter().enumerate() {
        for p in 0..problems {
            rows.push(graded(model, p, "original", 0, true));
            for i in 0..variants {
                rows.push(graded(model, p, "m3", i, !wrong(m, p, i)));
            }
        }
    }
    write_responses(&tables, &rows);
    let sql = embedded_sql()
        .iter()
        .find(|(name, _)| *name == "xie_transfer")
        .unwrap()
        .1;
    let table = SqlEngine::open(&tables).unwrap().query_table(sql).unwrap();
    assert_eq!(table.len(), models.len() * models.len());
    for r in 0..table.len() {
        let text = |c| table.get(r, c).and_then(Cell::as_str).unwrap().to_string();
        let number = |c| table.get(r, c).and_then(Cell::as_i64).unwrap();
        let index = |name: String| models.iter().position(|m| *m == name).unwrap();
        let (a, b) = (index(text("model_a")), index(text("model_b")));
        let shared = (0..problems)
            .filter(|&p| (0..variants).any(|i| wrong(a, p, i) && wrong(b, p, i)))
            .count() as i64;
        assert_eq!(number("problems"), problems as i64, "{a} x {b}");
        assert_eq!(number("shared_problems"), shared, "{a} x {b}");
    }
    assert!(
        (0..table.len()).any(|r| table.get(r, "shared_problems").and_then(Cell::as_i64) == Some(0)),
        "some pair shares no problem"
    );
    // Universal attacks hold a group's models in one mask word: past 62 models, no prefix figure.
    let sql = embedded_sql()
        .iter()
        .find(|(name, _)| *name == "xie_universal")
        .unwrap()
        .1;
    let universal = SqlEngine::open(&tables).unwrap().query_table(sql).unwrap();
    assert_eq!(universal.len(), models.len());
    for r in 0..universal.len() {
        assert_eq!(
            universal.get(r, "prefix_share"),
            Some(&Cell::Null),
            "row {r}"
        );
    }
}

/// The shared views held in temporary Parquet files (a budget of 0 bytes sends every one there)
/// give every metric the same result as the views computed where they are read.
#[test]
fn metrics_views_kept_on_disk_give_the_same_results() {
    let (_dir, tables) = fixture();
    let views = [
        "problem_outcomes",
        "original_outcomes",
        "attack_outcomes",
        "attack_models",
        "paper_accuracy",
    ];
    let computed = SqlEngine::open(&tables).unwrap();
    let on_disk = SqlEngine::open(&tables).unwrap();
    assert_eq!(on_disk.materialise_views(&views, 0).unwrap(), views);
    for (name, sql) in embedded_sql().iter() {
        if computed.unavailable_tables(sql).unwrap().is_empty() {
            let (a, b) = (
                computed.query_table(sql).unwrap(),
                on_disk.query_table(sql).unwrap(),
            );
            assert_eq!(a.columns, b.columns, "{name}");
            assert_eq!(a.rows, b.rows, "{name}");
        }
    }
}

/// Table 1's OA, AA and ASR, the bootstrap point estimate and McNemar's pairs use one problem
/// set per cell: on the default run and on a study of the Xie release (where some problems have
/// an original but no variant of an attack), every `xie_asr` row's ASR is `bootstrap_ci`'s and
/// its problem count is `mcnemar`'s pairs.
#[test]
fn table1_bootstrap_and_mcnemar_share_one_problem_set() {
    let (_dir, tables) = crate::util::small_tables();
    let mut studies = vec![("default run", tables)];
    let dir = tempfile::tempdir().unwrap();
    if let Some(data) = crate::util::shared_data() {
        crate::util::advmath()
            .args(["run", "--programs", "given"])
            .args(crate::util::SMALL_GENERATION)
            .arg("--out")
            .arg(dir.path())
            .arg(data.join("xie2024/gsm8k"))
            .assert()
            .success();
        studies.push(("Xie GSM8K study", dir.path().join("tables")));
    }
    let metric = |name: &str| {
        let sql = embedded_sql().iter().find(|(n, _)| *n == name).unwrap().1;
        format!("{name} AS ({})", sql.trim().trim_end_matches(';'))
    };
    let ctes = format!(
        "WITH {}, {}, {} ",
        metric("xie_asr"),
        metric("bootstrap_ci"),
        metric("mcnemar")
    );
    for (study, tables) in studies {
        let t = SqlEngine::open(&tables)
            .unwrap()
            .query_table(&format!(
                "{ctes}SELECT COUNT(*) AS cells, \
                 SUM(CASE WHEN a.asr = b.asr OR (a.asr IS NULL AND b.asr IS NULL) THEN 1 ELSE 0 END) AS same_asr, \
                 SUM(CASE WHEN a.problems = m.pairs AND a.problems = b.problems THEN 1 ELSE 0 END) AS same_p, \
                 SUM(CASE WHEN a.attacked_problems > a.problems OR a.all_originals > a.problems THEN 1 ELSE 0 END) AS wider \
                 FROM xie_asr a \
                 JOIN bootstrap_ci b ON b.model = a.model AND b.template = a.template \
                  AND b.dataset = a.dataset AND b.attack = a.attack \
                 JOIN mcnemar m ON m.model = a.model AND m.template = a.template \
                  AND m.dataset = a.dataset AND m.attack = a.attack"
            ))
            .unwrap();
        let n = |c| t.get(0, c).and_then(Cell::as_i64).unwrap();
        eprintln!(
            "{study}: {} cells, {} with a wider set of originals or attacked problems",
            n("cells"),
            n("wider")
        );
        assert!(n("cells") > 0, "{study}");
        assert_eq!(n("same_asr"), n("cells"), "{study}: ASR");
        assert_eq!(n("same_p"), n("cells"), "{study}: P");
        assert!(
            n("wider") > 0,
            "{study}: some cell must have originals outside P"
        );
    }
}

/// Table 2's average per problem, like Appendix F's histogram, takes every problem with graded
/// variants, as the authors' per-problem accuracy does: a problem whose original has no graded
/// answer counts there, and not in the figures over solved problems.
#[test]
fn table_2s_mean_over_every_problem_keeps_one_without_a_graded_original() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let mut rows = vec![graded("m", 0, "original", 0, true)];
    // p0: original right, 1 of 5 variants wrong; p1: no graded original, 5 of 5 wrong.
    rows.extend((0..5).map(|i| graded("m", 0, "m3", i, i != 0)));
    rows.extend((0..5).map(|i| graded("m", 1, "m3", i, false)));
    write_responses(&tables, &rows);
    let engine = SqlEngine::open(&tables).unwrap();
    let query = |name: &str| {
        let sql = embedded_sql().iter().find(|(n, _)| *n == name).unwrap().1;
        engine.query_table(sql).unwrap()
    };
    let table2 = query("xie_incorrect_share");
    assert_eq!(table2.len(), 1);
    let number = |c| table2.get(0, c).and_then(Cell::as_f64).unwrap();
    assert_eq!(number("problems"), 2.0);
    assert_eq!(number("original_correct"), 1.0);
    assert!((number("mean_incorrect_share_all") - 0.6).abs() < 1e-12);
    assert!((number("mean_incorrect_share") - 0.2).abs() < 1e-12);
    assert!((number("pooled_incorrect_share") - 0.2).abs() < 1e-12);
    let histogram = query("xie_incorrect_share_hist");
    let counted: i64 = (0..histogram.len())
        .map(|r| histogram.get(r, "problems").and_then(Cell::as_i64).unwrap())
        .sum();
    assert_eq!(counted, 2);
}
