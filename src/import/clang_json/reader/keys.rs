//! Reading a node's keys into its frame: scalars straight from the token bytes, type
//! objects, references (`{id, kind, name}` or a bare id), bases and the filtered dumps'
//! `x-files`. Keys are matched on bytes; an unhandled key's value is skipped with its
//! locations followed. Once `kind` is read, `decide` skips type nodes, comments, the
//! lambda body's second copy and nodes already built (id known in full); `inner` makes
//! the node's entry before its children are read.

use super::{
    Builder, Fail, Kid, FL_COMPLETE, FL_CONSTEXPR, FL_HAS_INIT, FL_HAS_VAR, FL_IMPLICIT,
    FL_INHERITED, FL_INLINE, FL_IS_EXPR, FL_PACK, FL_VIRTUAL,
};
use crate::import::clang_json::json::{parse_id, parse_int, Lexer, Tok};
use crate::import::clang_json::kinds::{Class, ExprClass};
use std::io::Read;

impl Builder<'_> {
    fn read_string<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<Option<String>, Fail> {
        let t = lx.tok()?;
        match t {
            Tok::Str | Tok::Num => Ok(Some(String::from_utf8_lossy(&lx.text).into_owned())),
            Tok::True => Ok(Some("true".into())),
            Tok::False => Ok(Some("false".into())),
            Tok::Null => Ok(None),
            Tok::Eof => Err(lx.err("truncated input: expected a value").into()),
            other => {
                lx.skip_from(other, |_| {})?;
                Ok(None)
            }
        }
    }

    /// A scalar value parsed straight from the token's bytes (no string is made): strings
    /// and numbers as they are, `true`/`false` as those words; `None` for null or a
    /// non-scalar (skipped).
    fn read_scalar<R: Read, T>(
        lx: &mut Lexer<R>,
        parse: impl FnOnce(&[u8]) -> T,
    ) -> Result<Option<T>, Fail> {
        match lx.tok()? {
            Tok::Str | Tok::Num => Ok(Some(parse(&lx.text))),
            Tok::True => Ok(Some(parse(b"true"))),
            Tok::False => Ok(Some(parse(b"false"))),
            Tok::Null => Ok(None),
            Tok::Eof => Err(lx.err("truncated input: expected a value").into()),
            other => {
                lx.skip_from(other, |_| {})?;
                Ok(None)
            }
        }
    }

    fn read_into<R: Read>(lx: &mut Lexer<R>, out: &mut String) -> Result<bool, Fail> {
        let t = lx.tok()?;
        match t {
            Tok::Str | Tok::Num => {
                out.clear();
                out.push_str(&String::from_utf8_lossy(&lx.text));
                Ok(true)
            }
            Tok::True | Tok::False | Tok::Null => {
                out.clear();
                out.push_str(match t {
                    Tok::True => "true",
                    Tok::False => "false",
                    _ => "",
                });
                Ok(t != Tok::Null)
            }
            Tok::Eof => Err(lx.err("truncated input: expected a value").into()),
            other => {
                lx.skip_from(other, |_| {})?;
                Ok(false)
            }
        }
    }

    fn read_bool<R: Read>(lx: &mut Lexer<R>) -> Result<bool, Fail> {
        let t = lx.tok()?;
        match t {
            Tok::True => Ok(true),
            Tok::Eof => Err(lx.err("truncated input: expected a value").into()),
            other => {
                lx.skip_from(other, |_| {})?;
                Ok(false)
            }
        }
    }

    pub(super) fn key<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize) -> Result<(), Fail> {
        // Keys are matched on bytes; the hot ones first.
        let key: &[u8] = &lx.text;
        match key {
            b"id" => {
                if let Tok::Str = lx.tok()? {
                    self.frames[t].id = parse_id(&lx.text);
                } else {
                    return Err(lx.err("\"id\" must be a string").into());
                }
            }
            b"kind" => {
                match lx.tok()? {
                    Tok::Str => {}
                    Tok::Eof => return Err(lx.err("truncated input").into()),
                    other => {
                        lx.skip_from(other, |_| {})?;
                        return Err(lx.err("\"kind\" must be a string").into());
                    }
                }
                let text = std::mem::take(&mut lx.text);
                if t == 0 && text != b"TranslationUnitDecl" {
                    return Err(lx
                        .err(format!(
                            "expected a clang AST: the top-level node is a {}, not a \
                             TranslationUnitDecl",
                            String::from_utf8_lossy(&text)
                        ))
                        .into());
                }
                if self.frames[t].materialized || self.frames[t].class.is_some() {
                    // The node was taken for `{}` when its children came first: clang
                    // prints "kind" before "inner" (and once).
                    return Err(lx
                        .err(format!(
                            "\"kind\" ({}) after the node's \"inner\" or a second \"kind\": \
                             expected clang's key order (kind before inner)",
                            String::from_utf8_lossy(&text)
                        ))
                        .into());
                }
                let k = self.intern_kind(&text);
                lx.text = text;
                self.nodes += 1;
                if self.nodes.is_multiple_of(4096) {
                    // Between nodes no edge offsets are held: reclaim relocated blocks.
                    self.il.compact_edges_if_wasteful();
                }
                let class = self.class_of(k);
                self.frames[t].kind = k;
                self.frames[t].class = Some(class);
                return self.decide(lx, t, class);
            }
            b"loc" => {
                if let Some(p) = self.parse_loc(lx, 0)? {
                    let f = &mut self.frames[t];
                    f.pos = p;
                    f.has_pos = true;
                }
            }
            b"range" => self.parse_range(lx, t)?,
            b"type" => {
                let f = &mut self.frames[t];
                Self::parse_type_obj(lx, &mut f.qual_type, &mut f.desugared)?;
            }
            b"ctorType" => {
                let mut d = String::new();
                Self::parse_type_obj(lx, &mut self.frames[t].ctor_type, &mut d)?;
            }
            b"name" => _ = Self::read_into(lx, &mut self.frames[t].name)?,
            b"mangledName" => _ = Self::read_into(lx, &mut self.frames[t].mangled)?,
            b"opcode" | b"castKind" => _ = Self::read_into(lx, &mut self.frames[t].opcode)?,
            b"value" => {
                let f = &mut self.frames[t];
                f.has_value = Self::read_into(lx, &mut f.value)?;
            }
            b"storageClass" => _ = Self::read_into(lx, &mut self.frames[t].storage)?,
            b"tagUsed" => _ = Self::read_into(lx, &mut self.frames[t].tag)?,
            b"parentDeclContextId" => {
                if let Some(v) = Self::read_scalar(lx, parse_id)? {
                    self.frames[t].parent_ctx = v;
                }
            }
            b"previousDecl" => {
                if let Some(v) = Self::read_scalar(lx, parse_id)? {
                    self.frames[t].previous = v;
                }
            }
            b"referencedMemberDecl" => {
                if let Some(v) = Self::read_scalar(lx, parse_id)? {
                    self.frames[t].member_ref = v;
                }
            }
            b"referencedDecl"
            | b"decl"
            | b"conversionFunc"
            | b"operatorNewDecl"
            | b"operatorDeleteDecl"
            | b"anyInit"
            | b"target"
            | b"nominatedNamespace" => {
                self.parse_ref(lx, t)?;
            }
            b"depth" => {
                if let Some(v) = Self::read_scalar(lx, parse_int)? {
                    self.frames[t].depth = v as u16;
                }
            }
            b"index" => {
                if let Some(v) = Self::read_scalar(lx, parse_int)? {
                    self.frames[t].index = v as u16;
                }
            }
            b"bases" => self.parse_bases(lx, t)?,
            // Declarations say "isImplicit", attributes "implicit".
            b"isImplicit" | b"implicit" => self.flag(lx, t, FL_IMPLICIT)?,
            b"inline" | b"isInline" => self.flag(lx, t, FL_INLINE)?,
            b"inherited" => self.flag(lx, t, FL_INHERITED)?,
            b"isParameterPack" | b"isPack" => self.flag(lx, t, FL_PACK)?,
            b"hasInit" => self.flag(lx, t, FL_HAS_INIT)?,
            b"hasVar" => self.flag(lx, t, FL_HAS_VAR)?,
            b"constexpr" => self.flag(lx, t, FL_CONSTEXPR)?,
            b"completeDefinition" => self.flag(lx, t, FL_COMPLETE)?,
            b"isVirtual" | b"virtual" => self.flag(lx, t, FL_VIRTUAL)?,
            b"isExpr" => self.flag(lx, t, FL_IS_EXPR)?,
            b"x-files" => self.parse_x_files(lx)?,
            b"inner" => {
                match lx.tok()? {
                    Tok::ArrStart => {}
                    Tok::Eof => return Err(lx.err("truncated input").into()),
                    other => {
                        lx.skip_from(other, |_| {})?;
                        return Err(lx.err("\"inner\" must be an array").into());
                    }
                }
                if !self.frames[t].materialized {
                    self.materialize(lx.offset(), t)?;
                }
                self.frames[t].in_inner = true;
            }
            _ => self.skip_value_tracking(lx)?,
        }
        Ok(())
    }

    fn flag<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize, bit: u32) -> Result<(), Fail> {
        if Self::read_bool(lx)? {
            self.frames[t].flags |= bit;
        }
        Ok(())
    }

    /// Decides, once the kind is known, whether the node is skipped.
    fn decide<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize, class: Class) -> Result<(), Fail> {
        match class {
            Class::Comment | Class::TypeNode => return self.skip_node(lx, t, None),
            _ => {}
        }
        if t > 0 {
            let p = t - 1;
            let pclass = self.frames[p].class;
            if pclass == Some(Class::Expr(ExprClass::Lambda))
                && class == Class::Stmt(crate::il::StmtKind::Block)
            {
                // The lambda body is dumped again under the LambdaExpr: built once, in the
                // call operator.
                return self.skip_node(lx, t, None);
            }
            if self.frames[p].reg_pending && class != Class::TemplateArg {
                self.register_spec(lx.offset(), p)?;
            }
        }
        let id = self.frames[t].id;
        if id != 0 {
            if let Some((e, full)) = self.lookup(id) {
                if full && !matches!(class, Class::Tu) {
                    let kid = Kid {
                        e,
                        class,
                        kind: self.frames[t].kind,
                        val: None,
                        reused: true,
                        flags: 0,
                    };
                    return self.skip_node(lx, t, Some(kid));
                }
            }
        }
        Ok(())
    }

    fn parse_type_obj<R: Read>(
        lx: &mut Lexer<R>,
        q: &mut String,
        d: &mut String,
    ) -> Result<(), Fail> {
        if !open_object(lx)? {
            return Ok(());
        }
        loop {
            match lx.tok()? {
                Tok::Str => match lx.text.as_slice() {
                    b"qualType" => {
                        Self::read_into(lx, q)?;
                    }
                    b"desugaredQualType" => {
                        Self::read_into(lx, d)?;
                    }
                    _ => lx.skip_value()?,
                },
                Tok::ObjEnd => return Ok(()),
                Tok::Eof => return Err(lx.err("truncated input in a type object").into()),
                _ => return Err(lx.err("expected a key in a type object").into()),
            }
        }
    }

    fn parse_ref<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize) -> Result<(), Fail> {
        match lx.tok()? {
            Tok::ObjStart => {}
            Tok::Str => {
                // A bare id string.
                if self.frames[t].ref_id == 0 {
                    self.frames[t].ref_id = parse_id(&lx.text);
                }
                return Ok(());
            }
            Tok::Eof => return Err(lx.err("truncated input").into()),
            other => {
                lx.skip_from(other, |_| {})?;
                return Ok(());
            }
        }
        let (mut id, mut kind, mut name) = (0u64, u16::MAX, String::new());
        loop {
            match lx.tok()? {
                Tok::Str => match lx.text.as_slice() {
                    b"id" => {
                        if let Some(v) = Self::read_scalar(lx, parse_id)? {
                            id = v;
                        }
                    }
                    b"kind" => {
                        if let Tok::Str = lx.tok()? {
                            let text = std::mem::take(&mut lx.text);
                            // Counted as a reference, not a node.
                            kind = self.intern_kind(&text);
                            self.kind_counts[kind as usize] -= 1;
                            lx.text = text;
                        }
                    }
                    b"name" => {
                        Self::read_into(lx, &mut name)?;
                    }
                    _ => lx.skip_value()?,
                },
                Tok::ObjEnd => break,
                Tok::Eof => return Err(lx.err("truncated input in a reference").into()),
                _ => return Err(lx.err("expected a key in a reference object").into()),
            }
        }
        let f = &mut self.frames[t];
        if f.ref_id == 0 && id != 0 {
            f.ref_id = id;
            f.ref_kind = kind;
            f.ref_name = name;
        }
        Ok(())
    }

    fn parse_bases<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize) -> Result<(), Fail> {
        if !open_array(lx)? {
            return Ok(());
        }
        loop {
            match lx.tok()? {
                Tok::ObjStart => {
                    let (mut q, mut d) = (String::new(), String::new());
                    let mut access = 0u8;
                    let mut virt = false;
                    loop {
                        match lx.tok()? {
                            Tok::Str => match lx.text.as_slice() {
                                b"type" => Self::parse_type_obj(lx, &mut q, &mut d)?,
                                b"access" => {
                                    let s = self.read_string(lx)?.unwrap_or_default();
                                    access = match s.as_str() {
                                        "public" => 1,
                                        "protected" => 2,
                                        "private" => 3,
                                        _ => 0,
                                    };
                                }
                                b"isVirtual" => virt = Self::read_bool(lx)?,
                                _ => lx.skip_value()?,
                            },
                            Tok::ObjEnd => break,
                            Tok::Eof => return Err(lx.err("truncated input in bases").into()),
                            _ => return Err(lx.err("expected a key in a base").into()),
                        }
                    }
                    let ty = if d.is_empty() { q } else { d };
                    self.frames[t].bases.push((ty, access, virt));
                }
                Tok::ArrEnd => return Ok(()),
                Tok::Eof => return Err(lx.err("truncated input in bases").into()),
                other => lx.skip_from(other, |_| {})?,
            }
        }
    }

    fn parse_x_files<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<(), Fail> {
        if !open_array(lx)? {
            return Ok(());
        }
        loop {
            match lx.tok()? {
                Tok::ObjStart => {
                    let (mut f, mut inc) = (None, None);
                    loop {
                        match lx.tok()? {
                            Tok::Str => match lx.text.as_slice() {
                                b"file" => f = self.read_string(lx)?,
                                b"includedFrom" => inc = self.read_string(lx)?,
                                _ => lx.skip_value()?,
                            },
                            Tok::ObjEnd => break,
                            Tok::Eof => return Err(lx.err("truncated input in x-files").into()),
                            _ => return Err(lx.err("expected a key in x-files").into()),
                        }
                    }
                    if let Some(f) = f {
                        let c = self.file(f.as_bytes());
                        if let Some(i) = inc {
                            let p = self.file(i.as_bytes());
                            self.includes.push((c, p));
                        }
                    }
                }
                Tok::ArrEnd => return Ok(()),
                Tok::Eof => return Err(lx.err("truncated input in x-files").into()),
                other => lx.skip_from(other, |_| {})?,
            }
        }
    }
}

/// Reads the start of a value that should be an object: true when it is (the caller then
/// reads its members), false when it was another value, which is skipped. Truncated input
/// is an error.
pub(super) fn open_object<R: Read>(lx: &mut Lexer<R>) -> Result<bool, Fail> {
    open(lx, Tok::ObjStart)
}

/// Enters an array value: `false` (the value skipped) when it is something else.
fn open_array<R: Read>(lx: &mut Lexer<R>) -> Result<bool, Fail> {
    open(lx, Tok::ArrStart)
}

fn open<R: Read>(lx: &mut Lexer<R>, start: Tok) -> Result<bool, Fail> {
    match lx.tok()? {
        t if t == start => Ok(true),
        Tok::Eof => Err(lx.err("truncated input").into()),
        other => {
            lx.skip_from(other, |_| {})?;
            Ok(false)
        }
    }
}
