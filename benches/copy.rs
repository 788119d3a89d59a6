//! Deep copy (`share::copy::DeepCopy`) of a 10^6-node expression forest against cloning
//! the same forest as Box trees, and a contiguous 10^4-node subtree copy against a plain
//! memcpy of the same bytes (ilkit's per-entry bytes × nodes), in the same run. The
//! forest's trees are allocated bottom-up, so the copier plans each as a block; the
//! `_top_down` row copies the same forest laid out in pre-order (also blocks), and the
//! `_walked` row copies it with every copy planned by a walk. The subtree's
//! `_first_copy` row drops the world's kept proof that the tree is a block before each
//! sample, so it times the proof too.

use divan::{black_box, counter::ItemsCount, Bencher};
use ilkit::il::synth::Rng;
use ilkit::il::Op;
use ilkit::il::{fields as F, kinds, Eix, EntryKind, Il, RegionIdx};
use ilkit::il::{ConstantKind, ExprKind, StorageClass, TypeKind};
use ilkit::share::copy::DeepCopy;
use std::cell::{Cell, RefCell};

const N: usize = 1_000_000;
const TREE: usize = 1000;

/// The baseline's node: what a pointer-based IL clones (one Box per node on purpose; the
/// fields are carried, never read).
#[allow(dead_code, clippy::vec_box)]
#[derive(Clone, Debug)]
struct BoxExpr {
    kind: ExprKind,
    op: Op,
    ty: u32,
    entity: u32,
    constant: u32,
    operands: Vec<Box<BoxExpr>>,
}

#[allow(clippy::vec_box)]
struct Forest {
    il: Il,
    roots: Vec<Eix>,
    boxed: Vec<Box<BoxExpr>>,
}

/// `n` nodes in trees of `tree` nodes: binary operations over variable references and
/// integer constants (a few shared constants), allocated tree by tree (contiguous).
fn forest(n: usize, tree: usize) -> Forest {
    let mut il = Il::new();
    let int = il.alloc(EntryKind::Type).unwrap();
    kinds::set_type_kind(&mut il, int, TypeKind::Integer).unwrap();
    let v = il.alloc_variable(StorageClass::Global).unwrap();
    let mut consts = Vec::new();
    for i in 0..16 {
        let c = il.alloc(EntryKind::Constant).unwrap();
        kinds::set_constant_kind(&mut il, c, ConstantKind::Integer).unwrap();
        il.constant_mut(il.eix(c).unwrap()).set_value(i);
        consts.push(c);
    }
    let (int, v) = (il.eix(int).unwrap(), il.eix(v).unwrap());
    let consts: Vec<Eix> = consts.iter().map(|&c| il.eix(c).unwrap()).collect();
    let mut rng = Rng::new(5);
    let mut roots = Vec::new();
    let mut boxed = Vec::new();
    for _ in 0..n / tree {
        // Leaves first, then combine pairs until one root (post-order allocation).
        let mut level: Vec<(Eix, Box<BoxExpr>)> = Vec::new();
        let leaves = tree.div_ceil(2);
        for _ in 0..leaves {
            let (k, c) = if rng.chance(0.5) {
                (ExprKind::Constant, Some(consts[rng.below(16) as usize]))
            } else {
                (ExprKind::Variable, None)
            };
            // The index builder, then the leaf's constant or entity slot in place.
            let x = il.push_expr(k, Op::Paren, int, &[]).unwrap();
            if let Some(c) = c {
                il.set_child_eix(x, F::EXPR_NODE_CONSTANT, c).unwrap();
            } else {
                il.set_ref_eix(x, F::EXPR_NODE_ENTITY, v).unwrap();
            }
            let b = Box::new(BoxExpr {
                kind: k,
                op: Op::Paren,
                ty: 1,
                entity: if k == ExprKind::Variable { 2 } else { 0 },
                constant: c.map_or(0, |_| 3),
                operands: Vec::new(),
            });
            level.push((x, b));
        }
        while level.len() > 1 {
            let mut next = Vec::new();
            let mut it = level.into_iter();
            while let Some((a, ba)) = it.next() {
                match it.next() {
                    Some((b, bb)) => {
                        let x = il
                            .push_expr(ExprKind::Operation, Op::Add, int, &[a, b])
                            .unwrap();
                        next.push((
                            x,
                            Box::new(BoxExpr {
                                kind: ExprKind::Operation,
                                op: Op::Add,
                                ty: 1,
                                entity: 0,
                                constant: 0,
                                operands: vec![ba, bb],
                            }),
                        ));
                    }
                    None => next.push((a, ba)),
                }
            }
            level = next;
        }
        let (root, b) = level.pop().unwrap();
        roots.push(root);
        boxed.push(b);
    }
    il.compact_edges();
    Forest { il, roots, boxed }
}

/// The same forest laid out top-down: each tree in pre-order (an operation before its
/// operands), as the clang importer and the generator lay trees out.
fn top_down(f: &Forest) -> (Il, Vec<Eix>) {
    let mut order = Vec::new();
    for &root in &f.roots {
        let mut st = vec![root];
        while let Some(e) = st.pop() {
            order.push(e);
            st.extend(f.il.list_eix(e, F::EXPR_NODE_OPERANDS).iter().rev());
        }
    }
    let (il, map) = f.il.relayout(&order);
    let roots = f.roots.iter().map(|r| map[r.idx()]).collect();
    (il, roots)
}

fn count(il: &Il, roots: &[Eix]) -> usize {
    let mut n = 0;
    let mut st: Vec<Eix> = roots.to_vec();
    while let Some(e) = st.pop() {
        n += 1;
        st.extend_from_slice(il.list_eix(e, F::EXPR_NODE_OPERANDS));
    }
    n
}

fn main() {
    let f = forest(N, TREE);
    let nodes = count(&f.il, &f.roots);
    let bytes: usize =
        f.il.entries()
            .filter(|&e| f.il.kind(e) == EntryKind::ExprNode)
            .map(|e| f.il.entry_bytes(e) + f.il.list_bytes(e).round() as usize)
            .sum::<usize>()
            / nodes.max(1);
    println!(
        "forest: {} trees, {nodes} expression nodes, {bytes} B per node in ilkit's layout",
        f.roots.len()
    );
    // The copy is a faithful deep copy.
    let mut il = f.il.clone();
    let mut cp = DeepCopy::new(0, RegionIdx::FILE_SCOPE).without_tracking();
    let c = cp.copy_eix(&mut il, f.roots[0]).unwrap();
    assert!(ilkit::compare::compare_expressions(&il, f.roots[0], c, 0).unwrap());
    assert_eq!(count(&il, &[c]), count(&f.il, &f.roots[..1]));
    let profile = std::env::var("ILKIT_COPY_PROFILE").ok();
    if let Some(mode @ ("subtree" | "subtree-first")) = profile.as_deref() {
        // Subtree copies into recycled regions, as the subtree row's samples; the last
        // runs in `profiled_subtree_copy` (`--toggle-collect='*profiled_subtree_copy*'`).
        // ILKIT_COPY_PASSES=N (default 4) runs more, for sampling profilers and for
        // comparing builds: the median copy (the region's closing not timed) is printed.
        // `subtree-first` drops the kept proof before each copy, as the
        // `_first_copy` row does.
        let s = forest(SUB, SUB);
        let il = RefCell::new(s.il.clone());
        let region = Cell::new(None);
        let passes = passes(4);
        let mut times = Vec::with_capacity(passes);
        for pass in 0..passes {
            let r = next_region(&il, &region);
            if mode == "subtree-first" {
                forget_kept_proof(&mut il.borrow_mut(), s.roots[0]);
            }
            let mut cp = DeepCopy::new(0, r).without_tracking();
            let t = std::time::Instant::now();
            if pass + 1 < passes {
                black_box(cp.copy_eix(&mut il.borrow_mut(), s.roots[0]).unwrap());
            } else {
                profiled_subtree_copy(&mut il.borrow_mut(), &mut cp, s.roots[0]);
            }
            times.push(t.elapsed());
        }
        times.sort();
        println!("{mode} copy: median {:?} of {passes}", times[passes / 2]);
        return;
    }
    if profile.is_some() {
        // Forest copies into recycled regions, as bench samples do; the last runs in
        // `profiled_forest_pass` (`valgrind --tool=callgrind
        // --toggle-collect='*profiled_forest_pass*'`).
        let il = RefCell::new(f.il.clone());
        let region = Cell::new(None);
        // ILKIT_COPY_PASSES=N (default 3) runs more passes, for sampling profilers.
        let passes = passes(3);
        for pass in 0..passes {
            let r = next_region(&il, &region);
            let t = std::time::Instant::now();
            if pass + 1 < passes {
                copy_forest_pass(&mut il.borrow_mut(), r, &f.roots);
            } else {
                profiled_forest_pass(&mut il.borrow_mut(), r, &f.roots);
            }
            println!("forest copy: {:?}", t.elapsed());
        }
        return;
    }
    divan::main();
}

/// ilkit: deep copy of every tree of the 10^6-node forest into a fresh function region
/// (no sharing table attached). One live world for all samples: the setup closes the
/// previous sample's region (its entries go to the free lists) and opens a new one, so
/// every sample copies into recycled rows instead of growing exact-capacity columns.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn ilkit_deep_copy_forest(b: Bencher) {
    let f = forest(N, TREE);
    bench_forest_copies(b, f.il.clone(), &f.roots, false);
}

/// ilkit on the forest laid out top-down (each tree in pre-order).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn ilkit_deep_copy_forest_top_down(b: Bencher) {
    let (il, roots) = top_down(&forest(N, TREE));
    bench_forest_copies(b, il, &roots, false);
}

/// ilkit with every copy planned by a walk of the original ([`DeepCopy::walk_only`]):
/// the general path, for trees not laid out as a block.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn ilkit_deep_copy_forest_walked(b: Bencher) {
    let f = forest(N, TREE);
    bench_forest_copies(b, f.il.clone(), &f.roots, true);
}

/// Samples of forest copies into recycled regions of one live world (see
/// `ilkit_deep_copy_forest`).
fn bench_forest_copies(b: Bencher, il: Il, roots: &[Eix], walk_only: bool) {
    let il = RefCell::new(il);
    let region = Cell::new(None);
    b.counter(ItemsCount::new(N))
        .with_inputs(|| next_region(&il, &region))
        .bench_local_values(|r| {
            let mut il = il.borrow_mut();
            if walk_only {
                let mut cp = DeepCopy::new(0, r).without_tracking().walk_only();
                for &root in roots {
                    black_box(cp.copy_eix(&mut il, root).unwrap());
                }
            } else {
                copy_forest_pass(&mut il, r, roots);
            }
        });
}

/// ILKIT_COPY_PASSES, at least 1 (`default` when unset).
fn passes(default: usize) -> usize {
    std::env::var("ILKIT_COPY_PASSES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
        .max(1)
}

#[inline(never)]
fn profiled_forest_pass(il: &mut Il, r: RegionIdx, roots: &[Eix]) {
    copy_forest_pass(il, r, roots);
}

#[inline(never)]
fn copy_forest_pass(il: &mut Il, r: RegionIdx, roots: &[Eix]) {
    let mut cp = DeepCopy::new(0, r).without_tracking();
    for &root in roots {
        black_box(cp.copy_eix(il, root).unwrap());
    }
    // The forest's trees are laid out as blocks (tree by tree, bottom-up or top-down).
    assert_eq!(cp.blocks as usize, roots.len());
}

#[inline(never)]
fn profiled_subtree_copy(il: &mut Il, cp: &mut DeepCopy, root: Eix) {
    black_box(cp.copy_eix(il, root).unwrap());
}

fn next_region(il: &RefCell<Il>, region: &Cell<Option<RegionIdx>>) -> RegionIdx {
    let mut il = il.borrow_mut();
    if let Some(r) = region.take() {
        il.close_function_region(r).unwrap();
    }
    let r = il.open_function_region(None);
    region.set(Some(r));
    r
}

/// Baseline: `Clone` of the same forest as Box trees.
#[divan::bench(sample_count = 10)]
fn box_tree_clone_forest(b: Bencher) {
    let f = forest(N, TREE);
    b.counter(ItemsCount::new(N))
        .bench_local(|| black_box(f.boxed.clone()));
}

const SUB: usize = 10_000;

/// ilkit: copy of one contiguous 10^4-node subtree (into a recycled function region, as
/// above). Once the world has proved the tree a block twice (the first two samples), it
/// keeps the proof, and later samples copy without proving it again (see
/// `ilkit_contiguous_subtree_first_copy` for the copy with the proof).
#[divan::bench(sample_count = 100, sample_size = 1)]
fn ilkit_contiguous_subtree(b: Bencher) {
    let f = forest(SUB, SUB);
    let root = f.roots[0];
    let il = RefCell::new(f.il.clone());
    let region = Cell::new(None);
    b.counter(ItemsCount::new(SUB))
        .with_inputs(|| next_region(&il, &region))
        .bench_local_values(|r| copy_subtree(&mut il.borrow_mut(), r, root));
}

/// ilkit: the same copy when the world has no kept proof for the tree (an edit of the
/// root before each sample drops it, as any edit of the tree does): the scan that proves
/// the tree a block, keeping its answer, and the block clone.
#[divan::bench(sample_count = 100, sample_size = 1)]
fn ilkit_contiguous_subtree_first_copy(b: Bencher) {
    let f = forest(SUB, SUB);
    let root = f.roots[0];
    let il = RefCell::new(f.il.clone());
    let region = Cell::new(None);
    b.counter(ItemsCount::new(SUB))
        .with_inputs(|| {
            let r = next_region(&il, &region);
            forget_kept_proof(&mut il.borrow_mut(), root);
            r
        })
        .bench_local_values(|r| copy_subtree(&mut il.borrow_mut(), r, root));
}

/// One subtree sample: the tree at `root` copied into region `r`, without tracking.
fn copy_subtree(il: &mut Il, r: RegionIdx, root: Eix) -> Eix {
    let mut cp = DeepCopy::new(0, r).without_tracking();
    black_box(cp.copy_eix(il, root).unwrap())
}

/// Drops the world's kept proof that the tree at `root` is a block, as any edit of the
/// tree does: here its operator set to what it is.
fn forget_kept_proof(il: &mut Il, root: Eix) {
    let op = il.expr(root).op();
    il.expr_mut(root).set_op(op);
    assert_eq!(il.kept_blocks(), 0);
}

/// Baseline: memcpy of the same subtree's bytes (nodes × ilkit bytes per node), into one
/// destination buffer written before the samples (as the copy writes recycled rows): a
/// fresh buffer per sample would time the kernel's page faults too, whenever the
/// allocator hands back pages it had returned.
#[divan::bench(sample_count = 100)]
fn memcpy_same_bytes(b: Bencher) {
    let f = forest(SUB, SUB);
    let bytes: usize =
        f.il.entries()
            .filter(|&e| f.il.kind(e) == EntryKind::ExprNode)
            .map(|e| f.il.entry_bytes(e) + f.il.list_bytes(e).round() as usize)
            .sum();
    let src = vec![7u8; bytes];
    let dst = RefCell::new(vec![1u8; bytes]);
    b.counter(ItemsCount::new(SUB)).bench_local(|| {
        black_box(&mut dst.borrow_mut()[..]).copy_from_slice(black_box(&src));
    });
}

/// The floor under a contiguous subtree copy in this store: only the writes every copied
/// node must get (its dense index's kind, row, region, generation, position and edge-start
/// columns, its 12-byte expression row, its edge block appended with the operand slots
/// relocated), for the same 10^4 nodes and block shapes as `ilkit_contiguous_subtree`
/// (leaves 4 pool words, operations 6), on plain vectors of ilkit's column widths, with
/// no checks, no scan and no constants: the dense slots are a recycled run, as in the
/// subtree row. Flag bits and the region's entry run are one range write each and left
/// out. Measured against `memcpy_same_bytes`.
#[divan::bench(sample_count = 100, sample_size = 1)]
fn floor_column_writes(b: Bencher) {
    let src = FloorWorld::subtree(SUB);
    let dst = RefCell::new(FloorWorld::subtree(SUB));
    b.counter(ItemsCount::new(SUB))
        .bench_local(|| floor_pass(&src, &mut dst.borrow_mut()));
}

/// Plain columns of ilkit's widths (see `floor_column_writes`).
struct FloorWorld {
    kind: Vec<u8>,
    row: Vec<u32>,
    region: Vec<u16>,
    gen: Vec<u32>,
    pos: Vec<u32>,
    start: Vec<u32>,
    rows: Vec<[u32; 3]>,
    edges: Vec<u32>,
}

impl FloorWorld {
    /// `n` expression nodes laid out as the forest's trees are: leaves, then pairs.
    fn subtree(n: usize) -> FloorWorld {
        let mut w = FloorWorld {
            kind: vec![13; n],
            row: (0..n as u32).collect(),
            region: vec![1; n],
            gen: vec![1; n],
            pos: vec![0; n],
            start: Vec::with_capacity(n),
            rows: vec![[7, 0, 0]; n],
            edges: Vec::with_capacity(6 * n),
        };
        let leaves = n.div_ceil(2);
        // The type and the constants lie outside the subtree.
        let (ty, c) = (n as u32 + 1, n as u32 + 2);
        for _ in 0..leaves {
            // [entity][operand count][type][constant]
            w.edges.extend_from_slice(&[u32::MAX, 0]);
            w.start.push(w.edges.len() as u32);
            w.edges.extend_from_slice(&[ty, c]);
        }
        let mut next = 0u32;
        for _ in leaves..n {
            w.edges.extend_from_slice(&[u32::MAX, 2]);
            w.start.push(w.edges.len() as u32);
            w.edges.extend_from_slice(&[ty, u32::MAX, next, next + 1]);
            next += 2;
        }
        w
    }
}

/// One floor copy of `src`'s `n` nodes into the recycled dense run `0..n` of `dst` (rows
/// and pool appended after `dst`'s, the pool truncated back first so samples match).
#[inline(never)]
fn floor_pass(src: &FloorWorld, dst: &mut FloorWorld) {
    let n = src.kind.len();
    let (d0, low, delta_row) = (0u32, 0u32, dst.rows.len() as u32);
    dst.edges.truncate(src.edges.len());
    dst.rows.truncate(n);
    dst.kind[..n].fill(13);
    for (k, r) in dst.row[..n].iter_mut().enumerate() {
        *r = delta_row + k as u32;
    }
    dst.region[..n].fill(2);
    for g in &mut dst.gen[..n] {
        *g = g.wrapping_add(2);
    }
    dst.pos[..n].fill(1);
    let at = dst.edges.len() as u32;
    for (d, &s) in dst.start[..n].iter_mut().zip(&src.start) {
        *d = s + at;
    }
    dst.rows.extend_from_slice(&src.rows);
    dst.edges.extend_from_slice(&src.edges);
    for w in &mut dst.edges[at as usize..] {
        if w.wrapping_sub(low) < n as u32 {
            *w = *w - low + d0;
        }
    }
    black_box(&dst.edges);
}
