//! A tables folder is untrusted input, and so are the values in its tables: no link planted in
//! it (a lock file, `.locks`, a table folder) and no value in it (a split, a dataset name) may
//! steer a write outside it, or make two names share one file.

use std::path::{Path, PathBuf};

use crate::util::{
    advmath, copy_dir, filled_sheet, import_args, reply_file, small_tables, sql_csv, stderr_of,
    walk,
};

/// Every file below `dir` with its bytes.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = walk(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            (f, bytes)
        })
        .collect();
    files.sort();
    files
}

/// The commands that write into a tables folder, each with the arguments it needs there (`s`
/// is a scratch folder outside the tables for the outputs that go elsewhere).
fn writers(t: &str, s: &str, replies: &str, sheet: &str) -> Vec<Vec<String>> {
    let v = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        v(&["respond", "--tables", t, "--model", "oracle"]),
        import_args(t, replies),
        v(&["annotate", "ingest", "--tables", t, sheet]),
        v(&["settle", "--tables", t]),
        v(&["metrics", "--tables", t, "--out", &format!("{s}/metrics")]),
        v(&[
            "generate",
            "--tables",
            t,
            "--attack",
            "m1",
            "--variants",
            "2",
        ]),
        v(&["features", "--tables", t]),
        v(&["ingest", "--tables", t]),
        v(&["compact", "--tables", t]),
        v(&[
            "regress",
            "--tables",
            t,
            "--report-dir",
            &format!("{s}/regress"),
        ]),
        v(&["publish", "--tables", t, "--out", &format!("{s}/hub")]),
    ]
}

/// A reply file of the originals and a filled miss-rate sheet, made from `tables` into `dir`:
/// the inputs of `ingest-responses` and `annotate ingest`.
fn replies_and_sheet(tables: &Path, dir: &Path) -> (String, String) {
    let replies = dir.join("replies.parquet");
    reply_file(tables, &replies, "attack = 'original'");
    let sheet = filled_sheet(tables, dir);
    (
        replies.to_str().unwrap().to_string(),
        sheet.to_str().unwrap().to_string(),
    )
}

/// A lock file planted as a link to a file outside, or `.locks` itself linked to an outside
/// folder: every writer refuses it (exit 1, naming the link) and no file outside changes.
#[test]
fn planted_lock_links_change_no_file_outside() {
    let (dir, base) = small_tables();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    let lock_names: Vec<String> = std::fs::read_dir(base.join(".locks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(lock_names.iter().any(|n| n == "respond-oracle.lock"));
    // The locks of the writers the small run does not use.
    let lock_names: std::collections::BTreeSet<String> = lock_names
        .into_iter()
        .chain(
            [
                "respond-m.lock",
                "annotate-miss_rate.lock",
                "regress-coefficients.lock",
            ]
            .map(String::from),
        )
        .collect();
    let tables = dir.path().join("planted");
    let scratch = dir.path().join("scratch");
    let t = tables.to_str().unwrap().to_string();
    let s = scratch.to_str().unwrap().to_string();
    let (replies, sheet) = replies_and_sheet(&base, dir.path());
    for whole_folder in [false, true] {
        for args in writers(&t, &s, &replies, &sheet) {
            copy_dir(&base, &tables);
            let locks = tables.join(".locks");
            std::fs::remove_dir_all(&locks).unwrap();
            if whole_folder {
                std::os::unix::fs::symlink(&outside, &locks).unwrap();
            } else {
                std::fs::create_dir_all(&locks).unwrap();
                for name in &lock_names {
                    std::os::unix::fs::symlink(&victim, locks.join(name)).unwrap();
                }
            }
            let before = contents(&outside);
            // A writer that waits forever on a planted lock fails the test too.
            let out = advmath()
                .args(&args)
                .timeout(std::time::Duration::from_secs(120))
                .assert()
                .code(1);
            let err = stderr_of(&out);
            assert!(
                err.contains("would be written through the symbolic link"),
                "advmath {args:?}: {err}"
            );
            assert_eq!(contents(&outside), before, "advmath {args:?}");
            let _ = std::fs::remove_dir_all(&scratch);
        }
    }
}

/// A table folder (`problems/`, `responses/<model>/`, `coefficients/`, `annotations/`) linked to
/// a folder outside: the command that writes it refuses (exit 1) and the folder outside keeps
/// every byte.
#[test]
fn symlinked_table_folders_are_refused_by_their_writers() {
    let (dir, base) = small_tables();
    let tables = dir.path().join("planted");
    let outside = dir.path().join("outside");
    let t = tables.to_str().unwrap().to_string();
    let (replies, sheet) = replies_and_sheet(&base, dir.path());
    let reports = dir.path().join("reports");
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "problems",
            vec!["ingest".into(), "--tables".into(), t.clone()],
        ),
        ("responses/m", import_args(&t, &replies)),
        (
            "coefficients",
            [
                "regress",
                "--tables",
                &t,
                "--report-dir",
                reports.to_str().unwrap(),
            ]
            .map(String::from)
            .to_vec(),
        ),
        (
            "annotations",
            ["annotate", "ingest", "--tables", &t, &sheet]
                .map(String::from)
                .to_vec(),
        ),
    ];
    for (folder, args) in cases {
        copy_dir(&base, &tables);
        let inside = tables.join(folder);
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(&outside).unwrap();
        if inside.exists() {
            copy_dir(&inside, &outside);
            std::fs::remove_dir_all(&inside).unwrap();
        }
        std::fs::write(outside.join("keep.txt"), "keep me\n").unwrap();
        std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&outside, &inside).unwrap();
        let before = contents(&outside);
        let out = advmath().args(&args).assert().code(1);
        let err = stderr_of(&out);
        assert!(
            err.contains("symbolic link"),
            "{folder}: advmath {args:?}: {err}"
        );
        assert_eq!(contents(&outside), before, "{folder}: advmath {args:?}");
    }
}

/// A split value that is a path (`../../../../x`) or carries a newline is refused by `publish`,
/// naming it, before any file is written; nothing outside the output folder appears.
#[test]
fn a_split_value_never_names_a_file_or_a_card_key() {
    for split in ["../../../../x", "test\nlicense: mit"] {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("a/b/c/d");
        std::fs::create_dir_all(&work).unwrap();
        let tables = work.join("tables");
        let input = dir.path().join("mine.jsonl");
        std::fs::write(
            &input,
            "{\"question\": \"Tom has 3 apples and buys 4 more. How many apples does he have?\", \"answer\": \"3 + 4 = <<3+4=7>>7\\n#### 7\"}\n",
        )
        .unwrap();
        advmath()
            .args(["ingest", "--split", split, "--tables"])
            .arg(&tables)
            .arg(&input)
            .assert()
            .success();
        advmath()
            .args(["generate", "--attack", "m1", "--variants", "2", "--tables"])
            .arg(&tables)
            .assert()
            .success();
        let before = contents(dir.path());
        let hub = work.join("hub");
        let out = advmath()
            .args(["publish", "--tables"])
            .arg(&tables)
            .arg("--out")
            .arg(&hub)
            .assert()
            .code(1);
        let err = stderr_of(&out);
        assert!(err.contains("split"), "{split:?}: {err}");
        let after: Vec<_> = contents(dir.path())
            .into_iter()
            .filter(|(p, _)| !p.starts_with(tables.join(".locks")))
            .collect();
        let before: Vec<_> = before
            .into_iter()
            .filter(|(p, _)| !p.starts_with(tables.join(".locks")))
            .collect();
        assert_eq!(after, before, "{split:?}: no file written or changed");
    }
}

/// Outputs named inside the tables by `export-batch --out`, `annotate sample --out` and `ingest
/// --report` are refused (exit 2) and no table part changes.
#[test]
fn outputs_named_inside_the_tables_are_refused() {
    let (_dir, tables) = small_tables();
    let part = walk(&tables.join("variants"))
        .into_iter()
        .find(|f| f.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    let before = contents(&tables);
    let t = tables.to_str().unwrap().to_string();
    let p = part.to_str().unwrap().to_string();
    for args in [
        vec!["export-batch", "--tables", &t, "--model", "m", "--out", &p],
        vec![
            "annotate",
            "sample",
            "miss-rate",
            "--model",
            "oracle",
            "--tables",
            &t,
            "--out",
            &p,
        ],
        vec!["ingest", "--tables", &t, "--report", &p],
    ] {
        let out = advmath().args(&args).assert().code(2);
        let err = stderr_of(&out);
        assert!(
            err.contains("inside the tables folder"),
            "advmath {args:?}: {err}"
        );
        let after: Vec<_> = contents(&tables)
            .into_iter()
            .filter(|(p, _)| !p.starts_with(tables.join(".locks")))
            .collect();
        let was: Vec<_> = before
            .iter()
            .filter(|(p, _)| !p.starts_with(tables.join(".locks")))
            .cloned()
            .collect();
        assert_eq!(after, was, "advmath {args:?}");
    }
}

/// Dataset names that differ only in punctuation keep their own files, and a name in another
/// script is kept as written and read back.
#[test]
fn dataset_names_map_to_files_one_to_one() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let input = dir.path().join("mine.jsonl");
    std::fs::write(
        &input,
        "{\"question\": \"Tom has 3 apples and buys 4 more. How many apples does he have?\", \"answer\": \"3 + 4 = <<3+4=7>>7\\n#### 7\"}\n",
    )
    .unwrap();
    for name in ["gsm8k.v2", "gsm8k_v2", "数学"] {
        advmath()
            .args(["ingest", "--dataset", name, "--tables"])
            .arg(&tables)
            .arg(&input)
            .assert()
            .success();
    }
    let datasets = sql_csv(
        &tables,
        "SELECT dataset, COUNT(*) AS n FROM problems GROUP BY dataset ORDER BY dataset",
    );
    assert_eq!(
        datasets, "dataset,n\ngsm8k.v2,1\ngsm8k_v2,1\n数学,1\n",
        "{datasets}"
    );
    let files: Vec<String> = std::fs::read_dir(tables.join("problems"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files.iter().any(|f| f == "数学__test.parquet"), "{files:?}");
}
