//! Crash consistency and full disks: `ingest`, `generate`, `metrics` and `publish --force` are
//! killed (SIGKILL, through the binary's fault rig) at their durable steps, and made to fail with
//! `ENOSPC` at their steps that write: every step a reader can see, and the first and last of each
//! kind in a hidden staging folder ([`exercised`] says why that covers the rest); after each, the
//! state is the previous version or the new one, whole, and the next run gives the uninterrupted
//! run's bytes.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use crate::util::{advmath, copy_dir, small_run, SMALL_GENERATION};

/// Every file under `roots` (relative to `out`), by relative path. Hidden names (locks, staging
/// folders) are no part of a version.
type Snapshot = BTreeMap<PathBuf, Vec<u8>>;

fn snapshot(out: &Path, roots: &[&str]) -> Snapshot {
    fn walk(dir: &Path, out: &Path, into: &mut Snapshot) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if p.is_dir() {
                walk(&p, out, into);
            } else {
                into.insert(
                    p.strip_prefix(out).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut snap = Snapshot::new();
    for root in roots {
        let path = out.join(root);
        if path.is_file() {
            snap.insert(PathBuf::from(root), fs::read(&path).unwrap());
        } else {
            walk(&path, out, &mut snap);
        }
    }
    snap
}

/// What a dead or failed run may leave behind: staging folders, half-written files, a journal.
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let p = e.path();
        if name.starts_with(".staging-")
            || name.ends_with(".tmp")
            || name.contains(".metrics-")
            || name.contains(".publish-")
            || name.ends_with(".replaced")
        {
            found.push(p);
        } else if p.is_dir() {
            found.extend(leftovers(&p));
        }
    }
    found
}

fn assert_no_leftovers(work: &Path, when: &str) {
    assert_eq!(leftovers(work), Vec::<PathBuf>::new(), "{when}");
}

/// Text with every run of 3 or more digits as `#`: staging and temporary names carry the pid.
fn without_pids(text: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if digits.len() >= 3 {
            out.push('#');
        } else {
            out.push_str(&digits);
        }
        digits.clear();
        out.push(c);
    }
    out.pop();
    out
}

struct Scenario {
    name: &'static str,
    /// The command, run in the work folder (paths relative to it).
    args: Vec<String>,
    /// What the command writes, relative to the work folder.
    outputs: &'static [&'static str],
    /// The tables folder the command reads or writes, relative to the work folder.
    tables: &'static str,
    /// A query through advmath that reads what the command writes.
    read: &'static str,
}

fn scenarios(inputs: &Path) -> Vec<Scenario> {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        Scenario {
            name: "ingest",
            args: vec![
                "ingest".into(),
                "--tables".into(),
                "ingested".into(),
                inputs.join("new/extra.jsonl").display().to_string(),
            ],
            outputs: &["ingested/problems"],
            tables: "ingested",
            read: "select count(*) from problems",
        },
        Scenario {
            name: "ingest --candidates",
            args: vec![
                "ingest".into(),
                "--tables".into(),
                "ingested".into(),
                inputs.join("new/extra.jsonl").display().to_string(),
                "--candidates".into(),
                inputs.join("new/pot.jsonl").display().to_string(),
            ],
            outputs: &["ingested/problems", "ingested/candidate_programs"],
            tables: "ingested",
            read: "select count(*) from problems join candidate_programs using (problem_id)",
        },
        Scenario {
            name: "generate",
            args: strings(
                &[
                    &["generate", "--tables", "tables", "--seed", "7"],
                    &SMALL_GENERATION[..],
                ]
                .concat(),
            ),
            outputs: &["tables/variants", "tables/generation_stats", "tables/runs"],
            tables: "tables",
            read: "select count(*) from variants v join generation_stats s using (problem_id)",
        },
        Scenario {
            name: "metrics",
            args: strings(&[
                "metrics",
                "--tables",
                "tables",
                "--out",
                "reports/metrics",
                "--seed",
                "5",
            ]),
            outputs: &["reports/metrics"],
            tables: "tables",
            read: "select count(*) from responses",
        },
        Scenario {
            name: "publish --force",
            args: strings(&[
                "publish",
                "--tables",
                "tables",
                "--out",
                "hub",
                "--force",
                "--max-shard-rows",
                "200",
            ]),
            outputs: &["hub"],
            tables: "tables",
            read: "select count(*) from variants",
        },
    ]
}

/// The numbered durable steps the command takes uninterrupted, as the fault rig logs them.
fn steps(work: &Path, args: &[String]) -> Vec<String> {
    let log = work.with_extension("steps");
    let _ = fs::remove_file(&log);
    advmath()
        .current_dir(work)
        .args(args)
        .env("ADVMATH_FAULT_LOG", &log)
        .assert()
        .success();
    let text = fs::read_to_string(&log).unwrap_or_default();
    let _ = fs::remove_file(&log);
    text.lines()
        .map(|l| l.split_once(' ').unwrap().1.to_string())
        .collect()
}

/// The 1-based steps a test kills or fails the command at: every step a reader can see, every
/// step of a switch's journal, and, of each run of steps inside a staging folder no reader sees,
/// the first and the last of each kind (create, write, close, rename, removal). Between those two
/// the steps of one kind differ only in which file of the hidden folder they touch, and a killed
/// or failed run's staging folder is removed whole, whatever it holds: the middle steps meet the
/// code paths and the states (a half-written file, a file renamed in) the ends already meet.
/// Killing at every one of them costs ten times the time and reaches no state the ends do not.
fn exercised(steps: &[String]) -> Vec<usize> {
    let hidden = |step: &str| {
        let path = Path::new(step.rsplit_once(' ').map_or(step, |(_, p)| p));
        let journal = path.file_name().is_some_and(|f| {
            f.to_string_lossy()
                .trim_start_matches('.')
                .starts_with("COMMIT")
        });
        let staged = path.parent().is_some_and(|dir| {
            dir.components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.') && c.as_os_str() != ".")
        });
        staged && !journal
    };
    let kind = |step: &str| step.rsplit_once(' ').map_or(step, |(k, _)| k).to_string();
    let mut chosen = Vec::new();
    let mut i = 0;
    while i < steps.len() {
        if !hidden(&steps[i]) {
            chosen.push(i + 1);
            i += 1;
            continue;
        }
        let end = (i..steps.len())
            .find(|&j| !hidden(&steps[j]))
            .unwrap_or(steps.len());
        let mut ends: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (j, step) in steps.iter().enumerate().take(end).skip(i) {
            ends.entry(kind(step))
                .and_modify(|e| e.1 = j + 1)
                .or_insert((j + 1, j + 1));
        }
        chosen.extend(ends.values().flat_map(|&(first, last)| [first, last]));
        i = end;
    }
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

/// The base folder (a small run, and a tables folder `ingested` holding the old version of the
/// ingest input) and the inputs.
fn base(dir: &Path) -> (PathBuf, PathBuf) {
    let base = dir.join("base");
    small_run(&base);
    let inputs = dir.join("inputs");
    let line = |id: usize, a: u32, b: u32| {
        serde_json::json!({
            "question": format!("Tom has {a} apples and buys {b} more. How many apples does he have?"),
            "answer": format!("{a} + {b} = {}\n#### {}", a + b, a + b),
            "id": id,
        })
        .to_string()
            + "\n"
    };
    for (folder, rows) in [("old", 2), ("new", 5)] {
        fs::create_dir_all(inputs.join(folder)).unwrap();
        let text: String = (0..rows).map(|i| line(i, 3 + i as u32, 4)).collect();
        fs::write(inputs.join(folder).join("extra.jsonl"), text).unwrap();
    }
    // Published programs (Program-of-Thoughts' layout) for two of the new problems.
    let pot: String = [(3, "apples = 3\nmore = 4\nans = apples + more"), (4, "ans = 4 - 4")]
        .iter()
        .map(|(a, program)| {
            serde_json::json!({
                "question": format!("Tom has {a} apples and buys 4 more. How many apples does he have?"),
                "generated": [program],
            })
            .to_string()
                + "\n"
        })
        .collect();
    fs::write(inputs.join("new/pot.jsonl"), pot).unwrap();
    advmath()
        .current_dir(&base)
        .args(["ingest", "--tables", "ingested"])
        .arg(inputs.join("old/extra.jsonl"))
        .assert()
        .success();
    (base, inputs)
}

/// A scenario's old version, its new one (made in `work`) and the steps that made it.
fn versions(base: &Path, work: &Path, s: &Scenario) -> (Snapshot, Snapshot, Vec<String>) {
    let old = snapshot(base, s.outputs);
    copy_dir(base, work);
    let steps = steps(work, &s.args);
    (old, snapshot(work, s.outputs), steps)
}

/// Kill the scenario named `name` at each of its durable steps: after each kill a reader sees
/// the old version or the new one, whole, and the rerun gives the uninterrupted run's bytes. One
/// test per scenario, so that the harness runs them side by side: together they are the longest
/// test by far.
fn a_kill_at_any_step_leaves_the_old_version_or_the_new_one(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (base, inputs) = base(dir.path());
    let work = dir.path().join("work");
    let s = scenarios(&inputs)
        .into_iter()
        .find(|s| s.name == name)
        .expect("a scenario of that name");
    let (old, new, steps) = versions(&base, &work, &s);
    assert_ne!(old, new, "{}: the new version differs from the old", s.name);
    assert!(steps.len() > 2, "{}: {} steps", s.name, steps.len());
    let mut settled = 0;
    let points = exercised(&steps);
    for (k, step) in points.iter().map(|&k| (k, &steps[k - 1])) {
        copy_dir(&base, &work);
        let killed = advmath()
            .current_dir(&work)
            .args(&s.args)
            .env("ADVMATH_CRASH_AT", k.to_string())
            .output()
            .unwrap();
        assert_eq!(
            killed.status.signal(),
            Some(libc::SIGKILL),
            "{} killed at step {k} ({step})",
            s.name
        );
        // Any advmath reader sees one whole version (finishing a switch the dead run decided).
        let read = advmath()
            .current_dir(&work)
            .args(["sql", "--tables", s.tables, s.read])
            .assert()
            .success();
        settled += usize::from(
            String::from_utf8_lossy(&read.get_output().stderr).contains("finishing the switch"),
        );
        let now = snapshot(&work, s.outputs);
        assert!(
            now == old || now == new,
            "{} killed at step {k} ({step}): neither the old version nor the new one: {:?}",
            s.name,
            now.keys().collect::<Vec<_>>()
        );
        advmath()
            .current_dir(&work)
            .args(&s.args)
            .assert()
            .success();
        assert!(
            snapshot(&work, s.outputs) == new,
            "{} killed at step {k} ({step}): the rerun differs from an uninterrupted run",
            s.name
        );
        assert_no_leftovers(&work, &format!("{} step {k}", s.name));
    }
    eprintln!(
        "kill points exercised: {} {} of {} steps (settled by a reader: {settled})",
        s.name,
        points.len(),
        steps.len()
    );
}

#[test]
fn a_kill_at_any_step_of_ingest_leaves_the_old_version_or_the_new_one() {
    a_kill_at_any_step_leaves_the_old_version_or_the_new_one("ingest");
}

#[test]
fn a_kill_at_any_step_of_ingest_with_candidates_leaves_the_old_version_or_the_new_one() {
    a_kill_at_any_step_leaves_the_old_version_or_the_new_one("ingest --candidates");
}

#[test]
fn a_kill_at_any_step_of_generate_leaves_the_old_version_or_the_new_one() {
    a_kill_at_any_step_leaves_the_old_version_or_the_new_one("generate");
}

#[test]
fn a_kill_at_any_step_of_metrics_leaves_the_old_version_or_the_new_one() {
    a_kill_at_any_step_leaves_the_old_version_or_the_new_one("metrics");
}

#[test]
fn a_kill_at_any_step_of_publish_leaves_the_old_version_or_the_new_one() {
    a_kill_at_any_step_leaves_the_old_version_or_the_new_one("publish --force");
}

#[test]
fn the_kill_points_are_every_visible_step_and_the_ends_of_each_hidden_run() {
    let steps: Vec<String> = [
        "create t/.staging-1/v/a/.part-0.parquet.1.tmp",
        "write t/.staging-1/v/a/.part-0.parquet.1.tmp",
        "create t/.staging-1/v/b/.part-0.parquet.1.tmp",
        "write t/.staging-1/v/b/.part-0.parquet.1.tmp",
        "renamed in t/.staging-1/v/a/part-0.parquet",
        "renamed in t/.staging-1/v/b/part-0.parquet",
        "renamed in t/.staging-1/v/c/part-0.parquet",
        "write t/.staging-1/.COMMIT.1.tmp",
        "renamed in t/.staging-1/COMMIT",
        "moved aside t/variants/dataset=d",
        "moved in t/variants/dataset=d",
        "write ./.hub.publish-1/.README.md.1.tmp",
        "renamed in ./.hub.publish-1/README.md",
        "replace hub",
    ]
    .map(String::from)
    .to_vec();
    // Step 6 (the middle rename) is the only one left out of the first run; the write (12) and
    // rename (13) of a one-step run are both kept.
    assert_eq!(
        exercised(&steps),
        [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14]
    );
}

/// Every scenario has its kill test above.
#[test]
fn every_scenario_has_its_kill_test() {
    let named = [
        "ingest",
        "ingest --candidates",
        "generate",
        "metrics",
        "publish --force",
    ];
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<&str> = scenarios(dir.path()).iter().map(|s| s.name).collect();
    assert_eq!(names, named);
}

#[test]
fn a_full_disk_fails_with_the_path_and_leaves_the_previous_state() {
    let dir = tempfile::tempdir().unwrap();
    let (base, inputs) = base(dir.path());
    let work = dir.path().join("work");
    let mut failed_writes = Vec::new();
    for s in scenarios(&inputs) {
        let (old, _, steps) = versions(&base, &work, &s);
        // Writing takes space; renames and removals do not.
        let writes: Vec<(usize, &String)> = exercised(&steps)
            .into_iter()
            .map(|k| (k, &steps[k - 1]))
            .filter(|(_, st)| {
                ["create ", "write ", "flush ", "close "]
                    .iter()
                    .any(|w| st.starts_with(w))
            })
            .collect();
        assert!(!writes.is_empty(), "{}", s.name);
        for (k, step) in &writes {
            copy_dir(&base, &work);
            let failed = advmath()
                .current_dir(&work)
                .args(&s.args)
                .env("ADVMATH_FAIL_AT", k.to_string())
                .assert()
                .code(1);
            let stderr = String::from_utf8_lossy(&failed.get_output().stderr).to_string();
            let path = without_pids(step.split_once(' ').unwrap().1);
            assert!(
                without_pids(&stderr).contains(&path) && stderr.contains("No space left on device"),
                "{} failing at step {k} ({step}): {stderr}",
                s.name
            );
            assert!(
                snapshot(&work, s.outputs) == old,
                "{} failing at step {k} ({step}): the previous state changed",
                s.name
            );
            assert_no_leftovers(&work, &format!("{} step {k}", s.name));
        }
        failed_writes.push(format!(
            "{} {} of {} steps",
            s.name,
            writes.len(),
            steps.len()
        ));
    }
    eprintln!("failed writes exercised: {}", failed_writes.join(", "));
}

/// The caveat the README states, and its remedy: a tool that is not advmath (DuckDB) reading a
/// tables folder right after `generate` was killed mid-switch sees part of the new version and
/// part of the old; `advmath settle` finishes the switch, and then DuckDB sees the new version
/// whole, as advmath does.
#[test]
fn settle_finishes_a_killed_switch_for_other_readers() {
    if !crate::util::python_has("duckdb") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (base, inputs) = base(dir.path());
    let work = dir.path().join("work");
    let generate = scenarios(&inputs)
        .into_iter()
        .find(|s| s.name == "generate")
        .unwrap();
    let (_, _, steps) = versions(&base, &work, &generate);
    // Each table's rows, as DuckDB reads the folder: a count and a hash of every row's text.
    let duckdb = |work: &Path| {
        let query = ["variants", "generation_stats"]
            .map(|table| {
                format!(
                    "(select count(*) || ' ' || sum(hash(t::VARCHAR)) from read_parquet('{}') t)",
                    work.join(format!("tables/{table}/**/*.parquet")).display()
                )
            })
            .join(", ");
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                &format!("import duckdb\nprint(duckdb.sql(\"select {query}\").fetchall())"),
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let new = duckdb(&work);
    // Killed once the new variants are in and before the new statistics are: a half switch.
    let k = steps
        .iter()
        .position(|s| s.starts_with("moved in") && s.contains("tables/variants/"))
        .expect("generate switches its variants in");
    copy_dir(&base, &work);
    let old = duckdb(&work);
    let killed = advmath()
        .current_dir(&work)
        .args(&generate.args)
        .env("ADVMATH_CRASH_AT", (k + 1).to_string())
        .output()
        .unwrap();
    assert_eq!(killed.status.signal(), Some(libc::SIGKILL), "{}", steps[k]);
    let half = duckdb(&work);
    assert!(half != old && half != new, "{half} (old {old}, new {new})");
    let settled = advmath()
        .current_dir(&work)
        .args(["settle", "--tables", "tables"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&settled.get_output().stdout).to_string();
    assert_eq!(stdout, "tables\tswitches_finished\ntables\t1\n");
    assert_eq!(duckdb(&work), new);
    assert_no_leftovers(&work, "settled");
}
