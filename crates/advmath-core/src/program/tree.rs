//! The solution tree: a DAG of operations over numeric leaves, stored in topological order.
//!
//! Nodes only point at earlier nodes, so one forward pass evaluates the whole program into a
//! caller-owned buffer: no recursion, no allocation, which is what the generation loop needs.

use serde::{Deserialize, Serialize};

use crate::num::wide::{Value, Wide};
use crate::num::{EvalError, Num};

pub type NodeId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
        }
    }

    pub fn apply(self, a: Num, b: Num) -> Result<Num, EvalError> {
        match self {
            BinOp::Add => a.add(b),
            BinOp::Sub => a.sub(b),
            BinOp::Mul => a.mul(b),
            BinOp::Div => a.div(b),
            BinOp::FloorDiv => a.floordiv(b),
            BinOp::Mod => a.rem(b),
            BinOp::Pow => {
                // An exact power checks its own range; a float exponent that large is no word
                // problem, and powf on it is slow in the hot loop.
                if !b.is_exact() && b.to_f64().abs() > 64.0 {
                    return Err(EvalError::Domain);
                }
                a.pow(b)
            }
        }
    }

    /// [`BinOp::apply`] on wide values.
    pub fn apply_wide(self, a: &Wide, b: &Wide) -> Result<Wide, EvalError> {
        match self {
            BinOp::Add => a.add(b),
            BinOp::Sub => a.sub(b),
            BinOp::Mul => a.mul(b),
            BinOp::Div => a.div(b),
            BinOp::FloorDiv => a.floordiv(b),
            BinOp::Mod => a.rem(b),
            BinOp::Pow => a.pow(b),
        }
    }
}

/// Whitelisted functions. Anything else in a program is `unsupported`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Func {
    Round,
    Int,
    Float,
    Abs,
    Min,
    Max,
    Ceil,
    Floor,
    Sqrt,
    Pow,
}

impl Func {
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "round" => Func::Round,
            "int" => Func::Int,
            "float" => Func::Float,
            "abs" => Func::Abs,
            "min" => Func::Min,
            "max" => Func::Max,
            "ceil" | "math.ceil" => Func::Ceil,
            "floor" | "math.floor" => Func::Floor,
            "sqrt" | "math.sqrt" => Func::Sqrt,
            "pow" | "math.pow" => Func::Pow,
            _ => return None,
        })
    }

    pub fn python_name(self) -> &'static str {
        match self {
            Func::Round => "round",
            Func::Int => "int",
            Func::Float => "float",
            Func::Abs => "abs",
            Func::Min => "min",
            Func::Max => "max",
            Func::Ceil => "math.ceil",
            Func::Floor => "math.floor",
            Func::Sqrt => "math.sqrt",
            Func::Pow => "pow",
        }
    }

    /// Allowed argument counts.
    pub fn arity_ok(self, n: usize) -> bool {
        match self {
            Func::Round => n == 1 || n == 2,
            Func::Min | Func::Max => n >= 1,
            Func::Pow => n == 2,
            _ => n == 1,
        }
    }

    pub fn apply(self, args: &[Num]) -> Result<Num, EvalError> {
        let a = args[0];
        match self {
            Func::Round => {
                let nd = match args.get(1) {
                    Some(d) => d.as_integer().ok_or(EvalError::Domain)? as i32,
                    None => 0,
                };
                a.round(nd)
            }
            Func::Int => Ok(a.trunc()),
            Func::Float => Ok(a),
            Func::Abs => Ok(a.abs()),
            Func::Min => Ok(args[1..].iter().fold(a, |m, &x| m.min(x))),
            Func::Max => Ok(args[1..].iter().fold(a, |m, &x| m.max(x))),
            Func::Ceil => Ok(a.ceil()),
            Func::Floor => Ok(a.floor()),
            Func::Sqrt => a.sqrt(),
            Func::Pow => BinOp::Pow.apply(a, args[1]),
        }
    }

    /// [`Func::apply`] on wide values.
    pub fn apply_wide(self, args: &[Wide]) -> Result<Wide, EvalError> {
        let a = &args[0];
        match self {
            Func::Round => {
                let nd = match args.get(1) {
                    Some(d) => d
                        .to_num()
                        .and_then(Num::as_integer)
                        .and_then(|d| i32::try_from(d).ok())
                        .ok_or(EvalError::Domain)?,
                    None => 0,
                };
                a.round(nd)
            }
            Func::Int => Ok(a.trunc()),
            Func::Float => Ok(a.clone()),
            Func::Abs => Ok(a.abs()),
            Func::Min => Ok(args[1..].iter().fold(a.clone(), |m, x| m.min(x.clone()))),
            Func::Max => Ok(args[1..].iter().fold(a.clone(), |m, x| m.max(x.clone()))),
            Func::Ceil => Ok(a.ceil()),
            Func::Floor => Ok(a.floor()),
            Func::Sqrt => a.sqrt(),
            Func::Pow => a.pow(&args[1]),
        }
    }
}

/// Why a literal that is not a question number may stand in a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum ConstKind {
    /// A literal of a given program whose value is not among the question's numbers (paper rule).
    Literal,
    /// A number written as a word in the question ("three", "half", "dozen").
    Word(String),
    /// A documented unit constant (60 minutes, 100 percent, ...).
    Unit(String),
    /// A number the question states, kept as written because it cannot be linked to one place
    /// of the question with certainty ("2" stated twice), or a percentage of it written as a
    /// fraction ("20%" for `0.2`).
    Stated(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "node")]
pub enum Node {
    /// A variable leaf: the value of question slot `slot`.
    Leaf {
        slot: u32,
    },
    Const {
        #[serde(with = "num_text")]
        value: Num,
        #[serde(flatten)]
        kind: ConstKind,
    },
    Bin {
        op: BinOp,
        lhs: NodeId,
        rhs: NodeId,
    },
    Neg {
        arg: NodeId,
    },
    Call {
        func: Func,
        args: Vec<NodeId>,
    },
}

/// A validated solution program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Program {
    /// Topological order: every child index is smaller than its parent's.
    pub nodes: Vec<Node>,
    pub answer: NodeId,
    /// Question slots that always show another slot's value: the occurrences of a number the
    /// question writes more than once whose readings give different answers are tied to one new
    /// value, so that every reading of the variant has the one gold answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ties: Vec<Tie>,
}

/// Slot `slot` shows the value of slot `follows` (a variable leaf of the tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tie {
    pub slot: u32,
    pub follows: u32,
}

impl Program {
    /// Evaluate every node; `slots` holds the current value of each question slot.
    /// `out` must have `nodes.len()` entries. Stops at the first arithmetic error.
    #[inline]
    pub fn eval_into(&self, slots: &[Num], out: &mut [Num]) -> Result<(), EvalError> {
        for i in 0..self.nodes.len() {
            out[i] = self.eval_node(i, slots, out)?;
        }
        Ok(())
    }

    /// The value of node `i`, given the values of all earlier nodes in `done`.
    #[inline]
    pub fn eval_node(&self, i: usize, slots: &[Num], done: &[Num]) -> Result<Num, EvalError> {
        match &self.nodes[i] {
            Node::Leaf { slot } => Ok(slots[*slot as usize]),
            Node::Const { value, .. } => Ok(*value),
            Node::Bin { op, lhs, rhs } => op.apply(done[*lhs as usize], done[*rhs as usize]),
            Node::Neg { arg } => Ok(done[*arg as usize].neg()),
            Node::Call { func, args } => {
                let mut buf = [Num::ZERO; 8];
                if args.len() <= buf.len() {
                    for (b, &a) in buf.iter_mut().zip(args) {
                        *b = done[a as usize];
                    }
                    func.apply(&buf[..args.len()])
                } else {
                    let v: Vec<Num> = args.iter().map(|&a| done[a as usize]).collect();
                    func.apply(&v)
                }
            }
        }
    }

    /// Evaluate and return the answer.
    pub fn eval(&self, slots: &[Num]) -> Result<Num, EvalError> {
        let mut out = vec![Num::ZERO; self.nodes.len()];
        self.eval_into(slots, &mut out)?;
        Ok(out[self.answer as usize])
    }

    /// Every node's value with big integers (for a tree whose values leave the 128-bit range);
    /// an irrational value is [`EvalError::Domain`].
    pub fn eval_wide(&self, slots: &[Num]) -> Result<Vec<Wide>, EvalError> {
        let mut out: Vec<Wide> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let v = match node {
                Node::Leaf { slot } => Wide::from_num(slots[*slot as usize])?,
                Node::Const { value, .. } => Wide::from_num(*value)?,
                Node::Bin { op, lhs, rhs } => {
                    op.apply_wide(&out[*lhs as usize], &out[*rhs as usize])?
                }
                Node::Neg { arg } => out[*arg as usize].neg(),
                Node::Call { func, args } => {
                    let args: Vec<Wide> = args.iter().map(|&a| out[a as usize].clone()).collect();
                    func.apply_wide(&args)?
                }
            };
            out.push(v);
        }
        Ok(out)
    }

    /// The answer, exactly: with `i128` rationals, or with big integers when they overflow.
    pub fn eval_value(&self, slots: &[Num]) -> Result<Value, EvalError> {
        match self.eval(slots) {
            Err(EvalError::Overflow) => {
                let mut values = self.eval_wide(slots)?;
                Ok(Value::Wide(values.swap_remove(self.answer as usize)))
            }
            other => other.map(Value::Num),
        }
    }

    /// Copy each tied slot's leader into it.
    #[inline]
    pub fn apply_ties(&self, slots: &mut [Num]) {
        for t in &self.ties {
            slots[t.slot as usize] = slots[t.follows as usize];
        }
    }

    /// Question slots that feed the answer, in increasing order (a tied slot shows a leaf's
    /// value but is not one).
    pub fn variable_slots(&self) -> Vec<u32> {
        let mut s: Vec<u32> = self
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Leaf { slot } => Some(*slot),
                _ => None,
            })
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a program always serialises")
    }

    pub fn from_json(text: &str) -> serde_json::Result<Program> {
        serde_json::from_str(text)
    }

    /// Python source equivalent to the tree, one assignment per operation (used for synthesised
    /// programs, so that every stored program is readable and re-parseable).
    pub fn to_python(&self, slot_values: &[Num]) -> String {
        let mut out = String::new();
        let mut names: Vec<String> = Vec::with_capacity(self.nodes.len());
        let mut step = 0;
        for node in &self.nodes {
            let expr = match node {
                Node::Leaf { slot } => {
                    names.push(slot_values[*slot as usize].to_string());
                    continue;
                }
                Node::Const { value, .. } => {
                    names.push(value.to_string());
                    continue;
                }
                Node::Bin { op, lhs, rhs } => format!(
                    "{} {} {}",
                    names[*lhs as usize],
                    op.symbol(),
                    names[*rhs as usize]
                ),
                Node::Neg { arg } => format!("-{}", names[*arg as usize]),
                Node::Call { func, args } => format!(
                    "{}({})",
                    func.python_name(),
                    args.iter()
                        .map(|&a| names[a as usize].as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            step += 1;
            let name = format!("step{step}");
            out.push_str(&format!("{name} = {expr}\n"));
            names.push(name);
        }
        let uses_math = self.nodes.iter().any(
            |n| matches!(n, Node::Call { func, .. } if func.python_name().starts_with("math.")),
        );
        if uses_math {
            out.insert_str(0, "import math\n");
        }
        out.push_str(&format!("print({})\n", names[self.answer as usize]));
        out
    }
}

/// Builds a tree bottom-up; nodes are appended, so the order is topological by construction.
#[derive(Default, Debug, Clone)]
pub struct Builder {
    pub nodes: Vec<Node>,
}

impl Builder {
    pub fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    /// Keep only the nodes the answer depends on, renumbered in the same order.
    pub fn finish(self, answer: NodeId) -> Program {
        let n = self.nodes.len();
        let mut live = vec![false; n];
        live[answer as usize] = true;
        for i in (0..n).rev() {
            if !live[i] {
                continue;
            }
            match &self.nodes[i] {
                Node::Bin { lhs, rhs, .. } => {
                    live[*lhs as usize] = true;
                    live[*rhs as usize] = true;
                }
                Node::Neg { arg } => live[*arg as usize] = true,
                Node::Call { args, .. } => args.iter().for_each(|&a| live[a as usize] = true),
                _ => {}
            }
        }
        let mut remap = vec![u32::MAX; n];
        let mut nodes = Vec::new();
        for (i, node) in self.nodes.into_iter().enumerate() {
            if !live[i] {
                continue;
            }
            remap[i] = nodes.len() as u32;
            let r = |x: NodeId| remap[x as usize];
            nodes.push(match node {
                Node::Bin { op, lhs, rhs } => Node::Bin {
                    op,
                    lhs: r(lhs),
                    rhs: r(rhs),
                },
                Node::Neg { arg } => Node::Neg { arg: r(arg) },
                Node::Call { func, args } => Node::Call {
                    func,
                    args: args.into_iter().map(r).collect(),
                },
                other => other,
            });
        }
        Program {
            nodes,
            answer: remap[answer as usize],
            ties: Vec::new(),
        }
    }
}

/// Numbers travel as exact text: `"7"`, `"2.5"`, `"10/3"`, or a float's shortest repr.
pub mod num_text {
    use crate::num::Num;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn to_text(v: &Num) -> String {
        v.exact_text()
    }

    pub fn from_text(s: &str) -> Option<Num> {
        match s.split_once('/') {
            Some((n, d)) => Num::ratio(n.parse().ok()?, d.parse().ok()?),
            // A decimal past the 128-bit range is no `Num` (it is a `Wide`), never a float.
            None => {
                Num::parse_decimal(s).or_else(|| match crate::num::wide::Wide::parse_decimal(s) {
                    Some(_) => None,
                    None => s.parse::<f64>().ok().map(Num::Float),
                })
            }
        }
    }

    pub fn serialize<S: Serializer>(v: &Num, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_text(v))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        let s = String::deserialize(d)?;
        from_text(&s).ok_or_else(|| serde::de::Error::custom(format!("not a number: {s}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_prunes_dead_nodes_and_keeps_order() {
        let mut b = Builder::default();
        let a = b.push(Node::Leaf { slot: 0 });
        let _dead = b.push(Node::Leaf { slot: 1 });
        let c = b.push(Node::Const {
            value: Num::int(3),
            kind: ConstKind::Literal,
        });
        let m = b.push(Node::Bin {
            op: BinOp::Mul,
            lhs: a,
            rhs: c,
        });
        let p = b.finish(m);
        assert_eq!(p.nodes.len(), 3);
        assert_eq!(p.answer, 2);
        assert_eq!(p.eval(&[Num::int(4), Num::int(9)]).unwrap(), Num::int(12));
        assert_eq!(p.variable_slots(), vec![0]);
        let back = Program::from_json(&p.to_json()).unwrap();
        assert_eq!(back, p);
        assert_eq!(p.to_python(&[Num::int(4)]), "step1 = 4 * 3\nprint(step1)\n");
    }
}
