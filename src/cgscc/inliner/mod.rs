//! The inliner over summaries (LLVM's `InlinerPass` / NVIDIA's early inliner, seed 003).
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
//! 5. the replay advisor (`cgscc-inline-replay`), if it decides;
//! 6. `nv-inline-all` → inline;
//! 7. the cost model: [`Summaries::call_cost`], times `intra-scc-cost-multiplier` when
//!    the callee is in the caller's SCC and `function-inline-cost-multiplier` when the
//!    callee is recursive; the threshold is the caller's remaining `inline-budget`
//!    (20,000, or 40,000 with `aggressive-inline`) in NVIDIA mode, `inline-threshold`
//!    (225; 325 for `inlinehint`, 45 for `cold` callees) in stock mode. Within the
//!    threshold → `Inlined` (the budget is charged), otherwise `TooBig`.
//!
//! Inlining merges the callee's size, call sites, references and memory effect into the
//! caller; after a function's call sites are done its new edge set goes to the call
//! graph in one [`PassContext::set_function_edges`] (the inlined call edge disappears or
//! becomes a ref, the callee's callees become call edges: SCCs merge and split). A local
//! callee left without uses is queued as dead.

use super::summary::{CallSummary, CallTarget, ReplayFormat, Summaries};
use super::{Abort, CgsccPass, PassContext, PassResult};
use crate::callgraph::{NodeIdx, SccIdx};
use crate::cgscc::summary::CallIdx;
use ahash::AHashSet;
use std::sync::Arc;

/// Replay scope (`cgscc-inline-replay-scope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReplayScope {
    /// Replay only in functions the file mentions as callers.
    #[default]
    Function,
    /// Replay in every function.
    Module,
}

/// What replay does for call sites the file does not list
/// (`cgscc-inline-replay-fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReplayFallback {
    /// The normal cost model decides.
    #[default]
    Original,
    /// Inline.
    AlwaysInline,
    /// Do not inline.
    NeverInline,
}

/// Inline decisions read from a remarks file (`cgscc-inline-replay`): every line
/// `'callee' inlined into 'caller' ... at callsite LOC;` is a site to inline.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// `(callee, location)` pairs to inline.
    pub sites: AHashSet<(String, String)>,
    /// Callers named in the file.
    pub callers: AHashSet<String>,
    /// Scope.
    pub scope: ReplayScope,
    /// Fallback.
    pub fallback: ReplayFallback,
    /// Location format.
    pub format: ReplayFormat,
}

impl Replay {
    /// Parses replay text.
    pub fn parse(
        text: &str,
        scope: ReplayScope,
        fallback: ReplayFallback,
        format: ReplayFormat,
    ) -> Replay {
        let mut r = Replay {
            scope,
            fallback,
            format,
            ..Default::default()
        };
        for line in text.lines() {
            let Some((head, tail)) = line.split_once(" at callsite ") else {
                continue;
            };
            let Some((callee_part, caller_part)) = head.split_once("' inlined into '") else {
                continue;
            };
            let Some(q) = callee_part.rfind('\'') else {
                continue;
            };
            let callee = &callee_part[q + 1..];
            let caller = caller_part.split('\'').next().unwrap_or("");
            let loc = tail.split(';').next().unwrap_or("").trim();
            r.sites.insert((callee.to_string(), loc.to_string()));
            r.callers.insert(caller.to_string());
        }
        r
    }

    /// Reads a replay file.
    pub fn from_file(
        path: &str,
        scope: ReplayScope,
        fallback: ReplayFallback,
        format: ReplayFormat,
    ) -> std::io::Result<Replay> {
        Ok(Replay::parse(
            &std::fs::read_to_string(path)?,
            scope,
            fallback,
            format,
        ))
    }

    /// `Some(true)`: inline, `Some(false)`: do not, `None`: the cost model decides.
    pub fn decide(&self, caller: &str, callee: &str, loc: &str) -> Option<bool> {
        if self.sites.contains(&(callee.to_string(), loc.to_string())) {
            return Some(true);
        }
        if self.scope == ReplayScope::Module || self.callers.contains(caller) {
            return match self.fallback {
                ReplayFallback::Original => None,
                ReplayFallback::AlwaysInline => Some(true),
                ReplayFallback::NeverInline => Some(false),
            };
        }
        None
    }
}

/// Inliner knobs (seed 003's table).
#[derive(Clone, Debug)]
pub struct InlineParams {
    /// `inline-budget`: per-caller NVIDIA budget; `None` = stock LLVM threshold.
    pub inline_budget: Option<i64>,
    /// `inline-threshold`: the stock threshold.
    pub inline_threshold: i64,
    /// `nv-inline-all`: inline every defined callee that is not `noinline`.
    pub nv_inline_all: bool,
    /// `aggressive-inline`: budget 40,000.
    pub aggressive_inline: bool,
    /// `intra-scc-cost-multiplier`.
    pub intra_scc_cost_multiplier: i64,
    /// `function-inline-cost-multiplier` (recursive callees).
    pub function_inline_cost_multiplier: i64,
    /// `cgscc-inline-replay`.
    pub replay: Option<Replay>,
    /// Remove local callees left without uses.
    pub delete_dead: bool,
    /// Format each remark's call-site location (off in scans, which only count remarks).
    pub remark_locations: bool,
    /// Keep every remark in [`CgsccModule::remarks`](super::CgsccModule::remarks); when
    /// off they are only counted per kind
    /// ([`CgsccModule::remark_counts`](super::CgsccModule::remark_counts)), which is all a
    /// scan needs (a large module makes millions of remarks).
    pub keep_remarks: bool,
    /// Cap on inlines per run (ilkit's guard against inlining that multiplies without
    /// end through cycles of calls; `--inline-max-total`). When reached, the inliner
    /// stops for the rest of the run and says so.
    pub max_total_inlines: usize,
    /// Cap on a caller's size in instructions after inlining (`--inline-max-caller-size`):
    /// a call whose inlining would grow the caller past it is not inlined.
    pub max_caller_size: u32,
    /// Cap on the call-graph churn inlining may cause in a run, in SCCs created by splits
    /// and merged away (`--inline-max-scc-churn`); `None`: 64 per function plus 4096.
    /// Each inline rewrites the caller's edges the way LLVM does (dead edges removed,
    /// then new calls added), which on one long cycle of calls splits the whole SCC and
    /// merges it back: O(cycle) work and SCC slots per inline. When reached, the inliner
    /// stops for the rest of the run and says so.
    pub max_scc_churn: Option<usize>,
    /// The decision procedure (`--inline-model`).
    pub model: InlineModel,
}

impl Default for InlineParams {
    fn default() -> Self {
        InlineParams {
            inline_budget: Some(20_000),
            inline_threshold: 225,
            nv_inline_all: false,
            aggressive_inline: false,
            intra_scc_cost_multiplier: 2,
            function_inline_cost_multiplier: 1,
            replay: None,
            delete_dead: true,
            remark_locations: true,
            keep_remarks: true,
            max_total_inlines: 1_000_000,
            max_caller_size: 1_000_000,
            max_scc_churn: None,
            model: InlineModel::Summary,
        }
    }
}

impl InlineParams {
    /// The effective per-caller budget.
    pub fn budget(&self) -> Option<i64> {
        if self.aggressive_inline {
            Some(40_000)
        } else {
            self.inline_budget
        }
    }
}

/// Remark kinds (the old inliner's strings). The discriminant indexes
/// [`PipelineSummary::remarks_by_kind`](super::PipelineSummary).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RemarkKind {
    /// Inlined by the cost model, replay or `nv-inline-all`.
    Inlined = 0,
    /// Not inlined for a reason other than cost.
    NotInlined = 1,
    /// Inlined because of `alwaysinline`.
    AlwaysInline = 2,
    /// Not inlined because of `noinline`.
    NeverInline = 3,
    /// Not inlined: cost above threshold.
    TooBig = 4,
    /// Not inlined: no definition.
    NoDefinition = 5,
}

impl RemarkKind {
    /// The remark name.
    pub fn as_str(self) -> &'static str {
        match self {
            RemarkKind::Inlined => "Inlined",
            RemarkKind::NotInlined => "NotInlined",
            RemarkKind::AlwaysInline => "AlwaysInline",
            RemarkKind::NeverInline => "NeverInline",
            RemarkKind::TooBig => "TooBig",
            RemarkKind::NoDefinition => "NoDefinition",
        }
    }
}

/// One inliner remark. Names are shared with the module's name table (no allocation per
/// remark); the location is formatted only when [`InlineParams::remark_locations`] is on
/// (a location chain grows with inlining depth, and most runs never print them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    /// Kind.
    pub kind: RemarkKind,
    /// Pass that emitted it.
    pub pass: Arc<str>,
    /// Caller name.
    pub caller: Arc<str>,
    /// Callee name.
    pub callee: Arc<str>,
    /// `cost=`: `None` prints `always` (or `never` for `NeverInline`).
    pub cost: Option<i64>,
    /// `threshold=`.
    pub threshold: Option<i64>,
    /// Call-site location (replay format); empty when locations are not formatted.
    pub loc: String,
    /// Extra reason text.
    pub reason: &'static str,
    /// Printed in LLVM 14's own text (`--inline-model llvm14`): `remark: <unknown>:0:0: `
    /// and LLVM's sentences, so `scripts/inline_remarks.py` reads ilkit's and opt's remarks
    /// alike.
    pub llvm14: bool,
}

impl std::fmt::Display for Remark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cost = match (self.cost, self.kind) {
            (Some(c), _) => format!("cost={c}"),
            (None, RemarkKind::NeverInline) => "cost=never".into(),
            (None, _) => "cost=always".into(),
        };
        let with = match self.threshold {
            Some(t) => format!("({cost}, threshold={t})"),
            None => format!("({cost})"),
        };
        let (callee, caller) = (&self.callee, &self.caller);
        if self.llvm14 {
            return self.fmt_llvm14(f);
        }
        write!(f, "remark: {}: {}: ", self.pass, self.kind.as_str())?;
        match self.kind {
            RemarkKind::Inlined | RemarkKind::AlwaysInline => {
                write!(f, "'{callee}' inlined into '{caller}' with {with}")?
            }
            RemarkKind::NotInlined if self.cost.is_none() => write!(
                f,
                "'{callee}' not inlined into '{caller}' because {}",
                self.reason
            )?,
            RemarkKind::NeverInline | RemarkKind::TooBig | RemarkKind::NotInlined => write!(
                f,
                "'{callee}' not inlined into '{caller}' because {} {with}",
                self.reason
            )?,
            RemarkKind::NoDefinition => write!(
                f,
                "'{callee}' will not be inlined into '{caller}' because its definition is unavailable"
            )?,
        }
        write!(f, " at callsite {};", self.loc)
    }
}

impl Remark {
    /// LLVM 14's remark text (what `opt -pass-remarks=inline -pass-remarks-missed=inline`
    /// prints without debug information).
    fn fmt_llvm14(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (callee, caller) = (&self.callee, &self.caller);
        f.write_str("remark: <unknown>:0:0: ")?;
        match (self.kind, self.cost, self.threshold) {
            (RemarkKind::Inlined, Some(c), Some(t)) => {
                write!(f, "'{callee}' inlined into '{caller}' with (cost={c}, threshold={t})")
            }
            (RemarkKind::Inlined | RemarkKind::AlwaysInline, _, _) => write!(
                f,
                "'{callee}' inlined into '{caller}' with (cost=always): always inline attribute"
            ),
            (RemarkKind::TooBig, Some(c), Some(t)) => write!(
                f,
                "'{callee}' not inlined into '{caller}' because too costly to inline (cost={c}, threshold={t})"
            ),
            (RemarkKind::NeverInline | RemarkKind::TooBig, _, _) => write!(
                f,
                "'{callee}' not inlined into '{caller}' because it should never be inlined (cost=never): {}",
                self.reason
            ),
            (RemarkKind::NotInlined, _, _) => {
                write!(f, "'{callee}' is not inlined into '{caller}': {}", self.reason)
            }
            (RemarkKind::NoDefinition, _, _) => write!(
                f,
                "{callee} will not be inlined into {caller} because its definition is unavailable"
            ),
        }
    }
}

/// Which decision procedure the inliner uses (`--inline-model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InlineModel {
    /// ilkit's summary model with NVIDIA's knobs (or the stock threshold).
    #[default]
    Summary,
    /// LLVM 14's decision procedure and cost model under LLVM's default knobs, over the
    /// instruction view ([`crate::llvm::ir`]); PERF.md, "Inliner vs LLVM 14".
    Llvm14,
}

/// The `inline` / `nv-early-inliner` / `inliner-wrapper` pass.
#[derive(Debug)]
pub struct InlinerPass {
    /// Pipeline name.
    pub name: String,
    /// `inline<only-mandatory>`: only `alwaysinline` callees.
    pub only_mandatory: bool,
}

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

impl InlinerPass {
    /// Whether a run-wide cap stops the inliner now; the first time, says which.
    fn cap_reached(&self, cx: &mut PassContext<'_>) -> bool {
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
        &self,
        cx: &PassContext<'_>,
        scc: SccIdx,
        n: NodeIdx,
        call: &CallSummary,
        f: NodeIdx,
        loc: &str,
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
        if self.only_mandatory {
            return Decision::Skip;
        }
        if let Some(r) = &p.replay {
            match r.decide(&s.names[n], &s.names[f], loc) {
                Some(true) => return Decision::Inline(RemarkKind::Inlined, None, None, ""),
                Some(false) => {
                    return Decision::No(
                        RemarkKind::NotInlined,
                        None,
                        None,
                        "the replay file does not inline it",
                    )
                }
                None => {}
            }
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
            None if s.cold[f] => 45.min(p.inline_threshold),
            None if s.inline_hint[f] => 325.max(p.inline_threshold),
            None => p.inline_threshold,
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
}

impl CgsccPass for InlinerPass {
    fn name(&self) -> String {
        if self.only_mandatory {
            format!("{}<only-mandatory>", self.name)
        } else {
            self.name.clone()
        }
    }

    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        if cx.opts.inline.model == InlineModel::Llvm14 {
            return super::llvm14::run(self, scc, cx);
        }
        let nodes = cx.m.graph.scc_nodes(scc).to_vec();
        let format = cx
            .opts
            .inline
            .replay
            .as_ref()
            .map(|r| r.format)
            .unwrap_or_default();
        let mut any = PassResult::Unchanged;
        let mut inlined_callees = Vec::new();
        let pass: Arc<str> = Arc::from(self.name.as_str());
        let p = &cx.opts.inline;
        let want_loc = p.remark_locations || p.replay.is_some();
        for n in nodes {
            if cx.m.graph.is_removed(n) {
                continue;
            }
            if cx.m.inliner_stopped || self.cap_reached(cx) {
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
                let d = self.decide(cx, scc, n, &call, f, &loc);
                let remark = |kind, cost, threshold, reason: &'static str| Remark {
                    kind,
                    pass: pass.clone(),
                    caller: cx.m.summ.names[n].clone(),
                    callee: cx.m.summ.names[f].clone(),
                    cost,
                    threshold,
                    loc: loc.clone(),
                    reason,
                    llvm14: false,
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
                        inline_call(&mut cx.m.summ, n, CallIdx::new(i), f);
                        inlined_callees.push(f);
                        changed = true;
                        any = PassResult::Changed;
                        cx.m.inlines_done += 1;
                        if self.cap_reached(cx) {
                            break;
                        }
                    }
                }
            }
            if changed {
                cx.mark_changed(n);
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
}
