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
//! | FunctionDecl, CXXMethodDecl, CXXConstructorDecl, CXXDestructorDecl, CXXConversionDecl, CXXDeductionGuideDecl | routine (`special_kind` a `RoutineSpecialKind`: function, method, constructor, destructor, conversion, deduction guide; `mangled_name`, storage class, routine type from the type string, params, body scope in its own function region, `ctor_inits`, attributes, template info) |
//! | ParmVarDecl | param_type in the routine's `params` (default argument as `default_arg`) |
//! | VarDecl (+ template specializations, DecompositionDecl) | variable: storage class 0 auto / 3 global / 4 extern / 5 static; `cuda_space` 1 `__device__`, 2 `__shared__`, 3 `__constant__`, 4 managed; initializer; locals in the body scope's `variables` |
//! | FieldDecl, MSPropertyDecl, IndirectFieldDecl | field in the class type's `fields` (MSPropertyDecl: the `x` of `threadIdx.x`) |
//! | RecordDecl, CXXRecordDecl, ClassTemplate(Partial)SpecializationDecl | type tk_class/tk_struct/tk_union with class_info, class scope (members), bases, template info; indexed by qualified name (`Name<args>` for specializations) |
//! | TypedefDecl, TypeAliasDecl | type tk_typeref over the aliased type |
//! | EnumDecl / EnumConstantDecl | type tk_integer (`format` 1) with `enum_constants` / integer constants with `name` |
//! | ClassTemplateDecl, FunctionTemplateDecl, VarTemplateDecl, TypeAliasTemplateDecl, ConceptDecl | template (`template_kind` a `TemplateKind`: class, function, variable, alias, concept) with `params`, the first templated decl as `pattern`; later ones are instantiations/specializations: `primary_template` and `template_info.template` point at the template, and they join the enclosing scope |
//! | ClassTemplatePartialSpecializationDecl | a template (`TemplateKind::PartialSpecialization`) with its own params and the specialized record (indexed by its canonical spelling) as `pattern` |
//! | TemplateTypeParmDecl, NonTypeTemplateParmDecl, TemplateTemplateParmDecl | template_param (`param_kind` a `TemplateParamKind`: type, non-type, template; depth, position, pack) |
//! | TemplateArgument | an argument of the owner's `template_info` (type or integer constant; a pack, `"isPack": true`, is a `template_info` of its own listing the elements) |
//! | statements | statement with stmk_*: Compound 11, If 1, While 5, Do 12, For 13, range-for 14, Switch 16, Case/Default 15, Return 8, Goto 6, Label 7, Decl 20, Null/Break/Continue 10, asm 18, try 19, catch 23; expression children in `expr`/`expr2`, statement children in `stmts` (bare expressions wrapped in stmk_expr); AttributedStmt stands for its statement |
//! | expressions | expr_node: operators, calls, `<<<>>>` launches, member refs, casts, subscripts, `?:`, construct, init lists, SubstNonTypeTemplateParmExpr, dependent forms → enk_operation with `op` (an [`crate::il::Op`]: the seed's operator numbers where it gives them, [`kinds::BINARY_OPS`] / [`kinds::UNARY_OPS`] map clang's spellings); DeclRefExpr → enk_variable/enk_routine/enk_constant with `entity`; literals → enk_constant with a constant (ck_integer/ck_float/ck_string); new/delete → enk_new_delete; lambda → enk_lambda typed by its closure class; sizeof/traits → enk_type_operand; throw → enk_throw. Paren/cleanup/temporary wrappers and ConstantExpr stand for their operand. `threadIdx.x` (PseudoObjectExpr) becomes a member reference to the field `x` of `__cuda_builtin_threadIdx_t` |
//! | attributes (`*Attr`) | attribute with `attr_kind` ([`kinds::attr_kind::of`]: an [`crate::il::AttrKind`], the CUDA kinds, implicit `__device__`/`__host__` apart, launch bounds, always_inline, aligned, …) and argument expressions |
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
//! [`mark_device`](crate::walk::device::mark_device) finds what device compilation needs: roots are `__global__` kernels
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

use crate::il::Il;
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
    /// Function bodies whose region the import closed ([`Bodies::Device`]).
    pub bodies_closed: u64,
    /// Edges into closed bodies cleared at the end of the import (a routine's body scope,
    /// references from kept code to a closed body's entries).
    pub edges_cut: u64,
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

/// The result of an import: the report and the source files. Everything device marking
/// needs is in the world itself (`decl_flags`; see [`crate::walk::device`]).
#[derive(Clone, Debug, Default)]
pub struct Import {
    /// What was read and built.
    pub report: ImportReport,
    /// Source files, by ordinal (positions' `file`).
    pub files: Vec<String>,
    /// Every literal's constant with clang's own type and value, when
    /// [`ImportOptions::record_literals`] asked for them (empty otherwise).
    pub literals: Vec<LiteralOrigin>,
}

/// What an import keeps beyond the IL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Keep, per literal (`IntegerLiteral`, `CharacterLiteral`, `CXXBoolLiteralExpr`,
    /// `FloatingLiteral`, `StringLiteral`, null literals), its constant with clang's
    /// canonical type spelling and value: the oracle of
    /// [`crate::share::check::check_sharing`].
    pub record_literals: bool,
    /// Which function bodies outlive the import.
    pub bodies: Bodies,
}

/// Which function bodies the import keeps.
///
/// Each body is allocated in a function region of its own (seed 001's lifecycle). Under
/// [`Bodies::Device`] the region of a body that device compilation cannot need — a
/// routine with neither `__global__`, `__device__` nor clang's implicit host-device
/// attributes (constexpr functions, lambdas, inferred special members) — is closed when
/// the body ends: its entries are freed, the free lists cleared, and the edges other
/// regions hold into it (the routine's body scope, a static local's initializer) cleared
/// as it closes (any left are swept at the end of the import); the routine stays, as a
/// declaration with its
/// definition's facts. Device-capable bodies keep their regions open for the device IL's
/// walks. [`Bodies::All`] keeps every region open: what comparison, sharing and the
/// instantiation check read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bodies {
    /// Every body stays (the default).
    #[default]
    All,
    /// Only bodies device compilation may need stay; host-only bodies are freed when
    /// they end.
    Device,
}

/// A literal as clang wrote it, with the constant the import made of it (the sharing
/// check's record, [`crate::share::check`]).
pub use crate::share::check::LiteralOrigin;

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
    import_reader_with(il, r, ImportOptions::default())
}

/// [`import_reader`] keeping what `opts` asks for.
///
/// # Errors
/// As [`import_reader`].
pub fn import_reader_with<R: Read>(
    il: &mut Il,
    r: R,
    opts: ImportOptions,
) -> Result<Import, ImportError> {
    let device = opts.bodies == Bodies::Device;
    if device {
        // Ids of freed bodies stay dead until every pending reference has been resolved.
        il.hold_freed_indices();
    }
    let before = il.counters.region_edges_cleared;
    let res = import_pass(il, r, opts);
    il.release_held_indices();
    let mut import = res?;
    import.report.edges_cut = il.counters.region_edges_cleared - before;
    Ok(import)
}

fn import_pass<R: Read>(il: &mut Il, r: R, opts: ImportOptions) -> Result<Import, ImportError> {
    let mut lx = json::Lexer::new(Counting { inner: r, n: 0 });
    let mut b = reader::Builder::new(il);
    b.record_literals = opts.record_literals;
    b.close_host_bodies = opts.bodies == Bodies::Device;
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
    import_file_with(il, path, ImportOptions::default())
}

/// [`import_file`] keeping what `opts` asks for.
///
/// # Errors
/// As [`import_file`].
pub fn import_file_with(
    il: &mut Il,
    path: &Path,
    opts: ImportOptions,
) -> Result<Import, ImportError> {
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
        import_reader_with(il, d, opts)
    } else {
        import_reader_with(il, f, opts)
    };
    r.map_err(|mut e| {
        e.file = Some(name.clone());
        e
    })
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
    if r.bodies_closed > 0 {
        writeln!(
            out,
            "bodies: {} host-only bodies closed with their regions, {} edges into them cleared",
            r.bodies_closed, r.edges_cut
        )?;
    }
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
