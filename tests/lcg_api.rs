//! Scenario tests for the lazy call graph's LLVM-main mutation API, its relation
//! queries, the builder and the typed errors. The graphs and expected results follow
//! the scenarios of LLVM's `LazyCallGraphTest.cpp` (described in prose in the LLVM
//! docs and unit tests; the tests here are written against ilkit's API).

use ilkit::callgraph::{Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx, RefSccIdx, SccIdx};

fn n(g: &LazyCallGraph, name: &str) -> NodeIdx {
    g.node_by_name(name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn scc(g: &LazyCallGraph, name: &str) -> SccIdx {
    g.scc_of(n(g, name)).unwrap()
}

fn rc(g: &LazyCallGraph, name: &str) -> RefSccIdx {
    g.refscc_of(n(g, name)).unwrap()
}

/// RefSCCs in post-order, each as its SCCs in post-order, each as sorted names.
fn po(g: &mut LazyCallGraph) -> Vec<Vec<Vec<String>>> {
    g.postorder_names()
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|s| {
                    let mut v: Vec<String> = s.into_iter().map(str::to_string).collect();
                    v.sort();
                    v
                })
                .collect()
        })
        .collect()
}

/// `po` written compactly: RefSCCs separated by `;`, SCCs by `|`, nodes by `,`.
fn po_str(g: &mut LazyCallGraph) -> String {
    po(g)
        .iter()
        .map(|r| r.iter().map(|s| s.join(",")).collect::<Vec<_>>().join("|"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn ok(g: &LazyCallGraph) {
    let errs = g.verify();
    assert!(errs.is_empty(), "{errs:?}");
}

fn edge_names(g: &LazyCallGraph, name: &str) -> Vec<(String, EdgeKind)> {
    g.cached_edges(n(g, name))
        .map(|e| (g.name(e.target).unwrap().to_string(), e.kind))
        .collect()
}

fn diamond(kind_refs: bool) -> LazyCallGraph {
    let spec: [(&str, &[&str]); 12] = [
        ("a1", &["a2", "b2", "c3"]),
        ("a2", &["a3"]),
        ("a3", &["a1"]),
        ("b1", &["b2", "d3"]),
        ("b2", &["b3"]),
        ("b3", &["b1"]),
        ("c1", &["c2", "d2"]),
        ("c2", &["c3"]),
        ("c3", &["c1"]),
        ("d1", &["d2"]),
        ("d2", &["d3"]),
        ("d3", &["d1"]),
    ];
    let mut b = LazyCallGraph::builder();
    for (f, ts) in spec {
        b = b.function(f);
        b = if kind_refs {
            b.refs(ts.iter().rev().copied())
        } else {
            b.calls(ts.iter().copied())
        };
    }
    let g = b.build().unwrap();
    ok(&g);
    g
}

// ------------------------------------------------------------------ relations

#[test]
fn basic_graph_formation_relations() {
    let mut g = diamond(false);
    assert_eq!(
        po_str(&mut g),
        "d1,d2,d3; b1,b2,b3; c1,c2,c3; a1,a2,a3",
        "RefSCC post-order D, B, C, A"
    );
    let (a, b, c, d) = (scc(&g, "a1"), scc(&g, "b1"), scc(&g, "c1"), scc(&g, "d1"));
    assert!(!g.scc_is_parent_of(d, d) && !g.scc_is_ancestor_of(d, d));
    assert!(!g.scc_is_child_of(d, d) && !g.scc_is_descendant_of(d, d));
    assert!(g.scc_is_parent_of(b, d) && !g.scc_is_child_of(b, d));
    assert!(g.scc_is_ancestor_of(b, d) && !g.scc_is_descendant_of(b, d));
    assert!(!g.scc_is_ancestor_of(b, c) && !g.scc_is_ancestor_of(c, b));
    assert!(g.scc_is_parent_of(c, d) && g.scc_is_ancestor_of(c, d));
    assert!(g.scc_is_parent_of(a, b) && g.scc_is_parent_of(a, c) && !g.scc_is_parent_of(a, d));
    assert!(g.scc_is_ancestor_of(a, b) && g.scc_is_ancestor_of(a, c) && g.scc_is_ancestor_of(a, d));
    assert!(g.scc_is_descendant_of(d, a) && g.scc_is_child_of(d, b));
    // the same at RefSCC level (every RefSCC is one SCC here)
    let (ra, rb, rd) = (rc(&g, "a1"), rc(&g, "b1"), rc(&g, "d1"));
    assert!(g.refscc_is_parent_of(rb, rd) && !g.refscc_is_parent_of(ra, rd));
    assert!(g.refscc_is_ancestor_of(ra, rd) && g.refscc_is_descendant_of(rd, ra));
    assert!(!g.refscc_is_parent_of(ra, ra) && !g.refscc_is_ancestor_of(ra, ra));
    // out-of-range and dead indices are simply false
    assert!(
        !g.scc_is_parent_of(SccIdx::new(999), d)
            && !g.refscc_is_ancestor_of(ra, RefSccIdx::new(999))
    );
}

#[test]
fn outgoing_edge_mutation_relations() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b", "c"])
        .function("b")
        .calls(["d"])
        .function("c")
        .calls(["d"])
        .function("d")
        .build()
        .unwrap();
    assert_eq!(po_str(&mut g), "d; b; c; a");
    let (an, dn) = (n(&g, "a"), n(&g, "d"));
    let (ac, dc, bc) = (scc(&g, "a"), scc(&g, "d"), scc(&g, "b"));
    let (arc, drc) = (rc(&g, "a"), rc(&g, "d"));
    assert!(!g.scc_is_parent_of(ac, dc) && g.scc_is_ancestor_of(ac, dc));
    assert!(
        !g.scc_is_child_of(dc, ac) && g.scc_is_descendant_of(dc, ac) && g.scc_is_child_of(dc, bc)
    );
    g.insert_outgoing_edge(an, dn, EdgeKind::Call).unwrap();
    assert_eq!(g.cached_edges(an).len(), 3);
    assert!(g.scc_is_parent_of(ac, dc) && g.refscc_is_parent_of(arc, drc));
    g.switch_outgoing_edge_to_ref(an, dn).unwrap();
    assert!(g.refscc_is_parent_of(arc, drc) && g.refscc_is_child_of(drc, arc));
    assert!(!g.scc_is_parent_of(ac, dc) && !g.scc_is_child_of(dc, ac));
    assert!(g.scc_is_ancestor_of(ac, dc) && g.scc_is_descendant_of(dc, ac));
    g.switch_outgoing_edge_to_call(an, dn).unwrap();
    assert!(g.scc_is_parent_of(ac, dc));
    g.remove_outgoing_edge(an, dn).unwrap();
    assert!(!g.scc_is_parent_of(ac, dc) && !g.refscc_is_parent_of(arc, drc));
    assert!(g.scc_is_ancestor_of(ac, dc) && g.refscc_is_ancestor_of(arc, drc));
    assert_eq!((scc(&g, "a"), rc(&g, "d")), (ac, drc), "identities kept");
    ok(&g);
}

// ------------------------------------------------------------------ internal edges

fn ref_triangle() -> LazyCallGraph {
    // every node refs c, b, a (LLVM's populate order of three stores a, b, c)
    let mut b = LazyCallGraph::builder();
    for f in ["a", "b", "c"] {
        b = b.function(f).refs(["c", "b", "a"]);
    }
    b.build().unwrap()
}

#[test]
fn internal_edge_removal_pairs() {
    let mut g = ref_triangle();
    let r = rc(&g, "a");
    let (a, b, c) = (n(&g, "a"), n(&g, "b"), n(&g, "c"));
    assert!(g.remove_internal_ref_edges(&[(b, a)]).unwrap().is_empty());
    assert_eq!(rc(&g, "a"), r);
    let new = g.remove_internal_ref_edges(&[(c, a)]).unwrap();
    assert_eq!(new.len(), 2);
    assert_eq!(new, vec![rc(&g, "b"), rc(&g, "a")]);
    assert_eq!(rc(&g, "b"), rc(&g, "c"));
    // b and c share a RefSCC (two SCCs: there are no calls), a is alone after them
    assert_eq!(po_str(&mut g), "c|b; a");
    assert!(!g.postorder_refsccs().contains(&r), "old RefSCC gone");
    ok(&g);
}

#[test]
fn internal_multi_edge_removal_one_source_and_14_form() {
    for form14 in [false, true] {
        let mut g = ref_triangle();
        let (a, b, c) = (n(&g, "a"), n(&g, "b"), n(&g, "c"));
        let new = if form14 {
            g.remove_internal_ref_edge(b, &[a, c]).unwrap()
        } else {
            g.remove_internal_ref_edges(&[(b, a), (b, c)]).unwrap()
        };
        assert_eq!(new, vec![rc(&g, "b"), rc(&g, "a")]);
        assert_eq!(po_str(&mut g), "b; a|c");
        ok(&g);
    }
}

#[test]
fn internal_edge_removal_several_sources_in_one_batch() {
    let mut g = ref_triangle();
    let (a, b, c) = (n(&g, "a"), n(&g, "b"), n(&g, "c"));
    // nobody refers to a any more: a's RefSCC comes after {b, c}
    let new = g.remove_internal_ref_edges(&[(b, a), (c, a)]).unwrap();
    assert_eq!(new.len(), 2);
    assert_eq!(po_str(&mut g), "c|b; a");
    ok(&g);
    // pairs in different RefSCCs are refused, nothing changes
    let before = po_str(&mut g);
    let e = g.remove_internal_ref_edges(&[(b, c), (a, a)]).unwrap_err();
    assert_eq!(e, LcgError::SpansRefSccs { src: a, tgt: a });
    assert_eq!(po_str(&mut g), before);
    assert!(g.edge(b, c).is_some());
}

#[test]
fn internal_noop_edge_removal() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b"])
        .refs(["c"])
        .function("b")
        .calls(["c"])
        .refs(["a"])
        .function("c")
        .calls(["a"])
        .refs(["b"])
        .build()
        .unwrap();
    let (a, b, c) = (n(&g, "a"), n(&g, "b"), n(&g, "c"));
    let (r, s) = (rc(&g, "a"), scc(&g, "a"));
    assert!(g.remove_internal_ref_edges(&[(a, c)]).unwrap().is_empty());
    assert!(g.remove_internal_ref_edges(&[(b, a)]).unwrap().is_empty());
    assert!(g.remove_internal_ref_edges(&[(c, b)]).unwrap().is_empty());
    assert_eq!((rc(&g, "c"), scc(&g, "b")), (r, s));
    assert_eq!(po_str(&mut g), "a,b,c");
    // an empty batch is a no-op too
    assert!(g.remove_internal_ref_edges(&[]).unwrap().is_empty());
    ok(&g);
}

#[test]
fn trivial_switch_then_call_no_cycle_interleaved() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b1", "c1"])
        .function("b1")
        .calls(["c1", "b2"])
        .function("c1")
        .calls(["b2", "c2"])
        .function("b2")
        .calls(["c2", "b3"])
        .function("c2")
        .calls(["b3", "c3"])
        .function("b3")
        .calls(["c3", "d"])
        .function("c3")
        .calls(["d"])
        .refs(["b1"])
        .function("d")
        .refs(["a"])
        .build()
        .unwrap();
    assert_eq!(g.num_refsccs(), 1);
    for (s, t) in [
        ("b3", "c3"),
        ("c2", "b3"),
        ("b2", "c2"),
        ("c1", "b2"),
        ("b1", "c1"),
    ] {
        g.switch_trivial_internal_edge_to_ref(n(&g, s), n(&g, t))
            .unwrap();
        ok(&g);
    }
    assert_eq!(po_str(&mut g), "d|c3|b3|c2|b2|c1|b1|a");
    let mut calls = 0;
    let merged = g
        .switch_internal_edge_to_call(n(&g, "c3"), n(&g, "b1"), |m| {
            calls += 1;
            assert!(m.sccs().is_empty());
        })
        .unwrap();
    assert!(!merged);
    assert_eq!(calls, 1, "slow path calls back even with nothing to merge");
    assert_eq!(po_str(&mut g), "d|b3|b2|b1|c3|c2|c1|a");
    ok(&g);
}

#[test]
fn merge_callback_sees_members() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b", "e"])
        .function("b")
        .calls(["c", "d"])
        .function("c")
        .calls(["d", "g"])
        .function("d")
        .calls(["e", "f"])
        .function("e")
        .calls(["f"])
        .function("f")
        .calls(["g"])
        .refs(["b"])
        .function("g")
        .refs(["a"])
        .build()
        .unwrap();
    for (s, t) in [("c", "d"), ("d", "e")] {
        g.switch_trivial_internal_edge_to_ref(n(&g, s), n(&g, t))
            .unwrap();
    }
    assert_eq!(po_str(&mut g), "g|f|e|d|c|b|a");
    let (fc, dc, bc) = (scc(&g, "f"), scc(&g, "d"), scc(&g, "b"));
    let mut seen = Vec::new();
    let mut members = Vec::new();
    let merged = g
        .switch_internal_edge_to_call(n(&g, "f"), n(&g, "b"), |m| {
            seen.extend_from_slice(m.sccs());
            assert_eq!(m.target(), bc);
            members.extend(
                m.merged_nodes()
                    .map(|x| m.graph().name(x).unwrap().to_string()),
            );
            assert_eq!(m.members(m.sccs()[0]).len(), 1);
        })
        .unwrap();
    assert!(merged);
    assert_eq!(seen, vec![fc, dc]);
    assert_eq!(members, ["f", "d"]);
    assert_eq!(g.scc_nodes(bc).len(), 3);
    assert_eq!(po_str(&mut g), "g|c|b,d,f|e|a");
    ok(&g);
}

#[test]
fn trivial_switch_preconditions() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b"])
        .function("b")
        .calls(["a", "c"])
        .function("c")
        .build()
        .unwrap();
    let (a, b, c) = (n(&g, "a"), n(&g, "b"), n(&g, "c"));
    assert_eq!(
        g.switch_trivial_internal_edge_to_ref(a, b),
        Err(LcgError::SameScc { src: a, tgt: b })
    );
    assert_eq!(
        g.switch_trivial_internal_edge_to_ref(b, c),
        Err(LcgError::NotInternal { src: b, tgt: c })
    );
    assert_eq!(
        g.switch_trivial_internal_edge_to_ref(c, a),
        Err(LcgError::NoEdge { src: c, tgt: a })
    );
    ok(&g);
}

// ------------------------------------------------------------------ dead functions

#[test]
fn remove_function_with_spurious_ref_main_and_14() {
    for main in [true, false] {
        let mut g = LazyCallGraph::builder()
            .function("a")
            .refs(["d", "dead"])
            .function("b")
            .refs(["c", "dead"])
            .function("c")
            .calls(["d"])
            .refs(["dead"])
            .function("d")
            .calls(["c"])
            .refs(["b", "dead"])
            .function("dead")
            .build()
            .unwrap();
        assert_eq!(po_str(&mut g), "dead; c,d|b; a");
        let (r1, r2) = (rc(&g, "d"), rc(&g, "a"));
        let dead = n(&g, "dead");
        let roots = ["a", "b", "c", "d", "dead"].map(|x| n(&g, x));
        assert_eq!(g.entry_nodes(), &roots);
        if main {
            g.mark_dead_function(dead).unwrap();
            g.remove_dead_functions(&[dead]).unwrap();
        } else {
            g.remove_dead_function(dead).unwrap();
        }
        assert_eq!(po_str(&mut g), "c,d|b; a");
        assert_eq!(g.postorder_refsccs(), vec![r1, r2]);
        assert!(g.is_removed(dead) && g.node_by_name("dead").is_none());
        assert_eq!(edge_names(&g, "a"), [("d".to_string(), EdgeKind::Ref)]);
        // a removed root leaves the entry edges, the others keep their order
        assert_eq!(g.entry_nodes(), &roots[..4]);
        ok(&g);
    }
}

#[test]
fn remove_dead_in_ref_cycle_splits() {
    // RemoveFunctionWithSpuriousRefRecursive: a -> b -> c, spurious c -> a (refs)
    let mut g = LazyCallGraph::builder()
        .function("a")
        .refs(["b"])
        .function("b")
        .refs(["c"])
        .function("c")
        .refs(["a"])
        .build()
        .unwrap();
    assert_eq!(g.num_refsccs(), 1);
    let a = n(&g, "a");
    // LLVM 14 refuses (it asserts): a is not alone
    assert_eq!(g.remove_dead_function(a), Err(LcgError::NotAlone(a)));
    g.mark_dead_function(a).unwrap();
    g.remove_dead_functions(&[a]).unwrap();
    assert_eq!(po_str(&mut g), "c; b");
    ok(&g);
}

#[test]
fn remove_dead_in_ref_cycle_splits_2_and_3() {
    // ...Recursive2: a -> b -> c -> {d, b}, spurious d -> a
    let mut g = LazyCallGraph::builder()
        .function("a")
        .refs(["b"])
        .function("b")
        .refs(["c"])
        .function("c")
        .refs(["d", "b"])
        .function("d")
        .refs(["a"])
        .build()
        .unwrap();
    assert_eq!(g.num_refsccs(), 1);
    let a = n(&g, "a");
    g.mark_dead_function(a).unwrap();
    g.remove_dead_functions(&[a]).unwrap();
    assert_eq!(po_str(&mut g), "d; b|c");
    ok(&g);
    // ...Recursive3: a -> b -> c, spurious c -> a and b -> a
    let mut g = LazyCallGraph::builder()
        .function("a")
        .refs(["b"])
        .function("b")
        .refs(["c", "a"])
        .function("c")
        .refs(["a"])
        .build()
        .unwrap();
    let a = n(&g, "a");
    g.mark_dead_function(a).unwrap();
    g.remove_dead_functions(&[a]).unwrap();
    assert_eq!(po_str(&mut g), "c; b");
    ok(&g);
}

#[test]
fn remove_two_dead_functions_referencing_each_other() {
    let mut g = LazyCallGraph::builder()
        .function("main")
        .calls(["x"])
        .function("x")
        .function("d1")
        .calls(["d2", "x"])
        .function("d2")
        .calls(["d1"])
        .build()
        .unwrap();
    assert_eq!(po_str(&mut g), "x; main; d1,d2");
    let (d1, d2) = (n(&g, "d1"), n(&g, "d2"));
    assert!(matches!(
        g.remove_dead_functions(&[d1, d2]),
        Err(LcgError::DeadFunctionCalls { .. })
    ));
    // d1 and d2 call each other inside one SCC: d2 is still called by d1
    assert_eq!(
        g.mark_dead_function(d2),
        Err(LcgError::DeadFunctionCalled {
            dead: d2,
            caller: d1
        })
    );
    let d1d2 = g.edge(d1, d2).unwrap();
    assert!(d1d2.is_call());
    // demote the internal call the way a host would (the body is gone), then remove both
    assert_eq!(g.switch_internal_edge_to_ref(d1, d2).unwrap().len(), 1);
    assert_eq!(po_str(&mut g), "x; main; d1|d2");
    g.mark_dead_function(d1).unwrap();
    g.mark_dead_function(d2).unwrap();
    g.remove_dead_functions(&[d2, d1, d2]).unwrap();
    assert_eq!(po_str(&mut g), "x; main");
    assert_eq!(g.entry_nodes().len(), 2);
    ok(&g);
}

#[test]
fn inline_and_delete_function() {
    let mut g = diamond(false);
    let v = |g: &LazyCallGraph, s: &str| n(g, s);
    let (c1, d1, d2, d3) = (v(&g, "c1"), v(&g, "d1"), v(&g, "d2"), v(&g, "d3"));
    g.insert_trivial_call_edge(c1, d3).unwrap();
    g.insert_trivial_call_edge(d1, d3).unwrap();
    let dc = scc(&g, "d2");
    let new = g.switch_internal_edge_to_ref(d1, d2).unwrap();
    assert_eq!(new.len(), 1);
    assert_eq!(scc(&g, "d2"), dc, "d2 keeps the old SCC");
    assert_eq!((scc(&g, "d1"), scc(&g, "d3")), (new[0], new[0]));
    let drc = rc(&g, "d1");
    assert_eq!(g.refscc_sccs(drc), &[new[0], dc]);
    let new_rcs = g.remove_internal_ref_edges(&[(d1, d2)]).unwrap();
    assert_eq!(new_rcs, vec![rc(&g, "d1"), rc(&g, "d2")]);
    let (new_drc, d2rc, crc) = (rc(&g, "d1"), rc(&g, "d2"), rc(&g, "c1"));
    assert_eq!(rc(&g, "d3"), new_drc);
    assert!(!g.refscc_is_parent_of(new_drc, d2rc));
    assert!(g.refscc_is_parent_of(crc, d2rc) && g.refscc_is_parent_of(crc, new_drc));
    assert!(g.refscc_is_parent_of(d2rc, new_drc));
    assert_eq!(po_str(&mut g), "d1,d3; d2; b1,b2,b3; c1,c2,c3; a1,a2,a3");
    g.remove_outgoing_edge(c1, d2).unwrap();
    assert!(!g.refscc_is_parent_of(crc, d2rc));
    g.mark_dead_function(d2).unwrap();
    assert_eq!(g.edge(d2, d3).unwrap().kind, EdgeKind::Ref);
    g.remove_dead_functions(&[d2]).unwrap();
    assert!(g.refscc_is_parent_of(crc, new_drc));
    assert_eq!(po_str(&mut g), "d1,d3; b1,b2,b3; c1,c2,c3; a1,a2,a3");
    ok(&g);
}

#[test]
fn dead_function_preconditions_leave_graph_unchanged() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b"])
        .function("b")
        .function("lib")
        .library()
        .build()
        .unwrap();
    let (a, b, lib) = (n(&g, "a"), n(&g, "b"), n(&g, "lib"));
    let before = (po_str(&mut g), edge_names(&g, "a"));
    assert_eq!(
        g.mark_dead_function(lib),
        Err(LcgError::LibraryFunction(lib))
    );
    assert_eq!(
        g.remove_dead_functions(&[lib]),
        Err(LcgError::LibraryFunction(lib))
    );
    assert_eq!(
        g.remove_dead_functions(&[b, a]),
        Err(LcgError::DeadFunctionCalls { dead: a, callee: b })
    );
    assert_eq!(
        g.mark_dead_function(NodeIdx::new(77)),
        Err(LcgError::UnknownNode(NodeIdx::new(77)))
    );
    assert_eq!((po_str(&mut g), edge_names(&g, "a")), before);
    // b is called by a (a stale call edge: LLVM would require no IR uses); removing it
    // drops the edge
    g.mark_dead_function(b).unwrap();
    g.remove_dead_functions(&[b]).unwrap();
    assert_eq!(g.remove_dead_functions(&[b]), Err(LcgError::RemovedNode(b)));
    assert_eq!(edge_names(&g, "a"), [("lib".to_string(), EdgeKind::Ref)]);
    ok(&g);
}

// ------------------------------------------------------------------ split functions

fn one(f: &str, extra: &[(&str, &[&str], &[&str])]) -> LazyCallGraph {
    let mut b = LazyCallGraph::builder().function(f);
    for (name, calls, refs) in extra {
        b = b
            .function(*name)
            .calls(calls.iter().copied())
            .refs(refs.iter().copied());
    }
    b.build().unwrap()
}

fn call(t: NodeIdx) -> Edge {
    Edge {
        target: t,
        kind: EdgeKind::Call,
    }
}

fn reff(t: NodeIdx) -> Edge {
    Edge {
        target: t,
        kind: EdgeKind::Ref,
    }
}

#[test]
fn add_split_function_placements() {
    use EdgeKind::{Call, Ref};
    // (kind of f -> g, g's edges to f as (is_call), expected post-order)
    let cases: [(EdgeKind, Option<bool>, &str); 5] = [
        (Call, None, "g; f"),
        (Ref, None, "g; f"),
        (Call, Some(false), "g|f"),
        (Ref, Some(true), "f|g"),
        (Call, Some(true), "f,g"),
    ];
    for (kind, back, want) in cases {
        let mut g = one("f", &[]);
        let f = n(&g, "f");
        let frc = rc(&g, "f");
        let edges = match back {
            None => vec![],
            Some(true) => vec![call(f)],
            Some(false) => vec![reff(f)],
        };
        g.add_split_function(f, "g", kind, edges).unwrap();
        assert_eq!(po_str(&mut g), want, "{kind:?} {back:?}");
        assert_eq!(rc(&g, "f"), frc);
        ok(&g);
    }
    // f <-> f2 calls: cases 7, 8, 9
    for (kind, back_call, want) in [
        (Call, true, "f,f2,g"),
        (Ref, true, "f,f2|g"),
        (Call, false, "g|f,f2"),
    ] {
        let mut g = one("f", &[("f2", &["f"], &[])]);
        let (f, f2) = (n(&g, "f"), n(&g, "f2"));
        g.insert_trivial_call_edge(f, f2).unwrap_err();
        let mut g = LazyCallGraph::builder()
            .function("f")
            .calls(["f2"])
            .function("f2")
            .calls(["f"])
            .build()
            .unwrap();
        let _ = (f, f2);
        let (f, f2) = (n(&g, "f"), n(&g, "f2"));
        let e = if back_call { call(f2) } else { reff(f2) };
        g.add_split_function(f, "g", kind, vec![e]).unwrap();
        assert_eq!(po_str(&mut g), want, "{kind:?} {back_call}");
        ok(&g);
    }
}

#[test]
fn add_split_ref_recursive_functions_placements() {
    // 1: g alone
    let mut g = one("f", &[]);
    let f = n(&g, "f");
    let frc = rc(&g, "f");
    let g1 = g.add_function("g");
    g.add_split_ref_recursive_functions(f, &[(g1, vec![])])
        .unwrap();
    assert_eq!(po_str(&mut g), "g; f");
    assert_eq!(g.edge(f, g1).unwrap().kind, EdgeKind::Ref);
    ok(&g);
    // 2: g -> f
    let mut g = one("f", &[]);
    let f = n(&g, "f");
    let x = g.add_function("g");
    g.add_split_ref_recursive_functions(f, &[(x, vec![reff(f)])])
        .unwrap();
    assert_eq!(rc(&g, "g"), frc);
    assert_eq!(po_str(&mut g), "f|g");
    ok(&g);
    // 3: g1 <-> g2, no way back
    let mut g = one("f", &[]);
    let f = n(&g, "f");
    let (x, y) = (g.add_function("g1"), g.add_function("g2"));
    g.add_split_ref_recursive_functions(f, &[(x, vec![reff(y)]), (y, vec![reff(x)])])
        .unwrap();
    assert_eq!(po_str(&mut g), "g1|g2; f");
    ok(&g);
    // 4: plus g2 -> f
    let mut g = one("f", &[]);
    let f = n(&g, "f");
    let (x, y) = (g.add_function("g1"), g.add_function("g2"));
    g.add_split_ref_recursive_functions(f, &[(x, vec![reff(y)]), (y, vec![reff(x), reff(f)])])
        .unwrap();
    assert_eq!(po_str(&mut g), "f|g1|g2");
    ok(&g);
    // 5: f -> f2 (ref), f2 -> f (call); g2 -> f2
    let mut g = LazyCallGraph::builder()
        .function("f")
        .refs(["f2"])
        .function("f2")
        .calls(["f"])
        .build()
        .unwrap();
    assert_eq!(po_str(&mut g), "f|f2");
    let (f, f2) = (n(&g, "f"), n(&g, "f2"));
    let (x, y) = (g.add_function("g1"), g.add_function("g2"));
    g.add_split_ref_recursive_functions(f, &[(x, vec![reff(y)]), (y, vec![reff(x), reff(f2)])])
        .unwrap();
    assert_eq!(po_str(&mut g), "f|f2|g1|g2");
    ok(&g);
}

#[test]
fn add_split_ref_recursive_functions_preconditions() {
    let mut g = one("f", &[("h", &[], &[])]);
    let f = n(&g, "f");
    assert_eq!(
        g.add_split_ref_recursive_functions(f, &[]),
        Err(LcgError::NoFunctions)
    );
    let (x, y) = (g.add_function("g1"), g.add_function("g2"));
    let before = po_str(&mut g);
    // not a clique
    assert_eq!(
        g.add_split_ref_recursive_functions(f, &[(x, vec![reff(y)]), (y, vec![])]),
        Err(LcgError::NotRefClique { src: y, tgt: x })
    );
    // a call between new functions
    assert_eq!(
        g.add_split_ref_recursive_functions(f, &[(x, vec![call(y)]), (y, vec![reff(x)])]),
        Err(LcgError::NotRefClique { src: x, tgt: y })
    );
    // an edge to a later RefSCC (h comes after f in post-order)
    let h = n(&g, "h");
    assert_eq!(
        g.add_split_ref_recursive_functions(f, &[(x, vec![reff(h)])]),
        Err(LcgError::NotDescendant { src: x, tgt: h })
    );
    // already placed
    assert_eq!(
        g.add_split_ref_recursive_functions(f, &[(h, vec![])]),
        Err(LcgError::AlreadyPlaced(h))
    );
    assert_eq!(po_str(&mut g), before);
    assert!(g.cached_edges(f).len() == 0);
    ok(&g);
}

// ------------------------------------------------------------------ builder, lookups

#[test]
fn builder_errors_and_libraries() {
    let e = LazyCallGraph::builder()
        .function("a")
        .function("a")
        .build()
        .unwrap_err();
    assert_eq!(e, LcgError::DuplicateName("a".into()));
    let e = LazyCallGraph::builder()
        .function("a")
        .calls(["zz"])
        .build()
        .unwrap_err();
    assert_eq!(e, LcgError::UnknownName("zz".into()));
    let e = LazyCallGraph::builder().calls(["a"]).build().unwrap_err();
    assert_eq!(e, LcgError::UnknownName("a".into()));
    let e = LazyCallGraph::builder()
        .function("a")
        .calls(["b"])
        .refs(["b"])
        .function("b")
        .build()
        .unwrap_err();
    assert!(matches!(e, LcgError::RepeatedEdge { .. }));
    let e = LazyCallGraph::builder()
        .function("a")
        .calls(["d"])
        .declaration("d")
        .build()
        .unwrap_err();
    assert!(matches!(e, LcgError::EdgeToDeclaration { .. }));
    // library functions get implicit refs, roots follow `internal`
    let g = LazyCallGraph::builder()
        .function("a")
        .calls(["m"])
        .function("m")
        .library()
        .function("hidden")
        .internal()
        .build()
        .unwrap();
    assert_eq!(edge_names(&g, "a"), [("m".to_string(), EdgeKind::Call)]);
    assert_eq!(edge_names(&g, "m"), [("m".to_string(), EdgeKind::Ref)]);
    assert_eq!(g.lib_functions(), &[n(&g, "m")]);
    assert_eq!(g.entry_nodes(), &[n(&g, "a"), n(&g, "m")]);
    assert!(g.scc_of(n(&g, "hidden")).is_none());
    ok(&g);
}

#[test]
fn name_index_follows_mutations() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b"])
        .function("b")
        .build()
        .unwrap();
    let b = n(&g, "b");
    g.replace_node_function(b, "b2").unwrap();
    assert_eq!(g.node_by_name("b"), None);
    assert_eq!(g.node_by_name("b2"), Some(b));
    let c = g.add_function("c");
    assert_eq!(g.node_by_name("c"), Some(c));
    g.mark_dead_function(b).unwrap();
    g.remove_dead_functions(&[b]).unwrap();
    assert_eq!(g.node_by_name("b2"), None);
    // &self queries after populate
    assert!(g.is_populated(n(&g, "a")));
    assert_eq!(g.populated_edges(n(&g, "a")).unwrap().count(), 0);
    assert!(g.populated_edges(NodeIdx::new(99)).is_none());
}

#[test]
fn checked_operations_refuse_bad_calls() {
    let mut g = LazyCallGraph::builder()
        .function("a")
        .calls(["b"])
        .refs(["c"])
        .function("b")
        .refs(["a"])
        .function("c")
        .build()
        .unwrap();
    let (a, b, c) = (n(&g, "a"), n(&g, "b"), n(&g, "c"));
    let bad = NodeIdx::new(1000);
    let before = po_str(&mut g);
    assert_eq!(
        g.switch_internal_edge_to_call(a, b, |_| {}),
        Err(LcgError::WrongEdgeKind {
            src: a,
            tgt: b,
            expected: EdgeKind::Ref
        })
    );
    assert_eq!(
        g.switch_internal_edge_to_call(a, c, |_| {}),
        Err(LcgError::NotInternal { src: a, tgt: c })
    );
    assert_eq!(
        g.switch_internal_edge_to_ref(bad, b),
        Err(LcgError::UnknownNode(bad))
    );
    assert_eq!(
        g.insert_internal_ref_edge(a, b),
        Err(LcgError::EdgeExists { src: a, tgt: b })
    );
    assert_eq!(
        g.insert_outgoing_edge(c, a, EdgeKind::Ref),
        Err(LcgError::NotDescendant { src: c, tgt: a })
    );
    assert_eq!(
        g.insert_incoming_ref_edge(b, c),
        Err(LcgError::NotIncoming { src: b, tgt: c })
    );
    assert_eq!(
        g.remove_outgoing_edge(a, b),
        Err(LcgError::NotOutgoing { src: a, tgt: b })
    );
    assert_eq!(
        g.insert_edge(a, c, EdgeKind::Call),
        Err(LcgError::AlreadyBuilt)
    );
    assert_eq!(
        g.remove_internal_ref_edges(&[(b, a), (b, a)]),
        Err(LcgError::RepeatedEdge { src: b, tgt: a })
    );
    assert_eq!(
        g.insert_trivial_call_edge(c, a),
        Err(LcgError::NotDescendant { src: c, tgt: a })
    );
    assert_eq!(po_str(&mut g), before);
    ok(&g);
    let mut u = LazyCallGraph::from_edge_lists(vec![vec![], vec![]]).unwrap();
    assert_eq!(
        u.switch_outgoing_edge_to_call(NodeIdx::new(0), NodeIdx::new(1)),
        Err(LcgError::NotBuilt)
    );
    assert_eq!(
        u.remove_dead_functions(&[NodeIdx::new(0)]),
        Err(LcgError::NotBuilt)
    );
}
