//! The fuzz targets' checks on the stable toolchain: a corpus shaped per target as `fuzz/seed.py`
//! shapes it, from the default dataset and from every GSM8K problem whose text leaves ASCII
//! (read at run time from `../shared/data`, skipped with a message when absent), each seed
//! followed by deterministic mutations (byte flips, cuts inside and between characters,
//! inserted non-ASCII characters, braces, digits, NUL and CRLF, duplicated spans). Every input
//! goes through every check. A local `fuzz/corpus/<target>/` (what cargo-fuzz found, never
//! committed) is run too when it is there.

use crate::unicode_tests::UNICODE;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

use super::CHECKS;
use crate::num::Num;
use crate::program::Links;
use crate::question::find_slots;
use crate::synth::{from_gsm8k, gsm8k_final_answer};

/// The workspace root, where `datasets/` and `fuzz/` are.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
/// The shared data folder beside the project.
const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

/// Mutants per seed: with the GSM8K lines about 29,000 inputs in all, which every check runs
/// through in under 15 s on one core in a debug build. `ADVMATH_FUZZ_MUTANTS` sets another number
/// for a deeper run (`--release` keeps it quick).
const MUTANTS: usize = 4;

fn mutants() -> usize {
    std::env::var("ADVMATH_FUZZ_MUTANTS")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(MUTANTS)
}

/// What the mutations insert besides the characters outside ASCII that GSM8K questions hold
/// (`crate::unicode_tests::UNICODE`): what the scanners react to.
const ASCII_PIECES: &[&str] = &[
    "{",
    "}",
    "{0}",
    "{{",
    "$",
    "%",
    "0",
    "1",
    "7",
    "12",
    "3.5",
    "1,000",
    "/",
    "-",
    " ",
    "\n",
    "\0",
    "\r\n",
    "#### ",
    "The answer is ",
    "\\boxed{",
    "<think>",
];

struct Problem {
    question: String,
    answer: String,
    program: Option<String>,
}

struct Sources {
    default: Vec<Problem>,
    /// GSM8K problems whose question or answer holds a character outside ASCII; `None` when
    /// the shared data is absent.
    gsm8k: Option<Vec<Problem>>,
}

fn sources() -> &'static Sources {
    static SOURCES: OnceLock<Sources> = OnceLock::new();
    SOURCES.get_or_init(|| Sources {
        default: read_jsonl(&Path::new(ROOT).join("datasets/default/problems.jsonl"))
            .expect("the default dataset is part of the project"),
        gsm8k: gsm8k_non_ascii(),
    })
}

fn read_jsonl(path: &Path) -> Option<Vec<Problem>> {
    let text = std::fs::read_to_string(path).ok()?;
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let problems = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            Problem {
                question: field(&v, "question").expect("a question"),
                answer: field(&v, "answer").expect("an answer"),
                program: field(&v, "program"),
            }
        })
        .collect();
    Some(problems)
}

fn gsm8k_non_ascii() -> Option<Vec<Problem>> {
    let dir = Path::new(SHARED).join("gsm8k");
    let mut found = Vec::new();
    for split in ["train", "test"] {
        let problems = read_jsonl(&dir.join(format!("{split}.jsonl")))?;
        found.extend(
            problems
                .into_iter()
                .filter(|p| !p.question.is_ascii() || !p.answer.is_ascii()),
        );
    }
    Some(found)
}

/// The GSM8K problems, or a note (a failure under ADVMATH_REQUIRE_ALL_TESTS) that they are absent.
fn gsm8k(target: &str) -> &'static [Problem] {
    match &sources().gsm8k {
        Some(problems) => problems,
        None => {
            let reason = format!(
                "{SHARED}/gsm8k is absent: the {target} corpus has the default dataset only"
            );
            if std::env::var_os("ADVMATH_REQUIRE_ALL_TESTS").is_some() {
                panic!("ADVMATH_REQUIRE_ALL_TESTS is set, but this test cannot run: {reason}");
            }
            eprintln!("SKIPPED: {reason}");
            &[]
        }
    }
}

/// Replies the ways models write them, as `fuzz/seed.py` writes them.
fn reply_forms(answer: &str) -> [String; 5] {
    [
        format!("Let's think step by step. So the answer is {answer}."),
        format!("<|assistant|>\nThe total is $\\boxed{{{answer}}}$."),
        format!("Step 1: 3 + 4 = 7\n#### {answer}"),
        format!("<think>maybe 12</think>Answer: {answer} dollars"),
        format!("The final answer is \\frac{{{answer}}}{{2}}"),
    ]
}

/// The numbers a question writes (`\d[\d,]*(?:\.\d+)?`), thousands separators dropped.
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            continue;
        }
        let mut n = String::from(c);
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() || **d == ',') {
            if d != ',' {
                n.push(d);
            }
            chars.next();
        }
        let mut rest = chars.clone();
        if rest.next() == Some('.') && rest.peek().is_some_and(char::is_ascii_digit) {
            chars.next();
            n.push('.');
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                n.push(d);
            }
        }
        out.push(n);
    }
    out
}

/// A GSM8K problem's program as advmath synthesises it from the worked solution, in Python.
fn synthesised(p: &Problem) -> Option<String> {
    let gold = Num::parse_decimal(&gsm8k_final_answer(&p.answer)?)?;
    let slots = find_slots(&p.question);
    let program = from_gsm8k(&p.question, &slots, &p.answer, gold, Links::DIGITS).ok()?;
    let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    Some(program.to_python(&values))
}

/// The seeds of one target, shaped as `fuzz/seed.py` shapes them (a GSM8K program target also
/// gets the program advmath synthesises for it, which validation can accept).
fn seeds(target: &str) -> Vec<String> {
    let default = &sources().default;
    let gsm8k = gsm8k(target);
    let tiny = |k: usize| {
        default[k % default.len()]
            .program
            .clone()
            .expect("the default dataset has programs")
    };
    let mut out = Vec::new();
    match target {
        "program" => {
            for p in default {
                out.push(format!(
                    "{}\0{}",
                    p.question,
                    p.program.as_deref().unwrap_or("")
                ));
            }
            for (k, p) in gsm8k.iter().enumerate() {
                out.push(format!("{}\0{}", p.question, tiny(k)));
                if let Some(program) = synthesised(p) {
                    out.push(format!("{}\0{program}", p.question));
                }
            }
        }
        "question" => {
            out.extend(default.iter().map(|p| p.question.clone()));
            out.extend(gsm8k.iter().map(|p| p.question.clone()));
        }
        "number" => {
            for p in default.iter().chain(gsm8k) {
                out.extend(numbers(&p.question));
                out.extend(gsm8k_final_answer(&p.answer));
            }
            out.extend(default.iter().map(|p| p.answer.clone()));
        }
        "extract" => {
            for p in default {
                out.extend(reply_forms(&p.answer));
            }
            for (k, p) in gsm8k.iter().enumerate() {
                let answer = gsm8k_final_answer(&p.answer).unwrap_or_default();
                out.push(p.answer.clone());
                out.push(format!(
                    "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n{}",
                    p.question, p.answer
                ));
                out.extend(reply_forms(&answer).into_iter().nth(k % 5));
            }
        }
        _ => unreachable!("no target {target}"),
    }
    out
}

/// A byte position of a kind chosen at random: any, a character boundary, inside a character,
/// next to a digit, or next to a character outside ASCII (any position when the text has none of
/// that kind).
fn position(b: &[u8], rng: &mut Pcg64Mcg) -> usize {
    let continuation = |i: usize| b.get(i).is_some_and(|&x| x & 0xc0 == 0x80);
    let kind = rng.random_range(0..5u8);
    let fits = |i: usize| match kind {
        1 => !continuation(i),
        2 => continuation(i),
        3 => b.get(i).is_some_and(u8::is_ascii_digit) || i > 0 && b[i - 1].is_ascii_digit(),
        4 => b.get(i).is_some_and(|&x| x >= 0xc0) || i > 0 && b[i - 1] >= 0x80 && !continuation(i),
        _ => true,
    };
    let candidates: Vec<usize> = (0..=b.len()).filter(|&i| fits(i)).collect();
    if candidates.is_empty() {
        rng.random_range(0..=b.len())
    } else {
        candidates[rng.random_range(0..candidates.len())]
    }
}

/// One to three mutations of a seed.
fn mutate(seed: &[u8], rng: &mut Pcg64Mcg) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..rng.random_range(1..=3) {
        match rng.random_range(0..7u8) {
            0 if !b.is_empty() => {
                let i = rng.random_range(0..b.len());
                b[i] ^= 1 << rng.random_range(0..8);
            }
            1 => b.truncate(position(&b, rng)),
            2 => {
                let i = position(&b, rng);
                b.drain(..i);
            }
            3 => {
                let i = position(&b, rng);
                let pieces = UNICODE.len() + ASCII_PIECES.len();
                let k = rng.random_range(0..pieces);
                let piece = UNICODE
                    .get(k)
                    .unwrap_or_else(|| &ASCII_PIECES[k - UNICODE.len()]);
                b.splice(i..i, piece.bytes());
            }
            4 => {
                let (x, y) = (position(&b, rng), position(&b, rng));
                let span = b[x.min(y)..x.max(y)].to_vec();
                let at = position(&b, rng);
                b.splice(at..at, span);
            }
            5 => {
                let i = position(&b, rng);
                b.insert(i, 0);
            }
            _ => {
                if b.contains(&b'\n') {
                    b = String::from_utf8_lossy(&b)
                        .replace('\n', "\r\n")
                        .into_bytes();
                } else {
                    let i = position(&b, rng);
                    b.splice(i..i, *b"\r\n");
                }
            }
        }
    }
    b
}

/// Every input through every check; the failures (input and message) are listed at the end.
fn run_all(what: &str, inputs: &BTreeSet<Vec<u8>>) {
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut spent = [std::time::Duration::ZERO; CHECKS.len()];
    for input in inputs {
        for ((name, check), spent) in CHECKS.iter().zip(&mut spent) {
            let t = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| check(input)));
            *spent += t.elapsed();
            if let Err(e) = outcome {
                let message = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!(
                    "{name} on {:?}: {message}",
                    String::from_utf8_lossy(input)
                ));
            }
        }
    }
    let by_check: Vec<String> = CHECKS
        .iter()
        .zip(spent)
        .map(|((name, _), t)| format!("{name} {t:.1?}"))
        .collect();
    eprintln!(
        "{what}: {} inputs through every check in {:.1?} ({})",
        inputs.len(),
        started.elapsed(),
        by_check.join(", ")
    );
    assert!(
        failures.is_empty(),
        "{what}: {} failures, the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn run_target(target: &str) {
    let seeds = seeds(target);
    // One stream per target, so that a target's inputs do not move when another's seeds change.
    let mut rng = Pcg64Mcg::seed_from_u64(super::fnv1a(target.as_bytes()));
    let mut inputs: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mutants = mutants();
    for s in &seeds {
        inputs.insert(s.as_bytes().to_vec());
        for _ in 0..mutants {
            inputs.insert(mutate(s.as_bytes(), &mut rng));
        }
    }
    eprintln!("{target} corpus: {} seeds", seeds.len());
    run_all(&format!("{target} corpus"), &inputs);
}

#[test]
fn extract_corpus() {
    run_target("extract");
}

#[test]
fn number_corpus() {
    run_target("number");
}

#[test]
fn program_corpus() {
    run_target("program");
}

#[test]
fn question_corpus() {
    run_target("question");
}

/// What cargo-fuzz keeps under `fuzz/corpus/<target>/`, one set for all targets since every
/// input goes through every check.
#[test]
fn local_fuzz_corpora() {
    let mut inputs: BTreeSet<Vec<u8>> = BTreeSet::new();
    for (target, _) in CHECKS {
        let dir = Path::new(ROOT).join("fuzz/corpus").join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("no fuzz/corpus/{target}: nothing to replay");
            continue;
        };
        let before = inputs.len();
        inputs.extend(entries.filter_map(|e| std::fs::read(e.ok()?.path()).ok()));
        eprintln!("fuzz/corpus/{target}: {} new inputs", inputs.len() - before);
    }
    if !inputs.is_empty() {
        run_all("fuzz/corpus", &inputs);
    }
}

/// Inputs that once broke a property, and hand-made ones of the same kind.
#[test]
fn regressions() {
    let cases: &[&[u8]] = &[
        b"",
        b"\0",
        "\u{301}1".as_bytes(),
        "Ana has 1\u{a0}250 \u{410}pples and 3\u{2019}s {0} {{1}}.".as_bytes(),
        "He pays \u{20ac}5 for \u{663} pens\0x = 5 * 3\nprint(x)".as_bytes(),
        b"1,000.50\r\n",
        &[0xe2, 0x80],
        "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467} 1 cookies".as_bytes(),
    ];
    let inputs: BTreeSet<Vec<u8>> = cases.iter().map(|c| c.to_vec()).collect();
    run_all("regressions", &inputs);
}

#[test]
fn numbers_are_read_as_the_seed_script_reads_them() {
    assert_eq!(
        numbers("Ana has 1,250 stamps, 3.5 kg, 2. and 7\u{2019}"),
        ["1250", "3.5", "2", "7"]
    );
}

#[test]
fn mutations_are_deterministic_and_reach_inside_characters() {
    let seed = "A \u{410} costs \u{20ac}12.50.\n".as_bytes();
    let run = || {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        (0..200).map(|_| mutate(seed, &mut rng)).collect::<Vec<_>>()
    };
    let mutants = run();
    assert_eq!(mutants, run());
    assert!(mutants.iter().any(|m| std::str::from_utf8(m).is_err()));
    assert!(mutants.iter().any(|m| m.contains(&0)));
    assert!(mutants.iter().any(|m| m.windows(2).any(|w| w == b"\r\n")));
}
