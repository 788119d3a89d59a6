//! Expands the IL schema in `components/` into `$OUT_DIR/il_schema.rs`.
//!
//! The schema is the single source of truth for entry kinds: the kind enum and its names,
//! the per-kind SoA row types, the child-edge layout, named field handles and the string
//! fields all come from `components/entries.rs`.

use std::fmt::Write as _;

include!("components/schema.rs");
include!("components/entries.rs");
include!("components/vocab.rs");

fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in name.chars() {
        if c == '_' || c == ' ' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn variant(k: &KindDef) -> String {
    match k.name {
        "(reserved)" => format!("Reserved{}", k.number),
        n => camel(n),
    }
}

fn ident(name: &str) -> String {
    if name == "type" {
        "r#type".to_string()
    } else {
        name.to_string()
    }
}

/// Names of a kind's string fields, in schema order.
fn string_fields(k: &KindDef) -> Vec<&'static str> {
    k.fields
        .iter()
        .filter_map(|f| match *f {
            Field::Str { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

/// Names of a kind's value columns (scalars, strings, flags), in schema order.
fn value_columns(k: &KindDef) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = k
        .fields
        .iter()
        .filter_map(|f| match *f {
            Field::Str { name, .. } => Some(name),
            Field::Scalar { name, .. } | Field::Flag { name }
                if store_of(k, name) == Store::Column =>
            {
                Some(name)
            }
            _ => None,
        })
        .collect();
    if !k.packed.is_empty() {
        v.push("word");
    }
    v.extend(k.derived.iter().map(|d| d.0));
    v
}

/// The Rust type of value column `name` of `k`'s row (see [`value_columns`]).
fn column_ty(k: &KindDef, name: &str) -> String {
    if name == "word" && !k.packed.is_empty() {
        return "u32".to_string();
    }
    if let Some((_, ty)) = k.derived.iter().find(|d| d.0 == name) {
        return ty.to_string();
    }
    for f in &k.fields {
        match *f {
            Field::Scalar { name: n, ty } if n == name => return ty.to_string(),
            Field::Str { name: n, .. } if n == name => return "Str".to_string(),
            Field::Flag { name: n } if n == name => return "bool".to_string(),
            _ => {}
        }
    }
    panic!("{}: no column {name}", k.name)
}

fn has_table(k: &KindDef) -> bool {
    !matches!(k.cat, Cat::Reserved | Cat::Text)
}

fn target_expr(all: &[KindDef], target: &str, owner: &str) -> String {
    if target == "any" {
        return "None".to_string();
    }
    let t = all
        .iter()
        .find(|k| k.name == target && has_table(k))
        .unwrap_or_else(|| panic!("schema: {owner}: unknown target kind {target}"));
    format!("Some(EntryKind::{})", variant(t))
}

/// Where a scalar or flag of a kind's row is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    /// Its own column of the row table.
    Column,
    /// Bits `shift..shift + bits` of the row's `word` column.
    Packed { shift: u32, bits: u32 },
    /// A side map from row to value (absent = default).
    Rare,
}

fn store_of(k: &KindDef, name: &str) -> Store {
    if k.rare.contains(&name) {
        return Store::Rare;
    }
    let mut shift = 0;
    for &(n, bits) in &k.packed {
        if n == name {
            return Store::Packed { shift, bits };
        }
        shift += bits;
    }
    Store::Column
}

/// The type of scalar `name` of `k`.
fn scalar_ty(k: &KindDef, name: &str) -> &'static str {
    k.fields
        .iter()
        .find_map(|f| match *f {
            Field::Scalar { name: n, ty } if n == name => Some(ty),
            Field::Flag { name: n } if n == name => Some("bool"),
            _ => None,
        })
        .unwrap_or_else(|| panic!("schema: {}: no scalar {name}", k.name))
}

/// The side map of a rare field, on `Tables`.
fn rare_map(k: &KindDef, name: &str) -> String {
    format!("rare_{}_{name}", k.name)
}

/// An expression reading field `name` (of type `ty`) of row `r` (a `usize` expression),
/// where `tb` is the row table and `tables` the `Tables`.
fn read_field(k: &KindDef, tb: &str, tables: &str, name: &str, ty: &str, r: &str) -> String {
    match store_of(k, name) {
        Store::Column => format!("{tb}.{name}[{r}]"),
        Store::Rare => format!(
            "{tables}.{}.get(&({r} as u32)).copied().unwrap_or_default()",
            rare_map(k, name)
        ),
        Store::Packed { shift, bits } => {
            let mask = (1u64 << bits) - 1;
            let raw = format!("(({tb}.word[{r}] >> {shift}) & {mask:#x})");
            if ty == "bool" {
                format!("({raw} != 0)")
            } else if let Some(v) = vocab_of(ty) {
                format!("{ty}::from_raw({raw} as {}).unwrap_or_default()", v.repr)
            } else {
                format!("({raw} as {ty})")
            }
        }
    }
}

/// A statement writing `v` to field `name` of row `r` (see [`read_field`]).
fn write_field(k: &KindDef, tb: &str, tables: &str, name: &str, r: &str, v: &str) -> String {
    match store_of(k, name) {
        Store::Column => format!("{tb}.{name}[{r}] = {v};"),
        Store::Rare => {
            let m = rare_map(k, name);
            let ty = scalar_ty(k, name);
            format!("{{ let v: {ty} = {v}; if v == {ty}::default() {{ if !{tables}.{m}.is_empty() {{ {tables}.{m}.remove(&({r} as u32)); }} }} else {{ {tables}.{m}.insert({r} as u32, v); }} }}")
        }
        Store::Packed { shift, bits } => {
            let mask = (1u64 << bits) - 1;
            format!("{{ let w = &mut {tb}.word[{r}]; *w = (*w & !({mask:#x} << {shift})) | ((({v}) as u32 & {mask:#x}) << {shift}); }}")
        }
    }
}

/// One statement per rare field of `k`, each `stmt(map)` for the field's side map.
fn per_rare_map(k: &KindDef, stmt: impl Fn(&str) -> String) -> String {
    k.rare
        .iter()
        .map(|n| stmt(&rare_map(k, n)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Moves side map `m`'s value of row `f` of `src` to row `t` of `dst` (removing `t`'s
/// when `f` has none).
fn rare_move(m: &str, dst: &str, src: &str, f: &str, t: &str) -> String {
    format!("match {src}.{m}.get(&({f} as u32)).copied() {{ Some(v) => {{ {dst}.{m}.insert({t} as u32, v); }} None => {{ {dst}.{m}.remove(&({t} as u32)); }} }}")
}

/// Statements copying the rare fields of row `f` of `src` to row `t` of `dst` (`Tables`
/// expressions), cheap when no row of the kind has a rare value.
fn copy_rare(k: &KindDef, dst: &str, src: &str, f: &str, t: &str) -> String {
    per_rare_map(k, |m| {
        format!(
            "if !{src}.{m}.is_empty() || !{dst}.{m}.is_empty() {{ {} }}",
            rare_move(m, dst, src, f, t)
        )
    })
}

/// `copy_rare` for a batch of rows of one table (`pairs`: a `for` loop's pattern and
/// iterator binding each source row `f` and target row `r`): a side map that is empty
/// has no value to copy and none to remove, so its rows are not visited.
fn copy_rare_rows(k: &KindDef, pairs: &str) -> String {
    per_rare_map(k, |m| {
        format!(
            "if !self.{m}.is_empty() {{ for {pairs} {{ {} }} }}",
            rare_move(m, "self", "self", "f", "r")
        )
    })
}

/// Writes a `Tables` method that copies rows within each kind's table: `sig` (doc and
/// signature), then per kind with a table its columns' copy (`columns` of the table's
/// field name) and its side maps' copy over `pairs` (see `copy_rare_rows`).
fn gen_row_copies(
    o: &mut String,
    all: &[KindDef],
    sig: &str,
    columns: impl Fn(&str) -> String,
    pairs: &str,
) {
    writeln!(o, "{sig} {{\n        match kind {{").unwrap();
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(
            o,
            "            EntryKind::{} => {{ {} {} }}",
            variant(k),
            columns(&ident(k.name)),
            copy_rare_rows(k, pairs)
        )
        .unwrap();
    }
    o.push_str(
        "            k => panic!(\"kind {} has no table\", k.name()),\n        }\n    }\n\n",
    );
}

/// The vocabulary a scalar column's type names, if it is one.
fn vocab_of(ty: &str) -> Option<VocabDef> {
    vocabularies().into_iter().find(|v| v.ident == ty)
}

/// The plain integer type a scalar column is stored and written as (a vocabulary's repr).
fn repr_of(ty: &str) -> String {
    vocab_of(ty).map_or_else(|| ty.to_string(), |v| v.repr.to_string())
}

/// Checks the vocabularies and writes one `#[repr]` enum per vocabulary.
fn gen_vocabs(o: &mut String, vocabs: &[VocabDef]) {
    let mut names = std::collections::HashSet::new();
    for voc in vocabs {
        assert!(
            names.insert(voc.ident),
            "vocab {}: defined twice",
            voc.ident
        );
        assert!(
            matches!(voc.repr, "u8" | "u16"),
            "vocab {}: repr u8 or u16",
            voc.ident
        );
        assert_eq!(
            voc.variants.first().map(|x| x.number),
            Some(0),
            "vocab {}: 0 is the default",
            voc.ident
        );
        let mut last = None;
        let mut idents = std::collections::HashSet::new();
        for x in &voc.variants {
            assert!(
                last.is_none_or(|l| x.number > l),
                "vocab {}: numbers ascend",
                voc.ident
            );
            assert!(
                voc.repr == "u16" || x.number <= 255,
                "vocab {}: {} does not fit",
                voc.ident,
                x.number
            );
            assert!(
                idents.insert(x.ident),
                "vocab {}: {} twice",
                voc.ident,
                x.ident
            );
            last = Some(x.number);
        }
        let (t, r, n) = (voc.ident, voc.repr, voc.variants.len());
        writeln!(
            o,
            "/// {}\n///\n/// Column: `{}`. Declared in `components/vocab.rs`.",
            voc.doc, voc.column
        )
        .unwrap();
        writeln!(o, "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]\n#[repr({r})]\npub enum {t} {{").unwrap();
        for (i, x) in voc.variants.iter().enumerate() {
            let default = if i == 0 { "    #[default]\n" } else { "" };
            writeln!(
                o,
                "    /// {} (`{}`): {}\n{default}    {} = {},",
                x.number, x.name, x.doc, x.ident, x.number
            )
            .unwrap();
        }
        o.push_str("}\n\n");
        writeln!(o, "impl {t} {{").unwrap();
        writeln!(
            o,
            "    /// Every variant, by number.\n    pub const ALL: [{t}; {n}] = ["
        )
        .unwrap();
        for x in &voc.variants {
            writeln!(o, "        {t}::{},", x.ident).unwrap();
        }
        o.push_str("    ];\n\n");
        writeln!(o, "    /// The variant numbered `n`, if there is one.\n    #[inline]\n    pub const fn from_raw(n: {r}) -> Option<{t}> {{\n        match n {{").unwrap();
        for x in &voc.variants {
            writeln!(o, "            {} => Some({t}::{}),", x.number, x.ident).unwrap();
        }
        o.push_str("            _ => None,\n        }\n    }\n\n");
        writeln!(o, "    /// The variant's number (what the column stores and files hold).\n    #[inline]\n    pub const fn raw(self) -> {r} {{\n        self as {r}\n    }}\n").unwrap();
        writeln!(o, "    /// The variant's name as display and messages print it.\n    pub const fn name(self) -> &'static str {{\n        match self {{").unwrap();
        for x in &voc.variants {
            writeln!(o, "            {t}::{} => {:?},", x.ident, x.name).unwrap();
        }
        o.push_str("        }\n    }\n}\n\n");
        writeln!(o, "impl std::fmt::Display for {t} {{\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{\n        f.write_str(self.name())\n    }}\n}}\n").unwrap();
    }
    o.push_str("/// Sub-kind ranges the seeds give only as counts (`components/vocab.rs`).\npub mod counts {\n");
    for (name, n, doc) in SUB_KIND_COUNTS {
        writeln!(o, "    /// {doc}\n    pub const {name}: u8 = {n};").unwrap();
    }
    writeln!(o, "    /// Pragma kinds whose entry carries a payload (seed 001, `alloc_pragma`).\n    pub const PRAGMA_KINDS_WITH_PAYLOAD: &[u8] = &{PRAGMA_KINDS_WITH_PAYLOAD:?};").unwrap();
    o.push_str("}\n\n");
}

/// The name of a kind's accessor on `Il` (`il.expr(e)`, `il.ty(e)`, `il.routine(e)`).
fn accessor(k: &KindDef) -> String {
    match k.name {
        "type" => "ty".to_string(),
        "expr_node" => "expr".to_string(),
        n => n.to_string(),
    }
}

/// Typed views per kind: `XView` reads a row's value columns, `XEdit` writes them
/// through setters, and `Il` gets `x(e)`, `as_x(e)`, `x_mut(e)` and `x_columns()`.
fn gen_views(o: &mut String, all: &[KindDef]) {
    for k in all.iter().filter(|k| has_table(k)) {
        let v = variant(k);
        let t = ident(k.name);
        let a = accessor(k);
        let vals: Vec<&Field> = k
            .fields
            .iter()
            .filter(|f| {
                matches!(
                    f,
                    Field::Scalar { .. } | Field::Str { .. } | Field::Flag { .. }
                )
            })
            .collect();
        if vals.is_empty() {
            // No value columns: nothing to view; scans still get the (eix) column.
            writeln!(o, "impl Il {{\n    /// The `{n}` table's rows, read-only (`eix[row]` is the row's entry, `Eix::NONE` for\n    /// a free row), for scans.\n    #[inline]\n    pub fn {a}_columns(&self) -> {v}RowSlice<'_> {{\n        self.tables.{t}.as_slice()\n    }}\n}}\n", n = k.name).unwrap();
            continue;
        }
        writeln!(
            o,
            "/// Read view of one `{}` entry's value columns ([`Il::{a}`]).",
            k.name
        )
        .unwrap();
        writeln!(o, "#[derive(Clone, Copy, Debug)]\npub struct {v}View<'a> {{\n    il: &'a Il,\n    e: Eix,\n    r: usize,\n}}\n").unwrap();
        writeln!(o, "impl<'a> {v}View<'a> {{\n    /// The entry.\n    #[inline]\n    pub fn eix(&self) -> Eix {{\n        self.e\n    }}\n").unwrap();
        for f in &vals {
            match **f {
                Field::Scalar { name, ty } => writeln!(o, "    /// `{}.{name}`.\n    #[inline]\n    pub fn {name}(&self) -> {ty} {{\n        {}\n    }}\n", k.name, read_field(k, &format!("self.il.tables.{t}"), "self.il.tables", name, ty, "self.r")).unwrap(),
                Field::Flag { name } => writeln!(o, "    /// Flag `{}.{name}`.\n    #[inline]\n    pub fn {name}(&self) -> bool {{\n        {}\n    }}\n", k.name, read_field(k, &format!("self.il.tables.{t}"), "self.il.tables", name, "bool", "self.r")).unwrap(),
                Field::Str { name, string_kind } => {
                    writeln!(o, "    /// String `{}.{name}` (string kind {string_kind}): its bytes in the entry's region, empty when unset.\n    #[inline]\n    pub fn {name}(&self) -> &'a [u8] {{\n        let s = self.il.tables.{t}.{name}[self.r];\n        if s.is_some() {{ self.il.str_bytes(self.e, s) }} else {{ &[] }}\n    }}\n", k.name).unwrap();
                    writeln!(o, "    /// Whether string `{}.{name}` is set.\n    #[inline]\n    pub fn has_{name}(&self) -> bool {{\n        self.il.tables.{t}.{name}[self.r].is_some()\n    }}\n", k.name).unwrap();
                }
                _ => {}
            }
        }
        o.push_str("}\n\n");
        writeln!(o, "/// Write view of one `{}` entry's value columns ([`Il::{a}_mut`]): setters that keep\n/// the world's derived columns true.", k.name).unwrap();
        writeln!(o, "#[derive(Debug)]\npub struct {v}Edit<'a> {{\n    il: &'a mut Il,\n    e: Eix,\n    r: usize,\n}}\n").unwrap();
        writeln!(o, "impl {v}Edit<'_> {{\n    /// The entry.\n    #[inline]\n    pub fn eix(&self) -> Eix {{\n        self.e\n    }}\n\n    /// Reads the entry as it stands.\n    #[inline]\n    pub fn view(&self) -> {v}View<'_> {{\n        {v}View {{ il: self.il, e: self.e, r: self.r }}\n    }}\n").unwrap();
        let mut si = 0;
        for f in &vals {
            match **f {
                Field::Scalar { name, .. } => writeln!(o, "    /// Sets `{}.{name}`.\n    #[inline]\n    pub fn set_{name}(&mut self, v: {}) -> &mut Self {{\n        {}\n        self.il.row_changed(EntryKind::{v}, self.e);\n        self\n    }}\n", k.name, scalar_ty(k, name), write_field(k, &format!("self.il.tables.{t}"), "self.il.tables", name, "self.r", "v"), v = variant(k)).unwrap(),
                Field::Flag { name } => writeln!(o, "    /// Sets flag `{}.{name}`.\n    #[inline]\n    pub fn set_{name}(&mut self, v: bool) -> &mut Self {{\n        {}\n        self.il.row_changed(EntryKind::{v}, self.e);\n        self\n    }}\n", k.name, write_field(k, &format!("self.il.tables.{t}"), "self.il.tables", name, "self.r", "v"), v = variant(k)).unwrap(),
                Field::Str { name, .. } => {
                    writeln!(o, "    /// Stores `bytes` in the entry's region as string `{}.{name}`.\n    #[inline]\n    pub fn set_{name}(&mut self, bytes: &[u8]) -> &mut Self {{\n        self.il.set_string_eix(self.e, {si}, bytes);\n        self.il.row_changed(EntryKind::{v}, self.e);\n        self\n    }}\n", k.name, v = variant(k)).unwrap();
                    si += 1;
                }
                _ => {}
            }
        }
        o.push_str("}\n\n");
        writeln!(o, "impl Il {{").unwrap();
        writeln!(o, "    /// The `{n}` entry `e`, to read.\n    ///\n    /// # Panics\n    /// If `e` is not a live `{n}`.\n    #[inline]\n    pub fn {a}(&self, e: Eix) -> {v}View<'_> {{\n        self.expect_kind(e, EntryKind::{v});\n        {v}View {{ il: self, e, r: self.row(e) as usize }}\n    }}\n", n = k.name).unwrap();
        writeln!(o, "    /// The `{n}` entry `e`, to read, or `None` when `e` is not a live `{n}`.\n    #[inline]\n    pub fn as_{a}(&self, e: Eix) -> Option<{v}View<'_>> {{\n        (self.is_live(e) && self.kind(e) == EntryKind::{v}).then(|| {v}View {{ il: self, e, r: self.row(e) as usize }})\n    }}\n", n = k.name).unwrap();
        writeln!(o, "    /// The `{n}` entry `e`, to write.\n    ///\n    /// # Panics\n    /// If `e` is not a live `{n}`.\n    #[inline]\n    pub fn {a}_mut(&mut self, e: Eix) -> {v}Edit<'_> {{\n        self.expect_kind(e, EntryKind::{v});\n        let r = self.row(e) as usize;\n        {v}Edit {{ il: self, e, r }}\n    }}\n", n = k.name).unwrap();
        writeln!(o, "    /// The `{n}` table's columns, read-only, indexed by row (`eix[row]` is the row's\n    /// entry, `Eix::NONE` for a free row), for scans.\n    #[inline]\n    pub fn {a}_columns(&self) -> {v}RowSlice<'_> {{\n        self.tables.{t}.as_slice()\n    }}\n}}\n", n = k.name).unwrap();
        if !k.packed.is_empty() {
            writeln!(o, "impl {v}RowSlice<'_> {{").unwrap();
            for &(name, _) in &k.packed {
                let ty = scalar_ty(k, name);
                writeln!(o, "    /// `{}.{name}` of row `r` (unpacked from `word`).\n    #[inline]\n    pub fn {name}(&self, r: usize) -> {ty} {{\n        {}\n    }}\n", k.name, read_field(k, "self", "self", name, ty, "r")).unwrap();
                if let Store::Packed { shift, bits } = store_of(k, name) {
                    writeln!(o, "    /// The bits of `{}.{name}` in a packed `word` as stored (no check that they name a value).\n    #[inline(always)]\n    pub fn {name}_bits(word: u32) -> u32 {{\n        (word >> {shift}) & {:#x}\n    }}\n", k.name, (1u64 << bits) - 1).unwrap();
                }
            }
            o.push_str("}\n\n");
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=components/schema.rs");
    println!("cargo:rerun-if-changed=components/entries.rs");
    println!("cargo:rerun-if-changed=components/vocab.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let all = entries();
    assert_eq!(all.len(), 85, "schema: kinds 0..=84");
    for (i, k) in all.iter().enumerate() {
        assert_eq!(
            k.number as usize, i,
            "schema: kind numbers must be in order"
        );
        let mut seen = std::collections::HashSet::new();
        for f in &k.fields {
            let n = match f {
                Field::Scalar { name, .. }
                | Field::Str { name, .. }
                | Field::Child { name, .. }
                | Field::List { name, .. }
                | Field::Ref { name, .. }
                | Field::Flag { name } => *name,
            };
            assert!(seen.insert(n), "schema: {}: duplicate field {n}", k.name);
        }
    }

    for k in &all {
        let mut total = 0;
        for &(name, bits) in &k.packed {
            let ty = scalar_ty(k, name);
            let max: u64 = match ty {
                "bool" => 1,
                "u8" => 0xff,
                "u16" => 0xffff,
                t => vocab_of(t)
                    .and_then(|v| v.variants.last().map(|x| x.number as u64))
                    .unwrap_or_else(|| panic!("schema: {}: cannot pack {name}: {t}", k.name)),
            };
            assert!(
                max < 1 << bits,
                "schema: {}: {name} needs more than {bits} bits",
                k.name
            );
            total += bits;
        }
        assert!(
            total <= 32,
            "schema: {}: packed fields exceed 32 bits",
            k.name
        );
    }
    let mut o = String::new();
    o.push_str("// @generated by build.rs from components/. Do not edit.\n\n");

    // ---- EntryKind -------------------------------------------------------------------
    o.push_str("/// The 85 IL entry kinds, numbered as EDG numbers them (reserved numbers stay reserved).\n");
    o.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[repr(u8)]\npub enum EntryKind {\n");
    for k in &all {
        writeln!(o, "    /// {} ({}): {}", k.number, k.name, k.doc).unwrap();
        writeln!(o, "    {} = {},", variant(k), k.number).unwrap();
    }
    o.push_str("}\n\n");

    o.push_str("impl EntryKind {\n");
    writeln!(o, "    /// Number of entry kinds (0..=84, the sentinel `last` included).\n    pub const COUNT: usize = {};\n", all.len()).unwrap();
    o.push_str(
        "    /// Every kind, by number.\n    pub const ALL: [EntryKind; EntryKind::COUNT] = [\n",
    );
    for k in &all {
        writeln!(o, "        EntryKind::{},", variant(k)).unwrap();
    }
    o.push_str("    ];\n\n");
    let table =
        |o: &mut String, doc: &str, name: &str, ty: &str, f: &dyn Fn(&KindDef) -> String| {
            writeln!(o, "    /// {doc}\n    pub const {name}: [{ty}; 85] = [").unwrap();
            for k in &all {
                writeln!(o, "        {},", f(k)).unwrap();
            }
            o.push_str("    ];\n");
        };
    table(
        &mut o,
        "EDG's name of each kind (`il_entry_kind_names`).",
        "NAMES",
        "&'static str",
        &|k| format!("{:?}", k.name),
    );
    table(
        &mut o,
        "The label of each kind in the seed's file-scope walk table.",
        "WALK_LABELS",
        "&'static str",
        &|k| format!("{:?}", k.walk_label),
    );
    table(
        &mut o,
        "Name printed by the stats dump.",
        "STATS_NAMES",
        "&'static str",
        &|k| format!("{:?}", k.stats_name),
    );
    table(
        &mut o,
        "EDG's allocation size in bytes (0 = unknown).",
        "SEED_SIZES",
        "u32",
        &|k| k.seed_size.to_string(),
    );
    table(&mut o, "Category of each kind.", "CATS", "Cat", &|k| {
        format!("Cat::{:?}", k.cat)
    });
    table(
        &mut o,
        "Region rule of each kind.",
        "REGIONS",
        "RegionRule",
        &|k| format!("RegionRule::{:?}", k.region),
    );
    table(
        &mut o,
        "Displayed standalone (true) or inline in the parent.",
        "STANDALONE",
        "bool",
        &|k| k.standalone.to_string(),
    );
    table(
        &mut o,
        "Whether the kind has a table (can be allocated).",
        "HAS_TABLE",
        "bool",
        &|k| has_table(k).to_string(),
    );
    o.push_str("}\n\n");

    // ---- Sub-kind vocabularies ------------------------------------------------------
    let vocabs = vocabularies();
    gen_vocabs(&mut o, &vocabs);

    // ---- Layout ----------------------------------------------------------------------
    let mut fields_mod = String::new();
    fields_mod.push_str("/// Named handles for every child, list, reference and string field of every kind.\npub mod fields {\n    use super::*;\n");
    o.push_str("/// Per-kind edge layout: single children, lists, references, strings.\npub static LAYOUT: [KindLayout; 85] = [\n");
    for k in &all {
        let mut singles = vec![];
        let mut lists = vec![];
        let mut refs = vec![];
        let mut strs = vec![];
        for f in &k.fields {
            match *f {
                Field::Child { name, target } => singles.push((name, target)),
                Field::List { name, target, .. } => lists.push((name, target)),
                Field::Ref { name, target } => refs.push((name, target)),
                Field::Str { name, string_kind } => strs.push((name, string_kind)),
                _ => {}
            }
        }
        let fi = |v: &Vec<(&str, &str)>| {
            v.iter()
                .map(|(n, t)| {
                    format!(
                        "FieldInfo {{ name: {:?}, target: {} }}",
                        n,
                        target_expr(&all, t, k.name)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            o,
            "    KindLayout {{ singles: &[{}], lists: &[{}], refs: &[{}], strings: &[{}] }},",
            fi(&singles),
            fi(&lists),
            fi(&refs),
            strs.iter()
                .map(|(n, sk)| format!("StrFieldInfo {{ name: {n:?}, string_kind: {sk} }}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
        .unwrap();
        let up = k.name.to_uppercase();
        let v = variant(k);
        for (i, (n, t)) in singles.iter().enumerate() {
            writeln!(fields_mod, "    /// `{}.{}`: single child.\n    pub const {up}_{}: ChildField = ChildField {{ owner: EntryKind::{v}, slot: {i}, target: {} }};", k.name, n, n.to_uppercase(), target_expr(&all, t, k.name)).unwrap();
        }
        for (i, (n, t)) in lists.iter().enumerate() {
            writeln!(fields_mod, "    /// `{}.{}`: list of children.\n    pub const {up}_{}: ListField = ListField {{ owner: EntryKind::{v}, list: {i}, target: {} }};", k.name, n, n.to_uppercase(), target_expr(&all, t, k.name)).unwrap();
        }
        for (i, (n, t)) in refs.iter().enumerate() {
            writeln!(fields_mod, "    /// `{}.{}`: non-owning reference.\n    pub const {up}_{}: RefField = RefField {{ owner: EntryKind::{v}, slot: {i}, target: {} }};", k.name, n, n.to_uppercase(), target_expr(&all, t, k.name)).unwrap();
        }
    }
    o.push_str("];\n\n");
    for (name, doc, pick) in [
        (
            "NLISTS",
            "Number of list fields per kind (a byte table for hot loops).",
            0,
        ),
        (
            "NSINGLES",
            "Number of single-child slots per kind (a byte table for hot loops).",
            1,
        ),
    ] {
        writeln!(o, "/// {doc}\npub static {name}: [u8; 85] = [").unwrap();
        for k in &all {
            let n = k
                .fields
                .iter()
                .filter(|f| match pick {
                    0 => matches!(f, Field::List { .. }),
                    _ => matches!(f, Field::Child { .. }),
                })
                .count();
            write!(o, "{n}, ").unwrap();
        }
        o.push_str("];\n\n");
    }
    o.push_str("/// Number of reference slots per kind (a byte table for hot loops).\npub static NREFS: [u8; 85] = [");
    for k in &all {
        let n = k
            .fields
            .iter()
            .filter(|f| matches!(f, Field::Ref { .. }))
            .count();
        write!(o, "{n}, ").unwrap();
    }
    o.push_str("];\n\n");
    fields_mod.push_str("}\n\n");
    o.push_str(&fields_mod);

    // ---- Rows ------------------------------------------------------------------------
    for k in all.iter().filter(|k| has_table(k)) {
        let v = variant(k);
        writeln!(o, "/// Row of the `{}` table: {}", k.name, k.doc).unwrap();
        o.push_str("#[derive(Clone, Debug, Default, PartialEq, StructOfArray)]\n#[soa_derive(Debug, Clone, Default)]\n");
        writeln!(o, "pub struct {v}Row {{").unwrap();
        o.push_str(
            "    /// The entry this row belongs to (dense entry index).\n    pub eix: Eix,\n",
        );
        for f in &k.fields {
            match *f {
                Field::Scalar { name, .. } if store_of(k, name) == Store::Column => writeln!(
                    o,
                    "    /// Scalar `{name}`.\n    pub {name}: {},",
                    column_ty(k, name)
                )
                .unwrap(),
                Field::Str { name, string_kind } => writeln!(
                    o,
                    "    /// String `{name}` (string kind {string_kind}).\n    pub {name}: {},",
                    column_ty(k, name)
                )
                .unwrap(),
                Field::Flag { name } if store_of(k, name) == Store::Column => writeln!(
                    o,
                    "    /// Flag `{name}`.\n    pub {name}: {},",
                    column_ty(k, name)
                )
                .unwrap(),
                _ => {}
            }
        }
        if !k.packed.is_empty() {
            let names: Vec<&str> = k.packed.iter().map(|p| p.0).collect();
            writeln!(o, "    /// Packed `{}` (low bits first; read them through the views).\n    pub word: {},", names.join("`, `"), column_ty(k, "word")).unwrap();
        }
        for (n, ty) in &k.derived {
            writeln!(
                o,
                "    /// Derived `{n}` (kept true by the world).\n    pub {n}: {ty},"
            )
            .unwrap();
        }
        o.push_str("}\n\n");
        // The row cloner: every column cut to the table's length once, so copying a row
        // takes one range check (the batch clones' row copy).
        let vc = value_columns(k);
        writeln!(o, "/// The `{}` table's columns cut to its length, to copy rows within it (side-map\n/// fields are the caller's).\npub(crate) struct {v}Cloner<'a> {{\n    n: usize,\n    eix: &'a mut [Eix],", k.name).unwrap();
        for c in &vc {
            writeln!(o, "    pub(crate) {c}: &'a mut [{}],", column_ty(k, c)).unwrap();
        }
        o.push_str("}\n\n");
        let cuts: Vec<String> = vc
            .iter()
            .map(|c| format!("{c}: &mut self.{c}[..n]"))
            .collect();
        writeln!(o, "impl {v}RowVec {{\n    /// The cloner over these rows.\n    #[inline(always)]\n    pub(crate) fn cloner(&mut self) -> {v}Cloner<'_> {{\n        let n = self.eix.len();\n        {v}Cloner {{ n, eix: &mut self.eix[..n], {} }}\n    }}\n}}\n", cuts.join(", ")).unwrap();
        let sets: Vec<String> = vc
            .iter()
            .map(|c| format!("self.{c}[r] = self.{c}[f];"))
            .collect();
        let strings: Vec<String> = string_fields(k)
            .iter()
            .map(|n| format!("self.{n}[r].is_some()"))
            .collect();
        let strings = if strings.is_empty() {
            "let _ = r;\n        false".to_string()
        } else {
            strings.join(" || ")
        };
        let runs: Vec<String> = vc
            .iter()
            .map(|c| format!("self.{c}.copy_within(f0..f0 + n, r0);"))
            .collect();
        writeln!(o, "impl {v}Cloner<'_> {{\n    /// Copies row `f` into row `r`, then owned by `e`.\n    ///\n    /// # Panics\n    /// If a row is out of range.\n    #[inline(always)]\n    pub(crate) fn clone_row(&mut self, f: usize, r: usize, e: Eix) {{\n        assert!(f < self.n && r < self.n, \"row out of range\");\n        self.eix[r] = e;\n        {}\n    }}\n\n    /// Copies rows `f0..f0 + n` into rows `r0..r0 + n`, then owned by `e0..e0 + n`.\n    ///\n    /// # Panics\n    /// If a row is out of range.\n    #[inline(always)]\n    pub(crate) fn clone_run(&mut self, f0: usize, r0: usize, n: usize, e0: u32) {{\n        assert!(f0 <= self.n && n <= self.n - f0, \"row out of range\");\n        for (k, e) in self.eix[r0..r0 + n].iter_mut().enumerate() {{\n            *e = Eix::from_raw(e0.wrapping_add(k as u32));\n        }}\n        {}\n    }}\n\n    /// Whether any string field of row `r` is set (as [`Tables::has_strings`]).\n    #[allow(dead_code)]\n    #[inline(always)]\n    pub(crate) fn has_strings(&self, r: usize) -> bool {{\n        {strings}\n    }}\n}}\n", sets.join(" "), runs.join(" ")).unwrap();
        if !k.packed.is_empty() {
            let params: Vec<String> = k
                .packed
                .iter()
                .map(|&(n, _)| format!("{n}: {}", scalar_ty(k, n)))
                .collect();
            let parts: Vec<String> = k
                .packed
                .iter()
                .map(|&(n, _)| match store_of(k, n) {
                    Store::Packed { shift, .. } => format!("(({n} as u32) << {shift})"),
                    _ => unreachable!(),
                })
                .collect();
            writeln!(o, "impl {v}Row {{\n    /// The packed `word` of these values.\n    #[inline(always)]\n    pub fn pack_word({}) -> u32 {{\n        {}\n    }}\n}}\n", params.join(", "), parts.join(" | ")).unwrap();
        }
    }

    // ---- Tables ----------------------------------------------------------------------
    o.push_str("/// One SoA table per allocatable kind, keyed by dense row.\n///\n/// # Invariants\n/// - `eix[r]` names the entry whose row is `r`, or `Eix::NONE` for a free row.\n#[derive(Clone, Debug, Default)]\npub struct Tables {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(
            o,
            "    /// Rows of kind {} ({}).\n    pub(crate) {}: {}RowVec,",
            k.number,
            k.name,
            ident(k.name),
            variant(k)
        )
        .unwrap();
    }
    for k in all.iter().filter(|k| has_table(k)) {
        for n in &k.rare {
            let ty = k
                .fields
                .iter()
                .find_map(|f| match *f {
                    Field::Scalar { name, ty } if name == *n => Some(ty),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("schema: {}: rare field {n} is not a scalar", k.name));
            writeln!(o, "    /// Rare scalar `{}.{n}` by row (absent: the default).\n    pub(crate) {}: ::ahash::AHashMap<u32, {ty}>,", k.name, rare_map(k, n)).unwrap();
        }
    }
    // soa_derive's `Drop` pops a table's rows one at a time (for element types with
    // destructors); every column here is plain data, so dropping the world hands each
    // column's buffer back whole and leaves the generated `Drop` nothing to pop.
    o.push_str("}\n\nimpl Drop for Tables {\n    fn drop(&mut self) {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        let n = ident(k.name);
        for c in std::iter::once("eix").chain(value_columns(k)) {
            writeln!(o, "        drop(std::mem::take(&mut self.{n}.{c}));").unwrap();
        }
    }
    o.push_str("    }\n}\n\nimpl Tables {\n");
    o.push_str("    /// Appends a default row for `kind` owned by `eix`; returns the row.\n    ///\n    /// # Panics\n    /// If `kind` has no table.\n    pub fn push_default(&mut self, kind: EntryKind, eix: Eix) -> u32 {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(o, "            EntryKind::{v} => {{ self.{n}.push({v}Row {{ eix, ..Default::default() }}); (self.{n}.len() - 1) as u32 }}", v = variant(k), n = ident(k.name)).unwrap();
    }
    o.push_str(
        "            k => panic!(\"kind {} has no table\", k.name()),\n        }\n    }\n\n",
    );
    o.push_str("    /// Resets row `row` of `kind` to defaults, owned by `eix` (`Eix::NONE` frees it).\n    pub fn reset_row(&mut self, kind: EntryKind, row: u32, eix: Eix) {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        let clear: Vec<String> = k
            .rare
            .iter()
            .map(|f| {
                let m = rare_map(k, f);
                format!("if !self.{m}.is_empty() {{ self.{m}.remove(&row); }}")
            })
            .collect();
        writeln!(o, "            EntryKind::{v} => {{ self.{n}.replace(row as usize, {v}Row {{ eix, ..Default::default() }}); {} }}", clear.join(" "), v = variant(k), n = ident(k.name)).unwrap();
    }
    o.push_str("            _ => {}\n        }\n    }\n\n");
    o.push_str("    /// The entry owning row `row` of `kind` (`Eix::NONE` for a free row or no table).\n    pub fn row_eix(&self, kind: EntryKind, row: u32) -> Eix {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(o, "            EntryKind::{} => self.{}.eix.get(row as usize).copied().unwrap_or(Eix::NONE),", variant(k), ident(k.name)).unwrap();
    }
    o.push_str("            _ => Eix::NONE,\n        }\n    }\n\n");
    o.push_str("    /// Reserves room for `n` more rows of `kind` in every column.\n    pub fn reserve(&mut self, kind: EntryKind, n: usize) {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(
            o,
            "            EntryKind::{} => self.{}.reserve(n),",
            variant(k),
            ident(k.name)
        )
        .unwrap();
    }
    o.push_str("            _ => {}\n        }\n    }\n\n");
    o.push_str("    /// Number of rows (live and free) of `kind`.\n    pub fn len(&self, kind: EntryKind) -> usize {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(
            o,
            "            EntryKind::{} => self.{}.len(),",
            variant(k),
            ident(k.name)
        )
        .unwrap();
    }
    o.push_str("            _ => 0,\n        }\n    }\n\n");
    o.push_str("    /// Bytes one row of `kind` takes across its columns.\n    pub fn row_bytes(kind: EntryKind) -> usize {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        writeln!(
            o,
            "            EntryKind::{v} => std::mem::size_of::<{v}Row>(),",
            v = variant(k)
        )
        .unwrap();
    }
    o.push_str("            _ => 0,\n        }\n    }\n\n");
    // One match arm per kind with string fields: `each(table, field)` per field, joined.
    let string_arms =
        |o: &mut String, each: &dyn Fn(&str, &str) -> String, join: &str, wrap: bool| {
            for k in all.iter().filter(|k| has_table(k)) {
                let names = string_fields(k);
                if names.is_empty() {
                    continue;
                }
                let t = ident(k.name);
                let body: Vec<String> = names.iter().map(|n| each(&t, n)).collect();
                let body = body.join(join);
                let body = if wrap {
                    format!("{{ {body} }}")
                } else {
                    format!("{body},")
                };
                writeln!(o, "            EntryKind::{} => {body}", variant(k)).unwrap();
            }
        };
    o.push_str("    /// The string fields of a row, in schema order, as (layout index, handle).\n    pub fn strings(&self, kind: EntryKind, row: u32) -> StrFields {\n        let r = row as usize;\n        let mut out = StrFields::default();\n        match kind {\n");
    string_arms(
        &mut o,
        &|t, n| format!("out.push(self.{t}.{n}[r]);"),
        " ",
        true,
    );
    o.push_str("            _ => {}\n        }\n        out\n    }\n\n");
    o.push_str("    /// Whether any string field of a row is set (what [`Tables::strings`] would list\n    /// as `Some`), without building the list.\n    #[inline]\n    pub fn has_strings(&self, kind: EntryKind, row: u32) -> bool {\n        let r = row as usize;\n        match kind {\n");
    string_arms(
        &mut o,
        &|t, n| format!("self.{t}.{n}[r].is_some()"),
        " || ",
        false,
    );
    o.push_str("            _ => false,\n        }\n    }\n\n");
    // copy_row (within one table set) and copy_row_from (from another) share one shape.
    for (name, doc, params, src) in [
        (
            "copy_row",
            "Copies every column but `eix` from row `from` to row `to` of `kind`.",
            "",
            "self",
        ),
        (
            "copy_row_from",
            "Copies every column but `eix` from row `from` of `other` to row `to` of `self`.",
            "other: &Tables, ",
            "other",
        ),
    ] {
        writeln!(o, "    /// {doc}\n    pub fn {name}(&mut self, {params}kind: EntryKind, from: u32, to: u32) {{\n        let (f, t) = (from as usize, to as usize);\n        match kind {{").unwrap();
        for k in all.iter().filter(|k| has_table(k)) {
            let t = ident(k.name);
            let cols: Vec<String> = value_columns(k)
                .iter()
                .map(|c| format!("self.{t}.{c}[t] = {src}.{t}.{c}[f];"))
                .collect();
            writeln!(
                o,
                "            EntryKind::{} => {{ {} {} let _ = (f, t, &{src}); }}",
                variant(k),
                cols.join(" "),
                copy_rare(k, "self", src, "f", "t")
            )
            .unwrap();
        }
        o.push_str("            _ => {}\n        }\n    }\n\n");
    }
    gen_row_copies(
        &mut o,
        &all,
        "    /// Copies rows `from[i]` of `kind` into rows `to[i]` (rows that exist already), each\n    /// then owned by `eix[i]` (the batch clone's row copy).\n    ///\n    /// # Panics\n    /// If `kind` has no table or a row is out of range.\n    pub fn clone_rows(&mut self, kind: EntryKind, from: &[u32], to: &[u32], eix: &[Eix])",
        |t| format!("{{ let mut c = self.{t}.cloner(); for ((&f, &r), &e) in from.iter().zip(to).zip(eix) {{ c.clone_row(f as usize, r as usize, e); }} }}"),
        "(&f, &r) in from.iter().zip(to)",
    );
    gen_row_copies(
        &mut o,
        &all,
        "    /// [`Tables::clone_rows`] of the runs `from = f0..f0 + n`, `to = r0..r0 + n`, `eix =\n    /// e0..e0 + n`: each column copied as one slice.\n    ///\n    /// # Panics\n    /// If `kind` has no table or a row is out of range.\n    pub(crate) fn clone_row_run(&mut self, kind: EntryKind, f0: usize, r0: usize, n: usize, e0: u32)",
        |t| format!("self.{t}.cloner().clone_run(f0, r0, n, e0);"),
        "(f, r) in (f0..f0 + n).zip(r0..r0 + n)",
    );
    o.push_str("    /// Sets string field `index` (schema order among the kind's strings) of a row.\n    pub fn set_string(&mut self, kind: EntryKind, row: u32, index: usize, s: Str) {\n        let r = row as usize;\n        match (kind, index) {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        let names = string_fields(k);
        for (i, n) in names.iter().enumerate() {
            writeln!(
                o,
                "            (EntryKind::{}, {i}) => self.{}.{n}[r] = s,",
                variant(k),
                ident(k.name)
            )
            .unwrap();
        }
    }
    o.push_str("            _ => panic!(\"{} has no string field {index}\", kind.name()),\n        }\n    }\n}\n");

    // ---- scalars (display, binary IL) ---------------------------------------------------
    let scalars_of = |k: &KindDef| -> Vec<(&'static str, &'static str)> {
        k.fields
            .iter()
            .filter_map(|f| match *f {
                Field::Scalar { name, ty } => Some((name, ty)),
                Field::Flag { name } => Some((name, "bool")),
                _ => None,
            })
            .collect()
    };
    o.push_str("/// Names of each kind's scalar and flag columns, in schema order.\npub static SCALAR_NAMES: [&[&str]; 85] = [\n");
    for k in &all {
        let names: Vec<String> = scalars_of(k)
            .iter()
            .map(|(n, _)| format!("{n:?}"))
            .collect();
        writeln!(o, "    &[{}],", names.join(", ")).unwrap();
    }
    o.push_str("];\n\nimpl Tables {\n");
    o.push_str("    /// Scalar `i` (schema order, flags included) of a row, widened to i64.\n    pub fn get_scalar(&self, kind: EntryKind, row: u32, i: usize) -> i64 {\n        let r = row as usize;\n        match (kind, i) {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        for (i, (n, ty)) in scalars_of(k).iter().enumerate() {
            let tb = format!("self.{}", ident(k.name));
            writeln!(
                o,
                "            (EntryKind::{}, {i}) => {} as i64,",
                variant(k),
                read_field(k, &tb, "self", n, ty, "r")
            )
            .unwrap();
        }
    }
    o.push_str("            _ => 0,\n        }\n    }\n\n");
    o.push_str("}\n\n");
    // Scalars as bytes at each column's own width (binary IL records).
    let width = |ty: &str| -> usize {
        match repr_of(ty).as_str() {
            "bool" | "u8" | "i8" => 1,
            "u16" | "i16" => 2,
            "u32" | "i32" | "f32" => 4,
            "u64" | "i64" | "f64" => 8,
            t => panic!("no byte width for scalar type {t}"),
        }
    };
    o.push_str("/// Bytes of each kind's scalar and flag columns at their own widths (flags one byte).\npub static SCALAR_BYTES: [u8; 85] = [");
    for k in &all {
        let w: usize = scalars_of(k).iter().map(|(_, t)| width(t)).sum();
        write!(o, "{w}, ").unwrap();
    }
    o.push_str("];\n\nimpl Tables {\n");
    o.push_str("    /// Writes the scalars of a row at their column widths, little-endian, in schema order,\n    /// into the first [`SCALAR_BYTES`] bytes of `out`.\n    ///\n    /// # Panics\n    /// If `out` is shorter than the kind's [`SCALAR_BYTES`].\n    pub fn write_scalar_bytes(&self, kind: EntryKind, row: u32, out: &mut [u8]) {\n        let r = row as usize;\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        let t = ident(k.name);
        let mut off = 0;
        let puts: Vec<String> = scalars_of(k)
            .iter()
            .map(|(n, ty)| {
                let w = width(ty);
                let val = read_field(k, &format!("self.{t}"), "self", n, ty, "r");
                let put = if *ty == "bool" {
                    format!("out[{off}] = {val} as u8;")
                } else if let Some(v) = vocab_of(ty) {
                    format!(
                        "out[{off}..{}].copy_from_slice(&({val} as {}).to_le_bytes());",
                        off + w,
                        v.repr
                    )
                } else {
                    format!(
                        "out[{off}..{}].copy_from_slice(&{val}.to_le_bytes());",
                        off + w
                    )
                };
                off += w;
                put
            })
            .collect();
        writeln!(
            o,
            "            EntryKind::{} => {{ let out = &mut out[..{off}]; {} let _ = (r, out); }}",
            variant(k),
            puts.join(" ")
        )
        .unwrap();
    }
    o.push_str("            _ => {}\n        }\n    }\n\n");
    o.push_str("    /// Appends a row of `kind` owned by `eix` with its scalars read from `b` (as\n    /// [`Tables::write_scalar_bytes`] wrote them; `b` holds at least [`SCALAR_BYTES`]\n    /// bytes for the kind) and default strings.\n    ///\n    /// # Errors\n    /// A sub-kind column holding a number its vocabulary does not have (nothing pushed).\n    ///\n    /// # Panics\n    /// If `kind` has no table or `b` is short.\n    pub fn push_row_from_bytes(&mut self, kind: EntryKind, eix: Eix, b: &[u8]) -> Result<u32, &'static str> {\n        match kind {\n");
    for k in all.iter().filter(|k| has_table(k)) {
        let t = ident(k.name);
        let mut off = 0;
        let mut fields = vec!["eix".to_string()];
        // Each value into a local first; columns, the packed word and rare maps from them.
        let mut locals = Vec::new();
        let mut word = Vec::new();
        let mut rares = Vec::new();
        for (n, ty) in scalars_of(k) {
            let w = width(ty);
            locals.push(if ty == "bool" {
                format!("let {n} = b[{off}] != 0;")
            } else if let Some(v) = vocab_of(ty) {
                format!(
                    "let {n} = match {ty}::from_raw({}::from_le_bytes(le(b, {off}))) {{ Some(x) => x, None => return Err(\"{}.{n}: not a {ty}\") }};",
                    v.repr, k.name
                )
            } else {
                format!("let {n}: {ty} = {ty}::from_le_bytes(le(b, {off}));")
            });
            match store_of(k, n) {
                Store::Column => fields.push(n.to_string()),
                Store::Packed { shift, .. } => word.push(format!("(({n} as u32) << {shift})")),
                Store::Rare => rares.push(write_field(k, "", "self", n, "row", n)),
            }
            off += w;
        }
        if !k.packed.is_empty() {
            fields.push(format!("word: {}", word.join(" | ")));
        }
        writeln!(
            o,
            "            EntryKind::{v} => {{ {l} self.{t}.push({v}Row {{ {f}, ..Default::default() }}); let row = self.{t}.len() - 1; {r} Ok(row as u32) }}",
            v = variant(k),
            l = locals.join(" "),
            f = fields.join(", "),
            r = rares.join(" ")
        )
        .unwrap();
    }
    o.push_str(
        "            k => panic!(\"kind {} has no table\", k.name()),\n        }\n    }\n}\n\n",
    );
    o.push_str("/// `N` bytes of `b` from `at`.\n#[inline(always)]\nfn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {\n    let mut a = [0u8; N];\n    a.copy_from_slice(&b[at..at + N]);\n    a\n}\n\n");
    gen_views(&mut o, &all);
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("il_schema.rs");
    std::fs::write(out, o).unwrap();
}
