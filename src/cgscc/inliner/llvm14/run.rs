//! The inliner's walk over one SCC: LLVM 14's `InlinerPass::run` — the worklist of call
//! sites, one batch of decisions per caller, the inlining itself with its use-count and
//! frequency updates, the caller's new edges to the call graph after each batch, and the
//! dead callees left at the end.

use super::decide::{decide, Decision};
use super::{clone, CallerFacts, State};
use crate::callgraph::{function_of_node, node_of_function, SccIdx};
use crate::cgscc::inliner::remark::{Remark, RemarkKind};
use crate::cgscc::{Abort, PassContext, PassResult};
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::ir::debugloc::{CallSiteFormat, DebugLocIdx, DebugLocs};
use crate::llvm::ir::{Intrinsic, Opcode};
use crate::llvm::{FuncIdx, Linkage};
use std::sync::Arc;

/// A queued call site: the caller, its call row and the call's inline history row.
type Work = (FuncIdx, RowIdx, Option<u32>);

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
    /// Callees this run left dead, removed from the graph at its end.
    dead: Vec<FuncIdx>,
    /// Dead callees in a comdat (not local): deleted at the end of the run when their
    /// whole comdat is dead.
    dead_in_comdats: Vec<FuncIdx>,
    /// The current caller's facts while its batch runs.
    facts: Option<CallerFacts>,
    /// Whether anything was inlined.
    changed: PassResult,
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
    let mut r = Run {
        pass: Arc::from(name),
        only_mandatory,
        cur: scc,
        work: Vec::new(),
        next: 0,
        dead: Vec::new(),
        dead_in_comdats: Vec::new(),
        facts: None,
        changed: PassResult::Unchanged,
    };
    seed(&mut st, &mut r, cx);
    while r.next < r.work.len() {
        let n = r.work[r.next].0;
        if cx.m.graph.scc_of(node_of_function(n)) != Some(r.cur) || st.deleted[n.idx()] {
            r.next += 1;
            continue;
        }
        let inlined = caller_batch(&mut st, &mut r, n, cx);
        if !inlined.is_empty() {
            after_batch(&mut st, &mut r, n, &inlined, cx);
        }
    }
    delete_dead_comdats(&mut st, &mut r);
    // dead callees leave the graph at the end of the run, as in LLVM 14
    if cx.opts.inline.delete_dead {
        cx.remove_dead_functions(r.dead.iter().map(|&f| node_of_function(f)));
    }
    cx.m.llvm14 = Some(st);
    Ok(r.changed)
}

/// The remark of a decision about the call of `f` in `n` whose location is `dbg`.
fn remark(
    r: &Run,
    (cx, locs): (&PassContext<'_>, &DebugLocs),
    (n, f, dbg): (FuncIdx, FuncIdx, Option<DebugLocIdx>),
    kind: RemarkKind,
    ct: Option<(i64, i64)>,
    reason: &'static str,
) -> Remark {
    let names = &cx.m.summ.names;
    Remark {
        kind,
        pass: r.pass.clone(),
        caller: names[node_of_function(n)].clone(),
        callee: names[node_of_function(f)].clone(),
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

/// The SCC's direct calls to defined functions, functions in SCC order and calls in
/// layout order; a call to a declaration gets its `NoDefinition` remark here.
fn seed(st: &mut State, r: &mut Run, cx: &mut PassContext<'_>) {
    let nodes = cx.m.graph.scc_nodes(r.cur).to_vec();
    for nd in nodes {
        let f = function_of_node(nd);
        if cx.m.graph.is_removed(nd) || st.deleted[f.idx()] || !st.fx.is_def[f.idx()] {
            continue;
        }
        let b = st.body(f);
        cx.m.work[nd] += b.size() as u64;
        for &bb in &b.layout {
            for &i in &b.blocks[bb] {
                if b.call_of(i).is_none() {
                    continue;
                }
                let Some(g) = st.direct_callee(b, i) else {
                    continue;
                };
                if st.fx.is_def[g.idx()] && !st.deleted[g.idx()] {
                    r.work.push((f, i, None));
                } else if st.fx.ir.intrinsic[g] == Intrinsic::None
                    && !st.fx.names[g.idx()].starts_with("llvm.")
                {
                    let dbg = b.call_of(i).and_then(|c| c.dbg);
                    let rm = remark(
                        r,
                        (cx, &st.locs),
                        (f, g, dbg),
                        RemarkKind::NoDefinition,
                        None,
                        "",
                    );
                    cx.m.record_remark(cx.opts.inline.keep_remarks, rm);
                }
            }
        }
    }
}

/// Decides (and inlines) the queued calls of caller `n` that come next in the worklist;
/// returns the callees inlined.
fn caller_batch(st: &mut State, r: &mut Run, n: FuncIdx, cx: &mut PassContext<'_>) -> Vec<FuncIdx> {
    let nn = node_of_function(n);
    let mut inlined = Vec::new();
    while r.next < r.work.len() && r.work[r.next].0 == n {
        let (_, row, h) = r.work[r.next];
        r.next += 1;
        if st.deleted[n.idx()] || cx.m.inliner_stopped {
            continue;
        }
        let Some(f) = st.direct_callee(st.body(n), row) else {
            continue;
        };
        if st.deleted[f.idx()] || !st.fx.is_def[f.idx()] {
            continue;
        }
        if h.is_some() && st.history_contains(h, f) {
            continue;
        }
        let f_in_cur = cx.m.graph.scc_of(node_of_function(f)) == Some(r.cur);
        if f_in_cur && cx.m.inlined_internal.contains(&(nn, r.cur)) {
            continue;
        }
        // a definition without blocks (which LLVM's reader refuses) has nothing to inline
        if st.body(f).layout.is_empty() {
            continue;
        }
        if st.preds[f.idx()].is_none() {
            let (t, eph) = st.tables_of(f);
            st.preds[f.idx()] = Some(Box::new(t));
            st.eph[f.idx()] = Some(eph);
        }
        if r.facts.as_ref().is_none_or(|c| c.f != n) {
            // a batch that inlined nothing leaves its caller's frequencies as computed
            // from the unchanged body: they serve its next batch or its callers
            if let Some(old) = r.facts.take() {
                let slot = &mut st.bfi[old.f.idx()];
                if slot.is_none() {
                    *slot = Some(Arc::new(old.freqs));
                }
            }
            r.facts = Some(CallerFacts::new(st, n));
        }
        let facts = r.facts.as_ref().unwrap();
        let mut scratch = std::mem::take(&mut st.scratch);
        let d = decide(st, cx, r.only_mandatory, (n, row, f), facts, &mut scratch);
        cx.m.work[nn] += scratch.take_walked();
        st.scratch = scratch;
        match d {
            Decision::No(RemarkKind::NotInlined, _, "") => {}
            Decision::No(kind, ct, why) => {
                let dbg = st.body(n).call_of(row).and_then(|c| c.dbg);
                let rm = remark(r, (cx, &st.locs), (n, f, dbg), kind, ct, why);
                cx.m.record_remark(cx.opts.inline.keep_remarks, rm);
            }
            Decision::Inline(ct, why) => {
                let kind = if ct.is_some() {
                    RemarkKind::Inlined
                } else {
                    RemarkKind::AlwaysInline
                };
                let dbg = st.body(n).call_of(row).and_then(|c| c.dbg);
                inline_site(st, r, (n, row, h), f, cx);
                let mut rm = remark(r, (cx, &st.locs), (n, f, dbg), kind, ct, why);
                // LLVM's `addLocationToRemarks`: the call's location, when it has one
                if let Some(l) = dbg.filter(|_| cx.opts.inline.remark_locations) {
                    rm.loc = st
                        .locs
                        .format_callsite(l, CallSiteFormat::LineColumnDiscriminator);
                }
                cx.m.record_remark(cx.opts.inline.keep_remarks, rm);
                inlined.push(f);
                cx.m.inlines_done += 1;
                r.changed = PassResult::Changed;
                delete_if_dead(st, r, f, cx);
            }
        }
    }
    inlined
}

/// `AttributeFuncs::mergeAttributesForInlining` after `f` was inlined into `n`, for the
/// function attributes the passes read: `n` keeps `mustprogress` only when `f` has it
/// (`setAND<MustProgressAttr>`).
fn merge_attributes_for_inlining(st: &mut State, cx: &mut PassContext<'_>, n: FuncIdx, f: FuncIdx) {
    if st.fx.fn_attrs(f).has(Attr::MustProgress) || !st.fx.fn_attrs(n).has(Attr::MustProgress) {
        return;
    }
    let mut a = *st.fx.fn_attrs(n);
    a.remove(Attr::MustProgress);
    st.set_cur_attrs(n, a);
    if let Some(inf) = cx.m.fn_attrs.as_mut() {
        inf.remove_fn_attr(n, Attr::MustProgress);
    }
}

/// Inlines `f` at `row` of `n` (history `h`): the body clone, the caller's facts and
/// tables, live-use counts, the inline history and the calls the clone exposes (queued,
/// with the intra-SCC cost multiplier where LLVM sets it).
fn inline_site(
    st: &mut State,
    r: &mut Run,
    (n, row, h): Work,
    f: FuncIdx,
    cx: &mut PassContext<'_>,
) {
    let ir = st.fx.ir.clone();
    // the callee's body is read from the module in place or, when a pass edited it,
    // lent out of the store while the caller's is edited (a call of a function to
    // itself is never inlined: `decide` refuses it)
    let lent = match &st.bodies[f.idx()] {
        Some(b) if f == n => Some(b.clone()),
        Some(_) => st.bodies[f.idx()].take(),
        None => None,
    };
    let callee_body = lent.as_ref().unwrap_or_else(|| ir.body(f));
    let caller_body = st.body(n);
    let ci = *caller_body.call_of(row).unwrap();
    let callee_attrs = st.fx.fn_attrs(f);
    let reads_only = callee_attrs.has(Attr::ReadNone) || callee_attrs.has(Attr::ReadOnly);
    let args = clone::ArgFacts::of(&ir, (caller_body, row, n), (callee_body, f), reads_only);
    let call_refs = st.ref_counts_of(caller_body, std::iter::once(row));
    // a call whose value the callee returns as a constant: count whole bodies (its uses
    // in old rows change)
    let returns_constant = callee_body.layout.iter().any(|&bb| {
        callee_body.blocks[bb].iter().any(|&x| {
            let x = callee_body.inst(x);
            x.op == Opcode::Ret && matches!(x.ops.first(), Some(V::K(_)))
        })
    });
    let whole_before = returns_constant.then(|| st.ref_counts(caller_body));
    let callee_freqs = st.callee_freqs(f, callee_body);
    let caller_body = super::edit(&mut st.bodies, &ir, n);
    let rows_before = caller_body.num_rows();
    let out = clone::inline_call(&st.fx, &mut st.folds, caller_body, row, callee_body, &args);
    cx.m.work[node_of_function(n)] += u64::from(caller_body.num_rows() - rows_before);
    if let Some(c) = r.facts.as_mut() {
        c.update(st, &callee_freqs, callee_body.layout[0], &out);
    }
    // the caller's own tables, should it be decided as a callee (a call to itself)
    // before the batch ends
    st.body_changed(n);
    if f != n && lent.is_some() {
        st.bodies[f.idx()] = lent;
    }
    let (after, before) = st.inline_ref_delta(n, call_refs, whole_before, &out);
    for (g, c) in &after {
        st.uses[g.idx()] += c - before.get(g).copied().unwrap_or(0);
    }
    for (g, c) in &before {
        if !after.contains_key(g) {
            st.uses[g.idx()] -= c;
        }
    }
    merge_attributes_for_inlining(st, cx, n, f);
    inline_debug_locs(st, (n, f), ci.dbg, &out.new_calls);
    let hid = st.hist.len() as u32;
    st.hist.push((f, h));
    let f_scc = cx.m.graph.scc_of(node_of_function(f));
    let mult = ci.cost_mult;
    for &nc in out.new_calls.iter().rev() {
        let b = st.body(n);
        let Some(g) = st.direct_callee(b, nc) else {
            continue;
        };
        if !st.fx.is_def[g.idx()] || st.deleted[g.idx()] {
            continue;
        }
        if f_scc.is_some_and(|s| s != r.cur) && cx.m.graph.scc_of(node_of_function(g)) == f_scc {
            let b = st.body_mut(n);
            if let Some(c) = b.call_mut(nc) {
                c.cost_mult = mult.saturating_mul(cx.opts.inline.intra_scc_cost_multiplier);
            }
        }
        r.work.push((n, nc, Some(hid)));
    }
}

/// The end of LLVM 14's inliner run for the dead callees in comdats
/// (`filterDeadComdatFunctions`): those whose comdat has no other member left (no live
/// function, no global variable) lose their bodies' references and are deleted with the
/// run's other dead callees.
fn delete_dead_comdats(st: &mut State, r: &mut Run) {
    let cands = std::mem::take(&mut r.dead_in_comdats);
    for &f in &cands {
        let (members, has_global) = &st.comdat_members[st.comdat_of[f.idx()] as usize];
        if *has_global || !members.iter().all(|m| cands.contains(m)) {
            continue;
        }
        drop_body(st, r, f);
    }
}

/// LLVM's `dropAllReferences` on dead function `f` and its queueing for deletion: its
/// body's references leave the use counts, the body goes, `f` joins the run's dead.
fn drop_body(st: &mut State, r: &mut Run, f: FuncIdx) {
    let rc = st.ref_counts(st.body(f));
    for (g, c) in rc {
        st.uses[g.idx()] -= c;
    }
    st.deleted[f.idx()] = true;
    st.bodies[f.idx()] = Some(Body::default());
    r.dead.push(f);
}

/// Deletes callee `f` when inlining left it discardable and without uses (LLVM erases
/// its body at once and its queued calls with it); one in a comdat (not local) waits for
/// the end of the run ([`delete_dead_comdats`]).
fn delete_if_dead(st: &mut State, r: &mut Run, f: FuncIdx, cx: &PassContext<'_>) {
    let l = st.fx.linkage[f.idx()];
    let discardable = l.is_local()
        || matches!(
            l,
            Linkage::Linkonce | Linkage::LinkonceOdr | Linkage::AvailableExternally
        );
    if !discardable
        || st.uses[f.idx()] != 0
        || cx.m.graph.lib_functions().contains(&node_of_function(f))
    {
        return;
    }
    // a discardable function in a comdat waits for the end of the run
    if !l.is_local() && st.comdat_of[f.idx()] != u32::MAX {
        if !r.dead_in_comdats.contains(&f) {
            r.dead_in_comdats.push(f);
        }
        return;
    }
    drop_body(st, r, f);
    // LLVM erases the dead callee's queued calls, so the caller's batches on either
    // side of them become one
    let tail: Vec<_> = r.work.drain(r.next..).filter(|w| w.0 != f).collect();
    r.work.extend(tail);
}

/// After caller `n` inlined `inlined`: its analyses are dropped, its new edges go to the
/// call graph (SCCs merge and split), and LLVM 14's `InlinedInternalEdges` records a
/// split of a recursive group.
fn after_batch(
    st: &mut State,
    r: &mut Run,
    n: FuncIdx,
    inlined: &[FuncIdx],
    cx: &mut PassContext<'_>,
) {
    let nn = node_of_function(n);
    r.facts = None;
    st.body_changed(n);
    let (calls, refs) = st.summarize(n);
    cx.m.summ.calls[nn] = calls;
    cx.m.summ.refs[nn] = refs;
    for &g in &r.dead {
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
fn inline_debug_locs(
    st: &mut State,
    (n, f): (FuncIdx, FuncIdx),
    site: Option<DebugLocIdx>,
    new_calls: &[RowIdx],
) {
    let Some(site) = site else { return };
    let callee_has_di = st.locs.func_subprogram(f).is_some();
    let b = super::edit(&mut st.bodies, &st.fx.ir, n);
    for &nc in new_calls {
        let Some(c) = b.call_mut(nc) else {
            continue;
        };
        c.dbg = match c.dbg {
            Some(l) => Some(st.locs.inline_at(l, site)),
            None if callee_has_di => None,
            None => Some(site),
        };
    }
}
