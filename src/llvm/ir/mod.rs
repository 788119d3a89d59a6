//! The instruction-level SSA view of a module: arguments, instructions, operands, call
//! details, constant expressions and def-use lists, in module-wide struct-of-arrays
//! tables. What function-level analyses (`function-attrs`) and cost models (the inline
//! cost model) read; the call graph and the CFG builder never need it.
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
//!   `#N` groups merged), `dso_local`, the personality, the argument range and the
//!   instruction and block ranges. [`Ir::intrinsic`] names the intrinsics analyses
//!   special-case.
//! - **Arguments** ([`ArgIdx`], module-wide, function-major): type, attribute set,
//!   function.
//! - **Instructions** ([`InstIdx`], module-wide, in text order; a function's
//!   instructions are contiguous, so are a block's): opcode, block, function, flags
//!   ([`InstFlags`]: volatile, atomic ordering, syncscope, inbounds, nuw/nsw/exact, tail,
//!   unwind-to-caller, `!nonnull`), result type, an auxiliary type (below), an auxiliary
//!   word (comparison predicate, atomicrmw operation, or the call row), and operands.
//! - **Operands** are [`Value`]s (argument, instruction, global symbol, integer, null,
//!   undef, poison, zero, other constant, constant expression, block, inline asm,
//!   metadata), each with its type, pooled per instruction. Local names are resolved to
//!   their definitions, forward references included.
//! - **Calls** ([`CallIdx`], one row per `call`/`invoke`/`callbr`): the instruction,
//!   function type, call-site function / return / per-argument attribute sets, argument
//!   count, operand-bundle operand count and tags.
//! - **Constant expressions** ([`ExprIdx`], interned by text): opcode, result type,
//!   auxiliary type, flags, operands (as instruction operands are).
//! - **Globals / aliases**: a variable's value type and address space, an alias'
//!   aliasee.
//! - **Uses**: for every argument and instruction the list of `(user, operand index)`
//!   pairs, one per operand slot (a user that uses a value twice is listed twice).
//! - **Debug locations** ([`debugloc`]): the `!dbg` location of each call, its
//!   inlined-at chain and subprograms, and each definition's subprogram; what inline
//!   replay keys its decisions by.
//!
//! # Operand layout per opcode
//! | opcode | operands | `aux_ty` | `aux` |
//! |---|---|---|---|
//! | `ret` | `[v]` or `[]` | | |
//! | `br` | `[bb]` or `[cond, t, f]` | | |
//! | `switch` | `[v, default, (case, bb)*]` | | |
//! | `indirectbr` | `[addr, bb*]` | | |
//! | `call` | `[args.., bundle ops.., callee]` | function type | call row |
//! | `invoke` / `callbr` | `[args.., bundle ops.., callee, dests..]` (normal then unwind / default then indirect) | function type | call row |
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
//! - `op_start.len() == num_insts + 1`; operands of `i` are
//!   `operands[op_start[i]..op_start[i + 1]]`, and `op_types` is parallel to `operands`;
//! - every `Value::Inst` names an instruction of the same function, every `Value::Arg`
//!   an argument of it, every `Value::Block` a block of it;
//! - `funcs[f].insts` / `funcs[f].args` partition the instruction and argument tables
//!   in function order; `block_start` rows of a function are increasing;
//! - the use lists are exactly the transposed operand table (restricted to arguments and
//!   instructions). [`Ir::verify`] checks all of this.
//!
//! # Complexity
//! Built in one pass over the function bodies (O(text)); uses by one counting sort
//! (O(operands)). All accessors are O(1).

use super::attrs::{AttrSet, AttrSetIdx, AttrSets};
use super::types::{TypeIdx, Types};
use super::{AliasIdx, FuncIdx, GlobalIdx};
use crate::idx::{BlockIdx, IndexVec};

crate::define_idx!(
    /// An instruction, module-wide, in text order.
    InstIdx,
    "i"
);
crate::define_idx!(
    /// A formal argument, module-wide, function-major.
    ArgIdx,
    "a"
);
crate::define_idx!(
    /// A call-like instruction's call row.
    CallIdx,
    "call"
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
    /// Instructions (empty for a declaration).
    pub insts: Range<InstIdx>,
    /// Rows of `Ir::block_start`: one per block plus an end row (empty for a
    /// declaration).
    pub blocks: Range<u32>,
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
    // instructions
    pub(crate) op: IndexVec<InstIdx, Opcode>,
    pub(crate) block: IndexVec<InstIdx, BlockIdx>,
    pub(crate) func: IndexVec<InstIdx, FuncIdx>,
    pub(crate) flags: IndexVec<InstIdx, InstFlags>,
    pub(crate) ty: IndexVec<InstIdx, TypeIdx>,
    pub(crate) aux_ty: IndexVec<InstIdx, TypeIdx>,
    pub(crate) aux: IndexVec<InstIdx, u32>,
    pub(crate) op_start: Vec<u32>,
    pub(crate) operands: Vec<Value>,
    pub(crate) op_types: Vec<TypeIdx>,
    /// Per function and block: the block's first instruction; each function's rows end
    /// with one past its last instruction.
    pub(crate) block_start: Vec<InstIdx>,
    // calls
    pub(crate) call_inst: IndexVec<CallIdx, InstIdx>,
    pub(crate) call_attrs: IndexVec<CallIdx, AttrSetIdx>,
    pub(crate) call_ret_attrs: IndexVec<CallIdx, AttrSetIdx>,
    pub(crate) call_arg_count: IndexVec<CallIdx, u32>,
    pub(crate) call_bundle_ops: IndexVec<CallIdx, u32>,
    pub(crate) call_bundles: IndexVec<CallIdx, BundleTags>,
    pub(crate) call_param_start: IndexVec<CallIdx, u32>,
    pub(crate) call_params: Vec<AttrSetIdx>,
    // constant expressions
    pub(crate) expr_op: IndexVec<ExprIdx, Opcode>,
    pub(crate) expr_ty: IndexVec<ExprIdx, TypeIdx>,
    pub(crate) expr_aux_ty: IndexVec<ExprIdx, TypeIdx>,
    pub(crate) expr_flags: IndexVec<ExprIdx, InstFlags>,
    pub(crate) expr_op_start: Vec<u32>,
    pub(crate) expr_operands: Vec<Value>,
    pub(crate) expr_op_types: Vec<TypeIdx>,
    pub(crate) wide_ints: Vec<i64>,
    // globals
    pub(crate) global_ty: IndexVec<GlobalIdx, TypeIdx>,
    pub(crate) global_addrspace: IndexVec<GlobalIdx, u32>,
    pub(crate) alias_target: IndexVec<AliasIdx, Value>,
    /// Module flag `"SemanticInterposition"` set.
    pub semantic_interposition: bool,
    // uses
    pub(crate) arg_use_start: Vec<u32>,
    pub(crate) inst_use_start: Vec<u32>,
    pub(crate) uses: Vec<Use>,
    /// Debug locations of the calls (`!dbg`), their inlined-at chains and subprograms
    /// ([`debugloc`]); empty without debug information.
    pub debug_locs: debugloc::DebugLocs,
    /// `!prof !{!"branch_weights", ...}` of terminators (`br`, `switch`), by
    /// instruction: one weight per successor operand, as written.
    pub branch_weights: ahash::AHashMap<InstIdx, Box<[u32]>>,
}

/// One use of a value: the user and the operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    /// The using instruction.
    pub user: InstIdx,
    /// The operand index in the user.
    pub op: u32,
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

    // ------------------------------------------------------------ instructions

    /// Number of instructions.
    pub fn num_insts(&self) -> usize {
        self.op.len()
    }

    /// The instructions of `f`, in text order.
    pub fn insts(&self, f: FuncIdx) -> impl Iterator<Item = InstIdx> + Clone {
        let r = self.funcs[f].insts;
        (r.start.idx()..r.start.idx() + r.len as usize).map(InstIdx::new)
    }

    /// Number of blocks of `f`.
    pub fn num_blocks(&self, f: FuncIdx) -> usize {
        (self.funcs[f].blocks.len as usize).saturating_sub(1)
    }

    /// The instructions of block `b` of `f`.
    pub fn block_insts(&self, f: FuncIdx, b: BlockIdx) -> impl Iterator<Item = InstIdx> + Clone {
        let row = self.funcs[f].blocks.start as usize + b.idx();
        (self.block_start[row].idx()..self.block_start[row + 1].idx()).map(InstIdx::new)
    }

    /// The terminator of block `b` of `f` (its last instruction), if the block has any.
    pub fn terminator(&self, f: FuncIdx, b: BlockIdx) -> Option<InstIdx> {
        let row = self.funcs[f].blocks.start as usize + b.idx();
        let (s, e) = (self.block_start[row], self.block_start[row + 1]);
        (e.idx() > s.idx()).then(|| InstIdx::new(e.idx() - 1))
    }

    /// The successors of block `b` of `f`: the block operands of its terminator, in
    /// operand order (duplicates kept).
    pub fn successors(&self, f: FuncIdx, b: BlockIdx) -> impl Iterator<Item = BlockIdx> + '_ {
        let ops = match self.terminator(f, b) {
            Some(t) if self.op[t].is_terminator() => self.operands(t),
            _ => &[],
        };
        ops.iter().filter_map(|v| match *v {
            Value::Block(s) => Some(s),
            _ => None,
        })
    }

    /// Opcode of `i`.
    #[inline]
    pub fn op(&self, i: InstIdx) -> Opcode {
        self.op[i]
    }

    /// Block of `i`.
    #[inline]
    pub fn block(&self, i: InstIdx) -> BlockIdx {
        self.block[i]
    }

    /// Function of `i`.
    #[inline]
    pub fn inst_func(&self, i: InstIdx) -> FuncIdx {
        self.func[i]
    }

    /// Flags of `i`.
    #[inline]
    pub fn flags(&self, i: InstIdx) -> InstFlags {
        self.flags[i]
    }

    /// Result type of `i` (`void` when it has none).
    #[inline]
    pub fn ty(&self, i: InstIdx) -> TypeIdx {
        self.ty[i]
    }

    /// Auxiliary type of `i` (see the module docs' table).
    #[inline]
    pub fn aux_ty(&self, i: InstIdx) -> TypeIdx {
        self.aux_ty[i]
    }

    /// Auxiliary word of `i` (see the module docs' table).
    #[inline]
    pub fn aux(&self, i: InstIdx) -> u32 {
        self.aux[i]
    }

    /// The comparison predicate of an `icmp` / `fcmp`.
    pub fn predicate(&self, i: InstIdx) -> Predicate {
        Predicate(self.aux[i] as u8)
    }

    /// Operands of `i`.
    #[inline]
    pub fn operands(&self, i: InstIdx) -> &[Value] {
        &self.operands[self.op_start[i.idx()] as usize..self.op_start[i.idx() + 1] as usize]
    }

    /// Operand types of `i` (parallel to [`Ir::operands`]).
    #[inline]
    pub fn operand_types(&self, i: InstIdx) -> &[TypeIdx] {
        &self.op_types[self.op_start[i.idx()] as usize..self.op_start[i.idx() + 1] as usize]
    }

    /// Operand `n` of `i` (`Value::None` when out of range).
    #[inline]
    pub fn operand(&self, i: InstIdx, n: usize) -> Value {
        self.operands(i).get(n).copied().unwrap_or(Value::None)
    }

    /// The value of a wide integer constant.
    pub fn wide_int(&self, w: u32) -> i64 {
        self.wide_ints[w as usize]
    }

    /// The value of an integer constant operand.
    pub fn int_value(&self, v: Value) -> Option<i64> {
        match v {
            Value::Int(x) => Some(x as i64),
            Value::WideInt(w) => Some(self.wide_ints[w as usize]),
            _ => None,
        }
    }

    /// The type of a value that carries its own (argument, instruction, constant
    /// expression); NONE for other constants, whose type is the operand slot's.
    pub fn value_ty(&self, v: Value) -> TypeIdx {
        match v {
            Value::Arg(a) => self.arg_ty[a],
            Value::Inst(i) => self.ty[i],
            Value::Expr(e) => self.expr_ty[e],
            _ => TypeIdx::NONE,
        }
    }

    // ------------------------------------------------------------ calls

    /// The call row of a call-like instruction.
    #[inline]
    pub fn call_of(&self, i: InstIdx) -> Option<CallIdx> {
        self.op[i].is_call().then(|| CallIdx(self.aux[i]))
    }

    /// Number of call rows.
    pub fn num_calls(&self) -> usize {
        self.call_inst.len()
    }

    /// The instruction of call `c`.
    #[inline]
    pub fn call_inst(&self, c: CallIdx) -> InstIdx {
        self.call_inst[c]
    }

    /// Call-site function attributes.
    #[inline]
    pub fn call_attrs(&self, c: CallIdx) -> &AttrSet {
        self.attr_sets.get(self.call_attrs[c])
    }

    /// Call-site return attributes.
    #[inline]
    pub fn call_ret_attrs(&self, c: CallIdx) -> &AttrSet {
        self.attr_sets.get(self.call_ret_attrs[c])
    }

    /// Call-site attributes of argument `n` (empty past the argument list).
    pub fn call_param_attrs(&self, c: CallIdx, n: usize) -> &AttrSet {
        if n >= self.call_arg_count[c] as usize {
            return self.attr_sets.get(AttrSets::EMPTY);
        }
        self.attr_sets
            .get(self.call_params[self.call_param_start[c] as usize + n])
    }

    /// Number of call arguments (bundle operands excluded).
    #[inline]
    pub fn call_arg_count(&self, c: CallIdx) -> usize {
        self.call_arg_count[c] as usize
    }

    /// Number of operand-bundle operands.
    #[inline]
    pub fn call_bundle_ops(&self, c: CallIdx) -> usize {
        self.call_bundle_ops[c] as usize
    }

    /// Operand-bundle tags.
    #[inline]
    pub fn call_bundles(&self, c: CallIdx) -> BundleTags {
        self.call_bundles[c]
    }

    /// The call arguments.
    pub fn call_args(&self, c: CallIdx) -> &[Value] {
        let i = self.call_inst[c];
        &self.operands(i)[..self.call_arg_count[c] as usize]
    }

    /// The callee operand.
    pub fn callee(&self, c: CallIdx) -> Value {
        let i = self.call_inst[c];
        self.operand(
            i,
            (self.call_arg_count[c] + self.call_bundle_ops[c]) as usize,
        )
    }

    /// The operand index of the callee.
    pub fn callee_operand_index(&self, c: CallIdx) -> usize {
        (self.call_arg_count[c] + self.call_bundle_ops[c]) as usize
    }

    /// The call's function type.
    pub fn call_fn_ty(&self, c: CallIdx) -> TypeIdx {
        self.aux_ty[self.call_inst[c]]
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

    // ------------------------------------------------------------ uses

    /// The uses of argument `a`.
    #[inline]
    pub fn arg_uses(&self, a: ArgIdx) -> &[Use] {
        &self.uses[self.arg_use_start[a.idx()] as usize..self.arg_use_start[a.idx() + 1] as usize]
    }

    /// The uses of instruction `i`'s result.
    #[inline]
    pub fn inst_uses(&self, i: InstIdx) -> &[Use] {
        &self.uses[self.inst_use_start[i.idx()] as usize..self.inst_use_start[i.idx() + 1] as usize]
    }

    /// The rows of [`Ir::use_at`] holding the uses of `v` (empty for constants).
    pub fn use_rows(&self, v: Value) -> std::ops::Range<usize> {
        match v {
            Value::Arg(a) => {
                self.arg_use_start[a.idx()] as usize..self.arg_use_start[a.idx() + 1] as usize
            }
            Value::Inst(i) => {
                self.inst_use_start[i.idx()] as usize..self.inst_use_start[i.idx() + 1] as usize
            }
            _ => 0..0,
        }
    }

    /// Use row `k` (see [`Ir::use_rows`]).
    #[inline]
    pub fn use_at(&self, k: usize) -> Use {
        self.uses[k]
    }

    /// The uses of `v` (empty for constants and other non-SSA values).
    pub fn uses_of(&self, v: Value) -> &[Use] {
        match v {
            Value::Arg(a) => self.arg_uses(a),
            Value::Inst(i) => self.inst_uses(i),
            _ => &[],
        }
    }

    /// Builds the use lists from the operand table (one counting sort).
    pub(crate) fn build_uses(&mut self) {
        let (na, ni) = (self.arg_ty.len(), self.op.len());
        let mut arg_count = vec![0u32; na + 1];
        let mut inst_count = vec![0u32; ni + 1];
        for v in &self.operands {
            match *v {
                Value::Arg(a) => arg_count[a.idx() + 1] += 1,
                Value::Inst(i) => inst_count[i.idx() + 1] += 1,
                _ => {}
            }
        }
        for k in 1..arg_count.len() {
            arg_count[k] += arg_count[k - 1];
        }
        let base = arg_count[na];
        inst_count[0] = base;
        for k in 1..inst_count.len() {
            inst_count[k] += inst_count[k - 1];
        }
        let total = inst_count[ni] as usize;
        let mut uses = vec![
            Use {
                user: InstIdx(0),
                op: 0
            };
            total
        ];
        let mut next_a = arg_count.clone();
        let mut next_i = inst_count.clone();
        for user in 0..ni {
            let (s, e) = (
                self.op_start[user] as usize,
                self.op_start[user + 1] as usize,
            );
            for (k, v) in self.operands[s..e].iter().enumerate() {
                let slot = match *v {
                    Value::Arg(a) => &mut next_a[a.idx()],
                    Value::Inst(i) => &mut next_i[i.idx()],
                    _ => continue,
                };
                uses[*slot as usize] = Use {
                    user: InstIdx::new(user),
                    op: k as u32,
                };
                *slot += 1;
            }
        }
        self.arg_use_start = arg_count;
        self.inst_use_start = inst_count;
        self.uses = uses;
    }

    /// Checks the invariants of the module docs; returns every problem found.
    pub fn verify(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let ni = self.op.len();
        if self.op_start.len() != ni + 1 {
            errs.push(format!(
                "op_start has {} rows for {ni} instructions",
                self.op_start.len()
            ));
            return errs;
        }
        if self.op_types.len() != self.operands.len() {
            errs.push("op_types is not parallel to operands".into());
        }
        for col in [
            self.block.len(),
            self.func.len(),
            self.flags.len(),
            self.ty.len(),
            self.aux_ty.len(),
            self.aux.len(),
        ] {
            if col != ni {
                errs.push(format!("an instruction column has {col} rows, not {ni}"));
            }
        }
        let mut next_inst = 0usize;
        let mut next_arg = 0usize;
        for (f, fr) in self.funcs.iter_enumerated() {
            if fr.insts.start.idx() != next_inst && fr.insts.len > 0 {
                errs.push(format!(
                    "{f}: instructions do not follow the previous function's"
                ));
            }
            next_inst = next_inst.max(fr.insts.start.idx() + fr.insts.len as usize);
            if fr.args.start.idx() != next_arg {
                errs.push(format!(
                    "{f}: arguments do not follow the previous function's"
                ));
            }
            next_arg = fr.args.start.idx() + fr.args.len as usize;
            let nb = self.num_blocks(f);
            for i in self.insts(f) {
                if self.func[i] != f {
                    errs.push(format!("{i}: function column is {}, not {f}", self.func[i]));
                }
                if self.block[i].idx() >= nb {
                    errs.push(format!("{i}: block {} out of range", self.block[i]));
                }
                for v in self.operands(i) {
                    let ok = match *v {
                        Value::Inst(j) => self.func.get(j).is_some_and(|&g| g == f),
                        Value::Arg(a) => self.arg_func.get(a).is_some_and(|&g| g == f),
                        Value::Block(b) => b.idx() < nb,
                        Value::Expr(e) => e.idx() < self.expr_op.len(),
                        Value::WideInt(w) => (w as usize) < self.wide_ints.len(),
                        _ => true,
                    };
                    if !ok {
                        errs.push(format!("{i}: operand {v:?} is out of range"));
                    }
                }
            }
        }
        if next_inst != ni {
            errs.push(format!("functions cover {next_inst} of {ni} instructions"));
        }
        if next_arg != self.arg_ty.len() {
            errs.push("functions do not cover the argument table".into());
        }
        let n_uses = self
            .operands
            .iter()
            .filter(|v| matches!(v, Value::Arg(_) | Value::Inst(_)))
            .count();
        if n_uses != self.uses.len() {
            errs.push(format!(
                "{} uses listed for {n_uses} SSA operands",
                self.uses.len()
            ));
        }
        for (k, u) in self.uses.iter().enumerate() {
            let ok = u.user.idx() < ni && (u.op as usize) < self.operands(u.user).len();
            if !ok {
                errs.push(format!("use {k} is out of range"));
            }
        }
        errs.extend(self.debug_locs.verify());
        if self.debug_locs.call_rows() > self.call_inst.len()
            || self.debug_locs.func_rows() > self.funcs.len()
        {
            errs.push("debug locations name calls or functions that do not exist".into());
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
        assert_eq!(std::mem::size_of::<Use>(), 8);
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
        assert_eq!(
            Opcode::from_word("getelementptr"),
            Some(Opcode::GetElementPtr)
        );
        assert!(Opcode::Invoke.is_call() && Opcode::Invoke.is_terminator());
    }
}
