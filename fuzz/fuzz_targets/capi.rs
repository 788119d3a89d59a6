//! cargo-fuzz target: every entry point of the C ABI on arbitrary graphs and files must
//! answer with a status, never with a caught panic (`ILKIT_STATUS_PANIC`, which would
//! mean a bug behind the boundary) or a crash.
//!
//! The first byte picks the input: a CSR graph (the rest read as `u32`s: node count,
//! root, then `indptr` and `indices`, possibly malformed) through every graph entry
//! point, or a file (`.ll`, `.ptx`, clang JSON) through every file entry point, with
//! every array, name and byte getter of every result. `cargo fuzz run capi` (nightly).
#![no_main]

use ilkit_capi::*;
use libfuzzer_sys::fuzz_target;
use std::ffi::CString;
use std::ptr;

fn ok(s: IlkitStatus) -> bool {
    assert_ne!(s, IlkitStatus::Panic, "a panic behind the C ABI");
    s == IlkitStatus::Ok
}

/// Reads every array, name and the bytes of `r`, then frees it.
unsafe fn drain(r: *mut IlkitResult) {
    let (mut data, mut len) = (ptr::null(), 0usize);
    for kind in 0..ILKIT_ARRAY_KINDS + 2 {
        if ok(ilkit_result_array(r, kind, &mut data, &mut len)) && len > 0 {
            // touch the first and last element
            let s = std::slice::from_raw_parts(data, len);
            std::hint::black_box((s[0], s[len - 1]));
        }
    }
    let mut n = 0usize;
    if ok(ilkit_result_num_names(r, &mut n)) {
        let (mut name, mut nlen) = (ptr::null(), 0usize);
        for i in 0..n.min(64) + 1 {
            ok(ilkit_result_name(r, i, &mut name, &mut nlen));
        }
    }
    let (mut bytes, mut blen) = (ptr::null(), 0usize);
    ok(ilkit_result_bytes(r, &mut bytes, &mut blen));
    assert!(ok(ilkit_result_free(r)));
}

unsafe fn graph(words: &[u32]) {
    let (Some(&n), Some(&root)) = (words.first(), words.get(1)) else {
        return;
    };
    let n = (n % 64) as usize;
    let rest = &words[2..];
    let indptr = &rest[..rest.len().min(n + 1)];
    let indices = &rest[indptr.len()..];
    let num_edges = indices.len();
    let root = root % (n as u32 + 2);
    let mut out: *mut IlkitResult = ptr::null_mut();
    let calls: [&dyn Fn(*mut *mut IlkitResult) -> IlkitStatus; 5] = [
        &|o| ilkit_graph_scc(indptr.as_ptr(), n, indices.as_ptr(), num_edges, o),
        &|o| ilkit_graph_dominators(indptr.as_ptr(), n, indices.as_ptr(), num_edges, root, o),
        &|o| {
            ilkit_graph_dominance_frontiers(
                indptr.as_ptr(),
                n,
                indices.as_ptr(),
                num_edges,
                root,
                o,
            )
        },
        &|o| ilkit_graph_post_dominators(indptr.as_ptr(), n, indices.as_ptr(), num_edges, o),
        &|o| ilkit_graph_loops(indptr.as_ptr(), n, indices.as_ptr(), num_edges, root, o),
    ];
    // `indptr` shorter than `num_nodes + 1` would break the caller's contract
    if indptr.len() < n + 1 {
        return;
    }
    for call in calls {
        if ok(call(&mut out)) {
            drain(out);
        }
    }
}

unsafe fn file(kind: u8, data: &[u8]) {
    let ext = ["ll", "ptx", "json"][kind as usize % 3];
    let dir = std::env::temp_dir().join(format!("ilkit-fuzz-capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("input.{ext}"));
    std::fs::write(&path, data).unwrap();
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut r: *mut IlkitResult = ptr::null_mut();
    match ext {
        "ll" => {
            let mut m: *mut IlkitModule = ptr::null_mut();
            if ok(ilkit_module_from_ll(c.as_ptr(), &mut m)) {
                if ok(ilkit_module_call_graph(m, &mut r)) {
                    drain(r);
                }
                let mut cfgs: *mut IlkitCfgs = ptr::null_mut();
                if ok(ilkit_module_cfgs(m, &mut cfgs)) {
                    cfgs_all(cfgs);
                }
                assert!(ok(ilkit_module_free(m)));
            }
            let mut cfgs: *mut IlkitCfgs = ptr::null_mut();
            if ok(ilkit_cfgs_from_ll(c.as_ptr(), &mut cfgs)) {
                cfgs_all(cfgs);
            }
        }
        "ptx" => {
            let mut cfgs: *mut IlkitCfgs = ptr::null_mut();
            if ok(ilkit_cfgs_from_ptx(c.as_ptr(), &mut cfgs)) {
                cfgs_all(cfgs);
            }
        }
        _ => {
            let mut il: *mut IlkitIl = ptr::null_mut();
            if ok(ilkit_il_from_clang_json(c.as_ptr(), &mut il)) {
                if ok(ilkit_il_keep_device(il, &mut r)) {
                    drain(r);
                }
                assert!(ok(ilkit_il_free(il)));
            }
        }
    }
    let mut line = 0u32;
    let (mut col, mut off) = (0u32, 0u64);
    let mut f = ptr::null();
    ok(ilkit_last_error_location(
        &mut f, &mut line, &mut col, &mut off,
    ));
    std::hint::black_box(ilkit_last_error_message());
}

unsafe fn cfgs_all(cfgs: *mut IlkitCfgs) {
    let mut n = 0usize;
    if ok(ilkit_cfgs_count(cfgs, &mut n)) {
        let mut r: *mut IlkitResult = ptr::null_mut();
        for i in 0..n.min(64) + 1 {
            let (mut name, mut len) = (ptr::null(), 0usize);
            ok(ilkit_cfgs_name(cfgs, i, &mut name, &mut len));
            if ok(ilkit_cfgs_analyze(cfgs, i, &mut r)) {
                drain(r);
            }
        }
    }
    assert!(ok(ilkit_cfgs_free(cfgs)));
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    // SAFETY: every pointer passed is valid for what the entry point reads or writes.
    unsafe {
        if mode % 4 == 0 {
            let words: Vec<u32> = rest
                .chunks(4)
                .map(|c| {
                    c.iter()
                        .enumerate()
                        .fold(0u32, |a, (k, &b)| a | (b as u32) << (8 * k))
                })
                .collect();
            graph(&words);
        } else {
            file(mode % 4 - 1, rest);
        }
    }
});
