//! GSM-Symbolic's renamed people and GSM-NoOp's irrelevant sentence as families: each edits any
//! question it is given (the original's, or a numeric variant's) and keeps its gold, which only a
//! valid program may vouch for. On the original, `--text-variants` distinct texts are kept.

use super::{Edit, Needs};
use crate::attack::text::names::NamesRefusal;
use crate::attack::text::noop::NoopRefusal;
use crate::attack::text::{renamed, with_noop, Edited};
use crate::generate::GenerateConfig;

/// Every person the question names renamed, consistently and agreeing with the pronouns.
pub(super) struct Names;

/// One sentence added with a number the answer never reads.
pub(super) struct Noop;

const NAMES_REFUSALS: [&str; 4] = {
    let all = NamesRefusal::ALL;
    [all[0].name(), all[1].name(), all[2].name(), all[3].name()]
};

const NOOP_REFUSALS: [&str; 1] = [NoopRefusal::ALL[0].name()];

impl Edit for Names {
    fn needs(&self) -> Needs {
        Needs::ValidProgram
    }

    fn apply(&self, question: &str, seed: u64, _: &GenerateConfig) -> Result<Edited, &'static str> {
        renamed(question, seed)
    }

    fn refusals(&self) -> &'static [&'static str] {
        &NAMES_REFUSALS
    }

    fn refuses_every_seed(&self, _reason: &str) -> bool {
        // Who is a person, and which names are taken, is read from the text.
        true
    }

    fn copies(&self, config: &GenerateConfig) -> usize {
        config.text_variants
    }

    fn distinct(&self) -> bool {
        true
    }
}

impl Edit for Noop {
    fn needs(&self) -> Needs {
        Needs::ValidProgram
    }

    fn apply(&self, question: &str, seed: u64, _: &GenerateConfig) -> Result<Edited, &'static str> {
        with_noop(question, seed)
    }

    fn refusals(&self) -> &'static [&'static str] {
        &NOOP_REFUSALS
    }

    fn refuses_every_seed(&self, reason: &str) -> bool {
        // A sentence's number is drawn: another seed may find it a place.
        reason != NoopRefusal::NoPlace.name()
    }

    fn copies(&self, config: &GenerateConfig) -> usize {
        config.text_variants
    }

    fn distinct(&self) -> bool {
        true
    }
}
