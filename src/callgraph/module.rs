//! Call-graph edges of an LLVM IR module, by LLVM 14's rules
//! (`LazyCallGraph::LazyCallGraph` and `Node::populateSlow`):
//!
//! - a call edge for a call/invoke/callbr whose callee operand *is* a defined function;
//!   the first use decides and call edges come before ref edges;
//! - ref edges from the constant operands of every instruction, walked LIFO with a
//!   per-function visited set (a global variable's operand is its initializer, an
//!   alias's its aliasee; `blockaddress` gives nothing);
//! - an implicit ref edge to every defined library function not already visited;
//! - roots: defined non-local functions, then non-local aliases of functions, then
//!   functions reached from global initializers by the same LIFO walk.

use super::{Edge, EdgeKind, EdgeSource, LazyCallGraph, NodeIdx};
use crate::hash::FixedSet;
use crate::idx::IndexVec;
use crate::llvm::libcalls::{is_gpu_target, is_lib_function, size_t_bits};
use crate::llvm::{
    ConstIdx, ConstKind, ConstPool, FuncIdx, Module, OperandRef, SigIdx, SymbolDef, SymbolIdx,
};

/// The call-graph node of function `f` of the module the graph was built from (node
/// `n` is function `n`, module order): where the module model's [`FuncIdx`] becomes a
/// [`NodeIdx`].
#[inline]
pub fn node_of_function(f: FuncIdx) -> NodeIdx {
    NodeIdx::from_raw(f.raw())
}

/// The module function of call-graph node `n` (the inverse of [`node_of_function`]).
#[inline]
pub fn function_of_node(n: NodeIdx) -> FuncIdx {
    FuncIdx::from_raw(n.raw())
}

use node_of_function as node;

/// What the edge source keeps of a module: the constant pool and, per symbol, what
/// LLVM's `operand_values()` of that global are.
#[derive(Clone, Debug)]
struct ModuleEdges {
    consts: ConstPool,
    /// Per symbol: the function node (`NONE` if not a function).
    sym_node: IndexVec<SymbolIdx, NodeIdx>,
    /// Per symbol: the operand constant of a variable/alias/ifunc (`NONE` if none).
    sym_operand: IndexVec<SymbolIdx, ConstIdx>,
    defined: IndexVec<NodeIdx, bool>,
    /// Function type per function.
    signature: IndexVec<NodeIdx, SigIdx>,
    refs: IndexVec<NodeIdx, Vec<OperandRef>>,
    libs: Vec<NodeIdx>,
}

impl ModuleEdges {
    fn new(m: &Module) -> Self {
        let nsym = m.num_symbols();
        let mut sym_node = IndexVec::from_elem_n(NodeIdx::NONE, nsym);
        let mut sym_operand = IndexVec::from_elem_n(ConstIdx::NONE, nsym);
        for s in sym_node.indices() {
            match m.symbol_def(s) {
                SymbolDef::Function(f) => sym_node[s] = node(f),
                SymbolDef::Global(g) => {
                    sym_operand[s] = m.globals()[g].initializer.unwrap_or(ConstIdx::NONE)
                }
                SymbolDef::Alias(a) => {
                    sym_operand[s] = m.aliases()[a].target.unwrap_or(ConstIdx::NONE)
                }
                SymbolDef::IFunc(a) => {
                    sym_operand[s] = m.ifuncs()[a].target.unwrap_or(ConstIdx::NONE)
                }
                SymbolDef::Undefined => {}
            }
        }
        let functions = m.functions();
        ModuleEdges {
            consts: m.consts().clone(),
            sym_node,
            sym_operand,
            defined: functions.iter().map(|f| f.is_definition).collect(),
            signature: functions.iter().map(|f| f.signature).collect(),
            refs: functions.iter().map(|f| f.operand_refs.clone()).collect(),
            libs: Vec::new(),
        }
    }

    /// The function node a constant is, if it is one.
    fn const_function(&self, c: ConstIdx) -> Option<NodeIdx> {
        match self.consts.kind(c) {
            ConstKind::Symbol(s) => self.sym_node[s].some(),
            ConstKind::Expr => None,
        }
    }
}

/// LLVM's visited set over constants: functions by node, other constants by id.
/// Hash sets, so populating one function costs time proportional to its body.
#[derive(Default)]
struct Visited {
    consts: FixedSet<ConstIdx>,
    funcs: FixedSet<NodeIdx>,
}

impl Visited {
    /// Inserts `c`; true if it was new.
    fn insert(&mut self, e: &ModuleEdges, c: ConstIdx) -> bool {
        match e.const_function(c) {
            Some(f) => self.funcs.insert(f),
            None => self.consts.insert(c),
        }
    }
}

/// LLVM's `visitReferences`: pops the worklist LIFO, reports defined functions, pushes
/// the operands of everything else.
fn visit_references(
    e: &ModuleEdges,
    worklist: &mut Vec<ConstIdx>,
    visited: &mut Visited,
    mut callback: impl FnMut(NodeIdx),
) {
    while let Some(c) = worklist.pop() {
        if let Some(f) = e.const_function(c) {
            if e.defined[f] {
                callback(f);
            }
            continue;
        }
        match e.consts.kind(c) {
            ConstKind::Symbol(s) => {
                let op = e.sym_operand[s];
                if !op.is_none() && visited.insert(e, op) {
                    worklist.push(op);
                }
            }
            ConstKind::Expr => {
                for &op in e.consts.operands_of(c) {
                    if visited.insert(e, op) {
                        worklist.push(op);
                    }
                }
            }
        }
    }
}

/// Per symbol of `m`: the defined functions LLVM's `visitReferences` reaches from the
/// symbol's operand (a global variable's initializer, an alias's aliasee, an ifunc's
/// resolver), in the walk's order; empty for functions and declarations. What a pass
/// that recomputes a function's edges from its body (LLVM's
/// `updateCGAndAnalysisManagerForPass`) adds as ref edges for each global it mentions.
pub fn symbol_function_refs(m: &Module) -> IndexVec<SymbolIdx, Vec<NodeIdx>> {
    let e = ModuleEdges::new(m);
    let mut out = IndexVec::from_elem_n(Vec::new(), m.num_symbols());
    let mut worklist = Vec::new();
    for s in e.sym_operand.indices() {
        let op = e.sym_operand[s];
        if op.is_none() {
            continue;
        }
        let mut visited = Visited::default();
        visited.insert(&e, op);
        worklist.push(op);
        let found = &mut out[s];
        visit_references(&e, &mut worklist, &mut visited, |f| found.push(f));
    }
    out
}

impl EdgeSource for ModuleEdges {
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>) {
        let mut visited = Visited::default();
        let mut callees = FixedSet::default();
        let mut worklist = Vec::new();
        let mut has_edge = FixedSet::default();
        let mut push = |out: &mut Vec<Edge>, t: NodeIdx, k: EdgeKind| {
            if has_edge.insert(t) {
                out.push(Edge { target: t, kind: k });
            }
        };
        for r in &self.refs[node] {
            match *r {
                OperandRef::DirectCall(s, fn_type) => {
                    let f = self.sym_node[s];
                    // getCalledFunction: the callee operand is a function of the call's type
                    if !f.is_none()
                        && self.defined[f]
                        && self.signature[f] == fn_type
                        && callees.insert(f)
                    {
                        visited.funcs.insert(f);
                        push(out, f, EdgeKind::Call);
                    }
                }
                OperandRef::Const(c) => {
                    if visited.insert(self, c) {
                        worklist.push(c);
                    }
                }
            }
        }
        visit_references(self, &mut worklist, &mut visited, |f| {
            push(out, f, EdgeKind::Ref)
        });
        for &l in &self.libs {
            if !visited.funcs.contains(&l) {
                push(out, l, EdgeKind::Ref);
            }
        }
    }
}

/// Builds the lazy call graph of a module (nothing is populated yet).
/// `module_id` is what the printers show (opt shows the file name as given).
pub fn from_module(m: &Module, module_id: &str) -> LazyCallGraph {
    let mut e = ModuleEdges::new(m);
    let gpu = is_gpu_target(m.target_triple());
    let size_t = size_t_bits(m.target_triple());
    let mut entry = Vec::new();
    let mut in_entry = FixedSet::default();
    let mut libs = Vec::new();
    for (i, f) in m.functions().iter_enumerated() {
        if !f.is_definition {
            continue;
        }
        let lib = if gpu {
            f.name == "__nvvm_reflect"
        } else {
            is_lib_function(&f.name, m.signature(f.signature), size_t)
        };
        if lib {
            libs.push(node(i));
        }
        if f.linkage.is_local() {
            continue;
        }
        add_edge_node(&mut entry, &mut in_entry, node(i));
    }
    for a in m.aliases().iter() {
        if a.linkage.is_local() {
            continue;
        }
        if let Some(f) = a.target.and_then(|c| e.const_function(c)) {
            if e.defined[f] {
                add_edge_node(&mut entry, &mut in_entry, f);
            }
        }
    }
    let mut visited = Visited::default();
    let mut worklist = Vec::new();
    for g in m.globals().iter() {
        if let Some(c) = g.initializer {
            if visited.insert(&e, c) {
                worklist.push(c);
            }
        }
    }
    visit_references(&e, &mut worklist, &mut visited, |f| {
        add_edge_node(&mut entry, &mut in_entry, f)
    });
    e.libs = libs.clone();
    let names = m.functions().iter().map(|f| f.name.clone()).collect();
    let defined = m.functions().iter().map(|f| f.is_definition).collect();
    // A module has fewer than 2^31 functions (its reader caps what it allocates), and
    // every entry and library node is one of its functions.
    LazyCallGraph::new(module_id, names, defined, entry, libs, Box::new(e))
        .expect("a module's call graph satisfies LazyCallGraph::new")
}

fn add_edge_node(entry: &mut Vec<NodeIdx>, seen: &mut FixedSet<NodeIdx>, n: NodeIdx) {
    if seen.insert(n) {
        entry.push(n);
    }
}
