//! The instruction-level SSA view of a module: module-wide tables (types, attribute
//! sets, functions' signatures and arguments, constant expressions, globals, debug
//! locations) and one [`Body`] per function, the form the middle end reads and edits.
//! What function-level analyses (`function-attrs`) and cost models (the inline cost
//! model) read; the call graph and the CFG builder never need it.
//!
//! It is opt-in: the `.ll` reader's `instructions` option asks the reader
//! for it, and [`super::Module::ir`] is `None` otherwise (the call graph's own fields are
//! the same either way).
//!
//! # What is recorded
//! - **Types**: every type mentioned, interned ([`Types`]); identified structs with
//!   their bodies.
//! - **Functions** ([`FuncIr`], one row per [`FuncIdx`], declarations included): the
//!   function type, return type, return / function attribute sets (inline words and
//!   `#N` groups merged), `dso_local`, the personality and the argument range.
//!   [`Ir::intrinsic`] names the intrinsics analyses special-case.
//! - **Arguments** ([`ArgIdx`], module-wide, function-major): type, attribute set,
//!   function, name.
//! - **Bodies** ([`Ir::body`], one per function, empty for a declaration): the reader
//!   writes each function's instructions straight into its [`Body`]: rows in text order
//!   (opcode, flags ([`InstFlags`]: volatile, atomic ordering, syncscope, inbounds,
//!   nuw/nsw/exact, tail, unwind-to-caller, `!nonnull`), result type, an auxiliary type
//!   and word, below), operands in one pool as body-local [`V`]s (an argument by
//!   position, an instruction by row, a block, an integer sign-extended from its width,
//!   any other constant as a module [`Value`]), each with its type; local names resolved
//!   to their definitions, forward references included; a call side table (function /
//!   return / per-argument attribute sets, argument count, operand-bundle tags, the
//!   `!dbg` location); `!prof` branch weights of terminators; blocks in text order.
//! - **Constant expressions** ([`ExprIdx`], interned by text): opcode, result type,
//!   auxiliary type, flags, operands (module [`Value`]s).
//! - **Globals / aliases**: a variable's value type and address space, an alias'
//!   aliasee.
//! - **Debug locations** ([`debugloc`]): the locations calls' `!dbg` attachments name
//!   (a body's [`body::CallInfo::dbg`] indexes them), inlined-at chains and subprograms,
//!   and each definition's subprogram; what inline replay keys its decisions by.
//!
//! # Operand layout per opcode
//! | opcode | operands | `aux_ty` | `aux` |
//! |---|---|---|---|
//! | `ret` | `[v]` or `[]` | | |
//! | `br` | `[bb]` or `[cond, t, f]` | | |
//! | `switch` | `[v, default, (case, bb)*]` | | |
//! | `indirectbr` | `[addr, bb*]` | | |
//! | `call` | `[args.., bundle ops.., callee]` | function type | |
//! | `invoke` / `callbr` | `[args.., bundle ops.., callee, dests..]` (normal then unwind / default then indirect) | function type | |
//! | `alloca` | `[count]` or `[]` | allocated type | |
//! | `load` | `[ptr]` | | |
//! | `store` | `[value, ptr]` | | |
//! | `getelementptr` | `[base, idx*]` | source element type | |
//! | casts | `[v]` | | |
//! | binary ops, `icmp`, `fcmp` | `[a, b]` | | predicate ([`Predicate`]) |
//! | `select` | `[cond, a, b]` | | |
//! | `phi` | `[(v, bb)*]` | | |
//! | `cmpxchg` | `[ptr, cmp, new]` | | failure ordering |
//! | `atomicrmw` | `[ptr, v]` | | operation index (LangRef order) |
//! | `fence` | `[]` | | |
//! | `va_arg` | `[ptr]` | | |
//! | `extractvalue` / `insertvalue` | `[agg, (v,)? idx*]` (indices as integers) | | |
//! | `landingpad` | clause values | | |
//! | `catchpad` / `cleanuppad` | `[parent, args*]` | | |
//! | `catchswitch` | `[parent, handler bb*, unwind bb?]` | | |
//! | `cleanupret` / `catchret` | `[pad, bb?]` | | |
//! | `resume` | `[v]` | | |
//! | others | in text order | | |
//!
//! # Invariants
//! - one body per function; a body's argument count is its function's;
//! - `funcs[f].args` partition the argument table in function order;
//! - every body passes [`Body::verify`]; a body's constant operands name expressions
//!   and wide integers of the module. [`Ir::verify`] checks all of this.
//!
//! # Complexity
//! Built in one pass over the function bodies (O(text)). All accessors are O(1); a
//! body's use lists are built on demand ([`Body::use_table`]).

use super::attrs::{AttrSet, AttrSetIdx, AttrSets};
use super::types::{TypeIdx, Types};
use super::{AliasIdx, FuncIdx, GlobalIdx};
use crate::idx::IndexVec;
use body::{Body, V};

crate::define_idx!(
    /// A formal argument, module-wide, function-major.
    ArgIdx,
    "a"
);
crate::define_idx!(
    /// An interned constant expression.
    ExprIdx,
    "ce"
);

pub mod body;
pub mod debugloc;
mod vocab;
pub use vocab::{BundleTags, InstFlags, Intrinsic, Opcode, Ordering, Predicate, Value};

/// A run of rows in a pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Range<I> {
    /// First row.
    pub start: I,
    /// Number of rows.
    pub len: u32,
}

/// Per-function facts of the instruction view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncIr {
    /// The function type.
    pub fn_ty: TypeIdx,
    /// The return type.
    pub ret_ty: TypeIdx,
    /// Function attributes (inline keywords and `#N` groups).
    pub attrs: AttrSetIdx,
    /// Return attributes.
    pub ret_attrs: AttrSetIdx,
    /// `dso_local`.
    pub dso_local: bool,
    /// The personality function (`Value::None` without one).
    pub personality: Value,
    /// Formal arguments.
    pub args: Range<ArgIdx>,
}

/// The instruction-level view of a module (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ir {
    /// Interned types.
    pub types: Types,
    /// Interned attribute sets.
    pub attr_sets: AttrSets,
    /// Per function.
    pub funcs: IndexVec<FuncIdx, FuncIr>,
    /// Per function: which intrinsic it is.
    pub intrinsic: IndexVec<FuncIdx, Intrinsic>,
    // arguments
    pub(crate) arg_func: IndexVec<ArgIdx, FuncIdx>,
    pub(crate) arg_ty: IndexVec<ArgIdx, TypeIdx>,
    pub(crate) arg_attrs: IndexVec<ArgIdx, AttrSetIdx>,
    /// Argument names as written (`%p`, `%0`; empty when unnamed): `arg_names[start..]`
    /// with `arg_name_start` parallel to the argument table plus an end row.
    pub(crate) arg_names: String,
    pub(crate) arg_name_start: Vec<u32>,
    /// Per function: its body (empty for a declaration).
    pub(crate) bodies: IndexVec<FuncIdx, Body>,
    // constant expressions
    pub(crate) expr_op: IndexVec<ExprIdx, Opcode>,
    pub(crate) expr_ty: IndexVec<ExprIdx, TypeIdx>,
    pub(crate) expr_aux_ty: IndexVec<ExprIdx, TypeIdx>,
    pub(crate) expr_flags: IndexVec<ExprIdx, InstFlags>,
    pub(crate) expr_op_start: Vec<u32>,
    pub(crate) expr_operands: Vec<Value>,
    pub(crate) expr_op_types: Vec<TypeIdx>,
    pub(crate) wide_ints: Vec<i64>,
    /// The values of the `float` / `double` constants ([`Value::Float`]), as `f64` bits,
    /// each value once.
    pub(crate) floats: Vec<u64>,
    // globals
    pub(crate) global_ty: IndexVec<GlobalIdx, TypeIdx>,
    pub(crate) global_addrspace: IndexVec<GlobalIdx, u32>,
    pub(crate) alias_target: IndexVec<AliasIdx, Value>,
    /// Module flag `"SemanticInterposition"` set.
    pub semantic_interposition: bool,
    /// Debug locations of the calls (`!dbg`), their inlined-at chains and subprograms
    /// ([`debugloc`]); empty without debug information.
    pub debug_locs: debugloc::DebugLocs,
}

impl Ir {
    // ------------------------------------------------------------ functions, args

    /// Function `f`'s row.
    #[inline]
    pub fn func(&self, f: FuncIdx) -> &FuncIr {
        &self.funcs[f]
    }

    /// Function `f`'s attributes.
    #[inline]
    pub fn fn_attrs(&self, f: FuncIdx) -> &AttrSet {
        self.attr_sets.get(self.funcs[f].attrs)
    }

    /// Function `f`'s return attributes.
    #[inline]
    pub fn ret_attrs(&self, f: FuncIdx) -> &AttrSet {
        self.attr_sets.get(self.funcs[f].ret_attrs)
    }

    /// The arguments of `f`.
    pub fn args(&self, f: FuncIdx) -> impl Iterator<Item = ArgIdx> + Clone {
        let r = self.funcs[f].args;
        (r.start.idx()..r.start.idx() + r.len as usize).map(ArgIdx::new)
    }

    /// The `n`th argument of `f`, if it has one.
    pub fn arg(&self, f: FuncIdx, n: usize) -> Option<ArgIdx> {
        let r = self.funcs[f].args;
        (n < r.len as usize).then(|| ArgIdx::new(r.start.idx() + n))
    }

    /// Number of formal arguments of `f`.
    pub fn num_args(&self, f: FuncIdx) -> usize {
        self.funcs[f].args.len as usize
    }

    /// The function type of `f` is vararg.
    pub fn is_vararg(&self, f: FuncIdx) -> bool {
        self.types
            .function_parts(self.funcs[f].fn_ty)
            .is_some_and(|(_, _, v)| v)
    }

    /// Number of arguments.
    pub fn num_all_args(&self) -> usize {
        self.arg_ty.len()
    }

    /// Type of argument `a`.
    #[inline]
    pub fn arg_ty(&self, a: ArgIdx) -> TypeIdx {
        self.arg_ty[a]
    }

    /// Attributes of argument `a`.
    #[inline]
    pub fn arg_attrs(&self, a: ArgIdx) -> &AttrSet {
        self.attr_sets.get(self.arg_attrs[a])
    }

    /// The function argument `a` belongs to.
    #[inline]
    pub fn arg_func(&self, a: ArgIdx) -> FuncIdx {
        self.arg_func[a]
    }

    /// The name of argument `a` as written (`%p`; empty when unnamed).
    pub fn arg_name(&self, a: ArgIdx) -> &str {
        &self.arg_names
            [self.arg_name_start[a.idx()] as usize..self.arg_name_start[a.idx() + 1] as usize]
    }

    /// The position of argument `a` in its function.
    #[inline]
    pub fn arg_no(&self, a: ArgIdx) -> usize {
        a.idx() - self.funcs[self.arg_func[a]].args.start.idx()
    }

    // ------------------------------------------------------------ bodies

    /// Function `f`'s body (empty for a declaration): the rows, blocks, calls and
    /// branch weights the reader read, in the form the middle end edits.
    #[inline]
    pub fn body(&self, f: FuncIdx) -> &Body {
        &self.bodies[f]
    }

    /// Number of blocks of `f`.
    pub fn num_blocks(&self, f: FuncIdx) -> usize {
        self.bodies[f].blocks.len()
    }

    /// Number of instructions of every body.
    pub fn num_insts(&self) -> usize {
        self.bodies.iter().map(|b| b.num_rows() as usize).sum()
    }

    // ------------------------------------------------------------ constants

    /// The value of a wide integer constant.
    pub fn wide_int(&self, w: u32) -> i64 {
        self.wide_ints[w as usize]
    }

    /// The value of floating-point constant `n` ([`Value::Float`]; a `float` constant's
    /// value is exact in `f64`).
    pub fn float(&self, n: u32) -> f64 {
        f64::from_bits(self.floats[n as usize])
    }

    /// The value of an integer constant operand.
    pub fn int_value(&self, v: Value) -> Option<i64> {
        match v {
            Value::Int(x) => Some(x as i64),
            Value::WideInt(w) => Some(self.wide_ints[w as usize]),
            _ => None,
        }
    }

    /// The type of a value that carries its own (a constant expression); NONE for other
    /// constants, whose type is the operand slot's.
    pub fn value_ty(&self, v: Value) -> TypeIdx {
        match v {
            Value::Expr(e) => self.expr_ty[e],
            _ => TypeIdx::NONE,
        }
    }

    // ------------------------------------------------------------ constant expressions

    /// Number of constant expressions.
    pub fn num_exprs(&self) -> usize {
        self.expr_op.len()
    }

    /// Opcode of expression `e`.
    #[inline]
    pub fn expr_op(&self, e: ExprIdx) -> Opcode {
        self.expr_op[e]
    }

    /// Type of expression `e`.
    #[inline]
    pub fn expr_ty(&self, e: ExprIdx) -> TypeIdx {
        self.expr_ty[e]
    }

    /// Auxiliary type of expression `e` (GEP source element type).
    #[inline]
    pub fn expr_aux_ty(&self, e: ExprIdx) -> TypeIdx {
        self.expr_aux_ty[e]
    }

    /// Flags of expression `e`.
    #[inline]
    pub fn expr_flags(&self, e: ExprIdx) -> InstFlags {
        self.expr_flags[e]
    }

    /// Operands of expression `e`.
    pub fn expr_operands(&self, e: ExprIdx) -> &[Value] {
        &self.expr_operands
            [self.expr_op_start[e.idx()] as usize..self.expr_op_start[e.idx() + 1] as usize]
    }

    /// Operand types of expression `e`.
    pub fn expr_operand_types(&self, e: ExprIdx) -> &[TypeIdx] {
        &self.expr_op_types
            [self.expr_op_start[e.idx()] as usize..self.expr_op_start[e.idx() + 1] as usize]
    }

    // ------------------------------------------------------------ globals

    /// The value type of global variable `g`.
    pub fn global_ty(&self, g: GlobalIdx) -> TypeIdx {
        self.global_ty[g]
    }

    /// The address space of global variable `g`.
    pub fn global_addrspace(&self, g: GlobalIdx) -> u32 {
        self.global_addrspace[g]
    }

    /// The aliasee of alias `a`.
    pub fn alias_target(&self, a: AliasIdx) -> Value {
        self.alias_target[a]
    }

    // ------------------------------------------------------------ checks

    /// Checks the invariants of the module docs; returns every problem found.
    pub fn verify(&self) -> Vec<String> {
        let mut errs = Vec::new();
        if self.bodies.len() != self.funcs.len() {
            errs.push(format!(
                "{} bodies for {} functions",
                self.bodies.len(),
                self.funcs.len()
            ));
            return errs;
        }
        let mut next_arg = 0usize;
        for (f, fr) in self.funcs.iter_enumerated() {
            if fr.args.start.idx() != next_arg {
                errs.push(format!(
                    "{f}: arguments do not follow the previous function's"
                ));
            }
            next_arg = fr.args.start.idx() + fr.args.len as usize;
            let b = &self.bodies[f];
            if b.nargs != fr.args.len {
                errs.push(format!(
                    "{f}: body has {} arguments, not {}",
                    b.nargs, fr.args.len
                ));
            }
            if let Err(e) = b.verify() {
                errs.push(format!("{f}: {e}"));
            }
            for r in b.live_rows() {
                for v in b.ops(r) {
                    let ok = match *v {
                        V::K(Value::Expr(e)) => e.idx() < self.expr_op.len(),
                        V::K(Value::WideInt(w)) => (w as usize) < self.wide_ints.len(),
                        V::K(Value::Float(n)) => (n as usize) < self.floats.len(),
                        V::K(Value::Block(_)) => false,
                        _ => true,
                    };
                    if !ok {
                        errs.push(format!("{f} {r}: operand {v:?} is out of range"));
                    }
                }
            }
        }
        if next_arg != self.arg_ty.len() {
            errs.push("functions do not cover the argument table".into());
        }
        errs.extend(self.debug_locs.verify());
        if self.debug_locs.func_rows() > self.funcs.len() {
            errs.push("debug locations name functions that do not exist".into());
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-operand and per-use rows stay small: they are the bulk of the view.
    #[test]
    fn hot_rows_are_small() {
        assert_eq!(std::mem::size_of::<Value>(), 8);
        assert_eq!(std::mem::size_of::<InstFlags>(), 2);
        assert_eq!(std::mem::size_of::<Opcode>(), 1);
        assert_eq!(std::mem::size_of::<AttrSet>(), 48);
    }

    #[test]
    fn intrinsics_by_name() {
        assert_eq!(
            Intrinsic::from_name("llvm.memcpy.p0i8.p0i8.i64"),
            Intrinsic::Memcpy
        );
        assert_eq!(
            Intrinsic::from_name("llvm.memcpy.inline.p0.p0.i64"),
            Intrinsic::MemcpyInline
        );
        assert_eq!(
            Intrinsic::from_name("llvm.memset.p0i8.i64"),
            Intrinsic::Memset
        );
        assert_eq!(Intrinsic::from_name("llvm.dbg.declare"), Intrinsic::Debug);
        assert_eq!(Intrinsic::from_name("llvm.memsetx"), Intrinsic::Other);
        assert_eq!(Intrinsic::from_name("memcpy"), Intrinsic::None);
        assert!(Intrinsic::Memmove.is_mem_intrinsic());
    }

    #[test]
    fn flags_and_predicates() {
        let mut f = InstFlags::default();
        f.set_ordering(Ordering::Monotonic);
        assert!(f.is_atomic() && !f.is_unordered());
        f.set_ordering(Ordering::Unordered);
        assert!(f.is_unordered());
        f.0 |= InstFlags::VOLATILE;
        assert!(!f.is_unordered());
        assert_eq!(Predicate::from_word("eq", false), Some(Predicate(32)));
        assert_eq!(Predicate::from_word("oeq", true), Some(Predicate(1)));
        for (w, fcmp) in [
            ("sle", false),
            ("ugt", false),
            ("une", true),
            ("true", true),
        ] {
            assert_eq!(Predicate::from_word(w, fcmp).unwrap().name(), w);
        }
        assert_eq!(Predicate(20).name(), "");
        assert_eq!(
            Opcode::from_word("getelementptr"),
            Some(Opcode::GetElementPtr)
        );
        assert!(Opcode::Invoke.is_call() && Opcode::Invoke.is_terminator());
    }
}
