//! GSM8K's `example_model_solutions.jsonl`, from OpenAI's grade-school-math release: one test
//! question per line with its reference solution (`ground_truth`), then one object per model
//! set-up of the GSM8K paper (`6b_finetuning`, `175b_verification`, ...) holding that set-up's
//! `solution`. Every set-up becomes a model of its own, so the file needs no `--model`.

use serde_json::Value;

use super::{
    jsonl_values, original_attack, outside_item, outside_key, parse_gold, Layout, OutsideConfig,
    Problems,
};
use crate::error::Result;
use crate::respond::rows::Scored;
use crate::store::responses::ResponseRow;

pub(super) struct Gsm8kSolutions;

impl Layout for Gsm8kSolutions {
    fn read(&self, config: &OutsideConfig) -> Result<Vec<ResponseRow>> {
        let problems = Problems::load(&config.tables);
        let mut matcher = problems.matcher();
        let mut rows = Vec::new();
        for (i, v) in jsonl_values(&config.input)? {
            let q = v["question"].as_str().unwrap_or("").to_string();
            let gold = v["ground_truth"].as_str().and_then(parse_gold);
            let problem = matcher.find(&q);
            // The set-ups are listed nowhere: any field holding a `solution` is one.
            for (model, sol) in v.as_object().into_iter().flatten() {
                let Some(solution) = sol.get("solution").and_then(Value::as_str) else {
                    continue;
                };
                let item = outside_item(&q, Some(0), gold, original_attack(), problem);
                let key = outside_key(model, "gsm8k_solutions", i, &q);
                rows.push(ResponseRow::scored_by(
                    key,
                    model,
                    "gsm8k",
                    &item,
                    solution.to_string(),
                    "gsm8k_solutions",
                    config.extraction,
                ));
            }
        }
        Ok(rows)
    }
}
