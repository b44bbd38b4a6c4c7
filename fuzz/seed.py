#!/usr/bin/env python3
"""Seed the fuzz corpora (fuzz/corpus/<target>/, never committed) from the project's own default
dataset (datasets/default/problems.jsonl) and, when ../shared/data/gsm8k is there, from every
GSM8K problem whose question or answer holds a character outside ASCII (curly quotes, dashes,
accents, currency signs, a Cyrillic letter): the program target gets `question NUL program` (a
GSM8K problem has no program, so it gets one of the default set's), the question, noise and
agreement targets the questions, the number target their numbers, the extract target answers
written the ways models write them and GSM8K's worked solutions. The stable-toolchain harness
(advmath_core::fuzz_checks, run by `cargo test`) builds the same corpus in memory."""
import json
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent
corpus = root / "corpus"
TARGETS = ("program", "question", "number", "extract", "noise", "agreement")


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def numbers(text):
    return [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text, re.ASCII)]


def reply_forms(a):
    return [
        f"Let's think step by step. So the answer is {a}.",
        f"<|assistant|>\nThe total is $\\boxed{{{a}}}$.",
        f"Step 1: 3 + 4 = 7\n#### {a}",
        f"<think>maybe 12</think>Answer: {a} dollars",
        f"The final answer is \\frac{{{a}}}{{2}}",
    ]


def write(target, name, text):
    (corpus / target / name).write_bytes(text.encode("utf-8"))


problems = read(root.parent / "datasets/default/problems.jsonl")
for target in TARGETS:
    (corpus / target).mkdir(parents=True, exist_ok=True)
for k, p in enumerate(problems):
    write("program", f"default-{k}", p["question"] + "\0" + p["program"])
    for target in ("question", "noise", "agreement"):
        write(target, f"default-{k}", p["question"])
    for j, n in enumerate(numbers(p["question"])):
        write("number", f"default-{k}-{j}", n)
    for j, form in enumerate(reply_forms(p["answer"])):
        write("extract", f"default-{k}-{j}", form)

gsm8k = root.parent.parent / "shared/data/gsm8k"
seeded = 0
for split in ("train", "test"):
    path = gsm8k / f"{split}.jsonl"
    if not path.exists():
        continue
    for k, p in enumerate(read(path)):
        q, a = p["question"], p["answer"]
        if q.isascii() and a.isascii():
            continue
        i, seeded = seeded, seeded + 1
        name = f"gsm8k-{split}-{k}"
        final = a.rsplit("####", 1)[-1].strip().replace(",", "").replace("$", "")
        write("program", name, q + "\0" + problems[i % len(problems)]["program"])
        for target in ("question", "noise", "agreement"):
            write(target, name, q)
        for j, n in enumerate(numbers(q) + [final]):
            write("number", f"{name}-{j}", n)
        write("extract", f"{name}-solution", a)
        write("extract", f"{name}-chat",
              f"<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n{a}")
        write("extract", f"{name}-form", reply_forms(final)[i % 5])
if seeded:
    print(f"seeded {len(problems)} default problems and {seeded} GSM8K problems outside ASCII")
else:
    print(f"seeded {len(problems)} default problems ({gsm8k} is absent)")
