//! LLVM 14's `InlineCostCallAnalyzer` for x86-64 over [`Body`]: the call site's
//! constants propagated into the callee, live blocks only, per-instruction costs,
//! call-site savings, SROA and load-elimination savings, the threshold rules.

use super::body::{binop, bool_v, icmp, nonnull_const, sext, type_size, zext, Body, V};
use super::Facts;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::{Intrinsic, Opcode, Predicate, Value};
use crate::llvm::types::TypeKind;
use crate::llvm::FuncIdx;
use ahash::{AHashMap, AHashSet};

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

struct St<'a> {
    callee: &'a Body,
    consts: AHashMap<V, V>,
    nonnull: AHashSet<V>,
    sroa: AHashMap<V, u32>,
    sroa_cost: AHashMap<u32, i64>,
    sroa_on: AHashSet<u32>,
    cost: i64,
    le_on: bool,
    le_cost: i64,
    load_addrs: AHashSet<V>,
}

impl St<'_> {
    fn disable_le(&mut self) {
        if self.le_on {
            self.cost += self.le_cost;
            self.le_on = false;
        }
    }
    fn disable(&mut self, v: V) {
        if let Some(&b) = self.sroa.get(&v) {
            if self.sroa_on.remove(&b) {
                self.cost += self.sroa_cost.get(&b).copied().unwrap_or(0);
                self.disable_le();
            }
        }
    }
    fn sroa_use(&mut self, v: V) -> bool {
        if let Some(&b) = self.sroa.get(&v) {
            if self.sroa_on.contains(&b) {
                *self.sroa_cost.entry(b).or_default() += INSTR;
                return true;
            }
        }
        false
    }
    /// The constant `v` stands for, if any.
    fn cval(&self, v: V) -> Option<V> {
        match v {
            V::Int(_) | V::K(_) => Some(v),
            V::Arg(_) | V::Inst(_) => self.consts.get(&v).copied(),
            _ => None,
        }
    }
    fn ival(&self, v: V) -> Option<i64> {
        match self.cval(v)? {
            V::Int(x) => Some(x),
            V::K(Value::Null | Value::Zero) => Some(0),
            _ => None,
        }
    }
}

/// The base alloca of a caller value (through bitcasts and all-constant GEPs).
pub fn alloca_base(b: &Body, mut v: V) -> Option<u32> {
    for _ in 0..64 {
        let V::Inst(i) = v else { return None };
        let inst = &b.insts[i as usize];
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

/// `getCallsiteCost`: what the call itself costs (subtracted before the walk).
fn callsite_savings(fx: &Facts, caller: &Body, call: u32, callee_fn: FuncIdx) -> i64 {
    let inst = &caller.insts[call as usize];
    let ci = inst.call.as_ref().unwrap();
    let mut s = 0;
    for k in 0..ci.nargs as usize {
        let mut t = fx.ir.attr_sets.get(ci.params[k]);
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
    pub preds: &'a super::PredTable,
}

/// Analyzes inlining `target` at row `call` of `caller`.
pub fn analyze(
    fx: &Facts,
    caller: &Body,
    caller_fn: FuncIdx,
    call: u32,
    target: &Callee<'_>,
    k: SiteKnobs,
) -> Outcome {
    let (callee_fn, callee, callee_preds) = (target.f, target.body, target.preds);
    let ir = &*fx.ir;
    let types = &ir.types;
    let callee_attrs = ir.fn_attrs(callee_fn);
    let caller_attrs = ir.fn_attrs(caller_fn);
    // threshold (updateThreshold)
    let mut t = k.threshold;
    let mut bonuses = true;
    let mut lcs = k.last_call_to_static;
    if k.before_unreachable {
        t = 0;
        bonuses = false;
        lcs = false;
    } else {
        if caller_attrs.has(Attr::MinSize) {
            t = t.min(5);
            bonuses = false;
        } else if caller_attrs.has(Attr::OptSize) {
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
    let mut st = St {
        callee,
        consts: AHashMap::new(),
        nonnull: AHashSet::new(),
        sroa: AHashMap::new(),
        sroa_cost: AHashMap::new(),
        sroa_on: AHashSet::new(),
        cost: 0,
        le_on: true,
        le_cost: 0,
        load_addrs: AHashSet::new(),
    };
    if lcs {
        st.cost -= 15_000;
    }
    let mut threshold = t + single_bonus + vector_bonus;
    st.cost -= callsite_savings(fx, caller, call, callee_fn);
    if fx.coldcc[callee_fn.idx()] {
        st.cost += 2000;
    }
    // argument seeding
    let ci = caller.insts[call as usize].call.as_ref().unwrap();
    for p in 0..(callee.nargs.min(ci.nargs)) {
        let a = caller.insts[call as usize].ops[p as usize];
        let pv = V::Arg(p);
        let call_nonnull = ir.attr_sets.get(ci.params[p as usize]).has(Attr::NonNull);
        let decl_nonnull = ir
            .arg(callee_fn, p as usize)
            .is_some_and(|x| ir.arg_attrs(x).has(Attr::NonNull));
        if call_nonnull || decl_nonnull {
            st.nonnull.insert(pv);
        }
        if a.is_const() {
            st.consts.insert(pv, a);
        }
        if let Some(base) = alloca_base(caller, a) {
            st.sroa.insert(pv, base);
            st.sroa_on.insert(base);
            st.nonnull.insert(pv);
        }
    }
    let caller_returns_twice = caller_attrs.has(Attr::ReturnsTwice);
    let nb = callee.blocks.len();
    let (pred_start, pred_list) = callee_preds;
    let preds =
        |x: u32| &pred_list[pred_start[x as usize] as usize..pred_start[x as usize + 1] as usize];
    let mut dead = vec![false; nb];
    let mut known_succ: Vec<Option<u32>> = vec![None; nb];
    let mut seen = vec![false; nb];
    let entry = callee.layout[0];
    let mut work = vec![entry];
    seen[entry as usize] = true;
    let mut wi = 0;
    let mut single_bb = true;
    let mut has_ret = false;
    let mut allocated: u64 = 0;
    let (mut n_inst, mut n_vec) = (0i64, 0i64);
    while wi < work.len() {
        let bb = work[wi];
        wi += 1;
        for &r in &callee.blocks[bb as usize] {
            let inst = &callee.insts[r as usize];
            let res = V::Inst(r);
            let ops = &inst.ops;
            // debug intrinsics are not counted
            if let Some(ci) = &inst.call {
                if let V::K(Value::Global(s)) = ops[ci.callee_op as usize] {
                    if let Some(f) = fx.sym_func[s.idx()] {
                        if ir.intrinsic[f] == Intrinsic::Debug
                            || ir.intrinsic[f] == Intrinsic::PseudoProbe
                        {
                            continue;
                        }
                    }
                }
            }
            n_inst += 1;
            if matches!(types.kind(inst.ty), TypeKind::Vector { .. })
                || inst.op == Opcode::ExtractElement
            {
                n_vec += 1;
            }
            let mut c = 0;
            match inst.op {
                Opcode::Call | Opcode::Invoke | Opcode::CallBr => {
                    let ci = inst.call.as_ref().unwrap();
                    let nargs = ci.nargs as usize;
                    let callee_v = ops[ci.callee_op as usize];
                    let target = match callee_v {
                        V::K(Value::Global(s)) => fx.sym_func[s.idx()],
                        _ => None,
                    };
                    let site_attrs = ir.attr_sets.get(ci.attrs);
                    let intr_name = target.map(|f| fx.names[f.idx()].as_str());
                    let is_intr = ci.synthetic != Intrinsic::None
                        || intr_name.is_some_and(|n| n.starts_with("llvm."));
                    if target == Some(callee_fn) {
                        return Outcome::Never("recursive");
                    }
                    let rt = site_attrs.has(Attr::ReturnsTwice)
                        || target.is_some_and(|f| ir.fn_attrs(f).has(Attr::ReturnsTwice));
                    if rt && !caller_returns_twice {
                        return Outcome::Never("exposes returns twice");
                    }
                    if site_attrs.has(Attr::NoDuplicate)
                        || target.is_some_and(|f| ir.fn_attrs(f).has(Attr::NoDuplicate))
                    {
                        return Outcome::Never("noduplicate");
                    }
                    let readonly = |a: &crate::llvm::attrs::AttrSet| {
                        a.has(Attr::ReadOnly) || a.has(Attr::ReadNone)
                    };
                    let ro =
                        readonly(site_attrs) || target.is_some_and(|f| readonly(ir.fn_attrs(f)));
                    if is_intr {
                        let name = intr_name.unwrap_or("llvm.memcpy");
                        if ci.synthetic.is_mem_intrinsic()
                            || name.starts_with("llvm.memcpy")
                            || name.starts_with("llvm.memset")
                            || name.starts_with("llvm.memmove")
                        {
                            st.disable_le();
                            c = INSTR;
                        } else if FREE_INTRINSICS.iter().any(|p| name.starts_with(p)) {
                            c = 0;
                        } else if name == "llvm.va_start" {
                            return Outcome::Never("varargs");
                        } else if name == "llvm.localescape" {
                            return Outcome::Never("disallowed inlining of @llvm.localescape");
                        } else if name.starts_with("llvm.icall.branch.funnel") {
                            return Outcome::Never(
                                "disallowed inlining of @llvm.icall.branch.funnel",
                            );
                        } else if name.starts_with("llvm.load.relative") {
                            c = 4 * INSTR;
                        } else {
                            c = INSTR;
                            for &a in &ops[..nargs] {
                                st.disable(a);
                            }
                            if !ro {
                                st.disable_le();
                            }
                        }
                    } else {
                        c = match target {
                            None => INSTR * nargs as i64 + INSTR,
                            Some(f) if NOT_LOWERED.contains(&fx.names[f.idx()].as_str()) => INSTR,
                            Some(_) => INSTR * nargs as i64 + CALL_PENALTY + INSTR,
                        };
                        if !ro {
                            st.disable_le();
                        }
                        for &a in &ops[..nargs] {
                            st.disable(a);
                        }
                    }
                }
                Opcode::Ret => {
                    c = if has_ret { INSTR } else { 0 };
                    has_ret = true;
                }
                Opcode::Br => {
                    if ops.len() == 3 && st.ival(ops[0]).is_none() {
                        c = INSTR;
                    }
                }
                Opcode::Unreachable => {}
                Opcode::Switch => {
                    if st.ival(ops[0]).is_none() {
                        let mut vals = Vec::new();
                        let mut dests = AHashSet::new();
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
                            let bt = rng <= 64
                                && ((nd == 1 && n >= 3)
                                    || (nd == 2 && n >= 5)
                                    || (nd == 3 && n >= 6));
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
                        c = INSTR + sw as i64;
                    }
                }
                Opcode::Phi => {
                    let mut cv: Option<V> = None;
                    let mut ok = true;
                    for k in (0..ops.len()).step_by(2) {
                        let V::Block(pb) = ops[k + 1] else { continue };
                        if dead[pb as usize] || known_succ[pb as usize].is_some_and(|s| s != bb) {
                            continue;
                        }
                        if ops[k] == res {
                            continue;
                        }
                        match st.cval(ops[k]) {
                            None => {
                                ok = false;
                                break;
                            }
                            Some(x) => {
                                if cv.is_some_and(|y| y != x) {
                                    ok = false;
                                    break;
                                }
                                cv = Some(x);
                            }
                        }
                    }
                    if ok {
                        if let Some(x) = cv {
                            st.consts.insert(res, x);
                        }
                    }
                }
                Opcode::BitCast | Opcode::PtrToInt | Opcode::IntToPtr | Opcode::AddrSpaceCast => {
                    let sv = ops[0];
                    let x = st.cval(sv);
                    if let Some(x) = x {
                        let x = match (inst.op, x) {
                            (Opcode::PtrToInt, V::K(Value::Null)) => V::Int(0),
                            (Opcode::IntToPtr, V::Int(0)) => V::K(Value::Null),
                            _ => x,
                        };
                        st.consts.insert(res, x);
                    } else if let Some(&b) = st.sroa.get(&sv) {
                        st.sroa.insert(res, b);
                    }
                    if inst.op == Opcode::BitCast {
                        c = 0;
                    } else if x.is_none() {
                        c = if inst.op == Opcode::PtrToInt && types.int_bits(inst.ty) != Some(64) {
                            INSTR
                        } else {
                            0
                        };
                    }
                    if st.nonnull.contains(&sv) && inst.op == Opcode::BitCast {
                        st.nonnull.insert(res);
                    }
                }
                Opcode::Freeze | Opcode::ExtractValue => {}
                Opcode::GetElementPtr => {
                    let base = ops[0];
                    let allc = ops[1..].iter().all(|&o| st.ival(o).is_some());
                    let bc = st.cval(base);
                    if allc && bc.is_some_and(nonnull_const) {
                        st.consts.insert(res, bc.unwrap());
                    } else if allc {
                        if let Some(&b) = st.sroa.get(&base) {
                            st.sroa.insert(res, b);
                        }
                    } else {
                        st.disable(base);
                        c = if gep_free(fx, callee, r, &st) {
                            0
                        } else {
                            INSTR
                        };
                    }
                }
                Opcode::Trunc
                | Opcode::ZExt
                | Opcode::SExt
                | Opcode::FpTrunc
                | Opcode::FpExt
                | Opcode::SiToFp
                | Opcode::UiToFp
                | Opcode::FpToSi
                | Opcode::FpToUi => {
                    let sv = ops[0];
                    let (sb, db) = (types.int_bits(inst.tys[0]), types.int_bits(inst.ty));
                    let v = st.ival(sv);
                    if let (Some(v), Some(sb), Some(db)) = (v, sb, db) {
                        let r = match inst.op {
                            Opcode::SExt => sext(sext(v, sb), db),
                            Opcode::ZExt => sext(zext(v, sb) as i64, db),
                            _ => sext(v, db),
                        };
                        st.consts.insert(res, V::Int(r));
                    } else {
                        st.disable(sv);
                        let from_load =
                            matches!(sv, V::Inst(j) if callee.insts[j as usize].op == Opcode::Load);
                        c = match inst.op {
                            Opcode::Trunc => 0,
                            Opcode::ZExt if sb == Some(32) && db == Some(64) => 0,
                            Opcode::ZExt | Opcode::SExt if from_load => 0,
                            _ => INSTR,
                        };
                    }
                }
                Opcode::ICmp => {
                    let p = Predicate(inst.aux as u8);
                    let (a, b2) = (ops[0], ops[1]);
                    let bits = types.int_bits(inst.tys[0]).unwrap_or(64);
                    let (va, vb) = (st.ival(a), st.ival(b2));
                    let is_null = |v: V| matches!(v, V::K(Value::Null) | V::K(Value::Zero));
                    if let (Some(x), Some(y)) = (va, vb) {
                        st.consts.insert(res, bool_v(icmp(p, x, y, bits)));
                    } else if (p.0 == 32 || p.0 == 33)
                        && is_null(b2)
                        && (st.cval(a).is_some_and(nonnull_const)
                            || st.nonnull.contains(&a)
                            || st.sroa.contains_key(&a))
                    {
                        st.consts.insert(res, bool_v(p.0 == 33));
                    } else if is_null(b2) && st.sroa_use(a) {
                        c = 0;
                    } else {
                        st.disable(a);
                        c = INSTR;
                    }
                }
                Opcode::FCmp => {
                    st.disable(ops[0]);
                    c = INSTR;
                }
                op if op.is_int_binary() => {
                    let (a, b2) = (ops[0], ops[1]);
                    let (va, vb) = (st.ival(a), st.ival(b2));
                    let bits = types.int_bits(inst.ty).unwrap_or(64);
                    let op = inst.op;
                    // Some(Some(c)): a constant; Some(None): an identity (x + 0)
                    let r: Option<Option<i64>> = if let (Some(x), Some(y)) = (va, vb) {
                        binop(op, x, y, bits).map(Some)
                    } else if matches!(op, Opcode::And | Opcode::Mul)
                        && (va == Some(0) || vb == Some(0))
                    {
                        Some(Some(0))
                    } else if op == Opcode::Or
                        && bits == 1
                        && (va == Some(-1) || vb == Some(-1) || va == Some(1) || vb == Some(1))
                    {
                        Some(Some(sext(1, 1)))
                    } else if identity(op, bits, va, vb) {
                        Some(None)
                    } else {
                        None
                    };
                    match r {
                        Some(Some(x)) => {
                            st.consts.insert(res, V::Int(x));
                        }
                        Some(None) => {}
                        None => {
                            st.disable(a);
                            st.disable(b2);
                            c = INSTR;
                        }
                    }
                }
                Opcode::FAdd
                | Opcode::FSub
                | Opcode::FMul
                | Opcode::FDiv
                | Opcode::FRem
                | Opcode::FNeg => {
                    for &a in ops.iter() {
                        st.disable(a);
                    }
                    c = INSTR;
                }
                Opcode::Select => {
                    let cv = st.ival(ops[0]);
                    let (tv, fv) = (ops[1], ops[2]);
                    if let Some(cv) = cv {
                        let chosen = if cv & 1 != 0 { tv } else { fv };
                        if chosen.is_const() {
                            st.consts.insert(res, chosen);
                        }
                    } else if st.cval(tv).is_some() && st.cval(tv) == st.cval(fv) {
                        st.consts.insert(res, st.cval(tv).unwrap());
                    } else {
                        c = INSTR;
                    }
                }
                Opcode::Load => {
                    let ptr = ops[0];
                    let simple = !inst.flags.is_volatile() && !inst.flags.is_atomic();
                    if simple && st.sroa_use(ptr) {
                        c = 0;
                    } else {
                        if !simple {
                            st.disable(ptr);
                        }
                        if st.le_on && st.load_addrs.contains(&ptr) && !inst.flags.is_atomic() {
                            st.le_cost += INSTR;
                            c = 0;
                        } else {
                            st.load_addrs.insert(ptr);
                            c = INSTR;
                        }
                    }
                }
                Opcode::Store => {
                    let ptr = ops[1];
                    let simple = !inst.flags.is_volatile() && !inst.flags.is_atomic();
                    if simple && st.sroa_use(ptr) {
                        c = 0;
                    } else {
                        if !simple {
                            st.disable(ptr);
                        }
                        st.disable_le();
                        c = INSTR;
                    }
                }
                Opcode::Alloca => {
                    match ops.first() {
                        Some(&n) if st.ival(n).is_none() => {
                            return Outcome::Never("dynamic alloca");
                        }
                        Some(&n) => {
                            allocated += type_size(types, inst.aux_ty)
                                * st.ival(n).unwrap_or(1).max(0) as u64;
                        }
                        None => allocated += type_size(types, inst.aux_ty),
                    }
                    if k.caller_recursive && allocated > 1024 {
                        return Outcome::Never("recursive and allocates too much stack space");
                    }
                    c = INSTR;
                }
                Opcode::IndirectBr => return Outcome::Never("indirect branch"),
                _ => {
                    for &a in ops.iter() {
                        st.disable(a);
                    }
                    c = INSTR;
                }
            }
            st.cost += c;
        }
        // terminator folding
        let Some(tr) = callee.term(bb) else { continue };
        let tinst = &callee.insts[tr as usize];
        let mut nxt: Option<u32> = None;
        if tinst.op == Opcode::Br && tinst.ops.len() == 3 {
            if let Some(v) = st.ival(tinst.ops[0]) {
                if let V::Block(b) = tinst.ops[if v & 1 != 0 { 1 } else { 2 }] {
                    nxt = Some(b);
                }
            }
        } else if tinst.op == Opcode::Switch {
            if let Some(v) = st.ival(tinst.ops[0]) {
                let bits = types.int_bits(tinst.tys[0]).unwrap_or(64);
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
                    nxt = Some(b);
                }
            }
        }
        let succs = callee.succs(bb);
        if let Some(n) = nxt {
            known_succ[bb as usize] = Some(n);
            if !seen[n as usize] {
                seen[n as usize] = true;
                work.push(n);
            }
            let edge_dead = |p: u32, s: u32, dead: &Vec<bool>, ks: &Vec<Option<u32>>| {
                dead[p as usize] || ks[p as usize].is_some_and(|x| x != s)
            };
            let mut stack: Vec<u32> = succs
                .iter()
                .copied()
                .filter(|&x| {
                    x != n
                        && !dead[x as usize]
                        && preds(x)
                            .iter()
                            .all(|&p| edge_dead(p, x, &dead, &known_succ))
                })
                .collect();
            while let Some(d) = stack.pop() {
                if dead[d as usize] {
                    continue;
                }
                dead[d as usize] = true;
                for x in callee.succ_iter(d) {
                    if !dead[x as usize]
                        && preds(x)
                            .iter()
                            .all(|&p| edge_dead(p, x, &dead, &known_succ))
                    {
                        stack.push(x);
                    }
                }
            }
            continue;
        }
        for &x in &succs {
            if !seen[x as usize] {
                seen[x as usize] = true;
                work.push(x);
            }
        }
        if succs.len() > 1 && single_bb {
            single_bb = false;
            threshold -= single_bonus;
        }
    }
    let _ = st.callee;
    if caller_attrs.has(Attr::MinSize) {
        // loops of the callee are not counted here (no minsize callers in C at -O0)
    }
    if n_vec <= n_inst / 10 {
        threshold -= vector_bonus;
    } else if n_vec <= n_inst / 2 {
        threshold -= vector_bonus / 2;
    }
    let mut cost = st.cost;
    if k.cost_mult > 1 {
        cost = cost.saturating_mul(k.cost_mult);
    }
    Outcome::Cost { cost, threshold }
}

/// `x + 0`, `0 | x`, `x & true` (i1) and the like: the result is an operand.
fn identity(op: Opcode, bits: u32, va: Option<i64>, vb: Option<i64>) -> bool {
    let right_zero = matches!(
        op,
        Opcode::Add
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Sub
            | Opcode::Shl
            | Opcode::LShr
            | Opcode::AShr
    ) && vb == Some(0);
    let left_zero = matches!(op, Opcode::Add | Opcode::Or | Opcode::Xor) && va == Some(0);
    let and_true = op == Opcode::And
        && bits == 1
        && (va.map(|x| x & 1) == Some(1) || vb.map(|x| x & 1) == Some(1));
    right_zero || left_zero || and_true
}

/// x86-64 addressing-mode rule for a GEP with variable indices.
fn gep_free(fx: &Facts, b: &Body, r: u32, st: &St<'_>) -> bool {
    let types = &fx.ir.types;
    let inst = &b.insts[r as usize];
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
