//! Helpers shared by the test modules: the binary, skipping a test whose prerequisite is absent,
//! small pipeline runs, reading tables back and checking generated variants.

use std::fs;
use std::path::{Path, PathBuf};

use advmath::store::problems::batch_to_records;
use advmath::store::problems::ProblemRecord;
use advmath::store::read_batches;
use assert_cmd::Command;

/// The binary under test: this build's, or the one `ADVMATH_TEST_BIN` names (to run the tests
/// against another build, e.g. the previous release, and see which promises it breaks).
pub fn advmath_path() -> PathBuf {
    std::env::var_os("ADVMATH_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("advmath"))
}

pub fn advmath() -> Command {
    Command::new(advmath_path())
}

/// A test whose prerequisite is missing here says so on stderr and passes, unless
/// ADVMATH_REQUIRE_ALL_TESTS is set (`.ci/run` sets it): then the missing prerequisite fails the
/// test, so a green CI means every test really ran.
pub fn skip(reason: &str) {
    if std::env::var_os("ADVMATH_REQUIRE_ALL_TESTS").is_some() {
        panic!("ADVMATH_REQUIRE_ALL_TESTS is set, but this test cannot run: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

pub fn problems_in(path: &Path) -> Vec<ProblemRecord> {
    read_batches(path)
        .unwrap()
        .iter()
        .flat_map(|b| batch_to_records(b).unwrap())
        .collect()
}

/// One generated variant, as the checks read it.
struct Variant<'a> {
    id: &'a str,
    question: &'a str,
    answer: &'a str,
    numbers: Vec<advmath::num::Num>,
    problem: &'a ProblemRecord,
}

/// Calls `check` on every variant of `attack` in a generated table (none when it has no part).
fn each_variant(tables: &Path, dataset: &str, attack: &str, mut check: impl FnMut(Variant)) {
    use advmath::program::tree::num_text;
    use arrow::array::AsArray;
    let problems: std::collections::HashMap<String, ProblemRecord> =
        advmath::store::problems::read_problems(tables)
            .unwrap()
            .into_iter()
            .map(|p| (p.problem_id.clone(), p))
            .collect();
    let part = tables.join(format!(
        "variants/dataset={dataset}/attack={attack}/part-0.parquet"
    ));
    if !part.exists() {
        return;
    }
    for batch in read_batches(&part).unwrap() {
        let text = |name: &str| advmath::store::text_column(&batch, name, &part).unwrap();
        let (pid, question, answer) = (text("problem_id"), text("question"), text("answer_exact"));
        let numbers = batch
            .column_by_name("numbers")
            .unwrap()
            .as_list::<i32>()
            .clone();
        for i in 0..batch.num_rows() {
            check(Variant {
                id: pid.value(i),
                question: question.value(i),
                answer: answer.value(i),
                numbers: numbers
                    .value(i)
                    .as_string::<i32>()
                    .iter()
                    .map(|s| num_text::from_text(s.unwrap()).unwrap())
                    .collect(),
                problem: &problems[pid.value(i)],
            });
        }
    }
}

/// Every numeric variant in a generated table: its text holds exactly its numbers in slot
/// order, its stored answer is the tree evaluated on them, every node keeps its constraints
/// (checked with M1's attacker, so M2 and M3 variants also pass M1's checks), and M2 keeps
/// digit counts. Returns how many variants were checked.
pub fn verify_variants(tables: &Path, dataset: &str) -> usize {
    use advmath::attack::sample::{decompose, digit_count, Attacker, Method};
    use advmath::question::find_slots;
    let mut checked = 0;
    for attack in ["m1", "m2", "m3", "guided", "digits"] {
        each_variant(tables, dataset, attack, |v| {
            let (id, p, nums) = (v.id, v.problem, &v.numbers);
            let in_text: Vec<_> = find_slots(v.question).iter().map(|s| s.value).collect();
            assert_eq!(&in_text, nums, "{id}: text {:?}", v.question);
            let tree = p.tree.as_ref().unwrap();
            let slots = find_slots(&p.question);
            let m1 = Attacker::new(tree, p.slot_nums(), Method::M1, 6)
                .unwrap()
                .with_text_constraints(&advmath::question::shown::text_constraints(
                    &p.question,
                    &slots,
                ));
            let ans = m1
                .check_slots(nums)
                .unwrap_or_else(|r| panic!("{id} {attack}: {r:?}"));
            assert_eq!(ans.exact_text(), v.answer);
            let digits = |v| {
                decompose(v)
                    .map(|(a, b)| digit_count(if b > 0 { a * 10i128.pow(b as u32) } else { a }))
            };
            if attack == "digits" {
                // One number changed (with the numbers tied to it, which repeat its value),
                // and it gained one to three digits (a decimal's mantissa at its scale, or its
                // value times 10^k).
                let mut grown: Vec<_> = nums
                    .iter()
                    .zip(p.slot_nums())
                    .filter(|(n, o)| !n.eq_num(*o))
                    .map(|(n, _)| n.exact_text())
                    .collect();
                grown.dedup();
                assert_eq!(grown.len(), 1, "{id}: one number grows: {nums:?}");
                for (new, old) in nums.iter().zip(p.slot_nums()) {
                    if new.eq_num(old) {
                        continue;
                    }
                    let gained = digits(*new)
                        .zip(digits(old))
                        .map(|(n, o)| n as i64 - o as i64);
                    let times = new.div(old).ok();
                    let scaled = [10, 100, 1000]
                        .iter()
                        .any(|&t| times.is_some_and(|x| x.eq_num(advmath::num::Num::int(t))));
                    assert!(
                        scaled || gained.is_some_and(|g| (1..=3).contains(&g)),
                        "{id}: {new:?} from {old:?}"
                    );
                }
            }
            if attack == "m2" {
                for (new, old) in nums.iter().zip(p.slot_nums()) {
                    if digits(old) != Some(1) && !new.eq_num(old) {
                        assert_eq!(digits(*new), digits(old), "{id}: {new:?} vs {old:?}");
                    }
                }
            }
            checked += 1;
        });
    }
    checked
}

/// Every `decimals` variant in a generated table: its text reads back to exactly its numbers,
/// each changed number is its original plus a quarter, a half or three quarters (money written
/// in cents), and the stored gold is the program's answer on them, in cents. Returns how many
/// variants were checked.
pub fn verify_decimals(tables: &Path, dataset: &str) -> usize {
    use advmath::num::Num;
    use advmath::question::find_slots;
    let mut checked = 0;
    each_variant(tables, dataset, "decimals", |v| {
        let (id, q, p) = (v.id, v.question, v.problem);
        let slots = find_slots(q);
        let read: Vec<Num> = slots.iter().map(|s| s.value).collect();
        assert_eq!(read, v.numbers, "{id}: {q:?} reads back to its numbers");
        for ((new, old), slot) in v.numbers.iter().zip(p.slot_nums()).zip(&slots) {
            if new.eq_num(old) {
                continue;
            }
            assert!(gains_a_quarter(*new, old), "{id}: {new:?} from {old:?}");
            if advmath::cut::before(q, slot.start).ends_with('$') {
                assert_eq!(slot.decimals, 2, "{id}: money in cents: {q:?}");
            }
        }
        let gold = p.tree.as_ref().unwrap().eval_value(&v.numbers).unwrap();
        assert_eq!(gold.exact_text(), v.answer, "{id}");
        let cents = v.answer.split('.').nth(1).is_none_or(|d| d.len() <= 2);
        assert!(
            cents && !v.answer.contains('/'),
            "{id}: gold {} in cents",
            v.answer
        );
        checked += 1;
    });
    checked
}

/// Every `fractions` variant in a generated table: each changed number is its original plus a
/// quarter, a half or three quarters, no money among them, and the text writes each as a mixed
/// number ("3 1/2") that reads back to exactly it, in the order of the numbers; the stored gold
/// is the program's answer. Returns how many variants were checked.
pub fn verify_fractions(tables: &Path, dataset: &str) -> usize {
    use advmath::question::find_slots;
    let mut checked = 0;
    each_variant(tables, dataset, "fractions", |v| {
        let (id, q, p) = (v.id, v.question, v.problem);
        let mut changed = Vec::new();
        let original = find_slots(&p.question);
        for ((new, old), slot) in v.numbers.iter().zip(p.slot_nums()).zip(&original) {
            if new.eq_num(old) {
                continue;
            }
            assert!(gains_a_quarter(*new, old), "{id}: {new:?} from {old:?}");
            assert!(
                !advmath::cut::before(&p.question, slot.start).ends_with('$'),
                "{id}: money stays in cents: {q:?}"
            );
            changed.push(*new);
        }
        assert_eq!(
            mixed_numbers(q),
            changed,
            "{id}: {q:?} reads back to its numbers"
        );
        let gold = p.tree.as_ref().unwrap().eval_value(&v.numbers).unwrap();
        assert_eq!(gold.exact_text(), v.answer, "{id}");
        checked += 1;
    });
    checked
}

/// Whether a converted number is its whole original plus a quarter, a half or three quarters.
fn gains_a_quarter(new: advmath::num::Num, old: advmath::num::Num) -> bool {
    use advmath::num::Num;
    let part = new.sub(old).unwrap();
    old.is_integer() && (1..=3).any(|k| Num::ratio(k, 4).unwrap().eq_num(part))
}

/// The mixed numbers a text writes ("3 1/2", "2 3/4-hour"), read as a reader would.
fn mixed_numbers(text: &str) -> Vec<advmath::num::Num> {
    use advmath::num::Num;
    let words: Vec<&str> = text.split_whitespace().collect();
    let int = |w: &str| w.parse::<i128>().ok();
    words
        .windows(2)
        .filter_map(|w| {
            let whole = int(w[0].trim_start_matches(['(', '"']))?;
            let part: String = w[1]
                .chars()
                .take_while(|&c| c.is_ascii_digit() || c == '/')
                .collect();
            let (n, d) = part.split_once('/')?;
            Num::int(whole).add(Num::ratio(int(n)?, int(d)?)?).ok()
        })
        .collect()
}

pub fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A temporary folder holding a [`small_run`], and its tables folder.
pub fn small_tables() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    small_run(dir.path());
    let tables = dir.path().join("tables");
    (dir, tables)
}

/// `advmath sql QUERY --format csv` over `tables`, which must succeed: its stdout.
pub fn sql_csv(tables: &Path, query: &str) -> String {
    let out = advmath()
        .args(["sql", "--format", "csv", "--tables"])
        .arg(tables)
        .arg(query)
        .assert()
        .success();
    stdout_of(&out)
}

/// `advmath publish --tables TABLES --out OUT`, which must succeed.
pub fn publish(tables: &Path, out: &Path) {
    advmath()
        .args(["publish", "--tables"])
        .arg(tables)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

/// What a finished command wrote on stdout.
pub fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// What a finished command wrote on stderr.
pub fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// `advmath run` with its defaults (the embedded default dataset) into a new temporary folder.
pub fn default_run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    advmath()
        .arg("run")
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
    dir
}

/// Every Rust source file below `dir`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file as an import check reads it: without its inline test module (at the
/// end of a file; what it imports is not the module's) and without comment lines (they name
/// modules without importing them).
pub fn code_of(file: &Path) -> String {
    let text = fs::read_to_string(file).unwrap();
    text.split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The default pipeline run small, into `dir`.
///
/// About seventy tests start from one: the run is made once per test process and copied into
/// `dir` (its outputs are the same bytes for any folder, but for the folder's own path in
/// `report.md`), which takes the test binary's time from one run per test to one in all.
/// `run::…` and `defaults::…` check that a real run writes those bytes.
pub fn small_run(dir: &Path) {
    static TEMPLATE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let root = std::env::temp_dir();
        let prefix = "advmath-tests-small-run-";
        // Copies left by test processes that ended.
        for e in fs::read_dir(&root).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let pid = name
                .strip_prefix(prefix)
                .and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
        let path = root.join(format!("{prefix}{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        small_run_with(&path, &[]);
        path
    });
    fs::create_dir_all(dir).unwrap();
    copy_into(template, dir);
}

/// Every file under `from` copied to the same place under `to`, beside what `to` holds.
fn copy_into(from: &Path, to: &Path) {
    for e in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_into(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The generation settings of the small runs: quick, and every attack kind.
pub const SMALL_GENERATION: [&str; 6] = [
    "--attempts",
    "2000",
    "--variants",
    "10",
    "--attack",
    "m1,m2,m3,punct,m3+punct,names,noop,m3+names,m3+noop",
];

pub fn small_run_with(dir: &Path, extra: &[&str]) {
    advmath()
        .arg("run")
        .args(SMALL_GENERATION)
        .args(extra)
        .arg("--out")
        .arg(dir)
        .assert()
        .success();
}

/// `advmath ingest --tables <tables> [inputs]` (no input: the embedded default dataset).
pub fn ingest(tables: &Path, inputs: &[&Path]) -> assert_cmd::assert::Assert {
    advmath()
        .args(["ingest", "--tables"])
        .arg(tables)
        .args(inputs)
        .assert()
}

/// Ingest the Xie et al. release's 200 + 200 problems with their given programs into `tables`.
pub fn ingest_xie_release(data: &Path, tables: &Path) {
    advmath()
        .args(["ingest", "--programs", "given", "--tables"])
        .arg(tables)
        .arg(data.join("xie2024/gsm8k"))
        .arg(data.join("xie2024/multiarith"))
        .assert()
        .success();
}

pub fn python_has(modules: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(&format!(
            "python3 cannot import {modules} (.ci/run installs them)"
        ));
    }
    ok
}

pub fn shared_data() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if p.is_dir() {
        Some(p)
    } else {
        skip("../shared/data is absent");
        None
    }
}

/// Assert `value` against `tests/snapshots/cli__<name>.snap`, whichever module asserts it: the
/// snapshots keep the names they had when every test lived in one file.
pub fn assert_snapshot(name: &str, value: impl AsRef<str>) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("cli__{name}"), value.as_ref());
    });
}

/// A copy of folder `from` at `to` (replacing what was there).
pub fn copy_dir(from: &Path, to: &Path) {
    let _ = fs::remove_dir_all(to);
    fs::create_dir_all(to).unwrap();
    copy_into(from, to);
}

/// `ingest-responses` of a reply file in the generic layout (question in `q`, reply in `r`) as
/// model `m`: the arguments before `--tables`.
pub const IMPORT_AS_M: [&str; 9] = [
    "ingest-responses",
    "--model",
    "m",
    "--format",
    "generic",
    "--question-col",
    "q",
    "--response-col",
    "r",
];

/// The arguments of [`IMPORT_AS_M`] of `replies` into `tables`.
pub fn import_args(tables: &str, replies: &str) -> Vec<String> {
    IMPORT_AS_M
        .iter()
        .copied()
        .chain(["--tables", tables, replies])
        .map(String::from)
        .collect()
}

/// A reply file (Parquet, generic layout: `q`, `r` = "The answer is 5.") at `out` for the
/// variants of `tables` that `filter` (SQL) selects.
pub fn reply_file(tables: &Path, out: &Path, filter: &str) {
    fs::create_dir_all(out.parent().unwrap()).unwrap();
    advmath()
        .args(["sql", "--format", "parquet", "--tables"])
        .arg(tables)
        .arg(format!(
            "SELECT question AS q, 'The answer is 5.' AS r FROM variants WHERE {filter} ORDER BY variant_id"
        ))
        .arg("--output")
        .arg(out)
        .assert()
        .success();
}

/// `advmath annotate sample miss-rate --model <model>` over `tables`, written to `out`.
pub fn draw_miss_rate_sheet(tables: &Path, model: &str, out: &Path) {
    advmath()
        .args([
            "annotate",
            "sample",
            "miss-rate",
            "--model",
            model,
            "--tables",
        ])
        .arg(tables)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

/// A miss-rate sheet of the oracle's replies drawn from `tables` and filled by `alice` (nothing
/// missed), in `dir`.
pub fn filled_sheet(tables: &Path, dir: &Path) -> PathBuf {
    let drawn = dir.join("drawn.csv");
    draw_miss_rate_sheet(tables, "oracle", &drawn);
    let sheet = dir.join("alice.csv");
    crate::annotate::fill(&drawn, &sheet, "alice", &["missed"], |_, _| "0".into());
    sheet
}

/// The embedded metrics as (name, SQL) pairs, in report order.
pub fn embedded_sql() -> Vec<(&'static str, &'static str)> {
    advmath::metrics::METRICS
        .iter()
        .map(|m| (m.name, m.sql))
        .collect()
}
