//! Function declarations and bodies: the header (linkage, calling convention, return
//! and parameter types, attributes), basic blocks and their labels, and each
//! instruction's operands, successors, call sites and memory effect.

use super::grammar::{is_int_type, TYPE_WORDS};
use super::lexer::unescape;
use super::lexer::{Tk, Tok};
use super::{name_of, squash, squash_into, ParseError, Parser};
use crate::idx::{BlockIdx, IndexVec};
use crate::llvm::{
    Block, CallKind, CallSite, Callee, ConstIdx, Function, Linkage, MemEffect, OperandRef, SigIdx,
    SymbolDef, Terminator,
};

impl<'a> Parser<'a> {
    pub(super) fn function(&mut self, is_def: bool) -> Result<(), ParseError> {
        let kw = self.next();
        self.spans.funcs.push(super::Pos {
            start: kw.start,
            line: kw.line,
            col: kw.col,
        });
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
        let mut comdat: Option<Box<str>> = None;
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
                    } else if matches!(w, "section" | "partition" | "gc") {
                        let s = self.next();
                        if s.kind != Tk::Str {
                            return self.err_at(s, format!("expected a string after '{w}'"));
                        }
                    } else if matches!(w, "align" | "alignstack") && self.peek().kind == Tk::Num {
                        self.next();
                    } else if w == "comdat" {
                        comdat = Some(self.comdat_name(name_tok)?);
                    } else if w == "addrspace" {
                        if self.is_punct("(") {
                            self.skip_group()?;
                        }
                    } else if matches!(w, "unnamed_addr" | "local_unnamed_addr") {
                    } else if FN_ATTR_WORDS.contains(&w) {
                        if self.is_punct("(") {
                            self.skip_group()?;
                        }
                        attrs.push(w.to_string());
                    } else {
                        return self.err_at(
                            t,
                            format!("unknown function attribute {}", self.describe(t)),
                        );
                    }
                }
                Tk::Str => {
                    // string attribute: "key" or "key"="value"
                    self.next();
                    if self.eat_punct("=") {
                        let v = self.next();
                        if v.kind != Tk::Str {
                            return self.err_at(v, "expected a string attribute value");
                        }
                    }
                }
                Tk::Meta => {
                    // attached metadata (`!dbg !12`)
                    self.next();
                    if self.peek().kind == Tk::Meta {
                        self.next();
                    } else if self.is_punct("!") {
                        self.skip_to_comma()?;
                    }
                }
                _ => {
                    let what = if is_def {
                        "expected '{' to start the function body"
                    } else {
                        "expected a function attribute or the end of the declaration"
                    };
                    return self.err_at(t, format!("{what}, found {}", self.describe(t)));
                }
            }
        }
        let fidx = self.m.functions.next_index();
        self.define_sym(sym, SymbolDef::Function(fidx), name_tok)?;
        let mut f = Function {
            name: self.m.symbols[sym].clone(),
            sym,
            is_definition: is_def,
            signature,
            linkage,
            calling_conv: cc,
            attr_groups,
            attrs,
            nvvm_kernel: false,
            line: kw.line,
            blocks: IndexVec::new(),
            instruction_count: 0,
            body_mem: if is_def {
                MemEffect::None
            } else {
                MemEffect::Write
            },
            call_sites: Vec::new(),
            operand_refs: Vec::new(),
            comdat,
        };
        if is_def {
            if self.skip_bodies && self.body_starts_next_line() {
                self.skip_body(&f.name)?;
            } else {
                self.body(&mut f, numbered)?;
            }
        }
        self.m.functions.push(f);
        Ok(())
    }

    /// Nothing but blanks or a comment follows the body's `{` on its line (as LLVM
    /// prints every body).
    fn body_starts_next_line(&self) -> bool {
        if self.st.peeked.is_some() {
            return false;
        }
        let rest = &self.src.as_bytes()[self.st.pos..];
        let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        let text = line.trim_ascii_start();
        text.is_empty() || text[0] == b';'
    }

    /// Steps over a function body to its closing `}`: the first line holding only `}`
    /// (and blanks or a comment), counting lines on the way. The instruction pass reads
    /// the body ([`super::ParseOptions::instructions`]).
    fn skip_body(&mut self, name: &str) -> Result<(), ParseError> {
        let b = self.src.as_bytes();
        let from = self.st.pos;
        let mut at = from;
        let close = loop {
            let Some(k) = memchr::memmem::find(&b[at..], b"\n}") else {
                let t = self.peek();
                return self.err_at(t, format!("unterminated body of '@{name}'"));
            };
            let close = at + k + 1;
            let rest = &b[close + 1..];
            let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
            let text = line.trim_ascii_start();
            if text.is_empty() || text[0] == b';' {
                break close;
            }
            at = close;
        };
        self.st.line += memchr::memchr_iter(b'\n', &b[from..close]).count() as u32;
        self.st.line_start = close;
        self.st.pos = close;
        self.st.peeked = None;
        self.next();
        Ok(())
    }

    // ------------------------------------------------------------ function bodies

    pub(super) fn body(&mut self, f: &mut Function, first_slot: u32) -> Result<(), ParseError> {
        let mut next_slot = first_slot;
        let mut labels: crate::hash::FixedMap<String, BlockIdx> = Default::default();
        // successor label references per block, resolved at the end
        let mut pending: Vec<(BlockIdx, String, Tok)> = Vec::new();
        let mut succs: Vec<(String, Tok)> = Vec::new();
        let mut mem = BodyMemory::new();
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
                    if labels.insert(name.clone(), f.blocks.next_index()).is_some() {
                        return self.err_at(t, format!("redefinition of block '%{name}'"));
                    }
                    f.blocks.push(empty_block(name));
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
                        labels.insert(name.clone(), f.blocks.next_index());
                        f.blocks.push(empty_block(name));
                        open_block = true;
                    }
                    let b = BlockIdx::new(f.blocks.len() - 1);
                    succs.clear();
                    let start = t.start as usize;
                    let term = self.instruction(f, b, &mut next_slot, &mut succs)?;
                    if mem.effect != MemEffect::Write {
                        let end = self.peek().start as usize;
                        mem.instruction(&self.src[start..end.max(start)]);
                    }
                    pending.extend(succs.drain(..).map(|(n, t)| (b, n, t)));
                    f.instruction_count += 1;
                    f.blocks[b].instruction_count += 1;
                    if let Some(term) = term {
                        f.blocks[b].term =
                            Terminator::from_opcode(term).unwrap_or(Terminator::None);
                        open_block = false;
                    }
                }
            }
        }
        f.body_mem = mem.effect;
        for (b, name, at) in pending {
            match labels.get(&name) {
                Some(&i) => f.blocks[b].succs.push(i),
                None => return self.err_at(at, format!("use of undefined block '%{name}'")),
            }
        }
        Ok(())
    }

    /// Parses `label %x`, returning the decoded name.
    pub(super) fn label_ref(&mut self) -> Result<(String, Tok), ParseError> {
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

    pub(super) fn push_item_const(&mut self, f: &mut Function, c: Option<ConstIdx>) {
        if let Some(c) = c {
            f.operand_refs.push(OperandRef::Const(c));
        }
    }

    /// Generic comma-separated typed operands to the end of the line.
    pub(super) fn generic_operands(&mut self, f: &mut Function) -> Result<(), ParseError> {
        while !self.at_eol() {
            let c = self.typed_item()?;
            self.push_item_const(f, c);
            if self.is_word("to") {
                self.next();
                self.parse_type()?;
            }
            self.skip_orderings()?;
            if self.eat_punct(",") || self.at_eol() {
                continue;
            }
            let t = self.peek();
            return self.err_at(
                t,
                format!(
                    "expected ',' or the end of the instruction, found {}",
                    self.describe(t)
                ),
            );
        }
        Ok(())
    }

    /// Skips atomic orderings and `syncscope("...")` after an operand.
    fn skip_orderings(&mut self) -> Result<(), ParseError> {
        loop {
            let t = self.peek();
            if t.kind != Tk::Word || t.nl_before {
                return Ok(());
            }
            let w = self.text(t);
            if ORDERINGS.contains(&w) {
                self.next();
            } else if w == "syncscope" {
                self.next();
                if self.is_punct("(") {
                    self.skip_group()?;
                }
            } else {
                return Ok(());
            }
        }
    }

    /// Parses one instruction; returns the terminator opcode if it is one.
    pub(super) fn instruction(
        &mut self,
        f: &mut Function,
        block: BlockIdx,
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
            _ if OPCODES.contains(&op) => {
                self.generic_operands(f)?;
                Ok(None)
            }
            _ => self.err_at(
                t,
                format!("expected an instruction opcode, found {}", self.describe(t)),
            ),
        }
    }

    pub(super) fn skip_flags(&mut self) {
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

    pub(super) fn call(
        &mut self,
        f: &mut Function,
        block: BlockIdx,
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
            f.operand_refs.push(OperandRef::DirectCall(s, SigIdx::NONE));
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
}

/// Instruction opcodes parsed by [`Parser::generic_operands`] (LLVM 19's LangRef; the
/// terminators, calls, `phi`, `landingpad`, the pads and `atomicrmw` have their own
/// arms).
const OPCODES: &[&str] = &[
    "fneg",
    "add",
    "fadd",
    "sub",
    "fsub",
    "mul",
    "fmul",
    "udiv",
    "sdiv",
    "fdiv",
    "urem",
    "srem",
    "frem",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
    "alloca",
    "load",
    "store",
    "fence",
    "cmpxchg",
    "getelementptr",
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "ptrtoint",
    "inttoptr",
    "bitcast",
    "addrspacecast",
    "icmp",
    "fcmp",
    "select",
    "freeze",
    "va_arg",
];

/// Atomic orderings that may follow an operand.
const ORDERINGS: &[&str] = &[
    "unordered",
    "monotonic",
    "acquire",
    "release",
    "acq_rel",
    "seq_cst",
];

/// Function attribute keywords of LLVM 14–19 (`Attributes.td`), accepted after a
/// function's parameter list; a word outside this list is an error, as in `llvm-as`.
const FN_ATTR_WORDS: &[&str] = &[
    "alignstack",
    "allockind",
    "allocsize",
    "alwaysinline",
    "argmemonly",
    "builtin",
    "cold",
    "convergent",
    "coro_elide_safe",
    "coro_only_destroy_when_complete",
    "disable_sanitizer_instrumentation",
    "fn_ret_thunk_extern",
    "hot",
    "hybrid_patchable",
    "inaccessiblemem_or_argmemonly",
    "inaccessiblememonly",
    "inlinehint",
    "jumptable",
    "memory",
    "minsize",
    "mustprogress",
    "naked",
    "nobuiltin",
    "nocallback",
    "nocf_check",
    "noduplicate",
    "nofree",
    "noimplicitfloat",
    "noinline",
    "nomerge",
    "nonlazybind",
    "noprofile",
    "norecurse",
    "noredzone",
    "noreturn",
    "nosanitize_bounds",
    "nosanitize_coverage",
    "nosync",
    "nounwind",
    "null_pointer_is_valid",
    "optdebug",
    "optforfuzzing",
    "optnone",
    "optsize",
    "presplitcoroutine",
    "readnone",
    "readonly",
    "returns_twice",
    "safestack",
    "sanitize_address",
    "sanitize_hwaddress",
    "sanitize_memory",
    "sanitize_memtag",
    "sanitize_numerical_stability",
    "sanitize_realtime",
    "sanitize_realtime_blocking",
    "sanitize_thread",
    "shadowcallstack",
    "skipprofile",
    "speculatable",
    "speculative_load_hardening",
    "ssp",
    "sspreq",
    "sspstrong",
    "strictfp",
    "uwtable",
    "vscale_range",
    "willreturn",
    "writeonly",
];

fn empty_block(name: String) -> Block {
    Block {
        name,
        term: Terminator::None,
        succs: Vec::new(),
        instruction_count: 0,
    }
}

/// The memory effect of a body's own instructions, one instruction at a time: stores,
/// atomics and fences write, loads read, unless their pointer operand is a local
/// `alloca` of the same body. Calls are the call graph's business, not counted here.
pub(super) struct BodyMemory<'a> {
    pub(super) effect: MemEffect,
    allocas: crate::hash::FixedSet<&'a str>,
}

impl<'a> BodyMemory<'a> {
    pub(super) fn new() -> Self {
        BodyMemory {
            effect: MemEffect::None,
            allocas: Default::default(),
        }
    }

    /// Takes one instruction's text (`%x = load i32, ptr %p, align 4`).
    pub(super) fn instruction(&mut self, text: &'a str) {
        let l = text.trim();
        let (def, inst) = match l.split_once(" = ") {
            Some((d, i)) if d.starts_with('%') => (Some(d), i.trim_start()),
            _ => (None, l),
        };
        let op = inst.split_whitespace().next().unwrap_or("");
        // The pointer: the last operand before any `, align` (or the last one).
        let ptr = || {
            let body = inst.split(", align").next().unwrap_or(inst);
            body.split(',')
                .rev()
                .find_map(|p| p.split_whitespace().last())
                .unwrap_or("")
        };
        match op {
            "alloca" => {
                if let Some(d) = def {
                    self.allocas.insert(d);
                }
            }
            "store" if !self.allocas.contains(ptr()) => self.effect = MemEffect::Write,
            "load" if !self.allocas.contains(ptr()) => {
                self.effect = self.effect.max(MemEffect::Read)
            }
            "atomicrmw" | "cmpxchg" | "fence" => self.effect = MemEffect::Write,
            _ => {}
        }
    }
}
