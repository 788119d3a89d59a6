//! Typed views per kind: `XView` reads a row's value columns, `XEdit` writes them through
//! setters, and `Il` gets `x(e)`, `as_x(e)`, `x_mut(e)` and `x_columns()`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::common::{
    doc, field_ident, hex, kind_type, mask, read_field, scalar_ty, store_of, table_ident, tabled,
    ty, variant, write_field, Store,
};
use crate::{Field, KindDef};

/// The name of a kind's accessor on `Il` (`il.expr(e)`, `il.ty(e)`, `il.routine(e)`).
fn accessor(k: &KindDef) -> String {
    match k.name {
        "type" => "ty".to_string(),
        "expr_node" => "expr".to_string(),
        n => n.to_string(),
    }
}

/// The views of every kind with a table.
pub fn gen(all: &[KindDef]) -> TokenStream {
    let per_kind = tabled(all).map(|k| {
        let has_values = k.fields.iter().any(|f| {
            matches!(
                f,
                Field::Scalar { .. } | Field::Str { .. } | Field::Flag { .. }
            )
        });
        if !has_values {
            // No value columns: nothing to view; scans still get the (eix) column.
            return gen_columns_only(k);
        }
        let read = gen_read_view(k);
        let edit = gen_edit_view(k);
        let il = gen_il_accessors(k);
        let packed = gen_packed_slice(k);
        quote!( #read #edit #il #packed )
    });
    quote!( #(#per_kind)* )
}

/// `Il::x_columns` alone, for a kind without value columns.
fn gen_columns_only(k: &KindDef) -> TokenStream {
    let (slice, t) = (kind_type(k, "RowSlice"), table_ident(k));
    let columns = format_ident!("{}_columns", accessor(k));
    let d = doc(&format!(
        "The `{}` table's rows, read-only (`eix[row]` is the row's entry, `Eix::NONE` for\na free row), for scans.",
        k.name
    ));
    quote! {
        impl Il {
            #d
            #[inline]
            pub fn #columns(&self) -> #slice<'_> {
                self.tables.#t.as_slice()
            }
        }
    }
}

/// `XView`: a getter per scalar, flag and string.
fn gen_read_view(k: &KindDef) -> TokenStream {
    let (view, t) = (kind_type(k, "View"), table_ident(k));
    let head = doc(&format!(
        "Read view of one `{}` entry's value columns ([`Il::{}`]).",
        k.name,
        accessor(k)
    ));
    let (tb, tables, r) = (
        quote!(self.il.tables.#t),
        quote!(self.il.tables),
        quote!(self.r),
    );
    let getters = k.fields.iter().map(|f| match *f {
        Field::Scalar { name, ty: st } => {
            let d = doc(&format!("`{}.{name}`.", k.name));
            let (f, rt) = (field_ident(name), ty(st));
            let val = read_field(k, &tb, &tables, name, st, &r);
            quote!( #d #[inline] pub fn #f(&self) -> #rt { #val } )
        }
        Field::Flag { name } => {
            let d = doc(&format!("Flag `{}.{name}`.", k.name));
            let f = field_ident(name);
            let val = read_field(k, &tb, &tables, name, "bool", &r);
            quote!( #d #[inline] pub fn #f(&self) -> bool { #val } )
        }
        Field::Str { name, string_kind } => {
            let d = doc(&format!(
                "String `{}.{name}` (string kind {string_kind}): its bytes in the entry's region, empty when unset.",
                k.name
            ));
            let has_d = doc(&format!("Whether string `{}.{name}` is set.", k.name));
            let (f, has) = (field_ident(name), format_ident!("has_{name}"));
            quote! {
                #d
                #[inline]
                pub fn #f(&self) -> &'a [u8] {
                    let s = self.il.tables.#t.#f[self.r];
                    if s.is_some() { self.il.str_bytes(self.e, s) } else { &[] }
                }

                #has_d
                #[inline]
                pub fn #has(&self) -> bool {
                    self.il.tables.#t.#f[self.r].is_some()
                }
            }
        }
        _ => quote!(),
    });
    let sub_kinds = k.sub_kinds.iter().map(|s| {
        let d = doc(&format!(
            "`{}.{}` as a `{}`: `Some` when `{}` is `{}` and the byte names a value.",
            k.name, s.column, s.vocab, s.by, s.when
        ));
        let (f, col, by) = (
            field_ident(s.accessor),
            field_ident(s.column),
            field_ident(s.by),
        );
        let (voc, by_ty, when) = (
            ty(s.vocab),
            ty(scalar_ty(k, s.by)),
            format_ident!("{}", s.when),
        );
        let from = format_ident!(
            "{}",
            if s.vocab == "EntryKind" {
                "from_u8"
            } else {
                "from_raw"
            }
        );
        quote! {
            #d
            #[inline]
            pub fn #f(&self) -> Option<#voc> {
                if self.#by() == #by_ty::#when { #voc::#from(self.#col()) } else { None }
            }
        }
    });
    quote! {
        #head
        #[derive(Clone, Copy, Debug)]
        pub struct #view<'a> {
            il: &'a Il,
            e: Eix,
            r: usize,
        }

        impl<'a> #view<'a> {
            /// The entry.
            #[inline]
            pub fn eix(&self) -> Eix {
                self.e
            }

            #(#getters)*
            #(#sub_kinds)*
        }
    }
}

/// `XEdit`: a setter per scalar, flag and string, each telling the world the row changed.
fn gen_edit_view(k: &KindDef) -> TokenStream {
    let (view, edit, t, v) = (
        kind_type(k, "View"),
        kind_type(k, "Edit"),
        table_ident(k),
        variant(k),
    );
    let head = doc(&format!(
        "Write view of one `{}` entry's value columns ([`Il::{}_mut`]): setters that keep\nthe world's derived columns true.",
        k.name,
        accessor(k)
    ));
    let (tb, tables, r, val) = (
        quote!(self.il.tables.#t),
        quote!(self.il.tables),
        quote!(self.r),
        quote!(v),
    );
    let setter = |d: String, name: &str, arg: TokenStream, body: TokenStream| {
        let (d, set) = (doc(&d), format_ident!("set_{name}"));
        quote! {
            #d
            #[inline]
            pub fn #set(&mut self, #arg) -> &mut Self {
                #body
                self.il.row_changed(EntryKind::#v, self.e);
                self
            }
        }
    };
    let mut si = 0u64;
    let setters = k.fields.iter().map(|f| match *f {
        Field::Scalar { name, .. } => {
            let rt = ty(scalar_ty(k, name));
            let body = write_field(k, &tb, &tables, name, &r, &val);
            setter(
                format!("Sets `{}.{name}`.", k.name),
                name,
                quote!(v: #rt),
                body,
            )
        }
        Field::Flag { name } => {
            let body = write_field(k, &tb, &tables, name, &r, &val);
            setter(
                format!("Sets flag `{}.{name}`.", k.name),
                name,
                quote!(v: bool),
                body,
            )
        }
        Field::Str { name, .. } => {
            let i = crate::common::lit(si);
            si += 1;
            let body = quote!(self.il.set_string_eix(self.e, #i, bytes););
            let d = format!(
                "Stores `bytes` in the entry's region as string `{}.{name}`.",
                k.name
            );
            setter(d, name, quote!(bytes: &[u8]), body)
        }
        _ => quote!(),
    });
    let mut setters: Vec<TokenStream> = setters.collect();
    for s in &k.sub_kinds {
        let d = doc(&format!(
            "Sets `{}.{}` to a `{}` (the entry's `{}` should be `{}`).",
            k.name, s.column, s.vocab, s.by, s.when
        ));
        let (set, set_col, voc) = (
            format_ident!("set_{}", s.accessor),
            format_ident!("set_{}", s.column),
            ty(s.vocab),
        );
        setters.push(quote! {
            #d
            #[inline]
            pub fn #set(&mut self, v: #voc) -> &mut Self {
                self.#set_col(v as u8)
            }
        });
    }
    quote! {
        #head
        #[derive(Debug)]
        pub struct #edit<'a> {
            il: &'a mut Il,
            e: Eix,
            r: usize,
        }

        impl #edit<'_> {
            /// The entry.
            #[inline]
            pub fn eix(&self) -> Eix {
                self.e
            }

            /// Reads the entry as it stands.
            #[inline]
            pub fn view(&self) -> #view<'_> {
                #view { il: self.il, e: self.e, r: self.r }
            }

            #(#setters)*
        }
    }
}

/// `Il::x`, `Il::as_x`, `Il::x_mut`, `Il::x_columns`.
fn gen_il_accessors(k: &KindDef) -> TokenStream {
    let (n, a) = (k.name, accessor(k));
    let (view, edit, slice) = (
        kind_type(k, "View"),
        kind_type(k, "Edit"),
        kind_type(k, "RowSlice"),
    );
    let (t, v) = (table_ident(k), variant(k));
    let name = |s: String| -> Ident { format_ident!("{s}") };
    let (get, as_get, get_mut, columns) = (
        name(a.clone()),
        name(format!("as_{a}")),
        name(format!("{a}_mut")),
        name(format!("{a}_columns")),
    );
    let d_get = doc(&format!(
        "The `{n}` entry `e`, to read.\n\n# Panics\nIf `e` is not a live `{n}`."
    ));
    let d_as = doc(&format!(
        "The `{n}` entry `e`, to read, or `None` when `e` is not a live `{n}`."
    ));
    let d_mut = doc(&format!(
        "The `{n}` entry `e`, to write.\n\n# Panics\nIf `e` is not a live `{n}`."
    ));
    let d_cols = doc(&format!(
        "The `{n}` table's columns, read-only, indexed by row (`eix[row]` is the row's\nentry, `Eix::NONE` for a free row), for scans."
    ));
    quote! {
        impl Il {
            #d_get
            #[inline]
            pub fn #get(&self, e: Eix) -> #view<'_> {
                self.expect_kind(e, EntryKind::#v);
                #view { il: self, e, r: self.row(e) as usize }
            }

            #d_as
            #[inline]
            pub fn #as_get(&self, e: Eix) -> Option<#view<'_>> {
                (self.is_live(e) && self.kind(e) == EntryKind::#v).then(|| #view { il: self, e, r: self.row(e) as usize })
            }

            #d_mut
            #[inline]
            pub fn #get_mut(&mut self, e: Eix) -> #edit<'_> {
                self.expect_kind(e, EntryKind::#v);
                let r = self.row(e) as usize;
                #edit { il: self, e, r }
            }

            #d_cols
            #[inline]
            pub fn #columns(&self) -> #slice<'_> {
                self.tables.#t.as_slice()
            }
        }
    }
}

/// Getters of packed fields on the column slice (unpacked from `word`).
fn gen_packed_slice(k: &KindDef) -> TokenStream {
    if k.packed.is_empty() {
        return quote!();
    }
    let slice = kind_type(k, "RowSlice");
    let getters = k.packed.iter().map(|&(name, _)| {
        let st = scalar_ty(k, name);
        let (f, rt) = (field_ident(name), ty(st));
        let d = doc(&format!("`{}.{name}` of row `r` (unpacked from `word`).", k.name));
        let val = read_field(k, &quote!(self), &quote!(self), name, st, &quote!(r));
        let bits_fn = match store_of(k, name) {
            Store::Packed { shift, bits } => {
                let d = doc(&format!(
                    "The bits of `{}.{name}` in a packed `word` as stored (no check that they name a value).",
                    k.name
                ));
                let (f, shift, m) = (
                    format_ident!("{name}_bits"),
                    crate::common::lit(shift),
                    hex(mask(bits)),
                );
                quote! {
                    #d
                    #[inline(always)]
                    pub fn #f(word: u32) -> u32 {
                        (word >> #shift) & #m
                    }
                }
            }
            _ => quote!(),
        };
        quote! {
            #d
            #[inline]
            pub fn #f(&self, r: usize) -> #rt {
                #val
            }

            #bits_fn
        }
    });
    quote! {
        impl #slice<'_> {
            #(#getters)*
        }
    }
}
