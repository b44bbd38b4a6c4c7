//! `advmath extract`: grade replies as the tables grade them, for graders outside advmath.

use std::io::Read;

use clap::Args;

use advmath::respond::grade::{grade_lines, GradeSummary};
use advmath::respond::Extraction;

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// Standard input is JSON Lines, one `{"response": "...", "gold": "18"}` per reply (gold
    /// optional; `{"no_answer": true}` for a question that has none), and each gives one output line in the same order. Without it, the whole of
    /// standard input is one reply.
    #[arg(long)]
    pub jsonl: bool,
    /// The gold answer of the one reply (a number, `n/d`, or a worked solution's `#### 18`):
    /// adds `correct` (Xie et al.'s rule: equal after rounding to 2 decimals) and `correct_exact`.
    #[arg(long, conflicts_with = "jsonl")]
    pub gold: Option<String>,
    /// The one reply answers a question that has no answer (a `missing` variant, whose gold is
    /// null): it is correct only if it says the question cannot be answered.
    #[arg(long, conflicts_with_all = ["jsonl", "gold"])]
    pub no_answer: bool,
    /// How answers are read: advmath's rules (standard), Xie et al.'s scorer (xie2024) or the
    /// ArithmAttack study's (last-number).
    #[arg(long, value_enum, default_value_t = Extraction::default())]
    pub extraction: Extraction,
}

pub fn run(args: ExtractArgs) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let summary: GradeSummary = if args.jsonl {
        grade_lines(stdin.lock(), stdout.lock(), args.extraction)?
    } else {
        let mut reply = String::new();
        stdin.lock().read_to_string(&mut reply)?;
        // One JSON line: the reply's line breaks are escaped inside it.
        let gold = if args.no_answer {
            serde_json::json!({ advmath::respond::grade::NO_ANSWER: true })
        } else {
            serde_json::json!(args.gold)
        };
        let line = serde_json::json!({ "response": reply, "gold": gold }).to_string();
        grade_lines(line.as_bytes(), stdout.lock(), args.extraction)?
    };
    for bad in &summary.bad {
        eprintln!("warning: {bad}");
    }
    if !summary.bad.is_empty() && summary.graded == 0 {
        return Err(advmath::Error::usage(format!(
            "no reply could be graded ({} bad line(s))",
            summary.bad.len()
        ))
        .into());
    }
    Ok(())
}
