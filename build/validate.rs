//! Schema checks: a schema that fails one stops the build with the reason.

use std::collections::HashSet;

use crate::common::{field_name, scalar_ty, vocab_of};
use crate::{KindDef, VocabDef, SUB_KIND_COUNTS};

/// Checks the kinds and the vocabularies.
pub fn check(all: &[KindDef], vocabs: &[VocabDef]) {
    check_kinds(all);
    check_packed(all);
    check_sub_kinds(all);
    check_vocabs(vocabs);
    check_counts(vocabs);
}

/// Each typed reading names a byte column, a vocabulary column and a variant of it.
fn check_sub_kinds(all: &[KindDef]) {
    for k in all {
        for s in &k.sub_kinds {
            assert_eq!(
                scalar_ty(k, s.column),
                "u8",
                "schema: {}: {} is not a byte",
                k.name,
                s.column
            );
            let by = vocab_of(scalar_ty(k, s.by))
                .unwrap_or_else(|| panic!("schema: {}: {} has no vocabulary", k.name, s.by));
            assert!(
                by.variants.iter().any(|x| x.ident == s.when),
                "schema: {}: {} has no variant {}",
                k.name,
                s.by,
                s.when
            );
            assert!(
                s.vocab == "EntryKind" || vocab_of(s.vocab).is_some_and(|v| v.repr == "u8"),
                "schema: {}: {} is not a byte vocabulary",
                k.name,
                s.vocab
            );
        }
    }
}

/// A count the seeds give matches the size of its vocabulary.
fn check_counts(vocabs: &[VocabDef]) {
    for &(name, n, _, voc) in SUB_KIND_COUNTS {
        let v = vocabs
            .iter()
            .find(|v| v.ident == voc)
            .unwrap_or_else(|| panic!("counts: {name}: no vocabulary {voc}"));
        assert_eq!(
            v.variants.len(),
            n as usize,
            "counts: {name}: {voc} has another size"
        );
    }
}

/// Kinds 0..=84 in number order, no field name twice in a kind.
fn check_kinds(all: &[KindDef]) {
    assert_eq!(all.len(), 85, "schema: kinds 0..=84");
    for (i, k) in all.iter().enumerate() {
        assert_eq!(
            k.number as usize, i,
            "schema: kind numbers must be in order"
        );
        let mut seen = HashSet::new();
        for f in &k.fields {
            let n = field_name(f);
            assert!(seen.insert(n), "schema: {}: duplicate field {n}", k.name);
        }
    }
}

/// Every packed field fits its bits, and a kind's packed fields fit one `u32`.
fn check_packed(all: &[KindDef]) {
    for k in all {
        let mut total = 0;
        for &(name, bits) in &k.packed {
            let max: u64 = match scalar_ty(k, name) {
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
}

/// Each vocabulary once, `u8` or `u16`, 0 first (the default), numbers ascending and
/// fitting the repr, no variant name twice.
fn check_vocabs(vocabs: &[VocabDef]) {
    let mut names = HashSet::new();
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
        let mut idents = HashSet::new();
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
            for p in x.props {
                assert!(
                    voc.props.iter().any(|d| d.0 == *p),
                    "vocab {}: {}: undeclared property {p}",
                    voc.ident,
                    x.ident
                );
            }
            last = Some(x.number);
        }
    }
}
