//! The debug locations of calls: resolves the `!dbg !N` attachments the instruction pass
//! collected into [`crate::llvm::ir::debugloc::DebugLocs`], reading the numbered metadata
//! nodes they lead to.
//!
//! The first pass records where each numbered node (`!N = ...`) begins; nodes may come in
//! any order and after their uses. Only the nodes a call's location leads to are read:
//! its `DILocation`, the `inlinedAt:` chain, and each location's scope chain
//! (`DILexicalBlock` / `DILexicalBlockFile` up to the `DISubprogram`) with the `DIFile`
//! each scope's `file:` names (a location's file is its own scope's, what LLVM's remarks
//! print before the line); and the `DISubprogram` a definition's own `!dbg` names. Every node is read at most once
//! (memoized by number). Other node kinds and fields are never interpreted.
//!
//! Errors, at the reference or field they are about, as `llvm-as` (parser and verifier)
//! would reject the module: a `!dbg` to an undefined node or to a node that is not a
//! `DILocation` (a definition's: not a `DISubprogram`), a scope that is not a local
//! scope, an `inlinedAt:` that is not a location, a scope's `file:` that is not a
//! `DIFile`, a missing required field (`scope:`, a `DILexicalBlockFile`'s
//! `discriminator:`, a `DIFile`'s `filename:`), a repeated field, a value out of range
//! (`column:` is 16 bits), a metadata id defined twice. A cyclic scope or `inlinedAt:`
//! chain is an error too; walks are iterative and stop after as many steps as there are
//! nodes, so no input makes them recurse or run long. Inline nodes where a reference
//! `!N` is expected (`scope: !DISubprogram(...)`, which LLVM accepts but never prints)
//! are reported as unsupported.
//!
//! Cost: nothing when no call or definition has a `!dbg`; otherwise one hash map of the
//! numbered nodes' positions and one read of each node reached.

use super::Builder;
use crate::import::llvm_ir::lexer::{unescape, Tk, Tok};
use crate::import::llvm_ir::{unquote, ParseError, Pos};
use crate::llvm::ir::debugloc::{
    base_discriminator, DebugLoc, DebugLocIdx, FileIdx, SubprogramIdx,
};
use ahash::AHashMap;

/// The number of a reference `!N` (digits only); `u32::MAX` when it does not fit, a value
/// no definition is accepted with.
pub(super) fn md_number(text: &str) -> Option<u32> {
    let d = text.strip_prefix('!')?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(d.parse::<u32>().unwrap_or(u32::MAX))
}

/// A reference `!N` and where it is written.
#[derive(Clone, Copy)]
struct MdRef {
    n: u32,
    at: Tok,
}

/// The part of a node the locations need.
enum Node<'a> {
    Location {
        line: u32,
        column: u32,
        scope: MdRef,
        inlined_at: Option<MdRef>,
    },
    Subprogram {
        name: String,
        line: u32,
        file: Option<MdRef>,
    },
    LexicalBlock {
        scope: MdRef,
        file: Option<MdRef>,
    },
    LexicalBlockFile {
        scope: MdRef,
        discriminator: u32,
        file: Option<MdRef>,
    },
    File {
        filename: String,
    },
    /// Any other node; its kind as written (`!DIFile`; `!` for a tuple `!{...}`).
    Other(&'a str),
}

impl Node<'_> {
    /// What the node is, for messages.
    fn kind(&self) -> String {
        match self {
            Node::Location { .. } => "a DILocation".into(),
            Node::Subprogram { .. } => "a DISubprogram".into(),
            Node::LexicalBlock { .. } => "a DILexicalBlock".into(),
            Node::LexicalBlockFile { .. } => "a DILexicalBlockFile".into(),
            Node::File { .. } => "a DIFile".into(),
            Node::Other("!") => "a tuple '!{...}'".into(),
            Node::Other(k) => format!("'{k}'"),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Location,
    Subprogram,
    LexicalBlock,
    LexicalBlockFile,
    File,
}

/// Field values as read.
#[derive(Default)]
struct Fields {
    line: Option<u32>,
    column: Option<u32>,
    scope: Option<MdRef>,
    inlined_at: Option<MdRef>,
    name: Option<String>,
    linkage_name: Option<String>,
    discriminator: Option<u32>,
    file: Option<MdRef>,
    filename: Option<String>,
}

/// Memo tables of one resolution.
struct Resolver {
    /// Numbered node → where it begins.
    index: AHashMap<u32, Pos>,
    /// Location node → its row.
    locs: AHashMap<u32, DebugLocIdx>,
    /// Scope node → its subprogram, its own base discriminator, whether it is the
    /// subprogram itself, and its own file.
    scopes: AHashMap<u32, Scope>,
    /// File node → its row.
    files: AHashMap<u32, FileIdx>,
}

/// What a location takes from its scope.
#[derive(Clone, Copy)]
struct Scope {
    subprogram: SubprogramIdx,
    discriminator: u32,
    is_subprogram: bool,
    file: FileIdx,
}

impl<'a> Builder<'a, '_> {
    /// Resolves the collected `!dbg` attachments into `ir.debug_locs`; `md` is where the
    /// numbered metadata nodes begin.
    pub(super) fn resolve_debug_info(&mut self, md: &[Pos]) -> Result<(), ParseError> {
        if self.dbg_calls.is_empty() && self.dbg_funcs.is_empty() {
            return Ok(());
        }
        let mut r = Resolver {
            index: AHashMap::with_capacity(md.len()),
            locs: AHashMap::new(),
            scopes: AHashMap::new(),
            files: AHashMap::new(),
        };
        for &p in md {
            let at = pos_tok(p);
            let b = self.src.as_bytes();
            let start = p.start as usize;
            let mut end = start + 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            let n = match md_number(&self.src[start..end.min(b.len())]) {
                Some(n) if n != u32::MAX => n,
                _ => return self.err(at, "metadata id out of range"),
            };
            if r.index.insert(n, p).is_some() {
                return self.err(at, format!("metadata id '!{n}' is defined more than once"));
            }
        }
        for (f, row, n, at) in std::mem::take(&mut self.dbg_calls) {
            let l = self.location(&mut r, MdRef { n, at })?;
            if let Some(c) = self.ir.bodies[f].call_mut(row) {
                c.dbg = Some(l);
            }
        }
        for (f, n, at) in std::mem::take(&mut self.dbg_funcs) {
            let m = MdRef { n, at };
            let sp = match r.scopes.get(&n) {
                Some(s) if s.is_subprogram => s.subprogram,
                _ => match self.node(&r, m)? {
                    Node::Subprogram { .. } => self.scope(&mut r, m)?.subprogram,
                    other => {
                        return self.err(
                            at,
                            format!(
                                "a function's !dbg must be a DISubprogram, '!{n}' is {}",
                                other.kind()
                            ),
                        )
                    }
                },
            };
            self.ir.debug_locs.set_func_subprogram(f, Some(sp));
        }
        Ok(())
    }

    /// The row of location node `first`, its inlined-at chain resolved first.
    fn location(&mut self, r: &mut Resolver, first: MdRef) -> Result<DebugLocIdx, ParseError> {
        let mut todo: Vec<(u32, u32, u32, MdRef)> = Vec::new();
        let mut tail = DebugLocIdx::NONE;
        let mut cur = Some(first);
        while let Some(m) = cur {
            if let Some(&l) = r.locs.get(&m.n) {
                tail = l;
                break;
            }
            if todo.len() > r.index.len() {
                return self.err(
                    m.at,
                    format!("the inlinedAt chain through '!{}' is cyclic", m.n),
                );
            }
            match self.node(r, m)? {
                Node::Location {
                    line,
                    column,
                    scope,
                    inlined_at,
                } => {
                    todo.push((m.n, line, column, scope));
                    cur = inlined_at;
                }
                other => {
                    let what = if todo.is_empty() {
                        "a !dbg attachment"
                    } else {
                        "'inlinedAt:'"
                    };
                    return self.err(
                        m.at,
                        format!(
                            "{what} must be a DILocation, '!{}' is {}",
                            m.n,
                            other.kind()
                        ),
                    );
                }
            }
        }
        for (n, line, column, scope) in todo.into_iter().rev() {
            let sc = self.scope(r, scope)?;
            let l = self.ir.debug_locs.add_loc(DebugLoc {
                line,
                column,
                subprogram: sc.subprogram,
                discriminator: sc.discriminator,
                inlined_at: tail.some(),
                file: sc.file,
            });
            r.locs.insert(n, l);
            tail = l;
        }
        Ok(tail)
    }

    /// Scope node `first`: the subprogram its chain leads to, its own base discriminator
    /// (a `DILexicalBlockFile`'s, else 0), whether it is a subprogram, its own file.
    fn scope(&mut self, r: &mut Resolver, first: MdRef) -> Result<Scope, ParseError> {
        let mut path: Vec<(u32, u32, FileIdx)> = Vec::new();
        let mut cur = first;
        let sp = loop {
            if let Some(s) = r.scopes.get(&cur.n) {
                break s.subprogram;
            }
            if path.len() > r.index.len() {
                return self.err(
                    cur.at,
                    format!("the scope chain through '!{}' is cyclic", cur.n),
                );
            }
            match self.node(r, cur)? {
                Node::Subprogram { name, line, file } => {
                    let file = self.file(r, file)?;
                    let sp = self.ir.debug_locs.add_subprogram(&name, line);
                    let s = Scope {
                        subprogram: sp,
                        discriminator: 0,
                        is_subprogram: true,
                        file,
                    };
                    r.scopes.insert(cur.n, s);
                    break sp;
                }
                Node::LexicalBlock { scope, file } => {
                    path.push((cur.n, 0, self.file(r, file)?));
                    cur = scope;
                }
                Node::LexicalBlockFile {
                    scope,
                    discriminator,
                    file,
                } => {
                    let file = self.file(r, file)?;
                    path.push((cur.n, base_discriminator(discriminator), file));
                    cur = scope;
                }
                other => {
                    return self.err(
                        cur.at,
                        format!(
                            "a location's scope must be a DISubprogram, DILexicalBlock or \
                             DILexicalBlockFile, '!{}' is {}",
                            cur.n,
                            other.kind()
                        ),
                    )
                }
            }
        };
        for (n, discriminator, file) in path {
            let s = Scope {
                subprogram: sp,
                discriminator,
                is_subprogram: false,
                file,
            };
            r.scopes.insert(n, s);
        }
        Ok(r.scopes[&first.n])
    }

    /// The row of a scope's `file:` (NONE when it has none); a reference that is not a
    /// `DIFile` is an error.
    fn file(&mut self, r: &mut Resolver, file: Option<MdRef>) -> Result<FileIdx, ParseError> {
        let Some(m) = file else {
            return Ok(FileIdx::NONE);
        };
        if let Some(&f) = r.files.get(&m.n) {
            return Ok(f);
        }
        let f = match self.node(r, m)? {
            Node::File { filename } => self.ir.debug_locs.add_file(&filename),
            other => {
                return self.err(
                    m.at,
                    format!(
                        "a scope's 'file:' must be a DIFile, '!{}' is {}",
                        m.n,
                        other.kind()
                    ),
                )
            }
        };
        r.files.insert(m.n, f);
        Ok(f)
    }

    /// Reads node `m` (an error when it is not defined).
    fn node(&mut self, r: &Resolver, m: MdRef) -> Result<Node<'a>, ParseError> {
        match r.index.get(&m.n) {
            Some(&p) => self.read_node(p),
            None => self.err(m.at, format!("use of undefined metadata '!{}'", m.n)),
        }
    }

    /// Reads the node that begins at `p`: `!N = [distinct] !Kind(field: value, ...)`.
    fn read_node(&mut self, p: Pos) -> Result<Node<'a>, ParseError> {
        self.seek(p);
        self.p.next();
        self.p.expect_punct("=")?;
        if self.p.is_word("distinct") {
            self.p.next();
        }
        let k = self.p.peek();
        let kind_text = self.text(k);
        let kind = match (k.kind, kind_text) {
            (Tk::Meta, "!DILocation") => Kind::Location,
            (Tk::Meta, "!DISubprogram") => Kind::Subprogram,
            (Tk::Meta, "!DILexicalBlock") => Kind::LexicalBlock,
            (Tk::Meta, "!DILexicalBlockFile") => Kind::LexicalBlockFile,
            (Tk::Meta, "!DIFile") => Kind::File,
            _ => return Ok(Node::Other(kind_text)),
        };
        self.p.next();
        let open = self.p.expect_punct("(")?;
        let mut f = Fields::default();
        if !self.p.eat_punct(")") {
            loop {
                let label = self.p.next();
                if label.kind != Tk::Label {
                    return self.err(
                        label,
                        format!(
                            "expected a field label ('name:') in {}, found {}",
                            &kind_text[1..],
                            self.p.describe(label)
                        ),
                    );
                }
                let name = self.text(label);
                let name = &name[..name.len() - 1];
                self.field(kind, name, label, &mut f)?;
                if self.p.eat_punct(",") {
                    continue;
                }
                let t = self.p.peek();
                if t.kind == Tk::Punct && self.text(t) == ")" {
                    self.p.next();
                    break;
                }
                return self.err(
                    t,
                    format!(
                        "expected ',' or ')' in {} (opened at {}:{}), found {}",
                        &kind_text[1..],
                        open.line,
                        open.col,
                        self.p.describe(t)
                    ),
                );
            }
        }
        let missing =
            |what: &str| format!("missing required field '{what}' in {}", &kind_text[1..]);
        Ok(match kind {
            Kind::Location => Node::Location {
                line: f.line.unwrap_or(0),
                column: f.column.unwrap_or(0),
                scope: match f.scope {
                    Some(s) => s,
                    None => return self.err(k, missing("scope")),
                },
                inlined_at: f.inlined_at,
            },
            Kind::Subprogram => {
                let linkage = f.linkage_name.unwrap_or_default();
                Node::Subprogram {
                    name: if linkage.is_empty() {
                        f.name.unwrap_or_default()
                    } else {
                        linkage
                    },
                    line: f.line.unwrap_or(0),
                    file: f.file,
                }
            }
            Kind::LexicalBlock => Node::LexicalBlock {
                scope: match f.scope {
                    Some(s) => s,
                    None => return self.err(k, missing("scope")),
                },
                file: f.file,
            },
            Kind::LexicalBlockFile => match (f.scope, f.discriminator) {
                (Some(scope), Some(discriminator)) => Node::LexicalBlockFile {
                    scope,
                    discriminator,
                    file: f.file,
                },
                (None, _) => return self.err(k, missing("scope")),
                (_, None) => return self.err(k, missing("discriminator")),
            },
            Kind::File => match f.filename {
                Some(filename) => Node::File { filename },
                None => return self.err(k, missing("filename")),
            },
        })
    }

    /// One field's value (after its label): the fields the locations need are checked
    /// as LLVM checks them; any other field's value is skipped.
    fn field(
        &mut self,
        kind: Kind,
        name: &str,
        label: Tok,
        f: &mut Fields,
    ) -> Result<(), ParseError> {
        use Kind::*;
        let file = self.p.file;
        let dup = |set: bool| -> Result<(), ParseError> {
            if set {
                Err(ParseError {
                    file: file.to_string(),
                    line: label.line,
                    column: label.col,
                    message: format!("field '{name}' cannot be specified more than once"),
                })
            } else {
                Ok(())
            }
        };
        match (kind, name) {
            (Location | Subprogram, "line") => {
                dup(f.line.is_some())?;
                f.line = Some(self.unsigned(name, u32::MAX as u64)? as u32);
            }
            (Location, "column") => {
                dup(f.column.is_some())?;
                f.column = Some(self.unsigned(name, u16::MAX as u64)? as u32);
            }
            (LexicalBlockFile, "discriminator") => {
                dup(f.discriminator.is_some())?;
                f.discriminator = Some(self.unsigned(name, u32::MAX as u64)? as u32);
            }
            (Location | LexicalBlock | LexicalBlockFile, "scope") => {
                dup(f.scope.is_some())?;
                match self.reference(name)? {
                    Some(r) => f.scope = Some(r),
                    None => return self.err(label, "'scope' cannot be null"),
                }
            }
            (Location, "inlinedAt") => {
                dup(f.inlined_at.is_some())?;
                f.inlined_at = self.reference(name)?;
            }
            (Subprogram, "name") => {
                dup(f.name.is_some())?;
                f.name = Some(self.string(name)?);
            }
            (Subprogram | LexicalBlock | LexicalBlockFile, "file") => {
                dup(f.file.is_some())?;
                f.file = self.reference(name)?;
            }
            (File, "filename") => {
                dup(f.filename.is_some())?;
                f.filename = Some(self.string(name)?);
            }
            (Subprogram, "linkageName") => {
                dup(f.linkage_name.is_some())?;
                f.linkage_name = Some(self.string(name)?);
            }
            _ => self.skip_value()?,
        }
        Ok(())
    }

    /// An unsigned integer value of field `name`, at most `max`.
    fn unsigned(&mut self, name: &str, max: u64) -> Result<u64, ParseError> {
        let t = self.p.next();
        let v = (t.kind == Tk::Num)
            .then(|| self.text(t).parse::<u64>().ok())
            .flatten();
        match v {
            Some(v) if v <= max => Ok(v),
            Some(_) => self.err(t, format!("value for '{name}' too large, limit is {max}")),
            None => self.err(
                t,
                format!(
                    "expected an unsigned integer for '{name}', found {}",
                    self.p.describe(t)
                ),
            ),
        }
    }

    /// A reference `!N` (or `null`) as the value of field `name`.
    fn reference(&mut self, name: &str) -> Result<Option<MdRef>, ParseError> {
        let t = self.p.next();
        if t.kind == Tk::Word && self.text(t) == "null" {
            return Ok(None);
        }
        if t.kind == Tk::Meta {
            if let Some(n) = md_number(self.text(t)) {
                return Ok(Some(MdRef { n, at: t }));
            }
        }
        let msg = if t.kind == Tk::Meta && self.p.is_punct("(") {
            format!("an inline node as '{name}' is not supported: expected a reference '!N'")
        } else {
            format!(
                "expected a metadata reference '!N' for '{name}', found {}",
                self.p.describe(t)
            )
        };
        self.err(t, msg)
    }

    /// A string value of field `name`.
    fn string(&mut self, name: &str) -> Result<String, ParseError> {
        let t = self.p.next();
        if t.kind != Tk::Str {
            return self.err(
                t,
                format!(
                    "expected a string for '{name}', found {}",
                    self.p.describe(t)
                ),
            );
        }
        let s = self.text(t);
        if s.len() < 2 || !s.ends_with('"') {
            return self.err(t, "unterminated string");
        }
        Ok(unescape(unquote(s)))
    }

    /// Skips a field value: tokens up to the next `,` or `)` outside brackets.
    fn skip_value(&mut self) -> Result<(), ParseError> {
        loop {
            let t = self.p.peek();
            match t.kind {
                Tk::Eof => return self.err(t, "unterminated metadata node"),
                Tk::Punct => match self.text(t) {
                    "," | ")" => return Ok(()),
                    "(" | "[" | "{" => self.p.skip_group()?,
                    _ => {
                        self.p.next();
                    }
                },
                _ => {
                    self.p.next();
                }
            }
        }
    }
}

/// A token standing for position `p` (for errors).
fn pos_tok(p: Pos) -> Tok {
    Tok {
        kind: Tk::Meta,
        start: p.start,
        end: p.start,
        line: p.line,
        col: p.col,
        nl_before: true,
    }
}

impl Builder<'_, '_> {
    /// Resolves the collected `!prof !N` attachments of terminators into
    /// the bodies' branch weights: node `!N` read as `!{!"branch_weights", i32 W, ...}`. Any other
    /// node (value profiles, an undefined number, a weight over 32 bits) is not branch
    /// weights and is left out, as BranchProbabilityInfo leaves it.
    pub(super) fn resolve_branch_weights(&mut self, md: &[Pos]) {
        if self.prof_terms.is_empty() {
            return;
        }
        let b = self.src.as_bytes();
        let mut at: AHashMap<u32, usize> = AHashMap::with_capacity(md.len());
        for &p in md {
            let start = p.start as usize;
            let mut end = start + 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            if let Some(n) = md_number(&self.src[start..end.min(b.len())]) {
                at.entry(n).or_insert(start);
            }
        }
        let mut weights: AHashMap<u32, Option<Box<[u32]>>> = AHashMap::new();
        for (f, row, n) in std::mem::take(&mut self.prof_terms) {
            let w = weights
                .entry(n)
                .or_insert_with(|| at.get(&n).and_then(|&p| branch_weights_at(self.src, p)));
            if let Some(w) = w {
                self.ir.bodies[f].set_branch_weights(row, w.clone());
            }
        }
    }
}

/// The weights of the node whose text starts at `start` if it is `!{!"branch_weights",
/// i32 W, ...}` (after `!N = `, possibly `distinct`).
fn branch_weights_at(src: &str, start: usize) -> Option<Box<[u32]>> {
    let line = src[start..].lines().next()?;
    let open = line.find("!{")?;
    let close = line[open..].find('}')? + open;
    let mut items = line[open + 2..close].split(',').map(str::trim);
    if items.next()? != "!\"branch_weights\"" {
        return None;
    }
    items
        .map(|it| {
            let v = it
                .strip_prefix("i32 ")
                .or_else(|| it.strip_prefix("i64 "))?;
            u32::try_from(v.trim().parse::<u64>().ok()?).ok()
        })
        .collect::<Option<Vec<u32>>>()
        .filter(|w| !w.is_empty())
        .map(Vec::into_boxed_slice)
}
