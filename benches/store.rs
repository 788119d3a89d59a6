//! IL allocation: ilkit's tables against a Box-per-node baseline and a bump arena, in the
//! same run; and the bytes per entry of ilkit's layout against the seed's sizes.

use divan::{black_box, counter::ItemsCount, Bencher};
use ilkit::il::{Eix, EntryKind, ExprKind, Il, Op};

const N: usize = 1_000_000;

fn main() {
    let il = ilkit::il::synth::generate(42, 1.0);
    let lb = ilkit::il::stats::layout_bytes(&il);
    println!(
        "layout over a scale-1 TU: {} entries, ilkit {:.1} B/entry, seed {:.1} B/entry, ratio {:.3}",
        lb.entries,
        lb.ilkit_bytes as f64 / lb.entries as f64,
        lb.seed_bytes as f64 / lb.entries as f64,
        lb.ratio()
    );
    println!(
        "  {:<28} {:>6} {:>6} {:>10}",
        "kind", "ilkit", "seed", "seed+pfx"
    );
    for k in ilkit::il::EntryKind::ALL {
        if !k.has_table() || il.alloc_count(k) == 0 || k.seed_size() == 0 {
            continue;
        }
        let each = ilkit::il::stats::il_table_stats(&il)
            .into_iter()
            .find(|r| r.name == ilkit::il::EntryKind::STATS_NAMES[k as usize])
            .map_or(0, |r| r.ilkit_each);
        let prefix = if matches!(k.region_rule(), ilkit::il::RegionRule::FileScope) {
            24
        } else {
            8
        };
        println!(
            "  {:<28} {:>6} {:>6} {:>10}",
            k.name(),
            each,
            k.seed_size(),
            k.seed_size() + prefix
        );
    }
    divan::main();
}

/// ilkit: 10^6 expression nodes in a function region, each an operation with one operand
/// (the previous node), built with the index builder `Il::push_expr`; the world is
/// dropped inside the sample.
#[divan::bench(sample_count = 10)]
fn ilkit_alloc_expr_nodes(b: Bencher) {
    b.counter(ItemsCount::new(N))
        .bench_local(|| alloc_expr_nodes(N));
}

/// The measured work of `ilkit_alloc_expr_nodes`, a function of its own so callgrind can
/// count it without divan's overhead:
/// `valgrind --tool=callgrind --toggle-collect='*alloc_expr_nodes_work*' <bench binary>
/// --bench ilkit_alloc_expr_nodes --sample-count 1 --sample-size 1`.
#[inline(never)]
fn alloc_expr_nodes_work(n: usize) -> usize {
    let mut il = Il::new();
    il.open_function_region(None);
    // A batch of known size: every column grows once.
    il.reserve(n, 5 * n);
    il.reserve_kind(EntryKind::ExprNode, n);
    let mut prev = None;
    for _ in 0..n {
        let ops = prev.as_slice();
        prev = Some(
            il.push_expr(ExprKind::Operation, Op::Add, Eix::NONE, ops)
                .unwrap(),
        );
    }
    black_box(il.len())
}

fn alloc_expr_nodes(n: usize) -> usize {
    alloc_expr_nodes_work(n)
}

/// The pointer-chasing design: a 72-byte node per Box, operands as pointers.
#[allow(dead_code)]
struct BoxNode {
    kind: u8,
    op: u8,
    flags: u64,
    ty: usize,
    operand: Option<Box<BoxNode>>,
    pos: [u64; 4],
}

#[divan::bench(sample_count = 10)]
fn baseline_box_per_node(b: Bencher) {
    b.counter(ItemsCount::new(N)).bench_local(|| {
        let mut nodes: Vec<Box<BoxNode>> = Vec::with_capacity(16);
        let mut prev: Option<Box<BoxNode>> = None;
        for i in 0..N {
            let n = Box::new(BoxNode {
                kind: 1,
                op: 120,
                flags: 1,
                ty: 0,
                operand: prev.take(),
                pos: [i as u64; 4],
            });
            if i % 1024 == 1023 {
                nodes.push(n);
            } else {
                prev = Some(n);
            }
        }
        black_box(nodes.len());
        // Drop iteratively: a 10^6-long Box chain would overflow the stack on drop.
        for n in nodes.into_iter().chain(prev) {
            let mut cur = Some(n);
            while let Some(mut c) = cur {
                cur = c.operand.take();
            }
        }
    });
}

#[divan::bench(sample_count = 10)]
fn baseline_bump_arena(b: Bencher) {
    #[allow(dead_code)]
    struct ArenaNode<'a> {
        kind: u8,
        op: u8,
        flags: u64,
        ty: usize,
        operand: Option<&'a ArenaNode<'a>>,
        pos: [u64; 4],
    }
    b.counter(ItemsCount::new(N)).bench_local(|| {
        let arena = bumpalo::Bump::new();
        let mut prev: Option<&ArenaNode> = None;
        for i in 0..N {
            let n = arena.alloc(ArenaNode {
                kind: 1,
                op: 120,
                flags: 1,
                ty: 0,
                operand: prev,
                pos: [i as u64; 4],
            });
            prev = Some(black_box(n));
        }
        black_box(prev.map(|p| p.kind));
    });
}

/// The floor of any allocation keyed by slotmap IDs: 10^6 inserts into a `SlotMap` of
/// `u32` values and nothing else (no columns, no edges).
#[divan::bench(sample_count = 10)]
fn floor_slotmap_insert_only(b: Bencher) {
    slotmap::new_key_type! {
        struct K;
    }
    b.counter(ItemsCount::new(N)).bench_local(|| {
        let mut m: slotmap::SlotMap<K, u32> = slotmap::SlotMap::with_key();
        let mut last = K::default();
        for i in 0..N {
            last = m.insert(i as u32);
        }
        black_box((m.len(), last))
    });
}
