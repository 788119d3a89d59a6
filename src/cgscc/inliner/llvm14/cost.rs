//! LLVM 14's `InlineCostCallAnalyzer` for x86-64 over [`Body`]: the call site's
//! constants propagated into the callee, live blocks only, per-instruction costs,
//! call-site savings, SROA and load-elimination savings, the threshold rules.

use super::fold::{int_of_inttoptr, made_agg, masked_address};
use super::simplify::{
    binop_value, bool_v, extract_element, fcmp, float_value, fold_intrinsic_call, fp_identity,
    icmp, insert_row, nonnull_const, same_const, Agg, RECURSION_LIMIT,
};
use super::{Facts, FnAttrs, PredTable};
use crate::hash::{FixedMap, FixedSet};
use crate::idx::BlockIdx;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{sext, type_size, zext, Body, CallInfo, Inst, MadeExprs, RowIdx, V};
use crate::llvm::ir::{InstFlags, Intrinsic, Opcode, Predicate, Value};
use crate::llvm::types::{TypeIdx, TypeKind};
use crate::llvm::FuncIdx;

const INSTR: i64 = 5;
const CALL_PENALTY: i64 = 25;

/// libm / libc names x86-64 does not lower to a call.
const NOT_LOWERED: &[&str] = &[
    "copysign",
    "copysignf",
    "copysignl",
    "fabs",
    "fabsf",
    "fabsl",
    "sin",
    "sinf",
    "sinl",
    "cos",
    "cosf",
    "cosl",
    "sqrt",
    "sqrtf",
    "sqrtl",
    "fmin",
    "fminf",
    "fminl",
    "fmax",
    "fmaxf",
    "fmaxl",
    "pow",
    "powf",
    "powl",
    "exp2",
    "exp2f",
    "exp2l",
    "floor",
    "floorf",
    "ceil",
    "round",
    "ffs",
    "ffsl",
    "abs",
    "labs",
    "llabs",
];

/// Intrinsics the analyzer counts as free.
const FREE_INTRINSICS: &[&str] = &[
    "llvm.lifetime.",
    "llvm.dbg.",
    "llvm.assume",
    "llvm.annotation",
    "llvm.sideeffect",
    "llvm.invariant.",
    "llvm.launder.invariant.group",
    "llvm.strip.invariant.group",
    "llvm.is.constant",
    "llvm.objectsize",
    "llvm.experimental.noalias.scope.decl",
    "llvm.var.annotation",
    "llvm.ptr.annotation",
    "llvm.pseudoprobe",
];

/// Per-site facts the threshold rules read.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiteKnobs {
    /// Base threshold (`-inline-threshold`, 225).
    pub threshold: i64,
    /// The threshold was given explicitly (LLVM's `-inline-threshold` on the command
    /// line): the `optsize` / `minsize` caps do not apply.
    pub threshold_explicit: bool,
    /// The call's block frequency is below 2 % of the caller's entry.
    pub cold_site: bool,
    /// The call's block ends in `unreachable`.
    pub before_unreachable: bool,
    /// The callee is local and this is its only live use.
    pub last_call_to_static: bool,
    /// The caller has a direct call to itself.
    pub caller_recursive: bool,
    /// The call's `function-inline-cost-multiplier`.
    pub cost_mult: i64,
}

/// The analyzer's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Decided by `cost < max(1, threshold)`.
    Cost {
        /// Cost.
        cost: i64,
        /// Threshold.
        threshold: i64,
    },
    /// An uninlinable pattern.
    Never(&'static str),
}

/// The analyzer's state for one call site: LLVM's `CallAnalyzer` and
/// `InlineCostCallAnalyzer` members (simplified values, SROA candidates, the cost, the
/// threshold and its bonuses, the blocks found dead, the instruction counts).
/// The tables one analysis fills, kept between analyses so each call site's analysis
/// reuses their memory instead of allocating its own (one per decision, tens of
/// thousands per module).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Rows the analyses walked since the count was last taken ([`Scratch::take_walked`]).
    walked: u64,
    /// What is known of the callee's arguments and rows: constants
    /// (`SimplifiedValues`), non-null values, SROA candidates (`SROAArgValues`).
    vals: ValueFacts,
    /// Per alloca, the cost saved while SROA stays possible (`SROAArgCosts`).
    sroa_cost: FixedMap<RowIdx, i64>,
    /// The allocas SROA is still possible for.
    sroa_on: FixedSet<RowIdx>,
    /// Addresses loaded from (`LoadAddrSet`).
    load_addrs: FixedSet<V>,
    /// Per callee block: dead (`DeadBlocks`).
    dead: Vec<bool>,
    /// Per callee block: the one successor its folded terminator takes (`KnownSuccessors`).
    known_succ: Vec<Option<BlockIdx>>,
    /// The block walk's blocks seen and worklist, a block's successors and the
    /// dead-block stack (buffers).
    seen: Vec<bool>,
    work: Vec<BlockIdx>,
    succs: Vec<BlockIdx>,
    stack: Vec<BlockIdx>,
}

impl Scratch {
    /// The rows the analyses walked since the last call.
    pub fn take_walked(&mut self) -> u64 {
        std::mem::take(&mut self.walked)
    }
}

/// What one analysis knows of a callee value.
#[derive(Clone, Copy, Debug)]
struct Fact {
    /// The constant it simplified to (`V::None`: none).
    konst: V,
    /// The caller alloca it points into (`RowIdx::NONE`: none).
    sroa: RowIdx,
    /// It is known not to be null.
    nonnull: bool,
    /// A pointer at a constant byte offset from a value of the caller (LLVM's
    /// `ConstantOffsetPtrs`): the caller's value (`V::None`: none) and the offset.
    base: V,
    offset: i64,
}

const NO_FACT: Fact = Fact {
    konst: V::None,
    sroa: RowIdx::NONE,
    nonnull: false,
    base: V::None,
    offset: 0,
};

/// [`Fact`]s of the callee's values (arguments, then instruction rows), a dense table
/// emptied in O(1) for the next analysis by a generation stamp.
#[derive(Clone, Debug, Default)]
struct ValueFacts {
    /// The current analysis' stamp.
    gen: u32,
    /// The callee's argument count (rows start after the arguments).
    nargs: u32,
    /// Per value: the stamp its fact was written under (older facts are void).
    stamp: Vec<u32>,
    fact: Vec<Fact>,
}

impl ValueFacts {
    /// Empties the table for a callee of `nargs` arguments and `rows` rows.
    fn reset(&mut self, nargs: u32, rows: u32) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamp.fill(0);
            self.gen = 1;
        }
        self.nargs = nargs;
        let n = nargs as usize + rows as usize;
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
            self.fact.resize(n, NO_FACT);
        }
    }

    #[inline]
    fn slot(&self, v: V) -> Option<usize> {
        match v {
            V::Arg(p) => Some(p as usize),
            V::Inst(r) => Some(self.nargs as usize + r.idx()),
            _ => None,
        }
    }

    #[inline]
    fn get(&self, v: V) -> Fact {
        match self.slot(v) {
            Some(k) if self.stamp[k] == self.gen => self.fact[k],
            _ => NO_FACT,
        }
    }

    #[inline]
    fn entry(&mut self, v: V) -> &mut Fact {
        let k = self.slot(v).expect("facts are kept for arguments and rows");
        if self.stamp[k] != self.gen {
            self.stamp[k] = self.gen;
            self.fact[k] = NO_FACT;
        }
        &mut self.fact[k]
    }

    fn konst(&self, v: V) -> Option<V> {
        Some(self.get(v).konst).filter(|&k| k != V::None)
    }

    fn sroa(&self, v: V) -> Option<RowIdx> {
        self.get(v).sroa.some()
    }

    /// The caller value and byte offset `v` points at, when known.
    fn base(&self, v: V) -> Option<(V, i64)> {
        let f = self.get(v);
        (f.base != V::None).then_some((f.base, f.offset))
    }

    fn set_base(&mut self, v: V, (base, offset): (V, i64)) {
        let f = self.entry(v);
        f.base = base;
        f.offset = offset;
    }
}

struct St<'a> {
    /// The analysis' tables (taken from and given back to the caller's [`Scratch`]).
    t: Scratch,
    fx: &'a Facts,
    callee: &'a Body,
    callee_fn: FuncIdx,
    /// [`Callee::made`].
    made: &'a MadeExprs,
    /// [`Callee::eph`].
    eph: &'a [RowIdx],
    /// The caller is `returns_twice`.
    caller_returns_twice: bool,
    /// [`SiteKnobs::caller_recursive`].
    caller_recursive: bool,
    /// [`SiteKnobs::threshold_explicit`].
    threshold_explicit: bool,
    /// The other functions, for the analysis of an indirect call resolved to one
    /// (`None`: such calls are priced as direct ones, as in a nested analysis).
    funcs: Option<&'a dyn Functions>,
    cost: i64,
    /// Load elimination is still possible (`EnableLoadElimination`).
    le_on: bool,
    /// The cost saved by load elimination (`LoadEliminationCost`).
    le_cost: i64,
    /// The threshold with both bonuses still in.
    threshold: i64,
    single_bonus: i64,
    vector_bonus: i64,
    /// A return was seen (the first one is free).
    has_ret: bool,
    /// Bytes of static allocas (`AllocatedSize`).
    allocated: u64,
    /// `NumInstructions`.
    n_inst: i64,
    /// `NumVectorInstructions`.
    n_vec: i64,
}

/// The SROA and load-elimination bookkeeping of `St`, and the constants an operand
/// stands for.
impl St<'_> {
    /// Returns the tables to `scratch`, emptied, for the next analysis.
    fn give_back(self, scratch: &mut Scratch) {
        let mut t = self.t;
        t.walked += self.n_inst as u64;
        t.sroa_cost.clear();
        t.sroa_on.clear();
        t.load_addrs.clear();
        *scratch = t;
    }

    /// `disableLoadElimination`: the load-elimination savings become cost.
    fn disable_le(&mut self) {
        if self.le_on {
            self.cost += self.le_cost;
            self.le_on = false;
        }
    }
    /// `disableSROA`: the savings of the alloca behind `v` become cost.
    fn disable(&mut self, v: V) {
        if let Some(b) = self.t.vals.sroa(v) {
            if self.t.sroa_on.remove(&b) {
                self.cost += self.t.sroa_cost.get(&b).copied().unwrap_or(0);
                self.disable_le();
            }
        }
    }
    /// `onAggregateSROAUse` / `accumulateSROACost`: a use SROA would remove, if `v`
    /// points into a live SROA candidate.
    fn sroa_use(&mut self, v: V) -> bool {
        if let Some(b) = self.t.vals.sroa(v) {
            if self.t.sroa_on.contains(&b) {
                *self.t.sroa_cost.entry(b).or_default() += INSTR;
                return true;
            }
        }
        false
    }
    /// The constant `v` stands for, if any.
    fn cval(&self, v: V) -> Option<V> {
        match v {
            V::Int(_) | V::K(_) => Some(v),
            V::Arg(_) | V::Inst(_) => self.t.vals.konst(v),
            _ => None,
        }
    }
    /// `extractvalue` (`ops`: the aggregate, then the indices) folded as the analysis
    /// sees its operands: the element a chain of `insertvalue`s over constants put at
    /// those indices (rows of the callee, or the aggregates folding made), `undef` /
    /// `poison` of such an aggregate, zero of `zeroinitializer`; `None` when the
    /// aggregate is not a constant the analysis can read.
    fn extract_const(&self, ops: &[V]) -> Option<V> {
        let v = extract_element(ops, |v| match v {
            V::Inst(_) if self.cval(v).is_some() => insert_row(self.callee, v),
            V::Inst(_) => Agg::Unknown,
            _ => made_agg(self.made, v),
        })?;
        self.cval(v)
    }

    /// Row `res` simplified to a constant the analysis cannot name: what LLVM's
    /// constant folder builds but does not reduce (a compare of two addresses, a cast
    /// or arithmetic of a constant expression). Free, and a constant to the row's
    /// users, but no integer: a branch on it still costs and keeps both successors.
    /// Each such row stands for its own constant (the row itself), so two of them are
    /// never taken for the same one.
    fn symbolic(&mut self, res: V) {
        self.t.vals.entry(res).konst = res;
    }

    /// The integer constant `v` stands for, if any (null and zero are 0).
    fn ival(&self, v: V) -> Option<i64> {
        match self.cval(v)? {
            V::Int(x) => Some(x),
            V::K(Value::Null | Value::Zero) => Some(0),
            _ => None,
        }
    }
}

/// The ephemeral rows of `b`, sorted (`CodeMetrics::collectEphemeralValues`): its
/// `llvm.assume` calls, and every row without side effects, not a terminator, whose
/// every live use is ephemeral, reached from them through operands; the cost analysis
/// skips them (`analyzeBlock`). Empty, without a table, for a body with no assume.
pub fn ephemeral_rows(fx: &Facts, b: &Body) -> Box<[RowIdx]> {
    let callee_of = |r: RowIdx| {
        let ci = b.call_of(r)?;
        match b.ops(r)[ci.callee_op as usize] {
            V::K(Value::Global(s)) => fx.sym_func[s.idx()],
            _ => None,
        }
    };
    let assumes: Vec<RowIdx> = b
        .live_rows()
        .filter(|&r| callee_of(r).is_some_and(|f| fx.ir.intrinsic[f] == Intrinsic::Assume))
        .collect();
    if assumes.is_empty() {
        return Box::new([]);
    }
    let uses = b.use_table();
    let n = b.num_rows() as usize;
    let (mut eph, mut visited) = (vec![false; n], vec![false; n]);
    let mut work: Vec<RowIdx> = Vec::new();
    // `mayHaveSideEffects`: it may write memory or throw
    let side_effects = |r: RowIdx| {
        let flags = b.flags(r);
        match b.op(r) {
            Opcode::Store
            | Opcode::AtomicRmw
            | Opcode::AtomicCmpXchg
            | Opcode::Fence
            | Opcode::VaArg => true,
            Opcode::Load => flags.is_volatile() || (flags.is_atomic() && !flags.is_unordered()),
            op if op.is_call() => {
                let Some(ci) = b.call_of(r) else { return true };
                let site = fx.ir.attr_sets.get(ci.attrs);
                let callee = callee_of(r).map(|f| fx.fn_attrs(f));
                let has = |a: Attr| site.has(a) || callee.is_some_and(|c| c.has(a));
                !(has(Attr::ReadNone) || has(Attr::ReadOnly)) || !has(Attr::NoUnwind)
            }
            _ => false,
        }
    };
    let append = |r: RowIdx, visited: &mut Vec<bool>, work: &mut Vec<RowIdx>| {
        for &v in b.ops(r) {
            if let V::Inst(o) = v {
                if !std::mem::replace(&mut visited[o.idx()], true)
                    && !side_effects(o)
                    && !b.op(o).is_terminator()
                {
                    work.push(o);
                }
            }
        }
    };
    for &a in &assumes {
        if !std::mem::replace(&mut eph[a.idx()], true) {
            append(a, &mut visited, &mut work);
        }
    }
    let mut k = 0;
    while k < work.len() {
        let v = work[k];
        k += 1;
        if !uses.of(V::Inst(v)).iter().all(|&(u, _)| eph[u.idx()]) {
            continue;
        }
        eph[v.idx()] = true;
        append(v, &mut visited, &mut work);
    }
    (0..n).filter(|&r| eph[r]).map(RowIdx::new).collect()
}

/// The base alloca of a caller value (through bitcasts and all-constant GEPs).
/// `stripAndComputeInBoundsConstantOffsets` on a value of the caller that is not a
/// constant: through `bitcast`s and in-bounds `getelementptr`s with constant indices to
/// the value they offset, and the byte offset; `None` through any other `getelementptr`.
fn constant_offset_base(fx: &Facts, b: &Body, mut v: V) -> Option<(V, i64)> {
    let mut offset = 0i64;
    for _ in 0..64 {
        let V::Inst(i) = v else { break };
        let inst = b.inst(i);
        match inst.op {
            Opcode::BitCast => v = inst.ops[0],
            Opcode::GetElementPtr => {
                if !inst.flags.has(InstFlags::INBOUNDS) {
                    return None;
                }
                offset = offset.wrapping_add(gep_offset(
                    fx,
                    inst.aux_ty,
                    inst.ops[1..].iter().copied(),
                )?);
                v = inst.ops[0];
            }
            _ => break,
        }
    }
    matches!(v, V::Arg(_) | V::Inst(_)).then_some((v, offset))
}

/// `accumulateGEPOffset`: the byte offset of a `getelementptr` over `src` with indices
/// `idx`, when every index is an integer constant.
pub(super) fn gep_offset(
    fx: &Facts,
    src: TypeIdx,
    idx: impl IntoIterator<Item = V>,
) -> Option<i64> {
    let types = &fx.ir.types;
    let mut offset = 0i64;
    let mut cur = src;
    for (k, v) in idx.into_iter().enumerate() {
        let V::Int(x) = v else { return None };
        let step = if k == 0 {
            fx.layouts.size(src) as i64
        } else if types.struct_fields(cur).is_some() {
            let f = usize::try_from(x).ok()?;
            offset = offset.wrapping_add(fx.layouts.field_offset(cur, f)? as i64);
            cur = types.gep_step(cur, Some(x));
            continue;
        } else {
            cur = types.gep_step(cur, Some(x));
            if cur.is_none() {
                return None;
            }
            fx.layouts.size(cur) as i64
        };
        offset = offset.wrapping_add(x.wrapping_mul(step));
    }
    Some(offset)
}

pub fn alloca_base(b: &Body, mut v: V) -> Option<RowIdx> {
    for _ in 0..64 {
        let V::Inst(i) = v else { return None };
        let inst = b.inst(i);
        match inst.op {
            Opcode::Alloca => return Some(i),
            Opcode::BitCast | Opcode::AddrSpaceCast => v = inst.ops[0],
            Opcode::GetElementPtr
                if inst.flags.has(crate::llvm::ir::InstFlags::INBOUNDS)
                    && inst.ops[1..].iter().all(|o| matches!(o, V::Int(_))) =>
            {
                v = inst.ops[0]
            }
            _ => return None,
        }
    }
    None
}

/// `b`, the body of `f`, calls `f` directly (LLVM's `IsCallerRecursive`).
fn calls_itself(fx: &Facts, b: &Body, f: FuncIdx) -> bool {
    b.layout
        .iter()
        .flat_map(|&bb| b.blocks[bb].iter())
        .any(|&i| {
            b.call_of(i).is_some_and(|ci| {
                matches!(b.ops(i)[ci.callee_op as usize],
                V::K(Value::Global(s)) if fx.sym_func[s.idx()] == Some(f))
            })
        })
}

/// `getCallsiteCost`: what the call itself costs (subtracted before the walk).
fn callsite_savings(fx: &Facts, caller: &Body, call: RowIdx, callee_fn: FuncIdx) -> i64 {
    let inst = caller.inst(call);
    let ci = inst.call.unwrap();
    let mut s = 0;
    for k in 0..ci.nargs as usize {
        let mut t = fx.ir.attr_sets.get(caller.params(ci)[k]);
        if !t.has(Attr::ByVal) {
            if let Some(a) = fx.ir.arg(callee_fn, k) {
                t = fx.ir.arg_attrs(a);
            }
        }
        if t.has(Attr::ByVal) {
            let bits = type_size(&fx.ir.types, t.ty) * 8;
            s += 2 * (bits.div_ceil(64).min(8) as i64) * INSTR;
        } else {
            s += INSTR;
        }
    }
    s + INSTR + CALL_PENALTY
}

/// The function a call site would inline: its index, body and predecessor table.
pub struct Callee<'a> {
    /// The callee.
    pub f: FuncIdx,
    /// Its current body.
    pub body: &'a Body,
    /// Its body's predecessor table.
    pub preds: &'a PredTable,
    /// The constant expressions inlining made, which its body may name.
    pub made: &'a MadeExprs,
    /// Its ephemeral rows, sorted ([`ephemeral_rows`]).
    pub eph: &'a [RowIdx],
}

/// The module's other functions, as the analysis of an indirect call it resolved to a
/// function reads them (LLVM's nested `InlineCostCallAnalyzer` in `onLoweredCall`):
/// their current bodies and what the inliner already keeps of them.
pub trait Functions {
    /// The current body of `f`.
    fn body(&self, f: FuncIdx) -> &Body;
    /// `f`'s predecessor table and ephemeral rows, when the inliner has made them.
    fn tables(&self, f: FuncIdx) -> Option<(&PredTable, &[RowIdx])>;
    /// `f`'s block frequencies, when computed for its current body.
    fn freqs(&self, f: FuncIdx) -> Option<&[u64]>;
}

/// The default threshold of an indirect call's nested analysis
/// (`InlineConstants::IndirectCallThreshold`).
const INDIRECT_CALL_THRESHOLD: i64 = 100;

/// A function only reads memory (`onlyReadsMemory`).
fn readonly(a: FnAttrs<'_>) -> bool {
    a.has(Attr::ReadOnly) || a.has(Attr::ReadNone)
}

/// Analyzes inlining `target` at row `call` of `caller`. With `funcs`, an indirect call
/// of `target` whose callee the analysis resolves to a function is analyzed as if
/// inlined too (`BoostIndirectCalls`); without, it is priced as a direct call.
#[allow(clippy::too_many_arguments)]
pub fn analyze(
    fx: &Facts,
    caller: &Body,
    caller_fn: FuncIdx,
    call: RowIdx,
    target: &Callee<'_>,
    k: SiteKnobs,
    scratch: &mut Scratch,
    funcs: Option<&dyn Functions>,
) -> Outcome {
    let caller_attrs = fx.fn_attrs(caller_fn);
    let th = update_threshold(&k, caller_attrs, fx.fn_attrs(target.f));
    let nb = target.body.blocks.len();
    let mut t = std::mem::take(scratch);
    t.vals.reset(target.body.nargs, target.body.num_rows());
    refill(&mut t.dead, nb, false);
    refill(&mut t.known_succ, nb, None);
    refill(&mut t.seen, nb, false);
    t.work.clear();
    t.succs.clear();
    t.stack.clear();
    let mut st = St {
        fx,
        callee: target.body,
        callee_fn: target.f,
        made: target.made,
        eph: target.eph,
        caller_returns_twice: caller_attrs.has(Attr::ReturnsTwice),
        caller_recursive: k.caller_recursive,
        threshold_explicit: k.threshold_explicit,
        funcs,
        t,
        cost: 0,
        le_on: true,
        le_cost: 0,
        threshold: th.threshold,
        single_bonus: th.single_bonus,
        vector_bonus: th.vector_bonus,
        has_ret: false,
        allocated: 0,
        n_inst: 0,
        n_vec: 0,
    };
    st.on_analysis_start(caller, call, th.last_call_to_static);
    st.seed_args(caller, call);
    let out = match st.walk(target.preds) {
        Err(why) => Outcome::Never(why),
        Ok(()) => st.finalize_analysis(k.cost_mult),
    };
    st.give_back(scratch);
    out
}

/// `buf` cleared and filled with `n` copies of `x`, keeping its memory.
fn refill<T: Clone>(buf: &mut Vec<T>, n: usize, x: T) {
    buf.clear();
    buf.resize(n, x);
}

/// A site's threshold as `updateThreshold` leaves it, with the bonuses
/// `onAnalysisStart` adds up front.
struct Threshold {
    /// The threshold with both bonuses added.
    threshold: i64,
    /// The single-block bonus (taken back at the first block with several live
    /// successors).
    single_bonus: i64,
    /// The vector bonus (taken back, in whole or half, by `finalizeAnalysis`).
    vector_bonus: i64,
    /// The last-call-to-static bonus applies.
    last_call_to_static: bool,
}

/// `updateThreshold`: the site's threshold from the knobs and the caller's and
/// callee's attributes, and whether the bonuses apply.
fn update_threshold(
    k: &SiteKnobs,
    caller_attrs: FnAttrs<'_>,
    callee_attrs: FnAttrs<'_>,
) -> Threshold {
    let mut t = k.threshold;
    let mut bonuses = true;
    let mut lcs = k.last_call_to_static;
    if k.before_unreachable {
        t = 0;
        bonuses = false;
        lcs = false;
    } else {
        // LLVM sets the size thresholds only when `-inline-threshold` is not given
        if caller_attrs.has(Attr::MinSize) {
            if !k.threshold_explicit {
                t = t.min(5);
            }
            bonuses = false;
        } else if caller_attrs.has(Attr::OptSize) && !k.threshold_explicit {
            t = t.min(50);
        }
        if !caller_attrs.has(Attr::MinSize) {
            if callee_attrs.has(Attr::InlineHint) {
                t = t.max(325);
            }
            if k.cold_site {
                t = t.min(45);
                bonuses = false;
                lcs = false;
            }
        }
    }
    let (single_bonus, vector_bonus) = if bonuses {
        (t * 50 / 100, t * 150 / 100)
    } else {
        (0, 0)
    };
    Threshold {
        threshold: t + single_bonus + vector_bonus,
        single_bonus,
        vector_bonus,
        last_call_to_static: lcs,
    }
}

/// The phases of `CallAnalyzer::analyze` and its instruction visitor.
impl St<'_> {
    /// `onAnalysisStart`: the last-call-to-static bonus, the call site's own cost
    /// (`getCallsiteCost`, subtracted) and the `coldcc` penalty.
    fn on_analysis_start(&mut self, caller: &Body, call: RowIdx, last_call_to_static: bool) {
        if last_call_to_static {
            self.cost -= 15_000;
        }
        self.cost -= callsite_savings(self.fx, caller, call, self.callee_fn);
        if self.fx.coldcc[self.callee_fn.idx()] {
            self.cost += 2000;
        }
    }

    /// The argument setup of `CallAnalyzer::analyze`: constant arguments simplified,
    /// `nonnull` ones noted, pointers into a caller alloca made SROA candidates.
    fn seed_args(&mut self, caller: &Body, call: RowIdx) {
        let ir = &*self.fx.ir;
        let ci = caller.call_of(call).unwrap();
        for p in 0..(self.callee.nargs.min(ci.nargs)) {
            let a = caller.ops(call)[p as usize];
            let pv = V::Arg(p);
            let call_nonnull = ir
                .attr_sets
                .get(caller.params(ci)[p as usize])
                .has(Attr::NonNull);
            let decl_nonnull = ir
                .arg(self.callee_fn, p as usize)
                .is_some_and(|x| ir.arg_attrs(x).has(Attr::NonNull));
            if call_nonnull || decl_nonnull {
                self.t.vals.entry(pv).nonnull = true;
            }
            if a.is_const() {
                self.t.vals.entry(pv).konst = a;
            }
            if let Some(base) = alloca_base(caller, a) {
                self.t.vals.entry(pv).sroa = base;
                self.t.sroa_on.insert(base);
                self.t.vals.entry(pv).nonnull = true;
            }
            if ir.types.is_pointer(caller.tys(call)[p as usize]) {
                if let Some(b) = constant_offset_base(self.fx, caller, a) {
                    self.t.vals.set_base(pv, b);
                }
            }
        }
    }

    /// The block walk of `CallAnalyzer::analyze`: live blocks breadth-first from the
    /// entry, each analyzed; after a terminator that folds only its known successor is
    /// queued and the blocks it leaves without live predecessors are dead.
    fn walk(&mut self, preds: &PredTable) -> Result<(), &'static str> {
        let callee = self.callee;
        let entry = callee.layout[0];
        self.t.work.push(entry);
        self.t.seen[entry.idx()] = true;
        let mut wi = 0;
        let mut single_bb = true;
        let mut succs = std::mem::take(&mut self.t.succs);
        while wi < self.t.work.len() {
            let bb = self.t.work[wi];
            wi += 1;
            if let Err(why) = self.analyze_block(bb) {
                self.t.succs = succs;
                return Err(why);
            }
            let Some(tr) = callee.term(bb) else { continue };
            let nxt = self.known_successor(tr);
            succs.clear();
            succs.extend(callee.succ_iter(bb));
            if let Some(n) = nxt {
                self.t.known_succ[bb.idx()] = Some(n);
                if !self.t.seen[n.idx()] {
                    self.t.seen[n.idx()] = true;
                    self.t.work.push(n);
                }
                self.find_dead_blocks(preds, &succs, n);
                continue;
            }
            for &x in &succs {
                if !self.t.seen[x.idx()] {
                    self.t.seen[x.idx()] = true;
                    self.t.work.push(x);
                }
            }
            if succs.len() > 1 && single_bb {
                single_bb = false;
                self.threshold -= self.single_bonus;
            }
        }
        self.t.succs = succs;
        Ok(())
    }

    /// The terminator simplification of `CallAnalyzer::analyze`: the one successor a
    /// conditional branch or a switch on a known constant takes.
    fn known_successor(&self, tr: RowIdx) -> Option<BlockIdx> {
        let tinst = self.callee.inst(tr);
        if tinst.op == Opcode::Br && tinst.ops.len() == 3 {
            if let Some(v) = self.ival(tinst.ops[0]) {
                if let V::Block(b) = tinst.ops[if v & 1 != 0 { 1 } else { 2 }] {
                    return Some(b);
                }
            }
        } else if tinst.op == Opcode::Switch {
            if let Some(v) = self.ival(tinst.ops[0]) {
                let bits = self.fx.ir.types.int_bits(tinst.tys[0]).unwrap_or(64);
                let mut d = tinst.ops[1];
                for k in (2..tinst.ops.len()).step_by(2) {
                    if let V::Int(x) = tinst.ops[k] {
                        if zext(x, bits) == zext(v, bits) {
                            d = tinst.ops[k + 1];
                            break;
                        }
                    }
                }
                if let V::Block(b) = d {
                    return Some(b);
                }
            }
        }
        None
    }

    /// `findDeadBlocks`: the successors other than `known` whose incoming edges are all
    /// dead become dead, and so on down the graph.
    fn find_dead_blocks(&mut self, preds: &PredTable, succs: &[BlockIdx], known: BlockIdx) {
        let callee = self.callee;
        let (pred_start, pred_list) = preds;
        let preds = |x: BlockIdx| {
            &pred_list[pred_start[x.idx()] as usize..pred_start[x.idx() + 1] as usize]
        };
        let (dead, known_succ) = (&mut self.t.dead, &self.t.known_succ);
        let edge_dead = |p: BlockIdx, s: BlockIdx, dead: &[bool]| {
            dead[p.idx()] || known_succ[p.idx()].is_some_and(|x| x != s)
        };
        let mut stack = std::mem::take(&mut self.t.stack);
        stack.clear();
        stack.extend(succs.iter().copied().filter(|&x| {
            x != known && !dead[x.idx()] && preds(x).iter().all(|&p| edge_dead(p, x, dead))
        }));
        while let Some(d) = stack.pop() {
            if dead[d.idx()] {
                continue;
            }
            dead[d.idx()] = true;
            for x in callee.succ_iter(d) {
                if !dead[x.idx()] && preds(x).iter().all(|&p| edge_dead(p, x, dead)) {
                    stack.push(x);
                }
            }
        }
        self.t.stack = stack;
    }

    /// `analyzeBlock`: each instruction of block `bb` counted, visited and its cost
    /// added (debug intrinsics are neither counted nor visited).
    fn analyze_block(&mut self, bb: BlockIdx) -> Result<(), &'static str> {
        let (fx, callee) = (self.fx, self.callee);
        let types = &fx.ir.types;
        for &r in &callee.blocks[bb] {
            let inst = callee.inst(r);
            if self.is_debug_intrinsic(inst) {
                continue;
            }
            if !self.eph.is_empty() && self.eph.binary_search(&r).is_ok() {
                continue;
            }
            self.n_inst += 1;
            if matches!(types.kind(inst.ty), TypeKind::Vector { .. })
                || inst.op == Opcode::ExtractElement
            {
                self.n_vec += 1;
            }
            let c = self.visit(bb, r, inst)?;
            self.cost += c;
        }
        Ok(())
    }

    /// A call of a debug or pseudo-probe intrinsic (`isa<DbgInfoIntrinsic>` and
    /// `PseudoProbeInst`, skipped by `analyzeBlock`).
    fn is_debug_intrinsic(&self, inst: Inst<'_>) -> bool {
        let Some(ci) = inst.call else { return false };
        let V::K(Value::Global(s)) = inst.ops[ci.callee_op as usize] else {
            return false;
        };
        let Some(f) = self.fx.sym_func[s.idx()] else {
            return false;
        };
        let intr = self.fx.ir.intrinsic[f];
        intr == Intrinsic::Debug || intr == Intrinsic::PseudoProbe
    }

    /// The `InstVisitor` dispatch: the cost of instruction `r` of block `bb` (0 when it
    /// simplifies or SROA removes it), or why the callee can never be inlined.
    fn visit(&mut self, bb: BlockIdx, r: RowIdx, inst: Inst<'_>) -> Result<i64, &'static str> {
        let res = V::Inst(r);
        let ops = inst.ops;
        let c = match inst.op {
            Opcode::Call | Opcode::Invoke | Opcode::CallBr => self.visit_call_base(bb, r, inst)?,
            Opcode::Ret => {
                let c = if self.has_ret { INSTR } else { 0 };
                self.has_ret = true;
                c
            }
            Opcode::Br if ops.len() == 3 && self.ival(ops[0]).is_none() => INSTR,
            Opcode::Br | Opcode::Unreachable => 0,
            Opcode::Switch if self.ival(ops[0]).is_none() => INSTR + switch_cost(ops),
            Opcode::Switch => 0,
            Opcode::Phi => {
                self.visit_phi(bb, res, ops);
                0
            }
            Opcode::BitCast | Opcode::PtrToInt | Opcode::IntToPtr | Opcode::AddrSpaceCast => {
                self.visit_ptr_cast(res, inst)
            }
            Opcode::Freeze => 0,
            // `visitExtractValue`: of a constant aggregate it folds to the element
            Opcode::ExtractValue => {
                if let Some(c) = self.extract_const(ops) {
                    self.t.vals.entry(res).konst = c;
                }
                0
            }
            // `visitInsertValue`: over constants it folds (to a constant aggregate whose
            // elements are not tracked)
            Opcode::InsertValue if ops.iter().all(|&o| self.cval(o).is_some()) => {
                self.t.vals.entry(res).konst = V::K(Value::Other);
                0
            }
            Opcode::GetElementPtr => self.visit_get_element_ptr(r, inst),
            Opcode::Trunc
            | Opcode::ZExt
            | Opcode::SExt
            | Opcode::FpTrunc
            | Opcode::FpExt
            | Opcode::SiToFp
            | Opcode::UiToFp
            | Opcode::FpToSi
            | Opcode::FpToUi => self.visit_cast_inst(res, inst),
            Opcode::ICmp => self.visit_icmp(res, inst),
            // `visitCmpInst` on two constants: `ConstantExpr::getCompare`, evaluated on
            // `float` / `double` values (others are not tracked: a symbolic constant)
            Opcode::FCmp if self.cval(ops[0]).is_some() && self.cval(ops[1]).is_some() => {
                match (self.cval(ops[0]), self.cval(ops[1])) {
                    (Some(V::K(Value::Float(a))), Some(V::K(Value::Float(b)))) => {
                        let ir = &self.fx.ir;
                        let x = fcmp(inst.aux as u8, ir.float(a), ir.float(b));
                        self.t.vals.entry(res).konst = bool_v(x);
                    }
                    _ => self.symbolic(res),
                }
                0
            }
            Opcode::FCmp => {
                self.disable(ops[0]);
                INSTR
            }
            op if op.is_int_binary() => self.visit_binary_operator(res, inst),
            // `visitBinaryOperator` / `visitUnaryInstruction` on floating point: on
            // constants they fold (to a constant whose value is not tracked)
            Opcode::FAdd
            | Opcode::FSub
            | Opcode::FMul
            | Opcode::FDiv
            | Opcode::FRem
            | Opcode::FNeg
                if ops.iter().all(|&o| self.cval(o).is_some()) =>
            {
                self.t.vals.entry(res).konst = V::K(Value::Other);
                0
            }
            // `SimplifyBinOp` with the operands' constants: an identity is free
            Opcode::FAdd | Opcode::FSub | Opcode::FMul | Opcode::FDiv
                if {
                    let k = |v: V| self.cval(v).unwrap_or(v);
                    let ir = &self.fx.ir;
                    let pair = (k(ops[0]), k(ops[1]));
                    fp_identity(self.callee, inst.op, pair, |v| float_value(ir, v)).is_some()
                } =>
            {
                0
            }
            Opcode::FAdd
            | Opcode::FSub
            | Opcode::FMul
            | Opcode::FDiv
            | Opcode::FRem
            | Opcode::FNeg => self.visit_instruction(ops),
            Opcode::Select => self.visit_select_inst(res, ops),
            Opcode::Load => self.visit_load(inst),
            Opcode::Store => self.visit_store(inst),
            Opcode::Alloca => self.visit_alloca(inst)?,
            Opcode::IndirectBr => return Err("indirect branch"),
            _ => self.visit_instruction(ops),
        };
        Ok(c)
    }

    /// `visitCallBase`: the uninlinable patterns, then the cost of an intrinsic or of a
    /// call; a call's arguments lose SROA, a call that may write loses load elimination.
    fn visit_call_base(
        &mut self,
        bb: BlockIdx,
        r: RowIdx,
        inst: Inst<'_>,
    ) -> Result<i64, &'static str> {
        let res = V::Inst(r);
        let fx = self.fx;
        let ir = &*fx.ir;
        let ops = inst.ops;
        let ci = inst.call.unwrap();
        let nargs = ci.nargs as usize;
        let callee_v = ops[ci.callee_op as usize];
        let target = match callee_v {
            V::K(Value::Global(s)) => fx.sym_func[s.idx()],
            _ => None,
        };
        // an indirect call whose callee the analysis knows: a function of the call's
        // type (`SimplifiedValues.lookup(Callee)`)
        let resolved = match (target, self.cval(callee_v)) {
            (None, Some(V::K(Value::Global(s)))) => fx.sym_func[s.idx()].filter(|&g| {
                ir.func(g).fn_ty == inst.aux_ty && !fx.names[g.idx()].starts_with("llvm.")
            }),
            _ => None,
        };
        let site_attrs = ir.attr_sets.get(ci.attrs);
        let intr_name = target.map(|f| fx.names[f.idx()].as_str());
        let is_intr =
            ci.synthetic != Intrinsic::None || intr_name.is_some_and(|n| n.starts_with("llvm."));
        if target == Some(self.callee_fn) {
            return Err("recursive");
        }
        let rt = site_attrs.has(Attr::ReturnsTwice)
            || target.is_some_and(|f| fx.fn_attrs(f).has(Attr::ReturnsTwice));
        if rt && !self.caller_returns_twice {
            return Err("exposes returns twice");
        }
        if site_attrs.has(Attr::NoDuplicate)
            || target.is_some_and(|f| fx.fn_attrs(f).has(Attr::NoDuplicate))
        {
            return Err("noduplicate");
        }
        if let Some(g) = resolved {
            return self.visit_resolved_call(bb, r, inst, g);
        }
        let ro = site_attrs.has(Attr::ReadOnly)
            || site_attrs.has(Attr::ReadNone)
            || target.is_some_and(|f| readonly(fx.fn_attrs(f)));
        // `simplifyCallSite`: an intrinsic whose arguments are all constants folds
        if let (Some(name), Some(bits)) = (intr_name, ir.types.int_bits(inst.ty)) {
            if let Some(c) = fold_intrinsic_call(name, &ops[..nargs], bits, |a| self.ival(a)) {
                self.t.vals.entry(res).konst = c;
                return Ok(0);
            }
        }
        // ... and so does a floating-point one LLVM 14's `ConstantFoldCall` evaluates,
        // to a constant whose value is not tracked
        let fp_const = |a: &V| matches!(self.cval(*a), Some(V::K(Value::Float(_))));
        if intr_name.is_some_and(folds_on_fp_constants)
            && nargs > 0
            && ops[..nargs].iter().all(fp_const)
        {
            self.t.vals.entry(res).konst = V::K(Value::Other);
            return Ok(0);
        }
        if is_intr {
            return self.visit_intrinsic(ci, intr_name, &ops[..nargs], ro);
        }
        let c = match target {
            None => INSTR * nargs as i64 + INSTR,
            Some(f) if NOT_LOWERED.contains(&fx.names[f.idx()].as_str()) => INSTR,
            Some(_) => INSTR * nargs as i64 + CALL_PENALTY + INSTR,
        };
        if !ro {
            self.disable_le();
        }
        for &a in &ops[..nargs] {
            self.disable(a);
        }
        Ok(c)
    }

    /// `visitCallBase` of an indirect call at row `r` of block `bb` whose callee the
    /// analysis resolved to `g`: recursion ends the analysis; a call lowered to a real
    /// call pays its arguments and, instead of the call penalty, takes the bonus of `g`
    /// analyzed at this site with the indirect-call threshold (`onLoweredCall`).
    fn visit_resolved_call(
        &mut self,
        bb: BlockIdx,
        r: RowIdx,
        inst: Inst<'_>,
        g: FuncIdx,
    ) -> Result<i64, &'static str> {
        let fx = self.fx;
        let ir = &*fx.ir;
        let ci = inst.call.unwrap();
        let nargs = ci.nargs as usize;
        if g == self.callee_fn {
            return Err("recursive");
        }
        let site = ir.attr_sets.get(ci.attrs);
        let ro = site.has(Attr::ReadOnly) || site.has(Attr::ReadNone) || readonly(fx.fn_attrs(g));
        let c = if NOT_LOWERED.contains(&fx.names[g.idx()].as_str()) {
            INSTR
        } else {
            let lowered = INSTR * nargs as i64 + INSTR;
            match self.funcs {
                Some(funcs) => lowered - self.indirect_call_bonus(funcs, bb, r, g),
                None => lowered + CALL_PENALTY,
            }
        };
        if !ro {
            self.disable_le();
        }
        for &a in &inst.ops[..nargs] {
            self.disable(a);
        }
        Ok(c)
    }

    /// The bonus of `onLoweredCall` for the indirect call at row `r` of block `bb`
    /// resolved to `g`: `g` analyzed as if inlined at that call (the function analyzed
    /// here its caller), with the indirect-call threshold and no boost of its own
    /// indirect calls; when that analysis succeeds, its threshold less its cost (at
    /// least 0), else nothing. A declaration succeeds at once, with every bonus still
    /// in its threshold.
    fn indirect_call_bonus(
        &mut self,
        funcs: &dyn Functions,
        bb: BlockIdx,
        r: RowIdx,
        g: FuncIdx,
    ) -> i64 {
        let fx = self.fx;
        let caller = self.callee;
        let own_freqs;
        let freqs = match funcs.freqs(self.callee_fn) {
            Some(f) => f,
            None => {
                own_freqs = super::freq::int_freqs(fx, caller);
                &own_freqs[..]
            }
        };
        let knobs = SiteKnobs {
            threshold: INDIRECT_CALL_THRESHOLD,
            threshold_explicit: self.threshold_explicit,
            cold_site: super::freq::is_cold_site(freqs, caller, bb),
            before_unreachable: ends_in_unreachable(caller, r, bb),
            last_call_to_static: false,
            caller_recursive: calls_itself(fx, caller, self.callee_fn),
            cost_mult: 1,
        };
        let body = funcs.body(g);
        let (threshold, cost) = if body.layout.is_empty() {
            // `if (F.empty()) return true;` right after `onAnalysisStart`
            let th = update_threshold(&knobs, fx.fn_attrs(self.callee_fn), fx.fn_attrs(g));
            let mut cost = -callsite_savings(fx, caller, r, g);
            if fx.coldcc[g.idx()] {
                cost += 2000;
            }
            (th.threshold, cost)
        } else {
            let made;
            let (preds, eph) = match funcs.tables(g) {
                Some(t) => t,
                None => {
                    made = (body.pred_table(), ephemeral_rows(fx, body));
                    (&made.0, &made.1[..])
                }
            };
            let target = Callee {
                f: g,
                body,
                preds,
                made: self.made,
                eph,
            };
            let mut scratch = Scratch::default();
            let out = analyze(
                fx,
                caller,
                self.callee_fn,
                r,
                &target,
                knobs,
                &mut scratch,
                None,
            );
            self.t.walked += scratch.take_walked();
            match out {
                Outcome::Cost { cost, threshold } if cost < threshold.max(1) => (threshold, cost),
                _ => return 0,
            }
        };
        (threshold - cost).max(0)
    }

    /// The intrinsic switch of `visitCallBase`: memory intrinsics, free intrinsics, the
    /// ones that forbid inlining, `llvm.load.relative`, and any other as a plain
    /// instruction.
    fn visit_intrinsic(
        &mut self,
        ci: &CallInfo,
        intr_name: Option<&str>,
        args: &[V],
        ro: bool,
    ) -> Result<i64, &'static str> {
        let name = intr_name.unwrap_or(match ci.synthetic {
            Intrinsic::Lifetime => "llvm.lifetime.start",
            Intrinsic::NoAliasScopeDecl => "llvm.experimental.noalias.scope.decl",
            _ => "llvm.memcpy",
        });
        if ci.synthetic.is_mem_intrinsic()
            || name.starts_with("llvm.memcpy")
            || name.starts_with("llvm.memset")
            || name.starts_with("llvm.memmove")
        {
            self.disable_le();
            Ok(INSTR)
        } else if FREE_INTRINSICS.iter().any(|p| name.starts_with(p)) {
            Ok(0)
        } else if name == "llvm.va_start" {
            Err("varargs")
        } else if name == "llvm.localescape" {
            Err("disallowed inlining of @llvm.localescape")
        } else if name.starts_with("llvm.icall.branch.funnel") {
            Err("disallowed inlining of @llvm.icall.branch.funnel")
        } else if name.starts_with("llvm.load.relative") {
            Ok(4 * INSTR)
        } else {
            for &a in args {
                self.disable(a);
            }
            if !ro {
                self.disable_le();
            }
            Ok(INSTR)
        }
    }

    /// `visitPHI`: a phi whose incoming values over live edges are all the same
    /// constant is that constant (it is free either way).
    fn visit_phi(&mut self, bb: BlockIdx, res: V, ops: &[V]) {
        let mut cv: Option<V> = None;
        // or one pointer at a constant offset from one base (`ConstantOffsetPtrs`)
        let mut first_base: Option<((V, i64), V)> = None;
        for k in (0..ops.len()).step_by(2) {
            let V::Block(pb) = ops[k + 1] else { continue };
            if self.t.dead[pb.idx()] || self.t.known_succ[pb.idx()].is_some_and(|s| s != bb) {
                continue;
            }
            if ops[k] == res {
                continue;
            }
            match (self.cval(ops[k]), self.t.vals.base(ops[k])) {
                (None, None) => return,
                (Some(x), _) => {
                    if first_base.is_some() || cv.is_some_and(|y| !same_const(y, x)) {
                        return;
                    }
                    cv = Some(x);
                }
                (None, Some(b)) => {
                    if cv.is_some() || first_base.is_some_and(|(f, _)| f != b) {
                        return;
                    }
                    first_base.get_or_insert((b, ops[k]));
                }
            }
        }
        if let Some(x) = cv {
            self.t.vals.entry(res).konst = x;
        } else if let Some((b, v)) = first_base {
            self.t.vals.set_base(res, b);
            if let Some(s) = self.t.vals.sroa(v) {
                self.t.vals.entry(res).sroa = s;
            }
        }
    }

    /// `visitBitCast`, `visitPtrToInt`, `visitIntToPtr` and address-space casts:
    /// constants and SROA candidates pass through; only a `ptrtoint` to a narrower
    /// integer costs.
    fn visit_ptr_cast(&mut self, res: V, inst: Inst<'_>) -> i64 {
        let sv = inst.ops[0];
        let x = self.cval(sv);
        if let Some(x) = x {
            let to_bits = || self.fx.ir.types.int_bits(inst.ty).unwrap_or(64);
            let x = match (inst.op, x) {
                (Opcode::PtrToInt, V::K(Value::Null)) => V::Int(0),
                (Opcode::IntToPtr, V::Int(0)) => V::K(Value::Null),
                (Opcode::PtrToInt, _) => {
                    int_of_inttoptr(self.fx, self.made, x, to_bits(), false).map_or(x, V::Int)
                }
                _ => x,
            };
            self.t.vals.entry(res).konst = x;
        } else if let Some(b) = self.t.vals.sroa(sv) {
            self.t.vals.entry(res).sroa = b;
        }
        if x.is_none() {
            // base and offset carried through a bitcast, and through integers as wide as
            // a pointer
            let bits = self.fx.ir.types.int_bits(match inst.op {
                Opcode::IntToPtr => inst.tys[0],
                _ => inst.ty,
            });
            let keeps = match inst.op {
                Opcode::BitCast => true,
                Opcode::PtrToInt => bits == Some(64),
                Opcode::IntToPtr => bits.is_some_and(|b| b <= 64),
                _ => false,
            };
            if let Some(b) = self.t.vals.base(sv).filter(|_| keeps) {
                self.t.vals.set_base(res, b);
            }
        }
        let mut c = 0;
        if inst.op != Opcode::BitCast && x.is_none() {
            let types = &self.fx.ir.types;
            c = if inst.op == Opcode::PtrToInt && types.int_bits(inst.ty) != Some(64) {
                INSTR
            } else {
                0
            };
        }
        if self.t.vals.get(sv).nonnull && inst.op == Opcode::BitCast {
            self.t.vals.entry(res).nonnull = true;
        }
        c
    }

    /// `visitGetElementPtr`: constant indices keep a constant base or an SROA
    /// candidate; variable ones disable SROA and cost unless the addressing mode is
    /// free.
    fn visit_get_element_ptr(&mut self, r: RowIdx, inst: Inst<'_>) -> i64 {
        let res = V::Inst(r);
        let base = inst.ops[0];
        let alli = inst.ops[1..].iter().all(|&o| self.ival(o).is_some());
        let allc = alli || inst.ops[1..].iter().all(|&o| self.cval(o).is_some());
        let bc = self.cval(base);
        if alli && bc.is_some_and(nonnull_const) {
            self.t.vals.entry(res).konst = bc.unwrap();
        } else if allc && bc.is_some() {
            // every operand a constant: `ConstantExpr::getGetElementPtr`
            self.symbolic(res);
        } else if allc {
            if let Some(b) = self.t.vals.sroa(base) {
                self.t.vals.entry(res).sroa = b;
            }
            // `canFoldInboundsGEP`: an in-bounds step from a known base and offset
            let fx = self.fx;
            let stepped = self
                .t
                .vals
                .base(base)
                .filter(|_| inst.flags.has(InstFlags::INBOUNDS))
                .and_then(|(b, o)| {
                    let idx = inst.ops[1..]
                        .iter()
                        .map(|&v| self.ival(v).map_or(v, V::Int));
                    Some((b, o.wrapping_add(gep_offset(fx, inst.aux_ty, idx)?)))
                });
            if let Some(b) = stepped {
                self.t.vals.set_base(res, b);
            }
        } else {
            self.disable(base);
            return if gep_free(self.fx, self.callee, r, self) {
                0
            } else {
                INSTR
            };
        }
        0
    }

    /// `visitCastInst`: integer and floating-point conversions folded on constants,
    /// else free when x86-64 gives them for nothing.
    fn visit_cast_inst(&mut self, res: V, inst: Inst<'_>) -> i64 {
        let types = &self.fx.ir.types;
        let sv = inst.ops[0];
        if matches!(
            inst.op,
            Opcode::SiToFp
                | Opcode::UiToFp
                | Opcode::FpToSi
                | Opcode::FpToUi
                | Opcode::FpExt
                | Opcode::FpTrunc
        ) && self.cval(sv).is_some()
        {
            // a conversion of a constant folds (its value is not tracked)
            self.t.vals.entry(res).konst = V::K(Value::Other);
            return 0;
        }
        let (sb, db) = (types.int_bits(inst.tys[0]), types.int_bits(inst.ty));
        let v = self.ival(sv);
        if let (Some(v), Some(sb), Some(db)) = (v, sb, db) {
            let r = match inst.op {
                Opcode::SExt => sext(sext(v, sb), db),
                Opcode::ZExt => sext(zext(v, sb) as i64, db),
                _ => sext(v, db),
            };
            self.t.vals.entry(res).konst = V::Int(r);
            return 0;
        }
        if self.cval(sv).is_some() {
            // `ConstantExpr::getCast` of a constant the analysis cannot name
            self.symbolic(res);
            return 0;
        }
        self.disable(sv);
        let from_load = matches!(sv, V::Inst(j) if self.callee.op(j) == Opcode::Load);
        let free = match (inst.op, sb, db) {
            (Opcode::Trunc, ..) => true,
            (Opcode::ZExt | Opcode::SExt, Some(s), Some(d)) => {
                ext_free(inst.op == Opcode::SExt, s, d, from_load)
            }
            _ => false,
        };
        if free {
            0
        } else {
            INSTR
        }
    }

    /// `visitCmpInst` for `icmp`: folded on constants, a non-null pointer compared with
    /// null, or an SROA candidate compared with null (free).
    fn visit_icmp(&mut self, res: V, inst: Inst<'_>) -> i64 {
        let p = Predicate(inst.aux as u8);
        let (a, b2) = (inst.ops[0], inst.ops[1]);
        let bits = self.fx.ir.types.int_bits(inst.tys[0]).unwrap_or(64);
        let (va, vb) = (self.ival(a), self.ival(b2));
        let is_null = |v: V| matches!(v, V::K(Value::Null) | V::K(Value::Zero));
        let same_base = match (self.t.vals.base(a), self.t.vals.base(b2)) {
            (Some((x, ox)), Some((y, oy))) if x == y => Some((ox, oy)),
            _ => None,
        };
        if let (Some(x), Some(y)) = (va, vb) {
            self.t.vals.entry(res).konst = bool_v(icmp(p, x, y, bits));
        } else if let Some((ox, oy)) = same_base {
            // pointers at constant offsets from one base compare as their offsets
            self.t.vals.entry(res).konst = bool_v(icmp(p, ox, oy, 64));
        } else if (p.0 == 32 || p.0 == 33)
            && is_null(b2)
            && (self.cval(a).is_some_and(nonnull_const)
                || self.t.vals.get(a).nonnull
                || self.t.vals.sroa(a).is_some())
        {
            self.t.vals.entry(res).konst = bool_v(p.0 == 33);
        } else if is_null(b2) && self.sroa_use(a) {
            return 0;
        } else if let (Some(x), Some(y)) = (self.cval(a), self.cval(b2)) {
            // `ConstantExpr::getCompare`: the same constant twice compares as equal
            // values do; other constants give an expression
            if x == y && x != V::K(Value::Other) {
                self.t.vals.entry(res).konst = bool_v(icmp(p, 0, 0, bits));
            } else {
                self.symbolic(res);
            }
        } else {
            self.disable(a);
            return INSTR;
        }
        0
    }

    /// `visitBinaryOperator` for integers: folded on constants, `x & 0`, `x * 0`,
    /// `x | true` (i1) and identities free, else SROA disabled on both operands.
    fn visit_binary_operator(&mut self, res: V, inst: Inst<'_>) -> i64 {
        let (a, b2) = (inst.ops[0], inst.ops[1]);
        let (va, vb) = (self.ival(a), self.ival(b2));
        let bits = self.fx.ir.types.int_bits(inst.ty).unwrap_or(64);
        let op = inst.op;
        // `visitSub`: the difference of two pointers at constant offsets from one base
        if let (Opcode::Sub, Some((x, ox)), Some((y, oy))) =
            (op, self.t.vals.base(a), self.t.vals.base(b2))
        {
            if x == y {
                self.t.vals.entry(res).konst = V::Int(sext(ox.wrapping_sub(oy), bits));
                return 0;
            }
        }
        // `SimplifyBinOp` on the operands (their constants where known): constant
        // folding, identities (`x + 0`), and the rules that look through the callee's own
        // definitions. Some(Some(c)): a constant; Some(None): an existing value
        let (x, y) = (va.map_or(a, V::Int), vb.map_or(b2, V::Int));
        let r = match binop_value(
            self.callee,
            op,
            (x, y),
            bits,
            InstFlags::default(),
            RECURSION_LIMIT,
        ) {
            Some(V::Int(c)) => Some(Some(c)),
            Some(_) => Some(None),
            None => None,
        };
        match r {
            Some(Some(x)) => {
                self.t.vals.entry(res).konst = V::Int(x);
                0
            }
            Some(None) => 0,
            // `ConstantFoldBinaryOpOperands` builds an expression of two constants, unless
            // it keeps only an address's low bits constant folding knows
            None if self.cval(a).is_some() && self.cval(b2).is_some() => {
                let pair = (self.cval(a).unwrap(), self.cval(b2).unwrap());
                match masked_address(self.fx, self.made, pair, bits).filter(|_| op == Opcode::And) {
                    Some(c) => self.t.vals.entry(res).konst = V::Int(c),
                    None => self.symbolic(res),
                }
                0
            }
            None => {
                self.disable(a);
                self.disable(b2);
                INSTR
            }
        }
    }

    /// `visitSelectInst`: free on a condition the analysis simplified to true or false
    /// (the select is then the chosen arm when that arm is a constant itself, else a
    /// pointer at the arm's base and offset), between equal constants, or between
    /// pointers at one base and offset; any other select costs one instruction and
    /// disables SROA on its operands, as `visitInstruction` does. The condition is
    /// looked up among the simplified values only: a literal constant condition is not.
    fn visit_select_inst(&mut self, res: V, ops: &[V]) -> i64 {
        let (c, tv, fv) = (ops[0], ops[1], ops[2]);
        let (tc, fc) = (self.cval(tv), self.cval(fv));
        let cond = match c {
            V::Arg(_) | V::Inst(_) => self.t.vals.konst(c),
            _ => None,
        };
        let Some(cond) = cond else {
            if let Some(t) = tc.filter(|&t| fc.is_some_and(|f| same_const(t, f))) {
                self.t.vals.entry(res).konst = t;
                return 0;
            }
            return match self
                .t
                .vals
                .base(tv)
                .filter(|&b| self.t.vals.base(fv) == Some(b))
            {
                Some(b) => {
                    self.same_pointer(res, tv, b);
                    0
                }
                None => self.visit_instruction(ops),
            };
        };
        let chosen = match cond {
            V::Int(x) => Some(if x & 1 != 0 { tv } else { fv }),
            V::K(Value::Null | Value::Zero) => Some(fv),
            _ => None,
        };
        let Some(chosen) = chosen else {
            // neither true nor false: `ConstantExpr::getSelect` over constant arms
            if tc.is_some() && fc.is_some() {
                self.symbolic(res);
                return 0;
            }
            return self.visit_instruction(ops);
        };
        if chosen.is_const() {
            self.t.vals.entry(res).konst = chosen;
        } else if let Some(b) = self.t.vals.base(chosen) {
            self.same_pointer(res, chosen, b);
        }
        0
    }

    /// `res` is pointer `v`, at `v`'s base and offset `b`: its SROA candidate too.
    fn same_pointer(&mut self, res: V, v: V, b: (V, i64)) {
        self.t.vals.set_base(res, b);
        if let Some(s) = self.t.vals.sroa(v) {
            self.t.vals.entry(res).sroa = s;
        }
    }

    /// `visitLoad`: free through an SROA candidate, or as a repeated load while load
    /// elimination is possible (then counted as its savings).
    fn visit_load(&mut self, inst: Inst<'_>) -> i64 {
        let ptr = inst.ops[0];
        if self.sroa_access(inst, ptr) {
            return 0;
        }
        // LLVM records every address while load elimination is on, but only an
        // unordered load (not volatile, at most `unordered`) can be the redundant one
        if self.le_on && !self.t.load_addrs.insert(ptr) && inst.flags.is_unordered() {
            self.le_cost += INSTR;
            0
        } else {
            INSTR
        }
    }

    /// `visitStore`: free through an SROA candidate; any other store ends load
    /// elimination.
    fn visit_store(&mut self, inst: Inst<'_>) -> i64 {
        let ptr = inst.ops[1];
        if self.sroa_access(inst, ptr) {
            return 0;
        }
        self.disable_le();
        INSTR
    }

    /// `handleSROA(ptr, I.isSimple())` of a load or store: a simple access through an
    /// SROA candidate is free (true); a volatile or atomic one disables SROA for it.
    fn sroa_access(&mut self, inst: Inst<'_>, ptr: V) -> bool {
        let simple = !inst.flags.is_volatile() && !inst.flags.is_atomic();
        if simple && self.sroa_use(ptr) {
            return true;
        }
        if !simple {
            self.disable(ptr);
        }
        false
    }

    /// `visitAlloca`: a dynamic alloca, or a recursive caller's stack over 1 KiB, forbids
    /// inlining; static sizes are added up.
    fn visit_alloca(&mut self, inst: Inst<'_>) -> Result<i64, &'static str> {
        let types = &self.fx.ir.types;
        match inst.ops.first() {
            Some(&n) if self.ival(n).is_none() => {
                return Err("dynamic alloca");
            }
            Some(&n) => {
                self.allocated +=
                    type_size(types, inst.aux_ty) * self.ival(n).unwrap_or(1).max(0) as u64;
            }
            None => self.allocated += type_size(types, inst.aux_ty),
        }
        if self.caller_recursive && self.allocated > 1024 {
            return Err("recursive and allocates too much stack space");
        }
        Ok(INSTR)
    }

    /// `visitInstruction`, and the floating-point operators: SROA disabled on every
    /// operand, one instruction's cost.
    fn visit_instruction(&mut self, ops: &[V]) -> i64 {
        for &a in ops.iter() {
            self.disable(a);
        }
        INSTR
    }

    /// `finalizeAnalysis`: the unused part of the vector bonus taken back from the
    /// threshold and the cost multiplier applied.
    fn finalize_analysis(&self, cost_mult: i64) -> Outcome {
        // a minsize caller's loop penalty is not modelled (no minsize callers in C at -O0)
        let mut threshold = self.threshold;
        if self.n_vec <= self.n_inst / 10 {
            threshold -= self.vector_bonus;
        } else if self.n_vec <= self.n_inst / 2 {
            threshold -= self.vector_bonus / 2;
        }
        let mut cost = self.cost;
        if cost_mult > 1 {
            cost = cost.saturating_mul(cost_mult);
        }
        Outcome::Cost { cost, threshold }
    }
}

/// `visitSwitchInst` on an unknown condition: the cost of the case clusters, a jump
/// table or a bit test as x86-64 lowers them (without the instruction itself).
fn switch_cost(ops: &[V]) -> i64 {
    let mut vals = Vec::new();
    let mut dests = FixedSet::default();
    for k in (2..ops.len()).step_by(2) {
        if let V::Int(x) = ops[k] {
            vals.push(x as i128);
        }
        dests.insert(ops[k + 1]);
    }
    let n = vals.len() as i128;
    let mut clusters = n;
    let mut jt: i128 = 0;
    if n >= 1 {
        let rng = vals.iter().max().unwrap() - vals.iter().min().unwrap() + 1;
        let nd = dests.len();
        let bt = rng <= 64 && ((nd == 1 && n >= 3) || (nd == 2 && n >= 5) || (nd == 3 && n >= 6));
        if n <= 64 && bt {
            clusters = 1;
        } else if n >= 4 && n * 100 >= rng * 10 {
            clusters = 1;
            jt = rng;
        }
    }
    let sw = if jt > 0 {
        (jt * INSTR as i128 + 4 * INSTR as i128).min(i64::MAX as i128 / 2)
    } else if clusters <= 3 {
        clusters * 2 * INSTR as i128
    } else {
        (3 * clusters / 2 - 1) * 2 * INSTR as i128
    };
    sw as i64
}

/// x86-64 addressing-mode rule for a GEP with variable indices.
fn gep_free(fx: &Facts, b: &Body, r: RowIdx, st: &St<'_>) -> bool {
    let types = &fx.ir.types;
    let inst = b.inst(r);
    let base = inst.ops[0];
    let is_global = matches!(base, V::K(Value::Global(_)));
    if let V::K(Value::Global(s)) = base {
        if !fx.sym_local[s.idx()] {
            return false;
        }
    }
    let mut cur = inst.aux_ty;
    let (mut nvar, mut scale) = (0, 0u64);
    for (k, &ix) in inst.ops[1..].iter().enumerate() {
        let c = st.ival(ix);
        let elem;
        if k == 0 {
            elem = cur;
        } else {
            match types.kind(cur) {
                TypeKind::Struct { .. } | TypeKind::Named(_) => {
                    cur = types.gep_step(cur, c);
                    continue;
                }
                _ => {
                    elem = types.gep_step(cur, c);
                    cur = elem;
                }
            }
        }
        if c.is_none() {
            nvar += 1;
            scale = type_size(types, elem);
        }
    }
    if nvar > 1 {
        return false;
    }
    if is_global {
        matches!(scale, 0 | 1 | 2 | 3 | 4 | 5 | 8 | 9)
    } else {
        matches!(scale, 0 | 1 | 2 | 4 | 8)
    }
}

/// x86-64's scalar integer legalization: the register type an `iN` lives in (`i1` is
/// promoted to `i8`, `i24` to `i32`, `i40` to `i64`, wider types split into `i64`s),
/// and how many of them.
fn legal_int(bits: u32) -> (u32, u32) {
    match bits {
        0..=8 => (8, 1),
        9..=16 => (16, 1),
        17..=32 => (32, 1),
        33..=64 => (64, 1),
        _ => (64, bits.div_ceil(64).next_power_of_two()),
    }
}

/// `!allowSizeGrowth`: the call at row `row` of block `bb` is in a block that ends in
/// `unreachable` (an invoke: its normal destination ends in one), so the threshold is
/// 0 and no bonus applies.
pub(super) fn ends_in_unreachable(b: &Body, row: RowIdx, bb: BlockIdx) -> bool {
    let block = match (b.op(row), b.ops(row)) {
        (Opcode::Invoke, &[.., V::Block(normal), _]) => normal,
        _ => bb,
    };
    b.term(block)
        .is_some_and(|t| b.op(t) == Opcode::Unreachable)
}

/// The floating-point intrinsics `ConstantFoldCall` evaluates on constant operands
/// (rounding, sign and min/max operations; their values are exact for any operand).
fn folds_on_fp_constants(name: &str) -> bool {
    let family = name.strip_prefix("llvm.").and_then(|n| n.split('.').next());
    matches!(
        family,
        Some(
            "fabs"
                | "floor"
                | "ceil"
                | "trunc"
                | "rint"
                | "nearbyint"
                | "round"
                | "roundeven"
                | "copysign"
                | "minnum"
                | "maxnum"
                | "minimum"
                | "maximum"
        )
    )
}

/// Whether x86-64's TTI gives an integer extension from `src` to `dst` bits for
/// nothing (`BasicTTIImpl::getCastInstrCost`): a `zext` whose legalized types are
/// `i32` → `i64` (the upper half is zeroed implicitly), or an extension of a load
/// when both are simple types in the same number of registers and the extending load
/// is legal (every one but `sextload` from `i1`).
pub(super) fn ext_free(sext: bool, src: u32, dst: u32, of_load: bool) -> bool {
    let (ls, ld) = (legal_int(src), legal_int(dst));
    if !sext && ls.0 == 32 && ld.0 == 64 {
        return true;
    }
    let simple = |b: u32| matches!(b, 1 | 8 | 16 | 32 | 64 | 128);
    of_load && simple(src) && simple(dst) && ls.1 == ld.1 && !(sext && src == 1)
}
