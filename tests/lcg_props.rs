//! Property tests for the lazy call graph's public API: random call sequences of
//! every mutation (LLVM 14's and LLVM main's, `update_node_edges`, new functions,
//! renames, the pre-build edits) and every query, with valid and invalid arguments
//! (node, SCC and RefSCC indices that are out of range, dead, or taken from another
//! graph), on random graphs: some given as edge lists, some populated lazily from an
//! [`EdgeSource`] that breaks its contract (targets out of range, repeated targets),
//! some edited before their SCCs are built. Nothing may panic (a panic fails the
//! test). After each step `verify()` must be clean and the SCC and RefSCC partitions
//! must equal a from-scratch build of the current edges; an operation that returns an
//! error must leave the graph unchanged, and a query must change nothing.
//!
//! `random_sequences_ci` runs 300 sequences of 40 steps (plus up to 8 pre-build
//! steps). The ignored `random_sequences_many` runs 20 000 sequences (override with
//! `LCG_PROP_SEQS=N`): `cargo test --release --test lcg_props -- --ignored`
//! (20 000 sequences, 435 322 successful mutations: 9.9 s; 200 000 sequences: 108 s;
//! on the 2-core build machine, 2026-11-24).
//! `constructors_never_panic` feeds the constructors and the builder bad arguments.

use ilkit::callgraph::{
    CallGraphBuilder, Edge, EdgeKind, EdgeLists, EdgeSource, LazyCallGraph, LcgError, NodeIdx,
    RefSccIdx, SccIdx,
};
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

/// `g`'s edges as a graph whose SCCs are not built yet.
fn rebuild_unbuilt(g: &LazyCallGraph) -> LazyCallGraph {
    let lists: Vec<Vec<Edge>> = g.nodes().map(|x| g.cached_edges(x).collect()).collect();
    LazyCallGraph::from_edge_lists(lists).unwrap()
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
    // Removed nodes are singletons in `h`; nodes `g` never reached from a root (no
    // SCC) form components of their own in `h` (what a root reaches is closed under
    // edges, so no component mixes the two).
    let keep = |v: &Vec<NodeIdx>| v.iter().any(|&x| g.scc_of(x).is_some());
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

/// The snapshot of `g` with every node populated: what `g` means, whichever nodes'
/// edges happen to be computed already (an operation may populate a node before it
/// refuses, as LLVM's `insertEdge` does).
fn logical(g: &LazyCallGraph) -> Snapshot {
    let mut h = g.clone();
    h.populate_all();
    snapshot(&h)
}

fn live(g: &LazyCallGraph) -> Vec<NodeIdx> {
    g.nodes().filter(|&x| !g.is_removed(x)).collect()
}

/// A node: usually live, sometimes removed, out of range, `NONE`, or an index that
/// belongs to a bigger graph (invalid on purpose).
fn pick(g: &LazyCallGraph, rng: &mut Rng) -> NodeIdx {
    if rng.coin(25) {
        return NodeIdx::new(g.num_nodes() + rng.next(3));
    }
    if rng.coin(60) {
        return NodeIdx::from_raw(u32::MAX - rng.next(2) as u32);
    }
    if rng.coin(30) {
        return NodeIdx::new(rng.next(64));
    }
    if rng.coin(8) {
        return NodeIdx::new(rng.next(g.num_nodes()));
    }
    let l = live(g);
    if l.is_empty() {
        return NodeIdx::new(rng.next(g.num_nodes() + 1));
    }
    l[rng.next(l.len())]
}

/// An SCC: usually a live one, sometimes any slot (dead ones included), one out of
/// range or from a bigger graph, or `NONE`.
fn pick_scc(g: &LazyCallGraph, rng: &mut Rng) -> SccIdx {
    let live: Vec<SccIdx> = g
        .built_refsccs()
        .flat_map(|r| g.refscc_sccs(r).to_vec())
        .collect();
    if live.is_empty() || rng.coin(5) {
        return match rng.next(3) {
            0 => SccIdx::from_raw(u32::MAX),
            1 => SccIdx::new(rng.next(64)),
            _ => SccIdx::new(rng.next(2 * g.num_nodes() + 2)),
        };
    }
    live[rng.next(live.len())]
}

/// A RefSCC, chosen as [`pick_scc`] chooses an SCC.
fn pick_rc(g: &LazyCallGraph, rng: &mut Rng) -> RefSccIdx {
    let live: Vec<RefSccIdx> = g.built_refsccs().collect();
    if live.is_empty() || rng.coin(5) {
        return match rng.next(3) {
            0 => RefSccIdx::from_raw(u32::MAX),
            1 => RefSccIdx::new(rng.next(64)),
            _ => RefSccIdx::new(rng.next(2 * g.num_nodes() + 2)),
        };
    }
    live[rng.next(live.len())]
}

/// Every `&self` query with arguments from `pick`, `pick_scc`, `pick_rc`; checks the
/// answers for out-of-range arguments. Returns a digest so the calls are not dropped.
fn query_all(g: &LazyCallGraph, rng: &mut Rng) -> usize {
    let mut digest = 0usize;
    for _ in 0..4 {
        let (a, b) = (pick(g, rng), pick(g, rng));
        let (s, t) = (pick_scc(g, rng), pick_scc(g, rng));
        let (r, q) = (pick_rc(g, rng), pick_rc(g, rng));
        let in_range = a.idx() < g.num_nodes();
        assert_eq!(g.name(a).is_some(), in_range);
        if !in_range {
            assert!(!g.is_defined(a) && !g.is_populated(a) && !g.is_removed(a));
            assert!(g.scc_of(a).is_none() && g.refscc_of(a).is_none());
            assert!(g.cached_edges(a).len() == 0 && g.populated_edges(a).is_none());
            assert!(g.edge(a, b).is_none());
        }
        digest += g.name(a).map_or(0, str::len);
        digest += g.is_defined(a) as usize + g.is_populated(a) as usize;
        digest += g.is_removed(a) as usize + g.cached_edges(a).len();
        digest += g.populated_edges(a).map_or(0, |e| e.count());
        digest += g.edge(a, b).is_some() as usize;
        digest += g.scc_of(a).map_or(0, |x| x.idx()) + g.refscc_of(a).map_or(0, |x| x.idx());
        if let Some(name) = g.name(a) {
            digest += g.node_by_name(name).map_or(0, |x| x.idx());
        }
        digest += g.scc_nodes(s).len() + g.refscc_sccs(r).len() + g.refscc_nodes(r).count();
        digest += g.scc_refscc(s).map_or(0, |x| x.idx());
        digest += g.scc_position(s).unwrap_or(0) as usize;
        digest += g.refscc_order(r).unwrap_or(0) as usize;
        for (x, y) in [(s, t), (t, s), (s, s)] {
            digest += g.scc_is_parent_of(x, y) as usize + g.scc_is_child_of(x, y) as usize;
            digest += g.scc_is_ancestor_of(x, y) as usize;
            digest += g.scc_is_descendant_of(x, y) as usize;
        }
        for (x, y) in [(r, q), (q, r), (r, r)] {
            digest += g.refscc_is_parent_of(x, y) as usize;
            digest += g.refscc_is_child_of(x, y) as usize;
            digest += g.refscc_is_ancestor_of(x, y) as usize;
            digest += g.refscc_is_descendant_of(x, y) as usize;
        }
    }
    digest += g.entry_nodes().len() + g.lib_functions().len() + g.module_id().len();
    digest += g.nodes().len() + g.built_refsccs().count() + g.is_built() as usize;
    digest + g.refsccs_built() as usize + format!("{g:?}").len()
}

/// Random edges from `a` to live nodes; with `bad`, sometimes a target that is out of
/// range, unplaced or repeated.
fn random_edges(g: &LazyCallGraph, rng: &mut Rng, bad: bool) -> Vec<Edge> {
    let mut es = Vec::new();
    for t in live(g) {
        if rng.coin(3) {
            es.push(Edge {
                target: t,
                kind: kind(rng),
            });
        }
    }
    if bad && rng.coin(6) {
        let target = match es.first() {
            Some(e) if rng.coin(2) => e.target,
            _ => pick(g, rng),
        };
        es.push(Edge {
            target,
            kind: kind(rng),
        });
    }
    es
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
    let op = rng.next(24);
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
        17 | 18 => {
            // a new edge set for `a` (LLVM's updateCGAndAnalysisManagerForPass)
            let es = random_edges(g, rng, true);
            g.update_node_edges(a, &es).map(|up| {
                format!(
                    "update {a} splits {} merges {} rc splits {} rc merges {}",
                    up.new_sccs.len(),
                    up.merged_sccs.len(),
                    up.new_refsccs.len(),
                    up.merged_refsccs.len()
                )
            })
        }
        19 => {
            // a new function placed by hand, then linked both ways so the SCC / RefSCC
            // it joined stays strongly connected; sometimes an old node instead
            *names += 1;
            let c = g.add_function(format!("n{names}"));
            let x = if rng.coin(10) { a } else { c };
            let res = match rng.next(3) {
                0 => {
                    let r = pick_rc(g, rng);
                    g.add_new_function_into_refscc(x, r)
                        .map(|s| (format!("new into refscc [{r} as {s}]"), EdgeKind::Ref))
                }
                1 => {
                    let s = pick_scc(g, rng);
                    g.add_new_function_into_scc(x, s)
                        .map(|()| (format!("new into scc [{s}]"), EdgeKind::Call))
                }
                _ => {
                    let r = pick_rc(g, rng);
                    g.add_new_function_as_refscc(x, r)
                        .map(|r| (format!("new as refscc [{r}]"), EdgeKind::Ref))
                }
            };
            match res {
                Ok((d, k)) => {
                    // `x` is new (or an old node no root reached, without edges)
                    let s = g.scc_of(x).expect("placed");
                    let peer = match k {
                        EdgeKind::Call => g.scc_nodes(s).iter().copied().find(|&y| y != x),
                        EdgeKind::Ref => g
                            .refscc_of(x)
                            .and_then(|r| g.refscc_nodes(r).find(|&y| y != x)),
                    };
                    if let Some(y) = peer {
                        let back = Edge { target: x, kind: k };
                        let mut ys: Vec<Edge> = g.cached_edges(y).collect();
                        ys.push(back);
                        g.update_node_edges(x, &[Edge { target: y, kind: k }])
                            .expect("link the new function");
                        g.update_node_edges(y, &ys).expect("link back");
                    }
                    if x != c {
                        g.remove_dead_functions(&[c]).expect("unplaced node drops");
                    }
                    Ok(d)
                }
                Err(e) => {
                    g.remove_dead_functions(&[c]).expect("unplaced node drops");
                    Err(e)
                }
            }
        }
        20 => {
            *names += 1;
            g.replace_node_function(a, format!("renamed{names}"))
                .map(|()| format!("rename {a}"))
        }
        21 => {
            // queries change nothing
            let before = snapshot(g);
            let d = query_all(g, rng);
            assert_eq!(snapshot(g), before, "a query changed the graph");
            Ok(format!("query [{}]", d % 2))
        }
        22 => {
            // lazy population of nodes no root reaches, and the printers
            match rng.next(3) {
                0 => g.populate(a),
                1 => drop(g.edges(a).count()),
                _ => g.populate_all(),
            }
            let n = g.print_text().len() + g.print_dot().len();
            let n = n + g.print_dot_clusters().len() + g.print_json().len();
            Ok(format!(
                "populate+print [{}]",
                n.min(1) + g.num_refsccs().min(1)
            ))
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

/// An [`EdgeSource`] that breaks its contract now and then: targets out of range,
/// repeated targets, edges to declarations (the graph drops the first two).
struct Sloppy(EdgeLists);

impl EdgeSource for Sloppy {
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>) {
        self.0.populate(node, out);
    }
}

/// A graph populated lazily from a [`Sloppy`] source: some declarations, a few
/// library functions, roots a random subset (so some nodes are never reached); not
/// built.
fn lazy_graph(rng: &mut Rng, n: usize) -> LazyCallGraph {
    let mut lists = vec![Vec::new(); n];
    for _ in 0..rng.next(3 * n + 1) {
        let target = if rng.coin(15) {
            NodeIdx::new(n + rng.next(4))
        } else {
            NodeIdx::new(rng.next(n))
        };
        let a = rng.next(n);
        if lists[a].iter().any(|e: &Edge| e.target == target) && !rng.coin(5) {
            continue;
        }
        lists[a].push(Edge {
            target,
            kind: kind(rng),
        });
    }
    let names = (0..n).map(|i| format!("f{i}")).collect();
    let defined = (0..n).map(|_| !rng.coin(8)).collect();
    let entry = (0..n).filter(|_| rng.coin(2)).map(NodeIdx::new).collect();
    let libs = (0..n).filter(|_| rng.coin(10)).map(NodeIdx::new).collect();
    let src = Box::new(Sloppy(EdgeLists(lists)));
    LazyCallGraph::new("lazy", names, defined, entry, libs, src).unwrap()
}

/// One random step on a graph whose SCCs are not built yet: LLVM's pre-build edits,
/// lazy population, queries, and operations that need a built graph (refused).
fn pre_step(g: &mut LazyCallGraph, rng: &mut Rng) -> Result<String, LcgError> {
    let (a, b) = (pick(g, rng), pick(g, rng));
    match rng.next(8) {
        0 | 1 => {
            let k = kind(rng);
            g.insert_edge(a, b, k)
                .map(|()| format!("pre insert {k:?} {a}->{b}"))
        }
        2 => {
            let b = match g.cached_edges(a).next() {
                Some(e) if rng.coin(2) => e.target,
                _ => b,
            };
            g.remove_edge(a, b).map(|()| format!("pre remove {a}->{b}"))
        }
        3 => g
            .mark_dead_function(a)
            .map(|()| format!("pre mark dead {a}")),
        4 => {
            g.populate(a);
            let before = snapshot(g);
            query_all(g, rng);
            assert_eq!(snapshot(g), before, "a query changed the graph");
            Ok(format!("pre populate+query {a}"))
        }
        5 => {
            let r = match rng.next(6) {
                0 => g.update_node_edges(a, &[]).map(drop),
                1 => g.switch_internal_edge_to_call(a, b, |_| {}).map(drop),
                2 => g.remove_dead_functions(&[a]),
                3 => g.remove_dead_function(a),
                4 => g.add_new_function_into_scc(a, pick_scc(g, rng)),
                _ => g.insert_outgoing_edge(a, b, kind(rng)),
            };
            let e = r.expect_err("needs a built graph");
            assert!(
                matches!(
                    e,
                    LcgError::NotBuilt | LcgError::UnknownNode(_) | LcgError::RemovedNode(_)
                ),
                "{e}"
            );
            Err(e)
        }
        _ => {
            let e = g.insert_edge(a, b, kind(rng));
            let (ok, msg) = (e.is_ok(), e.map(|()| format!("pre insert {a}->{b}")));
            if ok && rng.coin(2) {
                g.remove_edge(a, b).expect("remove the edge just inserted");
            }
            msg
        }
    }
}

/// Runs one sequence; returns the successful steps' descriptions.
fn sequence(seed: u64, steps: usize) -> Vec<String> {
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let n = 2 + rng.next(10);
    let mut g = match rng.next(3) {
        0 => lazy_graph(&mut rng, n),
        1 => {
            let mut g = random_graph(&mut rng, n);
            g = rebuild_unbuilt(&g);
            g
        }
        _ => random_graph(&mut rng, n),
    };
    let mut names = 0;
    let mut log: Vec<String> = Vec::new();
    let mut okays = Vec::new();
    if !g.is_built() {
        for _ in 0..rng.next(9) {
            let before = logical(&g);
            match pre_step(&mut g, &mut rng) {
                Ok(d) => {
                    okays.push(d.clone());
                    log.push(d);
                }
                Err(e) => {
                    assert_eq!(logical(&g), before, "seed {seed}: {e} changed the graph");
                    log.push(format!("refused: {e}"));
                }
            }
            let errs = g.verify();
            assert!(errs.is_empty(), "seed {seed}: {errs:?} after {log:?}");
        }
        g.build_ref_sccs();
    }
    for _ in 0..steps {
        let before = logical(&g);
        match step(&mut g, &mut rng, &mut names) {
            Ok(d) => {
                okays.push(d.clone());
                log.push(d);
            }
            Err(e) => {
                // a refused split-rec leaves removed scratch nodes: compare the rest
                let after = logical(&g);
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
    for seed in 0..300 {
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
        "update",
        "new into refscc",
        "new into scc",
        "new as refscc",
        "rename",
        "query",
        "populate+print",
        "pre insert",
        "pre remove",
        "pre mark dead",
        "pre populate+query",
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

/// The constructors and the builder with bad arguments return errors, never panic.
#[test]
fn constructors_never_panic() {
    let e = |t: u32, kind| Edge {
        target: NodeIdx::from_raw(t),
        kind,
    };
    let (call, rf) = (EdgeKind::Call, EdgeKind::Ref);
    assert_eq!(
        LazyCallGraph::from_edge_lists(vec![vec![e(1, call)], vec![e(2, rf)]]).unwrap_err(),
        LcgError::UnknownNode(NodeIdx::new(2))
    );
    assert_eq!(
        LazyCallGraph::from_edge_lists(vec![vec![e(0, call), e(0, rf)]]).unwrap_err(),
        LcgError::RepeatedEdge {
            src: NodeIdx::new(0),
            tgt: NodeIdx::new(0)
        }
    );
    let none = vec![vec![e(u32::MAX, call)]];
    assert!(LazyCallGraph::from_edge_lists(none).is_err());
    let names = || vec!["a".to_string(), "b".to_string()];
    let src = || Box::new(EdgeLists::default());
    let bad_len = LazyCallGraph::new("m", names(), vec![true], vec![], vec![], src());
    assert!(matches!(
        bad_len,
        Err(LcgError::ColumnLength { len: 1, .. })
    ));
    let bad_root = LazyCallGraph::new(
        "m",
        names(),
        vec![true; 2],
        vec![NodeIdx::new(2)],
        vec![],
        src(),
    );
    assert_eq!(
        bad_root.unwrap_err(),
        LcgError::UnknownNode(NodeIdx::new(2))
    );
    let bad_lib = LazyCallGraph::new(
        "m",
        names(),
        vec![true; 2],
        vec![],
        vec![NodeIdx::new(9)],
        src(),
    );
    assert_eq!(bad_lib.unwrap_err(), LcgError::UnknownNode(NodeIdx::new(9)));
    // a random builder script: names from a small pool, so repeats and unknown names
    // happen; every outcome is a graph that verifies or an error
    let pool = ["a", "b", "c", "d", "e"];
    let mut ok = 0;
    for seed in 0..2_000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
        let mut b = CallGraphBuilder::new();
        for _ in 0..rng.next(12) {
            let name = pool[rng.next(pool.len())];
            b = match rng.next(7) {
                0 | 1 => b.function(name),
                2 => b.declaration(name),
                3 => b.calls([name]),
                4 => b.refs([name]),
                5 => b.internal(),
                _ => b.library(),
            };
        }
        if let Ok(mut g) = b.build() {
            ok += 1;
            assert!(g.verify().is_empty(), "seed {seed}: {:?}", g.verify());
            let mut rng2 = Rng(seed);
            query_all(&g, &mut rng2);
            let _ = g.print_json();
        }
    }
    assert!(ok > 100, "{ok} builds succeeded");
}
