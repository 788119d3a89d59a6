//! Keep-in-IL marking and binary IL, with their baselines in the same run.
//!
//! Marking runs on a scale-10 generated translation unit (~10^6 entries) in two layouts:
//! fresh (entries in allocation order, close to walk order) and aged (the same IL with its
//! entries allocated in a random order, as after template instantiation and free-list
//! reuse). Baselines over the same edges: a plain CSR kernel (dense bitset, FIFO queue),
//! the same with software prefetch (the practical limit), and the pointer-chasing,
//! heap-allocated, recursive AoS marker the seed describes.

use divan::{black_box, counter::BytesCount, counter::ItemsCount, Bencher};
use ilkit::il::synth::{generate, Rng};
use ilkit::il::{Eix, Flag, Il};
use ilkit::walk::keep::{device_roots, mark_from, mark_from_parallel};
use std::cell::Cell;
use std::sync::OnceLock;

const SCALE: f64 = 10.0;

struct Fixture {
    fresh: Il,
    aged: Il,
    roots_fresh: Vec<Eix>,
    roots_aged: Vec<Eix>,
    csr: Csr,
    ptr_fresh: PtrGraph,
    ptr_aged: PtrGraph,
    edges_visited: usize,
}

// The pointer graphs are built once and only read by the benches.
unsafe impl Sync for Fixture {}
unsafe impl Send for Fixture {}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let fresh = generate(7, SCALE);
        let mut order: Vec<Eix> = fresh.entries().collect();
        let mut rng = Rng::new(99);
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let (aged, map) = fresh.relayout(&order);
        let roots_fresh = device_roots(&fresh);
        let roots_aged: Vec<Eix> = roots_fresh.iter().map(|r| map[r.idx()]).collect();
        let csr = Csr::from_il(&fresh);
        let ptr_fresh = PtrGraph::build(&fresh, &fresh.entries().collect::<Vec<_>>());
        let ptr_aged = PtrGraph::build(&fresh, &order);
        let mut probe = fresh.clone();
        probe.flag_column_mut(Flag::KeepInIl).clear();
        probe.flag_column_mut(Flag::KeepDefinition).clear();
        mark_from(&mut probe, roots_fresh.clone());
        let edges_visited = probe
            .flag_column(Flag::KeepInIl)
            .iter()
            .map(|e| probe.children(Eix::new(e)).len() + probe.refs(Eix::new(e)).len())
            .sum();
        Fixture {
            fresh,
            aged,
            roots_fresh,
            roots_aged,
            csr,
            ptr_fresh,
            ptr_aged,
            edges_visited,
        }
    })
}

fn main() {
    let f = fixture();
    println!(
        "keep-in-IL fixture: {} entries, {} edges from marked entries",
        f.fresh.len(),
        f.edges_visited
    );
    let mut probe = f.fresh.clone();
    ilkit::walk::keep::mark_to_keep_in_il(&mut probe, &[]);
    let dense = probe.flag_column(Flag::KeepInIl);
    let r: roaring::RoaringBitmap = dense.iter().map(|i| i as u32).collect();
    println!(
        "keep set: {} of {} entries; dense bitset {} B, roaring serialized {} B",
        dense.count(),
        probe.capacity(),
        dense.bytes(),
        r.serialized_size()
    );
    divan::main();
}

fn mark_il(b: Bencher, il: &Il, roots: &[Eix]) {
    mark_il_with(b, il, roots, mark_from)
}

fn mark_il_with(b: Bencher, il: &Il, roots: &[Eix], mark: fn(&mut Il, Vec<Eix>) -> usize) {
    let f = fixture();
    // One world for all samples, like the baselines (a clone per sample would run every
    // sample on cold caches); clearing the keep column is part of the timed work.
    let mut il = il.clone();
    b.counter(ItemsCount::new(f.edges_visited)).bench_local(|| {
        il.flag_column_mut(Flag::KeepInIl).clear();
        il.flag_column_mut(Flag::KeepDefinition).clear();
        black_box(mark(&mut il, roots.to_vec()))
    });
}

#[divan::bench(sample_count = 20)]
fn ilkit_mark_fresh(b: Bencher) {
    let f = fixture();
    mark_il(b, &f.fresh, &f.roots_fresh);
}

#[divan::bench(sample_count = 20)]
fn ilkit_mark_aged(b: Bencher) {
    let f = fixture();
    mark_il(b, &f.aged, &f.roots_aged);
}

/// `mark_from_parallel` on rayon's pool (two threads on the project machine), which
/// `mark_to_keep_in_il` runs on worlds this size.
#[divan::bench(sample_count = 20)]
fn ilkit_mark_fresh_parallel(b: Bencher) {
    let f = fixture();
    mark_il_with(b, &f.fresh, &f.roots_fresh, mark_from_parallel);
}

#[divan::bench(sample_count = 20)]
fn ilkit_mark_aged_parallel(b: Bencher) {
    let f = fixture();
    mark_il_with(b, &f.aged, &f.roots_aged, mark_from_parallel);
}

/// Plain CSR over the same children and references.
struct Csr {
    child_start: Vec<u32>,
    children: Vec<u32>,
    ref_start: Vec<u32>,
    refs: Vec<u32>,
    roots: Vec<u32>,
}

impl Csr {
    fn from_il(il: &Il) -> Csr {
        let n = il.capacity();
        let mut c = Csr {
            child_start: vec![0],
            children: vec![],
            ref_start: vec![0],
            refs: vec![],
            roots: vec![],
        };
        for i in 0..n {
            let e = Eix::new(i);
            if il.is_live(e) {
                c.children.extend(
                    il.children(e)
                        .iter()
                        .filter(|x| !x.is_none())
                        .map(|x| x.raw()),
                );
                c.refs
                    .extend(il.refs(e).iter().filter(|x| !x.is_none()).map(|x| x.raw()));
            }
            c.child_start.push(c.children.len() as u32);
            c.ref_start.push(c.refs.len() as u32);
        }
        c.roots = device_roots(il).iter().map(|r| r.raw()).collect();
        c
    }

    fn mark(&self, prefetch: bool) -> usize {
        let n = self.child_start.len() - 1;
        let mut bits = vec![0u64; n.div_ceil(64)];
        let mut queue: Vec<u32> = Vec::with_capacity(n);
        let test_set = |bits: &mut Vec<u64>, i: u32| {
            let w = &mut bits[(i >> 6) as usize];
            let m = 1u64 << (i & 63);
            let fresh = *w & m == 0;
            *w |= m;
            fresh
        };
        for &r in &self.roots {
            if test_set(&mut bits, r) {
                queue.push(r);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            if prefetch {
                // The same two-stage prefetch ilkit's kernel uses: offsets 32 ahead, the
                // edge list 16 ahead.
                if let Some(&far) = queue.get(head + 32) {
                    prefetch_read(&self.child_start[far as usize]);
                    prefetch_read(&self.ref_start[far as usize]);
                }
                if let Some(&near) = queue.get(head + 16) {
                    if let Some(c) = self.children.get(self.child_start[near as usize] as usize) {
                        prefetch_read(c);
                    }
                }
            }
            let e = queue[head] as usize;
            head += 1;
            for &c in &self.children[self.child_start[e] as usize..self.child_start[e + 1] as usize]
            {
                if test_set(&mut bits, c) {
                    queue.push(c);
                }
            }
            for &r in &self.refs[self.ref_start[e] as usize..self.ref_start[e + 1] as usize] {
                test_set(&mut bits, r);
            }
        }
        queue.len()
    }
}

impl Csr {
    /// The same FIFO kernel with a compressed (roaring) bitmap as the visited set: the
    /// alternative PERF.md weighs for flag columns.
    fn mark_roaring(&self) -> usize {
        let mut seen = roaring::RoaringBitmap::new();
        let mut queue: Vec<u32> = Vec::with_capacity(self.child_start.len());
        for &r in &self.roots {
            if seen.insert(r) {
                queue.push(r);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let e = queue[head] as usize;
            head += 1;
            for &c in &self.children[self.child_start[e] as usize..self.child_start[e + 1] as usize]
            {
                if seen.insert(c) {
                    queue.push(c);
                }
            }
            for &r in &self.refs[self.ref_start[e] as usize..self.ref_start[e + 1] as usize] {
                seen.insert(r);
            }
        }
        queue.len()
    }
}

#[divan::bench(sample_count = 10)]
fn baseline_csr_fifo_roaring(b: Bencher) {
    let f = fixture();
    b.counter(ItemsCount::new(f.edges_visited))
        .bench(|| black_box(f.csr.mark_roaring()));
}

#[inline(always)]
fn prefetch_read<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; the pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[divan::bench(sample_count = 20)]
fn baseline_csr_fifo(b: Bencher) {
    let f = fixture();
    b.counter(ItemsCount::new(f.edges_visited))
        .bench(|| black_box(f.csr.mark(false)));
}

#[divan::bench(sample_count = 20)]
fn baseline_csr_fifo_prefetch(b: Bencher) {
    let f = fixture();
    b.counter(ItemsCount::new(f.edges_visited))
        .bench(|| black_box(f.csr.mark(true)));
}

/// The seed's design: heap nodes with a flag byte, child pointers, recursive marking.
#[allow(dead_code)]
struct PNode {
    keep: Cell<bool>,
    kind: u8,
    payload: [u64; 7],
    children: Vec<*const PNode>,
    refs: Vec<*const PNode>,
}

struct PtrGraph {
    // One heap allocation per node is the point of this baseline.
    #[allow(clippy::vec_box)]
    nodes: Vec<Box<PNode>>,
    roots: Vec<*const PNode>,
}

impl PtrGraph {
    /// Allocates one box per entry in `order`, then links children and references.
    fn build(il: &Il, order: &[Eix]) -> PtrGraph {
        let mut slot = vec![usize::MAX; il.capacity()];
        let mut nodes: Vec<Box<PNode>> = Vec::with_capacity(order.len());
        for &e in order {
            slot[e.idx()] = nodes.len();
            nodes.push(Box::new(PNode {
                keep: Cell::new(false),
                kind: il.kind(e) as u8,
                payload: [0; 7],
                children: vec![],
                refs: vec![],
            }));
        }
        let ptrs: Vec<*const PNode> = nodes.iter().map(|b| &**b as *const PNode).collect();
        for &e in order {
            let n = &mut nodes[slot[e.idx()]];
            n.children = il
                .children(e)
                .iter()
                .filter(|c| !c.is_none())
                .map(|c| ptrs[slot[c.idx()]])
                .collect();
            n.refs = il
                .refs(e)
                .iter()
                .filter(|c| !c.is_none())
                .map(|c| ptrs[slot[c.idx()]])
                .collect();
        }
        let roots = device_roots(il)
            .iter()
            .map(|r| ptrs[slot[r.idx()]])
            .collect();
        PtrGraph { nodes, roots }
    }

    fn mark(&self) -> usize {
        fn walk(n: &PNode, count: &mut usize) {
            for &c in &n.children {
                // SAFETY: every pointer targets a box owned by the same PtrGraph.
                let c = unsafe { &*c };
                if !c.keep.get() {
                    c.keep.set(true);
                    *count += 1;
                    walk(c, count);
                }
            }
            for &r in &n.refs {
                // SAFETY: as above.
                let r = unsafe { &*r };
                if !r.keep.get() {
                    r.keep.set(true);
                    *count += 1;
                }
            }
        }
        for n in &self.nodes {
            n.keep.set(false);
        }
        let mut count = 0;
        for &r in &self.roots {
            // SAFETY: as above.
            let r = unsafe { &*r };
            if !r.keep.get() {
                r.keep.set(true);
                count += 1;
                walk(r, &mut count);
            }
        }
        count
    }
}

#[divan::bench(sample_count = 20)]
fn baseline_pointer_recursive_fresh(b: Bencher) {
    let f = fixture();
    b.counter(ItemsCount::new(f.edges_visited))
        .bench(|| black_box(f.ptr_fresh.mark()));
}

#[divan::bench(sample_count = 20)]
fn baseline_pointer_recursive_aged(b: Bencher) {
    let f = fixture();
    b.counter(ItemsCount::new(f.edges_visited))
        .bench(|| black_box(f.ptr_aged.mark()));
}

#[divan::bench(sample_count = 10)]
fn binary_il_write(b: Bencher) {
    let mut il = fixture().fresh.clone();
    let len = ilkit::import::binary_il::write_il(&mut il, false)
        .unwrap()
        .len();
    b.counter(BytesCount::new(len))
        // The file is returned, so divan frees it after timing: the bench times writing.
        .bench_local(|| ilkit::import::binary_il::write_il(&mut il, false).unwrap());
}

#[divan::bench(sample_count = 10)]
fn binary_il_read(b: Bencher) {
    let mut il = fixture().fresh.clone();
    let bytes = ilkit::import::binary_il::write_il(&mut il, false).unwrap();
    b.counter(BytesCount::new(bytes.len()))
        // The world is returned, so divan frees it after timing: the bench times reading.
        .bench_local(|| ilkit::import::binary_il::read_il(&bytes).unwrap());
}

/// The generic file-scope walk with an entry visitor (the display/serialization shape),
/// against the pointer marker's traversal of the same TU.
#[divan::bench(sample_count = 10)]
fn ilkit_walk_file_scope_il(b: Bencher) {
    struct Count(usize);
    impl ilkit::walk::Callbacks for Count {
        const HAS_ENTRY: bool = true;
        fn entry(&mut self, _: &mut Il, _: Eix, _: ilkit::il::EntryKind) -> Option<Eix> {
            self.0 += 1;
            None
        }
    }
    let mut il = fixture().fresh.clone();
    let mut w = ilkit::walk::Walker::new();
    b.counter(ItemsCount::new(il.len())).bench_local(|| {
        let mut c = Count(0);
        w.walk_file_scope_il(&mut il, &mut c, 0).unwrap();
        black_box(c.0)
    });
}
