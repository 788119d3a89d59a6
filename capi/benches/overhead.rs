//! What the C ABI costs over the Rust API (divan): the same SCC and dominator work on
//! the same CSR arrays, called as Rust (`ilkit_capi::flat`, the layer the C functions
//! wrap) and through the C entry points (argument checks, `catch_unwind`, the handle
//! registry, reading the answer array, freeing the result).
//!
//! - `scc/*`, `idom/*`: `rust` vs `c_abi` on a 10-node graph (the per-call overhead)
//!   and on a 10^5-node call-graph-shaped graph (where the overhead should vanish).
//!
//! Run: `cargo bench -p ilkit-capi --bench overhead`.

use std::ptr::{null, null_mut};

use divan::{black_box, Bencher};
use ilkit_capi::flat::{self, BiGraph, CsrRef};
use ilkit_capi::{
    ilkit_graph_dominators, ilkit_graph_scc, ilkit_result_array, ilkit_result_free, IlkitArray,
    IlkitResult, IlkitStatus,
};

fn main() {
    divan::main();
}

const SIZES: [usize; 2] = [10, 100_000];

/// A call-graph-shaped CSR graph of `n` nodes: 1-4 callees each, mostly earlier
/// nodes, a few later ones (cycles).
fn graph(n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut x = 0x2545_f491_4f6c_dd1du64 ^ n as u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut indptr = vec![0u32];
    let mut indices = Vec::new();
    for v in 0..n as u64 {
        for _ in 0..1 + next() % 4 {
            let t = if next() % 50 == 0 || v == 0 {
                next() % n as u64
            } else {
                v - 1 - next() % v.min(64)
            };
            indices.push(t as u32);
        }
        indptr.push(indices.len() as u32);
    }
    (indptr, indices)
}

fn c_call(
    f: impl Fn(*mut *mut IlkitResult) -> IlkitStatus,
    kind: IlkitArray,
) -> (*const u32, usize) {
    let mut r = null_mut();
    assert_eq!(f(&mut r), IlkitStatus::Ok);
    let (mut p, mut len) = (null(), 0usize);
    // SAFETY: `r` is the live result just made; valid out-pointers.
    unsafe {
        assert_eq!(
            ilkit_result_array(r, kind as u32, &mut p, &mut len),
            IlkitStatus::Ok
        );
        let first = (len > 0).then(|| *p);
        black_box(first);
        assert_eq!(ilkit_result_free(r), IlkitStatus::Ok);
    }
    (p, len)
}

mod scc {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn rust(b: Bencher, n: usize) {
        let (indptr, indices) = graph(n);
        b.bench_local(|| {
            let g = CsrRef::new(black_box(&indptr), black_box(&indices)).unwrap();
            black_box(flat::sccs(&g).label)
        });
    }

    #[divan::bench(args = SIZES)]
    fn c_abi(b: Bencher, n: usize) {
        let (indptr, indices) = graph(n);
        b.bench_local(|| {
            c_call(
                |out| {
                    // SAFETY: arrays of the stated lengths.
                    unsafe {
                        ilkit_graph_scc(
                            black_box(indptr.as_ptr()),
                            n,
                            indices.as_ptr(),
                            indices.len(),
                            out,
                        )
                    }
                },
                IlkitArray::SccLabel,
            )
        });
    }
}

mod idom {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn rust(b: Bencher, n: usize) {
        let (indptr, indices) = graph(n);
        b.bench_local(|| {
            let g = CsrRef::new(black_box(&indptr), black_box(&indices)).unwrap();
            let g = BiGraph::new(g, 0).unwrap();
            black_box(flat::dominators(&g).idom)
        });
    }

    #[divan::bench(args = SIZES)]
    fn c_abi(b: Bencher, n: usize) {
        let (indptr, indices) = graph(n);
        b.bench_local(|| {
            c_call(
                |out| {
                    // SAFETY: arrays of the stated lengths.
                    unsafe {
                        ilkit_graph_dominators(
                            black_box(indptr.as_ptr()),
                            n,
                            indices.as_ptr(),
                            indices.len(),
                            0,
                            out,
                        )
                    }
                },
                IlkitArray::Idom,
            )
        });
    }
}
