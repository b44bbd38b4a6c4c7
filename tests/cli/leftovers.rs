//! Half-written files of killed runs never stay: `regress`, `ingest-responses` and `annotate
//! ingest` killed while a part is half-written leave a hidden `.tmp` file, which the next run of
//! the command, `settle` or `compact` removes. A live writer's file is never touched.

use std::path::{Path, PathBuf};

use crate::util::{advmath, copy_dir, filled_sheet, import_args, reply_file, small_tables, walk};

/// The hidden half-written files below `dir`.
fn tmp_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp"))
        })
        .collect();
    out.sort();
    out
}

/// Run `args` killed (SIGKILL, by the fault rig) at the first durable step taken while a `.tmp`
/// file exists, and return the files it left.
fn killed_with_a_tmp_file(tables: &Path, args: &[String]) -> Vec<PathBuf> {
    let log = tables.with_extension("steps");
    let _ = std::fs::remove_file(&log);
    advmath()
        .args(args)
        .env("ADVMATH_FAULT_LOG", &log)
        .assert()
        .success();
    let steps: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.to_string())
        .collect();
    let _ = std::fs::remove_file(&log);
    // "create <x>.tmp" comes before the file exists; the step after it finds it there.
    let at = steps
        .iter()
        .position(|s| s.starts_with("create ") && s.ends_with(".tmp"))
        .unwrap_or_else(|| panic!("advmath {args:?}: no .tmp file in {steps:?}"))
        + 2;
    advmath()
        .args(args)
        .env("ADVMATH_CRASH_AT", at.to_string())
        .assert()
        .failure();
    tmp_files(tables)
}

#[test]
fn half_written_files_of_killed_runs_are_removed_by_the_next_writer_settle_or_compact() {
    let (dir, base) = small_tables();
    let tables = dir.path().join("t");
    let t = tables.to_str().unwrap().to_string();
    let replies = dir.path().join("replies.parquet");
    reply_file(&base, &replies, "attack = 'original'");
    let filled = filled_sheet(&base, dir.path());
    let reports = dir.path().join("reports");
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let commands = [
        s(&[
            "regress",
            "--tables",
            &t,
            "--report-dir",
            reports.to_str().unwrap(),
        ]),
        import_args(&t, replies.to_str().unwrap()),
        s(&[
            "annotate",
            "ingest",
            "--tables",
            &t,
            filled.to_str().unwrap(),
        ]),
    ];
    for args in &commands {
        for cleaner in ["rerun", "settle", "compact"] {
            copy_dir(&base, &tables);
            let left = killed_with_a_tmp_file(&tables, args);
            assert!(
                !left.is_empty(),
                "advmath {args:?}: the kill left no .tmp file"
            );
            // A live writer's half-written file (this process's) stays.
            let live = tables
                .join("variants")
                .join(format!(".part-9.parquet.{}.tmp", std::process::id()));
            std::fs::write(&live, "in progress").unwrap();
            let cleaning = match cleaner {
                "rerun" => args.clone(),
                other => s(&[other, "--tables", &t]),
            };
            advmath().args(&cleaning).assert().success();
            assert_eq!(
                tmp_files(&tables),
                vec![live.clone()],
                "advmath {args:?}, then {cleaner}"
            );
        }
    }
}
