//! GSM-Symbolic's renamed people, GSM-NoOp's irrelevant sentence and GSM-Plus's missing number
//! as families: each edits any question it is given (the original's, or a numeric variant's).
//! Names and the sentence keep its gold, which only a valid program may vouch for; a missing
//! number leaves it none, and which numbers the answer needs only the program says. On the
//! original, `--text-variants` distinct texts are kept.

use super::{Edit, Given};
use crate::attack::text::missing::{withhold, MissingRefusal};
use crate::attack::text::names::NamesRefusal;
use crate::attack::text::noop::NoopRefusal;
use crate::attack::text::{renamed, with_noop, Edited};
use crate::generate::GenerateConfig;
use crate::question::find_slots;
use crate::seed::mix;

/// Every person the question names renamed, consistently and agreeing with the pronouns.
pub(super) struct Names;

/// One sentence added with a number the answer never reads.
pub(super) struct Noop;

/// One number the answer needs taken out.
pub(super) struct Missing;

const NAMES_REFUSALS: [&str; 4] = {
    let all = NamesRefusal::ALL;
    [all[0].name(), all[1].name(), all[2].name(), all[3].name()]
};

const NOOP_REFUSALS: [&str; 1] = [NoopRefusal::ALL[0].name()];

/// The text's numbers are not the variant's: the edit cannot say which one it takes out.
const NUMBERS_UNREAD: &str = "numbers_unread";

const MISSING_REFUSALS: [&str; 3] = [
    MissingRefusal::ALL[0].name(),
    MissingRefusal::ALL[1].name(),
    NUMBERS_UNREAD,
];

/// Mixed into the seed, so that which number goes does not follow the other edits' draws.
const MISSING_STREAM: u64 = 0x6d69_7373_696e_6721;

impl Edit for Names {
    fn apply(&self, q: &Given, seed: u64, _: &GenerateConfig) -> Result<Edited, &'static str> {
        renamed(q.text, seed)
    }

    fn refusals(&self) -> &'static [&'static str] {
        &NAMES_REFUSALS
    }

    fn refuses_every_seed(&self, _reason: &str) -> bool {
        // Who is a person, and which names are taken, is read from the text.
        true
    }
}

impl Edit for Noop {
    fn apply(&self, q: &Given, seed: u64, _: &GenerateConfig) -> Result<Edited, &'static str> {
        with_noop(q.text, seed)
    }

    fn refusals(&self) -> &'static [&'static str] {
        &NOOP_REFUSALS
    }

    fn refuses_every_seed(&self, reason: &str) -> bool {
        // A sentence's number is drawn: another seed may find it a place.
        reason != NoopRefusal::NoPlace.name()
    }
}

impl Edit for Missing {
    fn apply(&self, q: &Given, seed: u64, _: &GenerateConfig) -> Result<Edited, &'static str> {
        let slots = find_slots(q.text);
        let read_back = slots.len() == q.values.len()
            && slots.iter().zip(q.values).all(|(s, v)| s.value.eq_num(*v));
        if !read_back {
            return Err(NUMBERS_UNREAD);
        }
        let withheld =
            withhold(q.text, &slots, q.needed, mix(seed ^ MISSING_STREAM)).map_err(|e| e.name())?;
        Ok(Edited {
            text: withheld.text,
            distractor: None,
        })
    }

    fn reads_tree(&self) -> bool {
        true
    }

    fn refusals(&self) -> &'static [&'static str] {
        &MISSING_REFUSALS
    }

    fn refuses_every_seed(&self, _reason: &str) -> bool {
        // The tree says which numbers are needed and the text where one reads as an indefinite;
        // the seed only chooses among those.
        true
    }
}
