//! Constant sharing: counters, canonical constants, unshareable kinds, string interning,
//! fixup of function-local children, the stats lines, and no false merges (proptest).

mod common_il;

use common_il::B;
use ilkit::compare;
use ilkit::il::stats::dump_sharing_stats;
use ilkit::il::Op;
use ilkit::il::{fields as F, kinds, EntryId, RegionIdx};
use ilkit::il::{AddressKind, ConstantKind, ExprKind, TemplateParamConstantKind, TypeKind};
use ilkit::il::{ConstantKind as C, ExprKind as X};
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
    let local = b.il.alloc_local_constant(ConstantKind::Integer).unwrap();
    b.il.constant_mut(b.e(local)).set_value(42);
    let int = b.int;
    b.il.set_child(local, F::CONSTANT_TYPE, Some(int)).unwrap();
    assert_eq!(s.alloc_shareable_constant(&mut b.il, local).unwrap(), sa);
    b.il.free_local_constant(local).unwrap();
    b.il.close_function_region(r).unwrap();
    // Sharing the canonical constant again returns it.
    assert_eq!(s.alloc_shareable_constant(&mut b.il, sa).unwrap(), sa);
    // An equivalent but distinct type entry: the memo misses, compare_constants decides.
    assert_eq!(s.counters.comparisons, 0, "memo hits need no comparison");
    let int2 = common_il::ty(&mut b.il, "int", TypeKind::Integer, 4);
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
    assert!(b.il.constant(canon).is_shared());

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
fn repeated_string_literals_hit_the_memo_and_equal_lengths_stay_apart() {
    let mut b = B::new();
    let mut s = ConstantSharing::new();
    let int = b.int;
    let lit = |b: &mut B, text: &[u8]| {
        let c = b.konst(ConstantKind::String, Some(int));
        b.il.set_string(c, 0, text).unwrap();
        b.il.constant_mut(b.e(c)).set_text_len(text.len() as u32);
        c
    };
    let texts: [&[u8]; 3] = [b"ab\0cd", b"ab\0ce", b"hello"];
    let first: Vec<EntryId> = texts
        .iter()
        .map(|t| {
            let c = lit(&mut b, t);
            s.alloc_shareable_constant(&mut b.il, c).unwrap()
        })
        .collect();
    assert_ne!(first[0], first[1], "same length, different bytes");
    let before = s.counters.comparisons;
    for _ in 0..3 {
        for (i, t) in texts.iter().enumerate() {
            let c = lit(&mut b, t);
            assert_eq!(s.alloc_shareable_constant(&mut b.il, c).unwrap(), first[i]);
        }
    }
    assert_eq!(s.counters.comparisons, before, "repeats are memo hits");
    assert_eq!(s.counters.new_buckets, 3);
    assert!(s.verify(&b.il).is_empty());
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
    b.il.constant_mut(b.e(d)).set_ptm_flags(1);
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
    let agg = b.konst(ConstantKind::Aggregate, Some(int));
    let e = b.int_const(1);
    b.il.push_list(agg, F::CONSTANT_AGGREGATE, e).unwrap();
    let tp = b.konst(ConstantKind::TemplateParam, Some(int));
    // Flag bit 0x02 blocks sharing.
    let blocked = b.int_const(3);
    b.il.constant_mut(b.e(blocked)).set_ptm_flags(2);
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
    let st = b.konst(ConstantKind::String, Some(int));
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
    let rep = b.konst(ConstantKind::InitRepeat, Some(int));
    b.il.set_child(rep, F::CONSTANT_OPERAND, Some(inner))
        .unwrap();
    assert_ne!(b.il.region_of(b.e(rep)), RegionIdx::FILE_SCOPE);
    let canon = s.alloc_shareable_constant(&mut b.il, rep).unwrap();
    b.il.close_function_region(r).unwrap();
    let ce = b.e(canon);
    let op = b.il.child_eix(ce, F::CONSTANT_OPERAND).unwrap();
    assert!(b.il.is_live(op));
    assert_eq!(b.il.region_of(op), RegionIdx::FILE_SCOPE);
    assert_eq!(b.il.constant(op).value(), 9);
    assert!(s.verify(&b.il).is_empty());
}

/// A random constant: kind and a few payload choices.
#[derive(Clone, Debug)]
struct Spec {
    kind: ConstantKind,
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
        prop::sample::select({
            use ConstantKind as C;
            vec![
                C::Error,
                C::Integer,
                C::String,
                C::Float,
                C::Complex,
                C::Imaginary,
                C::Address,
                C::PtrToMember,
                C::InitRepeat,
                C::Designator,
                C::Void,
                C::Reflection,
            ]
        }),
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
    use ConstantKind as C;
    let t = [b.int, b.long, b.dbl][s.ty as usize];
    let c = b.konst(s.kind, Some(t));
    b.il.constant_mut(b.e(c))
        .set_value(s.value)
        .set_value2(s.value2)
        .set_ptm_flags(s.flags);
    match s.kind {
        C::String => {
            let text: &[u8] = [b"a".as_slice(), b"a\0b", b"a\0c"][s.text as usize];
            b.il.set_string(c, 0, text).unwrap();
            b.il.constant_mut(b.e(c)).set_text_len(text.len() as u32);
            b.il.constant_mut(b.e(c)).set_sub_kind(s.sub);
        }
        C::Address | C::PtrToMember | C::InitRepeat | C::Designator | C::Reflection => {
            if s.kind == C::Address {
                let sub = AddressKind::checked(s.sub).unwrap();
                kinds::set_address_constant_kind(&mut b.il, c, sub).unwrap();
            } else if s.kind == C::InitRepeat {
                b.il.constant_mut(b.e(c)).set_sub_kind(s.sub);
            }
            let op = match s.operand {
                _ if s.kind == C::InitRepeat => b.int_const(s.value2),
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

/// The reference answers for `stream`: `share_eix` per constant on a clone of `il`.
fn share_each(
    il: &ilkit::il::Il,
    stream: &[ilkit::il::Eix],
) -> (Vec<ilkit::il::Eix>, ConstantSharing) {
    let mut il = il.clone();
    let mut one = ConstantSharing::new();
    let each = stream
        .iter()
        .map(|&e| one.share_eix(&mut il, e, false).unwrap())
        .collect();
    (each, one)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// `share_many` over a stream with repeats answers and counts exactly as `share_eix`
    /// per constant.
    #[test]
    fn share_many_answers_as_share_eix(
        specs in prop::collection::vec(spec(), 1..30),
        picks in prop::collection::vec(0usize..1000, 1..200),
    ) {
        let mut b = B::new();
        let locals: Vec<EntryId> = specs.iter().map(|sp| build(&mut b, sp)).collect();
        let stream: Vec<_> = picks.iter().map(|&p| b.e(locals[p % locals.len()])).collect();
        let (each, one) = share_each(&b.il, &stream);
        let mut many = ConstantSharing::new();
        let mut out = Vec::new();
        many.share_many(&mut b.il, &stream, false, &mut out).unwrap();
        prop_assert_eq!(out, each);
        prop_assert_eq!(many.counters, one.counters);
        prop_assert!(many.verify(&b.il).is_empty());
    }
}

/// A parallel `share_many` (a long stream on a two-thread pool) answers and counts as
/// `share_eix` per constant, including constants first seen late in the stream, and an
/// error mid-stream leaves the answers and counters before it.
#[test]
fn parallel_share_many_answers_as_share_eix() {
    let mut b = B::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    use ConstantKind as C;
    let kinds = [
        C::Error,
        C::Integer,
        C::String,
        C::Float,
        C::Complex,
        C::Imaginary,
        C::Address,
        C::PtrToMember,
        C::InitRepeat,
        C::Designator,
        C::Void,
        C::Reflection,
    ];
    let locals: Vec<EntryId> = (0..300)
        .map(|_| {
            let sp = Spec {
                kind: kinds[next(kinds.len() as u64) as usize],
                value: next(3) as i64,
                value2: next(2) as i64,
                flags: next(2) as u8,
                sub: next(2) as u8,
                ty: next(3) as u8,
                text: next(3) as u8,
                operand: next(4) as u8,
            };
            build(&mut b, &sp)
        })
        .collect();
    let n = ilkit::share::PARALLEL_SHARE_MIN * 3;
    // Mostly the first 20 constants; each of the rest first shows up somewhere late.
    let stream: Vec<_> = (0..n)
        .map(|i| {
            let p = if next(10) < 8 {
                next(20)
            } else {
                next(20 + (280 * i / n) as u64 + 1)
            };
            b.e(locals[p as usize])
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let (each, one) = share_each(&b.il, &stream);
    let mut err_il = b.il.clone();
    let mut many = ConstantSharing::new();
    let mut out = Vec::new();
    pool.install(|| many.share_many(&mut b.il, &stream, false, &mut out))
        .unwrap();
    assert_eq!(out, each);
    assert_eq!(many.counters, one.counters);
    assert!(many.verify(&b.il).is_empty());

    // A variable in the middle of the stream: the answers and counters before it stay.
    let at = n / 2 + 12_345;
    let mut bad = stream.clone();
    bad[at] = b.e(b.g1);
    let mut one = ConstantSharing::new();
    let mut one_il = err_il.clone();
    for &e in &bad[..at] {
        one.share_eix(&mut one_il, e, false).unwrap();
    }
    assert!(one.share_eix(&mut one_il, bad[at], false).is_err());
    let mut many = ConstantSharing::new();
    let mut out = vec![b.e(b.int)];
    let r = pool.install(|| many.share_many(&mut err_il, &bad, false, &mut out));
    assert!(r.is_err());
    assert_eq!(out.len(), 1 + at);
    assert_eq!(&out[1..], &each[..at]);
    assert_eq!(many.counters, one.counters);
}

// ---- deep copy ---------------------------------------------------------------------------

use ilkit::il::EntryKind;
use ilkit::share::copy::{self, flags as cf};

/// An expression of `kind` with one operand leaf, a constant child and an entity.
fn node(b: &mut B, kind: ExprKind) -> EntryId {
    let int = b.int;
    let leaf = b.int_leaf(1);
    let x = b.expr(kind, Some(int), &[leaf]);
    let c = b.int_const(5);
    b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
    let ent = if matches!(kind, X::DynamicInit | X::DynamicInit2) {
        b.dyn_init(2, 9)
    } else {
        b.g1
    };
    b.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(ent)).unwrap();
    x
}

#[test]
fn copy_every_expression_kind() {
    let mut b = B::new();
    for k in ExprKind::ALL
        .into_iter()
        .filter(|&k| k != ExprKind::Reclaimed)
    {
        let x = node(&mut b, k);
        let y = copy::copy_expr_tree(&mut b.il, x, 0, None).unwrap();
        assert_ne!(x, y, "kind {k}: a new node");
        let (ex, ey) = (b.e(x), b.e(y));
        if k != X::Error {
            assert!(
                compare::compare_expressions(&b.il, ex, ey, 0).unwrap(),
                "kind {k}: copy equals original"
            );
        }
        let ox = b.il.list_eix(ex, F::EXPR_NODE_OPERANDS)[0];
        let oy = b.il.list_eix(ey, F::EXPR_NODE_OPERANDS)[0];
        let shallow = matches!(
            k,
            X::Error
                | X::Variable
                | X::TypeRef
                | X::AddressOfEllipsis
                | X::Routine
                | X::TypeOperand
                | X::OpaqueTypeRef
                | X::PackExpansion
        );
        assert_eq!(ox == oy, shallow, "kind {k}: operands shared iff shallow");
        let ix = b.il.ref_eix(ex, F::EXPR_NODE_ENTITY);
        let iy = b.il.ref_eix(ey, F::EXPR_NODE_ENTITY);
        assert_eq!(
            ix == iy,
            !matches!(k, X::DynamicInit | X::DynamicInit2),
            "kind {k}: dynamic init copied"
        );
    }
    // Bad kind.
    let x = node(&mut b, ExprKind::Operation);
    b.il.expr_mut(b.e(x)).set_expr_kind(ExprKind::Reclaimed);
    assert_eq!(
        copy::copy_expr_tree(&mut b.il, x, 0, None),
        Err(ilkit::il::IlError::BadKind(
            "i_copy_expr_tree: bad expr kind"
        ))
    );
    // A bad kind deep in a tree fails before anything is allocated.
    let ok = node(&mut b, ExprKind::Operation);
    let int = b.int;
    let top = b.expr(ExprKind::Operation, Some(int), &[ok, x]);
    let before = b.il.entries().count();
    assert!(copy::copy_expr_tree(&mut b.il, top, 0, None).is_err());
    assert_eq!(b.il.entries().count(), before);
}

#[test]
fn copy_every_constant_kind() {
    let mut b = B::new();
    let int = b.int;
    for k in ConstantKind::ALL {
        let c = b.konst(k, Some(int));
        match k {
            C::String => {
                b.il.set_string(c, 0, b"xy").unwrap();
                b.il.constant_mut(b.e(c)).set_text_len(2);
            }
            C::LabelDifference | C::Aggregate => {
                for v in [1, 2] {
                    let e = b.int_const(v);
                    b.il.push_list(c, F::CONSTANT_AGGREGATE, e).unwrap();
                }
            }
            C::DynamicInit => {
                let d = b.dyn_init(2, 3);
                b.il.set_child(c, F::CONSTANT_OPERAND, Some(d)).unwrap();
            }
            C::InitRepeat => {
                let e = b.int_const(4);
                b.il.set_child(c, F::CONSTANT_OPERAND, Some(e)).unwrap();
            }
            C::TemplateParam => {
                kinds::set_template_param_constant_kind(
                    &mut b.il,
                    c,
                    TemplateParamConstantKind::Expression,
                )
                .unwrap();
                let x = b.int_leaf(6);
                b.il.set_child(c, F::CONSTANT_EXPR, Some(x)).unwrap();
            }
            C::Address | C::Designator => {
                let g = b.g1;
                b.il.set_child(c, F::CONSTANT_OPERAND, Some(g)).unwrap();
            }
            _ => {
                b.il.constant_mut(b.e(c)).set_value(77);
            }
        }
        let y = copy::copy_constant_full(&mut b.il, c, 0, None).unwrap();
        assert_ne!(c, y);
        assert!(
            compare::compare_constants_default(&b.il, b.e(c), b.e(y)).unwrap(),
            "constant kind {k}"
        );
        if matches!(k, C::LabelDifference | C::Aggregate) {
            let (p, q) = (
                b.il.list_eix(b.e(c), F::CONSTANT_AGGREGATE)[0],
                b.il.list_eix(b.e(y), F::CONSTANT_AGGREGATE)[0],
            );
            assert_ne!(p, q, "aggregate elements are deep-copied");
        }
        if k == C::TemplateParam {
            assert_ne!(
                b.il.child_eix(b.e(c), F::CONSTANT_EXPR),
                b.il.child_eix(b.e(y), F::CONSTANT_EXPR)
            );
        }
        let y2 = copy::copy_constant(&mut b.il, c, None).unwrap();
        assert!(compare::compare_constants_default(&b.il, b.e(y), b.e(y2)).unwrap());
    }
}

#[test]
fn a_type_definition_referenced_twice_is_copied_once() {
    let mut b = B::new();
    let int = b.int;
    let tdef = common_il::ty(&mut b.il, "S", TypeKind::Struct, 16);
    let agg = b.konst(ConstantKind::Aggregate, Some(int));
    for _ in 0..2 {
        let a = b.konst(ConstantKind::Address, Some(int));
        kinds::set_address_constant_kind(&mut b.il, a, AddressKind::Uuidof).unwrap();
        b.il.set_child(a, F::CONSTANT_DECLARED_TYPE, Some(tdef))
            .unwrap();
        b.il.push_list(agg, F::CONSTANT_AGGREGATE, a).unwrap();
    }
    let y = copy::copy_constant_full(&mut b.il, agg, 0, None).unwrap();
    let items = b.il.list_eix(b.e(y), F::CONSTANT_AGGREGATE).to_vec();
    let t0 = b.il.child_eix(items[0], F::CONSTANT_DECLARED_TYPE).unwrap();
    let t1 = b.il.child_eix(items[1], F::CONSTANT_DECLARED_TYPE).unwrap();
    assert_eq!(t0, t1, "both references point at one copy");
    assert_ne!(t0, b.e(tdef), "the type definition was copied");
    assert_eq!(b.il.kind(t0), EntryKind::Type);
}

#[test]
fn copied_constants_go_through_sharing() {
    let mut b = B::new();
    let int = b.int;
    let l1 = b.int_leaf(3);
    let l2 = b.int_leaf(3);
    let x = b.binop(Op::Add, int, l1, l2);
    let mut s = ConstantSharing::new();
    let xe = b.e(x);
    let mut cp =
        copy::DeepCopy::new(cf::MARK_INSTANTIATED, RegionIdx::FILE_SCOPE).with_sharing(&mut s);
    let ye = cp.copy_eix(&mut b.il, xe).unwrap();
    let marked = cp.instantiated.clone();
    drop(cp);
    let y = b.il.id_of(ye);
    let ops = b.il.list_eix(b.e(y), F::EXPR_NODE_OPERANDS).to_vec();
    let c0 = b.il.child_eix(ops[0], F::EXPR_NODE_CONSTANT).unwrap();
    let c1 = b.il.child_eix(ops[1], F::EXPR_NODE_CONSTANT).unwrap();
    assert_eq!(c0, c1, "the two copied 3s share one canonical constant");
    assert!(b.il.constant(c0).is_shared());
    assert_eq!(s.counters.new_buckets, 1);
    assert!(marked.contains(&b.e(y)) && !marked.contains(&xe));
    assert_eq!(marked.len(), 3, "the operation and its two leaves");
    assert!(b.il.constant(c0).is_instantiated());
    assert!(s.verify(&b.il).is_empty());
}

#[test]
fn copy_entities_and_resolve_refs() {
    let mut b = B::new();
    let (g1, int) = (b.g1, b.int);
    let e17 = b.expr(ExprKind::OpaqueOperand, Some(int), &[]);
    b.il.set_ref(e17, F::EXPR_NODE_ENTITY, Some(g1)).unwrap();
    let r3 = b.var_ref(g1, int);
    let x = b.expr(ExprKind::ObjectLifetime, Some(int), &[e17, r3]);
    let y = copy::copy_expr_tree(&mut b.il, x, cf::COPY_ENTITIES | cf::RESOLVE_REFS, None).unwrap();
    let ops = b.il.list_eix(b.e(y), F::EXPR_NODE_OPERANDS).to_vec();
    let ent17 = b.il.ref_eix(ops[0], F::EXPR_NODE_ENTITY).unwrap();
    let ent3 = b.il.ref_eix(ops[1], F::EXPR_NODE_ENTITY).unwrap();
    assert_ne!(ent17, b.e(g1), "kind 17 copied its entity");
    assert_eq!(ent3, ent17, "the kind-3 reference resolves to the copy");
    // Without RESOLVE_REFS the reference stays on the original.
    let z = copy::copy_expr_tree(&mut b.il, x, cf::COPY_ENTITIES, None).unwrap();
    let ops = b.il.list_eix(b.e(z), F::EXPR_NODE_OPERANDS).to_vec();
    assert_eq!(b.il.ref_eix(ops[1], F::EXPR_NODE_ENTITY), Some(b.e(g1)));
}

#[test]
fn copy_lists_inits_captures_and_deep_chains() {
    let mut b = B::new();
    let a = b.int_leaf(1);
    let c = b.int_leaf(2);
    let out = copy::copy_list_of_expr_trees(&mut b.il, &[a, c], 0, None).unwrap();
    assert_eq!(out.len(), 2);
    assert!(compare::compare_expressions(&b.il, b.e(a), b.e(out[0]), 0).unwrap());
    assert!(compare::compare_expressions(&b.il, b.e(c), b.e(out[1]), 0).unwrap());
    let d = b.dyn_init(7, 4);
    let d2 = copy::copy_dynamic_init(&mut b.il, d, 0, None).unwrap();
    assert!(compare::compare_dynamic_inits(&b.il, b.e(d), b.e(d2), 0).unwrap());
    assert_ne!(
        b.il.child_eix(b.e(d), F::DYNAMIC_INIT_EXPR),
        b.il.child_eix(b.e(d2), F::DYNAMIC_INIT_EXPR)
    );
    let cap = b.il.alloc(EntryKind::LambdaCapture).unwrap();
    let g1 = b.g1;
    b.il.set_ref(cap, F::LAMBDA_CAPTURE_VARIABLE, Some(g1))
        .unwrap();
    let init = b.int_leaf(8);
    b.il.set_child(cap, F::LAMBDA_CAPTURE_INIT, Some(init))
        .unwrap();
    let cap2 = copy::copy_lambda_capture(&mut b.il, cap, 0).unwrap();
    let i2 = b.il.child_eix(b.e(cap2), F::LAMBDA_CAPTURE_INIT).unwrap();
    assert_ne!(i2, b.e(init));
    assert!(compare::compare_expressions(&b.il, b.e(init), i2, 0).unwrap());
    assert_eq!(
        b.il.ref_eix(b.e(cap2), F::LAMBDA_CAPTURE_VARIABLE),
        Some(b.e(g1))
    );
    // A 10^5-deep chain copies without recursion.
    let mut x = b.int_leaf(1);
    for _ in 0..100_000 {
        x = b.expr(ExprKind::ExprWrapper, None, &[x]);
    }
    let y = copy::copy_expr_tree(&mut b.il, x, 0, None).unwrap();
    assert!(compare::compare_expressions(&b.il, b.e(x), b.e(y), 0).unwrap());
    assert_eq!(b.il.verify(), vec![]);
}

/// Copies into function regions that reuse the dense indices and rows a closed region
/// freed: the world stays consistent and every copy equals its original.
#[test]
fn copies_into_recycled_regions() {
    let mut b = B::new();
    let trees: Vec<EntryId> = (0..6u8)
        .map(|k| {
            node(
                &mut b,
                [
                    X::Operation,
                    X::DynamicInit,
                    X::NewDelete,
                    X::OpaqueOperand,
                    X::DynamicInit2,
                    X::BuiltinOperation,
                ][k as usize],
            )
        })
        .collect();
    let (mut prev, mut first_cap) = (None, None);
    for round in 0..3 {
        if let Some(r) = prev {
            b.il.close_function_region(r).unwrap();
        }
        let r = b.il.open_function_region(None);
        prev = Some(r);
        let mut cp = copy::DeepCopy::new(0, r);
        for &t in &trees {
            let e = b.e(t);
            let c = cp.copy_eix(&mut b.il, e).unwrap();
            assert_eq!(b.il.region_of(c), r, "round {round}");
            assert!(compare::compare_expressions(&b.il, b.e(t), c, 0).unwrap());
        }
        assert_eq!(b.il.verify(), vec![], "round {round}");
        // Later rounds fit in the dense indices the first one made.
        let cap = *first_cap.get_or_insert(b.il.capacity());
        assert_eq!(b.il.capacity(), cap, "round {round}");
    }
}

#[test]
fn source_positions_follow_the_flag() {
    let mut b = B::new();
    b.il.set_position(0, 10, 5);
    let x = b.int_leaf(1);
    b.il.set_position(0, 99, 1);
    let kept = copy::copy_expr_tree(&mut b.il, x, cf::PRESERVE_SOURCE_POS, None).unwrap();
    let fresh = copy::copy_expr_tree(&mut b.il, x, 0, None).unwrap();
    assert_eq!(b.il.pos(b.e(kept)).line, 10);
    assert_eq!(b.il.pos(b.e(fresh)).line, 99);
    assert!(compare::compare_expressions(&b.il, b.e(x), b.e(fresh), 0).unwrap());
}

/// Entries a deep copy of `root` owns, by the copier's rules: operands of non-shallow
/// expressions, constants and their children, dynamic inits named by kinds 5 and 18.
fn owned_entries(il: &ilkit::il::Il, root: ilkit::il::Eix) -> Vec<ilkit::il::Eix> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        out.push(e);
        let k = il.kind(e);
        if k == EntryKind::ExprNode {
            let ek = il.expr(e).expr_kind();
            if matches!(ek, X::DynamicInit | X::DynamicInit2) {
                if let Some(d) = il.ref_eix(e, F::EXPR_NODE_ENTITY) {
                    if il.kind(d) == EntryKind::DynamicInit {
                        stack.push(d);
                    }
                }
            }
            if matches!(
                ek,
                X::Error
                    | X::Variable
                    | X::TypeRef
                    | X::AddressOfEllipsis
                    | X::Routine
                    | X::TypeOperand
                    | X::OpaqueTypeRef
                    | X::PackExpansion
            ) {
                continue;
            }
        }
        for &c in il.children(e) {
            if !c.is_none()
                && matches!(
                    il.kind(c),
                    EntryKind::ExprNode | EntryKind::Constant | EntryKind::DynamicInit
                )
            {
                stack.push(c);
            }
        }
    }
    out
}

/// Any expression kind a node can be allocated with (all but `ek_reclaimed`).
fn expr_kind() -> impl Strategy<Value = ExprKind> {
    prop::sample::select(
        ExprKind::ALL
            .into_iter()
            .filter(|&k| k != ExprKind::Reclaimed)
            .collect::<Vec<_>>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random expression trees over every kind: the copy compares equal to the original
    /// (when no kind-0 error node is in it),
    /// owns none of the original's entries (shared canonical constants aside), owns as
    /// many as the original without sharing, and the world and sharing table verify.
    #[test]
    fn deep_copies_of_random_trees(
        recipe in prop::collection::vec((expr_kind(), 0u8..4, 0i64..6), 1..60),
        flags in prop::sample::select(vec![0u32, cf::PRESERVE_SOURCE_POS, cf::MARK_INSTANTIATED]),
        share in any::<bool>(),
        into_function in any::<bool>(),
    ) {
        let mut b = B::new();
        let mut stack: Vec<EntryId> = Vec::new();
        for &(k, nops, v) in &recipe {
            let n = (nops as usize).min(stack.len());
            let ops = stack.split_off(stack.len() - n);
            let int = b.int;
            let x = b.expr(k, Some(int), &ops);
            if v % 2 == 1 {
                let c = b.int_const(v);
                b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
            }
            let ent = if matches!(k, X::DynamicInit | X::DynamicInit2) && v >= 2 { b.dyn_init(2, v) } else { b.g1 };
            b.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(ent)).unwrap();
            stack.push(x);
        }
        let int = b.int;
        let root = b.expr(ExprKind::Operation, Some(int), &stack);
        let region = if into_function {
            b.il.open_function_region(None)
        } else {
            RegionIdx::FILE_SCOPE
        };
        let mut sharing = ConstantSharing::new();
        let src = b.e(root);
        let c = {
            let mut cp = copy::DeepCopy::new(flags, region);
            if share {
                cp = cp.with_sharing(&mut sharing);
            }
            cp.copy_eix(&mut b.il, src).unwrap()
        };
        // Kind 0 (an error node) never compares equal, not even to itself.
        if recipe.iter().all(|&(k, _, _)| k != X::Error) {
            prop_assert!(compare::compare_expressions(&b.il, src, c, 0).unwrap());
        }
        let orig = owned_entries(&b.il, src);
        let copied = owned_entries(&b.il, c);
        let originals: std::collections::HashSet<_> = orig.iter().copied().collect();
        for &e in &copied {
            let canonical = b.il.kind(e) == EntryKind::Constant
                && b.il.constant(e).is_shared();
            prop_assert!(!originals.contains(&e) || canonical, "{e:?} still the original's");
            if !canonical {
                prop_assert_eq!(b.il.region_of(e), region);
            }
        }
        if !share {
            prop_assert_eq!(orig.len(), copied.len());
        }
        prop_assert_eq!(b.il.verify(), vec![]);
        prop_assert!(sharing.verify(&b.il).is_empty());
    }
}

/// `share::share_all_constants` (a `share_many` stream over every constant) counts as
/// offering each constant to `share_eix` in turn, on a generated unit with two constants
/// of a kind sharing does not take.
#[test]
fn share_all_constants_counts_as_one_by_one() {
    let mut il = ilkit::il::synth::generate(3, 0.05);
    let constants: Vec<_> = il
        .entries()
        .filter(|&e| il.kind(e) == EntryKind::Constant)
        .collect();
    for &c in [constants[40], constants[constants.len() / 2]].iter() {
        // Kinds sharing never takes.
        il.constant_mut(c)
            .set_constant_kind(ConstantKind::Aggregate);
    }
    let mut one_il = il.clone();
    let mut one = ConstantSharing::new();
    for &c in &constants {
        one.share_eix(&mut one_il, c, true).unwrap();
    }
    let counters = ilkit::share::share_all_constants(&mut il);
    assert_eq!(counters, one.counters);
    assert!(counters.region_hits + counters.global_hits > 0);
}

/// The constants the tree builders give a node for `v`: none for even `v`, an integer
/// for 1 and 3, an aggregate of two integers (a constant with owned children, so walked)
/// for 5, and leaf constants with more to copy for 7, 9 and 11 ([`leaf_const`]). From
/// `pool` (allocated before the tree) when pooled, else fresh, allocated here.
fn node_const(b: &mut B, v: i64, pool: &[EntryId]) -> Option<EntryId> {
    if v % 2 == 0 {
        return None;
    }
    if !pool.is_empty() {
        return Some(pool[v as usize / 2]);
    }
    Some(match v {
        5 => {
            let int = b.int;
            let agg = b.konst(ConstantKind::Aggregate, Some(int));
            for x in [7, 8] {
                let e = b.int_const(x);
                b.il.push_list(agg, F::CONSTANT_AGGREGATE, e).unwrap();
            }
            agg
        }
        7 | 9 | 11 => leaf_const(b, v),
        _ => b.int_const(v),
    })
}

/// Leaf constants (nothing of their own a copy copies) whose clones take more than a row
/// copy: for 7 a string literal with its text and a name (strings copied into the
/// clone's region, a share key hashed from the text), for 9 an integer marked
/// `is_shared` (a canonical constant: its clone is unshared and gets a share key), for 11
/// an address constant whose operand is a variable (a child slot the copy keeps).
fn leaf_const(b: &mut B, v: i64) -> EntryId {
    let int = b.int;
    match v {
        7 => {
            let c = b.konst(ConstantKind::String, Some(int));
            b.il.set_string(c, 0, b"ab\0c").unwrap();
            b.il.set_string(c, 1, b"name").unwrap();
            let e = b.e(c);
            b.il.constant_mut(e).set_text_len(4).set_sub_kind(1);
            c
        }
        9 => {
            let c = b.int_const(v);
            let e = b.e(c);
            b.il.constant_mut(e).set_is_shared(true);
            c
        }
        _ => {
            let c = b.konst(ConstantKind::Address, Some(int));
            kinds::set_address_constant_kind(&mut b.il, c, AddressKind::Routine).unwrap();
            let g1 = b.g1;
            b.il.set_child(c, F::CONSTANT_OPERAND, Some(g1)).unwrap();
            c
        }
    }
}

/// The pooled constants [`node_const`] hands out, each at its own source line.
fn const_pool(b: &mut B, pooled: bool) -> Vec<EntryId> {
    if !pooled {
        return Vec::new();
    }
    (0..6)
        .map(|i| {
            b.il.set_position(2, i as u32 + 1, 1);
            node_const(b, 2 * i + 1, &[]).unwrap()
        })
        .collect()
}

/// Builds a random expression tree bottom-up (operands allocated before their operation,
/// as a parser does): constants first in a pool (`pooled`) or each right before its
/// node, each node at its own source line, and with `dag` one operation that names the
/// same operand twice.
fn bottom_up_tree(b: &mut B, recipe: &[(ExprKind, u8, i64)], pooled: bool, dag: bool) -> EntryId {
    let pool = const_pool(b, pooled);
    let mut stack: Vec<EntryId> = Vec::new();
    let mut shared_once = false;
    for (line, &(k, nops, v)) in recipe.iter().enumerate() {
        // A source position per node (and its fresh constant), so copies that keep
        // positions are told from copies that do not.
        b.il.set_position(1, line as u32 + 1, 1);
        let n = (nops as usize).min(stack.len());
        let mut ops = stack.split_off(stack.len() - n);
        if dag && !shared_once && !ops.is_empty() {
            ops.push(ops[0]);
            shared_once = true;
        }
        let c = node_const(b, v, &pool);
        let int = b.int;
        let x = b.expr(k, Some(int), &ops);
        if let Some(c) = c {
            b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
        }
        let g1 = b.g1;
        b.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(g1)).unwrap();
        rare_supplement(b, x, v);
        stack.push(x);
    }
    let int = b.int;
    b.expr(ExprKind::Operation, Some(int), &stack)
}

/// Gives every third node (by `v`) a supplement index, a field stored in a side map for
/// the few rows that have one, so the copies' row clones carry it.
fn rare_supplement(b: &mut B, x: EntryId, v: i64) {
    if v % 3 == 0 {
        let e = b.e(x);
        b.il.expr_mut(e).set_supplement(v as u32 + 100);
    }
}

/// Builds a random expression tree top-down (each operation allocated before its
/// operands, as the clang importer and the generator do): `recipe` lists the nodes in
/// pre-order, each taking up to `nops` operands from the nodes after it; constants as in
/// [`bottom_up_tree`] (fresh ones right after their node), and with `dag` one operation
/// also names its first operand again.
fn top_down_tree(b: &mut B, recipe: &[(ExprKind, u8, i64)], pooled: bool, dag: bool) -> EntryId {
    let pool = const_pool(b, pooled);
    // Open operations: (node, operands still to take, first operand).
    let mut open: Vec<(EntryId, u8, Option<EntryId>)> = Vec::new();
    let mut root = None;
    let mut shared_once = false;
    for &(k, nops, v) in recipe {
        let int = b.int;
        let x = b.expr(k, Some(int), &[]);
        if let Some(c) = node_const(b, v, &pool) {
            b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
        }
        let g1 = b.g1;
        b.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(g1)).unwrap();
        rare_supplement(b, x, v);
        match open.last_mut() {
            Some((p, left, first)) => {
                b.il.push_list(*p, F::EXPR_NODE_OPERANDS, x).unwrap();
                *left -= 1;
                first.get_or_insert(x);
                if *left == 0 {
                    let (p, _, first) = open.pop().unwrap();
                    if dag && !shared_once {
                        b.il.push_list(p, F::EXPR_NODE_OPERANDS, first.unwrap())
                            .unwrap();
                        shared_once = true;
                    }
                }
            }
            None if root.is_some() => break,
            None => root = Some(x),
        }
        if nops > 0 {
            open.push((x, nops, None));
        }
    }
    root.unwrap()
}

/// Whether the copier may plan `root`'s tree as a block, from the definition: the
/// expressions a walk copies (the root and, through non-shallow expressions, their
/// expression operands, each time it meets them) are distinct, none is of kind 5, 17 or
/// 18, every copied operand lies on the far side of its operation from the root, and in
/// the dense indices from the root to the farthest of them, they and the leaf constants
/// they copy that sit right next to their expression on the far side (as the builders
/// above allocate a node's own constant) leave, at any point from the root on, at most
/// one other entry per tree entry met so far and 32 more.
fn is_block(il: &ilkit::il::Il, root: ilkit::il::Eix) -> bool {
    let mut exprs = Vec::new();
    let mut own_consts = Vec::new();
    let (mut up, mut down) = (true, true);
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        exprs.push(e.raw());
        let ek = il.expr(e).expr_kind();
        if matches!(ek, X::DynamicInit | X::OpaqueOperand | X::DynamicInit2) {
            return false;
        }
        if matches!(
            ek,
            X::Error
                | X::Variable
                | X::TypeRef
                | X::AddressOfEllipsis
                | X::Routine
                | X::TypeOperand
                | X::OpaqueTypeRef
                | X::PackExpansion
        ) {
            continue;
        }
        for &c in il.children(e) {
            if c.is_none() {
                continue;
            }
            match il.kind(c) {
                EntryKind::ExprNode => {
                    up &= c.raw() > e.raw();
                    down &= c.raw() < e.raw();
                    stack.push(c);
                }
                EntryKind::Constant => {
                    let leaf = il.children(c).iter().all(|x| {
                        x.is_none()
                            || !matches!(il.kind(*x), EntryKind::ExprNode | EntryKind::Constant)
                    });
                    if leaf {
                        own_consts.push((e.raw(), c.raw()));
                    }
                }
                _ => {}
            }
        }
    }
    let mut distinct = exprs.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != exprs.len() {
        return false;
    }
    let (lo, hi) = (*exprs.iter().min().unwrap(), *exprs.iter().max().unwrap());
    if !((up && lo == root.raw()) || (down && hi == root.raw())) {
        return false;
    }
    let mut members = exprs;
    for (e, c) in own_consts {
        let next = if up { e + 1 } else { e.wrapping_sub(1) };
        if c == next && (lo..=hi).contains(&c) {
            members.push(c);
        }
    }
    // Entries of the stretch that are not the tree's (constants of shallow nodes,
    // aggregates and their elements): at any point of the scan from the root, at most
    // one per tree entry met so far and 32 more.
    let members: std::collections::HashSet<u32> = members.into_iter().collect();
    let order: Vec<u32> = if up {
        (lo..=hi).collect()
    } else {
        (lo..=hi).rev().collect()
    };
    let (mut met, mut holes) = (0, 0);
    for e in order {
        if members.contains(&e) {
            met += 1;
        } else {
            holes += 1;
            if holes > met + 32 {
                return false;
            }
        }
    }
    true
}

/// Whether the copies `a` and `b` of one tree have the same shape: entry by entry the
/// same kind, expression kind and operator, constant kind and value, position and
/// instantiation stamp, and in each child slot either the same shared entry or copies
/// of the same shape. With `shared`, `a`'s constants may be canonical ones sharing
/// found, copied from an equal constant at another position: constants' positions are
/// not compared.
fn same_shape(il: &ilkit::il::Il, a: ilkit::il::Eix, b: ilkit::il::Eix, shared: bool) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((x, y)) = stack.pop() {
        let pos_may_differ = shared && il.kind(x) == EntryKind::Constant;
        if il.kind(x) != il.kind(y) || (il.pos(x) != il.pos(y) && !pos_may_differ) {
            return false;
        }
        match il.kind(x) {
            EntryKind::ExprNode => {
                let (p, q) = (il.expr(x), il.expr(y));
                if (p.expr_kind(), p.op()) != (q.expr_kind(), q.op()) {
                    return false;
                }
            }
            EntryKind::Constant => {
                let (p, q) = (il.constant(x), il.constant(y));
                if (p.constant_kind(), p.value(), p.is_instantiated())
                    != (q.constant_kind(), q.value(), q.is_instantiated())
                {
                    return false;
                }
            }
            _ => {}
        }
        let (cx, cy) = (il.children(x), il.children(y));
        if cx.len() != cy.len() {
            return false;
        }
        for (&p, &q) in cx.iter().zip(cy) {
            if p == q {
                continue;
            }
            if p.is_none() || q.is_none() {
                return false;
            }
            stack.push((p, q));
        }
    }
    true
}

/// The tree of `recipe`, laid out top-down or bottom-up.
fn tree(
    b: &mut B,
    recipe: &[(ExprKind, u8, i64)],
    pooled: bool,
    dag: bool,
    top_down: bool,
) -> EntryId {
    if top_down {
        top_down_tree(b, recipe, pooled, dag)
    } else {
        bottom_up_tree(b, recipe, pooled, dag)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    /// The block plan against the walk: on trees laid out bottom-up or top-down, the
    /// copier plans a block exactly when the tree is one (`is_block`), and either way its
    /// copy has the walked copy's shape (`same_shape`), equals the original (no kind-0
    /// node), owns as many entries, gets as many entries listed as instantiated and in
    /// the original-to-copy map, and leaves the world consistent, also when the copies
    /// reuse a closed region's dense indices and rows.
    #[test]
    fn block_copies_agree_with_walked_copies(
        recipe in prop::collection::vec((expr_kind(), 0u8..4, 0i64..12), 1..80),
        pooled in any::<bool>(),
        dag in any::<bool>(),
        share in any::<bool>(),
        top_down in any::<bool>(),
        flags in prop::sample::select(vec![
            0u32,
            cf::PRESERVE_SOURCE_POS,
            cf::MARK_INSTANTIATED,
            cf::RESOLVE_REFS,
        ]),
    ) {
        let mut b = B::new();
        let root = tree(&mut b, &recipe, pooled, dag, top_down);
        let src = b.e(root);
        let block = is_block(&b.il, src);
        let comparable = recipe.iter().all(|&(k, _, _)| k != X::Error);
        let mut prev = None;
        for round in 0..2 {
            if let Some(r) = prev {
                b.il.close_function_region(r).unwrap();
            }
            let r = b.il.open_function_region(None);
            prev = Some(r);
            let mut sharing = ConstantSharing::new();
            let (fast, blocks, listed, mapped) = {
                let mut cp = copy::DeepCopy::new(flags, r);
                if share {
                    cp = cp.with_sharing(&mut sharing);
                }
                let c = cp.copy_eix(&mut b.il, src).unwrap();
                (c, cp.blocks, cp.instantiated.len(), cp.copied.len())
            };
            prop_assert_eq!(blocks, block as u64, "round {}", round);
            let mut walk = copy::DeepCopy::new(flags, r).walk_only();
            let walked = walk.copy_eix(&mut b.il, src).unwrap();
            prop_assert_eq!(listed, walk.instantiated.len());
            prop_assert_eq!(mapped, walk.copied.len());
            prop_assert!(same_shape(&b.il, fast, walked, share));
            if comparable {
                prop_assert!(compare::compare_expressions(&b.il, src, fast, 0).unwrap());
            }
            let (orig, f, w) = (
                owned_entries(&b.il, src),
                owned_entries(&b.il, fast),
                owned_entries(&b.il, walked),
            );
            prop_assert_eq!(f.len(), w.len());
            prop_assert_eq!(f.len(), orig.len());
            let originals: std::collections::HashSet<_> = orig.iter().copied().collect();
            for &e in &f {
                let canonical = b.il.kind(e) == EntryKind::Constant
                    && b.il.constant(e).is_shared();
                prop_assert!(!originals.contains(&e) || canonical, "{:?} still the original's", e);
            }
            prop_assert_eq!(b.il.verify(), vec![]);
            prop_assert!(sharing.verify(&b.il).is_empty());
        }
    }
}

/// Entries that are not the tree's between its expressions (here each leaf's constant,
/// allocated before its leaf in a top-down tree) are holes in its block: the tree is
/// still a block and the constants are walked. Past the allowed number of holes (one
/// per tree entry and 32 more), the tree is walked.
#[test]
fn blocks_with_holes() {
    let mut b = B::new();
    let int = b.int;
    let root = b.expr(ExprKind::Operation, Some(int), &[]);
    let l = b.int_leaf(1);
    let r = b.int_leaf(2);
    b.il.push_list(root, F::EXPR_NODE_OPERANDS, l).unwrap();
    b.il.push_list(root, F::EXPR_NODE_OPERANDS, r).unwrap();
    let src = b.e(root);
    let mut cp = copy::DeepCopy::new(0, RegionIdx::FILE_SCOPE);
    let c = cp.copy_eix(&mut b.il, src).unwrap();
    assert_eq!(cp.blocks, 1);
    assert!(compare::compare_expressions(&b.il, src, c, 0).unwrap());
    assert_ne!(
        b.il.child_eix(
            b.il.list_eix(c, F::EXPR_NODE_OPERANDS)[0],
            F::EXPR_NODE_CONSTANT
        ),
        b.il.child_eix(b.e(l), F::EXPR_NODE_CONSTANT),
        "the constant is copied"
    );
    // A root and its one operand 36 unrelated entries apart: 36 holes for 2 entries.
    let far = b.expr(ExprKind::Operation, Some(int), &[]);
    for v in 0..36 {
        b.int_const(v);
    }
    let leaf = b.expr(ExprKind::Constant, Some(int), &[]);
    b.il.push_list(far, F::EXPR_NODE_OPERANDS, leaf).unwrap();
    let src = b.e(far);
    let c = cp.copy_eix(&mut b.il, src).unwrap();
    assert_eq!(cp.blocks, 1, "walked");
    assert!(compare::compare_expressions(&b.il, src, c, 0).unwrap());
    // A leaf alone is a block of one.
    let e = b.e(leaf);
    let c = cp.copy_eix(&mut b.il, e).unwrap();
    assert_eq!(cp.blocks, 2);
    assert_ne!(c, e);
    assert_eq!(b.il.verify(), vec![]);
}

/// Expression trees as the generator and the clang importer lay them out (each
/// operation before its operands, types the importer makes in between): the copier
/// plans them as blocks (all 456 of the generator's trees with operands, all 64 and 29
/// of the two clang fixtures'), and every copy equals its original.
#[test]
fn real_layouts_copy_as_blocks() {
    let clang = |f: &str| {
        let mut il = ilkit::il::Il::new();
        let path = std::path::Path::new("tests/fixtures/clang").join(f);
        ilkit::import::clang_json::import_file(&mut il, &path).unwrap();
        il
    };
    for (name, mut il) in [
        ("generator", ilkit::il::synth::generate(1, 0.05)),
        ("clang kernels", clang("kernels.json.gz")),
        ("clang templates", clang("templates.json.gz")),
    ] {
        // Trees: expressions no expression names as a child.
        let mut child = vec![false; il.capacity()];
        let exprs: Vec<_> = il
            .entries()
            .filter(|&e| il.kind(e) == EntryKind::ExprNode)
            .collect();
        for &e in &exprs {
            for &c in il.children(e) {
                if !c.is_none() {
                    child[c.idx()] = true;
                }
            }
        }
        let roots: Vec<_> = exprs
            .into_iter()
            .filter(|&e| !child[e.idx()] && !il.list_eix(e, F::EXPR_NODE_OPERANDS).is_empty())
            .collect();
        let mut cp = copy::DeepCopy::new(0, RegionIdx::FILE_SCOPE);
        for &r in &roots {
            let c = cp.copy_eix(&mut il, r).unwrap();
            // (A tree holding a kind-0 node does not even equal itself.)
            if compare::compare_expressions(&il, r, r, 0).unwrap() {
                assert!(
                    compare::compare_expressions(&il, r, c, 0).unwrap(),
                    "{name}: {r:?}"
                );
            }
        }
        assert_eq!(cp.blocks as usize, roots.len(), "{name}");
        assert_eq!(il.verify(), vec![]);
    }
}

/// Child edges that form a cycle make the copy fail before anything is allocated,
/// instead of planning forever; on either plan.
#[test]
fn cycles_are_an_error() {
    let mut b = B::new();
    let int = b.int;
    let x = b.expr(ExprKind::Operation, Some(int), &[]);
    let y = b.expr(ExprKind::Operation, Some(int), &[x]);
    b.il.push_list(x, F::EXPR_NODE_OPERANDS, y).unwrap();
    let c = b.int_const(3);
    b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
    let before = b.il.len();
    for walk_only in [false, true] {
        let mut cp = copy::DeepCopy::new(0, RegionIdx::FILE_SCOPE);
        if walk_only {
            cp = cp.walk_only();
        }
        let e = b.e(x);
        let err = cp.copy_eix(&mut b.il, e).unwrap_err();
        assert!(matches!(err, ilkit::il::IlError::Cycle(_)), "{err}");
        assert!(err.to_string().contains("lies on a cycle of child edges"));
        assert_eq!(b.il.len(), before);
    }
    assert_eq!(b.il.verify(), vec![]);
}

/// The first line where two worlds' full `Debug` dumps differ (every column, row, edge,
/// flag, region list, position and counter), or `None` when they are equal.
fn world_diff(a: &ilkit::il::Il, b: &ilkit::il::Il) -> Option<String> {
    let (da, db) = (format!("{a:#?}"), format!("{b:#?}"));
    if da == db {
        return None;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (da.lines().collect(), db.lines().collect());
    let i = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
    let ctx = |l: &[&str]| l[i.saturating_sub(8)..(i + 3).min(l.len())].join("\n");
    Some(format!(
        "line {i}:\n--- fast path\n{}\n--- general path\n{}",
        ctx(&la),
        ctx(&lb)
    ))
}

/// Copies `src` twice (into a fresh region, then, after closing it, into a recycled
/// one; or twice into the file scope when `file_scope`) in a clone of `il`, with the
/// block fast path allowed or not; returns the world, per round the copy and the
/// copier's counters (blocks, fast blocks, map size).
fn copy_twice(
    il: &ilkit::il::Il,
    src: ilkit::il::Eix,
    flags: u32,
    track: bool,
    fast: bool,
    (scatter, file_scope): (bool, bool),
) -> (ilkit::il::Il, Vec<(ilkit::il::Eix, u64, u64, usize)>) {
    let mut il = il.clone();
    if scatter {
        // Freed dense indices that are not one run: the copies take them first.
        let mut freed = Vec::new();
        for _ in 0..5 {
            let x = il.alloc_expr_node(X::Operation).unwrap();
            freed.push(il.eix(x).unwrap());
            il.alloc(EntryKind::Type).unwrap();
        }
        il.free_entries(&freed);
    }
    let mut out = Vec::new();
    let mut prev = None;
    for _ in 0..2 {
        if let Some(r) = prev {
            il.close_function_region(r).unwrap();
        }
        let r = if file_scope {
            RegionIdx::FILE_SCOPE
        } else {
            let r = il.open_function_region(None);
            prev = Some(r);
            r
        };
        let mut cp = copy::DeepCopy::new(flags, r);
        if !track {
            cp = cp.without_tracking();
        }
        if !fast {
            cp = cp.without_fast_path();
        }
        let c = cp.copy_eix(&mut il, src).unwrap();
        out.push((c, cp.blocks, cp.fast_blocks, cp.copied.len()));
    }
    (il, out)
}

/// One level of a tree built level by level: each pair of `level` combined into an
/// addition of type `int` by the index builder, an odd last node kept as it is.
fn pair_up(
    il: &mut ilkit::il::Il,
    int: ilkit::il::Eix,
    level: &[ilkit::il::Eix],
) -> Vec<ilkit::il::Eix> {
    level
        .chunks(2)
        .map(|p| match p {
            [a, c] => il.push_expr(X::Operation, Op::Add, int, &[*a, *c]).unwrap(),
            _ => p[0],
        })
        .collect()
}

/// `leaves` leaves (an integer constant from `consts` by turns, every third a variable
/// reference to `g1`) combined pairwise up to one root by the index builder: a post-order
/// block with its edge blocks back to back. Returns the lowest entry and the root.
fn post_order_tree(
    b: &mut B,
    consts: &[ilkit::il::Eix],
    leaves: usize,
) -> (ilkit::il::Eix, ilkit::il::Eix) {
    let (int, g1) = (b.e(b.int), b.e(b.g1));
    let mut level = Vec::new();
    for i in 0..leaves {
        let k = if i % 3 == 1 { X::Variable } else { X::Constant };
        let x = b.il.push_expr(k, Op::Paren, int, &[]).unwrap();
        if k == X::Constant {
            b.il.set_child_eix(x, F::EXPR_NODE_CONSTANT, consts[i % consts.len()])
                .unwrap();
        } else {
            b.il.set_ref_eix(x, F::EXPR_NODE_ENTITY, g1).unwrap();
        }
        level.push(x);
    }
    let low = level[0];
    while level.len() > 1 {
        level = pair_up(&mut b.il, int, &level);
    }
    (low, level[0])
}

/// The bench's tree shape (`benches/copy.rs`, `forest`): leaves (integer constants from a
/// pool of canonical ones, or variable references) then pairs combined up to one root,
/// all by the index builder, so the tree is one post-order block with its edge blocks
/// back to back. The fast path copies it, and the world after the copy is the world
/// the general path leaves, entry by entry.
#[test]
fn fast_block_copy_equals_general_path_on_post_order_trees() {
    for (leaves, compact) in [(1usize, false), (2, true), (37, true), (500, false)] {
        let mut b = B::new();
        // Integers, a string literal, a canonical (shared) integer, an address constant.
        let mut consts = Vec::new();
        for v in 0..4 {
            let c = b.int_const(v);
            consts.push(b.e(c));
        }
        for v in [7, 9, 11] {
            let c = leaf_const(&mut b, v);
            consts.push(b.e(c));
        }
        let (_, src) = post_order_tree(&mut b, &consts, leaves);
        if compact {
            b.il.compact_edges();
        }
        let cases = [
            (0, false, (false, false)),
            (0, true, (false, false)),
            (0, false, (true, false)),
            (0, true, (false, true)),
            (cf::PRESERVE_SOURCE_POS, true, (false, false)),
        ];
        for (flags, track, layout) in cases {
            let (fast, fr) = copy_twice(&b.il, src, flags, track, true, layout);
            let (general, gr) = copy_twice(&b.il, src, flags, track, false, layout);
            let fast_taken = if flags == 0 { 1 } else { 0 };
            for (f, g) in fr.iter().zip(&gr) {
                assert_eq!((f.0, f.1, f.3), (g.0, g.1, g.3), "{leaves} leaves");
                assert_eq!((f.1, f.2, g.2), (1, fast_taken, 0), "{leaves} leaves");
            }
            if let Some(d) = world_diff(&fast, &general) {
                panic!("{leaves} leaves, flags {flags:#x}: {d}");
            }
            assert_eq!(fast.verify(), vec![]);
            assert!(compare::compare_expressions(&fast, src, fr[1].0, 0).unwrap());
        }
    }
}

/// A tree at the start of a world, so its dense indices are as small as its list lengths
/// (an operation's operand count names a block entry's index), or after other entries;
/// its variable leaves' entity references name the tree's first leaf, or nothing: the
/// fast path relocates child slots only, so the clones keep the originals' list lengths
/// and references, as the general path leaves them (each case alone: the scan tells the
/// block clone whether a reference or a length lies in the block's range).
#[test]
fn fast_block_copy_keeps_list_lengths_and_references_into_the_block() {
    for (at_start, refs) in [(true, true), (true, false), (false, true), (false, false)] {
        let mut il = ilkit::il::Il::new();
        let int = il.alloc(EntryKind::Type).unwrap();
        let int = il.eix(int).unwrap();
        if !at_start {
            for _ in 0..10 {
                il.alloc(EntryKind::Type).unwrap();
            }
        }
        let mut level = Vec::new();
        for i in 0..9 {
            let x = il.push_expr(X::Variable, Op::Paren, int, &[]).unwrap();
            if refs && i > 0 {
                il.set_ref_eix(x, F::EXPR_NODE_ENTITY, level[0]).unwrap();
            }
            level.push(x);
        }
        let first = level[0];
        assert_eq!(
            first.idx() <= 2,
            at_start,
            "the operand count 2 names a tree entry when the tree is at the start"
        );
        while level.len() > 1 {
            level = pair_up(&mut il, int, &level);
        }
        let src = level[0];
        for layout in [(false, false), (true, false), (false, true)] {
            let case = (at_start, refs, layout);
            let (fast, fr) = copy_twice(&il, src, 0, true, true, layout);
            let (general, gr) = copy_twice(&il, src, 0, true, false, layout);
            for (f, g) in fr.iter().zip(&gr) {
                assert_eq!((f.0, f.1, f.2, f.3), (g.0, g.1, 1, g.3), "{case:?}");
            }
            if let Some(d) = world_diff(&fast, &general) {
                panic!("{case:?}: {d}");
            }
            assert_eq!(fast.verify(), vec![]);
            let copy = fr[1].0;
            assert_eq!(fast.list_eix(copy, F::EXPR_NODE_OPERANDS).len(), 2);
        }
    }
}

/// The fast path's clones, leaf constants included, take the current position as the
/// general path's do (every constant and node of the original at its own source line
/// here), copied into a recycled region's run of dense slots and into scattered ones
/// (freed ones, for the block and its leaves). (With `PRESERVE_SOURCE_POS`, whose bits hold `MARK_INSTANTIATED`'s, the fast path
/// does not apply.)
#[test]
fn fast_path_positions_are_the_general_paths() {
    let mut b = B::new();
    let int = b.e(b.int);
    let consts: Vec<_> = (0..8)
        .map(|v| {
            b.il.set_position(3, v as u32 + 1, 1);
            let c = b.int_const(v);
            b.e(c)
        })
        .collect();
    let mut level = Vec::new();
    for (k, &c) in consts.iter().enumerate() {
        b.il.set_position(4, k as u32 + 1, 1);
        let x = b.il.push_expr(X::Constant, Op::Paren, int, &[]).unwrap();
        b.il.set_child_eix(x, F::EXPR_NODE_CONSTANT, c).unwrap();
        level.push(x);
    }
    b.il.set_position(5, 1, 1);
    while level.len() > 1 {
        level = pair_up(&mut b.il, int, &level);
    }
    let root = level[0];
    // Forty freed dense indices that are not one run, to scatter the leaf constants'
    // clones too (the block's take the first fifteen).
    let mut freed = Vec::new();
    for _ in 0..40 {
        let x = b.il.alloc_expr_node(X::Operation).unwrap();
        freed.push(b.il.eix(x).unwrap());
        b.il.alloc(EntryKind::Type).unwrap();
    }
    b.il.set_position(6, 1, 1);
    for scatter in [false, true] {
        if scatter {
            b.il.free_entries(&freed);
        }
        let layout = (scatter, false);
        let (fast, fr) = copy_twice(&b.il, root, 0, false, true, layout);
        let (general, _) = copy_twice(&b.il, root, 0, false, false, layout);
        assert_eq!(fr.iter().map(|r| r.2).sum::<u64>(), 2, "{scatter}");
        if let Some(d) = world_diff(&fast, &general) {
            panic!("{scatter}: {d}");
        }
        let copy = fr[1].0;
        let mut leaf = copy;
        for _ in 0..3 {
            leaf = fast.list_eix(leaf, F::EXPR_NODE_OPERANDS)[0];
        }
        let c = fast.child_eix(leaf, F::EXPR_NODE_CONSTANT).unwrap();
        assert_ne!(c, consts[0]);
        assert_ne!(fast.pos(copy), b.il.pos(root));
        assert_ne!(fast.pos(copy), b.il.pos(consts[0]));
        assert_eq!(fast.pos(c), fast.pos(copy), "{scatter}");
        assert_eq!(fast.pos(leaf), fast.pos(copy), "{scatter}");
    }
}

/// Inner nodes of a tree built level by level: their subtrees are not one block (other
/// nodes of the tree lie between a node and its operands, some more than 64 entries
/// apart), so the fast path declines them; leaves and the root are blocks it copies.
/// Either way the world after the copy is the general path's.
#[test]
fn fast_path_declines_subtrees_that_are_not_blocks() {
    let mut b = B::new();
    let int = b.e(b.int);
    let c0 = b.int_const(0);
    let c0 = b.e(c0);
    let mut all = Vec::new();
    let mut level = Vec::new();
    for _ in 0..300 {
        let x = b.il.push_expr(X::Constant, Op::Paren, int, &[]).unwrap();
        b.il.set_child_eix(x, F::EXPR_NODE_CONSTANT, c0).unwrap();
        level.push(x);
    }
    all.extend_from_slice(&level);
    while level.len() > 1 {
        let next = pair_up(&mut b.il, int, &level);
        all.extend(
            next.iter()
                .filter(|x| !all.contains(x))
                .copied()
                .collect::<Vec<_>>(),
        );
        level = next;
    }
    let root = *level.last().unwrap();
    let mut fast_taken = 0;
    for (k, &src) in all.iter().enumerate() {
        if k % 13 != 0 && src != root {
            continue;
        }
        let (fast, fr) = copy_twice(&b.il, src, 0, true, true, (false, false));
        let (general, gr) = copy_twice(&b.il, src, 0, true, false, (false, false));
        for (f, g) in fr.iter().zip(&gr) {
            assert_eq!((f.0, f.1, f.3), (g.0, g.1, g.3));
        }
        let leaf = b.il.list_eix(src, F::EXPR_NODE_OPERANDS).is_empty();
        let expect = u64::from(leaf || src == root);
        assert_eq!(fr[0].2, expect, "node {k}");
        fast_taken += fr[0].2;
        if let Some(d) = world_diff(&fast, &general) {
            panic!("node {k}: {d}");
        }
    }
    assert!(fast_taken >= 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]
    /// The block fast path against the general path on random trees laid out bottom-up
    /// or top-down (pooled or fresh constants of every leaf sort `node_const` makes,
    /// DAGs, compacted pools or not, all flags, tracking or not, freed dense indices that
    /// are or are not one run, copies into function regions or the file scope): the worlds
    /// after two copies (a fresh region, then a recycled one) are equal entry by entry,
    /// and they verify.
    #[test]
    fn fast_block_copies_equal_general_copies(
        recipe in prop::collection::vec((expr_kind(), 0u8..4, 0i64..12), 1..60),
        pooled in any::<bool>(),
        dag in any::<bool>(),
        top_down in any::<bool>(),
        compact in any::<bool>(),
        track in any::<bool>(),
        scatter in any::<bool>(),
        file_scope in any::<bool>(),
        flags in prop::sample::select(vec![
            0u32,
            0,
            cf::PRESERVE_SOURCE_POS,
            cf::MARK_INSTANTIATED,
            cf::RESOLVE_REFS,
            cf::COPY_ENTITIES,
        ]),
    ) {
        let mut b = B::new();
        let root = tree(&mut b, &recipe, pooled, dag, top_down);
        if compact {
            b.il.compact_edges();
        }
        let src = b.e(root);
        let layout = (scatter, file_scope);
        let (fast, fr) = copy_twice(&b.il, src, flags, track, true, layout);
        let (general, gr) = copy_twice(&b.il, src, flags, track, false, layout);
        for (f, g) in fr.iter().zip(&gr) {
            prop_assert_eq!((f.0, f.1, f.3), (g.0, g.1, g.3));
            prop_assert_eq!(g.2, 0);
        }
        if let Some(d) = world_diff(&fast, &general) {
            prop_assert!(false, "{}", d);
        }
        prop_assert_eq!(fast.verify(), vec![]);
    }
}

/// The fast scan marks operands without reading their kind (it reads it when the scan
/// reaches them) and classifies the single slots by their target's kind: operand slots
/// rewired (through the unchecked `replace_child_at`, as no checked setter allows) to a
/// constant below the tree, a type, an expression outside the tree, the tree's own leaf
/// twice, or none, make it decline; a type slot naming a leaf constant is copied as one,
/// as the general path copies it, and so is a leaf constant with a list member. The
/// worlds after the copies are equal, entry by entry.
#[test]
fn fast_path_and_general_path_agree_on_rewired_slots() {
    let mut b = B::new();
    let int = b.e(b.int);
    let outside = b.il.push_expr(X::Variable, Op::Paren, int, &[]).unwrap();
    let c = b.int_const(3);
    // A leaf constant whose aggregate list holds a member it does not own (a type, put
    // there unchecked): its block is longer than the constant's fixed part.
    let listed = b.int_const(4);
    let member = b.int_const(5);
    b.il.push_list(listed, F::CONSTANT_AGGREGATE, member)
        .unwrap();
    let (c, listed) = (b.e(c), b.e(listed));
    let n = b.il.children(listed).len();
    b.il.replace_child_at(listed, n - 1, int);
    let mut level = Vec::new();
    for i in 0..8 {
        let x = b.il.push_expr(X::Constant, Op::Paren, int, &[]).unwrap();
        let k = if i == 5 { listed } else { c };
        b.il.set_child_eix(x, F::EXPR_NODE_CONSTANT, k).unwrap();
        level.push(x);
    }
    let first_leaf = level[0];
    while level.len() > 1 {
        level = pair_up(&mut b.il, int, &level);
    }
    let root = level[0];
    // Slots of the root's block: type, constant, then the two operands.
    let op0 = F::EXPR_NODE_CONSTANT.slot as usize + 1;
    let ty = F::EXPR_NODE_TYPE.slot as usize;
    let rewires = [
        (op0, c, false),
        (op0, int, false),
        (op0, outside, false),
        (op0 + 1, first_leaf, false),
        (op0, ilkit::il::Eix::NONE, false),
        (ty, c, true),
        (ty, int, true),
    ];
    for (slot, to, fast_expected) in rewires {
        let mut il = b.il.clone();
        il.replace_child_at(root, slot, to);
        let (fast, fr) = copy_twice(&il, root, 0, true, true, (false, false));
        let (general, gr) = copy_twice(&il, root, 0, true, false, (false, false));
        for (f, g) in fr.iter().zip(&gr) {
            assert_eq!((f.0, f.1, f.3), (g.0, g.1, g.3), "slot {slot} -> {to}");
            assert_eq!(f.2, u64::from(fast_expected), "slot {slot} -> {to}");
        }
        if let Some(d) = world_diff(&fast, &general) {
            panic!("slot {slot} -> {to}: {d}");
        }
    }
}

/// What [`kept_blocks_stay_true_through_edits`] does to the world between copies, and
/// whether it changes an entry the kept answer depends on.
#[derive(Clone, Copy, Debug)]
enum Edit {
    Nothing,
    ConstantSlot,
    ReferenceIntoTheBlock,
    ExprKind(ExprKind),
    OperandAppended,
    Compacted,
    CompactedInPlace,
    LeafConstantValue,
    LeafConstantNoLongerALeaf,
    OutsideEntry,
    UnrelatedFree,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        Just(Edit::Nothing),
        Just(Edit::ConstantSlot),
        Just(Edit::ReferenceIntoTheBlock),
        expr_kind().prop_map(Edit::ExprKind),
        Just(Edit::OperandAppended),
        Just(Edit::Compacted),
        Just(Edit::CompactedInPlace),
        Just(Edit::LeafConstantValue),
        Just(Edit::LeafConstantNoLongerALeaf),
        Just(Edit::OutsideEntry),
        Just(Edit::UnrelatedFree),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    /// The world keeps the answer of a block copy's scan for large trees copied more
    /// than once, and the next copy of the same tree takes it instead of scanning:
    /// after one edit of any sort
    /// (an entry of the tree, a leaf constant it copies, an entry outside it, a free, a
    /// compaction that moves the tree's edge blocks), the answer is dropped exactly when
    /// the edit changed an entry it depends on, the world verifies (which checks a kept
    /// answer against the world), and copies with the kept answer leave the world the
    /// general path leaves, entry by entry.
    #[test]
    fn kept_blocks_stay_true_through_edits(
        leaves in 129usize..300,
        at in any::<prop::sample::Index>(),
        e in edit(),
    ) {
        let mut b = B::new();
        let int = b.e(b.int);
        let outside = b.il.push_expr(X::Variable, Op::Paren, int, &[]).unwrap();
        let mut consts = Vec::new();
        for v in [1, 2, 3, 7, 9] {
            let c = leaf_const(&mut b, v);
            consts.push(b.e(c));
        }
        let (low, src) = post_order_tree(&mut b, &consts, leaves);
        let x = ilkit::il::Eix::from_raw(low.raw() + at.index((src.raw() - low.raw() + 1) as usize) as u32);
        // The first copy proves the tree a block, the second proves it again and keeps
        // the answer; closing their region frees the copies, which the answer does not
        // read.
        let r = b.il.open_function_region(None);
        copy::DeepCopy::new(0, r).copy_eix(&mut b.il, src).unwrap();
        prop_assert_eq!(b.il.kept_blocks(), 0);
        copy::DeepCopy::new(0, r).copy_eix(&mut b.il, src).unwrap();
        prop_assert_eq!(b.il.kept_blocks(), 1);
        b.il.close_function_region(r).unwrap();
        prop_assert_eq!(b.il.kept_blocks(), 1);
        let touched = match e {
            Edit::Nothing => false,
            Edit::ConstantSlot => {
                b.il.set_child_eix(x, F::EXPR_NODE_CONSTANT, consts[1]).unwrap();
                true
            }
            Edit::ReferenceIntoTheBlock => {
                b.il.set_ref_eix(x, F::EXPR_NODE_ENTITY, low).unwrap();
                true
            }
            Edit::ExprKind(k) => {
                b.il.expr_mut(x).set_expr_kind(k);
                true
            }
            Edit::OperandAppended => {
                b.il.push_list_field_eix(x, F::EXPR_NODE_OPERANDS, outside).unwrap();
                true
            }
            Edit::Compacted | Edit::CompactedInPlace => {
                // Garbage below the tree's edge blocks: they slide down.
                b.il.push_list_field_eix(outside, F::EXPR_NODE_OPERANDS, low).unwrap();
                if matches!(e, Edit::Compacted) {
                    b.il.compact_edges();
                } else {
                    b.il.compact_edges_in_place();
                }
                false
            }
            Edit::LeafConstantValue => {
                b.il.constant_mut(consts[0]).set_value(41);
                true
            }
            Edit::LeafConstantNoLongerALeaf => {
                b.il.set_child_eix(consts[0], F::CONSTANT_EXPR, outside).unwrap();
                true
            }
            Edit::OutsideEntry => {
                b.il.expr_mut(outside).set_op(Op::Add);
                b.il.set_child_eix(outside, F::EXPR_NODE_CONSTANT, consts[2]).unwrap();
                false
            }
            Edit::UnrelatedFree => {
                let y = b.il.push_expr(X::Variable, Op::Paren, int, &[]).unwrap();
                b.il.free_entries(&[y]);
                false
            }
        };
        prop_assert_eq!(b.il.kept_blocks(), usize::from(!touched), "{:?}", e);
        prop_assert_eq!(b.il.verify(), vec![]);
        let (fast, fr) = copy_twice(&b.il, src, 0, true, true, (false, false));
        let (general, gr) = copy_twice(&b.il, src, 0, true, false, (false, false));
        for (f, g) in fr.iter().zip(&gr) {
            prop_assert_eq!((f.0, f.1, f.3), (g.0, g.1, g.3));
        }
        if let Some(d) = world_diff(&fast, &general) {
            prop_assert!(false, "{:?}: {}", e, d);
        }
        prop_assert_eq!(fast.verify(), vec![]);
        // Still a block after the edit: the fast path took it both times, the second
        // time from the kept answer.
        if fr[0].2 == 1 {
            prop_assert_eq!((fr[1].2, fast.kept_blocks()), (1, 1));
        }
    }
}
