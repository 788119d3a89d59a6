//! Fuzz the binary IL reader: any bytes give a world or an error naming an offset, never
//! a panic or an unbounded allocation. Valid worlds must verify and display without
//! panicking.
//!
//! Below 1 MiB the reader checks the checksum before anything else, so a mutated file
//! would only ever reach that check: each input is also read with its last 8 bytes
//! replaced by the checksum of the rest (resealed), which takes it to the record parser.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn read(data: &[u8]) {
    match ilkit::walk::binary::read_il(data) {
        Ok(mut il) => {
            assert!(il.verify().is_empty(), "{:?}", il.verify());
            let _ = ilkit::walk::display::dump_il(&mut il, false);
        }
        Err(e) => assert!(e.offset <= data.len(), "{e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    read(data);
    if let Some(body_len) = data.len().checked_sub(8) {
        let mut sealed = data[..body_len].to_vec();
        let h = ilkit::walk::binary::checksum(&sealed);
        sealed.extend_from_slice(&h.to_le_bytes());
        if sealed != data {
            read(&sealed);
        }
    }
});
