//! The inliner's walk over one SCC: LLVM 14's `InlinerPass::run` — the worklist of call
//! sites, one batch of decisions per caller, the inlining itself with its use-count and
//! frequency updates, the caller's new edges to the call graph after each batch, and the
//! dead callees left at the end.

use super::decide::{decide, Decision};
use super::store::{Chain, RunOut, Spec, Store, Unit};
use super::{clone, fold::Folds, CallerFacts, State, Summary};
use crate::callgraph::{function_of_node, node_of_function, NodeIdx, SccIdx};
use crate::cgscc::inliner::remark::{Remark, RemarkKind};
use crate::cgscc::{Abort, CgsccModule, Options, PassContext, PassResult};
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{RowIdx, V};
use crate::llvm::ir::debugloc::{CallSiteFormat, DebugLocIdx, DebugLocs};
use crate::llvm::ir::{Intrinsic, Opcode};
use crate::llvm::{FuncIdx, Linkage};
use std::sync::Arc;

/// A queued call site: the caller, its call row and the call's inline history row.
type Work = (FuncIdx, RowIdx, Option<u32>);

/// What a run reads of the pass manager: the call graph, names and flags, the knobs.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub g: Graph<'a>,
    pub opts: &'a crate::cgscc::Options,
}

impl<'a> Ctx<'a> {
    fn of(cx: &'a PassContext<'_>) -> Ctx<'a> {
        Ctx {
            g: Graph::Live(&*cx.m),
            opts: cx.opts,
        }
    }
}

/// The call graph, names and flags a run reads: the walk's own, or a copy taken for
/// runs made ahead ([`FrozenGraph`]) with the unit's one function.
#[derive(Clone, Copy)]
pub(super) enum Graph<'a> {
    Live(&'a CgsccModule),
    Frozen(&'a FrozenGraph, &'a [NodeIdx]),
}

/// What runs made ahead read of the call graph and the pass manager, copied when a
/// round begins, so that they read it while the walk goes on: the SCC of every node,
/// whether it is in a cycle of calls (when a decision reads it), removed, a library
/// function, the names, and whether a cap stopped the inliner. A run of a unit reads
/// these only of its own function and of its callees: functions committed when the
/// copy was taken, or units of one function run by a chained run, whose SCC and
/// recursion their own visit leaves as they were (inlining adds only edges to
/// functions earlier in the post-order). What the walk changes meanwhile (a callee's
/// removal, by its deletion) the run's journal checks at its turn.
#[derive(Debug)]
pub(crate) struct FrozenGraph {
    scc_of: Vec<Option<SccIdx>>,
    /// Per node: in a cycle of calls; empty when no decision reads it (the cost
    /// multiplier of recursive callees is 1).
    recursive: Vec<bool>,
    removed: Vec<bool>,
    lib: Vec<bool>,
    stopped: bool,
    names: Arc<crate::idx::IndexVec<NodeIdx, Arc<str>>>,
}

impl FrozenGraph {
    /// The copy of `m`'s call graph and flags as they are now; `names` its nodes'
    /// names, shared; with `recursion`, whether each node is in a cycle of calls (a
    /// search of its edges for one to itself, which decisions read only when the cost
    /// of a call depends on its callee's recursion).
    pub(crate) fn of(
        m: &CgsccModule,
        names: Arc<crate::idx::IndexVec<NodeIdx, Arc<str>>>,
        recursion: bool,
    ) -> FrozenGraph {
        let g = &m.graph;
        let n = g.num_nodes();
        let nodes = (0..n).map(NodeIdx::new);
        let mut lib = vec![false; n];
        for &l in g.lib_functions() {
            lib[l.idx()] = true;
        }
        FrozenGraph {
            scc_of: nodes.clone().map(|nd| g.scc_of(nd)).collect(),
            recursive: match recursion {
                true => nodes
                    .clone()
                    .map(|nd| Graph::Live(m).recursive(nd))
                    .collect(),
                false => Vec::new(),
            },
            removed: nodes.map(|nd| g.is_removed(nd)).collect(),
            lib,
            stopped: m.inliner_stopped,
            names,
        }
    }
}

impl<'a> Graph<'a> {
    /// The nodes of SCC `s` (for a copy: the unit's, `s` being its SCC).
    pub(super) fn scc_nodes(self, s: SccIdx) -> &'a [NodeIdx] {
        match self {
            Graph::Live(m) => m.graph.scc_nodes(s),
            Graph::Frozen(fz, unit) => {
                debug_assert!(unit.iter().all(|nd| fz.scc_of[nd.idx()] == Some(s)));
                unit
            }
        }
    }

    /// The SCC of node `nd`.
    pub(super) fn scc_of(self, nd: NodeIdx) -> Option<SccIdx> {
        match self {
            Graph::Live(m) => m.graph.scc_of(nd),
            Graph::Frozen(fz, _) => fz.scc_of.get(nd.idx()).copied().flatten(),
        }
    }

    /// Node `nd` was removed from the graph.
    pub(super) fn is_removed(self, nd: NodeIdx) -> bool {
        match self {
            Graph::Live(m) => m.graph.is_removed(nd),
            Graph::Frozen(fz, _) => fz.removed.get(nd.idx()).copied().unwrap_or(false),
        }
    }

    /// Node `nd` is a defined library function.
    pub(super) fn is_lib(self, nd: NodeIdx) -> bool {
        match self {
            Graph::Live(m) => m.graph.lib_functions().contains(&nd),
            Graph::Frozen(fz, _) => fz.lib.get(nd.idx()).copied().unwrap_or(false),
        }
    }

    /// Node `nd` is in a cycle of calls: its SCC has other members or it calls itself.
    pub(super) fn recursive(self, nd: NodeIdx) -> bool {
        match self {
            Graph::Live(m) => {
                let g = &m.graph;
                g.scc_of(nd)
                    .is_some_and(|s| g.scc_nodes(s).len() > 1 || g.edge(nd, nd).is_some())
            }
            Graph::Frozen(fz, _) => {
                debug_assert!(!fz.recursive.is_empty(), "a copy made without recursion");
                fz.recursive.get(nd.idx()).copied().unwrap_or(false)
            }
        }
    }

    /// A cap stopped the inliner.
    pub(super) fn stopped(self) -> bool {
        match self {
            Graph::Live(m) => m.inliner_stopped,
            Graph::Frozen(fz, _) => fz.stopped,
        }
    }

    /// The edge from `nd` into SCC `s` was inlined inside that SCC (LLVM's
    /// `InlinedInternalEdges`); never for a unit of one function, which has none.
    pub(super) fn inlined_internal(self, nd: NodeIdx, s: SccIdx) -> bool {
        match self {
            Graph::Live(m) => m.inlined_internal.contains(&(nd, s)),
            Graph::Frozen(..) => false,
        }
    }

    /// Node `nd`'s name.
    pub(super) fn name(self, nd: NodeIdx) -> &'a Arc<str> {
        match self {
            Graph::Live(m) => &m.summ.names[nd],
            Graph::Frozen(fz, _) => &fz.names[nd],
        }
    }
}

/// One run of the inliner on one SCC.
struct Run {
    /// The pass name remarks carry.
    pass: Arc<str>,
    /// `inline<only-mandatory>`.
    only_mandatory: bool,
    /// The SCC being walked (it changes as the caller's edges change).
    cur: SccIdx,
    /// The queued call sites and the next to take.
    work: Vec<Work>,
    next: usize,
    /// Inline history rows: (inlined callee, parent row).
    hist: Vec<(FuncIdx, Option<u32>)>,
    /// Dead callees in a comdat (not local): deleted at the end of the run when their
    /// whole comdat is dead.
    dead_in_comdats: Vec<FuncIdx>,
    /// The current caller's facts while its batch runs.
    facts: Option<CallerFacts>,
    /// The cost analysis' tables, reused from one call site to the next.
    scratch: super::cost::Scratch,
    /// What the run leaves for the pass manager (handed over after each batch).
    out: RunOut,
}

impl Run {
    fn new(pass: &str, only_mandatory: bool, cur: SccIdx) -> Run {
        Run {
            pass: Arc::from(pass),
            only_mandatory,
            cur,
            work: Vec::new(),
            next: 0,
            hist: Vec::new(),
            dead_in_comdats: Vec::new(),
            facts: None,
            scratch: super::cost::Scratch::default(),
            out: RunOut::default(),
        }
    }

    /// Inline history row `h` (and its parents) inlined `f`.
    fn history_contains(&self, mut h: Option<u32>, f: FuncIdx) -> bool {
        while let Some(x) = h {
            let (g, p) = self.hist[x as usize];
            if g == f {
                return true;
            }
            h = p;
        }
        false
    }
}

/// Runs the LLVM 14 inliner on SCC `scc` as pass `name`.
pub(crate) fn run(
    name: &str,
    only_mandatory: bool,
    scc: SccIdx,
    cx: &mut PassContext<'_>,
) -> Result<PassResult, Abort> {
    let Some(mut st) = cx.m.llvm14.take() else {
        return Err(Abort(
            "the inliner needs the module's instruction view (read the module with \
             ParseOptions { instructions: true }, or choose the summary estimate)"
                .into(),
        ));
    };
    let mut r = Run::new(name, only_mandatory, scc);
    r.scratch = std::mem::take(&mut st.scratch);
    match made_ahead(&mut st, &r, cx) {
        Ok(u) => take_made(&mut st, &mut r, u, cx),
        Err(refused) => {
            // a run refused: what the walk's own run must leave for it to count as
            // taken for the runs chained on it
            let before = refused.map(|u| {
                let n = u.n.idx();
                (u, st.ver[n], st.cleared)
            });
            seed(&mut *st, &mut r, Ctx::of(cx));
            hand_over(&mut r.out, cx);
            while r.next < r.work.len() {
                let n = r.work[r.next].0;
                if cx.m.graph.scc_of(node_of_function(n)) != Some(r.cur) || st.deleted[n.idx()] {
                    r.next += 1;
                    continue;
                }
                let inlined = caller_batch(&mut *st, &mut r, n, Ctx::of(cx));
                hand_over(&mut r.out, cx);
                if !inlined.is_empty() {
                    after_batch(&mut st, &mut r, (n, None), &inlined, cx);
                }
            }
            let reproduced = before.filter(|(u, ver, cleared)| u.reproduced(&st, *ver, *cleared));
            delete_dead_comdats(&mut *st, &mut r);
            if let Some((u, _, _)) = reproduced {
                st.made_reproduced += 1;
                st.taken_ver[u.n.idx()] = st.ver[u.n.idx()];
            }
        }
    }
    // dead callees leave the graph at the end of the run, as in LLVM 14
    if cx.opts.inline.delete_dead {
        let dead = std::mem::take(&mut r.out.dead);
        cx.remove_dead_functions(dead.iter().map(|&f| node_of_function(f)));
    }
    st.scratch = std::mem::take(&mut r.scratch);
    cx.m.llvm14 = Some(st);
    Ok(if r.out.changed {
        PassResult::Changed
    } else {
        PassResult::Unchanged
    })
}

/// Hands the run's remarks, work counts, inlinings and attribute changes to the pass
/// manager.
fn hand_over(out: &mut RunOut, cx: &mut PassContext<'_>) {
    for rm in out.remarks.drain(..) {
        cx.m.record_remark(cx.opts.inline.keep_remarks, rm);
    }
    for (k, c) in out.unkept.iter_mut().enumerate() {
        cx.m.remark_counts[k] += std::mem::take(c);
    }
    for (n, w) in out.work.drain(..) {
        cx.m.work[n] += w;
    }
    cx.m.inlines_done += std::mem::take(&mut out.inlines);
    for n in out.must_progress.drain(..) {
        if let Some(inf) = cx.m.fn_attrs.as_mut() {
            inf.remove_fn_attr(n, Attr::MustProgress);
        }
    }
}

/// The run made ahead for this SCC, when it is a unit of one function, was made as
/// this pass and nothing it read has changed since; otherwise the run made as this
/// pass that the walk refuses, if there is one.
fn made_ahead(
    st: &mut State,
    r: &Run,
    cx: &PassContext<'_>,
) -> Result<Arc<Unit>, Option<Arc<Unit>>> {
    let &[nd] = cx.m.graph.scc_nodes(r.cur) else {
        return Err(None);
    };
    let u = st.take_made(function_of_node(nd)).ok_or(None)?;
    if u.pass != r.pass || u.only_mandatory != r.only_mandatory {
        return Err(None);
    }
    if u.holds(st) {
        Ok(u)
    } else {
        Err(Some(u))
    }
}

/// Takes a run made ahead ([`speculate`]) at its turn: its writes, then what the walk
/// does after the batch (the caller's new edges) and its dead callees.
fn take_made(st: &mut State, r: &mut Run, u: Arc<Unit>, cx: &mut PassContext<'_>) {
    let n = u.n;
    st.made_taken += 1;
    st.attrs_mattered += usize::from(u.attrs_mattered);
    let dead_in_comdats = u.dead_in_comdats(st);
    let (out, summary, use_table) = u.take_parts();
    u.install(st, use_table);
    r.out = out;
    hand_over(&mut r.out, cx);
    let inlined = std::mem::take(&mut r.out.inlined);
    if !inlined.is_empty() {
        // the batch's own dead callees, as the walk has them after the batch
        let all = std::mem::take(&mut r.out.dead);
        r.out.dead = all[..r.out.dead_in_batch].to_vec();
        // the batch's end drops what was made from the caller's body; its use lists,
        // made with the run from the body just installed, which the batch's end leaves
        // as it is, are what `function-attrs` reads next
        let uses = st.use_tables[n.idx()].take();
        after_batch(st, r, (n, summary), &inlined, cx);
        st.use_tables[n.idx()] = uses;
        r.out.dead = all;
    }
    // the end of the run: the comdat deadness tests the run left to its turn
    r.dead_in_comdats = dead_in_comdats;
    delete_dead_comdats(st, r);
    st.taken_ver[n.idx()] = st.ver[n.idx()];
    st.put_made_attrs(u);
}

/// The inliner's run as pass `name` on the SCC `scc` of the single function `n` (a
/// unit of the walk), made ahead of the walk over its state `st`, which nothing writes
/// meanwhile, and over the runs `chain` of uncommitted units it depends on; `folds` is
/// a frozen copy of `st`'s; `scratch` holds the cost analysis' tables an earlier run
/// left, and this run's after it. `None` when the run gave up (see [`super::store`]).
pub(crate) fn speculate<'a>(
    (st, chain): (&'a State, Chain<'a>),
    folds: Folds,
    (name, only_mandatory): (&str, bool),
    (scc, n): (SccIdx, FuncIdx),
    g: &FrozenGraph,
    opts: &Options,
    scratch: &mut super::cost::Scratch,
) -> Option<Box<Unit>> {
    let mut sp = Spec::new(st, chain, n, folds);
    let mut r = Run::new(name, only_mandatory, scc);
    // the cost analysis' tables of an earlier run, as the walk reuses its own (a count
    // of rows left by a run that did not finish is dropped)
    r.scratch = std::mem::take(scratch);
    r.scratch.take_walked();
    let unit = [node_of_function(n)];
    let cx = Ctx {
        g: Graph::Frozen(g, &unit),
        opts,
    };
    seed(&mut sp, &mut r, cx);
    if r.next < r.work.len() && !sp.is_deleted(n) {
        r.out.inlined = caller_batch(&mut sp, &mut r, n, cx);
        r.out.dead_in_batch = r.out.dead.len();
    }
    *scratch = std::mem::take(&mut r.scratch);
    // a unit of one function has one caller: one batch
    if r.next < r.work.len() || sp.gave_up() {
        return None;
    }
    delete_dead_comdats(&mut sp, &mut r);
    sp.finish(r.out, (r.pass, r.only_mandatory))
}

/// The remark of a decision about the call of `f` in `n` whose location is `dbg`.
fn remark(
    r: &Run,
    (cx, locs): (Ctx<'_>, &DebugLocs),
    (n, f, dbg): (FuncIdx, FuncIdx, Option<DebugLocIdx>),
    kind: RemarkKind,
    ct: Option<(i64, i64)>,
    reason: &'static str,
) -> Remark {
    Remark {
        kind,
        pass: r.pass.clone(),
        caller: cx.g.name(node_of_function(n)).clone(),
        callee: cx.g.name(node_of_function(f)).clone(),
        cost: ct.map(|x| x.0),
        threshold: ct.map(|x| x.1),
        src: dbg
            .filter(|_| cx.opts.inline.remark_locations)
            .map(|l| locs.source_location(l))
            .unwrap_or_default(),
        loc: String::new(),
        reason,
    }
}

/// A remark of `kind`: made by `make` when the pass manager keeps remarks, else only
/// counted. A remark names its pass, caller and callee by shared strings, whose
/// reference counts every worker making runs would otherwise write.
fn record(r: &mut Run, cx: Ctx<'_>, kind: RemarkKind, make: impl FnOnce(&Run) -> Remark) {
    if cx.opts.inline.keep_remarks {
        let rm = make(r);
        r.out.remarks.push(rm);
    } else {
        r.out.unkept[kind as usize] += 1;
    }
}

/// Adds `w` to the work done for node `n`.
fn add_work(out: &mut RunOut, n: crate::callgraph::NodeIdx, w: u64) {
    match out.work.last_mut() {
        Some(last) if last.0 == n => last.1 += w,
        _ => out.work.push((n, w)),
    }
}

/// The SCC's direct calls to defined functions, functions in SCC order and calls in
/// layout order; a call to a declaration gets its `NoDefinition` remark here.
fn seed<S: Store>(st: &mut S, r: &mut Run, cx: Ctx<'_>) {
    for &nd in cx.g.scc_nodes(r.cur) {
        let f = function_of_node(nd);
        let fx = &st.sh().fx;
        if cx.g.is_removed(nd) || st.is_deleted(f) || !fx.is_def[f.idx()] {
            continue;
        }
        let b = st.body(f);
        add_work(&mut r.out, nd, b.size() as u64);
        for &bb in &b.layout {
            for &i in &b.blocks[bb] {
                let Some(call) = fx.seeded_call(b, i, |g| st.is_deleted(g)) else {
                    continue;
                };
                match call {
                    Ok(_) => r.work.push((f, i, None)),
                    Err(g)
                        if fx.ir.intrinsic[g] == Intrinsic::None
                            && !fx.names[g.idx()].starts_with("llvm.") =>
                    {
                        let dbg = b.call_of(i).and_then(|c| c.dbg);
                        let kind = RemarkKind::NoDefinition;
                        record(r, cx, kind, |r| {
                            remark(r, (cx, &st.sh().locs), (f, g, dbg), kind, None, "")
                        });
                    }
                    Err(_) => {}
                }
            }
        }
    }
}

/// Decides (and inlines) the queued calls of caller `n` that come next in the worklist;
/// returns the callees inlined.
fn caller_batch<S: Store>(st: &mut S, r: &mut Run, n: FuncIdx, cx: Ctx<'_>) -> Vec<FuncIdx> {
    let nn = node_of_function(n);
    let mut inlined = Vec::new();
    while r.next < r.work.len() && r.work[r.next].0 == n && !st.gave_up() {
        let (_, row, h) = r.work[r.next];
        r.next += 1;
        if st.is_deleted(n) || cx.g.stopped() {
            continue;
        }
        let Some(f) = st.sh().direct_callee(st.body(n), row) else {
            continue;
        };
        if st.is_deleted(f) || !st.sh().fx.is_def[f.idx()] {
            continue;
        }
        if h.is_some() && r.history_contains(h, f) {
            continue;
        }
        let f_in_cur = cx.g.scc_of(node_of_function(f)) == Some(r.cur);
        if f_in_cur && cx.g.inlined_internal(nn, r.cur) {
            continue;
        }
        // a definition without blocks (which LLVM's reader refuses) has nothing to inline
        if st.body(f).layout.is_empty() {
            continue;
        }
        if st.tables(f).is_none() {
            let (t, eph) = super::tables_of(st, f);
            st.set_tables(f, t, eph);
        }
        if r.facts.as_ref().is_none_or(|c| c.f != n) {
            // a batch that inlined nothing leaves its caller's frequencies as computed
            // from the unchanged body: they serve its next batch or its callers
            if let Some(old) = r.facts.take() {
                if st.bfi(old.f).is_none() {
                    st.set_bfi(old.f, Arc::new(old.freqs));
                }
            }
            r.facts = Some(CallerFacts::new(st, n));
        }
        let facts = r.facts.as_ref().unwrap();
        let d = decide(st, cx, r.only_mandatory, (n, row, f), facts, &mut r.scratch);
        add_work(&mut r.out, nn, r.scratch.take_walked());
        match d {
            Decision::No(RemarkKind::NotInlined, _, "") => {}
            Decision::No(kind, ct, why) => {
                let dbg = st.body(n).call_of(row).and_then(|c| c.dbg);
                record(r, cx, kind, |r| {
                    remark(r, (cx, &st.sh().locs), (n, f, dbg), kind, ct, why)
                });
            }
            Decision::Inline(ct, why) => {
                let kind = if ct.is_some() {
                    RemarkKind::Inlined
                } else {
                    RemarkKind::AlwaysInline
                };
                let dbg = st.body(n).call_of(row).and_then(|c| c.dbg);
                if !inline_site(st, r, (n, row, h), f, cx) {
                    break;
                }
                let locs = &st.sh().locs;
                record(r, cx, kind, |r| {
                    let mut rm = remark(r, (cx, locs), (n, f, dbg), kind, ct, why);
                    // LLVM's `addLocationToRemarks`: the call's location, when it has one
                    if let Some(l) = dbg.filter(|_| cx.opts.inline.remark_locations) {
                        rm.loc = locs.format_callsite(l, CallSiteFormat::LineColumnDiscriminator);
                    }
                    rm
                });
                inlined.push(f);
                r.out.inlines += 1;
                r.out.changed = true;
                delete_if_dead(st, r, f, cx);
            }
        }
    }
    inlined
}

/// `AttributeFuncs::mergeAttributesForInlining` after `f` was inlined into `n`, for the
/// function attributes the passes read: `n` keeps `mustprogress` only when `f` has it
/// (`setAND<MustProgressAttr>`).
fn merge_attributes_for_inlining<S: Store>(st: &mut S, r: &mut Run, n: FuncIdx, f: FuncIdx) {
    // the caller first: a caller without it reads nothing of the callee's (a run made
    // ahead journals what it reads)
    if !st.must_progress(n) || st.must_progress(f) {
        return;
    }
    st.drop_must_progress(n);
    r.out.must_progress.push(n);
}

/// Inlines `f` at `row` of `n` (history `h`): the body clone, the caller's facts and
/// tables, live-use counts, the inline history and the calls the clone exposes (queued,
/// with the intra-SCC cost multiplier where LLVM sets it). `false` when a speculative
/// run gave up.
fn inline_site<S: Store>(
    st: &mut S,
    r: &mut Run,
    (n, row, h): Work,
    f: FuncIdx,
    cx: Ctx<'_>,
) -> bool {
    let ir = &*st.sh().fx.ir;
    let callee_body = st.body(f);
    let caller_body = st.body(n);
    let ci = *caller_body.call_of(row).unwrap();
    let callee_attrs = st.sh().fx.fn_attrs(f);
    let reads_only = callee_attrs.has(Attr::ReadNone) || callee_attrs.has(Attr::ReadOnly);
    let args = clone::ArgFacts::of(ir, (caller_body, row, n), (callee_body, f), reads_only);
    let call_refs = super::ref_counts_of(st, caller_body, std::iter::once(row));
    // a call whose value the callee returns as a constant: count whole bodies (its uses
    // in old rows change)
    let returns_constant = callee_body.layout.iter().any(|&bb| {
        callee_body.blocks[bb].iter().any(|&x| {
            let x = callee_body.inst(x);
            x.op == Opcode::Ret && matches!(x.ops.first(), Some(V::K(_)))
        })
    });
    let whole_before = returns_constant.then(|| super::ref_counts(st, caller_body));
    let callee_entry = callee_body.layout[0];
    let callee_freqs = super::callee_freqs(st, f);
    let rows_before = st.body(n).num_rows();
    let Some(out) = st.inline_into((n, row, f), &args) else {
        return false;
    };
    add_work(
        &mut r.out,
        node_of_function(n),
        u64::from(st.body(n).num_rows() - rows_before),
    );
    if let Some(c) = r.facts.as_mut() {
        c.update(st, &callee_freqs, callee_entry, &out);
    }
    // the caller's own tables, should it be decided as a callee (a call to itself)
    // before the batch ends
    st.body_changed(n);
    let (after, before) = super::inline_ref_delta(st, n, call_refs, whole_before, &out);
    for (&g, &c) in &after {
        st.add_uses(g, c - before.get(&g).copied().unwrap_or(0));
    }
    for (&g, &c) in &before {
        if !after.contains_key(&g) {
            st.add_uses(g, -c);
        }
    }
    merge_attributes_for_inlining(st, r, n, f);
    if !inline_debug_locs(st, (n, f), ci.dbg, &out.new_calls) {
        return false;
    }
    let hid = r.hist.len() as u32;
    r.hist.push((f, h));
    let f_scc = cx.g.scc_of(node_of_function(f));
    let mult = ci.cost_mult;
    for &nc in out.new_calls.iter().rev() {
        let Some(g) = st.sh().direct_callee(st.body(n), nc) else {
            continue;
        };
        if !st.sh().fx.is_def[g.idx()] || st.is_deleted(g) {
            continue;
        }
        if f_scc.is_some_and(|s| s != r.cur) && cx.g.scc_of(node_of_function(g)) == f_scc {
            if let Some(c) = st.body_mut(n).call_mut(nc) {
                c.cost_mult = mult.saturating_mul(cx.opts.inline.intra_scc_cost_multiplier);
            }
        }
        r.work.push((n, nc, Some(hid)));
    }
    true
}

/// The end of LLVM 14's inliner run for the dead callees in comdats
/// (`filterDeadComdatFunctions`): those whose comdat has no other member left (no live
/// function, no global variable) lose their bodies' references and are deleted with the
/// run's other dead callees.
fn delete_dead_comdats<S: Store>(st: &mut S, r: &mut Run) {
    let cands = std::mem::take(&mut r.dead_in_comdats);
    for &f in &cands {
        let sh = st.sh();
        let (members, has_global) = &sh.comdat_members[sh.comdat_of[f.idx()] as usize];
        if *has_global || !members.iter().all(|m| cands.contains(m)) {
            continue;
        }
        drop_body(st, r, f);
    }
}

/// LLVM's `dropAllReferences` on dead function `f` and its queueing for deletion: its
/// body's references leave the use counts, the body goes, `f` joins the run's dead.
fn drop_body<S: Store>(st: &mut S, r: &mut Run, f: FuncIdx) {
    let rc = super::ref_counts(st, st.body(f));
    for (g, c) in rc {
        st.add_uses(g, -c);
    }
    st.clear_body(f);
    r.out.dead.push(f);
}

/// Deletes callee `f` when inlining left it discardable and without uses (LLVM erases
/// its body at once and its queued calls with it); one in a comdat (not local) waits for
/// the end of the run ([`delete_dead_comdats`]).
fn delete_if_dead<S: Store>(st: &mut S, r: &mut Run, f: FuncIdx, cx: Ctx<'_>) {
    let l = st.sh().fx.linkage[f.idx()];
    let discardable = l.is_local()
        || matches!(
            l,
            Linkage::Linkonce | Linkage::LinkonceOdr | Linkage::AvailableExternally
        );
    if !discardable || cx.g.is_lib(node_of_function(f)) {
        return;
    }
    // a discardable function in a comdat waits for the end of the run
    if !l.is_local() && st.sh().comdat_of[f.idx()] != u32::MAX {
        if st.dead_in_comdat(f) == Some(true) && !r.dead_in_comdats.contains(&f) {
            r.dead_in_comdats.push(f);
        }
        return;
    }
    if !st.uses_are(f, 0) {
        return;
    }
    drop_body(st, r, f);
    // LLVM erases the dead callee's queued calls, so the caller's batches on either
    // side of them become one
    let tail: Vec<_> = r.work.drain(r.next..).filter(|w| w.0 != f).collect();
    r.work.extend(tail);
}

/// After caller `n` inlined `inlined`: its analyses are dropped, its new edges go to the
/// call graph (SCCs merge and split; `summary`: its body's calls and references, when
/// a run made ahead has them), and LLVM 14's `InlinedInternalEdges` records a split of
/// a recursive group.
fn after_batch(
    st: &mut State,
    r: &mut Run,
    (n, summary): (FuncIdx, Option<Summary>),
    inlined: &[FuncIdx],
    cx: &mut PassContext<'_>,
) {
    let nn = node_of_function(n);
    r.facts = None;
    State::body_changed(st, n);
    let (calls, refs) = summary.unwrap_or_else(|| st.summarize(n));
    cx.m.summ.calls[nn] = calls;
    cx.m.summ.refs[nn] = refs;
    for &g in &r.out.dead {
        let gn = node_of_function(g);
        cx.m.summ.calls[gn].clear();
        cx.m.summ.refs[gn].clear();
    }
    let edges = cx.m.summary_edges(nn);
    let old = r.cur;
    cx.set_function_edges(old, nn, &edges);
    if let Some(c) = cx.m.graph.scc_of(nn) {
        // LLVM 14: the SCC changed, or split and merged back (it is queued again), and
        // the caller inlined a callee of the old SCC
        if (c != old || cx.ur.cworklist.contains(old))
            && inlined
                .iter()
                .any(|&g| cx.m.graph.scc_of(node_of_function(g)) == Some(old))
        {
            cx.m.inlined_internal.insert((nn, old));
        }
        r.cur = c;
    }
}

/// The locations of the calls an inlining of `f` into `n` at a call located at `site`
/// cloned (LLVM 14's `fixupLineNumbers`): a located clone gets the call site appended
/// to its inlined-at chain; an unlocated clone takes the call site's location unless
/// the callee has debug information; without a call-site location nothing changes.
/// `false` when a speculative run gave up.
fn inline_debug_locs<S: Store>(
    st: &mut S,
    (n, f): (FuncIdx, FuncIdx),
    site: Option<DebugLocIdx>,
    new_calls: &[RowIdx],
) -> bool {
    let Some(site) = site else { return true };
    let callee_has_di = st.sh().locs.func_subprogram(f).is_some();
    for &nc in new_calls {
        let Some(dbg) = st.body(n).call_of(nc).map(|c| c.dbg) else {
            continue;
        };
        let dbg = match dbg {
            Some(l) => match st.inline_loc(l, site) {
                Some(x) => Some(x),
                None => return false,
            },
            None if callee_has_di => None,
            None => Some(site),
        };
        if let Some(c) = st.body_mut(n).call_mut(nc) {
            c.dbg = dbg;
        }
    }
    true
}
