//! Cold call sites without a profile: a static estimate of block frequencies in the
//! manner of LLVM 14's BranchProbabilityInfo and BlockFrequencyInfo.
//!
//! Branch probabilities, per block with several successors, from the first rule that
//! applies: estimated block weights (blocks that end in `unreachable` weigh 0, or 1
//! with a `noreturn` call; blocks calling a `cold` function 0xffff; a block whose
//! successors all have weights takes their maximum; a loop-exiting edge weighs its
//! target's weight, or the default 0xfffff, divided by 31), the pointer heuristic
//! (`==` between pointers unlikely, 12:20), the zero heuristic (`x == 0`, `x < 0`,
//! `x == -1`, `x < 1` unlikely; `!=`, `x > 0`, `x > -1` likely, unless `x` is a single
//! bit test), the floating-point heuristic, else uniform. Frequencies: loops innermost
//! first, each scaled by `1 / (1 - back-edge mass)` (at most 4096), exits carried to
//! the enclosing level in reverse post-order.

use super::body::{Body, V};
use super::Facts;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::{Opcode, Predicate, Value};

const DEFAULT_W: f64 = 0xfffff as f64;
const COLD_W: f64 = 0xffff as f64;

/// Block frequencies of `b` as LLVM's `BlockFrequencyInfo` holds them: integers, the
/// smallest non-zero frequency scaled to 8 (or the largest to 2^64 when the spread is too
/// wide), at least 1 for every reachable block, 0 for the others.
pub fn int_freqs(fx: &Facts, b: &Body) -> Vec<u64> {
    let freqs = block_freqs(fx, b);
    let (mut min, mut max) = (f64::INFINITY, 0f64);
    for &f in &freqs {
        if f > 0.0 {
            min = min.min(f);
            max = max.max(f);
        }
    }
    if max == 0.0 {
        return vec![0; freqs.len()];
    }
    let scale = if (max / min).log2() <= 61.0 {
        8.0 / min
    } else {
        2f64.powi(64) / max
    };
    freqs
        .iter()
        .map(|&f| {
            if f > 0.0 {
                ((f * scale).floor() as u64).max(1)
            } else {
                0
            }
        })
        .collect()
}

/// Whether block `bb` of `b` is a cold call site: its frequency is under 2 % of the
/// entry's, with the probability 2/100 as a 31-bit fraction, truncating (LLVM's
/// `isColdCallSite` without a profile).
pub fn is_cold_site(freqs: &[u64], b: &Body, bb: u32) -> bool {
    let e = freqs.get(b.layout[0] as usize).copied().unwrap_or(0) as u128;
    let site = freqs.get(bb as usize).copied().unwrap_or(0) as u128;
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
    callee_entry: u32,
    clones: &[(u32, u32)],
    call_block: u32,
    after: u32,
) {
    let need = clones
        .iter()
        .map(|c| c.1 as usize + 1)
        .chain([after as usize + 1, call_block as usize + 1])
        .max()
        .unwrap_or(0);
    if freqs.len() < need {
        freqs.resize(need, 0);
    }
    let at = |v: &[u64], b: u32| v.get(b as usize).copied().unwrap_or(0);
    let mut entry_clone = None;
    for &(cb, nb) in clones {
        freqs[nb as usize] = at(callee, cb);
        if cb == callee_entry {
            entry_clone = Some(nb);
        }
    }
    let site = at(freqs, call_block);
    if let Some(ec) = entry_clone {
        let old = at(freqs, ec) as u128;
        for &(_, nb) in clones {
            if nb != ec && old != 0 {
                let f = at(freqs, nb) as u128 * site as u128 / old;
                freqs[nb as usize] = u64::try_from(f).unwrap_or(u64::MAX);
            }
        }
        freqs[ec as usize] = site;
    }
    freqs[after as usize] = site;
}

/// `(block, mass)` pairs.
type Masses = Vec<(u32, f64)>;

/// Per block, a list of blocks, as one table (two allocations, not one per block).
struct Lists {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Lists {
    fn len(&self) -> usize {
        self.start.len() - 1
    }
}

impl std::ops::Index<usize> for Lists {
    type Output = [u32];
    fn index(&self, b: usize) -> &[u32] {
        &self.list[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

struct Cfg {
    succs: Lists,
    preds: Lists,
    rpo: Vec<u32>,
    pos: Vec<usize>,
}

fn cfg(b: &Body) -> Cfg {
    let n = b.blocks.len();
    let mut live = vec![false; n];
    for &bb in &b.layout {
        live[bb as usize] = true;
    }
    let mut start = vec![0u32; n + 1];
    let mut list = Vec::new();
    for bb in 0..n as u32 {
        start[bb as usize] = list.len() as u32;
        if live[bb as usize] {
            list.extend(b.succ_iter(bb));
        }
    }
    start[n] = list.len() as u32;
    let succs = Lists { start, list };
    let (pstart, plist) = b.pred_table();
    let preds = Lists {
        start: pstart,
        list: plist,
    };
    // iterative DFS post-order
    let entry = b.layout[0];
    let mut seen = vec![false; n];
    let mut post = Vec::new();
    let mut st: Vec<(u32, usize)> = vec![(entry, 0)];
    seen[entry as usize] = true;
    while let Some(&mut (x, ref mut k)) = st.last_mut() {
        if *k < succs[x as usize].len() {
            let s = succs[x as usize][*k];
            *k += 1;
            if !seen[s as usize] {
                seen[s as usize] = true;
                st.push((s, 0));
            }
        } else {
            post.push(x);
            st.pop();
        }
    }
    post.reverse();
    let mut pos = vec![usize::MAX; n];
    for (i, &x) in post.iter().enumerate() {
        pos[x as usize] = i;
    }
    Cfg {
        succs,
        preds,
        rpo: post,
        pos,
    }
}

fn idoms(c: &Cfg) -> Vec<u32> {
    let n = c.succs.len();
    let mut idom = vec![u32::MAX; n];
    let entry = c.rpo[0];
    idom[entry as usize] = entry;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &c.rpo[1..] {
            let mut new: Option<u32> = None;
            for &p in &c.preds[b as usize] {
                if idom[p as usize] == u32::MAX {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut bb = p;
                        while a != bb {
                            while c.pos[a as usize] > c.pos[bb as usize] {
                                a = idom[a as usize];
                            }
                            while c.pos[bb as usize] > c.pos[a as usize] {
                                bb = idom[bb as usize];
                            }
                        }
                        a
                    }
                });
            }
            if let Some(x) = new {
                if idom[b as usize] != x {
                    idom[b as usize] = x;
                    changed = true;
                }
            }
        }
    }
    idom
}

fn dominates(idom: &[u32], a: u32, mut b: u32) -> bool {
    loop {
        if a == b {
            return true;
        }
        let d = idom[b as usize];
        if d == b || d == u32::MAX {
            return false;
        }
        b = d;
    }
}

struct Loop {
    header: u32,
    blocks: Vec<bool>,
    size: usize,
}

/// Block frequencies of `b`, relative to an entry frequency of 1 (indexed by block row;
/// 0 for unreachable blocks).
pub fn block_freqs(fx: &Facts, b: &Body) -> Vec<f64> {
    let n = b.blocks.len();
    let c = cfg(b);
    let idom = idoms(&c);
    // natural loops
    let mut loops: Vec<Loop> = Vec::new();
    for &h in &c.rpo {
        let backs: Vec<u32> = c.preds[h as usize]
            .iter()
            .copied()
            .filter(|&u| c.pos[u as usize] != usize::MAX && dominates(&idom, h, u))
            .collect();
        if backs.is_empty() {
            continue;
        }
        let mut blocks = vec![false; n];
        blocks[h as usize] = true;
        let mut st = backs.clone();
        while let Some(x) = st.pop() {
            if blocks[x as usize] {
                continue;
            }
            blocks[x as usize] = true;
            for &p in &c.preds[x as usize] {
                if c.pos[p as usize] != usize::MAX && !blocks[p as usize] {
                    st.push(p);
                }
            }
        }
        let size = blocks.iter().filter(|&&x| x).count();
        loops.push(Loop {
            header: h,
            blocks,
            size,
        });
    }
    // innermost loop of each block
    let mut inner: Vec<Option<usize>> = vec![None; n];
    for (li, l) in loops.iter().enumerate() {
        for (x, slot) in inner.iter_mut().enumerate() {
            if l.blocks[x] && slot.is_none_or(|o| loops[o].size > l.size) {
                *slot = Some(li);
            }
        }
    }
    let probs = branch_probs(fx, b, &c, &loops, &inner);
    // loops innermost first
    let mut order: Vec<usize> = (0..loops.len()).collect();
    order.sort_by_key(|&l| loops[l].size);
    // per loop: local frequencies of its blocks (header = scale) and exit masses
    let mut local: Vec<Vec<(u32, f64)>> = vec![Vec::new(); loops.len()];
    let mut exits: Vec<Vec<(u32, f64)>> = vec![Vec::new(); loops.len()];
    // the loop directly containing a loop (parent), by containment
    let parent_of = |li: usize| -> Option<usize> {
        let h = loops[li].header as usize;
        loops
            .iter()
            .enumerate()
            .filter(|(k, l)| *k != li && l.blocks[h] && l.size > loops[li].size)
            .min_by_key(|(_, l)| l.size)
            .map(|(k, _)| k)
    };
    let parents: Vec<Option<usize>> = (0..loops.len()).map(parent_of).collect();
    // a block's representative at level `lvl` (None = function): the header of the
    // outermost loop strictly inside `lvl` containing it, or itself
    let rep = |x: u32, lvl: Option<usize>| -> (u32, Option<usize>) {
        let mut cur = inner[x as usize];
        let mut last: Option<usize> = None;
        while cur != lvl {
            match cur {
                None => break,
                Some(l) => {
                    last = Some(l);
                    cur = parents[l];
                }
            }
        }
        match last {
            Some(l) if cur == lvl => (loops[l].header, Some(l)),
            _ => (x, None),
        }
    };
    let solve = |lvl: Option<usize>,
                 start: u32,
                 local: &mut Vec<Vec<(u32, f64)>>,
                 exits: &Vec<Vec<(u32, f64)>>|
     -> (Masses, Masses) {
        let inside = |x: u32| match lvl {
            None => c.pos[x as usize] != usize::MAX,
            Some(l) => loops[l].blocks[x as usize],
        };
        let mut mass = vec![0f64; n];
        mass[start as usize] = 1.0;
        let mut back = 0f64;
        let mut out: Vec<(u32, f64)> = Vec::new();
        let mut visited: Vec<(u32, f64, Option<usize>)> = Vec::new();
        for &x in &c.rpo {
            if !inside(x) {
                continue;
            }
            let (r, sub) = rep(x, lvl);
            if r != x {
                continue;
            }
            let m = mass[x as usize];
            if m == 0.0 && x != start {
                visited.push((x, 0.0, sub));
                continue;
            }
            visited.push((x, m, sub));
            let dist: Vec<(u32, f64)> = match sub {
                Some(l) => exits[l].clone(),
                None => probs[x as usize].clone(),
            };
            for (t, p) in dist {
                let mm = m * p;
                if t == start && lvl.is_some() {
                    back += mm;
                } else if inside(t) {
                    let (rt, _) = rep(t, lvl);
                    mass[rt as usize] += mm;
                } else {
                    out.push((t, mm));
                }
            }
        }
        let scale = if lvl.is_some() {
            if back >= 1.0 - 1.0 / 4096.0 {
                4096.0
            } else {
                1.0 / (1.0 - back)
            }
        } else {
            1.0
        };
        let mut loc = Vec::new();
        for (x, m, sub) in visited {
            let m = m * scale;
            match sub {
                Some(l) => {
                    for &(y, f) in &local[l] {
                        loc.push((y, m * f));
                    }
                }
                None => loc.push((x, m)),
            }
        }
        let out: Vec<(u32, f64)> = out.into_iter().map(|(t, m)| (t, m * scale)).collect();
        let _ = &mut *local;
        (loc, out)
    };
    for &li in &order {
        let (loc, out) = solve(Some(li), loops[li].header, &mut local, &exits);
        local[li] = loc;
        exits[li] = out;
    }
    let (loc, _) = solve(None, c.rpo[0], &mut local, &exits);
    let mut freqs = vec![0f64; n];
    for (x, f) in loc {
        freqs[x as usize] = f;
    }
    freqs
}

fn branch_probs(
    fx: &Facts,
    b: &Body,
    c: &Cfg,
    loops: &[Loop],
    inner: &[Option<usize>],
) -> Vec<Vec<(u32, f64)>> {
    let n = b.blocks.len();
    let ir = &*fx.ir;
    // initial estimated weights
    let mut w: Vec<Option<f64>> = vec![None; n];
    for &x in &c.rpo {
        let insts = &b.blocks[x as usize];
        let Some(&t) = insts.last() else { continue };
        let mut noreturn = false;
        let mut cold = false;
        for &i in insts {
            let inst = &b.insts[i as usize];
            if let Some(ci) = &inst.call {
                let site = ir.attr_sets.get(ci.attrs);
                let f = match inst.ops[ci.callee_op as usize] {
                    V::K(Value::Global(s)) => fx.sym_func[s.idx()],
                    _ => None,
                };
                let fa = f.map(|f| ir.fn_attrs(f));
                if site.has(Attr::NoReturn) || fa.is_some_and(|a| a.has(Attr::NoReturn)) {
                    noreturn = true;
                }
                if site.has(Attr::Cold) || fa.is_some_and(|a| a.has(Attr::Cold)) {
                    cold = true;
                }
            }
        }
        if b.insts[t as usize].op == Opcode::Unreachable {
            w[x as usize] = Some(if noreturn { 1.0 } else { 0.0 });
        } else if cold {
            w[x as usize] = Some(COLD_W);
        }
    }
    let same_loop = |a: u32, s: u32| {
        inner[a as usize] == inner[s as usize] || {
            // an edge into a loop nested in a's loop, or out of it, crosses loops
            false
        }
    };
    // propagate: a block whose successors all have weights (within its loop) takes
    // their maximum
    let mut changed = true;
    while changed {
        changed = false;
        for &x in c.rpo.iter().rev() {
            if w[x as usize].is_some() || c.succs[x as usize].is_empty() {
                continue;
            }
            let mut mx: Option<f64> = None;
            let mut ok = true;
            for &s in &c.succs[x as usize] {
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
    let in_loop = |x: u32, l: usize| loops[l].blocks[x as usize];
    let exiting = |x: u32, s: u32| match inner[x as usize] {
        Some(l) => !in_loop(s, l),
        None => false,
    };
    let mut probs: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    for &x in &c.rpo {
        let succs = &c.succs[x as usize];
        if succs.is_empty() {
            continue;
        }
        let k = succs.len();
        let mut set = |ps: Vec<f64>| {
            let mut out: Vec<(u32, f64)> = Vec::new();
            for (&s, p) in succs.iter().zip(ps) {
                match out.iter_mut().find(|e| e.0 == s) {
                    Some(e) => e.1 += p,
                    None => out.push((s, p)),
                }
            }
            probs[x as usize] = out;
        };
        if k == 1 {
            set(vec![1.0]);
            continue;
        }
        // estimated weights
        let mut found = false;
        let mut ws = Vec::with_capacity(k);
        for &s in succs {
            let mut wt = w[s as usize];
            if exiting(x, s) && wt != Some(0.0) {
                wt = Some((wt.unwrap_or(DEFAULT_W) / 31.0).floor().max(1.0));
            }
            if wt.is_some() {
                found = true;
            }
            ws.push(wt.unwrap_or(DEFAULT_W));
        }
        let total: f64 = ws.iter().sum();
        if found && total > 0.0 {
            set(ws.iter().map(|v| v / total).collect());
            continue;
        }
        let t = *b.blocks[x as usize].last().unwrap();
        let term = &b.insts[t as usize];
        if term.op == Opcode::Br && k == 2 {
            if let Some(p_true) = cond_heuristic(fx, b, term.ops[0]) {
                set(vec![p_true, 1.0 - p_true]);
                continue;
            }
        }
        set(vec![1.0 / k as f64; k]);
    }
    probs
}

/// The probability of the true edge of a branch on `cond` by the pointer, zero and
/// floating-point heuristics.
fn cond_heuristic(fx: &Facts, b: &Body, cond: V) -> Option<f64> {
    let V::Inst(ci) = cond else { return None };
    let inst = &b.insts[ci as usize];
    let (likely, unlikely) = (20.0 / 32.0, 12.0 / 32.0);
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
                let li = &b.insts[li as usize];
                if li.op == Opcode::And {
                    if let V::Int(m) = li.ops[1] {
                        if m > 0 && (m & (m - 1)) == 0 {
                            return None;
                        }
                    }
                }
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
                7 => Some(1.0 - 1.0 / (1u64 << 20) as f64),
                8 => Some(1.0 / (1u64 << 20) as f64),
                1 | 9 => Some(unlikely),
                6 | 14 => Some(likely),
                _ => None,
            }
        }
        _ => None,
    }
}
