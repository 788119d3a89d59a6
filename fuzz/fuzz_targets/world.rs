//! The world contract, end to end: a world imported from (mutated) clang JSON verifies,
//! and a world that verifies is marked (keep-in-IL), written as binary IL, read back,
//! displayed, deep-copied and compared without a panic. Seeds are filtered dumps (the
//! corpus's `build.sh` scope) and full-style dumps (`KEEP_FULL=1`), minified.
#![no_main]

use ilkit::il::{EntryKind, Il};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut il = Il::new();
    if ilkit::import::clang_json::import_reader(&mut il, data).is_err() {
        return;
    }
    assert!(il.verify().is_empty(), "{:?}", il.verify());
    let _ = ilkit::walk::device::mark_device(&mut il, Default::default());
    assert!(il.verify().is_empty(), "{:?}", il.verify());
    for device in [true, false] {
        let bytes = ilkit::import::binary_il::write_il(&mut il, device)
            .expect("a verified world writes");
        let mut back = ilkit::import::binary_il::read_il(&bytes).expect("what we wrote reads");
        assert!(back.verify().is_empty(), "{:?}", back.verify());
        let _ = ilkit::walk::display::dump_il(&mut back, false);
    }
    let _ = ilkit::walk::display::dump_il(&mut il, true);
    let exprs: Vec<_> = il
        .entries()
        .filter(|&e| il.kind(e) == EntryKind::ExprNode)
        .take(16)
        .collect();
    let r = il.open_function_region(None);
    let mut cp = ilkit::share::copy::DeepCopy::new(0, r);
    for &e in &exprs {
        if let Ok(c) = cp.copy_eix(&mut il, e) {
            let _ = ilkit::compare::compare_expressions(&il, e, c, 0);
        }
    }
    il.close_function_region(r).unwrap();
    assert!(il.verify().is_empty(), "{:?}", il.verify());
    let _ = ilkit::share::share_all_constants(&mut il);
});
