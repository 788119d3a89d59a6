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
    // size_t follows the pointer width; 32-bit targets by their triple
    let size_t_bits = match m.target_triple.as_deref() {
        Some(t)
            if [
                "i386", "i486", "i586", "i686", "arm", "thumb", "wasm32", "riscv32", "mips-",
                "mipsel-", "ppc-", "powerpc-", "sparc-", "nvptx-",
            ]
            .iter()
            .any(|p| t.starts_with(p))
                || t.ends_with("gnux32") =>
        {
            32
        }
        _ => 64,
    };
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
            is_lib_function(&f.name, &m.signatures[f.signature as usize], size_t_bits)
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

/// Whether `name` is a library function LLVM 14's `TargetLibraryInfo` knows (every name
/// of `TargetLibraryInfo.def` except the MSVC-mangled ones and the Darwin-only
/// `memset_pattern*`/`__sinpi`-style entries; `__nvvm_reflect` is handled per target),
/// ignoring the prototype. See [`is_lib_function`] for the full check.
pub fn is_known_lib_function(name: &str) -> bool {
    LIB_FUNCTIONS
        .binary_search_by(|(n, _)| n.cmp(&name))
        .is_ok()
}

/// LLVM's `TargetLibraryInfo::getLibFunc(const Function &)`: a known library function
/// name whose function type `signature` (as in [`Module::signatures`], e.g.
/// `i64(i32,ptr,i64)`) matches the library prototype, with `int` of 32 bits and
/// `size_t` of `size_t_bits`. Prototypes come from LLVM's `TargetLibraryInfo.def`
/// signature table (LLVM 16+ form of the same rules); the few entries LLVM checks by
/// hand are accepted on the name alone.
pub fn is_lib_function(name: &str, signature: &str, size_t_bits: u32) -> bool {
    match LIB_FUNCTIONS.binary_search_by(|(n, _)| n.cmp(&name)) {
        Ok(i) => proto_matches(LIB_FUNCTIONS[i].1, signature, size_t_bits),
        Err(_) => false,
    }
}

/// Splits `ret(p1,p2,...)` into the return type, the parameter types and the vararg flag.
fn split_signature(sig: &str) -> Option<(&str, Vec<&str>, bool)> {
    let b = sig.as_bytes();
    if b.last() != Some(&b')') {
        return None;
    }
    // the parameter list is the last top-level parenthesized group
    let mut depth = 0i32;
    let mut open = None;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' | b']' | b'}' | b'>' => depth += 1,
            b'(' | b'[' | b'{' | b'<' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let ret = &sig[..open];
    let inner = &sig[open + 1..sig.len() - 1];
    let mut params = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in inner.bytes().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                params.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner.is_empty() {
        params.push(&inner[start..]);
    }
    let vararg = params.last() == Some(&"...");
    if vararg {
        params.pop();
    }
    Some((ret, params, vararg))
}

fn int_bits(ty: &str) -> Option<u32> {
    ty.strip_prefix('i').and_then(|n| n.parse().ok())
}

fn is_fp(ty: &str) -> bool {
    matches!(
        ty,
        "half" | "bfloat" | "float" | "double" | "x86_fp80" | "fp128" | "ppc_fp128"
    )
}

/// LLVM's `matchType` for one prototype code (see `LIB_FUNCTIONS`).
fn match_type(code: char, ty: &str, size_t_bits: u32) -> bool {
    match code {
        'v' => ty == "void",
        'b' => ty == "i8",
        'h' => ty == "i16",
        'w' | 'i' => ty == "i32",
        'I' | 'l' => int_bits(ty).is_some_and(|n| n >= 32),
        'x' => int_bits(ty).is_some(),
        'q' | 'L' => ty == "i64",
        'z' | 'Z' => int_bits(ty) == Some(size_t_bits),
        'f' => ty == "float",
        'd' => ty == "double",
        'D' | 'F' => is_fp(ty),
        'p' => ty == "ptr" || ty.starts_with("ptraddrspace(") || ty.ends_with('*'),
        's' => ty.starts_with('{') || ty.starts_with("<{") || ty.starts_with('%'),
        _ => false,
    }
}

/// LLVM's generic `isValidProtoForLibFunc` walk: return type then parameters; `v`
/// after the first position ends the list, `e` (ellipsis) requires varargs, `S` repeats
/// the previous type.
fn proto_matches(codes: &str, sig: &str, size_t_bits: u32) -> bool {
    if codes == "*" {
        return true;
    }
    let Some((ret, params, vararg)) = split_signature(sig) else {
        return false;
    };
    let mut idx = 0usize;
    let mut last = ret;
    for c in codes.chars() {
        if idx > 0 && c == 'v' {
            break;
        }
        if c == 'e' {
            return vararg;
        }
        let ty = if idx == 0 {
            Some(ret)
        } else {
            params.get(idx - 1).copied()
        };
        if c == 'S' {
            if ty != Some(last) {
                return false;
            }
        } else {
            match ty {
                Some(t) if match_type(c, t, size_t_bits) => last = t,
                _ => return false,
            }
        }
        idx += 1;
    }
    idx == params.len() + 1 && !vararg
}

/// `(name, prototype)`, sorted by name (byte order); generated from LLVM 14's
/// `TargetLibraryInfo.def` names and LLVM 19's signature table. Prototype codes, return
/// type first: v void, b bool (i8), h i16, w i32, i int, I int or wider, x any int,
/// l long, q i64, L long long, z size_t, Z ssize_t, f float, d double, D long double,
/// F any FP, p pointer, s struct, e `...`, S same as previous; `*` = checked by name.
static LIB_FUNCTIONS: &[(&str, &str)] = &[
    ("_IO_getc", "ip"),
    ("_IO_putc", "iip"),
    ("_ZdaPv", "vp"),
    ("_ZdaPvRKSt9nothrow_t", "vpp"),
    ("_ZdaPvSt11align_val_t", "vpI"),
    ("_ZdaPvSt11align_val_tRKSt9nothrow_t", "vpIp"),
    ("_ZdaPvj", "vpi"),
    ("_ZdaPvjSt11align_val_t", "vpii"),
    ("_ZdaPvm", "vpl"),
    ("_ZdaPvmSt11align_val_t", "vpll"),
    ("_ZdlPv", "vp"),
    ("_ZdlPvRKSt9nothrow_t", "vpp"),
    ("_ZdlPvSt11align_val_t", "vpI"),
    ("_ZdlPvSt11align_val_tRKSt9nothrow_t", "vpIp"),
    ("_ZdlPvj", "vpi"),
    ("_ZdlPvjSt11align_val_t", "vpii"),
    ("_ZdlPvm", "vpl"),
    ("_ZdlPvmSt11align_val_t", "vpll"),
    ("_Znaj", "pi"),
    ("_ZnajRKSt9nothrow_t", "pip"),
    ("_ZnajSt11align_val_t", "pii"),
    ("_ZnajSt11align_val_tRKSt9nothrow_t", "piip"),
    ("_Znam", "pl"),
    ("_ZnamRKSt9nothrow_t", "plp"),
    ("_ZnamSt11align_val_t", "pll"),
    ("_ZnamSt11align_val_tRKSt9nothrow_t", "pllp"),
    ("_Znwj", "pi"),
    ("_ZnwjRKSt9nothrow_t", "pip"),
    ("_ZnwjSt11align_val_t", "pii"),
    ("_ZnwjSt11align_val_tRKSt9nothrow_t", "piip"),
    ("_Znwm", "pl"),
    ("_ZnwmRKSt9nothrow_t", "plp"),
    ("_ZnwmSt11align_val_t", "pll"),
    ("_ZnwmSt11align_val_tRKSt9nothrow_t", "pllp"),
    ("__acos_finite", "dd"),
    ("__acosf_finite", "ff"),
    ("__acosh_finite", "dd"),
    ("__acoshf_finite", "ff"),
    ("__acoshl_finite", "DD"),
    ("__acosl_finite", "DD"),
    ("__asin_finite", "dd"),
    ("__asinf_finite", "ff"),
    ("__asinl_finite", "DD"),
    ("__atan2_finite", "ddd"),
    ("__atan2f_finite", "fff"),
    ("__atan2l_finite", "DDD"),
    ("__atanh_finite", "dd"),
    ("__atanhf_finite", "ff"),
    ("__atanhl_finite", "DD"),
    ("__atomic_load", "vzppi"),
    ("__atomic_store", "vzppi"),
    ("__cosh_finite", "dd"),
    ("__coshf_finite", "ff"),
    ("__coshl_finite", "DD"),
    ("__cxa_atexit", "ippp"),
    ("__cxa_guard_abort", "vp"),
    ("__cxa_guard_acquire", "ip"),
    ("__cxa_guard_release", "vp"),
    ("__exp10_finite", "dd"),
    ("__exp10f_finite", "ff"),
    ("__exp10l_finite", "DD"),
    ("__exp2_finite", "dd"),
    ("__exp2f_finite", "ff"),
    ("__exp2l_finite", "DD"),
    ("__exp_finite", "dd"),
    ("__expf_finite", "ff"),
    ("__expl_finite", "DD"),
    ("__isoc99_scanf", "ipe"),
    ("__isoc99_sscanf", "ippe"),
    ("__kmpc_alloc_shared", "pz"),
    ("__kmpc_free_shared", "vpz"),
    ("__log10_finite", "dd"),
    ("__log10f_finite", "ff"),
    ("__log10l_finite", "DD"),
    ("__log2_finite", "dd"),
    ("__log2f_finite", "ff"),
    ("__log2l_finite", "DD"),
    ("__log_finite", "dd"),
    ("__logf_finite", "ff"),
    ("__logl_finite", "DD"),
    ("__memccpy_chk", "pppizz"),
    ("__memcpy_chk", "pppzz"),
    ("__memmove_chk", "pppzz"),
    ("__mempcpy_chk", "pppzz"),
    ("__memset_chk", "ppizz"),
    ("__pow_finite", "ddd"),
    ("__powf_finite", "fff"),
    ("__powl_finite", "DDD"),
    ("__sinh_finite", "dd"),
    ("__sinhf_finite", "ff"),
    ("__sinhl_finite", "DD"),
    ("__small_fprintf", "ippe"),
    ("__small_printf", "ipe"),
    ("__small_sprintf", "ippe"),
    ("__snprintf_chk", "ipzizpe"),
    ("__sprintf_chk", "ipizpe"),
    ("__sqrt_finite", "dd"),
    ("__sqrtf_finite", "ff"),
    ("__sqrtl_finite", "DD"),
    ("__stpcpy_chk", "pppz"),
    ("__stpncpy_chk", "pppzz"),
    ("__strcat_chk", "pppz"),
    ("__strcpy_chk", "pppz"),
    ("__strdup", "pp"),
    ("__strlcat_chk", "zppzz"),
    ("__strlcpy_chk", "zppzz"),
    ("__strlen_chk", "zpz"),
    ("__strncat_chk", "pppzz"),
    ("__strncpy_chk", "pppzz"),
    ("__strndup", "ppz"),
    ("__strtok_r", "pppp"),
    ("__vsnprintf_chk", "ipzizpp"),
    ("__vsprintf_chk", "ipizpp"),
    ("abs", "ii"),
    ("access", "ipi"),
    ("acos", "dd"),
    ("acosf", "ff"),
    ("acosh", "dd"),
    ("acoshf", "ff"),
    ("acoshl", "DD"),
    ("acosl", "DD"),
    ("aligned_alloc", "pzz"),
    ("asin", "dd"),
    ("asinf", "ff"),
    ("asinh", "dd"),
    ("asinhf", "ff"),
    ("asinhl", "DD"),
    ("asinl", "DD"),
    ("atan", "dd"),
    ("atan2", "ddd"),
    ("atan2f", "fff"),
    ("atan2l", "DDD"),
    ("atanf", "ff"),
    ("atanh", "dd"),
    ("atanhf", "ff"),
    ("atanhl", "DD"),
    ("atanl", "DD"),
    ("atof", "dp"),
    ("atoi", "ip"),
    ("atol", "lp"),
    ("atoll", "Lp"),
    ("bcmp", "ippz"),
    ("bcopy", "vppz"),
    ("bzero", "vpz"),
    ("cabs", "*"),
    ("cabsf", "*"),
    ("cabsl", "*"),
    ("calloc", "pzz"),
    ("cbrt", "dd"),
    ("cbrtf", "ff"),
    ("cbrtl", "DD"),
    ("ceil", "dd"),
    ("ceilf", "ff"),
    ("ceill", "DD"),
    ("chmod", "ipx"),
    ("chown", "ipxx"),
    ("clearerr", "vp"),
    ("closedir", "ip"),
    ("copysign", "ddd"),
    ("copysignf", "fff"),
    ("copysignl", "DDD"),
    ("cos", "dd"),
    ("cosf", "ff"),
    ("cosh", "dd"),
    ("coshf", "ff"),
    ("coshl", "DD"),
    ("cosl", "DD"),
    ("ctermid", "pp"),
    ("execl", "ippe"),
    ("execle", "ippe"),
    ("execlp", "ippe"),
    ("execv", "ipp"),
    ("execvP", "ippp"),
    ("execve", "ippp"),
    ("execvp", "ipp"),
    ("execvpe", "ippp"),
    ("exp", "dd"),
    ("exp10", "dd"),
    ("exp10f", "ff"),
    ("exp10l", "DD"),
    ("exp2", "dd"),
    ("exp2f", "ff"),
    ("exp2l", "DD"),
    ("expf", "ff"),
    ("expl", "DD"),
    ("expm1", "dd"),
    ("expm1f", "ff"),
    ("expm1l", "DD"),
    ("fabs", "dd"),
    ("fabsf", "ff"),
    ("fabsl", "DD"),
    ("fclose", "ip"),
    ("fdopen", "pip"),
    ("feof", "ip"),
    ("ferror", "ip"),
    ("fflush", "ip"),
    ("ffs", "ii"),
    ("ffsl", "il"),
    ("ffsll", "iL"),
    ("fgetc", "ip"),
    ("fgetc_unlocked", "ip"),
    ("fgetpos", "ipp"),
    ("fgets", "ppip"),
    ("fgets_unlocked", "ppip"),
    ("fileno", "ip"),
    ("fiprintf", "ippe"),
    ("flockfile", "vp"),
    ("floor", "dd"),
    ("floorf", "ff"),
    ("floorl", "DD"),
    ("fls", "ii"),
    ("flsl", "il"),
    ("flsll", "iL"),
    ("fmax", "FSS"),
    ("fmaxf", "FSS"),
    ("fmaxl", "FSS"),
    ("fmin", "FSS"),
    ("fminf", "FSS"),
    ("fminl", "FSS"),
    ("fmod", "ddd"),
    ("fmodf", "fff"),
    ("fmodl", "DDD"),
    ("fopen", "ppp"),
    ("fopen64", "ppp"),
    ("fork", "i"),
    ("fprintf", "ippe"),
    ("fputc", "iip"),
    ("fputc_unlocked", "iip"),
    ("fputs", "ipp"),
    ("fputs_unlocked", "ipp"),
    ("fread", "zpzzp"),
    ("fread_unlocked", "zpzzp"),
    ("free", "vp"),
    ("frexp", "ddp"),
    ("frexpf", "ffp"),
    ("frexpl", "DDp"),
    ("fscanf", "ippe"),
    ("fseek", "ipli"),
    ("fseeko", "ipxi"),
    ("fseeko64", "ipqi"),
    ("fsetpos", "ipp"),
    ("fstat", "iip"),
    ("fstat64", "iip"),
    ("fstatvfs", "iip"),
    ("fstatvfs64", "iip"),
    ("ftell", "lp"),
    ("ftello", "Ip"),
    ("ftello64", "qp"),
    ("ftrylockfile", "ip"),
    ("funlockfile", "vp"),
    ("fwrite", "zpzzp"),
    ("fwrite_unlocked", "zpzzp"),
    ("getc", "ip"),
    ("getc_unlocked", "ip"),
    ("getchar", "i"),
    ("getchar_unlocked", "i"),
    ("getenv", "pp"),
    ("getitimer", "iip"),
    ("getlogin_r", "ipz"),
    ("getpwnam", "pp"),
    ("gets", "pp"),
    ("gettimeofday", "ipp"),
    ("htonl", "ww"),
    ("htons", "hh"),
    ("iprintf", "ipe"),
    ("isascii", "ii"),
    ("isdigit", "ii"),
    ("labs", "lS"),
    ("lchown", "ipxx"),
    ("ldexp", "ddi"),
    ("ldexpf", "ffi"),
    ("ldexpl", "DDi"),
    ("llabs", "LL"),
    ("log", "dd"),
    ("log10", "dd"),
    ("log10f", "ff"),
    ("log10l", "DD"),
    ("log1p", "dd"),
    ("log1pf", "ff"),
    ("log1pl", "DD"),
    ("log2", "dd"),
    ("log2f", "ff"),
    ("log2l", "DD"),
    ("logb", "dd"),
    ("logbf", "ff"),
    ("logbl", "DD"),
    ("logf", "ff"),
    ("logl", "DD"),
    ("lstat", "ipp"),
    ("lstat64", "ipp"),
    ("malloc", "pz"),
    ("memalign", "pzz"),
    ("memccpy", "pppiz"),
    ("memchr", "ppiz"),
    ("memcmp", "ippz"),
    ("memcpy", "pppz"),
    ("memmove", "pppz"),
    ("mempcpy", "pppz"),
    ("memrchr", "ppiz"),
    ("memset", "ppiz"),
    ("mkdir", "ipx"),
    ("mktime", "Ip"),
    ("modf", "ddp"),
    ("modff", "ffp"),
    ("modfl", "DDp"),
    ("nearbyint", "dd"),
    ("nearbyintf", "ff"),
    ("nearbyintl", "DD"),
    ("ntohl", "ww"),
    ("ntohs", "hh"),
    ("open", "ipie"),
    ("open64", "ipie"),
    ("opendir", "pp"),
    ("pclose", "ip"),
    ("perror", "vp"),
    ("popen", "ppp"),
    ("posix_memalign", "ipzz"),
    ("pow", "ddd"),
    ("powf", "fff"),
    ("powl", "DDD"),
    ("pread", "ZipzI"),
    ("printf", "ipe"),
    ("putc", "iip"),
    ("putc_unlocked", "iip"),
    ("putchar", "ii"),
    ("putchar_unlocked", "ii"),
    ("puts", "ip"),
    ("pwrite", "ZipzI"),
    ("qsort", "vpzzp"),
    ("read", "Zipz"),
    ("readlink", "Zppz"),
    ("realloc", "ppz"),
    ("reallocf", "ppz"),
    ("realpath", "ppp"),
    ("remainder", "ddd"),
    ("remainderf", "fff"),
    ("remainderl", "DDD"),
    ("remove", "ip"),
    ("rename", "ipp"),
    ("rewind", "vp"),
    ("rint", "dd"),
    ("rintf", "ff"),
    ("rintl", "DD"),
    ("rmdir", "ip"),
    ("round", "dd"),
    ("roundeven", "dd"),
    ("roundevenf", "ff"),
    ("roundevenl", "DD"),
    ("roundf", "ff"),
    ("roundl", "DD"),
    ("scanf", "ipe"),
    ("setbuf", "vpp"),
    ("setitimer", "iipp"),
    ("setvbuf", "ippiz"),
    ("sin", "dd"),
    ("sinf", "ff"),
    ("sinh", "dd"),
    ("sinhf", "ff"),
    ("sinhl", "DD"),
    ("sinl", "DD"),
    ("siprintf", "ippe"),
    ("snprintf", "ipzpe"),
    ("sprintf", "ippe"),
    ("sqrt", "dd"),
    ("sqrtf", "ff"),
    ("sqrtl", "DD"),
    ("sscanf", "ippe"),
    ("stat", "ipp"),
    ("stat64", "ipp"),
    ("statvfs", "ipp"),
    ("statvfs64", "ipp"),
    ("stpcpy", "ppp"),
    ("stpncpy", "pppz"),
    ("strcasecmp", "ipp"),
    ("strcat", "ppp"),
    ("strchr", "ppi"),
    ("strcmp", "ipp"),
    ("strcoll", "ipp"),
    ("strcpy", "ppp"),
    ("strcspn", "zpp"),
    ("strdup", "pp"),
    ("strlcat", "zppz"),
    ("strlcpy", "zppz"),
    ("strlen", "zp"),
    ("strncasecmp", "ippz"),
    ("strncat", "pppz"),
    ("strncmp", "ippz"),
    ("strncpy", "pppz"),
    ("strndup", "ppz"),
    ("strnlen", "zpz"),
    ("strpbrk", "ppp"),
    ("strrchr", "ppi"),
    ("strspn", "zpp"),
    ("strstr", "ppp"),
    ("strtod", "dpp"),
    ("strtof", "fpp"),
    ("strtok", "ppp"),
    ("strtok_r", "pppp"),
    ("strtol", "lppi"),
    ("strtold", "Dpp"),
    ("strtoll", "Lppi"),
    ("strtoul", "lppi"),
    ("strtoull", "Lppi"),
    ("strxfrm", "zppz"),
    ("system", "ip"),
    ("tan", "dd"),
    ("tanf", "ff"),
    ("tanh", "dd"),
    ("tanhf", "ff"),
    ("tanhl", "DD"),
    ("tanl", "DD"),
    ("times", "Ip"),
    ("tmpfile", "p"),
    ("tmpfile64", "p"),
    ("toascii", "ii"),
    ("trunc", "dd"),
    ("truncf", "ff"),
    ("truncl", "DD"),
    ("uname", "ip"),
    ("ungetc", "iip"),
    ("unlink", "ip"),
    ("unsetenv", "ip"),
    ("utime", "ipp"),
    ("utimes", "ipp"),
    ("valloc", "pz"),
    ("vec_calloc", "pzz"),
    ("vec_free", "vp"),
    ("vec_malloc", "pz"),
    ("vec_realloc", "ppz"),
    ("vfprintf", "ippp"),
    ("vfscanf", "ippp"),
    ("vprintf", "ipp"),
    ("vscanf", "ipp"),
    ("vsnprintf", "ipzpp"),
    ("vsprintf", "ippp"),
    ("vsscanf", "ippp"),
    ("wcslen", "zp"),
    ("write", "Zipz"),
];

#[cfg(test)]
mod tests {
    #[test]
    fn lib_table_is_sorted() {
        assert!(super::LIB_FUNCTIONS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn prototypes_like_llvm() {
        use super::is_lib_function as lib;
        assert!(lib("read", "i64(i32,ptr,i64)", 64));
        assert!(!lib("read", "i32(i32)", 64));
        assert!(lib("printf", "i32(ptr,...)", 64));
        assert!(!lib("printf", "i32(ptr)", 64));
        assert!(lib("memcpy", "i8*(i8*,i8*,i64)", 64));
        assert!(lib("fmin", "double(double,double)", 64));
        assert!(!lib("fmin", "double(double,float)", 64));
        assert!(lib("abs", "i32(i32)", 64));
        assert!(!lib("not_a_libcall", "i32(i32)", 64));
        assert!(lib("qsort", "void(ptr,i64,i64,ptr)", 64));
    }
}
