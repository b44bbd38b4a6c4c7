//! lm-evaluation-harness samples: the JSON Lines its `--log_samples` option writes, one
//! evaluated document per line with the task's target and the model's replies. The file does
//! not name the model, so `--model` does.
//!
//! A document of the tasks `publish` writes carries its `variant_id`: the reply is filed under
//! that variant of the tables (its attack, noise level and gold answer), so a harness run gives
//! every table and figure advmath computes. Any other document is matched to an original by its
//! question text.

use super::{
    jsonl_values, original_attack, outside_item, outside_key, parse_gold, required_model, Layout,
    OutsideConfig, Problems,
};
use std::collections::HashMap;

use crate::error::Result;
use crate::num::Num;
use crate::respond::items::variant_items;
use crate::respond::rows::Item;
use crate::respond::rows::Scored;
use crate::store::responses::ResponseRow;

pub(super) struct LmEval;

impl Layout for LmEval {
    fn read(&self, config: &OutsideConfig) -> Result<Vec<ResponseRow>> {
        let model = required_model(
            config,
            "must name the evaluated model (lm-evaluation-harness samples do not)",
        )?;
        let problems = Problems::load(&config.tables);
        let mut matcher = problems.matcher();
        let values = jsonl_values(&config.input)?;
        let variants: HashMap<String, Item> = if values
            .iter()
            .any(|(_, v)| v["doc"]["variant_id"].is_string())
        {
            variant_items(&config.tables, &[], &[])
                .unwrap_or_default()
                .into_iter()
                .filter_map(|item| Some((item.variant_id.clone()?, item)))
                .collect()
        } else {
            HashMap::new()
        };
        let mut rows = Vec::new();
        for (i, v) in values {
            // GSM8K-style tasks call the question `question`, MATH-style ones `problem`.
            let q = v["doc"]["question"]
                .as_str()
                .or(v["doc"]["problem"].as_str())
                .unwrap_or("")
                .to_string();
            let resp = v["resps"][0][0]
                .as_str()
                .or(v["resps"][0].as_str())
                .unwrap_or("")
                .to_string();
            let gold = v["target"]
                .as_str()
                .and_then(parse_gold)
                .or(v["target"].as_f64().map(Num::from_f64));
            let variant = v["doc"]["variant_id"]
                .as_str()
                .and_then(|id| variants.get(id));
            let item = match variant {
                Some(item) => item.clone(),
                None => outside_item(&q, Some(0), gold, original_attack(), matcher.find(&q)),
            };
            let key = outside_key(&model, "lm_eval", i, &q);
            rows.push(ResponseRow::scored_by(
                key,
                &model,
                "lm_eval",
                &item,
                resp,
                "lm_eval",
                config.extraction,
            ));
        }
        Ok(rows)
    }
}
