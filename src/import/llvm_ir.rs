//! A reader for LLVM IR text (`.ll`) as clang 14–19 and `opt` print it.
//!
//! It keeps what the call graph and the CFG builders need and skips everything else
//! structurally: module-level globals (with the constants of their initializers),
//! aliases, ifuncs, function declarations and definitions, basic blocks with their
//! terminators and successors, call sites and the constant operands of every
//! instruction. Types, attribute groups, metadata, comdats, debug records, `module asm`
//! and use-list orders are skipped without being interpreted. Both typed-pointer syntax
//! (`i8*`, `bitcast (void ()* @f to i8*)`) and opaque pointers (`ptr`) are accepted.
//!
//! # Invariants of the result
//! - `Block::succs` and `CallSite::block` index `Function::blocks`; block 0 is the entry.
//! - every [`ConstId`] in the module indexes [`Module::consts`]; every `sym` indexes
//!   [`Module::symbols`] and [`Module::symbol_defs`].
//! - Only constants that (transitively) mention a global are kept: leaf constants
//!   (numbers, strings, `zeroinitializer`, `blockaddress`, ...) are dropped because no
//!   analysis here can observe them. Kept constants are uniqued the way LLVM uniques
//!   them (a global by name; an expression or aggregate by its type and text), so a
//!   visited set over [`ConstId`]s behaves like LLVM's over `Constant*`.
//!
//! # Complexity and limits
//! One pass over the text, O(bytes) time and memory. Nesting of types and constants is
//! bounded by [`MAX_DEPTH`]; deeper input is a [`ParseError`], never a stack overflow.
//! No length read from the input drives an allocation.

use ahash::AHashMap;
use std::fmt;

/// Deepest nesting of types / constant expressions the reader accepts.
pub const MAX_DEPTH: u32 = 256;

/// A parse failure: where and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file name given to [`parse`].
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub column: u32,
    /// What went wrong / what was expected.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

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
    fn from_word(w: &str) -> Option<Linkage> {
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

/// Index of an interned constant in [`Module::consts`].
pub type ConstId = u32;

/// What a module-level symbol (`@name`) denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolDef {
    /// Index into [`Module::functions`].
    Function(u32),
    /// Index into [`Module::globals`].
    Global(u32),
    /// Index into [`Module::aliases`].
    Alias(u32),
    /// Index into [`Module::ifuncs`].
    IFunc(u32),
    /// Referenced but never declared (invalid IR; kept so nothing dangles).
    Undefined,
}

/// One node of the constant pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstKind {
    /// A global value `@sym` (function, variable, alias or ifunc); `sym` indexes
    /// [`Module::symbols`]. Its operand (LLVM's `operand_values`) is the initializer,
    /// aliasee or resolver of the symbol, not stored here.
    Symbol(u32),
    /// A constant expression, aggregate or `dso_local_equivalent`/`no_cfi` wrapper;
    /// its operands that mention globals are in [`ConstPool::operands`].
    Expr,
}

/// Interned constants that mention globals, in first-seen order.
///
/// # Invariants
/// - `starts.len() == kinds.len() + 1`; the operands of `c` are
///   `operands[starts[c]..starts[c + 1]]`, each `< c` (a DAG built bottom-up).
#[derive(Clone, Debug, Default)]
pub struct ConstPool {
    /// Kind per constant.
    pub kinds: Vec<ConstKind>,
    /// CSR offsets into `operands`.
    pub starts: Vec<u32>,
    /// Operand lists, in LLVM operand order (only operands that mention globals).
    pub operands: Vec<ConstId>,
}

impl ConstPool {
    /// Operands of constant `c` (only those that mention globals), in operand order.
    pub fn operands_of(&self, c: ConstId) -> &[ConstId] {
        &self.operands[self.starts[c as usize] as usize..self.starts[c as usize + 1] as usize]
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
#[derive(Clone, Debug)]
pub struct GlobalVar {
    /// Name without `@` and quotes.
    pub name: String,
    /// Symbol index.
    pub sym: u32,
    /// Linkage.
    pub linkage: Linkage,
    /// `constant` rather than `global`.
    pub is_constant: bool,
    /// Has an initializer (a definition rather than an `external` declaration).
    pub has_initializer: bool,
    /// The initializer when it mentions globals.
    pub initializer: Option<ConstId>,
}

/// `@a = alias T, ptr @aliasee` or `@i = ifunc T, ptr @resolver`.
#[derive(Clone, Debug)]
pub struct Alias {
    /// Name without `@` and quotes.
    pub name: String,
    /// Symbol index.
    pub sym: u32,
    /// Linkage.
    pub linkage: Linkage,
    /// The aliasee (or resolver) constant, when it mentions a global.
    pub target: Option<ConstId>,
}

/// How a call site names its callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// The callee operand is the symbol itself (`call void @f()`).
    Direct(u32),
    /// The callee is a constant expression mentioning globals (`call bitcast (@f ...)`).
    Const(ConstId),
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
    pub block: u32,
    /// `call`, `invoke` or `callbr`.
    pub kind: CallKind,
    /// The call's function type, an index into [`Module::signatures`].
    pub fn_type: u32,
}

/// One event of a function's operand walk, in instruction then operand order: what
/// LLVM's `LazyCallGraph::Node::populateSlow` looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandRef {
    /// A call-like instruction whose callee operand is directly symbol `.0`, with call
    /// function type `.1` (an index into [`Module::signatures`]); it comes before the
    /// instruction's constant operands. LLVM only counts it as a call of the function
    /// when the types agree (`CallBase::getCalledFunction`).
    DirectCall(u32, u32),
    /// A constant operand that mentions a global (the callee is the last operand).
    Const(ConstId),
}

/// A basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Label without `%` (unquoted, escapes decoded); unnamed blocks carry their slot
    /// number, e.g. `"5"`.
    pub name: String,
    /// Terminator opcode (`br`, `switch`, `ret`, ...); empty if the block has none.
    pub term: String,
    /// Successor block indices in LLVM order (duplicates kept).
    pub succs: Vec<u32>,
    /// Number of instructions in the block (terminator included, debug records not).
    pub instruction_count: u32,
}

/// A function declaration or definition.
#[derive(Clone, Debug)]
pub struct Function {
    /// Name without `@` and quotes.
    pub name: String,
    /// Symbol index.
    pub sym: u32,
    /// `define` (true) or `declare` (false).
    pub is_definition: bool,
    /// The function type, an index into [`Module::signatures`].
    pub signature: u32,
    /// Linkage.
    pub linkage: Linkage,
    /// Calling convention keyword (`fastcc`, `ptx_kernel`, `cc 10`, ...); empty = C.
    pub calling_conv: String,
    /// Attribute group references (`#0` → 0) on the function.
    pub attr_groups: Vec<u32>,
    /// Function attributes written inline after the parameter list.
    pub attrs: Vec<String>,
    /// 1-based line of the `define`/`declare`.
    pub line: u32,
    /// Basic blocks in text order; empty for a declaration.
    pub blocks: Vec<Block>,
    /// Instructions in the body (debug records excluded).
    pub instruction_count: u32,
    /// Call sites in text order.
    pub call_sites: Vec<CallSite>,
    /// Operand walk events (see [`OperandRef`]).
    pub operand_refs: Vec<OperandRef>,
}

/// A parsed module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// `source_filename`, if present.
    pub source_filename: Option<String>,
    /// `target triple`, if present.
    pub target_triple: Option<String>,
    /// Functions in module order.
    pub functions: Vec<Function>,
    /// Global variables in module order.
    pub globals: Vec<GlobalVar>,
    /// Aliases in module order.
    pub aliases: Vec<Alias>,
    /// IFuncs in module order.
    pub ifuncs: Vec<Alias>,
    /// Every `@name` seen, indexed by symbol.
    pub symbols: Vec<String>,
    /// What each symbol denotes (parallel to `symbols`).
    pub symbol_defs: Vec<SymbolDef>,
    /// Constants that mention globals.
    pub consts: ConstPool,
    /// Attribute groups: `(number, words)` in text order (`attributes #0 = { ... }`).
    pub attr_groups: Vec<(u32, Vec<String>)>,
    /// Symbol index by name (inverse of `symbols`).
    pub symbol_index: AHashMap<String, u32>,
    /// Interned function types, whitespace-free (`i32(ptr,...)`).
    pub signatures: Vec<String>,
}

impl Module {
    /// Index of the function named `name`.
    pub fn function_index(&self, name: &str) -> Option<u32> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as u32)
    }

    /// True when function `f` carries attribute `attr` inline or through a group.
    pub fn function_has_attr(&self, f: u32, attr: &str) -> bool {
        let func = &self.functions[f as usize];
        func.attrs.iter().any(|a| a == attr)
            || func.attr_groups.iter().any(|g| {
                self.attr_groups
                    .iter()
                    .any(|(n, words)| n == g && words.iter().any(|w| w == attr))
            })
    }

    /// The name of a call site's callee when it is called directly.
    pub fn callee_name(&self, c: &CallSite) -> Option<&str> {
        match c.callee {
            Callee::Direct(s) => Some(&self.symbols[s as usize]),
            _ => None,
        }
    }

    /// The function a symbol denotes, if it is one.
    pub fn symbol_function(&self, sym: u32) -> Option<u32> {
        match self.symbol_defs[sym as usize] {
            SymbolDef::Function(f) => Some(f),
            _ => None,
        }
    }
}

/// Parses LLVM IR text. `file` only names the input in errors.
pub fn parse(file: &str, text: &str) -> Result<Module, ParseError> {
    let mut p = Parser::new(file, text);
    p.module()?;
    Ok(p.finish())
}

// ---------------------------------------------------------------- lexer

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tk {
    Word,
    Label,
    Local,
    Global,
    Meta,
    Attr,
    Comdat,
    Str,
    CStr,
    Num,
    Punct,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Tk,
    start: u32,
    end: u32,
    line: u32,
    col: u32,
    nl_before: bool,
}

#[derive(Clone, Copy)]
struct LexState {
    pos: usize,
    line: u32,
    line_start: usize,
    peeked: Option<Tok>,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

/// Decodes LLVM's `\XX` and `\\` escapes of a quoted name.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    if !b.contains(&b'\\') {
        return s.to_string();
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\\' {
            out.push(b'\\');
            i += 2;
        } else if b[i] == b'\\'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let h = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(h(b[i + 1]) * 16 + h(b[i + 2]));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Parser<'a> {
    file: &'a str,
    src: &'a str,
    st: LexState,
    m: Module,
    sym_map: AHashMap<String, u32>,
    const_map: AHashMap<(&'a str, &'a str), ConstId>,
    sym_const: Vec<ConstId>,
    depth: u32,
    /// Type text of the last item parsed by `typed_item` ("" if none).
    last_type: &'a str,
    /// The outermost type parsed last was a function type.
    fn_type_seen: bool,
    sig_map: AHashMap<String, u32>,
    sig_buf: String,
    // scratch for constant operand lists
    scratch: Vec<ConstId>,
}

const TYPE_WORDS: &[&str] = &[
    "void",
    "half",
    "bfloat",
    "float",
    "double",
    "x86_fp80",
    "fp128",
    "ppc_fp128",
    "label",
    "metadata",
    "x86_mmx",
    "x86_amx",
    "token",
    "ptr",
    "opaque",
    "target",
];

const CONSTEXPR_WORDS: &[&str] = &[
    "bitcast",
    "getelementptr",
    "ptrtoint",
    "inttoptr",
    "addrspacecast",
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "select",
    "icmp",
    "fcmp",
    "add",
    "sub",
    "mul",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "udiv",
    "sdiv",
    "urem",
    "srem",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frem",
    "fneg",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
    "ptrauth",
    "splat",
];

const LEAF_VALUE_WORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "undef",
    "poison",
    "zeroinitializer",
];

fn is_int_type(w: &str) -> bool {
    w.len() > 1 && w.as_bytes()[0] == b'i' && w.as_bytes()[1..].iter().all(u8::is_ascii_digit)
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
            depth: 0,
            last_type: "",
            fn_type_seen: false,
            sig_map: AHashMap::new(),
            sig_buf: String::new(),
            scratch: Vec::new(),
        }
    }

    fn lex(&mut self) -> Tok {
        let b = self.src.as_bytes();
        let mut nl = false;
        let mut i = self.st.pos;
        loop {
            if i >= b.len() {
                break;
            }
            match b[i] {
                b'\n' => {
                    nl = true;
                    i += 1;
                    self.st.line += 1;
                    self.st.line_start = i;
                }
                b' ' | b'\t' | b'\r' => i += 1,
                b';' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        let start = i;
        let line = self.st.line;
        let col = (start - self.st.line_start) as u32 + 1;
        let mk = |kind, end: usize| Tok {
            kind,
            start: start as u32,
            end: end as u32,
            line,
            col,
            nl_before: nl,
        };
        if i >= b.len() {
            self.st.pos = i;
            return mk(Tk::Eof, i);
        }
        let c = b[i];
        let (kind, end) = match c {
            b'"' => {
                let e = self.scan_string(i);
                if e < b.len() && b[e] == b':' {
                    (Tk::Label, e + 1)
                } else {
                    (Tk::Str, e)
                }
            }
            b'%' | b'@' | b'!' | b'#' | b'$' => {
                let kind = match c {
                    b'%' => Tk::Local,
                    b'@' => Tk::Global,
                    b'!' => Tk::Meta,
                    b'#' => Tk::Attr,
                    _ => Tk::Comdat,
                };
                let mut e = i + 1;
                if e < b.len() && b[e] == b'"' && c != b'!' {
                    e = self.scan_string(e);
                } else {
                    while e < b.len() && (is_name_char(b[e]) || (c == b'!' && b[e] == b'\\')) {
                        e += 1;
                    }
                }
                (kind, e)
            }
            b'.' if b[i..].starts_with(b"...") => (Tk::Punct, i + 3),
            _ if is_name_char(c) || c == b'+' => {
                let mut e = i + 1;
                while e < b.len()
                    && (is_name_char(b[e]) || (b[e] == b'+' && matches!(b[e - 1], b'e' | b'E')))
                {
                    e += 1;
                }
                if e < b.len() && b[e] == b':' {
                    (Tk::Label, e + 1)
                } else if c == b'c' && e == i + 1 && e < b.len() && b[e] == b'"' {
                    (Tk::CStr, self.scan_string(e))
                } else if c.is_ascii_digit() || c == b'-' || c == b'+' {
                    (Tk::Num, e)
                } else {
                    (Tk::Word, e)
                }
            }
            _ => {
                // one character (a whole UTF-8 sequence, so slices stay on boundaries)
                let mut e = i + 1;
                while e < b.len() && (b[e] & 0xC0) == 0x80 {
                    e += 1;
                }
                (Tk::Punct, e)
            }
        };
        self.st.pos = end;
        mk(kind, end)
    }

    /// Returns the index just past the closing quote of a string starting at `i`.
    fn scan_string(&self, i: usize) -> usize {
        let b = self.src.as_bytes();
        let mut e = i + 1;
        while e < b.len() && b[e] != b'"' {
            e += 1;
        }
        (e + 1).min(b.len())
    }

    fn peek(&mut self) -> Tok {
        if let Some(t) = self.st.peeked {
            return t;
        }
        let t = self.lex();
        self.st.peeked = Some(t);
        t
    }

    fn next(&mut self) -> Tok {
        if let Some(t) = self.st.peeked.take() {
            return t;
        }
        self.lex()
    }

    fn text(&self, t: Tok) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }

    fn err_at<T>(&self, t: Tok, msg: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            file: self.file.to_string(),
            line: t.line,
            column: t.col,
            message: msg.into(),
        })
    }

    fn is_punct(&mut self, p: &str) -> bool {
        let t = self.peek();
        t.kind == Tk::Punct && self.text(t) == p
    }

    fn is_word(&mut self, w: &str) -> bool {
        let t = self.peek();
        t.kind == Tk::Word && self.text(t) == w
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> Result<Tok, ParseError> {
        let t = self.peek();
        if t.kind == Tk::Punct && self.text(t) == p {
            Ok(self.next())
        } else {
            self.err_at(t, format!("expected '{p}', found {}", self.describe(t)))
        }
    }

    fn describe(&self, t: Tok) -> String {
        if t.kind == Tk::Eof {
            "end of file".to_string()
        } else {
            let s = self.text(t);
            let s: String = s.chars().take(40).collect();
            format!("'{s}'")
        }
    }

    /// End of the current line-oriented statement (next token starts a new line).
    fn at_eol(&mut self) -> bool {
        let t = self.peek();
        t.nl_before || t.kind == Tk::Eof
    }

    /// Skips a balanced group starting at an opening bracket.
    fn skip_group(&mut self) -> Result<(), ParseError> {
        let mut depth = 0u32;
        loop {
            let t = self.next();
            if t.kind == Tk::Eof {
                return self.err_at(t, "unbalanced brackets: unexpected end of file");
            }
            if t.kind == Tk::Punct {
                match self.text(t) {
                    "(" | "[" | "{" | "<" => depth += 1,
                    ")" | "]" | "}" | ">" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Skips the rest of a statement: tokens up to the next one starting a line at
    /// bracket depth 0.
    fn skip_statement(&mut self) -> Result<(), ParseError> {
        let mut depth = 0i64;
        let mut first = true;
        loop {
            let t = self.peek();
            if t.kind == Tk::Eof {
                return Ok(());
            }
            if !first && depth <= 0 && t.nl_before {
                return Ok(());
            }
            first = false;
            self.next();
            if t.kind == Tk::Punct {
                match self.text(t) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth -= 1,
                    _ => {}
                }
            }
        }
    }

    /// Skips to the next `,` at depth 0 within the current line, not consuming it.
    fn skip_to_comma(&mut self) -> Result<(), ParseError> {
        loop {
            let t = self.peek();
            if t.kind == Tk::Eof || t.nl_before {
                return Ok(());
            }
            if t.kind == Tk::Punct {
                match self.text(t) {
                    "," | ")" | "]" | "}" | ">" => return Ok(()),
                    "(" | "[" | "{" | "<" => {
                        self.skip_group()?;
                        continue;
                    }
                    _ => {}
                }
            }
            self.next();
        }
    }

    // ------------------------------------------------------------ symbols, consts

    fn sym(&mut self, quoted_or_plain: &str) -> u32 {
        let name = name_of(quoted_or_plain);
        if let Some(&s) = self.sym_map.get(name.as_ref()) {
            return s;
        }
        let s = self.m.symbols.len() as u32;
        self.m.symbols.push(name.to_string());
        self.m.symbol_defs.push(SymbolDef::Undefined);
        self.sym_map.insert(name.into_owned(), s);
        s
    }

    fn sym_const(&mut self, sym: u32) -> ConstId {
        while self.sym_const.len() <= sym as usize {
            self.sym_const.push(u32::MAX);
        }
        if self.sym_const[sym as usize] == u32::MAX {
            let id = self.push_const(ConstKind::Symbol(sym), &[]);
            self.sym_const[sym as usize] = id;
        }
        self.sym_const[sym as usize]
    }

    fn push_const(&mut self, kind: ConstKind, ops: &[ConstId]) -> ConstId {
        let pool = &mut self.m.consts;
        if pool.starts.is_empty() {
            pool.starts.push(0);
        }
        let id = pool.kinds.len() as ConstId;
        pool.kinds.push(kind);
        pool.operands.extend_from_slice(ops);
        pool.starts.push(pool.operands.len() as u32);
        id
    }

    fn intern_expr(&mut self, key: (&'a str, &'a str), ops_from: usize) -> Option<ConstId> {
        if self.scratch.len() == ops_from {
            return None;
        }
        let id = if let Some(&id) = self.const_map.get(&key) {
            id
        } else {
            let ops: Vec<ConstId> = self.scratch[ops_from..].to_vec();
            let id = self.push_const(ConstKind::Expr, &ops);
            self.const_map.insert(key, id);
            id
        };
        self.scratch.truncate(ops_from);
        Some(id)
    }

    fn intern_sig(&mut self, sig: &str) -> u32 {
        if let Some(&i) = self.sig_map.get(sig) {
            return i;
        }
        let i = self.m.signatures.len() as u32;
        self.m.signatures.push(sig.to_string());
        self.sig_map.insert(sig.to_string(), i);
        i
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            let t = self.peek();
            return self.err_at(t, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    // ------------------------------------------------------------ types

    fn is_type_start(&mut self) -> bool {
        let t = self.peek();
        match t.kind {
            Tk::Word => {
                let w = self.text(t);
                is_int_type(w) || TYPE_WORDS.contains(&w)
            }
            Tk::Local => true,
            Tk::Punct => matches!(self.text(t), "[" | "{" | "<"),
            _ => false,
        }
    }

    /// Parses a type; returns Err if the tokens are not a type.
    fn parse_type(&mut self) -> Result<(), ParseError> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.depth -= 1;
        r
    }

    fn parse_type_inner(&mut self) -> Result<(), ParseError> {
        let t = self.next();
        match t.kind {
            Tk::Local => {}
            Tk::Word => {
                let w = self.text(t);
                if w == "ptr" {
                    if self.is_word("addrspace") {
                        self.next();
                        self.skip_group()?;
                    }
                } else if w == "target" {
                    if self.is_punct("(") {
                        self.skip_group()?;
                    }
                } else if !(is_int_type(w) || TYPE_WORDS.contains(&w)) {
                    return self.err_at(t, format!("expected a type, found {}", self.describe(t)));
                }
            }
            Tk::Punct => match self.text(t) {
                "[" => {
                    self.type_dims()?;
                    self.expect_punct("]")?;
                }
                "<" => {
                    if self.is_punct("{") {
                        self.next();
                        self.type_list("}")?;
                        self.expect_punct(">")?;
                    } else {
                        if self.is_word("vscale") {
                            self.next();
                            self.expect_word("x")?;
                        }
                        self.type_dims()?;
                        self.expect_punct(">")?;
                    }
                }
                "{" => self.type_list("}")?,
                _ => return self.err_at(t, format!("expected a type, found {}", self.describe(t))),
            },
            _ => return self.err_at(t, format!("expected a type, found {}", self.describe(t))),
        }
        // postfix: pointers, address spaces, function types
        loop {
            if self.eat_punct("*") {
                if self.depth == 1 {
                    // a pointer to a function type is not a function type
                    self.fn_type_seen = false;
                }
                continue;
            }
            if self.is_word("addrspace") {
                self.next();
                self.skip_group()?;
                continue;
            }
            if self.is_punct("(") {
                if self.depth == 1 {
                    self.fn_type_seen = true;
                }
                self.next();
                self.type_params()?;
                continue;
            }
            return Ok(());
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<(), ParseError> {
        let t = self.next();
        if t.kind == Tk::Word && self.text(t) == w {
            Ok(())
        } else {
            self.err_at(t, format!("expected '{w}', found {}", self.describe(t)))
        }
    }

    fn type_dims(&mut self) -> Result<(), ParseError> {
        let t = self.next();
        if t.kind != Tk::Num {
            return self.err_at(
                t,
                format!("expected an element count, found {}", self.describe(t)),
            );
        }
        self.expect_word("x")?;
        self.parse_type()
    }

    fn type_list(&mut self, close: &str) -> Result<(), ParseError> {
        if self.eat_punct(close) {
            return Ok(());
        }
        loop {
            self.parse_type()?;
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(close)?;
            return Ok(());
        }
    }

    /// Function type parameters after `(`: types with optional attributes, `...`.
    fn type_params(&mut self) -> Result<(), ParseError> {
        if self.eat_punct(")") {
            return Ok(());
        }
        loop {
            if !self.eat_punct("...") {
                self.parse_type()?;
                self.skip_attrs()?;
            }
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(")")?;
            return Ok(());
        }
    }

    /// Skips parameter / return attributes (`noundef`, `align 8`, `byval(T)`, ...).
    fn skip_attrs(&mut self) -> Result<(), ParseError> {
        loop {
            let t = self.peek();
            if t.nl_before {
                return Ok(());
            }
            match t.kind {
                Tk::Word => {
                    let w = self.text(t);
                    if self.is_value_word(w) || is_int_type(w) || TYPE_WORDS.contains(&w) {
                        return Ok(());
                    }
                    self.next();
                    if self.is_punct("(") {
                        self.skip_group()?;
                    } else if matches!(w, "align" | "addrspace" | "dereferenceable" | "cc")
                        && self.peek().kind == Tk::Num
                    {
                        self.next();
                    }
                }
                Tk::Str => {
                    // string attributes: "key"="value"
                    self.next();
                    if self.eat_punct("=") {
                        self.next();
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn is_value_word(&self, w: &str) -> bool {
        LEAF_VALUE_WORDS.contains(&w)
            || CONSTEXPR_WORDS.contains(&w)
            || matches!(
                w,
                "blockaddress" | "dso_local_equivalent" | "no_cfi" | "asm"
            )
    }

    // ------------------------------------------------------------ values

    fn is_value_start(&mut self) -> bool {
        let t = self.peek();
        match t.kind {
            Tk::Local | Tk::Global | Tk::Num | Tk::CStr => true,
            Tk::Word => self.is_value_word(self.text(t)),
            Tk::Punct => matches!(self.text(t), "[" | "{" | "<"),
            _ => false,
        }
    }

    /// Parses a typed item: `[flags] [type [attrs]] [value]`. Returns the constant when
    /// the value mentions globals.
    fn typed_item(&mut self) -> Result<Option<ConstId>, ParseError> {
        self.last_type = "";
        // leading flag words; only the first token of an item may start a new line
        let first = self.peek();
        loop {
            let t = self.peek();
            if t.nl_before && t.start != first.start {
                return Ok(None);
            }
            if t.kind == Tk::Word {
                let w = self.text(t);
                if w == "metadata" {
                    self.last_type = "metadata";
                    self.skip_to_comma()?;
                    return Ok(None);
                }
                if !(self.is_value_word(w) || is_int_type(w) || TYPE_WORDS.contains(&w)) {
                    self.next();
                    if self.is_punct("(") {
                        self.skip_group()?;
                    } else if matches!(w, "align" | "addrspace") && self.peek().kind == Tk::Num {
                        self.next();
                    }
                    continue;
                }
            }
            break;
        }
        let t = self.peek();
        if t.kind == Tk::Meta {
            self.skip_to_comma()?;
            return Ok(None);
        }
        if t.nl_before && t.start != first.start {
            return Ok(None);
        }
        if self.is_type_start() {
            let save = self.st;
            let saved_scratch = self.scratch.len();
            let r = self.parse_type();
            if let Err(e) = &r {
                if e.message.starts_with("nesting deeper") {
                    return Err(e.clone());
                }
            }
            if r.is_ok() {
                let ty_end = self
                    .st
                    .peeked
                    .map(|p| p.start)
                    .unwrap_or(self.st.pos as u32);
                let ty = &self.src[t.start as usize..ty_end as usize];
                self.skip_attrs()?;
                let r = if !self.peek().nl_before && self.is_value_start() {
                    self.value(ty)?
                } else {
                    None
                };
                self.last_type = ty;
                return Ok(r);
            }
            self.st = save;
            self.scratch.truncate(saved_scratch);
        }
        if self.is_value_start() {
            return self.value("");
        }
        Ok(None)
    }

    /// Parses a value of (already parsed) type text `ty`.
    fn value(&mut self, ty: &'a str) -> Result<Option<ConstId>, ParseError> {
        self.enter()?;
        let r = self.value_inner(ty);
        self.depth -= 1;
        r
    }

    fn value_inner(&mut self, ty: &'a str) -> Result<Option<ConstId>, ParseError> {
        let t = self.next();
        match t.kind {
            Tk::Global => {
                let s = self.sym(self.text(t));
                Ok(Some(self.sym_const(s)))
            }
            Tk::Local | Tk::Num | Tk::CStr => Ok(None),
            Tk::Punct => {
                let open = self.text(t);
                let close = match open {
                    "[" => "]",
                    "{" => "}",
                    "<" => {
                        if self.eat_punct("{") {
                            "}"
                        } else {
                            ">"
                        }
                    }
                    _ => {
                        return self
                            .err_at(t, format!("expected a value, found {}", self.describe(t)))
                    }
                };
                let from = self.scratch.len();
                if !self.eat_punct(close) {
                    loop {
                        if let Some(c) = self.typed_item()? {
                            self.scratch.push(c);
                        }
                        self.skip_to_comma()?;
                        if self.eat_punct(",") {
                            continue;
                        }
                        self.expect_punct(close)?;
                        break;
                    }
                }
                if open == "<" && close == "}" {
                    self.expect_punct(">")?;
                }
                let end = self
                    .st
                    .peeked
                    .map(|p| p.start)
                    .unwrap_or(self.st.pos as u32);
                Ok(self.intern_expr((ty, &self.src[t.start as usize..end as usize]), from))
            }
            Tk::Word => {
                let w = self.text(t);
                if LEAF_VALUE_WORDS.contains(&w) {
                    return Ok(None);
                }
                if w == "asm" {
                    // asm [flags] "code", "constraints"
                    while self.peek().kind == Tk::Word {
                        self.next();
                    }
                    self.next();
                    self.eat_punct(",");
                    self.next();
                    return Ok(None);
                }
                if w == "blockaddress" {
                    self.skip_group()?;
                    return Ok(None);
                }
                if w == "dso_local_equivalent" || w == "no_cfi" {
                    let from = self.scratch.len();
                    if let Some(c) = self.value("")? {
                        self.scratch.push(c);
                    }
                    let end = self
                        .st
                        .peeked
                        .map(|p| p.start)
                        .unwrap_or(self.st.pos as u32);
                    return Ok(
                        self.intern_expr((ty, &self.src[t.start as usize..end as usize]), from)
                    );
                }
                // constant expression: keyword, flags/predicates, '(' items ')'
                while !self.is_punct("(") {
                    let f = self.next();
                    if f.kind != Tk::Word || f.nl_before {
                        return self.err_at(
                            f,
                            format!(
                                "expected '(' in constant expression, found {}",
                                self.describe(f)
                            ),
                        );
                    }
                }
                self.next();
                let from = self.scratch.len();
                if !self.eat_punct(")") {
                    loop {
                        if let Some(c) = self.typed_item()? {
                            self.scratch.push(c);
                        }
                        // `to T` in casts
                        if self.is_word("to") {
                            self.next();
                            self.parse_type()?;
                        }
                        self.skip_to_comma()?;
                        if self.eat_punct(",") {
                            continue;
                        }
                        self.expect_punct(")")?;
                        break;
                    }
                }
                // extractvalue/insertvalue constexpr (old syntax) indices after ')'
                let end = self
                    .st
                    .peeked
                    .map(|p| p.start)
                    .unwrap_or(self.st.pos as u32);
                Ok(self.intern_expr((ty, &self.src[t.start as usize..end as usize]), from))
            }
            _ => self.err_at(t, format!("expected a value, found {}", self.describe(t))),
        }
    }

    // ------------------------------------------------------------ module

    fn module(&mut self) -> Result<(), ParseError> {
        loop {
            let t = self.peek();
            match t.kind {
                Tk::Eof => return Ok(()),
                Tk::Word => match self.text(t) {
                    "source_filename" => {
                        self.next();
                        self.expect_punct("=")?;
                        let s = self.next();
                        if s.kind == Tk::Str {
                            let txt = self.text(s);
                            self.m.source_filename = Some(unescape(unquote(txt)));
                        }
                    }
                    "target" => {
                        self.next();
                        if self.is_word("triple") {
                            self.next();
                            self.expect_punct("=")?;
                            let s = self.next();
                            if s.kind == Tk::Str {
                                let txt = self.text(s);
                                self.m.target_triple = Some(unquote(txt).to_string());
                            }
                        } else {
                            self.skip_statement()?;
                        }
                    }
                    "define" => self.function(true)?,
                    "declare" => self.function(false)?,
                    "attributes" => self.attributes()?,
                    "module" | "uselistorder" | "uselistorder_bb" | "deplibs" => {
                        self.skip_statement()?
                    }
                    _ => {
                        return self.err_at(
                            t,
                            format!("expected a top-level entity, found {}", self.describe(t)),
                        )
                    }
                },
                Tk::Local | Tk::Meta | Tk::Comdat => self.skip_statement()?,
                Tk::Global => self.global()?,
                _ => {
                    return self.err_at(
                        t,
                        format!("expected a top-level entity, found {}", self.describe(t)),
                    )
                }
            }
        }
    }

    fn attributes(&mut self) -> Result<(), ParseError> {
        self.next();
        let g = self.next();
        if g.kind != Tk::Attr {
            return self.err_at(g, "expected an attribute group '#N'");
        }
        let n = self.text(g)[1..].parse::<u32>().unwrap_or(u32::MAX);
        self.expect_punct("=")?;
        let open = self.expect_punct("{")?;
        let mut words = Vec::new();
        loop {
            let t = self.next();
            match t.kind {
                Tk::Eof => return self.err_at(open, "unterminated attribute group"),
                Tk::Punct if self.text(t) == "}" => break,
                Tk::Punct if self.text(t) == "(" => {
                    // skip to ')'
                    while !self.eat_punct(")") {
                        if self.next().kind == Tk::Eof {
                            return self.err_at(open, "unterminated attribute group");
                        }
                    }
                }
                Tk::Word | Tk::Str => words.push(self.text(t).to_string()),
                _ => {}
            }
        }
        self.m.attr_groups.push((n, words));
        Ok(())
    }

    fn global(&mut self) -> Result<(), ParseError> {
        let name_tok = self.next();
        let sym = self.sym(self.text(name_tok));
        self.expect_punct("=")?;
        let mut linkage = Linkage::External;
        let mut explicit_external = false;
        loop {
            let t = self.next();
            if t.kind != Tk::Word || (t.nl_before && t.kind == Tk::Eof) {
                return self.err_at(
                    t,
                    format!(
                        "expected 'global', 'constant', 'alias' or 'ifunc', found {}",
                        self.describe(t)
                    ),
                );
            }
            let w = self.text(t);
            if let Some(l) = Linkage::from_word(w) {
                linkage = l;
                explicit_external |= matches!(l, Linkage::External | Linkage::ExternWeak);
                continue;
            }
            match w {
                "global" | "constant" => {
                    let ty_tok = self.peek();
                    self.parse_type()?;
                    let ty_end = self.peek().start as usize;
                    let ty = &self.src[ty_tok.start as usize..ty_end];
                    let has_init = !explicit_external && !self.at_eol() && !self.is_punct(",");
                    let mut init = None;
                    if has_init {
                        init = self.value(ty)?;
                    }
                    let idx = self.m.globals.len() as u32;
                    self.define_sym(sym, SymbolDef::Global(idx), name_tok)?;
                    self.m.globals.push(GlobalVar {
                        name: self.m.symbols[sym as usize].clone(),
                        sym,
                        linkage,
                        is_constant: w == "constant",
                        has_initializer: has_init,
                        initializer: init,
                    });
                    self.skip_statement_rest()?;
                    return Ok(());
                }
                "alias" | "ifunc" => {
                    self.parse_type()?;
                    self.expect_punct(",")?;
                    let target = self.typed_item()?;
                    let a = Alias {
                        name: self.m.symbols[sym as usize].clone(),
                        sym,
                        linkage,
                        target,
                    };
                    if w == "alias" {
                        self.define_sym(
                            sym,
                            SymbolDef::Alias(self.m.aliases.len() as u32),
                            name_tok,
                        )?;
                        self.m.aliases.push(a);
                    } else {
                        self.define_sym(
                            sym,
                            SymbolDef::IFunc(self.m.ifuncs.len() as u32),
                            name_tok,
                        )?;
                        self.m.ifuncs.push(a);
                    }
                    self.skip_statement_rest()?;
                    return Ok(());
                }
                _ => {
                    if self.is_punct("(") {
                        self.skip_group()?;
                    }
                }
            }
        }
    }

    /// Skips trailing `, section ...`, `, align N`, `!dbg` etc. to the end of the line.
    fn skip_statement_rest(&mut self) -> Result<(), ParseError> {
        while !self.at_eol() {
            if self.is_punct("(") || self.is_punct("{") || self.is_punct("[") {
                self.skip_group()?;
            } else {
                self.next();
            }
        }
        Ok(())
    }

    fn define_sym(&mut self, sym: u32, def: SymbolDef, at: Tok) -> Result<(), ParseError> {
        if self.m.symbol_defs[sym as usize] != SymbolDef::Undefined {
            return self.err_at(
                at,
                format!("redefinition of '@{}'", self.m.symbols[sym as usize]),
            );
        }
        self.m.symbol_defs[sym as usize] = def;
        Ok(())
    }

    fn function(&mut self, is_def: bool) -> Result<(), ParseError> {
        let kw = self.next();
        let mut linkage = Linkage::External;
        let mut cc = String::new();
        let mut ret = String::new();
        // header words and the return type, up to the function name
        let name_tok = loop {
            let t = self.peek();
            if t.kind == Tk::Eof || (t.nl_before && t.start != kw.start) {
                return self.err_at(t, "expected a function name");
            }
            if t.kind == Tk::Global {
                break self.next();
            }
            if self.is_type_start() {
                self.parse_type()?;
                let end = self.peek().start as usize;
                ret = squash(&self.src[t.start as usize..end]);
                continue;
            }
            if t.kind == Tk::Word {
                let w = self.text(t);
                if let Some(l) = Linkage::from_word(w) {
                    linkage = l;
                } else if w.ends_with("cc")
                    || w.starts_with("ptx_")
                    || w.starts_with("amdgpu_")
                    || w.starts_with("spir_")
                {
                    cc = w.to_string();
                    if w == "cc" {
                        self.next();
                        let n = self.peek();
                        cc = format!("cc {}", self.text(n));
                    }
                }
            }
            self.next();
            if self.is_punct("(") {
                self.skip_group()?;
            }
        };
        let sym = self.sym(self.text(name_tok));
        // parameters: types for the signature; unnamed / numbered ones for slot numbering
        let open = self.expect_punct("(")?;
        let mut numbered = 0u32;
        let mut params: Vec<String> = Vec::new();
        if !self.eat_punct(")") {
            loop {
                if self.eat_punct("...") {
                    params.push("...".to_string());
                } else {
                    let t = self.peek();
                    if t.kind == Tk::Eof {
                        return self.err_at(open, "unterminated parameter list");
                    }
                    self.parse_type()?;
                    let end = self.peek().start as usize;
                    params.push(squash(&self.src[t.start as usize..end]));
                    self.skip_attrs()?;
                    let n = self.peek();
                    if n.kind == Tk::Local {
                        self.next();
                        if self.text(n)[1..].bytes().all(|c| c.is_ascii_digit()) {
                            numbered += 1;
                        }
                    } else {
                        numbered += 1;
                    }
                }
                if self.eat_punct(",") {
                    continue;
                }
                self.expect_punct(")")?;
                break;
            }
        }
        let signature = self.intern_sig(&format!("{ret}({})", params.join(",")));
        // trailing header: attributes, section, personality, ... up to '{' or EOL
        let mut attr_groups = Vec::new();
        let mut attrs = Vec::new();
        loop {
            if is_def {
                if self.is_punct("{") {
                    self.next();
                    break;
                }
                if self.peek().kind == Tk::Eof {
                    let t = self.peek();
                    return self.err_at(t, "expected '{' to start the function body");
                }
            } else if self.at_eol() {
                break;
            }
            let t = self.peek();
            match t.kind {
                Tk::Attr => {
                    self.next();
                    if let Ok(n) = self.text(t)[1..].parse::<u32>() {
                        attr_groups.push(n);
                    }
                }
                Tk::Word => {
                    let w = self.text(t);
                    self.next();
                    if matches!(w, "personality" | "prefix" | "prologue") {
                        self.typed_item()?;
                    } else if self.is_punct("(") {
                        self.skip_group()?;
                    } else if !matches!(
                        w,
                        "unnamed_addr"
                            | "local_unnamed_addr"
                            | "section"
                            | "partition"
                            | "comdat"
                            | "align"
                            | "gc"
                    ) {
                        attrs.push(w.to_string());
                    }
                }
                Tk::Punct if matches!(self.text(t), "(" | "[" | "<") => self.skip_group()?,
                _ => {
                    self.next();
                }
            }
        }
        let fidx = self.m.functions.len() as u32;
        self.define_sym(sym, SymbolDef::Function(fidx), name_tok)?;
        let mut f = Function {
            name: self.m.symbols[sym as usize].clone(),
            sym,
            is_definition: is_def,
            signature,
            linkage,
            calling_conv: cc,
            attr_groups,
            attrs,
            line: kw.line,
            blocks: Vec::new(),
            instruction_count: 0,
            call_sites: Vec::new(),
            operand_refs: Vec::new(),
        };
        if is_def {
            self.body(&mut f, numbered)?;
        }
        self.m.functions.push(f);
        Ok(())
    }

    // ------------------------------------------------------------ function bodies

    fn body(&mut self, f: &mut Function, first_slot: u32) -> Result<(), ParseError> {
        let mut next_slot = first_slot;
        let mut labels: AHashMap<String, u32> = AHashMap::new();
        // successor label references per block, resolved at the end
        let mut pending: Vec<(u32, String, Tok)> = Vec::new();
        let mut succs: Vec<(String, Tok)> = Vec::new();
        let mut open_block = false; // a block is open and has no terminator yet
        loop {
            let t = self.peek();
            match t.kind {
                Tk::Eof => return self.err_at(t, format!("unterminated body of '@{}'", f.name)),
                Tk::Punct if self.text(t) == "}" => {
                    self.next();
                    break;
                }
                Tk::Label => {
                    self.next();
                    let raw = self.text(t);
                    let raw = &raw[..raw.len() - 1];
                    let name = if raw.starts_with('"') {
                        unescape(&raw[1..raw.len() - 1])
                    } else {
                        raw.to_string()
                    };
                    if let Ok(n) = name.parse::<u32>() {
                        next_slot = n.saturating_add(1);
                    }
                    if labels.insert(name.clone(), f.blocks.len() as u32).is_some() {
                        return self.err_at(t, format!("redefinition of block '%{name}'"));
                    }
                    f.blocks.push(Block {
                        name,
                        term: String::new(),
                        succs: Vec::new(),
                        instruction_count: 0,
                    });
                    open_block = true;
                }
                Tk::Attr => {
                    // debug record (#dbg_value(...))
                    self.skip_statement()?;
                }
                Tk::Word if matches!(self.text(t), "uselistorder" | "uselistorder_bb") => {
                    self.skip_statement()?;
                }
                _ => {
                    if !open_block {
                        let name = next_slot.to_string();
                        next_slot += 1;
                        labels.insert(name.clone(), f.blocks.len() as u32);
                        f.blocks.push(Block {
                            name,
                            term: String::new(),
                            succs: Vec::new(),
                            instruction_count: 0,
                        });
                        open_block = true;
                    }
                    let b = f.blocks.len() - 1;
                    succs.clear();
                    let term = self.instruction(f, b as u32, &mut next_slot, &mut succs)?;
                    pending.extend(succs.drain(..).map(|(n, t)| (b as u32, n, t)));
                    f.instruction_count += 1;
                    f.blocks[b].instruction_count += 1;
                    if let Some(term) = term {
                        f.blocks[b].term = term.to_string();
                        open_block = false;
                    }
                }
            }
        }
        for (b, name, at) in pending {
            match labels.get(&name) {
                Some(&i) => f.blocks[b as usize].succs.push(i),
                None => return self.err_at(at, format!("use of undefined block '%{name}'")),
            }
        }
        Ok(())
    }

    /// Parses `label %x`, returning the decoded name.
    fn label_ref(&mut self) -> Result<(String, Tok), ParseError> {
        let t = self.next();
        if !(t.kind == Tk::Word && self.text(t) == "label") {
            return self.err_at(t, format!("expected 'label', found {}", self.describe(t)));
        }
        let l = self.next();
        if l.kind != Tk::Local {
            return self.err_at(
                l,
                format!("expected a block reference, found {}", self.describe(l)),
            );
        }
        Ok((name_of(self.text(l)).into_owned(), l))
    }

    fn push_item_const(&mut self, f: &mut Function, c: Option<ConstId>) {
        if let Some(c) = c {
            f.operand_refs.push(OperandRef::Const(c));
        }
    }

    /// Generic comma-separated typed operands to the end of the line.
    fn generic_operands(&mut self, f: &mut Function) -> Result<(), ParseError> {
        while !self.at_eol() {
            let c = self.typed_item()?;
            self.push_item_const(f, c);
            if self.is_word("to") {
                self.next();
                self.parse_type()?;
            }
            self.skip_to_comma()?;
            if !self.eat_punct(",") {
                if self.at_eol() {
                    break;
                }
                // stray token (e.g. a closing bracket of malformed input): consume it
                let t = self.next();
                if t.kind == Tk::Eof {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Parses one instruction; returns the terminator opcode if it is one.
    fn instruction(
        &mut self,
        f: &mut Function,
        block: u32,
        next_slot: &mut u32,
        succs: &mut Vec<(String, Tok)>,
    ) -> Result<Option<&'a str>, ParseError> {
        let mut t = self.next();
        if t.kind == Tk::Local {
            let name = &self.text(t)[1..];
            if let Ok(n) = name.parse::<u32>() {
                *next_slot = n.saturating_add(1);
            }
            self.expect_punct("=")?;
            t = self.next();
        }
        if t.kind != Tk::Word {
            return self.err_at(
                t,
                format!("expected an instruction, found {}", self.describe(t)),
            );
        }
        let mut op = self.text(t);
        while matches!(op, "tail" | "musttail" | "notail") {
            let u = self.next();
            op = self.text(u);
        }
        match op {
            "br" => {
                if self.is_word("label") {
                    succs.push(self.label_ref()?);
                } else {
                    let c = self.typed_item()?;
                    self.push_item_const(f, c);
                    self.expect_punct(",")?;
                    succs.push(self.label_ref()?);
                    self.expect_punct(",")?;
                    succs.push(self.label_ref()?);
                }
                self.skip_statement_rest()?;
                Ok(Some("br"))
            }
            "switch" => {
                let c = self.typed_item()?;
                self.push_item_const(f, c);
                self.expect_punct(",")?;
                succs.push(self.label_ref()?);
                self.expect_punct("[")?;
                while !self.eat_punct("]") {
                    let c = self.typed_item()?;
                    self.push_item_const(f, c);
                    self.expect_punct(",")?;
                    succs.push(self.label_ref()?);
                    if self.peek().kind == Tk::Eof {
                        let t = self.peek();
                        return self.err_at(t, "unterminated switch");
                    }
                }
                self.skip_statement_rest()?;
                Ok(Some("switch"))
            }
            "indirectbr" => {
                let c = self.typed_item()?;
                self.push_item_const(f, c);
                self.expect_punct(",")?;
                self.expect_punct("[")?;
                while !self.eat_punct("]") {
                    succs.push(self.label_ref()?);
                    self.eat_punct(",");
                }
                self.skip_statement_rest()?;
                Ok(Some("indirectbr"))
            }
            "call" | "invoke" | "callbr" => {
                self.call(f, block, op, succs)?;
                Ok(match op {
                    "call" => None,
                    "invoke" => Some("invoke"),
                    _ => Some("callbr"),
                })
            }
            "ret" | "resume" => {
                self.generic_operands(f)?;
                Ok(Some(op))
            }
            "unreachable" => {
                self.skip_statement_rest()?;
                Ok(Some("unreachable"))
            }
            "cleanupret" | "catchret" | "catchswitch" => {
                // cleanupret from %x unwind (label %u | to caller)
                // catchret from %x to label %t
                // catchswitch within %p [label %a, ...] unwind (label %u | to caller)
                let mut handlers = Vec::new();
                let mut unwind = None;
                while !self.at_eol() || self.is_punct("]") {
                    if self.is_word("label") {
                        handlers.push(self.label_ref()?);
                    } else if self.is_word("unwind") {
                        self.next();
                        if self.is_word("label") {
                            unwind = Some(self.label_ref()?);
                        }
                    } else if self.is_punct("!") || self.peek().kind == Tk::Meta {
                        self.skip_to_comma()?;
                        if !self.eat_punct(",") {
                            break;
                        }
                    } else {
                        self.next();
                    }
                }
                // LLVM order: catchswitch lists its unwind destination first.
                if op == "catchswitch" {
                    if let Some(u) = unwind.take() {
                        succs.push(u);
                    }
                }
                succs.extend(handlers);
                if let Some(u) = unwind {
                    succs.push(u);
                }
                Ok(Some(op))
            }
            "phi" => {
                self.skip_flags();
                self.parse_type()?;
                loop {
                    self.expect_punct("[")?;
                    let c = self.typed_item()?;
                    self.push_item_const(f, c);
                    self.skip_to_comma()?;
                    self.expect_punct(",")?;
                    self.next();
                    self.expect_punct("]")?;
                    if !self.eat_punct(",") {
                        break;
                    }
                    if self.peek().kind == Tk::Meta {
                        self.skip_statement_rest()?;
                        break;
                    }
                }
                self.skip_statement_rest()?;
                Ok(None)
            }
            "landingpad" => {
                self.parse_type()?;
                loop {
                    if self.is_word("cleanup") {
                        self.next();
                    } else if self.is_word("catch") || self.is_word("filter") {
                        self.next();
                        let c = self.typed_item()?;
                        self.push_item_const(f, c);
                    } else {
                        break;
                    }
                }
                self.skip_statement_rest()?;
                Ok(None)
            }
            "catchpad" | "cleanuppad" => {
                // within %x [args]
                while !self.at_eol() && !self.is_punct("[") {
                    self.next();
                }
                if self.eat_punct("[") {
                    while !self.eat_punct("]") {
                        let c = self.typed_item()?;
                        self.push_item_const(f, c);
                        self.skip_to_comma()?;
                        if !self.eat_punct(",") {
                            self.expect_punct("]")?;
                            break;
                        }
                    }
                }
                self.skip_statement_rest()?;
                Ok(None)
            }
            "atomicrmw" => {
                // atomicrmw [volatile] <op> T p, T v ...: skip the words before the type
                // (the operation word may look like a constant-expression keyword).
                self.skip_flags();
                self.generic_operands(f)?;
                Ok(None)
            }
            _ => {
                self.generic_operands(f)?;
                Ok(None)
            }
        }
    }

    fn skip_flags(&mut self) {
        loop {
            let t = self.peek();
            if t.kind == Tk::Word {
                let w = self.text(t);
                if !(is_int_type(w) || TYPE_WORDS.contains(&w)) {
                    self.next();
                    continue;
                }
            }
            return;
        }
    }

    fn call(
        &mut self,
        f: &mut Function,
        block: u32,
        op: &str,
        succs: &mut Vec<(String, Tok)>,
    ) -> Result<(), ParseError> {
        // [fast-math flags] [cc] [ret attrs] [addrspace(N)] <ty> <callee> (<args>) ...
        loop {
            let t = self.peek();
            if t.kind == Tk::Word {
                let w = self.text(t);
                if is_int_type(w) || TYPE_WORDS.contains(&w) {
                    break;
                }
                self.next();
                if self.is_punct("(") {
                    self.skip_group()?;
                } else if matches!(w, "align" | "cc" | "dereferenceable")
                    && self.peek().kind == Tk::Num
                {
                    self.next();
                }
                continue;
            }
            if t.kind == Tk::Str {
                self.next();
                continue;
            }
            break;
        }
        let ty_tok = self.peek();
        self.fn_type_seen = false;
        self.parse_type()?;
        let explicit_fn_type = self.fn_type_seen;
        // the call's function type, built without whitespace in a reused buffer
        let mut sig = std::mem::take(&mut self.sig_buf);
        sig.clear();
        squash_into(
            &mut sig,
            &self.src[ty_tok.start as usize..self.peek().start as usize],
        );
        if !explicit_fn_type {
            sig.push('(');
        }
        // callee
        let ct = self.peek();
        let callee = if ct.kind == Tk::Global {
            self.next();
            let s = self.sym(self.text(ct));
            Callee::Direct(s)
        } else if ct.kind == Tk::Word && self.text(ct) == "asm" {
            self.value("")?;
            Callee::InlineAsm
        } else {
            match self.value("")? {
                Some(c) => Callee::Const(c),
                None => Callee::Indirect,
            }
        };
        let direct_at = f.operand_refs.len();
        if let Callee::Direct(s) = callee {
            f.operand_refs.push(OperandRef::DirectCall(s, u32::MAX));
        }
        // arguments
        let open = self.expect_punct("(")?;
        let mut arg_count = 0u32;

        if !self.eat_punct(")") {
            loop {
                arg_count += 1;
                let c = self.typed_item()?;
                if !explicit_fn_type {
                    if arg_count > 1 {
                        sig.push(',');
                    }
                    squash_into(&mut sig, self.last_type);
                }
                self.push_item_const(f, c);
                self.skip_to_comma()?;
                if self.eat_punct(",") {
                    continue;
                }
                if self.eat_punct(")") {
                    break;
                }
                let t = self.peek();
                return self.err_at(
                    t,
                    format!(
                        "expected ',' or ')' in call arguments (opened at {}:{}), found {}",
                        open.line,
                        open.col,
                        self.describe(t)
                    ),
                );
            }
        }
        // function attributes, operand bundles, invoke/callbr destinations
        loop {
            if op == "call" && self.at_eol() {
                break;
            }
            let t = self.peek();
            if t.kind == Tk::Eof {
                break;
            }
            if t.nl_before
                && op != "call"
                && !self.is_word("to")
                && !self.is_word("unwind")
                && !self.is_punct("[")
            {
                break;
            }
            if self.is_punct("[") {
                if op == "callbr" && !succs.is_empty() {
                    // indirect destinations
                    self.next();
                    while !self.eat_punct("]") {
                        succs.push(self.label_ref()?);
                        self.eat_punct(",");
                    }
                    continue;
                }
                // operand bundles: [ "tag"(T v, ...), ... ]
                self.next();
                while !self.eat_punct("]") {
                    let tag = self.next();
                    if tag.kind == Tk::Eof {
                        return self.err_at(tag, "unterminated operand bundle list");
                    }
                    if self.eat_punct("(") && !self.eat_punct(")") {
                        loop {
                            let c = self.typed_item()?;
                            self.push_item_const(f, c);
                            self.skip_to_comma()?;
                            if self.eat_punct(",") {
                                continue;
                            }
                            self.expect_punct(")")?;
                            break;
                        }
                    }
                    self.eat_punct(",");
                }
                continue;
            }
            if self.is_word("to") {
                self.next();
                succs.push(self.label_ref()?);
                continue;
            }
            if self.is_word("unwind") {
                self.next();
                succs.push(self.label_ref()?);
                continue;
            }
            if t.kind == Tk::Meta || self.is_punct(",") {
                // , !dbg !12 ...
                self.next();
                continue;
            }
            if self.is_punct("(") {
                self.skip_group()?;
                continue;
            }
            self.next();
        }
        if let Callee::Const(c) = callee {
            f.operand_refs.push(OperandRef::Const(c));
        } else if let Callee::Direct(s) = callee {
            let c = self.sym_const(s);
            f.operand_refs.push(OperandRef::Const(c));
        }
        let kind = match op {
            "invoke" => CallKind::Invoke,
            "callbr" => CallKind::CallBr,
            _ => CallKind::Call,
        };
        if !explicit_fn_type {
            sig.push(')');
        }
        let fn_type = self.intern_sig(&sig);
        self.sig_buf = sig;
        if let Callee::Direct(s) = callee {
            f.operand_refs[direct_at] = OperandRef::DirectCall(s, fn_type);
        }
        f.call_sites.push(CallSite {
            callee,
            arg_count,
            block,
            kind,
            fn_type,
        });
        Ok(())
    }

    fn finish(mut self) -> Module {
        if self.m.consts.starts.is_empty() {
            self.m.consts.starts.push(0);
        }
        self.m.symbol_index = self.sym_map;
        self.m
    }
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

#[cfg(test)]
pub(crate) mod tests_support {
    pub(crate) use super::tests::corpus_ll_files;
}
