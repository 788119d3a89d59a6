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
use crate::graph::NONE;
use crate::import::llvm_ir::{ConstId, ConstKind, ConstPool, Module, OperandRef, SymbolDef};
use ahash::AHashSet;

/// What a constant's `operand_values()` are when it is a symbol.
#[derive(Clone, Debug)]
struct ModuleEdges {
    consts: ConstPool,
    /// Per symbol: the function node (`NONE` if not a function).
    sym_node: Vec<NodeIdx>,
    /// Per symbol: the operand constant of a variable/alias/ifunc (`NONE` if none).
    sym_operand: Vec<ConstId>,
    defined: Vec<bool>,
    /// Function type per function (index into `Module::signatures`).
    signature: Vec<u32>,
    refs: Vec<Vec<OperandRef>>,
    libs: Vec<NodeIdx>,
}

impl ModuleEdges {
    fn new(m: &Module) -> Self {
        let nsym = m.symbols.len();
        let mut sym_node = vec![NONE; nsym];
        let mut sym_operand = vec![NONE; nsym];
        for (s, d) in m.symbol_defs.iter().enumerate() {
            match *d {
                SymbolDef::Function(f) => sym_node[s] = f,
                SymbolDef::Global(g) => {
                    sym_operand[s] = m.globals[g as usize].initializer.unwrap_or(NONE)
                }
                SymbolDef::Alias(a) => {
                    sym_operand[s] = m.aliases[a as usize].target.unwrap_or(NONE)
                }
                SymbolDef::IFunc(a) => sym_operand[s] = m.ifuncs[a as usize].target.unwrap_or(NONE),
                SymbolDef::Undefined => {}
            }
        }
        ModuleEdges {
            consts: m.consts.clone(),
            sym_node,
            sym_operand,
            defined: m.functions.iter().map(|f| f.is_definition).collect(),
            signature: m.functions.iter().map(|f| f.signature).collect(),
            refs: m.functions.iter().map(|f| f.operand_refs.clone()).collect(),
            libs: Vec::new(),
        }
    }

    /// The function node a constant is, if it is one.
    fn const_function(&self, c: ConstId) -> Option<NodeIdx> {
        match self.consts.kinds[c as usize] {
            ConstKind::Symbol(s) => Some(self.sym_node[s as usize]).filter(|&n| n != NONE),
            ConstKind::Expr => None,
        }
    }
}

/// LLVM's visited set over constants: functions by node, other constants by id.
/// Hash sets, so populating one function costs time proportional to its body.
#[derive(Default)]
struct Visited {
    consts: AHashSet<ConstId>,
    funcs: AHashSet<NodeIdx>,
}

impl Visited {
    /// Inserts `c`; true if it was new.
    fn insert(&mut self, e: &ModuleEdges, c: ConstId) -> bool {
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
    worklist: &mut Vec<ConstId>,
    visited: &mut Visited,
    mut callback: impl FnMut(NodeIdx),
) {
    while let Some(c) = worklist.pop() {
        if let Some(f) = e.const_function(c) {
            if e.defined[f as usize] {
                callback(f);
            }
            continue;
        }
        match e.consts.kinds[c as usize] {
            ConstKind::Symbol(s) => {
                let op = e.sym_operand[s as usize];
                if op != NONE && visited.insert(e, op) {
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

impl EdgeSource for ModuleEdges {
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>) {
        let mut visited = Visited::default();
        let mut callees = AHashSet::new();
        let mut worklist = Vec::new();
        let mut has_edge = AHashSet::new();
        let mut push = |out: &mut Vec<Edge>, t: NodeIdx, k: EdgeKind| {
            if has_edge.insert(t) {
                out.push(Edge { target: t, kind: k });
            }
        };
        for r in &self.refs[node as usize] {
            match *r {
                OperandRef::DirectCall(s, fn_type) => {
                    let f = self.sym_node[s as usize];
                    // getCalledFunction: the callee operand is a function of the call's type
                    if f != NONE
                        && self.defined[f as usize]
                        && self.signature[f as usize] == fn_type
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

/// Builds the lazy call graph of a parsed module (nothing is populated yet).
/// `module_id` is what the printers show (opt shows the file name as given).
pub fn from_module(m: &Module, module_id: &str) -> LazyCallGraph {
    let mut e = ModuleEdges::new(m);
    let nvptx_like = m
        .target_triple
        .as_deref()
        .is_some_and(|t| t.starts_with("nvptx") || t.starts_with("amdgcn"));
    let mut entry = Vec::new();
    let mut in_entry = AHashSet::new();
    let mut libs = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        if !f.is_definition {
            continue;
        }
        let lib = if nvptx_like {
            f.name == "__nvvm_reflect"
        } else {
            is_known_lib_function(&f.name)
        };
        if lib {
            libs.push(i as NodeIdx);
        }
        if f.linkage.is_local() {
            continue;
        }
        add_edge_node(&mut entry, &mut in_entry, i as NodeIdx);
    }
    for a in &m.aliases {
        if a.linkage.is_local() {
            continue;
        }
        if let Some(f) = a.target.and_then(|c| e.const_function(c)) {
            if e.defined[f as usize] {
                add_edge_node(&mut entry, &mut in_entry, f);
            }
        }
    }
    let mut visited = Visited::default();
    let mut worklist = Vec::new();
    for g in &m.globals {
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
    let names = m.functions.iter().map(|f| f.name.clone()).collect();
    let defined = m.functions.iter().map(|f| f.is_definition).collect();
    LazyCallGraph::new(module_id, names, defined, entry, libs, Box::new(e))
}

fn add_edge_node(entry: &mut Vec<NodeIdx>, seen: &mut AHashSet<NodeIdx>, n: NodeIdx) {
    if seen.insert(n) {
        entry.push(n);
    }
}

/// Whether `name` is a library function LLVM's `TargetLibraryInfo` knows (a common
/// subset of `TargetLibraryInfo.def`; the prototype check LLVM also does is not
/// modelled).
pub fn is_known_lib_function(name: &str) -> bool {
    LIB_FUNCTIONS.binary_search(&name).is_ok()
}

/// Sorted.
static LIB_FUNCTIONS: &[&str] = &[
    "__cxa_atexit",
    "__memcpy_chk",
    "__memmove_chk",
    "__memset_chk",
    "__sprintf_chk",
    "__stpcpy_chk",
    "__strcpy_chk",
    "__strncpy_chk",
    "_exit",
    "abort",
    "abs",
    "access",
    "acos",
    "acosf",
    "asin",
    "asinf",
    "atan",
    "atan2",
    "atan2f",
    "atanf",
    "atexit",
    "atof",
    "atoi",
    "atol",
    "atoll",
    "bcmp",
    "bcopy",
    "bzero",
    "calloc",
    "cbrt",
    "ceil",
    "ceilf",
    "chmod",
    "chown",
    "clearerr",
    "close",
    "copysign",
    "cos",
    "cosf",
    "cosh",
    "exit",
    "exp",
    "exp2",
    "expf",
    "fabs",
    "fabsf",
    "fclose",
    "fdopen",
    "feof",
    "ferror",
    "fflush",
    "ffs",
    "fgetc",
    "fgets",
    "fileno",
    "floor",
    "floorf",
    "fmax",
    "fmin",
    "fmod",
    "fopen",
    "fprintf",
    "fputc",
    "fputs",
    "fread",
    "free",
    "frexp",
    "fscanf",
    "fseek",
    "fseeko",
    "fstat",
    "ftell",
    "ftello",
    "fwrite",
    "getc",
    "getchar",
    "getenv",
    "gets",
    "isascii",
    "isdigit",
    "labs",
    "ldexp",
    "llabs",
    "log",
    "log10",
    "log2",
    "logf",
    "lseek",
    "malloc",
    "memccpy",
    "memchr",
    "memcmp",
    "memcpy",
    "memmove",
    "mempcpy",
    "memrchr",
    "memset",
    "mkdir",
    "open",
    "perror",
    "posix_memalign",
    "pow",
    "powf",
    "printf",
    "putc",
    "putchar",
    "puts",
    "qsort",
    "read",
    "realloc",
    "reallocf",
    "remove",
    "rename",
    "rewind",
    "rint",
    "rmdir",
    "round",
    "scanf",
    "setbuf",
    "setvbuf",
    "sin",
    "sinf",
    "sinh",
    "snprintf",
    "sprintf",
    "sqrt",
    "sqrtf",
    "sscanf",
    "stat",
    "stpcpy",
    "stpncpy",
    "strcasecmp",
    "strcat",
    "strchr",
    "strcmp",
    "strcoll",
    "strcpy",
    "strcspn",
    "strdup",
    "strlen",
    "strncasecmp",
    "strncat",
    "strncmp",
    "strncpy",
    "strndup",
    "strnlen",
    "strpbrk",
    "strrchr",
    "strspn",
    "strstr",
    "strtod",
    "strtol",
    "strtoll",
    "strtoul",
    "strtoull",
    "tan",
    "tanf",
    "tanh",
    "tolower",
    "toupper",
    "trunc",
    "truncf",
    "ungetc",
    "unlink",
    "valloc",
    "vfprintf",
    "vprintf",
    "vsnprintf",
    "vsprintf",
    "write",
];

#[cfg(test)]
mod tests {
    #[test]
    fn lib_table_is_sorted() {
        assert!(super::LIB_FUNCTIONS.windows(2).all(|w| w[0] < w[1]));
    }
}
