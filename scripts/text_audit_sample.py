#!/usr/bin/env python3
"""Draw the blind read of the text attacks: 100 `names` and 100 `noop` variants, one per problem.

    python3 scripts/text_audit_sample.py TABLES OUT_DIR [--seed 57]

TABLES holds GSM8K test generated with `--attack names,noop,names+m3,noop+m3`. Per family, 75
problems are drawn from the attack alone (`names`, `noop`) and 25 from its composition with M3
(`m3+names`, `m3+noop`), by a seeded hash of the problem id, no problem twice in a family; the
variant of each is drawn by the same hash. Writes OUT_DIR/<family>_questions.jsonl ({"n",
"question"}: all a blind reader may see, in a hashed order) and OUT_DIR/<family>_key.jsonl ({"n",
"variant_id", "attack", "question", "gold", "distractor", "original"}: read only after the
blind answers are in).
"""
import argparse
import hashlib
import json
import os

import duckdb

FAMILIES = {"names": [("names", 75), ("m3+names", 25)], "noop": [("noop", 75), ("m3+noop", 25)]}


def rank(seed, text):
    return hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tables")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=57)
    args = ap.parse_args()
    rows = duckdb.connect().execute(
        f"""select problem_id, variant_id, attack, question, answer, distractor
            from read_parquet('{args.tables}/variants/**/*.parquet', hive_partitioning = true)"""
    ).fetchall()
    originals = {p: q for p, _, a, q, _, _ in rows if a == "original"}
    os.makedirs(args.out, exist_ok=True)
    for family, parts in FAMILIES.items():
        chosen, used = [], set()
        for attack, n in parts:
            by_problem = {}
            for p, v, a, q, ans, d in rows:
                if a == attack:
                    by_problem.setdefault(p, []).append((v, a, q, ans, d))
            problems = [p for p in sorted(by_problem, key=lambda p: rank(args.seed, p)) if p not in used]
            for p in problems[:n]:
                used.add(p)
                v = min(by_problem[p], key=lambda r: rank(args.seed, r[0]))
                chosen.append((p, v))
        chosen.sort(key=lambda c: rank(args.seed, "order" + c[1][0]))
        with open(f"{args.out}/{family}_questions.jsonl", "w") as q, open(f"{args.out}/{family}_key.jsonl", "w") as k:
            for n, (p, (v, a, text, ans, d)) in enumerate(chosen, 1):
                q.write(json.dumps({"n": n, "question": text}) + "\n")
                k.write(json.dumps({"n": n, "variant_id": v, "attack": a, "question": text, "gold": ans,
                                    "distractor": d, "original": originals[p]}) + "\n")


if __name__ == "__main__":
    main()
