//! Why a problem the published programs were offered to is still without a valid program: of
//! its candidates, the one nearest to being taken, and whose rule stops it. The coverage report
//! counts these per dataset, so a reader can tell the problems the paper's own rules refuse
//! from those advmath's further checks refuse, and which option would change what.

use std::fmt;

use crate::program::readings::NEVER_USED;
use crate::program::{ErrorKind, ProgramError, NOTHING_VARIES};

/// What stops a candidate program, from nearest to being taken to farthest. A problem's
/// shortfall is its candidates' smallest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shortfall {
    /// Valid, but no program of another source gives its answer on every set of distinguishing
    /// numbers (advmath: a program alone may match the gold by coincidence).
    Unconfirmed,
    /// Reads a question number of the value of a unit the question names ("2 boxes" beside
    /// "pair"), where the unit may be meant (advmath).
    UnitReading,
    /// A constant the question does not explain, which may be a result computed from the
    /// question's numbers (advmath).
    UnexplainedConstant,
    /// A question number in digits the program never writes (H.4's third case as its text
    /// reads; the authors' code would keep it constant instead).
    IgnoresNumber,
    /// Writes a question number more often than the question does; the readings of the extra
    /// literals are none or several of them confirmed (the paper's counting refuses it outright;
    /// advmath's readings could not decide).
    UndecidedReading,
    /// Once linked, no number of the question feeds the answer: it writes them in words, or
    /// only numbers that stay constant (unit lengths, a factor of 1, a half).
    NothingVaries,
    /// A question number the program writes fewer or more times than the question (appendix
    /// H.4's counting).
    CountsDiffer,
    /// Computes no gold answer in the interpreted subset (a wrong answer, a truncated or
    /// unparsable script, a construct outside the subset), or the gold is a known wrong label.
    NoGold,
}

impl Shortfall {
    pub const ALL: [Shortfall; 8] = [
        Shortfall::Unconfirmed,
        Shortfall::UnitReading,
        Shortfall::UnexplainedConstant,
        Shortfall::IgnoresNumber,
        Shortfall::UndecidedReading,
        Shortfall::NothingVaries,
        Shortfall::CountsDiffer,
        Shortfall::NoGold,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Shortfall::Unconfirmed => "unconfirmed",
            Shortfall::UnitReading => "unit_reading",
            Shortfall::UnexplainedConstant => "unexplained_constant",
            Shortfall::UndecidedReading => "undecided_reading",
            Shortfall::NothingVaries => "nothing_varies",
            Shortfall::CountsDiffer => "counts_differ",
            Shortfall::IgnoresNumber => "ignores_number",
            Shortfall::NoGold => "no_gold",
        }
    }

    /// What the class means, for the report's table.
    pub fn meaning(self) -> &'static str {
        match self {
            Shortfall::Unconfirmed => {
                "a valid program that no program of another source confirms"
            }
            Shortfall::UnitReading => {
                "gives the gold, but reads a question number of a unit's value the question names"
            }
            Shortfall::UnexplainedConstant => {
                "gives the gold, but writes a constant the question does not explain"
            }
            Shortfall::UndecidedReading => {
                "gives the gold, writes a question number more often than the question; no single reading confirmed"
            }
            Shortfall::NothingVaries => {
                "gives the gold, but no number written in digits feeds its answer"
            }
            Shortfall::CountsDiffer => {
                "gives the gold, but writes a question number fewer or more times than the question"
            }
            Shortfall::IgnoresNumber => {
                "gives the gold, but never writes a number the question writes in digits"
            }
            Shortfall::NoGold => {
                "no program computes the gold in the interpreted subset, or the gold is a label the question contradicts"
            }
        }
    }

    /// Whose rule refuses, and what would change it.
    pub fn rule(self) -> &'static str {
        match self {
            Shortfall::Unconfirmed => "advmath: a second program (a lone program's blind audit: 10 wrong golds in 100)",
            Shortfall::UnitReading => "advmath: unit readings (`reports/gold_audit.md`)",
            Shortfall::UnexplainedConstant => {
                "advmath: explained constants (a hard-coded result is wrong on variants)"
            }
            Shortfall::UndecidedReading => {
                "paper H.4 (refuses it); advmath's readings need one confirmed"
            }
            Shortfall::NothingVaries => "paper alignment (digits); `--link number-words` may link words",
            Shortfall::CountsDiffer => "paper H.4 (its code too)",
            Shortfall::IgnoresNumber => "paper H.4's text (its code keeps the number constant); `--link percentages,fractions` may link `0.2` for 20%",
            Shortfall::NoGold => "A.1: the program must reproduce the gold; advmath's errata",
        }
    }

    /// A refused candidate's shortfall, from its error and whether it came from advmath's checks
    /// beyond a given program's or from choosing among its readings.
    pub fn of_error(error: &ProgramError, stage: Stage) -> Shortfall {
        match stage {
            Stage::Readings => return Shortfall::UndecidedReading,
            Stage::Explained => {
                return match error.kind {
                    ErrorKind::AmbiguousOperand => Shortfall::UnitReading,
                    _ => Shortfall::UnexplainedConstant,
                }
            }
            Stage::Validation => {}
        }
        match error.kind {
            ErrorKind::NumberMisalignment if error.detail == NOTHING_VARIES => {
                Shortfall::NothingVaries
            }
            ErrorKind::NumberMisalignment => Shortfall::CountsDiffer,
            ErrorKind::UnusedNumber if error.detail.ends_with(NEVER_USED) => {
                Shortfall::IgnoresNumber
            }
            ErrorKind::UnusedNumber => Shortfall::CountsDiffer,
            ErrorKind::UnresolvedConstant => Shortfall::UnexplainedConstant,
            ErrorKind::AmbiguousOperand => Shortfall::UnitReading,
            ErrorKind::HasLoop
            | ErrorKind::HasBranch
            | ErrorKind::HasComparison
            | ErrorKind::WrongAnswer
            | ErrorKind::Unsupported
            | ErrorKind::ParseError
            | ErrorKind::EvalError
            | ErrorKind::MissingProgram
            | ErrorKind::BadInput
            | ErrorKind::Internal
            | ErrorKind::WrongLabel => Shortfall::NoGold,
        }
    }
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a candidate's verdict was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Validated as a given program: parsed, gold reproduced, aligned (the paper's checks).
    Validation,
    /// Held to what a published program must show besides.
    Explained,
    /// Choosing among the readings of extra literals.
    Readings,
}

/// A problem still without a valid program after its candidates were judged: its nearest
/// candidate's shortfall and that candidate's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProblemShortfall {
    pub shortfall: Shortfall,
    pub source: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_s_counting_and_advmath_s_checks_are_told_apart() {
        use ErrorKind as K;
        use Shortfall as S;
        use Stage::{Explained, Readings, Validation};
        let counts = "3 appears 2 time(s) in the question and 1 time(s) in the program";
        let cases = [
            (K::NumberMisalignment, counts, Validation, S::CountsDiffer),
            (
                K::UnusedNumber,
                "8 appears 2 time(s) in the question and the program uses it 1 time(s)",
                Validation,
                S::CountsDiffer,
            ),
            (
                K::UnusedNumber,
                "1 appears 1 time(s) in the question and the program uses it 0 time(s)",
                Validation,
                S::IgnoresNumber,
            ),
            (
                K::NumberMisalignment,
                NOTHING_VARIES,
                Validation,
                S::NothingVaries,
            ),
            (K::NumberMisalignment, counts, Readings, S::UndecidedReading),
            (
                K::UnresolvedConstant,
                "5 is not a question number",
                Explained,
                S::UnexplainedConstant,
            ),
            (
                K::AmbiguousOperand,
                "the question's 2 could mean a pair",
                Explained,
                S::UnitReading,
            ),
            (
                K::WrongAnswer,
                "program prints 3, expected 4",
                Validation,
                S::NoGold,
            ),
            (K::Unsupported, "list", Validation, S::NoGold),
            (K::ParseError, "invalid syntax", Validation, S::NoGold),
            (K::HasLoop, "for", Validation, S::NoGold),
            (
                K::WrongLabel,
                "contradicts its question",
                Validation,
                S::NoGold,
            ),
        ];
        for (kind, detail, stage, expected) in cases {
            let error = ProgramError::new(kind, detail.to_string());
            assert_eq!(
                S::of_error(&error, stage),
                expected,
                "{kind:?} {detail:?} {stage:?}"
            );
        }
        assert!(S::ALL.windows(2).all(|w| w[0] < w[1]));
    }
}
