//! Cold call sites without a profile: a static estimate of block frequencies in the
//! manner of LLVM 14's BranchProbabilityInfo and BlockFrequencyInfo.
//!
//! Branch probabilities, per block with several successors, from the first rule that
//! applies: estimated block weights (blocks that end in `unreachable` weigh 0, or 1
//! with a `noreturn` call; an invoke's unwind destination 1; blocks calling a `cold`
//! function 0xffff; a block whose
//! successors all have weights takes their maximum; an edge leaving a loop, or an
//! irreducible cycle outside loops, weighs its target's weight, or the default 0xfffff,
//! divided by 31; an edge to a successor that
//! makes a loop branch's condition false by being taken, halved), the pointer heuristic
//! (`==` between pointers unlikely, 12:20), the zero heuristic (`x == 0`, `x < 0`,
//! `x == -1`, `x < 1` unlikely; `!=`, `x > 0`, `x > -1` likely, unless `x` is a single
//! bit test), the floating-point heuristic, else uniform. Frequencies
//! ([`super::mass`]): loops innermost first, each scaled by `1 / (1 - back-edge mass)`
//! (at most 4096), exits carried to the enclosing level in reverse post-order,
//! irreducible cycles solved as loops with several headers. All of it in LLVM's own fixed-point
//! arithmetic ([`super::scaled`]), so the integers agree with opt-14's
//! `print<block-freq>` block for block (an ignored test compares whole modules). The
//! reverse post-order, the dominators and the natural loops are the crate's own
//! ([`crate::graph`], [`crate::cfg::loops`]), gathered with the block graph in
//! [`super::mass::Flow`].

use super::mass::{Flow, Probs};
use super::scaled::{prob, Scaled, PROB_ONE};
use super::simplify::{binop, icmp};
use super::Facts;
use crate::cfg::loops::LoopIdx;
use crate::idx::BlockIdx;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::ir::{Opcode, Predicate, Value};

const DEFAULT_W: f64 = 0xfffff as f64;
const COLD_W: f64 = 0xffff as f64;
/// `FPH_ORD_WEIGHT`: an ordered comparison is this much likelier than an unordered one.
const FP_ORD: u32 = 1024 * 1024 - 1;

/// Block frequencies of `b` as LLVM's `BlockFrequencyInfo` holds them, computed in its
/// fixed-point arithmetic ([`super::scaled`]): integers, the smallest frequency scaled to
/// 8 (or the largest to 2^64 when the spread is too wide), at least 1 for every reachable
/// block, 0 for the others.
pub fn int_freqs(fx: &Facts, b: &Body) -> Vec<u64> {
    if b.layout.is_empty() {
        return vec![0; b.blocks.len()];
    }
    let freqs = block_freqs(fx, b);
    let live = || freqs.iter().flatten();
    let (Some(min), Some(max)) = (live().min(), live().max()) else {
        return vec![0; freqs.len()];
    };
    let spread = max.div(*min).lg();
    let factor = if (0..=61).contains(&spread) {
        min.inverse().shl(3)
    } else {
        Scaled::new(1, 64).div(*max)
    };
    freqs
        .iter()
        .map(|f| f.map_or(0, |f| f.mul(factor).to_u64().max(1)))
        .collect()
}

/// Whether block `bb` of `b` is a cold call site: its frequency is under 2 % of the
/// entry's, with the probability 2/100 as a 31-bit fraction, truncating (LLVM's
/// `isColdCallSite` without a profile).
pub fn is_cold_site(freqs: &[u64], b: &Body, bb: BlockIdx) -> bool {
    let e = freqs.get(b.layout[0].idx()).copied().unwrap_or(0) as u128;
    let site = freqs.get(bb.idx()).copied().unwrap_or(0) as u128;
    let n = ((2u128 << 31) + 50) / 100;
    site < (e * n) >> 31
}

/// LLVM's `updateCallerBFI` and the after-call block of `InlineFunction`: the caller's
/// frequencies after a call in block `call_block` was inlined. The clones of the callee's
/// blocks (`clones`: (callee block, caller block)) take the callee's frequencies scaled so
/// that the clone of its entry has the call block's; the block holding what followed
/// the call (`after`) takes the call block's.
pub fn update_after_inline(
    freqs: &mut Vec<u64>,
    callee: &[u64],
    callee_entry: BlockIdx,
    clones: &[(BlockIdx, BlockIdx)],
    call_block: BlockIdx,
    after: BlockIdx,
) {
    let need = clones
        .iter()
        .map(|c| c.1.idx() + 1)
        .chain([after.idx() + 1, call_block.idx() + 1])
        .max()
        .unwrap_or(0);
    if freqs.len() < need {
        freqs.resize(need, 0);
    }
    let at = |v: &[u64], b: BlockIdx| v.get(b.idx()).copied().unwrap_or(0);
    let mut entry_clone = None;
    // callee blocks merged into one clone give it the largest of their frequencies
    let mut seen = vec![false; freqs.len()];
    for &(cb, nb) in clones {
        let f = at(callee, cb);
        if !std::mem::replace(&mut seen[nb.idx()], true) || f > freqs[nb.idx()] {
            freqs[nb.idx()] = f;
        }
        if cb == callee_entry {
            entry_clone = Some(nb);
        }
    }
    let site = at(freqs, call_block);
    if let Some(ec) = entry_clone {
        let old = at(freqs, ec) as u128;
        let mut scaled = vec![false; freqs.len()];
        for &(_, nb) in clones {
            if nb != ec && old != 0 && !std::mem::replace(&mut scaled[nb.idx()], true) {
                let f = at(freqs, nb) as u128 * site as u128 / old;
                freqs[nb.idx()] = u64::try_from(f).unwrap_or(u64::MAX);
            }
        }
        freqs[ec.idx()] = site;
    }
    freqs[after.idx()] = site;
}

/// Block frequencies of `b` as LLVM's scaled numbers before the conversion to integers
/// (indexed by block row; `None` for unreachable blocks): its branch probabilities, then
/// the mass propagation of [`super::mass`].
fn block_freqs(fx: &Facts, b: &Body) -> Vec<Option<Scaled>> {
    let c = Flow::new(b);
    let probs = branch_probs(fx, b, &c);
    super::mass::block_freqs(&c, &probs)
}

/// `getInitialEstimatedBlockWeight` per reachable block: 0 for a block ending in
/// `unreachable` (1 with a `noreturn` call), 1 for an invoke's unwind destination, 0xffff
/// for a block with a `cold` call; `None` for the others.
fn initial_weights(fx: &Facts, b: &Body, c: &Flow) -> Vec<Option<f64>> {
    let n = b.blocks.len();
    let ir = &*fx.ir;
    let mut w: Vec<Option<f64>> = vec![None; n];
    // the unwind destinations of invokes (`BlockExecWeight::UNWIND`)
    let mut unwind = vec![false; n];
    for x in c.rpo.order().iter().map(|b| b.raw()) {
        if let Some(t) = b
            .term(BlockIdx::from_raw(x))
            .filter(|&t| b.op(t) == Opcode::Invoke)
        {
            if let [.., V::Block(u)] = *b.ops(t) {
                unwind[u.idx()] = true;
            }
        }
    }
    for x in c.rpo.order().iter().map(|b| b.raw()) {
        let insts = &b.blocks[BlockIdx::from_raw(x)];
        let Some(&t) = insts.last() else { continue };
        let mut noreturn = false;
        let mut cold = false;
        for &i in insts {
            let inst = b.inst(i);
            // calls, not invokes (`dyn_cast<CallInst>`)
            if let Some(ci) = inst.call.filter(|_| inst.op == Opcode::Call) {
                let site = ir.attr_sets.get(ci.attrs);
                let f = match inst.ops[ci.callee_op as usize] {
                    V::K(Value::Global(s)) => fx.sym_func[s.idx()],
                    _ => None,
                };
                let fa = f.map(|f| fx.fn_attrs(f));
                if site.has(Attr::NoReturn) || fa.is_some_and(|a| a.has(Attr::NoReturn)) {
                    noreturn = true;
                }
                if site.has(Attr::Cold) || fa.is_some_and(|a| a.has(Attr::Cold)) {
                    cold = true;
                }
            }
        }
        if b.op(t) == Opcode::Unreachable {
            w[x as usize] = Some(if noreturn { 1.0 } else { 0.0 });
        } else if unwind[x as usize] {
            w[x as usize] = Some(1.0);
        } else if cold {
            w[x as usize] = Some(COLD_W);
        }
    }
    w
}

fn branch_probs(fx: &Facts, b: &Body, c: &Flow) -> Probs {
    let n = b.blocks.len();
    let mut w = initial_weights(fx, b, c);
    // an edge into a loop nested in a's loop, or out of it, crosses loops
    let same_loop = |a: u32, s: u32| c.loop_key(a) == c.loop_key(s);
    // propagate: a block whose successors all have weights (within its loop) takes
    // their maximum
    let mut changed = true;
    while changed {
        changed = false;
        for x in c.rpo.order().iter().rev().map(|b| b.raw()) {
            if w[x as usize].is_some() || c.succs(x).is_empty() {
                continue;
            }
            let mut mx: Option<f64> = None;
            let mut ok = true;
            for s in c.succs(x).iter().map(|b| b.raw()) {
                match w[s as usize] {
                    Some(v) if same_loop(x, s) => mx = Some(mx.map_or(v, |m: f64| m.max(v))),
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                w[x as usize] = mx;
                changed = true;
            }
        }
    }
    // `isLoopExitingEdge`: out of the source's loop, or out of its irreducible cycle
    let exiting = |x: u32, s: u32| match c.loop_key(x) {
        (Some(l), _) => !c.loops.contains(l, BlockIdx::from_raw(s)),
        (None, k) => k != u32::MAX && c.loop_key(s).1 != k,
    };
    let mut probs = Probs {
        at: vec![(0, 0); n],
        list: Vec::with_capacity(c.g.num_edges()),
    };
    let mut ws: Vec<u64> = Vec::new();
    let mut unlikely: Vec<u32> = Vec::new();
    let mut block_of = vec![u32::MAX; b.num_rows() as usize];
    for &bb in &b.layout {
        for &r in &b.blocks[bb] {
            block_of[r.idx()] = bb.raw();
        }
    }
    for x in c.rpo.order().iter().map(|b| b.raw()) {
        let succs = c.succs(x);
        if succs.is_empty() {
            continue;
        }
        let k = succs.len();
        if k == 1 {
            probs.set(x, succs, [PROB_ONE].into_iter());
            continue;
        }
        let t = *b.blocks[BlockIdx::from_raw(x)].last().unwrap();
        if let Some(ws) = b.branch_weights(t).filter(|ws| {
            ws.len() == k && matches!(b.op(t), Opcode::Br | Opcode::Switch | Opcode::IndirectBr)
        }) {
            let unreachable: Vec<bool> = succs.iter().map(|s| w[s.idx()] == Some(0.0)).collect();
            probs.set(x, succs, metadata_probs(ws, &unreachable).into_iter());
            continue;
        }
        // estimated weights (`calcEstimatedHeuristics`)
        let mut found = false;
        ws.clear();
        unlikely.clear();
        if let Some(l) = c.inner(x) {
            unlikely_successors(fx, b, c, x, l, &block_of, &mut unlikely);
        }
        for s in succs.iter().map(|b| b.raw()) {
            let mut wt = w[s as usize].map(|v| v as u64);
            if exiting(x, s) && wt != Some(0) {
                wt = Some((wt.unwrap_or(DEFAULT_W as u64) / 31).max(1));
            }
            if unlikely.contains(&s) && wt != Some(0) {
                wt = Some((wt.unwrap_or(DEFAULT_W as u64) / 2).max(1));
            }
            if wt.is_some() {
                found = true;
            }
            ws.push(wt.unwrap_or(DEFAULT_W as u64));
        }
        let mut total: u64 = ws.iter().sum();
        if found && total > 0 {
            if total > u64::from(u32::MAX) {
                let factor = total / u64::from(u32::MAX) + 1;
                total = 0;
                for v in &mut ws {
                    *v = (*v / factor).max(1);
                    total += *v;
                }
            }
            probs.set(x, succs, ws.iter().map(|&v| prob(v as u32, total as u32)));
            continue;
        }
        let term = b.inst(t);
        if term.op == Opcode::Br && k == 2 {
            if let Some((taken, untaken)) = cond_heuristic(fx, b, term.ops[0]) {
                probs.set(x, succs, [taken, untaken].into_iter());
                continue;
            }
        }
        probs.set(x, succs, std::iter::repeat(prob(1, k as u32)));
    }
    probs
}

/// `calcMetadataWeights`: probabilities from a terminator's `!prof` branch weights
/// (scaled into 32 bits; all 1 when they sum to 0 or every successor is unreachable);
/// an edge to an unreachable block keeps at most the smallest probability, and what it
/// gives up goes to the others in proportion.
fn metadata_probs(ws: &[u32], unreachable: &[bool]) -> Vec<u32> {
    let n = ws.len();
    let mut w: Vec<u64> = ws.iter().map(|&v| u64::from(v)).collect();
    let mut sum: u64 = w.iter().sum();
    if sum > u64::from(u32::MAX) {
        let factor = sum / u64::from(u32::MAX) + 1;
        sum = 0;
        for v in &mut w {
            *v /= factor;
            sum += *v;
        }
    }
    let reachable = unreachable.iter().filter(|&&u| !u).count();
    if sum == 0 || reachable == 0 {
        w.iter_mut().for_each(|v| *v = 1);
        sum = n as u64;
    }
    let mut bp: Vec<u32> = w.iter().map(|&v| prob(v as u32, sum as u32)).collect();
    if reachable == n || reachable == 0 {
        return bp;
    }
    let sat_sum = |it: &mut dyn Iterator<Item = u32>| {
        it.fold(0u32, |a, v| {
            (a as u64 + v as u64).min(PROB_ONE as u64) as u32
        })
    };
    for (p, &u) in bp.iter_mut().zip(unreachable) {
        if u && *p > 1 {
            *p = 1;
        }
    }
    let new_unreachable = sat_sum(&mut bp.iter().zip(unreachable).filter(|x| *x.1).map(|x| *x.0));
    let new_reachable = PROB_ONE - new_unreachable;
    let old_reachable = sat_sum(&mut bp.iter().zip(unreachable).filter(|x| !*x.1).map(|x| *x.0));
    if old_reachable != new_reachable {
        for (p, &u) in bp.iter_mut().zip(unreachable) {
            if u {
                continue;
            }
            *p = if old_reachable == 0 {
                new_reachable / reachable as u32
            } else {
                let mul = u64::from(new_reachable) * u64::from(*p);
                ((mul + u64::from(old_reachable) / 2) / u64::from(old_reachable)) as u32
            };
        }
    }
    bp
}

/// `computeUnlikelySuccessors`: the successors of block `x` (in loop `l`) that make its
/// branch condition false by being taken. The condition compares with a constant a phi
/// of the loop (through a chain of binary operations with constant right operands);
/// a constant the phi web takes from a successor of `x` decides the comparison, and when
/// that sends the branch away from the successor, the successor is unlikely.
fn unlikely_successors(
    fx: &Facts,
    b: &Body,
    c: &Flow,
    x: u32,
    l: LoopIdx,
    block_of: &[u32],
    out: &mut Vec<u32>,
) {
    let Some(&t) = b.blocks[BlockIdx::from_raw(x)].last() else {
        return;
    };
    let term = b.inst(t);
    if term.op != Opcode::Br || term.ops.len() != 3 {
        return;
    }
    let (V::Block(s0), V::Block(s1)) = (term.ops[1], term.ops[2]) else {
        return;
    };
    let V::Inst(ci) = term.ops[0] else { return };
    let cmp = b.inst(ci);
    if cmp.op != Opcode::ICmp {
        return;
    }
    let Some(rhs) = const_int(cmp.ops[1]) else {
        return;
    };
    let types = &fx.ir.types;
    let bits = types.int_bits(cmp.tys[0]).unwrap_or(64);
    let in_loop = |r: RowIdx| {
        let bb = block_of.get(r.idx()).copied().unwrap_or(u32::MAX);
        bb != u32::MAX && c.loops.contains(l, BlockIdx::from_raw(bb))
    };
    // the chain of binary operations down to a phi
    let mut chain: Vec<(Opcode, i64, u32)> = Vec::new();
    let mut cur = cmp.ops[0];
    let phi = loop {
        let V::Inst(r) = cur else { return };
        let inst = b.inst(r);
        if inst.op == Opcode::Phi {
            break r;
        }
        let is_binop = inst.op.is_int_binary();
        let Some(k) = inst.ops.get(1).copied().and_then(const_int) else {
            return;
        };
        if !is_binop || !in_loop(r) || chain.len() > 64 {
            return;
        }
        chain.push((inst.op, k, types.int_bits(inst.ty).unwrap_or(64)));
        cur = inst.ops[0];
    };
    if !in_loop(phi) {
        return;
    }
    let mut seen = vec![phi];
    let mut work = vec![phi];
    while let Some(p) = work.pop() {
        let ops = b.inst(p).ops;
        for k in (0..ops.len()).step_by(2) {
            let Some(&V::Block(pb)) = ops.get(k + 1) else {
                continue;
            };
            if !c.loops.contains(l, pb) {
                continue;
            }
            let v = ops[k];
            if let V::Inst(r) = v {
                if b.inst(r).op == Opcode::Phi {
                    if !seen.contains(&r) {
                        seen.push(r);
                        work.push(r);
                    }
                    continue;
                }
            }
            let Some(mut val) = const_int(v) else {
                continue;
            };
            if pb != s0 && pb != s1 {
                continue;
            }
            let mut folded = true;
            for &(op, k, w) in chain.iter().rev() {
                match binop(op, val, k, w) {
                    Some(r) => val = r,
                    None => {
                        folded = false;
                        break;
                    }
                }
            }
            if !folded {
                continue;
            }
            let taken = icmp(Predicate(cmp.aux as u8), val, rhs, bits);
            if ((!taken && pb == s0) || (taken && pb == s1)) && !out.contains(&pb.raw()) {
                out.push(pb.raw());
            }
        }
    }
}

/// Whether `v` is the result of a direct call of a library comparison of strings or
/// memory (`strcmp`, `strncmp`, `strcasecmp`, `strncasecmp`, `memcmp`, `bcmp`, as
/// `TargetLibraryInfo` names them: not local, returning an integer).
fn compares_memory(fx: &Facts, b: &Body, v: V) -> bool {
    let V::Inst(r) = v else { return false };
    let inst = b.inst(r);
    let Some(ci) = inst.call else { return false };
    if inst.op != Opcode::Call {
        return false;
    }
    let V::K(Value::Global(s)) = inst.ops[ci.callee_op as usize] else {
        return false;
    };
    let Some(f) = fx.sym_func[s.idx()] else {
        return false;
    };
    matches!(
        fx.names[f.idx()].as_str(),
        "strcmp" | "strncmp" | "strcasecmp" | "strncasecmp" | "memcmp" | "bcmp"
    ) && !fx.linkage[f.idx()].is_local()
        && fx.ir.types.int_bits(inst.ty).is_some()
}

/// An integer constant operand (a null pointer counts as 0).
fn const_int(v: V) -> Option<i64> {
    match v {
        V::Int(x) => Some(x),
        V::K(Value::Null) | V::K(Value::Zero) => Some(0),
        _ => None,
    }
}

/// The probabilities of the true and false edges of a branch on `cond` by the pointer,
/// zero and floating-point heuristics (numerators over 2^31, each rounded on its own).
fn cond_heuristic(fx: &Facts, b: &Body, cond: V) -> Option<(u32, u32)> {
    let V::Inst(ci) = cond else { return None };
    let inst = b.inst(ci);
    let likely = (prob(20, 32), prob(12, 32));
    let unlikely = (likely.1, likely.0);
    let types = &fx.ir.types;
    match inst.op {
        Opcode::ICmp => {
            let p = Predicate(inst.aux as u8);
            let (l, r) = (inst.ops[0], inst.ops[1]);
            if types.is_pointer(inst.tys[0]) {
                return match p.0 {
                    32 => Some(unlikely),
                    33 => Some(likely),
                    _ => None,
                };
            }
            let cv = match r {
                V::Int(x) => x,
                _ => return None,
            };
            if let V::Inst(li) = l {
                let li = b.inst(li);
                if li.op == Opcode::And {
                    if let V::Int(m) = li.ops[1] {
                        if m > 0 && (m & (m - 1)) == 0 {
                            return None;
                        }
                    }
                }
            }
            // a string or memory comparison's result against 0: only `==` and `!=`
            // have a heuristic (`ICmpWithLibCallTable`)
            if compares_memory(fx, b, l) {
                return match (cv, p.0) {
                    (0, 32) => Some(unlikely),
                    (0, 33) => Some(likely),
                    _ => None,
                };
            }
            let bits = types.int_bits(inst.tys[0]).unwrap_or(64);
            let minus_one = cv == -1 || (bits == 1 && cv == 1);
            let taken = if cv == 0 {
                match p.0 {
                    32 | 40 => false,
                    33 | 38 => true,
                    _ => return None,
                }
            } else if cv == 1 && p.0 == 40 {
                false
            } else if minus_one {
                match p.0 {
                    32 => false,
                    33 | 38 => true,
                    _ => return None,
                }
            } else {
                return None;
            };
            Some(if taken { likely } else { unlikely })
        }
        Opcode::FCmp => {
            let p = inst.aux as u8;
            match p {
                7 => Some((prob(FP_ORD, FP_ORD + 1), prob(1, FP_ORD + 1))),
                8 => Some((prob(1, FP_ORD + 1), prob(FP_ORD, FP_ORD + 1))),
                // `isEquality` predicates: likely unless `isTrueWhenEqual`, which of
                // the four only `ueq` is (opt-14's `print<branch-prob>`: `oeq`, `one`
                // and `une` 62.5 %, `ueq` 37.5 %)
                1 | 6 | 14 => Some(likely),
                9 => Some(unlikely),
                _ => None,
            }
        }
        _ => None,
    }
}
