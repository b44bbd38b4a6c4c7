//! What each node of a tree measures, read from the measures of its leaves, so that an
//! integer–decimal–fraction conversion knows which nodes may leave the integers: an amount of
//! money, time, length, weight or volume may be in parts ("3 notebooks at $4.25" is $12.75), a
//! count may not ("$10 at $2.50 each" is 4 notebooks, and stays a whole number). A node this
//! reading cannot place (a rate of things per hour, a product of two lengths) keeps every
//! constraint of its original: the reading only ever frees a node it is sure of.

use crate::program::{BinOp, Func, Node, Program};
use crate::question::divisible::{Divisible, Measure};

/// What a node measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dim {
    /// A count, or a pure number (a unit constant, a ratio of two amounts of one measure).
    Count,
    /// An amount of one measure.
    Amount(Measure),
    /// A rate: an amount of the first measure per unit of the second ("$10 an hour").
    Per(Measure, Measure),
    /// Anything else.
    Other,
}

impl Dim {
    /// Whether a value of it may be in parts: an amount or a rate of something divisible.
    pub(super) fn divisible(self) -> bool {
        matches!(self, Dim::Amount(_) | Dim::Per(..))
    }
}

/// The dimension of every node, in the tree's order, given what each slot that measures
/// something divisible measures (a slot tied to another takes its leader's).
pub(super) fn node_dims(program: &Program, measures: &[(u32, Divisible)]) -> Vec<Dim> {
    let dim_of = |slot: u32| {
        let leader = program
            .ties
            .iter()
            .find(|t| t.slot == slot)
            .map_or(slot, |t| t.follows);
        measures
            .iter()
            .find(|(s, _)| *s == slot || *s == leader)
            .map_or(Dim::Count, |(_, d)| match d.per {
                Some(per) if per != d.measure => Dim::Per(d.measure, per),
                _ => Dim::Amount(d.measure),
            })
    };
    let mut dims: Vec<Dim> = Vec::with_capacity(program.nodes.len());
    for node in &program.nodes {
        let dim = match node {
            Node::Leaf { slot } => dim_of(*slot),
            Node::Const { .. } => Dim::Count,
            Node::Neg { arg } => dims[*arg as usize],
            Node::Bin { op, lhs, rhs } => bin(*op, dims[*lhs as usize], dims[*rhs as usize]),
            Node::Call { func, args } => call(*func, args.iter().map(|a| dims[*a as usize])),
        };
        dims.push(dim);
    }
    dims
}

fn bin(op: BinOp, a: Dim, b: Dim) -> Dim {
    use Dim::*;
    match (op, a, b) {
        (_, Other, _) | (_, _, Other) => Other,
        (BinOp::FloorDiv | BinOp::Mod | BinOp::Pow, _, _) => Other,
        (BinOp::Add | BinOp::Sub, Count, d) | (BinOp::Add | BinOp::Sub, d, Count) => d,
        (BinOp::Add | BinOp::Sub, d, e) => same(d, e),
        (BinOp::Mul, Count, d) | (BinOp::Mul, d, Count) => d,
        // A rate times the units it is per: "$10 an hour" for 4 hours is money.
        (BinOp::Mul, Per(m, n), Amount(k)) | (BinOp::Mul, Amount(k), Per(m, n)) if n == k => {
            Amount(m)
        }
        (BinOp::Mul, _, _) => Other,
        (BinOp::Div, d, Count) => d,
        // Two amounts of one measure divide into a count: how many things a sum buys.
        (BinOp::Div, Amount(m), Amount(n)) if m == n => Count,
        (BinOp::Div, Amount(m), Amount(n)) => Per(m, n),
        // An amount over its rate is the units it buys: $44 at $11 a pound is 4 pounds.
        (BinOp::Div, Amount(m), Per(k, n)) if m == k => Amount(n),
        (BinOp::Div, Per(m, n), Per(k, l)) if (m, n) == (k, l) => Count,
        (BinOp::Div, _, _) => Other,
    }
}

/// Two dimensions added or compared: one, or nothing this reading places.
fn same(d: Dim, e: Dim) -> Dim {
    if d == e {
        d
    } else {
        Dim::Other
    }
}

fn call(func: Func, mut args: impl Iterator<Item = Dim>) -> Dim {
    match func {
        // A rounded value is a count; a root or a power is no amount this reading places.
        Func::Round | Func::Int | Func::Ceil | Func::Floor => Dim::Count,
        Func::Sqrt | Func::Pow => Dim::Other,
        Func::Float | Func::Abs | Func::Min | Func::Max => {
            let first = args.next().unwrap_or(Dim::Count);
            args.fold(first, |acc, d| match (acc, d) {
                (Dim::Count, d) | (d, Dim::Count) => d,
                (d, e) => same(d, e),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attack::sample::tests::program;
    use crate::question::divisible::divisible_slots;
    use crate::question::find_slots;

    /// The dimension of the answer of `src` on question `q`, its measures read from the text.
    fn answer_dim(q: &str, src: &str, gold: &str) -> Dim {
        let (p, _) = program(q, src, gold);
        node_dims(&p, &divisible_slots(q, &find_slots(q)))[p.answer as usize]
    }

    #[test]
    fn a_price_times_a_count_is_money_and_money_over_money_a_count() {
        let q = "Ana buys 3 notebooks at $4 each. How much does she spend?";
        let src = "def solution():\n    n = 3\n    p = 4\n    return n * p\n";
        assert_eq!(answer_dim(q, src, "12"), Dim::Amount(Measure::Money));
        let q = "Ana has $20 and notebooks cost $4 each. How many can she buy?";
        let src = "def solution():\n    s = 20\n    p = 4\n    return s / p\n";
        assert_eq!(answer_dim(q, src, "5"), Dim::Count);
    }

    #[test]
    fn a_rate_times_its_units_is_an_amount() {
        let q = "He drives at 55 miles per hour for 4 hours. How far does he go?";
        let src = "def solution():\n    s = 55\n    h = 4\n    return s * h\n";
        assert_eq!(answer_dim(q, src, "220"), Dim::Amount(Measure::Length));
        let q = "Cheese is $11 per pound. How many pounds does $44 buy?";
        let src = "def solution():\n    p = 11\n    s = 44\n    return s / p\n";
        assert_eq!(answer_dim(q, src, "4"), Dim::Amount(Measure::Weight));
    }

    #[test]
    fn what_the_reading_cannot_place_keeps_its_constraints() {
        let q = "She bakes 12 cakes in 2 hours. How many cakes an hour?";
        let src = "def solution():\n    c = 12\n    h = 2\n    return c / h\n";
        assert_eq!(answer_dim(q, src, "6"), Dim::Other);
        let q = "A 5 pound bag is split into bags of 2 pounds. How many full bags?";
        let src = "def solution():\n    a = 5\n    b = 2\n    return a // b\n";
        assert_eq!(answer_dim(q, src, "2"), Dim::Other);
    }
}
