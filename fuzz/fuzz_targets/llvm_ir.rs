//! Fuzz the LLVM IR reader and the call graph built from whatever it accepts:
//! no input may panic, and an accepted module must give a graph that verifies.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(m) = ilkit::llvm::Module::from_ll_str("fuzz.ll", &text) {
        let mut g = ilkit::callgraph::from_module(&m, "fuzz.ll");
        g.build_ref_sccs();
        assert!(g.verify().is_empty());
        let _ = g.print_text();
    }
});
