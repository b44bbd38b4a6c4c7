//! Any table of replies: a CSV, Parquet or JSON Lines file with a question column and a response
//! column (`--question-col`, `--response-col`, optionally `--gold-col`), for results from tools
//! advmath has no layout for. The file does not name the model, so `--model` does.

use super::{
    original_attack, outside_item, outside_key, parse_gold, required_model, Layout, OutsideConfig,
    Problems,
};
use crate::error::{Error, Result};
use crate::input::cells::read_generic;
use crate::respond::rows::Scored;
use crate::store::responses::ResponseRow;

pub(super) struct Generic;

impl Layout for Generic {
    fn read(&self, config: &OutsideConfig) -> Result<Vec<ResponseRow>> {
        let model = required_model(config, "must name the model (this layout does not)")?;
        let problems = Problems::load(&config.tables);
        let mut matcher = problems.matcher();
        // The file's name keys its rows, so two files of the same model do not collide.
        let source = config
            .input
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("input")
            .to_string();
        let mut rows = Vec::new();
        for (i, r) in &read_generic(&config.input)? {
            let i = *i;
            let q = r.get(&config.question_col).cloned().ok_or_else(|| {
                Error::invalid(
                    config.input.display(),
                    format!("row {}: no column {}", i + 1, config.question_col),
                )
            })?;
            let resp = r.get(&config.response_col).cloned().unwrap_or_default();
            let gold = config
                .gold_col
                .as_ref()
                .and_then(|c| r.get(c))
                .and_then(|g| parse_gold(g));
            let item = outside_item(
                &q,
                config.noise_level.or(Some(0)),
                gold,
                original_attack(),
                matcher.find(&q),
            );
            let key = outside_key(&model, &source, i, &q);
            rows.push(ResponseRow::scored_by(
                key,
                &model,
                "outside",
                &item,
                resp,
                "generic",
                config.extraction,
            ));
        }
        Ok(rows)
    }
}
