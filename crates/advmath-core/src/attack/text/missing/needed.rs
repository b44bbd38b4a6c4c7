//! Which numbers of a question its answer needs, as the program says: the ones `missing` may take
//! out.

use crate::num::Num;
use crate::program::{ConstKind, Node, Program};

/// Which of the question's slots the answer needs, under `values` (flags in slot order). A slot
/// is needed when the answer moves with it and nothing else in the question states it:
/// - a slot the program reads, tied to no other slot, whose value no slot the program leaves
///   unread shows (a number written twice for one quantity, read at one place only, is still
///   given at the other);
/// - a slot the program keeps as a stated constant (a number it uses at two places), when no
///   other slot of the question shows that value, so that the constant can only be this one.
pub fn needed_slots(program: &Program, values: &[Num]) -> Vec<bool> {
    let read = program.variable_slots();
    let tied = |i: u32| program.ties.iter().any(|t| t.slot == i || t.follows == i);
    let shown_elsewhere = |i: usize, unread_only: bool| {
        (0..values.len()).any(|j| {
            j != i
                && values[j].eq_num(values[i])
                && (!unread_only || read.binary_search(&(j as u32)).is_err())
        })
    };
    let answer = program.eval_value(values).ok();
    let moves = |changed: &Program, slots: &[Num]| {
        changed
            .eval_value(slots)
            .ok()
            .is_some_and(|a| Some(&a) != answer.as_ref())
    };
    let moved = |v: Num| {
        [
            v.add(Num::int(1)),
            v.mul(Num::int(2)).and_then(|d| d.add(Num::int(3))),
        ]
        .into_iter()
        .flatten()
    };
    (0..values.len())
        .map(|i| {
            let v = values[i];
            if read.binary_search(&(i as u32)).is_ok() {
                !tied(i as u32)
                    && !shown_elsewhere(i, true)
                    && moved(v).any(|w| {
                        let mut changed = values.to_vec();
                        changed[i] = w;
                        moves(program, &changed)
                    })
            } else {
                !shown_elsewhere(i, false)
                    && states(program, v)
                    && moved(v).any(|w| moves(&with_stated(program, v, w), values))
            }
        })
        .collect()
}

/// Whether the program keeps a number of the question of this value as a stated constant.
fn states(program: &Program, v: Num) -> bool {
    program
        .nodes
        .iter()
        .any(|n| matches!(n, Node::Const { value, kind: ConstKind::Stated(_) } if value.eq_num(v)))
}

/// The program with its stated constants of value `v` changed to `w`.
fn with_stated(program: &Program, v: Num, w: Num) -> Program {
    let mut changed = program.clone();
    for n in &mut changed.nodes {
        if let Node::Const {
            value,
            kind: ConstKind::Stated(_),
        } = n
        {
            if value.eq_num(v) {
                *value = w;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::needed_slots;

    const ANA: &str =
        "Ana buys 3 notebooks at $4 each and 2 pens at $1 each. How much does she spend?";

    fn needed(q: &str, src: &str, gold: &str) -> Vec<bool> {
        let (program, values) = crate::attack::sample::tests::program(q, src, gold);
        needed_slots(&program, &values)
    }

    #[test]
    fn a_number_is_needed_when_the_answer_moves_with_it_and_nothing_else_states_it() {
        assert_eq!(
            needed(
                ANA,
                "n = 3\np = 4\nk = 2\nq = 1\nprint(n * p + k * q)",
                "14"
            ),
            [true, true, true, true]
        );
        // Multiplied by nothing that moves: 0 times anything is 0.
        assert_eq!(
            needed(
                "She has 0 boxes of 6 pens and 5 pencils. How many?",
                "b = 0\np = 6\nc = 5\nprint(b * p + c)",
                "5"
            ),
            [true, false, true]
        );
        // "12 female lions, half as many male lions, and 14 cubs": a program that uses the 12
        // twice keeps it as a stated constant, which only the slot of that value can give.
        let stated = crate::program::Program::from_json(
            r#"{"nodes":[{"node":"const","value":"12","kind":"stated","detail":"12"},
            {"node":"const","value":"2","kind":"word","detail":"half"},
            {"node":"bin","op":"div","lhs":0,"rhs":1},
            {"node":"const","value":"12","kind":"stated","detail":"12"},
            {"node":"bin","op":"add","lhs":3,"rhs":2},{"node":"leaf","slot":1},
            {"node":"bin","op":"add","lhs":4,"rhs":5}],"answer":6}"#,
        )
        .unwrap();
        let (twelve, fourteen) = (crate::num::Num::int(12), crate::num::Num::int(14));
        assert_eq!(needed_slots(&stated, &[twelve, fourteen]), [true, true]);
        assert_eq!(
            needed_slots(&stated, &[twelve, fourteen, twelve]),
            [false, true, false],
            "two slots could give the constant"
        );
        // "He has 12 eggs and uses 5. Of the 12 eggs, ...": the program reads the first 12; the
        // second restates it, so neither is needed.
        let restated = crate::program::Program::from_json(
            r#"{"nodes":[{"node":"leaf","slot":0},{"node":"leaf","slot":1},
            {"node":"bin","op":"sub","lhs":0,"rhs":1}],"answer":2}"#,
        )
        .unwrap();
        let five = crate::num::Num::int(5);
        assert_eq!(
            needed_slots(&restated, &[twelve, five, twelve]),
            [false, true, false]
        );
    }
}
