//! Program-of-thought programs in the form PAL and most PoT datasets ship: one function
//! without parameters (`def solution():`) that assigns locals and ends with `return <answer>`,
//! maybe called by `print(solution())`, `ans = solution()` (Program-of-Thoughts) or
//! `x = solution()` then `print(x)` (ToRA). Its body is read as the script the Xie release writes,
//! with the same whitelist, and its `return` as that script's final `print`.

use rustpython_parser::ast::{Expr, Stmt, StmtFunctionDef};

use super::{unsupported, LiteralResolver, Lowerer, Res};

/// The one function of a PAL program, when `body` is one: a function without parameters or
/// decorators, beside nothing but docstrings, imports and calls of it (bare, printed, assigned,
/// or assigned and the name printed). `None` for a script, and for anything else, which the
/// script reader refuses as it always has.
pub(super) fn solution_function(body: &[Stmt]) -> Option<&StmtFunctionDef> {
    let mut function = None;
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(f) if function.is_none() => function = Some(f),
            _ => {}
        }
    }
    let f = function?;
    let a = &f.args;
    let plain = a.posonlyargs.is_empty()
        && a.args.is_empty()
        && a.vararg.is_none()
        && a.kwonlyargs.is_empty()
        && a.kwarg.is_none()
        && f.decorator_list.is_empty();
    let calls_it = |e: &Expr| match e {
        Expr::Call(c) => {
            c.args.is_empty() && matches!(c.func.as_ref(), Expr::Name(n) if n.id == f.name)
        }
        _ => false,
    };
    // Names bound to the function's result so far (`x = solution()`): printing one is printing
    // the result, the way ToRA's programs end (`x = f()` then `print(x)`).
    let mut results: Vec<&str> = Vec::new();
    let mut around = true;
    for s in body {
        around &= match s {
            Stmt::FunctionDef(g) => std::ptr::eq(g, f),
            Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::Pass(_) => true,
            Stmt::Expr(e) => match e.value.as_ref() {
                Expr::Constant(_) => true,
                Expr::Call(c) => {
                    let result = |a: &Expr| {
                        calls_it(a)
                            || matches!(a, Expr::Name(n) if results.contains(&n.id.as_str()))
                    };
                    calls_it(&e.value)
                        || (matches!(c.func.as_ref(), Expr::Name(n) if n.id.as_str() == "print")
                            && c.args.iter().all(result))
                }
                _ => false,
            },
            Stmt::Assign(a) => {
                let is_call = calls_it(&a.value);
                if is_call {
                    results.extend(a.targets.iter().filter_map(|t| match t {
                        Expr::Name(n) => Some(n.id.as_str()),
                        _ => None,
                    }));
                }
                is_call
            }
            _ => false,
        };
    }
    (plain && around).then_some(f)
}

impl<R: LiteralResolver> Lowerer<'_, R> {
    /// Lower a PAL program: the module's imports, then the function's body, its final `return`
    /// read as the script's `print`.
    pub(super) fn solution(&mut self, body: &[Stmt], f: &StmtFunctionDef) -> Res<()> {
        for stmt in body {
            if matches!(stmt, Stmt::Import(_) | Stmt::ImportFrom(_)) {
                self.stmt(stmt)?;
            }
        }
        let Some((last, before)) = f.body.split_last() else {
            return Err(unsupported("an empty function"));
        };
        for stmt in before {
            if matches!(stmt, Stmt::Return(_)) {
                return Err(unsupported("return before the end of the function"));
            }
            self.stmt(stmt)?;
        }
        match last {
            Stmt::Return(r) => match &r.value {
                Some(value) => {
                    self.printed_values(value, true)?;
                    self.print_statements += 1;
                    Ok(())
                }
                None => Err(unsupported("return without a value")),
            },
            _ => Err(unsupported("a function that does not end with return")),
        }
    }
}

#[cfg(test)]
mod tests {
    use rustpython_parser::{ast, parse, Mode};

    use super::solution_function;

    fn body(src: &str) -> Vec<ast::Stmt> {
        match parse(src, Mode::Module, "<test>").unwrap() {
            ast::Mod::Module(m) => m.body,
            _ => unreachable!(),
        }
    }

    #[test]
    fn only_a_lone_function_without_parameters_is_a_pal_program() {
        let pal = "import math\ndef solution():\n    x = 2\n    return x\nprint(solution())\n";
        assert!(solution_function(&body(pal)).is_some());
        assert!(
            solution_function(&body("def solution():\n    return 1\nans = solution()\n")).is_some()
        );
        let tora =
            "def total():\n    \"\"\"Doc.\"\"\"\n    return 1\n\ntotal = total()\nprint(total)\n";
        assert!(solution_function(&body(tora)).is_some());
        for not_pal in [
            "x = 2\nprint(x)\n",
            "def f(a):\n    return a\nprint(f(2))\n",
            "def solution():\n    return 1\nx = 3\nprint(solution() + x)\n",
            "@cache\ndef solution():\n    return 1\n",
            "def solution():\n    return 1\ndef helper():\n    return 2\n",
            // A printed name that is not the function's result, or not yet.
            "def solution():\n    return 1\nx = 2\nprint(x)\n",
            "def solution():\n    return 1\nprint(x)\nx = solution()\n",
            "def solution():\n    return 1\nx = solution()\nprint(x + 1)\n",
        ] {
            assert!(solution_function(&body(not_pal)).is_none(), "{not_pal}");
        }
    }
}
