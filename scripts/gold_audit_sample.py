#!/usr/bin/env python3
"""Draw the blind gold-audit sample from a tables folder: one variant of each sampled problem.

    python3 scripts/gold_audit_sample.py TABLES OUT_DIR [--seed 36] [--problems PROBLEMS.txt]

Writes OUT_DIR/questions.jsonl ({"key", "question"}: all a blind solver may see, in a shuffled
order) and OUT_DIR/key.jsonl ({"key", "problem_id", "variant_id", "attack", "gold"}). Without
--problems the sample is 40 synthesised GSM8K problems, 15 + 15 Xie problems (GSM8K and
MultiArith) and 30 MultiArith problems, drawn by a seeded hash among the problems that have
numeric variants; with it, the listed problems (one id a line), so that two tables folders (before
and after a change) are audited on the same problems. The variant of each problem is drawn by
the same seeded hash among its m1/m2/m3 variants; --per-problem K draws K of them (one per
attack first), for a set of problems too small to give 100 variants one each.
"""
import argparse
import hashlib
import json
import os

import duckdb

QUOTAS = [("gsm8k", 40), ("xie2024-gsm8k", 15), ("xie2024-multiarith", 15), ("multiarith", 30)]


def rank(seed, text):
    return hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tables")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--problems")
    ap.add_argument("--per-problem", type=int, default=1)
    a = ap.parse_args()
    con = duckdb.connect()
    rows = con.execute(
        f"""select dataset, problem_id, variant_id, attack, question, answer
            from read_parquet('{a.tables}/variants/**/*.parquet', hive_partitioning = true)
            where attack in ('m1', 'm2', 'm3')"""
    ).fetchall()
    by_problem = {}
    for dataset, pid, vid, attack, q, ans in rows:
        by_problem.setdefault(pid, (dataset, []))[1].append((vid, attack, q, ans))
    if a.problems:
        chosen = [l.strip() for l in open(a.problems) if l.strip()]
    else:
        chosen = []
        for dataset, n in QUOTAS:
            pids = sorted((p for p, (d, _) in by_problem.items() if d == dataset), key=lambda p: rank(a.seed, p))
            chosen += pids[:n]
    os.makedirs(a.out, exist_ok=True)
    sample = []
    for pid in chosen:
        if pid not in by_problem:
            sample.append({"problem_id": pid, "variant_id": None, "attack": None, "question": None, "gold": None})
            continue
        _, variants = by_problem[pid]
        # One per attack in turn, each attack's variants in seeded-hash order (one variant alone
        # is the first in that order over all attacks, as earlier audits drew it).
        if a.per_problem == 1:
            vid, attack, q, ans = min(variants, key=lambda v: rank(a.seed, v[0]))
            sample.append({"problem_id": pid, "variant_id": vid, "attack": attack, "question": q, "gold": ans})
            continue
        by_attack = {}
        for v in sorted(variants, key=lambda v: rank(a.seed, v[0])):
            by_attack.setdefault(v[1], []).append(v)
        order = []
        while any(by_attack.values()):
            for attack in sorted(by_attack):
                if by_attack[attack]:
                    order.append(by_attack[attack].pop(0))
        for vid, attack, q, ans in order[: a.per_problem]:
            sample.append({"problem_id": pid, "variant_id": vid, "attack": attack, "question": q, "gold": ans})
    with open(os.path.join(a.out, "problems.txt"), "w") as f:
        f.writelines(pid + "\n" for pid in dict.fromkeys(s["problem_id"] for s in sample))
    blind = sorted((s for s in sample if s["question"]), key=lambda s: rank(a.seed, "order:" + s["variant_id"]))
    with open(os.path.join(a.out, "questions.jsonl"), "w") as f, open(os.path.join(a.out, "key.jsonl"), "w") as k:
        for i, s in enumerate(blind):
            key = f"q{i + 1:03d}"
            f.write(json.dumps({"key": key, "question": s["question"]}) + "\n")
            k.write(json.dumps({"key": key, **{c: s[c] for c in ("problem_id", "variant_id", "attack", "gold")}}) + "\n")
    missing = sum(1 for s in sample if not s["question"])
    print(f"{len(sample)} problems, {len(blind)} variants, {missing} without numeric variants")


if __name__ == "__main__":
    main()
