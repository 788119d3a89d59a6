//! The answers the C and C++ examples (`examples/c`, `examples/cpp`) must print,
//! computed with ilkit's Rust API directly (not through the C ABI):
//! `capi/run-examples.sh` compares the three outputs line by line.
//!
//! `cargo run -p ilkit-capi --example summary -- REPO_ROOT`
//!
//! The same lines are `python/tests/summary.golden.txt`, which the Python module's
//! `python/tests/summary.py` must reproduce; `capi/tests/summary_golden.rs` (which
//! includes this file as a module and calls [`lines`]) keeps that file current.

use std::path::Path;

use ilkit::callgraph;
use ilkit::cfg::Cfg;
use ilkit::graph::{CsrGraph, DomTree, Idom};
use ilkit::il::Il;
use ilkit::import::{binary_il, clang_json};
use ilkit::llvm::Module;
use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};

const NONE: u32 = u32::MAX;
const VIRTUAL_EXIT: u32 = u32::MAX - 1;

/// FNV-1a 64, as the C examples compute it.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn array(&mut self, a: &[u32]) {
        self.u32(a.len() as u32);
        for &v in a {
            self.u32(v);
        }
    }
    fn name(&mut self, s: &str) {
        self.bytes(s.as_bytes());
        self.bytes(&[0]);
    }
}

fn lists(rows: impl Iterator<Item = Vec<u32>>) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0];
    let mut values = Vec::new();
    for r in rows {
        values.extend(r);
        starts.push(values.len() as u32);
    }
    (starts, values)
}

fn known_graphs() -> String {
    // the diamond of the C example: 0 -> {1, 2} -> 3, 4 -> 3
    let g: CsrGraph<u32> =
        CsrGraph::from_edges(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (4, 3)], 0).unwrap();
    let mut dom = DomTree::new();
    dom.compute_semi_nca(&g);
    assert_eq!(dom.idoms().raw(), [0, 0, 0, 0, NONE]);
    "graphs: ok".to_string()
}

fn call_graph(root: &Path, rel: &str) -> String {
    let path = root.join(rel);
    let module = Module::from_ll_file(&path).unwrap();
    let mut g = callgraph::from_module(&module, &path.display().to_string());
    let order = g.postorder_refsccs();
    let mut h = Fnv::new();
    let mut sccs = 0;
    for &rc in &order {
        for &s in g.refscc_sccs(rc) {
            sccs += 1;
            for &n in g.scc_nodes(s) {
                h.name(g.name(n).unwrap_or(""));
            }
            h.bytes(&[0xff]);
        }
        h.bytes(&[0xfe]);
    }
    let defined = g.nodes().filter(|&n| g.is_defined(n)).count();
    format!(
        "callgraph {rel}: nodes {} defined {defined} sccs {sccs} refsccs {} hash {:016x}",
        g.num_nodes(),
        order.len(),
        h.0
    )
}

fn cfgs(root: &Path, kind: &str, rel: &str) -> String {
    let path = root.join(rel);
    let cfgs = if kind == "ptx" {
        Cfg::from_ptx_file(&path).unwrap()
    } else {
        Cfg::from_llvm_module(&Module::from_ll_file(&path).unwrap())
    };
    let mut h = Fnv::new();
    let (mut blocks, mut loops) = (0, 0);
    for cfg in &cfgs {
        h.bytes(cfg.name().as_bytes());
        let info = cfg.analyze();
        blocks += cfg.num_blocks();
        loops += info.loops().len();
        let (ss, sn) = lists(cfg.blocks().map(|b| {
            use ilkit::graph::Successors;
            cfg.successors(b).iter().map(|s| s.raw()).collect()
        }));
        h.array(&ss);
        h.array(&sn);
        let rpo: Vec<u32> = info.rpo().order().iter().map(|b| b.raw()).collect();
        h.array(&rpo);
        let idom: Vec<u32> = cfg
            .blocks()
            .map(|b| match info.immediate_dominator(b) {
                Idom::Root => b.raw(),
                Idom::Node(d) => d.raw(),
                _ => NONE,
            })
            .collect();
        h.array(&idom);
        let level: Vec<u32> = cfg
            .blocks()
            .map(|b| info.dom().level_of(b).unwrap_or(NONE))
            .collect();
        h.array(&level);
        let df = cfg.dominance_frontiers(&info);
        let (fs, fnodes) = lists(
            cfg.blocks()
                .map(|b| df.frontier(b).iter().map(|x| x.raw()).collect()),
        );
        h.array(&fs);
        h.array(&fnodes);
        let pd = cfg.post_dominators();
        let ipdom: Vec<u32> = cfg
            .blocks()
            .map(|b| match pd.ipdom(b) {
                Idom::Node(d) => d.raw(),
                Idom::VirtualExit => VIRTUAL_EXIT,
                _ => NONE,
            })
            .collect();
        h.array(&ipdom);
        let roots: Vec<u32> = pd.roots().iter().map(|b| b.raw()).collect();
        h.array(&roots);
        let f = info.loops();
        let header: Vec<u32> = f.loops().map(|l| f.header_of(l).unwrap().raw()).collect();
        let parent: Vec<u32> = f
            .loops()
            .map(|l| f.parent_of(l).map_or(NONE, |p| p.idx() as u32))
            .collect();
        let depth: Vec<u32> = f.loops().map(|l| f.depth_of(l).unwrap()).collect();
        let (lbs, lb) = lists(
            f.loops()
                .map(|l| f.loop_blocks(l).iter().map(|b| b.raw()).collect()),
        );
        let block_loop: Vec<u32> = cfg
            .blocks()
            .map(|b| f.innermost(b).map_or(NONE, |l| l.idx() as u32))
            .collect();
        for a in [&header, &parent, &depth, &lbs, &lb, &block_loop] {
            h.array(a);
        }
        for b in cfg.blocks() {
            h.name(&cfg.display_name(b));
        }
    }
    format!(
        "cfgs {rel}: functions {} blocks {blocks} loops {loops} hash {:016x}",
        cfgs.len(),
        h.0
    )
}

fn device_il(root: &Path, rel: &str) -> String {
    let mut il = Il::new();
    clang_json::import_file(&mut il, &root.join(rel)).unwrap();
    let keep = mark_device(&mut il, DeviceOptions::default());
    let names = kept_routine_names(&il, &keep);
    let bytes = binary_il::write_il(&mut il, true).unwrap();
    let mut h = Fnv::new();
    for n in &names {
        h.name(n);
    }
    h.bytes(&bytes);
    format!(
        "il {rel}: kept {} live {} routines {} bytes {} hash {:016x}",
        keep.kept,
        keep.live,
        names.len(),
        bytes.len(),
        h.0
    )
}

fn errors(root: &Path) -> String {
    let e = Module::from_ll_file(root.join("tests/fixtures/clang/kernels.json.gz")).unwrap_err();
    assert!(e.line >= 1 && e.column >= 1);
    "errors: ok".to_string()
}

/// Every summary line, in order, for the repository at `root`.
pub fn lines(root: &Path) -> Vec<String> {
    vec![
        known_graphs(),
        call_graph(root, "tests/corpus/llvm/zlib/zlib.O2.ll.gz"),
        cfgs(root, "ll", "tests/corpus/llvm/zlib/zlib.O2.ll.gz"),
        cfgs(root, "ptx", "tests/corpus/llvm/zlib/nvptx/deflate.ptx.gz"),
        device_il(root, "tests/fixtures/clang/kernels.json.gz"),
        errors(root),
    ]
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/..").to_string());
    for line in lines(Path::new(&root)) {
        println!("{line}");
    }
}
