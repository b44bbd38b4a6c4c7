//! Unit fractions the question writes ("1/6 of the cards") that a program divides by the
//! denominator alone: with [`Links::fractions`](super::Links) the division is by
//! `denominator / numerator`, so that a variant's "2/7" is computed as written.

use super::*;

/// Pairs (numerator slot, denominator slot) written as `a/b` in the question with `a == 1`.
fn unit_fractions(slots: &[Slot], question: &str) -> Vec<(u32, u32)> {
    slots
        .windows(2)
        .enumerate()
        .filter(|(_, w)| {
            !w[0].word
                && !w[1].word
                && w[0].value.eq_num(Num::ONE)
                && crate::cut::between(question, w[0].end, w[1].start) == "/"
        })
        .map(|(i, _)| (i as u32, i as u32 + 1))
        .collect()
}

pub(super) fn with_unit_fractions(
    builder: Builder,
    answer: NodeId,
    slots: &[Slot],
    question: &str,
) -> (Builder, NodeId) {
    let live = builder.clone().finish(answer);
    let linked = live.variable_slots();
    let rewrites: Vec<(u32, u32)> = unit_fractions(slots, question)
        .into_iter()
        .filter(|(a, b)| !linked.contains(a) && linked.contains(b))
        .collect();
    if rewrites.is_empty() {
        return (builder, answer);
    }
    let mut out = Builder::default();
    let mut remap: Vec<NodeId> = Vec::with_capacity(builder.nodes.len());
    for node in builder.nodes {
        let r = |x: NodeId| remap[x as usize];
        let id = match node {
            Node::Leaf { slot } => match rewrites.iter().find(|(_, b)| *b == slot) {
                Some(&(a, b)) => {
                    let den = out.push(Node::Leaf { slot: b });
                    let num = out.push(Node::Leaf { slot: a });
                    out.push(Node::Bin {
                        op: BinOp::Div,
                        lhs: den,
                        rhs: num,
                    })
                }
                None => out.push(Node::Leaf { slot }),
            },
            Node::Bin { op, lhs, rhs } => out.push(Node::Bin {
                op,
                lhs: r(lhs),
                rhs: r(rhs),
            }),
            Node::Neg { arg } => out.push(Node::Neg { arg: r(arg) }),
            Node::Call { func, args } => out.push(Node::Call {
                func,
                args: args.into_iter().map(r).collect(),
            }),
            other => out.push(other),
        };
        remap.push(id);
    }
    let answer = remap[answer as usize];
    (out, answer)
}
