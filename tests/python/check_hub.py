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
    for name in sorted(configs):
        info = declared[name]
        want_features = datasets.Features._from_yaml_list(info["features"])
        for split, rows in expected[name].items():
            ds = datasets.load_dataset(folder, name, split=split)
            assert ds.num_rows == rows, (name, split, ds.num_rows, rows)
            assert ds.features == want_features, (name, ds.features, want_features)
            declared_rows = {s["name"]: s["num_examples"] for s in info["splits"]}[split]
            assert declared_rows == rows, (name, split, declared_rows, rows)
            print(f"{name}\t{split}\t{ds.num_rows}")
    print("hub folder OK")


if __name__ == "__main__":
    main()
