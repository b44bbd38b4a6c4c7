//! Every stored reply once: one row per (model, template, run, variant) in `responses`, whatever
//! the sequence of `respond`, `ingest-responses` (under any spelling of its path), `compact` and
//! `generate` reruns; a part of another model or table is refused, naming its file.

use std::path::Path;

use proptest::prelude::*;

use crate::util::{
    advmath, reply_file, small_tables, sql_csv, stderr_of, IMPORT_AS_M, SMALL_GENERATION,
};

/// Rows of `responses`, and distinct (model, template, run, variant) among them (a row that
/// answers no variant counts by its request key).
fn rows_and_keys(tables: &Path) -> (usize, usize) {
    let out = sql_csv(
        tables,
        "SELECT COUNT(*) AS n, COUNT(DISTINCT model || '|' || template || '|' || COALESCE(run, 'default') || '|' || COALESCE(variant_id, 'key:' || response_key)) AS k FROM responses",
    );
    let line = out.lines().nth(1).unwrap().to_string();
    let (n, k) = line.split_once(',').unwrap();
    (n.parse().unwrap(), k.parse().unwrap())
}

fn import(cwd: &Path, tables: &Path, file: &str) -> assert_cmd::assert::Assert {
    advmath()
        .current_dir(cwd)
        .args(IMPORT_AS_M)
        .arg("--tables")
        .arg(tables)
        .arg(file)
        .assert()
}

fn regenerate(tables: &Path, seed: u64) {
    advmath()
        .arg("generate")
        .args(SMALL_GENERATION)
        .args(["--seed", &seed.to_string(), "--tables"])
        .arg(tables)
        .assert()
        .success();
}

/// The same import under two spellings of its path, a second import that carries the same
/// originals, a compaction between them and a re-import after it: each variant keeps one row.
#[test]
fn an_import_is_kept_once_whatever_its_path_or_what_came_before() {
    let (dir, tables) = small_tables();
    let a = dir.path().join("in/a.parquet");
    let b = dir.path().join("in/b.parquet");
    reply_file(&tables, &a, "attack = 'original'");
    reply_file(&tables, &b, "attack = 'original' OR attack = 'punct10'");
    let originals: usize = sql_csv(
        &tables,
        "SELECT COUNT(*) AS n FROM variants WHERE attack = 'original'",
    )
    .lines()
    .nth(1)
    .unwrap()
    .parse()
    .unwrap();
    let model_rows = |t: &Path| -> usize {
        sql_csv(t, "SELECT COUNT(*) AS n FROM responses WHERE model = 'm'")
            .lines()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    };
    import(dir.path(), &tables, "in/a.parquet").success();
    assert_eq!(model_rows(&tables), originals);
    import(dir.path(), &tables, "./in/a.parquet").success();
    assert_eq!(
        model_rows(&tables),
        originals,
        "another spelling of the same path"
    );
    advmath()
        .args(["compact", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    import(dir.path(), &tables, a.to_str().unwrap()).success();
    assert_eq!(
        model_rows(&tables),
        originals,
        "a re-import after a compaction"
    );
    import(dir.path(), &tables, "in/b.parquet").success();
    let (n, k) = rows_and_keys(&tables);
    assert_eq!(n, k, "one row per key");
    assert!(model_rows(&tables) > originals);
}

/// `ingest-responses` takes the model's writer lock, as `respond` and `compact` do: beside a
/// holder it waits for nothing and writes nothing (exit 2, naming the holder).
#[test]
fn an_import_takes_the_models_writer_lock() {
    let (dir, tables) = small_tables();
    let a = dir.path().join("a.parquet");
    reply_file(&tables, &a, "attack = 'original'");
    let held = advmath::store::lock::WriterLock::acquire(&tables, "respond", "m").unwrap();
    let out = import(dir.path(), &tables, a.to_str().unwrap()).code(2);
    assert!(
        stderr_of(&out).contains(&std::process::id().to_string()),
        "{}",
        stderr_of(&out)
    );
    assert!(!tables.join("responses/m").exists());
    drop(held);
    import(dir.path(), &tables, a.to_str().unwrap()).success();
}

/// `respond`, then `generate --seed 7` (new questions under the same variant ids), then `respond`
/// again: the replies to the old questions are superseded, never pooled beside the new ones.
#[test]
fn replies_to_a_regenerated_variant_are_superseded() {
    let (_dir, tables) = small_tables();
    let respond = || {
        advmath()
            .args(["respond", "--model", "oracle", "--tables"])
            .arg(&tables)
            .assert()
            .success()
    };
    respond();
    regenerate(&tables, 7);
    let out = respond();
    assert!(
        stderr_of(&out).contains("superseded"),
        "{}",
        stderr_of(&out)
    );
    let (n, k) = rows_and_keys(&tables);
    assert_eq!(n, k);
    let graded = sql_csv(
        &tables,
        "SELECT COUNT(*) AS n FROM responses r JOIN variants v ON r.variant_id = v.variant_id WHERE r.model = 'oracle' AND r.question <> v.question",
    );
    assert_eq!(graded, "n\n0\n", "no reply to a question no variant asks");
}

/// A part of another model planted in a model's folder, a part of another table inside
/// `variants/`, and a copy of a variants part: each is refused by the readers, naming it.
#[test]
fn parts_of_another_model_or_table_are_refused_naming_them() {
    let (dir, tables) = small_tables();
    let t = tables.to_str().unwrap().to_string();
    let hub = dir.path().join("hub-planted");
    let readers: Vec<Vec<String>> = vec![
        ["sql", "--tables", &t, "SELECT COUNT(*) FROM responses"]
            .map(String::from)
            .to_vec(),
        ["compact", "--tables", &t].map(String::from).to_vec(),
        ["publish", "--tables", &t, "--out", hub.to_str().unwrap()]
            .map(String::from)
            .to_vec(),
        ["respond", "--tables", &t, "--model", "oracle"]
            .map(String::from)
            .to_vec(),
    ];
    let first_part = |d: &Path| {
        let mut parts: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
            .collect();
        parts.sort();
        parts[0].clone()
    };
    let variants_dir = tables.join("variants/dataset=default/attack=m1");
    let features_part = first_part(&tables.join("features/dataset=default/attack=m1"));
    let plants = [
        (
            first_part(&tables.join("responses/sim-carry")),
            tables.join("responses/oracle/part-planted.parquet"),
            "sim-carry",
        ),
        (
            features_part,
            variants_dir.join("part-7.parquet"),
            "another table",
        ),
        (
            first_part(&variants_dir),
            variants_dir.join("part-8.parquet"),
            "the same variants",
        ),
    ];
    for (from, to, why) in plants {
        std::fs::copy(&from, &to).unwrap();
        for args in &readers {
            if why == "sim-carry" && args[0] == "publish" {
                continue; // publish reads no responses unless asked to include them
            }
            let out = advmath().args(args).assert().code(1);
            let err = stderr_of(&out);
            assert!(
                err.contains(&to.display().to_string()) && err.contains(why),
                "{why}: advmath {args:?}: {err}"
            );
        }
        assert!(to.exists(), "never renamed or folded");
        std::fs::remove_file(&to).unwrap();
    }
}

#[derive(Clone, Debug)]
enum Step {
    Respond,
    Import { file: &'static str, dotted: bool },
    Compact,
    Generate(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Respond),
        (
            prop_oneof![Just("a.parquet"), Just("b.parquet")],
            any::<bool>()
        )
            .prop_map(|(file, dotted)| Step::Import { file, dotted }),
        Just(Step::Compact),
        (1u64..4).prop_map(Step::Generate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, max_shrink_iters: 4, ..ProptestConfig::default() })]

    /// After any sequence of `respond`, `ingest-responses` (either spelling), `compact` and
    /// `generate` reruns: `count(*) = count(distinct (model, template, run, variant))`.
    #[test]
    fn responses_hold_one_row_per_key_after_any_sequence(steps in prop::collection::vec(step(), 2..6)) {
        let (dir, tables) = small_tables();
        reply_file(&tables, &dir.path().join("in/a.parquet"), "attack = 'original'");
        reply_file(&tables, &dir.path().join("in/b.parquet"), "attack = 'original' OR attack = 'punct10'");
        for s in &steps {
            match s {
                Step::Respond => {
                    advmath().args(["respond", "--model", "oracle", "--tables"]).arg(&tables).assert().success();
                }
                Step::Import { file, dotted } => {
                    let path = if *dotted { format!("./in/{file}") } else { format!("in/{file}") };
                    import(dir.path(), &tables, &path).success();
                }
                Step::Compact => {
                    advmath().args(["compact", "--tables"]).arg(&tables).assert().success();
                }
                Step::Generate(seed) => regenerate(&tables, *seed),
            }
            let (n, k) = rows_and_keys(&tables);
            prop_assert_eq!(n, k, "after {:?} of {:?}", s, steps);
        }
    }
}
