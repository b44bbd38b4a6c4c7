//! lm-evaluation-harness tasks beside the published data: `lm_eval/advmath_<dataset>_<attack>.yaml`
//! per source dataset and attack, the group `advmath` over them all, and `utils.py`.
//!
//! `lm_eval --include_path <hub>/lm_eval --tasks advmath` then evaluates any model the harness
//! reaches on the published variants. Each task reads its config's shards from `data/<config>/`
//! beside the folder (wherever the folder is), keeps one dataset's rows, asks with the template
//! publish was given (the text advmath sends, `{question}` replaced), greedy and at most 512 new
//! tokens as `respond` asks, and grades every reply by calling `advmath extract`: the harness's
//! accuracy is advmath's grading of the same replies, not a re-implementation of it. Its
//! `--log_samples` output carries each variant's id, so `advmath ingest-responses --format
//! lm-eval` files every reply under its variant.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use crate::error::Result;
use crate::llm::prompt::Template;

/// The folder of the tasks inside the published folder.
pub const FOLDER: &str = "lm_eval";
/// The group that runs every task.
pub const GROUP: &str = "advmath";

/// The harness version the tasks are tested with (`.ci/run` installs it).
pub const TESTED_HARNESS: &str = "0.4.13";

/// One task: the variants of one source dataset under one attack, in one config of the folder.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Task {
    pub dataset: String,
    pub attack: String,
    pub config: String,
    /// The splits the dataset's rows fall in; the task evaluates `test` when there is one.
    pub splits: BTreeSet<String>,
}

impl Task {
    /// `advmath_<dataset>_<attack>`, with anything but letters, digits, `-` and `_` as `_`.
    pub fn name(&self) -> String {
        let clean = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c.to_ascii_lowercase()
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        format!("{GROUP}_{}_{}", clean(&self.dataset), clean(&self.attack))
    }

    fn split(&self) -> &str {
        if self.splits.contains("test") {
            "test"
        } else {
            self.splits.iter().next().map_or("test", String::as_str)
        }
    }
}

/// Write the tasks, their group and `utils.py` under `<folder>/lm_eval/`.
pub fn write_tasks(folder: &Path, tasks: &[Task], template: &Template) -> Result<()> {
    let dir = folder.join(FOLDER);
    let mut names = BTreeMap::new();
    for task in tasks {
        let name = task.name();
        crate::store::write_text(&dir.join(format!("{name}.yaml")), &task_yaml(task, &name))?;
        names.insert(name, task);
    }
    let mut group = format!("group: {GROUP}\ntask:\n");
    for name in names.keys() {
        let _ = writeln!(group, "  - {name}");
    }
    group.push_str(
        "aggregate_metric_list:\n  - metric: acc\n    aggregation: mean\n    weight_by_size: true\nmetadata:\n  version: 1.0\n",
    );
    crate::store::write_text(&dir.join(format!("{GROUP}.yaml")), &group)?;
    crate::store::write_text(&dir.join("utils.py"), &utils_py(template))?;
    Ok(())
}

fn task_yaml(task: &Task, name: &str) -> String {
    // Values are written as JSON strings, which YAML reads as they are.
    let q = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    format!(
        "# {dataset} variants under the attack {attack}, as advmath published them (config {config}).\n\
         task: {name}\n\
         custom_dataset: !function utils.load\n\
         dataset_kwargs:\n  config: {config_q}\n  dataset: {dataset_q}\n\
         test_split: {split}\n\
         output_type: generate_until\n\
         doc_to_text: !function utils.doc_to_text\n\
         doc_to_target: !function utils.doc_to_target\n\
         generation_kwargs:\n  until: []\n  max_gen_toks: 512\n  do_sample: false\n  temperature: 0.0\n\
         process_results: !function utils.process_results\n\
         metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n\
         metadata:\n  version: 1.0\n",
        dataset = task.dataset,
        attack = task.attack,
        config = task.config,
        config_q = q(&task.config),
        dataset_q = q(&task.dataset),
        split = q(task.split()),
    )
}

fn utils_py(template: &Template) -> String {
    let prompt = serde_json::Value::String(template.text.clone()).to_string();
    let name = serde_json::Value::String(template.name.clone()).to_string();
    UTILS_PY
        .replace("@PROMPT@", &prompt)
        .replace("@TEMPLATE@", &name)
        .replace("@HARNESS@", TESTED_HARNESS)
}

const UTILS_PY: &str = r#""""lm-evaluation-harness tasks for this advmath dataset, written by `advmath publish`.

Each task reads one config's Parquet shards from data/<config>/ beside this folder, keeps one source
dataset's rows, asks with advmath's prompt template and grades each reply with advmath's own answer
extraction, by calling `advmath extract` (install the advmath wheel, `pip install advmath-*.whl` built as
advmath's README says, or set ADVMATH_BIN to the binary).
So the accuracy the harness reports is advmath's grading of the same replies. Tested with
lm_eval @HARNESS@:

    lm_eval --model local-chat-completions --apply_chat_template \
        --model_args base_url=http://127.0.0.1:8080/v1/chat/completions,model=<name> \
        --include_path lm_eval --tasks advmath --log_samples --output_path results
    advmath ingest-responses --format lm-eval --model <name> results/<name>/samples_*.jsonl
"""
import glob
import json
import os
import shutil
import subprocess

import datasets

# The prompt template advmath asks with (`{question}` is replaced, nothing else).
TEMPLATE = @TEMPLATE@
PROMPT = @PROMPT@
HERE = os.path.dirname(os.path.abspath(__file__))


def load(config=None, dataset=None, **kwargs):
    """The rows of `dataset` in the shards of `config`, by split (`test-00000-of-00001.parquet`)."""
    files = sorted(glob.glob(os.path.join(HERE, "..", "data", config, "*.parquet")))
    if not files:
        raise FileNotFoundError(f"no Parquet shard in {os.path.join(HERE, '..', 'data', config)}")
    by_split = {}
    for f in files:
        by_split.setdefault(os.path.basename(f).split("-")[0], []).append(f)
    return datasets.DatasetDict(
        {
            split: datasets.Dataset.from_parquet(paths).filter(lambda row: row["dataset"] == dataset)
            for split, paths in by_split.items()
        }
    )


def doc_to_text(doc):
    return PROMPT.replace("{question}", doc["question"])


def doc_to_target(doc):
    # A question a needed number was taken out of has no gold (null): the harness is told so in
    # words, and process_results grades it as advmath does, never as a number.
    gold = doc.get("answer_exact") or doc.get("answer")
    return "no answer" if gold is None else gold


def _advmath():
    exe = os.environ.get("ADVMATH_BIN") or shutil.which("advmath")
    if not exe:
        raise RuntimeError(
            "these tasks grade replies with advmath's answer extraction: "
            "install the advmath wheel (pip install advmath-*.whl, built as advmath's README says), "
            "or set ADVMATH_BIN to the advmath binary"
        )
    return exe


def process_results(doc, results):
    # The exact answer (a decimal or n/d), as advmath grades its own rows; `answer` is rounded text.
    # A null gold is a question with no answer (`missing`): right only when the reply says so, never
    # scored as a number.
    gold = doc.get("answer_exact") or doc["answer"]
    args = ["--no-answer"] if gold is None else ["--gold", gold]
    graded = subprocess.run(
        [_advmath(), "extract", *args],
        input=results[0],
        capture_output=True,
        text=True,
        check=True,
    )
    return {"acc": 1.0 if json.loads(graded.stdout)["correct"] else 0.0}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_the_test_split_is_preferred() {
        let t = Task {
            dataset: "xie2024-gsm8k".into(),
            attack: "m3+punct30".into(),
            config: "m3_punct30".into(),
            splits: ["train".to_string(), "test".to_string()].into(),
        };
        assert_eq!(t.name(), "advmath_xie2024-gsm8k_m3_punct30");
        assert_eq!(t.split(), "test");
        let yaml = task_yaml(&t, &t.name());
        assert!(yaml.contains("  config: \"m3_punct30\"\n  dataset: \"xie2024-gsm8k\"\n"));
        assert!(yaml.contains("test_split: \"test\"\n"));
    }

    #[test]
    fn the_prompt_is_the_template_as_a_python_string() {
        let py = utils_py(&Template::default());
        assert!(py.contains("PROMPT = \"Solve a math problem. The solution ends with \\\"the answer is (a number)\\\" like \\\"the answer is 1\\\".\\nQuestion: {question}\\nAnswer: Let's think step by step.\"\n"));
        assert!(py.contains("TEMPLATE = \"xie2024\"\n"));
    }
}
