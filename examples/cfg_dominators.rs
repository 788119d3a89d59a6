//! Usage example: build each function's control-flow graph from a PTX or LLVM IR file
//! and print its immediate dominators and natural loops.
//!
//! `cargo run --example cfg_dominators [FILE.ptx|FILE.ll]` (default:
//! `data/default/adler32.ptx`).

use ilkit::cfg::Cfg;
use ilkit::llvm::Module;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/default/adler32.ptx").to_string()
    });
    let cfgs = if path.ends_with(".ll") {
        Cfg::from_llvm_module(&Module::from_ll_file(&path)?)
    } else {
        Cfg::from_ptx_file(&path)?
    };
    for cfg in &cfgs {
        let info = cfg.analyze();
        println!("function {}: {} blocks", cfg.name(), cfg.num_blocks());
        for b in cfg.blocks() {
            let idom = match info.idom(b) {
                Some(d) => cfg.display_name(d),
                None if b == cfg.entry() => "(entry)".to_string(),
                None => "(unreachable)".to_string(),
            };
            println!("  idom({}) = {idom}", cfg.display_name(b));
        }
        let loops = info.loops();
        for l in loops.loops() {
            let (Some(depth), Some(header)) = (loops.depth_of(l), loops.header_of(l)) else {
                continue;
            };
            let blocks: Vec<String> = loops
                .loop_blocks(l)
                .iter()
                .map(|&b| cfg.display_name(b))
                .collect();
            println!(
                "  loop at depth {depth} with header {}: {}",
                cfg.display_name(header),
                blocks.join(" ")
            );
        }
    }
    Ok(())
}
