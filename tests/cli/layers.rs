//! The library's modules import downwards only: no loop, no stage reaching up into the pipeline.
//! The allowed edges are the map in docs/contributing.md's layout section; a new `crate::` import that is
//! not on it fails here, naming the file.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::circles::paths_at;
use crate::util::{code_of, rust_files};

/// Modules of the core crate, usable from anywhere.
const CORE: &[&str] = &[
    "agreement",
    "attack",
    "cut",
    "extract",
    "feature_sets",
    "fuzz_checks",
    "num",
    "program",
    "published",
    "question",
    "seed",
    "synth",
    "vocab",
];

/// What each module of the advmath crate may import (besides the core crate's modules, which
/// the crate re-exports).
const ENGINE: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("contain", &[]),
    ("output", &[]),
    ("input", &["error", "progress"]),
    ("progress", &[]),
    ("plot", &["error"]),
    ("store", &["error", "progress"]),
    ("llm", &["error", "progress"]),
    ("cluster", &["error", "store", "progress"]),
    (
        "generate",
        &["error", "store", "output", "progress", "contain", "regress"],
    ),
    (
        "respond",
        &[
            "error", "store", "output", "input", "progress", "llm", "contain",
        ],
    ),
    (
        "ingest",
        &[
            "error", "store", "output", "input", "progress", "llm", "contain",
        ],
    ),
    (
        "features",
        &["error", "store", "output", "progress", "contain"],
    ),
    (
        "regress",
        &["error", "store", "output", "plot", "progress", "features"],
    ),
    (
        "metrics",
        &["error", "store", "output", "progress", "plot", "cluster"],
    ),
    (
        "publish",
        &["error", "store", "output", "progress", "llm", "published"],
    ),
    (
        "annotate",
        &[
            "error", "store", "output", "input", "progress", "metrics", "respond",
        ],
    ),
    (
        "pipeline",
        &[
            "error", "store", "output", "input", "progress", "ingest", "generate", "respond",
            "features", "regress", "metrics", "publish", "llm",
        ],
    ),
];

/// The core crate's modules, in the same form.
#[rustfmt::skip]
const CORE_EDGES: &[(&str, &[&str])] = &[
    ("num", &[]),
    ("seed", &[]),
    ("vocab", &[]),
    ("cut", &[]),
    ("agreement", &["cut", "question"]),
    ("question", &["cut", "num"]),
    ("extract", &["cut", "num"]),
    ("program", &["cut", "num", "question"]),
    ("feature_sets", &["num", "program"]),
    ("synth", &["cut", "num", "program", "question"]),
    ("published", &["num", "program", "question"]),
    ("attack", &["agreement", "cut", "num", "program", "question", "seed", "vocab"]),
    ("fuzz_checks", &["agreement", "attack", "extract", "num", "program", "question"]),
];

/// The store crate's modules: the names, layouts and durable file steps at the bottom, one
/// codec per table above them, the documentation and the foreign-file check over all tables.
const STORE_EDGES: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("note", &[]),
    ("layout", &[]),
    ("columns", &[]),
    ("fault", &[]),
    ("paths", &["error"]),
    ("machine", &["paths"]),
    ("runs", &["error", "paths"]),
    ("lock", &["error", "paths"]),
    ("atomic", &["error", "fault", "paths"]),
    ("parquet", &["atomic", "error", "layout", "paths"]),
    (
        "commit",
        &["atomic", "error", "lock", "machine", "note", "paths"],
    ),
    ("problems", &["columns", "error", "parquet", "paths"]),
    (
        "candidate_programs",
        &["columns", "commit", "error", "parquet", "problems"],
    ),
    ("responses", &["columns", "error", "parquet", "paths"]),
    ("annotations", &["columns", "error", "parquet", "paths"]),
    ("coefficients", &["columns", "error", "parquet", "paths"]),
    (
        "generation_stats",
        &["columns", "error", "parquet", "paths"],
    ),
    (
        "efficient_responses",
        &["columns", "error", "parquet", "paths", "responses"],
    ),
    (
        "feature_tables",
        &["columns", "commit", "error", "parquet", "paths"],
    ),
    (
        "variants",
        &[
            "atomic",
            "columns",
            "commit",
            "error",
            "generation_stats",
            "parquet",
            "paths",
            "runs",
        ],
    ),
    ("reply_merge", &["commit", "error", "parquet", "responses"]),
    (
        "compact",
        &[
            "commit", "error", "foreign", "layout", "lock", "parquet", "paths",
        ],
    ),
    (
        "doc",
        &[
            "annotations",
            "candidate_programs",
            "coefficients",
            "efficient_responses",
            "feature_tables",
            "generation_stats",
            "problems",
            "responses",
            "variants",
        ],
    ),
    (
        "foreign",
        &[
            "annotations",
            "candidate_programs",
            "coefficients",
            "efficient_responses",
            "error",
            "feature_tables",
            "generation_stats",
            "parquet",
            "paths",
            "problems",
            "responses",
            "variants",
        ],
    ),
];

/// `crate::<module>` references of every non-test source file, by the top-level module the file
/// belongs to.
fn imports(src: &Path, skip: &[&str]) -> BTreeMap<(String, PathBuf), Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs").to_string();
        let name = file.file_name().unwrap().to_string_lossy();
        if skip.contains(&module.as_str()) || name.ends_with("tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        // Inline test modules sit at the end of a file; what they import is not the module's.
        let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
        let mut used: Vec<String> = first_segments(code, "crate::")
            .into_iter()
            .filter(|m| *m != module)
            .collect();
        used.sort();
        used.dedup();
        out.insert((module, rel.to_path_buf()), used);
    }
    out
}

fn check(src: &Path, rules: &[(&str, &[&str])], always: &[&str], skip: &[&str]) -> Vec<String> {
    let rules: BTreeMap<&str, &[&str]> = rules.iter().copied().collect();
    let mut wrong = Vec::new();
    for ((module, file), used) in imports(src, skip) {
        let Some(allowed) = rules.get(module.as_str()) else {
            wrong.push(format!(
                "{}: module `{module}` is not on the map",
                file.display()
            ));
            continue;
        };
        for m in used {
            if !allowed.contains(&m.as_str()) && !always.contains(&m.as_str()) {
                wrong.push(format!(
                    "{}: `{module}` imports `crate::{m}`",
                    file.display()
                ));
            }
        }
    }
    wrong
}

#[test]
fn modules_import_downwards_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = check(&root.join("src"), ENGINE, CORE, &["lib", "main", "cli"]);
    wrong.extend(check(
        &root.join("crates/advmath-core/src"),
        CORE_EDGES,
        &[],
        &["lib"],
    ));
    wrong.extend(check(
        &root.join("crates/advmath-store/src"),
        STORE_EDGES,
        &[],
        &["lib"],
    ));
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_map_has_no_loop() {
    // Depth-first over each map: a module reachable from itself is a loop.
    for rules in [ENGINE, CORE_EDGES, STORE_EDGES] {
        let edges: BTreeMap<&str, &[&str]> = rules.iter().copied().collect();
        fn reaches(
            edges: &BTreeMap<&str, &[&str]>,
            from: &str,
            to: &str,
            seen: &mut Vec<String>,
        ) -> bool {
            for &next in edges.get(from).copied().unwrap_or(&[]) {
                if next == to {
                    return true;
                }
                if !seen.iter().any(|s| s == next) {
                    seen.push(next.to_string());
                    if reaches(edges, next, to, seen) {
                        return true;
                    }
                }
            }
            false
        }
        for module in edges.keys() {
            assert!(
                !reaches(&edges, module, module, &mut Vec::new()),
                "{module} is in a loop"
            );
        }
    }
}

/// The dependencies of a member crate, from its manifest's `[dependencies]` table.
fn dependencies(member: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("crates/{member}/Cargo.toml"));
    let manifest = fs::read_to_string(path).unwrap();
    let mut inside = false;
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                out.push(name.trim().to_string());
            }
        }
    }
    out
}

#[test]
fn the_core_crate_has_no_engine_dependency() {
    let deps = dependencies("advmath-core");
    assert!(!deps.is_empty(), "advmath-core has no dependency table?");
    for engine in [
        "polars",
        "datafusion",
        "arrow",
        "parquet",
        "ureq",
        "tokio",
        "advmath",
        "advmath-store",
    ] {
        assert!(
            !deps.iter().any(|d| d == engine),
            "advmath-core depends on {engine}: {deps:?}"
        );
    }
}

/// The store is tables on a disk: no query engine, user-table reader, network or object store,
/// and nothing of the engine above it.
#[test]
fn the_store_crate_has_no_engine_dependency() {
    let deps = dependencies("advmath-store");
    assert!(deps.iter().any(|d| d == "parquet"), "{deps:?}");
    for engine in [
        "polars",
        "datafusion",
        "ureq",
        "tokio",
        "object_store",
        "advmath",
    ] {
        assert!(
            !deps.iter().any(|d| d == engine),
            "advmath-store depends on {engine}: {deps:?}"
        );
    }
}

/// The layout map in docs/contributing.md, as (module, imports besides `error`) rows: the `src/`
/// rows name the engine's modules, the `crates/advmath-core/` and `crates/advmath-store/` rows
/// those crates'.
fn documented_map(crate_heading: &str) -> BTreeMap<String, Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/contributing.md");
    let text = fs::read_to_string(&path).unwrap();
    let mut out = BTreeMap::new();
    let mut inside = false;
    for line in text.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line
            .split(" | ")
            .map(|c| c.trim_matches(['|', ' ']))
            .collect();
        if cells[0].starts_with("**") {
            inside = cells[0].contains(crate_heading);
            continue;
        }
        // One module per row: the binary's row (`cli/`, `main.rs`) is no library module.
        let Some(module) = cells[0]
            .strip_prefix('`')
            .and_then(|m| m.strip_suffix('`'))
            .filter(|m| !m.contains('`'))
        else {
            continue;
        };
        if !inside || cells.len() < 3 {
            continue;
        }
        let imports = cells[2]
            .split(", ")
            .filter_map(|m| m.strip_prefix('`').and_then(|m| m.strip_suffix('`')))
            .filter(|m| *m != "error")
            .map(str::to_string)
            .collect();
        out.insert(module.to_string(), imports);
    }
    out
}

/// The map the docs show is the map this file enforces, row for row: a module added, removed or
/// given a new import changes both or fails here.
#[test]
fn the_documented_map_is_the_enforced_one() {
    let enforced = |rules: &[(&str, &[&str])]| -> BTreeMap<String, Vec<String>> {
        rules
            .iter()
            .map(|(m, imports)| {
                let mut imports: Vec<String> = imports
                    .iter()
                    .filter(|i| **i != "error")
                    .map(|i| i.to_string())
                    .collect();
                // `pipeline` imports every stage: the docs say so in words.
                if *m == "pipeline" {
                    imports.clear();
                }
                imports.sort();
                (m.to_string(), imports)
            })
            .collect()
    };
    let mut documented = documented_map("src/");
    documented.values_mut().for_each(|v| v.sort());
    assert_eq!(
        documented,
        enforced(ENGINE),
        "docs/contributing.md's layout map"
    );
    let mut core = documented_map("advmath-core");
    core.values_mut().for_each(|v| v.sort());
    assert_eq!(core, enforced(CORE_EDGES), "the core crate's rows");
    let mut store = documented_map("advmath-store");
    store.values_mut().for_each(|v| v.sort());
    assert_eq!(store, enforced(STORE_EDGES), "the store crate's rows");
}

/// The first segment of every path after `prefix` in `code` (`super::paths::sanitize` gives
/// `paths`), brace groups expanded (`super::{paths::sanitize, commit}` gives both).
fn first_segments(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let mut paths = Vec::new();
        paths_at(
            advmath::cut::after(code, i + prefix.len()),
            Vec::new(),
            &mut paths,
        );
        out.extend(paths.into_iter().filter_map(|p| p.into_iter().next()));
    }
    out
}

/// The modules of the folder `dir` and what each imports of its siblings, the paths read after
/// `prefix` (and after `super::` in the modules' own files when `super_is_folder`). An import of
/// an item through the folder's front (`super::sanitize` instead of `super::paths::sanitize`)
/// is listed apart, since it hides which sibling it reaches; `below` are the modules the front
/// re-exports from the crate under it, reached by name too.
fn sibling_imports(
    dir: &Path,
    prefix: &str,
    super_is_folder: bool,
    below: &[String],
) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    // A module is `name.rs`, with its submodules in `name/` when it has some.
    let mut modules = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path.with_extension("").is_dir() {
            continue; // the front of the folder beside it, listed with it
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name != "lib" {
            modules.push((name, path));
        }
    }
    let names: Vec<String> = modules.iter().map(|(n, _)| n.clone()).collect();
    let (mut edges, mut through_front) = (BTreeMap::new(), Vec::new());
    for (module, path) in &modules {
        let front = path.with_extension("rs");
        let mut files = vec![front.clone()];
        if path.is_dir() {
            rust_files(path, &mut files);
        }
        let mut used: Vec<String> = Vec::new();
        for file in files {
            let code = code_of(&file);
            let code = code.as_str();
            let mut segments = first_segments(code, prefix);
            // `super::` of a file below the module's front is the module itself, not the folder.
            if super_is_folder && file == front {
                segments.extend(first_segments(code, "super::"));
            }
            for s in segments {
                if names.contains(&s) {
                    if s != *module {
                        used.push(s);
                    }
                } else if !below.contains(&s) {
                    through_front.push(format!("{}: `{s}` through the front", file.display()));
                }
            }
        }
        used.sort();
        used.dedup();
        edges.insert(module.clone(), used);
    }
    (edges, through_front)
}

fn src_folder(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(folder)
}

/// The engine's `store/` (object storage and cluster sessions) reaches the store crate's modules
/// by name through its front (`store.rs`, which re-exports the crate and declares them), and its
/// own modules by name: nothing through the front's other items.
#[test]
fn the_store_imports_its_siblings_by_name() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/advmath-store/src");
    let (below, through_front) = sibling_imports(&crate_dir, "crate::", false, &[]);
    assert!(through_front.is_empty(), "{through_front:#?}");
    assert!(below.len() > 20, "{below:?}");
    assert!(below["parquet"].contains(&"paths".to_string()), "{below:?}");
    let below: Vec<String> = below.into_keys().collect();
    let (edges, through_front) =
        sibling_imports(&src_folder("store"), "crate::store::", true, &below);
    assert!(through_front.is_empty(), "{through_front:#?}");
    assert!(
        edges["mirror"].contains(&"location".to_string()),
        "{edges:?}"
    );
}

/// Inside `respond/`, likewise: the run's settings (`config`), its questions (`items`), the
/// client and its servers, the log and the rows below the ways of answering (`ask`, `offline`,
/// `efficient`, `outside`); `respond.rs` holds the run and re-exports, and no sibling imports it.
#[test]
fn the_respond_stage_imports_its_siblings_by_name() {
    let (edges, through_front) =
        sibling_imports(&src_folder("respond"), "crate::respond::", true, &[]);
    assert!(through_front.is_empty(), "{through_front:#?}");
    assert!(
        edges["efficient"].contains(&"config".to_string()),
        "{edges:?}"
    );
}

/// The modules a crate's `lib.rs` makes public (`pub mod name;`).
fn public_modules(lib: &str) -> Vec<String> {
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(lib)).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').trim().to_string())
        .collect()
}

/// One name per thing: a public module name belongs to one crate, so `crate::store::parquet`
/// and `crate::num` each name one thing wherever they are written.
#[test]
fn no_public_module_name_is_in_two_crates() {
    let crates = [
        "src/lib.rs",
        "crates/advmath-core/src/lib.rs",
        "crates/advmath-store/src/lib.rs",
    ];
    let mut owner: BTreeMap<String, &str> = BTreeMap::new();
    for lib in crates {
        let modules = public_modules(lib);
        assert!(modules.len() > 5, "{lib}: {modules:?}");
        for m in modules {
            if let Some(first) = owner.insert(m.clone(), lib) {
                panic!("module `{m}` is public in both {first} and {lib}");
            }
        }
    }
}
