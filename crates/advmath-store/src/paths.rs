//! Names and paths of a tables folder that every part of the store shares: the default output
//! folders, safe path components, staging names, hive partition folders and part files, and where
//! a path will be once written (for the output guards).

use std::fs;
use std::path::{Path, PathBuf};

/// The output folder of every command left to its defaults: `run --out`, and the parent of every
/// other command's tables and reports.
pub const DEFAULT_OUT: &str = "out";

/// `<out>/tables`: the tables folder of an output folder.
pub fn tables_dir(out: &Path) -> PathBuf {
    out.join("tables")
}

/// `<out>/reports`: where the reports of an output folder go.
pub fn reports_dir(out: &Path) -> PathBuf {
    out.join("reports")
}

/// The tables folder of every command but `run` (`run` puts it under its `--out`).
pub fn default_tables() -> PathBuf {
    tables_dir(Path::new(DEFAULT_OUT))
}

/// A name (a dataset, split, attack, model, sheet) as one path component, injectively: two
/// different names never share a file, and the name can be read back from it ([`name_of`]).
/// ASCII letters, digits, `-` and `+` (`m3+punct10`), letters and digits of other scripts (`数学`), `.` after the
/// first character and a single `_` inside the name are kept; every other byte is written
/// `~XX` (hex). So no component is `.`, `..`, hidden, or holds a `/`, and none holds `__` or
/// starts or ends with `_`: the `<dataset>__<split>` file names split back unambiguously.
pub fn name_component(name: &str) -> String {
    if name.is_empty() {
        return "~".to_string();
    }
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    for (i, &c) in chars.iter().enumerate() {
        let keep = match c {
            '-' | '+' => true,
            '.' => i > 0,
            '_' => i > 0 && i + 1 < chars.len() && chars[i - 1] != '_' && chars[i + 1] != '_',
            c if c.is_ascii() => c.is_ascii_alphanumeric(),
            c => c.is_alphanumeric(),
        };
        if keep {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("~{b:02X}"));
            }
        }
    }
    out
}

/// The name a [`name_component`] was made from; `None` when `component` is not one.
pub fn name_of(component: &str) -> Option<String> {
    if component == "~" {
        return Some(String::new());
    }
    let b = component.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'~' {
            let hex = component.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `name` is a staging folder `<prefix><pid>` of a run of some process.
pub fn is_staging_of(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Where `path` will be once written: its nearest existing ancestor resolved (symlinks
/// followed), the rest normalised as the writer's `create_dir_all` will walk it (`a/missing/../b`
/// is `a/b`). Output guards compare these, so no missing folder, `..` or symlink slips past them.
pub fn resolved(path: &Path) -> crate::error::Result<PathBuf> {
    let absolute = std::path::absolute(path).map_err(|e| crate::error::Error::file(path, e))?;
    let mut existing = absolute.as_path();
    while fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(parent) => existing = parent,
            None => break,
        }
    }
    let mut out = existing
        .canonicalize()
        .map_err(|e| crate::error::Error::file(existing, e))?;
    for c in absolute
        .strip_prefix(existing)
        .unwrap_or(Path::new(""))
        .components()
    {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    Ok(out)
}

/// The folders this process writes below (its tables and output folders, as the command line
/// names them), each absolute. Below one of them a writer follows no symbolic link.
static WRITE_ROOTS: std::sync::RwLock<Vec<PathBuf>> = std::sync::RwLock::new(Vec::new());

/// Register `root` as a folder this process writes below: from now on [`refuse_links`] refuses
/// any write below it that would pass through a symbolic link. The root itself may be a link
/// (a user's `out -> /data/out`); what is below it is untrusted.
pub fn guard_writes_below(root: &Path) {
    let Ok(root) = std::path::absolute(root) else {
        return;
    };
    let mut roots = WRITE_ROOTS.write().unwrap_or_else(|e| e.into_inner());
    if !roots.contains(&root) {
        roots.push(root);
    }
}

/// Refuse a write of `path` that would pass through a symbolic link below a registered root
/// ([`guard_writes_below`]): every existing component from the root down to `path` itself must be
/// a real folder or file. A planted `.locks`, table folder, partition or lock file that links
/// outside would otherwise steer the write there.
pub fn refuse_links(path: &Path) -> crate::error::Result<()> {
    let Ok(absolute) = std::path::absolute(path) else {
        return Ok(());
    };
    let roots = WRITE_ROOTS.read().unwrap_or_else(|e| e.into_inner());
    for root in roots.iter() {
        let Ok(below) = absolute.strip_prefix(root) else {
            continue;
        };
        let mut at = root.clone();
        for c in below.components() {
            match c {
                std::path::Component::Normal(n) => at.push(n),
                // `..` below a root leaves the walk lexical; the output guards resolve those.
                _ => break,
            }
            match fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(crate::error::Error::WriteThroughLink {
                        path: path.to_path_buf(),
                        target: fs::read_link(&at).unwrap_or_default(),
                        link: at,
                        root: root.clone(),
                    });
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    Ok(())
}

/// Refuse an output file that would land among the tables it is made from: the next reader
/// would take it for table data, or it would overwrite a part.
pub fn refuse_output_inside(output: &Path, tables: &Path) -> crate::error::Result<()> {
    let Ok(tables) = tables.canonicalize() else {
        return Ok(());
    };
    if resolved(output)?.starts_with(&tables) {
        return Err(crate::error::Error::OutputInsideTables {
            output: output.to_path_buf(),
            tables,
        });
    }
    Ok(())
}

/// `<dir>/<key>=<value>`: one hive partition folder, the value written as a [`name_component`]
/// (a plain name such as `gsm8k` or `m3_punct10` is written as it is).
pub fn hive_dir(dir: &Path, key: &str, value: &str) -> PathBuf {
    dir.join(format!("{key}={}", name_component(value)))
}

/// The `n`th part file of a folder written whole by one stage.
pub fn part_file(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("part-{n}{PARQUET_EXT}"))
}

/// The file extension of every table part.
pub const PARQUET_EXT: &str = ".parquet";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_components_one_to_one_and_back() {
        let names = [
            "gsm8k",
            "gsm8k.v2",
            "gsm8k_v2",
            "gsm8k__v2",
            "_x",
            "x_",
            "a/b",
            "..",
            ".",
            "",
            "~",
            "~7E",
            "数学",
            "a b",
            "a\nb",
            "a__",
            "Qwen/Qwen2.5-1.5B",
            "../../x",
        ];
        let mut seen = std::collections::HashMap::new();
        for n in names {
            let c = name_component(n);
            assert!(
                !c.contains('/') && !c.starts_with('.') && !c.contains("__"),
                "{n:?} -> {c}"
            );
            assert!(!c.starts_with('_') && !c.ends_with('_'), "{n:?} -> {c}");
            assert_eq!(name_of(&c).as_deref(), Some(n), "{c}");
            if let Some(other) = seen.insert(c.clone(), n) {
                panic!("{other:?} and {n:?} share {c}");
            }
        }
        assert_eq!(name_component("gsm8k.v2"), "gsm8k.v2");
        assert_eq!(name_component("xie2024-gsm8k"), "xie2024-gsm8k");
        assert_eq!(name_component("数学"), "数学");
        assert_eq!(name_component("m3+punct10"), "m3+punct10");
        // A joined pair splits back at its only `__`.
        let joined = format!("{}__{}", name_component("a_"), name_component("_b"));
        assert_eq!(joined.matches("__").count(), 1);
    }
}
