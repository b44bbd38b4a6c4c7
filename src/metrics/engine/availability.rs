//! Which tables a query can read: the known tables it names that are missing or empty, each
//! with the command that makes it, and a name that is no table or view at all, with the ones
//! there are.

use super::{SqlEngine, TableState};
use crate::error::{Error, Result};
use crate::metrics::EMBEDDED_VIEWS;

impl SqlEngine {
    /// A clear error when `name` is a known table that is missing or empty.
    pub(super) fn require(&self, name: &str) -> Result<()> {
        // The shared views exist exactly when `responses` does.
        if EMBEDDED_VIEWS.iter().any(|(view, _)| *view == name) {
            return self.require("responses");
        }
        let Some(t) = self.tables.iter().find(|t| t.layout.name == name) else {
            return Ok(());
        };
        if t.layout.optional {
            return Ok(());
        }
        if matches!(t.state, TableState::Registered { .. }) {
            return Ok(());
        }
        let registered = self.registered();
        if registered.is_empty() {
            return Err(Error::invalid(
                self.tables_dir.display(),
                "holds no advmath table; name the `tables/` folder of a run with --tables (e.g. out/tables), or make one with `advmath run`",
            ));
        }
        let available = registered.join(", ");
        let made_by = t.layout.made_by;
        match t.state {
            TableState::Registered { .. } => Ok(()),
            TableState::Missing => Err(Error::invalid(
                t.path.display(),
                format!(
                    "table `{name}` is missing (run `advmath {made_by}` first): expected {} under {}; available tables: {available}",
                    t.layout.pattern,
                    self.tables_dir.display()
                ),
            )),
            TableState::Empty => Err(Error::invalid(
                t.path.display(),
                format!(
                    "table `{name}` is empty: no .parquet file under this folder (expected {}); available tables: {available}",
                    t.layout.pattern
                ),
            )),
        }
    }

    /// The known tables that `sql` reads but that are missing or empty (the views count as
    /// `responses`).
    pub fn unavailable_tables(&self, sql: &str) -> Result<Vec<String>> {
        let state = self.ctx.state();
        let dialect = &state.config().options().sql_parser.dialect;
        let statement = state.sql_to_statement(sql, dialect)?;
        let mut out = Vec::new();
        for reference in state.resolve_table_references(&statement)? {
            let qualified = matches!(reference.schema(), Some(s) if s != "public");
            let name = reference.table().to_string();
            if !qualified && self.require(&name).is_err() && !out.contains(&name) {
                out.push(name);
            }
        }
        Ok(out)
    }

    /// A query names a table that is neither a table of this folder nor a view: name the ones
    /// there are.
    pub(super) fn unknown_table(&self, name: &str) -> Error {
        let mut known: Vec<&str> = self.registered();
        if known.contains(&"responses") {
            known.extend(EMBEDDED_VIEWS.iter().map(|(view, _)| *view));
        }
        let lower = name.to_lowercase();
        let near = known
            .iter()
            .find(|k| k.starts_with(&lower) || lower.starts_with(**k))
            .map(|k| format!(" (did you mean `{k}`?)"))
            .unwrap_or_default();
        let known = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        };
        Error::BadQuery {
            reason: format!(
                "no table or view `{name}` in {}{near}",
                self.tables_dir.display()
            ),
            hint: format!("the query can read: {known} (columns: docs/tables.md)"),
        }
    }
}
