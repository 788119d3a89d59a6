//! Debug locations of call sites: the `DILocation`s that `!dbg` attachments on calls name,
//! their `inlinedAt` chains and the `DISubprogram`s their scopes lead to, in columnar
//! tables ([`DebugLocs`], reached as [`super::Ir::debug_locs`]).
//!
//! What LLVM 14's inline replay (`-cgscc-inline-replay`) keys its decisions by is a call
//! site's location printed by `llvm::formatCallSiteLocation`
//! ([`DebugLocs::format_callsite`]): for each location of the inlined-at chain, innermost
//! first and joined by `" @ "`, `Name:Offset[:Column][.Discriminator]`, where `Name` is the
//! subprogram's `linkageName:` (its `name:` when that is empty), `Offset` the line minus
//! the subprogram's `line:` as a wrapping `u32`, and the discriminator the base
//! discriminator, printed only when non-zero.
//!
//! # What is recorded
//! - **Locations** ([`DebugLocIdx`]): line, column, subprogram, base discriminator,
//!   inlined-at location (NONE at the end of a chain) and the file of the location's own
//!   scope ([`FileIdx`], a `DIFile`'s `filename:`), which LLVM's remarks print as
//!   `file:line:col` ([`DebugLocs::source_location`]). The `.ll` reader records the
//!   locations that `call` / `invoke` / `callbr` instructions name with `!dbg`, and their
//!   inlined-at chains; locations of other instructions are not read.
//! - **Subprograms** ([`SubprogramIdx`]): the name `formatCallSiteLocation` prints and the
//!   `line:`. Only what a location's scope chain (`DILexicalBlock`,
//!   `DILexicalBlockFile`, ...) or a function's own `!dbg` leads to is recorded.
//! - **Functions** ([`DebugLocs::func_subprogram`]): the `DISubprogram` a definition's
//!   `!dbg` names (what LLVM's inliner asks as "the callee has debug info"). The column is
//!   empty in a module without debug information and grows only as far as the last row
//!   that has one, so a module without `!dbg` pays nothing for it. A call's location is
//!   in its body's call table ([`super::body::CallInfo::dbg`]).
//!
//! The discriminator is `DILocation::getBaseDiscriminator()`: the `discriminator:` of the
//! location's own scope when that scope is a `DILexicalBlockFile` (0 otherwise, and a
//! `DILexicalBlockFile` further up the scope chain does not count), decoded from LLVM's
//! prefix encoding ([`base_discriminator`]: `discriminator: 2` in the text is base
//! discriminator 1). LLVM 14's flow-sensitive discriminators
//! (`-enable-fs-discriminator`, off by default) are not modelled.
//!
//! # Invariants
//! - the location columns are parallel, every location's subprogram is a row of the
//!   subprogram table, and its inlined-at location is an *earlier* row, so every chain is
//!   finite and acyclic by construction;
//! - the function column names existing rows (or NONE);
//! - the [`DebugLocs::inline_at`] cache maps to existing rows.
//!
//! [`DebugLocs::verify`] checks all of this.
//!
//! # Example
//! By hand: `leaf` (line 10) called at line 12, column 7 of `mid` (line 8), and `mid`
//! inlined into `main` (line 1) from line 3, column 5 of `main`; a discriminator in
//! `main`:
//! ```
//! use ilkit::llvm::ir::debugloc::{CallSiteFormat, DebugLoc, DebugLocs};
//! let mut d = DebugLocs::default();
//! let main = d.add_subprogram("main", 1);
//! let mid = d.add_subprogram("_ZL3midi", 8);
//! let call_in_mid = d.add_loc(DebugLoc::new(12, 7, mid));
//! let site = d.add_loc(DebugLoc { discriminator: 2, ..DebugLoc::new(3, 5, main) });
//! assert_eq!(d.format_callsite(site, CallSiteFormat::LineColumnDiscriminator), "main:2:5.2");
//! assert_eq!(d.format_callsite(site, CallSiteFormat::Line), "main:2");
//! // what inlining `mid` into `main` makes of the call inside `mid`
//! let cloned = d.inline_at(call_in_mid, site);
//! assert_eq!(
//!     d.format_callsite(cloned, CallSiteFormat::LineColumnDiscriminator),
//!     "_ZL3midi:4:7 @ main:2:5.2"
//! );
//! assert_eq!(d.inline_at(call_in_mid, site), cloned); // cached, not duplicated
//! assert!(d.verify().is_empty());
//! ```
//!
//! Read from LLVM IR text (the instruction view must be asked for):
//! ```
//! use ilkit::import::llvm_ir::ParseOptions;
//! use ilkit::llvm::ir::debugloc::CallSiteFormat;
//! let text = "define void @f() !dbg !4 {\n  call void @g(), !dbg !7\n  ret void\n}\n\
//!             declare void @g()\n\
//!             !4 = distinct !DISubprogram(name: \"f\", line: 3)\n\
//!             !7 = !DILocation(line: 5, column: 9, scope: !8)\n\
//!             !8 = !DILexicalBlockFile(scope: !4, discriminator: 4)\n";
//! let m = ilkit::llvm::Module::from_ll_str_with("t.ll", text, ParseOptions { instructions: true })
//!     .unwrap();
//! let ir = m.ir().unwrap();
//! let f = m.function_by_name("f").unwrap();
//! let body = ir.body(f);
//! let call = body.live_rows().find_map(|r| body.call_of(r)).unwrap();
//! let loc = call.dbg.unwrap();
//! assert_eq!(ir.debug_locs.format_callsite(loc, CallSiteFormat::default()), "f:2:9.2");
//! assert!(ir.debug_locs.func_subprogram(f).is_some());
//! ```
//!
//! # Complexity
//! Accessors are O(1); [`DebugLocs::format_callsite`] is linear in the chain;
//! [`DebugLocs::inline_at`] is one hash lookup when the pair was seen before, otherwise one
//! lookup and one new row per location of `loc`'s chain that has no copy for this call
//! site yet.

use crate::idx::IndexVec;
use crate::llvm::FuncIdx;
use ahash::AHashMap;
use std::fmt::Write as _;

crate::define_idx!(
    /// A debug location (a `DILocation`) of [`DebugLocs`].
    DebugLocIdx,
    "dl"
);
crate::define_idx!(
    /// A subprogram (a `DISubprogram`) of [`DebugLocs`].
    SubprogramIdx,
    "sp"
);
crate::define_idx!(
    /// A source file name (a `DIFile`'s `filename:`) of [`DebugLocs`].
    FileIdx,
    "file"
);

/// How a call site's location is printed: LLVM 14's `CallSiteFormat::Format`, the
/// values of `-cgscc-inline-replay-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CallSiteFormat {
    /// `Line`: `name:offset`.
    Line,
    /// `LineColumn`: `name:offset:column`.
    LineColumn,
    /// `LineDiscriminator`: `name:offset.discriminator` (the discriminator only when
    /// non-zero).
    LineDiscriminator,
    /// `LineColumnDiscriminator`: `name:offset:column.discriminator` (the discriminator
    /// only when non-zero). LLVM 14's default, and the form its inline remarks print after
    /// `at callsite`.
    #[default]
    LineColumnDiscriminator,
}

impl CallSiteFormat {
    /// Every format, in LLVM's order.
    pub const ALL: [CallSiteFormat; 4] = [
        CallSiteFormat::Line,
        CallSiteFormat::LineColumn,
        CallSiteFormat::LineDiscriminator,
        CallSiteFormat::LineColumnDiscriminator,
    ];

    /// The format of an option value (`Line`, `LineColumn`, `LineDiscriminator`,
    /// `LineColumnDiscriminator`, spelled as LLVM spells them).
    pub fn from_name(s: &str) -> Option<CallSiteFormat> {
        CallSiteFormat::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The option value naming this format.
    pub fn name(self) -> &'static str {
        match self {
            CallSiteFormat::Line => "Line",
            CallSiteFormat::LineColumn => "LineColumn",
            CallSiteFormat::LineDiscriminator => "LineDiscriminator",
            CallSiteFormat::LineColumnDiscriminator => "LineColumnDiscriminator",
        }
    }

    /// Prints the column (`CallSiteFormat::outputColumn`).
    pub fn output_column(self) -> bool {
        matches!(
            self,
            CallSiteFormat::LineColumn | CallSiteFormat::LineColumnDiscriminator
        )
    }

    /// Prints a non-zero discriminator (`CallSiteFormat::outputDiscriminator`).
    pub fn output_discriminator(self) -> bool {
        matches!(
            self,
            CallSiteFormat::LineDiscriminator | CallSiteFormat::LineColumnDiscriminator
        )
    }
}

/// LLVM's base discriminator of a raw `discriminator:` value
/// (`getUnsignedFromPrefixEncoding`): 0 when the low bit is set, otherwise the value
/// after it, in 5 bits or, with bit 6 set, 12 bits.
///
/// ```
/// use ilkit::llvm::ir::debugloc::base_discriminator;
/// assert_eq!(base_discriminator(0), 0);
/// assert_eq!(base_discriminator(2), 1);
/// assert_eq!(base_discriminator(8), 4);
/// assert_eq!(base_discriminator(3), 0); // an empty base component
/// assert_eq!(base_discriminator(0x3e), 31);
/// assert_eq!(base_discriminator(0xc0), 32); // 32 and up take 12 bits
/// ```
pub fn base_discriminator(raw: u32) -> u32 {
    if raw & 1 != 0 {
        return 0;
    }
    let u = raw >> 1;
    if u & 0x20 != 0 {
        ((u >> 1) & 0xfe0) | (u & 0x1f)
    } else {
        u & 0x1f
    }
}

/// One location, as given to [`DebugLocs::add_loc`] and returned by [`DebugLocs::get`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DebugLoc {
    /// `line:`.
    pub line: u32,
    /// `column:`.
    pub column: u32,
    /// The subprogram the scope chain leads to.
    pub subprogram: SubprogramIdx,
    /// The base discriminator ([`base_discriminator`] of the scope's `discriminator:`).
    pub discriminator: u32,
    /// `inlinedAt:`: the location this one was inlined at, if any.
    pub inlined_at: Option<DebugLocIdx>,
    /// The file of the location's own scope (`DILocation::getFile()`), NONE when the
    /// scope names none.
    pub file: FileIdx,
}

impl DebugLoc {
    /// A location without discriminator or inlined-at location.
    pub fn new(line: u32, column: u32, subprogram: SubprogramIdx) -> DebugLoc {
        DebugLoc {
            line,
            column,
            subprogram,
            discriminator: 0,
            inlined_at: None,
            file: FileIdx::NONE,
        }
    }
}

/// The debug locations of a module's call sites (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct DebugLocs {
    line: IndexVec<DebugLocIdx, u32>,
    column: IndexVec<DebugLocIdx, u32>,
    subprogram: IndexVec<DebugLocIdx, SubprogramIdx>,
    discriminator: IndexVec<DebugLocIdx, u32>,
    inlined_at: IndexVec<DebugLocIdx, DebugLocIdx>,
    file: IndexVec<DebugLocIdx, FileIdx>,
    /// File names, concatenated as the subprogram names are.
    file_names: String,
    file_start: Vec<u32>,
    /// Subprogram names, concatenated; subprogram `s` is
    /// `sp_names[sp_name_start[s]..sp_name_start[s + 1]]` (`sp_name_start` has an end row
    /// once the table is non-empty).
    sp_names: String,
    sp_name_start: Vec<u32>,
    sp_line: IndexVec<SubprogramIdx, u32>,
    /// Per function up to the last one that has a subprogram.
    func_sp: IndexVec<FuncIdx, SubprogramIdx>,
    /// `(loc, call site)` → the copy of `loc` inlined at the call site.
    inline_cache: AHashMap<(DebugLocIdx, DebugLocIdx), DebugLocIdx>,
}

/// Two tables are equal when their rows are; the [`DebugLocs::inline_at`] cache is not
/// compared.
impl PartialEq for DebugLocs {
    fn eq(&self, o: &DebugLocs) -> bool {
        self.line == o.line
            && self.column == o.column
            && self.subprogram == o.subprogram
            && self.discriminator == o.discriminator
            && self.inlined_at == o.inlined_at
            && self.file == o.file
            && self.file_names == o.file_names
            && self.file_start == o.file_start
            && self.sp_names == o.sp_names
            && self.sp_name_start == o.sp_name_start
            && self.sp_line == o.sp_line
            && self.func_sp == o.func_sp
    }
}

impl Eq for DebugLocs {}

impl DebugLocs {
    // ------------------------------------------------------------ building

    /// Adds a subprogram: `name` is what [`DebugLocs::format_callsite`] prints for it
    /// (LLVM's `linkageName:` when non-empty, else `name:`), `line` its `line:`.
    pub fn add_subprogram(&mut self, name: &str, line: u32) -> SubprogramIdx {
        if self.sp_name_start.is_empty() {
            self.sp_name_start.push(0);
        }
        self.sp_names.push_str(name);
        self.sp_name_start.push(self.sp_names.len() as u32);
        self.sp_line.push(line)
    }

    /// Adds a source file name (what a remark's `file:line:col` prefix prints).
    pub fn add_file(&mut self, name: &str) -> FileIdx {
        if self.file_start.is_empty() {
            self.file_start.push(0);
        }
        self.file_names.push_str(name);
        self.file_start.push(self.file_names.len() as u32);
        FileIdx::new(self.file_start.len() - 2)
    }

    /// Adds a location.
    ///
    /// # Panics
    /// If its subprogram is not a row of the table or its inlined-at location is not an
    /// existing location (which keeps every chain acyclic).
    pub fn add_loc(&mut self, loc: DebugLoc) -> DebugLocIdx {
        assert!(
            loc.subprogram.idx() < self.sp_line.len(),
            "{} is not a subprogram of the table",
            loc.subprogram
        );
        let ia = loc.inlined_at.unwrap_or(DebugLocIdx::NONE);
        assert!(
            ia.is_none() || ia.idx() < self.line.len(),
            "inlined-at location {ia} does not exist"
        );
        assert!(
            loc.file.is_none() || loc.file.idx() + 1 < self.file_start.len(),
            "{} is not a file of the table",
            loc.file
        );
        self.file.push(loc.file);
        self.column.push(loc.column);
        self.subprogram.push(loc.subprogram);
        self.discriminator.push(loc.discriminator);
        self.inlined_at.push(ia);
        self.line.push(loc.line)
    }

    /// The location of `loc` inlined at `call_site`: a copy of `loc` whose inlined-at
    /// chain ends with `call_site` (and `call_site`'s own chain), as LLVM's inliner builds
    /// the location of every instruction it clones (`inlineDebugLoc` /
    /// `DebugLoc::appendInlinedAt`). Line, column, subprogram and discriminator of each
    /// copied location are unchanged.
    ///
    /// Cached: the same `(loc, call_site)` pair gives the same row, and locations of one
    /// chain share the copies of their common tail, so inlining a body adds at most one row
    /// per distinct location of it (per call site), as LLVM's per-call-site `IANodes`
    /// cache does.
    ///
    /// Cost: one hash lookup on a hit; otherwise one lookup and one new row per location
    /// of `loc`'s chain whose copy for `call_site` does not exist yet.
    ///
    /// For an inliner reproducing LLVM 14 (`fixupLineNumbers`): when the call has no
    /// location, cloned instructions keep theirs unchanged; a cloned instruction without a
    /// location stays without one if the callee has a subprogram
    /// ([`DebugLocs::func_subprogram`]), and takes the call's location otherwise; a caller
    /// with `"no-inline-line-tables"` gives every cloned instruction the call's location.
    /// LLVM makes `call_site` a *distinct* copy per inlined call; rows here are compared by
    /// content when formatted, so that is not modelled.
    ///
    /// # Panics
    /// If either location is not a row of the table.
    pub fn inline_at(&mut self, loc: DebugLocIdx, call_site: DebugLocIdx) -> DebugLocIdx {
        assert!(
            loc.idx() < self.line.len() && call_site.idx() < self.line.len(),
            "inline_at({loc}, {call_site}): not locations of the table"
        );
        // The prefix of the chain without a copy for this call site yet.
        let mut todo: Vec<DebugLocIdx> = Vec::new();
        let mut tail = call_site;
        let mut cur = loc.some();
        while let Some(l) = cur {
            if let Some(&c) = self.inline_cache.get(&(l, call_site)) {
                tail = c;
                break;
            }
            todo.push(l);
            cur = self.inlined_at[l].some();
        }
        for &l in todo.iter().rev() {
            let copy = self.add_loc(DebugLoc {
                inlined_at: Some(tail),
                ..self.get(l)
            });
            self.inline_cache.insert((l, call_site), copy);
            tail = copy;
        }
        tail
    }

    /// [`DebugLocs::inline_at`] without adding rows: the copy of `loc` inlined at
    /// `call_site` when the table already has it, `None` when it would have to be made.
    pub fn inlined_copy(&self, loc: DebugLocIdx, call_site: DebugLocIdx) -> Option<DebugLocIdx> {
        self.inline_cache.get(&(loc, call_site)).copied()
    }

    /// Sets the subprogram of function `f` (`None` removes it).
    ///
    /// # Panics
    /// If `sp` is not a row of the table.
    pub fn set_func_subprogram(&mut self, f: FuncIdx, sp: Option<SubprogramIdx>) {
        match sp {
            Some(s) => {
                assert!(s.idx() < self.sp_line.len(), "{s} is not a subprogram");
                if self.func_sp.len() <= f.idx() {
                    self.func_sp.resize(f.idx() + 1, SubprogramIdx::NONE);
                }
                self.func_sp[f] = s;
            }
            None => {
                if let Some(x) = self.func_sp.get_mut(f) {
                    *x = SubprogramIdx::NONE;
                }
            }
        }
    }

    // ------------------------------------------------------------ reading

    /// Number of locations.
    pub fn num_locs(&self) -> usize {
        self.line.len()
    }

    /// Number of subprograms.
    pub fn num_subprograms(&self) -> usize {
        self.sp_line.len()
    }

    /// No locations and no subprograms (a module without debug information).
    pub fn is_empty(&self) -> bool {
        self.line.is_empty() && self.sp_line.is_empty()
    }

    /// Every location.
    pub fn locs(&self) -> impl Iterator<Item = DebugLocIdx> + Clone {
        self.line.indices()
    }

    /// Location `l`'s row.
    pub fn get(&self, l: DebugLocIdx) -> DebugLoc {
        DebugLoc {
            line: self.line[l],
            column: self.column[l],
            subprogram: self.subprogram[l],
            discriminator: self.discriminator[l],
            inlined_at: self.inlined_at[l].some(),
            file: self.file[l],
        }
    }

    /// The file name of `l`'s scope, if it names one.
    pub fn filename(&self, l: DebugLocIdx) -> Option<&str> {
        let f = self.file[l].some()?;
        Some(
            &self.file_names
                [self.file_start[f.idx()] as usize..self.file_start[f.idx() + 1] as usize],
        )
    }

    /// `file:line:column` of `l`, as LLVM's diagnostics print a location
    /// (`DiagnosticInfoWithLocationBase::getLocationStr`: the scope's file name as
    /// written, the location's own line and column, not its inlined-at ones).
    pub fn source_location(&self, l: DebugLocIdx) -> String {
        format!(
            "{}:{}:{}",
            self.filename(l).unwrap_or(""),
            self.line[l],
            self.column[l]
        )
    }

    /// `line:` of `l`.
    #[inline]
    pub fn line(&self, l: DebugLocIdx) -> u32 {
        self.line[l]
    }

    /// `column:` of `l`.
    #[inline]
    pub fn column(&self, l: DebugLocIdx) -> u32 {
        self.column[l]
    }

    /// The subprogram of `l`.
    #[inline]
    pub fn subprogram(&self, l: DebugLocIdx) -> SubprogramIdx {
        self.subprogram[l]
    }

    /// The base discriminator of `l`.
    #[inline]
    pub fn discriminator(&self, l: DebugLocIdx) -> u32 {
        self.discriminator[l]
    }

    /// The location `l` was inlined at, if any.
    #[inline]
    pub fn inlined_at(&self, l: DebugLocIdx) -> Option<DebugLocIdx> {
        self.inlined_at[l].some()
    }

    /// `l` and its inlined-at locations, innermost first.
    pub fn chain(&self, l: DebugLocIdx) -> impl Iterator<Item = DebugLocIdx> + '_ {
        std::iter::successors(l.some(), move |&x| self.inlined_at[x].some())
    }

    /// The name `formatCallSiteLocation` prints for subprogram `s`.
    pub fn subprogram_name(&self, s: SubprogramIdx) -> &str {
        &self.sp_names
            [self.sp_name_start[s.idx()] as usize..self.sp_name_start[s.idx() + 1] as usize]
    }

    /// `line:` of subprogram `s`.
    #[inline]
    pub fn subprogram_line(&self, s: SubprogramIdx) -> u32 {
        self.sp_line[s]
    }

    /// The subprogram function `f`'s `!dbg` names, if it has one.
    #[inline]
    pub fn func_subprogram(&self, f: FuncIdx) -> Option<SubprogramIdx> {
        self.func_sp.get(f).and_then(|s| s.some())
    }

    /// Rows of the function column (at most the number of functions).
    pub fn func_rows(&self) -> usize {
        self.func_sp.len()
    }

    // ------------------------------------------------------------ formatting

    /// LLVM 14's `formatCallSiteLocation(loc, format)`: for each location of `loc`'s
    /// inlined-at chain, joined by `" @ "`, `name:offset`, then `:column` when the format
    /// has columns, then `.discriminator` when the format has discriminators and it is
    /// non-zero. `offset` is the line minus the subprogram's line as a wrapping `u32`
    /// (a call above its subprogram's line prints as `4294967294`, as LLVM does). NONE
    /// (no location) gives `""`, as LLVM's null `DebugLoc` does.
    pub fn format_callsite(&self, loc: DebugLocIdx, format: CallSiteFormat) -> String {
        let mut out = String::new();
        self.write_callsite(&mut out, loc, format);
        out
    }

    /// [`DebugLocs::format_callsite`] appended to `out`.
    pub fn write_callsite(&self, out: &mut String, loc: DebugLocIdx, format: CallSiteFormat) {
        for (k, l) in self.chain(loc).enumerate() {
            if k > 0 {
                out.push_str(" @ ");
            }
            let sp = self.subprogram[l];
            let offset = self.line[l].wrapping_sub(self.sp_line[sp]);
            out.push_str(self.subprogram_name(sp));
            let _ = write!(out, ":{offset}");
            if format.output_column() {
                let _ = write!(out, ":{}", self.column[l]);
            }
            let d = self.discriminator[l];
            if format.output_discriminator() && d != 0 {
                let _ = write!(out, ".{d}");
            }
        }
    }

    // ------------------------------------------------------------ checking

    /// Checks the invariants of the module docs; returns every problem found.
    pub fn verify(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let n = self.line.len();
        for (what, len) in [
            ("column", self.column.len()),
            ("subprogram", self.subprogram.len()),
            ("discriminator", self.discriminator.len()),
            ("inlined_at", self.inlined_at.len()),
            ("file", self.file.len()),
        ] {
            if len != n {
                errs.push(format!("location column {what} has {len} rows, not {n}"));
            }
        }
        if !errs.is_empty() {
            return errs;
        }
        let ns = self.sp_line.len();
        let names_ok = if ns == 0 {
            self.sp_name_start.is_empty() && self.sp_names.is_empty()
        } else {
            self.sp_name_start.len() == ns + 1
                && self.sp_name_start[0] == 0
                && self.sp_name_start.windows(2).all(|w| w[0] <= w[1])
                && self.sp_name_start[ns] as usize == self.sp_names.len()
                && self
                    .sp_name_start
                    .iter()
                    .all(|&s| self.sp_names.is_char_boundary(s as usize))
        };
        if !names_ok {
            errs.push("subprogram name offsets do not cover the names".into());
            return errs;
        }
        let nf = self.file_start.len().saturating_sub(1);
        let files_ok = self.file_start.is_empty() && self.file_names.is_empty()
            || (self.file_start[0] == 0
                && self.file_start.windows(2).all(|w| w[0] <= w[1])
                && self.file_start[nf] as usize == self.file_names.len()
                && self
                    .file_start
                    .iter()
                    .all(|&s| self.file_names.is_char_boundary(s as usize)));
        if !files_ok {
            errs.push("file name offsets do not cover the names".into());
            return errs;
        }
        for l in self.line.indices() {
            let f = self.file[l];
            if !f.is_none() && f.idx() >= nf {
                errs.push(format!("{l}: file {f} out of range"));
            }
            if self.subprogram[l].idx() >= ns {
                errs.push(format!(
                    "{l}: subprogram {} out of range",
                    self.subprogram[l]
                ));
            }
            let ia = self.inlined_at[l];
            if !ia.is_none() && ia.idx() >= l.idx() {
                errs.push(format!("{l}: inlined-at {ia} is not an earlier location"));
            }
        }
        for (f, &s) in self.func_sp.iter_enumerated() {
            if !s.is_none() && s.idx() >= ns {
                errs.push(format!("{f}: subprogram {s} out of range"));
            }
        }
        for (&(l, site), &copy) in &self.inline_cache {
            if l.idx() >= n || site.idx() >= n || copy.idx() >= n {
                errs.push(format!("inline cache ({l}, {site}) -> {copy} out of range"));
            }
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> (DebugLocs, [DebugLocIdx; 3]) {
        let mut d = DebugLocs::default();
        let main = d.add_subprogram("main", 20);
        let mid = d.add_subprogram("mid", 10);
        let leaf = d.add_subprogram("_Z4leafi", 2);
        let in_leaf = d.add_loc(DebugLoc::new(4, 3, leaf));
        let in_mid = d.add_loc(DebugLoc {
            discriminator: 3,
            ..DebugLoc::new(12, 9, mid)
        });
        let in_main = d.add_loc(DebugLoc::new(21, 5, main));
        (d, [in_leaf, in_mid, in_main])
    }

    #[test]
    fn formats_every_field() {
        let (d, [_, in_mid, _]) = table();
        let got: Vec<String> = CallSiteFormat::ALL
            .iter()
            .map(|&f| d.format_callsite(in_mid, f))
            .collect();
        assert_eq!(got, ["mid:2", "mid:2:9", "mid:2.3", "mid:2:9.3"]);
        assert_eq!(
            d.format_callsite(DebugLocIdx::NONE, CallSiteFormat::Line),
            ""
        );
        for f in CallSiteFormat::ALL {
            assert_eq!(CallSiteFormat::from_name(f.name()), Some(f));
        }
        assert_eq!(CallSiteFormat::from_name("line"), None);
    }

    #[test]
    fn negative_offsets_wrap() {
        let mut d = DebugLocs::default();
        let s = d.add_subprogram("f", 3);
        let l = d.add_loc(DebugLoc::new(1, 10, s));
        assert_eq!(
            d.format_callsite(l, CallSiteFormat::LineColumn),
            "f:4294967294:10"
        );
    }

    #[test]
    fn inline_chains_append_and_share() {
        let (mut d, [in_leaf, in_mid, in_main]) = table();
        let f = CallSiteFormat::LineColumnDiscriminator;
        // leaf's call inlined into mid, then that copy inlined into main
        let a = d.inline_at(in_leaf, in_mid);
        assert_eq!(d.format_callsite(a, f), "_Z4leafi:2:3 @ mid:2:9.3");
        let b = d.inline_at(a, in_main);
        assert_eq!(
            d.format_callsite(b, f),
            "_Z4leafi:2:3 @ mid:2:9.3 @ main:1:5"
        );
        // mid's own call inlined into main first: the copy of `in_mid` is shared
        let rows = d.num_locs();
        let c = d.inline_at(in_mid, in_main);
        assert_eq!(d.num_locs(), rows, "the copy of in_mid was made for `b`");
        assert_eq!(d.inlined_at(b), Some(c));
        assert_eq!(d.inline_at(a, in_main), b);
        assert_eq!(d.chain(b).count(), 3);
        assert!(d.verify().is_empty(), "{:?}", d.verify());
    }

    #[test]
    fn function_column_grows_lazily() {
        let (mut d, _) = table();
        assert_eq!(d.func_rows(), 0);
        d.set_func_subprogram(FuncIdx(1), Some(SubprogramIdx(0)));
        assert_eq!(d.func_subprogram(FuncIdx(1)), Some(SubprogramIdx(0)));
        assert_eq!(d.func_subprogram(FuncIdx(0)), None);
        assert_eq!(d.func_rows(), 2);
        assert!(d.verify().is_empty());
    }

    #[test]
    fn verify_finds_broken_rows() {
        let (mut d, _) = table();
        d.inlined_at[DebugLocIdx(0)] = DebugLocIdx(2);
        d.subprogram[DebugLocIdx(1)] = SubprogramIdx(9);
        let errs = d.verify();
        assert_eq!(errs.len(), 2, "{errs:?}");
    }

    #[test]
    fn equality_ignores_the_cache() {
        let (mut a, [l, s, _]) = table();
        let b = a.clone();
        a.inline_at(l, s);
        assert_ne!(a, b);
        let (mut c, _) = table();
        c.inline_cache.insert((l, s), l);
        let (d, _) = table();
        assert_eq!(c, d);
    }
}
