//! Solution programs: parse Python into the project's own tree (never executing it), link its
//! literals to the question's numbers, and evaluate it exactly.

pub mod align;
pub mod guard;
pub mod links;
pub mod lower;
pub mod readings;
pub mod tree;

use std::fmt;

pub use align::validate_program;

/// The detail of a program whose answer, once linked, no number of the question feeds: nothing a
/// variant changes would reach it.
pub const NOTHING_VARIES: &str = "no number of the question feeds the answer";
pub use links::{AlignMode, Links};
pub use tree::{BinOp, Builder, ConstKind, Func, Node, NodeId, Program, Tie};

/// Why a problem's program cannot be attacked (the paper's failure taxonomy, section 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    HasLoop,
    HasBranch,
    HasComparison,
    WrongAnswer,
    NumberMisalignment,
    UnresolvedConstant,
    Unsupported,
    ParseError,
    /// The program exists but cannot be evaluated on the original numbers (division by zero).
    EvalError,
    /// No program: none given and none could be synthesised.
    MissingProgram,
    /// The problem row itself is unusable (no question, answer not a number).
    BadInput,
    /// The question writes a number in digits more often than the program uses it (appendix
    /// H.4, third case): the ignored number could depend on the others.
    UnusedNumber,
    /// A synthesised step's operand could be more than one earlier quantity of the same value,
    /// and the readings give different answers.
    AmbiguousOperand,
    /// Validating the problem hit a bug in advmath (a panic); the detail says where.
    Internal,
    /// The dataset's answer contradicts its own question (a known error of the dataset): no
    /// program that gives it can give a variant's gold, and no other answer is invented.
    WrongLabel,
}

impl ErrorKind {
    /// Every kind, so that one read back from a table by its name is found.
    pub const ALL: [ErrorKind; 15] = [
        ErrorKind::HasLoop,
        ErrorKind::HasBranch,
        ErrorKind::HasComparison,
        ErrorKind::WrongAnswer,
        ErrorKind::NumberMisalignment,
        ErrorKind::UnresolvedConstant,
        ErrorKind::Unsupported,
        ErrorKind::ParseError,
        ErrorKind::EvalError,
        ErrorKind::MissingProgram,
        ErrorKind::BadInput,
        ErrorKind::UnusedNumber,
        ErrorKind::AmbiguousOperand,
        ErrorKind::Internal,
        ErrorKind::WrongLabel,
    ];

    /// The kind a table names, if any.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::HasLoop => "has_loop",
            ErrorKind::HasBranch => "has_branch",
            ErrorKind::HasComparison => "has_comparison",
            ErrorKind::WrongAnswer => "wrong_answer",
            ErrorKind::NumberMisalignment => "number_misalignment",
            ErrorKind::UnresolvedConstant => "unresolved_constant",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::ParseError => "parse_error",
            ErrorKind::EvalError => "eval_error",
            ErrorKind::MissingProgram => "missing_program",
            ErrorKind::BadInput => "bad_input",
            ErrorKind::UnusedNumber => "unused_number",
            ErrorKind::AmbiguousOperand => "ambiguous_operand",
            ErrorKind::Internal => "internal_error",
            ErrorKind::WrongLabel => "wrong_label",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rejected program: the kind, and a sentence a person can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    pub kind: ErrorKind,
    pub detail: String,
}

impl ProgramError {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        ProgramError {
            kind,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

impl std::error::Error for ProgramError {}

#[cfg(test)]
mod kind_tests {
    use super::ErrorKind;

    #[test]
    fn every_kind_reads_back_by_its_name() {
        // Exhaustive, so a new kind must be placed here, and then in `ALL`.
        let listed = |k: ErrorKind| match k {
            ErrorKind::HasLoop
            | ErrorKind::HasBranch
            | ErrorKind::HasComparison
            | ErrorKind::WrongAnswer
            | ErrorKind::NumberMisalignment
            | ErrorKind::UnresolvedConstant
            | ErrorKind::Unsupported
            | ErrorKind::ParseError
            | ErrorKind::EvalError
            | ErrorKind::MissingProgram
            | ErrorKind::BadInput
            | ErrorKind::UnusedNumber
            | ErrorKind::AmbiguousOperand
            | ErrorKind::Internal
            | ErrorKind::WrongLabel => ErrorKind::ALL.contains(&k),
        };
        for k in ErrorKind::ALL {
            assert!(listed(k));
            assert_eq!(ErrorKind::from_name(k.as_str()), Some(k));
        }
        assert!(listed(ErrorKind::WrongLabel));
        assert_eq!(ErrorKind::from_name("no_such_kind"), None);
    }
}
