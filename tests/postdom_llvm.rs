//! `PostDomTree` against LLVM 14's `PostDominatorTree`: roots (same order) and every
//! block's immediate post-dominator, on 300 random CFGs with several exits, infinite
//! loops and blocks unreachable from the entry (`tests/fixtures/postdom/`, made by
//! `gen.py` there with `opt-14 -passes='print<postdomtree>'`).

use ilkit::cfg::{BlockIdx, Cfg};
use ilkit::graph::{DomTree, Idom, PostDomTree, Predecessors, Successors};
use ilkit::llvm::Module;
use std::collections::BTreeMap;

fn fixture(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/postdom")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn postdom_matches_llvm_14() {
    let m = Module::from_ll_str("random.ll", &fixture("random.ll")).unwrap();
    let cfgs: BTreeMap<String, Cfg> = Cfg::from_llvm_module(&m)
        .into_iter()
        .map(|c| (c.name().to_string(), c))
        .collect();
    let (mut functions, mut nontrivial, mut dropped_virtual) = (0, 0, 0);
    for line in fixture("random.postdom").lines() {
        if line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(' ');
        let name = parts.next().unwrap();
        let roots: Vec<&str> = parts.next().unwrap()["roots=".len()..]
            .split(',')
            .filter(|s| !s.is_empty())
            .collect();
        let want: BTreeMap<&str, &str> = parts.next().unwrap()["ipdom=".len()..]
            .split(',')
            .map(|p| p.split_once(':').unwrap())
            .collect();
        let cfg = &cfgs[name];
        let pdt = cfg.post_dominators();
        assert!(pdt.verify(cfg).is_empty(), "{name}: {:?}", pdt.verify(cfg));
        let mine: Vec<String> = pdt.roots().iter().map(|&b| cfg.display_name(b)).collect();
        assert_eq!(mine, roots, "{name}: roots");
        for b in cfg.blocks() {
            let got = match pdt.ipdom(b) {
                Idom::Node(d) => cfg.display_name(d),
                Idom::VirtualExit => "*".to_string(),
                other => panic!("{name}: {b} is {other:?}"),
            };
            let bn = cfg.display_name(b);
            assert_eq!(got, want[bn.as_str()], "{name}: ipdom of {bn}");
            dropped_virtual += (got == "*" && !roots.contains(&bn.as_str())) as usize;
        }
        nontrivial += pdt
            .roots()
            .iter()
            .filter(|&&r| !cfg.successors(r).is_empty())
            .count();
        functions += 1;
    }
    assert_eq!(functions, 300);
    // the fixture exercises infinite loops and joins of different roots
    assert!(
        nontrivial > 100 && dropped_virtual > 50,
        "{nontrivial} {dropped_virtual}"
    );
}

/// Where every block reaches an exit, the post-dominator tree is the dominator tree of
/// the reverse graph entered from a virtual exit that jumps to every exit.
#[test]
fn postdom_is_dom_of_reverse_graph_when_exits_are_the_roots() {
    let m = Module::from_ll_str("random.ll", &fixture("random.ll")).unwrap();
    let mut checked = 0;
    for cfg in Cfg::from_llvm_module(&m) {
        let n = cfg.num_blocks();
        let pdt = cfg.post_dominators();
        if pdt.roots().iter().any(|&r| !cfg.successors(r).is_empty()) {
            continue;
        }
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for b in cfg.blocks() {
            for &p in cfg.predecessors(b) {
                edges.push((b.raw(), p.raw()));
            }
            if cfg.successors(b).is_empty() {
                edges.push((n as u32, b.raw()));
            }
        }
        let rev = ilkit::graph::CsrGraph::from_edges(n + 1, &edges, n as u32).unwrap();
        let mut dom = DomTree::new();
        dom.compute_semi_nca(&rev);
        for b in cfg.blocks() {
            let want = match dom.idom(b.raw()) {
                Idom::Node(d) if d as usize == n => Idom::VirtualExit,
                Idom::Node(d) => Idom::Node(BlockIdx::from_raw(d)),
                other => panic!("{}: {b} is {other:?} in the reverse tree", cfg.name()),
            };
            assert_eq!(pdt.ipdom(b), want, "{}: {b}", cfg.name());
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
    let _ = PostDomTree::<u32>::new();
}
