//! `Tables`: one SoA table per kind with a table, the side maps of rare fields, and the
//! per-kind dispatch over them (rows, strings, row copies).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::common::{
    doc, field_ident, kind_type, lit, rare_map, string_fields, table_ident, tabled, ty,
    value_columns, variant,
};
use crate::rows::or_all;
use crate::{Field, KindDef};

/// The `Tables` struct, its `Drop`, and its per-kind methods.
pub fn gen(all: &[KindDef]) -> TokenStream {
    let structure = gen_struct(all);
    let rows = gen_row_methods(all);
    let strings = gen_string_methods(all);
    let copies = gen_copy_methods(all);
    let set_string = gen_set_string(all);
    quote! {
        #structure
        impl Tables {
            #rows
            #strings
            #copies
            #set_string
        }
    }
}

/// The struct and its `Drop`.
///
/// soa_derive's `Drop` pops a table's rows one at a time (for element types with
/// destructors); every column here is plain data, so dropping the world hands each
/// column's buffer back whole and leaves the generated `Drop` nothing to pop.
fn gen_struct(all: &[KindDef]) -> TokenStream {
    let tables = tabled(all).map(|k| {
        let d = doc(&format!("Rows of kind {} ({}).", k.number, k.name));
        let (t, vec) = (table_ident(k), kind_type(k, "RowVec"));
        quote!( #d pub(crate) #t: #vec, )
    });
    let rare = tabled(all).flat_map(|k| {
        k.rare.iter().map(move |n| {
            let t = k
                .fields
                .iter()
                .find_map(|f| match *f {
                    Field::Scalar { name, ty } if name == *n => Some(ty),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("schema: {}: rare field {n} is not a scalar", k.name));
            let d = doc(&format!(
                "Rare scalar `{}.{n}` by row (absent: the default).",
                k.name
            ));
            let (m, t) = (rare_map(k, n), ty(t));
            quote!( #d pub(crate) #m: ::ahash::AHashMap<u32, #t>, )
        })
    });
    let drops = tabled(all).flat_map(|k| {
        let t = table_ident(k);
        std::iter::once("eix")
            .chain(value_columns(k))
            .map(move |c| {
                let c = field_ident(c);
                quote!(drop(std::mem::take(&mut self.#t.#c));)
            })
    });
    quote! {
        /// One SoA table per allocatable kind, keyed by dense row.
        ///
        /// # Invariants
        /// - `eix[r]` names the entry whose row is `r`, or `Eix::NONE` for a free row.
        #[derive(Clone, Debug, Default)]
        pub struct Tables {
            #(#tables)*
            #(#rare)*
        }

        impl Drop for Tables {
            fn drop(&mut self) {
                #(#drops)*
            }
        }
    }
}

/// `match kind { EntryKind::X => arm(x), ... }` arms over the kinds with a table.
fn arms<'a>(
    all: &'a [KindDef],
    arm: impl Fn(&KindDef, &Ident) -> TokenStream + 'a,
) -> impl Iterator<Item = TokenStream> + 'a {
    tabled(all).map(move |k| {
        let (v, body) = (variant(k), arm(k, &table_ident(k)));
        quote!(EntryKind::#v => #body)
    })
}

/// `push_default`, `reset_row`, `row_eix`, `reserve`, `len`, `row_bytes`.
fn gen_row_methods(all: &[KindDef]) -> TokenStream {
    let push = arms(all, |k, t| {
        let row = kind_type(k, "Row");
        quote!({ self.#t.push(#row { eix, ..Default::default() }); (self.#t.len() - 1) as u32 })
    });
    let reset = arms(all, |k, t| {
        let row = kind_type(k, "Row");
        let clear = k.rare.iter().map(|f| {
            let m = rare_map(k, f);
            quote!(if !self.#m.is_empty() { self.#m.remove(&row); })
        });
        quote!({ self.#t.replace(row as usize, #row { eix, ..Default::default() }); #(#clear)* })
    });
    let row_eix = arms(
        all,
        |_, t| quote!(self.#t.eix.get(row as usize).copied().unwrap_or(Eix::NONE),),
    );
    let reserve = arms(all, |_, t| quote!(self.#t.reserve(n),));
    let len = arms(all, |_, t| quote!(self.#t.len(),));
    let bytes = arms(all, |k, _| {
        let row = kind_type(k, "Row");
        quote!(std::mem::size_of::<#row>(),)
    });
    quote! {
        /// Appends a default row for `kind` owned by `eix`; returns the row.
        ///
        /// # Panics
        /// If `kind` has no table.
        pub fn push_default(&mut self, kind: EntryKind, eix: Eix) -> u32 {
            match kind {
                #(#push)*
                k => panic!("kind {} has no table", k.name()),
            }
        }

        /// Resets row `row` of `kind` to defaults, owned by `eix` (`Eix::NONE` frees it).
        pub fn reset_row(&mut self, kind: EntryKind, row: u32, eix: Eix) {
            match kind {
                #(#reset)*
                _ => {}
            }
        }

        /// The entry owning row `row` of `kind` (`Eix::NONE` for a free row or no table).
        pub fn row_eix(&self, kind: EntryKind, row: u32) -> Eix {
            match kind {
                #(#row_eix)*
                _ => Eix::NONE,
            }
        }

        /// Reserves room for `n` more rows of `kind` in every column.
        pub fn reserve(&mut self, kind: EntryKind, n: usize) {
            match kind {
                #(#reserve)*
                _ => {}
            }
        }

        /// Number of rows (live and free) of `kind`.
        pub fn len(&self, kind: EntryKind) -> usize {
            match kind {
                #(#len)*
                _ => 0,
            }
        }

        /// Bytes one row of `kind` takes across its columns.
        pub fn row_bytes(kind: EntryKind) -> usize {
            match kind {
                #(#bytes)*
                _ => 0,
            }
        }
    }
}

/// `strings` and `has_strings`: arms only for kinds with string fields.
fn gen_string_methods(all: &[KindDef]) -> TokenStream {
    let with_strings = || tabled(all).filter(|k| !string_fields(k).is_empty());
    let fields =
        |k: &KindDef| -> Vec<Ident> { string_fields(k).into_iter().map(field_ident).collect() };
    let list = with_strings().map(|k| {
        let (v, t, fs) = (variant(k), table_ident(k), fields(k));
        quote!(EntryKind::#v => { #( out.push(self.#t.#fs[r]); )* })
    });
    let any = with_strings().map(|k| {
        let (v, t) = (variant(k), table_ident(k));
        let set = or_all(fields(k).iter().map(|f| quote!(self.#t.#f[r].is_some())));
        quote!(EntryKind::#v => #set,)
    });
    quote! {
        /// The string fields of a row, in schema order, as (layout index, handle).
        pub fn strings(&self, kind: EntryKind, row: u32) -> StrFields {
            let r = row as usize;
            let mut out = StrFields::default();
            match kind {
                #(#list)*
                _ => {}
            }
            out
        }

        /// Whether any string field of a row is set (what [`Tables::strings`] would list
        /// as `Some`), without building the list.
        #[inline]
        pub fn has_strings(&self, kind: EntryKind, row: u32) -> bool {
            let r = row as usize;
            match kind {
                #(#any)*
                _ => false,
            }
        }
    }
}

/// Moves side map `m`'s value of row `f` of `src` to row `t` of `dst` (removing `t`'s
/// when `f` has none).
fn rare_move(m: &Ident, dst: &TokenStream, src: &TokenStream, f: &Ident, t: &Ident) -> TokenStream {
    quote! {
        match #src.#m.get(&(#f as u32)).copied() {
            Some(v) => { #dst.#m.insert(#t as u32, v); }
            None => { #dst.#m.remove(&(#t as u32)); }
        }
    }
}

/// `copy_row`, `copy_row_from`, `clone_rows`, `clone_row_run`.
fn gen_copy_methods(all: &[KindDef]) -> TokenStream {
    let (f, t, r) = (
        quote::format_ident!("f"),
        quote::format_ident!("t"),
        quote::format_ident!("r"),
    );
    let this = quote!(self);
    // copy_row (within one table set) and copy_row_from (from another) share one shape.
    let copy = |src: TokenStream| {
        let arms = arms(all, |k, tb| {
            let cols: Vec<Ident> = value_columns(k).into_iter().map(field_ident).collect();
            // The side maps: cheap when no row of the kind has a rare value.
            let rare = k.rare.iter().map(|n| {
                let m = rare_map(k, n);
                let mv = rare_move(&m, &this, &src, &f, &t);
                quote!(if !#src.#m.is_empty() || !self.#m.is_empty() { #mv })
            });
            quote!({ #( self.#tb.#cols[t] = #src.#tb.#cols[f]; )* #(#rare)* let _ = (f, t, &#src); })
        });
        quote!( match kind { #(#arms)* _ => {} } )
    };
    let (own, other) = (copy(quote!(self)), copy(quote!(other)));
    // The batch copies: each side map that is not empty is visited over `pairs`.
    let batch = |columns: &dyn Fn(&Ident) -> TokenStream, pairs: TokenStream| {
        let arms = arms(all, |k, tb| {
            let cols = columns(tb);
            let rare = k.rare.iter().map(|n| {
                let m = rare_map(k, n);
                let mv = rare_move(&m, &this, &this, &f, &r);
                quote!(if !self.#m.is_empty() { for #pairs { #mv } })
            });
            quote!({ #cols #(#rare)* })
        });
        quote!( match kind { #(#arms)* k => panic!("kind {} has no table", k.name()), } )
    };
    let rows = batch(
        &|tb| quote!({ let mut c = self.#tb.cloner(); for ((&f, &r), &e) in from.iter().zip(to).zip(eix) { c.clone_row(f as usize, r as usize, e); } }),
        quote!((&f, &r) in from.iter().zip(to)),
    );
    let run = batch(
        &|tb| quote!(self.#tb.cloner().clone_run(f0, r0, n, e0);),
        quote!((f, r) in (f0..f0 + n).zip(r0..r0 + n)),
    );
    quote! {
        /// Copies every column but `eix` from row `from` to row `to` of `kind`.
        pub fn copy_row(&mut self, kind: EntryKind, from: u32, to: u32) {
            let (f, t) = (from as usize, to as usize);
            #own
        }

        /// Copies every column but `eix` from row `from` of `other` to row `to` of `self`.
        pub fn copy_row_from(&mut self, other: &Tables, kind: EntryKind, from: u32, to: u32) {
            let (f, t) = (from as usize, to as usize);
            #other
        }

        /// Copies rows `from[i]` of `kind` into rows `to[i]` (rows that exist already), each
        /// then owned by `eix[i]` (the batch clone's row copy).
        ///
        /// # Panics
        /// If `kind` has no table or a row is out of range.
        pub fn clone_rows(&mut self, kind: EntryKind, from: &[u32], to: &[u32], eix: &[Eix]) {
            #rows
        }

        /// [`Tables::clone_rows`] of the runs `from = f0..f0 + n`, `to = r0..r0 + n`, `eix =
        /// e0..e0 + n`: each column copied as one slice.
        ///
        /// # Panics
        /// If `kind` has no table or a row is out of range.
        pub(crate) fn clone_row_run(&mut self, kind: EntryKind, f0: usize, r0: usize, n: usize, e0: u32) {
            #run
        }
    }
}

/// `set_string`: string field `index` of a row, by kind and index.
fn gen_set_string(all: &[KindDef]) -> TokenStream {
    let arms = tabled(all).flat_map(|k| {
        let (v, t) = (variant(k), table_ident(k));
        string_fields(k).into_iter().enumerate().map(move |(i, n)| {
            let (i, n) = (lit(i as u64), field_ident(n));
            quote!((EntryKind::#v, #i) => self.#t.#n[r] = s,)
        })
    });
    quote! {
        /// Sets string field `index` (schema order among the kind's strings) of a row.
        pub fn set_string(&mut self, kind: EntryKind, row: u32, index: usize, s: Str) {
            let r = row as usize;
            match (kind, index) {
                #(#arms)*
                _ => panic!("{} has no string field {index}", kind.name()),
            }
        }
    }
}
