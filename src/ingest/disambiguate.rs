//! The paper's step for a number written more than once whose readings give different answers
//! (appendix H.4): ask a model the question with distinguishing numbers, keep the reading whose
//! answer it gives, and discard the problem when none does. Without it, such numbers stay tied
//! (`program::readings`), which is right for every reading.

use std::path::Path;

use crate::error::Result;
use crate::extract::extract;
use crate::llm::client::{Decoding, Endpoint};
use crate::llm::prompt::Template;
use crate::llm::servers::Servers;
use crate::num::wide::Value;
use crate::program::readings::tied_readings;
use crate::program::{ErrorKind, ProgramError};
use crate::question::find_slots;
use crate::question::rendering::{format_like, render, template};
use crate::store::problems::{self, records_to_batch, ProblemRecord};
use crate::store::write_batch;

/// What one pass settled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DisambiguateSummary {
    /// Questions asked (one per tied number).
    pub asked: usize,
    /// Tied numbers the model's answer settled on one reading.
    pub settled: usize,
    /// Problems discarded: the model's answer matched no reading.
    pub discarded: usize,
    /// Requests that failed; their numbers stay tied.
    pub failed: usize,
}

/// Settle every tied number of the valid problems under `tables` by asking `endpoint`.
pub fn disambiguate(tables: &Path, endpoint: &Endpoint) -> Result<DisambiguateSummary> {
    let servers = Servers::new(endpoint, 1);
    let decoding = Decoding::default();
    // The paper asks with its own zero-shot prompt (appendix A.2).
    let prompt = Template::resolve("xie2024")?;
    let mut summary = DisambiguateSummary::default();
    for file in problems::files(tables)? {
        let mut records = problems::read_file(&file)?;
        let mut changed = false;
        for r in records.iter_mut() {
            changed |= settle(
                r,
                &servers,
                &prompt,
                &decoding,
                &endpoint.model,
                &mut summary,
            );
        }
        if changed {
            write_batch(&file, &records_to_batch(&records)?)?;
        }
    }
    Ok(summary)
}

/// Ask about each tied number of one problem in turn; whether the record changed.
fn settle(
    r: &mut ProblemRecord,
    servers: &Servers,
    prompt: &Template,
    decoding: &Decoding,
    model: &str,
    summary: &mut DisambiguateSummary,
) -> bool {
    if !r.is_valid() {
        return false;
    }
    let slots = find_slots(&r.question);
    let originals: Vec<_> = slots.iter().map(|s| s.value).collect();
    let shape = template(&r.question, &slots);
    let mut changed = false;
    loop {
        let Some(tree) = r.tree.as_ref() else {
            return changed;
        };
        let Some(tied) = tied_readings(tree, &originals).into_iter().next() else {
            return changed;
        };
        let texts: Vec<String> = slots
            .iter()
            .zip(&tied.slots)
            .map(|(s, v)| format_like(*v, s))
            .collect();
        let question = render(&shape, &texts);
        summary.asked += 1;
        let reply = match servers.complete(&prompt.render(&question), decoding) {
            Ok(c) => c.text,
            Err(e) => {
                crate::progress::note!(
                    "{}: the question about a repeated number failed: {e}",
                    r.problem_id
                );
                summary.failed += 1;
                return changed;
            }
        };
        let answer = extract(&reply).value;
        let chosen = answer.and_then(|a| {
            tied.answers
                .iter()
                .position(|v| matches!(v, Value::Num(x) if x.eq_num(a)))
        });
        changed = true;
        match chosen {
            Some(i) => {
                summary.settled += 1;
                r.tree = Some(tied.readings[i].clone());
            }
            None => {
                summary.discarded += 1;
                let shown = slots[tied.leader as usize].written_in(&r.question);
                r.error = Some(ProgramError::new(
                    ErrorKind::NumberMisalignment,
                    format!(
                        "{model} answers {} to the question with distinguishing numbers, which no reading of the repeated {shown} gives: {question}",
                        answer.map_or("nothing".to_string(), |a| a.to_string())
                    ),
                ));
                return changed;
            }
        }
    }
}
