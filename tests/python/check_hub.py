"""Load a folder written by `advmath publish` the way a Hub user would, offline.

Usage: check_hub.py FOLDER EXPECTED_JSON
EXPECTED_JSON maps config -> split -> row count (from advmath's own tables).
Prints one line per config and exits non-zero on the first mismatch.
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import datasets  # noqa: E402
from datasets.utils import resources  # noqa: E402
from huggingface_hub import DatasetCard  # noqa: E402

# Identifiers from the Hub's documentation (hf.co/docs/hub/repositories-licenses and the task
# taxonomy); only the subset a published advmath card can carry, plus close relatives.
HUB_LICENSES = {"apache-2.0", "mit", "unknown", "other", "cc-by-4.0", "cc-by-sa-4.0", "cc0-1.0"}
HUB_TASKS = {"question-answering", "text-generation", "text2text-generation", "text-classification"}


def resource(name):
    path = os.path.join(os.path.dirname(resources.__file__), name)
    with open(path) as f:
        return json.load(f)


def main():
    folder, expected_path = sys.argv[1], sys.argv[2]
    expected = json.load(open(expected_path))
    card = DatasetCard.load(os.path.join(folder, "README.md"))
    data = card.data.to_dict()
    languages = resource("languages.json")
    sizes = resource("size_categories.json")
    assert data["license"] in HUB_LICENSES, data["license"]
    if data["license"] == "other":
        assert data.get("license_name") and data.get("license_link"), "license other needs name and link"
    assert all(l in languages for l in data["language"]), data["language"]
    assert all(t in HUB_TASKS for t in data["task_categories"]), data["task_categories"]
    assert all(s in sizes for s in data["size_categories"]), data["size_categories"]
    declared = {c["config_name"]: c for c in data["dataset_info"]}
    configs = {c["config_name"] for c in data["configs"]}
    assert configs == set(expected), (configs, set(expected))
    defaults = [c["config_name"] for c in data["configs"] if c.get("default")]
    assert defaults == (["m3"] if "m3" in configs else defaults), defaults
    body = card.text
    table = body_table(body, "| config | split | rows | problems | which problems |")
    sources = body_table(body, "| source | problems | with a valid program | where the valid programs came from | labels refused |")
    source_problems = sum(int(r[1]) for r in sources)
    for name in sorted(configs):
        info = declared[name]
        want_features = datasets.Features._from_yaml_list(info["features"])
        builder = datasets.load_dataset_builder(folder, name)
        builder.download_and_prepare()
        for split, rows in expected[name].items():
            ds = builder.as_dataset(split=split)
            assert ds.num_rows == rows, (name, split, ds.num_rows, rows)
            assert ds.features == want_features, (name, ds.features, want_features)
            declared_split = {s["name"]: s for s in info["splits"]}[split]
            assert declared_split["num_examples"] == rows, (name, split, declared_split, rows)
            # The size `datasets` computes when it loads the split, not the files' size.
            computed = builder.info.splits[split].num_bytes
            assert declared_split["num_bytes"] == computed, (name, split, declared_split, computed)
            # The body's Configs table: rows, and the problems the config holds.
            row = [r for r in table if r[0] == name and r[1] == split]
            assert len(row) == 1, (name, split, table)
            assert int(row[0][2]) == rows, (name, split, row)
            if "problem_id" in ds.column_names:
                problems = len(set(ds["problem_id"]))
                assert int(row[0][3]) == problems, (name, split, row, problems)
                if row[0][4].startswith("every problem of the sources"):
                    assert problems == source_problems, (name, problems, source_problems)
            print(f"{name}\t{split}\t{ds.num_rows}\t{computed}")
    if "responses" in configs:
        check_responses(folder, body_table(body, "| model | template | run | simulated | answers | problems and questions asked per attack |"))
    print("hub folder OK")


def check_responses(folder, table):
    """The card's responses table against the responses config: answers, problems, questions."""
    ds = datasets.load_dataset(folder, "responses")
    counted = {}
    for split in ds:
        for r in ds[split]:
            if r["variant_id"] is None or r["correct"] is None or r["template"] is None:
                continue
            key = (r["model"], r["template"], r["run"] or "default")
            problem, attack, _ = r["variant_id"].rsplit("/", 2)
            entry = counted.setdefault(key, [0, {}])
            entry[0] += 1
            per = entry[1].setdefault(attack, [set(), 0])
            per[0].add(problem)
            per[1] += 1
    assert len(table) == len(counted), (table, sorted(counted))
    for model, template, run, _simulated, answers, sample in table:
        answers_seen, attacks = counted[(model, template, run)]
        assert int(answers) == answers_seen, (model, answers, answers_seen)
        want = "; ".join(f"{a}: {len(p)} problems, {q} questions" for a, (p, q) in sorted(attacks.items()))
        assert sample == want, (model, sample, want)
        print(f"responses\t{model}\t{answers}")


def body_table(body, header):
    """The rows of the Markdown table under `header` in the card's body, as lists of cells."""
    lines = body.splitlines()
    at = lines.index(header)
    rows = []
    for line in lines[at + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


if __name__ == "__main__":
    main()
