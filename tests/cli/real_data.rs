//! Tests on the real data in `../shared/data`. Each is skipped, with a message, when that
//! folder is absent (it is never copied into the project).

use std::path::Path;

use advmath::attack::sample::{attack, Attacker, Method};
use advmath::ingest::{build_records_linked, read_source, IngestOptions, ProgramSource};
use advmath::program::Links;
use advmath::seed::stream_key;
use advmath::store::problems::ProblemRecord;

use crate::util::{advmath, ingest_xie_release, shared_data, verify_variants};

fn ingest(path: &Path, programs: ProgramSource) -> Vec<ProblemRecord> {
    ingest_linked(path, programs, Links::DIGITS)
}

fn ingest_linked(path: &Path, programs: ProgramSource, links: Links) -> Vec<ProblemRecord> {
    let opts = IngestOptions {
        programs,
        ..Default::default()
    };
    let source = read_source(path, &opts).unwrap();
    build_records_linked(&source, programs, links)
}

fn normalise(q: &str) -> String {
    q.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Given (GPT-4) and synthesised programs of the same Xie problem, fed the same 20 number
/// sets (drawn as M3 variants of the given program), must agree on >= 90% of problems.
#[test]
fn given_and_synthesised_programs_agree() {
    let Some(data) = shared_data() else { return };
    let mut agree = 0;
    let mut compared = 0;
    let mut disagreements = Vec::new();
    // Synthesised counterparts: GSM8K from the annotations in the Xie file itself, MultiArith
    // from MultiArith.json's equations, matched by question text.
    let multiarith = ingest(
        &data.join("multiarith/MultiArith.json"),
        ProgramSource::Synthesised,
    );
    for (dir, synth_from_self) in [("xie2024/gsm8k", true), ("xie2024/multiarith", false)] {
        let given = ingest(&data.join(dir), ProgramSource::Given);
        let synthesised: Vec<Option<ProblemRecord>> = if synth_from_self {
            ingest(&data.join(dir), ProgramSource::Synthesised)
                .into_iter()
                .map(Some)
                .collect()
        } else {
            given
                .iter()
                .map(|g| {
                    multiarith
                        .iter()
                        .find(|m| normalise(&m.question) == normalise(&g.question))
                        .cloned()
                })
                .collect()
        };
        for (g, s) in given.iter().zip(&synthesised) {
            let Some(s) = s else { continue };
            if !g.is_valid() || !s.is_valid() || g.slot_values != s.slot_values {
                continue;
            }
            let (gt, st) = (g.tree.as_ref().unwrap(), s.tree.as_ref().unwrap());
            let attacker = Attacker::new(gt, g.slot_nums(), Method::M3, 6).unwrap();
            let (sets, _) = attack(&attacker, stream_key(7, &g.problem_id, "agree"), 3000, 20);
            if sets.is_empty() {
                continue;
            }
            compared += 1;
            let same = sets
                .iter()
                .all(|d| st.eval_value(&d.slots).is_ok_and(|a| a.eq_2dp(&d.answer)));
            if same {
                agree += 1;
            } else {
                disagreements.push(g.problem_id.clone());
            }
        }
    }
    let share = agree as f64 / compared as f64;
    eprintln!(
        "programs agree on {agree}/{compared} problems ({:.1}%); disagree: {disagreements:?}",
        100.0 * share
    );
    assert!(
        compared >= 300,
        "only {compared} problems had both programs valid"
    );
    assert!(
        share >= 0.90,
        "agreement {share:.3} < 0.90: {disagreements:?}"
    );
}

fn valid(records: &[ProblemRecord]) -> usize {
    records.iter().filter(|r| r.is_valid()).count()
}

/// The Xie release's own programs: with the paper's digits-only alignment 180 GSM8K and 189
/// MultiArith problems are valid. The reference accepts 188 GSM8K problems; of the difference, 7
/// write a number the program never uses (appendix H.4's third case eliminates them: see
/// `reports/gold_audit.md`), and GSM8K 19 ("four brothers ... two less than twice") and 45
/// ("eighty percent ... twenty shots") state their numbers only in words, so under the paper's
/// alignment nothing of them can vary; linking number words makes them attackable (182).
#[test]
fn xie_release_programs_validate() {
    let Some(data) = shared_data() else { return };
    let gsm8k = ingest(&data.join("xie2024/gsm8k"), ProgramSource::Given);
    let multiarith = ingest(&data.join("xie2024/multiarith"), ProgramSource::Given);
    eprintln!(
        "xie2024 given programs valid: gsm8k {}/200, multiarith {}/200",
        valid(&gsm8k),
        valid(&multiarith)
    );
    assert!(valid(&gsm8k) >= 180);
    assert!(valid(&multiarith) >= 189);
    let words = ingest_linked(
        &data.join("xie2024/gsm8k"),
        ProgramSource::Given,
        Links::parse("number-words").unwrap(),
    );
    assert!(valid(&words) >= 182);
}

/// Programs synthesised from annotations and equations are valid for at least 55% of GSM8K and
/// 97% of MultiArith: a floor against regressions, not the goal (85%, reports/gold_audit.md says
/// what is left). A synthesised program never links a number word or a value the question states
/// twice, refuses an operand that more than one earlier quantity could be when the readings
/// disagree, a number the question writes more often than the program uses it, and an answer or
/// operand that only an unwritten step would give; with every link kind on, GSM8K reaches 58%.
#[test]
fn synthesised_programs_cover_gsm8k_and_multiarith() {
    let Some(data) = shared_data() else { return };
    let all = Links::parse("all").unwrap();
    for (file, floor, linked_floor) in [
        ("gsm8k/test.jsonl", 0.56, 0.58),
        ("gsm8k/train.jsonl", 0.55, 0.58),
        ("multiarith/MultiArith.json", 0.97, 0.97),
    ] {
        for (links, floor) in [(Links::DIGITS, floor), (all, linked_floor)] {
            let recs = ingest_linked(&data.join(file), ProgramSource::Synthesised, links);
            let share = valid(&recs) as f64 / recs.len() as f64;
            eprintln!(
                "{file} ({}): {}/{} valid ({:.1}%)",
                links.name(),
                valid(&recs),
                recs.len(),
                100.0 * share
            );
            assert!(
                share >= floor,
                "{file} ({}): {share:.3} < {floor}",
                links.name()
            );
        }
    }
}

/// On real programs: M2 keeps digit counts, every variant's text, answer
/// and constraints check out.
#[test]
fn xie_variants_check_out() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest_xie_release(&data, &tables);
    advmath()
        .args([
            "generate",
            "--attempts",
            "2000",
            "--variants",
            "10",
            "--attack",
            "m1,m2,m3",
            "--tables",
        ])
        .arg(&tables)
        .assert()
        .success();
    let n =
        verify_variants(&tables, "xie2024-gsm8k") + verify_variants(&tables, "xie2024-multiarith");
    eprintln!("checked {n} Xie variants");
    assert!(n > 5000);
}

/// The RobustMath rephrasing attack of the Xie et al. release: `advmath ingest` recognises the
/// folder and pairs every one of the 300 rephrasings with one of the 214 originals (same final
/// answer, most shared words), written as variants of dataset `robustmath`.
#[test]
fn robustmath_release_ingests_as_rephrase_attack() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let out = advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(data.join("xie2024/robustmath"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert_eq!(
        stdout,
        "dataset\toriginals\trephrased\tpaired\toriginals_paired\tunpaired\n\
         robustmath\t214\t300\t300\t214\t0\n"
    );
    assert!(!tables.join("problems").exists(), "no problems rows");
    let engine = advmath::metrics::SqlEngine::open(&tables).unwrap();
    let t = engine
        .query_table(
            "SELECT attack, COUNT(*) AS n, COUNT(DISTINCT problem_id) AS problems \
             FROM variants GROUP BY attack ORDER BY attack",
        )
        .unwrap();
    let rows: Vec<(String, i64, i64)> = (0..t.len())
        .map(|r| {
            (
                t.get(r, "attack")
                    .and_then(advmath::metrics::Cell::as_str)
                    .unwrap()
                    .into(),
                t.get(r, "n")
                    .and_then(advmath::metrics::Cell::as_i64)
                    .unwrap(),
                t.get(r, "problems")
                    .and_then(advmath::metrics::Cell::as_i64)
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![("original".into(), 214, 214), ("rephrase".into(), 300, 214)]
    );
}

/// From the real ArithmAttack responses, the SQL metrics reproduce the
/// published accuracies within 2.0 points and ASR within 3.0 (scored with the study's own
/// last-number rule; GSM8K Llama-3.1 noise10 is compared with the figure derived from the
/// shipped file, which the data README documents as differing from the published one).
#[test]
fn arithmattack_figures_through_sql() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&tables)
        .arg(data.join("gsm8k/test.jsonl"))
        .arg(data.join("multiarith/MultiArith.json"))
        .assert()
        .success();
    advmath()
        .args([
            "ingest-responses",
            "--format",
            "arithmattack",
            "--extraction",
            "last-number",
            "--tables",
        ])
        .arg(&tables)
        .arg(data.join("arithmattack"))
        .assert()
        .success();
    let out = dir.path().join("m");
    advmath()
        .args(["metrics", "--tables"])
        .arg(&tables)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let read = |name: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        text.lines()
            .skip(1)
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let acc = read("arithmattack_accuracy.csv");
    let asr = read("arithmattack_asr.csv");
    let mut checked = 0;
    for (dataset, model, levels, paper_asr) in advmath::metrics::arithmattack_published() {
        for (i, level) in ["0", "10", "30", "50"].iter().enumerate() {
            let row = acc
                .iter()
                .find(|r| r[0] == *model && r[2] == *dataset && r[3] == *level)
                .unwrap_or_else(|| panic!("{dataset}/{model}/{level} missing"));
            let ours = 100.0 * row[6].parse::<f64>().unwrap();
            let file_derived =
                *dataset == "gsm8k" && *model == "Llama-3.1-8B-Instruct" && *level == "10";
            let target = if file_derived { 83.55 } else { levels[i] };
            assert!(
                (ours - target).abs() <= 2.0,
                "{dataset}/{model}/{level}: {ours:.2} vs {target:.2}"
            );
            checked += 1;
        }
        let row = asr
            .iter()
            .find(|r| r[0] == *model && r[2] == *dataset)
            .unwrap();
        let ours = 100.0 * row[9].parse::<f64>().unwrap();
        assert!(
            (ours - paper_asr).abs() <= 3.0,
            "{dataset}/{model} ASR: {ours:.2} vs {paper_asr:.2}"
        );
    }
    assert_eq!(checked, 36);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("paper and advmath side by side"));
    // MultiArith repeats some questions (44 and 54, 46 and 56 read alike): the study's items pair
    // with them by position, so every clean item has a problem of its own.
    let engine = advmath::metrics::SqlEngine::open(&tables).unwrap();
    let t = engine
        .query_table(
            "SELECT model, COUNT(*) AS items, COUNT(DISTINCT problem_id) AS problems \
             FROM graded WHERE template = 'arithmattack' AND dataset = 'multiarith' \
             AND attack = 'original' GROUP BY model",
        )
        .unwrap();
    assert_eq!(t.len(), 7);
    for r in 0..t.len() {
        let n = |c| {
            t.get(r, c)
                .and_then(advmath::metrics::Cell::as_i64)
                .unwrap()
        };
        assert_eq!(n("items"), 180, "row {r}");
        assert_eq!(
            n("problems"),
            180,
            "row {r}: two study items share a problem"
        );
    }
}
