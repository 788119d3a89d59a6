//! Statements, opening and closing. When a statement closes its children are sorted into
//! slots: expression children into `expr`/`expr2` (after an `if`/`switch`'s init and
//! condition variable; `for` by position), statements into `stmts` (bare expressions
//! wrapped in stmk_expr), the first declaration into `decl`; declared variables and types
//! join the enclosing routine's locals.

use super::finalize::Closed;
use super::{Builder, Kid, FL_HAS_INIT, FL_HAS_VAR};
use crate::il::kinds as K;
use crate::il::{fields as F, Eix, EntryKind, IlError, StmtKind};

impl Builder<'_> {
    /// A statement of kind `sk` (stmk_*).
    pub(super) fn materialize_stmt(&mut self, t: usize, sk: StmtKind) -> Result<(), IlError> {
        let s = self.il.alloc(EntryKind::Statement)?;
        K::set_statement_kind(self.il, s, sk)?;
        self.frames[t].entry = self.il.eix(s)?;
        Ok(())
    }

    /// A statement wrapper (`AttributedStmt`) stands for its last non-attribute child.
    pub(super) fn finish_stmt_pass(&mut self, kids: &[Kid], out: &mut Closed) {
        out.e = kids
            .iter()
            .rev()
            .find(|k| !k.e.is_none() && self.il.kind(k.e) != EntryKind::Attribute)
            .map(|k| k.e)
            .unwrap_or(Eix::NONE);
    }

    fn wrap_expr(&mut self, x: Eix) -> Result<Eix, IlError> {
        let s = self.il.alloc(EntryKind::Statement)?;
        K::set_statement_kind(self.il, s, StmtKind::Expr)?;
        let se = self.il.eix(s)?;
        self.set_child(se, F::STATEMENT_EXPR, x)?;
        Ok(se)
    }

    pub(super) fn finish_stmt(
        &mut self,
        t: usize,
        e: Eix,
        sk: StmtKind,
        kids: &[Kid],
    ) -> Result<(), IlError> {
        let flags = self.frames[t].flags;
        // Sort the children into slots first (wrapping allocates), then push in one go.
        let mut stmts: Vec<Eix> = Vec::new();
        let mut exprs: Vec<Eix> = Vec::new();
        let mut decls: Vec<Eix> = Vec::new();
        let mut skip_leading = 0usize;
        if sk == StmtKind::If || sk == StmtKind::Switch {
            skip_leading = (flags & FL_HAS_INIT != 0) as usize + (flags & FL_HAS_VAR != 0) as usize;
        }
        use StmtKind as S;
        let expr_slots = match sk {
            S::If | S::While | S::Switch | S::Return | S::SwitchCase | S::Expr => 1,
            S::EndTestWhile => 1,
            _ => 0,
        };
        if sk == S::For {
            // for: [init, condVar, cond, inc, body], `{}` for absent parts.
            for (i, k) in kids.iter().enumerate() {
                if k.e.is_none() {
                    continue;
                }
                match i {
                    2 | 3 if self.il.kind(k.e) == EntryKind::ExprNode => exprs.push(k.e),
                    1 => {
                        if self.il.kind(k.e) == EntryKind::Statement {
                            stmts.push(k.e);
                        }
                    }
                    _ => {
                        let s = if self.il.kind(k.e) == EntryKind::ExprNode {
                            self.wrap_expr(k.e)?
                        } else {
                            k.e
                        };
                        stmts.push(s);
                    }
                }
            }
        } else {
            let mut slots = expr_slots;
            for (i, k) in kids.iter().enumerate() {
                if k.e.is_none() {
                    continue;
                }
                let kk = self.il.kind(k.e);
                if kk == EntryKind::ExprNode {
                    if i >= skip_leading && slots > 0 && (sk != S::EndTestWhile || i > 0) {
                        exprs.push(k.e);
                        slots -= 1;
                    } else {
                        let s = self.wrap_expr(k.e)?;
                        stmts.push(s);
                    }
                } else if kk == EntryKind::Statement {
                    stmts.push(k.e);
                } else if matches!(
                    kk,
                    EntryKind::Variable | EntryKind::Type | EntryKind::Routine
                ) {
                    decls.push(k.e);
                }
            }
        }
        if let Some(&x) = exprs.first() {
            self.set_child(e, F::STATEMENT_EXPR, x)?;
        }
        if let Some(&x) = exprs.get(1) {
            self.set_child(e, F::STATEMENT_EXPR2, x)?;
        }
        if let Some(&d) = decls.first() {
            self.set_ref(e, F::STATEMENT_DECL, d)?;
        }
        for s in stmts {
            self.push(e, F::STATEMENT_STMTS, s)?;
        }
        if let Some(&f) = self.fn_stack.last() {
            for d in decls {
                if matches!(self.il.kind(d), EntryKind::Variable | EntryKind::Type) {
                    self.frames[f].locals.push(d);
                }
            }
        }
        Ok(())
    }
}
