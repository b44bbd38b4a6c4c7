//! Figure 8 of Xie et al. 2024: accuracy on the M3 variants against six features, one line per
//! (model, template), as SVG, with the plotted points written beside each plot as CSV
//! (`fig8_<panel>.csv`: model, template, x, label, correct, total, accuracy).
//!
//! The panels follow the authors' `generation/question_parse.py` (`process_features`, which
//! aggregates) and `generation/plot.py` (which pools and labels):
//! - **multiplications** (`mult_count` of the `xie2024` set): 0, 1, 2, 3, then "4+" pooled;
//! - **operations** (`operation_count` of `xie2024`: binary operations and unary minus): 0..5,
//!   then "6+";
//! - **answer length**: the paper's "token counts of the final answer", by default under
//!   `cl100k_base` (GPT-3.5's and GPT-4's tokenizer; [`crate::feature_sets::tokens`]) from the
//!   variant's answer text, or its digit count (`answer_digits` of the `advmath` set,
//!   `--answer-length digits`, which is the token count of the LLaMA-family models); and **AST
//!   nodes** (`node_count` of `advmath`): the paper's other two panels, which the released code
//!   does not draw; one point per value;
//! - **range of generated numbers** (`end_log_4_val_<k>`, question numbers and constants pooled,
//!   as the authors do) and **answer range** (`final_log_4_val_<k>`): one point per log-4 bin,
//!   where a variant counts once per number in the bin (the authors weight by the feature's
//!   value), so accuracy is the share of numbers in the bin whose variant was answered correctly.
//!   Bins are labelled and pooled as `plot.py` does: [0, 1/8) [1/8, 1/2) [1/2, 2) [2, 8) [8, 32)
//!   [32, 128) [128, 512) [512, ~2k) [~2k, ~8k) >8k. `plot.py` sends bin −3 to ">8k" (it matches
//!   no label it keeps); advmath puts it in "[0, 1/8)", which its label says it is.
//!
//! Every observed point is drawn (the paper's plot drops none); the CSV gives each point's total.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::{GroupData, GroupKey};
use crate::error::Result;
use crate::feature_sets::xie2024::{log4_column, LOG4_MAX, LOG4_MIN};
use crate::feature_sets::FeatureSet;
use crate::output::{Csv, CsvField, Quote};
use crate::plot::{category_line_chart, CategorySeries};

/// How a panel reads a variant's features: (category, weight) pairs.
enum Measure {
    /// The value of one column, pooled from `pool_at` up when set.
    Count {
        set: FeatureSet,
        column: &'static str,
        pool_at: Option<i64>,
    },
    /// Log-4 bins of one prefix of the `xie2024` set (0 final, 2 end), weighted by their counts.
    Bins { prefix: usize },
    /// The answer's token count under `cl100k_base`, from the variants table.
    AnswerTokens,
}

struct Panel {
    title: &'static str,
    file: &'static str,
    measure: Measure,
}

/// The six panels, in the paper's order.
fn panels(answer_length: AnswerLength) -> Vec<Panel> {
    let count = |set, column, pool_at| Measure::Count {
        set,
        column,
        pool_at,
    };
    vec![
        Panel {
            title: "count of multiplications",
            file: "fig8_multiplications",
            measure: count(FeatureSet::Xie2024, "mult_count", Some(4)),
        },
        Panel {
            title: "count of all operations",
            file: "fig8_operations",
            measure: count(FeatureSet::Xie2024, "operation_count", Some(6)),
        },
        match answer_length {
            AnswerLength::Tokens => Panel {
                title: "answer length (tokens, cl100k_base)",
                file: "fig8_answer_length",
                measure: Measure::AnswerTokens,
            },
            AnswerLength::Digits => Panel {
                title: "answer length (digits)",
                file: "fig8_answer_length",
                measure: count(FeatureSet::Advmath, "answer_digits", None),
            },
        },
        Panel {
            title: "AST nodes",
            file: "fig8_ast_nodes",
            measure: count(FeatureSet::Advmath, "node_count", None),
        },
        Panel {
            title: "range of generated numbers",
            file: "fig8_number_range",
            measure: Measure::Bins { prefix: 2 },
        },
        Panel {
            title: "range of final answers",
            file: "fig8_answer_range",
            measure: Measure::Bins { prefix: 0 },
        },
    ]
}

/// The labels of `plot.py`'s range categories, in order.
pub const RANGE_LABELS: [&str; 10] = [
    "[0, 1/8)",
    "[1/8, 1/2)",
    "[1/2, 2)",
    "[2, 8)",
    "[8, 32)",
    "[32, 128)",
    "[128, 512)",
    "[512, ~2k)",
    "[~2k, ~8k)",
    ">8k",
];

/// The range category of log-4 bin `k`.
pub fn range_category(k: i32) -> i64 {
    (k.clamp(-2, 7) + 2) as i64
}

impl Measure {
    /// The feature set the measure reads (none: it reads the answers).
    fn set(&self) -> Option<FeatureSet> {
        match self {
            Measure::Count { set, .. } => Some(*set),
            Measure::Bins { .. } => Some(FeatureSet::Xie2024),
            Measure::AnswerTokens => None,
        }
    }

    fn visit(&self, row: &[f64], mut add: impl FnMut(i64, f64)) {
        match self {
            Measure::Count {
                set,
                column,
                pool_at,
            } => {
                let j = set.index(column).expect("a fixed column name");
                let v = row[j].round() as i64;
                add(pool_at.map_or(v, |p| v.min(p)), 1.0);
            }
            Measure::Bins { prefix } => {
                for k in LOG4_MIN..=LOG4_MAX {
                    let w = row[log4_column(*prefix, k)];
                    if w > 0.0 {
                        add(range_category(k), w);
                    }
                }
            }
            Measure::AnswerTokens => add(row[0].round() as i64, 1.0),
        }
    }

    fn label(&self, category: i64) -> String {
        match self {
            Measure::Count {
                pool_at: Some(p), ..
            } if category >= *p => format!("{p}+"),
            Measure::Count { .. } | Measure::AnswerTokens => category.to_string(),
            Measure::Bins { .. } => RANGE_LABELS[category as usize].to_string(),
        }
    }
}

/// A drawn panel, or why it was not drawn.
pub struct PanelOut {
    pub title: String,
    /// The SVG's file name, when drawn.
    pub file: Option<String>,
    pub note: Option<String>,
}

/// (correct, total) per (model, template) and category.
type Series = BTreeMap<GroupKey, BTreeMap<i64, (f64, f64)>>;

/// How Figure 8 measures the answer's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum AnswerLength {
    /// Tokens under `cl100k_base` (GPT-3.5's and GPT-4's tokenizer): the paper's "token counts".
    #[default]
    Tokens,
    /// Digits (the token count of LLaMA-family tokenizers, which split numbers into digits).
    Digits,
}

/// Write the panels into `dir`. `answer_tokens` holds each variant's answer token count (as a
/// one-value row), for the token panel.
pub fn figure8(
    dir: &Path,
    groups: &BTreeMap<GroupKey, GroupData>,
    by_set: &HashMap<FeatureSet, HashMap<String, Vec<f64>>>,
    answer_length: AnswerLength,
    answer_tokens: &HashMap<String, Vec<f64>>,
) -> Result<Vec<PanelOut>> {
    // Each variant's feature row, looked up once per set rather than once per panel.
    let resolved: HashMap<FeatureSet, Vec<Vec<Option<&Vec<f64>>>>> = by_set
        .iter()
        .map(|(set, rows)| {
            let per_group = groups
                .values()
                .map(|g| g.variant_ids.iter().map(|vid| rows.get(vid)).collect())
                .collect();
            (*set, per_group)
        })
        .collect();
    let tokens: Vec<Vec<Option<&Vec<f64>>>> = groups
        .values()
        .map(|g| g.variant_ids.iter().map(|v| answer_tokens.get(v)).collect())
        .collect();
    let mut out = Vec::new();
    for panel in panels(answer_length) {
        let title = format!("Accuracy vs {}", panel.title);
        let rows = match panel.measure.set() {
            Some(set) => resolved.get(&set).ok_or(set),
            None => Ok(&tokens),
        };
        let Ok(rows) = rows else {
            let set = rows.unwrap_err();
            out.push(PanelOut {
                title,
                file: None,
                note: Some(format!(
                    "needs the `{set}` feature set (run `advmath features --set {set}`)"
                )),
            });
            continue;
        };
        let mut series: Series = BTreeMap::new();
        for ((key, g), group_rows) in groups.iter().zip(rows) {
            let s = series.entry(key.clone()).or_default();
            for (row, &ok) in group_rows.iter().zip(&g.correct) {
                if let Some(row) = row {
                    panel.measure.visit(row, |c, w| {
                        let e = s.entry(c).or_default();
                        e.0 += if ok { w } else { 0.0 };
                        e.1 += w;
                    });
                }
            }
        }
        let categories: Vec<i64> = series
            .values()
            .flat_map(|s| s.keys().copied())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if categories.is_empty() {
            out.push(PanelOut {
                title,
                file: None,
                note: Some("no variant has this feature".into()),
            });
            continue;
        }
        let labels: Vec<String> = categories.iter().map(|&c| panel.measure.label(c)).collect();
        let position = |c: i64| categories.iter().position(|&x| x == c).unwrap_or(0) as i32;
        write_points(dir, &panel, &series, &labels, &position)?;
        let svg = format!("{}.svg", panel.file);
        let lines: Vec<CategorySeries> = series
            .iter()
            .map(|(key, points)| CategorySeries {
                name: series_label(key),
                points: points
                    .iter()
                    .map(|(&c, &(ok, total))| (position(c), 100.0 * ok / total))
                    .collect(),
            })
            .collect();
        category_line_chart(&dir.join(&svg), &title, panel.title, &lines, &labels)?;
        out.push(PanelOut {
            title,
            file: Some(svg),
            note: None,
        });
    }
    Ok(out)
}

fn series_label((model, template): &GroupKey) -> String {
    format!("{model} ({template})")
}

fn write_points(
    dir: &Path,
    panel: &Panel,
    series: &Series,
    labels: &[String],
    position: &dyn Fn(i64) -> i32,
) -> Result<()> {
    let mut csv = Csv::new(
        [
            "model", "template", "x", "label", "correct", "total", "accuracy",
        ],
        Quote::AllText,
    );
    for ((model, template), points) in series {
        for (&c, &(ok, total)) in points {
            let x = position(c);
            csv.row(&[
                CsvField::Text(model.into()),
                CsvField::Text(template.into()),
                CsvField::Number(x.to_string()),
                CsvField::Text(labels[x as usize].as_str().into()),
                CsvField::Number(ok.to_string()),
                CsvField::Number(total.to_string()),
                CsvField::Number(format!("{:.6}", ok / total)),
            ]);
        }
    }
    Ok(crate::store::write_text(
        &dir.join(format!("{}.csv", panel.file)),
        &csv.finish(),
    )?)
}
