//! No import circle at any depth of either crate: every path a source file names (`crate::…`,
//! `super::…`, `super::super::…`, `self::…`, brace groups expanded) is resolved to the module it
//! reaches, and within each folder the sibling modules must import one another without a loop.
//! The layer map (`layers.rs`) governs the top level; this governs every folder below it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use advmath::cut;

use crate::util::{code_of, rust_files};

type Module = Vec<String>;

/// A file's module path under `src` (`store/mirror/lease.rs` is `store::mirror::lease`;
/// `mod.rs`, `lib.rs` and `main.rs` name their folder).
fn module_of(rel: &Path) -> Module {
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    cut::before(s, end)
}

/// The paths of one `use` tree or path expression starting at `s`, each as its segments, groups
/// expanded: `a::{b, c::d}` gives `a::b` and `a::c::d`.
pub fn paths_at(s: &str, prefix: Module, out: &mut Vec<Module>) {
    let mut path = prefix;
    let mut rest = s.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0usize, 0usize);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        paths_at(cut::between(group, start, j), path.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        paths_at(cut::between(group, start, j), path.clone(), out);
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let word = ident(rest);
        if word.is_empty() {
            break;
        }
        path.push(word.to_string());
        rest = cut::after(rest, word.len());
        match rest.strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// Every module path `code` (the text of the file of module `module`) names, resolved from the
/// crate root. Paths through another crate are not this crate's modules and are left out.
fn named_paths(code: &str, module: &[String]) -> Vec<Module> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            let before = if i == 0 { b' ' } else { bytes[i - 1] };
            if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                continue;
            }
            let mut raw = Vec::new();
            paths_at(cut::after(code, i), Vec::new(), &mut raw);
            for path in raw {
                let mut resolved: Module = module.to_vec();
                let mut segments = path.into_iter().peekable();
                match segments.peek().map(String::as_str) {
                    Some("crate") => {
                        resolved.clear();
                        segments.next();
                    }
                    Some("self") => {
                        segments.next();
                    }
                    _ => {}
                }
                let mut valid = true;
                while segments.peek().map(String::as_str) == Some("super") {
                    segments.next();
                    valid &= resolved.pop().is_some();
                }
                if valid {
                    resolved.extend(segments);
                    found.push(resolved);
                }
            }
        }
    }
    found
}

/// For each folder (module path), its submodules' imports of one another.
fn sibling_graphs(src: &Path) -> BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Module> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap()))
        .collect();
    let mut graphs: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap();
        if rel.file_name().is_some_and(|n| n == "tests.rs")
            || rel.components().any(|c| c.as_os_str() == "tests")
        {
            continue;
        }
        let module = module_of(rel);
        let code = code_of(file);
        for target in named_paths(&code, &module) {
            let shared = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if shared >= module.len() || shared >= target.len() {
                continue; // a module reaching its own parts, or a parent's items
            }
            let sibling: Module = target[..=shared].to_vec();
            if modules.contains(&sibling) {
                graphs
                    .entry(module[..shared].to_vec())
                    .or_default()
                    .entry(module[shared].clone())
                    .or_default()
                    .insert(target[shared].clone());
            }
        }
    }
    graphs
}

/// Each circle of each folder, as `folder: a -> b -> ... -> a`.
fn circles(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (folder, graph) in sibling_graphs(src) {
        for start in graph.keys() {
            // Breadth-first from `start`, remembering the way back, until `start` is reached.
            let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start.as_str()]);
            let mut closing = None;
            while let Some(at) = queue.pop_front() {
                for next in graph.get(at).into_iter().flatten() {
                    if next == start {
                        closing = Some(at);
                        break;
                    }
                    if !came_from.contains_key(next.as_str()) {
                        came_from.insert(next, at);
                        queue.push_back(next);
                    }
                }
                if closing.is_some() {
                    break;
                }
            }
            if let Some(mut at) = closing {
                let mut middle = Vec::new();
                while at != start {
                    middle.push(at);
                    at = came_from[at];
                }
                middle.reverse();
                let way: Vec<&str> = std::iter::once(start.as_str())
                    .chain(middle)
                    .chain(std::iter::once(start.as_str()))
                    .collect();
                let name = if folder.is_empty() {
                    "(crate root)".to_string()
                } else {
                    folder.join("::")
                };
                out.push(format!("{name}: {}", way.join(" -> ")));
            }
        }
    }
    out
}

#[test]
fn no_module_imports_in_a_circle_at_any_depth() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = circles(&root.join("src"));
    found.extend(circles(&root.join("crates/advmath-core/src")));
    found.extend(circles(&root.join("crates/advmath-store/src")));
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The check sees a circle closed through `super::super::` from a nested file and through a
/// brace group, as well as one through `crate::` paths.
#[test]
fn a_planted_circle_is_found_whatever_the_path_form() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod store;\npub mod core;\n");
    write(
        "store/mod.rs",
        "pub mod mirror;\npub mod sessions;\npub mod paths;\n",
    );
    write("store/mirror.rs", "pub mod lease;\n");
    write(
        "store/mirror/lease.rs",
        "fn f() { super::super::sessions::host(); }\n",
    );
    write(
        "store/sessions/mod.rs",
        "use super::{paths::name, mirror::Entry};\n",
    );
    write(
        "store/paths.rs",
        "// use super::sessions;\npub fn name() {}\n",
    );
    write("core/mod.rs", "pub mod a;\npub mod b;\n");
    write("core/a.rs", "use crate::core::b::X;\n");
    write("core/b.rs", "use self::super::a::Y;\n");
    let found = circles(src);
    assert_eq!(
        found,
        [
            "core: a -> b -> a",
            "core: b -> a -> b",
            "store: mirror -> sessions -> mirror",
            "store: sessions -> mirror -> sessions",
        ],
        "{found:#?}"
    );
    // Without the nested file's `super::super::` there is no circle.
    write(
        "store/mirror/lease.rs",
        "fn f() { crate::store::paths::name(); }\n",
    );
    write("core/b.rs", "pub struct X;\n");
    assert_eq!(circles(src), Vec::<String>::new());
}
