//! The default dataset shipped in `datasets/default/`, embedded so `advmath run` works anywhere.

use serde::Deserialize;

use super::{Format, RawProblem, Source};
use crate::error::{Error, Result};

pub const DEFAULT_DATASET: &str = include_str!("../../datasets/default/problems.jsonl");

#[derive(Deserialize)]
struct Row {
    id: String,
    question: String,
    answer: String,
    program: String,
}

/// The embedded default problems as a source.
pub fn default_source() -> Result<Source> {
    let rows = DEFAULT_DATASET
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let row: Row = serde_json::from_str(line).map_err(|source| Error::JsonLine {
                file: "datasets/default/problems.jsonl".into(),
                line: i + 1,
                source,
            })?;
            let index = row
                .id
                .rsplit('/')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(i as i64);
            Ok(RawProblem {
                source_index: index,
                question: row.question,
                answer: Some(row.answer),
                program: Some(Ok(row.program)),
                ..Default::default()
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Source {
        path: "datasets/default/problems.jsonl".into(),
        format: Format::Jsonl,
        dataset: "default".into(),
        split: "test".into(),
        rows,
    })
}
