//! Fuzz the binary IL reader: any bytes give a world or an error naming an offset, never
//! a panic or an unbounded allocation. Valid worlds must verify, display and deep-copy
//! (both copy plans) without panicking.
//!
//! Below 1 MiB the reader checks the checksum before anything else, so a mutated file
//! would only ever reach that check: each input is also read with its last 8 bytes
//! replaced by the checksum of the rest (resealed), which takes it to the record parser.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn read(data: &[u8]) {
    match ilkit::import::binary_il::read_il(data) {
        Ok(mut il) => {
            assert!(il.verify().is_empty(), "{:?}", il.verify());
            let _ = ilkit::walk::display::dump_il(&mut il, false);
            copy_some(&mut il);
        }
        Err(e) => assert!(e.offset <= data.len(), "{e}"),
    }
}

/// Deep copies of the world's first expression trees, planned as blocks where they are
/// and by the walk: each gives a copy or an error (a bad kind, a cycle), never a panic
/// or an endless plan, and the world still verifies.
fn copy_some(il: &mut ilkit::il::Il) {
    use ilkit::il::EntryKind;
    use ilkit::share::copy::DeepCopy;
    let exprs: Vec<_> = il
        .entries()
        .filter(|&e| il.kind(e) == EntryKind::ExprNode)
        .take(32)
        .collect();
    for walk_only in [false, true] {
        let r = il.open_function_region(None);
        let mut cp = DeepCopy::new(0, r);
        if walk_only {
            cp = cp.walk_only();
        }
        for &e in &exprs {
            if let Ok(c) = cp.copy_eix(il, e) {
                let _ = ilkit::compare::compare_expressions(il, e, c, 0);
            }
        }
        il.close_function_region(r).unwrap();
        assert!(il.verify().is_empty(), "{:?}", il.verify());
    }
}

fuzz_target!(|data: &[u8]| {
    read(data);
    if let Some(body_len) = data.len().checked_sub(8) {
        let mut sealed = data[..body_len].to_vec();
        let h = ilkit::import::binary_il::checksum(&sealed);
        sealed.extend_from_slice(&h.to_le_bytes());
        if sealed != data {
            read(&sealed);
        }
    }
});
