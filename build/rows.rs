//! Per kind with a table: its SoA row type, its row cloner and its packed-word builder.

use proc_macro2::TokenStream;
use quote::quote;

use crate::common::{
    column_ty, doc, field_ident, kind_type, lit, scalar_ty, store_of, string_fields, tabled, ty,
    value_columns, Store,
};
use crate::{Field, KindDef};

/// `a || b || ...` of boolean expressions.
pub fn or_all(parts: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let mut it = parts.into_iter();
    let first = it.next().unwrap_or_else(|| quote!(false));
    it.fold(first, |acc, p| quote!(#acc || #p))
}

/// The row types, cloners and packers of every kind with a table.
pub fn gen(all: &[KindDef]) -> TokenStream {
    let per_kind = tabled(all).map(|k| {
        let row = gen_row(k);
        let cloner = gen_cloner(k);
        let pack = gen_pack_word(k);
        quote!( #row #cloner #pack )
    });
    quote!( #(#per_kind)* )
}

/// `XRow`: the row struct soa_derive turns into the `XRowVec` table.
fn gen_row(k: &KindDef) -> TokenStream {
    let row = kind_type(k, "Row");
    let head = doc(&format!("Row of the `{}` table: {}", k.name, k.doc));
    let column = |name: &str, text: String| {
        let (d, f, t) = (doc(&text), field_ident(name), column_ty(k, name));
        quote!( #d pub #f: #t, )
    };
    let mut cols: Vec<TokenStream> = k
        .fields
        .iter()
        .filter_map(|f| match *f {
            Field::Scalar { name, .. } if store_of(k, name) == Store::Column => {
                Some(column(name, format!("Scalar `{name}`.")))
            }
            Field::Str { name, string_kind } => Some(column(
                name,
                format!("String `{name}` (string kind {string_kind})."),
            )),
            Field::Flag { name } if store_of(k, name) == Store::Column => {
                Some(column(name, format!("Flag `{name}`.")))
            }
            _ => None,
        })
        .collect();
    if !k.packed.is_empty() {
        let names: Vec<&str> = k.packed.iter().map(|p| p.0).collect();
        let text = format!(
            "Packed `{}` (low bits first; read them through the views).",
            names.join("`, `")
        );
        cols.push(column("word", text));
    }
    for &(n, t) in &k.derived {
        let (d, f, t) = (
            doc(&format!("Derived `{n}` (kept true by the world).")),
            field_ident(n),
            ty(t),
        );
        cols.push(quote!( #d pub #f: #t, ));
    }
    quote! {
        #head
        #[derive(Clone, Debug, Default, PartialEq, StructOfArray)]
        #[soa_derive(Debug, Clone, Default)]
        pub struct #row {
            /// The entry this row belongs to (dense entry index).
            pub eix: Eix,
            #(#cols)*
        }
    }
}

/// `XCloner`: every column cut to the table's length once, so copying a row takes one
/// range check (the batch clones' row copy).
fn gen_cloner(k: &KindDef) -> TokenStream {
    let (vec, cloner) = (kind_type(k, "RowVec"), kind_type(k, "Cloner"));
    let head = doc(&format!(
        "The `{}` table's columns cut to its length, to copy rows within it (side-map\nfields are the caller's).",
        k.name
    ));
    let vc = value_columns(k);
    let cs: Vec<_> = vc.iter().map(|c| field_ident(c)).collect();
    let ts = vc.iter().map(|c| column_ty(k, c));
    let strings: Vec<_> = string_fields(k).into_iter().map(field_ident).collect();
    let has_strings = if strings.is_empty() {
        quote! {
            let _ = r;
            false
        }
    } else {
        let tests = strings.iter().map(|s| quote!(self.#s[r].is_some()));
        or_all(tests)
    };
    quote! {
        #head
        pub(crate) struct #cloner<'a> {
            n: usize,
            eix: &'a mut [Eix],
            #( pub(crate) #cs: &'a mut [#ts], )*
        }

        impl #vec {
            /// The cloner over these rows.
            #[inline(always)]
            pub(crate) fn cloner(&mut self) -> #cloner<'_> {
                let n = self.eix.len();
                #cloner { n, eix: &mut self.eix[..n], #( #cs: &mut self.#cs[..n] ),* }
            }
        }

        impl #cloner<'_> {
            /// Copies row `f` into row `r`, then owned by `e`.
            ///
            /// # Panics
            /// If a row is out of range.
            #[inline(always)]
            pub(crate) fn clone_row(&mut self, f: usize, r: usize, e: Eix) {
                assert!(f < self.n && r < self.n, "row out of range");
                self.eix[r] = e;
                #( self.#cs[r] = self.#cs[f]; )*
            }

            /// Copies rows `f0..f0 + n` into rows `r0..r0 + n`, then owned by `e0..e0 + n`.
            ///
            /// # Panics
            /// If a row is out of range.
            #[inline(always)]
            pub(crate) fn clone_run(&mut self, f0: usize, r0: usize, n: usize, e0: u32) {
                assert!(f0 <= self.n && n <= self.n - f0, "row out of range");
                for (k, e) in self.eix[r0..r0 + n].iter_mut().enumerate() {
                    *e = Eix::from_raw(e0.wrapping_add(k as u32));
                }
                #( self.#cs.copy_within(f0..f0 + n, r0); )*
            }

            /// Whether any string field of row `r` is set (as [`Tables::has_strings`]).
            #[allow(dead_code)]
            #[inline(always)]
            pub(crate) fn has_strings(&self, r: usize) -> bool {
                #has_strings
            }
        }
    }
}

/// `XRow::pack_word` for a kind with packed fields.
fn gen_pack_word(k: &KindDef) -> TokenStream {
    if k.packed.is_empty() {
        return quote!();
    }
    let row = kind_type(k, "Row");
    let names: Vec<_> = k.packed.iter().map(|&(n, _)| field_ident(n)).collect();
    let tys = k.packed.iter().map(|&(n, _)| ty(scalar_ty(k, n)));
    let shifts = k.packed.iter().map(|&(n, _)| match store_of(k, n) {
        Store::Packed { shift, .. } => lit(shift),
        _ => unreachable!(),
    });
    quote! {
        impl #row {
            /// The packed `word` of these values.
            #[inline(always)]
            pub fn pack_word(#( #names: #tys ),*) -> u32 {
                #( ((#names as u32) << #shifts) )|*
            }
        }
    }
}
