//! PTX text reader: modules as `llc -march=nvptx64` (LLVM 14 and 19) and NVIDIA's tools
//! write them.
//!
//! Reads `.version` / `.target` / `.address_size`, `.visible` / `.extern` / `.weak`
//! `.entry` and `.func` with return and parameter lists, module-level variable
//! declarations (with `= { .. }` initialisers), and function bodies: declarations
//! (`.reg`, `.param`, `.local`, `.shared`, `.pragma`, `.loc`, ...), nested `{ }` scopes,
//! labels, `name: .callprototype ...` and `name: .branchtargets L1, L2;` tables,
//! predicated instructions (`@%p` / `@!%p`), and every instruction. `bra`, `brx.idx`,
//! `call`, `ret`, `exit`, `trap` are classified; any other instruction is an opaque
//! opcode. `//` and `/* */` comments are skipped.
//!
//! # Invariants of the result
//! - per function, the instruction columns of [`Insns`] all have the same length;
//! - `labels[i].insn <= insns.len()` and labels are in source order;
//! - every `bra` target is a label index, every `brx.idx` target a branch-table index.
//!
//! Errors name the file, line and column ([`ParseError`]). The reader never panics on bad
//! input, never recurses, and allocates only in proportion to the input text.
//! O(bytes) time.

use ahash::AHashMap;

use crate::cfg::{Cfg, InsnIdx, Term};
use crate::idx::BlockIdx;

mod parallel;
pub use parallel::parse_parallel;

/// "No label / no target" in the parser's `u32` tables.
const NONE: u32 = u32::MAX;

pub use super::ParseError;

/// `.entry` (kernel) or `.func` (device function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    /// A kernel.
    Entry,
    /// A device function.
    Func,
}

/// Classification of one instruction, as far as control flow cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsnKind {
    /// Any instruction that does not transfer control.
    Other,
    /// `bra` / `bra.uni`; target in [`Insns::target`] (a label index).
    Bra,
    /// `brx.idx`; target in [`Insns::target`] (a branch-table index).
    Brx,
    /// `call` (does not end a block); callee in [`Insns::callee`].
    Call,
    /// `ret`.
    Ret,
    /// `exit`.
    Exit,
    /// `trap`.
    Trap,
}

impl InsnKind {
    /// True for the instructions that end a basic block.
    pub fn ends_block(self) -> bool {
        matches!(
            self,
            InsnKind::Bra | InsnKind::Brx | InsnKind::Ret | InsnKind::Exit | InsnKind::Trap
        )
    }
}

/// A guard predicate: `@%p` (`negated == false`) or `@!%p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// True for `@!%p`.
    pub negated: bool,
    /// The predicate register.
    pub reg: Box<str>,
}

/// The instructions of one function body, as columns keyed by instruction index.
#[derive(Clone, Debug, Default)]
pub struct Insns {
    /// Full opcode with modifiers (`ld.param.u64`).
    pub opcode: Vec<Box<str>>,
    /// Control-flow class.
    pub kind: Vec<InsnKind>,
    /// Guard predicate, if any.
    pub guard: Vec<Option<Guard>>,
    /// Label index (`Bra`), branch-table index (`Brx`), or `NONE`.
    pub target: Vec<u32>,
    /// Direct callee of a `Call` (`None` for indirect calls and non-calls).
    pub callee: Vec<Option<Box<str>>>,
    /// 1-based source line.
    pub line: Vec<u32>,
}

impl Insns {
    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.kind.len()
    }
    /// True if there are no instructions.
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }
}

/// A label in a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The label's name (`LBB3_7`, `$L__BB3_7`).
    pub name: Box<str>,
    /// Index of the first instruction after the label (== insns.len() at the end).
    pub insn: u32,
    /// 1-based source line.
    pub line: u32,
}

/// One `.entry` or `.func`.
#[derive(Clone, Debug)]
pub struct Function {
    /// Function name.
    pub name: String,
    /// Kernel or device function.
    pub kind: FuncKind,
    /// Linkage directive (`.visible`, `.extern`, `.weak`) or empty.
    pub linkage: String,
    /// True when the function has a body (`{ .. }`), false for a prototype.
    pub has_body: bool,
    /// Return-parameter names.
    pub rets: Vec<String>,
    /// Parameter names.
    pub params: Vec<String>,
    /// Line of the header.
    pub line: u32,
    /// Body instructions.
    pub insns: Insns,
    /// Labels in source order.
    pub labels: Vec<Label>,
    /// `.branchtargets` tables: name and label indices.
    pub branch_tables: Vec<(Box<str>, Vec<u32>)>,
}

/// A PTX module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// `.version`, if present.
    pub version: Option<String>,
    /// `.target` operands, if present.
    pub target: Option<String>,
    /// `.address_size`, if present.
    pub address_size: Option<u32>,
    /// Functions (definitions and prototypes) in source order.
    pub functions: Vec<Function>,
    /// Names of module-level variables.
    pub globals: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    Word,
    Punct(u8),
    Str,
}

#[derive(Clone, Copy, Debug)]
struct Tok<'a> {
    t: T,
    text: &'a str,
    line: u32,
    col: u32,
}

impl Tok<'_> {
    fn is(&self, c: u8) -> bool {
        self.t == T::Punct(c)
    }
}

struct Lexer<'a> {
    file: &'a str,
    src: &'a str,
    pos: usize,
    line: u32,
    line_start: usize,
    peeked: Option<Option<Tok<'a>>>,
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

impl<'a> Lexer<'a> {
    fn err(&self, line: u32, col: u32, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            column: col,
            message: message.into(),
        }
    }

    fn here(&self) -> (u32, u32) {
        (self.line, (self.pos - self.line_start) as u32 + 1)
    }

    fn lex(&mut self) -> Result<Option<Tok<'a>>, ParseError> {
        let b = self.src.as_bytes();
        loop {
            let Some(&c) = b.get(self.pos) else {
                return Ok(None);
            };
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' | 0x0c => self.pos += 1,
                b'/' if b.get(self.pos + 1) == Some(&b'/') => {
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if b.get(self.pos + 1) == Some(&b'*') => {
                    let (l, col) = self.here();
                    self.pos += 2;
                    loop {
                        match b.get(self.pos) {
                            None => return Err(self.err(l, col, "unterminated /* comment")),
                            Some(b'*') if b.get(self.pos + 1) == Some(&b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(b'\n') => {
                                self.pos += 1;
                                self.line += 1;
                                self.line_start = self.pos;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                _ => break,
            }
        }
        let (line, col) = self.here();
        let start = self.pos;
        let c = b[start];
        let t = if is_word(c) {
            while self.pos < b.len() && is_word(b[self.pos]) {
                self.pos += 1;
            }
            T::Word
        } else if c == b'"' {
            self.pos += 1;
            loop {
                match b.get(self.pos) {
                    None | Some(b'\n') => return Err(self.err(line, col, "unterminated string")),
                    Some(b'\\') => self.pos += 2,
                    Some(b'"') => {
                        self.pos += 1;
                        break;
                    }
                    Some(_) => self.pos += 1,
                }
            }
            if self.pos > b.len() {
                return Err(self.err(line, col, "unterminated string"));
            }
            T::Str
        } else if c.is_ascii_graphic() {
            self.pos += 1;
            T::Punct(c)
        } else {
            return Err(self.err(line, col, format!("unexpected byte 0x{c:02x}")));
        };
        Ok(Some(Tok {
            t,
            text: &self.src[start..self.pos],
            line,
            col,
        }))
    }

    fn next(&mut self) -> Result<Option<Tok<'a>>, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex(),
        }
    }

    fn peek(&mut self) -> Result<Option<Tok<'a>>, ParseError> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.unwrap_or(None))
    }

    /// Skips the remaining tokens on `line`.
    fn skip_line(&mut self, line: u32) -> Result<(), ParseError> {
        while let Some(t) = self.peek()? {
            if t.line != line {
                break;
            }
            self.next()?;
        }
        Ok(())
    }

    /// Collects tokens up to and including `;` (returned without it). Braces after `=` are
    /// part of an initialiser.
    fn until_semi(&mut self, first: Tok<'a>, out: &mut Vec<Tok<'a>>) -> Result<(), ParseError> {
        let mut depth = 0u32;
        loop {
            let Some(t) = self.next()? else {
                return Err(self.err(
                    first.line,
                    first.col,
                    format!(
                        "expected ';' to end the statement starting with '{}'",
                        first.text
                    ),
                ));
            };
            match t.t {
                T::Punct(b';') if depth == 0 => return Ok(()),
                T::Punct(b'{') => depth += 1,
                T::Punct(b'}') => {
                    if depth == 0 {
                        return Err(self.err(
                            t.line,
                            t.col,
                            format!(
                                "unexpected '}}' in the statement starting with '{}'",
                                first.text
                            ),
                        ));
                    }
                    depth -= 1
                }
                _ => {}
            }
            out.push(t);
        }
    }
}

/// Parses one PTX module. `file` is used in error messages only.
pub fn parse(file: &str, text: &str) -> Result<Module, ParseError> {
    parse_piece(file, &text[..text.len()], 0, 1)
}

/// Parses `src[pos..]`, whose first byte is on line `line` and starts a line.
fn parse_piece(file: &str, src: &str, pos: usize, line: u32) -> Result<Module, ParseError> {
    let mut lx = Lexer {
        file,
        src,
        pos,
        line,
        line_start: pos,
        peeked: None,
    };
    let mut m = Module::default();
    let mut toks: Vec<Tok> = Vec::new();
    while let Some(t) = lx.next()? {
        match t.t {
            T::Punct(b';') => continue,
            T::Word if t.text.starts_with('.') => {}
            _ => {
                return Err(lx.err(
                    t.line,
                    t.col,
                    format!("expected a directive, found '{}'", t.text),
                ))
            }
        }
        match t.text {
            ".version" | ".target" | ".address_size" => {
                let mut words = Vec::new();
                while let Some(n) = lx.peek()? {
                    if n.line != t.line {
                        break;
                    }
                    lx.next()?;
                    words.push(n.text);
                }
                let v = words.concat();
                match t.text {
                    ".version" => m.version = Some(v),
                    ".target" => m.target = Some(words.join(" ").replace(" ,", ",")),
                    _ => {
                        m.address_size = Some(v.parse().map_err(|_| {
                            lx.err(t.line, t.col, format!("bad .address_size '{v}'"))
                        })?)
                    }
                }
            }
            ".file" | ".loc" => lx.skip_line(t.line)?,
            ".section" => {
                // `.section name { ... }`: skip the braces.
                let mut depth = 0u32;
                loop {
                    let Some(n) = lx.next()? else {
                        return Err(lx.err(t.line, t.col, "unterminated .section"));
                    };
                    if n.is(b'{') {
                        depth += 1;
                    } else if n.is(b'}') {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
            _ => {
                // A declaration: gather up to ';' or a body '{'.
                toks.clear();
                toks.push(t);
                let mut saw_eq = false;
                let mut depth = 0u32;
                let mut body = false;
                loop {
                    let Some(n) = lx.next()? else {
                        return Err(lx.err(
                            t.line,
                            t.col,
                            format!(
                                "expected ';' or '{{' after the declaration starting with '{}'",
                                t.text
                            ),
                        ));
                    };
                    match n.t {
                        T::Punct(b';') if depth == 0 => break,
                        T::Punct(b'=') => saw_eq = true,
                        T::Punct(b'{') if saw_eq => depth += 1,
                        T::Punct(b'{') => {
                            body = true;
                            break;
                        }
                        T::Punct(b'}') if depth > 0 => depth -= 1,
                        T::Punct(b'}') => return Err(lx.err(n.line, n.col, "unexpected '}'")),
                        _ => {}
                    }
                    toks.push(n);
                }
                let kind = toks.iter().find_map(|k| match k.text {
                    ".func" => Some(FuncKind::Func),
                    ".entry" => Some(FuncKind::Entry),
                    _ => None,
                });
                match kind {
                    Some(kind) => {
                        let mut f = header(&lx, &toks, kind)?;
                        if body {
                            f.has_body = true;
                            parse_body(&mut lx, &mut f, t)?;
                        }
                        m.functions.push(f);
                    }
                    None => {
                        if body {
                            return Err(lx.err(
                                t.line,
                                t.col,
                                format!("unexpected '{{' after '{}'", t.text),
                            ));
                        }
                        // The variable name: the last plain word before '[' / '=' / end.
                        let end = toks
                            .iter()
                            .position(|k| k.is(b'[') || k.is(b'='))
                            .unwrap_or(toks.len());
                        if let Some(name) = toks[..end]
                            .iter()
                            .rev()
                            .find(|k| k.t == T::Word && !k.text.starts_with('.'))
                        {
                            m.globals.push(name.text.to_string());
                        }
                    }
                }
            }
        }
    }
    Ok(m)
}

/// Parses `[linkage] .func|.entry [(rets)] name [(params)] [perf directives]`.
fn header(lx: &Lexer, toks: &[Tok], kind: FuncKind) -> Result<Function, ParseError> {
    let first = toks[0];
    let linkage = toks
        .iter()
        .find(|k| matches!(k.text, ".visible" | ".extern" | ".weak" | ".common"))
        .map(|k| k.text.to_string())
        .unwrap_or_default();
    let kpos = toks
        .iter()
        .position(|k| k.text == ".func" || k.text == ".entry")
        .unwrap_or(0);
    let mut i = kpos + 1;
    let mut rets = Vec::new();
    if toks.get(i).is_some_and(|k| k.is(b'(')) {
        i = param_list(lx, toks, i, &mut rets)?;
    }
    let name = match toks.get(i) {
        Some(k) if k.t == T::Word && !k.text.starts_with('.') => k.text.to_string(),
        Some(k) => {
            return Err(lx.err(
                k.line,
                k.col,
                format!("expected a function name, found '{}'", k.text),
            ))
        }
        None => return Err(lx.err(first.line, first.col, "expected a function name")),
    };
    i += 1;
    let mut params = Vec::new();
    if toks.get(i).is_some_and(|k| k.is(b'(')) {
        param_list(lx, toks, i, &mut params)?;
    }
    Ok(Function {
        name,
        kind,
        linkage,
        has_body: false,
        rets,
        params,
        line: first.line,
        insns: Insns::default(),
        labels: Vec::new(),
        branch_tables: Vec::new(),
    })
}

/// Parses `( .param .b32 a, .param .align 8 .b8 b[16] )` from `toks[i] == '('`; returns the
/// index after `)`.
fn param_list(
    lx: &Lexer,
    toks: &[Tok],
    i: usize,
    out: &mut Vec<String>,
) -> Result<usize, ParseError> {
    let mut j = i + 1;
    let mut last: Option<&str> = None;
    loop {
        let Some(k) = toks.get(j) else {
            let o = toks[i];
            return Err(lx.err(o.line, o.col, "unterminated parameter list"));
        };
        match k.t {
            T::Punct(b')') | T::Punct(b',') => {
                if let Some(n) = last.take() {
                    out.push(n.to_string());
                }
                if k.is(b')') {
                    return Ok(j + 1);
                }
            }
            T::Punct(b'[') => {
                // skip array bounds
                while toks.get(j).is_some_and(|k| !k.is(b']')) {
                    j += 1;
                }
            }
            T::Word if !k.text.starts_with('.') && !k.text.as_bytes()[0].is_ascii_digit() => {
                last = Some(k.text)
            }
            _ => {}
        }
        j += 1;
    }
}

fn parse_body<'a>(lx: &mut Lexer<'a>, f: &mut Function, open: Tok<'a>) -> Result<(), ParseError> {
    let mut depth = 0u32;
    let mut label_idx: AHashMap<&'a str, u32> = AHashMap::new();
    let mut table_idx: AHashMap<&'a str, u32> = AHashMap::new();
    // Unresolved references: (insn, name, line, col).
    let mut refs: Vec<(u32, &'a str, u32, u32)> = Vec::new();
    let mut table_refs: Vec<(usize, usize, &'a str, u32, u32)> = Vec::new();
    let mut ops: Vec<Tok<'a>> = Vec::new();
    loop {
        let Some(t) = lx.next()? else {
            return Err(lx.err(
                open.line,
                open.col,
                format!("unterminated body of function '{}'", f.name),
            ));
        };
        match t.t {
            T::Punct(b'{') => {
                depth += 1;
                continue;
            }
            T::Punct(b'}') => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                continue;
            }
            T::Punct(b';') => continue,
            _ => {}
        }
        let mut guard = None;
        let mut op = t;
        if t.is(b'@') {
            let mut n = lx.next()?;
            let negated = n.is_some_and(|k| k.is(b'!'));
            if negated {
                n = lx.next()?;
            }
            match n {
                Some(k) if k.t == T::Word => {
                    guard = Some(Guard {
                        negated,
                        reg: k.text.into(),
                    })
                }
                _ => return Err(lx.err(t.line, t.col, "expected a predicate register after '@'")),
            }
            op = match lx.next()? {
                Some(k) if k.t == T::Word && !k.text.starts_with('.') => k,
                _ => return Err(lx.err(t.line, t.col, "expected an instruction after the guard")),
            };
        } else if t.t != T::Word {
            return Err(lx.err(
                t.line,
                t.col,
                format!(
                    "expected an instruction, label or directive, found '{}'",
                    t.text
                ),
            ));
        } else if t.text.starts_with('.') {
            match t.text {
                ".loc" | ".file" => lx.skip_line(t.line)?,
                _ => {
                    ops.clear();
                    lx.until_semi(t, &mut ops)?;
                }
            }
            continue;
        } else if lx.peek()?.is_some_and(|k| k.is(b':')) {
            lx.next()?;
            match lx.peek()? {
                Some(k) if k.text == ".callprototype" => {
                    ops.clear();
                    lx.until_semi(t, &mut ops)?;
                }
                Some(k) if k.text == ".branchtargets" => {
                    lx.next()?;
                    ops.clear();
                    lx.until_semi(t, &mut ops)?;
                    let ti = f.branch_tables.len();
                    if table_idx.insert(t.text, ti as u32).is_some() {
                        return Err(lx.err(
                            t.line,
                            t.col,
                            format!("duplicate branch table '{}'", t.text),
                        ));
                    }
                    let mut names = Vec::new();
                    for k in ops.iter().filter(|k| k.t == T::Word) {
                        table_refs.push((ti, names.len(), k.text, k.line, k.col));
                        names.push(NONE);
                    }
                    f.branch_tables.push((t.text.into(), names));
                }
                _ => {
                    let li = f.labels.len() as u32;
                    if label_idx.insert(t.text, li).is_some() {
                        return Err(lx.err(t.line, t.col, format!("duplicate label '{}'", t.text)));
                    }
                    f.labels.push(Label {
                        name: t.text.into(),
                        insn: f.insns.len() as u32,
                        line: t.line,
                    });
                }
            }
            continue;
        }
        // An instruction: opcode, operands up to ';'.
        ops.clear();
        lx.until_semi(op, &mut ops)?;
        let base = op.text.split('.').next().unwrap_or("");
        let kind = match base {
            "bra" => InsnKind::Bra,
            "brx" => InsnKind::Brx,
            "call" => InsnKind::Call,
            "ret" => InsnKind::Ret,
            "exit" => InsnKind::Exit,
            "trap" => InsnKind::Trap,
            _ => InsnKind::Other,
        };
        let idx = f.insns.len() as u32;
        let mut callee = None;
        match kind {
            InsnKind::Bra | InsnKind::Brx => {
                let Some(k) = ops.iter().rev().find(|k| k.t == T::Word) else {
                    return Err(lx.err(op.line, op.col, format!("'{}' needs a target", op.text)));
                };
                refs.push((idx, k.text, k.line, k.col));
            }
            InsnKind::Call => {
                // The callee is the first word outside parentheses.
                let mut d = 0i32;
                for k in &ops {
                    match k.t {
                        T::Punct(b'(') => d += 1,
                        T::Punct(b')') => d -= 1,
                        T::Word if d == 0 => {
                            if !k.text.starts_with('%') {
                                callee = Some(k.text.into());
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        let ins = &mut f.insns;
        ins.opcode.push(op.text.into());
        ins.kind.push(kind);
        ins.guard.push(guard);
        ins.target.push(NONE);
        ins.callee.push(callee);
        ins.line.push(op.line);
    }
    for (i, name, line, col) in refs {
        let ix = if f.insns.kind[i as usize] == InsnKind::Bra {
            label_idx.get(name)
        } else {
            table_idx.get(name)
        };
        match ix {
            Some(&x) => f.insns.target[i as usize] = x,
            None => {
                return Err(lx.err(
                    line,
                    col,
                    format!("undefined branch target '{name}' in function '{}'", f.name),
                ))
            }
        }
    }
    for (ti, k, name, line, col) in table_refs {
        match label_idx.get(name) {
            Some(&x) => f.branch_tables[ti].1[k] = x,
            None => {
                return Err(lx.err(
                    line,
                    col,
                    format!("undefined label '{name}' in branch table"),
                ))
            }
        }
    }
    Ok(())
}

impl Cfg {
    /// The CFG of every function with a body in PTX text, in file order. `file` names the
    /// input in errors (`file:line:col: ...`).
    ///
    /// A large module is parsed in pieces and its CFGs built per function on rayon's
    /// pool ([`parse_parallel`]); the result is the same as one pass.
    pub fn from_ptx_str(file: &str, text: &str) -> Result<Vec<Cfg>, ParseError> {
        use rayon::prelude::*;
        let m = parse_parallel(file, text)?;
        Ok(m.functions
            .par_iter()
            .filter(|f| f.has_body)
            .map(build_cfg)
            .collect())
    }

    /// Reads a `.ptx` file (`-` is standard input) and builds the CFG of every function
    /// with a body.
    ///
    /// # Errors
    /// The OS error when the file cannot be read, invalid UTF-8 with its byte offset, or
    /// the parse error with its line and column.
    pub fn from_ptx_file(path: impl AsRef<std::path::Path>) -> Result<Vec<Cfg>, ParseError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = super::read_text(path).map_err(|e| ParseError {
            file: name.clone(),
            line: 0,
            column: 0,
            message: e.to_string(),
        })?;
        Cfg::from_ptx_str(&name, &text)
    }
}

/// Builds the CFG of a function body with the seed's block and successor rules: a block
/// starts at the function start, at every label and after every `bra`, `brx.idx`, `ret`,
/// `exit`, `trap` (guarded or not); `call` does not end a block. Successors: `bra L` ->
/// `[L]`; `@p bra L` -> `[L, fall-through]`; `brx.idx` -> its table (+ fall-through if
/// guarded); `ret`/`exit`/`trap` -> [] (or [fall-through] if guarded); otherwise the next
/// block. An empty labelled block falls through. Instruction ids are indices into
/// `f.insns`; `label_id` is the block's first source line. O(instructions + labels).
pub fn build_cfg(f: &Function) -> Cfg {
    let n_ins = f.insns.len() as u32;
    // (first insn, label or NONE, first line)
    let mut starts: Vec<(u32, u32, u32)> = vec![(0, NONE, f.line)];
    let mut label_block = vec![BlockIdx::NONE; f.labels.len()];
    let mut li = 0usize;
    let mut open_empty = true; // the open block has no instruction yet
    for i in 0..=n_ins {
        while li < f.labels.len() && f.labels[li].insn == i {
            let last = starts.len() - 1;
            if open_empty && starts[last].1 == NONE {
                starts[last].1 = li as u32;
                starts[last].2 = f.labels[li].line;
            } else {
                starts.push((i, li as u32, f.labels[li].line));
            }
            label_block[li] = BlockIdx::new(starts.len() - 1);
            open_empty = true;
            li += 1;
        }
        if i == n_ins {
            break;
        }
        if open_empty && starts.last().is_some_and(|s| s.1 == NONE) {
            starts.last_mut().unwrap().2 = f.insns.line[i as usize];
        }
        open_empty = false;
        if f.insns.kind[i as usize].ends_block() && i + 1 < n_ins {
            starts.push((i + 1, NONE, f.insns.line[i as usize + 1]));
            open_empty = true;
        }
    }
    // A trailing empty unlabelled block (after a final terminator) is not a block.
    if starts.len() > 1 {
        let &(s, l, _) = starts.last().unwrap();
        if s == n_ins && l == NONE {
            starts.pop();
        }
    }
    let nb = starts.len();
    let mut names = Vec::with_capacity(nb);
    let mut label_id = Vec::with_capacity(nb);
    let mut terms = Vec::with_capacity(nb);
    let mut insns = Vec::with_capacity(nb);
    let mut succs = Vec::with_capacity(nb);
    for b in 0..nb {
        let (s, l, line) = starts[b];
        let e = if b + 1 < nb { starts[b + 1].0 } else { n_ins };
        names.push(if l == NONE {
            String::new()
        } else {
            f.labels[l as usize].name.to_string()
        });
        label_id.push(line);
        insns.push((s..e).map(InsnIdx::from_raw).collect::<Vec<_>>());
        let fall: Vec<BlockIdx> = if b + 1 < nb {
            vec![BlockIdx::new(b + 1)]
        } else {
            vec![]
        };
        let (term, ss) = if e > s {
            let last = (e - 1) as usize;
            let guarded = f.insns.guard[last].is_some();
            let tgt = f.insns.target[last];
            match f.insns.kind[last] {
                InsnKind::Bra => {
                    let t = label_block[tgt as usize];
                    if guarded {
                        let mut v = vec![t];
                        v.extend(&fall);
                        (Term::CondBra, v)
                    } else {
                        (Term::Bra, vec![t])
                    }
                }
                InsnKind::Brx => {
                    let mut v: Vec<BlockIdx> = f.branch_tables[tgt as usize]
                        .1
                        .iter()
                        .map(|&l| label_block[l as usize])
                        .collect();
                    if guarded {
                        v.extend(&fall);
                        (Term::CondBrx, v)
                    } else {
                        (Term::Brx, v)
                    }
                }
                k @ (InsnKind::Ret | InsnKind::Exit | InsnKind::Trap) => {
                    let t = match (k, guarded) {
                        (InsnKind::Ret, false) => Term::Ret,
                        (InsnKind::Ret, true) => Term::CondRet,
                        (InsnKind::Exit, false) => Term::Exit,
                        (InsnKind::Exit, true) => Term::CondExit,
                        (_, false) => Term::Trap,
                        (_, true) => Term::CondTrap,
                    };
                    (t, if guarded { fall } else { vec![] })
                }
                _ => (Term::Fallthrough, fall),
            }
        } else {
            (Term::Fallthrough, fall)
        };
        terms.push(term);
        succs.push(ss);
    }
    Cfg::from_parts_in_range(f.name.clone(), names, label_id, terms, insns, &succs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
.version 6.0
.target sm_70
.address_size 64
.global .align 1 .b8 tbl[3] = {1, 2, 3};
.extern .func  (.param .b32 func_retval0) g
(
	.param .b64 g_param_0
)
;
/* block
   comment */
.visible .entry k(.param .u32 k_param_0)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<9>;
	.pragma "nounroll";
	ld.param.u32 	%r1, [k_param_0];
	setp.eq.s32 	%p1, %r1, 0;
	@!%p1 bra 	$L__BB0_2;
	bra.uni 	LBB0_3;
$L__BB0_2:
	{ // callseq 0
	.param .b64 param0;
	call.uni (retval0), g, ( param0 );
	}
	ts: .branchtargets $L__BB0_2, LBB0_3;
	brx.idx %r1, ts;
LBB0_3:
	exit;
}
"#;

    #[test]
    fn parses_small_module() {
        let m = parse("t.ptx", SMALL).unwrap();
        assert_eq!(m.version.as_deref(), Some("6.0"));
        assert_eq!(m.address_size, Some(64));
        assert_eq!(m.globals, vec!["tbl"]);
        assert_eq!(m.functions.len(), 2);
        let k = &m.functions[1];
        assert_eq!(k.name, "k");
        assert_eq!(k.kind, FuncKind::Entry);
        assert_eq!(k.params, vec!["k_param_0"]);
        assert_eq!(m.functions[0].rets, vec!["func_retval0"]);
        assert!(!m.functions[0].has_body);
        assert_eq!(k.insns.len(), 7);
        assert_eq!(k.labels.len(), 2);
        assert_eq!(k.insns.kind[2], InsnKind::Bra);
        assert!(k.insns.guard[2].as_ref().unwrap().negated);
        assert_eq!(k.insns.target[2], 0);
        assert_eq!(k.insns.target[3], 1);
        assert_eq!(k.insns.callee[4].as_deref(), Some("g"));
        assert_eq!(k.branch_tables[0].1, vec![0, 1]);
    }

    #[test]
    fn nvcc_style_module() {
        let text = r#"//
// Generated by NVIDIA NVVM Compiler
//
.version 8.1
.target sm_80, debug
.address_size 64

.extern .shared .align 16 .b8 smem[];
.weak .func  (.param .b32 func_retval0) w()
{
	ret;
}
.visible .entry _Z3fooPi(
	.param .u64 _Z3fooPi_param_0
)
.maxntid 256, 1, 1
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<3>;
	.loc	1 3 0
$L__func_begin0:
	.loc	1 3 0
	ld.param.u64 	%rd1, [_Z3fooPi_param_0];
	mov.b64 	{%r1, %r2}, %rd1;
	setp.lt.s32 	%p1, %r1, 1;
	@%p1 bra.uni 	$L__BB0_2;
$L__BB0_1:
	add.s32 	%r3, %r3, -1;
	setp.ne.s32 	%p2, %r3, 0;
	@%p2 bra 	$L__BB0_1;
$L__BB0_2:
	exit;
$L__func_end0:
}
	.file	1 "foo.cu"
	.section	.debug_abbrev
	{
.b8 1
.b8 17
	}
"#;
        let m = parse("n.ptx", text).unwrap();
        assert_eq!(m.target.as_deref(), Some("sm_80, debug"));
        assert_eq!(m.globals, vec!["smem"]);
        assert_eq!(m.functions[0].linkage, ".weak");
        let f = &m.functions[1];
        assert_eq!(f.name, "_Z3fooPi");
        let cfg = build_cfg(f);
        let names: Vec<String> = cfg.blocks().map(|b| cfg.display_name(b)).collect();
        // `$L__func_begin0` labels the entry block; `$L__func_end0` is an empty last block.
        assert_eq!(
            names,
            ["$L__func_begin0", "$L__BB0_1", "$L__BB0_2", "$L__func_end0"]
        );
        assert_eq!(cfg.succ.targets, [2, 1, 1, 2].map(BlockIdx::from_raw));
        assert_eq!(cfg.succ.starts, [0, 2, 4, 4, 4]);
    }

    #[test]
    fn errors_have_positions() {
        let e = parse(
            "x.ptx",
            ".version 6.0\n.visible .func f()\n{\n bra L9;\n}\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.ptx:4:6: undefined branch target 'L9' in function 'f'"
        );
        let e = parse("x.ptx", ".visible .func f()\n{\n add.s32 %r1, %r2\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 2));
        let e = parse("x.ptx", ".visible .func f()\n{\n ret;\n").unwrap_err();
        assert!(e.message.contains("unterminated body"), "{e}");
        assert!(parse("x.ptx", "/* x").is_err());
        assert!(parse("x.ptx", "foo").is_err());
    }
}
