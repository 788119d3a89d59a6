//! Property tests for the lazy call graph's mutations: random sequences of every
//! mutation (LLVM 14's and LLVM main's, with valid and invalid
//! arguments) on random graphs. After each step `verify()` must be clean and the SCC
//! and RefSCC partitions must equal a from-scratch build of the current edges; an
//! operation that returns an error must leave the graph unchanged, and none may panic.
//!
//! `random_sequences_ci` runs 200 sequences of 40 steps. The ignored
//! `random_sequences_many` runs 20 000 sequences (override with `LCG_PROP_SEQS=N`):
//! `cargo test --release --test lcg_props -- --ignored`.

use ilkit::callgraph::{Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx, RefSccIdx, SccIdx};
use std::collections::BTreeSet;

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
    fn coin(&mut self, k: usize) -> bool {
        self.next(k) == 0
    }
}

type Partition = (BTreeSet<Vec<NodeIdx>>, BTreeSet<Vec<NodeIdx>>);

fn partitions(g: &LazyCallGraph) -> Partition {
    let (mut sccs, mut rcs) = (BTreeSet::new(), BTreeSet::new());
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

/// A from-scratch build of `g`'s live nodes and current edges (every live node a
/// root).
fn rebuild(g: &LazyCallGraph) -> LazyCallGraph {
    let lists: Vec<Vec<Edge>> = g.nodes().map(|x| g.cached_edges(x).collect()).collect();
    let mut h = LazyCallGraph::from_edge_lists(lists).unwrap();
    // from_edge_lists makes every node a root: removed nodes have no edges and no
    // edge targets them, so each becomes a singleton we drop from the comparison.
    h.build_ref_sccs();
    h
}

fn live_partitions(g: &LazyCallGraph, h: &LazyCallGraph) -> Partition {
    let (s, r) = partitions(h);
    let keep = |v: &Vec<NodeIdx>| !(v.len() == 1 && g.is_removed(v[0]));
    (
        s.into_iter().filter(keep).collect(),
        r.into_iter().filter(keep).collect(),
    )
}

/// Everything observable: post-order with indices, every edge list, removed flags.
type Snapshot = (
    Vec<(RefSccIdx, Vec<(SccIdx, Vec<NodeIdx>)>)>,
    Vec<Vec<Edge>>,
    Vec<bool>,
);

fn snapshot(g: &LazyCallGraph) -> Snapshot {
    (
        g.built_refsccs()
            .map(|r| {
                (
                    r,
                    g.refscc_sccs(r)
                        .iter()
                        .map(|&s| (s, g.scc_nodes(s).to_vec()))
                        .collect(),
                )
            })
            .collect(),
        g.nodes().map(|x| g.cached_edges(x).collect()).collect(),
        g.nodes().map(|x| g.is_removed(x)).collect(),
    )
}

fn live(g: &LazyCallGraph) -> Vec<NodeIdx> {
    g.nodes().filter(|&x| !g.is_removed(x)).collect()
}

/// A node: usually live, sometimes removed or out of range (invalid on purpose).
fn pick(g: &LazyCallGraph, rng: &mut Rng) -> NodeIdx {
    if rng.coin(25) {
        return NodeIdx::new(g.num_nodes() + rng.next(3));
    }
    if rng.coin(8) {
        return NodeIdx::new(rng.next(g.num_nodes()));
    }
    let l = live(g);
    l[rng.next(l.len())]
}

fn kind(rng: &mut Rng) -> EdgeKind {
    if rng.coin(2) {
        EdgeKind::Call
    } else {
        EdgeKind::Ref
    }
}

/// Whether `t`'s RefSCC is `r` or comes before it.
fn not_later(g: &LazyCallGraph, t: NodeIdx, r: RefSccIdx) -> bool {
    match (g.refscc_of(t), g.refscc_order(r)) {
        (Some(rt), Some(o)) => g.refscc_order(rt).is_some_and(|x| x <= o),
        _ => false,
    }
}

/// One random operation; `Ok(description)` or the error it returned.
fn step(g: &mut LazyCallGraph, rng: &mut Rng, names: &mut usize) -> Result<String, LcgError> {
    let a = pick(g, rng);
    // half the time an existing edge of `a`, so the edge-switching operations hit
    let b = match g.cached_edges(a).len() {
        k if k > 0 && rng.coin(2) => g.cached_edges(a).nth(rng.next(k)).unwrap().target,
        _ => pick(g, rng),
    };
    let op = rng.next(17);
    match op {
        0 => g
            .switch_internal_edge_to_call(a, b, |_| {})
            .map(|m| format!("to_call {a}->{b} {m}")),
        1 => g
            .switch_internal_edge_to_ref(a, b)
            .map(|v| format!("to_ref {a}->{b} {}", v.len())),
        2 => g
            .switch_trivial_internal_edge_to_ref(a, b)
            .map(|()| format!("trivial to_ref {a}->{b}")),
        3 => g
            .switch_outgoing_edge_to_call(a, b)
            .map(|()| format!("out to_call {a}->{b}")),
        4 => g
            .switch_outgoing_edge_to_ref(a, b)
            .map(|()| format!("out to_ref {a}->{b}")),
        5 => g
            .insert_internal_ref_edge(a, b)
            .map(|()| format!("ins internal {a}->{b}")),
        6 => {
            let k = kind(rng);
            g.insert_outgoing_edge(a, b, k)
                .map(|()| format!("ins out {k:?} {a}->{b}"))
        }
        7 => g
            .insert_incoming_ref_edge(a, b)
            .map(|v| format!("ins incoming {a}->{b} merged {}", v.len())),
        8 => g
            .remove_outgoing_edge(a, b)
            .map(|()| format!("rm out {a}->{b}")),
        9 => g
            .insert_trivial_call_edge(a, b)
            .map(|()| format!("trivial call {a}->{b}")),
        10 => g
            .insert_trivial_ref_edge(a, b)
            .map(|()| format!("trivial ref {a}->{b}")),
        11 => {
            // a batch of internal ref edges of one RefSCC (several sources), sometimes
            // with a foreign pair thrown in
            let Some(r) = g.refscc_of(a) else {
                return g
                    .remove_internal_ref_edges(&[(a, b)])
                    .map(|_| String::new());
            };
            let mut pairs: Vec<(NodeIdx, NodeIdx)> = Vec::new();
            for x in g.refscc_nodes(r).collect::<Vec<_>>() {
                for e in g.cached_edges(x) {
                    if !e.is_call() && g.refscc_of(e.target) == Some(r) && rng.coin(3) {
                        pairs.push((x, e.target));
                    }
                }
            }
            if rng.coin(10) {
                pairs.push((a, b));
            }
            g.remove_internal_ref_edges(&pairs)
                .map(|v| format!("rm internal {pairs:?} split {}", v.len()))
        }
        12 => g.mark_dead_function(a).map(|()| format!("mark dead {a}")),
        13 => {
            // LLVM main's dead-function removal: as given (refused while one still
            // calls), or mark each first (the usual sequence)
            if live(g).len() <= 3 {
                return Ok("skip".into());
            }
            let mut dead = vec![a];
            if rng.coin(3) {
                dead.push(b);
            }
            if rng.coin(4) {
                return g
                    .remove_dead_functions(&dead)
                    .map(|()| format!("rm dead {dead:?}"));
            }
            let mut marked = Vec::new();
            for &d in &dead {
                if g.mark_dead_function(d).is_ok() {
                    marked.push(d);
                }
            }
            let in_cycle = marked.iter().any(|&d| {
                g.refscc_of(d)
                    .is_some_and(|r| g.refscc_nodes(r).nth(1).is_some())
            });
            let tag = if in_cycle {
                "in a RefSCC cycle"
            } else {
                "alone"
            };
            g.remove_dead_functions(&marked)
                .map(|()| format!("mark+rm dead {tag} {marked:?}"))
        }
        14 => {
            if live(g).len() <= 3 {
                return Ok("skip".into());
            }
            g.remove_dead_function(a)
                .map(|()| format!("rm dead 14 {a}"))
        }
        15 => {
            // a split-off function with random edges to the original's RefSCC or
            // earlier ones (sometimes a later one: refused)
            let Some(r) = g.refscc_of(a) else {
                return g
                    .add_split_function(a, "bad", EdgeKind::Call, vec![])
                    .map(|_| String::new());
            };
            let mut edges = Vec::new();
            for x in live(g) {
                if (not_later(g, x, r) || rng.coin(30)) && rng.coin(3) {
                    edges.push(Edge {
                        target: x,
                        kind: kind(rng),
                    });
                }
            }
            let k = kind(rng);
            *names += 1;
            g.add_split_function(a, format!("s{names}"), k, edges)
                .map(|x| format!("split {a} -> {x} {k:?}"))
        }
        _ => {
            // several ref-recursive split-off functions
            let Some(r) = g.refscc_of(a) else {
                return g
                    .add_split_ref_recursive_functions(a, &[])
                    .map(|_| String::new());
            };
            let k = 1 + rng.next(3);
            let news: Vec<NodeIdx> = (0..k)
                .map(|_| {
                    *names += 1;
                    g.add_function(format!("r{names}"))
                })
                .collect();
            let targets = live(g);
            let fns: Vec<(NodeIdx, Vec<Edge>)> = news
                .iter()
                .map(|&x| {
                    let mut es: Vec<Edge> = news
                        .iter()
                        .filter(|&&y| y != x && !rng.coin(40))
                        .map(|&y| Edge {
                            target: y,
                            kind: EdgeKind::Ref,
                        })
                        .collect();
                    for &t in &targets {
                        if news.contains(&t) {
                            continue;
                        }
                        if (not_later(g, t, r) || rng.coin(40)) && rng.coin(4) {
                            es.push(Edge {
                                target: t,
                                kind: kind(rng),
                            });
                        }
                    }
                    (x, es)
                })
                .collect();
            let res = g
                .add_split_ref_recursive_functions(a, &fns)
                .map(|()| format!("split rec {a} -> {news:?}"));
            if res.is_err() {
                // the unplaced nodes stay as unreached functions; drop them
                g.remove_dead_functions(&news).expect("unplaced nodes drop");
            }
            res
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
        lists[a].push(Edge {
            target: b,
            kind: if rng.coin(3) {
                EdgeKind::Ref
            } else {
                EdgeKind::Call
            },
        });
    }
    let mut g = LazyCallGraph::from_edge_lists(lists).unwrap();
    g.build_ref_sccs();
    g
}

/// Runs one sequence; returns the successful steps' descriptions.
fn sequence(seed: u64, steps: usize) -> Vec<String> {
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let n = 2 + rng.next(10);
    let mut g = random_graph(&mut rng, n);
    let mut names = 0;
    let mut log: Vec<String> = Vec::new();
    let mut okays = Vec::new();
    for _ in 0..steps {
        let before = snapshot(&g);
        match step(&mut g, &mut rng, &mut names) {
            Ok(d) => {
                okays.push(d.clone());
                log.push(d);
            }
            Err(e) => {
                // a refused split-rec leaves removed scratch nodes: compare the rest
                let after = snapshot(&g);
                assert_eq!(after.0, before.0, "seed {seed}: {e} changed the structure");
                let m = before.1.len();
                assert_eq!(
                    &after.1[..m],
                    &before.1[..],
                    "seed {seed}: {e} changed edges"
                );
                log.push(format!("refused: {e}"));
            }
        }
        let errs = g.verify();
        assert!(errs.is_empty(), "seed {seed}: {errs:?} after {log:?}");
        let h = rebuild(&g);
        assert_eq!(
            partitions(&g),
            live_partitions(&g, &h),
            "seed {seed}: partitions differ from a rebuild after {log:?}"
        );
        for x in g.nodes() {
            if g.is_removed(x) {
                assert!(g.scc_of(x).is_none() && g.cached_edges(x).len() == 0);
            }
        }
    }
    okays
}

#[test]
fn random_sequences_ci() {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for seed in 0..200 {
        for d in sequence(seed, 40) {
            let key: String = d
                .split(' ')
                .take_while(|w| !w.starts_with("node") && !w.starts_with('['))
                .collect::<Vec<_>>()
                .join(" ");
            *counts.entry(key).or_default() += 1;
        }
    }
    eprintln!("{counts:?}");
    // every operation succeeds in some sequence
    for op in [
        "to_call",
        "to_ref",
        "trivial to_ref",
        "out to_call",
        "out to_ref",
        "ins internal",
        "ins out",
        "ins incoming",
        "rm out",
        "trivial call",
        "trivial ref",
        "rm internal",
        "mark dead",
        "mark+rm dead alone",
        "mark+rm dead in a RefSCC cycle",
        "rm dead",
        "split",
        "split rec",
    ] {
        let hits: usize = counts
            .iter()
            .filter(|(k, _)| k.starts_with(op))
            .map(|(_, v)| v)
            .sum();
        assert!(hits > 5, "{op}: {hits} successes ({counts:?})");
    }
}

/// ≥ 10^4 random sequences (20 000 by default, `LCG_PROP_SEQS` to change), 40 steps
/// each. Slow in debug builds; run with `--release -- --ignored`.
#[test]
#[ignore]
fn random_sequences_many() {
    let n: u64 = std::env::var("LCG_PROP_SEQS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let t = std::time::Instant::now();
    let mut okays = 0;
    for seed in 0..n {
        okays += sequence(1_000_000 + seed, 40).len();
    }
    eprintln!(
        "{n} sequences x 40 steps, {okays} successful mutations, {:.1?}",
        t.elapsed()
    );
}
