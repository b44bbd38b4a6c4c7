//! The headline of a metrics run: one compact table, model × dataset × attack, with Xie et al.'s
//! OA, AA and ASR for the numeric attacks and ArithmAttack's accuracy and ASR for the noise
//! levels, read from the two papers' own tables (`xie_asr`, `arithmattack_accuracy`,
//! `arithmattack_asr`). `run` and `metrics` print it when they end, and `report.md` opens with it.

use std::collections::BTreeMap;

use super::result::{Cell, ResultTable};
use super::MetricSql;
use crate::store::columns;

/// One row: model (with its template when a model has several), dataset, attack, then OA, AA,
/// ASR and the noise accuracy, each absent where the attack has none.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineRow {
    pub model: String,
    pub dataset: String,
    pub attack: String,
    pub oa: Option<f64>,
    pub aa: Option<f64>,
    pub asr: Option<f64>,
    /// ArithmAttack: accuracy on the questions of this noise level (`original`: clean).
    pub accuracy: Option<f64>,
    /// ArithmAttack's ASR at this noise level.
    pub noise_asr: Option<f64>,
}

/// How to read the table, in two lines.
pub const READING_GUIDE: &str = "OA, AA, ASR (Xie et al. Table 1, every attack): OA is the share of original problems answered right; AA the share of those problems whose every variant is answered right, so one wrong variant of the m fails the problem and AA sits far below the share of variants answered right; ASR = (OA - AA) / OA.\naccuracy, noise ASR (ArithmAttack, `original` and `punctNN` rows): accuracy on the clean or noised questions, and the share of clean-correct questions answered wrong under that noise.";

fn text(t: &ResultTable, r: usize, c: &str) -> String {
    t.get(r, c)
        .and_then(Cell::as_str)
        .unwrap_or_default()
        .to_string()
}

fn number(t: &ResultTable, r: usize, c: &str) -> Option<f64> {
    t.get(r, c).and_then(Cell::as_f64)
}

/// The headline rows of a run's results, in (model, dataset, attack) order; none when the run
/// has no response to score.
pub fn headline(results: &[(MetricSql, ResultTable)]) -> Vec<HeadlineRow> {
    let table = |name: &str| results.iter().find(|(m, _)| m.name == name).map(|(_, t)| t);
    let mut rows: Rows = BTreeMap::new();
    let several_templates = |t: &ResultTable| {
        let mut by_model: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
        for r in 0..t.len() {
            by_model
                .entry(text(t, r, columns::MODEL))
                .or_default()
                .insert(text(t, r, columns::TEMPLATE));
        }
        move |model: &str| by_model.get(model).is_some_and(|s| s.len() > 1)
    };
    let name = |t: &ResultTable, r: usize, several: &dyn Fn(&str) -> bool| {
        let model = text(t, r, columns::MODEL);
        match several(&model) {
            true => format!("{model} [{}]", text(t, r, columns::TEMPLATE)),
            false => model,
        }
    };
    if let Some(t) = table("xie_asr") {
        let several = several_templates(t);
        for r in 0..t.len() {
            let h = row(
                &mut rows,
                name(t, r, &several),
                text(t, r, columns::DATASET),
                text(t, r, columns::ATTACK),
            );
            h.oa = number(t, r, "oa");
            h.aa = number(t, r, "aa");
            h.asr = number(t, r, "asr");
        }
    }
    if let Some(t) = table("arithmattack_accuracy") {
        let several = several_templates(t);
        for r in 0..t.len() {
            let level = number(t, r, columns::NOISE_LEVEL).unwrap_or(0.0);
            let attack = match level == 0.0 {
                true => "original".to_string(),
                false => format!("punct{level:.0}"),
            };
            let h = row(
                &mut rows,
                name(t, r, &several),
                text(t, r, columns::DATASET),
                attack,
            );
            h.accuracy = number(t, r, columns::ACCURACY);
        }
    }
    if let Some(t) = table("arithmattack_asr") {
        let several = several_templates(t);
        for r in 0..t.len() {
            let level = number(t, r, columns::NOISE_LEVEL).unwrap_or(0.0);
            let h = row(
                &mut rows,
                name(t, r, &several),
                text(t, r, columns::DATASET),
                format!("punct{level:.0}"),
            );
            h.noise_asr = number(t, r, "asr");
        }
    }
    rows.into_values().collect()
}

type Rows = BTreeMap<(String, String, String), HeadlineRow>;

/// The row of (model, dataset, attack), made empty when new.
fn row(rows: &mut Rows, model: String, dataset: String, attack: String) -> &mut HeadlineRow {
    rows.entry((model.clone(), dataset.clone(), attack.clone()))
        .or_insert(HeadlineRow {
            model,
            dataset,
            attack,
            oa: None,
            aa: None,
            asr: None,
            accuracy: None,
            noise_asr: None,
        })
}

fn cell(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_default()
}

pub(super) const HEADER: [&str; 8] = [
    columns::MODEL,
    columns::DATASET,
    columns::ATTACK,
    "OA",
    "AA",
    "ASR",
    columns::ACCURACY,
    "noise ASR",
];

pub(super) fn cells(r: &HeadlineRow) -> [String; 8] {
    [
        r.model.clone(),
        r.dataset.clone(),
        r.attack.clone(),
        cell(r.oa),
        cell(r.aa),
        cell(r.asr),
        cell(r.accuracy),
        cell(r.noise_asr),
    ]
}

/// The headline as a Markdown table.
pub fn markdown(rows: &[HeadlineRow]) -> String {
    let mut out = format!(
        "| {} |\n|---|---|---|---:|---:|---:|---:|---:|\n",
        HEADER.join(" | ")
    );
    for r in rows {
        out.push_str(&format!("| {} |\n", cells(r).join(" | ")));
    }
    out
}

/// The headline as aligned plain text, for a terminal.
pub fn plain(rows: &[HeadlineRow]) -> String {
    let all: Vec<[String; 8]> = std::iter::once(HEADER.map(String::from))
        .chain(rows.iter().map(cells))
        .collect();
    let width: Vec<usize> = (0..8)
        .map(|c| all.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &all {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, v)| match c < 3 {
                true => format!("{v:<w$}", w = width[c]),
                false => format!("{v:>w$}", w = width[c]),
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
