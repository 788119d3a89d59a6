//! Naming, typing and storage helpers the generators share.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::{vocabularies, Cat, Field, KindDef, VocabDef};

/// `snake_case` or `space separated` to `CamelCase`.
pub fn camel(name: &str) -> String {
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

/// The `EntryKind` variant name of a kind.
pub fn variant_name(k: &KindDef) -> String {
    match k.name {
        "(reserved)" => format!("Reserved{}", k.number),
        n => camel(n),
    }
}

/// The `EntryKind` variant of a kind.
pub fn variant(k: &KindDef) -> Ident {
    format_ident!("{}", variant_name(k))
}

/// `<Variant><suffix>`: the kind's row, view, edit and cloner type names.
pub fn kind_type(k: &KindDef, suffix: &str) -> Ident {
    format_ident!("{}{suffix}", variant_name(k))
}

/// A field or table name as an identifier (raw where the name is a keyword: `r#type`).
pub fn field_ident(name: &str) -> Ident {
    syn::parse_str::<Ident>(name).unwrap_or_else(|_| Ident::new_raw(name, Span::call_site()))
}

/// A kind's table field on `Tables`.
pub fn table_ident(k: &KindDef) -> Ident {
    field_ident(k.name)
}

/// A Rust type written in the schema (`u8`, `[u64; 2]`, `ConstantKind`).
pub fn ty(s: &str) -> TokenStream {
    syn::parse_str::<syn::Type>(s)
        .unwrap_or_else(|e| panic!("schema: not a type: {s}: {e}"))
        .into_token_stream()
}

/// An unsuffixed integer literal.
pub fn lit(n: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(n.into())
}

/// An unsuffixed integer literal written in hexadecimal (masks).
pub fn hex(n: u64) -> TokenStream {
    format!("{n:#x}").parse().unwrap()
}

/// Doc attributes, one per line of `text` (as `///` lines would give).
pub fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| {
        if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        }
    });
    quote! { #( #[doc = #lines] )* }
}

/// Whether a kind has a table (can be allocated).
pub fn has_table(k: &KindDef) -> bool {
    !matches!(k.cat, Cat::Reserved | Cat::Text)
}

/// The kinds with a table, in number order.
pub fn tabled(all: &[KindDef]) -> impl Iterator<Item = &KindDef> {
    all.iter().filter(|k| has_table(k))
}

/// A field's name, whatever its role.
pub fn field_name(f: &Field) -> &'static str {
    match *f {
        Field::Scalar { name, .. }
        | Field::Str { name, .. }
        | Field::Child { name, .. }
        | Field::List { name, .. }
        | Field::Ref { name, .. }
        | Field::Flag { name } => name,
    }
}

/// `Some(EntryKind::X)` for a target kind name, `None` for "any".
pub fn target_expr(all: &[KindDef], target: &str, owner: &str) -> TokenStream {
    if target == "any" {
        return quote!(None);
    }
    let t = all
        .iter()
        .find(|k| k.name == target && has_table(k))
        .unwrap_or_else(|| panic!("schema: {owner}: unknown target kind {target}"));
    let v = variant(t);
    quote!(Some(EntryKind::#v))
}

/// Where a scalar or flag of a kind's row is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// Its own column of the row table.
    Column,
    /// Bits `shift..shift + bits` of the row's `word` column.
    Packed { shift: u32, bits: u32 },
    /// A side map from row to value (absent = default).
    Rare,
}

/// Where scalar or flag `name` of `k` is stored.
pub fn store_of(k: &KindDef, name: &str) -> Store {
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

/// The mask of a packed field's bits.
pub fn mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

/// The type of scalar or flag `name` of `k`.
pub fn scalar_ty(k: &KindDef, name: &str) -> &'static str {
    k.fields
        .iter()
        .find_map(|f| match *f {
            Field::Scalar { name: n, ty } if n == name => Some(ty),
            Field::Flag { name: n } if n == name => Some("bool"),
            _ => None,
        })
        .unwrap_or_else(|| panic!("schema: {}: no scalar {name}", k.name))
}

/// A kind's scalars and flags (flags typed `bool`), in schema order.
pub fn scalars_of(k: &KindDef) -> Vec<(&'static str, &'static str)> {
    k.fields
        .iter()
        .filter_map(|f| match *f {
            Field::Scalar { name, ty } => Some((name, ty)),
            Field::Flag { name } => Some((name, "bool")),
            _ => None,
        })
        .collect()
}

/// The side map of a rare field, on `Tables`.
pub fn rare_map(k: &KindDef, name: &str) -> Ident {
    format_ident!("rare_{}_{name}", k.name)
}

/// The vocabulary a scalar column's type names, if it is one.
pub fn vocab_of(ty: &str) -> Option<VocabDef> {
    vocabularies().into_iter().find(|v| v.ident == ty)
}

/// The plain type a scalar column is stored and written as (a vocabulary's repr).
pub fn repr_of(ty: &str) -> String {
    vocab_of(ty).map_or_else(|| ty.to_string(), |v| v.repr.to_string())
}

/// Bytes a scalar of type `ty` takes in binary IL records (flags one byte).
pub fn width(ty: &str) -> usize {
    match repr_of(ty).as_str() {
        "bool" | "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" => 8,
        t => panic!("no byte width for scalar type {t}"),
    }
}

/// Names of a kind's string fields, in schema order.
pub fn string_fields(k: &KindDef) -> Vec<&'static str> {
    k.fields
        .iter()
        .filter_map(|f| match *f {
            Field::Str { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

/// Names of a kind's value columns (scalars, strings, flags with a column of their own,
/// the packed word, derived columns), in schema order.
pub fn value_columns(k: &KindDef) -> Vec<&'static str> {
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
pub fn column_ty(k: &KindDef, name: &str) -> TokenStream {
    if name == "word" && !k.packed.is_empty() {
        return quote!(u32);
    }
    if let Some((_, t)) = k.derived.iter().find(|d| d.0 == name) {
        return ty(t);
    }
    for f in &k.fields {
        match *f {
            Field::Scalar { name: n, ty: t } if n == name => return ty(t),
            Field::Str { name: n, .. } if n == name => return quote!(Str),
            Field::Flag { name: n } if n == name => return quote!(bool),
            _ => {}
        }
    }
    panic!("{}: no column {name}", k.name)
}

/// An expression reading field `name` (of type `t`) of row `r`, where `tb` is the row
/// table and `tables` the `Tables`.
pub fn read_field(
    k: &KindDef,
    tb: &TokenStream,
    tables: &TokenStream,
    name: &str,
    t: &str,
    r: &TokenStream,
) -> TokenStream {
    let f = field_ident(name);
    match store_of(k, name) {
        Store::Column => quote!(#tb.#f[#r]),
        Store::Rare => {
            let m = rare_map(k, name);
            quote!(#tables.#m.get(&(#r as u32)).copied().unwrap_or_default())
        }
        Store::Packed { shift, bits } => {
            let (shift, m) = (lit(shift), hex(mask(bits)));
            let raw = quote!(((#tb.word[#r] >> #shift) & #m));
            if t == "bool" {
                quote!((#raw != 0))
            } else if let Some(v) = vocab_of(t) {
                let (t, repr) = (ty(t), ty(v.repr));
                quote!(#t::from_raw(#raw as #repr).unwrap_or_default())
            } else {
                let t = ty(t);
                quote!((#raw as #t))
            }
        }
    }
}

/// A statement writing `v` to field `name` of row `r` (see [`read_field`]).
pub fn write_field(
    k: &KindDef,
    tb: &TokenStream,
    tables: &TokenStream,
    name: &str,
    r: &TokenStream,
    v: &TokenStream,
) -> TokenStream {
    let f = field_ident(name);
    match store_of(k, name) {
        Store::Column => quote!(#tb.#f[#r] = #v;),
        Store::Rare => {
            let m = rare_map(k, name);
            let t = ty(scalar_ty(k, name));
            quote! {{
                let v: #t = #v;
                if v == #t::default() {
                    if !#tables.#m.is_empty() {
                        #tables.#m.remove(&(#r as u32));
                    }
                } else {
                    #tables.#m.insert(#r as u32, v);
                }
            }}
        }
        Store::Packed { shift, bits } => {
            let (shift, m) = (lit(shift), hex(mask(bits)));
            quote! {{
                let w = &mut #tb.word[#r];
                *w = (*w & !(#m << #shift)) | (((#v) as u32 & #m) << #shift);
            }}
        }
    }
}
