//! Fuzz the binary IL reader: any bytes give a world or an error naming an offset, never
//! a panic or an unbounded allocation. Valid worlds must display without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut il) = ilkit::walk::binary::read_il(data) {
        let _ = ilkit::walk::display::dump_il(&mut il, false);
    }
});
