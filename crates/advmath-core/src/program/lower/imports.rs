//! Imports: `math` is modelled (its functions on the whitelist become calls); a numeric library
//! the reader does not model (numpy, sympy) may be imported as long as nothing uses it, because
//! prompts such as zero-shot Program-of-Thoughts' open every program with `import numpy as np`
//! whether it needs it or not. Any other module is refused: importing it may already do something.

use rustpython_parser::ast::{Expr, StmtImport, StmtImportFrom};

use super::{unsupported, Binding, LiteralResolver, Lowerer, Res};
use crate::program::tree::Func;

/// Libraries whose import alone changes nothing a straight-line program computes. A use of
/// one is refused where it happens (see [`Binding::Foreign`]).
const UNMODELLED: &[&str] = &["numpy", "sympy"];

/// The unmodelled library `module` belongs to (`numpy.linalg` is numpy's).
fn unmodelled(module: &str) -> Option<&'static str> {
    let root = module.split_once('.').map_or(module, |(root, _)| root);
    UNMODELLED.iter().copied().find(|m| *m == root)
}

impl<R: LiteralResolver> Lowerer<'_, R> {
    pub(super) fn import(&mut self, i: &StmtImport) -> Res<()> {
        for alias in &i.names {
            let module = alias.name.as_str();
            let binding = if module == "math" {
                Binding::MathModule
            } else if let Some(library) = unmodelled(module) {
                Binding::Foreign(library)
            } else {
                return Err(unsupported(format!("import {module}")));
            };
            // `import numpy.linalg` binds `numpy`, as Python does.
            let name = match &alias.asname {
                Some(asname) => asname.as_str(),
                None => module.split_once('.').map_or(module, |(root, _)| root),
            };
            self.env.insert(name.to_string(), binding);
        }
        Ok(())
    }

    pub(super) fn import_from(&mut self, i: &StmtImportFrom) -> Res<()> {
        let module = i.module.as_ref().map(|m| m.as_str()).unwrap_or("");
        if module == "math" {
            for alias in &i.names {
                let f = Func::from_name(&format!("math.{}", alias.name))
                    .ok_or_else(|| unsupported(format!("math.{}", alias.name)))?;
                let name = alias.asname.as_ref().unwrap_or(&alias.name);
                self.env.insert(name.to_string(), Binding::Function(f));
            }
            return Ok(());
        }
        // A relative import (`from .numpy import x`) names a module of the program's own package.
        let absolute = i.level.is_none_or(|l| l.to_u32() == 0);
        let library = unmodelled(module)
            .filter(|_| absolute)
            .ok_or_else(|| unsupported(format!("from {module} import ...")))?;
        for alias in &i.names {
            // `import *` could shadow any name, a builtin the whitelist reads included.
            if alias.name.as_str() == "*" {
                return Err(unsupported(format!("from {module} import *")));
            }
            let name = alias.asname.as_ref().unwrap_or(&alias.name);
            self.env.insert(name.to_string(), Binding::Foreign(library));
        }
        Ok(())
    }

    /// The unmodelled library an expression such as `np.sum` or `symbols` comes from.
    pub(super) fn foreign_library(&self, e: &Expr) -> Option<&'static str> {
        match e {
            Expr::Name(n) => match self.env.get(n.id.as_str()) {
                Some(Binding::Foreign(library)) => Some(library),
                _ => None,
            },
            Expr::Attribute(a) => self.foreign_library(&a.value),
            _ => None,
        }
    }
}
