//! End-to-end tests: the real binary on tiny fixtures.

use assert_cmd::Command;

fn advmath() -> Command {
    Command::cargo_bin("advmath").expect("binary built")
}

#[test]
fn help_explains_the_commands() {
    let out = advmath().arg("--help").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("ingest") && text.contains("run"));
}

mod shared {
    //! Tests on the real data in `../shared/data`. Each is skipped, with a message, when that
    //! folder is absent (it is never copied into the project).

    use std::path::{Path, PathBuf};

    use advmath::generate::{attack, Attacker, Method};
    use advmath::ingest::{build_records, read_source, IngestOptions, ProblemRecord, ProgramSource};
    use advmath::seed::stream_key;

    pub fn data() -> Option<PathBuf> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
        if p.is_dir() {
            Some(p)
        } else {
            eprintln!("SKIPPED: ../shared/data is absent");
            None
        }
    }

    fn ingest(path: &Path, programs: ProgramSource) -> Vec<ProblemRecord> {
        let opts = IngestOptions {
            programs,
            ..Default::default()
        };
        let source = read_source(path, &opts).unwrap();
        build_records(&source, programs)
    }

    fn normalise(q: &str) -> String {
        q.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Given (GPT-4) and synthesised programs of the same Xie problem, fed the same 20 number
    /// sets (drawn as M3 variants of the given program), must agree on >= 90% of problems.
    #[test]
    fn given_and_synthesised_programs_agree() {
        let Some(data) = data() else { return };
        let mut agree = 0;
        let mut compared = 0;
        let mut disagreements = Vec::new();
        // Synthesised counterparts: GSM8K from the annotations in the Xie file itself, MultiArith
        // from MultiArith.json's equations, matched by question text.
        let multiarith = ingest(&data.join("multiarith/MultiArith.json"), ProgramSource::Synthesised);
        for (dir, synth_from_self) in [("xie2024/gsm8k", true), ("xie2024/multiarith", false)] {
            let given = ingest(&data.join(dir), ProgramSource::Given);
            let synthesised: Vec<Option<ProblemRecord>> = if synth_from_self {
                ingest(&data.join(dir), ProgramSource::Synthesised).into_iter().map(Some).collect()
            } else {
                given
                    .iter()
                    .map(|g| multiarith.iter().find(|m| normalise(&m.question) == normalise(&g.question)).cloned())
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
                let same = sets.iter().all(|d| st.eval(&d.slots).is_ok_and(|a| a.eq_2dp(d.answer)));
                if same {
                    agree += 1;
                } else {
                    disagreements.push(g.problem_id.clone());
                }
            }
        }
        let share = agree as f64 / compared as f64;
        eprintln!("programs agree on {agree}/{compared} problems ({:.1}%); disagree: {disagreements:?}", 100.0 * share);
        assert!(compared >= 300, "only {compared} problems had both programs valid");
        assert!(share >= 0.90, "agreement {share:.3} < 0.90: {disagreements:?}");
    }
}
