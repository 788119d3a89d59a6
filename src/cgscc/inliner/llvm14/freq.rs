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
//! the enclosing level in reverse post-order. The reverse post-order, the dominators and
//! the natural loops are the crate's own ([`crate::graph`], [`crate::cfg::loops`]).

use super::body::{Body, V};
use super::Facts;
use crate::cfg::loops::{LoopForest, LoopIdx};
use crate::graph::rpo::Rpo;
use crate::graph::{Csr, CsrGraph, DomTree, Successors};
use crate::idx::BlockIdx;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::{Opcode, Predicate, Value};

const DEFAULT_W: f64 = 0xfffff as f64;
const COLD_W: f64 = 0xffff as f64;

/// Block frequencies of `b` as LLVM's `BlockFrequencyInfo` holds them: integers, the
/// smallest non-zero frequency scaled to 8 (or the largest to 2^64 when the spread is too
/// wide), at least 1 for every reachable block, 0 for the others.
pub fn int_freqs(fx: &Facts, b: &Body) -> Vec<u64> {
    if b.layout.is_empty() {
        return vec![0; b.blocks.len()];
    }
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
    // callee blocks merged into one clone give it the largest of their frequencies
    let mut seen = vec![false; freqs.len()];
    for &(cb, nb) in clones {
        let f = at(callee, cb);
        if !std::mem::replace(&mut seen[nb as usize], true) || f > freqs[nb as usize] {
            freqs[nb as usize] = f;
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
            if nb != ec && old != 0 && !std::mem::replace(&mut scaled[nb as usize], true) {
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

/// The nodes of one level in the order visited: `(block, mass, the loop it packages)`.
type Visited = Vec<(u32, f64, Option<LoopIdx>)>;

/// One body's control flow, analysed by the crate's graph layer: the graph of its
/// blocks (the successors of the blocks in the layout, in LLVM's order, duplicates
/// kept), its reverse post-order (the DFS from the entry that takes successors in
/// order), and its natural loops (`LoopInfo`: one loop per header, with the blocks of
/// the loops nested in it; numbered by their headers' reverse post-order, outer first).
struct Flow {
    g: CsrGraph<BlockIdx>,
    rpo: Rpo<BlockIdx>,
    loops: LoopForest,
}

impl Flow {
    fn new(b: &Body) -> Flow {
        let n = b.blocks.len();
        let mut live = vec![false; n];
        for &bb in &b.layout {
            live[bb as usize] = true;
        }
        let mut starts = Vec::with_capacity(n + 1);
        let mut targets = Vec::new();
        starts.push(0u32);
        for bb in 0..n as u32 {
            if live[bb as usize] {
                targets.extend(b.succ_iter(bb).map(BlockIdx::from_raw));
            }
            starts.push(targets.len() as u32);
        }
        let g = CsrGraph::from_csr(
            Csr::from_raw(starts, targets),
            BlockIdx::from_raw(b.layout[0]),
        )
        .expect("a body's branches target its blocks");
        let mut rpo = Rpo::new();
        rpo.compute(&g);
        let mut dom = DomTree::new();
        dom.compute_auto(&g, &rpo);
        let mut loops = LoopForest::new();
        loops.compute(&g, &rpo, &dom);
        Flow { g, rpo, loops }
    }

    /// The successors of block `x`.
    fn succs(&self, x: u32) -> &[BlockIdx] {
        self.g.successors(BlockIdx::from_raw(x))
    }

    /// `LoopInfo::getLoopFor`: the innermost loop of block `x`.
    fn inner(&self, x: u32) -> Option<LoopIdx> {
        self.loops.innermost(BlockIdx::from_raw(x))
    }
}

/// Block frequencies of `b`, relative to an entry frequency of 1 (indexed by block row;
/// 0 for unreachable blocks).
pub fn block_freqs(fx: &Facts, b: &Body) -> Vec<f64> {
    let n = b.blocks.len();
    let c = Flow::new(b);
    let probs = branch_probs(fx, b, &c);
    let nl = c.loops.len();
    let mut mf = MassFlow {
        c: &c,
        probs,
        local: vec![Vec::new(); nl],
        exits: vec![Vec::new(); nl],
        mass: vec![0f64; n],
    };
    // loops innermost first (a loop is larger than the loops inside it), the loops of
    // one size in reverse post-order of their headers
    let mut order: Vec<LoopIdx> = c.loops.loops().collect();
    order.sort_by_key(|&l| c.loops.loop_blocks(l).len());
    for &li in &order {
        let (loc, out) = mf.compute_mass(Some(li));
        mf.local[li.idx()] = loc;
        mf.exits[li.idx()] = out;
    }
    let (loc, _) = mf.compute_mass(None);
    let mut freqs = vec![0f64; n];
    for (x, f) in loc {
        freqs[x as usize] = f;
    }
    freqs
}

/// The mass propagation of `BlockFrequencyInfoImpl`: the loops, the branch
/// probabilities, and per loop already solved its local frequencies (header = its
/// scale) and exit masses.
struct MassFlow<'a> {
    c: &'a Flow,
    probs: Probs,
    local: Vec<Masses>,
    exits: Vec<Masses>,
    /// Per block, the mass reaching it at the level being solved (zero between levels).
    mass: Vec<f64>,
}

impl MassFlow<'_> {
    /// A block's representative at level `lvl` (None = function), `None` if the block
    /// is not in that level (unreachable, or outside the loop): the header of the
    /// outermost loop strictly inside `lvl` containing it (packaged as one node, with
    /// that loop), or itself.
    fn rep(&self, x: u32, lvl: Option<LoopIdx>) -> Option<(u32, Option<LoopIdx>)> {
        if lvl.is_none() && !self.c.rpo.is_reachable(BlockIdx::from_raw(x)) {
            return None;
        }
        let mut cur = self.c.inner(x);
        let mut last: Option<LoopIdx> = None;
        while cur != lvl {
            let l = cur?;
            last = Some(l);
            cur = self.c.loops.parent_of(l);
        }
        Some(match last {
            Some(l) => (self.c.loops.headers()[l].raw(), Some(l)),
            None => (x, None),
        })
    }

    /// `computeMassInLoop` / `computeMassInFunction`: the local frequencies of level
    /// `lvl`'s blocks from its header (the entry for the function), scaled by the loop
    /// scale, and its exit masses.
    fn compute_mass(&mut self, lvl: Option<LoopIdx>) -> (Masses, Masses) {
        let (visited, back, out) = self.distribute_mass(lvl);
        let scale = loop_scale(lvl, back);
        let mut loc = Vec::new();
        for (x, m, sub) in visited {
            let m = m * scale;
            match sub {
                Some(l) => {
                    for &(y, f) in &self.local[l.idx()] {
                        loc.push((y, m * f));
                    }
                }
                None => loc.push((x, m)),
            }
        }
        let out: Vec<(u32, f64)> = out.into_iter().map(|(t, m)| (t, m * scale)).collect();
        (loc, out)
    }

    /// `distributeMass` over level `lvl` in reverse post-order, unit mass at its first
    /// block: the nodes visited with their masses (a packaged loop sends its exit masses),
    /// the mass back to the first block and the masses leaving the level.
    fn distribute_mass(&mut self, lvl: Option<LoopIdx>) -> (Visited, f64, Masses) {
        let c = self.c;
        // the level's blocks in reverse post-order (a loop's header first)
        let blocks: &[BlockIdx] = match lvl {
            Some(l) => c.loops.loop_blocks(l),
            None => c.rpo.order(),
        };
        let start = blocks[0].raw();
        let mut mass = std::mem::take(&mut self.mass);
        mass[start as usize] = 1.0;
        let mut back = 0f64;
        let mut out: Vec<(u32, f64)> = Vec::new();
        let mut visited: Visited = Vec::new();
        for x in blocks.iter().map(|b| b.raw()) {
            let Some((r, sub)) = self.rep(x, lvl) else {
                continue;
            };
            if r != x {
                continue;
            }
            let m = mass[x as usize];
            if m == 0.0 && x != start {
                visited.push((x, 0.0, sub));
                continue;
            }
            visited.push((x, m, sub));
            let dist: &[(u32, f64)] = match sub {
                Some(l) => &self.exits[l.idx()],
                None => self.probs.of(x),
            };
            for &(t, p) in dist {
                let mm = m * p;
                if t == start && lvl.is_some() {
                    back += mm;
                } else if let Some((rt, _)) = self.rep(t, lvl) {
                    mass[rt as usize] += mm;
                } else {
                    out.push((t, mm));
                }
            }
        }
        for &b in blocks {
            mass[b.idx()] = 0.0;
        }
        self.mass = mass;
        (visited, back, out)
    }
}

/// `computeLoopScale`: `1 / (1 - back-edge mass)` for a loop, at most 4096; 1 for the
/// function.
fn loop_scale(lvl: Option<LoopIdx>, back: f64) -> f64 {
    if lvl.is_some() {
        if back >= 1.0 - 1.0 / 4096.0 {
            4096.0
        } else {
            1.0 / (1.0 - back)
        }
    } else {
        1.0
    }
}

/// Branch probabilities: per block, its successors (each once, in successor order) with
/// the probability of going there, as one table.
struct Probs {
    /// Block `x`'s entries are `list[at[x].0..at[x].1]`.
    at: Vec<(u32, u32)>,
    list: Vec<(u32, f64)>,
}

impl Probs {
    fn of(&self, x: u32) -> &[(u32, f64)] {
        let (a, e) = self.at[x as usize];
        &self.list[a as usize..e as usize]
    }

    /// Sets block `x`'s probabilities: `ps` pairs with `succs`, and a successor listed
    /// twice gets the sum.
    fn set(&mut self, x: u32, succs: &[BlockIdx], ps: impl Iterator<Item = f64>) {
        let begin = self.list.len();
        for (s, p) in succs.iter().map(|b| b.raw()).zip(ps) {
            match self.list[begin..].iter_mut().find(|e| e.0 == s) {
                Some(e) => e.1 += p,
                None => self.list.push((s, p)),
            }
        }
        self.at[x as usize] = (begin as u32, self.list.len() as u32);
    }
}

fn branch_probs(fx: &Facts, b: &Body, c: &Flow) -> Probs {
    let n = b.blocks.len();
    let ir = &*fx.ir;
    // initial estimated weights
    let mut w: Vec<Option<f64>> = vec![None; n];
    for x in c.rpo.order().iter().map(|b| b.raw()) {
        let insts = &b.blocks[x as usize];
        let Some(&t) = insts.last() else { continue };
        let mut noreturn = false;
        let mut cold = false;
        for &i in insts {
            let inst = b.inst(i);
            if let Some(ci) = inst.call {
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
        if b.op(t) == Opcode::Unreachable {
            w[x as usize] = Some(if noreturn { 1.0 } else { 0.0 });
        } else if cold {
            w[x as usize] = Some(COLD_W);
        }
    }
    // an edge into a loop nested in a's loop, or out of it, crosses loops
    let same_loop = |a: u32, s: u32| c.inner(a) == c.inner(s);
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
    let exiting = |x: u32, s: u32| match c.inner(x) {
        Some(l) => !c.loops.contains(l, BlockIdx::from_raw(s)),
        None => false,
    };
    let mut probs = Probs {
        at: vec![(0, 0); n],
        list: Vec::with_capacity(c.g.num_edges()),
    };
    let mut ws: Vec<f64> = Vec::new();
    for x in c.rpo.order().iter().map(|b| b.raw()) {
        let succs = c.succs(x);
        if succs.is_empty() {
            continue;
        }
        let k = succs.len();
        if k == 1 {
            probs.set(x, succs, [1.0].into_iter());
            continue;
        }
        // estimated weights
        let mut found = false;
        ws.clear();
        for s in succs.iter().map(|b| b.raw()) {
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
            probs.set(x, succs, ws.iter().map(|v| v / total));
            continue;
        }
        let t = *b.blocks[x as usize].last().unwrap();
        let term = b.inst(t);
        if term.op == Opcode::Br && k == 2 {
            if let Some(p_true) = cond_heuristic(fx, b, term.ops[0]) {
                probs.set(x, succs, [p_true, 1.0 - p_true].into_iter());
                continue;
            }
        }
        probs.set(x, succs, std::iter::repeat(1.0 / k as f64));
    }
    probs
}

/// The probability of the true edge of a branch on `cond` by the pointer, zero and
/// floating-point heuristics.
fn cond_heuristic(fx: &Facts, b: &Body, cond: V) -> Option<f64> {
    let V::Inst(ci) = cond else { return None };
    let inst = b.inst(ci);
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
                let li = b.inst(li);
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
