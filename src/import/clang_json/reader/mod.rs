//! The streaming builder: one pass over the token stream with an explicit stack of open
//! nodes (no recursion over the document), allocating IL entries as nodes open and
//! attaching children in one batch when a node closes.
//!
//! This module owns the `Builder` state, the frames of open nodes, the token loop
//! (`Builder::run`) and the fix-ups after the pass (`Builder::finish`). The work on one
//! node is split by concern, each submodule adding an `impl Builder` block:
//!
//! - `keys`: reading a node's keys into its frame (scalars, references, bases, `x-files`,
//!   type objects), and deciding, once its kind is known, whether it is skipped;
//! - `locs`: source files and locations, followed in document order (skipped nodes
//!   included: clang prints a file or line only when it changes);
//! - `entries`: small IL helpers (edges that drop a child of the wrong kind, ids and
//!   placeholders, opaque entries, the frame's type);
//! - `materialize`: allocating a declaration's entry when its node opens;
//! - `records`: records and class template specializations, opening and closing;
//! - `expr`, `stmt`: expressions and statements, opening and closing;
//! - `finalize`: attaching the children when a node closes.
//!
//! Invariants: frames `0..top` are the open nodes, innermost last. A frame's entry is
//! made once (`materialize`), when its `inner` array starts or else when it closes. A
//! closing node hands its parent `Kid`s: the children it bubbles up first (those of a
//! transparent node, instantiations under a template), then itself (not a transparent
//! node or a template argument). No IL edge offset is held between nodes, so the edge
//! pool may be compacted there. Builder fields are private to this module and its
//! submodules; methods one submodule calls in another are `pub(super)`.

mod entries;
mod expr;
mod finalize;
mod keys;
mod locs;
mod materialize;
mod records;
mod stmt;

use super::ids::IdIndex;
use super::json::{JsonError, Lexer, Tok};
use super::kinds::{classify, Class, ExprClass};
use super::types::{normalize, Types};
use super::{Import, ImportReport};
use crate::il::{fields as F, Eix, Il, IlError, RegionIdx};
use ahash::AHashMap;
use std::io::Read;

pub use crate::il::kinds::rf;

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
    /// A routine whose body is being read: the region current before it, and the body's.
    saved_region: Option<(RegionIdx, RegionIdx)>,
    body_scope: Eix,
    locals: Vec<Eix>,
    qual_pushed: bool,
    /// A routine whose body declared a local type: the body's own scope component is
    /// on the qualifier stack (popped when the routine closes).
    body_qual: bool,
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

    members: AHashMap<(u32, String), Eix>,
    ctors: AHashMap<(u32, String), Eix>,
    fix_member: Vec<(Eix, u64)>,
    fix_ctor: Vec<(Eix, String)>,
    fix_prop: Vec<(Eix, String)>,
    placeholders_made: u64,
    nodes: u64,
    offset_err_ctx: u64,
    /// Keep every literal's constant with clang's type and value
    /// ([`super::ImportOptions::record_literals`]).
    pub(super) record_literals: bool,
    /// Close the region of a body device code cannot need when it ends
    /// ([`super::Bodies::Device`]).
    pub(super) close_host_bodies: bool,
    bodies_closed: u64,
    literals: Vec<super::LiteralOrigin>,
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
            members: AHashMap::new(),
            ctors: AHashMap::new(),
            fix_member: Vec::new(),
            fix_ctor: Vec::new(),
            fix_prop: Vec::new(),
            placeholders_made: 0,
            nodes: 0,
            offset_err_ctx: 0,
            record_literals: false,
            close_host_bodies: false,
            bodies_closed: 0,
            literals: Vec::new(),
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

    /// Frame `t`'s object closes: a pending specialization is registered, the entry made
    /// if it was not yet, the children attached, the scopes of an out-of-line definition's
    /// surroundings restored, and the frame popped.
    fn end_node(&mut self, off: u64, t: usize) -> Result<(), Fail> {
        if t == 0 && self.frames[0].class.is_none() {
            return Err(Fail(JsonError {
                offset: off,
                msg: "expected a clang AST: the top-level object has no \"kind\" \
                      (a TranslationUnitDecl)"
                    .into(),
            }));
        }
        if self.frames[t].reg_pending {
            self.register_spec(off, t)?;
        }
        if !self.frames[t].materialized {
            self.materialize(off, t)?;
        }
        let r = self.finalize(t);
        r.map_err(|e| ie(off, e))?;
        if t > 0 && matches!(self.frames[t].class, Some(Class::Stmt(_))) {
            if let Some((saved, _)) = self.frames[t - 1].saved_region {
                // The body ended: what the routine's node lists after it (attributes)
                // belongs to the routine, not to the body's region.
                self.il.switch_region(saved).map_err(|e| ie(off, e))?;
            }
        }
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

    // ---- after the pass ---------------------------------------------------------------

    pub fn finish(mut self, bytes: u64) -> Result<Import, IlError> {
        // Member references to ids dumped later (or never).
        let mut dangling = 0u64;
        // (Fix-ups of expressions freed with a closed body are dropped.)
        for (x, id) in std::mem::take(&mut self.fix_member) {
            if !self.il.is_live(x) {
                continue;
            }
            match self.lookup(id) {
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
            if !self.il.is_live(x) {
                continue;
            }
            let ty = self.il.child_eix(x, F::EXPR_NODE_TYPE).unwrap_or(Eix::NONE);
            let cls = if ty.is_none() {
                ty
            } else {
                Types::strip(self.il, ty)
            };
            match self.ctors.get(&(cls.raw(), sig)) {
                Some(&c) => self.set_ref(x, F::EXPR_NODE_ENTITY, c)?,
                None => ctor_unresolved += 1,
            }
        }
        // Builtin-variable properties: threadIdx.x → the field x of its struct.
        for (x, name) in std::mem::take(&mut self.fix_prop) {
            if !self.il.is_live(x) {
                continue;
            }
            let base = self.il.list_eix(x, F::EXPR_NODE_OPERANDS).first().copied();
            let bt = base.and_then(|b| self.il.child_eix(b, F::EXPR_NODE_TYPE));
            if let Some(bt) = bt {
                let cls = Types::strip(self.il, bt);
                if let Some(&m) = self.members.get(&(cls.raw(), name)) {
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
                self.il.source_file_entry_mut(ce).set_is_include_file(true);
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
            bodies_closed: self.bodies_closed,
            edges_cut: 0,
            files: self.files.clone(),
        };
        Ok(Import {
            report,
            files: self.files,
            literals: self.literals,
        })
    }
}
