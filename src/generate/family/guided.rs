//! The guided attack as a family: M3's candidates under M3's constraints, the K a guiding
//! model's fitted failure model ranks likeliest to break it (not a paper's attack; the fit is
//! the generation stage's `guided` module's).

use super::numeric::NumericDraw;
use super::{Draw, Drawing};
use crate::attack::guided::guided_attack;
use crate::attack::sample::Method;
use crate::generate::guided::FailureModel;
use crate::generate::{GenerateConfig, Prepared};
use crate::program::Program;
use crate::seed::stream_key;
use crate::vocab::{Attack, Family};

/// M3's draws ranked by a fitted guide.
pub(in crate::generate) struct GuidedDraw<'g>(pub &'g FailureModel);

impl Draw for GuidedDraw<'_> {
    fn family(&self) -> Family {
        Family::Guided
    }

    fn draw(
        &self,
        p: &Prepared,
        program: &Program,
        config: &GenerateConfig,
    ) -> Result<Drawing, String> {
        // M3's candidates under M3's own constraints and the reader's rules.
        let attacker = NumericDraw(Method::M3).attacker(p, program, config, true)?;
        let stream = stream_key(
            config.seed,
            &p.record.problem_id,
            &Attack::Guided.to_string(),
        );
        let mut score = self.0.scorer(program);
        let (drawn, stats) = guided_attack(
            &attacker,
            stream,
            config.attempts,
            config.budget,
            &mut score,
        );
        Ok(Drawing {
            drawn,
            stats,
            lost_to_rules: false,
        })
    }

    fn attack(&self) -> Attack {
        Attack::Guided
    }

    fn wanted(&self, config: &GenerateConfig) -> usize {
        config.budget
    }

    fn capped(&self) -> bool {
        false
    }
}
