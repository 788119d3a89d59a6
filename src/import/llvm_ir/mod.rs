//! A reader for LLVM IR text (`.ll`) as clang 14–19 and `opt` print it, into the engine's
//! model of a module ([`crate::llvm::Module`]).
//!
//! It keeps what the call graph, the CGSCC passes and the CFG builders need and skips
//! everything else structurally: module-level globals (with the constants of their
//! initializers), aliases, ifuncs, function declarations and definitions, basic blocks
//! with their terminators and successors, call sites, the constant operands of every
//! instruction, the memory effect of each body and `nvvm.annotations` kernels. Types,
//! attribute groups' contents beyond their words, metadata, comdats, debug records,
//! `module asm` and use-list orders are skipped without being interpreted, except that
//! the instruction view reads the debug locations of calls back from the metadata
//! ([`crate::llvm::ir::debugloc`]). Both typed-pointer syntax (`i8*`,
//! `bitcast (void ()* @f to i8*)`) and opaque pointers (`ptr`) are accepted.
//!
//! Files: [`lexer`] (tokens), `grammar` (types, values, module-level items), `body`
//! (functions, blocks, instructions).
//!
//! # What is validated, what is skipped
//! The reader rejects, with `file:line:col` and what was expected, what `llvm-as`
//! rejects at the syntax level in the parts it reads; what it skips it checks only for
//! balanced brackets.
//!
//! | construct | checked | skipped (structure only) |
//! |---|---|---|
//! | top level | every statement starts with `source_filename`, `target`, `define`, `declare`, `attributes`, `module asm`, `uselistorder`, `deplibs`, `@g =`, `%T = type`, `$c = comdat` or `!m =` | the bodies of type definitions, comdats, metadata (but `nvvm.annotations` kernels are read, and the instruction view reads the `DILocation`, `DILexicalBlock`, `DILexicalBlockFile` and `DISubprogram` nodes that `!dbg` on calls and definitions leads to) |
//! | globals | linkage and prefix keywords (`dso_local`, visibility, `thread_local(..)`, `unnamed_addr`, `addrspace(..)`, ...), `global`/`constant`/`alias`/`ifunc`, the type, the initializer's values, `, comdat` / `, comdat($c)` | trailing `, section`, `, align`, attached metadata |
//! | function headers | linkage and calling convention, return and parameter types, the parameter list, function attribute keywords (LLVM 14–19's list), `#N`, `section "s"`, `align N`, `comdat` / `comdat($c)`, `personality`, string attributes | parameter attributes, `gc`/`prefix`/`prologue` operands beyond their value |
//! | bodies | labels, unique block names, instruction opcodes (LangRef), operands separated by `,` up to the end of the line, atomic orderings, `br`/`switch`/`indirectbr`/`invoke`/`callbr`/pad operands and labels, defined branch targets | operand types beyond their syntax, SSA (defs before uses, types agreeing), metadata |
//! | values and types | type syntax, constant expressions, aggregates, nesting depth | constant folding, the types constant expressions would have |
//!
//! # Complexity and limits
//! One pass over the text, O(bytes) time and memory. With the instruction view
//! ([`ParseOptions::instructions`]) the first pass steps over the function bodies (to
//! the line holding only their `}`) and the instruction pass reads each body once,
//! deriving the model's per-function facts from its rows; the rest of the text (headers,
//! globals, aliases) is read by both passes. Nesting of types and constants is
//! bounded by [`MAX_DEPTH`]; deeper input is a [`ParseError`], never a stack overflow.
//! No length read from the input drives an allocation.

mod body;
mod grammar;
mod ir;
pub mod lexer;
pub mod parallel;

use crate::llvm::{ConstIdx, Module, SigIdx, SymbolIdx};
use ahash::AHashMap;
use lexer::{unescape, LexState};
use std::path::Path;

/// Deepest nesting of types / constant expressions the reader accepts.
pub const MAX_DEPTH: u32 = 256;

pub use super::ParseError;

/// What the reader builds beyond the call graph's model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Also build the instruction-level SSA view ([`crate::llvm::ir::Ir`], reached
    /// through [`Module::ir`]). The bodies are then read once, by the instruction
    /// pass, and the call graph's model of each body (blocks, call sites, operand
    /// references, memory effect) is derived from the rows it built; the first pass
    /// reads only what lies outside the bodies. Off by default: the call graph and the
    /// CFGs do not need the view, and reading a body for them alone is cheaper.
    pub instructions: bool,
}

/// Parses LLVM IR text. `file` only names the input in errors. A large module is parsed
/// by function on rayon's pool ([`parallel`]); the module is the same either way.
pub fn parse(file: &str, text: &str) -> Result<Module, ParseError> {
    parse_with(file, text, ParseOptions::default())
}

/// Parses LLVM IR text with options (see [`ParseOptions`]).
pub fn parse_with(file: &str, text: &str, opts: ParseOptions) -> Result<Module, ParseError> {
    let skip = opts.instructions;
    let (mut m, spans) =
        if text.len() >= parallel::MIN_PARALLEL_BYTES && rayon::current_num_threads() > 1 {
            parallel::parse_spans(file, text, skip)?
        } else {
            parse_sequential_spans(file, text, skip)?
        };
    if opts.instructions {
        let (ir, facts) = ir::build(&m, file, text, &spans)?;
        ir::derive_model(&mut m, &ir, facts);
        m.ir = Some(std::sync::Arc::new(ir));
    }
    Ok(m)
}

/// Makes items `0..n` with `make` on the pool's threads, each taken by whichever
/// thread is free, lowest first, and hands them to `take` on this thread in index
/// order, each as soon as every item before it was handed over: this thread makes
/// items of its own while the next one is not made yet, so that what `take` does
/// overlaps the making instead of following it; with none left to take it yields
/// until another thread finishes the next (at most one item's time). A panic in
/// `make` is raised here.
fn in_order<T: Send>(n: usize, make: impl Fn(usize) -> T + Sync, mut take: impl FnMut(T) + Send) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let made: Vec<Mutex<Option<std::thread::Result<T>>>> =
        (0..n).map(|_| Mutex::new(None)).collect();
    let slot = |k: usize| made[k].lock().unwrap_or_else(|e| e.into_inner());
    let make_next = || {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= n {
            return false;
        }
        let item = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| make(k)));
        *slot(k) = Some(item);
        true
    };
    rayon::scope(|s| {
        for _ in 1..rayon::current_num_threads().min(n) {
            s.spawn(|_| while make_next() {});
        }
        let mut handed = 0;
        while handed < n {
            let ready = slot(handed).take();
            match ready {
                Some(Ok(item)) => {
                    take(item);
                    handed += 1;
                }
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => {
                    if !make_next() {
                        std::thread::yield_now();
                    }
                }
            }
        }
    });
}

/// Parses LLVM IR text in one pass on this thread.
pub fn parse_sequential(file: &str, text: &str) -> Result<Module, ParseError> {
    parse_sequential_spans(file, text, false).map(|(m, _)| m)
}

/// [`parse_sequential`], also returning where the items begin; with `skip_bodies` the
/// function bodies are stepped over (the instruction pass reads them).
fn parse_sequential_spans(
    file: &str,
    text: &str,
    skip_bodies: bool,
) -> Result<(Module, Spans), ParseError> {
    let mut p = Parser::new(file, text);
    p.skip_bodies = skip_bodies;
    p.module()?;
    let spans = std::mem::take(&mut p.spans);
    Ok((p.finish(), spans))
}

impl Module {
    /// Parses LLVM IR text; `file` names the input in errors (`file:line:col: ...`).
    pub fn from_ll_str(file: &str, text: &str) -> Result<Module, ParseError> {
        parse(file, text)
    }

    /// Parses LLVM IR text with options.
    pub fn from_ll_str_with(
        file: &str,
        text: &str,
        opts: ParseOptions,
    ) -> Result<Module, ParseError> {
        parse_with(file, text, opts)
    }

    /// Reads and parses a `.ll` file (`-` reads standard input).
    ///
    /// # Errors
    /// The OS error when the file cannot be read, invalid UTF-8 with its byte offset, or
    /// the parse error with its line and column.
    pub fn from_ll_file(path: impl AsRef<Path>) -> Result<Module, ParseError> {
        Module::from_ll_file_with(path, ParseOptions::default())
    }

    /// Reads and parses a `.ll` file with options (see [`Module::from_ll_file`]).
    pub fn from_ll_file_with(
        path: impl AsRef<Path>,
        opts: ParseOptions,
    ) -> Result<Module, ParseError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = crate::import::read_text(path).map_err(|e| ParseError {
            file: name.clone(),
            line: 0,
            column: 0,
            message: e.to_string(),
        })?;
        parse_with(&name, &text, opts)
    }
}

struct Parser<'a> {
    file: &'a str,
    src: &'a str,
    st: LexState,
    m: Module,
    sym_map: AHashMap<String, SymbolIdx>,
    const_map: AHashMap<(&'a str, &'a str), ConstIdx>,
    sym_const: Vec<ConstIdx>,
    /// Names of the functions `nvvm.annotations` marks as kernels.
    annotated_kernels: Vec<String>,
    depth: u32,
    /// Type text of the last item parsed by `typed_item` ("" if none).
    last_type: &'a str,
    /// The outermost type parsed last was a function type.
    fn_type_seen: bool,
    sig_map: AHashMap<String, SigIdx>,
    sig_buf: String,
    // scratch for constant operand lists
    scratch: Vec<ConstIdx>,
    /// Per constant: its interning key (type text, value text); empty for symbols. What
    /// a parallel parse merges constants of several chunks by.
    const_keys: Vec<(&'a str, &'a str)>,
    /// Every symbol definition with where it is (`(symbol, line, column)`), in text order.
    def_pos: Vec<(SymbolIdx, u32, u32)>,
    /// Where the module's items begin, for the instruction pass ([`ir`]).
    spans: Spans,
    /// Step over function bodies (the instruction pass reads them, [`ParseOptions`]).
    skip_bodies: bool,
}

/// Where an item begins: byte offset of its first token, its line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) start: u32,
    pub(crate) line: u32,
    pub(crate) col: u32,
}

/// The positions of the items the instruction pass re-reads, each list in text order
/// (so in module order): functions (`define`/`declare`), global variables, aliases,
/// named type definitions and numbered metadata (`!N = ...`, what `!dbg` attachments
/// resolve through).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spans {
    pub(crate) funcs: Vec<Pos>,
    pub(crate) globals: Vec<Pos>,
    pub(crate) aliases: Vec<Pos>,
    pub(crate) types: Vec<Pos>,
    pub(crate) metadata: Vec<Pos>,
}

impl Spans {
    fn extend(&mut self, o: Spans) {
        self.funcs.extend(o.funcs);
        self.globals.extend(o.globals);
        self.aliases.extend(o.aliases);
        self.types.extend(o.types);
        self.metadata.extend(o.metadata);
    }
}

impl<'a> Parser<'a> {
    fn new(file: &'a str, src: &'a str) -> Self {
        Parser {
            file,
            src,
            st: LexState {
                pos: 0,
                line: 1,
                line_start: 0,
                peeked: None,
            },
            m: Module::default(),
            sym_map: AHashMap::new(),
            const_map: AHashMap::new(),
            sym_const: Vec::new(),
            annotated_kernels: Vec::new(),
            depth: 0,
            last_type: "",
            fn_type_seen: false,
            sig_map: AHashMap::new(),
            sig_buf: String::new(),
            scratch: Vec::new(),
            const_keys: Vec::new(),
            def_pos: Vec::new(),
            spans: Spans::default(),
            skip_bodies: false,
        }
    }

    /// A parser of the stretch `src[start..]` that begins a line (`line`, 1-based).
    /// Positions, slices and interning keys stay those of the whole text.
    fn at(file: &'a str, src: &'a str, start: usize, line: u32) -> Self {
        let mut p = Parser::new(file, src);
        p.st.pos = start;
        p.st.line = line;
        p.st.line_start = start;
        p
    }

    /// Resolves `nvvm.annotations` kernels and builds the name indexes.
    fn finish(mut self) -> Module {
        let kernels = std::mem::take(&mut self.annotated_kernels);
        finish_module(self.m, self.sym_map, kernels)
    }
}

/// The last step of every parse: marks the annotated kernels and builds the function and
/// symbol indexes.
fn finish_module(
    mut m: Module,
    sym_map: AHashMap<String, SymbolIdx>,
    annotated_kernels: Vec<String>,
) -> Module {
    for name in annotated_kernels {
        if let Some(f) = sym_map.get(&name).and_then(|&s| m.symbol_function(s)) {
            m.functions[f].nvvm_kernel = true;
        }
    }
    m.symbol_index = sym_map;
    m
}

/// Type text without whitespace (`{ i32, ptr }` → `{i32,ptr}`), for comparing types.
fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Appends `s` without whitespace to `out`.
fn squash_into(out: &mut String, s: &str) {
    out.extend(s.chars().filter(|c| !c.is_whitespace()));
}

/// `"abc"` → `abc` (anything else unchanged).
fn unquote(s: &str) -> &str {
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

/// `@foo` / `%"a b"` → `foo` / `a b`.
fn name_of(tok: &str) -> std::borrow::Cow<'_, str> {
    let s = &tok[1..];
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        std::borrow::Cow::Owned(unescape(&s[1..s.len() - 1]))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests;
