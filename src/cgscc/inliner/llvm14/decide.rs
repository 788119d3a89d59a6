//! One call site's decision: LLVM 14's attribute checks, then the cost analysis.

use super::cost::{self, Outcome, SiteKnobs};
use super::run::Ctx;
use super::store::Store;
use super::{freq, CallerFacts};
use crate::cgscc::inliner::remark::RemarkKind;
use crate::cgscc::inliner::replay::Fallback as ReplayFallback;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::RowIdx;
use crate::llvm::ir::debugloc::DebugLocIdx;
use crate::llvm::ir::{Intrinsic, Opcode};
use crate::llvm::{FuncIdx, Linkage};

/// A call site's decision.
#[derive(Debug)]
pub(super) enum Decision {
    /// Inline: `Some((cost, threshold))` from the cost analysis, or `None` without one
    /// (`cost=always`) with the reason.
    Inline(Option<(i64, i64)>, &'static str),
    /// Do not inline: the remark kind, cost and threshold if analyzed, and the reason.
    No(RemarkKind, Option<(i64, i64)>, &'static str),
}

fn interposable(l: Linkage) -> bool {
    matches!(
        l,
        Linkage::Weak | Linkage::Linkonce | Linkage::ExternWeak | Linkage::Common
    )
}

fn inline_viable<S: Store>(st: &S, f: FuncIdx) -> Result<(), &'static str> {
    let b = st.body(f);
    let fx = &st.sh().fx;
    let ir = &fx.ir;
    for &bb in &b.layout {
        for &i in &b.blocks[bb] {
            let inst = b.inst(i);
            if inst.op == Opcode::IndirectBr {
                return Err("contains indirect branches");
            }
            if inst.call.is_some() {
                if let Some(g) = fx.direct_callee(b, i) {
                    if g == f {
                        return Err("recursive call");
                    }
                    if fx.fn_attrs(g).has(Attr::ReturnsTwice) {
                        return Err("exposes returns-twice attribute");
                    }
                    if ir.intrinsic[g] == Intrinsic::VaStart {
                        return Err("contains VarArgs initialized with va_start");
                    }
                    let n = &fx.names[g.idx()];
                    if n == "llvm.localescape" {
                        return Err("disallowed inlining of @llvm.localescape");
                    }
                    if n.starts_with("llvm.icall.branch.funnel") {
                        return Err("disallowed inlining of @llvm.icall.branch.funnel");
                    }
                }
            }
        }
    }
    Ok(())
}

/// Decides call row `row` of caller `n` to callee `f` (`(n, row, f)`) as LLVM 14's
/// `InlinerPass` and `getInlineCost` do, with the profile's knobs.
pub(super) fn decide<S: Store>(
    st: &S,
    cx: Ctx<'_>,
    only_mandatory: bool,
    (n, row, f): (FuncIdx, RowIdx, FuncIdx),
    facts: &CallerFacts,
    scratch: &mut cost::Scratch,
) -> Decision {
    let fx = &st.sh().fx;
    let ir = &*fx.ir;
    let caller = st.body(n);
    let ci = caller.call_of(row).unwrap();
    let site = ir.attr_sets.get(ci.attrs);
    if !only_mandatory {
        if let Some(d) = replay(st, cx, (n, f), ci.dbg) {
            return d;
        }
    }
    let fa = fx.fn_attrs(f);
    let ca = fx.fn_attrs(n);
    if fa.has(Attr::PresplitCoroutine) {
        return Decision::No(RemarkKind::NeverInline, None, "unsplited coroutine call");
    }
    if site.has(Attr::AlwaysInline) || fa.has(Attr::AlwaysInline) {
        return match inline_viable(st, f) {
            Ok(()) => Decision::Inline(None, "always inline attribute"),
            Err(why) => Decision::No(RemarkKind::NeverInline, None, why),
        };
    }
    if only_mandatory {
        return Decision::No(RemarkKind::NotInlined, None, "");
    }
    if !fx.features[f.idx()]
        .iter()
        .all(|x| fx.features[n.idx()].binary_search(x).is_ok())
    {
        return Decision::No(RemarkKind::NeverInline, None, "conflicting attributes");
    }
    if ca.has(Attr::OptNone) {
        return Decision::No(RemarkKind::NeverInline, None, "optnone attribute");
    }
    if fa.has(Attr::NullPointerIsValid) && !ca.has(Attr::NullPointerIsValid) {
        return Decision::No(
            RemarkKind::NeverInline,
            None,
            "nullptr definitions incompatible",
        );
    }
    if interposable(fx.linkage[f.idx()])
        || (ir.semantic_interposition && !ir.func(f).dso_local && !fx.linkage[f.idx()].is_local())
    {
        return Decision::No(RemarkKind::NeverInline, None, "interposable");
    }
    if fa.has(Attr::NoInline) {
        return Decision::No(RemarkKind::NeverInline, None, "noinline function attribute");
    }
    if site.has(Attr::NoInline) {
        return Decision::No(
            RemarkKind::NeverInline,
            None,
            "noinline call site attribute",
        );
    }
    if cx.opts.inline.nv_inline_all {
        return match inline_viable(st, f) {
            Ok(()) => Decision::Inline(None, "nv-inline-all"),
            Err(why) => Decision::No(RemarkKind::NeverInline, None, why),
        };
    }
    if caller.op(row) == Opcode::CallBr {
        return Decision::No(
            RemarkKind::NotInlined,
            None,
            "callbr sites are not modelled",
        );
    }
    let bb = facts.block_of[row.idx()];
    let before_unreachable = cost::ends_in_unreachable(caller, row, bb);
    let (threshold, threshold_explicit) = cx.opts.inline.threshold();
    let mut cost_mult = ci.cost_mult;
    if cx.opts.inline.function_inline_cost_multiplier != 1 && recursive(cx, f) {
        cost_mult = cost_mult.saturating_mul(cx.opts.inline.function_inline_cost_multiplier);
    }
    let knobs = SiteKnobs {
        threshold,
        threshold_explicit,
        cold_site: freq::is_cold_site(&facts.freqs, caller, bb),
        before_unreachable,
        last_call_to_static: fx.linkage[f.idx()].is_local() && st.uses_are(f, 1),
        caller_recursive: facts.recursive,
        cost_mult,
    };
    let callee = st.body(f);
    let (preds, eph) = st
        .tables(f)
        .expect("the callee's predecessor table is made before its call sites are decided");
    let callee = cost::Callee {
        f,
        body: callee,
        preds,
        made: st.folds().made(),
        eph,
    };
    match cost::analyze(fx, caller, n, row, &callee, knobs, scratch, Some(st)) {
        Outcome::Never(why) => Decision::No(RemarkKind::NeverInline, None, why),
        Outcome::Cost { cost, threshold } => {
            // `InlineCost::operator bool`: `Cost < Threshold`, so cost 0 at threshold 0
            // is not inlined (`finalizeAnalysis`' `Cost < max(1, Threshold)` only makes
            // the `InlineResult`, which the threshold's verdict overrides)
            if cost < threshold {
                Decision::Inline(Some((cost, threshold)), "")
            } else {
                Decision::No(
                    RemarkKind::TooBig,
                    Some((cost, threshold)),
                    "too costly to inline",
                )
            }
        }
    }
}

/// `f` is in a cycle of calls: its SCC has other members or it calls itself.
fn recursive(cx: Ctx<'_>, f: FuncIdx) -> bool {
    cx.g.recursive(crate::callgraph::node_of_function(f))
}

/// LLVM 14's `ReplayInlineAdvisor`, ahead of every other check: the replay file's sign
/// for the call of `f` in `n` at location `dbg` (inlined as if the cost were "always",
/// or not inlined without a remark), or its fallback; `None` when the original advisor
/// decides.
fn replay<S: Store>(
    st: &S,
    cx: Ctx<'_>,
    (n, f): (FuncIdx, FuncIdx),
    dbg: Option<DebugLocIdx>,
) -> Option<Decision> {
    let file = cx.opts.inline.replay.as_ref()?;
    let names = &st.sh().fx.names;
    let (caller, callee) = (&names[n.idx()], &names[f.idx()]);
    if !file.covers(caller) {
        return None;
    }
    let site = dbg.map_or_else(String::new, |l| {
        st.sh().locs.format_callsite(l, file.format)
    });
    // `ReplayFile::advice`, with the reason LLVM gives a listed site and a fallback
    match (file.site(callee, &site), file.fallback) {
        (Some(true), _) => Some(Decision::Inline(None, "previously inlined")),
        (Some(false), _) | (None, ReplayFallback::NeverInline) => {
            Some(Decision::No(RemarkKind::NotInlined, None, ""))
        }
        (None, ReplayFallback::AlwaysInline) => {
            Some(Decision::Inline(None, "AlwaysInline Fallback"))
        }
        (None, ReplayFallback::Original) => None,
    }
}
