//! Dependent array bounds: clang prints `T v[N]` or `int r[M * 4 + 1]` inside a template
//! as the bound's expression text (its JSON holds no type node for a declaration's
//! type). Where every name of that text is a non-type template parameter in scope or a
//! constexpr variable, the array's bound becomes a template-parameter constant of
//! sub-kind 1 (an expression to substitute, seed 002's `copy_template_param_con`) over
//! the expression: integer literals, parameters (template-parameter constants of
//! sub-kind 0: `value` = position, `value2` = depth), variable references and the C
//! operators on them. Anything else (casts, `sizeof`, calls, qualified names) leaves the
//! array without a bound, as before.
//!
//! The parse is a precedence climb over a flat token list, its recursion bounded by
//! `MAX_NEST`; the text of a bound is a few dozen bytes.

use super::Types;
use crate::il::kinds;
use crate::il::{
    fields as F, ConstantKind, Eix, EntryKind, ExprKind, Il, IlError, Op, TemplateParamConstantKind,
};

/// Deepest nesting of parentheses and operators a bound may have.
const MAX_NEST: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Num(u64, bool, bool),
    Name(&'a str),
    Punct(&'a str),
}

/// The tokens of a bound's text, or `None` for a character the grammar lacks.
fn lex(s: &str) -> Option<Vec<Tok<'_>>> {
    const PUNCT: &[&str] = &[
        "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "&",
        "|", "^", "!", "~", "?", ":", "(", ")",
    ];
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b' ' {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let text = &s[start..i];
            let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
            let suffix = &text[digits.len()..];
            let n = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).ok()?
            } else {
                digits.parse::<u64>().ok()?
            };
            let unsigned = suffix.contains(['u', 'U']);
            let long = suffix.contains(['l', 'L']);
            v.push(Tok::Num(n, unsigned, long));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            v.push(Tok::Name(&s[start..i]));
        } else {
            let p = PUNCT.iter().find(|p| s[i..].starts_with(**p))?;
            i += p.len();
            v.push(Tok::Punct(p));
        }
    }
    Some(v)
}

/// A binary operator's IL operator and precedence (higher binds tighter).
fn binary(p: &str) -> Option<(Op, u8)> {
    Some(match p {
        "*" => (Op::Mul, 10),
        "/" => (Op::Div, 10),
        "%" => (Op::Rem, 10),
        "+" => (Op::Add, 9),
        "-" => (Op::Sub, 9),
        "<<" => (Op::Shl, 8),
        ">>" => (Op::Shr, 8),
        "<" => (Op::Lt, 7),
        ">" => (Op::Gt, 7),
        "<=" => (Op::Le, 7),
        ">=" => (Op::Ge, 7),
        "==" => (Op::Eq, 6),
        "!=" => (Op::Ne, 6),
        "&" => (Op::BitAnd, 5),
        "^" => (Op::BitXor, 4),
        "|" => (Op::BitOr, 3),
        "&&" => (Op::LogAnd, 2),
        "||" => (Op::LogOr, 1),
        _ => return None,
    })
}

struct Parser<'t, 'a> {
    toks: &'t [Tok<'a>],
    i: usize,
    /// Whether a name of the bound was a parameter or a variable.
    dependent: bool,
}

impl Types {
    /// Gives the array type `a` the bound `text` (the spelling between its brackets)
    /// as an expression, when the names in it resolve (see the module documentation).
    /// Such a type is not interned: the same spelling means another bound elsewhere.
    pub(super) fn dependent_bound(
        &mut self,
        il: &mut Il,
        a: Eix,
        text: &str,
    ) -> Result<(), IlError> {
        if self.value_params.is_empty() && self.const_vars.is_empty() {
            return Ok(());
        }
        let Some(toks) = lex(text) else {
            return Ok(());
        };
        let mut p = Parser {
            toks: &toks,
            i: 0,
            dependent: false,
        };
        let Some(x) = self.cond(il, &mut p, 0)? else {
            return Ok(());
        };
        if p.i != toks.len() || !p.dependent {
            return Ok(());
        }
        let int = self.builtin(il, &["int"])?;
        let c = il.alloc(EntryKind::Constant)?;
        kinds::set_constant_kind(il, c, ConstantKind::TemplateParam)?;
        kinds::set_template_param_constant_kind(il, c, TemplateParamConstantKind::Expression)?;
        il.set_child(c, F::CONSTANT_EXPR, Some(il.id_of(x)))?;
        il.set_child(c, F::CONSTANT_TYPE, Some(il.id_of(int)))?;
        il.set_child(il.id_of(a), F::TYPE_ARRAY_BOUND, Some(c))?;
        self.uncacheable = true;
        Ok(())
    }

    /// A template argument `a` spelled as a value: an integer literal (an integer
    /// constant) or a non-type parameter in scope (a template-parameter constant);
    /// `None` for anything else (a type).
    pub(super) fn value_arg(&mut self, il: &mut Il, a: &str) -> Result<Option<Eix>, IlError> {
        let Some(toks) = lex(a) else {
            return Ok(None);
        };
        if let [Tok::Name(n @ ("true" | "false"))] = toks.as_slice() {
            // A boolean argument (`integral_constant<bool, true>`).
            let ty = self.builtin(il, &["bool"])?;
            let c = il.alloc(EntryKind::Constant)?;
            kinds::set_constant_kind(il, c, ConstantKind::Integer)?;
            let ce = il.eix(c)?;
            il.constant_mut(ce).set_value((*n == "true") as i64);
            il.set_child(c, F::CONSTANT_TYPE, Some(il.id_of(ty)))?;
            return Ok(Some(ce));
        }
        let x = match toks.as_slice() {
            [Tok::Num(..)] => {
                let mut p = Parser {
                    toks: &toks,
                    i: 0,
                    dependent: false,
                };
                self.unary(il, &mut p, 0)?
            }
            [Tok::Name(n)] if self.value_params.iter().any(|v| v.name == *n) => {
                let mut p = Parser {
                    toks: &toks,
                    i: 0,
                    dependent: false,
                };
                self.unary(il, &mut p, 0)?
            }
            _ => None,
        };
        Ok(x.and_then(|x| il.child_eix(x, F::EXPR_NODE_CONSTANT)))
    }

    /// `c ? a : b` or a binary expression.
    fn cond(&mut self, il: &mut Il, p: &mut Parser, nest: u32) -> Result<Option<Eix>, IlError> {
        if nest > MAX_NEST {
            return Ok(None);
        }
        let Some(c) = self.binary_expr(il, p, 0, nest + 1)? else {
            return Ok(None);
        };
        if p.toks.get(p.i) != Some(&Tok::Punct("?")) {
            return Ok(Some(c));
        }
        p.i += 1;
        let Some(a) = self.cond(il, p, nest + 1)? else {
            return Ok(None);
        };
        if p.toks.get(p.i) != Some(&Tok::Punct(":")) {
            return Ok(None);
        }
        p.i += 1;
        let Some(b) = self.cond(il, p, nest + 1)? else {
            return Ok(None);
        };
        self.operation(il, Op::Cond, &[c, a, b]).map(Some)
    }

    /// Binary operators of precedence above `min`, left-associative.
    fn binary_expr(
        &mut self,
        il: &mut Il,
        p: &mut Parser,
        min: u8,
        nest: u32,
    ) -> Result<Option<Eix>, IlError> {
        if nest > MAX_NEST {
            return Ok(None);
        }
        let Some(mut lhs) = self.unary(il, p, nest + 1)? else {
            return Ok(None);
        };
        while let Some(Tok::Punct(t)) = p.toks.get(p.i) {
            let Some((op, prec)) = binary(t) else { break };
            if prec <= min {
                break;
            }
            p.i += 1;
            let Some(rhs) = self.binary_expr(il, p, prec, nest + 1)? else {
                return Ok(None);
            };
            lhs = self.operation(il, op, &[lhs, rhs])?;
        }
        Ok(Some(lhs))
    }

    /// Unary operators, parentheses, literals and names.
    fn unary(&mut self, il: &mut Il, p: &mut Parser, nest: u32) -> Result<Option<Eix>, IlError> {
        if nest > MAX_NEST {
            return Ok(None);
        }
        let Some(&t) = p.toks.get(p.i) else {
            return Ok(None);
        };
        p.i += 1;
        match t {
            Tok::Punct("(") => {
                let x = self.cond(il, p, nest + 1)?;
                if p.toks.get(p.i) != Some(&Tok::Punct(")")) {
                    return Ok(None);
                }
                p.i += 1;
                Ok(x)
            }
            Tok::Punct(u @ ("+" | "-" | "!" | "~")) => {
                let Some(x) = self.unary(il, p, nest + 1)? else {
                    return Ok(None);
                };
                let op = match u {
                    "+" => return Ok(Some(x)),
                    "-" => Op::Neg,
                    "!" => Op::Not,
                    _ => Op::Compl,
                };
                self.operation(il, op, &[x]).map(Some)
            }
            Tok::Num(n, unsigned, long) => {
                let words: &[&str] = match (unsigned, long) {
                    (false, false) => &["int"],
                    (true, false) => &["unsigned", "int"],
                    (false, true) => &["long"],
                    (true, true) => &["unsigned", "long"],
                };
                let ty = self.builtin(il, words)?;
                let c = il.alloc(EntryKind::Constant)?;
                kinds::set_constant_kind(il, c, ConstantKind::Integer)?;
                let ce = il.eix(c)?;
                il.constant_mut(ce).set_value(n as i64);
                il.set_child(c, F::CONSTANT_TYPE, Some(il.id_of(ty)))?;
                self.constant_node(il, ce, ty).map(Some)
            }
            Tok::Name(name) => {
                if let Some(vp) = self.value_params.iter().rev().find(|v| v.name == name) {
                    let (depth, pos, ty) = (vp.depth, vp.position, vp.ty);
                    let ty = if ty.is_none() {
                        self.builtin(il, &["int"])?
                    } else {
                        ty
                    };
                    let c = il.alloc(EntryKind::Constant)?;
                    kinds::set_constant_kind(il, c, ConstantKind::TemplateParam)?;
                    kinds::set_template_param_constant_kind(
                        il,
                        c,
                        TemplateParamConstantKind::Value,
                    )?;
                    let ce = il.eix(c)?;
                    il.constant_mut(ce)
                        .set_value(pos as i64)
                        .set_value2(depth as i64);
                    il.set_child(c, F::CONSTANT_TYPE, Some(il.id_of(ty)))?;
                    p.dependent = true;
                    return self.constant_node(il, ce, ty).map(Some);
                }
                let Some(&var) = self.const_vars.get(name) else {
                    return Ok(None);
                };
                if !il.is_live(var) || il.kind(var) != EntryKind::Variable {
                    return Ok(None);
                }
                let x = il.alloc_expr_node(ExprKind::Variable)?;
                let xe = il.eix(x)?;
                il.set_ref_eix(xe, F::EXPR_NODE_ENTITY, var)?;
                let ty = match il.child_eix(var, F::VARIABLE_TYPE) {
                    Some(t) => t,
                    None => self.builtin(il, &["int"])?,
                };
                il.set_child_eix(xe, F::EXPR_NODE_TYPE, ty)?;
                p.dependent = true;
                Ok(Some(xe))
            }
            _ => Ok(None),
        }
    }

    fn constant_node(&mut self, il: &mut Il, c: Eix, ty: Eix) -> Result<Eix, IlError> {
        let x = il.alloc_expr_node(ExprKind::Constant)?;
        let xe = il.eix(x)?;
        il.set_child_eix(xe, F::EXPR_NODE_CONSTANT, c)?;
        il.set_child_eix(xe, F::EXPR_NODE_TYPE, ty)?;
        Ok(xe)
    }

    /// An operation node typed `int` (substitution gives it its real type).
    fn operation(&mut self, il: &mut Il, op: Op, operands: &[Eix]) -> Result<Eix, IlError> {
        let int = self.builtin(il, &["int"])?;
        let ids: Vec<_> = operands.iter().map(|&o| il.id_of(o)).collect();
        let x = kinds::alloc_operation(il, op, Some(il.id_of(int)), &ids)?;
        il.eix(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::clang_json::types::ValueParam;

    #[test]
    fn parses_a_dependent_bound() {
        let mut il = Il::new();
        let mut ty = Types::default();
        // Outside templates, a bound's names mean nothing: no bound.
        let a = ty.intern(&mut il, "int[M * 4]").unwrap();
        assert!(il.child_eix(a, F::TYPE_ARRAY_BOUND).is_none());
        ty.value_params.push(ValueParam {
            name: "M".into(),
            depth: 0,
            position: 1,
            ty: Eix::NONE,
            level: 1,
        });
        let a = ty.intern(&mut il, "float[M * (4 + 1) - -M]").unwrap();
        let b = il.child_eix(a, F::TYPE_ARRAY_BOUND).unwrap();
        assert_eq!(il.constant(b).constant_kind(), ConstantKind::TemplateParam);
        assert_eq!(
            il.constant(b).template_param_constant_kind(),
            Some(TemplateParamConstantKind::Expression)
        );
        let x = il.child_eix(b, F::CONSTANT_EXPR).unwrap();
        assert_eq!(il.expr(x).op(), Op::Sub);
        // Not interned: the next spelling is parsed again.
        let a2 = ty.intern(&mut il, "float[M * (4 + 1) - -M]").unwrap();
        assert_ne!(a, a2);
        // Unknown names, casts and unbalanced text leave no bound.
        for s in [
            "int[K]",
            "int[(int)M]",
            "int[(M]",
            "int[M ? 1]",
            "int[sizeof(M)]",
        ] {
            let a = ty.intern(&mut il, s).unwrap();
            assert!(il.child_eix(a, F::TYPE_ARRAY_BOUND).is_none(), "{s}");
        }
        // Deep nesting stops at the bound, not the stack.
        let deep = format!("int[{}M{}]", "(".repeat(500), ")".repeat(500));
        let a = ty.intern(&mut il, &deep).unwrap();
        assert!(il.child_eix(a, F::TYPE_ARRAY_BOUND).is_none());
    }
}
