//! The headline of a metrics run: one compact table, model × dataset × attack, with Xie et al.'s
//! OA, AA and ASR for the numeric attacks and ArithmAttack's accuracy and ASR for the noise
//! levels, read from the two papers' own tables (`xie_asr`, `arithmattack_accuracy`,
//! `arithmattack_asr`), and what each row stands on (`problem_sets`: the problems, the questions
//! asked per problem of those generated, and whether the rows share their problems). `run` and
//! `metrics` print it when they end, and `report.md` opens with it.

use std::collections::BTreeMap;

use super::result::{Cell, ResultTable};
use super::MetricSql;
use crate::store::columns;
use crate::vocab::{Attack, Family, Kind};

/// One row: model (with its template when a model has several), dataset, attack, then OA, AA,
/// ASR and the noise accuracy, each absent where the attack has none.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineRow {
    pub model: String,
    pub dataset: String,
    pub attack: String,
    /// Problems with a graded question of the attack.
    pub problems: Option<i64>,
    /// Problems of the row that every row of the model and dataset has.
    pub shared_problems: Option<i64>,
    /// Questions asked (and graded) per problem.
    pub asked_per_problem: Option<f64>,
    /// Variants generated per problem that got any (numeric attacks: `xie_generations`).
    pub generated_per_problem: Option<f64>,
    pub oa: Option<f64>,
    pub aa: Option<f64>,
    /// The row's ASR: Xie et al.'s (OA - AA) / OA, or ArithmAttack's on a noise row.
    pub asr: Option<f64>,
    /// ArithmAttack: accuracy on the questions of this noise level (`original`: clean).
    pub accuracy: Option<f64>,
    /// On a noise row, Xie et al.'s ASR, which the row does not show (`xie_asr` has it).
    pub xie_asr_of_noise: Option<f64>,
}

/// How to read the table, in three lines.
pub const READING_GUIDE: &str = "problems, asked: the problems a row stands on, and the questions asked per problem of the variants generated (\"5 of 100\"); AA and ASR depend on both, since one wrong variant of those asked fails the problem.\nOA, AA, ASR (Xie et al. Table 1): OA is the share of the row's problems whose original is answered right; AA the share whose every asked variant is answered right; ASR = (OA - AA) / OA.\naccuracy, and ASR on `punctNN` rows (ArithmAttack): accuracy on the clean or noised questions, and the share of clean-correct questions answered wrong under that noise. Xie et al.'s ASR of a noise row is in `xie_asr`. On `names` and `noop` rows (GSM-Symbolic, GSM-NoOp; extensions), accuracy is on the changed questions: `gsm_symbolic` has its spread, `gsm_symbolic_distractor` how often a reply used the no-op's number.";

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
    let attack = |t: &ResultTable, r: usize| text(t, r, columns::ATTACK);
    // A noise level as its attack's name: level 0 is the clean question.
    let level = |t: &ResultTable, r: usize| match number(t, r, columns::NOISE_LEVEL).unwrap_or(0.0)
    {
        0.0 => Attack::Original.to_string(),
        l => Attack::Punct(l.round() as u32).to_string(),
    };
    if let Some(t) = table("xie_asr") {
        fill(&mut rows, t, attack, |h, r| {
            h.oa = number(t, r, "oa");
            h.aa = number(t, r, "aa");
            match Attack::of(&h.attack).is_some_and(|a| a.has(Family::Punct)) {
                true => h.xie_asr_of_noise = number(t, r, "asr"),
                false => h.asr = number(t, r, "asr"),
            }
        });
    }
    // A text attack's accuracy (GSM-Symbolic's view pools every graded question).
    if let Some(t) = table("gsm_symbolic") {
        fill(&mut rows, t, attack, |h, r| {
            if Attack::of(&h.attack).is_some_and(|a| a.has_kind(Kind::Text)) {
                h.accuracy = number(t, r, columns::ACCURACY);
            }
        });
    }
    if let Some(t) = table("arithmattack_accuracy") {
        fill(&mut rows, t, level, |h, r| {
            h.accuracy = number(t, r, columns::ACCURACY)
        });
    }
    if let Some(t) = table("arithmattack_asr") {
        fill(&mut rows, t, level, |h, r| h.asr = number(t, r, "asr"));
    }
    if let Some(t) = table("problem_sets") {
        fill(&mut rows, t, attack, |h, r| {
            h.problems = number(t, r, "problems").map(|v| v as i64);
            h.shared_problems = number(t, r, "shared_problems").map(|v| v as i64);
            h.asked_per_problem = number(t, r, "questions_per_problem");
        });
    }
    let mut rows: Vec<HeadlineRow> = rows.into_values().collect();
    if let Some(t) = table("xie_generations") {
        for r in 0..t.len() {
            let (dataset, attack) = (text(t, r, columns::DATASET), text(t, r, columns::ATTACK));
            for h in rows
                .iter_mut()
                .filter(|h| h.dataset == dataset && h.attack == attack)
            {
                h.generated_per_problem = number(t, r, "emitted_per_varied_problem");
            }
        }
    }
    rows
}

/// The notes under the table: for each model and dataset whose rows stand on different problem
/// sets, which sets, and how many problems every row has (OA differs across such rows because
/// their problems do).
pub fn notes(rows: &[HeadlineRow]) -> Vec<String> {
    let mut groups: BTreeMap<(String, String), Vec<&HeadlineRow>> = BTreeMap::new();
    for r in rows {
        groups
            .entry((r.dataset.clone(), r.model.clone()))
            .or_default()
            .push(r);
    }
    // Models asked about the same problems get one note per dataset.
    let mut lines: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for ((dataset, model), rs) in groups {
        let differ = rs
            .iter()
            .any(|r| r.problems.is_some() && r.problems != r.shared_problems);
        let Some(shared) = rs.iter().filter_map(|r| r.shared_problems).min() else {
            continue;
        };
        let text = match differ {
            true => {
                let mut by_count: BTreeMap<i64, Vec<&str>> = BTreeMap::new();
                for r in &rs {
                    if let Some(p) = r.problems {
                        by_count.entry(p).or_default().push(&r.attack);
                    }
                }
                let sets: Vec<String> = by_count
                    .iter()
                    .map(|(n, attacks)| format!("{n} ({})", attacks.join(", ")))
                    .collect();
                format!(
                    "the rows stand on different problem sets: {}; {shared} problems are in every row (a problem has numeric variants only where its program is valid and its draws reach them), so OA differs across rows with their problems",
                    sets.join(", ")
                )
            }
            false => format!("every row stands on the same {shared} problems"),
        };
        lines.entry((dataset, text)).or_default().push(model);
    }
    let datasets: std::collections::BTreeSet<&String> = lines.keys().map(|(d, _)| d).collect();
    let several = |d: &String| lines.keys().filter(|(x, _)| x == d).count() > 1;
    let mut out = Vec::new();
    for d in datasets {
        for ((_, text), models) in lines.iter().filter(|((x, _), _)| x == d) {
            match several(d) {
                true => out.push(format!("{d} ({}): {text}.", models.join(", "))),
                false => out.push(format!("{d}: {text}.")),
            }
        }
    }
    out
}

type Rows = BTreeMap<(String, String, String), HeadlineRow>;

/// Fill from each row `r` of `t` the headline row of its model (with its template when the
/// model has several in `t`), dataset and attack (`attack_of`).
fn fill(
    rows: &mut Rows,
    t: &ResultTable,
    attack_of: impl Fn(&ResultTable, usize) -> String,
    mut set: impl FnMut(&mut HeadlineRow, usize),
) {
    let mut templates: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for r in 0..t.len() {
        templates
            .entry(text(t, r, columns::MODEL))
            .or_default()
            .insert(text(t, r, columns::TEMPLATE));
    }
    for r in 0..t.len() {
        let model = text(t, r, columns::MODEL);
        let model = match templates.get(&model).is_some_and(|s| s.len() > 1) {
            true => format!("{model} [{}]", text(t, r, columns::TEMPLATE)),
            false => model,
        };
        let h = row(rows, model, text(t, r, columns::DATASET), attack_of(t, r));
        set(h, r);
    }
}

/// The row of (model, dataset, attack), made empty when new.
fn row(rows: &mut Rows, model: String, dataset: String, attack: String) -> &mut HeadlineRow {
    rows.entry((model.clone(), dataset.clone(), attack.clone()))
        .or_insert(HeadlineRow {
            model,
            dataset,
            attack,
            problems: None,
            shared_problems: None,
            asked_per_problem: None,
            generated_per_problem: None,
            oa: None,
            aa: None,
            asr: None,
            accuracy: None,
            xie_asr_of_noise: None,
        })
}

fn cell(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_default()
}

pub(super) const HEADER: [&str; 9] = [
    columns::MODEL,
    columns::DATASET,
    columns::ATTACK,
    "problems",
    "asked",
    "OA",
    "AA",
    "ASR",
    columns::ACCURACY,
];

/// A count per problem: whole numbers as such, others to one decimal.
fn per_problem(v: f64) -> String {
    match v.fract() == 0.0 {
        true => format!("{v:.0}"),
        false => format!("{v:.1}"),
    }
}

pub(super) fn cells(r: &HeadlineRow) -> [String; 9] {
    let asked = match (r.asked_per_problem, r.generated_per_problem) {
        (Some(a), Some(g)) if a < g => format!("{} of {}", per_problem(a), per_problem(g)),
        (Some(a), _) if a > 1.0 => format!("all {}", per_problem(a)),
        (Some(a), _) => per_problem(a),
        _ => String::new(),
    };
    [
        r.model.clone(),
        r.dataset.clone(),
        r.attack.clone(),
        r.problems.map(|p| p.to_string()).unwrap_or_default(),
        asked,
        cell(r.oa),
        cell(r.aa),
        cell(r.asr),
        cell(r.accuracy),
    ]
}

/// The headline as a Markdown table.
pub fn markdown(rows: &[HeadlineRow]) -> String {
    let mut out = format!(
        "| {} |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n",
        HEADER.join(" | ")
    );
    for r in rows {
        out.push_str(&format!("| {} |\n", cells(r).join(" | ")));
    }
    out
}

/// The headline as aligned plain text, for a terminal.
pub fn plain(rows: &[HeadlineRow]) -> String {
    let all: Vec<[String; 9]> = std::iter::once(HEADER.map(String::from))
        .chain(rows.iter().map(cells))
        .collect();
    let width: Vec<usize> = (0..9)
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
    for note in notes(rows) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}
