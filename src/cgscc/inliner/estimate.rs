//! The summary estimate: a size model over call summaries with NVIDIA's per-caller
//! budget, for modules read without their instruction view (`ilkit scan`).
//!
//! For every function of the SCC (in SCC order) it walks the call sites, appending the
//! call sites of each inlined body so they are considered too (with an inline history
//! that refuses to inline a function into a copy of itself). Decisions, in order:
//! 1. declaration callee → `NoDefinition` (intrinsics are skipped silently);
//! 2. self call or a callee in the call's inline history → `NotInlined` (recursive);
//!    an intra-SCC call from a function that already inlined one in this SCC →
//!    `NotInlined` (LLVM's `InlinedInternalEdges`);
//! 3. `noinline` → `NeverInline`; `alwaysinline` → `AlwaysInline` (cost=always);
//! 4. `inline<only-mandatory>` stops here;
//! 5. `nv-inline-all` → inline;
//! 6. the cost: [`Summaries::call_cost`], times `intra-scc-cost-multiplier` when
//!    the callee is in the caller's SCC and `function-inline-cost-multiplier` when the
//!    callee is recursive; the threshold is the caller's remaining `inline-budget`
//!    (20,000, or 40,000 with `aggressive-inline`) under the `cicc` profile, the
//!    threshold (225; 325 for `inlinehint`, 45 for `cold` callees) under `llvm`.
//!    Within the threshold → `Inlined` (the budget is charged), otherwise `TooBig`.
//!
//! Inlining merges the callee's size, call sites, references and memory effect into the
//! caller; after a function's call sites are done its new edge set goes to the call
//! graph in one [`PassContext::set_function_edges`] (the inlined call edge disappears or
//! becomes a ref, the callee's callees become call edges: SCCs merge and split). A local
//! callee left without uses is queued as dead.

use super::remark::{Remark, RemarkKind};
use crate::callgraph::{NodeIdx, SccIdx};
use crate::cgscc::summary::{CallIdx, CallSummary, CallTarget, Summaries};
use crate::cgscc::{Abort, PassContext, PassResult};
use std::sync::Arc;

enum Decision {
    Inline(RemarkKind, Option<i64>, Option<i64>, &'static str),
    Skip,
    No(RemarkKind, Option<i64>, Option<i64>, &'static str),
}

/// Merges callee `f` into call site `i` of `n` (the call is removed, the callee's call
/// sites appended with rebased locations and a new history row).
pub fn inline_call(s: &mut Summaries, n: NodeIdx, i: CallIdx, f: NodeIdx) {
    s.inlined_into[n] = true;
    let call = s.calls[n].remove(i.idx());
    let h = s.history.push((f, call.history));
    let callee_calls = s.calls[f].clone();
    for cs in callee_calls {
        let loc = s.rebase_loc(cs.loc, call.loc);
        s.calls[n].push(CallSummary {
            callee: cs.callee,
            arg_count: cs.arg_count,
            loc,
            history: h,
        });
    }
    let (a, b) = (s.instructions[n] as u64, s.instructions[f] as u64);
    s.instructions[n] = (a + b).saturating_sub(2).clamp(1, u32::MAX as u64) as u32;
    let refs = s.refs[f].clone();
    for r in refs {
        if !s.refs[n].contains(&r) {
            s.refs[n].push(r);
        }
    }
    s.local_mem[n] = s.local_mem[n].max(s.local_mem[f]);
}

/// Whether a run-wide cap stops the inliner now; the first time, says which.
fn cap_reached(cx: &mut PassContext<'_>) -> bool {
    if cx.m.inliner_stopped {
        return true;
    }
    let p = &cx.opts.inline;
    let churn_cap = p
        .max_scc_churn
        .unwrap_or(64 * cx.m.graph.num_nodes() + 4096);
    let msg = if cx.m.inlines_done >= p.max_total_inlines {
        format!(
            "inline cap reached: {} inlines in this run; the inliner stops here \
                 (--inline-max-total)",
            p.max_total_inlines
        )
    } else if cx.m.scc_churn >= churn_cap {
        format!(
            "inline cap reached: inlining split and merged {} SCCs in this run (cap \
                 {churn_cap}); the inliner stops here (--inline-max-scc-churn)",
            cx.m.scc_churn
        )
    } else {
        return false;
    };
    cx.m.inliner_stopped = true;
    cx.m.caps_hit.push(msg.clone());
    cx.m.diagnostics.push(msg);
    true
}

fn decide(
    only_mandatory: bool,
    cx: &PassContext<'_>,
    scc: SccIdx,
    n: NodeIdx,
    call: &CallSummary,
    f: NodeIdx,
) -> Decision {
    let m = &*cx.m;
    let s = &m.summ;
    let p = &cx.opts.inline;
    if !s.is_definition[f] || m.graph.is_removed(f) {
        return if s.is_intrinsic(f) {
            Decision::Skip
        } else {
            Decision::No(RemarkKind::NoDefinition, None, None, "")
        };
    }
    if f == n || s.history_contains(call.history, f) {
        return Decision::No(
            RemarkKind::NotInlined,
            None,
            None,
            "of recursion (recursive)",
        );
    }
    let same_scc = m.graph.scc_of(f) == Some(scc);
    if same_scc && m.inlined_internal.contains(&(n, scc)) {
        return Decision::No(
            RemarkKind::NotInlined,
            None,
            None,
            "an internal edge of this SCC was already inlined (recursive SCC split)",
        );
    }
    if s.no_inline[f] {
        return Decision::No(
            RemarkKind::NeverInline,
            None,
            None,
            "it should never be inlined: noinline function attribute",
        );
    }
    if s.always_inline[f] {
        return Decision::Inline(RemarkKind::AlwaysInline, None, None, "");
    }
    if only_mandatory {
        return Decision::Skip;
    }
    if p.nv_inline_all {
        return Decision::Inline(RemarkKind::Inlined, None, None, "");
    }
    let only_use = s.linkage[f].is_local()
        && !m.is_root[f]
        && m.in_count[f] == 1
        && s.calls[n]
            .iter()
            .filter(|c| c.callee == CallTarget::Function(f))
            .count()
            == 1;
    let mut cost = s.call_cost(f, call, only_use);
    if cost > 0 {
        if same_scc {
            cost *= p.intra_scc_cost_multiplier;
        }
        let recursive = match m.graph.scc_of(f) {
            Some(sf) => m.graph.scc_nodes(sf).len() > 1 || m.graph.edge(f, f).is_some(),
            None => false,
        };
        if recursive {
            cost *= p.function_inline_cost_multiplier;
        }
    }
    let threshold = match p.budget() {
        Some(b) => b - m.budget_used[n],
        None if s.cold[f] => 45.min(p.threshold().0),
        None if s.inline_hint[f] => 325.max(p.threshold().0),
        None => p.threshold().0,
    };
    if cost <= threshold
        && s.instructions[n] as u64 + s.instructions[f] as u64 > p.max_caller_size as u64
    {
        return Decision::No(
            RemarkKind::NotInlined,
            Some(cost),
            Some(threshold),
            "the caller would grow past the size cap (--inline-max-caller-size)",
        );
    }
    if cost <= threshold {
        Decision::Inline(RemarkKind::Inlined, Some(cost), Some(threshold), "")
    } else {
        Decision::No(
            RemarkKind::TooBig,
            Some(cost),
            Some(threshold),
            "too costly to inline",
        )
    }
}

/// Runs the summary estimate on SCC `scc` as pass `name`.
pub(super) fn run(
    name: &str,
    only_mandatory: bool,
    scc: SccIdx,
    cx: &mut PassContext<'_>,
) -> Result<PassResult, Abort> {
    let nodes = cx.m.graph.scc_nodes(scc).to_vec();
    let format = crate::llvm::ir::debugloc::CallSiteFormat::Line;
    let mut any = PassResult::Unchanged;
    let mut inlined_callees = Vec::new();
    let pass: Arc<str> = Arc::from(name);
    let p = &cx.opts.inline;
    let want_loc = p.remark_locations;
    for n in nodes {
        if cx.m.graph.is_removed(n) {
            continue;
        }
        if cx.m.inliner_stopped || cap_reached(cx) {
            break;
        }
        let mut changed = false;
        let mut i = 0;
        while i < cx.m.summ.calls[n].len() {
            let call = cx.m.summ.calls[n][i];
            let CallTarget::Function(f) = call.callee else {
                i += 1;
                continue;
            };
            let loc = if want_loc {
                cx.m.summ.format_loc(call.loc, format)
            } else {
                String::new()
            };
            let d = decide(only_mandatory, cx, scc, n, &call, f);
            // the estimate reads the callee's summary, its rows' stand-in
            cx.m.work[n] += u64::from(cx.m.summ.instructions[f]);
            let remark = |kind, cost, threshold, reason: &'static str| Remark {
                kind,
                pass: pass.clone(),
                caller: cx.m.summ.names[n].clone(),
                callee: cx.m.summ.names[f].clone(),
                cost,
                threshold,
                loc: loc.clone(),
                src: String::new(),
                reason,
            };
            match d {
                Decision::Skip => i += 1,
                Decision::No(kind, cost, th, why) => {
                    cx.m.remark_counts[kind as usize] += 1;
                    if cx.opts.inline.keep_remarks {
                        let r = remark(kind, cost, th, why);
                        cx.m.remarks.push(r);
                    }
                    i += 1;
                }
                Decision::Inline(kind, cost, th, why) => {
                    cx.m.remark_counts[kind as usize] += 1;
                    if cx.opts.inline.keep_remarks {
                        let r = remark(kind, cost, th, why);
                        cx.m.remarks.push(r);
                    }
                    if let (Some(c), Some(_)) = (cost, cx.opts.inline.budget()) {
                        if kind == RemarkKind::Inlined {
                            cx.m.budget_used[n] += c.max(0);
                        }
                    }
                    if cx.m.graph.scc_of(f) == Some(scc) {
                        cx.m.inlined_internal.insert((n, scc));
                    }
                    cx.m.work[n] += u64::from(cx.m.summ.instructions[f]);
                    inline_call(&mut cx.m.summ, n, CallIdx::new(i), f);
                    inlined_callees.push(f);
                    changed = true;
                    any = PassResult::Changed;
                    cx.m.inlines_done += 1;
                    if cap_reached(cx) {
                        break;
                    }
                }
            }
        }
        if changed {
            let edges = cx.m.summary_edges(n);
            let before = cx.ur.updated_c;
            cx.set_function_edges(scc, n, &edges);
            // the SCC changed shape: the pass manager takes over
            if cx.ur.updated_c != before || cx.m.graph.scc_of(n) != Some(scc) {
                break;
            }
        }
    }
    if cx.opts.inline.delete_dead {
        inlined_callees.sort_unstable();
        inlined_callees.dedup();
        let m = &*cx.m;
        let dead: Vec<NodeIdx> = inlined_callees
            .into_iter()
            .filter(|&f| m.summ.linkage[f].is_local() && !m.graph.lib_functions().contains(&f))
            .collect();
        cx.remove_dead_functions(dead);
    }
    Ok(any)
}
