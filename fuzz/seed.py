#!/usr/bin/env python3
"""Seed the fuzz corpora from the project's own default dataset (datasets/default/problems.jsonl):
the program target gets `question NUL program`, the question and number targets the questions and
their numbers, the extract target answers written the ways models write them."""
import json
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent
corpus = root / "corpus"
problems = [json.loads(l) for l in open(root.parent / "datasets/default/problems.jsonl")]
for target in ("program", "question", "number", "extract"):
    (corpus / target).mkdir(parents=True, exist_ok=True)
for k, p in enumerate(problems):
    (corpus / "program" / f"default-{k}").write_text(p["question"] + "\0" + p["program"])
    (corpus / "question" / f"default-{k}").write_text(p["question"])
    for j, n in enumerate(re.findall(r"\d[\d,]*(?:\.\d+)?", p["question"])):
        (corpus / "number" / f"default-{k}-{j}").write_text(n.replace(",", ""))
    a = p["answer"]
    for j, form in enumerate([
        f"Let's think step by step. So the answer is {a}.",
        f"<|assistant|>\nThe total is $\\boxed{{{a}}}$.",
        f"Step 1: 3 + 4 = 7\n#### {a}",
        f"<think>maybe 12</think>Answer: {a} dollars",
        f"The final answer is \\frac{{{a}}}{{2}}",
    ]):
        (corpus / "extract" / f"default-{k}-{j}").write_text(form)
