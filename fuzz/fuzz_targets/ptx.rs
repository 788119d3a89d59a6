//! cargo-fuzz target: the PTX reader and the CFG analyses must never panic.
//! Register in fuzz/Cargo.toml as
//! `[[bin]] name = "ptx" path = "fuzz_targets/ptx.rs" test = false doc = false bench = false`
//! and run `cargo fuzz run ptx` (nightly).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(m) = ilkit::import::ptx::parse("fuzz.ptx", &text) {
        for f in m.functions.iter().filter(|f| f.has_body) {
            let cfg = ilkit::import::ptx::build_cfg(f);
            let info = cfg.analyze();
            assert!(info.verify(&cfg).is_empty());
            assert!(cfg.verify().is_empty());
        }
    }
});
