//! Inlining one call of a [`Body`] into another: LLVM 14's `InlineFunction` with
//! `CloneAndPruneFunctionInto` as far as the cost model can see it (what the cloned
//! body looks like afterwards).

use super::fold::Folds;
use super::simplify::{
    float_value, fold_intrinsic_call, simplify, simplify_with, unary_fp_intrinsic, Sq,
};
use super::Facts;
use crate::idx::BlockIdx;
use crate::llvm::attrs::{Attr, AttrSets};
use crate::llvm::ir::body::{Body, CallInfo, Head, Inst, RowIdx, V};
use crate::llvm::ir::{Intrinsic, Ir, Opcode, Value};
use crate::llvm::types::{TypeIdx, Types};
use crate::llvm::FuncIdx;
use std::ops::Range;

/// What an inlining produced.
#[derive(Debug, Default)]
pub struct Inlined {
    /// The call instructions of the cloned body, in layout order.
    pub new_calls: Vec<RowIdx>,
    /// The callee's blocks and their clones in the caller: (callee block, caller block),
    /// as cloned and merged, before `InlineFunction`'s splices (the entry clone's and
    /// the return block's rows may since have moved to `call_block` and `after`, their
    /// blocks left empty and out of the layout).
    pub clones: Vec<(BlockIdx, BlockIdx)>,
    /// The caller block that held the call (it keeps what came before it).
    pub call_block: BlockIdx,
    /// The caller block that holds what followed the call (`call_block` itself when the
    /// clone took the call's place).
    pub after: BlockIdx,
    /// The caller's instruction rows before the inlining: rows from here on are new.
    pub first_new_row: RowIdx,
    /// The call's value was replaced by a constant (its uses in old rows may now name
    /// functions).
    pub value_is_constant: bool,
    /// Inlining through an `invoke`: the blocks it added beyond the clones (what
    /// followed each call turned into an invoke, and the landing pad's body), which
    /// the caller's block frequencies do not know (frequency 0, as LLVM's
    /// `BlockFrequencyInfo` answers for a block it has not seen), and the landing pad
    /// block whose rows moved to its body.
    pub unwind_blocks: Vec<BlockIdx>,
}

fn side_effects(op: Opcode) -> bool {
    op.is_call()
        || op.is_terminator()
        || matches!(
            op,
            Opcode::Store
                | Opcode::Fence
                | Opcode::AtomicCmpXchg
                | Opcode::AtomicRmw
                | Opcode::VaArg
                | Opcode::LandingPad
                | Opcode::CatchPad
                | Opcode::CleanupPad
        )
}

/// Appends `br label %to` (of type `void`) to `b`; returns its row.
fn push_br(b: &mut Body, to: BlockIdx, void: TypeIdx) -> RowIdx {
    b.push(
        Head::new(Opcode::Br, void),
        [(V::Block(to), TypeIdx::NONE)],
        None,
    )
}

/// The module's declarations of the intrinsics inlining calls (each its symbol and
/// function type): a call the inliner makes calls the declaration when the module has
/// one; otherwise its callee is `V::None` and its [`CallInfo::synthetic`] says which
/// intrinsic it is (LLVM would add the declaration).
#[derive(Clone, Copy, Debug, Default)]
pub struct Decls {
    /// `llvm.memcpy.p0i8.p0i8.i64`: the copies of `byval` arguments.
    pub memcpy: Option<(Value, TypeIdx)>,
    /// `llvm.lifetime.start.p0i8`.
    pub lifetime_start: Option<(Value, TypeIdx)>,
    /// `llvm.lifetime.end.p0i8`.
    pub lifetime_end: Option<(Value, TypeIdx)>,
    /// `llvm.experimental.noalias.scope.decl`.
    pub noalias_scope_decl: Option<(Value, TypeIdx)>,
}

/// A call of an intrinsic inlining adds: its callee is `decl` when the module declares
/// it (`V::None` otherwise), with `args` and no attributes.
fn intrinsic_call(
    types: &Types,
    c: &mut Body,
    intr: Intrinsic,
    decl: Option<(Value, TypeIdx)>,
    args: &[(V, TypeIdx)],
) -> RowIdx {
    let (callee, fn_ty) = decl.map_or((V::None, TypeIdx::NONE), |(v, t)| (V::K(v), t));
    let head = Head {
        aux_ty: fn_ty,
        ..Head::new(Opcode::Call, types.find_void().unwrap_or(TypeIdx::NONE))
    };
    let n = args.len();
    let ops = args.iter().copied().chain([(callee, TypeIdx::NONE)]);
    let params = vec![AttrSets::EMPTY; n];
    c.push(
        head,
        ops,
        Some((CallInfo::synthetic(intr, n as u32), &params)),
    )
}

/// `AddAliasScopeMetadata`'s `llvm.experimental.noalias.scope.decl` calls (one per
/// `noalias` parameter the callee uses, in order), made to go before the inlined code.
fn scope_decls(types: &Types, c: &mut Body, noalias: &[bool], decls: &Decls) -> Vec<RowIdx> {
    noalias
        .iter()
        .filter(|&&x| x)
        .map(|_| {
            let md = [(V::K(Value::Metadata), TypeIdx::NONE)];
            intrinsic_call(
                types,
                c,
                Intrinsic::NoAliasScopeDecl,
                decls.noalias_scope_decl,
                &md,
            )
        })
        .collect()
}

/// What inlining does with each argument of a call site.
#[derive(Clone, Debug, Default)]
pub struct ArgFacts {
    /// Per parameter: the type of the copy a `byval` argument is passed through (`None`:
    /// no copy, the argument itself is used).
    pub byval: Vec<Option<TypeIdx>>,
    /// Per parameter: it is `noalias` (at the call site or in the callee) and the
    /// callee uses it, so the inlined code gets a `llvm.experimental.noalias.scope.decl`
    /// for it (`AddAliasScopeMetadata`).
    pub noalias: Vec<bool>,
}

impl ArgFacts {
    /// The facts of call row `call` of `caller` (function `n`) to `callee` (function
    /// `f`), which only reads memory when `reads_only` (its current attributes).
    ///
    /// A `byval` argument is copied unless the callee only reads memory and the
    /// argument is known to be as aligned as the parameter asks, or can be made so
    /// (`HandleByValArgument` over `getOrEnforceKnownAlignment`): no alignment asked, an
    /// alloca, a global variable the module defines, or an argument of the caller with
    /// that alignment.
    pub fn of(
        ir: &Ir,
        (caller, call, n): (&Body, RowIdx, FuncIdx),
        (callee, f): (&Body, FuncIdx),
        reads_only: bool,
    ) -> ArgFacts {
        let ci = caller.call_of(call).expect("a call");
        let site = caller.params(ci);
        let ops = caller.ops(call);
        let nargs = callee.nargs as usize;
        let param = |k: usize, a: Attr| {
            site.get(k).is_some_and(|&s| ir.attr_sets.get(s).has(a))
                || ir.arg(f, k).is_some_and(|p| ir.arg_attrs(p).has(a))
        };
        let aligned = |v: V, align: u64| match v {
            _ if align <= 1 => true,
            V::Inst(i) => caller.op(i) == Opcode::Alloca,
            V::K(Value::Global(_)) => true,
            V::Arg(k) => ir
                .arg(n, k as usize)
                .is_some_and(|a| ir.arg_attrs(a).align >= align),
            _ => false,
        };
        let byval = (0..nargs)
            .map(|k| {
                let s = site.get(k).map(|&a| ir.attr_sets.get(a));
                let decl = ir.arg(f, k).map(|a| ir.arg_attrs(a));
                let ty = s
                    .filter(|a| a.has(Attr::ByVal))
                    .or(decl.filter(|a| a.has(Attr::ByVal)))
                    .map(|a| a.ty)?;
                let align = decl.map_or(0, |a| a.align);
                let elided = reads_only && ops.get(k).is_some_and(|&v| aligned(v, align));
                (!elided).then_some(ty)
            })
            .collect();
        // which parameters the callee uses: a scan of its body, made only for a call
        // with a `noalias` parameter (most have none)
        let mut noalias: Vec<bool> = (0..nargs).map(|k| param(k, Attr::NoAlias)).collect();
        if noalias.iter().any(|&x| x) {
            let mut used = vec![false; nargs];
            for r in callee.live_rows() {
                for &v in callee.ops(r) {
                    if let V::Arg(k) = v {
                        if let Some(u) = used.get_mut(k as usize) {
                            *u = true;
                        }
                    }
                }
            }
            for (x, u) in noalias.iter_mut().zip(used) {
                *x &= u;
            }
        }
        ArgFacts { byval, noalias }
    }
}

/// Inlines the call at row `call` of `caller` (a `call` or an `invoke`) with the body
/// `callee`, its arguments as `args` says; the calls inlining adds call the module's
/// declarations (`fx.decls`).
pub fn inline_call(
    fx: &Facts,
    folds: &mut Folds,
    (caller_fn, caller): (FuncIdx, &mut Body),
    call: RowIdx,
    callee: &Body,
    args_facts: &ArgFacts,
) -> Inlined {
    let (ir, decls) = (&*fx.ir, &fx.decls);
    let types = &ir.types;
    let first_new_row = caller.next_row();
    let (bb, pos) = caller
        .layout
        .iter()
        .find_map(|&b| {
            caller.blocks[b]
                .iter()
                .position(|&i| i == call)
                .map(|p| (b, p))
        })
        .expect("the call is in a live block");
    let nargs = caller.call_of(call).expect("a call").nargs as usize;
    let mut args: Vec<V> = caller.ops(call)[..nargs].to_vec();
    let mut pre = scope_decls(types, caller, &args_facts.noalias, decls);
    let (copies, n_byval) = copy_byval_args(
        types,
        caller,
        call,
        &args_facts.byval,
        decls.memcpy,
        &mut args,
    );
    pre.extend(copies);
    // the blocks: before the call (bb), the clone, after the call
    let after = caller.blocks.push(Vec::new());
    let mut cl = Cloner {
        fx,
        ir,
        caller_fn,
        folds,
        callee,
        void: caller.ty(call),
        entry: caller.layout[0],
        entry_allocas: n_byval,
        args,
        after,
        vmap: vec![None; callee.num_rows() as usize],
        bmap: vec![None; callee.blocks.len()],
        queue: Vec::new(),
        new_blocks: Vec::new(),
        phis: Vec::new(),
        rets: Vec::new(),
    };
    cl.clone_blocks(caller);
    cl.wire_phis(caller);
    let cl_entry = cl.bmap[callee.layout[0].idx()].unwrap();
    cleanup(
        (fx, caller_fn),
        cl.folds,
        caller,
        &cl.new_blocks,
        (cl_entry, first_new_row),
        &mut cl.rets,
    );
    let merges = zap_fall_through(caller, &cl.new_blocks, &mut cl.rets);
    let kept = drop_dead_allocas(caller, (cl.entry, n_byval..cl.entry_allocas), &cl);
    // the clone's blocks in the callee's order; its call sites, collected before the
    // blocks are spliced (InlineFunction.cpp:2442-2456)
    let live: Vec<BlockIdx> = callee
        .layout
        .iter()
        .filter_map(|&cb| cl.bmap[cb.idx()])
        .filter(|&b| !caller.blocks[b].is_empty())
        .collect();
    let new_calls = live
        .iter()
        .flat_map(|&b| caller.blocks[b].iter().copied())
        .filter(|&i| caller.call_of(i).is_some())
        .collect();
    let lt = Lifetimes { types, decls };
    lt.insert(caller, &kept, cl_entry, &cl.rets, first_new_row);
    let mut live = live;
    let unwind_blocks = if caller.op(call) == Opcode::Invoke {
        through_invoke(fx, caller, (call, bb), &mut live, &mut cl.rets, cl.void)
    } else {
        Vec::new()
    };
    let after = if live.len() == 1 && cl.rets.len() == 1 {
        cl.splice_single_block(caller, call, bb, pre, live[0]);
        bb
    } else {
        cl.split_call_block(caller, call, (bb, pos), pre, &live);
        after
    };
    let value_is_constant = cl.replace_call_value(caller, call);
    // a callee block whose clone another absorbed maps to the absorbing block
    let mut into: Vec<BlockIdx> = (0..caller.blocks.len()).map(BlockIdx::new).collect();
    for &(dest, b) in &merges {
        for x in into.iter_mut().filter(|x| **x == dest) {
            *x = b;
        }
        into[dest.idx()] = b;
    }
    let clones = cl
        .bmap
        .iter()
        .enumerate()
        .filter_map(|(cb, nb)| nb.map(|nb| (BlockIdx::new(cb), into[nb.idx()])))
        .collect();
    Inlined {
        new_calls,
        clones,
        call_block: bb,
        after,
        first_new_row,
        value_is_constant,
        unwind_blocks,
    }
}

/// The operands of row `i` with their types.
fn typed_ops(c: &Body, i: RowIdx) -> Vec<(V, TypeIdx)> {
    c.ops(i)
        .iter()
        .copied()
        .zip(c.tys(i).iter().copied())
        .collect()
}

/// Appends operands to row `i`.
fn append_ops(c: &mut Body, i: RowIdx, more: impl IntoIterator<Item = (V, TypeIdx)>) {
    let mut ops = typed_ops(c, i);
    ops.extend(more);
    c.set_operands(i, ops);
}

/// The normal and unwind destinations of `invoke` row `i`.
fn invoke_dests(c: &Body, i: RowIdx) -> Option<(BlockIdx, BlockIdx)> {
    match *c.ops(i) {
        [.., V::Block(normal), V::Block(unwind)] => Some((normal, unwind)),
        _ => None,
    }
}

/// A cloned row that is a `call` which may unwind (no `nounwind` on the site or the
/// callee; inline assembly does not unwind).
fn may_unwind(fx: &Facts, c: &Body, i: RowIdx) -> bool {
    if c.op(i) != Opcode::Call {
        return false;
    }
    let Some(ci) = c.call_of(i) else { return false };
    if fx.ir.attr_sets.get(ci.attrs).has(Attr::NoUnwind) || ci.synthetic != Intrinsic::None {
        return false;
    }
    match c.ops(i)[ci.callee_op as usize] {
        V::K(Value::Asm) => false,
        V::K(Value::Global(s)) => {
            fx.sym_func[s.idx()].is_none_or(|f| !fx.fn_attrs(f).has(Attr::NoUnwind))
        }
        _ => true,
    }
}

/// `HandleInlinedLandingPad` for an `invoke` at `call` in block `bb` whose unwind
/// destination starts (after its phis) with a `landingpad`: the clone's landing pads
/// take the caller's clauses; each cloned call that may unwind becomes an `invoke`
/// unwinding to the caller's landing pad block, what followed it split off into a new
/// block (`changeToInvokeAndSplitBasicBlock`; the landing pad's phis get the values the
/// invoke's block gave them); each cloned `resume` branches to the landing pad's body,
/// split off after the `landingpad` with phis of its own (`forwardResume`); the invoke's
/// block stops being a predecessor of the landing pad. `live` (the clone's blocks in
/// order) gains the split blocks, `rets` follows the returns that moved. Returns the
/// blocks added, then the landing pad block when its body was split off.
fn through_invoke(
    fx: &Facts,
    caller: &mut Body,
    (call, bb): (RowIdx, BlockIdx),
    live: &mut Vec<BlockIdx>,
    rets: &mut [(V, BlockIdx)],
    void: TypeIdx,
) -> Vec<BlockIdx> {
    let Some((_, lpad)) = invoke_dests(caller, call) else {
        return Vec::new();
    };
    let phis: Vec<RowIdx> = caller.blocks[lpad]
        .iter()
        .copied()
        .take_while(|&i| caller.op(i) == Opcode::Phi)
        .collect();
    let caller_lpad = match caller.blocks[lpad].get(phis.len()) {
        Some(&i) if caller.op(i) == Opcode::LandingPad => i,
        // a funclet pad (`HandleInlinedEHPad`): not modelled
        _ => return Vec::new(),
    };
    let from_bb: Vec<(V, TypeIdx)> = phis
        .iter()
        .map(|&p| {
            let ops = caller.ops(p);
            let k = (0..ops.len() / 2)
                .find(|&k| ops[2 * k + 1] == V::Block(bb))
                .unwrap_or(0);
            (ops[2 * k], caller.tys(p)[2 * k])
        })
        .collect();
    // the outer clauses go to the inlined landing pads
    let clauses = typed_ops(caller, caller_lpad);
    let mut inlined_lpads: Vec<RowIdx> = Vec::new();
    for &b in live.iter() {
        let Some(t) = caller.term(b).filter(|&t| caller.op(t) == Opcode::Invoke) else {
            continue;
        };
        let Some((_, ub)) = invoke_dests(caller, t) else {
            continue;
        };
        let lp = caller.blocks[ub]
            .iter()
            .copied()
            .find(|&i| caller.op(i) != Opcode::Phi)
            .filter(|&i| caller.op(i) == Opcode::LandingPad);
        if let Some(lp) = lp.filter(|lp| !inlined_lpads.contains(lp)) {
            inlined_lpads.push(lp);
        }
    }
    for &lp in &inlined_lpads {
        append_ops(caller, lp, clauses.iter().copied());
    }
    let mut added = Vec::new();
    let mut inner: Option<(BlockIdx, Vec<RowIdx>, RowIdx)> = None;
    let mut k = 0;
    while k < live.len() {
        let b = live[k];
        if let Some(p) = caller.blocks[b]
            .iter()
            .position(|&i| may_unwind(fx, caller, i))
        {
            let row = caller.blocks[b][p];
            let s = caller.blocks.push(Vec::new());
            let rest = caller.blocks[b].split_off(p + 1);
            caller.blocks[s] = rest;
            for t in caller.succs(s) {
                caller.redirect_incoming(t, b, s);
            }
            caller.set_op(row, Opcode::Invoke);
            append_ops(
                caller,
                row,
                [
                    (V::Block(s), TypeIdx::NONE),
                    (V::Block(lpad), TypeIdx::NONE),
                ],
            );
            for (&phi, &v) in phis.iter().zip(&from_bb) {
                append_ops(caller, phi, [v, (V::Block(b), TypeIdx::NONE)]);
            }
            for r in rets.iter_mut().filter(|r| r.1 == b) {
                r.1 = s;
            }
            live.insert(k + 1, s);
            added.push(s);
        } else if let Some(t) = caller.term(b).filter(|&t| caller.op(t) == Opcode::Resume) {
            let (dest, inner_phis, eh) = inner
                .get_or_insert_with(|| inner_resume_dest(caller, lpad, (&phis, caller_lpad), void));
            let (dest, eh) = (*dest, *eh);
            let exn = typed_ops(caller, t)
                .first()
                .copied()
                .unwrap_or((V::None, TypeIdx::NONE));
            caller.set_br(t, dest);
            for (&q, &v) in inner_phis.iter().zip(&from_bb) {
                append_ops(caller, q, [v, (V::Block(b), TypeIdx::NONE)]);
            }
            append_ops(caller, eh, [exn, (V::Block(b), TypeIdx::NONE)]);
        }
        k += 1;
    }
    drop_incoming(caller, lpad, bb);
    if let Some((dest, ..)) = inner {
        added.extend([dest, lpad]);
    }
    added
}

/// `LandingPadInliningInfo::getInnerResumeDest`: the landing pad block `lpad` split
/// after its `landingpad` (`caller_lpad`, after the phis `phis`) into a body block laid
/// out next; the body starts with a phi per phi of `lpad` and one of the exception
/// values, each taking the uses of what it stands for and its value from `lpad`.
/// Returns the body, its phis and the exception-values phi.
fn inner_resume_dest(
    caller: &mut Body,
    lpad: BlockIdx,
    (phis, caller_lpad): (&[RowIdx], RowIdx),
    void: TypeIdx,
) -> (BlockIdx, Vec<RowIdx>, RowIdx) {
    let dest = caller.blocks.push(Vec::new());
    let rest = caller.blocks[lpad].split_off(phis.len() + 1);
    caller.blocks[dest] = rest;
    for t in caller.succs(dest) {
        caller.redirect_incoming(t, lpad, dest);
    }
    let br = push_br(caller, dest, void);
    caller.blocks[lpad].push(br);
    caller.place_after(lpad, dest);
    let mut made = Vec::new();
    for &p in phis.iter().chain([&caller_lpad]) {
        let ty = caller.ty(p);
        let q = caller.push(Head::new(Opcode::Phi, ty), [], None);
        caller.replace_uses(p, V::Inst(q));
        caller.set_operands(q, [(V::Inst(p), ty), (V::Block(lpad), TypeIdx::NONE)]);
        caller.blocks[dest].insert(made.len(), q);
        made.push(q);
    }
    let eh = made.pop().expect("the exception values' phi");
    (dest, made, eh)
}

/// `HandleByValArgument` and `HandleByValArgumentInit`: each `byval` argument copied
/// into a new alloca at the front of the caller's entry block and replaced by it in
/// `args`; returns the copies (memcpy calls, to go before the clone) and the number of
/// allocas placed.
fn copy_byval_args(
    types: &Types,
    caller: &mut Body,
    call: RowIdx,
    byval: &[Option<TypeIdx>],
    memcpy: Option<(Value, TypeIdx)>,
    args: &mut [V],
) -> (Vec<RowIdx>, usize) {
    let nargs = args.len();
    let arg_tys: Vec<TypeIdx> = caller.tys(call)[..nargs].to_vec();
    let entry = caller.layout[0];
    let mut entry_allocas = 0usize;
    let mut pre: Vec<RowIdx> = Vec::new();
    for (k, t) in byval.iter().enumerate() {
        let (Some(t), Some(&src)) = (t, args.get(k)) else {
            continue;
        };
        let head = Head {
            aux_ty: *t,
            ..Head::new(Opcode::Alloca, arg_tys[k])
        };
        let a = caller.push(head, [], None);
        caller.blocks[entry].insert(entry_allocas, a);
        entry_allocas += 1;
        let ops = [
            (V::Inst(a), arg_tys[k]),
            (src, arg_tys[k]),
            (V::Int(type_size_i(types, *t)), TypeIdx::NONE),
            (V::Int(0), TypeIdx::NONE),
        ];
        let m = intrinsic_call(types, caller, Intrinsic::Memcpy, memcpy, &ops);
        pre.push(m);
        args[k] = V::Inst(a);
    }
    (pre, entry_allocas)
}

/// The state of one inlining: LLVM's value map (`VMap`) and the pruning cloner's
/// block map and worklist, the collected phis and returns.
struct Cloner<'a> {
    fx: &'a Facts,
    ir: &'a Ir,
    /// The function inlined into.
    caller_fn: FuncIdx,
    folds: &'a mut Folds,
    callee: &'a Body,
    /// The call's type, given to the branches the inlining makes.
    void: TypeIdx,
    /// The caller's entry block.
    entry: BlockIdx,
    /// The allocas already moved to the front of the caller's entry block.
    entry_allocas: usize,
    /// The actual arguments (byval ones replaced by their copies).
    args: Vec<V>,
    /// The caller block that holds what followed the call.
    after: BlockIdx,
    /// Per callee row: its value in the caller.
    vmap: Vec<Option<V>>,
    /// Per callee block: its clone.
    bmap: Vec<Option<BlockIdx>>,
    /// The callee blocks whose clones were made, in that order (the worklist).
    queue: Vec<BlockIdx>,
    /// The clones, in the order they were made.
    new_blocks: Vec<BlockIdx>,
    /// The cloned phis: (new row, callee row).
    phis: Vec<(RowIdx, RowIdx)>,
    /// The returns: (returned value, clone block).
    rets: Vec<(V, BlockIdx)>,
}

impl Cloner<'_> {
    /// The clone of callee block `cb` (made and queued when first asked for).
    fn block(&mut self, cb: BlockIdx, caller: &mut Body) -> BlockIdx {
        if let Some(b) = self.bmap[cb.idx()] {
            return b;
        }
        let b = caller.blocks.push(Vec::new());
        self.bmap[cb.idx()] = Some(b);
        self.queue.push(cb);
        self.new_blocks.push(b);
        b
    }

    /// `RemapInstruction` for one operand: an argument or a cloned row's value.
    fn map(&self, v: V) -> V {
        match v {
            V::Arg(p) => self
                .args
                .get(p as usize)
                .copied()
                .unwrap_or(V::K(Value::Undef)),
            V::Inst(j) => self.vmap[j.idx()].unwrap_or(V::K(Value::Undef)),
            o => o,
        }
    }

    /// `CloneAndPruneIntoFromInst`'s worklist: the callee's blocks cloned from its
    /// entry, each as its first reaching branch asks for it.
    fn clone_blocks(&mut self, caller: &mut Body) {
        let centry = self.callee.layout[0];
        self.block(centry, caller);
        let mut qi = 0;
        while qi < self.queue.len() {
            let cb = self.queue[qi];
            qi += 1;
            self.clone_block(caller, cb, cb == centry);
        }
    }

    /// `PruningFunctionCloner::CloneBlock`: callee block `cb` cloned into its caller
    /// block, each instruction remapped and simplified (`SimplifyInstruction`), static
    /// `SimplifyInstruction` of a cloned call (`SimplifyCall`): an integer intrinsic whose
    /// arguments all became constants is the constant it folds to (it has no side
    /// effects, so the row is not kept).
    fn fold_intrinsic_call(&self, caller: &Body, row: RowIdx) -> Option<V> {
        let ci = caller.call_of(row)?;
        let ops = caller.ops(row);
        let V::K(Value::Global(s)) = ops[ci.callee_op as usize] else {
            return None;
        };
        let name = &self.fx.names[self.fx.sym_func[s.idx()]?.idx()];
        if let [x] = ops[..ci.nargs as usize] {
            let same = unary_fp_intrinsic(name, caller, x, |v| float_value(self.ir, v));
            if same.is_some() {
                return same;
            }
        }
        let bits = self.ir.types.int_bits(caller.ty(row))?;
        let int = |v: V| match v {
            V::Int(c) => Some(c),
            _ => None,
        };
        fold_intrinsic_call(name, &ops[..ci.nargs as usize], bits, int)
    }

    /// allocas of the entry moved to the caller's entry, terminators on constants folded.
    fn clone_block(&mut self, caller: &mut Body, cb: BlockIdx, is_entry: bool) {
        let callee = self.callee;
        let nbb = self.bmap[cb.idx()].unwrap();
        for &r in &callee.blocks[cb] {
            let src = callee.inst(r);
            if src.op == Opcode::Phi {
                // its incoming values are wired once every block is cloned
                let row = caller.push(src.head(), [], None);
                caller.blocks[nbb].push(row);
                self.vmap[r.idx()] = Some(V::Inst(row));
                self.phis.push((row, r));
                continue;
            }
            if src.op.is_terminator()
                && !src.op.is_call()
                && self.clone_folded_terminator(caller, nbb, src)
            {
                continue;
            }
            // the successors' clones first: the row's operands are then one pass
            for &v in src.ops {
                if let V::Block(t) = v {
                    self.block(t, caller);
                }
            }
            let row = caller.push_copy(callee, r, |v| match v {
                V::Block(t) => V::Block(self.bmap[t.idx()].unwrap()),
                o => self.map(o),
            });
            if let Some(v) = self.fold_intrinsic_call(caller, row) {
                caller.pop();
                self.vmap[r.idx()] = Some(v);
                continue;
            }
            let static_alloca = src.op == Opcode::Alloca
                && is_entry
                && caller
                    .ops(row)
                    .first()
                    .is_none_or(|v| matches!(v, V::Int(_)));
            if !side_effects(src.op) {
                let q = Sq {
                    types: &self.ir.types,
                    caller,
                    unwired: Some((callee, &self.phis)),
                    no_thread_from: RowIdx::NONE,
                    module: Some((self.fx, self.caller_fn)),
                };
                let vmap = &self.vmap;
                let s = simplify_with(&q, row, |v| match v {
                    V::Inst(j) => vmap[j.idx()],
                    o => Some(self.map(o)),
                })
                .or_else(|| self.folds.fold(self.fx, caller, row));
                if let Some(s) = s {
                    caller.pop();
                    self.vmap[r.idx()] = Some(s);
                    continue;
                }
            }
            self.vmap[r.idx()] = Some(V::Inst(row));
            if static_alloca {
                caller.blocks[self.entry].insert(self.entry_allocas, row);
                self.entry_allocas += 1;
            } else {
                caller.blocks[nbb].push(row);
            }
        }
    }

    /// The terminator step of `CloneBlock`: a return becomes a branch to `after` (its
    /// value noted), a conditional branch or switch on a constant a branch to the one
    /// live successor. False when the terminator is cloned as it is.
    fn clone_folded_terminator(&mut self, caller: &mut Body, nbb: BlockIdx, src: Inst<'_>) -> bool {
        let to = match src.op {
            Opcode::Ret => {
                let v = src.ops.first().map(|&v| self.map(v)).unwrap_or(V::None);
                self.rets.push((v, nbb));
                self.after
            }
            Opcode::Br if src.ops.len() == 3 => {
                let V::Int(c) = self.map(src.ops[0]) else {
                    return false;
                };
                let V::Block(t) = src.ops[if c & 1 != 0 { 1 } else { 2 }] else {
                    unreachable!()
                };
                self.block(t, caller)
            }
            Opcode::Switch => {
                let V::Int(c) = self.map(src.ops[0]) else {
                    return false;
                };
                let mut dest = src.ops[1];
                for k in (2..src.ops.len()).step_by(2) {
                    if src.ops[k] == V::Int(c) {
                        dest = src.ops[k + 1];
                        break;
                    }
                }
                let V::Block(t) = dest else { unreachable!() };
                self.block(t, caller)
            }
            _ => return false,
        };
        let row = push_br(caller, to, self.void);
        caller.blocks[nbb].push(row);
        true
    }

    /// The deferred phi remapping of `CloneAndPruneIntoFromInst`: each cloned phi keeps
    /// the incoming values of the cloned predecessors that still branch to it.
    fn wire_phis(&self, caller: &mut Body) {
        let callee = self.callee;
        for &(row, r) in &self.phis {
            let src = callee.inst(r);
            let mut ops = Vec::new();
            let dest = self.bmap[callee_block_of(callee, r).idx()].unwrap();
            for k in (0..src.ops.len()).step_by(2) {
                let V::Block(p) = src.ops[k + 1] else {
                    continue;
                };
                let Some(np) = self.bmap[p.idx()] else {
                    continue;
                };
                if !caller.succs(np).contains(&dest) {
                    continue;
                }
                ops.push((self.map(src.ops[k]), src.tys[k]));
                ops.push((V::Block(np), TypeIdx::NONE));
            }
            caller.set_operands(row, ops);
        }
    }

    /// The position of the call in its block `bb` (static allocas of the clone went to
    /// the front of the entry block, which may be `bb`).
    fn call_pos(caller: &Body, call: RowIdx, bb: BlockIdx, pos: usize) -> usize {
        caller.blocks[bb]
            .iter()
            .position(|&i| i == call)
            .unwrap_or(pos)
    }

    /// `InlineFunction`'s fast path (InlineFunction.cpp:2461-2492): a clone of one block
    /// with one return goes in place of the call in the call block `bb`, the byval
    /// copies `pre` first; the return (the branch to `after`) is dropped, no block is
    /// added.
    fn splice_single_block(
        &self,
        caller: &mut Body,
        call: RowIdx,
        bb: BlockIdx,
        pre: Vec<RowIdx>,
        only: BlockIdx,
    ) {
        let mut rows = std::mem::take(&mut caller.blocks[only]);
        let ret = rows.pop();
        debug_assert!(ret.is_some_and(|t| caller.ops(t) == [V::Block(self.after)]));
        // an invoke leaves a branch to its normal destination
        if let Some((normal, _)) =
            invoke_dests(caller, call).filter(|_| caller.op(call) == Opcode::Invoke)
        {
            rows.push(push_br(caller, normal, self.void));
        }
        let pos = Self::call_pos(caller, call, bb, 0);
        caller.blocks[bb].splice(pos..pos + 1, pre.into_iter().chain(rows));
    }

    /// `splitBasicBlock` at the call (at `pos` of `bb`) and the splices of
    /// `InlineFunction` (InlineFunction.cpp:2514-2638): `after` takes what followed the
    /// call; with one return, the return block's rows go to the front of `after` and its
    /// predecessors branch there; the entry clone's rows (its terminator included) are
    /// appended to `bb` after the byval copies `pre`. The other clones (`live`: the
    /// clone's blocks in the callee's order) and `after` follow `bb` in the layout.
    fn split_call_block(
        &mut self,
        caller: &mut Body,
        call: RowIdx,
        (bb, pos): (BlockIdx, usize),
        pre: Vec<RowIdx>,
        live: &[BlockIdx],
    ) {
        let after = self.after;
        let pos = Self::call_pos(caller, call, bb, pos);
        let tail: Vec<RowIdx> = caller.blocks[bb].split_off(pos);
        caller.blocks[after] = tail[1..].to_vec();
        // an invoke ends its block: `after` branches to its normal destination
        if let Some((normal, _)) =
            invoke_dests(caller, call).filter(|_| caller.op(call) == Opcode::Invoke)
        {
            let br = push_br(caller, normal, self.void);
            caller.blocks[after].push(br);
        }
        for s in caller.succs(after) {
            caller.redirect_incoming(s, bb, after);
        }
        let cl_entry = self.bmap[self.callee.layout[0].idx()].unwrap();
        // (a return in the entry clone leaves one block: the fast path)
        let ret_bb = match self.rets[..] {
            [(_, r)] if r != cl_entry => Some(r),
            _ => None,
        };
        if let Some(ret_bb) = ret_bb {
            caller.blocks[ret_bb].pop();
            for &b in live.iter().filter(|&&b| b != ret_bb) {
                if let Some(t) = caller.term(b) {
                    caller.retarget(t, ret_bb, after);
                }
            }
            let rows = std::mem::take(&mut caller.blocks[ret_bb]);
            caller.blocks[after].splice(0..0, rows);
            self.rets[0].1 = after;
        }
        for s in caller.succs(cl_entry) {
            caller.redirect_incoming(s, cl_entry, bb);
        }
        for r in self.rets.iter_mut().filter(|r| r.1 == cl_entry) {
            r.1 = bb;
        }
        let rows = std::mem::take(&mut caller.blocks[cl_entry]);
        caller.blocks[bb].extend(pre.into_iter().chain(rows));
        // layout: bb, the other clones in the callee's order, after
        let at = caller.layout.iter().position(|&b| b == bb).unwrap() + 1;
        let ins = live
            .iter()
            .copied()
            .filter(|&b| !caller.blocks[b].is_empty())
            .chain([after]);
        caller.layout.splice(at..at, ins);
    }

    /// The return handling of `InlineFunction`: the call's uses take the one returned
    /// value, or a phi of the returned values at the front of `after` (kept unless it
    /// simplifies), or undef. Returns whether that value is a constant.
    fn replace_call_value(&self, caller: &mut Body, call: RowIdx) -> bool {
        let ty = caller.ty(call);
        if ty.is_none() || self.ir.types.is_void(ty) {
            return false;
        }
        let after = self.after;
        let v = match self.rets.len() {
            0 => V::K(Value::Undef),
            1 => self.rets[0].0,
            _ => {
                let ops = self
                    .rets
                    .iter()
                    .flat_map(|&(v, b)| [(v, ty), (V::Block(b), TypeIdx::NONE)]);
                let p = caller.push(Head::new(Opcode::Phi, ty), ops, None);
                caller.blocks[after].insert(0, p);
                match simplify(&self.ir.types, caller, p) {
                    Some(s) => {
                        caller.blocks[after].remove(0);
                        s
                    }
                    None => V::Inst(p),
                }
            }
        };
        caller.replace_uses(call, v);
        matches!(v, V::K(_))
    }
}

fn type_size_i(types: &Types, t: TypeIdx) -> i64 {
    crate::llvm::ir::body::type_size(types, t) as i64
}

fn callee_block_of(callee: &Body, r: RowIdx) -> BlockIdx {
    for (b, insts) in callee.blocks.iter_enumerated() {
        if insts.contains(&r) {
            return b;
        }
    }
    BlockIdx::new(0)
}

/// Simplifies the cloned blocks after the phis are wired: instructions that fold are
/// replaced by their values (recursively), conditional terminators on constants become
/// branches, blocks no longer reached from the clone's entry are dropped.
fn cleanup(
    (fx, caller_fn): (&Facts, FuncIdx),
    folds: &mut Folds,
    c: &mut Body,
    blocks: &[BlockIdx],
    (entry, first_new_row): (BlockIdx, RowIdx),
    rets: &mut Vec<(V, BlockIdx)>,
) {
    let ir: &Ir = &fx.ir;
    for _round in 0..8 {
        let mut changed = false;
        // fold instructions
        loop {
            let mut any = false;
            for &b in blocks {
                let mut k = 0;
                while k < c.blocks[b].len() {
                    let i = c.blocks[b][k];
                    let op = c.op(i);
                    if side_effects(op) {
                        k += 1;
                        continue;
                    }
                    // the clone's phis are wired now: LLVM's cloner does not thread
                    // compares over them with the caller's values
                    let q = Sq {
                        no_thread_from: first_new_row,
                        module: Some((fx, caller_fn)),
                        ..Sq::new(&ir.types, c)
                    };
                    let s = simplify_with(&q, i, Some).or_else(|| folds.fold(fx, c, i));
                    if let Some(s) = s {
                        if s != V::Inst(i) {
                            c.blocks[b].remove(k);
                            // a clone's value is used only by the clone's rows
                            c.replace_uses(i, s);
                            for r in rets.iter_mut() {
                                if r.0 == V::Inst(i) {
                                    r.0 = s;
                                }
                            }
                            any = true;
                            continue;
                        }
                    }
                    k += 1;
                }
            }
            if !any {
                break;
            }
            changed = true;
        }
        // fold terminators
        for &b in blocks {
            let Some(t) = c.term(b) else { continue };
            let inst = c.inst(t);
            let target = match inst.op {
                Opcode::Br if inst.ops.len() == 3 => match inst.ops[0] {
                    V::Int(x) => Some(inst.ops[if x & 1 != 0 { 1 } else { 2 }]),
                    _ if inst.ops[1] == inst.ops[2] => Some(inst.ops[1]),
                    _ => None,
                },
                Opcode::Switch => match inst.ops[0] {
                    V::Int(x) => {
                        let mut d = inst.ops[1];
                        for k in (2..inst.ops.len()).step_by(2) {
                            if inst.ops[k] == V::Int(x) {
                                d = inst.ops[k + 1];
                                break;
                            }
                        }
                        Some(d)
                    }
                    _ => None,
                },
                _ => None,
            };
            let Some(V::Block(to)) = target else { continue };
            let old = c.succs(b);
            c.set_br(t, to);
            for s in old {
                if s != to {
                    drop_incoming(c, s, b);
                }
            }
            changed = true;
        }
        // unreachable clone blocks
        let mut reach = crate::hash::FixedSet::default();
        let mut st = vec![entry];
        reach.insert(entry);
        while let Some(b) = st.pop() {
            for s in c.succs(b) {
                if blocks.contains(&s) && reach.insert(s) {
                    st.push(s);
                }
            }
        }
        for &b in blocks {
            if !reach.contains(&b) && !c.blocks[b].is_empty() {
                for s in c.succs(b) {
                    drop_incoming(c, s, b);
                }
                c.blocks[b].clear();
                rets.retain(|r| r.1 != b);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// `InlineFunction`'s move of the entry clone's allocas (InlineFunction.cpp:2063-2098):
/// a moved static alloca (at `moved` of the caller's entry block `entry`) that no row of
/// a live clone block and no return uses any more (its users were pruned or folded) is
/// erased.
fn drop_dead_allocas(
    c: &mut Body,
    (entry, moved): (BlockIdx, Range<usize>),
    cl: &Cloner<'_>,
) -> Vec<RowIdx> {
    if moved.is_empty() {
        return Vec::new();
    }
    let mut allocas: Vec<RowIdx> = c.blocks[entry][moved.clone()].to_vec();
    allocas.sort_unstable();
    let mut used = vec![false; allocas.len()];
    let mut mark = |v: V| {
        if let V::Inst(x) = v {
            if let Ok(k) = allocas.binary_search(&x) {
                used[k] = true;
            }
        }
    };
    for &b in &cl.new_blocks {
        for &r in &c.blocks[b] {
            c.ops(r).iter().for_each(|&v| mark(v));
        }
    }
    cl.rets.iter().for_each(|&(v, _)| mark(v));
    let keep: Vec<RowIdx> = c.blocks[entry][moved.clone()]
        .iter()
        .copied()
        .filter(|a| allocas.binary_search(a).is_ok_and(|k| used[k]))
        .collect();
    c.blocks[entry].splice(moved, keep.iter().copied());
    keep
}

/// What the lifetime markers of an inlining are made of.
struct Lifetimes<'a> {
    types: &'a Types,
    decls: &'a Decls,
}

impl Lifetimes<'_> {
    /// `InlineFunction`'s lifetime markers (InlineFunction.cpp:2191-2246): each static
    /// alloca the clone moved to the caller's entry (`allocas`, in order) that is not
    /// already used by a lifetime marker and does not allocate zero elements gets an
    /// `llvm.lifetime.start` at the front of the entry clone `first` and an
    /// `llvm.lifetime.end` before every return (`rets`: the blocks whose branch to the
    /// after block stands for one), each on the alloca cast to `i8*` and with its size
    /// in bytes (-1 when it would overflow). Rows from `first_row` on are the clone's.
    fn insert(
        &self,
        c: &mut Body,
        allocas: &[RowIdx],
        first: BlockIdx,
        rets: &[(V, BlockIdx)],
        first_row: RowIdx,
    ) {
        if allocas.is_empty() {
            return;
        }
        let marked = self.marked_allocas(c, first_row);
        let mut starts = Vec::new();
        let mut ends: Vec<Vec<RowIdx>> = vec![Vec::new(); rets.len()];
        for &a in allocas {
            if marked.contains(&a) {
                continue;
            }
            let count = match c.ops(a).first() {
                None => 1u64,
                Some(&V::Int(n)) => n as u64,
                Some(_) => continue,
            };
            if count == 0 {
                continue;
            }
            let elem = crate::llvm::ir::body::type_size(self.types, c.aux_ty(a));
            let size = count.checked_mul(elem).map_or(-1, |s| s as i64);
            starts.extend(self.marker(c, a, size, true));
            for e in &mut ends {
                e.extend(self.marker(c, a, size, false));
            }
        }
        c.blocks[first].splice(0..0, starts);
        for (&(_, b), rows) in rets.iter().zip(ends) {
            let at = c.blocks[b].len().saturating_sub(1);
            c.blocks[b].splice(at..at, rows);
        }
    }

    /// The allocas a lifetime marker among the rows from `first_row` on already names
    /// (directly, or through a cast to `i8*`): `hasLifetimeMarkers`.
    fn marked_allocas(&self, c: &Body, first_row: RowIdx) -> Vec<RowIdx> {
        let mut out = Vec::new();
        for r in c.rows_from(first_row) {
            if !self.is_marker(c, r) {
                continue;
            }
            match c.ops(r).get(1) {
                Some(&V::Inst(p)) if c.op(p) == Opcode::BitCast => {
                    if let Some(&V::Inst(a)) = c.ops(p).first() {
                        out.push(a);
                    }
                }
                Some(&V::Inst(a)) => out.push(a),
                _ => {}
            }
        }
        out
    }

    /// Whether row `r` calls `llvm.lifetime.start/end`.
    fn is_marker(&self, c: &Body, r: RowIdx) -> bool {
        let Some(ci) = c.call_of(r) else {
            return false;
        };
        if ci.synthetic == Intrinsic::Lifetime {
            return true;
        }
        let callee = c.ops(r)[ci.callee_op as usize];
        [self.decls.lifetime_start, self.decls.lifetime_end]
            .iter()
            .flatten()
            .any(|&(v, _)| callee == V::K(v))
    }

    /// The rows of one marker on alloca `a` (not yet in a block): the cast to `i8*`
    /// when `a` is not one, and the call.
    fn marker(&self, c: &mut Body, a: RowIdx, size: i64, start: bool) -> Vec<RowIdx> {
        let mut rows = Vec::with_capacity(2);
        let a_ty = c.ty(a);
        let i8_ptr = self
            .types
            .find_int(8)
            .and_then(|i8t| self.types.find_ptr(i8t, self.types.addrspace(a_ty)));
        let (ptr, ptr_ty) = match i8_ptr {
            Some(t) if t != a_ty => {
                let bc = c.push(Head::new(Opcode::BitCast, t), [(V::Inst(a), a_ty)], None);
                rows.push(bc);
                (V::Inst(bc), t)
            }
            _ => (V::Inst(a), a_ty),
        };
        let decl = if start {
            self.decls.lifetime_start
        } else {
            self.decls.lifetime_end
        };
        let i64_ty = self.types.find_int(64).unwrap_or(TypeIdx::NONE);
        let args = [(V::Int(size), i64_ty), (ptr, ptr_ty)];
        rows.push(intrinsic_call(
            self.types,
            c,
            Intrinsic::Lifetime,
            decl,
            &args,
        ));
        rows
    }
}

/// The last step of `CloneAndPruneIntoFromInst`: in the order the clones were made, a
/// clone ending in an unconditional branch to a block whose one incoming edge that is
/// absorbs it (its rows appended, its successors' phis told), again and again. Returns
/// the merges, `(absorbed, into)`, in order; LLVM's value map then maps the absorbed
/// block's callee block to the merged one.
fn zap_fall_through(
    c: &mut Body,
    blocks: &[BlockIdx],
    rets: &mut [(V, BlockIdx)],
) -> Vec<(BlockIdx, BlockIdx)> {
    let mut preds = vec![0u32; c.blocks.len()];
    for &b in blocks {
        for s in c.succ_iter(b) {
            preds[s.idx()] += 1;
        }
    }
    let mut merges = Vec::new();
    for &b in blocks {
        while let Some(t) = c.term(b) {
            let dest = match (c.op(t), c.ops(t)) {
                (Opcode::Br, &[V::Block(d)]) => d,
                _ => break,
            };
            let first = c.blocks[dest].first().copied();
            if dest == b || preds[dest.idx()] != 1 || first.is_none_or(|r| c.op(r) == Opcode::Phi) {
                break;
            }
            c.blocks[b].pop();
            let rows = std::mem::take(&mut c.blocks[dest]);
            c.blocks[b].extend(rows);
            for s in c.succs(b) {
                c.redirect_incoming(s, dest, b);
            }
            for r in rets.iter_mut().filter(|r| r.1 == dest) {
                r.1 = b;
            }
            merges.push((dest, b));
        }
    }
    merges
}

fn drop_incoming(c: &mut Body, s: BlockIdx, from: BlockIdx) {
    for x in 0..c.blocks[s].len() {
        let i = c.blocks[s][x];
        if c.op(i) != Opcode::Phi {
            continue;
        }
        let ops = c.ops(i);
        // LLVM removes one incoming entry per dropped edge
        if let Some(k) = (0..ops.len() / 2).find(|&k| ops[2 * k + 1] == V::Block(from)) {
            c.remove_operand_pair(i, 2 * k);
        }
    }
}
