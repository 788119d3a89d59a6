//! The native part of the Python module `ilkit` (`ilkit._native`; the package in
//! `python/python/ilkit` re-exports it): ilkit's graph analyses over numpy CSR arrays,
//! LLVM IR modules and their call graphs, PTX / LLVM IR CFGs with their analyses, device
//! IL from clang JSON ASTs, and the corpus scan.
//!
//! Arrays come in as numpy `uint32` arrays, read in place when they are one-dimensional
//! and contiguous (anything else is converted once, by `ilkit.graph._as_u32`), and go
//! out as numpy arrays that take over the Rust vectors without a copy. The GIL is
//! released around every analysis and file read. Errors become exceptions carrying the
//! Rust error's text: `ilkit.ParseError` (file, line and column or byte offset),
//! `ilkit.GraphError` for malformed arrays, `OSError` for files that cannot be read.
#![deny(missing_docs)]
#![deny(missing_debug_implementations)]

use std::path::PathBuf;

use ilkit::cfg::Cfg as RustCfg;
use ilkit::graph::GraphError as RustGraphError;
use ilkit::il::Il;
use ilkit::import::{binary_il, clang_json};
use ilkit::llvm::Module as RustModule;
use ilkit::scan;
use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};
use ilkit_capi::flat::{self, CsrRef};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    ilkit,
    IlkitError,
    PyValueError,
    "An input ilkit could not use (a subclass of ValueError)."
);
create_exception!(
    ilkit,
    ParseError,
    IlkitError,
    "A file that does not parse; the message has the file and line:column or byte offset."
);
create_exception!(
    ilkit,
    GraphError,
    IlkitError,
    "Malformed CSR arrays or a root that is not a node."
);

/// A numpy `uint32` array.
type U32s<'py> = Bound<'py, PyArray1<u32>>;

fn graph_err(e: RustGraphError) -> PyErr {
    GraphError::new_err(e.to_string())
}

/// The array as a read-only `uint32` view: in place for a contiguous one-dimensional
/// `uint32` array, else converted by `ilkit.graph._as_u32` (which checks the range).
fn u32s<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<PyReadonlyArray1<'py, u32>> {
    if let Ok(a) = obj.cast::<PyArray1<u32>>() {
        if a.is_contiguous() {
            return Ok(a.try_readonly()?);
        }
    }
    let py = obj.py();
    let conv = py
        .import("ilkit.graph")?
        .getattr("_as_u32")?
        .call1((obj, what))?;
    Ok(conv.cast_into::<PyArray1<u32>>()?.try_readonly()?)
}

/// Runs `f` on the checked CSR graph with the GIL released.
fn with_csr<'py, T: Send>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    f: impl FnOnce(&CsrRef<'_>) -> Result<T, RustGraphError> + Send,
) -> PyResult<T> {
    let p = u32s(indptr, "indptr")?;
    let i = u32s(indices, "indices")?;
    let (ps, is) = (p.as_slice()?, i.as_slice()?);
    py.detach(|| {
        let g = CsrRef::new(ps, is)?;
        f(&g)
    })
    .map_err(graph_err)
}

fn arr<'py>(py: Python<'py>, v: Vec<u32>) -> U32s<'py> {
    v.into_pyarray(py)
}

/// Strongly connected components of a graph given as CSR arrays (`indptr` of
/// `num_nodes + 1` offsets, `indices` the successors): one label per node, the
/// component's position in the post-order (sinks first: for every edge `u -> v`,
/// `label[v] <= label[u]`). ilkit's iterative Tarjan, roots `0..num_nodes` in order.
#[pyfunction]
fn scc<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
) -> PyResult<U32s<'py>> {
    let label = with_csr(py, indptr, indices, |g| Ok(flat::sccs(g).label))?;
    Ok(arr(py, label))
}

/// The SCCs with their post-order: `(label, starts, nodes)`, component `k` being
/// `nodes[starts[k]:starts[k + 1]]` (see `scc` for `label`).
#[pyfunction]
fn scc_components<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
) -> PyResult<(U32s<'py>, U32s<'py>, U32s<'py>)> {
    let s = with_csr(py, indptr, indices, |g| Ok(flat::sccs(g)))?;
    Ok((arr(py, s.label), arr(py, s.starts), arr(py, s.nodes)))
}

/// Immediate dominators from `root`: one per node, the root its own, `NONE`
/// (`2**32 - 1`) for a node unreachable from the root. Semi-NCA.
#[pyfunction]
fn idom<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    root: u32,
) -> PyResult<U32s<'py>> {
    let d = with_csr(py, indptr, indices, |g| {
        let g = flat::BiGraph::new(*g, root)?;
        Ok(flat::dominators(&g).idom)
    })?;
    Ok(arr(py, d))
}

/// Immediate dominators and dominator-tree levels from `root`: `(idom, level)`, level
/// 0 at the root and `NONE` for unreachable nodes.
#[pyfunction]
fn dominators<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    root: u32,
) -> PyResult<(U32s<'py>, U32s<'py>)> {
    let d = with_csr(py, indptr, indices, |g| {
        let g = flat::BiGraph::new(*g, root)?;
        Ok(flat::dominators(&g))
    })?;
    Ok((arr(py, d.idom), arr(py, d.level)))
}

/// Dominance frontiers from `root` as CSR: `(starts, nodes)`, node `v`'s frontier being
/// `nodes[starts[v]:starts[v + 1]]` (empty for unreachable nodes).
#[pyfunction]
fn dominance_frontiers<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    root: u32,
) -> PyResult<(U32s<'py>, U32s<'py>)> {
    let f = with_csr(py, indptr, indices, |g| {
        let g = flat::BiGraph::new(*g, root)?;
        Ok(flat::dominance_frontiers(&g))
    })?;
    Ok((arr(py, f.starts), arr(py, f.values)))
}

/// The post-dominator tree as LLVM builds it (a virtual exit above every exit and
/// infinite loop): `(ipdom, level, roots)`; `ipdom` is `VIRTUAL_EXIT` (`2**32 - 2`)
/// for the tree's roots and nodes whose paths lead to different roots.
#[pyfunction]
fn post_dominators<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
) -> PyResult<(U32s<'py>, U32s<'py>, U32s<'py>)> {
    let p = with_csr(py, indptr, indices, |g| {
        let g = flat::BiGraph::new(*g, 0)?;
        Ok(flat::post_dominators(&g))
    })?;
    Ok((arr(py, p.ipdom), arr(py, p.level), arr(py, p.roots)))
}

/// The natural loops of a graph entered at `root`, as a dict of arrays: per loop
/// `header`, `parent` (`NONE` at top level), `depth`, `block_starts` / `blocks` (CSR);
/// per block `block_loop` (innermost loop or `NONE`), `block_depth`, `block_header`.
#[pyfunction]
fn loops<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    root: u32,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let l = with_csr(py, indptr, indices, |g| flat::loops(g, root))?;
    loops_dict(py, l)
}

fn loops_dict(py: Python<'_>, l: flat::Loops) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item("header", arr(py, l.header))?;
    d.set_item("parent", arr(py, l.parent))?;
    d.set_item("depth", arr(py, l.depth))?;
    d.set_item("block_starts", arr(py, l.blocks.starts))?;
    d.set_item("blocks", arr(py, l.blocks.values))?;
    d.set_item("block_loop", arr(py, l.block_loop))?;
    d.set_item("block_depth", arr(py, l.block_depth))?;
    d.set_item("block_header", arr(py, l.block_header))?;
    Ok(d)
}

fn parse_err(e: ilkit::import::ParseError) -> PyErr {
    ParseError::new_err(e.to_string())
}

/// Fails with the OS error (`FileNotFoundError`, ...) when `path` cannot be opened.
fn readable(path: &std::path::Path) -> PyResult<()> {
    std::fs::File::open(path).map(drop).map_err(PyErr::from)
}

/// An LLVM IR module (`Module.from_ll(path)`).
#[pyclass(frozen, module = "ilkit")]
#[derive(Debug)]
struct Module {
    module: RustModule,
    path: String,
}

#[pymethods]
impl Module {
    /// Reads and parses a `.ll` file (or gzipped `.ll.gz`).
    #[staticmethod]
    fn from_ll(py: Python<'_>, path: PathBuf) -> PyResult<Module> {
        readable(&path)?;
        let module = py
            .detach(|| RustModule::from_ll_file(&path))
            .map_err(parse_err)?;
        Ok(Module {
            module,
            path: path.display().to_string(),
        })
    }

    /// The file the module was read from.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// The lazy call graph with its SCCs and RefSCCs (built here).
    fn call_graph(&self, py: Python<'_>) -> CallGraph {
        CallGraph {
            g: py.detach(|| flat::call_graph(&self.module, &self.path)),
        }
    }

    /// The control-flow graph of every defined function, with its analyses.
    fn cfgs(&self, py: Python<'_>) -> Vec<Cfg> {
        let cfgs = py.detach(|| analyze_all(RustCfg::from_llvm_module(&self.module)));
        cfgs.into_iter().map(|a| Cfg { a }).collect()
    }

    fn __repr__(&self) -> String {
        format!("<ilkit.Module {}>", self.path)
    }
}

fn analyze_all(cfgs: Vec<RustCfg>) -> Vec<flat::CfgAnalysis> {
    cfgs.iter().map(flat::analyze_cfg).collect()
}

/// A module's lazy call graph (LLVM's `LazyCallGraph`): one node per function (module
/// order), SCCs and RefSCCs in post-order (callees first).
#[pyclass(frozen, module = "ilkit")]
#[derive(Debug)]
struct CallGraph {
    g: flat::CallGraph,
}

fn copy<'py>(py: Python<'py>, v: &[u32]) -> U32s<'py> {
    PyArray1::from_slice(py, v)
}

#[pymethods]
impl CallGraph {
    /// Number of nodes (functions, declarations included).
    #[getter]
    fn num_nodes(&self) -> usize {
        self.g.names.len()
    }

    /// Each node's function name.
    #[getter]
    fn names(&self) -> Vec<&str> {
        self.g.names.iter().collect()
    }

    /// Per node: 1 for a definition, 0 for a declaration.
    #[getter]
    fn defined<'py>(&self, py: Python<'py>) -> U32s<'py> {
        copy(py, &self.g.defined)
    }

    /// Per node: its SCC's position in the post-order (`NONE` for a node in no RefSCC).
    #[getter]
    fn scc_label<'py>(&self, py: Python<'py>) -> U32s<'py> {
        copy(py, &self.g.scc.label)
    }

    /// Offsets into `scc_nodes`, one per SCC plus one.
    #[getter]
    fn scc_starts<'py>(&self, py: Python<'py>) -> U32s<'py> {
        copy(py, &self.g.scc.starts)
    }

    /// Nodes grouped by SCC, SCCs in post-order (RefSCC by RefSCC).
    #[getter]
    fn scc_nodes<'py>(&self, py: Python<'py>) -> U32s<'py> {
        copy(py, &self.g.scc.nodes)
    }

    /// Offsets into the SCC list, one per RefSCC plus one.
    #[getter]
    fn refscc_starts<'py>(&self, py: Python<'py>) -> U32s<'py> {
        copy(py, &self.g.refscc_starts)
    }

    /// Edges as CSR over nodes: `(starts, targets, is_call)`, call and ref edges in the
    /// graph's order; `is_call` is 1 for a call edge, 0 for a ref edge.
    fn edges<'py>(&self, py: Python<'py>) -> (U32s<'py>, U32s<'py>, U32s<'py>) {
        (
            copy(py, &self.g.edges.starts),
            copy(py, &self.g.edges.values),
            copy(py, &self.g.edge_is_call),
        )
    }

    /// The call SCCs in post-order, each as its functions' names.
    fn sccs(&self) -> Vec<Vec<&str>> {
        let s = &self.g.scc;
        s.starts
            .windows(2)
            .map(|w| self.scc_names(w[0] as usize, w[1] as usize))
            .collect()
    }

    /// The RefSCCs in post-order, each as its call SCCs (post-order) of names.
    fn refsccs(&self) -> Vec<Vec<Vec<&str>>> {
        let s = &self.g.scc;
        self.g
            .refscc_starts
            .windows(2)
            .map(|r| {
                (r[0] as usize..r[1] as usize)
                    .map(|k| self.scc_names(s.starts[k] as usize, s.starts[k + 1] as usize))
                    .collect()
            })
            .collect()
    }

    fn __len__(&self) -> usize {
        self.g.names.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<ilkit.CallGraph {} nodes, {} SCCs, {} RefSCCs>",
            self.g.names.len(),
            self.g.scc.len(),
            self.g.num_refsccs()
        )
    }
}

impl CallGraph {
    fn scc_names(&self, a: usize, b: usize) -> Vec<&str> {
        self.g.scc.nodes[a..b]
            .iter()
            .map(|&n| self.g.names.get(n as usize).unwrap_or(""))
            .collect()
    }
}

/// One function's control-flow graph with its analyses (RPO, dominators, frontiers,
/// post-dominators, loops), as arrays keyed by block.
#[pyclass(frozen, module = "ilkit")]
#[derive(Debug)]
struct Cfg {
    a: flat::CfgAnalysis,
}

/// `#[pymethods]` for `Cfg`: one getter per array (a copy as a numpy array), then the
/// other methods as given.
macro_rules! cfg_methods {
    ($($(#[$doc:meta])* $name:ident => $($field:ident).+;)* { $($rest:tt)* }) => {
        #[pymethods]
        impl Cfg {
            $(
                $(#[$doc])*
                #[getter]
                fn $name<'py>(&self, py: Python<'py>) -> U32s<'py> {
                    copy(py, &self.a.$($field).+)
                }
            )*
            $($rest)*
        }
    };
}

cfg_methods! {
    /// Offsets into `succ_nodes`, one per block plus one.
    succ_starts => succ.starts;
    /// Successors of each block, in LLVM's edge order.
    succ_nodes => succ.values;
    /// The reachable blocks in reverse post-order (ptxas' traversal).
    rpo => rpo;
    /// Per block: its immediate dominator (the entry its own, `NONE` if unreachable).
    idom => dom.idom;
    /// Per block: its depth in the dominator tree (`NONE` if unreachable).
    dom_level => dom.level;
    /// Offsets into `frontier_nodes`, one per block plus one.
    frontier_starts => frontiers.starts;
    /// Dominance frontiers, block by block.
    frontier_nodes => frontiers.values;
    /// Per block: its immediate post-dominator, or `VIRTUAL_EXIT`.
    ipdom => postdom.ipdom;
    /// Per block: its depth in the post-dominator tree.
    pdom_level => postdom.level;
    /// The post-dominator tree's roots, in LLVM's order.
    pdom_roots => postdom.roots;
    /// Per loop (outer before inner): its header.
    loop_header => loops.header;
    /// Per loop: the enclosing loop, `NONE` at top level.
    loop_parent => loops.parent;
    /// Per loop: its nesting depth (1 at top level).
    loop_depth => loops.depth;
    /// Offsets into `loop_blocks`, one per loop plus one.
    loop_block_starts => loops.blocks.starts;
    /// Each loop's blocks, header first.
    loop_blocks => loops.blocks.values;
    /// Per block: its innermost loop, `NONE` outside every loop.
    block_loop => loops.block_loop;
    /// Per block: the depth of its innermost loop, 0 outside every loop.
    block_loop_depth => loops.block_depth;
    /// Per block: the header of its innermost loop, `NONE` outside every loop.
    block_loop_header => loops.block_header;
{
    /// The function's name.
    #[getter]
    fn name(&self) -> &str {
        &self.a.name
    }

    /// Each block's name as printed (source label or LLVM name, `bixN` if unnamed).
    #[getter]
    fn block_names(&self) -> Vec<&str> {
        self.a.block_names.iter().collect()
    }

    /// Number of blocks.
    #[getter]
    fn num_blocks(&self) -> usize {
        self.a.block_names.len()
    }

    /// The entry block (`NONE` for a CFG without blocks).
    #[getter]
    fn entry(&self) -> u32 {
        self.a.entry
    }

    fn __len__(&self) -> usize {
        self.a.block_names.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<ilkit.Cfg {}: {} blocks, {} loops>",
            self.a.name,
            self.a.block_names.len(),
            self.a.loops.header.len()
        )
    }
}
}

/// One CFG per function of a PTX file (or gzipped `.ptx.gz`), with its analyses.
#[pyfunction]
fn cfgs_from_ptx(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Cfg>> {
    readable(&path)?;
    let cfgs = py
        .detach(|| RustCfg::from_ptx_file(&path).map(analyze_all))
        .map_err(parse_err)?;
    Ok(cfgs.into_iter().map(|a| Cfg { a }).collect())
}

/// One CFG per defined function of an LLVM IR file (or gzipped `.ll.gz`), with its
/// analyses.
#[pyfunction]
fn cfgs_from_ll(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Cfg>> {
    readable(&path)?;
    let cfgs = py
        .detach(|| {
            RustModule::from_ll_file(&path).map(|m| analyze_all(RustCfg::from_llvm_module(&m)))
        })
        .map_err(parse_err)?;
    Ok(cfgs.into_iter().map(|a| Cfg { a }).collect())
}

/// Imports a clang JSON AST (`clang -Xclang -ast-dump=json`, `.json` or gzipped
/// `.json.gz`), marks what device compilation keeps and writes the device IL, as the C
/// ABI's `ilkit_il_from_clang_json` and `ilkit_il_keep_device` do. Returns a dict:
/// `kept` (entries kept in IL), `live` (live entries), `routines` (the kept routines'
/// names) and `il` (the ilkit binary IL file, `bytes`).
#[pyfunction]
fn device_il(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    readable(&path)?;
    let (kept, live, names, bytes) = py.detach(|| {
        let mut il = Il::new();
        clang_json::import_file(&mut il, &path).map_err(|e| ParseError::new_err(e.to_string()))?;
        let keep = mark_device(&mut il, DeviceOptions::default());
        let names = kept_routine_names(&il, &keep);
        let bytes =
            binary_il::write_il(&mut il, true).map_err(|e| IlkitError::new_err(e.to_string()))?;
        Ok::<_, PyErr>((keep.kept, keep.live, names, bytes))
    })?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("kept", kept)?;
    d.set_item("live", live)?;
    d.set_item("routines", names)?;
    d.set_item("il", pyo3::types::PyBytes::new(py, &bytes))?;
    Ok(d)
}

/// Scans files and folders as `ilkit scan --json` does (`analyses`: a comma-separated
/// list of `cfg`, `callgraph`, `cgscc`, `il` or `all`; `jobs` 0 = one per core) and
/// returns one JSON record per file, in input order (`ilkit.scan` parses them).
#[pyfunction]
#[pyo3(signature = (paths, jobs = 0, analyses = "all"))]
fn scan_json(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    jobs: usize,
    analyses: &str,
) -> PyResult<Vec<String>> {
    let analyses: scan::Analyses = analyses.parse().map_err(PyValueError::new_err)?;
    let opts = scan::ScanOptions {
        analyses,
        jobs,
        ..scan::ScanOptions::default()
    };
    Ok(py.detach(|| {
        let inputs = scan::collect_inputs(&paths).inputs;
        scan::scan(&inputs, &opts, &scan::NoProgress)
            .iter()
            .map(scan::record_json)
            .collect()
    }))
}

/// A no-op taking a CSR graph: measures what a call costs beyond its analysis.
#[pyfunction]
fn _noop(indptr: &Bound<'_, PyAny>, indices: &Bound<'_, PyAny>) -> PyResult<usize> {
    let p = u32s(indptr, "indptr")?;
    let i = u32s(indices, "indices")?;
    Ok(p.len() + i.len())
}

/// Mean nanoseconds of one Rust call of `what` (`"scc"` or `"idom"`) on the CSR graph,
/// over `iters` calls made inside Rust (array checks included, no Python in the
/// loop): the baseline the benchmarks subtract to get the Python call's overhead.
#[pyfunction]
fn _rust_ns_per_call(
    py: Python<'_>,
    what: &str,
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    root: u32,
    iters: u32,
) -> PyResult<f64> {
    let p = u32s(indptr, "indptr")?;
    let i = u32s(indices, "indices")?;
    let (ps, is) = (p.as_slice()?, i.as_slice()?);
    let idom = match what {
        "scc" => false,
        "idom" => true,
        _ => return Err(PyValueError::new_err("what is scc or idom")),
    };
    py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..iters {
            let g = CsrRef::new(std::hint::black_box(ps), is)?;
            if idom {
                let g = flat::BiGraph::new(g, root)?;
                std::hint::black_box(flat::dominators(&g).idom);
            } else {
                std::hint::black_box(flat::sccs(&g).label);
            }
        }
        Ok(start.elapsed().as_nanos() as f64 / iters.max(1) as f64)
    })
    .map_err(graph_err)
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("IlkitError", py.get_type::<IlkitError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("GraphError", py.get_type::<GraphError>())?;
    m.add("NONE", flat::NONE)?;
    m.add("VIRTUAL_EXIT", flat::VIRTUAL_EXIT)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Module>()?;
    m.add_class::<CallGraph>()?;
    m.add_class::<Cfg>()?;
    for f in [
        wrap_pyfunction!(scc, m)?,
        wrap_pyfunction!(scc_components, m)?,
        wrap_pyfunction!(idom, m)?,
        wrap_pyfunction!(dominators, m)?,
        wrap_pyfunction!(dominance_frontiers, m)?,
        wrap_pyfunction!(post_dominators, m)?,
        wrap_pyfunction!(loops, m)?,
        wrap_pyfunction!(cfgs_from_ptx, m)?,
        wrap_pyfunction!(cfgs_from_ll, m)?,
        wrap_pyfunction!(device_il, m)?,
        wrap_pyfunction!(scan_json, m)?,
        wrap_pyfunction!(_noop, m)?,
        wrap_pyfunction!(_rust_ns_per_call, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
