//! Fuzz the streaming clang JSON AST importer: any bytes give an import or an error with a
//! byte offset, never a panic; what imports must pass `Il::verify`, and the sharing check
//! over its literals runs to an answer whose counts hold together. The low bit of the
//! first byte picks which bodies the import keeps (all, or device ones: host-only bodies'
//! regions closed as they end).
#![no_main]

use ilkit::import::clang_json::{import_reader_with, Bodies, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut il = ilkit::il::Il::new();
    let bodies = if data.first().is_some_and(|b| b & 1 == 1) {
        Bodies::Device
    } else {
        Bodies::All
    };
    let opts = ImportOptions {
        record_literals: true,
        bodies,
    };
    if let Ok(imp) = import_reader_with(&mut il, data, opts) {
        assert!(il.verify().is_empty());
        let r = ilkit::share::check::check_sharing(&mut il, &imp.literals);
        assert!(r.wrongly_shared <= r.shared && r.missed <= r.clang_shared);
        assert!(r.shared + r.not_shareable <= r.literals);
    }
});
