//! Constant sharing: counters, canonical constants, unshareable kinds, string interning,
//! fixup of function-local children, the stats lines, and no false merges (proptest).

mod common_il;

use common_il::B;
use ilkit::compare;
use ilkit::il::stats::dump_sharing_stats;
use ilkit::il::{fields as F, kinds, EntryId, RegionIdx};
use ilkit::share::{constant_is_shareable, ConstantSharing, SharingConfig};
use proptest::prelude::*;

#[test]
fn hits_misses_and_the_five_counters() {
    let mut b = B::new();
    let mut s = ConstantSharing::new();
    let a = b.int_const(42);
    let a2 = b.int_const(42);
    let c7 = b.int_const(7);
    let sa = s.alloc_shareable_constant(&mut b.il, a).unwrap();
    assert_ne!(sa, a, "a miss copies into the canonical constant");
    let sa2 = s.alloc_shareable_constant(&mut b.il, a2).unwrap();
    assert_eq!(sa, sa2);
    let s7 = s.alloc_shareable_constant(&mut b.il, c7).unwrap();
    assert_ne!(s7, sa);
    // A local constant in a function region: a global hit.
    let r = b.il.open_function_region(None);
    let local = b.il.alloc_local_constant(1).unwrap();
    let lr = b.crow(local);
    b.il.tables.constant.value[lr] = 42;
    let int = b.int;
    b.il.set_child(local, F::CONSTANT_TYPE, Some(int)).unwrap();
    assert_eq!(s.alloc_shareable_constant(&mut b.il, local).unwrap(), sa);
    b.il.free_local_constant(local).unwrap();
    b.il.close_function_region(r).unwrap();
    // Sharing the canonical constant again returns it.
    assert_eq!(s.alloc_shareable_constant(&mut b.il, sa).unwrap(), sa);
    // An equivalent but distinct type entry: the memo misses, compare_constants decides.
    assert_eq!(s.counters.comparisons, 0, "memo hits need no comparison");
    let int2 = common_il::ty(&mut b.il, "int", 2, 4);
    let a3 = b.int_const(42);
    b.il.set_child(a3, F::CONSTANT_TYPE, Some(int2)).unwrap();
    assert_eq!(s.alloc_shareable_constant(&mut b.il, a3).unwrap(), sa);
    let c = s.counters;
    assert_eq!(c.total_allocs, 6);
    assert_eq!(c.new_buckets, 2);
    assert_eq!(c.region_hits, 2);
    assert_eq!(c.global_hits, 1);
    assert_eq!(c.comparisons, 1);
    assert_eq!(s.len(), 2);
    assert!(s.verify(&b.il).is_empty(), "{:?}", s.verify(&b.il));
    let canon = b.e(sa);
    assert_eq!(b.il.region_of(canon), RegionIdx::FILE_SCOPE);
    assert!(b.il.tables.constant.is_shared[b.il.row(canon) as usize]);

    let mut out = Vec::new();
    dump_sharing_stats(&s.counters, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("Constant sharing:\n"), "{text}");
    for line in [
        "constant comparisons",
        "shareable constant allocs                6",
        "new shared constants                     2",
        "same-region hits                         2",
        "global hits                              1",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn types_and_flags_keep_constants_apart() {
    let mut b = B::new();
    let mut s = ConstantSharing::new();
    let a = b.int_const(1);
    let c = b.int_const(1);
    let long = b.long;
    b.il.set_child(c, F::CONSTANT_TYPE, Some(long)).unwrap();
    let d = b.int_const(1);
    let dr = b.crow(d);
    b.il.tables.constant.ptm_flags[dr] = 1;
    let sa = s.alloc_shareable_constant(&mut b.il, a).unwrap();
    let sc = s.alloc_shareable_constant(&mut b.il, c).unwrap();
    let sd = s.alloc_shareable_constant(&mut b.il, d).unwrap();
    assert!(sa != sc && sa != sd && sc != sd);
}

#[test]
fn unshareable_constants_take_the_plain_path() {
    let mut b = B::new();
    let mut s = ConstantSharing::new();
    let int = b.int;
    // Aggregates and template parameter constants are never shared.
    let agg = b.konst(10, Some(int));
    let e = b.int_const(1);
    b.il.push_list(agg, F::CONSTANT_AGGREGATE, e).unwrap();
    let tp = b.konst(12, Some(int));
    // Flag bit 0x02 blocks sharing.
    let blocked = b.int_const(3);
    let br = b.crow(blocked);
    b.il.tables.constant.ptm_flags[br] = 2;
    for c in [agg, tp, blocked] {
        assert!(!constant_is_shareable(&b.il, &s.config, b.e(c)));
        let x = s.alloc_shareable_constant(&mut b.il, c).unwrap();
        let y = s.alloc_shareable_constant(&mut b.il, c).unwrap();
        assert_ne!(x, y, "two plain allocations");
        assert!(compare::compare_constants_default(&b.il, b.e(x), b.e(y)).unwrap());
    }
    assert_eq!(s.counters.total_allocs, 6);
    assert_eq!(s.counters.new_buckets, 0);
    // Sharing off: every constant is plain.
    let mut off = ConstantSharing::new();
    off.config = SharingConfig {
        enabled: false,
        strings: true,
    };
    let a = b.int_const(5);
    let x = off.alloc_shareable_constant(&mut b.il, a).unwrap();
    let y = off.alloc_shareable_constant(&mut b.il, a).unwrap();
    assert_ne!(x, y);
    // Strings follow their own switch.
    let mut nostr = ConstantSharing::new();
    nostr.config.strings = false;
    let st = b.konst(2, Some(int));
    b.il.set_string(st, 0, b"hi").unwrap();
    assert!(!constant_is_shareable(&b.il, &nostr.config, b.e(st)));
    assert!(constant_is_shareable(&b.il, &s.config, b.e(st)));
}

#[test]
fn intern_string_constant_is_strict_and_exact() {
    let mut b = B::new();
    let mut s = ConstantSharing::new();
    let int = b.int;
    let a = s
        .intern_string_constant(&mut b.il, b"ab\0cd", 0, Some(int))
        .unwrap();
    let a2 = s
        .intern_string_constant(&mut b.il, b"ab\0cd", 0, Some(int))
        .unwrap();
    let c = s
        .intern_string_constant(&mut b.il, b"ab\0ce", 0, Some(int))
        .unwrap();
    let w = s
        .intern_string_constant(&mut b.il, b"ab\0cd", 1, Some(int))
        .unwrap();
    assert_eq!(a, a2);
    assert_ne!(a, c);
    assert_ne!(a, w);
    assert_eq!(b.il.string(b.e(a), 0), b"ab\0cd");
    assert_eq!(b.il.borrowed_local_constants(), 0);
    assert!(s.verify(&b.il).is_empty());
}

#[test]
fn fixup_moves_function_local_children_to_file_scope() {
    let mut b = B::new();
    let mut s = ConstantSharing::new();
    let int = b.int;
    let r = b.il.open_function_region(None);
    let inner = b.int_const(9);
    let rep = b.konst(11, Some(int));
    b.il.set_child(rep, F::CONSTANT_OPERAND, Some(inner))
        .unwrap();
    assert_ne!(b.il.region_of(b.e(rep)), RegionIdx::FILE_SCOPE);
    let canon = s.alloc_shareable_constant(&mut b.il, rep).unwrap();
    b.il.close_function_region(r).unwrap();
    let ce = b.e(canon);
    let op = b.il.child_eix(ce, F::CONSTANT_OPERAND).unwrap();
    assert!(b.il.is_live(op));
    assert_eq!(b.il.region_of(op), RegionIdx::FILE_SCOPE);
    assert_eq!(b.il.tables.constant.value[b.il.row(op) as usize], 9);
    assert!(s.verify(&b.il).is_empty());
}

/// A random constant: kind and a few payload choices.
#[derive(Clone, Debug)]
struct Spec {
    kind: u8,
    value: i64,
    value2: i64,
    flags: u8,
    sub: u8,
    ty: u8,
    text: u8,
    operand: u8,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::sample::select(vec![0u8, 1, 2, 3, 4, 5, 6, 7, 11, 13, 14, 15]),
        0i64..3,
        0i64..2,
        0u8..2,
        0u8..2,
        0u8..3,
        0u8..3,
        0u8..4,
    )
        .prop_map(
            |(kind, value, value2, flags, sub, ty, text, operand)| Spec {
                kind,
                value,
                value2,
                flags,
                sub,
                ty,
                text,
                operand,
            },
        )
}

fn build(b: &mut B, s: &Spec) -> EntryId {
    let t = [b.int, b.long, b.dbl][s.ty as usize];
    let c = b.konst(s.kind, Some(t));
    let r = b.crow(c);
    {
        let k = &mut b.il.tables.constant;
        k.value[r] = s.value;
        k.value2[r] = s.value2;
        k.ptm_flags[r] = s.flags;
    }
    match s.kind {
        2 => {
            let text: &[u8] = [b"a".as_slice(), b"a\0b", b"a\0c"][s.text as usize];
            b.il.set_string(c, 0, text).unwrap();
            b.il.tables.constant.text_len[r] = text.len() as u32;
            b.il.tables.constant.sub_kind[r] = s.sub;
        }
        6 | 7 | 11 | 13 | 15 => {
            if s.kind == 6 {
                kinds::set_address_constant_kind(&mut b.il, c, s.sub).unwrap();
            } else if s.kind == 11 {
                b.il.tables.constant.sub_kind[r] = s.sub;
            }
            let op = match s.operand {
                _ if s.kind == 11 => b.int_const(s.value2),
                0 => b.g1,
                1 => b.g1b,
                2 => b.g2,
                _ => b.int_const(s.value2),
            };
            b.il.set_child(c, F::CONSTANT_OPERAND, Some(op)).unwrap();
        }
        _ => {}
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn sharing_never_merges_different_constants(specs in prop::collection::vec(spec(), 1..40)) {
        let mut b = B::new();
        let mut s = ConstantSharing::new();
        let locals: Vec<EntryId> = specs.iter().map(|sp| build(&mut b, sp)).collect();
        let shared: Vec<EntryId> = locals
            .iter()
            .map(|&c| s.alloc_shareable_constant(&mut b.il, c).unwrap())
            .collect();
        for i in 0..locals.len() {
            for j in 0..locals.len() {
                let eq = compare::compare_constants_default(&b.il, b.e(locals[i]), b.e(locals[j])).unwrap();
                let shareable = constant_is_shareable(&b.il, &s.config, b.e(locals[i]))
                    && constant_is_shareable(&b.il, &s.config, b.e(locals[j]));
                if shared[i] == shared[j] {
                    prop_assert!(eq, "merged {:?} and {:?}", specs[i], specs[j]);
                }
                if shareable && i != j {
                    prop_assert_eq!(eq, shared[i] == shared[j], "{:?} vs {:?}", &specs[i], &specs[j]);
                }
            }
            let canon = b.e(shared[i]);
            prop_assert!(compare::compare_constants_default(&b.il, b.e(locals[i]), canon).unwrap());
        }
        prop_assert!(s.verify(&b.il).is_empty());
    }
}
