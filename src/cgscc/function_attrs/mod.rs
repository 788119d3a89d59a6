//! LLVM 14's `function-attrs` (the new pass manager's `PostOrderFunctionAttrsPass`, as
//! `opt-14 -passes='cgscc(function-attrs)'` runs it) over the instruction view of a
//! module ([`crate::llvm::ir`]).
//!
//! [`Inference`] holds the attributes as the pass changes them: one [`AttrSet`] per
//! function, per return and per argument, starting from what the module declares.
//! [`Inference::run_scc`] infers one call-graph SCC, given its functions in the
//! LazyCallGraph's member order; SCCs must come in the graph's post-order (callees
//! first), so that what earlier SCCs got is visible to later ones, as in LLVM. Per SCC
//! the order is LLVM's (`deriveAttrsInPostOrder`):
//!
//! 1. `returned` arguments (`returns`);
//! 2. the memory attribute `readnone` / `readonly` / `writeonly` (`memory`);
//! 3. argument attributes: `nonnull` from call sites, `nocapture`, and the argument
//!    access attributes (`args`, over `capture` tracking);
//! 4. removal of `convergent`, then `noreturn`, then `willreturn` (`scan`);
//! 5. without unknown calls in the SCC: `noalias` and `nonnull` returns, `nounwind` and
//!    `nofree`, `norecurse`;
//! 6. `nosync`; then the attributes others imply (`nosync`, `nofree`, `mustprogress`).
//!
//! Each file's docs say which part of LLVM 14's pass it implements and with which of its
//! rules. Agreement with `opt-14` is measured in PERF.md ("function-attrs against LLVM
//! 14"), with opt's changes printed by `scripts/fa_diff.py`.
//!
//! # Complexity
//! Each step scans the SCC's instructions once (capture tracking visits each use at most
//! once per tracked argument, 20 uses per value at most); the argument graph is one
//! Tarjan pass. Linear in the SCC's size for real code.

mod args;
mod capture;
mod memory;
mod returns;
mod scan;
#[cfg(test)]
mod tests;

use crate::idx::IndexVec;
use crate::llvm::attrs::{Attr, AttrSet};
use crate::llvm::ir::{ArgIdx, CallIdx, InstIdx, Intrinsic, Ir, Opcode, Value};
use crate::llvm::types::TypeIdx;
use crate::llvm::{FuncIdx, GlobalIdx, Linkage, Module, SymbolDef, SymbolIdx};
use std::sync::Arc;

/// Module facts the rules read besides the instruction view.
#[derive(Clone, Debug)]
struct Facts {
    linkage: IndexVec<FuncIdx, Linkage>,
    is_def: IndexVec<FuncIdx, bool>,
    sym_def: IndexVec<SymbolIdx, SymbolDef>,
    global_constant: IndexVec<GlobalIdx, bool>,
    global_linkage: IndexVec<GlobalIdx, Linkage>,
    alias_linkage: IndexVec<crate::llvm::AliasIdx, Linkage>,
    /// `@ProcessCLRException`, the CoreCLR personality, if the module names it.
    coreclr_personality: Option<SymbolIdx>,
}

/// The attributes of a module as `function-attrs` changes them (see the module docs).
///
/// # Invariants
/// - `fn_attrs` / `ret_attrs` have a row per function, `arg_attrs` a row per argument
///   of the instruction view; `in_scc` is all false between SCCs.
#[derive(Clone, Debug)]
pub struct Inference {
    ir: Arc<Ir>,
    facts: Facts,
    fn_attrs: IndexVec<FuncIdx, AttrSet>,
    ret_attrs: IndexVec<FuncIdx, AttrSet>,
    arg_attrs: IndexVec<ArgIdx, AttrSet>,
    in_scc: IndexVec<FuncIdx, bool>,
}

/// The attributes one function gained (`+x`) or lost (`-x`), by position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionChange {
    /// The function's name (without `@`).
    pub name: String,
    /// Function attributes, sorted (`+nofree`, `-readonly`).
    pub func: Vec<String>,
    /// Return attributes, sorted.
    pub ret: Vec<String>,
    /// `(argument number, name as written, sorted changes)` for each changed argument.
    pub args: Vec<(usize, String, Vec<String>)>,
}

/// `+x` for each attribute in `after` but not `before`, then `-x` for the reverse,
/// each group sorted by name (what `scripts/fa_diff.py` prints).
fn diff(before: &AttrSet, after: &AttrSet) -> Vec<String> {
    let mut plus: Vec<&str> = after
        .iter()
        .filter(|&a| !before.has(a))
        .map(Attr::name)
        .collect();
    let mut minus: Vec<&str> = before
        .iter()
        .filter(|&a| !after.has(a))
        .map(Attr::name)
        .collect();
    plus.sort_unstable();
    minus.sort_unstable();
    plus.iter()
        .map(|a| format!("+{a}"))
        .chain(minus.iter().map(|a| format!("-{a}")))
        .collect()
}

impl Inference {
    /// The starting state of module `m` (its declared attributes); `None` when `m` was
    /// read without its instruction view.
    pub fn new(m: &Module) -> Option<Inference> {
        let ir = m.ir_arc()?;
        let facts = Facts {
            linkage: m.functions().iter().map(|f| f.linkage).collect(),
            is_def: m.functions().iter().map(|f| f.is_definition).collect(),
            sym_def: (0..m.num_symbols())
                .map(|s| m.symbol_def(SymbolIdx::new(s)))
                .collect(),
            global_constant: m.globals().iter().map(|g| g.is_constant).collect(),
            global_linkage: m.globals().iter().map(|g| g.linkage).collect(),
            alias_linkage: m.aliases().iter().map(|a| a.linkage).collect(),
            coreclr_personality: m.symbol_by_name("ProcessCLRException"),
        };
        let fn_attrs = ir
            .funcs
            .iter()
            .map(|r| *ir.attr_sets.get(r.attrs))
            .collect();
        let ret_attrs = ir
            .funcs
            .iter()
            .map(|r| *ir.attr_sets.get(r.ret_attrs))
            .collect();
        let arg_attrs = (0..ir.num_all_args())
            .map(|a| *ir.arg_attrs(ArgIdx::new(a)))
            .collect();
        let in_scc = IndexVec::from_elem_n(false, ir.funcs.len());
        Some(Inference {
            ir,
            facts,
            fn_attrs,
            ret_attrs,
            arg_attrs,
            in_scc,
        })
    }

    /// Runs the pass over every SCC of `m`'s lazy call graph in post-order (what
    /// `opt -passes='cgscc(function-attrs)'` does, the graph being left unchanged);
    /// `None` when `m` has no instruction view.
    pub fn run_module(m: &Module) -> Option<Inference> {
        let mut inf = Inference::new(m)?;
        let mut g = crate::callgraph::from_module(m, "");
        g.build_ref_sccs();
        let order: Vec<Vec<FuncIdx>> = g
            .postorder_refsccs()
            .into_iter()
            .flat_map(|r| g.refscc_sccs(r).to_vec())
            .map(|s| {
                g.scc_nodes(s)
                    .iter()
                    .map(|&n| crate::callgraph::function_of_node(n))
                    .collect()
            })
            .collect();
        for members in &order {
            inf.run_scc(members);
        }
        Some(inf)
    }

    /// Function `f`'s current attributes.
    pub fn fn_attrs(&self, f: FuncIdx) -> &AttrSet {
        &self.fn_attrs[f]
    }

    /// Function `f`'s current return attributes.
    pub fn ret_attrs(&self, f: FuncIdx) -> &AttrSet {
        &self.ret_attrs[f]
    }

    /// Argument `a`'s current attributes.
    pub fn arg_attrs(&self, a: ArgIdx) -> &AttrSet {
        &self.arg_attrs[a]
    }

    /// The instruction rows of `f`'s body.
    pub fn body_rows(&self, f: FuncIdx) -> u64 {
        self.ir.func(f).insts.len as u64
    }

    /// Infers the attributes of one call-graph SCC, `members` in the LazyCallGraph's
    /// member order; returns whether anything changed.
    pub fn run_scc(&mut self, members: &[FuncIdx]) -> bool {
        let (nodes, has_unknown_call) = self.node_set(members);
        if nodes.is_empty() {
            return false;
        }
        let before: Vec<(AttrSet, AttrSet)> = nodes
            .iter()
            .map(|&f| (self.fn_attrs[f], self.ret_attrs[f]))
            .collect();
        let args_before: Vec<AttrSet> = nodes
            .iter()
            .flat_map(|&f| self.ir.args(f))
            .map(|a| self.arg_attrs[a])
            .collect();
        for &f in &nodes {
            self.in_scc[f] = true;
        }
        self.add_returned(&nodes);
        self.add_read_attrs(&nodes);
        self.add_argument_attrs(&nodes);
        self.infer_convergent(&nodes);
        self.add_noreturn(&nodes);
        self.add_willreturn(&nodes);
        if !has_unknown_call {
            self.add_noalias(&nodes);
            self.add_nonnull(&nodes);
            self.infer_nounwind_nofree(&nodes);
            self.add_norecurse(&nodes);
        }
        self.add_nosync(&nodes);
        for &f in &nodes {
            self.infer_from_others(f);
        }
        for &f in &nodes {
            self.in_scc[f] = false;
        }
        let after: Vec<(AttrSet, AttrSet)> = nodes
            .iter()
            .map(|&f| (self.fn_attrs[f], self.ret_attrs[f]))
            .collect();
        let args_after: Vec<AttrSet> = nodes
            .iter()
            .flat_map(|&f| self.ir.args(f))
            .map(|a| self.arg_attrs[a])
            .collect();
        before != after || args_before != args_after
    }

    /// What changed for every function, in module order (unchanged functions left out).
    pub fn changes(&self, m: &Module) -> Vec<FunctionChange> {
        let ir = &*self.ir;
        let mut out = Vec::new();
        for (f, func) in m.functions().iter_enumerated() {
            let fc = diff(ir.fn_attrs(f), &self.fn_attrs[f]);
            let rc = diff(ir.ret_attrs(f), &self.ret_attrs[f]);
            let args: Vec<(usize, String, Vec<String>)> = ir
                .args(f)
                .enumerate()
                .filter_map(|(n, a)| {
                    let d = diff(ir.arg_attrs(a), &self.arg_attrs[a]);
                    (!d.is_empty()).then(|| (n, ir.arg_name(a).to_string(), d))
                })
                .collect();
            if !fc.is_empty() || !rc.is_empty() || !args.is_empty() {
                out.push(FunctionChange {
                    name: func.name.clone(),
                    func: fc,
                    ret: rc,
                    args,
                });
            }
        }
        out
    }

    /// The changes as `scripts/fa_diff.py` prints them: one line per function and position
    /// (`@f fn +nofree +nosync`, `@f ret +noalias`, `@f arg0 %p +nocapture`), sorted by
    /// function name, so that a comparison with the oracle is a diff.
    pub fn diff_lines(&self, m: &Module) -> Vec<String> {
        let mut changes = self.changes(m);
        changes.sort_by(|a, b| quoted(&a.name).cmp(&quoted(&b.name)));
        let mut out = Vec::new();
        for c in changes {
            let name = quoted(&c.name);
            if !c.func.is_empty() {
                out.push(format!("@{name} fn {}", c.func.join(" ")));
            }
            if !c.ret.is_empty() {
                out.push(format!("@{name} ret {}", c.ret.join(" ")));
            }
            for (n, an, d) in &c.args {
                let label = if an.is_empty() {
                    format!("arg{n}")
                } else {
                    format!("arg{n} {an}")
                };
                out.push(format!("@{name} {label} {}", d.join(" ")));
            }
        }
        out
    }

    // ------------------------------------------------------------ function queries

    #[inline]
    fn has(&self, f: FuncIdx, a: Attr) -> bool {
        self.fn_attrs[f].has(a)
    }

    /// `hasExactDefinition`: a body that is the one the linker keeps.
    fn is_exact(&self, f: FuncIdx) -> bool {
        if !self.facts.is_def[f] {
            return false;
        }
        match self.facts.linkage[f] {
            Linkage::LinkonceOdr | Linkage::WeakOdr | Linkage::AvailableExternally => false,
            Linkage::Weak | Linkage::Linkonce | Linkage::Common | Linkage::ExternWeak => false,
            l => !(self.ir.semantic_interposition && !l.is_local() && !self.ir.func(f).dso_local),
        }
    }

    fn only_reads(&self, f: FuncIdx) -> bool {
        self.has(f, Attr::ReadNone) || self.has(f, Attr::ReadOnly)
    }

    fn only_writes(&self, f: FuncIdx) -> bool {
        self.has(f, Attr::ReadNone) || self.has(f, Attr::WriteOnly)
    }

    fn returns_void(&self, f: FuncIdx) -> bool {
        self.ir.types.is_void(self.ir.func(f).ret_ty)
    }

    /// `NullPointerIsDefined(F, AS)`.
    fn null_defined(&self, f: FuncIdx, addrspace: u32) -> bool {
        addrspace != 0 || self.has(f, Attr::NullPointerIsValid)
    }

    // ------------------------------------------------------------ call queries

    /// `CallBase::getCalledFunction`: the callee operand is a function of the call's
    /// function type.
    fn called_function(&self, c: CallIdx) -> Option<FuncIdx> {
        match self.ir.callee(c) {
            Value::Global(s) => match self.facts.sym_def[s] {
                SymbolDef::Function(f) if self.ir.func(f).fn_ty == self.ir.call_fn_ty(c) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// The function whose attributes a call-site attribute query falls back to: the
    /// callee operand with one constant-expression bitcast stripped, whatever its type
    /// (`hasFnAttrOnCalledFunction`).
    fn attr_callee(&self, c: CallIdx) -> Option<FuncIdx> {
        let mut v = self.ir.callee(c);
        if let Value::Expr(e) = v {
            if self.ir.expr_op(e) == Opcode::BitCast {
                v = self
                    .ir
                    .expr_operands(e)
                    .first()
                    .copied()
                    .unwrap_or(Value::None);
            }
        }
        match v {
            Value::Global(s) => match self.facts.sym_def[s] {
                SymbolDef::Function(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// The intrinsic a call calls directly.
    fn call_intrinsic(&self, c: CallIdx) -> Intrinsic {
        self.called_function(c)
            .map(|f| self.ir.intrinsic[f])
            .unwrap_or(Intrinsic::None)
    }

    /// Whether operand bundles override the callee's attribute `a` (memory attributes).
    fn disallowed_by_bundle(&self, c: CallIdx, a: Attr) -> bool {
        let tags = self.ir.call_bundles(c);
        if !tags.any() {
            return false;
        }
        use crate::llvm::ir::BundleTags;
        match a {
            Attr::ReadNone => {
                tags.0 & !BundleTags::PTRAUTH != 0 && self.call_intrinsic(c) != Intrinsic::Assume
            }
            Attr::ReadOnly
            | Attr::WriteOnly
            | Attr::ArgMemOnly
            | Attr::InaccessibleMemOnly
            | Attr::InaccessibleMemOrArgMemOnly => {
                tags.0 & !(BundleTags::DEOPT | BundleTags::FUNCLET | BundleTags::PTRAUTH) != 0
            }
            _ => false,
        }
    }

    /// `CallBase::hasFnAttr`: on the call site, else (unless bundles override it) on the
    /// callee seen through one bitcast.
    fn call_has(&self, c: CallIdx, a: Attr) -> bool {
        if self.ir.call_attrs(c).has(a) {
            return true;
        }
        if self.disallowed_by_bundle(c, a) {
            return false;
        }
        self.attr_callee(c).is_some_and(|f| self.has(f, a))
    }

    fn call_only_reads(&self, c: CallIdx) -> bool {
        self.call_has(c, Attr::ReadNone) || self.call_has(c, Attr::ReadOnly)
    }

    fn call_only_writes(&self, c: CallIdx) -> bool {
        self.call_has(c, Attr::ReadNone) || self.call_has(c, Attr::WriteOnly)
    }

    /// `paramHasAttr(j, a)`: on the call site's argument `j`, or the direct callee's
    /// parameter `j`.
    fn param_has(&self, c: CallIdx, j: usize, a: Attr) -> bool {
        if j >= self.ir.call_arg_count(c) {
            return false;
        }
        self.ir.call_param_attrs(c, j).has(a)
            || self
                .called_function(c)
                .and_then(|f| self.ir.arg(f, j))
                .is_some_and(|p| self.arg_attrs[p].has(a))
    }

    /// `dataOperandHasImpliedAttr(j, a)`: a call argument's attribute; bundle operands
    /// carry none.
    fn data_operand_has(&self, c: CallIdx, j: usize, a: Attr) -> bool {
        j < self.ir.call_arg_count(c) && self.param_has(c, j, a)
    }

    /// `hasRetAttr(a)`: on the call site's return, or the direct callee's.
    fn ret_has(&self, c: CallIdx, a: Attr) -> bool {
        self.ir.call_ret_attrs(c).has(a)
            || self
                .called_function(c)
                .is_some_and(|f| self.ret_attrs[f].has(a))
    }

    /// `getReturnedArgOperand`: the argument a `returned` parameter passes back.
    fn returned_arg(&self, c: CallIdx) -> Option<Value> {
        let n = self.ir.call_arg_count(c);
        let args = self.ir.call_args(c);
        if let Some(j) = (0..n).find(|&j| self.ir.call_param_attrs(c, j).has(Attr::Returned)) {
            return Some(args[j]);
        }
        let f = self.called_function(c)?;
        let j = self
            .ir
            .args(f)
            .position(|a| self.arg_attrs[a].has(Attr::Returned))?;
        args.get(j).copied()
    }

    /// `getArgumentAliasingToReturnedPointer`: the returned argument, or the first
    /// argument of `launder/strip.invariant.group` (and `ptrmask` unless nullness must
    /// be preserved).
    fn aliasing_returned_arg(&self, c: CallIdx, preserve_nullness: bool) -> Option<Value> {
        if let Some(v) = self.returned_arg(c) {
            return Some(v);
        }
        match self.call_intrinsic(c) {
            Intrinsic::LaunderInvariantGroup | Intrinsic::StripInvariantGroup => {
                self.ir.call_args(c).first().copied()
            }
            Intrinsic::PtrMask if !preserve_nullness => self.ir.call_args(c).first().copied(),
            _ => None,
        }
    }

    /// A `MemIntrinsic` call's volatile flag; `None` for other calls.
    fn mem_intrinsic_volatile(&self, c: CallIdx) -> Option<bool> {
        self.call_intrinsic(c)
            .is_mem_intrinsic()
            .then(|| self.ir.call_args(c).get(3) == Some(&Value::Int(1)))
    }

    /// `isa<IntrinsicInst>`: a `call` whose direct callee is an intrinsic.
    fn is_intrinsic_call(&self, i: InstIdx) -> bool {
        self.ir.op(i) == Opcode::Call
            && self
                .ir
                .call_of(i)
                .is_some_and(|c| self.call_intrinsic(c) != Intrinsic::None)
    }

    // ------------------------------------------------------------ instruction queries

    /// `Instruction::isVolatile`.
    fn inst_volatile(&self, i: InstIdx) -> bool {
        match self.ir.op(i) {
            Opcode::Load | Opcode::Store | Opcode::AtomicRmw | Opcode::AtomicCmpXchg => {
                self.ir.flags(i).is_volatile()
            }
            Opcode::Call | Opcode::Invoke => {
                let Some(c) = self.ir.call_of(i) else {
                    return false;
                };
                if self.ir.op(i) != Opcode::Call {
                    return false;
                }
                if let Some(v) = self.mem_intrinsic_volatile(c) {
                    return v;
                }
                let args = self.ir.call_args(c);
                match self.call_intrinsic(c) {
                    Intrinsic::MatrixLoad => args.get(2) == Some(&Value::Int(1)),
                    Intrinsic::MatrixStore => args.get(3) == Some(&Value::Int(1)),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// `Instruction::mayThrow`.
    fn may_throw(&self, i: InstIdx) -> bool {
        match self.ir.op(i) {
            Opcode::Call => self
                .ir
                .call_of(i)
                .is_some_and(|c| !self.call_has(c, Attr::NoUnwind)),
            Opcode::CleanupRet | Opcode::CatchSwitch => self
                .ir
                .flags(i)
                .has(crate::llvm::ir::InstFlags::UNWIND_TO_CALLER),
            Opcode::Resume => true,
            _ => false,
        }
    }

    /// `Instruction::willReturn`.
    fn inst_will_return(&self, i: InstIdx) -> bool {
        match self.ir.op(i) {
            Opcode::Store => !self.ir.flags(i).is_volatile(),
            op if op.is_call() => {
                let Some(c) = self.ir.call_of(i) else {
                    return true;
                };
                self.call_has(c, Attr::WillReturn)
                    || (self.is_intrinsic_call(i) && self.call_only_reads(c))
            }
            _ => true,
        }
    }

    // ------------------------------------------------------------ values

    /// The type of value `v` read from an operand slot of type `slot`.
    fn ty_of(&self, v: Value, slot: TypeIdx) -> TypeIdx {
        let t = self.ir.value_ty(v);
        if t.is_none() {
            slot
        } else {
            t
        }
    }

    /// Whether `v` (from a slot of type `slot`) is a scalar pointer.
    fn is_ptr(&self, v: Value, slot: TypeIdx) -> bool {
        matches!(v, Value::Global(_)) || self.ir.types.is_pointer(self.ty_of(v, slot))
    }

    /// Operand `n` of instruction or expression `v` with its slot type.
    fn operand_of(&self, v: Value, n: usize) -> (Value, TypeIdx) {
        match v {
            Value::Inst(i) => (
                self.ir.operand(i, n),
                self.ir
                    .operand_types(i)
                    .get(n)
                    .copied()
                    .unwrap_or(TypeIdx::NONE),
            ),
            Value::Expr(e) => (
                self.ir
                    .expr_operands(e)
                    .get(n)
                    .copied()
                    .unwrap_or(Value::None),
                self.ir
                    .expr_operand_types(e)
                    .get(n)
                    .copied()
                    .unwrap_or(TypeIdx::NONE),
            ),
            _ => (Value::None, TypeIdx::NONE),
        }
    }

    /// The opcode of an instruction or constant expression (`Operator::getOpcode`).
    fn opcode_of(&self, v: Value) -> Option<Opcode> {
        match v {
            Value::Inst(i) => Some(self.ir.op(i)),
            Value::Expr(e) => Some(self.ir.expr_op(e)),
            _ => None,
        }
    }

    /// A GEP (instruction or expression) whose indices are all constant zero.
    fn gep_all_zero(&self, v: Value) -> bool {
        let ops = match v {
            Value::Inst(i) => self.ir.operands(i),
            Value::Expr(e) => self.ir.expr_operands(e),
            _ => return false,
        };
        ops.iter()
            .skip(1)
            .all(|o| matches!(o, Value::Int(0) | Value::Zero))
    }

    /// The global variable a symbol names.
    fn global_var(&self, v: Value) -> Option<GlobalIdx> {
        match v {
            Value::Global(s) => match self.facts.sym_def[s] {
                SymbolDef::Global(g) => Some(g),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A function name as `scripts/fa_diff.py` prints it: bare when it is made of `[-\w$.]`,
/// quoted otherwise.
fn quoted(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'$' | b'.'))
    {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(format!("\"{name}\""))
    }
}

/// The changes between two readings of one module (`before`, then `after` a pass ran,
/// e.g. `opt-14 -passes='cgscc(function-attrs)' -S`) as [`Inference::diff_lines`]
/// prints them: function, return and argument attributes added or removed. Functions
/// are matched by name; both modules need their instruction view.
///
/// Declarations are left out: `function-attrs` never changes them, but `opt-14`'s
/// reader replaces an intrinsic declaration's attributes by LLVM 14's intrinsic table
/// (`UpgradeIntrinsicFunction`), which shows in modules another clang wrote.
pub fn oracle_diff_lines(before: &Module, after: &Module) -> Vec<String> {
    let (Some(a), Some(b)) = (before.ir(), after.ir()) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (f, func) in before.functions().iter_enumerated() {
        if !func.is_definition {
            continue;
        }
        let Some(g) = after.function_by_name(&func.name) else {
            continue;
        };
        let name = quoted(&func.name).into_owned();
        let mut lines = Vec::new();
        let fc = diff(a.fn_attrs(f), b.fn_attrs(g));
        if !fc.is_empty() {
            lines.push(format!("@{name} fn {}", fc.join(" ")));
        }
        let rc = diff(a.ret_attrs(f), b.ret_attrs(g));
        if !rc.is_empty() {
            lines.push(format!("@{name} ret {}", rc.join(" ")));
        }
        for (n, (x, y)) in a.args(f).zip(b.args(g)).enumerate() {
            let d = diff(a.arg_attrs(x), b.arg_attrs(y));
            if !d.is_empty() {
                let an = a.arg_name(x);
                let label = if an.is_empty() {
                    format!("arg{n}")
                } else {
                    format!("arg{n} {an}")
                };
                lines.push(format!("@{name} {label} {}", d.join(" ")));
            }
        }
        out.push((name, lines));
    }
    out.sort_by(|x, y| x.0.cmp(&y.0));
    out.into_iter().flat_map(|(_, l)| l).collect()
}

/// Agreement of two sets of change lines, per attribute kind: the kind is the position
/// class and the signed attribute (`fn +nofree`, `arg +nocapture`, `ret +nonnull`),
/// counted over `(function, position, attribute)` triples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// `(kind, in both, only in ours, only in the oracle's)`, sorted by kind.
    pub kinds: Vec<(String, usize, usize, usize)>,
}

impl Agreement {
    /// Compares `ours` with `oracle` (lines as [`Inference::diff_lines`] prints them).
    pub fn of(ours: &[String], oracle: &[String]) -> Agreement {
        use std::collections::{BTreeMap, BTreeSet};
        fn triples(lines: &[String]) -> BTreeSet<(String, String, String)> {
            let mut out = BTreeSet::new();
            for l in lines {
                let mut parts = l.split_whitespace();
                let (Some(func), Some(pos)) = (parts.next(), parts.next()) else {
                    continue;
                };
                let pos = if pos.starts_with("arg") {
                    // `arg3 %name`: the name is part of the position
                    let mut p = pos.to_string();
                    let rest: Vec<&str> = parts.collect();
                    let (names, attrs): (Vec<&str>, Vec<&str>) =
                        rest.into_iter().partition(|t| !t.starts_with(['+', '-']));
                    for n in names {
                        p.push(' ');
                        p.push_str(n);
                    }
                    for a in attrs {
                        out.insert((func.to_string(), p.clone(), a.to_string()));
                    }
                    continue;
                } else {
                    pos.to_string()
                };
                for a in parts {
                    out.insert((func.to_string(), pos.clone(), a.to_string()));
                }
            }
            out
        }
        let (a, b) = (triples(ours), triples(oracle));
        let kind = |t: &(String, String, String)| {
            let class = t.1.split_whitespace().next().unwrap_or("");
            let class = if class.starts_with("arg") {
                "arg"
            } else {
                class
            };
            format!("{class} {}", t.2)
        };
        let mut m: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
        for t in a.union(&b) {
            let e = m.entry(kind(t)).or_default();
            match (a.contains(t), b.contains(t)) {
                (true, true) => e.0 += 1,
                (true, false) => e.1 += 1,
                _ => e.2 += 1,
            }
        }
        Agreement {
            kinds: m.into_iter().map(|(k, (x, y, z))| (k, x, y, z)).collect(),
        }
    }

    /// The lowest `|both| / |union|` over the kinds (1.0 when there are none).
    pub fn worst(&self) -> f64 {
        self.kinds
            .iter()
            .map(|&(_, both, a, b)| both as f64 / (both + a + b).max(1) as f64)
            .fold(1.0, f64::min)
    }

    /// A Markdown table: kind, both, only ours, only LLVM's, agreement.
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| attribute | both | only ilkit | only LLVM | agreement |\n|---|---|---|---|---|\n",
        );
        for (k, both, a, b) in &self.kinds {
            let pct = 100.0 * *both as f64 / (both + a + b).max(1) as f64;
            s.push_str(&format!("| {k} | {both} | {a} | {b} | {pct:.1}% |\n"));
        }
        s
    }
}
