//! `report.html`: the metrics report as one page a browser opens from disk. Every metric table
//! (sortable and filterable), every plot inline, and a browser of adversarial examples: the
//! original beside the variant with what changed marked, both gold answers, and each model's reply
//! with the answer the extraction read.
//!
//! The page is self-contained: its style, script, plots and data are inside it, and its content
//! security policy (`default-src 'none'`) forbids every request, so it works offline and leaks
//! nothing. The examples are a bounded sample (`sql/report/examples.sql`: per dataset and attack,
//! the problems whose variants fool the most models), so a whole-GSM8K study gives a page of the
//! same order of size as the default run's; the script renders one problem at a time.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::result::{Cell, ResultTable};
use super::{MetricSql, SqlEngine};
use crate::error::{Error, Result};
use crate::store::columns;

/// Rows of a metric table the page holds; the CSV beside it has them all.
const PAGE_ROWS: usize = 2000;

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// What the page shows besides the metric tables.
pub(super) struct Page<'a> {
    pub tables: String,
    pub simulated: &'a HashSet<String>,
    pub plots: &'a BTreeMap<String, Vec<(String, PathBuf)>>,
    pub skipped: &'a [(String, String)],
    /// The rows of `sql/report/examples.sql`.
    pub examples: &'a ResultTable,
}

/// Query the examples and write `<out>/report.html`; the examples are left out (with a note) when
/// the tables hold no `variants` to show.
pub(super) fn write_report_html(
    out: &Path,
    engine: &SqlEngine,
    results: &[(MetricSql, ResultTable)],
    simulated: &HashSet<String>,
    plots: &BTreeMap<String, Vec<(String, PathBuf)>>,
    skipped: &[(String, String)],
) -> Result<PathBuf> {
    let sql = include_str!("../../sql/report/examples.sql");
    let examples = if engine.unavailable_tables(sql)?.is_empty() {
        engine.query_table(sql)?
    } else {
        ResultTable::default()
    };
    let page = Page {
        tables: crate::store::location::display(engine.tables_dir()),
        simulated,
        plots,
        skipped,
        examples: &examples,
    };
    let path = out.join("report.html");
    crate::store::write_text(&path, &report_html(results, &page)?)?;
    Ok(path)
}

/// The whole page.
pub(super) fn report_html(results: &[(MetricSql, ResultTable)], page: &Page) -> Result<String> {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>advmath metrics report</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<header>\n<h1>advmath metrics report</h1>\n");
    let headline = super::headline::headline(results);
    if !headline.is_empty() {
        out.push_str("<h2>Headline</h2>\n<table>\n<thead><tr>");
        for h in super::headline::HEADER {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for r in &headline {
            out.push_str("<tr>");
            for c in super::headline::cells(r) {
                let _ = write!(out, "<td>{}</td>", escape(&c));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
        for note in super::headline::notes(&headline) {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&note));
        }
        for line in super::headline::READING_GUIDE.lines() {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(line));
        }
    }
    let _ = writeln!(out, "<p>Tables: <code>{}</code>.</p>", escape(&page.tables));
    let mut simulated: Vec<&String> = page.simulated.iter().collect();
    simulated.sort();
    if simulated.is_empty() {
        out.push_str("<p>No simulated model.</p>\n");
    } else {
        let names: Vec<String> = simulated
            .iter()
            .map(|m| format!("<code>{}</code>", escape(m)))
            .collect();
        let _ = writeln!(
            out,
            "<p class=\"note\">Simulated models (never a real LLM), marked <span class=\"sim\">simulated</span> in every table: {}.</p>",
            names.join(", ")
        );
    }
    out.push_str("<p>Shares are fractions in [0, 1]; an empty cell is undefined. Click a column's name to sort by it; type in a table's box to keep the rows that contain the text. Each metric is one SQL file (<code>sql/&lt;metric&gt;.sql</code>).</p>\n");
    out.push_str("<nav>\n<h2>Contents</h2>\n<ul>\n");
    for (m, t) in results {
        let _ = writeln!(
            out,
            "<li><a href=\"#{}\">{}</a> <span class=\"count\">{} rows</span></li>",
            anchor(&m.name),
            escape(&m.title()),
            t.len()
        );
    }
    out.push_str("<li><a href=\"#examples\">Adversarial examples</a></li>\n");
    for (name, reason) in page.skipped {
        let _ = writeln!(
            out,
            "<li><code>{}</code>: not run, it {}</li>",
            escape(name),
            escape(reason)
        );
    }
    out.push_str("</ul>\n</nav>\n</header>\n<main>\n");
    for (m, t) in results {
        let _ = writeln!(
            out,
            "<section class=\"metric\" id=\"{}\">\n<h2>{}</h2>\n<p><code>{}</code>: {}</p>",
            anchor(&m.name),
            escape(&m.title()),
            escape(&m.name),
            code_spans(&escape(&m.description()))
        );
        out.push_str(&table_html(&m.name, t, page.simulated));
        let _ = writeln!(
            out,
            "<p class=\"files\">Full table: <a href=\"{0}.csv\">{0}.csv</a>, <a href=\"{0}.md\">{0}.md</a>.</p>",
            escape(&m.name)
        );
        for (title, path) in page.plots.get(&m.name).into_iter().flatten() {
            let _ = writeln!(
                out,
                "<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>",
                inline_svg(path)?,
                escape(title)
            );
        }
        out.push_str("</section>\n");
    }
    out.push_str(EXAMPLES_SECTION);
    let data = examples_json(page.examples, page.simulated);
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"examples-data\">{}</script>",
        script_safe(&data.to_string())
    );
    out.push_str("</main>\n<script>\n");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    Ok(out)
}

const EXAMPLES_SECTION: &str = r#"<section id="examples">
<h2>Adversarial examples</h2>
<p>An adversarial example is a variant a model answers wrongly although it answers the variant's original rightly (Xie et al. §3). Shown: per dataset and attack, the problems whose variants fool the most models, and their variants that fool the most (<code>sql/report/examples.sql</code>). What the attack changed is marked in both questions; the answer each reply was read as is marked in the reply.</p>
<div class="pickers">
<label>dataset <select id="pick-dataset"></select></label>
<label>attack <select id="pick-attack"></select></label>
<label>problem <select id="pick-problem"></select></label>
<label>variant <select id="pick-variant"></select></label>
<label>model <select id="pick-model"></select></label>
</div>
<p id="example-empty" class="note" hidden>No variant with a stored reply to show.</p>
<div id="example"></div>
</section>
"#;

/// A metric table as HTML: all its rows up to [`PAGE_ROWS`], numbers right-aligned and sortable as
/// numbers (`data-v`), model names of simulated models marked. The flag columns `mark_simulated`
/// adds are left out, as in the Markdown.
fn table_html(name: &str, t: &ResultTable, simulated: &HashSet<String>) -> String {
    let (shown, model_columns) = t.shown_columns();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<div class=\"table\"><input type=\"search\" class=\"filter\" placeholder=\"filter {} rows\" aria-label=\"filter {}\">",
        t.len(),
        escape(name)
    );
    out.push_str("<table class=\"sortable\">\n<thead><tr>");
    for &i in &shown {
        let numeric = t
            .rows
            .iter()
            .any(|r| matches!(r[i], Cell::Int(_) | Cell::Float(_)));
        let _ = write!(
            out,
            "<th{}><button type=\"button\">{}</button></th>",
            if numeric { " class=\"num\"" } else { "" },
            escape(&t.columns[i])
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in t.rows.iter().take(PAGE_ROWS) {
        out.push_str("<tr>");
        for &i in &shown {
            let cell = &row[i];
            let text = escape(&cell.display());
            match cell {
                Cell::Int(v) => {
                    let _ = write!(out, "<td class=\"num\" data-v=\"{v}\">{text}</td>");
                }
                Cell::Float(v) if v.is_finite() => {
                    let _ = write!(
                        out,
                        "<td class=\"num\" data-v=\"{v}\" title=\"{v}\">{text}</td>"
                    );
                }
                Cell::Text(m) if model_columns.contains(&i) && simulated.contains(m) => {
                    let _ = write!(out, "<td>{text} <span class=\"sim\">simulated</span></td>");
                }
                _ => {
                    let _ = write!(out, "<td>{text}</td>");
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    if t.rows.is_empty() {
        out.push_str("<p class=\"note\">No rows.</p>\n");
    } else if t.rows.len() > PAGE_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} more rows in the CSV.</p>",
            t.rows.len() - PAGE_ROWS
        );
    }
    out.push_str("</div>\n");
    out
}

/// A plot file's SVG element, for inlining (its XML declaration dropped).
fn inline_svg(path: &Path) -> Result<String> {
    let svg = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    let element = svg
        .find("<svg")
        .map_or(svg.as_str(), |start| svg.split_at(start).1);
    Ok(element.trim_end().to_string())
}

/// The examples, grouped for the script: `models` (each with its simulated flag) and `problems`,
/// each with its original and shown variants, each with every stored reply keyed by model.
fn examples_json(t: &ResultTable, simulated: &HashSet<String>) -> Value {
    let text = |r: usize, c: &str| match t.get(r, c) {
        Some(Cell::Text(s)) => Value::String(s.clone()),
        Some(Cell::Null) | None => Value::Null,
        Some(other) => Value::String(other.display()),
    };
    let flag = |r: usize, c: &str| match t.get(r, c) {
        Some(Cell::Bool(b)) => Value::Bool(*b),
        _ => Value::Null,
    };
    let mut models: BTreeMap<String, bool> = BTreeMap::new();
    // (dataset, attack, problem rank) -> problem; in the SQL's order.
    let mut problems: BTreeMap<(String, String, i64), Map<String, Value>> = BTreeMap::new();
    for r in 0..t.len() {
        let s = |c: &str| text(r, c).as_str().unwrap_or_default().to_string();
        let rank = t
            .get(r, "problem_order")
            .and_then(Cell::as_i64)
            .unwrap_or(0);
        let problem = problems
            .entry((s(columns::DATASET), s(columns::ATTACK), rank))
            .or_insert_with(|| {
                let mut p = Map::new();
                p.insert(columns::DATASET.into(), text(r, columns::DATASET));
                p.insert(columns::ATTACK.into(), text(r, columns::ATTACK));
                p.insert(columns::PROBLEM_ID.into(), text(r, columns::PROBLEM_ID));
                p.insert("variants".into(), Value::Array(Vec::new()));
                p
            });
        let role = s("role");
        let question = json!({
            "id": text(r, columns::VARIANT_ID),
            "question": text(r, columns::QUESTION),
            "answer": text(r, columns::ANSWER),
            "fooled": t.get(r, "models_fooled").and_then(Cell::as_i64).unwrap_or(0),
            "replies": {},
        });
        let slot = if role == "original" {
            problem.entry("original").or_insert(question)
        } else {
            let variants = problem["variants"].as_array_mut().expect("an array");
            let id = text(r, columns::VARIANT_ID);
            match variants.iter().position(|v| v["id"] == id) {
                Some(i) => &mut variants[i],
                None => {
                    variants.push(question);
                    variants.last_mut().expect("just pushed")
                }
            }
        };
        let model = s(columns::MODEL);
        if model.is_empty() {
            continue;
        }
        let mut key = format!("{model} · {}", s(columns::TEMPLATE));
        if s(columns::RUN) != crate::store::responses::DEFAULT_RUN {
            key = format!("{key} [{}]", s(columns::RUN));
        }
        let is_simulated =
            simulated.contains(&model) || flag(r, columns::SIMULATED) == Value::Bool(true);
        models.insert(key.clone(), is_simulated);
        slot["replies"][key] = json!({
            "response": text(r, columns::RESPONSE),
            "extracted": text(r, columns::EXTRACTED),
            "rule": text(r, columns::EXTRACTION_RULE),
            "correct": flag(r, columns::CORRECT),
            "adversarial": flag(r, "adversarial"),
        });
    }
    json!({
        "models": models.iter().map(|(m, s)| json!({"name": m, "simulated": s})).collect::<Vec<_>>(),
        "problems": problems.into_values().map(Value::Object).collect::<Vec<_>>(),
    })
}

/// HTML text: `&`, `<`, `>` and both quotes escaped (safe in attributes too).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// JSON inside a `<script>` element: a `</script>` (or `<!--`) in the data must not end it.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// Markdown's `code` spans of escaped text as `<code>` elements.
fn code_spans(escaped: &str) -> String {
    let mut out = String::with_capacity(escaped.len());
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    if escaped.matches('`').count() % 2 == 1 {
        // An unpaired backtick: keep the text as it was.
        return escaped.to_string();
    }
    out
}

fn anchor(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_data_cannot_close_its_script() {
        assert_eq!(
            escape("<b a=\"x\">&'"),
            "&lt;b a=&quot;x&quot;&gt;&amp;&#39;"
        );
        let data = json!({"q": "</script><script>alert(1)</script>"}).to_string();
        let safe = script_safe(&data);
        assert!(!safe.contains("</"));
        let back: Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["q"], "</script><script>alert(1)</script>");
    }

    #[test]
    fn code_spans_become_code_elements() {
        assert_eq!(
            code_spans("a `b` c `d`"),
            "a <code>b</code> c <code>d</code>"
        );
        assert_eq!(code_spans("odd ` one"), "odd ` one");
    }

    #[test]
    fn a_table_marks_simulated_models_and_sorts_numbers_by_value() {
        let t = ResultTable {
            columns: vec!["model".into(), "asr".into(), "simulated".into()],
            rows: vec![
                vec![
                    Cell::Text("sim-carry".into()),
                    Cell::Float(0.75),
                    Cell::Bool(true),
                ],
                vec![Cell::Text("<gpt>".into()), Cell::Null, Cell::Bool(false)],
            ],
        };
        let sim: HashSet<String> = ["sim-carry".to_string()].into();
        let html = table_html("xie_asr", &t, &sim);
        assert!(html.contains("<td>sim-carry <span class=\"sim\">simulated</span></td>"));
        assert!(html.contains("<td class=\"num\" data-v=\"0.75\" title=\"0.75\">0.7500</td>"));
        assert!(html.contains("<td>&lt;gpt&gt;</td>"));
        assert!(
            !html.contains(">simulated</button>"),
            "the flag column is left out"
        );
    }
}
