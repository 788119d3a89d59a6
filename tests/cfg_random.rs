//! CHK, Semi-NCA, RPO and loops against slow, obvious oracles on many random small CFGs.
#![allow(clippy::needless_range_loop)]

use ilkit::cfg::loops::CycleIdx;
use ilkit::cfg::{BlockIdx, Cfg, InsnIdx, Term};
use ilkit::graph::dom::DomTree;
use ilkit::graph::rpo::{Rpo, RpoVariant};
use ilkit::graph::{Predecessors, Successors};
use ilkit::idx::IndexVec;
use std::collections::BTreeMap;

/// The oracles work on plain numbers; `u32::MAX` is "none" there.
const NONE: u32 = u32::MAX;

fn b(i: u32) -> BlockIdx {
    BlockIdx::from_raw(i)
}

/// A block-keyed table of blocks as plain numbers (`BlockIdx::NONE` is `NONE`).
fn raw(v: &IndexVec<BlockIdx, BlockIdx>) -> Vec<u32> {
    v.iter().map(|x| x.raw()).collect()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_cfg(rng: &mut Rng, n: usize, extra: usize) -> Cfg {
    let mut succs = vec![Vec::new(); n];
    // mostly a spine so most blocks are reachable, plus random edges (back, cross, self)
    for b in 0..n.saturating_sub(1) {
        if rng.below(5) != 0 {
            succs[b].push(BlockIdx::new(b + 1));
        }
    }
    for _ in 0..extra {
        let a = rng.below(n as u64) as usize;
        let b = rng.below(n as u64) as u32;
        succs[a].push(BlockIdx::from_raw(b));
    }
    Cfg::from_parts(
        "r".into(),
        vec![String::new(); n],
        vec![0; n],
        vec![Term::Other; n],
        vec![vec![]; n],
        &succs,
    )
    .unwrap()
}

fn reach(cfg: &Cfg, from: u32, avoid: u32) -> Vec<bool> {
    let n = cfg.num_blocks();
    let mut seen = vec![false; n];
    if from == avoid {
        return seen;
    }
    let mut st = vec![from];
    seen[from as usize] = true;
    while let Some(x) = st.pop() {
        for &s in cfg.successors(b(x)) {
            let s = s.raw();
            if s != avoid && !seen[s as usize] {
                seen[s as usize] = true;
                st.push(s);
            }
        }
    }
    seen
}

/// dom[b] = set of dominators of b (None if unreachable), by "d dominates b iff b is not
/// reachable from the entry when d is removed".
fn dom_sets(cfg: &Cfg) -> Vec<Option<Vec<bool>>> {
    let n = cfg.num_blocks();
    let r = reach(cfg, 0, NONE);
    let mut dom: Vec<Option<Vec<bool>>> = (0..n).map(|b| r[b].then(|| vec![false; n])).collect();
    for d in 0..n as u32 {
        if !r[d as usize] {
            continue;
        }
        let without = reach(cfg, 0, d);
        for b in 0..n {
            if r[b] && (b as u32 == d || !without[b]) {
                dom[b].as_mut().unwrap()[d as usize] = true;
            }
        }
    }
    dom
}

/// The textbook dataflow: Dom(entry) = {entry}; Dom(b) = {b} ∪ ⋂ Dom(p) over reachable
/// predecessors p, iterated to a fixpoint from "all blocks" (bitsets; n <= 64).
fn dataflow_dom_sets(cfg: &Cfg) -> Vec<Option<u64>> {
    let n = cfg.num_blocks();
    assert!(n <= 64);
    let r = reach(cfg, 0, NONE);
    let all = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let mut dom: Vec<Option<u64>> = (0..n).map(|b| r[b].then_some(all)).collect();
    dom[0] = Some(1);
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !r[b] {
                continue;
            }
            let mut acc = all;
            for &p in cfg.predecessors(BlockIdx::new(b)) {
                if let Some(d) = dom[p.idx()] {
                    acc &= d;
                }
            }
            let new = Some(acc | 1 << b);
            if dom[b] != new {
                dom[b] = new;
                changed = true;
            }
        }
    }
    dom
}

fn oracle_idom(dom: &[Option<Vec<bool>>]) -> Vec<u32> {
    let n = dom.len();
    (0..n)
        .map(|b| match &dom[b] {
            None => NONE,
            Some(_) if b == 0 => 0,
            Some(ds) => {
                // the strict dominator with the most dominators is the closest
                (0..n)
                    .filter(|&d| d != b && ds[d])
                    .max_by_key(|&d| dom[d].as_ref().unwrap().iter().filter(|&&x| x).count())
                    .unwrap() as u32
            }
        })
        .collect()
}

#[test]
fn dominators_and_rpo_match_oracle() {
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let mut rpo = Rpo::new();
    let mut rpo2 = Rpo::new();
    let mut chk = DomTree::new();
    let mut snca = DomTree::new();
    let mut auto = DomTree::new();
    for iter in 0..3000 {
        let n = 1 + rng.below(24) as usize;
        let extra = rng.below(2 * n as u64 + 1) as usize;
        let cfg = random_cfg(&mut rng, n, extra);
        rpo.compute_with(&cfg, RpoVariant::Ptxas);
        rpo2.compute_with(&cfg, RpoVariant::Recursive);
        assert_eq!(rpo.order(), rpo2.order(), "iter {iter}");
        assert!(rpo.verify(&cfg).is_empty());
        // RPO validity: every non-back edge goes forward; back edges target DFS ancestors
        // (which dominate nothing in particular, but must reach the source).
        for (u, v) in cfg.edges() {
            let (ru, rv) = (rpo.number(u).unwrap_or(NONE), rpo.number(v).unwrap_or(NONE));
            let (u, v) = (u.raw(), v.raw());
            if ru != NONE && rv <= ru {
                assert!(
                    reach(&cfg, v, NONE)[u as usize],
                    "iter {iter}: backedge {u}->{v} is not on a cycle"
                );
            }
        }
        let ds = dom_sets(&cfg);
        let df = dataflow_dom_sets(&cfg);
        for b in 0..n {
            let bits = ds[b].as_ref().map(|s| {
                s.iter()
                    .enumerate()
                    .filter(|x| *x.1)
                    .fold(0u64, |a, (i, _)| a | 1 << i)
            });
            assert_eq!(bits, df[b], "iter {iter}: the two oracles disagree at {b}");
        }
        let want = oracle_idom(&ds);
        chk.compute_chk(&cfg, &rpo);
        snca.compute_semi_nca(&cfg);
        assert_eq!(
            raw(chk.idoms()),
            want,
            "iter {iter} CHK edges {:?}",
            cfg.edges()
        );
        assert_eq!(
            raw(snca.idoms()),
            want,
            "iter {iter} SNCA edges {:?}",
            cfg.edges()
        );
        auto.compute_auto(&cfg, &rpo);
        assert_eq!(
            raw(auto.idoms()),
            want,
            "iter {iter} auto edges {:?}",
            cfg.edges()
        );
        assert!(
            rpo.verify(&cfg).is_empty(),
            "iter {iter}: {:?}",
            rpo.verify(&cfg)
        );
        assert!(chk.verify(&cfg).is_empty());
        for a in 0..n {
            for b in 0..n {
                let d = ds[b].as_ref().is_some_and(|s| s[a]) && ds[a].is_some();
                assert_eq!(
                    chk.dominates(BlockIdx::new(a), BlockIdx::new(b)),
                    d,
                    "iter {iter} dominates({a},{b})"
                );
            }
        }
    }
}

#[test]
fn loops_match_oracle() {
    let mut rng = Rng(12345);
    for iter in 0..3000 {
        let n = 1 + rng.below(20) as usize;
        let extra = rng.below(2 * n as u64 + 1) as usize;
        let cfg = random_cfg(&mut rng, n, extra);
        let info = cfg.analyze();
        assert!(info.verify(&cfg).is_empty(), "{:?}", info.verify(&cfg));
        let ds = dom_sets(&cfg);
        let dominates = |a: usize, b: usize| ds[b].as_ref().is_some_and(|s| s[a]);
        // Oracle: natural loop of header h = h + blocks reaching a latch without h.
        let mut want: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (u, h) in cfg.edges() {
            let (u, h) = (u.raw(), h.raw());
            if ds[u as usize].is_some() && dominates(h as usize, u as usize) {
                let e = want.entry(h).or_default();
                e.push(h);
                // blocks x with x reaching u avoiding h: reverse reachability
                for x in 0..n as u32 {
                    if ds[x as usize].is_some()
                        && (x == u || (x != h && reach(&cfg, x, h)[u as usize]))
                    {
                        e.push(x);
                    }
                }
            }
        }
        for v in want.values_mut() {
            v.sort();
            v.dedup();
        }
        let lf = info.loops();
        let mut mine = BTreeMap::new();
        for l in lf.loops() {
            let mut bs: Vec<u32> = lf.loop_blocks(l).iter().map(|b| b.raw()).collect();
            bs.sort();
            mine.insert(lf.header_of(l).unwrap().raw(), bs);
        }
        assert_eq!(mine, want, "iter {iter} edges {:?}", cfg.edges());
        // depth = number of loops containing the header; parent = smallest strict container
        for l in lf.loops() {
            let h = lf.header_of(l).unwrap().raw();
            let containers: Vec<u32> = want
                .iter()
                .filter(|(_, bs)| bs.contains(&h))
                .map(|(&k, _)| k)
                .collect();
            assert_eq!(
                lf.depth_of(l).unwrap() as usize,
                containers.len(),
                "iter {iter} depth of loop at {h}"
            );
            let p = want
                .iter()
                .filter(|(&k, bs)| k != h && bs.contains(&h))
                .min_by_key(|(_, bs)| bs.len())
                .map(|(&k, _)| k);
            let mp = lf.parent_of(l).map(|p| lf.header_of(p).unwrap().raw());
            assert_eq!(mp, p, "iter {iter} parent of loop at {h}");
        }
        // irreducible iff the reachable graph minus dominator backedges has a cycle
        let mut indeg = vec![0usize; n];
        let fwd: Vec<(u32, u32)> = cfg
            .edges()
            .into_iter()
            .map(|(u, v)| (u.raw(), v.raw()))
            .filter(|&(u, v)| ds[u as usize].is_some() && !dominates(v as usize, u as usize))
            .collect();
        for &(_, v) in &fwd {
            indeg[v as usize] += 1;
        }
        let mut st: Vec<u32> = (0..n as u32)
            .filter(|&b| ds[b as usize].is_some() && indeg[b as usize] == 0)
            .collect();
        let mut seen = 0;
        while let Some(x) = st.pop() {
            seen += 1;
            for &(u, v) in &fwd {
                if u == x {
                    indeg[v as usize] -= 1;
                    if indeg[v as usize] == 0 {
                        st.push(v);
                    }
                }
            }
        }
        let reachable = ds.iter().filter(|d| d.is_some()).count();
        assert_eq!(
            !lf.irreducible_edges().is_empty(),
            seen != reachable,
            "iter {iter} irreducible, edges {:?}",
            cfg.edges()
        );
    }
}

#[test]
fn adversarial_families_agree() {
    // the bench's backward ladder: CHK needs n passes, the answer is r for every block
    let n = 60u32;
    let mut e = vec![(0, 1), (0, n)];
    for i in 1..n {
        e.push((i, i + 1));
        e.push((i + 1, i));
    }
    let mut succs = vec![Vec::new(); n as usize + 1];
    for (a, t) in e {
        succs[a as usize].push(b(t));
    }
    let k = n as usize + 1;
    let cfg = Cfg::from_parts(
        "l".into(),
        vec![String::new(); k],
        vec![0; k],
        vec![Term::Other; k],
        vec![vec![]; k],
        &succs,
    )
    .unwrap();
    let mut rpo = Rpo::new();
    rpo.compute(&cfg);
    let mut a = DomTree::new();
    let mut b = DomTree::new();
    a.compute_chk(&cfg, &rpo);
    b.compute_semi_nca(&cfg);
    assert_eq!(a.idoms(), b.idoms());
    assert_eq!(oracle_idom(&dom_sets(&cfg)), raw(a.idoms()));
    assert!(a.idoms().raw()[1..].iter().all(|&d| d == BlockIdx::new(0)));
}

#[test]
fn dispatch_blocks_remove_every_irreducible_cycle() {
    use ilkit::cfg::{CfgInfo, DomAlgo};
    let mut rng = Rng(777);
    let mut fixed = 0;
    for iter in 0..600 {
        let n = 2 + rng.below(16) as usize;
        let extra = rng.below(2 * n as u64 + 1) as usize;
        let mut cfg = random_cfg(&mut rng, n, extra);
        if !cfg.predecessors(b(0)).is_empty() {
            continue; // entry inside a cycle: out of scope (ptxas' entry has no preds)
        }
        let reach_before: Vec<bool> = reach(&cfg, 0, NONE);
        let mut info = cfg.analyze();
        let mut rounds = 0;
        while info.loops().irreducible_count() > 0 {
            let region = info.loops().cycle_blocks(CycleIdx::new(0)).to_vec();
            let d = cfg.make_single_entry(&region);
            assert_ne!(d, None, "iter {iter}");
            assert!(cfg.verify().is_empty());
            let mut semi = CfgInfo::default();
            semi.compute_with(&cfg, DomAlgo::SemiNca);
            info = cfg.analyze();
            assert_eq!(semi.dom().idoms(), info.dom().idoms());
            assert!(
                info.verify(&cfg).is_empty(),
                "iter {iter}: {:?}",
                info.verify(&cfg)
            );
            rounds += 1;
            assert!(rounds < 64, "iter {iter}: no progress");
            fixed += 1;
        }
        // original blocks keep their reachability
        let after = reach(&cfg, 0, NONE);
        assert_eq!(&after[..n], &reach_before[..], "iter {iter}");
    }
    assert!(fixed > 50, "only {fixed} cycles fixed");
}

#[test]
fn random_mutation_sequences_stay_consistent() {
    let mut rng = Rng(4242);
    for iter in 0..400 {
        let n = 2 + rng.below(12) as usize;
        let extra = rng.below(n as u64 + 1) as usize;
        let base = random_cfg(&mut rng, n, extra);
        // give every block two instructions so splits have somewhere to cut
        let succs: Vec<Vec<BlockIdx>> =
            base.blocks().map(|b| base.successors(b).to_vec()).collect();
        let insns = (0..n as u32)
            .map(|b| vec![InsnIdx::from_raw(2 * b), InsnIdx::from_raw(2 * b + 1)])
            .collect();
        let mut cfg = Cfg::from_parts(
            "m".into(),
            vec![String::new(); n],
            vec![0; n],
            vec![Term::Fallthrough; n],
            insns,
            &succs,
        )
        .unwrap();
        for step in 0..12 {
            let nb = cfg.num_blocks() as u64;
            let b = BlockIdx::from_raw(rng.below(nb) as u32);
            match rng.below(4) {
                0 => {
                    let k = rng.below(cfg.insns(b).len() as u64 + 1) as u32;
                    cfg.split_block(b, k).unwrap();
                }
                1 => {
                    cfg.merge_blocks(b);
                }
                2 => {
                    if let Some(&t) = cfg.successors(b).first() {
                        cfg.redirect_edge(b, t, BlockIdx::from_raw(rng.below(nb) as u32));
                    }
                }
                _ => {
                    let info = cfg.analyze();
                    if !info.loops().is_empty() {
                        let h = info.loops().headers().raw()
                            [rng.below(info.loops().len() as u64) as usize];
                        cfg.insert_preheader(&info, h).unwrap();
                    }
                }
            }
            assert!(
                cfg.verify().is_empty(),
                "iter {iter} step {step}: {:?}",
                cfg.verify()
            );
            let info = cfg.analyze();
            assert!(
                info.verify(&cfg).is_empty(),
                "iter {iter} step {step}: {:?}",
                info.verify(&cfg)
            );
            if cfg.num_blocks() <= 64 {
                assert_eq!(
                    raw(info.dom().idoms()),
                    oracle_idom(&dom_sets(&cfg)),
                    "iter {iter} step {step}"
                );
            }
            // every instruction is still owned by exactly one block (merges may drop a bra)
            let mut seen = std::collections::HashSet::new();
            for blk in cfg.blocks() {
                for &i in cfg.insns(blk) {
                    assert!(
                        seen.insert(i),
                        "iter {iter} step {step}: insn {i} in two blocks"
                    );
                }
            }
        }
    }
}
