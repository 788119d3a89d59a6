//! Fixed workloads for `scripts/instr_gate.py`, which counts their instructions under
//! callgrind, for the paths whose bench does not give it a function to count. A profiling
//! program, not a usage example: `cargo run --release --example instr_rows -- ROW`.
//!
//! Each row's counted work is one `#[inline(never)]` function, `instr_rows::<row>_work`
//! (`--toggle-collect='*instr_rows::<row>_work*'`), so that what the compiler inlines into
//! it is counted and nothing else is: the inputs are made before it and what it builds is
//! dropped after it. No row starts a thread. Rows:
//!
//! - `binary-il`: `write_il_single_threaded`, then `read_il_single_threaded` of its
//!   bytes, on a scale-1 generated translation unit (`binary_il_write_work`,
//!   `binary_il_read_work`: two rows of the gate, one run each).
//!   `profile_binary_il --callgrind` runs the same two calls after the pool variants,
//!   whose worker thread leaves the allocator in a state that differs from run to run,
//!   and the counts with it.
//! - `clang-json`: `clang_json::import_reader` into a fresh IL on
//!   `tests/fixtures/clang/kernels.json.gz`, decompressed before (the input of
//!   `benches/clang_json.rs`, whose closure the importer is inlined into).
//! - `idom`: `Rpo::compute` and `DomTree::compute_auto` (what `CfgInfo` runs) on the
//!   unstructured 10^5-block CFG of `benches/cfg.rs`'s `dominators` group (the same
//!   generator and seed), whose closure `compute_auto` is inlined into.

#[path = "../benches/support/cfg_gen.rs"]
mod cfg_gen;
use cfg_gen::{cfg_from, unstructured};
use ilkit::cfg::{BlockIdx, Cfg};
use ilkit::graph::dom::DomTree;
use ilkit::graph::rpo::Rpo;
use ilkit::il::Il;
use ilkit::import::binary_il;
use std::hint::black_box;

fn main() {
    let row = std::env::args().nth(1).unwrap_or_default();
    match row.as_str() {
        "binary-il" => {
            let mut il = ilkit::il::synth::generate(7, 1.0);
            let bytes = binary_il_write_work(&mut il);
            let back = binary_il_read_work(&bytes);
            println!("binary IL: {} bytes, {} entries", bytes.len(), back.len());
        }
        "clang-json" => {
            let json = clang_fixture();
            let il = clang_json_work(&json);
            println!("clang JSON: {} bytes, {} entries", json.len(), il.len());
        }
        "idom" => {
            let cfg = cfg_from(N, &unstructured(N, 42));
            let (mut rpo, mut dom) = (Rpo::new(), DomTree::new());
            let last = idom_work(&cfg, &mut rpo, &mut dom);
            println!(
                "idom: {} blocks, idom of the last {last:?}",
                cfg.num_blocks()
            );
        }
        _ => {
            eprintln!("usage: instr_rows binary-il|clang-json|idom");
            std::process::exit(2);
        }
    }
}

#[inline(never)]
fn binary_il_write_work(il: &mut Il) -> Vec<u8> {
    binary_il::write_il_single_threaded(black_box(il), false).expect("write")
}

#[inline(never)]
fn binary_il_read_work(bytes: &[u8]) -> Il {
    binary_il::read_il_single_threaded(black_box(bytes)).expect("read")
}

fn clang_fixture() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/clang/kernels.json.gz"
    );
    ilkit::import::format::gunzip_if_gzip(std::fs::read(path).expect("fixture")).expect("gzip")
}

#[inline(never)]
fn clang_json_work(json: &[u8]) -> Il {
    let mut il = Il::new();
    black_box(ilkit::import::clang_json::import_reader(&mut il, black_box(json)).expect("import"));
    il
}

#[inline(never)]
fn idom_work(cfg: &Cfg, rpo: &mut Rpo<BlockIdx>, dom: &mut DomTree<BlockIdx>) -> BlockIdx {
    rpo.compute(black_box(cfg));
    dom.compute_auto(cfg, rpo);
    dom.idoms()[BlockIdx::new(cfg.num_blocks() - 1)]
}

/// Blocks of the `idom` row's CFG.
const N: usize = 100_000;
