//! The C ABI through its own entry points: answers on known graphs and files agree with
//! the Rust API, and bad handles, null pointers, out-of-range indices and hostile files
//! come back as error codes through every entry point, never as an abort.

use std::ffi::{c_char, CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};

use ilkit::callgraph;
use ilkit::cfg::Cfg;
use ilkit::il::Il;
use ilkit::import::{binary_il, clang_json};
use ilkit::llvm::Module;
use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};
use ilkit_capi::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cpath(p: &Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

fn last_message() -> String {
    // SAFETY: the library returns a NUL-terminated string valid until the next failure.
    unsafe { CStr::from_ptr(ilkit_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

#[track_caller]
fn ok(s: IlkitStatus) {
    assert_eq!(s, IlkitStatus::Ok, "{}", last_message());
}

/// A CSR graph from an edge list (edges kept in order per source).
fn csr(n: usize, edges: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut indptr = vec![0u32; n + 1];
    for &(s, _) in edges {
        indptr[s as usize + 1] += 1;
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    let mut fill = indptr.clone();
    let mut indices = vec![0u32; edges.len()];
    for &(s, t) in edges {
        indices[fill[s as usize] as usize] = t;
        fill[s as usize] += 1;
    }
    (indptr, indices)
}

fn array(r: *const IlkitResult, kind: IlkitArray) -> Vec<u32> {
    let mut p = null();
    let mut len = 0usize;
    // SAFETY: valid out-pointers; `r` is live.
    ok(unsafe { ilkit_result_array(r, kind as u32, &mut p, &mut len) });
    if len == 0 {
        return Vec::new();
    }
    // SAFETY: the library hands out `len` elements valid until the result is freed.
    unsafe { std::slice::from_raw_parts(p, len) }.to_vec()
}

fn names(r: *const IlkitResult) -> Vec<String> {
    let mut n = 0usize;
    // SAFETY: valid out-pointer; `r` is live.
    ok(unsafe { ilkit_result_num_names(r, &mut n) });
    (0..n)
        .map(|i| {
            let (mut p, mut len) = (null(), 0usize);
            // SAFETY: valid out-pointers.
            ok(unsafe { ilkit_result_name(r, i, &mut p, &mut len) });
            // SAFETY: `len` bytes at `p`.
            let b = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
            String::from_utf8(b.to_vec()).unwrap()
        })
        .collect()
}

type GraphFn = unsafe extern "C" fn(
    *const u32,
    usize,
    *const u32,
    usize,
    u32,
    *mut *mut IlkitResult,
) -> IlkitStatus;

unsafe extern "C" fn scc_rooted(
    indptr: *const u32,
    n: usize,
    indices: *const u32,
    m: usize,
    _root: u32,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    // SAFETY: forwarded.
    unsafe { ilkit_graph_scc(indptr, n, indices, m, out) }
}

unsafe extern "C" fn postdom_rooted(
    indptr: *const u32,
    n: usize,
    indices: *const u32,
    m: usize,
    _root: u32,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    // SAFETY: forwarded.
    unsafe { ilkit_graph_post_dominators(indptr, n, indices, m, out) }
}

const GRAPH_FNS: [(&str, GraphFn); 5] = [
    ("scc", scc_rooted),
    ("dominators", ilkit_graph_dominators),
    ("frontiers", ilkit_graph_dominance_frontiers),
    ("postdom", postdom_rooted),
    ("loops", ilkit_graph_loops),
];

fn run_graph(f: GraphFn, n: usize, edges: &[(u32, u32)], root: u32) -> *mut IlkitResult {
    let (indptr, indices) = csr(n, edges);
    let mut out = null_mut();
    // SAFETY: arrays of the stated lengths.
    ok(unsafe {
        f(
            indptr.as_ptr(),
            n,
            indices.as_ptr(),
            indices.len(),
            root,
            &mut out,
        )
    });
    out
}

fn free(r: *mut IlkitResult) {
    // SAFETY: `r` is live and used by nobody else.
    ok(unsafe { ilkit_result_free(r) });
}

#[test]
fn sccs_of_a_known_graph() {
    // {0,1,2} -> {3,4}; 5 alone
    let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3)];
    let r = run_graph(GRAPH_FNS[0].1, 6, &edges, 0);
    let label = array(r, IlkitArray::SccLabel);
    let starts = array(r, IlkitArray::SccStarts);
    let nodes = array(r, IlkitArray::SccNodes);
    assert_eq!(starts.len() - 1, 3);
    assert_eq!(label[0], label[1]);
    assert_eq!(label[1], label[2]);
    assert_eq!(label[3], label[4]);
    assert!(label[3] < label[0], "post-order: sinks first");
    assert_eq!(nodes.len(), 6);
    for (k, w) in starts.windows(2).enumerate() {
        for &v in &nodes[w[0] as usize..w[1] as usize] {
            assert_eq!(label[v as usize], k as u32);
        }
    }
    free(r);
}

#[test]
fn dominators_frontiers_postdom_and_loops_of_known_graphs() {
    // diamond 0 -> {1, 2} -> 3; 4 -> 3 unreachable
    let diamond = [(0, 1), (0, 2), (1, 3), (2, 3), (4, 3)];
    let r = run_graph(GRAPH_FNS[1].1, 5, &diamond, 0);
    assert_eq!(array(r, IlkitArray::Idom), [0, 0, 0, 0, ILKIT_NONE]);
    assert_eq!(array(r, IlkitArray::DomLevel), [0, 1, 1, 1, ILKIT_NONE]);
    free(r);
    let r = run_graph(GRAPH_FNS[2].1, 5, &diamond, 0);
    assert_eq!(array(r, IlkitArray::FrontierStarts), [0, 0, 1, 2, 2, 2]);
    assert_eq!(array(r, IlkitArray::FrontierNodes), [3, 3]);
    free(r);
    let r = run_graph(GRAPH_FNS[3].1, 5, &diamond, 0);
    assert_eq!(
        array(r, IlkitArray::Ipdom),
        [3, 3, 3, ILKIT_VIRTUAL_EXIT, 3]
    );
    assert_eq!(array(r, IlkitArray::PdomRoots), [3]);
    assert_eq!(array(r, IlkitArray::PdomLevel), [2, 2, 2, 1, 2]);
    free(r);
    // 0 -> 1 <-> 2 -> 3, 2 -> 2 (a self loop nested in the 1-2 loop)
    let looped = [(0, 1), (1, 2), (2, 1), (2, 2), (2, 3)];
    let r = run_graph(GRAPH_FNS[4].1, 4, &looped, 0);
    assert_eq!(array(r, IlkitArray::LoopHeader), [1, 2]);
    assert_eq!(array(r, IlkitArray::LoopParent), [ILKIT_NONE, 0]);
    assert_eq!(array(r, IlkitArray::LoopDepth), [1, 2]);
    assert_eq!(array(r, IlkitArray::LoopBlockStarts), [0, 2, 3]);
    assert_eq!(array(r, IlkitArray::LoopBlocks), [1, 2, 2]);
    assert_eq!(
        array(r, IlkitArray::BlockLoop),
        [ILKIT_NONE, 0, 1, ILKIT_NONE]
    );
    assert_eq!(array(r, IlkitArray::BlockLoopDepth), [0, 1, 2, 0]);
    assert_eq!(
        array(r, IlkitArray::BlockLoopHeader),
        [ILKIT_NONE, 1, 2, ILKIT_NONE]
    );
    free(r);
    // a graph without nodes: every analysis answers empty arrays
    for (what, f) in GRAPH_FNS {
        let mut out = null_mut();
        let zero = [0u32];
        // SAFETY: one offset, no edges.
        let s = unsafe { f(zero.as_ptr(), 0, null(), 0, 0, &mut out) };
        assert_eq!(s, IlkitStatus::Ok, "{what}: {}", last_message());
        free(out);
    }
}

#[test]
fn call_graph_cfgs_and_device_il_agree_with_the_rust_api() {
    let ll = root().join("data/default/recursion.ll");
    let mut m = null_mut();
    // SAFETY: a NUL-terminated path and a valid out-pointer.
    ok(unsafe { ilkit_module_from_ll(cpath(&ll).as_ptr(), &mut m) });
    let mut r = null_mut();
    // SAFETY: live module.
    ok(unsafe { ilkit_module_call_graph(m, &mut r) });
    let c_names = names(r);
    let scc_starts = array(r, IlkitArray::SccStarts);
    let scc_nodes = array(r, IlkitArray::SccNodes);
    let refscc_starts = array(r, IlkitArray::RefsccStarts);
    // the Rust API: RefSCCs in post-order, their SCCs, their nodes' names
    let module = Module::from_ll_file(&ll).unwrap();
    let mut g = callgraph::from_module(&module, ll.to_str().unwrap());
    let want: Vec<Vec<Vec<String>>> = g
        .postorder_refsccs()
        .into_iter()
        .map(|rc| {
            g.refscc_sccs(rc)
                .iter()
                .map(|&s| {
                    g.scc_nodes(s)
                        .iter()
                        .map(|&n| g.name(n).unwrap().to_string())
                        .collect()
                })
                .collect()
        })
        .collect();
    let got: Vec<Vec<Vec<String>>> = refscc_starts
        .windows(2)
        .map(|rw| {
            (rw[0]..rw[1])
                .map(|s| {
                    let (a, b) = (scc_starts[s as usize], scc_starts[s as usize + 1]);
                    scc_nodes[a as usize..b as usize]
                        .iter()
                        .map(|&n| c_names[n as usize].clone())
                        .collect()
                })
                .collect()
        })
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    free(r);

    // CFGs of the module and of the same file by path agree with Cfg::analyze
    let cfgs_rust = Cfg::from_llvm_module(&module);
    let mut c1 = null_mut();
    let mut c2 = null_mut();
    // SAFETY: live module, valid out-pointers.
    ok(unsafe { ilkit_module_cfgs(m, &mut c1) });
    // SAFETY: as above.
    ok(unsafe { ilkit_cfgs_from_ll(cpath(&ll).as_ptr(), &mut c2) });
    for c in [c1, c2] {
        check_cfgs(c, &cfgs_rust);
        // SAFETY: live, unused elsewhere.
        ok(unsafe { ilkit_cfgs_free(c) });
    }
    // SAFETY: live, unused elsewhere.
    ok(unsafe { ilkit_module_free(m) });

    let ptx = root().join("data/default/adler32.ptx");
    let mut c = null_mut();
    // SAFETY: valid arguments.
    ok(unsafe { ilkit_cfgs_from_ptx(cpath(&ptx).as_ptr(), &mut c) });
    check_cfgs(c, &Cfg::from_ptx_file(&ptx).unwrap());
    // SAFETY: live, unused elsewhere.
    ok(unsafe { ilkit_cfgs_free(c) });

    let json = root().join("tests/fixtures/clang/kernels.json.gz");
    let mut il = null_mut();
    // SAFETY: valid arguments.
    ok(unsafe { ilkit_il_from_clang_json(cpath(&json).as_ptr(), &mut il) });
    let mut r = null_mut();
    // SAFETY: live IL, used by nobody else.
    ok(unsafe { ilkit_il_keep_device(il, &mut r) });
    let mut rust_il = Il::new();
    clang_json::import_file(&mut rust_il, &json).unwrap();
    let keep = mark_device(&mut rust_il, DeviceOptions::default());
    assert_eq!(names(r), kept_routine_names(&rust_il, &keep));
    assert_eq!(
        array(r, IlkitArray::KeepCounts),
        [keep.kept as u32, keep.live as u32]
    );
    let (mut p, mut len) = (null(), 0usize);
    // SAFETY: valid out-pointers.
    ok(unsafe { ilkit_result_bytes(r, &mut p, &mut len) });
    // SAFETY: `len` bytes at `p`.
    let bytes = unsafe { std::slice::from_raw_parts(p, len) };
    assert_eq!(bytes, binary_il::write_il(&mut rust_il, true).unwrap());
    assert!(binary_il::read_il(bytes).unwrap().verify().is_empty());
    free(r);
    // SAFETY: live, unused elsewhere.
    ok(unsafe { ilkit_il_free(il) });
}

fn check_cfgs(c: *const IlkitCfgs, want: &[Cfg]) {
    let mut n = 0usize;
    // SAFETY: live handle.
    ok(unsafe { ilkit_cfgs_count(c, &mut n) });
    assert_eq!(n, want.len());
    assert!(n > 0);
    for (i, cfg) in want.iter().enumerate() {
        let (mut p, mut len) = (null(), 0usize);
        // SAFETY: valid out-pointers.
        ok(unsafe { ilkit_cfgs_name(c, i, &mut p, &mut len) });
        // SAFETY: NUL-terminated.
        assert_eq!(unsafe { CStr::from_ptr(p) }.to_str().unwrap(), cfg.name());
        let mut r = null_mut();
        // SAFETY: valid out-pointer.
        ok(unsafe { ilkit_cfgs_analyze(c, i, &mut r) });
        let info = cfg.analyze();
        let idom = array(r, IlkitArray::Idom);
        for b in cfg.blocks() {
            let want = match info.idom(b) {
                Some(d) => d.raw(),
                None if b == cfg.entry() => b.raw(),
                None => ILKIT_NONE,
            };
            assert_eq!(idom[b.idx()], want, "{} {}", cfg.name(), b.idx());
        }
        assert_eq!(array(r, IlkitArray::LoopHeader).len(), info.loops().len());
        let block_names = names(r);
        let want_names: Vec<String> = cfg.blocks().map(|b| cfg.display_name(b)).collect();
        assert_eq!(block_names, want_names);
        free(r);
    }
}

/// Writes `bytes` to a fresh file under the temporary directory.
fn hostile_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ilkit-capi-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A status that is an error, with a message, and the thread still alive.
#[track_caller]
fn fails(s: IlkitStatus, what: &str) {
    assert_ne!(s, IlkitStatus::Ok, "{what} succeeded");
    assert!(!last_message().is_empty(), "{what}: no message");
}

#[test]
fn bad_handles_and_null_pointers_are_error_codes() {
    let garbage_result = 0x1000usize as *mut IlkitResult;
    let mut p: *const u32 = null();
    let mut len = 0usize;
    let mut name: *const c_char = null();
    let mut bytes: *const u8 = null();
    // SAFETY (whole test): the library must check every pointer before using it; the
    // out-pointers that are not null are valid.
    unsafe {
        // results
        fails(
            ilkit_result_array(null(), 0, &mut p, &mut len),
            "null result",
        );
        fails(
            ilkit_result_array(garbage_result, 0, &mut p, &mut len),
            "garbage",
        );
        fails(
            ilkit_result_num_names(garbage_result, &mut len),
            "garbage names",
        );
        fails(
            ilkit_result_name(garbage_result, 0, &mut name, &mut len),
            "name",
        );
        fails(
            ilkit_result_bytes(garbage_result, &mut bytes, &mut len),
            "bytes",
        );
        fails(ilkit_result_free(garbage_result), "free garbage");
        ok(ilkit_result_free(null_mut()));
        let r = run_graph(GRAPH_FNS[0].1, 3, &[(0, 1)], 0);
        fails(ilkit_result_array(r, 999, &mut p, &mut len), "kind 999");
        fails(
            ilkit_result_array(r, IlkitArray::Idom as u32, &mut p, &mut len),
            "absent kind",
        );
        fails(ilkit_result_array(r, 0, null_mut(), &mut len), "null data");
        fails(ilkit_result_array(r, 0, &mut p, null_mut()), "null len");
        fails(
            ilkit_result_name(r, 0, &mut name, &mut len),
            "name 0 of none",
        );
        fails(ilkit_result_num_names(r, null_mut()), "null count");
        ok(ilkit_result_free(r));
        assert_eq!(
            ilkit_result_array(r, 0, &mut p, &mut len),
            IlkitStatus::BadHandle
        );
        assert_eq!(ilkit_result_free(r), IlkitStatus::BadHandle, "double free");

        // a handle of another type
        let mut m = null_mut();
        ok(ilkit_module_from_ll(
            cpath(&root().join("data/default/recursion.ll")).as_ptr(),
            &mut m,
        ));
        assert_eq!(
            ilkit_result_free(m.cast::<IlkitResult>()),
            IlkitStatus::BadHandle
        );
        assert_eq!(
            ilkit_cfgs_free(m.cast::<IlkitCfgs>()),
            IlkitStatus::BadHandle
        );
        let mut cfgs = null_mut();
        fails(ilkit_module_cfgs(m, null_mut()), "null out");
        fails(ilkit_module_call_graph(m, null_mut()), "null out");
        ok(ilkit_module_cfgs(m, &mut cfgs));
        let mut n = 0usize;
        fails(
            ilkit_cfgs_count(m.cast::<IlkitCfgs>(), &mut n),
            "module as cfgs",
        );
        fails(ilkit_cfgs_count(cfgs, null_mut()), "null count");
        ok(ilkit_cfgs_count(cfgs, &mut n));
        let mut out = null_mut();
        fails(
            ilkit_cfgs_analyze(cfgs, n, &mut out),
            "function out of range",
        );
        assert!(out.is_null());
        fails(ilkit_cfgs_analyze(cfgs, usize::MAX, &mut out), "usize::MAX");
        fails(
            ilkit_cfgs_name(cfgs, n, &mut name, &mut len),
            "name out of range",
        );
        fails(ilkit_cfgs_name(cfgs, 0, null_mut(), &mut len), "null name");
        ok(ilkit_cfgs_free(cfgs));
        fails(ilkit_cfgs_count(cfgs, &mut n), "freed cfgs");
        fails(ilkit_cfgs_analyze(cfgs, 0, &mut out), "freed cfgs");
        fails(ilkit_cfgs_name(cfgs, 0, &mut name, &mut len), "freed cfgs");
        ok(ilkit_module_free(m));
        let mut r = null_mut();
        fails(ilkit_module_call_graph(m, &mut r), "freed module");
        fails(ilkit_module_cfgs(m, &mut cfgs), "freed module");
        fails(ilkit_module_free(m), "double free");
        fails(ilkit_module_call_graph(null(), &mut r), "null module");

        // IL
        let mut il = null_mut();
        fails(ilkit_il_keep_device(null_mut(), &mut r), "null IL");
        fails(
            ilkit_il_keep_device(0x1000usize as *mut IlkitIl, &mut r),
            "garbage IL",
        );
        ok(ilkit_il_from_clang_json(
            cpath(&root().join("tests/fixtures/clang/kernels.json.gz")).as_ptr(),
            &mut il,
        ));
        fails(ilkit_il_keep_device(il, null_mut()), "null out");
        ok(ilkit_il_keep_device(il, &mut r));
        ok(ilkit_result_free(r));
        ok(ilkit_il_keep_device(il, &mut r)); // marking twice is fine
        ok(ilkit_result_free(r));
        ok(ilkit_il_free(il));
        fails(ilkit_il_free(il), "double free");
        ok(ilkit_il_free(null_mut()));
        ok(ilkit_cfgs_free(null_mut()));
        ok(ilkit_module_free(null_mut()));

        // constructors: null path, null out
        let path = cpath(&root().join("data/default/adler32.ptx"));
        fails(ilkit_module_from_ll(null(), &mut m), "null path");
        fails(ilkit_cfgs_from_ptx(null(), &mut cfgs), "null path");
        fails(ilkit_cfgs_from_ll(null(), &mut cfgs), "null path");
        fails(ilkit_il_from_clang_json(null(), &mut il), "null path");
        fails(ilkit_cfgs_from_ptx(path.as_ptr(), null_mut()), "null out");
        fails(ilkit_module_from_ll(path.as_ptr(), null_mut()), "null out");
        fails(
            ilkit_il_from_clang_json(path.as_ptr(), null_mut()),
            "null out",
        );
        fails(ilkit_cfgs_from_ll(path.as_ptr(), null_mut()), "null out");

        // the last-error location with and without out-parameters
        ok(ilkit_last_error_location(
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
        ));
        assert_eq!(
            CStr::from_ptr(ilkit_status_name(IlkitStatus::Parse as u32)).to_str(),
            Ok("ILKIT_STATUS_PARSE")
        );
        assert_eq!(
            CStr::from_ptr(ilkit_status_name(77)).to_str(),
            Ok("ILKIT_STATUS_UNKNOWN")
        );
        assert!(!CStr::from_ptr(ilkit_version()).to_bytes().is_empty());
    }
}

#[test]
fn malformed_graphs_and_out_of_range_roots_are_error_codes() {
    let cases: [(&str, Vec<u32>, Vec<u32>, usize); 6] = [
        ("indptr not from 0", vec![1, 1, 2], vec![0, 1], 2),
        ("indptr decreasing", vec![0, 2, 1], vec![0, 1], 2),
        ("indptr end != edges", vec![0, 1, 1], vec![0, 1], 2),
        ("target out of range", vec![0, 1, 2], vec![0, 2], 2),
        ("target u32::MAX", vec![0, 1, 2], vec![0, u32::MAX], 2),
        ("indptr huge", vec![0, u32::MAX, u32::MAX], vec![0, 1], 2),
    ];
    for (what, indptr, indices, n) in &cases {
        for (name, f) in GRAPH_FNS {
            let mut out = null_mut();
            // SAFETY: arrays of the stated lengths.
            let s = unsafe {
                f(
                    indptr.as_ptr(),
                    *n,
                    indices.as_ptr(),
                    indices.len(),
                    0,
                    &mut out,
                )
            };
            assert_eq!(s, IlkitStatus::InvalidGraph, "{name}: {what}");
            assert!(out.is_null());
        }
    }
    let (indptr, indices) = csr(3, &[(0, 1), (1, 2)]);
    for (name, f) in GRAPH_FNS {
        let mut out = null_mut();
        // SAFETY (block): arrays of the stated lengths, or null pointers the library
        // must refuse.
        unsafe {
            fails(f(null(), 3, indices.as_ptr(), 2, 0, &mut out), name);
            fails(f(indptr.as_ptr(), 3, null(), 2, 0, &mut out), name);
            fails(
                f(indptr.as_ptr(), 3, indices.as_ptr(), 2, 0, null_mut()),
                name,
            );
            fails(
                f(
                    indptr.as_ptr(),
                    usize::MAX,
                    indices.as_ptr(),
                    2,
                    0,
                    &mut out,
                ),
                name,
            );
            fails(
                f(
                    indptr.as_ptr(),
                    3,
                    indices.as_ptr(),
                    usize::MAX,
                    0,
                    &mut out,
                ),
                name,
            );
            // misaligned arrays
            let bytes = indptr.as_ptr().cast::<u8>().wrapping_add(1).cast::<u32>();
            fails(f(bytes, 1, null(), 0, 0, &mut out), name);
            // a root that is not a node: refused where a root is used
            let s = f(indptr.as_ptr(), 3, indices.as_ptr(), 2, 3, &mut out);
            if name == "scc" || name == "postdom" {
                ok(s);
                free(out);
            } else {
                assert_eq!(s, IlkitStatus::InvalidGraph, "{name}");
                assert!(
                    last_message().contains("start node 3"),
                    "{}",
                    last_message()
                );
            }
        }
    }
}

/// What a hostile input may answer: an error code other than a panic, or (for inputs
/// that happen to be valid) success.
#[track_caller]
fn refused(s: IlkitStatus, what: &str) {
    assert_ne!(s, IlkitStatus::Panic, "{what}: {}", last_message());
    assert_ne!(s, IlkitStatus::Ok, "{what} was accepted");
    assert!(!last_message().is_empty(), "{what}: no message");
}

#[test]
fn hostile_files_are_error_codes() {
    let ll = std::fs::read(root().join("data/default/recursion.ll")).unwrap();
    let ptx = std::fs::read(root().join("data/default/adler32.ptx")).unwrap();
    let json_gz = std::fs::read(root().join("tests/fixtures/clang/kernels.json.gz")).unwrap();
    let json = ilkit::import::format::gunzip_if_gzip(json_gz.clone()).unwrap();
    let mut garbage = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        garbage.push(x as u8);
    }
    let files = [
        ("truncated.ll", ll[..ll.len() / 2].to_vec()),
        ("garbage.ll", garbage.clone()),
        (
            "braces.ll",
            b"define void @f() {\n  call void @g(\n".to_vec(),
        ),
        ("truncated.ptx", ptx[..ptx.len() / 2].to_vec()),
        ("garbage.ptx", garbage.clone()),
        ("truncated.json", json[..json.len() / 2].to_vec()),
        ("truncated.json.gz", json_gz[..json_gz.len() / 2].to_vec()),
        ("garbage.json", garbage.clone()),
        ("notjson.json", b"[1, 2, {\"kind\": 3}]".to_vec()),
        ("empty.json", Vec::new()),
    ];
    let mut missing = std::env::temp_dir();
    missing.push("ilkit-capi-no-such-dir/none.ll");
    // SAFETY (whole loop): NUL-terminated paths and valid out-pointers.
    unsafe {
        for (name, bytes) in &files {
            let p = hostile_file(name, bytes);
            let c = cpath(&p);
            let (mut m, mut cfgs, mut il) = (null_mut(), null_mut(), null_mut());
            if name.ends_with(".ll") {
                refused(ilkit_module_from_ll(c.as_ptr(), &mut m), name);
                assert!(m.is_null());
                refused(ilkit_cfgs_from_ll(c.as_ptr(), &mut cfgs), name);
                assert!(cfgs.is_null());
                let mut line = 0u32;
                let mut file: *const c_char = null();
                ok(ilkit_last_error_location(
                    &mut file,
                    &mut line,
                    null_mut(),
                    null_mut(),
                ));
                assert!(CStr::from_ptr(file).to_str().unwrap().ends_with(name));
            } else if name.ends_with(".ptx") {
                // a truncated PTX file may still hold whole functions: that is an answer
                let s = ilkit_cfgs_from_ptx(c.as_ptr(), &mut cfgs);
                assert_ne!(s, IlkitStatus::Panic, "{name}: {}", last_message());
                if s == IlkitStatus::Ok {
                    ok(ilkit_cfgs_free(cfgs));
                } else {
                    refused(s, name);
                }
            } else {
                refused(ilkit_il_from_clang_json(c.as_ptr(), &mut il), name);
                assert!(il.is_null());
                let mut offset = 0u64;
                ok(ilkit_last_error_location(
                    null_mut(),
                    null_mut(),
                    null_mut(),
                    &mut offset,
                ));
            }
            // every reader on every hostile file: an answer or an error code
            for s in [
                ilkit_module_from_ll(c.as_ptr(), &mut m),
                ilkit_cfgs_from_ll(c.as_ptr(), &mut cfgs),
                ilkit_il_from_clang_json(c.as_ptr(), &mut il),
            ] {
                assert_ne!(s, IlkitStatus::Panic, "{name}: {}", last_message());
            }
            let s = ilkit_cfgs_from_ptx(c.as_ptr(), &mut cfgs);
            assert_ne!(s, IlkitStatus::Panic, "{name}: {}", last_message());
            let _ = ilkit_module_free(m);
            let _ = ilkit_cfgs_free(cfgs);
            let _ = ilkit_il_free(il);
        }
        for p in [missing.clone(), std::env::temp_dir()] {
            let c = cpath(&p);
            let (mut m, mut cfgs, mut il) = (null_mut(), null_mut(), null_mut());
            let what = p.display().to_string();
            refused(ilkit_module_from_ll(c.as_ptr(), &mut m), &what);
            refused(ilkit_cfgs_from_ll(c.as_ptr(), &mut cfgs), &what);
            refused(ilkit_cfgs_from_ptx(c.as_ptr(), &mut cfgs), &what);
            refused(ilkit_il_from_clang_json(c.as_ptr(), &mut il), &what);
        }
        let mut m = null_mut();
        assert_eq!(
            ilkit_module_from_ll(cpath(&missing).as_ptr(), &mut m),
            IlkitStatus::Io
        );
        let ll_bad = hostile_file("line3.ll", b"; ok\n\n= 3\n");
        assert_eq!(
            ilkit_module_from_ll(cpath(&ll_bad).as_ptr(), &mut m),
            IlkitStatus::Parse
        );
        let mut line = 0u32;
        let mut column = 0u32;
        ok(ilkit_last_error_location(
            null_mut(),
            &mut line,
            &mut column,
            null_mut(),
        ));
        assert_eq!(line, 3, "{}", last_message());
        assert!(column > 0);
        assert!(last_message().contains("line3.ll:3:"), "{}", last_message());
    }
}

#[test]
fn threads_share_read_only_handles() {
    let ll = root().join("data/default/compress.nvptx.O2.ll");
    let mut m = null_mut();
    // SAFETY: valid arguments.
    ok(unsafe { ilkit_module_from_ll(cpath(&ll).as_ptr(), &mut m) });
    let addr = m as usize;
    let answers: Vec<Vec<u32>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(move || {
                    let mut r = null_mut();
                    // SAFETY: the module is live for the whole scope; reads only.
                    ok(unsafe { ilkit_module_call_graph(addr as *const IlkitModule, &mut r) });
                    let a = array(r, IlkitArray::SccLabel);
                    free(r);
                    a
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
    // SAFETY: live, unused elsewhere now.
    ok(unsafe { ilkit_module_free(m) });
}
