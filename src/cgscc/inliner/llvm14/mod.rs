//! The inliner with LLVM 14's decision procedure and `InlineCost` model under LLVM's
//! default knobs (`--inline-model llvm14`), over the module's instruction view.
//!
//! Per SCC it does what LLVM 14's `InlinerPass` does: one FIFO worklist of the SCC's
//! direct calls to defined functions (functions in SCC order, calls in layout order);
//! calls exposed by an inlining are appended last-to-first with an inline history (a
//! call whose callee is in its history is skipped silently, as is a call inside an SCC
//! whose internal edge was already inlined before the SCC split); each call is decided
//! by the attribute checks and then the cost analyzer ([`cost::analyze`]) on the
//! callee's *current* body — bodies are real instruction lists ([`body::Body`]) that
//! inlining rewrites ([`clone::inline_call`]), so a caller sees its callees after their
//! own inlining, with constant arguments folded and dead blocks pruned. Live-use counts
//! drive LastCallToStatic and the deletion of local callees left without uses.
//!
//! Cold call sites (a block frequency under 2 % of the entry's) come from a static
//! estimate of block frequencies ([`freq`]).

pub mod body;
pub mod clone;
pub mod cost;
pub mod freq;

use super::inline::{InlinerPass, Remark, RemarkKind};
use super::summary::{CallSummary, CallTarget, HistIdx, LocIdx};
use super::{Abort, PassContext, PassResult};
use crate::callgraph::{NodeIdx, SccIdx};
use crate::llvm::attrs::Attr;
use crate::llvm::ir::{Intrinsic, Ir, Opcode, Value};
use crate::llvm::{FuncIdx, Linkage, Module, SymbolDef};
use ahash::AHashMap;
use body::{Body, V};
use cost::{Outcome, SiteKnobs};
use std::sync::Arc;

/// Module facts the model reads.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The instruction view.
    pub ir: Arc<Ir>,
    /// Per symbol: the function it names.
    pub sym_func: Vec<Option<FuncIdx>>,
    /// Per symbol: the defined functions reached through its initializer, aliasee or
    /// resolver (LLVM's `visitReferences`), which a body mentioning it references.
    pub sym_refs: crate::idx::IndexVec<crate::llvm::SymbolIdx, Vec<NodeIdx>>,
    /// Per symbol: a global known to be in this module (local linkage or defined), so
    /// its address needs no GOT load.
    pub sym_local: Vec<bool>,
    /// Function names.
    pub names: Vec<String>,
    /// `coldcc` functions.
    pub coldcc: Vec<bool>,
    /// Function linkages.
    pub linkage: Vec<Linkage>,
    /// Defined functions.
    pub is_def: Vec<bool>,
    /// Per function: its `"target-features"` (the `+x` words, sorted) — the x86 rule
    /// of inline compatibility is that the callee's are a subset of the caller's.
    pub features: Vec<Vec<String>>,
}

/// The model's state over one run.
#[derive(Clone, Debug)]
pub struct State {
    /// Module facts.
    pub fx: Facts,
    /// Current bodies (built when first needed).
    pub bodies: Vec<Option<Body>>,
    /// Functions whose body inlining deleted.
    pub deleted: Vec<bool>,
    /// Live uses of each function (calls and references in live bodies, plus one for
    /// a reference from a global initializer or alias).
    pub uses: Vec<i64>,
    /// Inline history rows: (inlined callee, parent row).
    pub hist: Vec<(FuncIdx, Option<u32>)>,
    /// Per function: its block frequencies while its body is unchanged (LLVM's cached
    /// `BlockFrequencyInfo` of a callee).
    bfi: Vec<Option<std::rc::Rc<Vec<u64>>>>,
    /// Per function: its blocks' predecessors ([`Body::pred_table`]) while its body is
    /// unchanged, what every cost analysis of a call to it walks.
    preds: Vec<Option<Box<PredTable>>>,
}

/// A body's predecessor table ([`Body::pred_table`]): (start per block, predecessors).
pub(crate) type PredTable = (Vec<u32>, Vec<u32>);

fn expr_funcs(ir: &Ir, fx_sym: &[Option<FuncIdx>], v: Value, out: &mut Vec<FuncIdx>, depth: u32) {
    match v {
        Value::Global(s) => {
            if let Some(f) = fx_sym[s.idx()] {
                out.push(f);
            }
        }
        Value::Expr(e) if depth < 16 => {
            for &o in ir.expr_operands(e) {
                expr_funcs(ir, fx_sym, o, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// The symbols a constant mentions, through constant expressions.
fn expr_symbols(ir: &Ir, v: Value, out: &mut Vec<crate::llvm::SymbolIdx>, depth: u32) {
    match v {
        Value::Global(s) => out.push(s),
        Value::Expr(e) if depth < 16 => {
            for &o in ir.expr_operands(e) {
                expr_symbols(ir, o, out, depth + 1);
            }
        }
        _ => {}
    }
}

impl State {
    /// The state for module `m` (`None` without an instruction view); `referenced[f]`:
    /// `f` is referenced from a global initializer or an alias.
    pub fn new(m: &Module, referenced: &[bool]) -> Option<State> {
        let ir = m.ir_arc()?;
        let nsym = m.num_symbols();
        let mut sym_func = vec![None; nsym];
        let mut sym_local = vec![false; nsym];
        for s in 0..nsym {
            match m.symbol_def(crate::llvm::SymbolIdx::new(s)) {
                SymbolDef::Function(f) => {
                    sym_func[s] = Some(f);
                    let fun = m.function(f);
                    sym_local[s] = fun.linkage.is_local() || fun.is_definition;
                }
                SymbolDef::Global(g) => {
                    let gv = &m.globals()[g];
                    sym_local[s] = gv.linkage.is_local() || gv.has_initializer;
                }
                _ => {}
            }
        }
        let fs = m.functions();
        let features = fs
            .iter()
            .map(|f| {
                let mut words: Vec<&String> = f.attrs.iter().collect();
                for g in &f.attr_groups {
                    if let Some((_, w)) = m.attr_groups.iter().find(|(n, _)| n == g) {
                        words.extend(w);
                    }
                }
                // the reader keeps `"target-features"` and its value as two words
                let mut out: Vec<String> = words
                    .windows(2)
                    .filter(|w| w[0] == "\"target-features\"")
                    .flat_map(|w| w[1].trim_matches('"').split(','))
                    .filter(|x| x.starts_with('+'))
                    .map(str::to_string)
                    .collect();
                out.sort();
                out.dedup();
                out
            })
            .collect();
        let fx = Facts {
            features,
            names: fs.iter().map(|f| f.name.clone()).collect(),
            coldcc: fs.iter().map(|f| f.calling_conv == "coldcc").collect(),
            linkage: fs.iter().map(|f| f.linkage).collect(),
            is_def: fs.iter().map(|f| f.is_definition).collect(),
            ir,
            sym_func,
            sym_refs: crate::callgraph::symbol_function_refs(m),
            sym_local,
        };
        let n = fs.len();
        let mut uses = vec![0i64; n];
        let mut tmp = Vec::new();
        for f in 0..n {
            let f = FuncIdx::new(f);
            for i in fx.ir.insts(f) {
                for &v in fx.ir.operands(i) {
                    tmp.clear();
                    expr_funcs(&fx.ir, &fx.sym_func, v, &mut tmp, 0);
                    for &g in &tmp {
                        uses[g.idx()] += 1;
                    }
                }
            }
            if referenced.get(f.idx()).copied().unwrap_or(false) {
                uses[f.idx()] += 1;
            }
        }
        Some(State {
            fx,
            bodies: vec![None; n],
            deleted: vec![false; n],
            uses,
            hist: Vec::new(),
            bfi: vec![None; n],
            preds: vec![None; n],
        })
    }

    fn ensure(&mut self, f: FuncIdx) {
        if self.bodies[f.idx()].is_none() {
            self.bodies[f.idx()] = Some(Body::from_ir(&self.fx.ir, f));
        }
    }

    /// The direct callee of call row `i` of `b`.
    pub fn direct_callee(&self, b: &Body, i: u32) -> Option<FuncIdx> {
        let inst = &b.insts[i as usize];
        let ci = inst.call.as_ref()?;
        match inst.ops[ci.callee_op as usize] {
            V::K(Value::Global(s)) => self.fx.sym_func[s.idx()],
            _ => None,
        }
    }

    /// Functions referenced by `b` (with multiplicity).
    fn ref_counts(&self, b: &Body) -> AHashMap<FuncIdx, i64> {
        let rows = b
            .layout
            .iter()
            .flat_map(|&bb| b.blocks[bb as usize].iter().copied());
        self.ref_counts_of(b, rows)
    }

    /// Functions referenced by rows `rows` of `b` (with multiplicity).
    fn ref_counts_of(&self, b: &Body, rows: impl Iterator<Item = u32>) -> AHashMap<FuncIdx, i64> {
        let mut out = AHashMap::new();
        let mut tmp = Vec::new();
        for i in rows {
            for &v in &b.insts[i as usize].ops {
                if let V::K(k) = v {
                    tmp.clear();
                    expr_funcs(&self.fx.ir, &self.fx.sym_func, k, &mut tmp, 0);
                    for &g in &tmp {
                        *out.entry(g).or_default() += 1;
                    }
                }
            }
        }
        out
    }

    /// The references an inlining added to caller `n` and removed from it: the new live
    /// rows against the call row (the whole body when the call's value became a
    /// constant, which may now stand in old rows).
    fn inline_ref_delta(
        &self,
        n: FuncIdx,
        call_refs: AHashMap<FuncIdx, i64>,
        whole_before: Option<AHashMap<FuncIdx, i64>>,
        out: &clone::Inlined,
    ) -> (AHashMap<FuncIdx, i64>, AHashMap<FuncIdx, i64>) {
        let b = self.bodies[n.idx()].as_ref().unwrap();
        if out.value_is_constant {
            if let Some(before) = whole_before {
                return (self.ref_counts(b), before);
            }
        }
        let mut blocks: Vec<u32> = out.clones.iter().map(|c| c.1).collect();
        blocks.extend([out.call_block, out.after, b.layout[0]]);
        blocks.sort_unstable();
        blocks.dedup();
        let rows = blocks.into_iter().flat_map(|bb| {
            b.blocks[bb as usize]
                .iter()
                .copied()
                .filter(|&r| r >= out.first_new_row)
        });
        (self.ref_counts_of(b, rows), call_refs)
    }

    /// Callee `f`'s block frequencies (`body` is its body), cached until its body
    /// changes.
    fn callee_freqs(&mut self, f: FuncIdx, body: &Body) -> std::rc::Rc<Vec<u64>> {
        self.bfi[f.idx()]
            .get_or_insert_with(|| std::rc::Rc::new(freq::int_freqs(&self.fx, body)))
            .clone()
    }

    /// The call and reference summary of body `f` (for the call graph).
    fn summarize(&self, f: FuncIdx) -> (Vec<CallSummary>, Vec<NodeIdx>) {
        let b = self.bodies[f.idx()].as_ref().unwrap();
        let mut calls = Vec::new();
        let mut refs = Vec::new();
        let mut syms = Vec::new();
        let mut seen = vec![false; self.fx.is_def.len()];
        for &bb in &b.layout {
            for &i in &b.blocks[bb as usize] {
                let inst = &b.insts[i as usize];
                let callee_op = inst.call.as_ref().map(|c| c.callee_op as usize);
                for (k, &v) in inst.ops.iter().enumerate() {
                    let V::K(kv) = v else { continue };
                    if Some(k) == callee_op {
                        if let Value::Global(s) = kv {
                            if let Some(g) = self.fx.sym_func[s.idx()] {
                                calls.push(CallSummary {
                                    callee: CallTarget::Function(NodeIdx::new(g.idx())),
                                    arg_count: inst.call.as_ref().unwrap().nargs,
                                    loc: LocIdx::NONE,
                                    history: HistIdx::NONE,
                                });
                                continue;
                            }
                        }
                    }
                    syms.clear();
                    expr_symbols(&self.fx.ir, kv, &mut syms, 0);
                    for &s in &syms {
                        let direct = self.fx.sym_func[s.idx()].map(|g| NodeIdx::new(g.idx()));
                        for &n in direct.iter().chain(&self.fx.sym_refs[s]) {
                            if !std::mem::replace(&mut seen[n.idx()], true) {
                                refs.push(n);
                            }
                        }
                    }
                }
            }
        }
        (calls, refs)
    }

    /// Per function: (direct, indirect) calls of its current body (what LLVM's
    /// `DevirtSCCRepeatedPass` compares before and after a run: fewer indirect and more
    /// direct calls in a function means a devirtualization).
    pub fn call_counts(&mut self, fs: &[NodeIdx]) -> Vec<(u32, u32)> {
        fs.iter()
            .map(|&n| {
                let f = FuncIdx::new(n.idx());
                if !self.fx.is_def[f.idx()] || self.deleted[f.idx()] {
                    return (0, 0);
                }
                self.ensure(f);
                let b = self.bodies[f.idx()].as_ref().unwrap();
                let mut c = (0, 0);
                for &bb in &b.layout {
                    for &i in &b.blocks[bb as usize] {
                        if b.insts[i as usize].call.is_some() {
                            if self.direct_callee(b, i).is_some() {
                                c.0 += 1;
                            } else {
                                c.1 += 1;
                            }
                        }
                    }
                }
                c
            })
            .collect()
    }

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

/// What the decisions of one caller's batch read of the caller, kept as LLVM keeps its
/// analyses: computed when the batch first needs them, updated by each inlining into the
/// caller, dropped when the batch that inlined ends (LLVM invalidates the caller's
/// analyses there).
struct CallerFacts {
    /// The caller.
    f: FuncIdx,
    /// Block frequencies (LLVM's `BlockFrequencyInfo`).
    freqs: Vec<u64>,
    /// Per instruction row: its block.
    block_of: Vec<u32>,
    /// The caller calls itself (LLVM's `IsCallerRecursive`).
    recursive: bool,
}

impl CallerFacts {
    fn new(st: &State, f: FuncIdx) -> CallerFacts {
        let b = st.bodies[f.idx()].as_ref().unwrap();
        let mut block_of = vec![u32::MAX; b.insts.len()];
        let mut recursive = false;
        for &bb in &b.layout {
            for &i in &b.blocks[bb as usize] {
                block_of[i as usize] = bb;
                recursive |=
                    b.insts[i as usize].call.is_some() && st.direct_callee(b, i) == Some(f);
            }
        }
        CallerFacts {
            f,
            freqs: freq::int_freqs(&st.fx, b),
            block_of,
            recursive,
        }
    }

    /// After a call of the caller was inlined (`out`) with a callee of frequencies
    /// `callee_freqs`: the frequencies as `InlineFunction` updates them, the blocks of
    /// the rows that moved or were made, and whether the clone calls the caller.
    fn update(
        &mut self,
        st: &State,
        callee_freqs: &[u64],
        callee_entry: u32,
        out: &clone::Inlined,
    ) {
        freq::update_after_inline(
            &mut self.freqs,
            callee_freqs,
            callee_entry,
            &out.clones,
            out.call_block,
            out.after,
        );
        let b = st.bodies[self.f.idx()].as_ref().unwrap();
        self.block_of.resize(b.insts.len(), u32::MAX);
        let touched =
            out.clones
                .iter()
                .map(|c| c.1)
                .chain([out.call_block, out.after, b.layout[0]]);
        for bb in touched {
            for &i in &b.blocks[bb as usize] {
                self.block_of[i as usize] = bb;
            }
        }
        self.recursive |= out
            .new_calls
            .iter()
            .any(|&i| st.direct_callee(b, i) == Some(self.f));
    }
}

enum Decision {
    Inline(Option<(i64, i64)>),
    No(RemarkKind, Option<(i64, i64)>, &'static str),
}

fn interposable(l: Linkage) -> bool {
    matches!(
        l,
        Linkage::Weak | Linkage::Linkonce | Linkage::ExternWeak | Linkage::Common
    )
}

fn inline_viable(st: &State, f: FuncIdx) -> Result<(), &'static str> {
    let b = st.bodies[f.idx()].as_ref().unwrap();
    let ir = &st.fx.ir;
    for &bb in &b.layout {
        for &i in &b.blocks[bb as usize] {
            let inst = &b.insts[i as usize];
            if inst.op == Opcode::IndirectBr {
                return Err("contains indirect branches");
            }
            if inst.call.is_some() {
                if let Some(g) = st.direct_callee(b, i) {
                    if g == f {
                        return Err("recursive call");
                    }
                    if ir.fn_attrs(g).has(Attr::ReturnsTwice) {
                        return Err("exposes returns-twice attribute");
                    }
                    if ir.intrinsic[g] == Intrinsic::VaStart {
                        return Err("contains VarArgs initialized with va_start");
                    }
                    let n = &st.fx.names[g.idx()];
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

fn decide(
    st: &State,
    cx: &PassContext<'_>,
    only_mandatory: bool,
    n: FuncIdx,
    row: u32,
    f: FuncIdx,
    facts: &CallerFacts,
) -> Decision {
    let ir = &*st.fx.ir;
    let caller = st.bodies[n.idx()].as_ref().unwrap();
    let inst = &caller.insts[row as usize];
    let ci = inst.call.as_ref().unwrap();
    let site = ir.attr_sets.get(ci.attrs);
    let fa = ir.fn_attrs(f);
    let ca = ir.fn_attrs(n);
    if fa.has(Attr::PresplitCoroutine) {
        return Decision::No(RemarkKind::NeverInline, None, "unsplited coroutine call");
    }
    if site.has(Attr::AlwaysInline) || fa.has(Attr::AlwaysInline) {
        return match inline_viable(st, f) {
            Ok(()) => Decision::Inline(None),
            Err(why) => Decision::No(RemarkKind::NeverInline, None, why),
        };
    }
    if only_mandatory {
        return Decision::No(RemarkKind::NotInlined, None, "");
    }
    if !st.fx.features[f.idx()]
        .iter()
        .all(|x| st.fx.features[n.idx()].binary_search(x).is_ok())
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
    if interposable(st.fx.linkage[f.idx()])
        || (ir.semantic_interposition
            && !ir.func(f).dso_local
            && !st.fx.linkage[f.idx()].is_local())
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
    if inst.op != Opcode::Call {
        return Decision::No(
            RemarkKind::NotInlined,
            None,
            "invoke and callbr sites are not modelled",
        );
    }
    let bb = facts.block_of[row as usize];
    let before_unreachable = caller
        .term(bb)
        .is_some_and(|t| caller.insts[t as usize].op == Opcode::Unreachable);
    let knobs = SiteKnobs {
        threshold: cx.opts.inline.inline_threshold,
        cold_site: freq::is_cold_site(&facts.freqs, caller, bb),
        before_unreachable,
        last_call_to_static: st.fx.linkage[f.idx()].is_local() && st.uses[f.idx()] == 1,
        caller_recursive: facts.recursive,
        cost_mult: ci.cost_mult,
    };
    let callee = st.bodies[f.idx()].as_ref().unwrap();
    let preds = st.preds[f.idx()]
        .as_deref()
        .expect("the callee's predecessor table is made before its call sites are decided");
    let callee = cost::Callee {
        f,
        body: callee,
        preds,
    };
    match cost::analyze(&st.fx, caller, n, row, &callee, knobs) {
        Outcome::Never(why) => Decision::No(RemarkKind::NeverInline, None, why),
        Outcome::Cost { cost, threshold } => {
            if cost < threshold.max(1) {
                Decision::Inline(Some((cost, threshold)))
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

/// Runs the LLVM 14 inliner on SCC `scc`.
pub(crate) fn run(
    pass: &InlinerPass,
    scc: SccIdx,
    cx: &mut PassContext<'_>,
) -> Result<PassResult, Abort> {
    let Some(mut st) = cx.m.llvm14.take() else {
        return Err(Abort(
            "--inline-model llvm14 needs the module's instruction view".into(),
        ));
    };
    let r = run_scc(&mut st, pass, scc, cx);
    cx.m.llvm14 = Some(st);
    r
}

fn run_scc(
    st: &mut State,
    pass: &InlinerPass,
    scc: SccIdx,
    cx: &mut PassContext<'_>,
) -> Result<PassResult, Abort> {
    let pname: Arc<str> = Arc::from(pass.name.as_str());
    let nodes = cx.m.graph.scc_nodes(scc).to_vec();
    let mut work: Vec<(FuncIdx, u32, Option<u32>)> = Vec::new();
    for &nd in &nodes {
        let f = FuncIdx::new(nd.idx());
        if cx.m.graph.is_removed(nd) || st.deleted[f.idx()] || !st.fx.is_def[f.idx()] {
            continue;
        }
        st.ensure(f);
        let b = st.bodies[f.idx()].as_ref().unwrap();
        for &bb in &b.layout {
            for &i in &b.blocks[bb as usize] {
                if b.insts[i as usize].call.is_none() {
                    continue;
                }
                let Some(g) = st.direct_callee(b, i) else {
                    continue;
                };
                if st.fx.is_def[g.idx()] && !st.deleted[g.idx()] {
                    work.push((f, i, None));
                } else if st.fx.ir.intrinsic[g] == Intrinsic::None
                    && !st.fx.names[g.idx()].starts_with("llvm.")
                {
                    let keep = cx.opts.inline.keep_remarks;
                    cx.m.record_remark(
                        keep,
                        Remark {
                            kind: RemarkKind::NoDefinition,
                            pass: pname.clone(),
                            caller: cx.m.summ.names[nd].clone(),
                            callee: cx.m.summ.names[NodeIdx::new(g.idx())].clone(),
                            cost: None,
                            threshold: None,
                            loc: String::new(),
                            reason: "",
                            llvm14: true,
                        },
                    );
                }
            }
        }
    }
    let mut any = PassResult::Unchanged;
    let mut cur = scc;
    let mut dead_now: Vec<FuncIdx> = Vec::new();
    let mut fcache: Option<CallerFacts> = None;
    let mut i = 0;
    while i < work.len() {
        let n = work[i].0;
        let nn = NodeIdx::new(n.idx());
        if cx.m.graph.scc_of(nn) != Some(cur) || st.deleted[n.idx()] {
            i += 1;
            continue;
        }
        let mut inlined_callees: Vec<FuncIdx> = Vec::new();
        while i < work.len() && work[i].0 == n {
            let (_, row, h) = work[i];
            i += 1;
            if st.deleted[n.idx()] {
                continue;
            }
            if cx.m.inliner_stopped {
                continue;
            }
            let Some(f) = st.direct_callee(st.bodies[n.idx()].as_ref().unwrap(), row) else {
                continue;
            };
            if st.deleted[f.idx()] || !st.fx.is_def[f.idx()] {
                continue;
            }
            if h.is_some() && st.history_contains(h, f) {
                continue;
            }
            let fnode = NodeIdx::new(f.idx());
            if cx.m.graph.scc_of(fnode) == Some(cur) && cx.m.inlined_internal.contains(&(nn, cur)) {
                continue;
            }
            st.ensure(f);
            if st.preds[f.idx()].is_none() {
                st.preds[f.idx()] =
                    Some(Box::new(st.bodies[f.idx()].as_ref().unwrap().pred_table()));
            }
            if fcache.as_ref().is_none_or(|c| c.f != n) {
                fcache = Some(CallerFacts::new(st, n));
            }
            let d = decide(
                st,
                cx,
                pass.only_mandatory,
                n,
                row,
                f,
                fcache.as_ref().unwrap(),
            );
            let mk =
                |kind, ct: Option<(i64, i64)>, reason: &'static str, cx: &PassContext<'_>| Remark {
                    kind,
                    pass: pname.clone(),
                    caller: cx.m.summ.names[nn].clone(),
                    callee: cx.m.summ.names[fnode].clone(),
                    cost: ct.map(|x| x.0),
                    threshold: ct.map(|x| x.1),
                    loc: String::new(),
                    reason,
                    llvm14: true,
                };
            match d {
                Decision::No(RemarkKind::NotInlined, _, "") => {}
                Decision::No(kind, ct, why) => {
                    let r = mk(kind, ct, why, cx);
                    cx.m.record_remark(cx.opts.inline.keep_remarks, r);
                }
                Decision::Inline(ct) => {
                    let kind = if ct.is_some() {
                        RemarkKind::Inlined
                    } else {
                        RemarkKind::AlwaysInline
                    };
                    let ir = st.fx.ir.clone();
                    // the callee's body is lent out while the caller's is edited (a call
                    // of a function to itself is never inlined: `decide` refuses it)
                    let callee_body = if f == n {
                        st.bodies[f.idx()].clone().unwrap()
                    } else {
                        st.bodies[f.idx()].take().unwrap()
                    };
                    let caller_body = st.bodies[n.idx()].as_ref().unwrap();
                    let ci = caller_body.insts[row as usize].call.clone().unwrap();
                    let mult = ci.cost_mult;
                    let byval: Vec<_> = (0..callee_body.nargs as usize)
                        .map(|k| {
                            let site = ci.params.get(k).map(|&a| ir.attr_sets.get(a));
                            let decl = ir.arg(f, k).map(|a| ir.arg_attrs(a));
                            site.filter(|a| a.has(Attr::ByVal))
                                .or(decl.filter(|a| a.has(Attr::ByVal)))
                                .map(|a| a.ty)
                        })
                        .collect();
                    let call_refs = st.ref_counts_of(caller_body, std::iter::once(row));
                    // a call whose value the callee returns as a constant: count whole
                    // bodies (its uses in old rows change)
                    let returns_constant = callee_body.layout.iter().any(|&bb| {
                        callee_body.blocks[bb as usize].iter().any(|&r| {
                            let x = &callee_body.insts[r as usize];
                            x.op == crate::llvm::ir::Opcode::Ret
                                && matches!(x.ops.first(), Some(V::K(_)))
                        })
                    });
                    let whole_before = returns_constant.then(|| st.ref_counts(caller_body));
                    let callee_freqs = st.callee_freqs(f, &callee_body);
                    let caller_body = st.bodies[n.idx()].as_mut().unwrap();
                    let out = clone::inline_call(&ir.types, caller_body, row, &callee_body, &byval);
                    if let Some(c) = fcache.as_mut() {
                        c.update(st, &callee_freqs, callee_body.layout[0], &out);
                    }
                    // the caller's own tables, should it be decided as a callee (a call
                    // to itself) before the batch ends
                    st.preds[n.idx()] = None;
                    st.bfi[n.idx()] = None;
                    if f != n {
                        st.bodies[f.idx()] = Some(callee_body);
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
                    let hid = st.hist.len() as u32;
                    st.hist.push((f, h));
                    let f_scc = cx.m.graph.scc_of(fnode);
                    for &nc in out.new_calls.iter().rev() {
                        let b = st.bodies[n.idx()].as_ref().unwrap();
                        let Some(g) = st.direct_callee(b, nc) else {
                            continue;
                        };
                        if !st.fx.is_def[g.idx()] || st.deleted[g.idx()] {
                            continue;
                        }
                        if f_scc.is_some()
                            && f_scc != Some(cur)
                            && cx.m.graph.scc_of(NodeIdx::new(g.idx())) == f_scc
                        {
                            let b = st.bodies[n.idx()].as_mut().unwrap();
                            if let Some(c) = b.insts[nc as usize].call.as_mut() {
                                c.cost_mult = mult * 2;
                            }
                        }
                        work.push((n, nc, Some(hid)));
                    }
                    let r = mk(kind, ct, "", cx);
                    cx.m.record_remark(cx.opts.inline.keep_remarks, r);
                    inlined_callees.push(f);
                    cx.m.inlines_done += 1;
                    any = PassResult::Changed;
                    // a discardable callee left without uses is deleted
                    let l = st.fx.linkage[f.idx()];
                    let discardable = l.is_local()
                        || matches!(
                            l,
                            Linkage::Linkonce | Linkage::LinkonceOdr | Linkage::AvailableExternally
                        );
                    if discardable
                        && st.uses[f.idx()] == 0
                        && !cx.m.graph.lib_functions().contains(&fnode)
                    {
                        let rc = st.ref_counts(st.bodies[f.idx()].as_ref().unwrap());
                        for (g, c) in rc {
                            st.uses[g.idx()] -= c;
                        }
                        st.deleted[f.idx()] = true;
                        st.bodies[f.idx()] = Some(Body::default());
                        dead_now.push(f);
                        // LLVM erases the dead callee's queued calls, so the caller's
                        // batches on either side of them become one
                        let tail: Vec<_> = work.drain(i..).filter(|w| w.0 != f).collect();
                        work.extend(tail);
                    }
                }
            }
        }
        if !inlined_callees.is_empty() {
            fcache = None;
            st.bfi[n.idx()] = None;
            st.preds[n.idx()] = None;
            cx.mark_changed(nn);
            let (calls, refs) = st.summarize(n);
            cx.m.summ.calls[nn] = calls;
            cx.m.summ.refs[nn] = refs;
            for &g in &dead_now {
                let gn = NodeIdx::new(g.idx());
                cx.m.summ.calls[gn].clear();
                cx.m.summ.refs[gn].clear();
            }
            let edges = cx.m.summary_edges(nn);
            let old = cur;
            cx.set_function_edges(cur, nn, &edges);
            if let Some(c) = cx.m.graph.scc_of(nn) {
                // LLVM 14: the SCC changed, or split and merged back (it is queued
                // again), and the caller inlined a callee of the old SCC
                if (c != old || cx.ur.cworklist.contains(old))
                    && inlined_callees
                        .iter()
                        .any(|&g| cx.m.graph.scc_of(NodeIdx::new(g.idx())) == Some(old))
                {
                    cx.m.inlined_internal.insert((nn, old));
                }
                cur = c;
            }
        }
    }
    // dead callees leave the graph at the end of the run, as in LLVM 14
    if cx.opts.inline.delete_dead {
        let dead = dead_now.iter().map(|f| NodeIdx::new(f.idx()));
        cx.remove_dead_functions(dead);
    }
    Ok(any)
}
