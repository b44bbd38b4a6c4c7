//! The OpenAI Batch API, both ways. `export-batch` writes the request file (one request per
//! distinct question, `custom_id` = advmath's response key); the Batch API's output file, one
//! reply per line under the same `custom_id`, reads back through that key into a row for every
//! variant asking the question.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::json;

use super::{jsonl_values, required_model, Layout, OutsideConfig};
use crate::error::Result;
use crate::llm::client::parse_completion;
use crate::llm::client::{Decoding, Endpoint};
use crate::llm::prompt::Template;
use crate::respond::items::variant_items;
use crate::respond::rows::Scored;
use crate::respond::rows::{response_key, Item};
use crate::store::responses::ResponseRow;
use crate::store::write_text;

/// Write the OpenAI Batch API request file for every selected variant.
pub fn export_batch(
    tables: &Path,
    out: &Path,
    model: &str,
    template: &Template,
    decoding: &Decoding,
    attacks: &[String],
    completions: bool,
) -> Result<usize> {
    let items = variant_items(tables, attacks, &[])?;
    // Only its request bodies are used: the Batch API sends them, not advmath.
    let endpoint = Endpoint {
        completions,
        ..Endpoint::new("", model)
    };
    let url = if completions {
        "/v1/completions"
    } else {
        "/v1/chat/completions"
    };
    let mut text = String::new();
    let mut seen = HashSet::new();
    for it in &items {
        let key = response_key(model, template, decoding, it);
        if !seen.insert(key.clone()) {
            continue;
        }
        let line = json!({ "custom_id": key, "method": "POST", "url": url, "body": endpoint.body(&template.render(&it.question), decoding) });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    write_text(out, &text)?;
    Ok(seen.len())
}

/// Batch API output JSONL.
pub(super) struct OpenaiBatch;

impl Layout for OpenaiBatch {
    /// A reply that matches no variant, or has no text, is a warning: the rest of the batch
    /// still counts.
    fn read(&self, config: &OutsideConfig) -> Result<Vec<ResponseRow>> {
        let model = required_model(
            config,
            "must name the model the batch was run with (its output does not)",
        )?;
        // One request per distinct question: its reply answers every variant asking it.
        let mut items: HashMap<String, Vec<Item>> = HashMap::new();
        for it in variant_items(&config.tables, &[], &[])? {
            let key = response_key(&model, &config.template, &config.decoding, &it);
            items.entry(key).or_default().push(it);
        }
        let mut rows = Vec::new();
        for (i, v) in jsonl_values(&config.input)? {
            let where_ = format!("{}: line {}", config.input.display(), i + 1);
            let key = v["custom_id"].as_str().unwrap_or("").to_string();
            let Some(asking) = items.get(&key) else {
                crate::progress::note!(
                    "warning: {where_}: custom_id {key} matches no variant with these settings"
                );
                continue;
            };
            let body = &v["response"]["body"];
            let completions = body["object"].as_str() == Some("text_completion");
            let (text, p, c, f) = match parse_completion(&body.to_string(), completions) {
                Ok(parsed) => parsed,
                Err(e) => {
                    crate::progress::note!("warning: {where_}: {e}");
                    continue;
                }
            };
            for item in asking {
                let mut row = ResponseRow::scored_by(
                    key.clone(),
                    &model,
                    &config.template.name,
                    item,
                    text.clone(),
                    "openai_batch",
                    config.extraction,
                );
                row.prompt_tokens = p;
                row.completion_tokens = c;
                row.finish_reason = f.clone();
                rows.push(row);
            }
        }
        Ok(rows)
    }
}
