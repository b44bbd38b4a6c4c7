//! An attack family behind one interface. A family either draws a problem's numbers again and
//! has its program recompute the gold (a [`Draw`]: M1–M3, the guided attack), or edits a
//! question it is given and keeps that question's gold (an [`Edit`]: names, the no-op sentence,
//! punctuation noise), or takes a number the answer needs out of it, so that it has no gold (a
//! [`Edit`] that reads the tree: `missing`). Every attack is the original or one draw, then its edits in order
//! ([`Attack::families`]); [`compose`] makes any attack's rows from its families alone. Adding a
//! family is a variant of [`Family`] in the vocabulary and one module here.

mod compose;
mod guided;
mod noise;
mod numeric;
mod text;

pub(super) use compose::{attack_rows, first_refusal, Cx};
pub(super) use guided::GuidedDraw;
pub(super) use numeric::NumericDraw;

use super::{GenerateConfig, Prepared};
use crate::attack::sample::{AttackStats, Drawn};
use crate::attack::text::Edited;
use crate::program::Program;
use crate::vocab::{Attack, Family};

/// What a family needs of a problem before it attacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// The question and a gold answer it does not contradict: ArithmAttack noises every
    /// question of a test set, with or without a program.
    Question,
    /// A valid program: the numbers are drawn from its tree, or a changed text carries a gold
    /// only a program confirms.
    ValidProgram,
}

/// How a family's variants get their gold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gold {
    /// The program evaluated on the variant's numbers.
    Recomputed,
    /// The question it was given keeps its gold (the words or the marks changed, not a number).
    Kept,
    /// None: a number the answer needs was taken out, and the right reply says so.
    NoAnswer,
}

/// A question an edit is given: its text and, for an edit that reads the tree, its numbers and
/// which of them the answer needs (empty for every other edit).
pub(super) struct Given<'a> {
    pub text: &'a str,
    pub values: &'a [crate::num::Num],
    pub needed: &'a [bool],
}

/// One problem's draws of one family: the variants, best or first first, and the attempts.
pub(super) struct Drawing {
    pub drawn: Vec<Drawn>,
    pub stats: AttackStats,
    /// Whether only the reader's rules kept the problem from the variants wanted (it reaches
    /// them under the paper's constraints alone).
    pub lost_to_rules: bool,
}

/// A family that draws a problem's numbers again.
pub(super) trait Draw: Sync {
    fn family(&self) -> Family;

    /// The attack of its own variants, undecorated by any edit.
    fn attack(&self) -> Attack;

    /// The problem's draws: made for every problem in parallel, before any row is written. An
    /// error is the problem's alone (its program cannot be attacked this way).
    fn draw(
        &self,
        p: &Prepared,
        program: &Program,
        config: &GenerateConfig,
    ) -> Result<Drawing, String>;

    /// How many variants a problem must reach for any of them to be written.
    fn wanted(&self, config: &GenerateConfig) -> usize;

    /// Whether `--problems` caps the problems whose variants are written.
    fn capped(&self) -> bool;
}

/// A family that edits a question it is given.
pub(super) trait Edit: Sync {
    /// What it needs of a problem: a valid program unless it says otherwise (a text edit's gold
    /// is one only a program vouches for).
    fn needs(&self) -> Needs {
        Needs::ValidProgram
    }

    /// The question edited, drawn from `seed`, or why the question takes no such edit (one of
    /// [`Edit::refusals`], a `generation_stats.refused` name).
    fn apply(&self, q: &Given, seed: u64, config: &GenerateConfig) -> Result<Edited, &'static str>;

    /// Whether it reads which numbers the answer needs ([`Given::needed`]).
    fn reads_tree(&self) -> bool {
        false
    }

    /// Every reason it refuses a question; none for an edit that takes every question.
    fn refusals(&self) -> &'static [&'static str];

    /// Whether a refusal holds for every seed of the question (its rules read the text), so that
    /// the original is not drawn again for it.
    fn refuses_every_seed(&self, reason: &str) -> bool;

    /// How many copies of the original a problem gets: `--text-variants` unless it says
    /// otherwise.
    fn copies(&self, config: &GenerateConfig) -> usize {
        config.text_variants
    }

    /// Whether the copies must differ: two draws may make the same text, and a copy is kept
    /// only when no earlier one has its text (so unless it says otherwise).
    fn distinct(&self) -> bool {
        true
    }
}

/// The edit a family makes at the attack's noise level (`None` for a family that draws).
fn edit_of(family: Family, attack: Attack) -> Option<Box<dyn Edit>> {
    match family {
        Family::Punct => Some(Box::new(noise::Noise {
            level: attack.noise_level(),
        })),
        Family::Names => Some(Box::new(text::Names)),
        Family::Noop => Some(Box::new(text::Noop)),
        Family::Missing => Some(Box::new(text::Missing)),
        Family::Numeric(_) | Family::Guided | Family::Rephrase => None,
    }
}

/// An attack as its families: the draw it starts from (`None`: the original) and its edits,
/// in order.
pub(super) fn parts(attack: Attack) -> (Option<Family>, Vec<Box<dyn Edit>>) {
    let mut draw = None;
    let mut edits = Vec::new();
    for family in attack.families() {
        match edit_of(family, attack) {
            Some(edit) => edits.push(edit),
            None => draw = Some(family),
        }
    }
    (draw, edits)
}

/// The gold of an attack's variants: none when a needed number is taken out, else recomputed
/// when it starts from a draw.
pub fn gold(attack: Attack) -> Gold {
    match parts(attack).0 {
        _ if !attack.answerable() => Gold::NoAnswer,
        Some(_) => Gold::Recomputed,
        None => Gold::Kept,
    }
}

/// What an attack needs of a problem: the most any of its families needs.
pub fn needs(attack: Attack) -> Needs {
    let (draw, edits) = parts(attack);
    if draw.is_some() || edits.iter().any(|e| e.needs() == Needs::ValidProgram) {
        Needs::ValidProgram
    } else {
        Needs::Question
    }
}

/// Every reason a problem's question may be refused by the attack's edits.
pub fn refusals(attack: Attack) -> Vec<&'static str> {
    parts(attack)
        .1
        .iter()
        .flat_map(|e| e.refusals().iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{Method, TextEdit};

    #[test]
    fn every_attack_reads_as_its_families() {
        let m3 = Attack::Numeric(Method::M3);
        assert_eq!(gold(m3), Gold::Recomputed);
        assert_eq!(needs(m3), Needs::ValidProgram);
        assert_eq!(gold(Attack::Punct(10)), Gold::Kept);
        assert_eq!(needs(Attack::Punct(10)), Needs::Question);
        assert_eq!(gold(Attack::NumericPunct(Method::M1, 30)), Gold::Recomputed);
        let names = Attack::Text(None, TextEdit::NAMES);
        assert_eq!(
            (gold(names), needs(names)),
            (Gold::Kept, Needs::ValidProgram)
        );
        assert_eq!(
            refusals(Attack::Text(Some(Method::M2), TextEdit::BOTH)),
            [
                "no_name",
                "no_name_left",
                "unsure_name",
                "names_alike",
                "no_place"
            ]
        );
        assert!(refusals(Attack::Punct(50)).is_empty());
        let missing = Attack::Text(Some(Method::M3), TextEdit::MISSING);
        assert_eq!(
            (gold(missing), needs(missing)),
            (Gold::NoAnswer, Needs::ValidProgram)
        );
        assert_eq!(
            refusals(missing),
            ["nothing_needed", "no_phrase", "numbers_unread"]
        );
        let (draw, edits) = parts(Attack::NumericPunct(Method::M2, 50));
        assert_eq!(draw, Some(Family::Numeric(Method::M2)));
        assert_eq!(edits.len(), 1);
        assert!(edits[0].refusals().is_empty() && !edits[0].distinct());
    }
}
