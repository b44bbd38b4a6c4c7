//! The tables' layout is spelled in the store only (the `advmath-store` crate, and `src/store/` of
//! the engine for remote folders): outside it no code names a table's column,
//! partition key or part file by a literal. Readers ask the store (`store::columns`, the typed
//! readers), so that a rename is one edit there and the readers follow.
//!
//! The column names are those `docs/tables.md` lists (written from the store's column docs and
//! checked against them by `store::tests`). Formats that are not ours keep their own names (a
//! server's JSON, a source dataset's fields), and a printed summary's or a result file's header is
//! spelled where it is written; both are listed below with the reason.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use advmath::cut;

use crate::util::rust_files;

/// Folders and files that speak a format which is not ours, so their keys are that format's.
const OTHER_FORMATS: &[(&str, &str)] = &[
    (
        "llm/",
        "the OpenAI-compatible wire format (`model`, `prompt_tokens`, `finish_reason`)",
    ),
    (
        "respond/outside/",
        "replies in outside formats: lm-eval samples, OpenAI batch, ArithmAttack CSVs",
    ),
    (
        "ingest/read.rs",
        "the source datasets' own fields (GSM8K, MultiArith, the Xie release)",
    ),
];

/// Calls whose literal arguments are not table columns: headers of what a command prints or a
/// result file it writes, a setting's name, a flag's attributes, the keys of a JSON document
/// (a page's data, a server's request).
const OTHER_CALLS: &[&str] = &["tsv_row", "Csv::new", "Error::setting", "arg", "json"];

/// Single literals that equal a column's name but are something else.
const OTHER_LITERALS: &[(&str, &str, &str)] = &[
    ("annotate.rs", "per_problem", "a setting's name"),
    ("annotate/sheet.rs", "n", "a cell meaning no"),
    ("cli.rs", "attack", "the flag of the `attacks` setting"),
    (
        "ingest.rs",
        "question",
        "the default question column of a user's input file",
    ),
    (
        "ingest.rs",
        "answer",
        "the default answer column of a user's input file",
    ),
    (
        "regress/fit.rs",
        "correct",
        "the label of the positive class",
    ),
    ("respond/offline.rs", "simulated", "a value of `source`"),
    (
        "metrics/result.rs",
        "source",
        "the transfer study's source model, not the replies' `source`",
    ),
    (
        "regress/plots.rs",
        "mult_count",
        "a Figure 8 panel's feature, by the core's name",
    ),
    (
        "regress/plots.rs",
        "operation_count",
        "a Figure 8 panel's feature, by the core's name",
    ),
    (
        "regress/plots.rs",
        "answer_digits",
        "a Figure 8 panel's feature, by the core's name",
    ),
    (
        "regress/plots.rs",
        "node_count",
        "a Figure 8 panel's feature, by the core's name",
    ),
];

/// Source files outside the store with the code before their inline test module (tests spell the
/// names they check).
fn code_outside_the_store() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("store/") || rel == "store.rs" || rel.ends_with("tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let code = text
            .split("#[cfg(test)]\nmod tests {")
            .next()
            .unwrap()
            .to_string();
        out.push((rel, code));
    }
    out
}

/// Every column name of every table, from `docs/tables.md`.
fn table_columns() -> BTreeSet<String> {
    let doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tables.md")).unwrap();
    let columns: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| ")?.split(" |").next())
        .filter(|c| {
            !c.is_empty()
                && c.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .filter(|c| *c != "column")
        .map(str::to_string)
        .collect();
    assert!(
        columns.len() > 100 && columns.contains("variant_id"),
        "docs/tables.md lists {} columns",
        columns.len()
    );
    columns
}

/// A string literal of the code, with the call it is an argument of (the innermost open `(`'s
/// callee, e.g. `tsv_row` or `Error::setting`) and its line.
#[derive(Debug)]
struct Literal {
    text: String,
    callee: String,
    line: usize,
}

/// The string literals of Rust code, skipping comments, char literals and raw strings' hashes.
fn literals(code: &str) -> Vec<Literal> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    // Open brackets, each with the path written just before it (the callee of a `(`).
    let mut open: Vec<(u8, String)> = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let callee = |open: &[(u8, String)]| {
        open.iter()
            .rev()
            .find(|(c, _)| *c == b'(')
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    };
    while i < b.len() {
        match b[i] {
            b'\n' => line += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = cut::after(code, i + 2)
                    .find("*/")
                    .map_or(b.len(), |e| i + 2 + e + 2);
                line += cut::between(code, i, end).matches('\n').count();
                i = end;
                continue;
            }
            b'\'' => {
                // A char literal ('x', '\n', '"'); otherwise a lifetime, which ends itself.
                if b.get(i + 1) == Some(&b'\\') {
                    let end = cut::after(code, i + 2)
                        .find('\'')
                        .map_or(b.len(), |e| i + 2 + e + 1);
                    i = end;
                    continue;
                }
                if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                    continue;
                }
                let c = cut::after(code, i + 1).chars().next();
                if let Some(c) = c.filter(|c| !c.is_ascii()) {
                    if cut::after(code, i + 1 + c.len_utf8()).starts_with('\'') {
                        i += 2 + c.len_utf8();
                        continue;
                    }
                }
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let start = i + 2 + hashes;
                    let end = cut::after(code, start)
                        .find(&close)
                        .map_or(b.len(), |e| start + e);
                    out.push(Literal {
                        text: cut::between(code, start, end).to_string(),
                        callee: callee(&open),
                        line,
                    });
                    line += cut::between(code, start, end).matches('\n').count();
                    i = end + close.len();
                    continue;
                }
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push(Literal {
                    text: cut::between(code, start, j).to_string(),
                    callee: callee(&open),
                    line,
                });
                line += cut::between(code, start, j).matches('\n').count();
                i = j + 1;
                continue;
            }
            c @ (b'(' | b'[' | b'{') => {
                let before = cut::before(code, i).trim_end();
                let path: String = before
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':' || *c == '!')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                open.push((c, path.trim_end_matches('!').to_string()));
            }
            b')' | b']' | b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[test]
fn the_literal_scanner_finds_strings_and_their_calls() {
    let code = "let c = '\"'; // \"not this\"\nlet s = r#\"raw \"q\"\"#;\nf(x, [\"a\",\n \"b\\\"\"]); g(\"c\");\n'a: loop {}";
    let found: Vec<(String, String, usize)> = literals(code)
        .into_iter()
        .map(|l| (l.text, l.callee, l.line))
        .collect();
    assert_eq!(
        found,
        [
            ("raw \"q\"".to_string(), String::new(), 2),
            ("a".to_string(), "f".to_string(), 3),
            ("b\\\"".to_string(), "f".to_string(), 4),
            ("c".to_string(), "g".to_string(), 4),
        ]
    );
}

#[test]
fn no_table_column_is_spelled_outside_the_store() {
    let columns = table_columns();
    let mut found = Vec::new();
    for (rel, code) in code_outside_the_store() {
        if OTHER_FORMATS.iter().any(|(p, _)| rel.starts_with(p)) {
            continue;
        }
        for l in literals(&code) {
            let other_call = OTHER_CALLS
                .iter()
                .any(|c| l.callee == *c || l.callee.ends_with(&format!("::{c}")));
            let other_literal = OTHER_LITERALS
                .iter()
                .any(|(f, t, _)| *f == rel && *t == l.text);
            if columns.contains(&l.text) && !other_call && !other_literal {
                found.push(format!("src/{rel}:{}: \"{}\"", l.line, l.text));
            }
        }
    }
    assert!(
        found.is_empty(),
        "table columns spelled outside the store (name them through store::columns or a typed reader):\n{}",
        found.join("\n")
    );
}

#[test]
fn every_listed_exception_is_still_needed() {
    // An exception nobody needs any more would let the name back in unnoticed.
    let columns = table_columns();
    let code = code_outside_the_store();
    for (file, text, why) in OTHER_LITERALS {
        assert!(
            columns.contains(*text),
            "{text:?} ({why}) is no table's column"
        );
        let (_, c) = code
            .iter()
            .find(|(rel, _)| rel == file)
            .unwrap_or_else(|| panic!("no src/{file}"));
        assert!(
            literals(c).iter().any(|l| l.text == *text),
            "src/{file} no longer spells {text:?} ({why}): drop the exception"
        );
    }
}

#[test]
fn partition_keys_and_part_names_live_in_the_store() {
    let mut found = Vec::new();
    for (rel, code) in code_outside_the_store() {
        for (i, line) in code.lines().enumerate() {
            let code_part = line.split("//").next().unwrap_or("");
            for needle in [
                "hive_dir(",
                "store::partitions(",
                "\"dataset=",
                "\"attack=",
                "\"part-",
            ] {
                if code_part.contains(needle) {
                    found.push(format!("src/{rel}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// Literals that read as an attack's name but name something else.
const NOT_ATTACKS: &[(&str, &str, &str)] = &[
    (
        "src/metrics/html.rs",
        "original",
        "the report query's `role` of a question and the page's key for it",
    ),
    (
        "crates/advmath-core/src/program/links.rs",
        "digits",
        "the `--link` kind of a number written in digits",
    ),
    (
        "src/publish/hub.rs",
        "original",
        "the Hub's `source_datasets` value for data written for the dataset itself",
    ),
];

/// Whether a literal spells an attack or a join of attack families (`m3`, `punct30`,
/// `names+noop`, `+punct`).
fn spells_an_attack(text: &str) -> bool {
    let token = |t: &str| {
        matches!(
            t,
            "original"
                | "m1"
                | "m2"
                | "m3"
                | "digits"
                | "names"
                | "noop"
                | "guided"
                | "rephrase"
                | "punct"
        ) || t
            .strip_prefix("punct")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let text = text.strip_prefix('+').unwrap_or(text);
    !text.is_empty() && text.split('+').all(token)
}

/// Every library source of the workspace but the vocabulary, without inline test modules, by
/// path from the repository's root.
fn code_outside_the_vocabulary() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "crates/advmath-store/src", "crates/advmath-core/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|file| {
            let rel = file
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with("crates/advmath-core/src/vocab") || rel.ends_with("tests.rs") {
                return None;
            }
            let text = fs::read_to_string(&file).unwrap();
            let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
            Some((rel, code.to_string()))
        })
        .collect()
}

#[test]
fn no_attack_is_spelled_outside_the_vocabulary() {
    assert!(spells_an_attack("m3+names") && spells_an_attack("punct30"));
    assert!(spells_an_attack("+punct") && !spells_an_attack("m4") && !spells_an_attack("mean"));
    let mut found = Vec::new();
    let mut used = BTreeSet::new();
    for (rel, code) in code_outside_the_vocabulary() {
        for l in literals(&code) {
            // A flag's attributes and a setting's name (`--digits`, `--link digits`) are no
            // attack.
            let setting = ["arg", "Error::setting"].contains(&l.callee.as_str());
            if !spells_an_attack(&l.text) || setting {
                continue;
            }
            match NOT_ATTACKS
                .iter()
                .find(|(f, t, _)| *f == rel && *t == l.text)
            {
                Some(exception) => {
                    used.insert(exception.0);
                }
                None => found.push(format!("{rel}:{}: \"{}\"", l.line, l.text)),
            }
        }
    }
    assert!(
        found.is_empty(),
        "attacks spelled outside the vocabulary (ask advmath::vocab by type: Attack::of, \
         has, has_kind, families):\n{}",
        found.join("\n")
    );
    for (file, text, why) in NOT_ATTACKS {
        assert!(
            used.contains(file),
            "{file} no longer spells {text:?} ({why}): drop the exception"
        );
    }
}
