//! IL comparison (seed 002, part 1): structural equality of expression trees, constants
//! and dynamic initializers. Used by constant sharing (the hash table's equality
//! predicate), template argument deduction and overload resolution.
//!
//! # Shape
//! The seed's three mutually recursive functions become one work-stack machine: a
//! comparison is a conjunction of pair comparisons, so [`Comparer`] pops a pair, checks its
//! local fields, and pushes the sub-pairs; the first unequal pair ends the run. No Rust
//! recursion, so a 10^6-deep operand chain compares in O(nodes) time and heap. Pairs
//! nested deeper than a few dozen levels are recorded, and one met again is assumed equal
//! (seed 002's assumed-equal pairs), so a cycle in the compared graph ends.
//! Address-constant and entity-ref chains (constant kinds 6 sub-kind 2 and 13) are
//! followed by a loop inside one step (the seed's `while(2)` tail call), not pushed.
//! Each pushed pair carries its nesting depth: [`Comparer::depth`] is the seed's recursion
//! counter (`dword_126F1D0`), and when [`Comparer::trace`] is on it indents the trace.
//!
//! # Field mapping
//! The seed's node fields map onto the schema's columns (`components/entries.rs`):
//!
//! | seed field | expr_node column |
//! |---|---|
//! | `op_code`, `bool_field`, `value_byte`, `attr_flags`, `key` | `op` |
//! | `key_word` (kind 13) | `op`, `op2` |
//! | `offset` (kind 6), `hash` (kind 30) | `supplement` |
//! | `inner`, `operands`, `args`, `list` | the `operands` list (inner = item 0) |
//! | `result_type`, `type_ptr` | the `type` child |
//! | `entity`, `ptr` | the `entity` reference |
//! | `init` (kinds 5, 18) | the `entity` reference, naming a `dynamic_init` |
//!
//! Constants: `value` (integer value, float/real bits), `value2` (imaginary bits),
//! `ptm_flags` (the flags byte), `sub_kind` (read as an `AddressKind` or a
//! `TemplateParamConstantKind`; a string's character kind, the scope byte of kind 11),
//! `operand` (entity, sub-constant or dynamic
//! init), `aggregate` (elements; a kind-8 pair is its first two), `declared_type`,
//! `expr`, `template_info`, `text`/`text_len`. Every constant comparison first requires
//! equivalent `type` children (EDG compares the constant's type before its switch).
//!
//! Kinds the seed's excerpt leaves out get the nearest listed rule: 9, 26, 27, 29
//! compare `op`, operands and type; 34 compares its constant and operands. Kind 36
//! (`ek_reclaimed`) is `compare_expressions: bad expr kind`.

use crate::il::{
    fields as F, AddressKind, ConstantKind, Eix, EntryKind, ExprKind, Il, IlError, RegionIdx,
    TemplateParamConstantKind, TypeKind,
};
use std::fmt::Write as _;

/// Comparison flags (the seed's third argument).
pub mod flags {
    /// Strict mode: entity references must be identical, not just equivalent.
    pub const STRICT: u32 = 0x01;
    /// Check constraints: template kinds (8, 30, 31) also compare the requires-clauses of
    /// the templates their entities name, as expressions.
    pub const CHECK_CONSTRAINTS: u32 = 0x02;
    /// Allow specialization: kind 30 matches specializations whose hashes differ
    /// (used by [`super::compare_expressions_for_equivalence`]).
    pub const ALLOW_SPECIALIZATION: u32 = 0x04;
}

/// The depth from which [`Comparer`] records the pairs it meets: shallower comparisons
/// (nearly all, in sharing lookups) record nothing, and a cycle reaches it.
const ASSUME_FROM: u32 = 32;

const BAD_EXPR: &str = "compare_expressions: bad expr kind";
const BAD_CONST: &str = "compare_constants: bad constant kind";

#[derive(Clone, Copy, Debug)]
enum Task {
    Expr(Eix, Eix, u32),
    Const(Eix, Eix, u32),
    Init(Eix, Eix, u32),
}

/// A reusable comparison engine: its work stack and trace buffer survive between calls,
/// so the sharing table's hot loop allocates nothing.
#[derive(Clone, Debug)]
pub struct Comparer {
    stack: Vec<Task>,
    /// Pairs met deeper than [`ASSUME_FROM`] in this run: met again, a pair is assumed
    /// equal (its comparison is under way or has succeeded), so a cycle ends.
    met: ahash::AHashSet<(u8, Eix, Eix)>,
    /// Nesting depth of the pair being compared (the seed's recursion counter); 0 between
    /// calls.
    pub depth: u32,
    /// Deepest nesting seen since construction.
    pub max_depth: u32,
    /// Sharing enabled: entity references also match by sharing symbol (same kind, same
    /// name, both in file scope).
    pub sharing_enabled: bool,
    /// When `Some`, one line per compared expression pair, indented two spaces per depth.
    pub trace: Option<String>,
}

impl Default for Comparer {
    fn default() -> Self {
        Comparer::new()
    }
}

impl Comparer {
    /// A comparer with sharing enabled and no trace.
    pub fn new() -> Comparer {
        Comparer {
            stack: Vec::new(),
            met: ahash::AHashSet::new(),
            depth: 0,
            max_depth: 0,
            sharing_enabled: true,
            trace: None,
        }
    }

    /// `compare_expressions`: structural equality of two expression trees.
    ///
    /// # Errors
    /// An entry that is not an expression node ([`IlError::WrongTarget`]) or an
    /// expression kind outside 0..=35 (`compare_expressions: bad expr kind`). A cycle of
    /// child edges under both sides is no error: a pair met again is assumed equal.
    pub fn compare_expressions(
        &mut self,
        il: &Il,
        a: Eix,
        b: Eix,
        flags: u32,
    ) -> Result<bool, IlError> {
        self.run(il, Task::Expr(a, b, 1), flags)
    }

    /// `compare_constants`: structural equality of two constants (16 kinds).
    ///
    /// # Errors
    /// A non-constant entry or a constant kind outside 0..=15
    /// (`compare_constants: bad constant kind`).
    pub fn compare_constants(
        &mut self,
        il: &Il,
        a: Eix,
        b: Eix,
        flags: u32,
    ) -> Result<bool, IlError> {
        if a == b {
            return Ok(true);
        }
        // Fast path for the sharing table: leaf constants need no stack.
        if let Some(r) = self.leaf_constant(il, a, b) {
            return Ok(r);
        }
        self.run(il, Task::Const(a, b, 1), flags)
    }

    /// `compare_dynamic_inits`: equality of two dynamic initializers.
    ///
    /// # Errors
    /// A non-dynamic-init entry.
    pub fn compare_dynamic_inits(
        &mut self,
        il: &Il,
        a: Eix,
        b: Eix,
        flags: u32,
    ) -> Result<bool, IlError> {
        self.run(il, Task::Init(a, b, 1), flags)
    }

    fn run(&mut self, il: &Il, first: Task, flags: u32) -> Result<bool, IlError> {
        self.stack.clear();
        self.met.clear();
        self.stack.push(first);
        let mut result = Ok(true);
        while let Some(t) = self.stack.pop() {
            let (tag, a, b, d) = match t {
                Task::Expr(a, b, d) => (0u8, a, b, d),
                Task::Const(a, b, d) => (1, a, b, d),
                Task::Init(a, b, d) => (2, a, b, d),
            };
            // Seed 002's assumed-equal pairs: a pair met again deep in the comparison is
            // part of a cycle (or compared already), and is taken as equal.
            if d > ASSUME_FROM && !self.met.insert((tag, a, b)) {
                continue;
            }
            let step = match t {
                Task::Expr(a, b, d) => self.expr_step(il, a, b, d, flags),
                Task::Const(a, b, d) => self.const_step(il, a, b, d, flags),
                Task::Init(a, b, d) => self.init_step(il, a, b, d, flags),
            };
            match step {
                Ok(true) => {}
                other => {
                    result = other;
                    break;
                }
            }
        }
        self.stack.clear();
        self.depth = 0;
        result
    }

    fn enter(&mut self, d: u32) {
        self.depth = d;
        self.max_depth = self.max_depth.max(d);
    }

    fn push_opt(&mut self, a: Option<Eix>, b: Option<Eix>, mk: fn(Eix, Eix) -> Task) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                if x != y {
                    self.stack.push(mk(x, y));
                }
                true
            }
            _ => false,
        }
    }

    /// Pushes item pairs of two lists (in reverse so they pop left to right); false when
    /// the lists do not end together.
    fn push_lists(&mut self, a: &[Eix], b: &[Eix], d: u32, expr: bool) -> bool {
        if a.len() != b.len() {
            return false;
        }
        for (&x, &y) in a.iter().zip(b).rev() {
            if x != y {
                self.stack.push(if expr {
                    Task::Expr(x, y, d)
                } else {
                    Task::Const(x, y, d)
                });
            }
        }
        true
    }

    fn expr_step(&mut self, il: &Il, a: Eix, b: Eix, d: u32, flags: u32) -> Result<bool, IlError> {
        if a == b {
            return Ok(true);
        }
        expect(il, a, EntryKind::ExprNode)?;
        expect(il, b, EntryKind::ExprNode)?;
        use ExprKind as X;
        let (xa, xb) = (il.expr(a), il.expr(b));
        let k = xa.expr_kind();
        if k != xb.expr_kind() {
            return Ok(false);
        }
        if k == X::Reclaimed {
            return Err(IlError::BadKind(BAD_EXPR));
        }
        self.enter(d);
        if let Some(tr) = &mut self.trace {
            let _ = writeln!(
                tr,
                "{:indent$}compare_expressions: {} {} {}",
                "",
                k.name(),
                a,
                b,
                indent = 2 * d as usize
            );
        }
        let op_eq = xa.op() == xb.op();
        let ty = |e| il.child_eix(e, F::EXPR_NODE_TYPE);
        let ent = |e| il.ref_eix(e, F::EXPR_NODE_ENTITY);
        let ops = |e| il.list_eix(e, F::EXPR_NODE_OPERANDS);
        let konst = |e| il.child_eix(e, F::EXPR_NODE_CONSTANT);
        let types = || equiv_types(il, ty(a), ty(b));
        let n = d + 1;
        let strict = flags & flags::STRICT != 0;
        Ok(match k {
            X::Error => false,
            X::Operation => op_eq && types() && self.push_lists(ops(a), ops(b), n, true),
            X::Constant => {
                self.push_opt(konst(a), konst(b), |x, y| Task::Const(x, y, 0)) && {
                    fix_depth(&mut self.stack, n);
                    true
                }
            }
            X::Variable => self.entity_equiv(il, ent(a), ent(b), strict, true),
            X::TypeRef | X::Routine => {
                (ty(a) == ty(b) || types()) && self.entity_equiv(il, ent(a), ent(b), strict, false)
            }
            X::DynamicInit | X::DynamicInit2 => {
                let r = self.push_opt(ent(a), ent(b), |x, y| Task::Init(x, y, 0));
                fix_depth(&mut self.stack, n);
                r
            }
            X::Lambda => xa.supplement() == xb.supplement(),
            X::NewDelete => {
                op_eq
                    && xa.op2() == xb.op2()
                    && xa.is_lvalue() == xb.is_lvalue()
                    && types()
                    && self.push_lists(ops(a), ops(b), n, true)
            }
            X::Throw => {
                self.constraints(il, flags, ent(a), ent(b), n)
                    && self.push_lists(ops(a), ops(b), n, true)
            }
            X::ObjectLifetime | X::SubExpr | X::ExprWrapper => {
                self.push_lists(ops(a), ops(b), n, true)
            }
            X::AddressOf | X::AddressOf2 | X::BuiltinOperation | X::FoldExpression => {
                op_eq && self.push_lists(ops(a), ops(b), n, true)
            }
            X::Cast | X::ValueCast | X::ValueCast2 => {
                op_eq
                    && types()
                    && self.push_opt(konst(a), konst(b), |x, y| Task::Const(x, y, 0))
                    && {
                        fix_depth(&mut self.stack, n);
                        self.push_lists(ops(a), ops(b), n, true)
                    }
            }
            X::KeyedCast => op_eq && xa.op2() == xb.op2(),
            X::AddressOfEllipsis => true,
            X::OpaqueOperand | X::OpaqueTypeRef | X::OpaqueOperand2 => ent(a) == ent(b),
            X::TypeOperand => ent(a) == ent(b) || (ty(a).is_some() && types()),
            X::ExprPair => op_eq && ent(a) == ent(b) && self.push_lists(ops(a), ops(b), n, true),
            X::ClosureAddress => same_closure(il, ent(a), ent(b)),
            X::PackExpansion => {
                (flags & flags::ALLOW_SPECIALIZATION != 0 || xa.supplement() == xb.supplement())
                    && self.constraints(il, flags, ent(a), ent(b), n)
                    && ent(a) == ent(b)
                    && self.push_lists(ops(a), ops(b), n, true)
            }
            X::DependentEntity => {
                let (x, y) = (ops(a), ops(b));
                self.constraints(il, flags, ent(a), ent(b), n)
                    && x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(&p, &q)| equiv_types(il, ty(p), ty(q)))
            }
            X::Condition | X::ComplexOperand | X::ComplexOperand2 | X::SimpleOperand => {
                op_eq && types() && self.push_lists(ops(a), ops(b), n, true)
            }
            X::ConstEvalDeferred => {
                self.push_opt(konst(a), konst(b), |x, y| Task::Const(x, y, 0)) && {
                    fix_depth(&mut self.stack, n);
                    self.push_lists(ops(a), ops(b), n, true)
                }
            }
            X::Reclaimed => return Err(IlError::BadKind(BAD_EXPR)),
        })
    }

    /// With [`flags::CHECK_CONSTRAINTS`], queues the comparison of the requires-clauses of
    /// the templates entities `a` and `b` name (false when only one has one).
    fn constraints(&mut self, il: &Il, flags: u32, a: Option<Eix>, b: Option<Eix>, n: u32) -> bool {
        if flags & flags::CHECK_CONSTRAINTS == 0 {
            return true;
        }
        let r = self.push_opt(constraint_of(il, a), constraint_of(il, b), |x, y| {
            Task::Expr(x, y, 0)
        });
        fix_depth(&mut self.stack, n);
        r
    }

    /// Entity-reference equality: identity, then (non-strict) the sharing symbol, then
    /// (when `by_type`) type equivalence of two entities of the same kind.
    fn entity_equiv(
        &self,
        il: &Il,
        a: Option<Eix>,
        b: Option<Eix>,
        strict: bool,
        by_type: bool,
    ) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) if x == y => true,
            (Some(x), Some(y)) if !strict => {
                (self.sharing_enabled && same_sharing_symbol(il, x, y))
                    || (by_type
                        && il.kind(x) == il.kind(y)
                        && entity_type(il, x).is_some()
                        && equiv_types(il, entity_type(il, x), entity_type(il, y)))
            }
            _ => false,
        }
    }

    /// Pointer equality, or (not `strict`) a sharing-symbol match: constants' and dynamic
    /// inits' entity operands.
    fn entity_match(&self, il: &Il, a: Option<Eix>, b: Option<Eix>, strict: bool) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                x == y || (!strict && self.sharing_enabled && same_sharing_symbol(il, x, y))
            }
            _ => false,
        }
    }

    /// Leaf constants (no sub-pairs): `Some(result)`; `None` when the general step is
    /// needed.
    #[inline]
    fn leaf_constant(&self, il: &Il, a: Eix, b: Eix) -> Option<bool> {
        if il.kind(a) != EntryKind::Constant || il.kind(b) != EntryKind::Constant {
            return None;
        }
        use ConstantKind as C;
        let t = il.constant_columns();
        let (ra, rb) = (il.row(a) as usize, il.row(b) as usize);
        let k = t.constant_kind[ra];
        if k != t.constant_kind[rb] {
            return Some(false);
        }
        let same = match k {
            C::Integer => t.value[ra] == t.value[rb] && t.ptm_flags[ra] == t.ptm_flags[rb],
            C::Float | C::Imaginary => t.value[ra] == t.value[rb] && same_text(il, a, b),
            C::Complex => t.value[ra] == t.value[rb] && t.value2[ra] == t.value2[rb],
            C::String => {
                let len = t.text_len[ra] as usize;
                len == t.text_len[rb] as usize && t.sub_kind[ra] == t.sub_kind[rb] && {
                    let (x, y) = (il.str_bytes(a, t.text[ra]), il.str_bytes(b, t.text[rb]));
                    x.get(..len.min(x.len())) == y.get(..len.min(y.len()))
                }
            }
            _ => return None,
        };
        Some(same && equiv_types(il, const_type(il, a), const_type(il, b)))
    }

    fn const_step(
        &mut self,
        il: &Il,
        mut a: Eix,
        mut b: Eix,
        d: u32,
        flags: u32,
    ) -> Result<bool, IlError> {
        self.enter(d);
        let n = d + 1;
        let strict = flags & flags::STRICT != 0;
        // The seed's `while(2)`: chains of address / entity-ref constants loop here.
        for _ in 0..=il.len() {
            if a == b {
                return Ok(true);
            }
            expect(il, a, EntryKind::Constant)?;
            expect(il, b, EntryKind::Constant)?;
            use ConstantKind as C;
            let t = il.constant_columns();
            let (ra, rb) = (il.row(a) as usize, il.row(b) as usize);
            let k = t.constant_kind[ra];
            if k != t.constant_kind[rb] {
                return Ok(false);
            }
            if !equiv_types(il, const_type(il, a), const_type(il, b)) {
                return Ok(false);
            }
            let sub_eq = t.sub_kind[ra] == t.sub_kind[rb];
            let val_eq = t.value[ra] == t.value[rb];
            let flags_eq = t.ptm_flags[ra] == t.ptm_flags[rb];
            let opnd = |e| il.child_eix(e, F::CONSTANT_OPERAND);
            let agg = |e| il.list_eix(e, F::CONSTANT_AGGREGATE);
            let dty = |e| il.child_eix(e, F::CONSTANT_DECLARED_TYPE);
            let cexpr = |e| il.child_eix(e, F::CONSTANT_EXPR);
            let is_const = |e: Option<Eix>| e.is_some_and(|e| il.kind(e) == EntryKind::Constant);
            return Ok(match k {
                C::Error | C::Void => true,
                C::Integer => val_eq && flags_eq,
                C::String => {
                    let len = t.text_len[ra] as usize;
                    len == t.text_len[rb] as usize && sub_eq && {
                        let (x, y) = (il.str_bytes(a, t.text[ra]), il.str_bytes(b, t.text[rb]));
                        x.get(..len.min(x.len())) == y.get(..len.min(y.len()))
                    }
                }
                C::Float | C::Imaginary => val_eq && same_text(il, a, b),
                C::Complex => val_eq && t.value2[ra] == t.value2[rb],
                C::Address => {
                    if !(sub_eq && val_eq && same_path(il, a, b)) {
                        return Ok(false);
                    }
                    use AddressKind as A;
                    match il.constant(a).address_kind() {
                        Some(A::Routine | A::Variable) => {
                            self.entity_match(il, opnd(a), opnd(b), strict)
                        }
                        Some(A::Constant) if is_const(opnd(a)) && is_const(opnd(b)) => {
                            a = opnd(a).unwrap_or(a);
                            b = opnd(b).unwrap_or(b);
                            continue;
                        }
                        Some(A::Constant | A::Call | A::Label) => opnd(a) == opnd(b),
                        Some(A::Typeid) => opnd(a) == opnd(b) && t.value2[ra] == t.value2[rb],
                        Some(A::Uuidof) => equiv_types(il, dty(a), dty(b)),
                        None => return Err(IlError::BadKind(BAD_CONST)),
                    }
                }
                C::PtrToMember => {
                    flags_eq
                        && val_eq
                        && self.entity_match(il, opnd(a), opnd(b), strict)
                        && il.child_eix(a, F::CONSTANT_TEMPLATE_INFO)
                            == il.child_eix(b, F::CONSTANT_TEMPLATE_INFO)
                }
                C::LabelDifference => {
                    let (x, y) = (agg(a), agg(b));
                    let (x, y) = (&x[..x.len().min(2)], &y[..y.len().min(2)]);
                    self.push_lists(x, y, n, false)
                }
                C::DynamicInit => {
                    let r = self.push_opt(opnd(a), opnd(b), |x, y| Task::Init(x, y, 0));
                    fix_depth(&mut self.stack, n);
                    r
                }
                C::Aggregate => self.push_lists(agg(a), agg(b), n, false),
                C::InitRepeat => {
                    sub_eq && val_eq && {
                        let r = self.push_opt(opnd(a), opnd(b), |x, y| Task::Const(x, y, 0));
                        fix_depth(&mut self.stack, n);
                        r
                    }
                }
                C::TemplateParam => {
                    if !sub_eq {
                        return Ok(false);
                    }
                    use TemplateParamConstantKind as P;
                    let Some(tpck) = il.constant(a).template_param_constant_kind() else {
                        return Err(IlError::BadKind(BAD_CONST));
                    };
                    match tpck {
                        P::Value => val_eq && flags_eq && opnd(a) == opnd(b),
                        P::Expression => {
                            let r = self.push_opt(cexpr(a), cexpr(b), |x, y| Task::Expr(x, y, 0));
                            fix_depth(&mut self.stack, n);
                            r
                        }
                        P::NonMemberEntity => equiv_types(il, dty(a), dty(b)),
                        P::MemberEntity => equiv_types(il, dty(a), dty(b)) && flags_eq,
                        P::Nested | P::NestedRecursive => {
                            let r = self.push_opt(opnd(a), opnd(b), |x, y| Task::Const(x, y, 0));
                            fix_depth(&mut self.stack, n);
                            r
                        }
                        P::Sizeof
                        | P::Alignof
                        | P::Scalar7
                        | P::Scalar8
                        | P::Scalar9
                        | P::Scalar10 => {
                            equiv_types(il, dty(a), dty(b)) && {
                                let r =
                                    self.push_opt(cexpr(a), cexpr(b), |x, y| Task::Expr(x, y, 0));
                                fix_depth(&mut self.stack, n);
                                r
                            }
                        }
                        P::EntityWithArgs => {
                            let ti = |e| il.child_eix(e, F::CONSTANT_TEMPLATE_INFO);
                            match (ti(a), ti(b)) {
                                (None, None) => true,
                                (Some(x), Some(y)) => {
                                    same_args(il, x, y, |p, q| equiv_types(il, Some(p), Some(q)))
                                }
                                _ => false,
                            }
                        }
                        P::TypeOnly => true,
                    }
                }
                C::Designator => {
                    if !flags_eq {
                        return Ok(false);
                    }
                    if is_const(opnd(a)) && is_const(opnd(b)) {
                        a = opnd(a).unwrap_or(a);
                        b = opnd(b).unwrap_or(b);
                        continue;
                    }
                    self.entity_match(il, opnd(a), opnd(b), strict)
                }
                C::Reflection => val_eq && opnd(a) == opnd(b),
            });
        }
        // A chain longer than the world has entries went round a cycle: its pairs are
        // assumed equal.
        Ok(true)
    }

    fn init_step(&mut self, il: &Il, a: Eix, b: Eix, d: u32, flags: u32) -> Result<bool, IlError> {
        let strict = flags & flags::STRICT != 0;
        if a == b {
            return Ok(true);
        }
        expect(il, a, EntryKind::DynamicInit)?;
        expect(il, b, EntryKind::DynamicInit)?;
        self.enter(d);
        let t = il.dynamic_init_columns();
        let (ra, rb) = (il.row(a) as usize, il.row(b) as usize);
        let k = t.init_kind[ra];
        if k != t.init_kind[rb] {
            return Ok(false);
        }
        let var = |e| il.ref_eix(e, F::DYNAMIC_INIT_VARIABLE);
        let rtn = |e| il.ref_eix(e, F::DYNAMIC_INIT_ROUTINE);
        if !self.entity_match(il, var(a), var(b), strict)
            || !self.entity_match(il, rtn(a), rtn(b), strict)
        {
            return Ok(false);
        }
        let n = d + 1;
        let ce = |e| il.child_eix(e, F::DYNAMIC_INIT_CONSTANT);
        let ex = |e| il.child_eix(e, F::DYNAMIC_INIT_EXPR);
        let r = (!k.has_constant() || self.push_opt(ce(a), ce(b), |x, y| Task::Const(x, y, 0)))
            && (!k.has_expression() || self.push_opt(ex(a), ex(b), |x, y| Task::Expr(x, y, 0)));
        fix_depth(&mut self.stack, n);
        Ok(r)
    }
}

/// Gives tasks pushed with depth 0 (by `push_opt`) the depth `n`.
fn fix_depth(stack: &mut [Task], n: u32) {
    for t in stack.iter_mut().rev() {
        match t {
            Task::Expr(_, _, d) | Task::Const(_, _, d) | Task::Init(_, _, d) if *d == 0 => *d = n,
            _ => break,
        }
    }
}

fn expect(il: &Il, e: Eix, kind: EntryKind) -> Result<(), IlError> {
    if !il.is_live(e) {
        return Err(IlError::Assert("compare: dead entry"));
    }
    let found = il.kind(e);
    if found != kind {
        return Err(IlError::WrongTarget {
            expected: kind,
            found,
        });
    }
    Ok(())
}

#[inline]
fn const_type(il: &Il, c: Eix) -> Option<Eix> {
    il.child_eix(c, F::CONSTANT_TYPE)
}

/// The `type` child of any entry whose kind has one.
pub fn entity_type(il: &Il, e: Eix) -> Option<Eix> {
    let pos = il
        .kind(e)
        .layout()
        .singles
        .iter()
        .position(|f| f.name == "type")?;
    let c = il.children(e)[pos];
    (!c.is_none()).then_some(c)
}

/// Two distinct entities with the same sharing symbol: same kind, the same non-empty
/// name, both in file scope.
pub fn same_sharing_symbol(il: &Il, a: Eix, b: Eix) -> bool {
    il.kind(a) == il.kind(b)
        && il.region_of(a) == RegionIdx::FILE_SCOPE
        && il.region_of(b) == RegionIdx::FILE_SCOPE
        && !il.name(a).is_empty()
        && il.name(a) == il.name(b)
}

fn same_closure(il: &Il, a: Option<Eix>, b: Option<Eix>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) if x == y => true,
        (Some(x), Some(y)) => {
            il.kind(x) == EntryKind::Lambda
                && il.kind(y) == EntryKind::Lambda
                && il.child_eix(x, F::LAMBDA_CLOSURE_TYPE).is_some()
                && il.child_eix(x, F::LAMBDA_CLOSURE_TYPE)
                    == il.child_eix(y, F::LAMBDA_CLOSURE_TYPE)
        }
        _ => false,
    }
}

fn same_path(il: &Il, a: Eix, b: Eix) -> bool {
    let (mut p, mut q) = (
        il.child_eix(a, F::CONSTANT_SUBOBJECT_PATH),
        il.child_eix(b, F::CONSTANT_SUBOBJECT_PATH),
    );
    loop {
        match (p, q) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => return true,
            (Some(x), Some(y)) => {
                let t = il.subobject_path_columns();
                if t.index[il.row(x) as usize] != t.index[il.row(y) as usize]
                    || il.ref_eix(x, F::SUBOBJECT_PATH_FIELD)
                        != il.ref_eix(y, F::SUBOBJECT_PATH_FIELD)
                {
                    return false;
                }
                p = il.child_eix(x, F::SUBOBJECT_PATH_NEXT);
                q = il.child_eix(y, F::SUBOBJECT_PATH_NEXT);
            }
            _ => return false,
        }
    }
}

/// `equiv_types`: whether two types are the same type, compared structurally through the
/// type graph.
///
/// Typedefs are looked through (their qualifiers added to the type they name). Two types
/// are then equivalent when they have the same kind, qualifiers, size, alignment, integer
/// kind and format, and:
/// - classes, structs, unions and enums are the same entity, or instances of the same
///   template with equivalent arguments (types equivalent, constants equal);
/// - routine types have the same calling convention and parameter flags, equivalent
///   parameter types (pack parameters alike) and equivalent return types;
/// - template parameter types have the same position and depth;
/// - arrays have equal bounds (when they have bound constants);
/// - pointers and the rest have equivalent base types.
///
/// A cycle in the compared graph (a type reached again through template arguments or
/// parameters while its own comparison is under way) takes the pair as equal: the pairs
/// met so far are assumed equal, and the answer is false only when some pair differs.
/// Iterative.
pub fn equiv_types(il: &Il, a: Option<Eix>, b: Option<Eix>) -> bool {
    TypeEquiv::default().run(il, a, b)
}

/// The state of one [`equiv_types`] run: the type pairs still to compare and the pairs
/// already met (assumed equal while their comparison is under way). The common case, one
/// chain of base types, touches neither.
#[derive(Default)]
struct TypeEquiv {
    todo: Vec<(Eix, Eix)>,
    met: ahash::AHashSet<(Eix, Eix)>,
}

impl TypeEquiv {
    fn run(mut self, il: &Il, a: Option<Eix>, b: Option<Eix>) -> bool {
        let (mut a, mut b) = (a, b);
        loop {
            if !self.chain(il, a, b) {
                return false;
            }
            match self.todo.pop() {
                Some((x, y)) => (a, b) = (Some(x), Some(y)),
                None => return true,
            }
        }
    }

    /// Queues a pair met off the base-type chain (template arguments, parameters); a pair
    /// met before is assumed equal.
    fn defer(&mut self, a: Option<Eix>, b: Option<Eix>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                if x != y && self.met.insert((x, y)) {
                    self.todo.push((x, y));
                }
                true
            }
            _ => false,
        }
    }

    /// Compares two types and their base-type chains, queueing the pairs off the chain.
    fn chain(&mut self, il: &Il, mut a: Option<Eix>, mut b: Option<Eix>) -> bool {
        // A chain longer than the world has entries has a cycle of base types.
        for _ in 0..=il.len() {
            let (x, y) = match (a, b) {
                (None, None) => return true,
                (Some(x), Some(y)) if x == y => return true,
                (Some(x), Some(y)) => (x, y),
                _ => return false,
            };
            let ((x, qx), (y, qy)) = (through_typedefs(il, x), through_typedefs(il, y));
            if x == y {
                return qx == qy;
            }
            if il.kind(x) != EntryKind::Type || il.kind(y) != EntryKind::Type {
                return false;
            }
            let t = il.ty_columns();
            let (rx, ry) = (il.row(x) as usize, il.row(y) as usize);
            let k = t.type_kind[rx];
            if k != t.type_kind[ry]
                || qx != qy
                || t.size[rx] != t.size[ry]
                || t.alignment[rx] != t.alignment[ry]
                || t.int_kind[rx] != t.int_kind[ry]
                || t.format[rx] != t.format[ry]
            {
                return false;
            }
            let same = match k {
                k if k.is_class() || is_enum(il, x) => return self.same_entity(il, x, y),
                TypeKind::TemplateParam => {
                    return t.tparam_position[rx] == t.tparam_position[ry]
                        && t.tparam_depth[rx] == t.tparam_depth[ry]
                }
                TypeKind::Routine => self.same_signature(il, x, y),
                TypeKind::Array => same_bound(il, x, y),
                _ => true,
            };
            if !same {
                return false;
            }
            a = il.child_eix(x, F::TYPE_BASE_TYPE);
            b = il.child_eix(y, F::TYPE_BASE_TYPE);
        }
        false
    }

    /// Two distinct class or enum types: the same entity only as instances of the same
    /// template with equivalent arguments.
    fn same_entity(&mut self, il: &Il, x: Eix, y: Eix) -> bool {
        let (Some(ix), Some(iy)) = (
            il.child_eix(x, F::TYPE_TEMPLATE_INFO),
            il.child_eix(y, F::TYPE_TEMPLATE_INFO),
        ) else {
            return false;
        };
        let template = |i| il.ref_eix(i, F::TEMPLATE_INFO_TEMPLATE);
        if template(ix).is_none() || template(ix) != template(iy) {
            return false;
        }
        same_args(il, ix, iy, |p, q| self.defer(Some(p), Some(q)))
    }

    /// Two routine types' signatures but the return type (their base types).
    fn same_signature(&mut self, il: &Il, x: Eix, y: Eix) -> bool {
        let (sx, sy) = match (
            il.child_eix(x, F::TYPE_ROUTINE_SUPPLEMENT),
            il.child_eix(y, F::TYPE_ROUTINE_SUPPLEMENT),
        ) {
            (None, None) => return true,
            (Some(sx), Some(sy)) => (sx, sy),
            _ => return false,
        };
        let (vx, vy) = (
            il.routine_type_supplement(sx),
            il.routine_type_supplement(sy),
        );
        if vx.calling_convention() != vy.calling_convention()
            || vx.param_flags() != vy.param_flags()
        {
            return false;
        }
        let (p, q) = (
            il.list_eix(sx, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS),
            il.list_eix(sy, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS),
        );
        p.len() == q.len()
            && p.iter().zip(q).all(|(&p, &q)| {
                let ty = |e| il.child_eix(e, F::PARAM_TYPE_TYPE);
                il.param_type(p).is_pack() == il.param_type(q).is_pack() && self.defer(ty(p), ty(q))
            })
    }
}

/// The arguments of two template infos: as many, and pairwise the same entry, types
/// `types` accepts, or equal constants.
fn same_args(il: &Il, x: Eix, y: Eix, mut types: impl FnMut(Eix, Eix) -> bool) -> bool {
    let (p, q) = (
        il.list_eix(x, F::TEMPLATE_INFO_ARGS),
        il.list_eix(y, F::TEMPLATE_INFO_ARGS),
    );
    p.len() == q.len()
        && p.iter().zip(q).all(|(&p, &q)| {
            p == q
                || match (il.kind(p), il.kind(q)) {
                    (EntryKind::Type, EntryKind::Type) => types(p, q),
                    (EntryKind::Constant, EntryKind::Constant) => {
                        compare_constants(il, p, q, 0) == Ok(true)
                    }
                    _ => false,
                }
        })
}

/// The requires-clause expression of the template entity `e` names: `e` itself, a
/// routine's primary template, or the template a type is an instance of.
fn constraint_of(il: &Il, e: Option<Eix>) -> Option<Eix> {
    let e = e?;
    let t = match il.kind(e) {
        EntryKind::Template => e,
        EntryKind::Routine => il.ref_eix(e, F::ROUTINE_PRIMARY_TEMPLATE)?,
        EntryKind::Type => il.ref_eix(
            il.child_eix(e, F::TYPE_TEMPLATE_INFO)?,
            F::TEMPLATE_INFO_TEMPLATE,
        )?,
        _ => return None,
    };
    il.child_eix(
        il.child_eix(t, F::TEMPLATE_REQUIRES)?,
        F::REQUIRES_CLAUSE_EXPR,
    )
}

/// `t` with its typedefs looked through, and the qualifiers they and it carry.
fn through_typedefs(il: &Il, mut t: Eix) -> (Eix, u8) {
    let mut q = 0;
    for _ in 0..=il.len() {
        let Some(v) = il.as_ty(t) else {
            return (t, q);
        };
        q |= v.qualifiers();
        if v.type_kind() != TypeKind::Typeref {
            return (t, q);
        }
        match il.child_eix(t, F::TYPE_BASE_TYPE) {
            Some(b) => t = b,
            None => return (t, q),
        }
    }
    (t, q)
}

/// An enum type (an integer type of format 1, as the importer makes one), compared by
/// entity as classes are.
fn is_enum(il: &Il, t: Eix) -> bool {
    let v = il.ty(t);
    v.type_kind() == TypeKind::Integer && v.format() == 1
}

/// Two array types' bounds: both absent, the same constant, or equal constants.
fn same_bound(il: &Il, x: Eix, y: Eix) -> bool {
    match (
        il.child_eix(x, F::TYPE_ARRAY_BOUND),
        il.child_eix(y, F::TYPE_ARRAY_BOUND),
    ) {
        (None, None) => true,
        (Some(p), Some(q)) => p == q || compare_constants(il, p, q, 0) == Ok(true),
        _ => false,
    }
}

/// Shape of a type for hashing: equal for every pair [`equiv_types`] accepts (typedefs
/// looked through, as it does).
pub fn type_shape(il: &Il, t: Option<Eix>) -> u64 {
    let Some(t) = t else {
        return 0;
    };
    let (x, q) = through_typedefs(il, t);
    if il.kind(x) != EntryKind::Type {
        return 1;
    }
    let r = il.row(x) as usize;
    let t = il.ty_columns();
    1 + (t.type_kind[r] as u64)
        + ((q as u64) << 8)
        + ((t.int_kind[r] as u64) << 16)
        + (t.size[r] << 24)
}

/// [`Comparer::compare_expressions`] with a fresh comparer.
///
/// # Errors
/// See [`Comparer::compare_expressions`].
pub fn compare_expressions(il: &Il, a: Eix, b: Eix, flags: u32) -> Result<bool, IlError> {
    Comparer::new().compare_expressions(il, a, b, flags)
}

/// `compare_expressions_for_equivalence`: [`compare_expressions`] with flags
/// [`flags::ALLOW_SPECIALIZATION`].
///
/// # Errors
/// See [`Comparer::compare_expressions`].
pub fn compare_expressions_for_equivalence(il: &Il, a: Eix, b: Eix) -> Result<bool, IlError> {
    compare_expressions(il, a, b, flags::ALLOW_SPECIALIZATION)
}

/// [`Comparer::compare_constants`] with a fresh comparer.
///
/// # Errors
/// See [`Comparer::compare_constants`].
pub fn compare_constants(il: &Il, a: Eix, b: Eix, flags: u32) -> Result<bool, IlError> {
    Comparer::new().compare_constants(il, a, b, flags)
}

/// `compare_constants_default`: [`compare_constants`] with flags 0.
///
/// # Errors
/// See [`Comparer::compare_constants`].
pub fn compare_constants_default(il: &Il, a: Eix, b: Eix) -> Result<bool, IlError> {
    compare_constants(il, a, b, 0)
}

/// [`Comparer::compare_dynamic_inits`] with a fresh comparer.
///
/// # Errors
/// See [`Comparer::compare_dynamic_inits`].
pub fn compare_dynamic_inits(il: &Il, a: Eix, b: Eix, flags: u32) -> Result<bool, IlError> {
    Comparer::new().compare_dynamic_inits(il, a, b, flags)
}

/// Constant kind names for messages (re-exported for tests and traces).
pub fn constant_kind_name(k: u8) -> &'static str {
    ConstantKind::from_raw(k).map_or("ck_bad", ConstantKind::name)
}

/// Whether two constants carry the same text (a string's bytes; a floating value wider
/// than `double` as written), both none included.
fn same_text(il: &Il, a: Eix, b: Eix) -> bool {
    let (ca, cb) = (il.constant(a), il.constant(b));
    let (la, lb) = (ca.text_len() as usize, cb.text_len() as usize);
    la == lb && {
        let (x, y) = (ca.text(), cb.text());
        x.get(..la.min(x.len())) == y.get(..lb.min(y.len()))
    }
}
