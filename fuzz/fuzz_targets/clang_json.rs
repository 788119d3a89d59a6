//! Fuzz the streaming clang JSON AST importer: any bytes give an import or an error with a
//! byte offset, never a panic; what imports must pass `Il::verify`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut il = ilkit::il::Il::new();
    if ilkit::import::clang_json::import_reader(&mut il, data).is_ok() {
        assert!(il.verify().is_empty());
    }
});
