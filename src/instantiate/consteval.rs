//! Constant evaluation of a call of a `constexpr` routine ([expr.const], [dcl.constexpr]):
//! what a dependent array bound such as `float tmp[rows(N)]` needs when `rows` is more
//! than `return expr;`.
//!
//! The routine's parameters are bound to the folded arguments (a defaulted argument is
//! clang's `CXXDefaultArgExpr`, which the importer keeps opaque: such a call does not
//! fold), then its body runs: blocks in order, `if` and `if constexpr` on a
//! folded condition, `switch` on a folded value (from the matching case label, or
//! `default`, falling through to the following labels), `return` of a folded value,
//! declarations of locals with a folded initializer. Anything else (a loop, an
//! expression statement, a `goto`, a value that does not fold) gives up: the call does not
//! fold. The clang importer records `break`, `continue` and `;` as one statement kind
//! (seed 001's payload-free 10), so one is taken as leaving a `switch` only where all
//! three would: as the last statement of the switch's body.
//!
//! Bounded: at most `MAX_STEPS` statements per constant expression (an array bound, an
//! `if constexpr` condition: every call it makes included),
//! calls nested at most `MAX_CONST_NEST` deep (as constexpr variables are); statements
//! are walked with an explicit stack.

use super::{Subst, Val, MAX_CONST_NEST};
use crate::il::{fields as F, Eix, EntryKind, Il, IlError, StmtKind};

/// Statements one evaluated call may run, the calls it makes included (a recursive
/// constexpr function such as a naive Fibonacci stops here, not after 2^depth calls).
pub(super) const MAX_STEPS: u32 = 100_000;

/// How a statement ended.
enum Flow {
    /// On to the next statement.
    Next,
    /// `return` of this (folded) value node.
    Return(Eix),
    /// The statement cannot be evaluated.
    GiveUp,
}

impl Subst<'_> {
    /// The value of a call of routine `r` with folded arguments `args`, its body
    /// evaluated; `None` when it does not fold (see the module docs).
    pub(super) fn eval_call(
        &mut self,
        il: &mut Il,
        r: Eix,
        args: &[Eix],
    ) -> Result<Option<Eix>, IlError> {
        let params: Vec<Eix> = il.list_eix(r, F::ROUTINE_PARAMS).to_vec();
        if args.len() != params.len() || self.const_nest >= MAX_CONST_NEST {
            return Ok(None);
        }
        let Some(body) = il
            .child_eix(r, F::ROUTINE_BODY_SCOPE)
            .and_then(|s| il.child_eix(s, F::SCOPE_BLOCK))
        else {
            return Ok(None);
        };
        let values = args;
        let mut bound: Vec<(Eix, Option<Eix>)> = params
            .iter()
            .zip(values)
            .map(|(&p, &v)| (p, self.values.insert(p, v)))
            .collect();
        for &v in values {
            self.hold(v);
        }
        self.const_nest += 1;
        let flow = self.run(il, body, &mut bound);
        self.const_nest -= 1;
        for (p, old) in bound.into_iter().rev() {
            match old {
                Some(o) => self.values.insert(p, o),
                None => self.values.remove(&p),
            };
        }
        Ok(match flow? {
            Flow::Return(x) => Some(x),
            Flow::Next | Flow::GiveUp => None,
        })
    }

    /// Runs statement `s` (and what it holds); locals declared on the way are bound in
    /// `bound` (with what they shadowed).
    fn run(
        &mut self,
        il: &mut Il,
        s: Eix,
        bound: &mut Vec<(Eix, Option<Eix>)>,
    ) -> Result<Flow, IlError> {
        // A stack of statement sequences still to run: (statements, next index).
        let mut stack: Vec<(Vec<Eix>, usize)> = vec![(vec![s], 0)];
        while let Some((seq, i)) = stack.last_mut() {
            let Some(&s) = seq.get(*i) else {
                stack.pop();
                continue;
            };
            *i += 1;
            self.const_steps += 1;
            if self.const_steps > MAX_STEPS || il.kind(s) != EntryKind::Statement {
                return Ok(Flow::GiveUp);
            }
            let stmts = il.list_eix(s, F::STATEMENT_STMTS).to_vec();
            match il.statement(s).stmt_kind() {
                StmtKind::Block => stack.push((stmts, 0)),
                StmtKind::Return => {
                    return Ok(match il.child_eix(s, F::STATEMENT_EXPR) {
                        Some(e) => self.folded_value(il, e)?.map_or(Flow::GiveUp, Flow::Return),
                        None => Flow::GiveUp,
                    });
                }
                StmtKind::If | StmtKind::ConstexprIf => {
                    let Some(c) = il.child_eix(s, F::STATEMENT_EXPR) else {
                        return Ok(Flow::GiveUp);
                    };
                    let arm = match self.fold_condition(il, c)? {
                        Some(true) => stmts.first().copied(),
                        Some(false) => stmts.get(1).copied(),
                        None => return Ok(Flow::GiveUp),
                    };
                    stack.extend(arm.map(|a| (vec![a], 0)));
                }
                StmtKind::Switch => match self.switch_arm(il, s, &stmts)? {
                    Some(rest) => stack.push((rest, 0)),
                    None => return Ok(Flow::GiveUp),
                },
                StmtKind::Decl => {
                    let v = il.ref_eix(s, F::STATEMENT_DECL);
                    let init = v
                        .filter(|&v| il.kind(v) == EntryKind::Variable)
                        .and_then(|v| il.child_eix(v, F::VARIABLE_INITIALIZER));
                    let (Some(v), Some(init)) = (v, init) else {
                        return Ok(Flow::GiveUp);
                    };
                    let Some(x) = self.folded_value(il, init)? else {
                        return Ok(Flow::GiveUp);
                    };
                    self.hold(x);
                    bound.push((v, self.values.insert(v, x)));
                }
                // The switch's closing `break` (or `;`) is dropped by `switch_arm`.
                _ => return Ok(Flow::GiveUp),
            }
        }
        Ok(Flow::Next)
    }

    /// The statements a `switch` (statement `s`, body `stmts`) runs for its folded
    /// condition: from the matching case label's statement (else `default`'s) to the
    /// end of the body, labels stripped; empty when no label matches. `None` when the
    /// condition does not fold, or when a `break` could leave the switch before its end
    /// (see the module docs).
    fn switch_arm(
        &mut self,
        il: &mut Il,
        s: Eix,
        stmts: &[Eix],
    ) -> Result<Option<Vec<Eix>>, IlError> {
        let Some(c) = il.child_eix(s, F::STATEMENT_EXPR) else {
            return Ok(None);
        };
        let Some(Val::Int(v)) = self
            .folded_value(il, c)?
            .and_then(|x| Self::const_val(il, x))
        else {
            return Ok(None);
        };
        let body: Vec<Eix> = match stmts {
            [b] if il.kind(*b) == EntryKind::Statement
                && il.statement(*b).stmt_kind() == StmtKind::Block =>
            {
                il.list_eix(*b, F::STATEMENT_STMTS).to_vec()
            }
            _ => return Ok(None),
        };
        // Each top-level statement with its labels (a chain of case statements).
        let mut flat: Vec<Eix> = Vec::with_capacity(body.len());
        let (mut hit, mut default) = (None, None);
        for &t in &body {
            let mut t = t;
            for _ in 0..4096 {
                if il.kind(t) != EntryKind::Statement
                    || il.statement(t).stmt_kind() != StmtKind::SwitchCase
                {
                    break;
                }
                match il.child_eix(t, F::STATEMENT_EXPR) {
                    None => default = default.or(Some(flat.len())),
                    Some(e) => {
                        let value = self
                            .folded_value(il, e)?
                            .and_then(|x| Self::const_val(il, x));
                        match value {
                            Some(Val::Int(k)) if k == v => hit = hit.or(Some(flat.len())),
                            Some(Val::Int(_)) => {}
                            _ => return Ok(None),
                        }
                    }
                }
                match il.list_eix(t, F::STATEMENT_STMTS).first() {
                    Some(&inner) => t = inner,
                    None => {
                        t = Eix::NONE;
                        break;
                    }
                }
            }
            flat.push(t);
        }
        let Some(start) = hit.or(default) else {
            return Ok(Some(Vec::new()));
        };
        let mut run: Vec<Eix> = flat[start..]
            .iter()
            .copied()
            .filter(|t| !t.is_none())
            .collect();
        let jump = |il: &Il, t: Eix| {
            il.kind(t) == EntryKind::Statement && il.statement(t).stmt_kind() == StmtKind::Stmk10
        };
        if run.last().is_some_and(|&t| jump(il, t)) {
            run.pop();
        }
        if run.iter().any(|&t| jump(il, t)) {
            return Ok(None);
        }
        Ok(Some(run))
    }

    /// Expression `e` substituted and folded as a constant expression: its constant
    /// node, or `None` when it does not fold.
    fn folded_value(&mut self, il: &mut Il, e: Eix) -> Result<Option<Eix>, IlError> {
        let x = self.as_constant(il, e, Self::copy_template_param_expr)?;
        Ok(Self::const_val(il, x).map(|_| x))
    }
}
