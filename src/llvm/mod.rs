//! The engine's own model of an LLVM module, as the middle and back end need it:
//! functions with their linkage, attributes, blocks, call sites and the constant operands
//! of their instructions (what LLVM's `LazyCallGraph` walks), global variables, aliases,
//! kernel annotations and a memory-effect summary of each body. On request the reader
//! also builds an instruction-level SSA view ([`ir`]: types, arguments, instructions,
//! operands, call details, uses) for function-level analyses and cost models.
//!
//! Importers fill it (the `.ll` reader parses text into it; a [`Module`]
//! is made no other way); the call graph, the CGSCC pass manager and the CFG builder
//! read it and never see the text it came from.
//!
//! ```
//! let m = ilkit::llvm::Module::from_ll_str(
//!     "m.ll",
//!     "define void @f() {\n  call void @g()\n  ret void\n}\ndefine void @g() {\n  ret void\n}\n",
//! )
//! .unwrap();
//! let f = m.function_by_name("f").unwrap();
//! assert_eq!(m.function(f).call_sites.len(), 1);
//! assert_eq!(m.callee_name(&m.function(f).call_sites[0]), Some("g"));
//! ```
//!
//! # Invariants
//! - every [`BlockIdx`] in a function (successors, call-site blocks) is `< blocks.len()`;
//!   block 0 is the entry.
//! - every [`ConstIdx`] indexes [`Module::consts`]; the operands of a constant are earlier
//!   constants (a DAG built bottom-up).
//! - every [`SymbolIdx`] indexes the symbol table; [`Module::symbol_def`] says what it
//!   denotes, and the function / global / alias it names refers back to it.
//! - only constants that (transitively) mention a global are kept: leaf constants
//!   (numbers, strings, `zeroinitializer`, `blockaddress`, ...) are dropped, as nothing
//!   here can observe them. Kept constants are uniqued the way LLVM uniques them, so a
//!   visited set over [`ConstIdx`]s behaves like LLVM's over `Constant*`.

pub mod attrs;
pub mod ir;
pub mod libcalls;
pub mod types;

use crate::idx::{BlockIdx, IndexVec};
use ahash::AHashMap;

pub use libcalls::{is_known_lib_function, is_lib_function};

crate::define_idx!(
    /// A function of a module, in module order (declarations included).
    FuncIdx,
    "fn"
);
crate::define_idx!(
    /// A module-level symbol (`@name`): function, variable, alias or ifunc.
    SymbolIdx,
    "sym"
);
crate::define_idx!(
    /// An interned constant that mentions a global ([`Module::consts`]).
    ConstIdx,
    "c"
);
crate::define_idx!(
    /// An interned function type ([`Module::signature`]).
    SigIdx,
    "sig"
);
crate::define_idx!(
    /// A global variable, in module order.
    GlobalIdx,
    "gv"
);
crate::define_idx!(
    /// An alias or ifunc, in module order.
    AliasIdx,
    "ga"
);

/// Linkage of a global value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Linkage {
    /// `external` (the default).
    #[default]
    External,
    /// `private`.
    Private,
    /// `internal`.
    Internal,
    /// `available_externally`.
    AvailableExternally,
    /// `linkonce`.
    Linkonce,
    /// `linkonce_odr`.
    LinkonceOdr,
    /// `weak`.
    Weak,
    /// `weak_odr`.
    WeakOdr,
    /// `common`.
    Common,
    /// `appending`.
    Appending,
    /// `extern_weak`.
    ExternWeak,
}

impl Linkage {
    /// The linkage a keyword names (`internal`, `linkonce_odr`, ...).
    pub fn from_word(w: &str) -> Option<Linkage> {
        Some(match w {
            "external" => Linkage::External,
            "private" => Linkage::Private,
            "internal" => Linkage::Internal,
            "available_externally" => Linkage::AvailableExternally,
            "linkonce" => Linkage::Linkonce,
            "linkonce_odr" => Linkage::LinkonceOdr,
            "weak" => Linkage::Weak,
            "weak_odr" => Linkage::WeakOdr,
            "common" => Linkage::Common,
            "appending" => Linkage::Appending,
            "extern_weak" => Linkage::ExternWeak,
            _ => return None,
        })
    }

    /// `private` or `internal`: invisible outside the module.
    pub fn is_local(self) -> bool {
        matches!(self, Linkage::Private | Linkage::Internal)
    }
}

/// What a module-level symbol denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolDef {
    /// A function.
    Function(FuncIdx),
    /// A global variable.
    Global(GlobalIdx),
    /// An alias.
    Alias(AliasIdx),
    /// An ifunc.
    IFunc(AliasIdx),
    /// Referenced but never declared (invalid IR; kept so nothing dangles).
    Undefined,
}

/// One node of the constant pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstKind {
    /// A global value `@sym` (function, variable, alias or ifunc). Its operand (LLVM's
    /// `operand_values`) is the initializer, aliasee or resolver of the symbol, not
    /// stored here.
    Symbol(SymbolIdx),
    /// A constant expression, aggregate or `dso_local_equivalent`/`no_cfi` wrapper; its
    /// operands that mention globals are in the pool.
    Expr,
}

/// Interned constants that mention globals, in first-seen order.
///
/// # Invariants
/// - `starts.len() == kinds.len() + 1`; the operands of `c` are
///   `operands[starts[c]..starts[c + 1]]`, each `< c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstPool {
    kinds: IndexVec<ConstIdx, ConstKind>,
    starts: Vec<u32>,
    operands: Vec<ConstIdx>,
}

impl Default for ConstPool {
    fn default() -> Self {
        ConstPool {
            kinds: IndexVec::new(),
            starts: vec![0],
            operands: Vec::new(),
        }
    }
}

impl ConstPool {
    /// Adds a constant with its operands (each an earlier constant).
    pub(crate) fn push(&mut self, kind: ConstKind, ops: &[ConstIdx]) -> ConstIdx {
        debug_assert!(ops.iter().all(|o| o.idx() < self.kinds.len()));
        self.operands.extend_from_slice(ops);
        self.starts.push(self.operands.len() as u32);
        self.kinds.push(kind)
    }

    /// Kind of constant `c`.
    #[inline]
    pub fn kind(&self, c: ConstIdx) -> ConstKind {
        self.kinds[c]
    }

    /// Operands of constant `c` (only those that mention globals), in operand order.
    #[inline]
    pub fn operands_of(&self, c: ConstIdx) -> &[ConstIdx] {
        &self.operands[self.starts[c.idx()] as usize..self.starts[c.idx() + 1] as usize]
    }

    /// Number of constants.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// True when no constant mentions a global.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
}

/// A module-level variable (`@x = global ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalVar {
    /// Name without `@` and quotes.
    pub name: String,
    /// Its symbol.
    pub sym: SymbolIdx,
    /// Linkage.
    pub linkage: Linkage,
    /// `constant` rather than `global`.
    pub is_constant: bool,
    /// Has an initializer (a definition rather than an `external` declaration).
    pub has_initializer: bool,
    /// The initializer when it mentions globals.
    pub initializer: Option<ConstIdx>,
    /// Cannot be preempted: `dso_local`, local linkage, or `hidden`/`protected`
    /// visibility (which imply it).
    pub dso_local: bool,
    /// The comdat it belongs to (`comdat` alone names its own), without `$`.
    pub comdat: Option<Box<str>>,
    /// Its explicit `align N`, in bytes.
    pub align: Option<u64>,
}

/// `@a = alias T, ptr @aliasee` or `@i = ifunc T, ptr @resolver`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    /// Name without `@` and quotes.
    pub name: String,
    /// Its symbol.
    pub sym: SymbolIdx,
    /// Linkage.
    pub linkage: Linkage,
    /// The aliasee (or resolver) constant, when it mentions a global.
    pub target: Option<ConstIdx>,
}

/// How a call site names its callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// The callee operand is the symbol itself (`call void @f()`).
    Direct(SymbolIdx),
    /// The callee is a constant expression mentioning globals (`call bitcast (@f ...)`).
    Const(ConstIdx),
    /// Inline assembly.
    InlineAsm,
    /// A computed pointer (register value or a constant without globals).
    Indirect,
}

/// Which instruction a call site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// `call`.
    Call,
    /// `invoke`.
    Invoke,
    /// `callbr`.
    CallBr,
}

/// A call site in a function body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The callee operand.
    pub callee: Callee,
    /// Number of call arguments (operand bundles excluded).
    pub arg_count: u32,
    /// Block containing the call.
    pub block: BlockIdx,
    /// `call`, `invoke` or `callbr`.
    pub kind: CallKind,
    /// The call's function type.
    pub fn_type: SigIdx,
}

/// One event of a function's operand walk, in instruction then operand order: what
/// LLVM's `LazyCallGraph::Node::populateSlow` looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandRef {
    /// A call-like instruction whose callee operand is directly symbol `.0`, with call
    /// function type `.1`; it comes before the instruction's constant operands. LLVM only
    /// counts it as a call of the function when the types agree
    /// (`CallBase::getCalledFunction`).
    DirectCall(SymbolIdx, SigIdx),
    /// A constant operand that mentions a global (the callee is the last operand).
    Const(ConstIdx),
}

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    /// No terminator (malformed or truncated input).
    None,
    /// `br`.
    Br,
    /// `switch`.
    Switch,
    /// `indirectbr`.
    IndirectBr,
    /// `invoke`.
    Invoke,
    /// `callbr`.
    CallBr,
    /// `resume`.
    Resume,
    /// `unreachable`.
    Unreachable,
    /// `ret`.
    Ret,
    /// `cleanupret`.
    CleanupRet,
    /// `catchret`.
    CatchRet,
    /// `catchswitch`.
    CatchSwitch,
}

impl Terminator {
    /// The opcode (`br`, `ret`, ...), empty for [`Terminator::None`].
    pub fn as_str(self) -> &'static str {
        match self {
            Terminator::None => "",
            Terminator::Br => "br",
            Terminator::Switch => "switch",
            Terminator::IndirectBr => "indirectbr",
            Terminator::Invoke => "invoke",
            Terminator::CallBr => "callbr",
            Terminator::Resume => "resume",
            Terminator::Unreachable => "unreachable",
            Terminator::Ret => "ret",
            Terminator::CleanupRet => "cleanupret",
            Terminator::CatchRet => "catchret",
            Terminator::CatchSwitch => "catchswitch",
        }
    }

    /// The terminator an opcode names.
    pub fn from_opcode(op: &str) -> Option<Terminator> {
        Some(match op {
            "br" => Terminator::Br,
            "switch" => Terminator::Switch,
            "indirectbr" => Terminator::IndirectBr,
            "invoke" => Terminator::Invoke,
            "callbr" => Terminator::CallBr,
            "resume" => Terminator::Resume,
            "unreachable" => Terminator::Unreachable,
            "ret" => Terminator::Ret,
            "cleanupret" => Terminator::CleanupRet,
            "catchret" => Terminator::CatchRet,
            "catchswitch" => Terminator::CatchSwitch,
            _ => return None,
        })
    }
}

/// A basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Label without `%` (unquoted, escapes decoded); unnamed blocks carry their slot
    /// number, e.g. `"5"`.
    pub name: String,
    /// How the block ends.
    pub term: Terminator,
    /// Successor blocks in LLVM order (br: true then false; switch: default then cases;
    /// duplicates kept).
    pub succs: Vec<BlockIdx>,
    /// Number of instructions in the block (terminator included, debug records not).
    pub instruction_count: u32,
}

/// A memory-effect summary, ordered: `None < Read < Write` (the join is `max`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum MemEffect {
    /// Reads and writes no visible memory (`readnone`, `memory(none)`).
    None,
    /// Only reads visible memory (`readonly`, `memory(read)`).
    Read,
    /// May write visible memory.
    #[default]
    Write,
}

impl MemEffect {
    /// The attribute name LLVM 14 would print (`readnone`, `readonly`, or empty).
    pub fn attr(self) -> &'static str {
        match self {
            MemEffect::None => "readnone",
            MemEffect::Read => "readonly",
            MemEffect::Write => "",
        }
    }
}

/// A function declaration or definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Name without `@` and quotes.
    pub name: String,
    /// Its symbol.
    pub sym: SymbolIdx,
    /// `define` (true) or `declare` (false).
    pub is_definition: bool,
    /// The function type.
    pub signature: SigIdx,
    /// Linkage.
    pub linkage: Linkage,
    /// Calling convention keyword (`fastcc`, `ptx_kernel`, `cc 10`, ...); empty = C.
    pub calling_conv: String,
    /// Attribute group references (`#0` → 0) on the function.
    pub attr_groups: Vec<u32>,
    /// Function attributes written inline after the parameter list.
    pub attrs: Vec<String>,
    /// Marked a kernel by an `nvvm.annotations` entry (`!{ptr @k, !"kernel", i32 1}`).
    pub nvvm_kernel: bool,
    /// 1-based line of the `define`/`declare` in the source text.
    pub line: u32,
    /// Basic blocks in text order; empty for a declaration.
    pub blocks: IndexVec<BlockIdx, Block>,
    /// Instructions in the body (debug records excluded).
    pub instruction_count: u32,
    /// Memory effect of the body's own instructions, calls excluded: stores, atomics and
    /// fences write, loads read, unless the pointer is a local `alloca`. `Write` for a
    /// declaration.
    pub body_mem: MemEffect,
    /// Call sites in text order.
    pub call_sites: Vec<CallSite>,
    /// Operand walk events (see [`OperandRef`]).
    pub operand_refs: Vec<OperandRef>,
    /// The comdat it belongs to (`comdat` alone names its own), without `$`.
    pub comdat: Option<Box<str>>,
}

impl Function {
    /// A kernel: the `ptx_kernel` calling convention or an `nvvm.annotations` entry.
    pub fn is_kernel(&self) -> bool {
        self.calling_conv == "ptx_kernel" || self.nvvm_kernel
    }
}

/// A module: functions, globals, aliases, the symbol table and the constant pool.
///
/// Fields are the engine's; read them through the methods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    pub(crate) source_filename: Option<String>,
    pub(crate) target_triple: Option<String>,
    pub(crate) functions: IndexVec<FuncIdx, Function>,
    pub(crate) globals: IndexVec<GlobalIdx, GlobalVar>,
    pub(crate) aliases: IndexVec<AliasIdx, Alias>,
    pub(crate) ifuncs: IndexVec<AliasIdx, Alias>,
    /// Every `@name` seen, by symbol.
    pub(crate) symbols: IndexVec<SymbolIdx, String>,
    /// What each symbol denotes (parallel to `symbols`).
    pub(crate) symbol_defs: IndexVec<SymbolIdx, SymbolDef>,
    pub(crate) consts: ConstPool,
    /// Attribute groups: `(number, words)` in text order (`attributes #0 = { ... }`).
    pub(crate) attr_groups: Vec<(u32, Vec<String>)>,
    /// Symbol by name (inverse of `symbols`).
    pub(crate) symbol_index: AHashMap<String, SymbolIdx>,
    /// Interned function types, whitespace-free (`i32(ptr,...)`).
    pub(crate) signatures: IndexVec<SigIdx, String>,
    /// The instruction-level view, when the reader was asked for it
    /// (the `.ll` reader's `instructions` option).
    pub(crate) ir: Option<std::sync::Arc<ir::Ir>>,
}

impl Module {
    /// `source_filename`, if present.
    pub fn source_filename(&self) -> Option<&str> {
        self.source_filename.as_deref()
    }

    /// `target triple`, if present.
    pub fn target_triple(&self) -> Option<&str> {
        self.target_triple.as_deref()
    }

    /// Functions in module order (declarations included).
    pub fn functions(&self) -> &IndexVec<FuncIdx, Function> {
        &self.functions
    }

    /// Function `f`.
    pub fn function(&self, f: FuncIdx) -> &Function {
        &self.functions[f]
    }

    /// The function named `name` (O(1): the symbol table's entry).
    pub fn function_by_name(&self, name: &str) -> Option<FuncIdx> {
        self.symbol_by_name(name)
            .and_then(|s| self.symbol_function(s))
    }

    /// Global variables in module order.
    pub fn globals(&self) -> &IndexVec<GlobalIdx, GlobalVar> {
        &self.globals
    }

    /// Aliases in module order.
    pub fn aliases(&self) -> &IndexVec<AliasIdx, Alias> {
        &self.aliases
    }

    /// IFuncs in module order.
    pub fn ifuncs(&self) -> &IndexVec<AliasIdx, Alias> {
        &self.ifuncs
    }

    /// Number of symbols.
    pub fn num_symbols(&self) -> usize {
        self.symbols.len()
    }

    /// The name of symbol `s`.
    pub fn symbol_name(&self, s: SymbolIdx) -> &str {
        &self.symbols[s]
    }

    /// What symbol `s` denotes.
    pub fn symbol_def(&self, s: SymbolIdx) -> SymbolDef {
        self.symbol_defs[s]
    }

    /// The symbol named `name`.
    pub fn symbol_by_name(&self, name: &str) -> Option<SymbolIdx> {
        self.symbol_index.get(name).copied()
    }

    /// The function a symbol denotes, if it is one.
    pub fn symbol_function(&self, s: SymbolIdx) -> Option<FuncIdx> {
        match self.symbol_defs[s] {
            SymbolDef::Function(f) => Some(f),
            _ => None,
        }
    }

    /// The instruction-level SSA view ([`ir::Ir`]), if the module was read with
    /// the `.ll` reader's `instructions` option.
    pub fn ir(&self) -> Option<&ir::Ir> {
        self.ir.as_deref()
    }

    /// A shared handle on the instruction view, for analyses that outlive a borrow of
    /// the module.
    pub fn ir_arc(&self) -> Option<std::sync::Arc<ir::Ir>> {
        self.ir.clone()
    }

    /// The constant pool.
    pub fn consts(&self) -> &ConstPool {
        &self.consts
    }

    /// Function type `s`, whitespace-free (`i32(ptr,...)`).
    pub fn signature(&self, s: SigIdx) -> &str {
        &self.signatures[s]
    }

    /// Attribute groups `(number, words)` in text order.
    pub fn attr_groups(&self) -> &[(u32, Vec<String>)] {
        &self.attr_groups
    }

    /// True when function `f` carries attribute `attr` inline or through a group.
    pub fn function_has_attr(&self, f: FuncIdx, attr: &str) -> bool {
        let func = &self.functions[f];
        func.attrs.iter().any(|a| a == attr)
            || func.attr_groups.iter().any(|g| {
                self.attr_groups
                    .iter()
                    .any(|(n, words)| n == g && words.iter().any(|w| w == attr))
            })
    }

    /// The memory effect function `f`'s attributes declare (`readnone`/`memory(none)`,
    /// `readonly`/`memory(read)`, else `Write`).
    pub fn declared_mem(&self, f: FuncIdx) -> MemEffect {
        let has = |a: &str| self.function_has_attr(f, a);
        if has("readnone") || has("memory(none)") {
            MemEffect::None
        } else if has("readonly") || has("memory(read)") {
            MemEffect::Read
        } else {
            MemEffect::Write
        }
    }

    /// The name of a call site's callee when it is called directly.
    pub fn callee_name(&self, c: &CallSite) -> Option<&str> {
        match c.callee {
            Callee::Direct(s) => Some(&self.symbols[s]),
            _ => None,
        }
    }

    /// The function a call site calls directly with a matching type (LLVM's
    /// `CallBase::getCalledFunction`), if any.
    pub fn called_function(&self, c: &CallSite) -> Option<FuncIdx> {
        match c.callee {
            Callee::Direct(s) => self
                .symbol_function(s)
                .filter(|&t| self.functions[t].signature == c.fn_type),
            _ => None,
        }
    }
}
