//! Variants true to their own text: every gold answer is the answer of the variant's question as
//! written, and no variant breaks a property the question shows (a number word, a written
//! fraction, a percentage, a unit's length). Run on the Xie et al. release, GSM8K and MultiArith in
//! `../shared/data`.

use std::collections::BTreeMap;
use std::path::Path;

use advmath::num::Num;
use advmath::program::tree::num_text;
use advmath::question::find_slots;
use advmath::store::problems::problems_path;
use advmath::store::problems::records_to_batch;

use crate::util::{advmath, ingest_xie_release, problems_in, shared_data};

/// A variant as the tables hold it.
pub(crate) struct Variant {
    pub(crate) problem_id: String,
    pub(crate) question: String,
    pub(crate) answer_exact: String,
}

pub(crate) fn variants(tables: &Path, dataset: &str, attack: &str) -> Vec<Variant> {
    let dir = tables.join(format!("variants/dataset={dataset}/attack={attack}"));
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    let mut parts: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    parts.sort();
    for part in parts {
        for batch in advmath::store::read_batches(&part).unwrap() {
            let text = |name: &str| advmath::store::text_column(&batch, name, &part).unwrap();
            let (pid, question, answer) =
                (text("problem_id"), text("question"), text("answer_exact"));
            for i in 0..batch.num_rows() {
                out.push(Variant {
                    problem_id: pid.value(i).to_string(),
                    question: question.value(i).to_string(),
                    answer_exact: answer.value(i).to_string(),
                });
            }
        }
    }
    out
}

/// The numbers written in digits in a question, in order.
fn digits_in(question: &str) -> Vec<Num> {
    find_slots(question)
        .into_iter()
        .filter(|s| !s.word)
        .map(|s| s.value)
        .collect()
}

fn n(v: i128) -> Num {
    Num::int(v)
}

/// The answer of each audited problem worked by hand from a variant's question: the numbers in
/// digits are read from the text, and the words that carry the rest of the arithmetic must still
/// be there as in the original.
fn worked_by_hand(problem: &str, question: &str) -> Num {
    let d = digits_in(question);
    let words = |phrases: &[&str]| {
        for p in phrases {
            assert!(question.contains(p), "{problem}: {p:?} is gone: {question}");
        }
    };
    match problem {
        // A ft; a second rocket twice as high; the two rockets: A + 2A.
        "xie2024-gsm8k/test/7" => {
            words(&["twice as high", "the two rockets"]);
            let [a] = d[..] else { panic!("{question}") };
            a.mul(n(3)).unwrap()
        }
        // A acres; B acres more than twice that; the two farms: A + (2A + B).
        "xie2024-gsm8k/test/80" => {
            words(&["more than twice that", "the two farms"]);
            let [a, b] = d[..] else { panic!("{question}") };
            a.add(a.mul(n(2)).unwrap().add(b).unwrap()).unwrap()
        }
        // W grams in eight equal parts; one-eighth eaten; Pierre eats double: 2W/8.
        "xie2024-gsm8k/test/109" => {
            words(&["eight equal parts", "one-eighth", "double"]);
            let [w] = d[..] else { panic!("{question}") };
            w.div(n(8)).unwrap().mul(n(2)).unwrap()
        }
        // Three fourths red, one quarter of the red coconut, C coconut: C * 4 * 4 / 3.
        "xie2024-gsm8k/test/135" => {
            words(&["Three fourths", "one quarter"]);
            let [c] = d[..] else { panic!("{question}") };
            c.mul(n(4)).unwrap().mul(n(4)).unwrap().div(n(3)).unwrap()
        }
        // T clovers, P% have four leaves, one quarter of these purple: T * P/100 / 4.
        "xie2024-gsm8k/test/149" => {
            words(&["four leaves", "one quarter of these"]);
            let [t, p] = d[..] else { panic!("{question}") };
            t.mul(p).unwrap().div(n(100)).unwrap().div(n(4)).unwrap()
        }
        other => panic!("no hand-worked answer for {other}"),
    }
}

const AUDITED: [&str; 5] = [
    "xie2024-gsm8k/test/7",
    "xie2024-gsm8k/test/80",
    "xie2024-gsm8k/test/109",
    "xie2024-gsm8k/test/135",
    "xie2024-gsm8k/test/149",
];

/// The five problems whose variants carried wrong gold answers, attacked with the defaults
/// (given programs, M1-M3, N = 30,000, m = 100): every variant's gold answer equals the answer
/// worked by hand from its own question.
#[test]
fn audited_problems_keep_gold_answers_true_to_their_text() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest_xie_release(&data, &tables);
    // Attack only the audited problems: their table is the release's, filtered.
    keep_only(&tables, "xie2024-gsm8k", "test", &AUDITED);
    std::fs::remove_file(problems_path(&tables, "xie2024-multiarith", "test")).unwrap();
    let checked = generate_and_check(&tables, &["xie2024-gsm8k"], worked_by_hand);
    eprintln!("hand-worked gold answers checked: {checked:?}");
    // Each problem either yields variants or none of a number it cannot vary safely; the four
    // whose only varying numbers are digits must yield the paper's 100 per method.
    for id in ["xie2024-gsm8k/test/80", "xie2024-gsm8k/test/149"] {
        assert!(
            checked.get(id).copied().unwrap_or(0) >= 100,
            "{id}: {checked:?}"
        );
    }
}

/// Attack the tables' problems with M1-M3 at the defaults, and check every variant's gold answer
/// against `by_hand(problem, question)`; the variants checked per problem.
fn generate_and_check(
    tables: &Path,
    datasets: &[&str],
    by_hand: fn(&str, &str) -> Num,
) -> BTreeMap<String, usize> {
    advmath()
        .args(["generate", "--attack", "m1,m2,m3", "--tables"])
        .arg(tables)
        .assert()
        .success();
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    for dataset in datasets {
        for attack in ["m1", "m2", "m3"] {
            for v in variants(tables, dataset, attack) {
                let expected = by_hand(&v.problem_id, &v.question);
                let stored = num_text::from_text(&v.answer_exact).unwrap();
                assert!(
                    stored.eq_num(expected),
                    "{} {attack}: gold {} but the text's answer is {expected}: {}",
                    v.problem_id,
                    v.answer_exact,
                    v.question
                );
                *checked.entry(v.problem_id).or_default() += 1;
            }
        }
    }
    checked
}

/// Keep only the listed problems of one problems file.
fn keep_only(tables: &Path, dataset: &str, split: &str, ids: &[&str]) {
    let path = problems_path(tables, dataset, split);
    let kept: Vec<_> = problems_in(&path)
        .into_iter()
        .filter(|r| ids.contains(&r.problem_id.as_str()))
        .collect();
    assert_eq!(kept.len(), ids.len(), "{ids:?} are in {}", path.display());
    advmath::store::write_batch(&path, &records_to_batch(&kept).unwrap()).unwrap();
}

/// The answer of one of the three reported problems, worked from a variant's own text (the
/// repeated numbers were read two ways before: appendix H.4).
fn reported_by_hand(problem: &str, question: &str) -> Num {
    let d = digits_in(question);
    match problem {
        // T on Tuesdays, W on Wednesdays and twice as many on Friday: T + W + 2W, where a
        // reader takes "twice as many" of Wednesday; with T = W every reading agrees.
        "xie2024-gsm8k/test/174" => {
            let [t, w] = d[..] else { panic!("{question}") };
            assert!(t.eq_num(w), "the two counts are one number: {question}");
            t.add(w).unwrap().add(w.mul(n(2)).unwrap()).unwrap()
        }
        // A bought, B in the store, N/D times A from his father, 2 kg each ("2kgs" is no number
        // of its own to the slot finder, so it never varies): (A + B + A N/D) 2.
        "gsm8k/test/316" => {
            assert!(question.contains("weighs 2kgs"), "{question}");
            let [a, b, num, den] = d[..] else {
                panic!("{question}")
            };
            let father = a.mul(num).unwrap().div(den).unwrap();
            a.add(b).unwrap().add(father).unwrap().mul(n(2)).unwrap()
        }
        // C trays a trip, X trays and Y trays: (X + Y) / C trips.
        "multiarith/test/372" => {
            let [c, x, y] = d[..] else {
                panic!("{question}")
            };
            x.add(y).unwrap().div(c).unwrap()
        }
        other => panic!("no hand-worked answer for {other}"),
    }
}

/// The three problems whose repeated numbers the alignment read one way and a reader another:
/// every variant's gold answer is the answer of its own text.
#[test]
fn the_reported_problems_keep_gold_answers_true_to_their_text() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest_xie_release(&data, &tables);
    advmath()
        .arg("ingest")
        .arg(data.join("gsm8k/test.jsonl"))
        .arg(data.join("multiarith/MultiArith.json"))
        .arg("--tables")
        .arg(&tables)
        .assert()
        .success();
    keep_only(
        &tables,
        "xie2024-gsm8k",
        "test",
        &["xie2024-gsm8k/test/174"],
    );
    keep_only(&tables, "gsm8k", "test", &["gsm8k/test/316"]);
    keep_only(&tables, "multiarith", "test", &["multiarith/test/372"]);
    std::fs::remove_file(problems_path(&tables, "xie2024-multiarith", "test")).unwrap();
    let checked = generate_and_check(
        &tables,
        &["xie2024-gsm8k", "gsm8k", "multiarith"],
        reported_by_hand,
    );
    eprintln!("hand-worked gold answers checked: {checked:?}");
    assert_eq!(
        checked.len(),
        3,
        "every reported problem has variants: {checked:?}"
    );
}

/// The answer of a problem whose synthesised program matched GSM8K's answer only by a
/// coincidence of its original numbers, worked from a variant's own text.
fn coincidence_by_hand(problem: &str, question: &str) -> Num {
    let d = digits_in(question);
    match problem {
        // A cars, then B more; the fraction N/D of them had gone: the cars left are
        // (A + B)(1 - N/D). The program's `(A + B) * 1/2` is that only while N/D is a half.
        "gsm8k/test/821" => {
            assert!(question.contains("had gone"), "{question}");
            let [a, b, num, den] = d[..] else {
                panic!("{question}")
            };
            let gone = num.div(den).unwrap();
            a.add(b).unwrap().mul(Num::ONE.sub(gone).unwrap()).unwrap()
        }
        // A fish, O orange and W white, C more; then twice as many orange as white: the white
        // fish bought are (A + C)/(2 + 1) - W, and the text holds only while O + W = A. The
        // program's 3 was "2*x + x", not the question's 3 orange.
        "gsm8k/test/783" => {
            assert!(question.contains("twice as many orange"), "{question}");
            let [a, o, w, c] = d[..] else {
                panic!("{question}")
            };
            assert!(
                o.add(w).unwrap().eq_num(a),
                "an impossible pond: {question}"
            );
            a.add(c).unwrap().div(n(3)).unwrap().sub(w).unwrap()
        }
        other => panic!("no hand-worked answer for {other}"),
    }
}

/// GSM8K test ingested whole, then every problem but `ids` dropped; `None` without the shared
/// data.
fn gsm8k_test_with_only(ids: &[&str]) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let data = shared_data()?;
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    crate::util::ingest(&tables, &[&data.join("gsm8k/test.jsonl")]).success();
    keep_only(&tables, "gsm8k", "test", ids);
    Some((dir, tables))
}

/// Two GSM8K problems whose synthesised programs gave the right answer only on the original
/// numbers: a half read as its complement (821: "1/2 ... had gone", answered with the half that
/// stayed), and a coefficient the solution derived read as a question number (783: "3*x = 24"
/// after "2*x + x", linked to "3 were orange"). Every variant's gold answer is its text's; 821
/// keeps its half, and 783 is refused, since the program cannot follow the algebra.
#[test]
fn programs_right_by_coincidence_keep_gold_answers_true_to_their_text() {
    let Some((_dir, tables)) = gsm8k_test_with_only(&["gsm8k/test/783", "gsm8k/test/821"]) else {
        return;
    };
    let checked = generate_and_check(&tables, &["gsm8k"], coincidence_by_hand);
    eprintln!("hand-worked gold answers checked: {checked:?}");
    assert!(
        checked.get("gsm8k/test/821").copied().unwrap_or(0) >= 100,
        "821 varies its counts of cars: {checked:?}"
    );
    let bob = problems_in(&problems_path(&tables, "gsm8k", "test"))
        .into_iter()
        .find(|r| r.problem_id == "gsm8k/test/783")
        .unwrap();
    if let Some(e) = &bob.error {
        assert_eq!(
            e.kind,
            advmath::program::ErrorKind::AmbiguousOperand,
            "{e:?}"
        );
        assert!(e.detail.contains("2*x + x"), "{}", e.detail);
    }
}

/// GSM8K labels that contradict their own questions (454: two people eating 4 apples a day for
/// 30 days, labelled 150; 823: Sasha's 14 and 4 points, labelled 14; 1309: the girls' $2,180,
/// labelled 2,280; 952: 30 reports every 15 minutes from 8:00 AM until 11:00 PM, labelled 360,
/// the count until 11 AM; and the others the blind read of every test label found), whose worked
/// solutions gave every variant a wrong gold. They are refused as `wrong_label` for every
/// attack, punctuation noise included, while a problem beside them is attacked as before.
#[test]
fn known_wrong_labels_are_refused_for_every_attack() {
    let ids = [
        "gsm8k/test/0",
        "gsm8k/test/119",
        "gsm8k/test/403",
        "gsm8k/test/454",
        "gsm8k/test/649",
        "gsm8k/test/749",
        "gsm8k/test/768",
        "gsm8k/test/814",
        "gsm8k/test/823",
        "gsm8k/test/952",
        "gsm8k/test/1042",
        "gsm8k/test/1309",
    ];
    let Some((_dir, tables)) = gsm8k_test_with_only(&ids) else {
        return;
    };
    let records = problems_in(&problems_path(&tables, "gsm8k", "test"));
    for id in &ids[1..] {
        let r = records.iter().find(|r| r.problem_id == *id).unwrap();
        let e = r.error.as_ref().expect("refused");
        assert_eq!(
            e.kind,
            advmath::program::ErrorKind::WrongLabel,
            "{id}: {e:?}"
        );
        assert!(
            e.detail.contains("contradicts its question"),
            "{}",
            e.detail
        );
    }
    advmath()
        .args(["generate", "--tables"])
        .arg(&tables)
        .args(["--attack", "m1,punct,names", "--variants", "3"])
        .assert()
        .success();
    let per_problem = crate::util::sql_csv(
        &tables,
        "SELECT problem_id, count(*) AS n FROM variants GROUP BY problem_id ORDER BY problem_id",
    );
    assert!(per_problem.contains("gsm8k/test/0,"), "{per_problem}");
    for id in &ids[1..] {
        assert!(!per_problem.contains(&format!("{id},")), "{per_problem}");
    }
    // The dataset card says how many labels were refused.
    let hub = tables.parent().unwrap().join("hub");
    crate::util::publish(&tables, &hub);
    let card = std::fs::read_to_string(hub.join("README.md")).unwrap();
    let row = card
        .lines()
        .find(|l| l.starts_with("| gsm8k | 12 |"))
        .unwrap_or_else(|| panic!("no gsm8k source row:\n{card}"));
    assert!(row.ends_with(&format!("| {} |", ids.len() - 1)), "{row}");
}

/// What the default settings must never make: a changed number word, a written fraction turned
/// improper, or a percentage above 100 where the original was at most 100. Counted over every
/// numeric variant of both Xie datasets.
#[test]
fn no_default_variant_changes_a_number_word_a_fraction_or_a_percentage() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    ingest_xie_release(&data, &tables);
    // The defaults: N = 30,000, m = 100.
    advmath()
        .args(["generate", "--attack", "m1,m2,m3", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    let counts = advmath::generate::audit::text_property_breaks(&tables).unwrap();
    let variants: usize = counts.values().map(|b| b.variants).sum();
    eprintln!("variants checked and broken properties: {counts:#?}");
    assert!(variants > 90_000, "{variants}");
    for ((dataset, attack), b) in &counts {
        assert_eq!(b.broken(), 0, "{dataset} {attack}: {b:?}");
        assert_eq!(b.unit_length_changed, 0, "{dataset} {attack}: {b:?}");
    }
}

/// The synthesised GSM8K test programs under the defaults' rules: no variant writes a unit with
/// another length than it has, GSM8K's own month of 4 weeks ("if there are 4 weeks in a month")
/// among them, nor a part of a unit longer than the unit ("479201 minutes a day").
#[test]
fn no_synthesised_gsm8k_variant_changes_a_unit_length() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    crate::util::ingest(&tables, &[&data.join("gsm8k/test.jsonl")]).success();
    // Few variants a problem: a unit length the rule misses changes in nearly every variant.
    advmath()
        .args([
            "generate",
            "--attack",
            "m1,m2,m3",
            "--variants",
            "5",
            "--attempts",
            "3000",
        ])
        .arg("--tables")
        .arg(&tables)
        .assert()
        .success();
    let counts = advmath::generate::audit::text_property_breaks(&tables).unwrap();
    let variants: usize = counts.values().map(|b| b.variants).sum();
    assert!(variants > 9_000, "{variants}");
    for ((dataset, attack), b) in &counts {
        assert_eq!(b.broken(), 0, "{dataset} {attack}: {b:?}");
        assert_eq!(b.unit_length_changed, 0, "{dataset} {attack}: {b:?}");
    }
    let month = crate::util::sql_csv(
        &tables,
        "SELECT count(*) AS n, count(*) FILTER (WHERE question LIKE '%there are 4 weeks in a month%') AS kept \
         FROM variants WHERE problem_id = 'gsm8k/test/349' AND attack IN ('m1', 'm2', 'm3')",
    );
    let row: Vec<&str> = month.lines().nth(1).unwrap().split(',').collect();
    assert!(row[0].parse::<usize>().unwrap() > 0, "{month}");
    assert_eq!(
        row[0], row[1],
        "every variant keeps the month of 4 weeks: {month}"
    );
}

/// Every variable leaf of every valid problem, with how it was linked: the Xie release's given
/// programs and a seeded sample of 200 GSM8K test problems with synthesised programs.
fn link_listing(links: advmath::program::Links) -> String {
    use advmath::ingest::{build_records_linked, read_source, IngestOptions, ProgramSource};
    use advmath::program::links::describe_links;
    let data = shared_data().expect("checked by the caller");
    let mut out = String::new();
    let sources = [
        ("xie2024/gsm8k", ProgramSource::Given, None),
        ("xie2024/multiarith", ProgramSource::Given, None),
        ("gsm8k/test.jsonl", ProgramSource::Synthesised, Some(200)),
    ];
    for (path, programs, sample) in sources {
        let opts = IngestOptions {
            programs,
            ..Default::default()
        };
        let source = read_source(&data.join(path), &opts).unwrap();
        let mut records = build_records_linked(&source, programs, links);
        if let Some(n) = sample {
            records.sort_by_key(|r| advmath::generate::select::rank(42, &r.problem_id));
            records.truncate(n);
            records.sort_by_key(|r| r.source_index);
        }
        let (mut valid, mut leaves) = (0, 0);
        let mut lines = String::new();
        for r in &records {
            let Some(tree) = r.tree.as_ref().filter(|_| r.is_valid()) else {
                continue;
            };
            valid += 1;
            let slots = find_slots(&r.question);
            leaves += tree.variable_slots().len();
            let links = describe_links(tree, &r.question, &slots);
            lines.push_str(&format!("{}\t{links}\n", r.problem_id));
        }
        out.push_str(&format!(
            "# {path} ({programs:?} programs): {} problems, {valid} valid, {leaves} variable leaves\n{lines}",
            records.len()
        ));
    }
    out
}

/// The link decisions of the audit (`reports/gold_audit.md`), pinned: a change to how numbers
/// are linked shows here, by default and with every extension, and must be audited again.
#[test]
fn audited_link_decisions_are_pinned() {
    if shared_data().is_none() {
        return;
    }
    let default = link_listing(Default::default());
    for kind in [":number-word", ":percentage", ":fraction"] {
        assert!(
            !default.contains(kind),
            "the default links digits only: {kind}\n{}",
            default
                .lines()
                .filter(|l| l.contains(kind))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    crate::util::assert_snapshot("gold_links_default", default);
    let all = advmath::program::Links::parse("all").unwrap();
    crate::util::assert_snapshot("gold_links_all", link_listing(all));
}

/// A generic JSONL of one problem whose two 125s read two ways, ingested with
/// `--disambiguate-with` a server that answers `reply(question)`; the problem as stored.
fn disambiguated_with(reply: fn(&str) -> String) -> advmath::store::problems::ProblemRecord {
    use crate::server::{spawn_with, Reply};
    let server = spawn_with(
        move |_, body| {
            let v: serde_json::Value = serde_json::from_str(body).unwrap();
            let prompt = v["messages"][0]["content"].as_str().unwrap_or_default();
            Reply::Text(Box::leak(reply(prompt).into_boxed_str()))
        },
        std::time::Duration::ZERO,
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("burritos.jsonl");
    let row = serde_json::json!({
        "id": "174",
        "question": "The shop makes 125 chimichangas on Tuesdays, 125 chimichangas on Wednesdays and twice as many on Friday. How many chimichangas do they make on those three days?",
        "answer": "500",
        "program": "tuesday = 125\nwednesday = 125\nfriday = 2 * tuesday\nprint(tuesday + wednesday + friday)",
    });
    std::fs::write(&input, format!("{row}\n")).unwrap();
    let tables = dir.path().join("t");
    advmath()
        .arg("ingest")
        .arg(&input)
        .args(["--dataset", "burritos", "--disambiguate-with"])
        .arg(format!("http://127.0.0.1:{}", server.port))
        .args(["--model", "reader", "--tables"])
        .arg(&tables)
        .assert()
        .success();
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 1);
    let mut recs = problems_in(&problems_path(&tables, "burritos", "test"));
    recs.remove(0)
}

/// The numbers written in digits in the prompt's question.
fn prompt_digits(prompt: &str) -> Vec<Num> {
    let question = prompt.split("Question: ").nth(1).unwrap_or(prompt);
    digits_in(question.split("\nAnswer:").next().unwrap_or(question))
}

/// The paper's step (appendix H.4): a model that reads "twice as many" as twice Wednesday
/// settles the tie on that reading; a model whose answer no reading gives discards the problem.
#[test]
fn a_model_settles_a_tie_or_discards_the_problem() {
    let reader = disambiguated_with(|prompt| {
        let d = prompt_digits(prompt);
        let (t, w) = (d[0], d[1]);
        let total = t.add(w).unwrap().add(w.mul(n(2)).unwrap()).unwrap();
        format!("Friday is twice Wednesday, so the answer is {total}.")
    });
    let tree = reader.tree.as_ref().filter(|_| reader.is_valid()).unwrap();
    assert!(tree.ties.is_empty(), "{tree:?}");
    assert_eq!(tree.variable_slots(), vec![0, 1]);
    assert!(tree.eval(&[n(10), n(20)]).unwrap().eq_num(n(70)));

    let confused = disambiguated_with(|_| "The answer is 3.".to_string());
    let err = confused.error.expect("discarded");
    assert_eq!(err.kind, advmath::program::ErrorKind::NumberMisalignment);
    assert!(
        err.detail.starts_with("reader answers 3 "),
        "{}",
        err.detail
    );
}
