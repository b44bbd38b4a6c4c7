//! The independent programs each variant is held to: for every problem, the valid candidate
//! programs of `candidate_programs` whose source is not the problem's own program's, one per
//! source. The attack rejects a draw on which any of them that reads every changed number
//! computes another answer, and each row records how many programs gave its gold.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::program::Program;
use crate::store::candidate_programs::{supporters, Supporter, ORIGIN_PREFIX};
use crate::store::problems::ProblemRecord;

/// Every problem's other valid programs, read once per run.
#[derive(Default)]
pub struct Supporters {
    by_problem: BTreeMap<String, Vec<Supporter>>,
}

impl Supporters {
    /// Read the tables' candidate programs; a file written before trees were stored is named on
    /// stderr and offers none.
    pub fn load(tables: &std::path::Path) -> Result<Supporters> {
        let (by_problem, without_trees) = supporters(tables)?;
        for file in without_trees {
            crate::progress::note!(
                "warning: {} holds no solution trees (written by an older advmath): its programs \
                 confirm no variant until the source is ingested again with --candidates",
                file.display()
            );
        }
        Ok(Supporters { by_problem })
    }

    /// The programs of sources other than the one `record`'s own program came from.
    pub fn of(&self, record: &ProblemRecord) -> Vec<&Program> {
        let own = record.program_origin.strip_prefix(ORIGIN_PREFIX);
        self.by_problem
            .get(&record.problem_id)
            .into_iter()
            .flatten()
            .filter(|s| Some(s.source.as_str()) != own)
            .map(|s| &s.tree)
            .collect()
    }
}
