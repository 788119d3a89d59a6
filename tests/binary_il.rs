//! Binary IL: round trips (full and device-only) and bad files.

use ilkit::il::synth::generate;
use ilkit::import::binary_il::{read_il, write_il};
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
        let h = ilkit::import::binary_il::checksum(&body);
        body.extend_from_slice(&h.to_le_bytes());
        body
    }
    let head = |rest: &[u8]| {
        let mut v = b"ILKIT-IL".to_vec();
        v.extend_from_slice(&ilkit::import::binary_il::VERSION.to_le_bytes());
        v.extend_from_slice(&0u32.to_le_bytes());
        // No strings (two varints), no main routine, no scope (u32 each); `rest` starts
        // with the u32 entry count.
        v.extend_from_slice(&[0; 10]);
        v.extend_from_slice(rest);
        seal(v)
    };
    // A huge entry count is refused before any allocation.
    let e = read_il(&head(&[0xff, 0xff, 0xff, 0x0f])).unwrap_err();
    assert!(e.message.contains("exceeds"), "{e}");
    // One entry of `kind`: the count, `record`, an empty external-type list (varint 0),
    // then the kind table.
    let one = |kind: u8, record: &[u8]| {
        let mut v = 1u32.to_le_bytes().to_vec();
        v.extend_from_slice(record);
        v.push(0);
        v.push(kind);
        v
    };
    // A reserved kind in the kind table.
    let e = read_il(&head(&one(14, &[0; 13]))).unwrap_err();
    assert!(e.message.contains("kind 14"), "{e}");
    // A region ordinal that skips ahead (a 13-byte record head: flag bits, column, file,
    // region, line).
    let ty = ilkit::il::EntryKind::Type as u8;
    let mut rec = vec![0, 0, 0, 0, 0, 5, 0, 0, 0];
    rec.extend_from_slice(&[0; 4]);
    let e = read_il(&head(&one(ty, &rec))).unwrap_err();
    assert!(e.message.contains("region 5 out of order"), "{e}");
    // A sub-kind column holding a number its vocabulary does not have: an expression
    // node whose expression kind is past `ek_reclaimed`.
    let x = ilkit::il::EntryKind::ExprNode;
    let l = x.layout();
    let mut rec = vec![0u8; 13];
    let mut scalars = vec![0u8; ilkit::il::SCALAR_BYTES[x as usize] as usize];
    scalars[0] = ilkit::il::ExprKind::ALL.len() as u8;
    rec.extend_from_slice(&scalars);
    rec.extend(std::iter::repeat_n(
        0u8,
        4 * (l.lists.len() + l.singles.len() + l.refs.len()),
    ));
    let e = read_il(&head(&one(x as u8, &rec))).unwrap_err();
    assert!(
        e.message.contains("expr_node.expr_kind: not a ExprKind"),
        "{e}"
    );
    scalars[0] = ilkit::il::ExprKind::Operation.raw();
    rec[13..13 + scalars.len()].copy_from_slice(&scalars);
    read_il(&head(&one(x as u8, &rec))).unwrap();
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
        let h = ilkit::import::binary_il::checksum(&b);
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

/// A forged two-entry file whose first entry's first typed single slot points at `slot`:
/// the reader checks each reference's target kind in the kind table as it reads it.
#[test]
fn references_are_checked_against_the_kind_table_as_they_are_read() {
    use ilkit::il::{EntryKind, SCALAR_BYTES};
    let plain = |k: &EntryKind| k.has_table() && k.layout().strings.is_empty();
    // A kind whose first single slot names a target kind, and an entry of another kind.
    let (k, t) = EntryKind::ALL
        .iter()
        .filter(|k| plain(k))
        .find_map(|&k| Some((k, k.layout().singles.first()?.target?)))
        .expect("a kind with a typed single slot");
    let w = *EntryKind::ALL
        .iter()
        .find(|w| plain(w) && **w != t)
        .expect("another kind");
    let record = |kind: EntryKind, first: u32| {
        let l = kind.layout();
        // Head, scalars, empty lists' lengths, single slots, references.
        let mut v = vec![0u8; 13 + SCALAR_BYTES[kind as usize] as usize + 4 * l.lists.len()];
        for s in 0..l.singles.len() {
            let o = if s == 0 { first } else { 0 };
            v.extend_from_slice(&o.to_le_bytes());
        }
        v.extend(std::iter::repeat_n(0u8, 4 * l.refs.len()));
        v
    };
    let file = |slot: u32| {
        let mut v = b"ILKIT-IL".to_vec();
        v.extend_from_slice(&ilkit::import::binary_il::VERSION.to_le_bytes());
        // Flags, two absent strings, no main routine, no primary scope.
        v.extend_from_slice(&[0; 14]);
        v.extend_from_slice(&2u32.to_le_bytes());
        v.extend(record(k, slot));
        v.extend(record(w, 0));
        v.extend_from_slice(&[0, k as u8, w as u8]);
        let h = ilkit::import::binary_il::checksum(&v);
        v.extend_from_slice(&h.to_le_bytes());
        v
    };
    let slot_at = 30 + 13 + SCALAR_BYTES[k as usize] as usize + 4 * k.layout().lists.len();
    let e = read_il(&file(2)).unwrap_err();
    let want = format!("expected a {} entry, found a {}", t.name(), w.name());
    assert_eq!((e.offset, e.message.as_str()), (slot_at, want.as_str()));
    let e = read_il(&file(3)).unwrap_err();
    assert_eq!(
        (e.offset, e.message.as_str()),
        (slot_at, "reference to entry 3 of 2")
    );
    // Pointing at itself is fine when the slot's target is the kind itself; otherwise the
    // same check refuses it.
    let own = read_il(&file(1));
    assert_eq!(own.is_ok(), k == t, "{own:?}");
}

/// A file large enough to be checked on a second thread while the world is built gives,
/// for every resealed corruption, the same result as the single-threaded read.
#[test]
fn checking_beside_the_builder_gives_the_single_threaded_result() {
    use ilkit::import::binary_il::read_il_single_threaded;
    let mut il = generate(33, 0.4);
    let bytes = write_il(&mut il, false).unwrap();
    assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
    let body = bytes.len() - 8;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let (mut errors, mut worlds) = (0, 0);
    for round in 0..60 {
        let mut b = bytes[..body].to_vec();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = 16 + (x as usize % (body - 16));
        b[at] ^= 1 << ((x >> 32) % 8);
        // Every fourth file keeps its stale checksum.
        let h = if round % 4 == 0 {
            u64::from_le_bytes(bytes[body..].try_into().unwrap())
        } else {
            ilkit::import::binary_il::checksum(&b)
        };
        b.extend_from_slice(&h.to_le_bytes());
        match (read_il(&b), read_il_single_threaded(&b)) {
            (Ok(p), Ok(s)) => {
                assert!(p.verify().is_empty(), "round {round}");
                assert_eq!(p.len(), s.len(), "round {round}");
                worlds += 1;
            }
            (Err(p), Err(s)) => {
                assert_eq!(p, s, "round {round}");
                errors += 1;
            }
            (p, s) => panic!("round {round}: {:?} vs {:?}", p.err(), s.err()),
        }
    }
    assert!(errors > 0, "{errors} errors, {worlds} worlds");
    let back = read_il(&bytes).unwrap();
    assert_eq!(back.len(), il.len());
}

/// The bytes written do not change: the length and checksum of each file below are
/// pinned (whole and device-only IL of synthetic and imported worlds), so a faster
/// writer must write the same files.
#[test]
fn written_bytes_are_pinned() {
    use ilkit::import::binary_il::checksum;
    use ilkit::walk::device::mark_device;
    let mut got = Vec::new();
    for (seed, scale) in [(1, 0.05), (2, 0.05), (3, 0.05), (7, 1.5)] {
        let mut il = generate(seed, scale);
        let whole = write_il(&mut il, false).unwrap();
        mark_to_keep_in_il(&mut il, &[]);
        let device = write_il(&mut il, true).unwrap();
        got.push((format!("gen {seed} {scale}"), whole.len(), checksum(&whole)));
        got.push((
            format!("gen {seed} {scale} device"),
            device.len(),
            checksum(&device),
        ));
    }
    for name in ["kernels", "nttp", "subst", "templates"] {
        let path = format!(
            "{}/tests/fixtures/clang/{name}.json.gz",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut il = ilkit::il::Il::new();
        ilkit::import::clang_json::import_file(&mut il, path.as_ref()).unwrap();
        mark_device(&mut il, Default::default());
        let whole = write_il(&mut il, false).unwrap();
        let device = write_il(&mut il, true).unwrap();
        got.push((name.to_string(), whole.len(), checksum(&whole)));
        got.push((format!("{name} device"), device.len(), checksum(&device)));
    }
    // Version 5 files as the writer wrote them when this test was added (its numbering
    // walk on the generic walker); the records pass runs in parallel for "gen 7 1.5".
    // The imported worlds' bytes changed when builtin integer types got distinct
    // `int_kind`s (`bool`, `char`, `long`, ...; sizes unchanged), and again when a
    // routine's attributes listed after its body moved from the body's region to the
    // routine's (region ordinals in the records; sizes unchanged), and when a template-id
    // inside a pattern became a dependent template-id (a typeref with its arguments), and
    // when a spelling holding clang's canonical `type-parameter-D-I` inside it became the
    // type it spells (a function pointer over a parameter, not one dependent
    // placeholder) and placeholder types lost their parameter position, and when a
    // function template pattern's own type was read as a pattern's (its template-ids
    // over parameters dependent; the device IL unchanged), and when a member of a
    // dependent template-id inside a pattern became a dependent member (the device IL
    // unchanged).
    let pinned: &[(&str, usize, u64)] = &[
        ("gen 1 0.05", 302136, 0xd4dcdd63a32c49ee),
        ("gen 1 0.05 device", 31519, 0x924d134b4e27bcf6),
        ("gen 2 0.05", 271618, 0xc43e293ff3b831a3),
        ("gen 2 0.05 device", 94644, 0x0ec27b6b49cddf41),
        ("gen 3 0.05", 269394, 0xdeb89076c0a2ec35),
        ("gen 3 0.05 device", 91733, 0xaa1b973007131a77),
        ("gen 7 1.5", 7396663, 0x3d60531ae58a0914),
        ("gen 7 1.5 device", 2739269, 0x8a5afe7a7abb4818),
        ("kernels", 70384, 0xf2541ced29ab6455),
        ("kernels device", 44788, 0xbfb77f6a662acefc),
        ("nttp", 55996, 0xb71a62bae96d4936),
        ("nttp device", 27650, 0x56dc5e98eb4afd24),
        ("subst", 72082, 0x1357522b5fe62b5e),
        ("subst device", 30208, 0xe395e22592aec283),
        ("templates", 41569, 0x9b6848c0ce6ff9f2),
        ("templates device", 9657, 0x986ccdbb1fae60dc),
    ];
    let got: Vec<(&str, usize, u64)> = got.iter().map(|(n, l, c)| (n.as_str(), *l, *c)).collect();
    assert_eq!(got, pinned);
}
