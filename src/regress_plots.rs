//! Figure 8-style plots: each model's accuracy against a feature of the variants (SVG).

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::features::{feature_index, FEATURE_COUNT, RANGE_SUFFIXES};

type Rows = (Vec<[f64; FEATURE_COUNT]>, Vec<bool>);
/// A panel: title, file name, and the value it plots for a row of features.
type Panel = (&'static str, &'static str, Value);
/// The value a panel plots for a row of features.
type Value = Box<dyn Fn(&[f64; FEATURE_COUNT]) -> f64>;

/// The index of the highest range bin with a count among `<prefix>_<suffix>` columns.
fn top_bin(row: &[f64; FEATURE_COUNT], prefix: &str) -> f64 {
    RANGE_SUFFIXES
        .iter()
        .enumerate()
        .filter(|(_, s)| feature_index(&format!("{prefix}{s}")).is_some_and(|j| row[j] > 0.0))
        .map(|(i, _)| i as f64)
        .next_back()
        .unwrap_or(0.0)
}

/// The six panels of the paper's Figure 8: (title, file name, value of a row).
fn panels() -> Vec<Panel> {
    let col = |name: &'static str| -> Value {
        let j = feature_index(name).expect("a fixed feature name");
        Box::new(move |r| r[j])
    };
    vec![
        ("multiplications", "fig8_mul.svg", col("mul")),
        ("operations", "fig8_operations.svg", col("operation_count")),
        (
            "answer digits",
            "fig8_answer_digits.svg",
            col("answer_digits"),
        ),
        ("tree nodes", "fig8_nodes.svg", col("node_count")),
        (
            "range of generated numbers (largest base-4 bin)",
            "fig8_number_range.svg",
            Box::new(|r| top_bin(r, "leaf_range")),
        ),
        (
            "answer range (base-4 bin)",
            "fig8_answer_range.svg",
            Box::new(|r| top_bin(r, "answer_range")),
        ),
    ]
}

/// Write the plots into `dir`; returns (title, file name) of each.
pub fn figure8(dir: &Path, data: &BTreeMap<String, Rows>) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (title, file, value) in panels() {
        // model -> x -> (correct, total)
        let mut series: BTreeMap<&str, BTreeMap<i64, (usize, usize)>> = BTreeMap::new();
        for (model, (rows, y)) in data {
            let s = series.entry(model).or_default();
            for (r, &ok) in rows.iter().zip(y) {
                let e = s.entry(value(r).round() as i64).or_default();
                e.0 += ok as usize;
                e.1 += 1;
            }
        }
        // Points backed by fewer than 10 answers are noise, not a trend.
        let points: BTreeMap<&str, Vec<(f64, f64)>> = series
            .iter()
            .map(|(m, s)| {
                (
                    *m,
                    s.iter()
                        .filter(|(_, (_, t))| *t >= 10)
                        .map(|(x, (c, t))| (*x as f64, 100.0 * *c as f64 / *t as f64))
                        .collect(),
                )
            })
            .collect();
        let xs: Vec<f64> = points.values().flatten().map(|p| p.0).collect();
        if xs.is_empty() {
            continue;
        }
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let path = dir.join(file);
        let draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
            let root = SVGBackend::new(&path, (640, 400)).into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(format!("Accuracy vs {title}"), ("sans-serif", 18))
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(45)
                .build_cartesian_2d((lo - 0.5)..(hi + 0.5), 0.0..100.0)?;
            chart
                .configure_mesh()
                .x_desc(title)
                .y_desc("accuracy %")
                .draw()?;
            for (i, (model, pts)) in points.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                    .label(*model)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                    });
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
            root.present()?;
            Ok(())
        };
        draw().map_err(|e| Error::invalid(path.display(), format!("plot failed: {e}")))?;
        out.push((format!("Accuracy vs {title}"), file.to_string()));
    }
    Ok(out)
}
