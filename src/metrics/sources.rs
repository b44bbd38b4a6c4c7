//! The SQL a metrics run reads: the metric files and the shared views of `sql/`, embedded in the
//! binary, or a user's folder of metric files.

use std::collections::BTreeMap;
use std::path::Path;

use super::registry::METRICS;
use crate::error::{Error, Result};

/// Every attack advmath names with what it is by type, written from the vocabulary
/// ([`crate::vocab::catalogue_sql`]): the metric files select attacks through it. It reads no
/// table, so [`SqlEngine`] creates it whatever the folder holds.
pub const ATTACKS_VIEW: (&str, &str) = ("attacks", include_str!("../../sql/views/00_attacks.sql"));

/// Views over `responses` that the metric files share (`sql/views/`, in creation order: later
/// views read earlier ones). [`SqlEngine`] creates them whenever `responses` is registered, so
/// `advmath sql` can query them too; in DuckDB, run these files before a metric file.
pub const EMBEDDED_VIEWS: &[(&str, &str)] = &[
    (
        "model_runs",
        include_str!("../../sql/views/00_model_runs.sql"),
    ),
    ("graded", include_str!("../../sql/views/01_graded.sql")),
    (
        "problem_outcomes",
        include_str!("../../sql/views/02_problem_outcomes.sql"),
    ),
    (
        "original_outcomes",
        include_str!("../../sql/views/03_original_outcomes.sql"),
    ),
    (
        "attack_outcomes",
        include_str!("../../sql/views/04_attack_outcomes.sql"),
    ),
    (
        "attack_models",
        include_str!("../../sql/views/05_attack_models.sql"),
    ),
    (
        "adversarial_examples",
        include_str!("../../sql/views/06_adversarial_examples.sql"),
    ),
    (
        "paper_accuracy",
        include_str!("../../sql/views/07_paper_accuracy.sql"),
    ),
];

/// One metric: a name (the file stem) and its SQL text.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSql {
    pub name: String,
    pub sql: String,
    /// Where it came from: `embedded` or the file path.
    pub origin: String,
}

impl MetricSql {
    /// The first line of the opening comment: what the metric is and which paper table or
    /// figure it reproduces.
    pub fn title(&self) -> String {
        self.comment_lines()
            .into_iter()
            .find(|l| !l.is_empty())
            .unwrap_or_else(|| self.name.clone())
    }

    /// The rest of the opening comment, as Markdown paragraphs.
    pub fn description(&self) -> String {
        let lines = self.comment_lines();
        let body: Vec<String> = lines
            .into_iter()
            .skip_while(|l| l.is_empty())
            .skip(1)
            .collect();
        let mut paragraphs: Vec<String> = Vec::new();
        let mut current = String::new();
        for line in body {
            if line.is_empty() {
                if !current.is_empty() {
                    paragraphs.push(std::mem::take(&mut current));
                }
            } else {
                if !current.is_empty() {
                    current.push(' ');
                }
                current.push_str(&line);
            }
        }
        if !current.is_empty() {
            paragraphs.push(current);
        }
        paragraphs.join("\n\n")
    }

    fn comment_lines(&self) -> Vec<String> {
        self.sql
            .lines()
            .map(str::trim)
            .take_while(|l| l.starts_with("--"))
            .map(|l| l.trim_start_matches('-').trim().to_string())
            .collect()
    }
}

/// Marks where `docs/tables.md` turns from the stored tables (written from the store's column
/// docs) to the SQL views (written from their files' opening comments, [`views_markdown`]).
pub const VIEWS_MARKER: &str = "<!-- views: written from sql/views/ by `ADVMATH_UPDATE_DOCS=1 cargo test views_md`; edit those files, not this section -->";

/// The views section of `docs/tables.md`: each view of [`EMBEDDED_VIEWS`] with its columns'
/// story as its file's opening comment tells it.
pub fn views_markdown() -> String {
    let mut out = format!(
        "{VIEWS_MARKER}\n\n## Views\n\nBesides the tables, `advmath sql` and `advmath metrics` know these views over `responses` \
         (`SHOW TABLES` lists them, `DESCRIBE <view>` gives their columns). In DuckDB, run the files of `sql/views/` in order \
         before querying them. `problem_id` is text, so `ORDER BY problem_id` puts `gsm8k/test/101` before `gsm8k/test/11`: \
         to list problems in their source's order, join `problems` on `problem_id` and order by its `source_index`.\n"
    );
    for (name, sql) in std::iter::once(&ATTACKS_VIEW).chain(EMBEDDED_VIEWS) {
        let comment: Vec<&str> = sql
            .lines()
            .map(str::trim)
            .take_while(|l| l.starts_with("--"))
            .map(|l| l.trim_start_matches('-').trim())
            .collect();
        out.push_str(&format!("\n### {name}\n\n{}\n", comment.join(" ")));
    }
    out
}

/// The embedded metric files, in report order.
pub fn embedded_metrics() -> Vec<MetricSql> {
    METRICS
        .iter()
        .map(|m| MetricSql {
            name: m.name.to_string(),
            sql: m.sql.to_string(),
            origin: format!("embedded sql/{}.sql", m.name),
        })
        .collect()
}

/// Every `*.sql` file of a folder: the known metrics in report order first, then the others by
/// name.
pub fn metrics_from_dir(dir: &Path) -> Result<Vec<MetricSql>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::file(dir, e))?;
    let mut found = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| Error::file(dir, e))?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("sql") || !path.is_file() {
            continue;
        }
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let sql = std::fs::read_to_string(&path).map_err(|e| Error::file(&path, e))?;
        found.insert(
            name.clone(),
            MetricSql {
                name,
                sql,
                origin: path.display().to_string(),
            },
        );
    }
    if found.is_empty() {
        return Err(Error::invalid(dir.display(), "no .sql file in this folder"));
    }
    let mut out = Vec::new();
    for metric in METRICS {
        if let Some(m) = found.remove(metric.name) {
            out.push(m);
        }
    }
    out.extend(found.into_values());
    Ok(out)
}
