//! Xie et al.'s M1–M3 as a family: a problem's numbers drawn again under its tree's node
//! constraints (and, by default, a reader's rules), N attempts for m distinct variants, the gold
//! recomputed exactly by the program (and confirmed by every supporting program).

use super::{Draw, Drawing};
use crate::attack::sample::{self, attack, Attacker, Method};
use crate::generate::{GenerateConfig, Prepared};
use crate::program::Program;
use crate::question::divisible::{asks_for_count, divisible_slots};
use crate::question::physical::measured_slots;
use crate::seed::stream_key;
use crate::vocab::{Attack, Family};

/// One numeric method.
pub(in crate::generate) struct NumericDraw(pub Method);

impl NumericDraw {
    /// The attacker of `p`'s program with this method, under the paper's constraints and the
    /// question's own, with the reader's rules when `rules`.
    pub(super) fn attacker<'p>(
        &self,
        p: &'p Prepared,
        program: &'p Program,
        config: &GenerateConfig,
        rules: bool,
    ) -> Result<Attacker<'p>, String> {
        let a = Attacker::new(program, p.values.clone(), self.0, config.digits)
            .map_err(|e| format!("{}: {e}", p.record.problem_id))?;
        // A conversion writes a divisible amount in parts (see `divisible`).
        let a = match self.0.converts() {
            Some(money) => a.converting(
                &divisible_slots(&p.record.question, &p.slots)
                    .into_iter()
                    .map(|(s, d)| (s, d.unless_money(money)))
                    .collect::<Vec<_>>(),
                asks_for_count(&p.record.question),
            ),
            None => a,
        };
        let a = a.with_text_constraints(&p.text);
        // A digit expansion leaves a measure of the world as written (see `physical`).
        let a = match self.0 {
            Method::Digits => a.holding(&measured_slots(&p.record.question, &p.slots)),
            _ => a,
        };
        let a = if rules {
            a.with_reader_rules(&p.rules)
        } else {
            a
        };
        Ok(a.with_supporters(p.supporters.iter().copied()))
    }
}

impl Draw for NumericDraw {
    fn family(&self) -> Family {
        Family::Numeric(self.0)
    }

    fn draw(
        &self,
        p: &Prepared,
        program: &Program,
        config: &GenerateConfig,
    ) -> Result<Drawing, String> {
        let attacker = self.attacker(p, program, config, true)?;
        let stream = stream_key(config.seed, &p.record.problem_id, self.0.name());
        let (drawn, stats) = attack(&attacker, stream, config.attempts, config.variants);
        // A problem the reader's rules may have left short is drawn again under the paper's
        // alone: if it reaches what is wanted there, the rules cost it (counted per dataset).
        let wanted = self.wanted(config);
        let lost_to_rules = drawn.len() < wanted
            && attacker.rules_may_cost(&stats, wanted)
            && self
                .attacker(p, program, config, false)
                .is_ok_and(|paper| sample::reaches(&paper, stream, config.attempts, wanted));
        Ok(Drawing {
            drawn,
            stats,
            lost_to_rules,
        })
    }

    fn attack(&self) -> Attack {
        Attack::Numeric(self.0)
    }

    /// Xie et al.'s methods write a problem's variants only when it reaches m of them
    /// (Algorithm 2); an extension's problem is varied by every variant it has, up to m
    /// (GSM-Plus makes one per problem, and a digit expansion under integer constraints may
    /// have only a few).
    fn wanted(&self, config: &GenerateConfig) -> usize {
        if self.0.is_xie() {
            config.variants
        } else {
            1
        }
    }

    fn capped(&self) -> bool {
        true
    }
}
