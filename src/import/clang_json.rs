//! Streaming importer of clang's JSON AST (`clang -Xclang -ast-dump=json`) into the IL.
//!
//! Reads whole dumps (0.2–1.4 GB) and the filtered dumps of the corpus (`.json` or
//! `.json.gz`) as a stream: a pull tokenizer ([`json`]) feeds one pass with an explicit stack
//! of open nodes, so nesting depth costs heap, not call stack, and nothing but the IL being
//! built (plus an id index of declarations) is kept. A node's entry is allocated when its
//! `inner` array starts (its attributes are known by then: clang prints `inner` last) or
//! when it closes; its children are attached in one batch when it closes.
//! That pass is `reader` (one module per concern, listed in its module doc).
//!
//! # References
//! Node ids (`"0x…"`) of declarations resolve through one hash index. An id referenced
//! before (or without) being dumped becomes a placeholder entry built from the inline
//! `{id, kind, name}`; the full node, when it comes, fills that same entry. A node dumped
//! several times (shared `OpaqueValueExpr`s, stubs under templates) is built once; later
//! copies are skipped and stand for the first. Redeclarations (`previousDecl`) of routines,
//! variables and templates share one entry, so a call through a prototype reaches the
//! definition's body. Member references to later ids, constructors (clang prints only
//! `ctorType`: resolved by class and signature) and builtin-variable properties are fixed
//! up after the pass.
//!
//! # Locations
//! clang prints `file` and `line` only when they change from the last printed location, so
//! locations are tracked in document order, skipped nodes included. Each file becomes a
//! `source_file_entry` (with the include tree from `includedFrom` or the filtered dumps'
//! `x-files`); each entry takes its position from its `loc` (expansion side of a macro
//! location) or its range begin.
//!
//! # Mapping
//!
//! | clang node | IL |
//! |---|---|
//! | TranslationUnitDecl | primary scope (`il.primary_scope`) |
//! | NamespaceDecl | namespace + scope (sck 3), in the parent scope's `namespaces` |
//! | LinkageSpecDecl, ExportDecl | transparent: members go to the enclosing scope (a `linkage_spec` entry is made) |
//! | FunctionDecl, CXXMethodDecl, CXXConstructorDecl, CXXDestructorDecl, CXXConversionDecl, CXXDeductionGuideDecl | routine (`special_kind` 0..5, `mangled_name`, storage class, routine type from the type string, params, body scope in its own function region, `ctor_inits`, attributes, template info) |
//! | ParmVarDecl | param_type in the routine's `params` (default argument as `default_arg`) |
//! | VarDecl (+ template specializations, DecompositionDecl) | variable: storage class 0 auto / 3 global / 4 extern / 5 static; `cuda_space` 1 `__device__`, 2 `__shared__`, 3 `__constant__`, 4 managed; initializer; locals in the body scope's `variables` |
//! | FieldDecl, MSPropertyDecl, IndirectFieldDecl | field in the class type's `fields` (MSPropertyDecl: the `x` of `threadIdx.x`) |
//! | RecordDecl, CXXRecordDecl, ClassTemplate(Partial)SpecializationDecl | type tk_class/tk_struct/tk_union with class_info, class scope (members), bases, template info; indexed by qualified name (`Name<args>` for specializations) |
//! | TypedefDecl, TypeAliasDecl | type tk_typeref over the aliased type |
//! | EnumDecl / EnumConstantDecl | type tk_integer (`format` 1) with `enum_constants` / integer constants with `name` |
//! | ClassTemplateDecl, FunctionTemplateDecl, VarTemplateDecl, TypeAliasTemplateDecl, ConceptDecl | template (`template_kind` 1..5) with `params`, the first templated decl as `pattern`; later ones are instantiations/specializations: `primary_template` and `template_info.template` point at the template, and they join the enclosing scope |
//! | ClassTemplatePartialSpecializationDecl | a template (`template_kind` 6) with its own params and the specialized record (indexed by its canonical spelling) as `pattern` |
//! | TemplateTypeParmDecl, NonTypeTemplateParmDecl, TemplateTemplateParmDecl | template_param (`param_kind` 0/1/2, depth, position, pack) |
//! | TemplateArgument | an argument of the owner's `template_info` (type or integer constant) |
//! | statements | statement with stmk_*: Compound 11, If 1, While 5, Do 12, For 13, range-for 14, Switch 16, Case/Default 15, Return 8, Goto 6, Label 7, Decl 20, Null/Break/Continue 10, asm 18, try 19, catch 23; expression children in `expr`/`expr2`, statement children in `stmts` (bare expressions wrapped in stmk_expr); AttributedStmt stands for its statement |
//! | expressions | expr_node: operators, calls, `<<<>>>` launches, member refs, casts, subscripts, `?:`, construct, init lists, SubstNonTypeTemplateParmExpr, dependent forms → enk_operation with `op` ([`kinds::op`]); DeclRefExpr → enk_variable/enk_routine/enk_constant with `entity`; literals → enk_constant with a constant (ck_integer/ck_float/ck_string); new/delete → enk_new_delete; lambda → enk_lambda typed by its closure class; sizeof/traits → enk_type_operand; throw → enk_throw. Paren/cleanup/temporary wrappers and ConstantExpr stand for their operand. `threadIdx.x` (PseudoObjectExpr) becomes a member reference to the field `x` of `__cuda_builtin_threadIdx_t` |
//! | attributes (`*Attr`) | attribute with `attr_kind` ([`kinds::attr_kind`]: the CUDA kinds of `il::kinds::attr`, implicit `__device__`/`__host__` apart, launch bounds, always_inline, aligned, …) and argument expressions |
//! | CXXCtorInitializer | constructor_init (member reference + init expression) in the routine's `ctor_inits` |
//! | UsingDecl, UsingShadowDecl, UsingDirectiveDecl | using_declaration |
//! | StaticAssertDecl | static_assert |
//! | type nodes (BuiltinType, …), comments | folded into the interned types of the type strings / skipped |
//! | anything else | name_reference with `clang_kind` and its children (`children`), counted in [`ImportReport::kinds`] — never an error |
//!
//! Types are strings in clang's JSON; [`types`] parses the type-printer syntax
//! (`desugaredQualType` first) into interned type entries.
//!
//! # Device code
//! [`mark_device`] finds what device compilation needs: roots are `__global__` kernels
//! (instantiations, never patterns) with bodies, namespace-scope device variables, and
//! (as clang emits them) externally visible non-inline `__device__` definitions; the call
//! closure follows every routine and variable referenced from kept bodies and initializers
//! (not the initializers of constexpr variables of arithmetic type: they are folded).
//! Those routines get `KeepDefinition`; [`crate::walk::keep::mark_from_parallel`] then marks
//! keep_in_il from them. The kept-routine list is their mangled names.
//!
//! Kept routines that clang does not define fall in three classes: always_inline routines
//! (`__forceinline__`, clang's `__DEVICE__` math wrappers), which clang inlines even at -O0
//! and drops; implicit special members of trivial classes, for which clang emits no
//! function; and `static constexpr __device__` functions used only in constant-evaluated
//! contexts, which clang folds.
//!
//! Complexity: O(bytes) tokenizing, O(nodes) building with hash lookups per reference and
//! per distinct type spelling. Memory: no document tree; besides the IL, a 64 KiB read
//! buffer, the id index of declarations (`ids.rs`, 12 bytes a slot) and the type-spelling
//! cache. The edge pool is compacted in place as the import goes (list pushes relocate
//! blocks; no second pool at the end), the id index and member tables are freed before
//! the last passes, and the name indexes share qualified names.
//!
//! numbers: PERF.md, section 'clang JSON import'

mod ids;
pub mod json;
pub mod kinds;
mod reader;
pub mod types;

pub use reader::rf;

use crate::il::{fields as F, stats, Eix, EntryKind, Flag, Il};
use crate::walk::keep::mark_from_parallel;
use std::io::{BufReader, Read, Write};
use std::path::Path;

/// What an import read and built.
#[derive(Clone, Debug, Default)]
pub struct ImportReport {
    /// Bytes of JSON read (decompressed).
    pub bytes: u64,
    /// AST nodes met (objects with a `kind`).
    pub nodes: u64,
    /// Live IL entries after the import.
    pub entries: u64,
    /// Per clang kind: `(name, nodes, opaque entries made)`, most frequent first.
    pub kinds: Vec<(String, u64, u64)>,
    /// Type references (type strings interned).
    pub type_refs: u64,
    /// Type references outside template patterns whose spelling names a type never
    /// resolved.
    pub unresolved_type_refs: u64,
    /// Type references inside template patterns (bodies and members of templates before
    /// instantiation) whose spelling names a type never resolved (dependent names that
    /// resolve are the dependent type, counted in `dependent_type_refs`).
    pub unresolved_type_refs_in_patterns: u64,
    /// Type references to dependent types inside templates.
    pub dependent_type_refs: u64,
    /// Unresolved names with their reference counts, most frequent first.
    pub unresolved_type_names: Vec<(String, u32)>,
    /// Placeholder entries made for ids referenced before being dumped.
    pub placeholders: u64,
    /// Ids referenced but never dumped (still placeholders at the end).
    pub dangling_ids: u64,
    /// Construct expressions whose constructor was not found.
    pub unresolved_ctor_refs: u64,
    /// Source files, by ordinal.
    pub files: Vec<String>,
}

impl ImportReport {
    /// Opaque entries made, total.
    pub fn opaque(&self) -> u64 {
        self.kinds.iter().map(|k| k.2).sum()
    }
    /// `unresolved_type_refs / type_refs` in percent.
    pub fn unresolved_pct(&self) -> f64 {
        100.0 * self.unresolved_type_refs as f64 / self.type_refs.max(1) as f64
    }
}

/// The result of an import: the report and the side tables device marking needs.
#[derive(Clone, Debug, Default)]
pub struct Import {
    /// What was read and built.
    pub report: ImportReport,
    /// Per routine row: [`rf`] bits.
    pub routine_flags: Vec<u16>,
    /// Per variable row: bit 0 = local to a function body, bit 1 = inside a template
    /// pattern, bit 2 = a static data member, bit 3 = constexpr.
    pub variable_flags: Vec<u8>,
    /// Source files, by ordinal (positions' `file`).
    pub files: Vec<String>,
}

/// An import error: file, byte offset and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// The file being read, if any.
    pub file: Option<String>,
    /// Byte offset in the (decompressed) input.
    pub offset: u64,
    /// What went wrong.
    pub msg: String,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{p}: byte {}: {}", self.offset, self.msg),
            None => write!(f, "byte {}: {}", self.offset, self.msg),
        }
    }
}

impl std::error::Error for ImportError {}

struct Counting<R> {
    inner: R,
    n: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n += k as u64;
        Ok(k)
    }
}

/// Imports a JSON AST from a reader into `il`.
///
/// # Errors
/// Malformed JSON (truncated, wrong types) gives an [`ImportError`] with the byte offset;
/// unknown node kinds and dangling ids never do.
pub fn import_reader<R: Read>(il: &mut Il, r: R) -> Result<Import, ImportError> {
    let mut lx = json::Lexer::new(Counting { inner: r, n: 0 });
    let mut b = reader::Builder::new(il);
    let res = b.run(&mut lx);
    let off = lx.offset();
    if let Err(reader::Fail(e)) = res {
        return Err(ImportError {
            file: None,
            offset: e.offset,
            msg: e.msg,
        });
    }
    b.finish(off).map_err(|e| ImportError {
        file: None,
        offset: off,
        msg: format!("IL error: {e}"),
    })
}

/// Imports `path` (`.json`, or gzip: by `.gz` suffix or magic bytes).
///
/// # Errors
/// I/O errors and malformed input, naming the file.
pub fn import_file(il: &mut Il, path: &Path) -> Result<Import, ImportError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| ImportError {
        file: Some(name.clone()),
        offset: 0,
        msg: e.to_string(),
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(io)?;
    drop(f);
    let f = std::fs::File::open(path).map_err(io)?;
    let gz = n == 2 && magic == [0x1f, 0x8b];
    let r = if gz {
        let d = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 20, f));
        import_reader(il, d)
    } else {
        import_reader(il, f)
    };
    r.map_err(|mut e| {
        e.file = Some(name.clone());
        e
    })
}

/// What device marking found.
#[derive(Clone, Debug, Default)]
pub struct DeviceKeep {
    /// Kernel roots (`__global__` with bodies, not patterns).
    pub kernel_roots: usize,
    /// Externally visible non-inline `__device__` definitions used as roots.
    pub strong_device_roots: usize,
    /// Namespace-scope device variables used as roots.
    pub variable_roots: usize,
    /// Routines whose definitions device code needs (the call closure), dense order.
    pub routines: Vec<Eix>,
    /// Entries marked keep_in_il.
    pub kept: usize,
    /// Live entries.
    pub live: usize,
    /// Kept entries per kind.
    pub kept_per_kind: Vec<(EntryKind, usize)>,
    /// Kept entries per source file ordinal (`u16::MAX` = none), most first.
    pub kept_per_file: Vec<(u16, usize)>,
}

/// Options of [`mark_device`].
#[derive(Clone, Copy, Debug)]
pub struct DeviceOptions {
    /// Also root externally visible, non-inline, non-template `__device__` definitions
    /// (clang emits them whether used or not).
    pub strong_device_roots: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            strong_device_roots: true,
        }
    }
}

fn rflags(imp: &Import, il: &Il, e: Eix) -> u16 {
    imp.routine_flags
        .get(il.row(e) as usize)
        .copied()
        .unwrap_or(0)
}

/// Marks device code: the call closure from the device roots gets `KeepDefinition`, and
/// keep_in_il is marked from it with [`mark_from_parallel`]. O(entries + edges).
pub fn mark_device(il: &mut Il, imp: &Import, opts: DeviceOptions) -> DeviceKeep {
    let mut out = DeviceKeep::default();
    let mut queue: Vec<Eix> = Vec::new();
    for &e in il.tables.routine.eix.iter() {
        if e.is_none() || !il.is_live(e) {
            continue;
        }
        let f = rflags(imp, il, e);
        if f & rf::BODY == 0 || f & rf::PATTERN != 0 {
            continue;
        }
        if f & rf::GLOBAL != 0 {
            out.kernel_roots += 1;
            queue.push(e);
        } else if opts.strong_device_roots
            && f & rf::DEVICE != 0
            && f & (rf::INLINE
                | rf::STATIC
                | rf::MEMBER
                | rf::INSTANCE
                | rf::INTERNAL
                | rf::ALWAYS_INLINE)
                == 0
        {
            out.strong_device_roots += 1;
            queue.push(e);
        }
    }
    for (row, &e) in il.tables.variable.eix.iter().enumerate() {
        if e.is_none() || !il.is_live(e) {
            continue;
        }
        let sc = il.tables.variable.storage_class[row];
        let vf = imp.variable_flags.get(row).copied().unwrap_or(0);
        if il.tables.variable.cuda_space[row] != 0 && (sc == 3 || sc == 5) && vf & 7 == 0 {
            out.variable_roots += 1;
            queue.push(e);
        }
    }
    // The call closure: walk owned children of kept code, never into types (class
    // members are reached only when referenced), following references to routines with
    // bodies and to variables (their initializers).
    let cap = il.capacity();
    let mut seen = crate::il::BitSet::default();
    seen.grow(cap);
    let mut closure: Vec<Eix> = Vec::new();
    let mut stack: Vec<Eix> = Vec::new();
    for &r in &queue {
        if seen.insert(r.idx()) {
            stack.push(r);
        }
    }
    while let Some(e) = stack.pop() {
        let k = il.kind(e);
        if k == EntryKind::Routine {
            let f = rflags(imp, il, e);
            if f & rf::BODY == 0 || f & rf::PATTERN != 0 {
                continue;
            }
            closure.push(e);
        }
        if k == EntryKind::Variable {
            // A constexpr arithmetic variable's initializer is constant-evaluated: the
            // routines it calls are folded, not emitted. (A constexpr function pointer still
            // needs its target.)
            let vf = imp
                .variable_flags
                .get(il.row(e) as usize)
                .copied()
                .unwrap_or(0);
            let scalar = il
                .child_eix(e, F::VARIABLE_TYPE)
                .map(|t| {
                    let t = types::Types::strip(il, t);
                    il.kind(t) == EntryKind::Type
                        && matches!(il.tables.r#type.type_kind[il.row(t) as usize], 2 | 3)
                })
                .unwrap_or(false);
            if vf & 8 != 0 && scalar {
                continue;
            }
        }
        for &c in il.children(e) {
            if c.is_none() || !il.is_live(c) {
                continue;
            }
            // Types own no code reached by calls; attribute arguments (launch bounds,
            // alignment) and static assertions are constant-evaluated.
            if matches!(
                il.kind(c),
                EntryKind::Type
                    | EntryKind::TemplateInfo
                    | EntryKind::Template
                    | EntryKind::Attribute
                    | EntryKind::StaticAssert
            ) {
                continue;
            }
            if seen.insert(c.idx()) {
                stack.push(c);
            }
        }
        for &r in il.refs(e) {
            if r.is_none() || !il.is_live(r) {
                continue;
            }
            if matches!(il.kind(r), EntryKind::Routine | EntryKind::Variable)
                && seen.insert(r.idx())
            {
                stack.push(r);
            }
        }
    }
    closure.sort_unstable();
    for &r in &closure {
        il.set_flag(r, Flag::KeepDefinition, true);
    }
    let mut roots = closure.clone();
    roots.extend(
        queue
            .iter()
            .copied()
            .filter(|&e| il.kind(e) == EntryKind::Variable),
    );
    out.kept = mark_from_parallel(il, roots);
    out.live = il.len();
    let mut per_kind = vec![0usize; 85];
    let mut per_file: ahash::AHashMap<u16, usize> = ahash::AHashMap::new();
    for i in il.flag_column(Flag::KeepInIl).iter() {
        let e = Eix(i as u32);
        if il.is_live(e) {
            per_kind[il.kind(e) as usize] += 1;
            *per_file.entry(il.pos(e).file).or_default() += 1;
        }
    }
    out.kept_per_kind = per_kind
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(k, &n)| (EntryKind::ALL[k], n))
        .collect();
    let mut pf: Vec<(u16, usize)> = per_file.into_iter().collect();
    pf.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out.kept_per_file = pf;
    out.routines = closure;
    out
}

/// The mangled names (the plain name when clang printed none) of the kept routines that
/// have bodies, sorted and deduplicated: the `--kept-routines` list.
pub fn kept_routine_names(il: &Il, dk: &DeviceKeep) -> Vec<String> {
    let mut v: Vec<String> = dk
        .routines
        .iter()
        .filter(|&&e| il.is_live(e) && il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_some())
        .map(|&e| {
            let m = il.string(e, 1);
            let b = if m.is_empty() { il.name(e) } else { m };
            String::from_utf8_lossy(b).into_owned()
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The [`rf`] bits of a routine as words (`always_inline implicit inline ...`).
pub fn routine_flag_words(bits: u16) -> String {
    const W: [(u16, &str); 13] = [
        (rf::BODY, "body"),
        (rf::PATTERN, "pattern"),
        (rf::GLOBAL, "global"),
        (rf::DEVICE, "device"),
        (rf::HOST, "host"),
        (rf::IMPLICIT_HD, "implicit_hd"),
        (rf::ALWAYS_INLINE, "always_inline"),
        (rf::INLINE, "inline"),
        (rf::STATIC, "static"),
        (rf::MEMBER, "member"),
        (rf::INSTANCE, "instance"),
        (rf::IMPLICIT, "implicit"),
        (rf::INTERNAL, "internal"),
    ];
    W.iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Kept routines with bodies as `(mangled name, rf bits)`, sorted by name: what
/// `--kept-routines-detail` writes, for classifying differences with clang.
pub fn kept_routine_table(il: &Il, imp: &Import, dk: &DeviceKeep) -> Vec<(String, u16)> {
    let mut v: Vec<(String, u16)> = dk
        .routines
        .iter()
        .filter(|&&e| il.is_live(e) && il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_some())
        .map(|&e| {
            let m = il.string(e, 1);
            let b = if m.is_empty() { il.name(e) } else { m };
            (String::from_utf8_lossy(b).into_owned(), rflags(imp, il, e))
        })
        .collect();
    v.sort();
    v.dedup_by(|a, b| a.0 == b.0);
    v
}

/// Writes the import report (kinds, opaque counts, types, ids).
pub fn write_import_report(r: &ImportReport, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "clang JSON: {} bytes, {} nodes, {} distinct kinds, {} IL entries",
        r.bytes,
        r.nodes,
        r.kinds.len(),
        r.entries
    )?;
    writeln!(
        out,
        "types: {} references, {} unresolved ({:.3}%) outside patterns, {} unresolved in patterns ({:.3}% of all), {} dependent; placeholders {}, dangling ids {}, unresolved constructors {}",
        r.type_refs,
        r.unresolved_type_refs,
        r.unresolved_pct(),
        r.unresolved_type_refs_in_patterns,
        100.0 * r.unresolved_type_refs_in_patterns as f64 / r.type_refs.max(1) as f64,
        r.dependent_type_refs,
        r.placeholders,
        r.dangling_ids,
        r.unresolved_ctor_refs
    )?;
    let opaque: Vec<_> = r.kinds.iter().filter(|k| k.2 > 0).collect();
    writeln!(
        out,
        "opaque entries: {} of {} kinds",
        r.opaque(),
        opaque.len()
    )?;
    for (n, _, o) in opaque.iter().take(20) {
        writeln!(out, "  {o:>8}  {n}")?;
    }
    if !r.unresolved_type_names.is_empty() {
        writeln!(out, "unresolved type names (top 10):")?;
        for (n, c) in r.unresolved_type_names.iter().take(10) {
            writeln!(out, "  {c:>8}  {n}")?;
        }
    }
    Ok(())
}

/// Writes the device-marking report: roots, kept entries per kind and per file, kept
/// routines by name.
pub fn write_keep_report(
    il: &Il,
    imp: &Import,
    dk: &DeviceKeep,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "device roots: {} kernels, {} strong __device__ definitions, {} variables",
        dk.kernel_roots, dk.strong_device_roots, dk.variable_roots
    )?;
    writeln!(
        out,
        "keep_in_il: {} of {} live entries; {} routines with definitions kept",
        dk.kept,
        dk.live,
        dk.routines.len()
    )?;
    writeln!(out, "kept per kind:")?;
    for (k, n) in &dk.kept_per_kind {
        writeln!(out, "  {n:>8}  {}", k.name())?;
    }
    writeln!(out, "kept per file (top 20):")?;
    for (f, n) in dk.kept_per_file.iter().take(20) {
        let name = imp
            .files
            .get(*f as usize)
            .map(|s| s.as_str())
            .unwrap_or("(none)");
        writeln!(out, "  {n:>8}  {name}")?;
    }
    writeln!(out, "kept routines:")?;
    for &e in &dk.routines {
        writeln!(out, "  {}", String::from_utf8_lossy(il.name(e)))?;
    }
    Ok(())
}

/// One file's numbers for a corpus scan (`ilkit scan` over `.json` / `.json.gz`).
#[derive(Clone, Debug, Default)]
pub struct ClangJsonSummary {
    /// JSON bytes read (decompressed).
    pub bytes: u64,
    /// AST nodes.
    pub nodes: u64,
    /// IL entries built.
    pub entries: u64,
    /// Opaque entries (unmapped clang kinds).
    pub opaque: u64,
    /// Type references, unresolved outside / inside template patterns.
    pub type_refs: u64,
    /// Unresolved type references outside template patterns.
    pub unresolved_type_refs: u64,
    /// Unresolved type references inside template patterns.
    pub unresolved_type_refs_in_patterns: u64,
    /// Ids referenced but never dumped.
    pub dangling_ids: u64,
    /// Kernel roots.
    pub kernels: usize,
    /// Entries marked keep_in_il.
    pub kept_entries: usize,
    /// Kept routines with bodies (the `--kept-routines` list).
    pub kept_routines: Vec<String>,
    /// Import time in seconds.
    pub import_seconds: f64,
}

/// Imports `path`, marks device code and returns the numbers a scan reports. The IL is
/// dropped; use [`import_file`] and [`mark_device`] to keep it.
///
/// # Errors
/// As [`import_file`].
pub fn summarize_file(path: &Path) -> Result<ClangJsonSummary, ImportError> {
    let mut il = Il::new();
    let t0 = std::time::Instant::now();
    let imp = import_file(&mut il, path)?;
    let import_seconds = t0.elapsed().as_secs_f64();
    let dk = mark_device(&mut il, &imp, DeviceOptions::default());
    let r = &imp.report;
    Ok(ClangJsonSummary {
        bytes: r.bytes,
        nodes: r.nodes,
        entries: r.entries,
        opaque: r.opaque(),
        type_refs: r.type_refs,
        unresolved_type_refs: r.unresolved_type_refs,
        unresolved_type_refs_in_patterns: r.unresolved_type_refs_in_patterns,
        dangling_ids: r.dangling_ids,
        kernels: dk.kernel_roots,
        kept_entries: dk.kept,
        kept_routines: kept_routine_names(&il, &dk),
        import_seconds,
    })
}

/// The `ilkit il keep|stats FILE.json[.gz]` part owned by this module:
///
/// - `il stats FILE.json` prints the import report, `dump_il_table_stats`, and the keep
///   report;
/// - `il keep FILE.json [--out OUT.il] [--kept-routines LIST.txt]` imports, marks device
///   code, prints the keep report and writes the kept-routine list (the binary IL writer is
///   wired by the caller; `--out` is accepted and ignored here).
///
/// Returns the process exit code (2 for usage errors, 1 for import errors).
pub fn cli_main(args: &[String]) -> i32 {
    let usage = "usage: ilkit il stats FILE.json[.gz] | ilkit il keep FILE.json[.gz] [--out OUT.il] [--kept-routines LIST.txt] [--kept-routines-detail LIST.tsv] [--no-strong-device-roots]";
    let mut it = args.iter().map(|s| s.as_str());
    let cmd = match it.next() {
        Some(c) if c == "stats" || c == "keep" => c,
        _ => {
            eprintln!("{usage}");
            return 2;
        }
    };
    let mut file = None;
    let mut list = None;
    let mut detail = None;
    let mut opts = DeviceOptions::default();
    while let Some(a) = it.next() {
        match a {
            "--out" => {
                let _ = it.next();
            }
            "--kept-routines" => list = it.next().map(|s| s.to_string()),
            "--kept-routines-detail" => detail = it.next().map(|s| s.to_string()),
            "--no-strong-device-roots" => opts.strong_device_roots = false,
            f if file.is_none() && !f.starts_with("--") => file = Some(f.to_string()),
            other => {
                eprintln!("unknown argument {other}\n{usage}");
                return 2;
            }
        }
    }
    let Some(file) = file else {
        eprintln!("{usage}");
        return 2;
    };
    let mut il = Il::new();
    let t0 = std::time::Instant::now();
    let imp = match import_file(&mut il, Path::new(&file)) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(
        out,
        "imported {file} in {secs:.2}s ({:.1} MB/s)",
        imp.report.bytes as f64 / 1e6 / secs.max(1e-9)
    );
    let _ = write_import_report(&imp.report, &mut out);
    if cmd == "stats" {
        let _ = stats::dump_il_table_stats(&il, 0, &mut out);
    }
    let dk = mark_device(&mut il, &imp, opts);
    let _ = write_keep_report(&il, &imp, &dk, &mut out);
    if let Some(d) = detail {
        let mut s = String::new();
        for (n, b) in kept_routine_table(&il, &imp, &dk) {
            s.push_str(&format!("{n}\t{}\n", routine_flag_words(b)));
        }
        if let Err(e) = std::fs::write(&d, s) {
            eprintln!("error: {d}: {e}");
            return 1;
        }
    }
    if let Some(l) = list {
        let names = kept_routine_names(&il, &dk);
        let mut s = names.join("\n");
        if !s.is_empty() {
            s.push('\n');
        }
        if let Err(e) = std::fs::write(&l, s) {
            eprintln!("error: {l}: {e}");
            return 1;
        }
    }
    0
}
