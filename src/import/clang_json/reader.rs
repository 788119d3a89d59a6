//! The streaming builder: one pass over the token stream with an explicit stack of open
//! nodes (no recursion over the document), allocating IL entries as nodes open and
//! attaching children in one batch when a node closes.

use super::ids::IdIndex;
use super::json::{parse_id, parse_int, JsonError, Lexer, Tok};
use super::kinds::{attr_kind, classify, is_decl, op, Class, ExprClass, RecordKind};
use super::types::{normalize, qual, Alt, Types};
use super::{Import, ImportReport};
use crate::il::kinds::{self as K, ck, SCK_FUNCTION};
use crate::il::{fields as F, Eix, EntryKind, Il, IlError, RegionIdx};
use ahash::AHashMap;
use std::io::Read;

/// Routine side-table bits (`Import::routine_flags`, by routine row).
pub mod rf {
    /// Has a body.
    pub const BODY: u16 = 1;
    /// Part of a template pattern (dependent).
    pub const PATTERN: u16 = 2;
    /// `__global__`.
    pub const GLOBAL: u16 = 4;
    /// Explicit `__device__`.
    pub const DEVICE: u16 = 8;
    /// Explicit `__host__`.
    pub const HOST: u16 = 16;
    /// Implicitly host+device (constexpr, implicit members, lambdas).
    pub const IMPLICIT_HD: u16 = 32;
    /// always_inline / `__forceinline__`.
    pub const ALWAYS_INLINE: u16 = 64;
    /// Declared inline, or a member defined in its class, or constexpr.
    pub const INLINE: u16 = 128;
    /// storageClass static.
    pub const STATIC: u16 = 256;
    /// A member function.
    pub const MEMBER: u16 = 512;
    /// A template instantiation or specialization.
    pub const INSTANCE: u16 = 1024;
    /// Compiler-declared (`isImplicit`).
    pub const IMPLICIT: u16 = 2048;
    /// Inside an anonymous namespace or a local class.
    pub const INTERNAL: u16 = 4096;
}

const FL_IMPLICIT: u32 = 1;
const FL_INLINE: u32 = 2;
const FL_INHERITED: u32 = 4;
const FL_PACK: u32 = 8;
const FL_HAS_INIT: u32 = 16;
const FL_HAS_VAR: u32 = 32;
const FL_CONSTEXPR: u32 = 64;
const FL_COMPLETE: u32 = 128;
const FL_VIRTUAL: u32 = 256;
const FL_IS_EXPR: u32 = 512;

#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // class and kind are kept for debugging and future slot rules
struct Kid {
    e: Eix,
    class: Class,
    kind: u16,
    val: Option<i64>,
    reused: bool,
    flags: u32,
}

#[derive(Default)]
struct Frame {
    kind: u16,
    class: Option<Class>,
    id: u64,
    entry: Eix,
    materialized: bool,
    in_inner: bool,
    reused: bool,
    name: String,
    mangled: String,
    qual_type: String,
    desugared: String,
    opcode: String,
    value: String,
    has_value: bool,
    storage: String,
    tag: String,
    flags: u32,
    ref_id: u64,
    ref_kind: u16,
    ref_name: String,
    member_ref: u64,
    previous: u64,
    /// A call or function-to-pointer decay: typed when it closes, from its operands.
    type_deferred: bool,
    /// `parentDeclContextId`: the semantic parent of an out-of-line definition.
    parent_ctx: u64,
    /// The enclosing scopes outside an out-of-line definition, while inside it.
    saved_qual: Option<Vec<String>>,
    ctor_type: String,
    bases: Vec<(String, u8, bool)>,
    /// The base types, interned when the record opens.
    base_types: Vec<Eix>,
    depth: u16,
    index: u16,
    pos: (u16, u32, u32),
    has_pos: bool,
    kids: Vec<Kid>,
    nkids: u32,
    saved_region: Option<RegionIdx>,
    body_scope: Eix,
    locals: Vec<Eix>,
    qual_pushed: bool,
    tparams_pushed: bool,
    pattern: bool,
    pattern_seen: bool,
    reg_pending: bool,
    targs: String,
    targ_entries: Vec<Eix>,
    fetch: String,
    stub: bool,
}

impl Frame {
    fn reset(&mut self) {
        let mut kids = std::mem::take(&mut self.kids);
        let mut locals = std::mem::take(&mut self.locals);
        let mut bases = std::mem::take(&mut self.bases);
        let mut base_types = std::mem::take(&mut self.base_types);
        let mut targ_entries = std::mem::take(&mut self.targ_entries);
        let mut strs = [
            std::mem::take(&mut self.name),
            std::mem::take(&mut self.mangled),
            std::mem::take(&mut self.qual_type),
            std::mem::take(&mut self.desugared),
            std::mem::take(&mut self.opcode),
            std::mem::take(&mut self.value),
            std::mem::take(&mut self.storage),
            std::mem::take(&mut self.tag),
            std::mem::take(&mut self.ref_name),
            std::mem::take(&mut self.ctor_type),
            std::mem::take(&mut self.targs),
            std::mem::take(&mut self.fetch),
        ];
        kids.clear();
        locals.clear();
        bases.clear();
        base_types.clear();
        targ_entries.clear();
        for s in &mut strs {
            s.clear();
        }
        *self = Frame::default();
        let [a, b, c, d, e, f, g, h, i, j, k, l] = strs;
        self.name = a;
        self.mangled = b;
        self.qual_type = c;
        self.desugared = d;
        self.opcode = e;
        self.value = f;
        self.storage = g;
        self.tag = h;
        self.ref_name = i;
        self.ctor_type = j;
        self.targs = k;
        self.fetch = l;
        self.kids = kids;
        self.locals = locals;
        self.bases = bases;
        self.base_types = base_types;
        self.targ_entries = targ_entries;
        self.entry = Eix::NONE;
        self.body_scope = Eix::NONE;
        self.pos = (u16::MAX, 0, 0);
    }
}

/// An error of the import: byte offset and message.
#[derive(Debug)]
pub(crate) struct Fail(pub JsonError);

impl From<JsonError> for Fail {
    fn from(e: JsonError) -> Fail {
        Fail(e)
    }
}

pub(crate) struct Builder<'a> {
    pub il: &'a mut Il,
    pub types: Types,
    kind_names: Vec<String>,
    kind_classes: Vec<Class>,
    kind_counts: Vec<u64>,
    opaque_counts: Vec<u64>,
    kind_ix: AHashMap<Vec<u8>, u16>,
    ids: IdIndex,
    frames: Vec<Frame>,
    top: usize,
    files: Vec<String>,
    file_eix: Vec<Eix>,
    file_ix: AHashMap<Vec<u8>, u16>,
    includes: Vec<(u16, u16)>,
    cur_file: u16,
    cur_line: u32,
    fn_stack: Vec<usize>,
    pattern_depth: u32,
    anon_depth: u32,
    pub routine_flags: Vec<u16>,
    /// Per variable row: bit 0 = local to a function body, bit 1 = inside a template
    /// pattern, bit 2 = a static data member, bit 3 = constexpr.
    pub variable_flags: Vec<u8>,
    members: AHashMap<(u32, String), Eix>,
    ctors: AHashMap<(u32, String), Eix>,
    fix_member: Vec<(Eix, u64)>,
    fix_ctor: Vec<(Eix, String)>,
    fix_prop: Vec<(Eix, String)>,
    placeholders_made: u64,
    nodes: u64,
    offset_err_ctx: u64,
}

fn ie(lx_off: u64, e: IlError) -> Fail {
    Fail(JsonError {
        offset: lx_off,
        msg: format!("IL error: {e}"),
    })
}

fn strip_fn_type(s: &str) -> String {
    let mut t = normalize(s);
    if let Some(p) = t.rfind(")noexcept") {
        t.truncate(p + 1);
    }
    if let Some(p) = t.rfind(") noexcept") {
        t.truncate(p + 1);
    }
    t
}

impl<'a> Builder<'a> {
    pub fn new(il: &'a mut Il) -> Self {
        Builder {
            il,
            types: Types::default(),
            kind_names: Vec::new(),
            kind_classes: Vec::new(),
            kind_counts: Vec::new(),
            opaque_counts: Vec::new(),
            kind_ix: AHashMap::new(),
            ids: IdIndex::new(),
            frames: Vec::new(),
            top: 0,
            files: Vec::new(),
            file_eix: Vec::new(),
            file_ix: AHashMap::new(),
            includes: Vec::new(),
            cur_file: u16::MAX,
            cur_line: 0,
            fn_stack: Vec::new(),
            pattern_depth: 0,
            anon_depth: 0,
            routine_flags: Vec::new(),
            variable_flags: Vec::new(),
            members: AHashMap::new(),
            ctors: AHashMap::new(),
            fix_member: Vec::new(),
            fix_ctor: Vec::new(),
            fix_prop: Vec::new(),
            placeholders_made: 0,
            nodes: 0,
            offset_err_ctx: 0,
        }
    }

    fn intern_kind(&mut self, k: &[u8]) -> u16 {
        if let Some(&i) = self.kind_ix.get(k) {
            self.kind_counts[i as usize] += 1;
            return i;
        }
        let name = String::from_utf8_lossy(k).into_owned();
        let i = self.kind_names.len() as u16;
        self.kind_classes.push(classify(&name));
        self.kind_names.push(name);
        self.kind_counts.push(1);
        self.opaque_counts.push(0);
        self.kind_ix.insert(k.to_vec(), i);
        i
    }

    fn class_of(&self, k: u16) -> Class {
        self.kind_classes
            .get(k as usize)
            .copied()
            .unwrap_or(Class::Other)
    }

    fn push_frame(&mut self) -> usize {
        if self.top == self.frames.len() {
            self.frames.push(Frame::default());
            self.frames[self.top].reset();
        } else {
            self.frames[self.top].reset();
        }
        self.top += 1;
        self.top - 1
    }

    // ---- the main loop ---------------------------------------------------------------

    pub fn run<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<(), Fail> {
        match lx.tok()? {
            Tok::ObjStart => {}
            Tok::Eof => return Err(lx.err("empty input: expected a JSON object").into()),
            t => {
                return Err(lx
                    .err(format!("expected a JSON object, found {t:?}"))
                    .into())
            }
        }
        self.push_frame();
        while self.top > 0 {
            let t = self.top - 1;
            if self.frames[t].in_inner {
                match lx.tok()? {
                    Tok::ObjStart => self.begin_child(lx, t)?,
                    Tok::ArrEnd => self.frames[t].in_inner = false,
                    Tok::Eof => {
                        return Err(lx
                            .err("truncated input: unterminated \"inner\" array")
                            .into())
                    }
                    other => {
                        return Err(lx
                            .err(format!(
                                "expected a node object in \"inner\", found {other:?}"
                            ))
                            .into())
                    }
                }
            } else {
                match lx.tok()? {
                    Tok::Str => self.key(lx, t)?,
                    Tok::ObjEnd => self.end_node(lx.offset(), t)?,
                    Tok::Eof => {
                        return Err(lx.err("truncated input: unterminated node object").into())
                    }
                    other => return Err(lx.err(format!("expected a key, found {other:?}")).into()),
                }
            }
        }
        match lx.tok()? {
            Tok::Eof => Ok(()),
            _ => Err(lx.err("trailing data after the top-level object").into()),
        }
    }

    fn begin_child<R: Read>(&mut self, lx: &mut Lexer<R>, parent: usize) -> Result<(), Fail> {
        self.frames[parent].nkids += 1;
        let pclass = self.frames[parent].class;
        if pclass == Some(Class::Expr(ExprClass::Pseudo)) && self.frames[parent].nkids > 1 {
            // The semantic forms of a pseudo-object expression: skipped, but the builtin
            // property accessor's name (`__fetch_builtin_x`) is kept.
            let mut fetch = String::new();
            lx.skip_rest_of_object(|s| {
                if let Some(rest) = s.strip_prefix(b"__fetch_builtin_") {
                    if fetch.is_empty() {
                        fetch = String::from_utf8_lossy(rest).into_owned();
                    }
                }
            })?;
            if !fetch.is_empty() {
                self.frames[parent].fetch = fetch;
            }
            return Ok(());
        }
        let t = self.push_frame();
        self.frames[t].pos = (self.cur_file, self.cur_line, 0);
        Ok(())
    }

    fn skip_node<R: Read>(
        &mut self,
        lx: &mut Lexer<R>,
        t: usize,
        deliver: Option<Kid>,
    ) -> Result<(), Fail> {
        // Locations inside skipped nodes still move clang's "last printed" file/line.
        self.skip_tracking_locs(lx)?;
        self.top -= 1;
        if let (Some(k), true) = (deliver, t > 0) {
            self.frames[t - 1].kids.push(k);
        }
        Ok(())
    }

    /// Skips the rest of an object, following "file"/"line" keys so the location state
    /// stays right for the nodes after it (clang prints a file or line only when it
    /// changes, skipped nodes included).
    fn skip_tracking_locs<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<(), Fail> {
        self.skip_tracking(lx, true)
    }

    /// Skips the value of an unhandled key, following locations inside it.
    fn skip_value_tracking<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<(), Fail> {
        match lx.tok()? {
            Tok::ObjStart => self.skip_tracking(lx, true),
            Tok::ArrStart => self.skip_tracking(lx, false),
            Tok::Eof => Err(lx.err("truncated input: expected a value").into()),
            Tok::ObjEnd | Tok::ArrEnd => {
                Err(lx.err("expected a value, found a close bracket").into())
            }
            _ => Ok(()),
        }
    }

    fn skip_tracking<R: Read>(&mut self, lx: &mut Lexer<R>, object: bool) -> Result<(), Fail> {
        // (is_object, expect_key, track): `track` is off inside "includedFrom".
        let mut st: Vec<(bool, bool, bool)> = vec![(object, object, true)];
        let mut pending = 0u8;
        fn after_value(st: &mut [(bool, bool, bool)]) {
            if let Some(top) = st.last_mut() {
                if top.0 {
                    top.1 = true;
                }
            }
        }
        while let Some(&(is_obj, expect_key, track)) = st.last() {
            let tok = lx.tok()?;
            if is_obj && expect_key {
                match tok {
                    Tok::Str => {
                        pending = match (track, lx.text.as_slice()) {
                            (true, b"file") => 1,
                            (true, b"line") => 2,
                            (_, b"includedFrom") => 3,
                            _ => 0,
                        };
                        if let Some(top) = st.last_mut() {
                            top.1 = false;
                        }
                    }
                    Tok::ObjEnd => {
                        st.pop();
                        after_value(&mut st);
                    }
                    Tok::Eof => return Err(lx.err("truncated input inside a node").into()),
                    _ => return Err(lx.err("expected a key").into()),
                }
                continue;
            }
            match tok {
                Tok::ObjStart => st.push((true, true, track && pending != 3)),
                Tok::ArrStart => st.push((false, false, track)),
                Tok::ArrEnd if !is_obj => {
                    st.pop();
                    after_value(&mut st);
                }
                Tok::ObjEnd | Tok::ArrEnd => return Err(lx.err("mismatched bracket").into()),
                Tok::Eof => return Err(lx.err("truncated input inside a node").into()),
                Tok::Str => {
                    if pending == 1 {
                        let text = std::mem::take(&mut lx.text);
                        self.cur_file = self.file(&text);
                        lx.text = text;
                    }
                    after_value(&mut st);
                }
                Tok::Num => {
                    if pending == 2 {
                        self.cur_line = parse_int(&lx.text) as u32;
                    }
                    after_value(&mut st);
                }
                _ => after_value(&mut st),
            }
            pending = 0;
        }
        Ok(())
    }

    // ---- keys -------------------------------------------------------------------------

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

    fn key<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize) -> Result<(), Fail> {
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
            if pclass == Some(Class::Expr(ExprClass::Lambda)) && class == Class::Stmt(11) {
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
            if let Some((e, full)) = self.ids.get(id) {
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

    // ---- locations --------------------------------------------------------------------

    fn file(&mut self, path: &[u8]) -> u16 {
        if let Some(&f) = self.file_ix.get(path) {
            return f;
        }
        if self.files.len() >= (u16::MAX - 1) as usize {
            return u16::MAX;
        }
        let i = self.files.len() as u16;
        let p = String::from_utf8_lossy(path).into_owned();
        let e = (|| -> Result<Eix, IlError> {
            let id = self.il.alloc(EntryKind::SourceFileEntry)?;
            let base = p.rsplit('/').next().unwrap_or(&p);
            self.il.set_string(id, 0, base.as_bytes())?;
            self.il.set_string(id, 1, p.as_bytes())?;
            self.il.eix(id)
        })()
        .unwrap_or(Eix::NONE);
        self.files.push(p);
        self.file_eix.push(e);
        self.file_ix.insert(path.to_vec(), i);
        i
    }

    fn parse_loc<R: Read>(
        &mut self,
        lx: &mut Lexer<R>,
        depth: u32,
    ) -> Result<Option<(u16, u32, u32)>, Fail> {
        if !open_object(lx)? {
            return Ok(None);
        }
        let mut col = 0u32;
        let mut got = false;
        let mut exp: Option<(u16, u32, u32)> = None;
        loop {
            match lx.tok()? {
                Tok::Str => match lx.text.as_slice() {
                    b"file" => {
                        if let Tok::Str = lx.tok()? {
                            let text = std::mem::take(&mut lx.text);
                            self.cur_file = self.file(&text);
                            lx.text = text;
                        }
                        got = true;
                    }
                    b"line" => {
                        if let Tok::Num = lx.tok()? {
                            self.cur_line = parse_int(&lx.text) as u32;
                        }
                    }
                    b"col" => {
                        if let Tok::Num = lx.tok()? {
                            col = parse_int(&lx.text) as u32;
                        }
                        got = true;
                    }
                    b"includedFrom" => {
                        let cur = self.cur_file;
                        match lx.tok()? {
                            Tok::ObjStart => loop {
                                match lx.tok()? {
                                    Tok::Str if lx.text == b"file" => {
                                        if let Tok::Str = lx.tok()? {
                                            let text = std::mem::take(&mut lx.text);
                                            let p = self.file(&text);
                                            lx.text = text;
                                            self.includes.push((cur, p));
                                        }
                                    }
                                    Tok::Str => lx.skip_value()?,
                                    Tok::ObjEnd => break,
                                    Tok::Eof => return Err(lx.err("truncated input").into()),
                                    _ => return Err(lx.err("expected a key").into()),
                                }
                            },
                            Tok::Eof => return Err(lx.err("truncated input").into()),
                            other => lx.skip_from(other, |_| {})?,
                        }
                    }
                    b"spellingLoc" if depth == 0 => {
                        self.parse_loc(lx, depth + 1)?;
                    }
                    b"expansionLoc" if depth == 0 => {
                        exp = self.parse_loc(lx, depth + 1)?;
                    }
                    _ => lx.skip_value()?,
                },
                Tok::ObjEnd => break,
                Tok::Eof => return Err(lx.err("truncated input in a location").into()),
                _ => return Err(lx.err("expected a key in a location").into()),
            }
        }
        if exp.is_some() {
            return Ok(exp);
        }
        Ok(got.then_some((self.cur_file, self.cur_line, col)))
    }

    fn parse_range<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize) -> Result<(), Fail> {
        if !open_object(lx)? {
            return Ok(());
        }
        loop {
            match lx.tok()? {
                Tok::Str => match lx.text.as_slice() {
                    b"begin" => {
                        let p = self.parse_loc(lx, 0)?;
                        let f = &mut self.frames[t];
                        if let (Some(p), false) = (p, f.has_pos) {
                            f.pos = p;
                            f.has_pos = true;
                        }
                    }
                    b"end" => {
                        self.parse_loc(lx, 0)?;
                    }
                    _ => lx.skip_value()?,
                },
                Tok::ObjEnd => return Ok(()),
                Tok::Eof => return Err(lx.err("truncated input in a range").into()),
                _ => return Err(lx.err("expected a key in a range").into()),
            }
        }
    }

    // ---- helpers ----------------------------------------------------------------------

    fn qname(&self, name: &str) -> String {
        let mut s = String::new();
        for q in &self.types.qual {
            if !q.is_empty() {
                s.push_str(q);
                s.push_str("::");
            }
        }
        s.push_str(name);
        s
    }

    fn parent_class(&self, t: usize) -> Option<Class> {
        if t == 0 {
            None
        } else {
            self.frames[t - 1].class
        }
    }

    fn type_of(&mut self, t: usize) -> Result<Eix, IlError> {
        self.type_of_or(t, Alt::None)
    }

    /// The declared type of the declaration with clang id `id`, if it was built (the
    /// referent's type when that is a reference): what an expression naming it has.
    fn declared_type(&self, id: u64) -> Eix {
        let Some((d, _)) = self.ids.get(id) else {
            return Eix::NONE;
        };
        if !self.il.is_live(d) {
            return Eix::NONE;
        }
        let field = match self.il.kind(d) {
            EntryKind::Routine => F::ROUTINE_TYPE,
            EntryKind::Variable => F::VARIABLE_TYPE,
            EntryKind::Field => F::FIELD_TYPE,
            EntryKind::ParamType => F::PARAM_TYPE_TYPE,
            _ => return Eix::NONE,
        };
        let ty = self.il.child_eix(d, field).unwrap_or(Eix::NONE);
        self.referent(ty)
    }

    /// The type of a call (its callee's return type where clang's spelling, printed in the
    /// callee's scope, does not resolve here) or of a function-to-pointer decay (a pointer
    /// to its operand's function type).
    fn finish_expr_type(
        &mut self,
        t: usize,
        e: Eix,
        ec: ExprClass,
        kids: &[Kid],
    ) -> Result<(), IlError> {
        let operand = kids
            .iter()
            .map(|k| k.e)
            .find(|&k| !k.is_none() && self.il.kind(k) == EntryKind::ExprNode);
        let alt = match operand {
            Some(op) if ec == ExprClass::Call => Alt::Type(self.return_type_of(op)),
            Some(op) => self
                .il
                .child_eix(op, F::EXPR_NODE_TYPE)
                .map_or(Alt::None, Alt::PointerTo),
            None => Alt::None,
        };
        let ty = self.type_of_or(t, alt)?;
        self.set_child(e, F::EXPR_NODE_TYPE, ty)
    }

    /// The return type of the routine a callee expression designates (through its entity,
    /// else its function or function-pointer type); the referent for a reference.
    fn return_type_of(&self, callee: Eix) -> Eix {
        let by_entity = self
            .il
            .ref_eix(callee, F::EXPR_NODE_ENTITY)
            .filter(|&r| self.il.is_live(r) && self.il.kind(r) == EntryKind::Routine)
            .and_then(|r| self.il.child_eix(r, F::ROUTINE_TYPE));
        let fty = by_entity.or_else(|| {
            let ty = self.il.child_eix(callee, F::EXPR_NODE_TYPE)?;
            let ty = Types::strip(self.il, ty);
            let r = self.il.row(ty) as usize;
            if self.il.tables.r#type.type_kind[r] == 6 {
                self.il.child_eix(ty, F::TYPE_BASE_TYPE)
            } else {
                Some(ty)
            }
        });
        let Some(fty) = fty else {
            return Eix::NONE;
        };
        if !self.types.is_resolved_type(self.il, fty) {
            return Eix::NONE;
        }
        let fty = Types::strip(self.il, fty);
        if self.il.tables.r#type.type_kind[self.il.row(fty) as usize] != 7 {
            return Eix::NONE;
        }
        let ret = self
            .il
            .child_eix(fty, F::TYPE_BASE_TYPE)
            .unwrap_or(Eix::NONE);
        self.referent(ret)
    }

    /// `t` without an outer lvalue/rvalue reference.
    fn referent(&self, t: Eix) -> Eix {
        if t.is_none() || !self.il.is_live(t) || self.il.kind(t) != EntryKind::Type {
            return t;
        }
        let r = self.il.row(t) as usize;
        let tb = &self.il.tables.r#type;
        if tb.type_kind[r] == 6 && tb.qualifiers[r] & (qual::LREF | qual::RREF) != 0 {
            return self.il.child_eix(t, F::TYPE_BASE_TYPE).unwrap_or(Eix::NONE);
        }
        t
    }

    /// The type of frame `t`; `alt` stands in where its spelling does not resolve here.
    fn type_of_or(&mut self, t: usize, alt: Alt) -> Result<Eix, IlError> {
        self.types.in_pattern = self.pattern_depth > 0;
        let f = &self.frames[t];
        let s = if !f.desugared.is_empty() {
            f.desugared.clone()
        } else {
            f.qual_type.clone()
        };
        if s.is_empty() {
            return Ok(Eix::NONE);
        }
        self.types.intern_or(self.il, &s, alt)
    }

    /// Whether an edge `p -> c` can be set: both present and `c` of the field's kind
    /// (an AST edge of another kind is dropped, not an error).
    fn fits(&self, target: Option<crate::il::EntryKind>, p: Eix, c: Eix) -> bool {
        !p.is_none() && !c.is_none() && target.is_none_or(|t| self.il.kind(c) == t)
    }

    fn set_child(&mut self, p: Eix, f: crate::il::ChildField, c: Eix) -> Result<(), IlError> {
        if !self.fits(f.target, p, c) {
            return Ok(());
        }
        self.il.set_child_eix(p, f, c)
    }

    fn set_ref(&mut self, p: Eix, f: crate::il::RefField, c: Eix) -> Result<(), IlError> {
        if !self.fits(f.target, p, c) {
            return Ok(());
        }
        self.il.set_ref_eix(p, f, c)
    }

    fn push(&mut self, p: Eix, f: crate::il::ListField, c: Eix) -> Result<(), IlError> {
        if !self.fits(f.target, p, c) {
            return Ok(());
        }
        self.il.push_list_field_eix(p, f, c)
    }

    fn set_str(&mut self, e: Eix, index: usize, s: &str) -> Result<(), IlError> {
        if e.is_none() || s.is_empty() {
            return Ok(());
        }
        let id = self.il.id_of(e);
        self.il.set_string(id, index, s.as_bytes())
    }

    fn alloc(&mut self, k: EntryKind) -> Result<Eix, IlError> {
        let id = self.il.alloc(k)?;
        self.il.eix(id)
    }

    fn rflag(&mut self, e: Eix, bits: u16) {
        if e.is_none() || self.il.kind(e) != EntryKind::Routine {
            return;
        }
        let r = self.il.row(e) as usize;
        if self.routine_flags.len() <= r {
            self.routine_flags.resize(r + 1, 0);
        }
        self.routine_flags[r] |= bits;
    }

    /// Resolves the reference frame `t` read (`referencedDecl` and its kin).
    fn frame_ref(&mut self, t: usize) -> Result<Eix, IlError> {
        let (id, rk) = (self.frames[t].ref_id, self.frames[t].ref_kind);
        let name = std::mem::take(&mut self.frames[t].ref_name);
        let r = self.resolve_ref(id, rk, &name);
        self.frames[t].ref_name = name;
        r
    }

    /// Resolves a referenced declaration, making a placeholder from the inline payload when
    /// the id was not dumped (yet).
    fn resolve_ref(&mut self, id: u64, kind: u16, name: &str) -> Result<Eix, IlError> {
        if id == 0 {
            return Ok(Eix::NONE);
        }
        if let Some((e, _)) = self.ids.get(id) {
            return Ok(e);
        }
        let class = if kind == u16::MAX {
            Class::Other
        } else {
            self.class_of(kind)
        };
        let saved = self.il.current_region();
        self.il.switch_region(RegionIdx::FILE_SCOPE)?;
        let e = match class {
            Class::Function(_) => self.alloc(EntryKind::Routine)?,
            Class::Var => {
                let v = self.il.alloc_variable(4)?;
                self.il.eix(v)?
            }
            Class::Parm => self.alloc(EntryKind::ParamType)?,
            Class::Field => self.alloc(EntryKind::Field)?,
            Class::EnumConst => {
                let c = self.alloc(EntryKind::Constant)?;
                K::set_constant_kind(self.il, self.il.id_of(c), ck::INTEGER)?;
                c
            }
            Class::Template(_) => self.alloc(EntryKind::Template)?,
            Class::TemplateParm(_) => self.alloc(EntryKind::TemplateParam)?,
            Class::Namespace => self.alloc(EntryKind::Namespace)?,
            Class::Record(_) | Class::Typedef | Class::Enum => self.alloc(EntryKind::Type)?,
            _ => {
                let e = self.alloc(EntryKind::NameReference)?;
                if let Some(n) = self.kind_names.get(kind as usize) {
                    let n = n.clone();
                    self.set_str(e, 1, &n)?;
                }
                e
            }
        };
        let si = match self.il.kind(e) {
            EntryKind::Constant => 1,
            _ => 0,
        };
        self.set_str(e, si, name)?;
        self.il.switch_region(saved)?;
        self.placeholders_made += 1;
        self.ids.insert(id, (e, false));
        Ok(e)
    }

    /// The existing entry for this node's id (a placeholder) if it has kind `k`.
    fn reuse(&mut self, t: usize, k: EntryKind) -> Option<Eix> {
        let f = &self.frames[t];
        for id in [f.id, f.previous] {
            if id == 0 {
                continue;
            }
            if let Some((e, _)) = self.ids.get(id) {
                if self.il.is_live(e) && self.il.kind(e) == k {
                    return Some(e);
                }
            }
        }
        None
    }

    fn register(&mut self, t: usize, e: Eix) {
        let id = self.frames[t].id;
        if id != 0 && !e.is_none() {
            self.ids.insert(id, (e, true));
        }
    }

    fn set_pos(&mut self, t: usize) {
        let (f, l, c) = self.frames[t].pos;
        self.il.set_position(f, l, c);
    }

    fn opaque(&mut self, t: usize) -> Result<Eix, IlError> {
        let e = self.alloc(EntryKind::NameReference)?;
        let k = self.frames[t].kind as usize;
        self.opaque_counts[k] += 1;
        let kn = self.kind_names[k].clone();
        let name = self.frames[t].name.clone();
        self.set_str(e, 0, &name)?;
        self.set_str(e, 1, &kn)?;
        if self.frames[t].ref_id != 0 {
            let r = self.frame_ref(t)?;
            self.set_ref(e, F::NAME_REFERENCE_ENTITY, r)?;
        }
        Ok(e)
    }

    /// Opens the function region of the routine frame `p` (its body starts).
    fn open_body(&mut self, p: usize) -> Result<(), IlError> {
        if self.frames[p].saved_region.is_some() {
            return Ok(());
        }
        let routine = self.frames[p].entry;
        if routine.is_none() {
            return Ok(());
        }
        self.frames[p].saved_region = Some(self.il.current_region());
        let rid = self.il.id_of(routine);
        self.il.open_function_region(None);
        let scope = K::alloc_scope(self.il, SCK_FUNCTION, Some(rid))?;
        let se = self.il.eix(scope)?;
        self.frames[p].body_scope = se;
        self.fn_stack.push(p);
        Ok(())
    }

    // ---- materialize: allocate the node's entry ---------------------------------------

    fn materialize(&mut self, off: u64, t: usize) -> Result<(), Fail> {
        self.frames[t].materialized = true;
        self.offset_err_ctx = off;
        let class = match self.frames[t].class {
            Some(c) => c,
            None => return Ok(()), // `{}`: an absent positional child
        };
        self.set_pos(t);
        let r = self.materialize_inner(t, class);
        r.map_err(|e| ie(off, e))
    }

    fn materialize_inner(&mut self, t: usize, class: Class) -> Result<(), IlError> {
        let pclass = self.parent_class(t);
        self.enter_semantic_parent(t);
        // A reference-only stub `{id, kind, name}` (explicit specializations listed under
        // their template, dumped in full elsewhere): a placeholder the full node fills.
        {
            let f = &self.frames[t];
            if f.id != 0
                && !f.has_pos
                && f.mangled.is_empty()
                && !f.in_inner
                && f.nkids == 0
                && f.flags == 0
                && matches!(
                    class,
                    Class::Function(_) | Class::Record(_) | Class::Var | Class::Template(_)
                )
            {
                let (id, kind, name) = (f.id, f.kind, f.name.clone());
                let e = if matches!(class, Class::Record(_)) {
                    // Records are found by name when their full node comes.
                    self.ids.get(id).map(|x| x.0).unwrap_or(Eix::NONE)
                } else {
                    self.resolve_ref(id, kind, &name)?
                };
                let f = &mut self.frames[t];
                f.entry = e;
                f.reused = true;
                f.stub = true;
                return Ok(());
            }
        }
        let in_body_of_parent = matches!(pclass, Some(Class::Function(_)))
            && matches!(class, Class::Stmt(_) | Class::CtorInit);
        if in_body_of_parent {
            self.open_body(t - 1)?;
        }
        match class {
            Class::Tu => {
                let s = K::alloc_scope(self.il, 0, None)?;
                self.il.primary_scope = Some(s);
                self.frames[t].entry = self.il.eix(s)?;
            }
            Class::Namespace => {
                let e = self.alloc(EntryKind::Namespace)?;
                let name = self.frames[t].name.clone();
                self.set_str(e, 0, &name)?;
                let s = K::alloc_scope(self.il, 3, None)?;
                let se = self.il.eix(s)?;
                self.set_child(e, F::NAMESPACE_SCOPE, se)?;
                if self.frames[t].flags & FL_INLINE != 0 {
                    let r = self.il.row(e) as usize;
                    self.il.tables.namespace.is_inline[r] = true;
                }
                self.frames[t].entry = e;
                let comp = if name.is_empty() {
                    self.anon_depth += 1;
                    "(anonymous namespace)".to_string()
                } else if self.frames[t].flags & FL_INLINE != 0 {
                    // clang's printer omits inline namespaces (`std::__cxx11`).
                    String::new()
                } else {
                    name
                };
                self.types.qual.push(comp);
                self.frames[t].qual_pushed = true;
                self.register(t, e);
            }
            Class::Transparent => {
                let e = self.alloc(EntryKind::LinkageSpec)?;
                self.frames[t].entry = e;
            }
            Class::Function(sub) => {
                let reused = self.reuse(t, EntryKind::Routine);
                let e = match reused {
                    Some(e) => e,
                    None => self.alloc(EntryKind::Routine)?,
                };
                let known_full = self
                    .ids
                    .get(self.frames[t].previous)
                    .map(|x| x.1)
                    .unwrap_or(false);
                self.frames[t].reused = reused.is_some() && known_full;
                self.frames[t].entry = e;
                let (name, mangled) = (self.frames[t].name.clone(), self.frames[t].mangled.clone());
                if self.il.name(e).is_empty() {
                    self.set_str(e, 0, &name)?;
                }
                if !mangled.is_empty() && self.il.string(e, 1).is_empty() {
                    self.set_str(e, 1, &mangled)?;
                }
                let ty = self.type_of(t)?;
                if !ty.is_none() && self.il.child_eix(e, F::ROUTINE_TYPE).is_none() {
                    self.set_child(e, F::ROUTINE_TYPE, ty)?;
                    let base = Types::strip(self.il, ty);
                    if let Some(ret) = self.il.child_eix(base, F::TYPE_BASE_TYPE) {
                        self.set_child(e, F::ROUTINE_RETURN_TYPE, ret)?;
                    }
                }
                let r = self.il.row(e) as usize;
                let sc = match self.frames[t].storage.as_str() {
                    "static" => 5,
                    "extern" => 4,
                    _ => 3,
                };
                self.il.tables.routine.storage_class[r] = sc;
                self.il.tables.routine.special_kind[r] = sub.min(7);
                let f = self.frames[t].flags;
                if f & (FL_INLINE | FL_CONSTEXPR) != 0 {
                    self.il.tables.routine.is_inline[r] = true;
                }
                let mut bits = 0;
                if f & (FL_INLINE | FL_CONSTEXPR) != 0 {
                    bits |= rf::INLINE;
                }
                if sc == 5 {
                    bits |= rf::STATIC;
                }
                if f & FL_IMPLICIT != 0 {
                    bits |= rf::IMPLICIT;
                }
                if matches!(pclass, Some(Class::Record(_))) {
                    bits |= rf::MEMBER;
                    if sub == 2 {
                        let rec = self.frames[t - 1].entry;
                        let key = strip_fn_type(&self.frames[t].qual_type);
                        self.ctors.entry((rec.0, key)).or_insert(e);
                    }
                }
                self.enter_pattern(t, pclass);
                if self.pattern_depth > 0 {
                    bits |= rf::PATTERN;
                }
                if self.anon_depth > 0 || !self.fn_stack.is_empty() {
                    bits |= rf::INTERNAL;
                }
                self.rflag(e, bits);
                self.register(t, e);
            }
            Class::Var => {
                let in_fn = !self.fn_stack.is_empty()
                    && !matches!(
                        pclass,
                        Some(Class::Record(_)) | Some(Class::Tu) | Some(Class::Namespace)
                    );
                let sc = match self.frames[t].storage.as_str() {
                    "extern" => 4,
                    "static" => 5,
                    _ if matches!(pclass, Some(Class::Record(_))) => 5,
                    _ if in_fn => 0,
                    _ => 3,
                };
                let e = match self.reuse(t, EntryKind::Variable) {
                    Some(e) => {
                        self.frames[t].reused = self
                            .ids
                            .get(self.frames[t].previous)
                            .map(|x| x.1)
                            .unwrap_or(false);
                        let r = self.il.row(e) as usize;
                        if sc != 4 {
                            self.il.tables.variable.storage_class[r] = sc;
                        }
                        e
                    }
                    None => {
                        let v = self.il.alloc_variable(sc)?;
                        self.il.eix(v)?
                    }
                };
                self.frames[t].entry = e;
                let (name, mangled) = (self.frames[t].name.clone(), self.frames[t].mangled.clone());
                if self.il.name(e).is_empty() {
                    self.set_str(e, 0, &name)?;
                }
                if !mangled.is_empty() && self.il.string(e, 1).is_empty() {
                    self.set_str(e, 1, &mangled)?;
                }
                let ty = self.type_of(t)?;
                if self.il.child_eix(e, F::VARIABLE_TYPE).is_none() {
                    self.set_child(e, F::VARIABLE_TYPE, ty)?;
                }
                self.enter_pattern(t, pclass);
                let r = self.il.row(e) as usize;
                if self.variable_flags.len() <= r {
                    self.variable_flags.resize(r + 1, 0);
                }
                let member = matches!(pclass, Some(Class::Record(_)));
                let constexpr = self.frames[t].flags & FL_CONSTEXPR != 0;
                self.variable_flags[r] |= (in_fn as u8)
                    | (((self.pattern_depth > 0) as u8) << 1)
                    | ((member as u8) << 2)
                    | ((constexpr as u8) << 3);
                self.register(t, e);
            }
            Class::Parm => {
                let e = match self.reuse(t, EntryKind::ParamType) {
                    Some(e) => e,
                    None => {
                        let p = self.il.alloc_param_type()?;
                        self.il.eix(p)?
                    }
                };
                self.frames[t].entry = e;
                let name = self.frames[t].name.clone();
                self.set_str(e, 0, &name)?;
                let ty = self.type_of(t)?;
                self.set_child(e, F::PARAM_TYPE_TYPE, ty)?;
                if self.frames[t].flags & FL_PACK != 0 {
                    let r = self.il.row(e) as usize;
                    self.il.tables.param_type.is_pack[r] = true;
                }
                self.register(t, e);
            }
            Class::Field => {
                let e = match self.reuse(t, EntryKind::Field) {
                    Some(e) => e,
                    None => self.alloc(EntryKind::Field)?,
                };
                self.frames[t].entry = e;
                let name = self.frames[t].name.clone();
                self.set_str(e, 0, &name)?;
                let ty = self.type_of(t)?;
                self.set_child(e, F::FIELD_TYPE, ty)?;
                if matches!(pclass, Some(Class::Record(_))) {
                    let rec = self.frames[t - 1].entry;
                    if !rec.is_none() {
                        self.members.entry((rec.0, name)).or_insert(e);
                    }
                }
                self.register(t, e);
            }
            Class::Record(rk) => {
                // The injected class name: the record itself.
                if rk == RecordKind::Plain
                    && matches!(pclass, Some(Class::Record(_)))
                    && self.frames[t].flags & FL_IMPLICIT != 0
                    && self.frames[t].name == self.frames[t - 1].name
                {
                    let pe = self.frames[t - 1].entry;
                    self.frames[t].entry = pe;
                    self.frames[t].reused = true;
                    self.register(t, pe);
                    return Ok(());
                }
                if rk == RecordKind::Spec {
                    self.frames[t].reg_pending = true;
                    self.enter_pattern(t, pclass);
                    return Ok(());
                }
                if rk == RecordKind::Partial {
                    self.frames[t].pattern = true;
                    self.pattern_depth += 1;
                    // Its own template parameters are children of the record.
                    self.types.tparam_scopes.push(Vec::new());
                    self.frames[t].tparams_pushed = true;
                }
                let name = self.record_name(t, pclass);
                self.define_record(t, &name)?;
                if matches!(pclass, Some(Class::Template(1))) && !self.frames[t - 1].pattern_seen {
                    let q = self.qname(&self.frames[t].name.clone());
                    self.types
                        .template_name(self.il, &q, self.frames[t].entry)?;
                }
                self.enter_pattern(t, pclass);
            }
            Class::Typedef => {
                let name = self.frames[t].name.clone();
                let q = self.qname(&name);
                let (e, existed) = self.types.named_entry(self.il, &q, 12)?;
                if matches!(pclass, Some(Class::Template(4))) && !self.frames[t - 1].pattern_seen {
                    // The pattern of an alias template: `_If_sv<_Tp, int>` names it.
                    self.types.template_name(self.il, &q, e)?;
                }
                let r = self.il.row(e) as usize;
                if !existed || self.il.tables.r#type.type_kind[r] == 12 {
                    let target = self.type_of(t)?;
                    if !target.is_none()
                        && target != e
                        && self.il.child_eix(e, F::TYPE_BASE_TYPE).is_none()
                        && Types::strip(self.il, target) != e
                    {
                        self.set_child(e, F::TYPE_BASE_TYPE, target)?;
                    }
                }
                self.frames[t].entry = e;
                self.frames[t].reused = existed;
                self.enter_pattern(t, pclass);
                self.register(t, e);
            }
            Class::Enum => {
                let name = self.frames[t].name.clone();
                let q = if name.is_empty() {
                    let (f, l, c) = self.frames[t].pos;
                    let n = format!("(unnamed enum at {}:{}:{})", self.file_name(f), l, c);
                    self.qname(&n)
                } else {
                    self.qname(&name)
                };
                let (e, existed) = self.types.named_entry(self.il, &q, 2)?;
                let r = self.il.row(e) as usize;
                self.il.tables.r#type.size[r] = 4;
                self.il.tables.r#type.format[r] = 1;
                self.frames[t].entry = e;
                self.frames[t].reused = existed;
                self.register(t, e);
            }
            Class::EnumConst => {
                let e = match self.reuse(t, EntryKind::Constant) {
                    Some(e) => e,
                    None => {
                        let c = self.alloc(EntryKind::Constant)?;
                        K::set_constant_kind(self.il, self.il.id_of(c), ck::INTEGER)?;
                        c
                    }
                };
                let name = self.frames[t].name.clone();
                self.set_str(e, 1, &name)?;
                self.frames[t].entry = e;
                self.register(t, e);
            }
            Class::Template(tk) => {
                let e = match self.reuse(t, EntryKind::Template) {
                    Some(e) => e,
                    None => self.alloc(EntryKind::Template)?,
                };
                self.frames[t].reused = self
                    .ids
                    .get(self.frames[t].previous)
                    .map(|x| x.1)
                    .unwrap_or(false);
                let name = self.frames[t].name.clone();
                if self.il.name(e).is_empty() {
                    self.set_str(e, 0, &name)?;
                }
                let r = self.il.row(e) as usize;
                self.il.tables.template.template_kind[r] = tk;
                self.frames[t].entry = e;
                self.types.tparam_scopes.push(Vec::new());
                self.frames[t].tparams_pushed = true;
                self.register(t, e);
            }
            Class::TemplateParm(pk) => {
                let e = match self.reuse(t, EntryKind::TemplateParam) {
                    Some(e) => e,
                    None => self.alloc(EntryKind::TemplateParam)?,
                };
                let name = self.frames[t].name.clone();
                self.set_str(e, 0, &name)?;
                let r = self.il.row(e) as usize;
                let tb = &mut self.il.tables.template_param;
                tb.position[r] = self.frames[t].index;
                tb.depth[r] = self.frames[t].depth;
                tb.param_kind[r] = pk;
                tb.is_pack[r] = self.frames[t].flags & FL_PACK != 0;
                if !name.is_empty() {
                    if let Some(s) = self.types.tparam_scopes.last_mut() {
                        s.push(name);
                    }
                }
                if pk == 1 {
                    // A template parameter's type is part of the template, not of an
                    // instantiation.
                    self.pattern_depth += 1;
                    let ty = self.type_of(t);
                    self.pattern_depth -= 1;
                    let ty = ty?;
                    self.set_child(e, F::TEMPLATE_PARAM_TYPE, ty)?;
                }
                self.frames[t].entry = e;
                self.register(t, e);
            }
            Class::TemplateArg | Class::ExprPass | Class::StmtPass => {}
            Class::Expr(ExprClass::Pseudo) | Class::Expr(ExprClass::OpaqueValue) => {}
            Class::Using => {
                let e = self.alloc(EntryKind::UsingDeclaration)?;
                let r = self.frame_ref(t)?;
                self.set_ref(e, F::USING_DECLARATION_TARGET, r)?;
                self.frames[t].entry = e;
                self.register(t, e);
            }
            Class::StaticAssert => {
                let e = self.alloc(EntryKind::StaticAssert)?;
                self.frames[t].entry = e;
            }
            Class::CtorInit => {
                let e = self.alloc(EntryKind::ConstructorInit)?;
                let r = self.frame_ref(t)?;
                self.set_ref(e, F::CONSTRUCTOR_INIT_MEMBER, r)?;
                self.frames[t].entry = e;
            }
            Class::Stmt(sk) => {
                let s = self.il.alloc(EntryKind::Statement)?;
                K::set_statement_kind(self.il, s, sk)?;
                self.frames[t].entry = self.il.eix(s)?;
            }
            Class::Expr(ec) => self.materialize_expr(t, ec)?,
            Class::Attr => {
                let e = self.alloc(EntryKind::Attribute)?;
                let kn = self.kind_names[self.frames[t].kind as usize].clone();
                let f = self.frames[t].flags;
                let r = self.il.row(e) as usize;
                self.il.tables.attribute.attr_kind[r] = attr_kind::of(&kn, f & FL_IMPLICIT != 0);
                self.il.tables.attribute.flags[r] =
                    (f & FL_IMPLICIT != 0) as u8 | (((f & FL_INHERITED != 0) as u8) << 1);
                self.set_str(e, 0, &kn)?;
                self.frames[t].entry = e;
            }
            Class::TypeNode | Class::Comment => {}
            Class::Other => {
                let e = self.opaque(t)?;
                self.frames[t].entry = e;
                if is_decl(class) {
                    self.register(t, e);
                }
            }
        }
        Ok(())
    }

    fn file_name(&self, f: u16) -> &str {
        self.files.get(f as usize).map(|s| s.as_str()).unwrap_or("")
    }

    fn record_name(&self, t: usize, pclass: Option<Class>) -> String {
        let f = &self.frames[t];
        if !f.name.is_empty() {
            return f.name.clone();
        }
        let (file, l, c) = f.pos;
        let fname = self.file_name(file);
        if pclass == Some(Class::Expr(ExprClass::Lambda)) {
            format!("(lambda at {fname}:{l}:{c})")
        } else {
            let tag = if f.tag.is_empty() {
                "struct"
            } else {
                f.tag.as_str()
            };
            format!("(unnamed {tag} at {fname}:{l}:{c})")
        }
    }

    /// Allocates (or finds) the record type for frame `t` under `name`.
    fn define_record(&mut self, t: usize, name: &str) -> Result<(), IlError> {
        let tk = match self.frames[t].tag.as_str() {
            "class" => 9,
            "union" => 11,
            _ => 10,
        };
        let q = if name.starts_with("(lambda") {
            name.to_string()
        } else {
            self.qname(name)
        };
        let (e, existed) = if self.pattern_depth > 0
            && self.frames[t].class == Some(Class::Record(RecordKind::Partial))
        {
            // Partial specializations: their own entry, indexed by their spelling.
            let (e, x) = self.types.named_entry(
                self.il,
                &format!("{q}<partial#{}>", self.frames[t].id),
                tk,
            )?;
            (e, x)
        } else {
            self.types.named_entry(self.il, &q, tk)?
        };
        if let Some(rest) = name.strip_prefix("(unnamed ") {
            // C prints "(unnamed at F:L:C)" without the tag.
            if let Some(p) = rest.find(" at ") {
                let alias = self.qname(&format!("(unnamed{}", &rest[p..]));
                self.types.alias_name(self.il, &alias, e)?;
            }
        }
        if name.starts_with("(unnamed ") {
            // clang also prints "(anonymous struct at ...)".
            let alias = self.qname(&name.replacen("(unnamed", "(anonymous", 1));
            self.types.alias_name(self.il, &alias, e)?;
        }
        let r = self.il.row(e) as usize;
        let cur = self.il.tables.r#type.type_kind[r];
        if !(9..=11).contains(&cur) {
            // A typedef or placeholder of the same name: keep its entry kind if typedef.
            if cur == 0 {
                K::set_type_kind(self.il, self.il.id_of(e), tk)?;
            }
        }
        if self.frames[t].flags & FL_COMPLETE != 0 {
            self.il.tables.r#type.is_defined[r] = true;
        }
        if self.il.child_eix(e, F::TYPE_SCOPE).is_none() {
            let s = K::alloc_scope(self.il, 6, None)?;
            let se = self.il.eix(s)?;
            self.set_child(e, F::TYPE_SCOPE, se)?;
        }
        self.frames[t].entry = e;
        self.frames[t].reused = existed;
        self.types.qual.push(last_comp_owned(&q));
        self.frames[t].qual_pushed = true;
        self.register(t, e);
        // Base types now, from the class's scope: names in its body may be inherited.
        let bases = std::mem::take(&mut self.frames[t].bases);
        let mut types = std::mem::take(&mut self.frames[t].base_types);
        types.clear();
        let mut r = Ok(());
        for (ty, _, _) in &bases {
            self.types.in_pattern = self.pattern_depth > 0;
            match self.types.intern(self.il, ty) {
                Ok(bt) => types.push(bt),
                Err(x) => {
                    r = Err(x);
                    break;
                }
            }
        }
        self.frames[t].bases = bases;
        r?;
        self.types.set_bases(e, &types);
        self.frames[t].base_types = types;
        Ok(())
    }

    /// Registers a class template specialization once its arguments are known.
    fn register_spec(&mut self, off: u64, t: usize) -> Result<(), Fail> {
        self.frames[t].reg_pending = false;
        let name = format!("{}<{}>", self.frames[t].name, self.frames[t].targs);
        self.set_pos(t);
        let r = self.define_record(t, &name);
        r.map_err(|e| ie(off, e))?;
        // clang prints specializations without trailing default arguments
        // (`std::vector<float>`): index the argument prefixes too (the first wins).
        let e = self.frames[t].entry;
        let targs = self.frames[t].targs.clone();
        let parts = split_args(&targs);
        if !parts.is_empty() && !e.is_none() {
            let base = self.frames[t].name.clone();
            // The record's own component is on the qual stack now: drop it.
            let comp = self.types.qual.pop();
            for k in 0..parts.len() {
                let n = format!("{}<{}>", base, parts[..k].join(", "));
                let q = self.qname(&n);
                self.types
                    .alias_name(self.il, &q, e)
                    .map_err(|x| ie(off, x))?;
            }
            if let Some(c) = comp {
                self.types.qual.push(c);
            }
        }
        Ok(())
    }

    /// An out-of-line member definition (`parentDeclContextId` names a class): names in
    /// it are looked up from that class's scope, as clang printed them, until it closes.
    fn enter_semantic_parent(&mut self, t: usize) {
        let id = self.frames[t].parent_ctx;
        if id == 0 || self.frames[t].saved_qual.is_some() {
            return;
        }
        let Some((e, _)) = self.ids.get(id) else {
            return;
        };
        if let Some(scopes) = self.types.scopes_of(e) {
            self.frames[t].saved_qual = Some(std::mem::replace(&mut self.types.qual, scopes));
        }
    }

    fn enter_pattern(&mut self, t: usize, pclass: Option<Class>) {
        if let Some(Class::Template(_)) = pclass {
            let p = t - 1;
            if !self.frames[p].pattern_seen {
                self.frames[p].pattern_seen = true;
                self.frames[t].pattern = true;
                self.pattern_depth += 1;
            }
        }
    }

    fn materialize_expr(&mut self, t: usize, ec: ExprClass) -> Result<(), IlError> {
        use ExprClass as E;
        let (ek, opc) = match ec {
            E::Binary => {
                let o = op::BINARY_OPS
                    .iter()
                    .position(|&s| s == self.frames[t].opcode)
                    .map(|i| op::BINARY_BASE + i as u8)
                    .unwrap_or(op::OTHER);
                (1, o)
            }
            E::Unary => {
                let o = op::UNARY_OPS
                    .iter()
                    .position(|&s| s == self.frames[t].opcode)
                    .map(|i| op::UNARY_BASE + i as u8)
                    .unwrap_or(op::OTHER);
                (1, o)
            }
            E::Call => (1, op::CALL),
            E::KernelCall => (1, op::KERNEL_CALL),
            E::Member | E::Property => (1, op::MEMBER),
            E::Cast => (1, op::CAST),
            E::Subscript => (1, op::SUBSCRIPT),
            E::Conditional => (1, op::CONDITIONAL),
            E::Construct => (1, op::CONSTRUCT),
            E::InitList => (1, op::INIT_LIST),
            E::SubstNttp => (1, op::SUBST_NTTP),
            E::Dependent => (1, op::DEPENDENT),
            E::Other => (1, op::OTHER),
            E::DeclRef => {
                let rc = self.class_of(self.frames[t].ref_kind);
                match rc {
                    Class::Function(_) => (19, 0),
                    Class::EnumConst => (2, 0),
                    _ => (3, 0),
                }
            }
            E::IntLit | E::FloatLit | E::StrLit | E::NullLit => (2, 0),
            E::New | E::Delete => (7, 0),
            E::Lambda => (6, 0),
            E::TypeOperand => (20, 0),
            E::Throw => (8, 0),
            E::Pseudo | E::OpaqueValue => return Ok(()),
        };
        let x = self.il.alloc_expr_node(ek)?;
        let e = self.il.eix(x)?;
        self.frames[t].entry = e;
        let r = self.il.row(e) as usize;
        if ek == 1 {
            self.il.tables.expr_node.op[r] = opc;
            if ec == E::Cast {
                self.il.tables.expr_node.op2[r] = cast_code(&self.frames[t].opcode);
            }
        }
        let referenced = match ec {
            E::DeclRef => self.frames[t].ref_id,
            E::Member => self.frames[t].member_ref,
            _ => 0,
        };
        let ty = if ec == E::Call
            || (ec == E::Cast && self.frames[t].opcode == "FunctionToPointerDecay")
        {
            // Typed when it closes, from its operands (`finish_expr_type`).
            self.frames[t].type_deferred = true;
            Eix::NONE
        } else {
            let alt = Alt::Type(self.declared_type(referenced));
            let ty = self.type_of_or(t, alt)?;
            self.set_child(e, F::EXPR_NODE_TYPE, ty)?;
            ty
        };
        match ec {
            E::DeclRef | E::New | E::Delete => {
                let target = self.frame_ref(t)?;
                self.set_ref(e, F::EXPR_NODE_ENTITY, target)?;
                if ec == E::DeclRef
                    && self.il.is_live(target)
                    && self.il.kind(target) == EntryKind::Constant
                {
                    self.set_child(e, F::EXPR_NODE_CONSTANT, target)?;
                }
            }
            E::Member => {
                let id = self.frames[t].member_ref;
                if let Some((m, _)) = self.ids.get(id) {
                    self.set_ref(e, F::EXPR_NODE_ENTITY, m)?;
                } else if id != 0 {
                    self.fix_member.push((e, id));
                }
            }
            E::Cast => {
                // User-defined conversions name their function.
                let id = self.frames[t].ref_id;
                if id != 0 {
                    let target = self.frame_ref(t)?;
                    self.set_ref(e, F::EXPR_NODE_ENTITY, target)?;
                }
            }
            E::Construct => {
                let ct = strip_fn_type(&self.frames[t].ctor_type);
                self.fix_ctor.push((e, ct));
            }
            E::IntLit | E::FloatLit | E::StrLit | E::NullLit => {
                let c = self.alloc(EntryKind::Constant)?;
                let cid = self.il.id_of(c);
                let v = self.frames[t].value.clone();
                match ec {
                    E::FloatLit => {
                        K::set_constant_kind(self.il, cid, ck::FLOAT)?;
                        let f: f64 = v.trim().parse().unwrap_or(0.0);
                        let cr = self.il.row(c) as usize;
                        self.il.tables.constant.value[cr] = f.to_bits() as i64;
                    }
                    E::StrLit => {
                        K::set_constant_kind(self.il, cid, ck::STRING)?;
                        let text = v
                            .strip_prefix('"')
                            .and_then(|s| s.strip_suffix('"'))
                            .unwrap_or(&v);
                        let cr = self.il.row(c) as usize;
                        self.il.tables.constant.text_len[cr] = text.len() as u32;
                        let text = text.to_string();
                        self.set_str(c, 0, &text)?;
                    }
                    _ => {
                        K::set_constant_kind(self.il, cid, ck::INTEGER)?;
                        let n = match v.as_str() {
                            "true" => 1,
                            "false" | "" => 0,
                            s => parse_int(s.as_bytes()),
                        };
                        let cr = self.il.row(c) as usize;
                        self.il.tables.constant.value[cr] = n;
                    }
                }
                self.set_child(c, F::CONSTANT_TYPE, ty)?;
                self.set_child(e, F::EXPR_NODE_CONSTANT, c)?;
            }
            _ => {}
        }
        Ok(())
    }

    // ---- end of a node: attach the children -------------------------------------------

    fn end_node(&mut self, off: u64, t: usize) -> Result<(), Fail> {
        if self.frames[t].reg_pending {
            self.register_spec(off, t)?;
        }
        if !self.frames[t].materialized {
            self.materialize(off, t)?;
        }
        let r = self.finalize(t);
        r.map_err(|e| ie(off, e))?;
        if let Some(q) = self.frames[t].saved_qual.take() {
            self.types.qual = q;
        }
        self.top -= 1;
        Ok(())
    }

    fn deliver(&mut self, t: usize, k: Kid) {
        if t > 0 {
            self.frames[t - 1].kids.push(k);
        }
    }

    fn finalize(&mut self, t: usize) -> Result<(), IlError> {
        let class = match self.frames[t].class {
            Some(c) => c,
            None => {
                // `{}`: an absent positional child.
                let k = Kid {
                    e: Eix::NONE,
                    class: Class::Other,
                    kind: u16::MAX,
                    val: None,
                    reused: false,
                    flags: 0,
                };
                self.deliver(t, k);
                return Ok(());
            }
        };
        if self.frames[t].stub {
            let f = &self.frames[t];
            let k = Kid {
                e: f.entry,
                class,
                kind: f.kind,
                val: None,
                reused: true,
                flags: 0,
            };
            self.deliver(t, k);
            return Ok(());
        }
        let kids = std::mem::take(&mut self.frames[t].kids);
        let e = self.frames[t].entry;
        let mut out_val = None;
        let mut deliver_e = e;
        let mut bubble: Vec<Kid> = Vec::new();
        match class {
            Class::Tu | Class::Namespace => {
                let scope = if class == Class::Tu {
                    e
                } else {
                    self.il
                        .child_eix(e, F::NAMESPACE_SCOPE)
                        .unwrap_or(Eix::NONE)
                };
                self.attach_to_scope(scope, &kids)?;
                if class == Class::Namespace && self.frames[t].name.is_empty() {
                    self.anon_depth = self.anon_depth.saturating_sub(1);
                }
            }
            Class::Transparent => {
                bubble.extend(kids.iter().copied());
            }
            Class::Function(_) => self.finish_function(t, e, &kids)?,
            Class::Var => {
                let mut space = 0u8;
                for k in &kids {
                    if k.e.is_none() {
                        continue;
                    }
                    match self.il.kind(k.e) {
                        EntryKind::ExprNode
                            if self.il.child_eix(e, F::VARIABLE_INITIALIZER).is_none() =>
                        {
                            self.set_child(e, F::VARIABLE_INITIALIZER, k.e)?;
                        }
                        EntryKind::Attribute => {
                            let r = self.il.row(k.e) as usize;
                            let ak = self.il.tables.attribute.attr_kind[r];
                            space = match ak {
                                attr_kind::DEVICE => space.max(1),
                                attr_kind::SHARED => 2,
                                attr_kind::CONSTANT => 3,
                                attr_kind::MANAGED => 4,
                                _ => space,
                            };
                            if !(self.frames[t].reused && k.flags & FL_INHERITED != 0) {
                                self.push(e, F::VARIABLE_ATTRIBUTES, k.e)?;
                            }
                        }
                        _ => {}
                    }
                }
                if space != 0 {
                    let r = self.il.row(e) as usize;
                    self.il.tables.variable.cuda_space[r] = space;
                }
                if !kids.is_empty() && self.frames[t].storage != "extern" {
                    let r = self.il.row(e) as usize;
                    self.il.tables.variable.is_defined[r] = true;
                }
            }
            Class::Parm => {
                for k in &kids {
                    if !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode {
                        self.set_child(e, F::PARAM_TYPE_DEFAULT_ARG, k.e)?;
                        break;
                    }
                }
                for k in &kids {
                    if !k.e.is_none() && self.il.kind(k.e) == EntryKind::Attribute {
                        self.push(e, F::PARAM_TYPE_ATTRIBUTES, k.e)?;
                    }
                }
            }
            Class::Field | Class::Typedef => {}
            Class::Record(rk) => {
                self.finish_record(t, e, &kids)?;
                if rk == RecordKind::Partial && !e.is_none() {
                    // A partial specialization: a template (kind 6) with its own
                    // parameters and the specialized record as its pattern.
                    let tm = self.alloc(EntryKind::Template)?;
                    let name = self.frames[t].name.clone();
                    self.set_str(tm, 0, &name)?;
                    let r = self.il.row(tm) as usize;
                    self.il.tables.template.template_kind[r] = 6;
                    for k in &kids {
                        if !k.e.is_none() && self.il.kind(k.e) == EntryKind::TemplateParam {
                            self.push(tm, F::TEMPLATE_PARAMS, k.e)?;
                        }
                    }
                    self.set_child(tm, F::TEMPLATE_PATTERN, e)?;
                    deliver_e = tm;
                }
            }
            Class::Enum => {
                let mut next = 0i64;
                for k in &kids {
                    if k.e.is_none() || self.il.kind(k.e) != EntryKind::Constant {
                        continue;
                    }
                    let v = k.val.unwrap_or(next);
                    let r = self.il.row(k.e) as usize;
                    self.il.tables.constant.value[r] = v;
                    next = v.wrapping_add(1);
                }
                let ce = e;
                for k in &kids {
                    if !k.e.is_none() && self.il.kind(k.e) == EntryKind::Constant {
                        self.set_child(k.e, F::CONSTANT_TYPE, ce)?;
                        if !self.frames[t].reused {
                            self.push(ce, F::TYPE_ENUM_CONSTANTS, k.e)?;
                        }
                    }
                }
            }
            Class::EnumConst => {
                out_val = kids.iter().find_map(|k| k.val);
                if let Some(v) = out_val {
                    let r = self.il.row(e) as usize;
                    self.il.tables.constant.value[r] = v;
                }
                // The initializer expression stays reachable through the constant.
                if let Some(k) = kids
                    .iter()
                    .find(|k| !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode)
                {
                    self.set_child(e, F::CONSTANT_EXPR, k.e)?;
                }
            }
            Class::Template(_) => {
                let mut pattern_done = false;
                let tid = self.il.id_of(e);
                for k in &kids {
                    if k.e.is_none() {
                        continue;
                    }
                    match self.il.kind(k.e) {
                        EntryKind::TemplateParam if !self.frames[t].reused => {
                            self.push(e, F::TEMPLATE_PARAMS, k.e)?;
                        }
                        EntryKind::Routine | EntryKind::Type | EntryKind::Variable
                            if !pattern_done && !k.reused =>
                        {
                            pattern_done = true;
                            if self.il.child_eix(e, F::TEMPLATE_PATTERN).is_none() {
                                self.set_child(e, F::TEMPLATE_PATTERN, k.e)?;
                            }
                        }
                        EntryKind::Routine => {
                            self.link_instance(k.e, e)?;
                            if !k.reused {
                                bubble.push(*k);
                            }
                        }
                        EntryKind::Type | EntryKind::Variable => {
                            if let Some(info) = self.instance_info(k.e) {
                                self.set_ref(info, F::TEMPLATE_INFO_TEMPLATE, e)?;
                            }
                            if !k.reused {
                                bubble.push(*k);
                            }
                        }
                        _ => {}
                    }
                }
                let _ = tid;
                if self.frames[t].reused {
                    deliver_e = Eix::NONE;
                }
            }
            Class::TemplateParm(_) => {
                if let Some(k) = kids.iter().find(|k| !k.e.is_none()) {
                    self.set_child(e, F::TEMPLATE_PARAM_DEFAULT_ARG, k.e)?;
                }
            }
            Class::TemplateArg => {
                let f = &self.frames[t];
                let spelling = if !f.qual_type.is_empty() {
                    f.qual_type.clone()
                } else if f.has_value {
                    f.value.clone()
                } else if !f.targs.is_empty() {
                    f.targs.clone()
                } else if f.ref_id != 0 {
                    f.ref_name.clone()
                } else {
                    "?".to_string()
                };
                let ent = if !f.qual_type.is_empty() {
                    self.type_of(t)?
                } else if f.has_value {
                    let c = self.alloc(EntryKind::Constant)?;
                    K::set_constant_kind(self.il, self.il.id_of(c), ck::INTEGER)?;
                    let r = self.il.row(c) as usize;
                    let v = self.frames[t].value.clone();
                    self.il.tables.constant.value[r] = match v.as_str() {
                        "true" => 1,
                        _ => parse_int(v.as_bytes()),
                    };
                    c
                } else {
                    kids.iter()
                        .map(|k| k.e)
                        .find(|e| !e.is_none())
                        .unwrap_or(Eix::NONE)
                };
                if t > 0 {
                    let p = &mut self.frames[t - 1];
                    if !p.targs.is_empty() {
                        p.targs.push_str(", ");
                    }
                    p.targs.push_str(&spelling);
                    p.targ_entries.push(ent);
                }
                return Ok(());
            }
            Class::Using => {}
            Class::StaticAssert => {
                if let Some(k) = kids
                    .iter()
                    .find(|k| !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode)
                {
                    self.set_child(e, F::STATIC_ASSERT_COND, k.e)?;
                }
            }
            Class::CtorInit => {
                if let Some(k) = kids
                    .iter()
                    .find(|k| !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode)
                {
                    self.set_child(e, F::CONSTRUCTOR_INIT_INIT, k.e)?;
                }
            }
            Class::Stmt(sk) => self.finish_stmt(t, e, sk, &kids)?,
            Class::StmtPass => {
                deliver_e = kids
                    .iter()
                    .rev()
                    .find(|k| !k.e.is_none() && self.il.kind(k.e) != EntryKind::Attribute)
                    .map(|k| k.e)
                    .unwrap_or(Eix::NONE);
            }
            Class::ExprPass | Class::Expr(ExprClass::OpaqueValue) => {
                deliver_e = kids
                    .iter()
                    .map(|k| k.e)
                    .find(|e| !e.is_none())
                    .unwrap_or(Eix::NONE);
                out_val = kids.iter().find_map(|k| k.val);
                if self.frames[t].has_value {
                    out_val = Some(parse_int(self.frames[t].value.as_bytes()));
                }
                if class == Class::Expr(ExprClass::OpaqueValue) {
                    let id = self.frames[t].id;
                    if id != 0 && !deliver_e.is_none() {
                        self.ids.insert(id, (deliver_e, true));
                    }
                }
            }
            Class::Expr(ExprClass::Pseudo) => {
                deliver_e = kids
                    .iter()
                    .map(|k| k.e)
                    .find(|e| !e.is_none())
                    .unwrap_or(Eix::NONE);
                let fetch = std::mem::take(&mut self.frames[t].fetch);
                if !fetch.is_empty() && !deliver_e.is_none() {
                    self.fix_prop.push((deliver_e, fetch));
                }
            }
            Class::Expr(ec) => {
                match ec {
                    ExprClass::IntLit => {
                        let v = &self.frames[t].value;
                        out_val = Some(match v.as_str() {
                            "true" => 1,
                            _ => parse_int(v.as_bytes()),
                        });
                    }
                    // Constant values flow through casts and substitutions (enumerator
                    // initializers: ImplicitCastExpr(ConstantExpr{value}(...))), and `-`.
                    ExprClass::Cast | ExprClass::SubstNttp => {
                        out_val = kids.iter().find_map(|k| k.val);
                    }
                    ExprClass::Unary if self.frames[t].opcode == "-" => {
                        out_val = kids.iter().find_map(|k| k.val).map(|v| v.wrapping_neg());
                    }
                    _ => {}
                }
                if self.frames[t].type_deferred && !e.is_none() {
                    self.finish_expr_type(t, e, ec, &kids)?;
                }
                for k in &kids {
                    if k.e.is_none() {
                        continue;
                    }
                    match self.il.kind(k.e) {
                        EntryKind::ExprNode => self.push(e, F::EXPR_NODE_OPERANDS, k.e)?,
                        EntryKind::Type if ec == ExprClass::Lambda => {
                            self.set_child(e, F::EXPR_NODE_TYPE, k.e)?;
                        }
                        _ => {}
                    }
                }
            }
            Class::Attr => {
                for k in &kids {
                    if !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode {
                        let a = self.alloc(EntryKind::AttributeArgument)?;
                        self.set_child(a, F::ATTRIBUTE_ARGUMENT_EXPR, k.e)?;
                        self.push(e, F::ATTRIBUTE_ARGS, a)?;
                    }
                }
            }
            Class::TypeNode | Class::Comment => {}
            Class::Other => {
                for k in &kids {
                    if !k.e.is_none() {
                        self.push(e, F::NAME_REFERENCE_CHILDREN, k.e)?;
                    }
                }
            }
        }
        // Scope bookkeeping.
        if self.frames[t].qual_pushed {
            self.types.qual.pop();
        }
        if self.frames[t].tparams_pushed {
            self.types.tparam_scopes.pop();
        }
        if self.frames[t].pattern {
            self.pattern_depth = self.pattern_depth.saturating_sub(1);
        }
        let flags = self.frames[t].flags;
        let reused = self.frames[t].reused;
        let kind = self.frames[t].kind;
        let mut kids = kids;
        kids.clear();
        self.frames[t].kids = kids;
        for b in bubble {
            self.deliver(t, b);
        }
        if !matches!(class, Class::Transparent) {
            self.deliver(
                t,
                Kid {
                    e: deliver_e,
                    class,
                    kind,
                    val: out_val,
                    reused,
                    flags,
                },
            );
        }
        Ok(())
    }

    fn instance_info(&mut self, e: Eix) -> Option<Eix> {
        match self.il.kind(e) {
            EntryKind::Routine => self.il.child_eix(e, F::ROUTINE_TEMPLATE_INFO),
            EntryKind::Type => self.il.child_eix(e, F::TYPE_TEMPLATE_INFO),
            _ => None,
        }
    }

    fn link_instance(&mut self, r: Eix, tmpl: Eix) -> Result<(), IlError> {
        if self.il.ref_eix(r, F::ROUTINE_PRIMARY_TEMPLATE).is_none() {
            self.set_ref(r, F::ROUTINE_PRIMARY_TEMPLATE, tmpl)?;
        }
        if let Some(info) = self.instance_info(r) {
            self.set_ref(info, F::TEMPLATE_INFO_TEMPLATE, tmpl)?;
        }
        self.rflag(r, rf::INSTANCE);
        Ok(())
    }

    fn template_info(&mut self, t: usize) -> Result<Eix, IlError> {
        let ents = std::mem::take(&mut self.frames[t].targ_entries);
        let info = self.alloc(EntryKind::TemplateInfo)?;
        for &a in &ents {
            if !a.is_none() {
                let (pi, ai) = (self.il.id_of(info), self.il.id_of(a));
                self.il.push_list(pi, F::TEMPLATE_INFO_ARGS, ai)?;
            }
        }
        self.frames[t].targ_entries = ents;
        Ok(info)
    }

    fn attach_to_scope(&mut self, scope: Eix, kids: &[Kid]) -> Result<(), IlError> {
        if scope.is_none() {
            return Ok(());
        }
        // One list at a time, so the scope's edge block moves at most once per list.
        let lists: [(EntryKind, crate::il::ListField); 6] = [
            (EntryKind::Variable, F::SCOPE_VARIABLES),
            (EntryKind::Routine, F::SCOPE_ROUTINES),
            (EntryKind::Type, F::SCOPE_TYPES),
            (EntryKind::Namespace, F::SCOPE_NAMESPACES),
            (EntryKind::UsingDeclaration, F::SCOPE_USING_DECLS),
            (EntryKind::Template, F::SCOPE_TEMPLATES),
        ];
        for (k, f) in lists {
            for kid in kids {
                if !kid.e.is_none() && !kid.reused && self.il.kind(kid.e) == k {
                    self.push(scope, f, kid.e)?;
                }
            }
        }
        Ok(())
    }

    fn finish_function(&mut self, t: usize, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        let reused = self.frames[t].reused;
        let has_params = !self.il.list_eix(e, F::ROUTINE_PARAMS).is_empty();
        let mut body = Eix::NONE;
        let mut bits = 0u16;
        let mut info = Eix::NONE;
        if !self.frames[t].targ_entries.is_empty() {
            info = self.template_info(t)?;
            bits |= rf::INSTANCE;
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::Statement => body = k.e,
                EntryKind::Attribute => {
                    let r = self.il.row(k.e) as usize;
                    bits |= match self.il.tables.attribute.attr_kind[r] {
                        attr_kind::GLOBAL => rf::GLOBAL,
                        attr_kind::DEVICE => rf::DEVICE,
                        attr_kind::HOST => rf::HOST,
                        attr_kind::IMPLICIT_DEVICE | attr_kind::IMPLICIT_HOST => rf::IMPLICIT_HD,
                        attr_kind::ALWAYS_INLINE => rf::ALWAYS_INLINE,
                        _ => 0,
                    };
                }
                _ => {}
            }
        }
        let has_body = !body.is_none();
        let replace_params = has_body && has_params && reused;
        if replace_params {
            let id = self.il.id_of(e);
            let _ = id;
            let eid = self.il.eix(self.il.id_of(e))?;
            self.il.retain_list(eid, F::ROUTINE_PARAMS, |_| false);
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            if self.il.kind(k.e) == EntryKind::ParamType && (!has_params || replace_params) {
                self.push(e, F::ROUTINE_PARAMS, k.e)?;
            }
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::Attribute if !(reused && k.flags & FL_INHERITED != 0) => {
                    self.push(e, F::ROUTINE_ATTRIBUTES, k.e)?
                }
                EntryKind::ConstructorInit => self.push(e, F::ROUTINE_CTOR_INITS, k.e)?,
                _ => {}
            }
        }
        if !info.is_none() && self.il.child_eix(e, F::ROUTINE_TEMPLATE_INFO).is_none() {
            self.set_child(e, F::ROUTINE_TEMPLATE_INFO, info)?;
        }
        let scope = self.frames[t].body_scope;
        if has_body {
            if !scope.is_none() {
                self.set_child(scope, F::SCOPE_BLOCK, body)?;
                if self.il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_none() {
                    self.set_child(e, F::ROUTINE_BODY_SCOPE, scope)?;
                }
            }
            let r = self.il.row(e) as usize;
            self.il.tables.routine.is_defined[r] = true;
            bits |= rf::BODY;
            if self.frames[t].name == "main"
                && !matches!(self.parent_class(t), Some(Class::Record(_)))
            {
                // The IL header's main routine.
                self.il.main_routine = Some(self.il.id_of(e));
            }
        }
        if !scope.is_none() {
            let locals = std::mem::take(&mut self.frames[t].locals);
            for (k, f) in [
                (EntryKind::Variable, F::SCOPE_VARIABLES),
                (EntryKind::Type, F::SCOPE_TYPES),
            ] {
                for &l in &locals {
                    if !l.is_none() && self.il.kind(l) == k {
                        self.push(scope, f, l)?;
                    }
                }
            }
            self.frames[t].locals = locals;
        }
        self.rflag(e, bits);
        if let Some(saved) = self.frames[t].saved_region.take() {
            self.il.switch_region(saved)?;
            if self.fn_stack.last() == Some(&t) {
                self.fn_stack.pop();
            }
        }
        Ok(())
    }

    fn finish_record(&mut self, t: usize, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        if e.is_none() {
            return Ok(());
        }
        let mut info = Eix::NONE;
        if !self.frames[t].targ_entries.is_empty() {
            info = self.template_info(t)?;
        }
        // Bases.
        let bases = std::mem::take(&mut self.frames[t].bases);
        let mut base_entries = Vec::with_capacity(bases.len());
        let types = std::mem::take(&mut self.frames[t].base_types);
        for (i, (ty, access, virt)) in bases.iter().enumerate() {
            let bt = match types.get(i) {
                Some(&bt) => bt,
                None => self.types.intern(self.il, ty)?,
            };
            let b = self.alloc(EntryKind::BaseClass)?;
            let r = self.il.row(b) as usize;
            self.il.tables.base_class.access[r] = *access;
            self.il.tables.base_class.is_virtual[r] = *virt;
            self.set_child(b, F::BASE_CLASS_TYPE, bt)?;
            self.set_ref(b, F::BASE_CLASS_DERIVED_CLASS, e)?;
            base_entries.push(b);
        }
        self.frames[t].bases = bases;
        self.frames[t].base_types = types;
        let reused = self.frames[t].reused && !self.il.list_eix(e, F::TYPE_FIELDS).is_empty();
        if !info.is_none() && self.il.child_eix(e, F::TYPE_TEMPLATE_INFO).is_none() {
            self.set_child(e, F::TYPE_TEMPLATE_INFO, info)?;
        }
        if !reused {
            for b in base_entries {
                self.push(e, F::TYPE_BASES, b)?;
            }
            for k in kids {
                if !k.e.is_none() && !k.reused && self.il.kind(k.e) == EntryKind::Field {
                    self.push(e, F::TYPE_FIELDS, k.e)?;
                }
            }
        }
        let scope = self.il.child_eix(e, F::TYPE_SCOPE).unwrap_or(Eix::NONE);
        let members: Vec<Kid> = kids
            .iter()
            .copied()
            .filter(|k| !k.e.is_none() && k.e != e && !k.reused)
            .collect();
        self.attach_to_scope(scope, &members)?;
        if !scope.is_none() && self.il.ref_eix(scope, F::SCOPE_PARENT).is_none() {
            // The enclosing scope is known only through the frame stack.
            for p in (0..t).rev() {
                let pe = self.frames[p].entry;
                if pe.is_none() {
                    continue;
                }
                let ps = match self.il.kind(pe) {
                    EntryKind::Scope => Some(pe),
                    EntryKind::Namespace => self.il.child_eix(pe, F::NAMESPACE_SCOPE),
                    EntryKind::Type => self.il.child_eix(pe, F::TYPE_SCOPE),
                    _ => None,
                };
                if let Some(ps) = ps {
                    self.set_ref(scope, F::SCOPE_PARENT, ps)?;
                    break;
                }
            }
        }
        // A local class inside a function body.
        if let Some(&f) = self.fn_stack.last() {
            if f + 1 < t && matches!(self.parent_class(t), Some(Class::Stmt(_))) {
                self.frames[f].locals.push(e);
            }
        }
        Ok(())
    }

    fn wrap_expr(&mut self, x: Eix) -> Result<Eix, IlError> {
        let s = self.il.alloc(EntryKind::Statement)?;
        K::set_statement_kind(self.il, s, 0)?;
        let se = self.il.eix(s)?;
        self.set_child(se, F::STATEMENT_EXPR, x)?;
        Ok(se)
    }

    fn finish_stmt(&mut self, t: usize, e: Eix, sk: u8, kids: &[Kid]) -> Result<(), IlError> {
        let flags = self.frames[t].flags;
        // Sort the children into slots first (wrapping allocates), then push in one go.
        let mut stmts: Vec<Eix> = Vec::new();
        let mut exprs: Vec<Eix> = Vec::new();
        let mut decls: Vec<Eix> = Vec::new();
        let mut skip_leading = 0usize;
        if sk == 1 || sk == 16 {
            skip_leading = (flags & FL_HAS_INIT != 0) as usize + (flags & FL_HAS_VAR != 0) as usize;
        }
        let expr_slots = match sk {
            1 | 5 | 16 | 8 | 15 | 0 => 1,
            12 => 1,
            _ => 0,
        };
        if sk == 13 {
            // for: [init, condVar, cond, inc, body], `{}` for absent parts.
            for (i, k) in kids.iter().enumerate() {
                if k.e.is_none() {
                    continue;
                }
                match i {
                    2 | 3 if self.il.kind(k.e) == EntryKind::ExprNode => exprs.push(k.e),
                    1 => {
                        if self.il.kind(k.e) == EntryKind::Statement {
                            stmts.push(k.e);
                        }
                    }
                    _ => {
                        let s = if self.il.kind(k.e) == EntryKind::ExprNode {
                            self.wrap_expr(k.e)?
                        } else {
                            k.e
                        };
                        stmts.push(s);
                    }
                }
            }
        } else {
            let mut slots = expr_slots;
            for (i, k) in kids.iter().enumerate() {
                if k.e.is_none() {
                    continue;
                }
                let kk = self.il.kind(k.e);
                if kk == EntryKind::ExprNode {
                    if i >= skip_leading && slots > 0 && (sk != 12 || i > 0) {
                        exprs.push(k.e);
                        slots -= 1;
                    } else {
                        let s = self.wrap_expr(k.e)?;
                        stmts.push(s);
                    }
                } else if kk == EntryKind::Statement {
                    stmts.push(k.e);
                } else if matches!(
                    kk,
                    EntryKind::Variable | EntryKind::Type | EntryKind::Routine
                ) {
                    decls.push(k.e);
                }
            }
        }
        if let Some(&x) = exprs.first() {
            self.set_child(e, F::STATEMENT_EXPR, x)?;
        }
        if let Some(&x) = exprs.get(1) {
            self.set_child(e, F::STATEMENT_EXPR2, x)?;
        }
        if let Some(&d) = decls.first() {
            self.set_ref(e, F::STATEMENT_DECL, d)?;
        }
        for s in stmts {
            self.push(e, F::STATEMENT_STMTS, s)?;
        }
        if let Some(&f) = self.fn_stack.last() {
            for d in decls {
                if matches!(self.il.kind(d), EntryKind::Variable | EntryKind::Type) {
                    self.frames[f].locals.push(d);
                }
            }
        }
        Ok(())
    }

    // ---- after the pass ---------------------------------------------------------------

    pub fn finish(mut self, bytes: u64) -> Result<Import, IlError> {
        // Member references to ids dumped later (or never).
        let mut dangling = 0u64;
        for (x, id) in std::mem::take(&mut self.fix_member) {
            match self.ids.get(id) {
                Some((m, _)) => self.set_ref(x, F::EXPR_NODE_ENTITY, m)?,
                None => {
                    let m = self.resolve_ref(id, u16::MAX, "")?;
                    self.set_ref(x, F::EXPR_NODE_ENTITY, m)?;
                }
            }
        }
        // Constructors by class and signature.
        let mut ctor_unresolved = 0u64;
        for (x, sig) in std::mem::take(&mut self.fix_ctor) {
            let ty = self.il.child_eix(x, F::EXPR_NODE_TYPE).unwrap_or(Eix::NONE);
            let cls = if ty.is_none() {
                ty
            } else {
                Types::strip(self.il, ty)
            };
            match self.ctors.get(&(cls.0, sig)) {
                Some(&c) => self.set_ref(x, F::EXPR_NODE_ENTITY, c)?,
                None => ctor_unresolved += 1,
            }
        }
        // Builtin-variable properties: threadIdx.x → the field x of its struct.
        for (x, name) in std::mem::take(&mut self.fix_prop) {
            let base = self.il.list_eix(x, F::EXPR_NODE_OPERANDS).first().copied();
            let bt = base.and_then(|b| self.il.child_eix(b, F::EXPR_NODE_TYPE));
            if let Some(bt) = bt {
                let cls = Types::strip(self.il, bt);
                if let Some(&m) = self.members.get(&(cls.0, name)) {
                    self.set_ref(x, F::EXPR_NODE_ENTITY, m)?;
                }
            }
        }
        // Include tree.
        let mut seen = ahash::AHashSet::new();
        for &(c, p) in &self.includes {
            if c == p || c == u16::MAX || p == u16::MAX || !seen.insert(c) {
                continue;
            }
            let (ce, pe) = (self.file_eix[c as usize], self.file_eix[p as usize]);
            if !ce.is_none() && !pe.is_none() {
                let (pi, ci) = (self.il.id_of(pe), self.il.id_of(ce));
                self.il
                    .push_list(pi, F::SOURCE_FILE_ENTRY_CHILD_FILES, ci)?;
                let r = self.il.row(ce) as usize;
                self.il.tables.source_file_entry.is_include_file[r] = true;
            }
        }
        dangling += self.ids.values().filter(|x| !x.1).count() as u64;
        // The id index and the member tables are done with: free them before the last
        // passes, which set the import's peak memory.
        self.ids = IdIndex::new();
        self.members = AHashMap::new();
        self.ctors = AHashMap::new();
        // In place: a second pool next to the first would set the import's peak memory.
        self.il.compact_edges_in_place();
        self.il.shrink_edge_pool();
        self.types.late_resolve(self.il)?;
        let (unresolved, unresolved_in_patterns, names) = self.types.unresolved_refs(self.il);
        let mut kinds: Vec<(String, u64, u64)> = self
            .kind_names
            .iter()
            .zip(&self.kind_counts)
            .zip(&self.opaque_counts)
            .map(|((n, &c), &o)| (n.clone(), c, o))
            .filter(|x| x.1 > 0 || x.2 > 0)
            .collect();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let rows = self.il.tables.routine.eix.len();
        self.routine_flags.resize(rows, 0);
        let vrows = self.il.tables.variable.eix.len();
        self.variable_flags.resize(vrows, 0);
        let report = ImportReport {
            bytes,
            nodes: self.nodes,
            entries: self.il.len() as u64,
            kinds,
            type_refs: self.types.refs,
            unresolved_type_refs: unresolved,
            unresolved_type_refs_in_patterns: unresolved_in_patterns,
            dependent_type_refs: self.types.dependent_refs,
            unresolved_type_names: names,
            placeholders: self.placeholders_made,
            dangling_ids: dangling,
            unresolved_ctor_refs: ctor_unresolved,
            files: self.files.clone(),
        };
        Ok(Import {
            report,
            routine_flags: self.routine_flags,
            variable_flags: self.variable_flags,
            files: self.files,
        })
    }
}

/// Splits template arguments at top-level commas.
fn split_args(s: &str) -> Vec<&str> {
    let mut v = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                v.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        v.push(s[start..].trim());
    }
    v
}

fn last_comp_owned(q: &str) -> String {
    super::types::last_component(q).to_string()
}

/// A small code for a cast kind (`expr_node.op2` of a cast).
fn cast_code(k: &str) -> u8 {
    const CASTS: &[&str] = &[
        "LValueToRValue",
        "NoOp",
        "IntegralCast",
        "FunctionToPointerDecay",
        "ArrayToPointerDecay",
        "IntegralToFloating",
        "FloatingToIntegral",
        "FloatingCast",
        "BitCast",
        "DerivedToBase",
        "UncheckedDerivedToBase",
        "ConstructorConversion",
        "UserDefinedConversion",
        "NullToPointer",
        "PointerToBoolean",
        "IntegralToBoolean",
        "FloatingToBoolean",
        "IntegralToPointer",
        "PointerToIntegral",
        "ToVoid",
        "Dependent",
        "BaseToDerived",
        "AddressSpaceConversion",
        "BuiltinFnToFnPtr",
        "LValueBitCast",
        "VectorSplat",
    ];
    CASTS
        .iter()
        .position(|&c| c == k)
        .map(|i| i as u8 + 1)
        .unwrap_or(255)
}

/// Reads the start of a value that should be an object: true when it is (the caller then
/// reads its members), false when it was another value, which is skipped. Truncated input
/// is an error.
fn open_object<R: Read>(lx: &mut Lexer<R>) -> Result<bool, Fail> {
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
