//! Usage example: read an LLVM IR file and print its call graph's SCCs and RefSCCs in
//! post-order (callees first), as `opt -passes=print-lcg` groups them.
//!
//! `cargo run --example llvm_callgraph [FILE.ll]` (default: `data/default/recursion.ll`).

use ilkit::callgraph;
use ilkit::llvm::Module;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/default/recursion.ll").to_string()
    });
    let module = Module::from_ll_file(&path)?;
    let mut graph = callgraph::from_module(&module, &path);
    let order = graph.postorder_refsccs();
    println!("{path}: {} RefSCCs", order.len());
    for (k, refscc) in order.into_iter().enumerate() {
        let sccs = graph.refscc_sccs(refscc);
        println!("RefSCC {k}: {} call SCCs", sccs.len());
        for &scc in sccs {
            let names: Vec<&str> = graph
                .scc_nodes(scc)
                .iter()
                .filter_map(|&n| graph.name(n))
                .collect();
            println!("  SCC {}", names.join(" "));
        }
    }
    let problems = graph.verify();
    assert!(problems.is_empty(), "{problems:?}");
    Ok(())
}
