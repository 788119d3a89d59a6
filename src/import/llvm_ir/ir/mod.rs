//! The instruction pass: re-reads the items the first pass found ([`Spans`]) and builds
//! the instruction-level SSA view ([`Ir`]) of an already parsed [`Module`].
//!
//! It runs after the module is complete (after a parallel parse's merge too), so it sees
//! every symbol, and it walks the items in module order: named type bodies, global
//! variables, aliases, then every function's header and body. Each body's instructions
//! are written straight into the function's [`Body`] (the middle end's form; nothing is
//! copied later). Local names resolve to arguments and rows through one map per
//! function; a use before its definition (phis, blocks laid out after their users) is
//! patched when the body ends. Types are
//! interned by their text first and structurally on a miss; constant expressions by
//! `(type, text)`.
//!
//! The first pass steps over the bodies when this pass runs, so this pass is the one
//! that reads them: it also gathers what the rows do not hold of the call graph's model
//! of a body ([`BodyFacts`]: block names, the memory effect, the globals inside
//! constants the view keeps opaque), and [`derive_model`] fills each function's blocks,
//! call sites and operand references from the rows and those facts. Block labels
//! resolve through one map per function, a branch to a block laid out later when the
//! body ends.
//!
//! Errors are the first pass's kind (`file:line:col`): what the first pass would have
//! rejected in a body (an undefined or redefined block) and what only this pass
//! resolves (an undefined local or global, a non-integer index).
//!
//! Debug locations: the `!dbg` attachments of calls and definitions are collected as
//! metadata numbers while the bodies are read and resolved at the end through the
//! numbered metadata the first pass found (`debuginfo`).
//!
//! Cost: one more lexing pass over the function headers, the globals and the aliases
//! (the bodies are read once, here), O(text), plus, in a module with `!dbg` on calls,
//! one read of each metadata node a call's location leads to.

use super::body::BodyMemory;
use super::grammar::{is_int_type, CONSTEXPR_WORDS, TYPE_WORDS};
use super::lexer::unescape;
use super::lexer::{LexState, Tk, Tok};
use super::{name_of, ParseError, Parser, Pos, Spans, MAX_DEPTH};
use crate::idx::{BlockIdx, IndexVec};
use crate::llvm::attrs::{Attr, AttrSet, AttrSetIdx};
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::ir::{ArgIdx, ExprIdx, FuncIr, InstFlags, Intrinsic, Ir, Opcode, Range, Value};
use crate::llvm::types::{FloatKind, TypeIdx, TypeKind};
use crate::llvm::{AliasIdx, FuncIdx, GlobalIdx, MemEffect, Module};
use ahash::AHashMap;
use std::borrow::Cow;

mod debuginfo;
mod inst;
mod merge;
mod model;

pub(super) use model::{derive_model, BodyFacts};
#[cfg(test)]
mod tests;

/// Builds the instruction view of `m`, whose text is `text` and item positions `spans`,
/// with each function's [`BodyFacts`] (in function order).
pub(super) fn build(
    m: &Module,
    file: &str,
    text: &str,
    spans: &Spans,
) -> Result<(Ir, Vec<BodyFacts>), ParseError> {
    let mut b = Builder::new(m, file, text);
    // two scans of the whole text, side by side
    (b.ir.semantic_interposition, b.opaque) = rayon::join(
        || memchr::memmem::find(text.as_bytes(), b"\"SemanticInterposition\", i32 1").is_some(),
        || has_opaque_ptr(text),
    );
    for (n, words) in &m.attr_groups {
        let mut s = AttrSet::EMPTY;
        for w in words {
            if let Some(a) = Attr::from_word(w) {
                s.add(a);
            }
        }
        b.groups.insert(*n, s);
    }
    for &p in &spans.types {
        b.type_def(p)?;
    }
    for (k, &p) in spans.globals.iter().enumerate() {
        b.global(GlobalIdx::new(k), p)?;
    }
    for (k, &p) in spans.aliases.iter().enumerate() {
        b.alias(AliasIdx::new(k), p)?;
    }
    let chunks = merge::chunks(spans, text.len(), rayon::current_num_threads());
    if chunks.len() < 2 {
        for (k, &p) in spans.funcs.iter().enumerate() {
            b.function(FuncIdx::new(k), p)?;
        }
    } else {
        b.read_runs(&chunks, &spans.funcs)?;
    }
    b.resolve_debug_info(&spans.metadata)?;
    b.resolve_branch_weights(&spans.metadata);
    let mut ir = b.ir;
    ir.arg_name_start.push(ir.arg_names.len() as u32);
    debug_assert!(ir.verify().is_empty(), "{:?}", ir.verify());
    Ok((ir, b.facts))
}

/// Whether the text spells pointers as `ptr` (opaque pointers): the word `ptr` standing
/// alone somewhere.
fn has_opaque_ptr(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, b"ptr").any(|at| {
        let before = if at == 0 { b' ' } else { b[at - 1] };
        let after = b.get(at + 3).copied().unwrap_or(b' ');
        matches!(before, b' ' | b'(' | b'[' | b'{' | b'<' | b',')
            && matches!(after, b' ' | b',' | b')' | b']' | b'}' | b'>' | b'\n')
    })
}

/// An operand as read: a constant, a local value, a local name not defined yet, a block
/// not defined yet (its `%name` token), or a constant the view keeps opaque
/// ([`Value::Other`]) that mentions globals (`facts.globals[start..start + len]`).
#[derive(Clone, Copy)]
enum Operand<'a> {
    V(Value),
    L(V, Tok),
    Local(&'a str, Tok),
    Label(Tok),
    Opaque(u32, u32),
}

struct Builder<'a, 'm> {
    p: Parser<'a>,
    m: &'m Module,
    src: &'a str,
    ir: Ir,
    ty_cache: AHashMap<&'a str, TypeIdx>,
    expr_map: AHashMap<(TypeIdx, &'a str), ExprIdx>,
    /// Floating-point constants by their bits ([`Ir::floats`]).
    float_map: AHashMap<u64, u32>,
    /// The interning key of each constant expression (what a merge dedupes by).
    expr_keys: Vec<(TypeIdx, &'a str)>,
    groups: AHashMap<u32, AttrSet>,
    /// The module spells pointers `ptr`.
    opaque: bool,
    depth: u32,
    // per function
    /// The body being read.
    body: Body,
    locals: AHashMap<Cow<'a, str>, V>,
    labels: AHashMap<Cow<'a, str>, BlockIdx>,
    /// Operands not defined yet: (row, operand index, name, where).
    pending: Vec<(RowIdx, u32, &'a str, Tok)>,
    /// Branch targets not defined yet: (row, operand index, the `%name` token).
    pending_labels: Vec<(RowIdx, u32, Tok)>,
    /// What the model of the body being read needs beyond its rows.
    cur: BodyFacts,
    /// Every function's facts read so far, in function order.
    facts: Vec<BodyFacts>,
    next_slot: u32,
    /// The operands and call-site parameter attributes of the instruction being read.
    ops: Vec<(V, TypeIdx)>,
    call_params: Vec<AttrSetIdx>,
    /// `!dbg !N` of calls and of function definitions, as read (resolved when every
    /// body is read: metadata usually follows its uses).
    dbg_calls: Vec<(FuncIdx, RowIdx, u32, Tok)>,
    dbg_funcs: Vec<(FuncIdx, u32, Tok)>,
    /// `!prof !N` of terminators, as read (resolved with the debug information).
    prof_terms: Vec<(FuncIdx, RowIdx, u32)>,
    void_ty: TypeIdx,
    label_ty: TypeIdx,
    token_ty: TypeIdx,
    i1_ty: TypeIdx,
    i32_ty: TypeIdx,
}

impl<'a, 'm> Builder<'a, 'm> {
    fn new(m: &'m Module, file: &'a str, src: &'a str) -> Self {
        let mut ir = Ir {
            arg_name_start: Vec::new(),
            expr_op_start: vec![0],
            ..Ir::default()
        };
        ir.global_ty = IndexVec::from_elem_n(TypeIdx::NONE, m.globals.len());
        ir.global_addrspace = IndexVec::from_elem_n(0, m.globals.len());
        ir.alias_target = IndexVec::from_elem_n(Value::None, m.aliases.len());
        let void_ty = ir.types.void();
        let label_ty = ir.types.leaf(TypeKind::Label);
        let token_ty = ir.types.leaf(TypeKind::Token);
        let i1_ty = ir.types.int(1);
        let i32_ty = ir.types.int(32);
        Builder {
            void_ty,
            label_ty,
            token_ty,
            i1_ty,
            i32_ty,
            p: Parser::new(file, src),
            m,
            src,
            ir,
            ty_cache: AHashMap::new(),
            expr_map: AHashMap::new(),
            float_map: AHashMap::new(),
            expr_keys: Vec::new(),
            groups: AHashMap::new(),
            opaque: false,
            depth: 0,
            body: Body::default(),
            locals: AHashMap::new(),
            labels: AHashMap::new(),
            pending: Vec::new(),
            pending_labels: Vec::new(),
            cur: BodyFacts::default(),
            facts: Vec::new(),
            next_slot: 0,
            ops: Vec::new(),
            call_params: Vec::new(),
            dbg_calls: Vec::new(),
            prof_terms: Vec::new(),
            dbg_funcs: Vec::new(),
        }
    }

    fn seek(&mut self, p: Pos) {
        self.p.st = LexState {
            pos: p.start as usize,
            line: p.line,
            line_start: (p.start as usize).saturating_sub(p.col.saturating_sub(1) as usize),
            peeked: None,
        };
    }

    fn text(&self, t: Tok) -> &'a str {
        self.p.text(t)
    }

    fn err<T>(&self, t: Tok, msg: impl Into<String>) -> Result<T, ParseError> {
        self.p.err_at(t, msg)
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            let t = self.p.peek();
            return self.err(t, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    // ------------------------------------------------------------ types

    /// A type, interned by its text when seen before.
    fn ty(&mut self) -> Result<TypeIdx, ParseError> {
        let first = self.p.peek();
        let save = self.p.st;
        self.p.parse_type()?;
        let next = self.p.peek();
        let key = self.src[first.start as usize..next.start as usize].trim_end();
        if let Some(&t) = self.ty_cache.get(key) {
            return Ok(t);
        }
        self.p.st = save;
        let t = self.ty_struct()?;
        self.ty_cache.insert(key, t);
        Ok(t)
    }

    fn ty_struct(&mut self) -> Result<TypeIdx, ParseError> {
        self.enter()?;
        let r = self.ty_struct_inner();
        self.depth -= 1;
        r
    }

    fn ty_struct_inner(&mut self) -> Result<TypeIdx, ParseError> {
        let t = self.p.next();
        let types = &mut self.ir.types;
        let mut base = match t.kind {
            Tk::Local => {
                let name = name_of(self.p.text(t));
                types.named(&name)
            }
            Tk::Word => {
                let w = self.p.text(t);
                match w {
                    "void" => types.void(),
                    "half" => types.leaf(TypeKind::Float(FloatKind::Half)),
                    "bfloat" => types.leaf(TypeKind::Float(FloatKind::BFloat)),
                    "float" => types.leaf(TypeKind::Float(FloatKind::Float)),
                    "double" => types.leaf(TypeKind::Float(FloatKind::Double)),
                    "x86_fp80" => types.leaf(TypeKind::Float(FloatKind::X86Fp80)),
                    "fp128" => types.leaf(TypeKind::Float(FloatKind::Fp128)),
                    "ppc_fp128" => types.leaf(TypeKind::Float(FloatKind::PpcFp128)),
                    "label" => types.leaf(TypeKind::Label),
                    "metadata" => types.leaf(TypeKind::Metadata),
                    "token" => types.leaf(TypeKind::Token),
                    "x86_mmx" | "x86_amx" | "opaque" => types.leaf(TypeKind::Other),
                    "ptr" => {
                        let mut addrspace = 0;
                        if self.p.is_word("addrspace") {
                            self.p.next();
                            addrspace = self.paren_num()? as u32;
                        }
                        self.ir.types.ptr(TypeIdx::NONE, addrspace)
                    }
                    "target" => {
                        if self.p.is_punct("(") {
                            self.p.skip_group()?;
                        }
                        types.leaf(TypeKind::Other)
                    }
                    _ if is_int_type(w) => match w[1..].parse::<u32>() {
                        Ok(bits) => types.int(bits),
                        Err(_) => return self.err(t, "integer type too wide"),
                    },
                    _ => {
                        return self
                            .err(t, format!("expected a type, found {}", self.p.describe(t)))
                    }
                }
            }
            Tk::Punct => match self.p.text(t) {
                "[" => {
                    let len = self.num()?;
                    self.p.expect_word("x")?;
                    let elem = self.ty_struct()?;
                    self.p.expect_punct("]")?;
                    self.ir.types.leaf(TypeKind::Array { len, elem })
                }
                "<" => {
                    if self.p.eat_punct("{") {
                        let fields = self.type_list("}")?;
                        self.p.expect_punct(">")?;
                        self.ir.types.literal_struct(&fields, true)
                    } else {
                        let scalable = self.p.is_word("vscale");
                        if scalable {
                            self.p.next();
                            self.p.expect_word("x")?;
                        }
                        let len = self.num()? as u32;
                        self.p.expect_word("x")?;
                        let elem = self.ty_struct()?;
                        self.p.expect_punct(">")?;
                        self.ir.types.leaf(TypeKind::Vector {
                            len,
                            elem,
                            scalable,
                        })
                    }
                }
                "{" => {
                    let fields = self.type_list("}")?;
                    self.ir.types.literal_struct(&fields, false)
                }
                _ => return self.err(t, format!("expected a type, found {}", self.p.describe(t))),
            },
            _ => return self.err(t, format!("expected a type, found {}", self.p.describe(t))),
        };
        loop {
            if self.p.eat_punct("*") {
                base = self.ir.types.ptr(base, 0);
                continue;
            }
            if self.p.is_word("addrspace") {
                self.p.next();
                let a = self.paren_num()? as u32;
                self.p.expect_punct("*")?;
                base = self.ir.types.ptr(base, a);
                continue;
            }
            if self.p.is_punct("(") {
                self.p.next();
                let mut params = Vec::new();
                let mut vararg = false;
                if !self.p.eat_punct(")") {
                    loop {
                        if self.p.eat_punct("...") {
                            vararg = true;
                        } else {
                            params.push(self.ty_struct()?);
                            self.p.skip_attrs()?;
                        }
                        if self.p.eat_punct(",") {
                            continue;
                        }
                        self.p.expect_punct(")")?;
                        break;
                    }
                }
                base = self.ir.types.function(base, &params, vararg);
                continue;
            }
            return Ok(base);
        }
    }

    fn type_list(&mut self, close: &str) -> Result<Vec<TypeIdx>, ParseError> {
        let mut out = Vec::new();
        if self.p.eat_punct(close) {
            return Ok(out);
        }
        loop {
            out.push(self.ty_struct()?);
            if self.p.eat_punct(",") {
                continue;
            }
            self.p.expect_punct(close)?;
            return Ok(out);
        }
    }

    fn num(&mut self) -> Result<u64, ParseError> {
        let t = self.p.next();
        match (t.kind == Tk::Num).then(|| self.text(t).parse::<u64>()) {
            Some(Ok(n)) => Ok(n),
            _ => self.err(
                t,
                format!("expected a number, found {}", self.p.describe(t)),
            ),
        }
    }

    /// `(N)`.
    fn paren_num(&mut self) -> Result<u64, ParseError> {
        self.p.expect_punct("(")?;
        let n = self.num()?;
        self.p.expect_punct(")")?;
        Ok(n)
    }

    // ------------------------------------------------------------ attributes

    /// The payload of attribute `a` (just read) and its addition to `set`.
    fn attr_payload(&mut self, set: &mut AttrSet, a: Attr) -> Result<(), ParseError> {
        set.add(a);
        match a {
            Attr::Align | Attr::AlignStack => {
                if self.p.peek().kind == Tk::Num {
                    set.align = self.num()?;
                } else if self.p.is_punct("(") {
                    set.align = self.paren_num()?;
                }
            }
            Attr::Dereferenceable => set.dereferenceable = self.paren_num()?,
            Attr::DereferenceableOrNull => set.dereferenceable_or_null = self.paren_num()?,
            Attr::ByVal
            | Attr::StructRet
            | Attr::InAlloca
            | Attr::Preallocated
            | Attr::ByRef
            | Attr::ElementType => {
                if self.p.eat_punct("(") {
                    let t = self.ty()?;
                    self.p.expect_punct(")")?;
                    if a != Attr::ElementType {
                        set.ty = t;
                    }
                }
            }
            _ => {
                if self.p.is_punct("(") {
                    self.p.skip_group()?;
                }
            }
        }
        Ok(())
    }

    /// Parameter / return attributes up to the next type or value.
    fn param_attrs(&mut self, set: &mut AttrSet) -> Result<(), ParseError> {
        loop {
            let t = self.p.peek();
            if t.nl_before {
                return Ok(());
            }
            match t.kind {
                Tk::Word => {
                    let w = self.text(t);
                    if self.p.is_value_word(w) || is_int_type(w) || TYPE_WORDS.contains(&w) {
                        return Ok(());
                    }
                    self.p.next();
                    match Attr::from_word(w) {
                        Some(a) => self.attr_payload(set, a)?,
                        None => {
                            if self.p.is_punct("(") {
                                self.p.skip_group()?;
                            }
                        }
                    }
                }
                Tk::Str => {
                    self.p.next();
                    if self.p.eat_punct("=") {
                        self.p.next();
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn intern(&mut self, s: AttrSet) -> AttrSetIdx {
        self.ir.attr_sets.intern(s)
    }

    // ------------------------------------------------------------ values

    fn global_ref(&self, t: Tok) -> Result<Value, ParseError> {
        let name = name_of(self.text(t));
        match self.m.symbol_by_name(&name) {
            Some(s) => Ok(Value::Global(s)),
            None => self.err(t, format!("unknown global '@{name}'")),
        }
    }

    /// A `float` / `double` literal (`1.500000e+00`, or the `0x` form holding the value's
    /// `double` bits) of type `ty`, interned by value; `None` for another type or text.
    fn float_const(&mut self, ty: TypeIdx, text: &str) -> Option<Value> {
        if ty.is_none() {
            return None;
        }
        let TypeKind::Float(k @ (FloatKind::Float | FloatKind::Double)) = self.ir.types.kind(ty)
        else {
            return None;
        };
        let x = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(h) if h.len() == 16 => f64::from_bits(u64::from_str_radix(h, 16).ok()?),
            Some(_) => return None,
            None => text.parse::<f64>().ok()?,
        };
        let x = if k == FloatKind::Float {
            x as f32 as f64
        } else {
            x
        };
        let bits = x.to_bits();
        let n = *self.float_map.entry(bits).or_insert_with(|| {
            self.ir.floats.push(bits);
            self.ir.floats.len() as u32 - 1
        });
        Some(Value::Float(n))
    }

    fn int_const(&mut self, x: i64) -> Value {
        match i32::try_from(x) {
            Ok(v) => Value::Int(v),
            Err(_) => {
                self.ir.wide_ints.push(x);
                Value::WideInt(self.ir.wide_ints.len() as u32 - 1)
            }
        }
    }

    /// A value of type `ty` (NONE when the type is not written, as for a callee).
    fn value(&mut self, ty: TypeIdx) -> Result<Operand<'a>, ParseError> {
        self.enter()?;
        let r = self.value_inner(ty);
        self.depth -= 1;
        r
    }

    fn value_inner(&mut self, ty: TypeIdx) -> Result<Operand<'a>, ParseError> {
        let t = self.p.peek();
        Ok(Operand::V(match t.kind {
            Tk::Local => {
                self.p.next();
                return Ok(self.local_ref(t));
            }
            Tk::Global => {
                self.p.next();
                self.global_ref(t)?
            }
            Tk::Num => {
                self.p.next();
                match (self.ir.types.int_bits(ty), self.text(t).parse::<i64>()) {
                    (Some(_), Ok(x)) => self.int_const(x),
                    _ => self.float_const(ty, self.text(t)).unwrap_or(Value::Other),
                }
            }
            Tk::CStr => {
                self.p.next();
                Value::Other
            }
            Tk::Meta => {
                self.p.skip_to_comma()?;
                Value::Metadata
            }
            Tk::Punct if matches!(self.text(t), "[" | "{" | "<") => {
                return self.opaque_constant();
            }
            Tk::Word => {
                let w = self.text(t);
                // One-word constants.
                const WORDS: [(&str, Value); 7] = [
                    ("true", Value::Int(1)),
                    ("false", Value::Int(0)),
                    ("null", Value::Null),
                    ("undef", Value::Undef),
                    ("poison", Value::Poison),
                    ("zeroinitializer", Value::Zero),
                    ("none", Value::Other),
                ];
                if let Some(&(_, v)) = WORDS.iter().find(|(k, _)| *k == w) {
                    self.p.next();
                    return Ok(Operand::V(v));
                }
                match w {
                    "asm" => {
                        self.p.next();
                        while self.p.peek().kind == Tk::Word {
                            self.p.next();
                        }
                        self.p.next();
                        self.p.eat_punct(",");
                        self.p.next();
                        Value::Asm
                    }
                    "blockaddress" => {
                        self.p.next();
                        self.p.skip_group()?;
                        Value::Other
                    }
                    "dso_local_equivalent" | "no_cfi" => {
                        self.p.next();
                        let at = self.cur.globals.len() as u32;
                        if let Operand::V(Value::Global(s)) = self.value(TypeIdx::NONE)? {
                            self.cur.globals.push(s);
                            return Ok(Operand::Opaque(at, 1));
                        }
                        Value::Other
                    }
                    _ if CONSTEXPR_WORDS.contains(&w) => self.const_expr(ty)?,
                    _ => {
                        return self
                            .err(t, format!("expected a value, found {}", self.p.describe(t)))
                    }
                }
            }
            _ => return self.err(t, format!("expected a value, found {}", self.p.describe(t))),
        }))
    }

    /// An aggregate constant (`[...]`, `{...}`, `<...>`), kept opaque in the view: the
    /// globals it mentions (outside `blockaddress`) go to the body's facts, in text order.
    fn opaque_constant(&mut self) -> Result<Operand<'a>, ParseError> {
        let at = self.cur.globals.len() as u32;
        let mut depth = 0u32;
        loop {
            let t = self.p.next();
            match t.kind {
                Tk::Eof => return self.err(t, "unbalanced brackets: unexpected end of file"),
                Tk::Global => {
                    if let Value::Global(s) = self.global_ref(t)? {
                        self.cur.globals.push(s);
                    }
                }
                Tk::Word if self.text(t) == "blockaddress" && self.p.is_punct("(") => {
                    self.p.skip_group()?;
                }
                Tk::Punct => match self.text(t) {
                    "(" | "[" | "{" | "<" => depth += 1,
                    ")" | "]" | "}" | ">" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        let len = self.cur.globals.len() as u32 - at;
        Ok(if len == 0 {
            Operand::V(Value::Other)
        } else {
            Operand::Opaque(at, len)
        })
    }

    fn local_ref(&mut self, t: Tok) -> Operand<'a> {
        let raw = &self.text(t)[1..];
        match self.locals.get(raw) {
            Some(&v) => Operand::L(v, t),
            None => Operand::Local(raw, t),
        }
    }

    /// `T v`: a typed value (a `metadata` operand is [`Value::Metadata`]).
    fn typed(&mut self) -> Result<(TypeIdx, Operand<'a>), ParseError> {
        if self.p.is_word("metadata") {
            let t = self.ty()?;
            self.p.skip_to_comma()?;
            return Ok((t, Operand::V(Value::Metadata)));
        }
        let t = self.ty()?;
        let v = self.value(t)?;
        Ok((t, v))
    }

    /// A constant expression of (written) type `ty`.
    fn const_expr(&mut self, ty: TypeIdx) -> Result<Value, ParseError> {
        let kw = self.p.next();
        let w = self.text(kw);
        let Some(op) = Opcode::from_word(w) else {
            // ptrauth(...), splat(...): constants this model does not describe
            while !self.p.is_punct("(") && !self.p.at_eol() {
                self.p.next();
            }
            if self.p.is_punct("(") {
                self.p.skip_group()?;
            }
            return Ok(Value::Other);
        };
        let mut flags = InstFlags::default();
        while !self.p.is_punct("(") {
            let f = self.p.next();
            if f.kind != Tk::Word || f.nl_before {
                return self.err(
                    f,
                    format!(
                        "expected '(' in constant expression, found {}",
                        self.p.describe(f)
                    ),
                );
            }
            match self.text(f) {
                "inbounds" => flags.0 |= InstFlags::INBOUNDS,
                "nuw" => flags.0 |= InstFlags::NUW,
                "nsw" => flags.0 |= InstFlags::NSW,
                "exact" => flags.0 |= InstFlags::EXACT,
                _ => {}
            }
            if self.p.is_punct("(") && self.text(f) == "inrange" {
                self.p.skip_group()?;
            }
        }
        self.p.next();
        let mut ops: Vec<(TypeIdx, Value)> = Vec::new();
        let mut aux_ty = TypeIdx::NONE;
        let mut result = ty;
        if op == Opcode::GetElementPtr {
            aux_ty = self.ty()?;
            self.p.expect_punct(",")?;
        }
        if !self.p.is_punct(")") {
            loop {
                if self.p.is_word("inrange") {
                    self.p.next();
                }
                if self.p.peek().kind == Tk::Num {
                    // extractvalue / insertvalue indices
                    let x = self.num()? as i64;
                    let v = self.int_const(x);
                    ops.push((TypeIdx::NONE, v));
                } else {
                    let (t, o) = self.typed()?;
                    let v = match o {
                        Operand::V(v) => v,
                        Operand::Opaque(..) => Value::Other,
                        Operand::L(_, at) | Operand::Local(_, at) | Operand::Label(at) => {
                            return self.err(at, "a constant expression cannot use a local value")
                        }
                    };
                    ops.push((t, v));
                }
                if self.p.is_word("to") {
                    self.p.next();
                    result = self.ty()?;
                }
                if self.p.eat_punct(",") {
                    continue;
                }
                break;
            }
        }
        let close = self.p.expect_punct(")")?;
        if op == Opcode::GetElementPtr {
            let base_ty = ops.first().map(|o| o.0).unwrap_or(TypeIdx::NONE);
            let idx: Vec<(TypeIdx, Value)> = ops.iter().skip(1).copied().collect();
            result = self.gep_result(aux_ty, base_ty, &idx);
        }
        let key = (result, &self.src[kw.start as usize..close.end as usize]);
        if let Some(&e) = self.expr_map.get(&key) {
            return Ok(Value::Expr(e));
        }
        let ir = &mut self.ir;
        let e = ir.expr_op.push(op);
        ir.expr_ty.push(result);
        ir.expr_aux_ty.push(aux_ty);
        ir.expr_flags.push(flags);
        for (t, v) in ops {
            ir.expr_operands.push(v);
            ir.expr_op_types.push(t);
        }
        ir.expr_op_start.push(ir.expr_operands.len() as u32);
        self.expr_map.insert(key, e);
        self.expr_keys.push(key);
        Ok(Value::Expr(e))
    }

    /// The result type of a GEP with source element type `src`, base of type `base_ty`
    /// and indices `idx`.
    fn gep_result(&mut self, src: TypeIdx, base_ty: TypeIdx, idx: &[(TypeIdx, Value)]) -> TypeIdx {
        let mut cur = src;
        for &(_, v) in idx.iter().skip(1) {
            let i = self.ir.int_value(v);
            cur = self.ir.types.gep_step(cur, i);
        }
        let types = &mut self.ir.types;
        let addrspace = types.addrspace(base_ty);
        let ptr = if self.opaque || cur.is_none() {
            types.ptr(TypeIdx::NONE, addrspace)
        } else {
            types.ptr(cur, addrspace)
        };
        let vec_len = std::iter::once(base_ty)
            .chain(idx.iter().map(|o| o.0))
            .find_map(|t| match (!t.is_none()).then(|| types.kind(t)) {
                Some(TypeKind::Vector { len, scalable, .. }) => Some((len, scalable)),
                _ => None,
            });
        match vec_len {
            Some((len, scalable)) => types.leaf(TypeKind::Vector {
                len,
                elem: ptr,
                scalable,
            }),
            None => ptr,
        }
    }

    // ------------------------------------------------------------ module items

    fn type_def(&mut self, p: Pos) -> Result<(), ParseError> {
        self.seek(p);
        let name = self.p.next();
        let named = {
            let n = name_of(self.text(name));
            self.ir.types.named(&n)
        };
        self.p.expect_punct("=")?;
        self.p.expect_word("type")?;
        if self.p.is_word("opaque") {
            return Ok(());
        }
        let body = self.ty_struct()?;
        self.ir.types.set_named_body(named, body);
        Ok(())
    }

    fn global(&mut self, g: GlobalIdx, p: Pos) -> Result<(), ParseError> {
        self.seek(p);
        self.p.next();
        self.p.expect_punct("=")?;
        let mut addrspace = 0;
        loop {
            let t = self.p.next();
            if t.kind != Tk::Word {
                return self.err(t, "expected 'global' or 'constant'");
            }
            match self.text(t) {
                "global" | "constant" => break,
                "addrspace" => addrspace = self.paren_num()? as u32,
                _ => {
                    if self.p.is_punct("(") {
                        self.p.skip_group()?;
                    }
                }
            }
        }
        let ty = self.ty()?;
        self.ir.global_ty[g] = ty;
        self.ir.global_addrspace[g] = addrspace;
        Ok(())
    }

    fn alias(&mut self, a: AliasIdx, p: Pos) -> Result<(), ParseError> {
        self.seek(p);
        self.p.next();
        self.p.expect_punct("=")?;
        loop {
            let t = self.p.next();
            if t.kind != Tk::Word {
                return self.err(t, "expected 'alias'");
            }
            if self.text(t) == "alias" {
                break;
            }
            if self.p.is_punct("(") {
                self.p.skip_group()?;
            }
        }
        self.ty()?;
        self.p.expect_punct(",")?;
        let (_, v) = self.typed()?;
        self.ir.alias_target[a] = match v {
            Operand::V(v) => v,
            _ => Value::Other,
        };
        Ok(())
    }

    // ------------------------------------------------------------ functions

    fn function(&mut self, f: FuncIdx, p: Pos) -> Result<(), ParseError> {
        self.seek(p);
        let kw = self.p.next();
        let is_def = self.text(kw) == "define";
        let mut ret_attrs = AttrSet::EMPTY;
        let mut dso_local = false;
        let mut ret_ty = TypeIdx::NONE;
        loop {
            let t = self.p.peek();
            if t.kind == Tk::Global {
                self.p.next();
                break;
            }
            if t.kind == Tk::Eof {
                return self.err(t, "expected a function name");
            }
            if self.p.is_type_start() {
                ret_ty = self.ty()?;
                continue;
            }
            self.p.next();
            match t.kind {
                Tk::Word => {
                    let w = self.text(t);
                    if w == "dso_local" {
                        dso_local = true;
                    } else if let Some(a) = Attr::from_word(w) {
                        self.attr_payload(&mut ret_attrs, a)?;
                    } else if w == "cc" && self.p.peek().kind == Tk::Num {
                        self.p.next();
                    } else if self.p.is_punct("(") {
                        self.p.skip_group()?;
                    }
                }
                Tk::Str if self.p.eat_punct("=") => {
                    self.p.next();
                }
                _ => {}
            }
        }
        // parameters
        self.locals.clear();
        self.pending.clear();
        self.next_slot = 0;
        self.p.expect_punct("(")?;
        let first_arg = ArgIdx::new(self.ir.arg_ty.len());
        let mut params = Vec::new();
        let mut vararg = false;
        if !self.p.eat_punct(")") {
            loop {
                if self.p.eat_punct("...") {
                    vararg = true;
                } else {
                    let ty = self.ty()?;
                    let mut set = AttrSet::EMPTY;
                    self.param_attrs(&mut set)?;
                    let set = self.intern(set);
                    self.ir.arg_ty.push(ty);
                    let a = V::Arg(params.len() as u32);
                    self.ir.arg_attrs.push(set);
                    self.ir.arg_func.push(f);
                    self.ir.arg_name_start.push(self.ir.arg_names.len() as u32);
                    params.push(ty);
                    let n = self.p.peek();
                    if n.kind == Tk::Local && !n.nl_before {
                        self.ir.arg_names.push_str(self.text(n));
                        self.p.next();
                        let raw = &self.text(n)[1..];
                        if let Ok(k) = raw.parse::<u32>() {
                            self.next_slot = k.saturating_add(1);
                        }
                        self.locals.insert(Cow::Borrowed(raw), a);
                    } else {
                        self.locals
                            .insert(Cow::Owned(self.next_slot.to_string()), a);
                        self.next_slot += 1;
                    }
                }
                if self.p.eat_punct(",") {
                    continue;
                }
                self.p.expect_punct(")")?;
                break;
            }
        }
        let fn_ty = self.ir.types.function(ret_ty, &params, vararg);
        // trailing header
        let mut personality = Value::None;
        loop {
            if is_def {
                if self.p.is_punct("{") {
                    self.p.next();
                    break;
                }
            } else if self.p.at_eol() {
                break;
            }
            let t = self.p.next();
            match t.kind {
                Tk::Eof => return self.err(t, "expected '{' to start the function body"),
                Tk::Word => match self.text(t) {
                    "personality" => {
                        if let (_, Operand::V(v)) = self.typed()? {
                            personality = v;
                        }
                    }
                    "prefix" | "prologue" => {
                        self.typed()?;
                    }
                    _ => {
                        if self.p.is_punct("(") {
                            self.p.skip_group()?;
                        }
                    }
                },
                Tk::Str if self.p.eat_punct("=") => {
                    self.p.next();
                }
                Tk::Meta => {
                    let mut dbg = None;
                    self.dbg_attachment(t, &mut dbg);
                    if let Some((n, at)) = dbg {
                        self.dbg_funcs.push((f, n, at));
                    }
                }
                _ => {}
            }
        }
        let func = &self.m.functions[f];
        let mut fn_set = AttrSet::EMPTY;
        for w in &func.attrs {
            if let Some(a) = Attr::from_word(w) {
                fn_set.add(a);
            }
        }
        for g in &func.attr_groups {
            if let Some(s) = self.groups.get(g) {
                fn_set.bits |= s.bits;
            }
        }
        let attrs = self.intern(fn_set);
        let ret_attrs = self.intern(ret_attrs);
        self.body = Body::new(params.len() as u32);
        if is_def {
            self.body(f)?;
        }
        self.facts.push(std::mem::take(&mut self.cur));
        self.body.shrink_to_fit();
        self.ir.bodies.push(std::mem::take(&mut self.body));
        self.ir.funcs.push(FuncIr {
            fn_ty,
            ret_ty,
            attrs,
            ret_attrs,
            dso_local,
            personality,
            args: Range {
                start: first_arg,
                len: params.len() as u32,
            },
        });
        self.ir.intrinsic.push(Intrinsic::from_name(&func.name));
        Ok(())
    }

    fn body(&mut self, f: FuncIdx) -> Result<(), ParseError> {
        self.labels.clear();
        self.pending_labels.clear();
        let mut mem = BodyMemory::new();
        let mut open = false;
        loop {
            let t = self.p.peek();
            match t.kind {
                Tk::Eof => return self.err(t, "unterminated function body"),
                Tk::Punct if self.text(t) == "}" => {
                    self.p.next();
                    break;
                }
                Tk::Label => {
                    self.p.next();
                    let raw = self.text(t);
                    let raw = &raw[..raw.len() - 1];
                    if let Ok(n) = raw.parse::<u32>() {
                        self.next_slot = n.saturating_add(1);
                    }
                    let name = match raw.strip_prefix('"') {
                        Some(q) => Cow::Owned(unescape(q.strip_suffix('"').unwrap_or(q))),
                        None => Cow::Borrowed(raw),
                    };
                    self.new_block(name, t)?;
                    open = true;
                }
                Tk::Attr => self.p.skip_statement()?,
                Tk::Word if matches!(self.text(t), "uselistorder" | "uselistorder_bb") => {
                    self.p.skip_statement()?
                }
                _ => {
                    if !open {
                        let name = Cow::Owned(self.next_slot.to_string());
                        self.next_slot += 1;
                        self.new_block(name, t)?;
                        open = true;
                    }
                    let b = BlockIdx::new(self.body.blocks.len() - 1);
                    let start = t.start as usize;
                    if self.instruction(f, b)? {
                        open = false;
                    }
                    if mem.effect != MemEffect::Write {
                        let end = (self.p.peek().start as usize).max(start);
                        mem.instruction(&self.src[start..end]);
                    }
                }
            }
        }
        self.cur.mem = mem.effect;
        for (row, k, at) in std::mem::take(&mut self.pending_labels) {
            let name = name_of(self.text(at));
            match self.labels.get(name.as_ref()) {
                Some(&b) => self.body.set_operand(row, k as usize, V::Block(b)),
                None => return self.err(at, format!("use of undefined block '%{name}'")),
            }
        }
        for (row, k, raw, at) in std::mem::take(&mut self.pending) {
            match self.locals.get(raw) {
                Some(&v) => self.body.set_operand(row, k as usize, v),
                None => return self.err(at, format!("use of undefined value '%{raw}'")),
            }
        }
        Ok(())
    }

    /// Opens block `name` (its label `at`, or the instruction an unnamed block starts at).
    fn new_block(&mut self, name: Cow<'a, str>, at: Tok) -> Result<(), ParseError> {
        let b = self.body.push_block();
        if self.labels.contains_key(name.as_ref()) {
            return self.err(at, format!("redefinition of block '%{name}'"));
        }
        self.cur.block_names.push(name.to_string());
        self.labels.insert(name, b);
        Ok(())
    }
}
