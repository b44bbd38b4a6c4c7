//! Every embedded metric, once: its SQL file under `sql/` (named by the metric) and what a
//! metrics run does with its result besides writing it — statistics computed in Rust from the
//! SQL's counts, the plots drawn from it, a section the report adds after it. The report lists
//! the metrics in this table's order; a test checks that it names exactly the files of `sql/`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::plots::transfer_plots;
use super::plots::{appendix, asr_bar_plots, attack_curve_plots, human_eval_plots, noise_plots};
use super::report::{arithmattack_side_by_side, Additions};
use super::{stats, MetricSql, MetricsConfig, ResultTable};
use crate::error::Result;

/// Columns a metric's table gains in Rust after its query (intervals, exact p-values).
pub(super) type Statistics = fn(&mut ResultTable, &MetricsConfig) -> Result<()>;
/// The charts drawn from a metric's table under a folder: each with its title and file.
pub(super) type Plots = fn(&ResultTable, &Path, &HashSet<String>) -> Result<Vec<(String, PathBuf)>>;
/// A section the report prints after the metric's own, from every metric's results.
pub(super) type ReportSection = fn(&[(MetricSql, ResultTable)], &HashSet<String>) -> Option<String>;

/// One metric: its name (the SQL file's stem), the SQL text, and its hooks.
pub struct Metric {
    pub name: &'static str,
    pub sql: &'static str,
    pub(super) statistics: Option<Statistics>,
    pub(super) plots: Option<Plots>,
    pub(super) report_section: Option<ReportSection>,
}

/// A metric with no hook: its table is the whole result.
const PLAIN: Metric = Metric {
    name: "",
    sql: "",
    statistics: None,
    plots: None,
    report_section: None,
};

macro_rules! metric {
    ($name:literal $(, $hook:ident: $value:expr)* $(,)?) => {
        Metric {
            name: $name,
            sql: include_str!(concat!("../../sql/", $name, ".sql")),
            $($hook: Some($value),)*
            ..PLAIN
        }
    };
}

/// The embedded metrics, in report order.
pub const METRICS: &[Metric] = &[
    metric!("xie_asr"),
    metric!("problem_sets"),
    metric!(
        "bootstrap_ci",
        statistics: |table, config| stats::add_bootstrap_columns(table, config.replicates, config.seed),
    ),
    metric!("mcnemar", statistics: |table, _| stats::add_mcnemar_column(table)),
    metric!("xie_rephrasing"),
    metric!("xie_incorrect_share"),
    metric!("xie_incorrect_share_hist", plots: appendix::incorrect_share_plots),
    metric!("xie_universal"),
    metric!("xie_transfer", plots: transfer_plots),
    metric!("xie_efficient"),
    metric!("xie_human_eval", plots: |table, dir, _| human_eval_plots(table, dir)),
    metric!("xie_attack_curve", plots: attack_curve_plots),
    metric!("xie_generations", plots: |table, dir, _| appendix::generation_plots(table, dir)),
    metric!("arithmattack_accuracy", plots: noise_plots),
    metric!(
        "arithmattack_asr",
        plots: asr_bar_plots,
        report_section: arithmattack_side_by_side,
    ),
    metric!("arithmattack_miss_rate"),
    metric!("gsm_symbolic"),
    metric!("gsm_symbolic_distractor"),
    metric!("gsm_plus"),
    metric!("abstention"),
    metric!(
        "guided_attack",
        statistics: |table, config| super::guided::add_interval_columns(table, config.replicates, config.seed),
    ),
];

/// The hooks of the metric named `name`: a folder's file named like an embedded metric gets
/// that metric's statistics, plots and report section; any other file is plain.
pub(super) fn hooks_of(name: &str) -> &'static Metric {
    METRICS.iter().find(|m| m.name == name).unwrap_or(&PLAIN)
}

/// Every hook's output over a run's results: each metric's plots, drawn under `dir`, and its
/// report section.
pub(super) fn additions(
    results: &[(MetricSql, ResultTable)],
    dir: &Path,
    simulated: &HashSet<String>,
) -> Result<Additions> {
    let mut out = Additions::default();
    for (metric, table) in results {
        let hooks = hooks_of(&metric.name);
        if let Some(draw) = hooks.plots {
            let made = draw(table, dir, simulated)?;
            if !made.is_empty() {
                out.plots.insert(metric.name.clone(), made);
            }
        }
        if let Some(section) = hooks.report_section {
            if let Some(text) = section(results, simulated) {
                out.sections.insert(metric.name.clone(), text);
            }
        }
    }
    Ok(out)
}
