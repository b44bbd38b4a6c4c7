//! The program-coverage report: per source, how many problems got a valid program, from where,
//! and every rejected problem with its reason.

use std::fmt::Write;

use std::collections::BTreeMap;

use super::candidates::shortfall::{ProblemShortfall, Shortfall};
use super::candidates::{publication, CandidateFile, CandidatesReport};
use super::Coverage;
use crate::store::problems::ProblemRecord;

/// Sources with more rejections than this list the first ones per kind instead of all.
const FULL_LIST_LIMIT: usize = 400;
const EXAMPLES_PER_KIND: usize = 25;

/// Bad or unmatched lines of one candidate file listed one by one; the rest are counted.
const LISTED_LINES: usize = 10;

/// Program validity as the paper states it, for the Xie release's datasets.
const PAPER_VALIDITY: &str = "96.5% and 92.5%";

pub fn markdown(sources: &[Vec<ProblemRecord>], candidates: Option<&CandidatesReport>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Program coverage\n");
    let _ = writeln!(
        out,
        "Written by `advmath ingest --report`. A problem is valid when its solution program parses into the \
         whitelisted subset, its literals align with the question's numbers and it computes the gold answer. \
         `wrong_answer` faults the program, not the gold: the program does not compute the dataset's answer (for a \
         program synthesised from the worked solution: no worked step computes it); the dataset's answer stays the gold.\n"
    );
    let _ = writeln!(out, "| dataset | split | problems | valid | valid % | programs by origin | rejected by reason |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|---|---|");
    for records in sources {
        let c = Coverage::of(records);
        let origins: Vec<String> = c
            .by_origin
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let kinds: Vec<String> = c.by_kind.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.1} | {} | {} |",
            c.dataset,
            c.split,
            c.total,
            c.valid,
            100.0 * c.valid_share(),
            origins.join(", "),
            kinds.join(", ")
        );
    }
    if sources
        .iter()
        .any(|r| r.first().is_some_and(|p| p.dataset.starts_with("xie2024-")))
    {
        let _ = writeln!(
            out,
            "\nFor comparison: Xie et al. 2024 report {PAPER_VALIDITY} of their GPT-4 programs usable for \
             the attack on their two datasets. The release's programs validate here at the rates above; \
             every rejection is listed below with its reason, and the authors' own code accepts 188 (GSM8K) \
             and 189 (MultiArith) of the same 200 + 200 (`../shared/data/reference-baseline`)."
        );
    }
    for records in sources {
        let rejected: Vec<&ProblemRecord> = records.iter().filter(|r| !r.is_valid()).collect();
        let Some(first) = rejected.first() else {
            continue; // nothing rejected: the summary row says it all
        };
        let _ = writeln!(
            out,
            "\n## {} / {}: {} rejected\n",
            first.dataset,
            first.split,
            rejected.len()
        );
        let full = rejected.len() <= FULL_LIST_LIMIT;
        if !full {
            let _ = writeln!(
                out,
                "{} rejections: the first {EXAMPLES_PER_KIND} of each reason are listed.\n",
                rejected.len()
            );
        }
        let offered = candidates.map(|c| &c.shortfalls);
        if let Some(shortfalls) = offered {
            shortfall_table(&mut out, records, &rejected, shortfalls);
            let _ = writeln!(
                out,
                "| problem | reason | detail | nearest published program |"
            );
            let _ = writeln!(out, "|---|---|---|---|");
        } else {
            let _ = writeln!(out, "| problem | reason | detail |");
            let _ = writeln!(out, "|---|---|---|");
        }
        let mut shown: std::collections::BTreeMap<String, usize> = Default::default();
        let mut sorted = rejected.clone();
        sorted.sort_by_key(|r| (r.error.as_ref().map(|e| e.kind), r.source_index));
        for r in sorted {
            let e = r.error.as_ref().expect("rejected records carry an error");
            let n = shown.entry(e.kind.to_string()).or_default();
            *n += 1;
            if !full && *n > EXAMPLES_PER_KIND {
                continue;
            }
            let detail = e.detail.replace('|', "\\|").replace('\n', " ");
            let detail: String = detail.chars().take(160).collect();
            match offered {
                Some(shortfalls) => {
                    let nearest = shortfalls
                        .get(&r.problem_id)
                        .map(|n| format!("{} ({})", n.shortfall, n.source))
                        .unwrap_or_else(|| "none offered".to_string());
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} |",
                        r.problem_id, e.kind, detail, nearest
                    );
                }
                None => {
                    let _ = writeln!(out, "| {} | {} | {} |", r.problem_id, e.kind, detail);
                }
            }
        }
    }
    out
}

/// Why the published programs left a source's rejected problems without a program: per class
/// of the nearest candidate, how many problems and whose rule; then what the paper's rules alone
/// would admit and how many problems have a program that gives the gold at all.
fn shortfall_table(
    out: &mut String,
    records: &[ProblemRecord],
    rejected: &[&ProblemRecord],
    shortfalls: &BTreeMap<String, ProblemShortfall>,
) {
    let mut by_class: BTreeMap<Shortfall, usize> = BTreeMap::new();
    let mut none_offered = 0;
    for r in rejected {
        match shortfalls.get(&r.problem_id) {
            Some(n) => *by_class.entry(n.shortfall).or_default() += 1,
            None => none_offered += 1,
        }
    }
    let _ = writeln!(
        out,
        "Of each rejected problem's published programs, the nearest to being taken (`--candidates`), \
         and whose rule stops it; the table below lists it per problem.\n"
    );
    let _ = writeln!(
        out,
        "| nearest published program | problems | what it does | whose rule |"
    );
    let _ = writeln!(out, "|---|---:|---|---|");
    for class in Shortfall::ALL {
        let n = by_class.get(&class).copied().unwrap_or(0);
        if n > 0 {
            let _ = writeln!(
                out,
                "| {class} | {n} | {} | {} |",
                class.meaning(),
                class.rule()
            );
        }
    }
    if none_offered > 0 {
        let _ = writeln!(
            out,
            "| none offered | {none_offered} | no published program matched the problem | |"
        );
    }
    let total = records.len();
    let valid = total - rejected.len();
    let count = |upto: Shortfall| -> usize {
        by_class
            .iter()
            .filter(|(c, _)| **c <= upto)
            .map(|(_, n)| n)
            .sum()
    };
    let share = |n: usize| 100.0 * n as f64 / total.max(1) as f64;
    let paper = valid + count(Shortfall::UnexplainedConstant);
    let code = valid + count(Shortfall::IgnoresNumber);
    let gold = valid + count(Shortfall::CountsDiffer);
    let _ = writeln!(
        out,
        "\nValid: {valid} of {total} ({:.1}%). Without advmath's checks past the paper's (the first three \
         classes), at most {paper} ({:.1}%) would be; keeping an ignored number constant as well, as the authors' \
         code does, at most {code} ({:.1}%). {gold} ({:.1}%) have a program that gives the gold answer in the \
         interpreted subset, whatever its alignment.\n",
        share(valid),
        share(paper),
        share(code),
        share(gold)
    );
}

/// The section on published candidate programs (`ingest --candidates`): per source what was read,
/// matched, valid and chosen, with where the family publishes its programs and under which
/// licence; per file its bad and unmatched lines.
pub fn candidates_markdown(report: &CandidatesReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\n## Published candidate programs\n");
    let _ = writeln!(
        out,
        "Programs models wrote for these problems, as their projects released them (`--candidates`). \
         Each is validated exactly as a given program, against the problem's gold answer; a problem \
         whose own program is not valid takes its first valid candidate (files in the order named, \
         then by line), and its `program_origin` is `published:<source>`. Every verdict is in table \
         `candidate_programs`. *read*: rows that gave a program; *matched*: of those, rows matched \
         to a problem; *judged*: (program, problem) pairs validated; *chosen*: problems that took \
         the source's program.\n"
    );
    let _ = writeln!(
        out,
        "| source | published by | licence | read | matched | judged | valid | chosen | refused by reason |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|---:|---:|---|");
    for s in &report.sources {
        let p = publication(s.family);
        let refused: Vec<String> = s.refused.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            out,
            "| {} | [{}]({}) | {} | {} | {} | {} | {} | {} | {} |",
            s.source,
            p.project,
            p.url,
            p.licence,
            s.read,
            s.matched,
            s.judged,
            s.valid,
            s.chosen,
            refused.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\n| file | lines | prompt lines | bad lines | bad lines by reason | unmatched |\n|---|---:|---:|---:|---|---:|"
    );
    for f in &report.files {
        let reasons: Vec<String> = f
            .bad_by_reason
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            f.path.display(),
            f.lines,
            f.prompts,
            f.bad.len(),
            reasons.join(", "),
            f.unmatched.len()
        );
    }
    disputes_markdown(&mut out, &report.disputes);
    list_lines(&mut out, "Bad lines", &report.files, |f| &f.bad);
    list_lines(&mut out, "Unmatched candidates", &report.files, |f| {
        &f.unmatched
    });
    out
}

/// The labels the published programs dispute, for a reader to check against the question: a
/// wrong one goes on the errata list (`src/ingest/errata.tsv`).
fn disputes_markdown(out: &mut String, disputes: &[super::candidates::Dispute]) {
    if disputes.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Labels the published programs dispute\n\n\
         Three or more programs, of two or more projects, compute one answer other than the label. \
         Models share mistakes, so this proves nothing; read the question. A label the question \
         contradicts belongs on the errata list (`src/ingest/errata.tsv`, `reports/gold_audit.md`).\n\n\
         | problem | label | they compute | programs | problem status |\n|---|---:|---:|---|---|"
    );
    for d in disputes {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            d.problem_id,
            d.label,
            d.answer,
            d.sources.join(", "),
            d.status
        );
    }
}

/// A subsection listing the first lines `pick` gives of each file (each `file:line: reason`),
/// then how many more; nothing when no file has any.
fn list_lines(
    out: &mut String,
    title: &str,
    files: &[CandidateFile],
    pick: impl Fn(&CandidateFile) -> &[String],
) {
    if files.iter().all(|f| pick(f).is_empty()) {
        return;
    }
    let _ = writeln!(out, "\n### {title}\n");
    for f in files {
        let lines = pick(f);
        for l in lines.iter().take(LISTED_LINES) {
            let _ = writeln!(out, "- {}", l.replace('\n', " "));
        }
        if lines.len() > LISTED_LINES {
            let _ = writeln!(
                out,
                "- {}: {} more",
                f.path.display(),
                lines.len() - LISTED_LINES
            );
        }
    }
}
