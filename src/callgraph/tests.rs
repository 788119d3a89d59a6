use super::*;
use crate::llvm::Module;
use std::collections::BTreeSet;

fn parse(file: &str, text: &str) -> Module {
    Module::from_ll_str(file, text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn fixture_module_graph() {
    let text = include_str!("../../tests/fixtures/llvm/lcg_small.ll");
    let m = parse("lcg_small.ll", text);
    let mut g = from_module(&m, "lcg_small.ll");
    g.build_ref_sccs();
    assert!(g.verify().is_empty(), "{:?}", g.verify());
    let want = include_str!("../../tests/fixtures/llvm/lcg_small.lcg.txt");
    assert_eq!(g.print_text(), want);
}

// ------------------------------------------------------------------ mutations

fn partitions(g: &LazyCallGraph) -> (BTreeSet<Vec<NodeIdx>>, BTreeSet<Vec<NodeIdx>>) {
    let mut sccs = BTreeSet::new();
    let mut rcs = BTreeSet::new();
    for r in g.built_refsccs() {
        let mut all: Vec<NodeIdx> = g.refscc_nodes(r).collect();
        all.sort();
        rcs.insert(all);
        for &s in g.refscc_sccs(r) {
            let mut v = g.scc_nodes(s).to_vec();
            v.sort();
            sccs.insert(v);
        }
    }
    (sccs, rcs)
}

fn rebuild(g: &LazyCallGraph) -> LazyCallGraph {
    let n = g.num_nodes();
    let lists: Vec<Vec<Edge>> = g.nodes().map(|x| g.cached_edges(x).collect()).collect();
    let roots: Vec<NodeIdx> = g.nodes().filter(|&x| !g.is_removed(x)).collect();
    let names = (0..n).map(|i| format!("f{i}")).collect();
    let mut h = LazyCallGraph::new(
        "r",
        names,
        vec![true; n],
        roots,
        Vec::new(),
        Box::new(EdgeLists(lists)),
    )
    .unwrap();
    h.build_ref_sccs();
    h
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Applies one random valid mutation; returns a description.
fn random_mutation(g: &mut LazyCallGraph, rng: &mut Rng) -> String {
    let live: Vec<NodeIdx> = g.nodes().filter(|&x| !g.is_removed(x)).collect();
    let a = live[rng.next(live.len())];
    let b = live[rng.next(live.len())];
    let (ra, rb) = (g.refscc_of(a).unwrap(), g.refscc_of(b).unwrap());
    let (pa, pb) = (g.refscc_order(ra).unwrap(), g.refscc_order(rb).unwrap());
    match g.edge(a, b) {
        Some(e) => {
            let same = ra == rb;
            match (same, e.kind, rng.next(2)) {
                (true, EdgeKind::Call, _) => {
                    let new = g.switch_internal_edge_to_ref(a, b).unwrap();
                    format!("internal to_ref {a}->{b} split {}", new.len())
                }
                (true, EdgeKind::Ref, 0) => {
                    let mut merged = Vec::new();
                    g.switch_internal_edge_to_call(a, b, |m| merged.extend_from_slice(m.sccs()))
                        .unwrap();
                    format!("internal to_call {a}->{b} merged {merged:?}")
                }
                (true, EdgeKind::Ref, _) => {
                    let new = g.remove_internal_ref_edges(&[(a, b)]).unwrap();
                    format!("remove internal ref {a}->{b} split {}", new.len())
                }
                (false, EdgeKind::Call, 0) => {
                    g.switch_outgoing_edge_to_ref(a, b).unwrap();
                    format!("outgoing to_ref {a}->{b}")
                }
                (false, EdgeKind::Ref, 0) => {
                    g.switch_outgoing_edge_to_call(a, b).unwrap();
                    format!("outgoing to_call {a}->{b}")
                }
                (false, _, _) => {
                    g.remove_outgoing_edge(a, b).unwrap();
                    format!("remove outgoing {a}->{b}")
                }
            }
        }
        None => {
            if rng.next(12) == 0 {
                let c = g.add_function("new");
                let all: Vec<RefSccIdx> = g.postorder_refsccs();
                let r = all[rng.next(all.len())];
                g.add_new_function_into_refscc(c, r).unwrap();
                // connect it both ways so the RefSCC stays strongly connected
                let x = g.refscc_nodes(r).next().unwrap();
                g.insert_internal_ref_edge(x, c).unwrap();
                g.insert_internal_ref_edge(c, x).unwrap();
                return format!("new function {c} into refscc {r} linked with {x}");
            }
            if ra == rb {
                g.insert_internal_ref_edge(a, b).unwrap();
                format!("insert internal ref {a}->{b}")
            } else if pb < pa {
                let k = if rng.next(2) == 0 {
                    EdgeKind::Call
                } else {
                    EdgeKind::Ref
                };
                g.insert_outgoing_edge(a, b, k).unwrap();
                format!("insert outgoing {k:?} {a}->{b}")
            } else {
                let merged = g.insert_incoming_ref_edge(a, b).unwrap();
                format!("insert incoming ref {a}->{b} merged {}", merged.len())
            }
        }
    }
}

fn random_graph(rng: &mut Rng, n: usize) -> LazyCallGraph {
    let m = rng.next(3 * n + 1);
    let mut lists = vec![Vec::new(); n];
    for _ in 0..m {
        let a = rng.next(n);
        let b = NodeIdx::new(rng.next(n));
        if lists[a].iter().any(|e: &Edge| e.target == b) {
            continue;
        }
        let kind = if rng.next(3) == 0 {
            EdgeKind::Ref
        } else {
            EdgeKind::Call
        };
        lists[a].push(Edge { target: b, kind });
    }
    let mut g = LazyCallGraph::from_edge_lists(lists).unwrap();
    g.build_ref_sccs();
    g
}

fn check_sequence(seed: u64, n: usize, steps: usize) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut g = random_graph(&mut rng, n);
    assert!(g.verify().is_empty());
    let mut log = Vec::new();
    for _ in 0..steps {
        log.push(random_mutation(&mut g, &mut rng));
        // occasionally remove a dead function
        if rng.next(10) == 0 {
            let live: Vec<NodeIdx> = g.nodes().filter(|&x| !g.is_removed(x)).collect();
            if live.len() > 2 {
                let dead = live.iter().copied().find(|&x| {
                    live.iter().all(|&y| g.edge(y, x).is_none())
                        && g.scc_of(x).is_some_and(|s| g.scc_nodes(s).len() == 1)
                });
                if let Some(x) = dead {
                    // no edge into `x`: the removal without the sweep leaves the same
                    // graph as the one with it
                    let mut swept = g.clone();
                    swept.remove_dead_function(x).unwrap();
                    g.mark_dead_function(x).unwrap();
                    g.remove_unreferenced_dead_functions(&[x]).unwrap();
                    assert_eq!(g.print_text(), swept.print_text(), "seed {seed}");
                    assert_eq!(g.entry_nodes(), swept.entry_nodes(), "seed {seed}");
                    log.push(format!("remove dead {x}"));
                }
            }
        }
        let errs = g.verify();
        assert!(errs.is_empty(), "seed {seed}: {errs:?} after {log:?}");
        let h = rebuild(&g);
        assert_eq!(
            partitions(&g),
            partitions(&h),
            "seed {seed}: partitions differ after {log:?}"
        );
    }
    log
}

#[test]
fn random_mutation_sequences_keep_invariants() {
    let mut all = Vec::new();
    for seed in 0..300u64 {
        all.extend(check_sequence(seed, 2 + (seed % 9) as usize, 40));
    }
    // the sequences must exercise every structural change
    let count = |pat: &str| {
        all.iter()
            .filter(|l| l.contains(pat) && !l.ends_with(" 0") && !l.ends_with("[]"))
            .count()
    };
    for pat in [
        "internal to_ref",
        "internal to_call",
        "remove internal ref",
        "insert incoming ref",
        "remove dead",
        "new function",
    ] {
        assert!(count(pat) > 10, "too few structural {pat}: {}", count(pat));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn proptest_mutations(seed in 0u64..u64::MAX, n in 1usize..12, steps in 1usize..60) {
        check_sequence(seed, n, steps);
    }
}

#[test]
fn switch_to_ref_splits_like_llvm() {
    // a -> b -> c -> a all calls; switching c->a to ref splits into {c}, {b}, {a}
    // with a (the target) keeping the old SCC last.
    let call = |t| Edge {
        target: NodeIdx(t),
        kind: EdgeKind::Call,
    };
    let n = NodeIdx;
    let mut g =
        LazyCallGraph::from_edge_lists(vec![vec![call(1)], vec![call(2)], vec![call(0)]]).unwrap();
    g.build_ref_sccs();
    assert_eq!(g.postorder_names(), vec![vec![vec!["f0", "f1", "f2"]]]);
    let new = g.switch_internal_edge_to_ref(n(2), n(0)).unwrap();
    assert_eq!(new.len(), 2);
    assert_eq!(
        g.postorder_names(),
        vec![vec![vec!["f2"], vec!["f1"], vec!["f0"]]]
    );
    assert!(g.verify().is_empty());
    let mut seen = Vec::new();
    assert!(g
        .switch_internal_edge_to_call(n(2), n(0), |m| seen.extend_from_slice(m.sccs()))
        .unwrap());
    assert_eq!(seen.len(), 2);
    assert_eq!(g.postorder_names(), vec![vec![vec!["f0", "f2", "f1"]]]);
}

/// `update_node_edges` with random new edge sets keeps every invariant and the same
/// partitions as a rebuild.
#[test]
fn random_node_edge_updates_keep_invariants() {
    let (mut splits, mut merges, mut rc_splits, mut rc_merges) = (0, 0, 0, 0);
    for seed in 0..400u64 {
        let mut rng = Rng(seed ^ 0x5555);
        let n = 2 + (seed % 10) as usize;
        let mut g = random_graph(&mut rng, n);
        for step in 0..12 {
            let a = NodeIdx::new(rng.next(n));
            let mut new = Vec::new();
            for b in (0..n).map(NodeIdx::new) {
                if rng.next(3) == 0 {
                    let kind = if rng.next(2) == 0 {
                        EdgeKind::Call
                    } else {
                        EdgeKind::Ref
                    };
                    new.push(Edge { target: b, kind });
                }
            }
            // shuffle a little so retained and new edges interleave
            if new.len() > 1 {
                let k = rng.next(new.len());
                new.swap(0, k);
            }
            let up = g.update_node_edges(a, &new).unwrap();
            splits += up.new_sccs.len();
            merges += up.merged_sccs.len();
            rc_splits += up.new_refsccs.len();
            rc_merges += up.merged_refsccs.len();
            let errs = g.verify();
            assert!(errs.is_empty(), "seed {seed} step {step}: {errs:?}");
            let mut mine: Vec<Edge> = g.cached_edges(a).collect();
            mine.sort_by_key(|e| e.target);
            new.sort_by_key(|e| e.target);
            assert_eq!(mine, new, "seed {seed} step {step}: edge set");
            let h = rebuild(&g);
            assert_eq!(
                partitions(&g),
                partitions(&h),
                "seed {seed} step {step}: partitions"
            );
        }
    }
    assert!(
        splits > 20 && merges > 20 && rc_splits > 20 && rc_merges > 20,
        "{splits} {merges} {rc_splits} {rc_merges}"
    );
}

#[test]
fn trivial_insertions_and_pre_build_edits() {
    let call = |t| Edge {
        target: NodeIdx(t),
        kind: EdgeKind::Call,
    };
    let n = NodeIdx;
    // 0 -> 1 -> 2, all roots
    let mut g = LazyCallGraph::from_edge_lists(vec![vec![call(1)], vec![call(2)], vec![]]).unwrap();
    g.insert_edge(n(2), n(0), EdgeKind::Ref).unwrap();
    g.remove_edge(n(2), n(0)).unwrap();
    g.build_ref_sccs();
    g.insert_trivial_ref_edge(n(0), n(2)).unwrap();
    g.insert_trivial_call_edge(n(0), n(2)).unwrap();
    assert_eq!(g.edge(n(0), n(2)).map(|e| e.kind), Some(EdgeKind::Call));
    assert!(g.verify().is_empty());
    g.replace_node_function(n(1), "renamed").unwrap();
    assert_eq!(g.node_by_name("renamed"), Some(n(1)));
    assert_eq!(g.node_by_name("f1"), None);
}

/// `add_split_function` with edges modelled on outlining (a subset of the original's
/// edges, possibly weakened to refs, possibly back to the original) keeps every
/// invariant and matches a rebuild.
#[test]
fn random_split_functions_keep_invariants() {
    let mut placed = [0usize; 3];
    for seed in 0..400u64 {
        let mut rng = Rng(seed ^ 0xabcdef);
        let n = 2 + (seed % 8) as usize;
        let mut g = random_graph(&mut rng, n);
        for _ in 0..4 {
            let live: Vec<NodeIdx> = g.nodes().collect();
            let orig = live[rng.next(live.len())];
            let mut edges = Vec::new();
            for e in g.cached_edges(orig).collect::<Vec<_>>() {
                if rng.next(2) == 0 {
                    let kind = if e.is_call() && rng.next(3) > 0 {
                        EdgeKind::Call
                    } else {
                        EdgeKind::Ref
                    };
                    edges.push(Edge {
                        target: e.target,
                        kind,
                    });
                }
            }
            if rng.next(3) == 0 && !edges.iter().any(|e: &Edge| e.target == orig) {
                let kind = if rng.next(2) == 0 {
                    EdgeKind::Call
                } else {
                    EdgeKind::Ref
                };
                edges.push(Edge { target: orig, kind });
            }
            let kind = if rng.next(2) == 0 {
                EdgeKind::Call
            } else {
                EdgeKind::Ref
            };
            let before_sccs = g.scc_of(orig).map(|s| g.scc_nodes(s).len()).unwrap();
            let new = g.add_split_function(orig, "split", kind, edges).unwrap();
            if g.scc_of(new) == g.scc_of(orig) {
                placed[0] += 1;
                assert_eq!(g.scc_nodes(g.scc_of(orig).unwrap()).len(), before_sccs + 1);
            } else if g.refscc_of(new) == g.refscc_of(orig) {
                placed[1] += 1;
            } else {
                placed[2] += 1;
            }
            let errs = g.verify();
            assert!(errs.is_empty(), "seed {seed}: {errs:?}");
            let h = rebuild(&g);
            assert_eq!(partitions(&g), partitions(&h), "seed {seed}: partitions");
        }
    }
    assert!(placed.iter().all(|&c| c > 20), "{placed:?}");
}

#[test]
fn hot_row_sizes() {
    assert_eq!(std::mem::size_of::<Edge>(), 8);
    assert_eq!(std::mem::size_of::<crate::llvm::OperandRef>(), 12);
}

/// LLVM's `buildRefSCCs`, transcribed literally (the `dfs`/`low` encoding of
/// `buildGenericSCCs`, a RefSCC walk over every edge from the roots, then a call-edge
/// walk from each RefSCC's nodes): the order oracle for `build_ref_sccs`.
fn llvm_build_ref_sccs(lists: &[Vec<Edge>], roots: &[usize]) -> Vec<Vec<Vec<usize>>> {
    let n = lists.len();
    let mut dfs = vec![0i32; n];
    let mut low = vec![0i32; n];
    let mut generic = |dfs: &mut Vec<i32>, roots: &[usize], calls_only: bool| {
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut pending: Vec<usize> = Vec::new();
        for &root in roots {
            if dfs[root] != 0 {
                continue;
            }
            dfs[root] = 1;
            low[root] = 1;
            let mut next = 2;
            stack.push((root, 0));
            while let Some((mut v, mut i)) = stack.pop() {
                while let Some(&e) = lists[v].get(i) {
                    if calls_only && !e.is_call() {
                        i += 1;
                        continue;
                    }
                    let c = e.target.idx();
                    if dfs[c] == 0 {
                        stack.push((v, i));
                        dfs[c] = next;
                        low[c] = next;
                        next += 1;
                        v = c;
                        i = 0;
                        continue;
                    }
                    if dfs[c] != -1 && low[c] < low[v] {
                        low[v] = low[c];
                    }
                    i += 1;
                }
                pending.push(v);
                let root_dfs = dfs[v];
                if low[v] != root_dfs {
                    continue;
                }
                let mut comp = Vec::new();
                while let Some(&top) = pending.last() {
                    if dfs[top] < root_dfs {
                        break;
                    }
                    pending.pop();
                    dfs[top] = -1;
                    low[top] = -1;
                    comp.push(top);
                }
                out.push(comp);
            }
        }
        out
    };
    let groups = generic(&mut dfs, roots, false);
    groups
        .iter()
        .map(|g| {
            for &x in g {
                dfs[x] = 0;
            }
            generic(&mut dfs, g, true)
        })
        .collect()
}

/// `build_ref_sccs` gives exactly LLVM's RefSCC and SCC orders, with and without ref
/// edges inside RefSCCs (the second walk runs only where one exists).
#[test]
fn build_matches_llvm_transcription() {
    let mut rng = Rng(0xfeed);
    let mut second_walks = 0;
    for round in 0..3000 {
        let n = 1 + rng.next(14);
        let refs = rng.next(4); // 0: no ref edges at all
        let m = rng.next(3 * n + 1);
        let mut lists = vec![Vec::new(); n];
        for _ in 0..m {
            let a = rng.next(n);
            let b = NodeIdx::new(rng.next(n));
            if lists[a].iter().any(|e: &Edge| e.target == b) {
                continue;
            }
            let kind = if refs > 0 && rng.next(refs + 1) == 0 {
                EdgeKind::Ref
            } else {
                EdgeKind::Call
            };
            lists[a].push(Edge { target: b, kind });
        }
        let mut roots: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            roots.swap(i, rng.next(i + 1));
        }
        roots.truncate(1 + rng.next(n));
        let want = llvm_build_ref_sccs(&lists, &roots);
        second_walks += want.iter().filter(|r| r.len() > 1).count();
        let names = (0..n).map(|i| format!("f{i}")).collect();
        let mut g = LazyCallGraph::new(
            "t",
            names,
            vec![true; n],
            roots.iter().map(|&r| NodeIdx::new(r)).collect(),
            Vec::new(),
            Box::new(EdgeLists(lists)),
        )
        .unwrap();
        g.build_ref_sccs();
        let mine: Vec<Vec<Vec<usize>>> = g
            .postorder_refsccs()
            .into_iter()
            .map(|r| {
                g.refscc_sccs(r)
                    .iter()
                    .map(|&s| g.scc_nodes(s).iter().map(|x| x.idx()).collect())
                    .collect()
            })
            .collect();
        assert_eq!(mine, want, "round {round}");
        assert!(g.verify().is_empty(), "round {round}: {:?}", g.verify());
    }
    assert!(second_walks > 100, "{second_walks}");
}
