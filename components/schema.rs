// The vocabulary of the IL schema. `build.rs` includes this file and `entries.rs` and
// expands them into `$OUT_DIR/il_schema.rs`; nothing else reads them.

/// What role a kind plays; hand-written code talks about categories, not kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cat {
    /// Source files and positions.
    Source,
    /// Constants (kind 2).
    Constant,
    /// Types and their parts.
    Type,
    /// Variables, parameters, fields.
    Object,
    /// Routines and their parts.
    Routine,
    /// Expressions and their parts.
    Expr,
    /// Statements and their parts.
    Statement,
    /// Scopes and namespaces.
    Scope,
    /// Templates and their parts.
    Template,
    /// Attributes.
    Attribute,
    /// Everything else that holds data.
    Misc,
    /// String storage kinds (25, 26): bytes in a region's string arena, no table.
    Text,
    /// A number that stays reserved: no table, never allocated.
    Reserved,
}

/// Where an entry of this kind may be allocated (seed 001, "Region" column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionRule {
    /// Always the persistent file-scope region.
    FileScope,
    /// The current region: a function region inside a body, file scope otherwise.
    Dual,
    /// Only inside a function region (labels); an error at file scope.
    FunctionOnly,
    /// The region of an existing entry named by the caller (class-list members).
    SameRegionAs,
}

/// One field of a kind.
#[derive(Clone, Copy, Debug)]
pub enum Field {
    /// A plain value column: `ty` is a Rust type name (`u8`, `u32`, `i64`, `bool`).
    Scalar { name: &'static str, ty: &'static str },
    /// A string column with its string kind: 24 id_name, 25 string_text, 26 other_text.
    Str { name: &'static str, string_kind: u8 },
    /// An owned child edge: walks descend into it. `target` is a kind name or "any".
    Child { name: &'static str, target: &'static str },
    /// An owned list of children; `link` says how EDG links the list (documentation).
    List { name: &'static str, target: &'static str, link: &'static str },
    /// A non-owning reference: walks remap it but do not descend; verify checks it.
    Ref { name: &'static str, target: &'static str },
    /// A one-bit flag column.
    Flag { name: &'static str },
}

/// One entry kind.
#[derive(Clone, Debug)]
pub struct KindDef {
    pub number: u8,
    pub name: &'static str,
    /// The label the seed's file-scope walk table uses, where it differs from `name`.
    pub walk_label: &'static str,
    pub cat: Cat,
    /// EDG's allocation size in bytes (0 = unknown).
    pub seed_size: u32,
    /// The name the stats dump prints ("expr node", "source file", ...).
    pub stats_name: &'static str,
    pub region: RegionRule,
    /// Displayed as a standalone entry (true) or inline in its parent.
    pub standalone: bool,
    pub doc: &'static str,
    pub fields: Vec<Field>,
    /// Scalars and flags stored packed in one `u32` column `word` of the row, with their
    /// bit widths, low bits first (a hot kind's row in fewer bytes and columns).
    pub packed: Vec<(&'static str, u32)>,
    /// Scalars most entries leave at their default, stored in a side map keyed by row
    /// instead of a column.
    pub rare: Vec<&'static str>,
    /// Columns derived from the entry (name, Rust type): kept true by the world (its
    /// setters recompute them), copied with the row, never written by hand or to files.
    pub derived: Vec<(&'static str, &'static str)>,
    /// Typed readings of a scalar column whose meaning depends on another column (see
    /// [`SubKindDef`]).
    pub sub_kinds: Vec<SubKindDef>,
}

/// A typed reading of a byte column that holds a different vocabulary depending on the
/// entry's variant (a constant's `sub_kind` is an address kind under `ck_address`, a
/// template-parameter-constant kind under `ck_template_param`). The column keeps its
/// byte (files and display are unchanged); the views get `accessor()` (`Some` when the
/// entry has that variant and the byte names a value) and `set_accessor(v)`.
#[derive(Clone, Copy, Debug)]
pub struct SubKindDef {
    /// The byte column (`sub_kind`).
    pub column: &'static str,
    /// The column that picks the vocabulary (`constant_kind`).
    pub by: &'static str,
    /// The variant of `by`'s vocabulary under which the reading holds (`Address`).
    pub when: &'static str,
    /// The vocabulary the byte holds then (`AddressKind`).
    pub vocab: &'static str,
    /// The getter's name (`address_kind`); the setter is `set_` and it.
    pub accessor: &'static str,
}

impl KindDef {
    /// Adds derived columns (see [`KindDef::derived`]).
    pub fn derived(mut self, cols: &[(&'static str, &'static str)]) -> KindDef {
        self.derived = cols.to_vec();
        self
    }

    /// Stores `fields` (scalars or flags, with their bit widths) packed in one `u32`.
    pub fn packed(mut self, fields: &[(&'static str, u32)]) -> KindDef {
        self.packed = fields.to_vec();
        self
    }

    /// Stores scalars `fields` in side maps (most entries leave them at their default).
    pub fn rare(mut self, fields: &[&'static str]) -> KindDef {
        self.rare = fields.to_vec();
        self
    }

    /// Adds typed readings of a byte column (see [`SubKindDef`]).
    pub fn sub_kinds(mut self, defs: &[SubKindDef]) -> KindDef {
        self.sub_kinds = defs.to_vec();
        self
    }
}

/// `column` read as `vocab` (through `accessor`) when `by` is `when`.
pub fn sub_kind(
    column: &'static str,
    by: &'static str,
    when: &'static str,
    vocab: &'static str,
    accessor: &'static str,
) -> SubKindDef {
    SubKindDef {
        column,
        by,
        when,
        vocab,
        accessor,
    }
}

pub fn scalar(name: &'static str, ty: &'static str) -> Field {
    Field::Scalar { name, ty }
}
pub fn string(name: &'static str, string_kind: u8) -> Field {
    Field::Str { name, string_kind }
}
pub fn child(name: &'static str, target: &'static str) -> Field {
    Field::Child { name, target }
}
pub fn list(name: &'static str, target: &'static str, link: &'static str) -> Field {
    Field::List { name, target, link }
}
pub fn reference(name: &'static str, target: &'static str) -> Field {
    Field::Ref { name, target }
}
pub fn flag(name: &'static str) -> Field {
    Field::Flag { name }
}

#[allow(clippy::too_many_arguments)]
pub fn kind(
    number: u8,
    name: &'static str,
    cat: Cat,
    seed_size: u32,
    stats_name: &'static str,
    region: RegionRule,
    standalone: bool,
    doc: &'static str,
    fields: &[Field],
) -> KindDef {
    KindDef {
        number,
        name,
        walk_label: name,
        cat,
        seed_size,
        stats_name,
        region,
        standalone,
        doc,
        fields: fields.to_vec(),
        packed: Vec::new(),
        rare: Vec::new(),
        derived: Vec::new(),
        sub_kinds: Vec::new(),
    }
}

pub fn reserved(number: u8) -> KindDef {
    KindDef {
        number,
        name: "(reserved)",
        walk_label: "(reserved)",
        cat: Cat::Reserved,
        seed_size: 0,
        stats_name: "",
        region: RegionRule::FileScope,
        standalone: false,
        doc: "A reserved entry-kind number: it has no table and is never allocated.",
        fields: Vec::new(),
        packed: Vec::new(),
        rare: Vec::new(),
        derived: Vec::new(),
        sub_kinds: Vec::new(),
    }
}

/// One value of a sub-kind vocabulary.
#[derive(Clone, Copy, Debug)]
pub struct VariantDef {
    pub number: u16,
    /// The Rust variant name.
    pub ident: &'static str,
    /// The name display and messages print.
    pub name: &'static str,
    pub doc: &'static str,
    /// The vocabulary's properties (see [`VocabDef::props`]) this value has.
    pub props: &'static [&'static str],
}

impl VariantDef {
    /// Gives the value properties `props` of its vocabulary.
    pub const fn with(mut self, props: &'static [&'static str]) -> VariantDef {
        self.props = props;
        self
    }
}

/// A sub-kind vocabulary: a `#[repr]` enum over the numbers one column holds.
#[derive(Clone, Debug)]
pub struct VocabDef {
    /// The Rust type name (`TypeKind`).
    pub ident: &'static str,
    /// The representation: `u8` or `u16`.
    pub repr: &'static str,
    /// The column(s) it types, for the docs (`type.type_kind`).
    pub column: &'static str,
    pub doc: &'static str,
    pub variants: Vec<VariantDef>,
    /// Properties a value may have (method name, doc): each becomes a `const fn` on the
    /// enum, true for the values declared `with` it.
    pub props: Vec<(&'static str, &'static str)>,
    /// The seed's message for a number the vocabulary does not have: given, the enum gets
    /// `checked(n)`, the value or `IlError::BadKind(message)`.
    pub bad_kind: Option<&'static str>,
}

impl VocabDef {
    /// The seed's message for a bad number (see [`VocabDef::bad_kind`]).
    pub fn checked(mut self, message: &'static str) -> VocabDef {
        self.bad_kind = Some(message);
        self
    }

    /// Declares the properties its values may have (see [`VocabDef::props`]).
    pub fn props(mut self, props: &[(&'static str, &'static str)]) -> VocabDef {
        self.props = props.to_vec();
        self
    }
}

pub fn vocab(
    ident: &'static str,
    repr: &'static str,
    column: &'static str,
    doc: &'static str,
    variants: &[VariantDef],
) -> VocabDef {
    VocabDef {
        ident,
        repr,
        column,
        doc,
        variants: variants.to_vec(),
        props: Vec::new(),
        bad_kind: None,
    }
}

pub const fn v(
    number: u16,
    ident: &'static str,
    name: &'static str,
    doc: &'static str,
) -> VariantDef {
    VariantDef {
        number,
        ident,
        name,
        doc,
        props: &[],
    }
}
