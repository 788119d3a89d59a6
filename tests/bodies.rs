//! Seed 001's function-region lifecycle on real translation units: under
//! [`Bodies::Device`] the clang importer closes the region of every host-only body when
//! the body ends. The device IL, the kept routines and the world's invariants must not
//! notice; the allocator's counters must.

use ilkit::il::stats::il_table_stats;
use ilkit::il::{fields as F, Il};
use ilkit::import::binary_il::write_il;
use ilkit::import::clang_json::{import_file_with, Bodies, ImportOptions};
use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};
use std::path::PathBuf;

mod common;

fn import(path: &std::path::Path, bodies: Bodies) -> Il {
    let mut il = Il::new();
    let opts = ImportOptions {
        bodies,
        ..Default::default()
    };
    import_file_with(&mut il, path, opts).unwrap();
    il
}

/// The device IL file and the kept routines of a world.
fn device_il(il: &mut Il) -> (Vec<u8>, Vec<String>) {
    let dk = mark_device(il, DeviceOptions::default());
    let names = kept_routine_names(il, &dk);
    (write_il(il, true).unwrap(), names)
}

fn stat(il: &Il, name: &str) -> u64 {
    il_table_stats(il)
        .iter()
        .find(|r| r.name == name)
        .map_or(0, |r| r.number)
}

#[test]
fn closing_host_bodies_changes_no_device_answer() {
    let files = common::clang_asts();
    assert!(files.len() >= 10, "{files:?}");
    let (mut closed, mut freed) = (0, 0);
    for f in &files {
        let mut all = import(f, Bodies::All);
        let mut device = import(f, Bodies::Device);
        let problems = device.verify();
        assert!(problems.is_empty(), "{}: {problems:?}", f.display());
        assert!(device.len() <= all.len(), "{}", f.display());
        let (il_all, kept_all) = device_il(&mut all);
        let (il_device, kept_device) = device_il(&mut device);
        assert_eq!(kept_all, kept_device, "{}: kept routines", f.display());
        assert!(
            il_all == il_device,
            "{}: the device IL differs",
            f.display()
        );
        assert_eq!(stat(&all, "closed function regions"), 0);
        closed += stat(&device, "closed function regions");
        freed += stat(&device, "entries freed with regions");
    }
    assert!(
        closed > 100 && freed > 1000,
        "closed {closed}, freed {freed}"
    );
}

#[test]
fn a_closed_host_body_leaves_a_declaration() {
    use ilkit::import::clang_json::rf;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (mut kept, mut dropped) = (0, 0);
    for name in ["candle_moe_wmma", "ggml_alloc"] {
        let f = root.join(format!("tests/corpus/cuda/json/{name}.json.gz"));
        let il = import(&f, Bodies::Device);
        for r in il.kind_list(ilkit::il::EntryKind::Routine) {
            let flags = il.routine(r).decl_flags();
            if flags & rf::BODY == 0 {
                continue;
            }
            let body = il.child_eix(r, F::ROUTINE_BODY_SCOPE);
            if flags & (rf::GLOBAL | rf::DEVICE | rf::IMPLICIT_HD) != 0 {
                assert!(body.is_some(), "{name}: a device-capable body was closed");
                kept += 1;
            } else {
                assert!(body.is_none(), "{name}: a host-only body stayed");
                assert!(il.routine(r).is_defined());
                dropped += 1;
            }
        }
    }
    assert!(kept > 0 && dropped > 0, "kept {kept}, dropped {dropped}");
}

/// A definition's parameters replace its earlier declaration's, which go to the
/// param_type free list and are reused by the next parameters allocated.
#[test]
fn redeclared_parameters_are_recycled() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (name, bodies, recycled) in [
        ("cxx_cxx", Bodies::Device, true),
        ("ggml_alloc", Bodies::Device, true),
        ("ggml_alloc", Bodies::All, false),
    ] {
        let f = root.join(format!("tests/corpus/cuda/json/{name}.json.gz"));
        let il = import(&f, bodies);
        assert_eq!(stat(&il, "recycled entries") > 0, recycled, "{name}");
        assert!(il.verify().is_empty());
    }
}
