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

mod ahead;
mod args;
mod capture;
mod column;
mod memory;
mod returns;
mod scan;
#[cfg(test)]
mod tests;

use crate::idx::IndexVec;
use crate::llvm::attrs::{Attr, AttrSet};
use crate::llvm::ir::body::{Body, CallInfo, Exprs, MadeExprs, RowIdx, Uses, V};
use crate::llvm::ir::{ArgIdx, Intrinsic, Ir, Opcode, Value};
use crate::llvm::types::TypeIdx;
use crate::llvm::{FuncIdx, GlobalIdx, Linkage, Module, SymbolDef, SymbolIdx};
pub(crate) use ahead::MadeAttrs;
use column::Column;
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
///   of the instruction view; `in_scc` is all false and `slot` all `NO_SLOT`, and
///   `cur` is empty, between SCCs.
#[derive(Clone, Debug)]
pub struct Inference {
    ir: Arc<Ir>,
    facts: Arc<Facts>,
    fn_attrs: Column<FuncIdx>,
    ret_attrs: Column<FuncIdx>,
    arg_attrs: Column<ArgIdx>,
    in_scc: IndexVec<FuncIdx, bool>,
    /// While an SCC is inferred: its members' bodies with their use lists (`None`: the
    /// module's, read in place), shared with the caller's store.
    cur: Vec<(Option<Arc<Body>>, Uses)>,
    /// Per function: its row of `cur`, or `NO_SLOT`.
    slot: IndexVec<FuncIdx, u32>,
    /// While an SCC is inferred: the constant expressions inlining made (none between
    /// SCCs).
    made: Arc<MadeExprs>,
}

/// No row of `Inference::cur`.
const NO_SLOT: u32 = u32::MAX;

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
    // the names differ only where the attributes do (payloads are not printed)
    if before.bits == after.bits {
        return Vec::new();
    }
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
        let fn_attrs = Column::from_iter(ir.funcs.iter().map(|r| *ir.attr_sets.get(r.attrs)));
        let ret_attrs = Column::from_iter(ir.funcs.iter().map(|r| *ir.attr_sets.get(r.ret_attrs)));
        let arg_attrs =
            Column::from_iter((0..ir.num_all_args()).map(|a| *ir.arg_attrs(ArgIdx::new(a))));
        let in_scc = IndexVec::from_elem_n(false, ir.funcs.len());
        let slot = IndexVec::from_elem_n(NO_SLOT, ir.funcs.len());
        let made = Arc::new(MadeExprs::new(&ir));
        Some(Inference {
            ir,
            facts: Arc::new(facts),
            fn_attrs,
            ret_attrs,
            arg_attrs,
            in_scc,
            cur: Vec::new(),
            slot,
            made,
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
        let mut bodies = vec![None; inf.ir.funcs.len()];
        let mut made = MadeExprs::new(&inf.ir);
        for members in &order {
            inf.run_scc(members, &mut bodies, &mut made);
        }
        Some(inf)
    }

    /// Function `f`'s current attributes.
    pub fn fn_attrs(&self, f: FuncIdx) -> &AttrSet {
        &self.fn_attrs[f]
    }

    /// Removes `a` from function `f`'s current attributes (the inliner's merge of a
    /// callee's attributes into its caller).
    pub fn remove_fn_attr(&mut self, f: FuncIdx, a: Attr) {
        self.fn_attrs[f].remove(a);
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
        self.ir.body(f).num_rows() as u64
    }

    /// Infers the attributes of one call-graph SCC, `members` in the LazyCallGraph's
    /// member order; returns whether anything changed.
    ///
    /// The members' bodies are read from `bodies` (indexed by function: the bodies as a
    /// pass left them), a member without one from the module's instruction view, in
    /// place; `made` holds the constant expressions those bodies name beyond the
    /// module's.
    pub fn run_scc(
        &mut self,
        members: &[FuncIdx],
        bodies: &mut [Option<Body>],
        made: &mut MadeExprs,
    ) -> bool {
        let mut held: Vec<Option<Arc<Body>>> = members
            .iter()
            .map(|f| bodies.get_mut(f.idx()).and_then(Option::take).map(Arc::new))
            .collect();
        let shared = Arc::new(std::mem::take(made));
        let changed = self.run_members(members, &mut held, Arc::clone(&shared), &mut []);
        *made = Arc::unwrap_or_clone(shared);
        for (f, b) in members.iter().zip(held) {
            if let Some(b) = b {
                bodies[f.idx()] = Some(Arc::unwrap_or_clone(b));
            }
        }
        changed
    }

    /// [`Inference::run_scc`] over bodies shared with the caller's store (indexed by
    /// function), with the use lists of some members' bodies already made (`uses[k]`
    /// for `members[k]`, taken; the others are made here).
    pub(crate) fn run_scc_with(
        &mut self,
        members: &[FuncIdx],
        bodies: &crate::idx::SharedVec<Option<Arc<Body>>>,
        made: Arc<MadeExprs>,
        uses: &mut [Option<Uses>],
    ) -> bool {
        let mut held: Vec<Option<Arc<Body>>> = members
            .iter()
            .map(|f| bodies.get(f.idx()).cloned().flatten())
            .collect();
        self.run_members(members, &mut held, made, uses)
    }

    /// Infers `members`' attributes, `bodies[k]` the body of `members[k]` (`None`: the
    /// module's) and `uses[k]` its use lists when already made.
    fn run_members(
        &mut self,
        members: &[FuncIdx],
        bodies: &mut [Option<Arc<Body>>],
        made: Arc<MadeExprs>,
        uses: &mut [Option<Uses>],
    ) -> bool {
        for (k, &f) in members.iter().enumerate() {
            let stored = bodies.get_mut(k).and_then(Option::take);
            let body = stored.as_deref().unwrap_or_else(|| self.ir.body(f));
            let made_uses = uses.get_mut(k).and_then(Option::take);
            let uses = made_uses
                .filter(|u| u.fits(body))
                .unwrap_or_else(|| body.use_table());
            self.slot[f] = self.cur.len() as u32;
            self.cur.push((stored, uses));
        }
        let none = std::mem::replace(&mut self.made, made);
        let changed = self.infer_scc(members);
        // the caller's table is not held past the SCC
        self.made = none;
        for (k, (b, u)) in std::mem::take(&mut self.cur).into_iter().enumerate() {
            self.slot[members[k]] = NO_SLOT;
            if let Some(slot) = bodies.get_mut(k) {
                *slot = b;
            }
            // the use lists go back where they came from
            if let Some(slot) = uses.get_mut(k) {
                *slot = Some(u);
            }
        }
        changed
    }

    fn infer_scc(&mut self, members: &[FuncIdx]) -> bool {
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
        self.changes_of(m, |_| true)
    }

    /// What changed for every function `keep` accepts, in module order (unchanged
    /// functions left out).
    pub fn changes_of(&self, m: &Module, keep: impl Fn(FuncIdx) -> bool) -> Vec<FunctionChange> {
        let ir = &*self.ir;
        let mut out = Vec::new();
        for (f, func) in m.functions().iter_enumerated() {
            if !keep(f) {
                continue;
            }
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
        self.diff_lines_of(m, |_| true)
    }

    /// [`Inference::diff_lines`] of the functions `keep` accepts (say, those a pipeline
    /// did not delete).
    pub fn diff_lines_of(&self, m: &Module, keep: impl Fn(FuncIdx) -> bool) -> Vec<String> {
        let mut changes = self.changes_of(m, keep);
        changes.sort_by_cached_key(|c| quoted(&c.name).into_owned());
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

    // ------------------------------------------------------------ bodies

    /// `f`'s body (a member of the SCC being inferred).
    #[inline]
    fn body(&self, f: FuncIdx) -> &Body {
        match &self.cur[self.slot[f] as usize].0 {
            Some(b) => b,
            None => self.ir.body(f),
        }
    }

    /// The use lists of `f`'s body.
    #[inline]
    fn uses(&self, f: FuncIdx) -> &Uses {
        &self.cur[self.slot[f] as usize].1
    }

    /// The module's constant expressions and the ones inlining made.
    #[inline]
    fn exprs(&self) -> Exprs<'_> {
        Exprs {
            ir: &self.ir,
            made: &self.made,
        }
    }

    /// Argument `n` of `f` in the module's argument table.
    #[inline]
    fn arg_of(&self, f: FuncIdx, n: u32) -> ArgIdx {
        ArgIdx::new(self.ir.func(f).args.start.idx() + n as usize)
    }

    /// Row `i` of `b` as a call, if it is one.
    #[inline]
    fn call_at<'b>(b: &'b Body, i: RowIdx) -> Option<Call<'b>> {
        b.call_of(i).map(|ci| Call { b, row: i, ci })
    }

    // ------------------------------------------------------------ call queries

    /// `CallBase::getCalledFunction`: the callee operand is a function of the call's
    /// function type.
    fn called_function(&self, c: Call<'_>) -> Option<FuncIdx> {
        match c.callee() {
            V::K(Value::Global(s)) => match self.facts.sym_def[s] {
                SymbolDef::Function(f) if self.ir.func(f).fn_ty == c.fn_ty() => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// The function whose attributes a call-site attribute query falls back to: the
    /// callee operand with one constant-expression bitcast stripped, whatever its type
    /// (`hasFnAttrOnCalledFunction`).
    fn attr_callee(&self, c: Call<'_>) -> Option<FuncIdx> {
        match self.strip_one_bitcast(c.callee()) {
            V::K(Value::Global(s)) => match self.facts.sym_def[s] {
                SymbolDef::Function(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// `v` with one constant-expression bitcast stripped.
    fn strip_one_bitcast(&self, v: V) -> V {
        match v {
            V::K(Value::Expr(e)) if self.exprs().op(e) == Some(Opcode::BitCast) => {
                self.exprs().operand(e, 0).0
            }
            v => v,
        }
    }

    /// The intrinsic a call calls directly.
    fn call_intrinsic(&self, c: Call<'_>) -> Intrinsic {
        match self.called_function(c) {
            Some(f) => self.ir.intrinsic[f],
            None => self.undeclared(c),
        }
    }

    /// The intrinsic a call inlining made calls when the module has no declaration of
    /// it (its callee operand is then empty; LLVM would have added the declaration);
    /// `Intrinsic::None` for every other call.
    fn undeclared(&self, c: Call<'_>) -> Intrinsic {
        match c.callee() {
            V::None => c.ci.synthetic,
            _ => Intrinsic::None,
        }
    }

    /// A call with no callee the analysis knows: indirect, inline assembly, through a
    /// cast (not a call of an intrinsic inlining added).
    fn is_unknown_call(&self, c: Call<'_>) -> bool {
        self.called_function(c).is_none() && self.undeclared(c) == Intrinsic::None
    }

    /// Whether operand bundles override the callee's attribute `a` (memory attributes).
    fn disallowed_by_bundle(&self, c: Call<'_>, a: Attr) -> bool {
        let tags = c.ci.bundles;
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
    fn call_has(&self, c: Call<'_>, a: Attr) -> bool {
        if self.ir.attr_sets.get(c.ci.attrs).has(a) {
            return true;
        }
        if self.disallowed_by_bundle(c, a) {
            return false;
        }
        match self.attr_callee(c) {
            Some(f) => self.has(f, a),
            None => added_decl_has(self.undeclared(c), a),
        }
    }

    fn call_only_reads(&self, c: Call<'_>) -> bool {
        self.call_has(c, Attr::ReadNone) || self.call_has(c, Attr::ReadOnly)
    }

    fn call_only_writes(&self, c: Call<'_>) -> bool {
        self.call_has(c, Attr::ReadNone) || self.call_has(c, Attr::WriteOnly)
    }

    /// The call site's attributes of argument `j` (empty past the arguments).
    fn call_param_attrs(&self, c: Call<'_>, j: usize) -> &AttrSet {
        let set =
            c.b.params(c.ci)
                .get(j)
                .copied()
                .unwrap_or(crate::llvm::attrs::AttrSets::EMPTY);
        self.ir.attr_sets.get(set)
    }

    /// `paramHasAttr(j, a)`: on the call site's argument `j`, or the direct callee's
    /// parameter `j`.
    fn param_has(&self, c: Call<'_>, j: usize, a: Attr) -> bool {
        if j >= c.nargs() {
            return false;
        }
        self.call_param_attrs(c, j).has(a)
            || match self.called_function(c) {
                Some(f) => self.ir.arg(f, j).is_some_and(|p| self.arg_attrs[p].has(a)),
                None => added_decl_param_has(self.undeclared(c), j, a),
            }
    }

    /// `dataOperandHasImpliedAttr(j, a)`: a call argument's attribute; bundle operands
    /// carry none.
    fn data_operand_has(&self, c: Call<'_>, j: usize, a: Attr) -> bool {
        j < c.nargs() && self.param_has(c, j, a)
    }

    /// The call site's return attributes.
    fn call_ret_attrs(&self, c: Call<'_>) -> &AttrSet {
        self.ir.attr_sets.get(c.ci.ret_attrs)
    }

    /// `hasRetAttr(a)`: on the call site's return, or the direct callee's.
    fn ret_has(&self, c: Call<'_>, a: Attr) -> bool {
        self.call_ret_attrs(c).has(a)
            || self
                .called_function(c)
                .is_some_and(|f| self.ret_attrs[f].has(a))
    }

    /// `getReturnedArgOperand`: the argument a `returned` parameter passes back.
    fn returned_arg(&self, c: Call<'_>) -> Option<V> {
        let args = c.args();
        if let Some(j) = (0..args.len()).find(|&j| self.call_param_attrs(c, j).has(Attr::Returned))
        {
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
    fn aliasing_returned_arg(&self, c: Call<'_>, preserve_nullness: bool) -> Option<V> {
        if let Some(v) = self.returned_arg(c) {
            return Some(v);
        }
        match self.call_intrinsic(c) {
            Intrinsic::LaunderInvariantGroup | Intrinsic::StripInvariantGroup => {
                c.args().first().copied()
            }
            Intrinsic::PtrMask if !preserve_nullness => c.args().first().copied(),
            _ => None,
        }
    }

    /// A `MemIntrinsic` call's volatile flag; `None` for other calls.
    fn mem_intrinsic_volatile(&self, c: Call<'_>) -> Option<bool> {
        self.call_intrinsic(c)
            .is_mem_intrinsic()
            .then(|| is_true(c.args().get(3)))
    }

    /// `isa<IntrinsicInst>`: a `call` whose direct callee is an intrinsic.
    fn is_intrinsic_call(&self, b: &Body, i: RowIdx) -> bool {
        b.op(i) == Opcode::Call
            && Self::call_at(b, i).is_some_and(|c| self.call_intrinsic(c) != Intrinsic::None)
    }

    // ------------------------------------------------------------ instruction queries

    /// `Instruction::isVolatile`.
    fn inst_volatile(&self, b: &Body, i: RowIdx) -> bool {
        match b.op(i) {
            Opcode::Load | Opcode::Store | Opcode::AtomicRmw | Opcode::AtomicCmpXchg => {
                b.flags(i).is_volatile()
            }
            Opcode::Call => {
                let Some(c) = Self::call_at(b, i) else {
                    return false;
                };
                if let Some(v) = self.mem_intrinsic_volatile(c) {
                    return v;
                }
                let args = c.args();
                match self.call_intrinsic(c) {
                    Intrinsic::MatrixLoad => is_true(args.get(2)),
                    Intrinsic::MatrixStore => is_true(args.get(3)),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// `Instruction::mayThrow`.
    fn may_throw(&self, b: &Body, i: RowIdx) -> bool {
        match b.op(i) {
            Opcode::Call => Self::call_at(b, i).is_some_and(|c| !self.call_has(c, Attr::NoUnwind)),
            Opcode::CleanupRet | Opcode::CatchSwitch => {
                b.flags(i).has(crate::llvm::ir::InstFlags::UNWIND_TO_CALLER)
            }
            Opcode::Resume => true,
            _ => false,
        }
    }

    /// `Instruction::willReturn`.
    fn inst_will_return(&self, b: &Body, i: RowIdx) -> bool {
        match b.op(i) {
            Opcode::Store => !b.flags(i).is_volatile(),
            op if op.is_call() => {
                let Some(c) = Self::call_at(b, i) else {
                    return true;
                };
                self.call_has(c, Attr::WillReturn)
                    || (self.is_intrinsic_call(b, i) && self.call_only_reads(c))
            }
            _ => true,
        }
    }

    // ------------------------------------------------------------ values

    /// The type of value `v` of `f`'s body read from an operand slot of type `slot`.
    fn ty_of(&self, f: FuncIdx, v: V, slot: TypeIdx) -> TypeIdx {
        let t = match v {
            V::Arg(n) => self.ir.arg_ty(self.arg_of(f, n)),
            V::Inst(i) => self.body(f).ty(i),
            V::K(Value::Expr(e)) => self.exprs().ty(e),
            _ => TypeIdx::NONE,
        };
        if t.is_none() {
            slot
        } else {
            t
        }
    }

    /// Whether `v` (from a slot of type `slot`) is a scalar pointer.
    fn is_ptr(&self, f: FuncIdx, v: V, slot: TypeIdx) -> bool {
        matches!(v, V::K(Value::Global(_))) || self.ir.types.is_pointer(self.ty_of(f, v, slot))
    }

    /// Operand `n` of instruction or expression `v` with its slot type.
    fn operand_of(&self, f: FuncIdx, v: V, n: usize) -> (V, TypeIdx) {
        match v {
            V::Inst(i) => {
                let b = self.body(f);
                match (b.ops(i).get(n), b.tys(i).get(n)) {
                    (Some(&o), Some(&t)) => (o, t),
                    _ => (V::None, TypeIdx::NONE),
                }
            }
            V::K(Value::Expr(e)) => self.exprs().operand(e, n),
            _ => (V::None, TypeIdx::NONE),
        }
    }

    /// The opcode of an instruction or constant expression (`Operator::getOpcode`).
    fn opcode_of(&self, f: FuncIdx, v: V) -> Option<Opcode> {
        match v {
            V::Inst(i) => Some(self.body(f).op(i)),
            V::K(Value::Expr(e)) => self.exprs().op(e),
            _ => None,
        }
    }

    /// A GEP (instruction or expression) whose indices are all constant zero.
    fn gep_all_zero(&self, f: FuncIdx, v: V) -> bool {
        let zero = |o: V| matches!(o, V::Int(0) | V::K(Value::Zero));
        match v {
            V::Inst(i) => self.body(f).ops(i).iter().skip(1).all(|&o| zero(o)),
            V::K(Value::Expr(e)) => {
                let x = self.exprs();
                (1..x.num_operands(e)).all(|k| zero(x.operand(e, k).0))
            }
            _ => false,
        }
    }

    /// The global variable a symbol names.
    fn global_var(&self, v: V) -> Option<GlobalIdx> {
        match v {
            V::K(Value::Global(s)) => match self.facts.sym_def[s] {
                SymbolDef::Global(g) => Some(g),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A call row of a body being inferred.
#[derive(Clone, Copy)]
struct Call<'a> {
    b: &'a Body,
    row: RowIdx,
    ci: &'a CallInfo,
}

impl<'a> Call<'a> {
    /// Number of call arguments.
    fn nargs(&self) -> usize {
        self.ci.nargs as usize
    }

    /// The call arguments.
    fn args(&self) -> &'a [V] {
        &self.b.ops(self.row)[..self.ci.nargs as usize]
    }

    /// The call arguments' slot types.
    fn arg_tys(&self) -> &'a [TypeIdx] {
        &self.b.tys(self.row)[..self.ci.nargs as usize]
    }

    /// The callee operand.
    fn callee(&self) -> V {
        self.b.ops(self.row)[self.ci.callee_op as usize]
    }

    /// The callee operand's index (after the arguments and bundle operands).
    fn callee_index(&self) -> usize {
        self.ci.callee_op as usize
    }

    /// The number of operand-bundle operands.
    fn bundle_ops(&self) -> usize {
        (self.ci.callee_op - self.ci.nargs) as usize
    }

    /// The call's function type.
    fn fn_ty(&self) -> TypeIdx {
        self.b.aux_ty(self.row)
    }
}

/// LLVM 14's attributes of the declaration of `intr` (an intrinsic inlining calls,
/// `Intrinsics.td`), for a module that has none: `llvm.memcpy` is `argmemonly nofree
/// nounwind willreturn`, `llvm.lifetime.start/end` `argmemonly nofree nosync nounwind
/// willreturn`, `llvm.experimental.noalias.scope.decl` `inaccessiblememonly nofree
/// nosync nounwind willreturn`.
fn added_decl_has(intr: Intrinsic, a: Attr) -> bool {
    let common = [Attr::NoFree, Attr::NoUnwind, Attr::WillReturn];
    match intr {
        Intrinsic::Memcpy => common.contains(&a) || a == Attr::ArgMemOnly,
        Intrinsic::Lifetime => common.contains(&a) || matches!(a, Attr::ArgMemOnly | Attr::NoSync),
        Intrinsic::NoAliasScopeDecl => {
            common.contains(&a) || matches!(a, Attr::InaccessibleMemOnly | Attr::NoSync)
        }
        _ => false,
    }
}

/// Parameter `j`'s attributes in the declaration of `intr` ([`added_decl_has`]):
/// `llvm.memcpy(noalias nocapture writeonly, noalias nocapture readonly, _, immarg)`,
/// `llvm.lifetime.*(immarg, nocapture)`.
fn added_decl_param_has(intr: Intrinsic, j: usize, a: Attr) -> bool {
    match (intr, j) {
        (Intrinsic::Memcpy, 0) => matches!(a, Attr::NoAlias | Attr::NoCapture | Attr::WriteOnly),
        (Intrinsic::Memcpy, 1) => matches!(a, Attr::NoAlias | Attr::NoCapture | Attr::ReadOnly),
        (Intrinsic::Memcpy, 3) | (Intrinsic::Lifetime, 0) => a == Attr::ImmArg,
        (Intrinsic::Lifetime, 1) => a == Attr::NoCapture,
        _ => false,
    }
}

/// An `i1` operand that is the constant true (body integers are sign-extended: -1).
fn is_true(v: Option<&V>) -> bool {
    matches!(v, Some(V::Int(x)) if *x != 0)
}

/// A constant (`Value::is_constant`) as a body value.
fn is_constant(v: V) -> bool {
    match v {
        V::Int(_) => true,
        V::K(k) => k.is_constant(),
        _ => false,
    }
}

/// A null or zero constant (`Constant::isNullValue`) as a body value.
fn is_null_value(v: V) -> bool {
    match v {
        V::Int(x) => x == 0,
        V::K(k) => k.is_null_value(),
        _ => false,
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
