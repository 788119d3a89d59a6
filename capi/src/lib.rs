//! The C ABI of ilkit (`include/ilkit.h`, generated from this crate by cbindgen).
//!
//! # Conventions
//! - Every function returns an [`IlkitStatus`]; `ILKIT_STATUS_OK` is 0. On failure
//!   [`ilkit_last_error_message`] and [`ilkit_last_error_location`] tell what went wrong
//!   (the Rust error's text: file, line and column, or byte offset), per thread.
//! - Answers come back through out-parameters. A function that makes a handle writes
//!   NULL to its out-parameter first, so a failed call leaves NULL there.
//! - Handles (`IlkitResult`, `IlkitModule`, `IlkitCfgs`, `IlkitIl`) are opaque and owned
//!   by the caller until its `*_free` function; arrays, names and bytes read from a
//!   handle stay valid (and unchanged) until that handle is freed. Freeing NULL does
//!   nothing; using or freeing a freed, foreign or mistyped handle answers
//!   `ILKIT_STATUS_BAD_HANDLE` (every live handle is registered), never a crash — unless
//!   the memory of a freed handle has since been reused for a new handle of the same
//!   type, which the library cannot tell from the old one.
//! - Node and block numbers are dense `uint32_t` indices; `ILKIT_NONE` (`UINT32_MAX`)
//!   means "no node" and `ILKIT_VIRTUAL_EXIT` (`UINT32_MAX - 1`) is the
//!   post-dominator tree's virtual exit. Tables of lists are CSR: a `*_STARTS` array of
//!   one offset per row plus one, and the values.
//! - No Rust panic crosses the boundary: every entry point runs under
//!   `catch_unwind`, and a panic answers `ILKIT_STATUS_PANIC` with its message.
//!
//! # Thread safety
//! Each function's documentation says what may run concurrently. In general: the
//! graph functions and the constructors touch nothing shared and may run on any
//! threads at once; read-only functions may share a handle across threads; a function
//! that changes a handle, and the `*_free` functions, need the handle to themselves.
//! The last-error state is per thread.
#![deny(missing_docs)]
#![deny(missing_debug_implementations)]

pub mod flat;
mod handles;

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use flat::{CsrRef, Names};
use handles::Handle;
use ilkit::cfg::Cfg;
use ilkit::graph::GraphError;
use ilkit::il::Il;
use ilkit::import::{binary_il, clang_json, ParseError};
use ilkit::llvm::Module;
use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};

/// "No node": an unreachable node's immediate dominator, a block outside every loop, a
/// top-level loop's parent.
pub const ILKIT_NONE: u32 = u32::MAX;
/// The post-dominator tree's virtual exit, as an immediate post-dominator.
pub const ILKIT_VIRTUAL_EXIT: u32 = u32::MAX - 1;

/// What a call answered.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IlkitStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullPointer = 1,
    /// A handle argument is not a live handle of the expected type (freed, never made,
    /// or of another type).
    BadHandle = 2,
    /// An index or kind is out of range (a function number, an array kind the result
    /// does not hold, a length too large for memory).
    OutOfRange = 3,
    /// The graph arrays are malformed (offsets not non-decreasing from 0 to the number
    /// of edges, an edge target or root that is not a node).
    InvalidGraph = 4,
    /// A file could not be read.
    Io = 5,
    /// A file could not be parsed or imported (the message has file and line/column or
    /// byte offset).
    Parse = 6,
    /// An argument is invalid otherwise (a misaligned array, a non-UTF-8 path on a
    /// system whose paths are Unicode).
    InvalidArgument = 7,
    /// The library panicked; the message is the panic's. The handles passed in are
    /// still valid but their contents are unspecified.
    Panic = 8,
    /// Writing the IL failed.
    Write = 9,
}

/// The arrays a result can hold ([`ilkit_result_array`]'s `kind`). Which ones a result
/// holds is listed at the function that made it.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IlkitArray {
    /// Per node: its strongly connected component's position in the post-order (sinks
    /// first: for every edge `u -> v`, `label[v] <= label[u]`); `ILKIT_NONE` for a
    /// call-graph node in no SCC.
    SccLabel = 0,
    /// Offsets into `SCC_NODES`, one per component plus one.
    SccStarts = 1,
    /// Nodes grouped by component, components in post-order.
    SccNodes = 2,
    /// Call graphs: offsets into the SCC list, one per RefSCC (in post-order) plus one.
    RefsccStarts = 3,
    /// Per node: its immediate dominator (the root its own, `ILKIT_NONE` when
    /// unreachable).
    Idom = 4,
    /// Per node: its depth in the dominator tree (root 0, `ILKIT_NONE` when
    /// unreachable).
    DomLevel = 5,
    /// Offsets into `FRONTIER_NODES`, one per node plus one.
    FrontierStarts = 6,
    /// Dominance frontiers, node by node.
    FrontierNodes = 7,
    /// Per node: its immediate post-dominator, or `ILKIT_VIRTUAL_EXIT`.
    Ipdom = 8,
    /// Per node: its depth in the post-dominator tree (the virtual exit's children at 1).
    PdomLevel = 9,
    /// The post-dominator tree's roots (the virtual exit's children), in LLVM's order.
    PdomRoots = 10,
    /// Per loop (outer before inner): its header.
    LoopHeader = 11,
    /// Per loop: the enclosing loop, `ILKIT_NONE` at top level.
    LoopParent = 12,
    /// Per loop: its nesting depth (1 at top level).
    LoopDepth = 13,
    /// Offsets into `LOOP_BLOCKS`, one per loop plus one.
    LoopBlockStarts = 14,
    /// Each loop's blocks (header first, nested loops' blocks included).
    LoopBlocks = 15,
    /// Per block: its innermost loop, `ILKIT_NONE` outside every loop.
    BlockLoop = 16,
    /// Per block: the depth of its innermost loop, 0 outside every loop.
    BlockLoopDepth = 17,
    /// Per block: the header of its innermost loop, `ILKIT_NONE` outside every loop.
    BlockLoopHeader = 18,
    /// CFGs and call graphs: offsets into `SUCC_NODES`, one per block (function) plus
    /// one.
    SuccStarts = 19,
    /// CFGs: successors of each block, in LLVM's edge order; call graphs: each
    /// function's call and ref edges' targets.
    SuccNodes = 20,
    /// CFGs: the reachable blocks in reverse post-order.
    Rpo = 21,
    /// CFGs: one element, the entry block (`ILKIT_NONE` for a CFG without blocks).
    Entry = 22,
    /// Call graphs: per node, 1 for a definition and 0 for a declaration.
    Defined = 23,
    /// Device IL: two elements, the entries kept in IL and the live entries.
    KeepCounts = 24,
    /// Call graphs: per edge (in `SUCC_NODES` order), 1 for a call edge and 0 for a ref
    /// edge.
    EdgeIsCall = 25,
}

/// Number of [`IlkitArray`] kinds (kinds are `0..ILKIT_ARRAY_KINDS`).
pub const ILKIT_ARRAY_KINDS: u32 = 26;

/// A failure on its way to the caller.
#[derive(Debug)]
pub(crate) struct Failure {
    status: IlkitStatus,
    message: String,
    file: String,
    line: u32,
    column: u32,
    offset: u64,
}

impl Failure {
    pub(crate) fn new(status: IlkitStatus, message: String) -> Failure {
        Failure {
            status,
            message,
            file: String::new(),
            line: 0,
            column: 0,
            offset: 0,
        }
    }

    fn graph(e: GraphError) -> Failure {
        Failure::new(IlkitStatus::InvalidGraph, e.to_string())
    }

    fn parse(e: ParseError) -> Failure {
        Failure {
            message: e.to_string(),
            file: e.file,
            line: e.line,
            column: e.column,
            ..Failure::new(IlkitStatus::Parse, String::new())
        }
    }
}

/// The last failure of this thread, as C strings.
#[derive(Debug, Default)]
struct LastError {
    message: CString,
    file: CString,
    line: u32,
    column: u32,
    offset: u64,
}

thread_local! {
    static LAST: RefCell<LastError> = RefCell::new(LastError::default());
}

fn c_string(s: String) -> CString {
    CString::new(s).unwrap_or_else(|e| {
        let mut v = e.into_vec();
        v.retain(|&b| b != 0);
        CString::new(v).unwrap_or_default()
    })
}

fn record(f: Failure) -> IlkitStatus {
    let status = f.status;
    let last = LastError {
        message: c_string(f.message),
        file: c_string(f.file),
        line: f.line,
        column: f.column,
        offset: f.offset,
    };
    let _ = LAST.try_with(|l| *l.borrow_mut() = last);
    status
}

/// Runs one entry point's body: a panic becomes `ILKIT_STATUS_PANIC`, a failure is
/// recorded as the thread's last error.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> IlkitStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => IlkitStatus::Ok,
        Ok(Err(f)) => record(f),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_string());
            record(Failure::new(
                IlkitStatus::Panic,
                format!("ilkit panicked: {what}"),
            ))
        }
    }
}

fn null(what: &str) -> Failure {
    Failure::new(IlkitStatus::NullPointer, format!("{what} is null"))
}

/// Writes `value` through the out-pointer `out`.
///
/// # Safety
/// `out` is null or valid for a write of `T` (checked: null and alignment).
unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(null(what));
    }
    if !out.is_aligned() {
        return Err(Failure::new(
            IlkitStatus::InvalidArgument,
            format!("{what} is misaligned"),
        ));
    }
    // SAFETY: non-null and aligned; the caller promises it is valid for writes.
    unsafe { out.write(value) };
    Ok(())
}

/// A caller's array as a slice (an empty array may be NULL).
///
/// # Safety
/// `p` is null or valid for reads of `len` elements for `'a`.
unsafe fn slice<'a, T>(p: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(what));
    }
    if !p.is_aligned() {
        return Err(Failure::new(
            IlkitStatus::InvalidArgument,
            format!("{what} is misaligned"),
        ));
    }
    if len > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(Failure::new(
            IlkitStatus::OutOfRange,
            format!("{what}: {len} elements do not fit in memory"),
        ));
    }
    // SAFETY: non-null, aligned, the size fits `isize`; the caller promises `len`
    // readable elements that nothing writes while the call runs.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// A caller's NUL-terminated path.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn path_arg(p: *const c_char) -> Result<PathBuf, Failure> {
    if p.is_null() {
        return Err(null("path"));
    }
    // SAFETY: non-null; the caller promises a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes).map(PathBuf::from).map_err(|_| {
            Failure::new(
                IlkitStatus::InvalidArgument,
                "path is not UTF-8".to_string(),
            )
        })
    }
}

/// A caller's path to an input file: [`path_arg`], then `ILKIT_STATUS_IO` when it
/// cannot be opened for reading.
///
/// # Safety
/// As [`path_arg`].
unsafe fn input_path(p: *const c_char) -> Result<PathBuf, Failure> {
    // SAFETY: the caller's contract.
    let path = unsafe { path_arg(p) }?;
    readable(&path)?;
    Ok(path)
}

/// Fails with `ILKIT_STATUS_IO` when `path` cannot be opened for reading.
fn readable(path: &std::path::Path) -> Result<(), Failure> {
    std::fs::File::open(path).map(drop).map_err(|e| Failure {
        file: path.display().to_string(),
        ..Failure::new(IlkitStatus::Io, format!("{}: {e}", path.display()))
    })
}

/// The graph given as CSR arrays.
///
/// # Safety
/// As for the graph functions' arguments.
unsafe fn csr_arg<'a>(
    indptr: *const u32,
    num_nodes: usize,
    indices: *const u32,
    num_edges: usize,
) -> Result<CsrRef<'a>, Failure> {
    let Some(ptr_len) = num_nodes.checked_add(1) else {
        return Err(Failure::new(
            IlkitStatus::OutOfRange,
            "num_nodes is too large".to_string(),
        ));
    };
    // SAFETY: the caller promises `num_nodes + 1` offsets and `num_edges` indices.
    let indptr = unsafe { slice(indptr, ptr_len, "indptr") }?;
    // SAFETY: as above.
    let indices = unsafe { slice(indices, num_edges, "indices") }?;
    CsrRef::new(indptr, indices).map_err(Failure::graph)
}

/// An analysis answer: arrays of `uint32_t` by [`IlkitArray`] kind, names, bytes.
#[derive(Debug, Default)]
pub struct IlkitResult {
    arrays: Vec<Option<Vec<u32>>>,
    names: Names,
    bytes: Vec<u8>,
}

impl Handle for IlkitResult {
    const TAG: u8 = 1;
    const NAME: &'static str = "IlkitResult";
}

impl IlkitResult {
    fn with(mut self, kind: IlkitArray, values: Vec<u32>) -> Self {
        let k = kind as usize;
        if self.arrays.len() <= k {
            self.arrays.resize(k + 1, None);
        }
        self.arrays[k] = Some(values);
        self
    }

    fn sccs(self, s: flat::Sccs) -> Self {
        self.with(IlkitArray::SccLabel, s.label)
            .with(IlkitArray::SccStarts, s.starts)
            .with(IlkitArray::SccNodes, s.nodes)
    }

    fn dominators(self, d: flat::Dominators) -> Self {
        self.with(IlkitArray::Idom, d.idom)
            .with(IlkitArray::DomLevel, d.level)
    }

    fn frontiers(self, f: flat::Lists) -> Self {
        self.with(IlkitArray::FrontierStarts, f.starts)
            .with(IlkitArray::FrontierNodes, f.values)
    }

    fn postdom(self, p: flat::PostDominators) -> Self {
        self.with(IlkitArray::Ipdom, p.ipdom)
            .with(IlkitArray::PdomLevel, p.level)
            .with(IlkitArray::PdomRoots, p.roots)
    }

    fn loops(self, l: flat::Loops) -> Self {
        self.with(IlkitArray::LoopHeader, l.header)
            .with(IlkitArray::LoopParent, l.parent)
            .with(IlkitArray::LoopDepth, l.depth)
            .with(IlkitArray::LoopBlockStarts, l.blocks.starts)
            .with(IlkitArray::LoopBlocks, l.blocks.values)
            .with(IlkitArray::BlockLoop, l.block_loop)
            .with(IlkitArray::BlockLoopDepth, l.block_depth)
            .with(IlkitArray::BlockLoopHeader, l.block_header)
    }

    /// The array of `kind`, if this result holds one.
    pub fn array(&self, kind: IlkitArray) -> Option<&[u32]> {
        self.arrays.get(kind as usize)?.as_deref()
    }
}

/// An LLVM IR module read from a `.ll` file.
#[derive(Debug)]
pub struct IlkitModule {
    module: Module,
    name: String,
}

impl Handle for IlkitModule {
    const TAG: u8 = 2;
    const NAME: &'static str = "IlkitModule";
}

/// The control-flow graphs of a file's functions.
#[derive(Debug)]
pub struct IlkitCfgs {
    cfgs: Vec<Cfg>,
    names: Names,
}

impl Handle for IlkitCfgs {
    const TAG: u8 = 3;
    const NAME: &'static str = "IlkitCfgs";
}

impl IlkitCfgs {
    fn new(cfgs: Vec<Cfg>) -> Self {
        let names = cfgs.iter().map(Cfg::name).collect();
        IlkitCfgs { cfgs, names }
    }
}

/// A front-end IL world imported from a clang JSON AST.
#[derive(Debug)]
pub struct IlkitIl {
    il: Il,
}

impl Handle for IlkitIl {
    const TAG: u8 = 4;
    const NAME: &'static str = "IlkitIl";
}

/// Makes a result handle and writes it to `out`.
///
/// # Safety
/// `out` as for [`put`].
unsafe fn give<T: Handle>(out: *mut *mut T, value: T) -> Result<(), Failure> {
    let p = handles::register(value);
    // SAFETY: `out` was checked by the caller's `clear_out`.
    let r = unsafe { put(out, p, "out") };
    if r.is_err() {
        // SAFETY: `p` was just registered and given to nobody.
        let _ = unsafe { handles::free(p) };
    }
    r
}

/// Writes NULL to a handle out-parameter (so a failed call leaves NULL there).
///
/// # Safety
/// `out` as for [`put`].
unsafe fn clear_out<T>(out: *mut *mut T) -> Result<(), Failure> {
    // SAFETY: checked by `put`.
    unsafe { put(out, std::ptr::null_mut(), "out") }
}

// ---------------------------------------------------------------------------------------
// Errors and version
// ---------------------------------------------------------------------------------------

/// The library's version, a static NUL-terminated string.
///
/// Thread safety: any thread, any time.
#[no_mangle]
pub extern "C" fn ilkit_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The name of a status code (`"ILKIT_STATUS_PARSE"`, ...), a static string;
/// `"ILKIT_STATUS_UNKNOWN"` for a value that is no status.
///
/// Thread safety: any thread, any time.
#[no_mangle]
pub extern "C" fn ilkit_status_name(status: u32) -> *const c_char {
    let s: &'static str = match status {
        0 => "ILKIT_STATUS_OK\0",
        1 => "ILKIT_STATUS_NULL_POINTER\0",
        2 => "ILKIT_STATUS_BAD_HANDLE\0",
        3 => "ILKIT_STATUS_OUT_OF_RANGE\0",
        4 => "ILKIT_STATUS_INVALID_GRAPH\0",
        5 => "ILKIT_STATUS_IO\0",
        6 => "ILKIT_STATUS_PARSE\0",
        7 => "ILKIT_STATUS_INVALID_ARGUMENT\0",
        8 => "ILKIT_STATUS_PANIC\0",
        9 => "ILKIT_STATUS_WRITE\0",
        _ => "ILKIT_STATUS_UNKNOWN\0",
    };
    s.as_ptr().cast()
}

/// The message of the last failed call on this thread (the Rust error's text: for a
/// file, `file:line:column: message` or `file: byte N: message`); `""` when no call
/// has failed on this thread. Successful calls leave it as it is.
///
/// The string stays valid until the next failed call on this thread.
///
/// Thread safety: any thread; each thread has its own last error.
#[no_mangle]
pub extern "C" fn ilkit_last_error_message() -> *const c_char {
    LAST.try_with(|l| l.borrow().message.as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// Where the last failed call on this thread was in its input: the file (`""` when the
/// failure was not about a file), 1-based line and column (0 when the error has none),
/// and byte offset (0 when the error has none; clang JSON errors have one). Each
/// out-parameter may be NULL when not wanted. The file string stays valid until the
/// next failed call on this thread.
///
/// Thread safety: any thread; each thread has its own last error.
///
/// # Safety
/// Each non-NULL pointer must be valid for one write of its type.
#[no_mangle]
pub unsafe extern "C" fn ilkit_last_error_location(
    file: *mut *const c_char,
    line: *mut u32,
    column: *mut u32,
    offset: *mut u64,
) -> IlkitStatus {
    guard(|| {
        let (f, l, c, o) = LAST
            .try_with(|l| {
                let l = l.borrow();
                (l.file.as_ptr(), l.line, l.column, l.offset)
            })
            .unwrap_or((c"".as_ptr(), 0, 0, 0));
        // SAFETY: each is null (skipped) or valid for a write, per the contract.
        unsafe {
            if !file.is_null() {
                put(file, f, "file")?;
            }
            if !line.is_null() {
                put(line, l, "line")?;
            }
            if !column.is_null() {
                put(column, c, "column")?;
            }
            if !offset.is_null() {
                put(offset, o, "offset")?;
            }
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Graphs from CSR arrays
// ---------------------------------------------------------------------------------------

/// Strongly connected components of a graph given as CSR arrays: node `v`'s successors
/// are `indices[indptr[v]] .. indices[indptr[v + 1] - 1]`, in that order. `indptr` has
/// `num_nodes + 1` entries, non-decreasing from 0 to `num_edges`; `indices` has
/// `num_edges` entries, each below `num_nodes` (NULL when `num_edges` is 0). At most
/// 2^31 - 3 nodes.
///
/// ilkit's iterative Tarjan, roots `0..num_nodes` in order. The result holds
/// `ILKIT_ARRAY_SCC_LABEL` (per node), `ILKIT_ARRAY_SCC_STARTS` and
/// `ILKIT_ARRAY_SCC_NODES` (components in post-order: sinks first).
///
/// Thread safety: any threads at once; the arrays are only read, and must not change
/// during the call.
///
/// # Safety
/// `indptr` must be readable for `num_nodes + 1` and `indices` for `num_edges`
/// `uint32_t`s; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_graph_scc(
    indptr: *const u32,
    num_nodes: usize,
    indices: *const u32,
    num_edges: usize,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let g = unsafe { csr_arg(indptr, num_nodes, indices, num_edges) }?;
        let r = IlkitResult::default().sccs(flat::sccs(&g));
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// Immediate dominators of a graph given as CSR arrays (see [`ilkit_graph_scc`]) from
/// node `root` (Semi-NCA). The result holds `ILKIT_ARRAY_IDOM` (the root is its own
/// immediate dominator; an unreachable node has `ILKIT_NONE`) and `ILKIT_ARRAY_DOM_LEVEL`
/// (depth in the dominator tree, root 0, `ILKIT_NONE` when unreachable).
///
/// Thread safety: any threads at once; the arrays are only read, and must not change
/// during the call.
///
/// # Safety
/// As [`ilkit_graph_scc`].
#[no_mangle]
pub unsafe extern "C" fn ilkit_graph_dominators(
    indptr: *const u32,
    num_nodes: usize,
    indices: *const u32,
    num_edges: usize,
    root: u32,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let g = unsafe { csr_arg(indptr, num_nodes, indices, num_edges) }?;
        let g = flat::BiGraph::new(g, root).map_err(Failure::graph)?;
        let r = IlkitResult::default().dominators(flat::dominators(&g));
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// Dominance frontiers of a graph given as CSR arrays (see [`ilkit_graph_scc`]) from
/// node `root`: `ILKIT_ARRAY_FRONTIER_STARTS` (one per node plus one) and
/// `ILKIT_ARRAY_FRONTIER_NODES` (empty for unreachable nodes), plus the dominators'
/// `ILKIT_ARRAY_IDOM` and `ILKIT_ARRAY_DOM_LEVEL`.
///
/// Thread safety: any threads at once; the arrays are only read, and must not change
/// during the call.
///
/// # Safety
/// As [`ilkit_graph_scc`].
#[no_mangle]
pub unsafe extern "C" fn ilkit_graph_dominance_frontiers(
    indptr: *const u32,
    num_nodes: usize,
    indices: *const u32,
    num_edges: usize,
    root: u32,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let g = unsafe { csr_arg(indptr, num_nodes, indices, num_edges) }?;
        let g = flat::BiGraph::new(g, root).map_err(Failure::graph)?;
        let r = IlkitResult::default()
            .dominators(flat::dominators(&g))
            .frontiers(flat::dominance_frontiers(&g));
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// The post-dominator tree of a graph given as CSR arrays (see [`ilkit_graph_scc`]),
/// as LLVM builds it (a virtual exit above every exit and every infinite loop; every node
/// is in the tree): `ILKIT_ARRAY_IPDOM` (`ILKIT_VIRTUAL_EXIT` for the tree's roots and
/// nodes whose paths lead to different roots), `ILKIT_ARRAY_PDOM_LEVEL`,
/// `ILKIT_ARRAY_PDOM_ROOTS`.
///
/// Thread safety: any threads at once; the arrays are only read, and must not change
/// during the call.
///
/// # Safety
/// As [`ilkit_graph_scc`].
#[no_mangle]
pub unsafe extern "C" fn ilkit_graph_post_dominators(
    indptr: *const u32,
    num_nodes: usize,
    indices: *const u32,
    num_edges: usize,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let g = unsafe { csr_arg(indptr, num_nodes, indices, num_edges) }?;
        let g = flat::BiGraph::new(g, 0).map_err(Failure::graph)?;
        let r = IlkitResult::default().postdom(flat::post_dominators(&g));
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// Natural loops of a graph given as CSR arrays (see [`ilkit_graph_scc`]) entered at
/// `root`, as a CFG's analysis finds them (LLVM's `LoopInfo`; irreducible cycles are not
/// loops): per loop `ILKIT_ARRAY_LOOP_HEADER`, `ILKIT_ARRAY_LOOP_PARENT`,
/// `ILKIT_ARRAY_LOOP_DEPTH`, `ILKIT_ARRAY_LOOP_BLOCK_STARTS` / `ILKIT_ARRAY_LOOP_BLOCKS`;
/// per block `ILKIT_ARRAY_BLOCK_LOOP`, `ILKIT_ARRAY_BLOCK_LOOP_DEPTH`,
/// `ILKIT_ARRAY_BLOCK_LOOP_HEADER`.
///
/// Thread safety: any threads at once; the arrays are only read, and must not change
/// during the call.
///
/// # Safety
/// As [`ilkit_graph_scc`].
#[no_mangle]
pub unsafe extern "C" fn ilkit_graph_loops(
    indptr: *const u32,
    num_nodes: usize,
    indices: *const u32,
    num_edges: usize,
    root: u32,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let g = unsafe { csr_arg(indptr, num_nodes, indices, num_edges) }?;
        let l = flat::loops(&g, root).map_err(Failure::graph)?;
        let r = IlkitResult::default().loops(l);
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

// ---------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------

/// One array of a result: `*data` points at `*len` `uint32_t`s, valid until the result
/// is freed (`*data` may be NULL when `*len` is 0). `kind` is an [`IlkitArray`] value;
/// one the result does not hold answers `ILKIT_STATUS_OUT_OF_RANGE`.
///
/// Thread safety: any threads at once on the same result, but not during
/// [`ilkit_result_free`] of it.
///
/// # Safety
/// `result` must not be freed during the call; `data` and `len` must be valid for one
/// write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_result_array(
    result: *const IlkitResult,
    kind: u32,
    data: *mut *const u32,
    len: *mut usize,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract (no concurrent free).
        let r = unsafe { handles::get(result) }?;
        let a = r
            .arrays
            .get(kind as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                Failure::new(
                    IlkitStatus::OutOfRange,
                    if kind < ILKIT_ARRAY_KINDS {
                        format!("this result holds no array of kind {kind}")
                    } else {
                        format!("{kind} is not an array kind (0..{ILKIT_ARRAY_KINDS})")
                    },
                )
            })?;
        // SAFETY: the caller's contract.
        unsafe {
            put(data, a.as_ptr(), "data")?;
            put(len, a.len(), "len")
        }
    })
}

/// Number of names a result holds (call-graph nodes, a CFG's blocks, kept routines).
///
/// Thread safety: as [`ilkit_result_array`].
///
/// # Safety
/// `result` must not be freed during the call; `count` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_result_num_names(
    result: *const IlkitResult,
    count: *mut usize,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = unsafe { handles::get(result) }?;
        // SAFETY: the caller's contract.
        unsafe { put(count, r.names.len(), "count") }
    })
}

/// Name `index` of a result: `*name` is NUL-terminated UTF-8 of `*len` bytes (the
/// length counts an interior NUL, should a name hold one), valid until the result is
/// freed. `index` out of range answers `ILKIT_STATUS_OUT_OF_RANGE`.
///
/// Thread safety: as [`ilkit_result_array`].
///
/// # Safety
/// `result` must not be freed during the call; `name` and `len` must be valid for one
/// write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_result_name(
    result: *const IlkitResult,
    index: usize,
    name: *mut *const c_char,
    len: *mut usize,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = unsafe { handles::get(result) }?;
        names_get(&r.names, index, name, len)
    })
}

fn names_get(
    names: &Names,
    index: usize,
    name: *mut *const c_char,
    len: *mut usize,
) -> Result<(), Failure> {
    let s = names.get_with_nul(index).ok_or_else(|| {
        Failure::new(
            IlkitStatus::OutOfRange,
            format!("name {index} of {}", names.len()),
        )
    })?;
    // SAFETY: the callers' contract: both valid for one write (checked for null).
    unsafe {
        put(name, s.as_ptr().cast(), "name")?;
        put(len, s.len() - 1, "len")
    }
}

/// The bytes a result holds (a device IL file); `*len` is 0 for a result without bytes.
/// Valid until the result is freed.
///
/// Thread safety: as [`ilkit_result_array`].
///
/// # Safety
/// `result` must not be freed during the call; `data` and `len` must be valid for one
/// write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_result_bytes(
    result: *const IlkitResult,
    data: *mut *const u8,
    len: *mut usize,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = unsafe { handles::get(result) }?;
        // SAFETY: the caller's contract.
        unsafe {
            put(data, r.bytes.as_ptr(), "data")?;
            put(len, r.bytes.len(), "len")
        }
    })
}

/// Frees a result and everything read from it. NULL does nothing; a handle that is not
/// a live result answers `ILKIT_STATUS_BAD_HANDLE`.
///
/// Thread safety: no other call may use the result during or after this one.
///
/// # Safety
/// No other thread may use `result` during the call.
#[no_mangle]
pub unsafe extern "C" fn ilkit_result_free(result: *mut IlkitResult) -> IlkitStatus {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(result) })
}

// ---------------------------------------------------------------------------------------
// LLVM IR modules and call graphs
// ---------------------------------------------------------------------------------------

/// Reads and parses an LLVM IR text file (`.ll`, or gzipped `.ll.gz`). A file that
/// cannot be opened answers `ILKIT_STATUS_IO`; one that does not parse answers
/// `ILKIT_STATUS_PARSE` with file, line and column in the last error.
///
/// Thread safety: any threads at once (a large module is parsed on a thread pool).
///
/// # Safety
/// `path` must be NULL or NUL-terminated; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_module_from_ll(
    path: *const c_char,
    out: *mut *mut IlkitModule,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let path = unsafe { input_path(path) }?;
        let module = Module::from_ll_file(&path).map_err(Failure::parse)?;
        let name = path.display().to_string();
        // SAFETY: checked above.
        unsafe { give(out, IlkitModule { module, name }) }
    })
}

/// The module's lazy call graph (LLVM's `LazyCallGraph`, RefSCCs built): names per node
/// (one node per function, module order; [`ilkit_result_name`]), `ILKIT_ARRAY_DEFINED`,
/// `ILKIT_ARRAY_SCC_LABEL` (`ILKIT_NONE` for a node in no RefSCC), the edges
/// (`ILKIT_ARRAY_SUCC_STARTS` / `ILKIT_ARRAY_SUCC_NODES`, `ILKIT_ARRAY_EDGE_IS_CALL`),
/// `ILKIT_ARRAY_SCC_STARTS` / `ILKIT_ARRAY_SCC_NODES` (every call SCC, RefSCCs in
/// post-order and the SCCs of each in post-order: callees first, what
/// `opt -passes=print-lcg` prints) and `ILKIT_ARRAY_REFSCC_STARTS` (RefSCC `r` holds
/// SCCs `starts[r] .. starts[r + 1] - 1`).
///
/// Thread safety: any threads at once on the same module, but not during
/// [`ilkit_module_free`] of it.
///
/// # Safety
/// `module` must not be freed during the call; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_module_call_graph(
    module: *const IlkitModule,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let m = unsafe { handles::get(module) }?;
        let cg = flat::call_graph(&m.module, &m.name);
        let r = IlkitResult {
            names: cg.names,
            ..IlkitResult::default()
        }
        .sccs(cg.scc)
        .with(IlkitArray::RefsccStarts, cg.refscc_starts)
        .with(IlkitArray::Defined, cg.defined)
        .with(IlkitArray::SuccStarts, cg.edges.starts)
        .with(IlkitArray::SuccNodes, cg.edges.values)
        .with(IlkitArray::EdgeIsCall, cg.edge_is_call);
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// The control-flow graph of every function defined in the module, in module order.
///
/// Thread safety: as [`ilkit_module_call_graph`].
///
/// # Safety
/// `module` must not be freed during the call; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_module_cfgs(
    module: *const IlkitModule,
    out: *mut *mut IlkitCfgs,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let m = unsafe { handles::get(module) }?;
        let cfgs = IlkitCfgs::new(Cfg::from_llvm_module(&m.module));
        // SAFETY: checked above.
        unsafe { give(out, cfgs) }
    })
}

/// Frees a module. NULL does nothing; a handle that is not a live module answers
/// `ILKIT_STATUS_BAD_HANDLE`.
///
/// Thread safety: no other call may use the module during or after this one.
///
/// # Safety
/// No other thread may use `module` during the call.
#[no_mangle]
pub unsafe extern "C" fn ilkit_module_free(module: *mut IlkitModule) -> IlkitStatus {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(module) })
}

// ---------------------------------------------------------------------------------------
// Control-flow graphs
// ---------------------------------------------------------------------------------------

/// Reads a PTX file (or gzipped `.ptx.gz`) into one control-flow graph per function.
/// Errors as [`ilkit_module_from_ll`].
///
/// Thread safety: any threads at once.
///
/// # Safety
/// `path` must be NULL or NUL-terminated; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_cfgs_from_ptx(
    path: *const c_char,
    out: *mut *mut IlkitCfgs,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let path = unsafe { input_path(path) }?;
        let cfgs = Cfg::from_ptx_file(&path).map_err(Failure::parse)?;
        // SAFETY: checked above.
        unsafe { give(out, IlkitCfgs::new(cfgs)) }
    })
}

/// Reads an LLVM IR file into one control-flow graph per defined function (the same as
/// [`ilkit_module_from_ll`] then [`ilkit_module_cfgs`]).
///
/// Thread safety: any threads at once.
///
/// # Safety
/// `path` must be NULL or NUL-terminated; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_cfgs_from_ll(
    path: *const c_char,
    out: *mut *mut IlkitCfgs,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let path = unsafe { input_path(path) }?;
        let module = Module::from_ll_file(&path).map_err(Failure::parse)?;
        // SAFETY: checked above.
        unsafe { give(out, IlkitCfgs::new(Cfg::from_llvm_module(&module))) }
    })
}

/// Number of functions (CFGs).
///
/// Thread safety: any threads at once on the same handle, but not during
/// [`ilkit_cfgs_free`] of it.
///
/// # Safety
/// `cfgs` must not be freed during the call; `count` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_cfgs_count(
    cfgs: *const IlkitCfgs,
    count: *mut usize,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let c = unsafe { handles::get(cfgs) }?;
        // SAFETY: the caller's contract.
        unsafe { put(count, c.cfgs.len(), "count") }
    })
}

/// The name of function `index`, NUL-terminated (see [`ilkit_result_name`]), valid
/// until the handle is freed.
///
/// Thread safety: as [`ilkit_cfgs_count`].
///
/// # Safety
/// `cfgs` must not be freed during the call; `name` and `len` must be valid for one
/// write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_cfgs_name(
    cfgs: *const IlkitCfgs,
    index: usize,
    name: *mut *const c_char,
    len: *mut usize,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let c = unsafe { handles::get(cfgs) }?;
        names_get(&c.names, index, name, len)
    })
}

/// Every analysis of function `index`'s CFG, as the Rust API's `Cfg::analyze`,
/// `Cfg::dominance_frontiers` and `Cfg::post_dominators` compute them: block names
/// ([`ilkit_result_name`]), `ILKIT_ARRAY_ENTRY`, `ILKIT_ARRAY_SUCC_STARTS` /
/// `ILKIT_ARRAY_SUCC_NODES`, `ILKIT_ARRAY_RPO`, the dominators' arrays
/// ([`ilkit_graph_dominators`]), the frontiers', the post-dominators' and the loops'.
///
/// Thread safety: as [`ilkit_cfgs_count`].
///
/// # Safety
/// `cfgs` must not be freed during the call; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_cfgs_analyze(
    cfgs: *const IlkitCfgs,
    index: usize,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let c = unsafe { handles::get(cfgs) }?;
        let cfg = c.cfgs.get(index).ok_or_else(|| {
            Failure::new(
                IlkitStatus::OutOfRange,
                format!("function {index} of {}", c.cfgs.len()),
            )
        })?;
        let a = flat::analyze_cfg(cfg);
        let r = IlkitResult {
            names: a.block_names,
            ..IlkitResult::default()
        }
        .with(IlkitArray::Entry, vec![a.entry])
        .with(IlkitArray::SuccStarts, a.succ.starts)
        .with(IlkitArray::SuccNodes, a.succ.values)
        .with(IlkitArray::Rpo, a.rpo)
        .dominators(a.dom)
        .frontiers(a.frontiers)
        .postdom(a.postdom)
        .loops(a.loops);
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// Frees a CFG handle. NULL does nothing; a handle that is not live answers
/// `ILKIT_STATUS_BAD_HANDLE`.
///
/// Thread safety: no other call may use the handle during or after this one.
///
/// # Safety
/// No other thread may use `cfgs` during the call.
#[no_mangle]
pub unsafe extern "C" fn ilkit_cfgs_free(cfgs: *mut IlkitCfgs) -> IlkitStatus {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(cfgs) })
}

// ---------------------------------------------------------------------------------------
// Front-end IL
// ---------------------------------------------------------------------------------------

/// Imports a clang JSON AST (`clang -Xclang -ast-dump=json`, `.json` or gzipped
/// `.json.gz`) into an IL world. A malformed file answers `ILKIT_STATUS_PARSE` with the
/// byte offset in the last error.
///
/// Thread safety: any threads at once.
///
/// # Safety
/// `path` must be NULL or NUL-terminated; `out` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_il_from_clang_json(
    path: *const c_char,
    out: *mut *mut IlkitIl,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract.
        let path = unsafe { input_path(path) }?;
        let mut il = Il::new();
        clang_json::import_file(&mut il, &path).map_err(|e| Failure {
            message: e.to_string(),
            file: e.file.unwrap_or_default(),
            offset: e.offset,
            ..Failure::new(IlkitStatus::Parse, String::new())
        })?;
        // SAFETY: checked above.
        unsafe { give(out, IlkitIl { il }) }
    })
}

/// Marks what device compilation keeps (keep-in-IL, as clang's device compilation
/// keeps code) in the IL and writes the device IL as an ilkit binary IL file. The
/// result holds the kept routines' names ([`ilkit_result_name`]), the file's bytes
/// ([`ilkit_result_bytes`]) and `ILKIT_ARRAY_KEEP_COUNTS` (entries kept, live entries).
///
/// Thread safety: changes the IL's marks; no other call may use the same IL handle
/// during this one. Different IL handles: any threads at once.
///
/// # Safety
/// `il` must not be used by another thread during the call; `out` must be valid for
/// one write.
#[no_mangle]
pub unsafe extern "C" fn ilkit_il_keep_device(
    il: *mut IlkitIl,
    out: *mut *mut IlkitResult,
) -> IlkitStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out) }?;
        // SAFETY: the caller's contract (exclusive use).
        let h = unsafe { handles::get_mut(il) }?;
        let keep = mark_device(&mut h.il, DeviceOptions::default());
        let names: Names = kept_routine_names(&h.il, &keep)
            .iter()
            .map(String::as_str)
            .collect();
        let bytes = binary_il::write_il(&mut h.il, true)
            .map_err(|e| Failure::new(IlkitStatus::Write, e.to_string()))?;
        let counts = vec![
            u32::try_from(keep.kept).unwrap_or(u32::MAX),
            u32::try_from(keep.live).unwrap_or(u32::MAX),
        ];
        let r = IlkitResult {
            names,
            bytes,
            ..IlkitResult::default()
        }
        .with(IlkitArray::KeepCounts, counts);
        // SAFETY: checked above.
        unsafe { give(out, r) }
    })
}

/// Frees an IL handle. NULL does nothing; a handle that is not live answers
/// `ILKIT_STATUS_BAD_HANDLE`.
///
/// Thread safety: no other call may use the handle during or after this one.
///
/// # Safety
/// No other thread may use `il` during the call.
#[no_mangle]
pub unsafe extern "C" fn ilkit_il_free(il: *mut IlkitIl) -> IlkitStatus {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(il) })
}
