//! `report.md` of `advmath metrics`: the metric tables, paper figures side by side, simulated
//! models marked, and the plots the `plots` module drew.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::plots::{display_model, float_of, text_of};
use super::{
    arithmattack_published, stats, MetricSql, MetricsConfig, ResultTable, SqlEngine, TableState,
    REPORT_ROWS,
};
use crate::store::columns;

/// What the metrics' hooks made for the report, by metric: the plots (title and file of each)
/// and a section printed after the metric's own.
#[derive(Debug, Default)]
pub(super) struct Additions {
    pub plots: BTreeMap<String, Vec<(String, PathBuf)>>,
    pub sections: BTreeMap<String, String>,
}

/// The ArithmAttack paper's figures next to advmath's for the published models present.
pub(super) fn arithmattack_side_by_side(
    results: &[(MetricSql, ResultTable)],
    simulated: &HashSet<String>,
) -> Option<String> {
    let accuracy = &results
        .iter()
        .find(|(m, _)| m.name == "arithmattack_accuracy")?
        .1;
    let asr = results
        .iter()
        .find(|(m, _)| m.name == "arithmattack_asr")
        .map(|(_, t)| t);
    // (dataset, published model) -> [(advmath model, template)]
    let mut lines = Vec::new();
    for (dataset, published, paper, paper_asr) in arithmattack_published() {
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        for r in 0..accuracy.len() {
            let model = text_of(accuracy, r, columns::MODEL);
            if text_of(accuracy, r, columns::DATASET).eq_ignore_ascii_case(dataset)
                && stats::matches_published_model(&model, published)
            {
                seen.insert((model, text_of(accuracy, r, columns::TEMPLATE)));
            }
        }
        for (model, template) in seen {
            let level = |l: f64| -> Option<f64> {
                (0..accuracy.len()).find_map(|r| {
                    (text_of(accuracy, r, columns::MODEL) == model
                        && text_of(accuracy, r, columns::TEMPLATE) == template
                        && text_of(accuracy, r, columns::DATASET).eq_ignore_ascii_case(dataset)
                        && float_of(accuracy, r, columns::NOISE_LEVEL) == Some(l))
                    .then(|| float_of(accuracy, r, columns::ACCURACY))
                    .flatten()
                })
            };
            let ours: Vec<Option<f64>> = [0.0, 10.0, 30.0, 50.0]
                .iter()
                .map(|&l| level(l).map(|v| v * 100.0))
                .collect();
            let our_asr = asr.and_then(|t| {
                (0..t.len()).find_map(|r| {
                    (text_of(t, r, columns::MODEL) == model
                        && text_of(t, r, columns::TEMPLATE) == template
                        && text_of(t, r, columns::DATASET).eq_ignore_ascii_case(dataset))
                    .then(|| float_of(t, r, "asr_mean"))
                    .flatten()
                    .map(|v| v * 100.0)
                })
            });
            let fmt = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_default();
            let diff = |ours: Option<f64>, paper: f64| {
                ours.map(|v| format!("{:+.2}", v - paper))
                    .unwrap_or_default()
            };
            let name = display_model(&model, simulated);
            lines.push(format!(
                "| {dataset} | {published} | paper | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                paper[0], paper[1], paper[2], paper[3], paper_asr
            ));
            lines.push(format!(
                "| {dataset} | {name} ({template}) | advmath | {} | {} | {} | {} | {} |",
                fmt(ours[0]),
                fmt(ours[1]),
                fmt(ours[2]),
                fmt(ours[3]),
                fmt(our_asr)
            ));
            lines.push(format!(
                "| {dataset} | | advmath - paper | {} | {} | {} | {} | {} |",
                diff(ours[0], paper[0]),
                diff(ours[1], paper[1]),
                diff(ours[2], paper[2]),
                diff(ours[3], paper[3]),
                diff(our_asr, *paper_asr)
            ));
        }
    }
    if lines.is_empty() {
        return None;
    }
    let mut out = String::from(
        "### ArithmAttack: paper and advmath side by side\n\n\
         Accuracy (%) on clean questions and at 10 / 30 / 50 % punctuation noise, and ASR (%), \
         as published (Abedin et al., Tables 1 and 3; `advmath::metrics::arithmattack_published`) \
         and as measured here.\n\n\
         | dataset | model | source | clean | noise 10 | noise 30 | noise 50 | ASR |\n\
         |---|---|---|---:|---:|---:|---:|---:|\n",
    );
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    Some(out)
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

pub(super) fn report_markdown(
    config: &MetricsConfig,
    engine: &SqlEngine,
    results: &[(MetricSql, ResultTable)],
    simulated: &BTreeSet<String>,
    simulated_set: &HashSet<String>,
    additions: &Additions,
    skipped: &[(String, String)],
) -> String {
    let mut out = String::from("# advmath metrics report\n\n");
    let rows = super::headline::headline(results);
    if !rows.is_empty() {
        out.push_str("## Headline\n\n");
        out.push_str(&super::headline::markdown(&rows));
        out.push('\n');
        for note in super::headline::notes(&rows) {
            out.push_str(&note);
            out.push_str("\n\n");
        }
        for line in super::headline::READING_GUIDE.lines() {
            out.push_str(line);
            out.push_str("\n\n");
        }
    }
    out.push_str(&format!(
        "Tables: `{}` (registered: {}).\n\n",
        crate::store::location::display(engine.tables_dir()),
        engine.registered().join(", ")
    ));
    // The tables this run lacks come last: they are what the run did not make, not errors.
    let mut absent = String::new();
    for t in engine.tables() {
        match t.state {
            TableState::Missing => absent.push_str(&format!(
                "* table `{}` is not in this folder (made by a step this run did not take; expected `{}`)\n",
                t.layout.name, t.layout.pattern
            )),
            TableState::Empty => absent.push_str(&format!(
                "* table `{}` is empty (no .parquet file)\n",
                t.layout.name
            )),
            TableState::Registered { .. } => {}
        }
    }
    if simulated.is_empty() {
        out.push_str("No simulated model.\n\n");
    } else {
        out.push_str(&format!(
            "Simulated models (never a real LLM; `simulated` = true, or a name starting with `sim-` or `oracle`), marked *(simulated)* in every table: {}.\n\n",
            simulated.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    out.push_str(
        "Shares are fractions in [0, 1]. An empty cell is undefined (e.g. an ASR for a model that solves no original). \
         Each metric is one SQL file (`sql/<metric>.sql`), portable between DataFusion and DuckDB.\n\n## Contents\n\n",
    );
    for (m, t) in results {
        out.push_str(&format!(
            "* [{}](#{}) — {} rows\n",
            m.title(),
            m.name,
            t.len()
        ));
    }
    for (name, reason) in skipped {
        out.push_str(&format!("* `{name}` — not run: it {reason}\n"));
    }
    for (m, t) in results {
        out.push_str(&format!(
            "\n<a id=\"{}\"></a>\n## {}\n\n`{}` — {}\n\n",
            m.name,
            m.title(),
            m.name,
            m.description()
        ));
        out.push_str(&t.to_markdown(simulated_set, Some(REPORT_ROWS)));
        out.push_str(&format!(
            "\nFull table: [{0}.md]({0}.md), [{0}.csv]({0}.csv).\n",
            m.name
        ));
        if let Some(list) = additions.plots.get(&m.name) {
            for (title, path) in list {
                out.push_str(&format!("\n![{title}]({})\n", relative(path, &config.out)));
            }
        }
        if let Some(text) = additions.sections.get(&m.name) {
            out.push('\n');
            out.push_str(text);
        }
    }
    if !absent.is_empty() {
        out.push_str("\n## Tables not in this run\n\n");
        out.push_str(&absent);
    }
    out
}
