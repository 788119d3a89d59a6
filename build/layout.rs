//! The edge layout: `LAYOUT`, the per-kind slot counts and the named field handles.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::common::{doc, lit, target_expr, variant};
use crate::{Field, KindDef};

/// A kind's edges by role: (name, target kind name) per single child, list and
/// reference, (name, string kind) per string.
struct Edges {
    singles: Vec<(&'static str, &'static str)>,
    lists: Vec<(&'static str, &'static str)>,
    refs: Vec<(&'static str, &'static str)>,
    strs: Vec<(&'static str, u8)>,
}

fn edges(k: &KindDef) -> Edges {
    let mut e = Edges {
        singles: vec![],
        lists: vec![],
        refs: vec![],
        strs: vec![],
    };
    for f in &k.fields {
        match *f {
            Field::Child { name, target } => e.singles.push((name, target)),
            Field::List { name, target, .. } => e.lists.push((name, target)),
            Field::Ref { name, target } => e.refs.push((name, target)),
            Field::Str { name, string_kind } => e.strs.push((name, string_kind)),
            _ => {}
        }
    }
    e
}

/// `LAYOUT`, `NLISTS`, `NSINGLES`, `NREFS` and the `fields` module.
pub fn gen(all: &[KindDef]) -> TokenStream {
    let layouts = all.iter().map(|k| {
        let e = edges(k);
        let info = |v: &[(&str, &str)]| -> Vec<TokenStream> {
            v.iter()
                .map(|&(n, t)| {
                    let t = target_expr(all, t, k.name);
                    quote!(FieldInfo { name: #n, target: #t })
                })
                .collect()
        };
        let (s, l, r) = (info(&e.singles), info(&e.lists), info(&e.refs));
        let strs = e.strs.iter().map(|&(n, sk)| {
            let sk = lit(sk);
            quote!(StrFieldInfo { name: #n, string_kind: #sk })
        });
        quote! {
            KindLayout { singles: &[#(#s),*], lists: &[#(#l),*], refs: &[#(#r),*], strings: &[#(#strs),*] }
        }
    });
    let counts = [
        (
            "NLISTS",
            "Number of list fields per kind (a byte table for hot loops).",
            (|f| matches!(f, Field::List { .. })) as fn(&Field) -> bool,
        ),
        (
            "NSINGLES",
            "Number of single-child slots per kind (a byte table for hot loops).",
            |f| matches!(f, Field::Child { .. }),
        ),
        (
            "NREFS",
            "Number of reference slots per kind (a byte table for hot loops).",
            |f| matches!(f, Field::Ref { .. }),
        ),
    ]
    .map(|(name, text, pick)| {
        let (d, name) = (doc(text), format_ident!("{name}"));
        let ns = all
            .iter()
            .map(|k| lit(k.fields.iter().filter(|f| pick(f)).count() as u64));
        quote!( #d pub static #name: [u8; 85] = [ #(#ns,)* ]; )
    });
    let handles = all.iter().map(|k| field_handles(all, k));
    quote! {
        /// Per-kind edge layout: single children, lists, references, strings.
        pub static LAYOUT: [KindLayout; 85] = [ #(#layouts,)* ];

        #(#counts)*

        /// Named handles for every child, list, reference and string field of every kind.
        pub mod fields {
            use super::*;
            #(#handles)*
        }
    }
}

/// The `fields::KIND_FIELD` handles of one kind.
fn field_handles(all: &[KindDef], k: &KindDef) -> TokenStream {
    let e = edges(k);
    let v = variant(k);
    let up = k.name.to_uppercase();
    let handle = |(i, &(n, t)): (usize, &(&str, &str)), what: &str, ty: &str, slot: &str| {
        let d = doc(&format!("`{}.{n}`: {what}.", k.name));
        let name = format_ident!("{up}_{}", n.to_uppercase());
        let (ty, slot, i) = (
            format_ident!("{ty}"),
            format_ident!("{slot}"),
            lit(i as u64),
        );
        let t = target_expr(all, t, k.name);
        quote! {
            #d
            pub const #name: #ty = #ty { owner: EntryKind::#v, #slot: #i, target: #t };
        }
    };
    let s = e.singles.iter().enumerate();
    let s = s.map(|x| handle(x, "single child", "ChildField", "slot"));
    let l = e.lists.iter().enumerate();
    let l = l.map(|x| handle(x, "list of children", "ListField", "list"));
    let r = e.refs.iter().enumerate();
    let r = r.map(|x| handle(x, "non-owning reference", "RefField", "slot"));
    quote!( #(#s)* #(#l)* #(#r)* )
}
