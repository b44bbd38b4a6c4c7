//! Xie et al.'s M1–M3 as a family: a problem's numbers drawn again under its tree's node
//! constraints (and, by default, a reader's rules), N attempts for m distinct variants, the gold
//! recomputed exactly by the program (and confirmed by every supporting program).

use super::{Draw, Drawing};
use crate::attack::sample::{self, attack, Attacker, Method};
use crate::generate::{GenerateConfig, Prepared};
use crate::program::Program;
use crate::seed::stream_key;
use crate::vocab::{Attack, Family};

/// One numeric method.
pub(in crate::generate) struct NumericDraw(pub Method);

impl NumericDraw {
    /// The attacker of `p`'s program with this method, under the paper's constraints and the
    /// question's own, with the reader's rules when `rules`.
    fn attacker<'p>(
        &self,
        p: &'p Prepared,
        program: &'p Program,
        config: &GenerateConfig,
        rules: bool,
    ) -> Result<Attacker<'p>, String> {
        let a = Attacker::new(program, p.values.clone(), self.0, config.digits)
            .map_err(|e| format!("{}: {e}", p.record.problem_id))?
            .with_text_constraints(&p.text);
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
        // alone: if it reaches m there, the rules cost it (counted per dataset).
        let lost_to_rules = drawn.len() < config.variants
            && attacker.rules_may_cost(&stats, config.variants)
            && self.attacker(p, program, config, false).is_ok_and(|paper| {
                sample::reaches(&paper, stream, config.attempts, config.variants)
            });
        Ok(Drawing {
            drawn,
            stats,
            lost_to_rules,
        })
    }

    fn attack(&self) -> Attack {
        Attack::Numeric(self.0)
    }

    fn wanted(&self, config: &GenerateConfig) -> usize {
        config.variants
    }

    fn capped(&self) -> bool {
        true
    }
}
