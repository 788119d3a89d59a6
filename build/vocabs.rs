//! One `#[repr]` enum per sub-kind vocabulary, and the sub-kind counts.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::common::{doc, lit, ty};
use crate::{VocabDef, PRAGMA_KINDS_WITH_PAYLOAD, SUB_KIND_COUNTS};

/// Every vocabulary's enum, then the `counts` module.
pub fn gen(vocabs: &[VocabDef]) -> TokenStream {
    let enums = vocabs.iter().map(gen_vocab);
    let counts = gen_counts();
    quote!( #(#enums)* #counts )
}

/// The enum of one vocabulary: variants, `ALL`, `from_raw`, `raw`, `name`, `Display`.
fn gen_vocab(voc: &VocabDef) -> TokenStream {
    let t = format_ident!("{}", voc.ident);
    let r = ty(voc.repr);
    let n = lit(voc.variants.len() as u64);
    let head = doc(&format!(
        "{}\n\nColumn: `{}`. Declared in `components/vocab.rs`.",
        voc.doc, voc.column
    ));
    let variants = voc.variants.iter().enumerate().map(|(i, x)| {
        let d = doc(&format!("{} (`{}`): {}", x.number, x.name, x.doc));
        let default = (i == 0).then(|| quote!(#[default]));
        let (v, num) = (format_ident!("{}", x.ident), lit(x.number));
        quote!( #d #default #v = #num, )
    });
    let vs: Vec<_> = voc
        .variants
        .iter()
        .map(|x| format_ident!("{}", x.ident))
        .collect();
    let nums = voc.variants.iter().map(|x| lit(x.number));
    let names = voc.variants.iter().map(|x| x.name);
    let props = voc.props.iter().map(|&(prop, text)| {
        let (d, f) = (doc(text), format_ident!("{prop}"));
        let has: Vec<_> = voc
            .variants
            .iter()
            .filter(|x| x.props.contains(&prop))
            .map(|x| format_ident!("{}", x.ident))
            .collect();
        let body = if has.is_empty() {
            quote!(false)
        } else {
            quote!(matches!(self, #( #t::#has )|*))
        };
        quote! {
            #d
            #[inline]
            pub const fn #f(self) -> bool {
                #body
            }
        }
    });
    let checked = voc.bad_kind.map(|message| {
        let d = doc(&format!(
            "The variant numbered `n`, or the seed's error for a bad one.\n\n# Errors\n[`IlError::BadKind`] (\"{message}\")."
        ));
        quote! {
            #d
            pub fn checked(n: #r) -> Result<#t, IlError> {
                #t::from_raw(n).ok_or(IlError::BadKind(#message))
            }
        }
    });
    quote! {
        #head
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(#r)]
        pub enum #t {
            #(#variants)*
        }

        impl #t {
            /// Every variant, by number.
            pub const ALL: [#t; #n] = [ #( #t::#vs, )* ];

            /// The variant numbered `n`, if there is one.
            #[inline]
            pub const fn from_raw(n: #r) -> Option<#t> {
                match n {
                    #( #nums => Some(#t::#vs), )*
                    _ => None,
                }
            }

            /// The variant's number (what the column stores and files hold).
            #[inline]
            pub const fn raw(self) -> #r {
                self as #r
            }

            /// The variant's name as display and messages print it.
            pub const fn name(self) -> &'static str {
                match self {
                    #( #t::#vs => #names, )*
                }
            }

            #checked

            #(#props)*
        }

        impl std::fmt::Display for #t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    }
}

/// `counts`: the sub-kind ranges the seeds give only as counts.
fn gen_counts() -> TokenStream {
    let consts = SUB_KIND_COUNTS.iter().map(|&(name, n, text, _)| {
        let (d, name, n) = (doc(text), format_ident!("{name}"), lit(n));
        quote!( #d pub const #name: u8 = #n; )
    });
    let payload = PRAGMA_KINDS_WITH_PAYLOAD.iter().map(|&n| lit(n));
    quote! {
        /// Sub-kind ranges the seeds give only as counts (`components/vocab.rs`).
        pub mod counts {
            #(#consts)*
            /// Pragma kinds whose entry carries a payload (seed 001, `alloc_pragma`).
            pub const PRAGMA_KINDS_WITH_PAYLOAD: &[u8] = &[ #(#payload),* ];
        }
    }
}
