//! The links a solution cannot prove right, kept constant before any reading is settled: a
//! number that defines a unit, a number read again where a solution could mean a unit of its own,
//! a stated 1 that multiplies, divides or is the whole a share is added to, and a stated half
//! that multiplies or divides (its complement is the same number).

use super::super::links::UNIT_CONSTANTS;
use super::super::tree::{BinOp, ConstKind, Node, NodeId, Program};
use super::{distinguishing_draws, fraction_partner, leaves_of, DRAWS};
use crate::num::Num;
use crate::question::units::{unit_uses, UnitUse};
use crate::question::{is_percentage, Slot};

/// A number the question writes once that the program reads in more than one place ("2 wood
/// slats for every foot" read again as a rectangle's 2 sides) may stand for something the text
/// never writes in those places, when a solution could write it for a reason of its own (a pair,
/// a side count, 60 minutes: the values of [`UNIT_CONSTANTS`]): every use is then kept constant,
/// which is right whatever they mean. A value no such reason gives ($80,000 used for the price
/// and for its increase) is the same quantity each time.
pub(super) fn keep_reused_once_stated(program: &mut Program, slots: &[Slot], question: &str) {
    let mut uses = vec![0usize; slots.len()];
    for n in &program.nodes {
        if let Node::Leaf { slot } = n {
            uses[*slot as usize] += 1;
        }
    }
    for (slot, &n) in uses.iter().enumerate() {
        let s = &slots[slot];
        let once = !slots
            .iter()
            .enumerate()
            .any(|(j, o)| j != slot && !o.word && o.value.eq_num(s.value));
        let implicit = UNIT_CONSTANTS
            .iter()
            .any(|(v, _, _)| Num::parse_decimal(v).is_some_and(|u| u.eq_num(s.value)));
        if n < 2 || !once || !implicit {
            continue;
        }
        for u in leaves_of(program, &[slot as u32]) {
            program.nodes[u as usize] = Node::Const {
                value: s.value,
                kind: ConstKind::Stated(s.written_in(question).to_string()),
            };
        }
    }
}

/// Leaves of a stated 1 (not part of a fraction "1/4" or "3/1") that a program multiplies or
/// divides by, or that it adds a proper fraction to or takes one from, become constants: `1 + 0.2`
/// is the whole that "20% more" raises, which a question's "1 pound a day" equals by coincidence.
pub(super) fn keep_factor_ones(program: &mut Program, slots: &[Slot], question: &str) {
    // Each node's value on the question's own numbers (`None` past a node that fails).
    let originals: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let mut values = vec![Num::ZERO; program.nodes.len()];
    let evaluated = program.eval_into(&originals, &mut values).is_ok();
    let proper_fraction = |id: &NodeId| evaluated && values[*id as usize].is_proper_fraction();
    let in_fraction = |s: &Slot| {
        let digit = |c: char| c.is_ascii_digit();
        let before = crate::cut::before(question, s.start).trim_end_matches(' ');
        let after = crate::cut::after(question, s.end).trim_start_matches(' ');
        before
            .strip_suffix('/')
            .is_some_and(|numerator| numerator.ends_with(digit))
            || after
                .strip_prefix('/')
                .is_some_and(|denominator| denominator.starts_with(digit))
    };
    for (slot, s) in slots.iter().enumerate() {
        if !s.value.eq_num(Num::ONE) || in_fraction(s) {
            continue;
        }
        let uses = leaves_of(program, &[slot as u32]);
        let factor = program.nodes.iter().any(|n| match n {
            Node::Bin {
                op: BinOp::Mul | BinOp::Div | BinOp::FloorDiv,
                lhs,
                rhs,
            } => uses.contains(lhs) || uses.contains(rhs),
            Node::Bin {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                rhs,
            } => {
                (uses.contains(lhs) && proper_fraction(rhs))
                    || (uses.contains(rhs) && proper_fraction(lhs))
            }
            _ => false,
        });
        if !factor {
            continue;
        }
        for u in uses {
            program.nodes[u as usize] = Node::Const {
                value: s.value,
                kind: ConstKind::Stated(s.written_in(question).to_string()),
            };
        }
    }
}

/// The question's statements of one half as a share, each as the slots that write it: both parts
/// of a fraction "1/2" (or "2/4"; not the "1/2" of a mixed number "3 1/2"), or a percentage "50%"
/// (a decimal "0.5" is a measure, "0.5 hours", whose complement means nothing). Each comes with
/// the constants that complete it: a fraction's own parts, a percentage's 100 or 0.01.
fn stated_halves(slots: &[Slot], question: &str) -> Vec<(Vec<u32>, Vec<Num>)> {
    let half = Num::ratio(1, 2).expect("a nonzero denominator");
    let mut out = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        if is_percentage(question, s) && s.value.eq_num(Num::int(50)) {
            let hundredth = Num::ratio(1, 100).expect("a nonzero denominator");
            out.push((vec![i as u32], vec![Num::int(100), hundredth]));
            continue;
        }
        let Some((num, den)) = fraction_partner(slots, question, i).filter(|&(n, _)| n == i) else {
            continue;
        };
        let (n, d) = (slots[num].value, slots[den].value);
        if !n.div(d).is_ok_and(|f| f.eq_num(half)) {
            continue;
        }
        let mixed = num > 0
            && !slots[num - 1].word
            && crate::cut::between(question, slots[num - 1].end, s.start)
                .chars()
                .all(|c| c == ' ');
        if !mixed {
            out.push((vec![num as u32, den as u32], vec![n, d]));
        }
    }
    out
}

/// Leaves of a stated half that the program multiplies or divides by become constants: on the
/// original numbers `x * 1/2` and `x * (1 - 1/2)` agree, so a solution that took the complement
/// in its head ("1/2 of the cars had gone" answered with `70 * 1/2`, the cars left) cannot be
/// told from one that took the half, and a variant's "1/4" would inherit whichever it did. The
/// link stays where the program shows which it means: a share it adds to or takes from the
/// quantity it is a share of (`x - x * 50/100`, `x + x/2`, `1 - 1/2`), and a half it does not
/// multiply or divide by.
pub(super) fn keep_halves(program: &mut Program, slots: &[Slot], question: &str) {
    for (group, parts) in stated_halves(slots, question) {
        let leaves = leaves_of(program, &group);
        if leaves.is_empty() {
            continue;
        }
        let part = |id: &NodeId| {
            leaves.contains(id)
                || matches!(&program.nodes[*id as usize],
                    Node::Const { value, .. } if parts.iter().any(|p| p.eq_num(*value)))
        };
        // The nodes that compute the half itself (`1 / 2`, `50 / 100`): what reads them is what
        // reads the half.
        let whole: Vec<NodeId> = (0..program.nodes.len() as NodeId)
            .filter(|&i| {
                matches!(&program.nodes[i as usize],
                    Node::Bin { op: BinOp::Mul | BinOp::Div, lhs, rhs }
                        if part(lhs) && part(rhs) && (leaves.contains(lhs) || leaves.contains(rhs)))
            })
            .collect();
        let reads = |id: &NodeId| leaves.contains(id) || whole.contains(id);
        let factors: Vec<NodeId> = (0..program.nodes.len() as NodeId)
            .filter(|i| {
                !whole.contains(i)
                    && matches!(&program.nodes[*i as usize],
                        Node::Bin { op: BinOp::Mul | BinOp::Div | BinOp::FloorDiv, lhs, rhs }
                            if reads(lhs) || reads(rhs))
            })
            .collect();
        if factors.is_empty() {
            continue;
        }
        let explicit = explicit_shares(program, slots, &group, &leaves);
        let shown = factors
            .iter()
            .all(|f| explicit.iter().any(|&s| subtree(program, s).contains(f)));
        if shown {
            continue;
        }
        for u in leaves {
            let Node::Leaf { slot } = program.nodes[u as usize] else {
                continue;
            };
            let s = &slots[slot as usize];
            program.nodes[u as usize] = Node::Const {
                value: s.value,
                kind: ConstKind::Stated(s.written_in(question).to_string()),
            };
        }
    }
}

/// The nodes that compute a share `y * h` of the half `h` (the value `group` states) that the
/// program then adds to or takes from `y` itself, as functions of the question's numbers: on
/// distinguishing numbers, where `h` is no longer a half, the node is still `y * h`.
fn explicit_shares(
    program: &Program,
    slots: &[Slot],
    group: &[u32],
    leaves: &[NodeId],
) -> Vec<NodeId> {
    let originals: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let reads_half = |id: NodeId| subtree(program, id).iter().any(|n| leaves.contains(n));
    let mut evaluated = Vec::new();
    for mut draw in distinguishing_draws(&originals) {
        // A part of the half the program does not read keeps its value (the "1" of "1/2" kept
        // constant for another reason): the half then varies as the program sees it.
        for &g in group {
            if leaves_of(program, &[g]).is_empty() {
                draw[g as usize] = originals[g as usize];
            }
        }
        let h = match group {
            [p] => draw[*p as usize].div(Num::int(100)),
            [n, d] => draw[*n as usize].div(draw[*d as usize]),
            _ => continue,
        };
        let mut values = vec![Num::ZERO; program.nodes.len()];
        if let (Ok(h), Ok(())) = (h, program.eval_into(&draw, &mut values)) {
            evaluated.push((h, values));
        }
    }
    if evaluated.len() < DRAWS as usize {
        return Vec::new();
    }
    let mut out = Vec::new();
    for node in &program.nodes {
        let Node::Bin {
            op: BinOp::Add | BinOp::Sub,
            lhs,
            rhs,
        } = node
        else {
            continue;
        };
        for (share, of) in [(*lhs, *rhs), (*rhs, *lhs)] {
            let is_share = reads_half(share)
                && !reads_half(of)
                && evaluated.iter().all(|(h, v)| {
                    v[of as usize]
                        .mul(*h)
                        .is_ok_and(|y| y.eq_num(v[share as usize]))
                });
            if is_share {
                out.push(share);
            }
        }
    }
    out
}

/// Node `id` and every node it reads.
fn subtree(program: &Program, id: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if out.contains(&n) {
            continue;
        }
        out.push(n);
        match &program.nodes[n as usize] {
            Node::Bin { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            Node::Neg { arg } => stack.push(*arg),
            Node::Call { args, .. } => stack.extend(args),
            Node::Leaf { .. } | Node::Const { .. } => {}
        }
    }
    out
}

/// Leaves of slots that define a unit become constants.
pub(super) fn keep_unit_lengths(program: &mut Program, slots: &[Slot], question: &str) {
    for (slot, u) in unit_uses(question, slots) {
        let UnitUse::Defines(what) = u else { continue };
        for u in leaves_of(program, &[slot]) {
            program.nodes[u as usize] = Node::Const {
                value: slots[slot as usize].value,
                kind: ConstKind::Unit(what.to_string()),
            };
        }
    }
}
