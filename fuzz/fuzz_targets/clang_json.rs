//! Fuzz the streaming clang JSON AST importer: any bytes give an import or an error with a
//! byte offset, never a panic; what imports must pass `Il::verify`, and the sharing check
//! over its literals runs to an answer whose counts hold together.
#![no_main]

use ilkit::import::clang_json::{import_reader_with, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut il = ilkit::il::Il::new();
    let opts = ImportOptions {
        record_literals: true,
    };
    if let Ok(imp) = import_reader_with(&mut il, data, opts) {
        assert!(il.verify().is_empty());
        let r = ilkit::share::check::check_sharing(&mut il, &imp.literals);
        assert!(r.wrongly_shared <= r.shared && r.missed <= r.clang_shared);
        assert!(r.shared + r.not_shareable <= r.literals);
    }
});
