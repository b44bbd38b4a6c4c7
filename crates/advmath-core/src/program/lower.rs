//! Lower a rustpython AST into a [`Builder`] tree over a whitelisted subset of Python.
//!
//! Straight-line arithmetic only: assignments, augmented assignments, `+ - * / // % **`, unary
//! minus, whitelisted calls, `print`, `import math` (and numpy or sympy imports nothing uses, see
//! `imports`). Loops, branches and comparisons are reported with their own failure kind (the
//! paper's taxonomy); anything else is `unsupported` with the construct named.
//! Literals are handed to a [`LiteralResolver`], which decides whether each is a question leaf, a
//! constant, or a reference to an earlier result.

use std::collections::HashMap;

use rustpython_parser::ast::{self, Constant, Expr, Ranged, Stmt};
use rustpython_parser::{parse, Mode};

mod imports;
mod pal;

use super::guard::check_size;
use super::tree::{BinOp, Builder, ConstKind, Func, Node, NodeId};
use super::{ErrorKind, ProgramError};
use crate::num::Num;

type Res<T> = std::result::Result<T, ProgramError>;

/// Decides what a numeric literal becomes. `ordinal` counts literals in source order.
pub trait LiteralResolver {
    fn literal(&mut self, ordinal: usize, value: Num, b: &mut Builder) -> Res<NodeId>;
}

/// Every literal is a plain constant; their values are recorded in source order.
#[derive(Default)]
pub struct RecordLiterals {
    pub values: Vec<Num>,
}

impl LiteralResolver for RecordLiterals {
    fn literal(&mut self, _ordinal: usize, value: Num, b: &mut Builder) -> Res<NodeId> {
        self.values.push(value);
        Ok(b.push(Node::Const {
            value,
            kind: ConstKind::Literal,
        }))
    }
}

/// One value a `print` shows.
#[derive(Clone, Debug)]
pub struct Shown {
    pub node: NodeId,
    /// Which `print` statement shows it (0 for the first).
    pub statement: usize,
    /// When the value is a call written in the print (`print(int(x))`), the values its arguments
    /// show, looking through calls written inside it too, in the order the authors' visitor
    /// (`generation/code_visitor.py`, `get_final_ans`) searches them; literals are skipped.
    pub inside: Vec<NodeId>,
}

/// Lowered program: the tree under construction and the expressions `print` shows, in order.
pub struct Lowered {
    pub builder: Builder,
    pub printed: Vec<Shown>,
    /// Final value of every assigned name, for programs that print nothing.
    pub names: HashMap<String, NodeId>,
    pub last_assigned: Option<NodeId>,
}

#[derive(Clone, Copy)]
enum Binding {
    Value(NodeId),
    NoneValue,
    MathModule,
    Function(Func),
    /// A module or name imported from a numeric library the reader does not model (numpy,
    /// sympy): harmless while unused, refused where the program uses it.
    Foreign(&'static str),
}

pub fn parse_module(source: &str) -> Res<Vec<Stmt>> {
    check_size(source)?;
    match parse(source, Mode::Module, "<program>") {
        Ok(ast::Mod::Module(m)) => Ok(m.body),
        Ok(_) => Err(ProgramError::new(ErrorKind::ParseError, "not a module")),
        Err(e) => Err(ProgramError::new(ErrorKind::ParseError, e.to_string())),
    }
}

pub fn parse_expression(source: &str) -> Res<Expr> {
    check_size(source)?;
    match parse(source, Mode::Expression, "<expression>") {
        Ok(ast::Mod::Expression(e)) => Ok(*e.body),
        Ok(_) => Err(ProgramError::new(
            ErrorKind::ParseError,
            "not an expression",
        )),
        Err(e) => Err(ProgramError::new(ErrorKind::ParseError, e.to_string())),
    }
}

pub struct Lowerer<'s, R> {
    source: &'s str,
    resolver: R,
    builder: Builder,
    env: HashMap<String, Binding>,
    ordinal: usize,
    printed: Vec<Shown>,
    print_statements: usize,
    last_assigned: Option<NodeId>,
}

impl<'s, R: LiteralResolver> Lowerer<'s, R> {
    /// `source` is the text the AST came from: literals are re-read from it exactly, because the
    /// parser hands floats over as `f64` (`0.1` would not be one tenth).
    pub fn new(source: &'s str, resolver: R) -> Self {
        Lowerer {
            source,
            resolver,
            builder: Builder::default(),
            env: HashMap::new(),
            ordinal: 0,
            printed: Vec::new(),
            print_statements: 0,
            last_assigned: None,
        }
    }

    /// Bind a name to an existing node (used by synthesis for earlier results).
    pub fn builder_mut(&mut self) -> &mut Builder {
        &mut self.builder
    }

    pub fn resolver_mut(&mut self) -> &mut R {
        &mut self.resolver
    }

    pub fn into_parts(self) -> (Lowered, R) {
        let names = self
            .env
            .into_iter()
            .filter_map(|(k, v)| match v {
                Binding::Value(id) => Some((k, id)),
                _ => None,
            })
            .collect();
        (
            Lowered {
                builder: self.builder,
                printed: self.printed,
                names,
                last_assigned: self.last_assigned,
            },
            self.resolver,
        )
    }

    pub fn module(&mut self, body: &[Stmt]) -> Res<()> {
        if let Some(f) = pal::solution_function(body) {
            return self.solution(body, f);
        }
        for stmt in body {
            self.stmt(stmt)?;
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt) -> Res<()> {
        match stmt {
            Stmt::Assign(a) => {
                if let Expr::Constant(c) = a.value.as_ref() {
                    if matches!(c.value, Constant::None) {
                        for t in &a.targets {
                            self.bind_target(t, Binding::NoneValue)?;
                        }
                        return Ok(());
                    }
                }
                if let (Some(Expr::Tuple(tt)), Expr::Tuple(vt)) =
                    (a.targets.first(), a.value.as_ref())
                {
                    if a.targets.len() == 1 && tt.elts.len() == vt.elts.len() {
                        let ids = vt
                            .elts
                            .iter()
                            .map(|e| self.expr(e))
                            .collect::<Res<Vec<_>>>()?;
                        for (t, id) in tt.elts.iter().zip(ids) {
                            self.bind_target(t, Binding::Value(id))?;
                        }
                        return Ok(());
                    }
                }
                let id = self.expr(&a.value)?;
                for t in &a.targets {
                    self.bind_target(t, Binding::Value(id))?;
                }
                self.last_assigned = Some(id);
                Ok(())
            }
            Stmt::AnnAssign(a) => match &a.value {
                Some(v) => {
                    let id = self.expr(v)?;
                    self.last_assigned = Some(id);
                    self.bind_target(&a.target, Binding::Value(id))
                }
                None => Ok(()),
            },
            Stmt::AugAssign(a) => {
                let current = self.expr(&a.target)?;
                let rhs = self.expr(&a.value)?;
                let op = binop(&a.op)?;
                let id = self.builder.push(Node::Bin {
                    op,
                    lhs: current,
                    rhs,
                });
                self.last_assigned = Some(id);
                self.bind_target(&a.target, Binding::Value(id))
            }
            Stmt::Expr(e) => self.expression_statement(&e.value),
            Stmt::Import(i) => self.import(i),
            Stmt::ImportFrom(i) => self.import_from(i),
            // An assertion checks, it does not compute: it cannot change the answer.
            Stmt::Assert(_) | Stmt::Pass(_) => Ok(()),
            Stmt::For(_) | Stmt::While(_) | Stmt::AsyncFor(_) => {
                Err(ProgramError::new(ErrorKind::HasLoop, "program has a loop"))
            }
            Stmt::If(_) | Stmt::Match(_) | Stmt::Try(_) | Stmt::TryStar(_) => Err(
                ProgramError::new(ErrorKind::HasBranch, "program has a branch (if/match/try)"),
            ),
            other => Err(unsupported(stmt_name(other))),
        }
    }

    fn bind_target(&mut self, target: &Expr, binding: Binding) -> Res<()> {
        match target {
            Expr::Name(n) => {
                self.env.insert(n.id.to_string(), binding);
                Ok(())
            }
            _ => Err(unsupported("assignment to something other than a name")),
        }
    }

    fn expression_statement(&mut self, e: &Expr) -> Res<()> {
        let Expr::Call(call) = e else {
            // A bare string (docstring) or name has no effect.
            return match e {
                Expr::Constant(_) | Expr::Name(_) => Ok(()),
                _ => Err(unsupported("expression statement")),
            };
        };
        match call.func.as_ref() {
            Expr::Name(n) if n.id.as_str() == "print" => {
                for arg in &call.args {
                    self.printed_values(arg, true)?;
                }
                self.print_statements += 1;
                Ok(())
            }
            _ => Err(unsupported("call whose result is discarded")),
        }
    }

    /// Numeric values shown by one `print` argument: a name or expression, f-string fields,
    /// `"...".format(x)`, and `str(x)` inside string concatenation. `look_through` says whether a
    /// call found here is searched inside (see [`Shown::inside`]): the authors' visitor does so
    /// for a call that is an argument of the print or of a call there (`format`, `str`), not for
    /// one in an f-string field or a concatenation.
    fn printed_values(&mut self, arg: &Expr, look_through: bool) -> Res<()> {
        match arg {
            Expr::Constant(c) if matches!(c.value, Constant::Str(_)) => Ok(()),
            Expr::JoinedStr(j) => {
                for v in &j.values {
                    if let Expr::FormattedValue(f) = v {
                        self.printed_values(&f.value, false)?;
                    }
                }
                Ok(())
            }
            Expr::Call(c) => {
                if let Expr::Attribute(attr) = c.func.as_ref() {
                    if attr.attr.as_str() == "format"
                        && matches!(attr.value.as_ref(), Expr::Constant(_))
                    {
                        for a in &c.args {
                            self.printed_values(a, look_through)?;
                        }
                        return Ok(());
                    }
                }
                if let Expr::Name(n) = c.func.as_ref() {
                    if n.id.as_str() == "str" && c.args.len() == 1 {
                        return self.printed_values(&c.args[0], look_through);
                    }
                }
                let id = self.expr(arg)?;
                let mut inside = Vec::new();
                if look_through {
                    self.shown_inside(arg, id, &mut inside);
                }
                self.show(id, inside);
                Ok(())
            }
            Expr::BinOp(b) if is_stringy(&b.left) || is_stringy(&b.right) => {
                self.printed_values(&b.left, false)?;
                self.printed_values(&b.right, false)
            }
            _ => {
                let id = self.expr(arg)?;
                self.show(id, Vec::new());
                Ok(())
            }
        }
    }

    fn show(&mut self, node: NodeId, inside: Vec<NodeId>) {
        self.printed.push(Shown {
            node,
            statement: self.print_statements,
            inside,
        });
    }

    /// The values shown inside the call `e` (lowered to `id`): its arguments in order, a call
    /// among them searched in turn instead of taken whole, literals skipped. `float(x)` is
    /// lowered to `x` itself, so it is searched through without a node of its own.
    fn shown_inside(&self, e: &Expr, id: NodeId, out: &mut Vec<NodeId>) {
        let Expr::Call(c) = e else {
            out.push(id);
            return;
        };
        match &self.builder.nodes[id as usize] {
            Node::Call { args, .. } if args.len() == c.args.len() => {
                for (a, &arg) in c.args.iter().zip(args) {
                    match a {
                        Expr::Constant(_) => {}
                        Expr::Call(_) => self.shown_inside(a, arg, out),
                        _ => out.push(arg),
                    }
                }
            }
            // float(x): the node is x's.
            _ if c.args.len() == 1 => match &c.args[0] {
                Expr::Constant(_) => {}
                inner @ Expr::Call(_) => self.shown_inside(inner, id, out),
                _ => out.push(id),
            },
            _ => {}
        }
    }

    pub fn expr(&mut self, e: &Expr) -> Res<NodeId> {
        match e {
            Expr::Constant(c) => match &c.value {
                Constant::Int(_) | Constant::Float(_) => {
                    // The parser's ranges are character boundaries of the source it parsed.
                    let range = c.range();
                    let text = crate::cut::between(
                        self.source,
                        range.start().to_usize(),
                        range.end().to_usize(),
                    );
                    let value = Num::parse_decimal(text).ok_or_else(|| {
                        ProgramError::new(ErrorKind::Unsupported, format!("numeric literal {text}"))
                    })?;
                    if value.is_exact() && value.to_f64().abs() > 1e15 {
                        return Err(unsupported(format!(
                            "numeric literal {text} is too large for a word problem"
                        )));
                    }
                    let ordinal = self.ordinal;
                    self.ordinal += 1;
                    self.resolver.literal(ordinal, value, &mut self.builder)
                }
                Constant::Bool(_) => Err(unsupported("boolean value")),
                Constant::None => Err(unsupported("None used as a number")),
                Constant::Str(_) => Err(unsupported("string used as a number")),
                _ => Err(unsupported("non-numeric constant")),
            },
            Expr::Name(n) => match self.env.get(n.id.as_str()) {
                Some(Binding::Value(id)) => Ok(*id),
                Some(Binding::NoneValue) => Err(unsupported(format!("{} is None", n.id))),
                Some(Binding::Foreign(library)) => Err(unsupported(format!(
                    "{} ({library} is not supported)",
                    n.id
                ))),
                Some(_) => Err(unsupported(format!("{} used as a number", n.id))),
                None => Err(unsupported(format!("undefined name {}", n.id))),
            },
            Expr::BinOp(b) => {
                let op = binop(&b.op)?;
                let lhs = self.expr(&b.left)?;
                let rhs = self.expr(&b.right)?;
                Ok(self.builder.push(Node::Bin { op, lhs, rhs }))
            }
            Expr::UnaryOp(u) => match u.op {
                ast::UnaryOp::USub => {
                    let arg = self.expr(&u.operand)?;
                    Ok(self.builder.push(Node::Neg { arg }))
                }
                ast::UnaryOp::UAdd => self.expr(&u.operand),
                ast::UnaryOp::Not => Err(unsupported("not")),
                ast::UnaryOp::Invert => Err(unsupported("~")),
            },
            Expr::Call(c) => self.call(c),
            Expr::Compare(_) => Err(ProgramError::new(
                ErrorKind::HasComparison,
                "program has a comparison",
            )),
            Expr::IfExp(_) => Err(ProgramError::new(
                ErrorKind::HasBranch,
                "program has a conditional expression",
            )),
            Expr::BoolOp(_) => Err(ProgramError::new(
                ErrorKind::HasComparison,
                "program has a boolean operation",
            )),
            Expr::ListComp(_) | Expr::GeneratorExp(_) | Expr::SetComp(_) | Expr::DictComp(_) => {
                Err(ProgramError::new(
                    ErrorKind::HasLoop,
                    "program has a comprehension",
                ))
            }
            other => Err(unsupported(expr_name(other))),
        }
    }

    fn call(&mut self, c: &ast::ExprCall) -> Res<NodeId> {
        let func = match c.func.as_ref() {
            Expr::Name(n) => match self.env.get(n.id.as_str()) {
                Some(Binding::Function(f)) => Some(*f),
                Some(_) => None,
                None if matches!(n.id.as_str(), "ceil" | "floor" | "sqrt") => None,
                None => Func::from_name(n.id.as_str()),
            },
            Expr::Attribute(a) => match a.value.as_ref() {
                Expr::Name(m)
                    if matches!(self.env.get(m.id.as_str()), Some(Binding::MathModule)) =>
                {
                    Func::from_name(&format!("math.{}", a.attr))
                }
                _ => None,
            },
            _ => None,
        };
        let Some(func) = func else {
            let name = call_name(self.source, c);
            return Err(unsupported(match self.foreign_library(&c.func) {
                Some(library) => format!("call of {name} ({library} is not supported)"),
                None => format!("call of {name}"),
            }));
        };
        if !c.keywords.is_empty() {
            return Err(unsupported(format!(
                "keyword arguments to {}",
                func.python_name()
            )));
        }
        if !func.arity_ok(c.args.len()) {
            return Err(unsupported(format!(
                "{} with {} arguments",
                func.python_name(),
                c.args.len()
            )));
        }
        let mut args = Vec::with_capacity(c.args.len());
        for (i, a) in c.args.iter().enumerate() {
            // round(x, 2): the number of decimals is part of the operation, never a quantity.
            if func == Func::Round && i == 1 {
                if let Expr::Constant(k) = a {
                    if let Constant::Int(v) = &k.value {
                        let d: i128 = v.to_string().parse().unwrap_or(0);
                        args.push(self.builder.push(Node::Const {
                            value: Num::int(d),
                            kind: ConstKind::Unit("decimal places".into()),
                        }));
                        continue;
                    }
                }
            }
            args.push(self.expr(a)?);
        }
        if func == Func::Float {
            return Ok(args[0]);
        }
        Ok(self.builder.push(Node::Call { func, args }))
    }
}

fn is_stringy(e: &Expr) -> bool {
    match e {
        Expr::Constant(c) => matches!(c.value, Constant::Str(_)),
        Expr::JoinedStr(_) => true,
        Expr::Call(c) => matches!(c.func.as_ref(), Expr::Name(n) if n.id.as_str() == "str"),
        Expr::BinOp(b) => is_stringy(&b.left) || is_stringy(&b.right),
        _ => false,
    }
}

fn binop(op: &ast::Operator) -> Res<BinOp> {
    Ok(match op {
        ast::Operator::Add => BinOp::Add,
        ast::Operator::Sub => BinOp::Sub,
        ast::Operator::Mult => BinOp::Mul,
        ast::Operator::Div => BinOp::Div,
        ast::Operator::FloorDiv => BinOp::FloorDiv,
        ast::Operator::Mod => BinOp::Mod,
        ast::Operator::Pow => BinOp::Pow,
        other => return Err(unsupported(format!("operator {other:?}"))),
    })
}

fn unsupported(what: impl Into<String>) -> ProgramError {
    ProgramError::new(ErrorKind::Unsupported, what)
}

fn call_name(source: &str, c: &ast::ExprCall) -> String {
    let r = c.func.range();
    source
        .get(r.start().to_usize()..r.end().to_usize())
        .unwrap_or("?")
        .to_string()
}

fn stmt_name(s: &Stmt) -> String {
    match s {
        Stmt::FunctionDef(f) => format!("def {}", f.name),
        Stmt::AsyncFunctionDef(f) => format!("async def {}", f.name),
        Stmt::ClassDef(c) => format!("class {}", c.name),
        Stmt::Return(_) => "return".into(),
        Stmt::Delete(_) => "del".into(),
        Stmt::With(_) | Stmt::AsyncWith(_) => "with".into(),
        Stmt::Raise(_) => "raise".into(),
        Stmt::Global(_) | Stmt::Nonlocal(_) => "global".into(),
        _ => "statement".into(),
    }
}

fn expr_name(e: &Expr) -> String {
    match e {
        Expr::Subscript(_) => "subscript".into(),
        Expr::List(_) => "list".into(),
        Expr::Tuple(_) => "tuple".into(),
        Expr::Dict(_) => "dict".into(),
        Expr::Set(_) => "set".into(),
        Expr::Lambda(_) => "lambda".into(),
        Expr::Attribute(a) => format!("attribute .{}", a.attr),
        Expr::JoinedStr(_) => "f-string used as a number".into(),
        Expr::Await(_) | Expr::Yield(_) | Expr::YieldFrom(_) => "generator or coroutine".into(),
        Expr::NamedExpr(_) => "walrus assignment".into(),
        Expr::Starred(_) => "starred expression".into(),
        Expr::Slice(_) => "slice".into(),
        _ => "expression".into(),
    }
}
