//! The SVG charts of the reports: the metrics report's line charts, heatmaps and bar charts, and
//! the feature study's Figure 8 panels (plotters' SVG backend: text is written as SVG text, no
//! font files needed).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{Error, Result};

/// One line of a line chart.
pub(crate) struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

fn plot_error(path: &Path, e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
    Error::Plot {
        path: path.to_path_buf(),
        source: e.into(),
    }
}

fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let cut: String = name.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// A hover label over one mark of a chart, in the SVG's pixels: the exact figure the mark
/// stands for, which the drawn labels round. Browsers show an SVG `<title>` on hover, in the
/// file and in the HTML report that inlines it.
enum Tip {
    Point((i32, i32), String),
    Area((i32, i32), (i32, i32), String),
}

fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Add the tips to a written SVG, as a transparent layer on top of the chart.
fn add_tips(path: &Path, tips: &[Tip]) -> Result<()> {
    let svg = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    let Some(end) = svg.rfind("</svg>") else {
        return Err(plot_error(path, "the SVG written has no closing tag"));
    };
    let mut layer =
        String::from("<g class=\"tips\" fill=\"transparent\" pointer-events=\"all\">\n");
    for tip in tips {
        match tip {
            Tip::Point((x, y), label) => layer.push_str(&format!(
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"7\"><title>{}</title></circle>\n",
                xml_text(label)
            )),
            Tip::Area((x0, y0), (x1, y1), label) => layer.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>\n",
                x0.min(x1),
                y0.min(y1),
                (x1 - x0).abs().max(1),
                (y1 - y0).abs().max(1),
                xml_text(label)
            )),
        }
    }
    layer.push_str("</g>\n");
    let (before, after) = svg.split_at(end);
    std::fs::write(path, format!("{before}{layer}{after}")).map_err(|e| Error::file(path, e))
}

/// A number as exactly as it is held: integers without a point, others in full.
fn exact(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        v.to_string()
    }
}

/// A line chart of shares (y in [0, 1]) against `x_range`, one coloured line with markers per
/// series and a legend.
pub(crate) fn line_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    x_range: (f64, f64),
    series: &[Series],
) -> Result<()> {
    let (x0, mut x1) = x_range;
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let pad = (x1 - x0) * 0.03;
    let root = SVGBackend::new(path, (860, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(42)
        .y_label_area_size(56)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..1.02f64)
        .map_err(|e| plot_error(path, e))?;
    // Integer x values (k, noise levels): one tick per distinct x when there are few.
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let integral = xs.iter().all(|x| x.fract() == 0.0);
    let x_format = |x: &f64| {
        if integral {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(if integral && xs.len() <= 20 {
            xs.len().max(2)
        } else {
            10
        })
        .x_label_formatter(&x_format)
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| plot_error(path, e))?;
    let mut tips = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).mix(0.95);
        for &(x, y) in &s.points {
            tips.push(Tip::Point(
                chart.backend_coord(&(x, y)),
                format!("{}: {x_desc} {}, {y_desc} {}", s.name, exact(x), exact(y)),
            ));
        }
        chart
            .draw_series(LineSeries::new(s.points.clone(), color.stroke_width(2)))
            .map_err(|e| plot_error(path, e))?
            .label(short(&s.name, 40))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| plot_error(path, e))?;
    }
    if !series.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| plot_error(path, e))?;
    }
    root.present().map_err(|e| plot_error(path, e))?;
    drop(chart);
    drop(root);
    add_tips(path, &tips)
}

/// A heatmap of shares in [0, 1]: `values[row][col]` (None is grey), rows and columns named by
/// `names`, each cell labelled with its value.
pub(crate) fn heatmap(
    path: &Path,
    title: &str,
    row_desc: &str,
    col_desc: &str,
    names: &[String],
    values: &[Vec<Option<f64>>],
) -> Result<()> {
    let n = names.len().max(1) as i32;
    let cell = 96u32;
    let width = 230 + cell * n as u32;
    let height = 180 + cell * n as u32;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let labels: Vec<String> = names.iter().map(|s| short(s, 15)).collect();
    let label_of = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    // Row 0 at the top.
    let row_label = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => labels
            .get((n - 1 - *i) as usize)
            .cloned()
            .unwrap_or_default(),
        _ => String::new(),
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 17))
        .margin(14)
        .x_label_area_size(52)
        .y_label_area_size(150)
        // An integer range is inclusive as a discrete axis: 0..n-1 gives n segments.
        .build_cartesian_2d((0..n - 1).into_segmented(), (0..n - 1).into_segmented())
        .map_err(|e| plot_error(path, e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(n as usize + 1)
        .y_labels(n as usize + 1)
        .x_label_formatter(&label_of)
        .y_label_formatter(&row_label)
        .x_desc(col_desc)
        .y_desc(row_desc)
        .draw()
        .map_err(|e| plot_error(path, e))?;
    let mut cells = Vec::new();
    let mut tips = Vec::new();
    for (r, row) in values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let y = n - 1 - r as i32;
            cells.push((c as i32, y, *v));
            let corner = |x: i32, y: i32| {
                chart.backend_coord(&(SegmentValue::Exact(x), SegmentValue::Exact(y)))
            };
            let name = |i: usize| names.get(i).map(String::as_str).unwrap_or_default();
            tips.push(Tip::Area(
                corner(c as i32, y),
                corner(c as i32 + 1, y + 1),
                format!(
                    "{row_desc} {}, {col_desc} {}: {}",
                    name(r),
                    name(c),
                    v.map(exact).unwrap_or_else(|| "no value".into())
                ),
            ));
        }
    }
    chart
        .draw_series(cells.iter().map(|&(x, y, v)| {
            let color = match v {
                Some(v) => {
                    let v = v.clamp(0.0, 1.0);
                    let fade = (255.0 * (1.0 - v)).round() as u8;
                    RGBColor(255, fade, fade)
                }
                None => RGBColor(200, 200, 200),
            };
            Rectangle::new(
                [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ],
                color.filled(),
            )
        }))
        .map_err(|e| plot_error(path, e))?;
    let style = ("sans-serif", 13)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    chart
        .draw_series(cells.iter().map(|&(x, y, v)| {
            let label = v.map(|v| format!("{v:.2}")).unwrap_or_default();
            Text::new(
                label,
                (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                style.clone(),
            )
        }))
        .map_err(|e| plot_error(path, e))?;
    root.present().map_err(|e| plot_error(path, e))?;
    drop(chart);
    drop(root);
    add_tips(path, &tips)
}

/// A bar chart of shares in [0, 1], one labelled bar per name (None: no bar, the label says
/// "n/a").
pub(crate) fn bar_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    bars: &[(String, Option<f64>)],
) -> Result<()> {
    let n = bars.len().max(1) as i32;
    let width = (200 + 110 * n as u32).max(520);
    let root = SVGBackend::new(path, (width, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let labels: Vec<String> = bars.iter().map(|(name, _)| short(name, 24)).collect();
    let label_of = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(52)
        .y_label_area_size(56)
        // An integer range is inclusive as a discrete axis: 0..n-1 gives n segments.
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..1.02f64)
        .map_err(|e| plot_error(path, e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n as usize + 1)
        .x_label_formatter(&label_of)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| plot_error(path, e))?;
    let color = Palette99::pick(0).mix(0.9);
    let tips: Vec<Tip> = bars
        .iter()
        .enumerate()
        .map(|(i, (name, v))| {
            let top = v.map_or(0.0, |v| v.clamp(0.0, 1.0));
            Tip::Area(
                chart.backend_coord(&(SegmentValue::Exact(i as i32), 0.0)),
                chart.backend_coord(&(SegmentValue::Exact(i as i32 + 1), top.max(0.05))),
                format!("{name}: {}", v.map(exact).unwrap_or_else(|| "n/a".into())),
            )
        })
        .collect();
    chart
        .draw_series(bars.iter().enumerate().filter_map(|(i, (_, v))| {
            let v = (*v)?.clamp(0.0, 1.0);
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i as i32), 0.0),
                    (SegmentValue::Exact(i as i32 + 1), v),
                ],
                color.filled(),
            );
            bar.set_margin(0, 0, 18, 18);
            Some(bar)
        }))
        .map_err(|e| plot_error(path, e))?;
    let style = ("sans-serif", 13)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    chart
        .draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
            let (label, y) = match v {
                Some(v) => (format!("{v:.2}"), v.clamp(0.0, 1.0)),
                None => ("n/a".to_string(), 0.0),
            };
            Text::new(
                label,
                (SegmentValue::CenterOf(i as i32), y + 0.01),
                style.clone(),
            )
        }))
        .map_err(|e| plot_error(path, e))?;
    root.present().map_err(|e| plot_error(path, e))?;
    drop(chart);
    drop(root);
    add_tips(path, &tips)
}

/// One line of a chart over named categories: (category position, y) points.
pub(crate) struct CategorySeries {
    pub name: String,
    pub points: Vec<(i32, f64)>,
}

/// A line chart of percentages (y in [0, 100]) over categories named by `labels` (position i is
/// `labels[i]`), one coloured line with markers per series and a legend.
pub(crate) fn category_line_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    series: &[CategorySeries],
    labels: &[String],
) -> Result<()> {
    let last = (labels.len() as i32 - 1).max(1);
    let mut tips = Vec::new();
    let mut draw = || -> std::result::Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let root = SVGBackend::new(path, (720, 420)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(45)
            .build_cartesian_2d((0..last).into_segmented(), 0.0..100.0)?;
        let label_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                labels.get(*i as usize).cloned().unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .x_labels(labels.len() + 1)
            .x_label_formatter(&label_of)
            .x_desc(x_desc)
            .y_desc("accuracy %")
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(SegmentValue<i32>, f64)> = s
                .points
                .iter()
                .map(|&(x, y)| (SegmentValue::CenterOf(x), y))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.iter().cloned(), color.stroke_width(2)))?
                .label(s.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
            chart.draw_series(
                pts.iter()
                    .map(|p| Circle::new(p.clone(), 3, color.filled())),
            )?;
            for (p, &(x, y)) in pts.iter().zip(&s.points) {
                let label = labels
                    .get(x as usize)
                    .map(String::as_str)
                    .unwrap_or_default();
                tips.push(Tip::Point(
                    chart.backend_coord(p),
                    format!("{}, {x_desc} {label}: accuracy {}%", s.name, exact(y)),
                ));
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| plot_error(path, e))?;
    add_tips(path, &tips)
}
