#!/usr/bin/env python3
"""Draw the blind reader audit: variants read only for what a reader would flag on its face.

    python3 scripts/reader_audit_sample.py READER_TABLES PAPER_TABLES OUT_DIR [--seed 55]

READER_TABLES and PAPER_TABLES are two tables folders generated from the same problems, with
`generate` (the reader's rules, the default) and `generate --constraints paper`. The sample is
100 problems that have numeric variants in both (25 GSM8K test, 25 GSM8K train, 20 MultiArith,
15 + 15 of Xie et al.'s GSM8K and MultiArith), drawn by a seeded hash; the attack of each
problem turns m1, m2, m3 in that order, and the variant of each (problem, attack) is drawn by
the same hash, once from each folder. Writes OUT_DIR/questions.jsonl ({"key", "question"}: the
200 questions shuffled together, all a blind reader may see) and OUT_DIR/key.jsonl ({"key",
"mode", "problem_id", "variant_id", "attack"}).
"""
import argparse
import hashlib
import json
import os

import duckdb

QUOTAS = [
    ("gsm8k", "gsm8k/test/", 25),
    ("gsm8k", "gsm8k/train/", 25),
    ("multiarith", "multiarith/", 20),
    ("xie2024-gsm8k", "xie2024-gsm8k/", 15),
    ("xie2024-multiarith", "xie2024-multiarith/", 15),
]
ATTACKS = ["m1", "m2", "m3"]


def rank(seed, text):
    return hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()


def variants(tables):
    rows = duckdb.connect().execute(
        f"""select dataset, problem_id, variant_id, attack, question
            from read_parquet('{tables}/variants/**/*.parquet', hive_partitioning = true)
            where attack in ('m1', 'm2', 'm3')"""
    ).fetchall()
    out = {}
    for dataset, pid, vid, attack, q in rows:
        out.setdefault((pid, attack), []).append((vid, q))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reader")
    ap.add_argument("paper")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=55)
    a = ap.parse_args()
    modes = {"reader": variants(a.reader), "paper": variants(a.paper)}
    problems = sorted({pid for pid, _ in modes["reader"]})
    sample = []
    turn = 0
    for _, prefix, n in QUOTAS:
        pool = sorted((p for p in problems if p.startswith(prefix)), key=lambda p: rank(a.seed, p))
        taken = 0
        for pid in pool:
            if taken == n:
                break
            attack = ATTACKS[turn % 3]
            if not all((pid, attack) in m for m in modes.values()):
                continue
            turn += 1
            taken += 1
            for mode, m in modes.items():
                vid, q = min(m[(pid, attack)], key=lambda v: rank(a.seed, v[0]))
                sample.append({"mode": mode, "problem_id": pid, "variant_id": vid, "attack": attack, "question": q})
    sample.sort(key=lambda s: rank(a.seed, s["mode"] + s["variant_id"]))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "questions.jsonl"), "w") as f:
        for i, s in enumerate(sample):
            f.write(json.dumps({"key": i + 1, "question": s["question"]}) + "\n")
    with open(os.path.join(a.out, "key.jsonl"), "w") as f:
        for i, s in enumerate(sample):
            f.write(json.dumps({"key": i + 1, **{k: v for k, v in s.items() if k != "question"}}) + "\n")
    print(f"{len(sample)} questions -> {a.out}/questions.jsonl")


if __name__ == "__main__":
    main()
