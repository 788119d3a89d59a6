//! The grammar of LLVM IR above instruction level: symbols and the constant pool, types
//! (parsed to be skipped or to spell a function type), values and constant expressions,
//! and the module-level items (`source_filename`, `target`, globals, aliases, ifuncs,
//! attribute groups, metadata).

use super::lexer::unescape;
use super::lexer::{Tk, Tok};
use super::{name_of, unquote, ParseError, Parser, MAX_DEPTH};
use crate::llvm::{Alias, ConstIdx, ConstKind, GlobalVar, Linkage, SigIdx, SymbolDef, SymbolIdx};

pub(super) const TYPE_WORDS: &[&str] = &[
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

pub(super) const CONSTEXPR_WORDS: &[&str] = &[
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

/// Words that may stand between `@g =` and `global`/`constant`/`alias`/`ifunc` besides
/// the linkage: preemption, visibility, DLL storage, thread-local mode, unnamed_addr,
/// address space, externally_initialized.
const GLOBAL_PREFIX_WORDS: &[&str] = &[
    "dso_local",
    "dso_preemptable",
    "default",
    "hidden",
    "protected",
    "dllimport",
    "dllexport",
    "thread_local",
    "unnamed_addr",
    "local_unnamed_addr",
    "addrspace",
    "externally_initialized",
];

pub(super) const LEAF_VALUE_WORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "undef",
    "poison",
    "zeroinitializer",
];

pub(super) fn is_int_type(w: &str) -> bool {
    w.len() > 1 && w.as_bytes()[0] == b'i' && w.as_bytes()[1..].iter().all(u8::is_ascii_digit)
}

impl<'a> Parser<'a> {
    // ------------------------------------------------------------ symbols, consts

    pub(super) fn sym(&mut self, quoted_or_plain: &str) -> SymbolIdx {
        let name = name_of(quoted_or_plain);
        if let Some(&s) = self.sym_map.get(name.as_ref()) {
            return s;
        }
        let s = self.m.symbols.push(name.to_string());
        self.m.symbol_defs.push(SymbolDef::Undefined);
        self.sym_map.insert(name.into_owned(), s);
        s
    }

    pub(super) fn sym_const(&mut self, sym: SymbolIdx) -> ConstIdx {
        if self.sym_const.len() <= sym.idx() {
            self.sym_const.resize(sym.idx() + 1, ConstIdx::NONE);
        }
        if self.sym_const[sym.idx()].is_none() {
            let id = self.m.consts.push(ConstKind::Symbol(sym), &[]);
            self.const_keys.push(("", ""));
            self.sym_const[sym.idx()] = id;
        }
        self.sym_const[sym.idx()]
    }

    pub(super) fn intern_expr(
        &mut self,
        key: (&'a str, &'a str),
        ops_from: usize,
    ) -> Option<ConstIdx> {
        if self.scratch.len() == ops_from {
            return None;
        }
        let id = if let Some(&id) = self.const_map.get(&key) {
            id
        } else {
            let id = self
                .m
                .consts
                .push(ConstKind::Expr, &self.scratch[ops_from..]);
            self.const_keys.push(key);
            self.const_map.insert(key, id);
            id
        };
        self.scratch.truncate(ops_from);
        Some(id)
    }

    pub(super) fn intern_sig(&mut self, sig: &str) -> SigIdx {
        if let Some(&i) = self.sig_map.get(sig) {
            return i;
        }
        let i = self.m.signatures.push(sig.to_string());
        self.sig_map.insert(sig.to_string(), i);
        i
    }

    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            let t = self.peek();
            return self.err_at(t, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    // ------------------------------------------------------------ types

    pub(super) fn is_type_start(&mut self) -> bool {
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
    pub(super) fn parse_type(&mut self) -> Result<(), ParseError> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.depth -= 1;
        r
    }

    pub(super) fn parse_type_inner(&mut self) -> Result<(), ParseError> {
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

    pub(super) fn expect_word(&mut self, w: &str) -> Result<(), ParseError> {
        let t = self.next();
        if t.kind == Tk::Word && self.text(t) == w {
            Ok(())
        } else {
            self.err_at(t, format!("expected '{w}', found {}", self.describe(t)))
        }
    }

    pub(super) fn type_dims(&mut self) -> Result<(), ParseError> {
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

    pub(super) fn type_list(&mut self, close: &str) -> Result<(), ParseError> {
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
    pub(super) fn type_params(&mut self) -> Result<(), ParseError> {
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
    pub(super) fn skip_attrs(&mut self) -> Result<(), ParseError> {
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

    pub(super) fn is_value_word(&self, w: &str) -> bool {
        LEAF_VALUE_WORDS.contains(&w)
            || CONSTEXPR_WORDS.contains(&w)
            || matches!(
                w,
                "blockaddress" | "dso_local_equivalent" | "no_cfi" | "asm"
            )
    }

    // ------------------------------------------------------------ values

    pub(super) fn is_value_start(&mut self) -> bool {
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
    pub(super) fn typed_item(&mut self) -> Result<Option<ConstIdx>, ParseError> {
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
    pub(super) fn value(&mut self, ty: &'a str) -> Result<Option<ConstIdx>, ParseError> {
        self.enter()?;
        let r = self.value_inner(ty);
        self.depth -= 1;
        r
    }

    pub(super) fn value_inner(&mut self, ty: &'a str) -> Result<Option<ConstIdx>, ParseError> {
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

    pub(super) fn module(&mut self) -> Result<(), ParseError> {
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
                Tk::Meta => self.metadata()?,
                Tk::Local => self.type_def()?,
                Tk::Comdat => self.skip_statement()?,
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

    /// `%name = type ...`: the only top-level statement that starts with a local name.
    pub(super) fn type_def(&mut self) -> Result<(), ParseError> {
        let name = self.next();
        self.spans.types.push(super::Pos {
            start: name.start,
            line: name.line,
            col: name.col,
        });
        let eq = self.peek();
        if !(eq.kind == Tk::Punct && self.text(eq) == "=") {
            return self.err_at(name, format!("expected '=' after {}", self.describe(name)));
        }
        self.next();
        let ty = self.peek();
        if !(ty.kind == Tk::Word && self.text(ty) == "type") {
            return self.err_at(
                name,
                format!(
                    "expected a top-level entity: a local name at top level only names a type \
                     ('{} = type ...'), found {}",
                    self.text(name),
                    self.describe(ty)
                ),
            );
        }
        self.skip_statement()
    }

    pub(super) fn attributes(&mut self) -> Result<(), ParseError> {
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

    pub(super) fn global(&mut self) -> Result<(), ParseError> {
        let name_tok = self.next();
        let sym = self.sym(self.text(name_tok));
        self.expect_punct("=")?;
        let mut linkage = Linkage::External;
        let mut explicit_external = false;
        // `dso_local`, or implied by a non-default visibility (as LLParser sets it).
        let mut dso_local = false;
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
                    let idx = self.m.globals.next_index();
                    self.define_sym(sym, SymbolDef::Global(idx), name_tok)?;
                    self.spans.globals.push(super::Pos {
                        start: name_tok.start,
                        line: name_tok.line,
                        col: name_tok.col,
                    });
                    self.m.globals.push(GlobalVar {
                        name: self.m.symbols[sym].clone(),
                        sym,
                        linkage,
                        is_constant: w == "constant",
                        has_initializer: has_init,
                        initializer: init,
                        dso_local: dso_local || linkage.is_local(),
                        comdat: None,
                        align: None,
                    });
                    // `, section "s"`, `, comdat($c)`, `, align 8`, attachments
                    while !self.at_eol() {
                        if self.is_word("comdat") {
                            self.next();
                            let c = self.comdat_name(name_tok)?;
                            self.m.globals[idx].comdat = Some(c);
                        } else if self.is_word("align") {
                            self.next();
                            let t = self.next();
                            let n = self.text(t).parse::<u64>().ok();
                            match n.filter(|n| n.is_power_of_two()) {
                                Some(n) => self.m.globals[idx].align = Some(n),
                                None => {
                                    return self.err_at(
                                        t,
                                        format!(
                                            "expected a power of two after 'align', found {}",
                                            self.describe(t)
                                        ),
                                    )
                                }
                            }
                        } else if self.is_punct("(") || self.is_punct("{") || self.is_punct("[") {
                            self.skip_group()?;
                        } else {
                            self.next();
                        }
                    }
                    return Ok(());
                }
                "alias" | "ifunc" => {
                    self.parse_type()?;
                    self.expect_punct(",")?;
                    let target = self.typed_item()?;
                    let a = Alias {
                        name: self.m.symbols[sym].clone(),
                        sym,
                        linkage,
                        target,
                    };
                    if w == "alias" {
                        self.spans.aliases.push(super::Pos {
                            start: name_tok.start,
                            line: name_tok.line,
                            col: name_tok.col,
                        });
                        self.define_sym(
                            sym,
                            SymbolDef::Alias(self.m.aliases.next_index()),
                            name_tok,
                        )?;
                        self.m.aliases.push(a);
                    } else {
                        self.define_sym(
                            sym,
                            SymbolDef::IFunc(self.m.ifuncs.next_index()),
                            name_tok,
                        )?;
                        self.m.ifuncs.push(a);
                    }
                    self.skip_statement_rest()?;
                    return Ok(());
                }
                _ if GLOBAL_PREFIX_WORDS.contains(&w) => {
                    dso_local |= matches!(w, "dso_local" | "hidden" | "protected");
                    if self.is_punct("(") {
                        self.skip_group()?;
                    }
                }
                _ => {
                    return self.err_at(
                        t,
                        format!(
                            "expected 'global', 'constant', 'alias' or 'ifunc', found {}",
                            self.describe(t)
                        ),
                    )
                }
            }
        }
    }

    /// Skips trailing `, section ...`, `, align N`, `!dbg` etc. to the end of the line.
    /// After the word `comdat` on a global or function named by `owner`: `($name)` names
    /// the comdat, nothing names the owner's own. Returns the name without `$`.
    pub(super) fn comdat_name(&mut self, owner: Tok) -> Result<Box<str>, ParseError> {
        if !self.eat_punct("(") {
            return Ok(name_of(self.text(owner)).into());
        }
        let c = self.next();
        if c.kind != Tk::Comdat {
            return self.err_at(
                c,
                format!("expected a comdat name, found {}", self.describe(c)),
            );
        }
        let name: Box<str> = name_of(self.text(c)).into();
        self.expect_punct(")")?;
        Ok(name)
    }

    pub(super) fn skip_statement_rest(&mut self) -> Result<(), ParseError> {
        while !self.at_eol() {
            if self.is_punct("(") || self.is_punct("{") || self.is_punct("[") {
                self.skip_group()?;
            } else {
                self.next();
            }
        }
        Ok(())
    }

    pub(super) fn define_sym(
        &mut self,
        sym: SymbolIdx,
        def: SymbolDef,
        at: Tok,
    ) -> Result<(), ParseError> {
        if self.m.symbol_defs[sym] != SymbolDef::Undefined {
            return self.err_at(at, format!("redefinition of '@{}'", self.m.symbols[sym]));
        }
        self.m.symbol_defs[sym] = def;
        self.def_pos.push((sym, at.line, at.col));
        Ok(())
    }

    /// A module-level metadata statement (`!0 = !{...}`, `!name = !{...}`). Skipped,
    /// except that an `nvvm.annotations` operand `!{ptr @k, !"kernel", i32 1}` marks `@k`
    /// a kernel, and that where a numbered node begins is kept ([`super::Spans`]) for the
    /// instruction pass, which reads the debug locations calls name.
    pub(super) fn metadata(&mut self) -> Result<(), ParseError> {
        let first = self.peek();
        let start = first.start as usize;
        let name = self.text(first);
        if name.len() > 1 && name.as_bytes()[1..].iter().all(u8::is_ascii_digit) {
            self.spans.metadata.push(super::Pos {
                start: first.start,
                line: first.line,
                col: first.col,
            });
        }
        self.skip_statement()?;
        let end = self.peek().start as usize;
        let text = &self.src[start..end];
        if !text.contains("!\"kernel\", i32 1") {
            return Ok(());
        }
        if let Some(at) = text.find('@') {
            let rest = &text[at + 1..];
            let name = if let Some(q) = rest.strip_prefix('"') {
                unescape(q.split('"').next().unwrap_or(""))
            } else {
                rest.split(|c: char| !(c.is_ascii_alphanumeric() || "._$-".contains(c)))
                    .next()
                    .unwrap_or("")
                    .to_string()
            };
            if !name.is_empty() {
                self.annotated_kernels.push(name);
            }
        }
        Ok(())
    }
}
