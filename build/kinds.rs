//! `EntryKind`: the 85 kinds and their per-kind constant tables.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::common::{doc, has_table, lit, variant};
use crate::KindDef;

/// The `EntryKind` enum, `COUNT`, `ALL` and one constant array per schema column.
pub fn gen(all: &[KindDef]) -> TokenStream {
    let docs = all
        .iter()
        .map(|k| doc(&format!("{} ({}): {}", k.number, k.name, k.doc)));
    let vs: Vec<_> = all.iter().map(variant).collect();
    let nums = all.iter().map(|k| lit(k.number));
    let count = lit(all.len() as u64);
    let tables = per_kind_tables(all);
    quote! {
        /// The 85 IL entry kinds, numbered as EDG numbers them (reserved numbers stay reserved).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum EntryKind {
            #( #docs #vs = #nums, )*
        }

        impl EntryKind {
            /// Number of entry kinds (0..=84, the sentinel `last` included).
            pub const COUNT: usize = #count;

            /// Every kind, by number.
            pub const ALL: [EntryKind; EntryKind::COUNT] = [ #( EntryKind::#vs, )* ];

            #tables
        }
    }
}

/// One `pub const NAME: [ty; 85]` per property of a kind.
fn per_kind_tables(all: &[KindDef]) -> TokenStream {
    type Cell = fn(&KindDef) -> TokenStream;
    let columns: [(&str, &str, TokenStream, Cell); 8] = [
        (
            "EDG's name of each kind (`il_entry_kind_names`).",
            "NAMES",
            quote!(&'static str),
            |k| tok(k.name),
        ),
        (
            "The label of each kind in the seed's file-scope walk table.",
            "WALK_LABELS",
            quote!(&'static str),
            |k| tok(k.walk_label),
        ),
        (
            "Name printed by the stats dump.",
            "STATS_NAMES",
            quote!(&'static str),
            |k| tok(k.stats_name),
        ),
        (
            "EDG's allocation size in bytes (0 = unknown).",
            "SEED_SIZES",
            quote!(u32),
            |k| tok(lit(k.seed_size)),
        ),
        ("Category of each kind.", "CATS", quote!(Cat), |k| {
            let c = format_ident!("{}", format!("{:?}", k.cat));
            quote!(Cat::#c)
        }),
        (
            "Region rule of each kind.",
            "REGIONS",
            quote!(RegionRule),
            |k| {
                let r = format_ident!("{}", format!("{:?}", k.region));
                quote!(RegionRule::#r)
            },
        ),
        (
            "Displayed standalone (true) or inline in the parent.",
            "STANDALONE",
            quote!(bool),
            |k| tok(k.standalone),
        ),
        (
            "Whether the kind has a table (can be allocated).",
            "HAS_TABLE",
            quote!(bool),
            |k| tok(has_table(k)),
        ),
    ];
    let consts = columns.into_iter().map(|(text, name, t, cell)| {
        let d = doc(text);
        let name = format_ident!("{name}");
        let cells = all.iter().map(cell);
        quote! {
            #d
            pub const #name: [#t; 85] = [ #( #cells, )* ];
        }
    });
    quote!( #(#consts)* )
}

/// A value as tokens (a string literal, `true`, a literal number).
fn tok(t: impl ToTokens) -> TokenStream {
    t.into_token_stream()
}
