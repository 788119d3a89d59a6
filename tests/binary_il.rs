//! Binary IL: round trips (full and device-only) and bad files.

use ilkit::il::synth::generate;
use ilkit::walk::binary::{read_il, write_il};
use ilkit::walk::display::dump_il;
use ilkit::walk::keep::mark_to_keep_in_il;

#[test]
fn full_round_trip_displays_identically() {
    let mut il = generate(11, 0.2);
    let bytes = write_il(&mut il, false).unwrap();
    let mut back = read_il(&bytes).unwrap();
    assert_eq!(back.len(), il.len());
    assert_same(
        &dump_il(&mut back, false).unwrap(),
        &dump_il(&mut il, false).unwrap(),
    );
    // And again: write(read(write)) is byte-identical.
    assert_eq!(write_il(&mut back, false).unwrap(), bytes);
}

#[test]
fn device_only_round_trip_holds_the_kept_entries() {
    let mut il = generate(12, 0.2);
    let report = mark_to_keep_in_il(&mut il, &[]);
    let bytes = write_il(&mut il, true).unwrap();
    let mut back = read_il(&bytes).unwrap();
    assert!(
        back.len() <= report.kept && !back.is_empty(),
        "{} of {}",
        back.len(),
        report.kept
    );
    assert_same(
        &dump_il(&mut back, false).unwrap(),
        &dump_il(&mut il, true).unwrap(),
    );
}

fn assert_same(a: &str, b: &str) {
    if a != b {
        let (la, lb): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
        let i = la
            .iter()
            .zip(&lb)
            .position(|(x, y)| x != y)
            .unwrap_or(la.len().min(lb.len()));
        let ctx = |v: &[&str]| v[i.saturating_sub(3)..(i + 3).min(v.len())].join("\n");
        panic!(
            "dumps differ at line {i} ({} vs {} lines):\n--- read back\n{}\n--- original\n{}",
            la.len(),
            lb.len(),
            ctx(&la),
            ctx(&lb)
        );
    }
}

#[test]
fn every_truncation_and_corruption_is_an_error_not_a_panic() {
    let mut il = generate(13, 0.01);
    let bytes = write_il(&mut il, false).unwrap();
    for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
        let e = read_il(&bytes[..cut]).unwrap_err();
        assert!(e.offset <= cut, "{e}");
    }
    let mut seed = 0x1234_5678u64;
    for _ in 0..300 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut b = bytes.clone();
        let i = (seed >> 33) as usize % b.len();
        b[i] ^= 1 + (seed as u8 % 255);
        assert!(read_il(&b).is_err(), "flip at {i} went unnoticed");
    }
}

#[test]
fn wrong_magic_and_version_name_the_offset() {
    let mut il = generate(14, 0.01);
    let bytes = write_il(&mut il, false).unwrap();
    let mut b = bytes.clone();
    b[0] = b'X';
    assert_eq!(read_il(&b).unwrap_err().offset, 0);
    let mut b = bytes.clone();
    b[8] = 9;
    let e = read_il(&b).unwrap_err();
    assert_eq!(e.offset, 8);
    assert!(e.message.contains("unsupported version 9"));
    assert!(read_il(b"").is_err());
}

/// Forged files with a valid checksum exercise the structural checks.
#[test]
fn forged_files_with_valid_checksums_fail_structurally() {
    fn seal(mut body: Vec<u8>) -> Vec<u8> {
        let h = ilkit::walk::binary::checksum(&body);
        body.extend_from_slice(&h.to_le_bytes());
        body
    }
    let head = |rest: &[u8]| {
        let mut v = b"ILKIT-IL".to_vec();
        v.extend_from_slice(&ilkit::walk::binary::VERSION.to_le_bytes());
        v.extend_from_slice(&0u32.to_le_bytes());
        // No strings, no main routine, no scope; `rest` starts with the u32 entry count.
        v.extend_from_slice(&[0, 0, 0, 0]);
        v.extend_from_slice(rest);
        seal(v)
    };
    // A huge entry count is refused before any allocation.
    let e = read_il(&head(&[0xff, 0xff, 0xff, 0x0f])).unwrap_err();
    assert!(e.message.contains("exceeds"), "{e}");
    // One entry of `kind`: the count, the per-kind counts, then `record`.
    let one = |kind: u8, record: &[u8]| {
        let mut v = 1u32.to_le_bytes().to_vec();
        for k in 0..85u8 {
            v.extend_from_slice(&u32::from(k == kind).to_le_bytes());
        }
        v.extend_from_slice(record);
        v
    };
    // Per-kind counts that do not add up.
    let mut rest = 1u32.to_le_bytes().to_vec();
    rest.extend_from_slice(&[0; 4 * 85]);
    let e = read_il(&head(&rest)).unwrap_err();
    assert!(e.message.contains("do not add up"), "{e}");
    // A reserved kind (a 14-byte record head).
    let mut rec = vec![14];
    rec.extend_from_slice(&[0; 13]);
    let e = read_il(&head(&one(14, &rec))).unwrap_err();
    assert!(e.message.contains("kind 14"), "{e}");
    // A region ordinal that skips ahead.
    let ty = ilkit::il::EntryKind::Type as u8;
    let mut rec = vec![ty, 0, 0, 0, 0, 0, 5, 0, 0, 0];
    rec.extend_from_slice(&[0; 4]);
    let e = read_il(&head(&one(ty, &rec))).unwrap_err();
    assert!(e.message.contains("region 5 out of order"), "{e}");
}

#[test]
fn resealed_corruptions_fail_structurally_or_read_a_valid_world() {
    // Flip bytes in the body and fix the checksum up, so every flip reaches the record
    // parser: each read must end in an error naming an offset inside the file, or in a
    // world that passes `verify()`; never a panic.
    let mut il = generate(21, 0.02);
    let bytes = write_il(&mut il, false).unwrap();
    let body = bytes.len() - 8;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let (mut errors, mut worlds) = (0, 0);
    for round in 0..3000 {
        let mut b = bytes[..body].to_vec();
        for _ in 0..1 + round % 3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = 16 + (x as usize % (body - 16));
            b[at] ^= 1 << ((x >> 32) % 8);
        }
        let h = ilkit::walk::binary::checksum(&b);
        b.extend_from_slice(&h.to_le_bytes());
        match read_il(&b) {
            Ok(w) => {
                assert!(w.verify().is_empty(), "round {round}: {:?}", w.verify());
                worlds += 1;
            }
            Err(e) => {
                assert!(e.offset <= b.len(), "round {round}: {e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 0 && worlds > 0, "{errors} errors, {worlds} worlds");
}
