//! CFG generators shared by `benches/cfg.rs` and `examples/instr_rows.rs` (included with
//! `#[path]`), so the instruction gate counts the very CFGs the bench times.
#![allow(dead_code)]

use ilkit::cfg::{BlockIdx, Cfg, Term};

/// A xorshift generator.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The CFG of `n` blocks with these edges.
pub fn cfg_from(n: usize, edges: &[(u32, u32)]) -> Cfg {
    let mut succs = vec![Vec::new(); n];
    for &(a, b) in edges {
        succs[a as usize].push(BlockIdx::from_raw(b));
    }
    Cfg::from_parts(
        "bench".into(),
        vec![String::new(); n],
        vec![0; n],
        vec![Term::Other; n],
        vec![vec![]; n],
        &succs,
    )
    .unwrap()
}

/// An unstructured CFG: a fall-through spine with short forward branches, short
/// backedges that overlap them (so it is heavily irreducible: ~13k irreducible edges,
/// CHK needs 7 passes) and 10% random long jumps.
pub fn unstructured(n: usize, seed: u64) -> Vec<(u32, u32)> {
    gen(n, seed, true)
}

pub fn gen(n: usize, seed: u64, unstructured: bool) -> Vec<(u32, u32)> {
    let mut r = Rng(seed);
    let mut e = Vec::with_capacity(2 * n);
    for b in 0..n as u32 - 1 {
        e.push((b, b + 1));
        match r.below(10) {
            0..=2 => e.push((b, (b + 2 + r.below(8) as u32).min(n as u32 - 1))),
            3 if b > 10 => e.push((b, b - 1 - r.below(10) as u32)),
            4 if unstructured => e.push((b, r.below(n as u64) as u32)),
            _ => {}
        }
    }
    e
}
