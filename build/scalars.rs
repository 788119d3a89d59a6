//! Scalars by position, for display and binary IL records: names, widths, and reading
//! and writing a row's scalars as little-endian bytes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::common::{
    field_ident, lit, read_field, scalars_of, store_of, table_ident, tabled, ty, variant, vocab_of,
    width, write_field, Store,
};
use crate::KindDef;

/// `SCALAR_NAMES`, `get_scalar`, `SCALAR_BYTES`, `write_scalar_bytes`,
/// `push_row_from_bytes` and their byte helper.
pub fn gen(all: &[KindDef]) -> TokenStream {
    let names = all.iter().map(|k| {
        let ns = scalars_of(k).into_iter().map(|(n, _)| n);
        quote!(&[#(#ns),*])
    });
    let get = tabled(all).flat_map(|k| {
        let (v, tb) = (variant(k), table_ident(k));
        scalars_of(k)
            .into_iter()
            .enumerate()
            .map(move |(i, (n, t))| {
                let val = read_field(k, &quote!(self.#tb), &quote!(self), n, t, &quote!(r));
                let i = lit(i as u64);
                quote!((EntryKind::#v, #i) => #val as i64,)
            })
    });
    let bytes = all.iter().map(|k| {
        lit(scalars_of(k)
            .iter()
            .map(|(_, t)| width(t) as u64)
            .sum::<u64>())
    });
    let write = gen_write(all);
    let read = gen_read(all);
    quote! {
        /// Names of each kind's scalar and flag columns, in schema order.
        pub static SCALAR_NAMES: [&[&str]; 85] = [ #(#names,)* ];

        impl Tables {
            /// Scalar `i` (schema order, flags included) of a row, widened to i64.
            pub fn get_scalar(&self, kind: EntryKind, row: u32, i: usize) -> i64 {
                let r = row as usize;
                match (kind, i) {
                    #(#get)*
                    _ => 0,
                }
            }
        }

        /// Bytes of each kind's scalar and flag columns at their own widths (flags one byte).
        pub static SCALAR_BYTES: [u8; 85] = [ #(#bytes,)* ];

        impl Tables {
            #write
            #read
        }

        /// `N` bytes of `b` from `at`.
        #[inline(always)]
        fn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
            let mut a = [0u8; N];
            a.copy_from_slice(&b[at..at + N]);
            a
        }
    }
}

/// `write_scalar_bytes`: a row's scalars at their column widths, in schema order.
fn gen_write(all: &[KindDef]) -> TokenStream {
    let arms = tabled(all).map(|k| {
        let (v, tb) = (variant(k), table_ident(k));
        let mut off = 0;
        let puts: Vec<TokenStream> = scalars_of(k)
            .into_iter()
            .map(|(n, t)| {
                let w = width(t);
                let val = read_field(k, &quote!(self.#tb), &quote!(self), n, t, &quote!(r));
                let (at, end) = (lit(off as u64), lit((off + w) as u64));
                off += w;
                if t == "bool" {
                    quote!(out[#at] = #val as u8;)
                } else if let Some(voc) = vocab_of(t) {
                    let repr = ty(voc.repr);
                    quote!(out[#at..#end].copy_from_slice(&(#val as #repr).to_le_bytes());)
                } else {
                    quote!(out[#at..#end].copy_from_slice(&#val.to_le_bytes());)
                }
            })
            .collect();
        let off = lit(off as u64);
        quote!(EntryKind::#v => { let out = &mut out[..#off]; #(#puts)* let _ = (r, out); })
    });
    quote! {
        /// Writes the scalars of a row at their column widths, little-endian, in schema order,
        /// into the first [`SCALAR_BYTES`] bytes of `out`.
        ///
        /// # Panics
        /// If `out` is shorter than the kind's [`SCALAR_BYTES`].
        pub fn write_scalar_bytes(&self, kind: EntryKind, row: u32, out: &mut [u8]) {
            let r = row as usize;
            match kind {
                #(#arms)*
                _ => {}
            }
        }
    }
}

/// `push_row_from_bytes`: the inverse of `write_scalar_bytes`, as a new row.
fn gen_read(all: &[KindDef]) -> TokenStream {
    let arms = tabled(all).map(|k| {
        let (v, tb, row) = (
            variant(k),
            table_ident(k),
            format_ident!("{}Row", variant(k)),
        );
        let mut off = 0;
        let mut fields = vec![quote!(eix)];
        // Each value into a local first; columns, the packed word and rare maps from them.
        let mut locals = Vec::new();
        let mut word = Vec::new();
        let mut rares = Vec::new();
        for (n, t) in scalars_of(k) {
            let (name, at) = (field_ident(n), lit(off as u64));
            locals.push(if t == "bool" {
                quote!(let #name = b[#at] != 0;)
            } else if let Some(voc) = vocab_of(t) {
                let (tt, repr) = (ty(t), ty(voc.repr));
                let msg = format!("{}.{n}: not a {t}", k.name);
                quote! {
                    let #name = match #tt::from_raw(#repr::from_le_bytes(le(b, #at))) {
                        Some(x) => x,
                        None => return Err(#msg),
                    };
                }
            } else {
                let tt = ty(t);
                quote!(let #name: #tt = #tt::from_le_bytes(le(b, #at));)
            });
            match store_of(k, n) {
                Store::Column => fields.push(quote!(#name)),
                Store::Packed { shift, .. } => {
                    let shift = lit(shift);
                    word.push(quote!(((#name as u32) << #shift)));
                }
                Store::Rare => rares.push(write_field(
                    k,
                    &quote!(),
                    &quote!(self),
                    n,
                    &quote!(row),
                    &quote!(#name),
                )),
            }
            off += width(t);
        }
        if !word.is_empty() {
            let first = word.remove(0);
            let w = word.into_iter().fold(first, |acc, p| quote!(#acc | #p));
            fields.push(quote!(word: #w));
        }
        quote! {
            EntryKind::#v => {
                #(#locals)*
                self.#tb.push(#row { #(#fields),*, ..Default::default() });
                let row = self.#tb.len() - 1;
                #(#rares)*
                Ok(row as u32)
            }
        }
    });
    quote! {
        /// Appends a row of `kind` owned by `eix` with its scalars read from `b` (as
        /// [`Tables::write_scalar_bytes`] wrote them; `b` holds at least [`SCALAR_BYTES`]
        /// bytes for the kind) and default strings.
        ///
        /// # Errors
        /// A sub-kind column holding a number its vocabulary does not have (nothing pushed).
        ///
        /// # Panics
        /// If `kind` has no table or `b` is short.
        pub fn push_row_from_bytes(&mut self, kind: EntryKind, eix: Eix, b: &[u8]) -> Result<u32, &'static str> {
            match kind {
                #(#arms)*
                k => panic!("kind {} has no table", k.name()),
            }
        }
    }
}
