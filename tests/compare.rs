//! compare_expressions / compare_constants / compare_dynamic_inits: every expression kind
//! and every constant kind, equal and unequal, flags, bad kinds, deep chains, trace.

mod common_il;

use common_il::{ty, B};
use ilkit::compare::{self, flags, Comparer};
use ilkit::il::TemplateParamConstantKind;
use ilkit::il::{fields as F, kinds, EntryId, EntryKind, IlError};
use ilkit::il::{AddressKind, ConstantEdit, ConstantKind, ExprKind, Op, TypeKind};

/// What to vary between the two sides of a per-kind test.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Vary {
    Op,
    Op2,
    Sup,
    Ty,
    Val,
    CVal,
    Ent,
    Init,
}

#[derive(Clone, Copy)]
struct P {
    op: Op,
    op2: u8,
    sup: u32,
    dbl: bool,
    val: i64,
    cval: i64,
    ent2: bool,
    init: u8,
}

const BASE: P = P {
    op: Op::Add,
    op2: 3,
    sup: 11,
    dbl: false,
    val: 1,
    cval: 5,
    ent2: false,
    init: 2,
};

fn vary(p: P, v: Vary) -> P {
    let mut q = p;
    match v {
        Vary::Op => q.op = Op::Sub,
        Vary::Op2 => q.op2 += 1,
        Vary::Sup => q.sup += 1,
        Vary::Ty => q.dbl = true,
        Vary::Val => q.val += 1,
        Vary::CVal => q.cval += 1,
        Vary::Ent => {
            q.ent2 = true;
            q.dbl = true
        }
        Vary::Init => q.init = 3,
    }
    q
}

struct Lambdas {
    a: EntryId,
    b: EntryId,
    c: EntryId,
}

fn lambdas(b: &mut B) -> Lambdas {
    let ct1 = common_il::ty(&mut b.il, "closure1", TypeKind::Class, 1);
    let ct2 = common_il::ty(&mut b.il, "closure2", TypeKind::Class, 1);
    let mut mk = |t| {
        let l = b.il.alloc(EntryKind::Lambda).unwrap();
        b.il.set_child(l, F::LAMBDA_CLOSURE_TYPE, Some(t)).unwrap();
        l
    };
    Lambdas {
        a: mk(ct1),
        b: mk(ct1),
        c: mk(ct2),
    }
}

/// Builds a node of `kind` carrying every field some kind compares. `side` picks the
/// first or second entity of an equal pair (distinct entries, same sharing symbol).
fn build(b: &mut B, lam: &Lambdas, kind: ExprKind, p: P, side: bool) -> EntryId {
    let t = if p.dbl { b.dbl } else { b.int };
    let leaf = b.int_leaf(p.val);
    b.il.set_child(leaf, F::EXPR_NODE_TYPE, Some(t)).unwrap();
    let x = b.expr(kind, Some(t), &[leaf]);
    b.il.expr_mut(b.e(x))
        .set_op(p.op)
        .set_op2(p.op2)
        .set_supplement(p.sup);
    let c = b.int_const(p.cval);
    b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
    use ExprKind as X;
    let ent = match kind {
        X::DynamicInit | X::DynamicInit2 => b.dyn_init(p.init, 9),
        X::ClosureAddress => {
            if p.ent2 {
                lam.c
            } else if side {
                lam.b
            } else {
                lam.a
            }
        }
        // Kinds comparing by identity get the same entity on both sides.
        X::OpaqueOperand
        | X::TypeOperand
        | X::OpaqueTypeRef
        | X::ExprPair
        | X::OpaqueOperand2
        | X::PackExpansion => {
            if p.ent2 {
                b.g2
            } else {
                b.g1
            }
        }
        _ => {
            if p.ent2 {
                b.g2
            } else if side {
                b.g1b
            } else {
                b.g1
            }
        }
    };
    b.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(ent)).unwrap();
    x
}

/// (kind, what to vary, expected after varying).
fn cases() -> Vec<(ExprKind, Vary, bool)> {
    use ExprKind as X;
    use Vary::*;
    vec![
        (X::Operation, Op, false),
        (X::Operation, Val, false),
        (X::Operation, Ty, false),
        (X::Constant, CVal, false),
        (X::Variable, Ent, false),
        (X::TypeRef, Ty, false),
        (X::Routine, Ty, false),
        (X::DynamicInit, Init, false),
        (X::DynamicInit2, Init, false),
        (X::Lambda, Sup, false),
        (X::NewDelete, Op2, false),
        (X::NewDelete, Val, false),
        (X::Throw, Val, false),
        (X::Condition, Val, false),
        (X::ObjectLifetime, Val, false),
        (X::SubExpr, Val, false),
        (X::AddressOf, Op, false),
        (X::AddressOf2, Op, false),
        (X::Cast, CVal, false),
        (X::ValueCast, Op, false),
        (X::ValueCast2, Val, false),
        (X::KeyedCast, Op2, false),
        (X::AddressOfEllipsis, Op, true),
        (X::OpaqueOperand, Ent, false),
        (X::OpaqueTypeRef, Ent, false),
        (X::OpaqueOperand2, Ent, false),
        (X::TypeOperand, Ent, false),
        (X::BuiltinOperation, Op, false),
        (X::ExprWrapper, Val, false),
        (X::ExprPair, Ent, false),
        (X::ClosureAddress, Ent, false),
        (X::ComplexOperand, Val, false),
        (X::ComplexOperand2, Op, false),
        (X::FoldExpression, Op, false),
        (X::SimpleOperand, Val, false),
        (X::PackExpansion, Sup, false),
        (X::DependentEntity, Ty, false),
        (X::ConstEvalDeferred, CVal, false),
    ]
}

#[test]
fn every_expression_kind_equal_and_unequal() {
    let mut b = B::new();
    let lam = lambdas(&mut b);
    let mut seen = [false; 36];
    for (k, v, expect) in cases() {
        let x = build(&mut b, &lam, k, BASE, false);
        let y = build(&mut b, &lam, k, BASE, true);
        let z = build(&mut b, &lam, k, vary(BASE, v), true);
        let (ex, ey, ez) = (b.e(x), b.e(y), b.e(z));
        assert!(
            compare::compare_expressions(&b.il, ex, ey, 0).unwrap(),
            "kind {k}: equal trees"
        );
        assert_eq!(
            compare::compare_expressions(&b.il, ex, ez, 0).unwrap(),
            expect,
            "kind {k} varying {v:?}"
        );
        assert!(compare::compare_expressions(&b.il, ex, ex, 0).unwrap());
        seen[k.raw() as usize] = true;
    }
    // Kind 0 is never equal, except to itself.
    let x = build(&mut b, &lam, ExprKind::Error, BASE, false);
    let y = build(&mut b, &lam, ExprKind::Error, BASE, true);
    assert!(!compare::compare_expressions(&b.il, b.e(x), b.e(y), 0).unwrap());
    assert!(compare::compare_expressions(&b.il, b.e(x), b.e(x), 0).unwrap());
    seen[0] = true;
    assert!(seen.iter().all(|&s| s), "all 36 kinds covered: {seen:?}");
}

#[test]
fn kind_mismatch_is_unequal() {
    let mut b = B::new();
    let lam = lambdas(&mut b);
    let x = build(&mut b, &lam, ExprKind::ObjectLifetime, BASE, false);
    let y = build(&mut b, &lam, ExprKind::ExprWrapper, BASE, false);
    assert!(!compare::compare_expressions(&b.il, b.e(x), b.e(y), 0).unwrap());
}

#[test]
fn entity_refs_identity_sharing_symbol_type() {
    let mut b = B::new();
    let (g1, g1b, int) = (b.g1, b.g1b, b.int);
    let x = b.var_ref(g1, int);
    let y = b.var_ref(g1b, int);
    let (ex, ey) = (b.e(x), b.e(y));
    assert!(compare::compare_expressions(&b.il, ex, ey, 0).unwrap());
    // Strict: identity only.
    assert!(!compare::compare_expressions(&b.il, ex, ey, flags::STRICT).unwrap());
    // Sharing off: still equal through type equivalence (both int variables).
    let mut c = Comparer::new();
    c.sharing_enabled = false;
    assert!(c.compare_expressions(&b.il, ex, ey, 0).unwrap());
    // A differently typed variable is not equal.
    let g2 = b.g2;
    let z = b.var_ref(g2, int);
    assert!(!compare::compare_expressions(&b.il, ex, b.e(z), 0).unwrap());
}

#[test]
fn allow_specialization_and_constraints_flags() {
    let mut b = B::new();
    let lam = lambdas(&mut b);
    let x = build(&mut b, &lam, ExprKind::PackExpansion, BASE, false);
    let y = build(
        &mut b,
        &lam,
        ExprKind::PackExpansion,
        vary(BASE, Vary::Sup),
        false,
    );
    let (ex, ey) = (b.e(x), b.e(y));
    assert!(!compare::compare_expressions(&b.il, ex, ey, 0).unwrap());
    assert!(compare::compare_expressions_for_equivalence(&b.il, ex, ey).unwrap());
    let z = build(&mut b, &lam, ExprKind::Throw, BASE, false);
    let w = build(&mut b, &lam, ExprKind::Throw, vary(BASE, Vary::Op2), false);
    let (ez, ew) = (b.e(z), b.e(w));
    assert!(compare::compare_expressions(&b.il, ez, ew, 0).unwrap());
    // `op2` is no constraint: checking constraints compares requires-clauses (see
    // `constraints_compare_as_constraints`), and these throws have none.
    assert!(compare::compare_expressions(&b.il, ez, ew, flags::CHECK_CONSTRAINTS).unwrap());
}

#[test]
fn bad_kinds_give_the_seed_messages() {
    let mut b = B::new();
    let x = b.int_leaf(1);
    let y = b.int_leaf(1);
    for id in [x, y] {
        b.il.expr_mut(b.e(id)).set_expr_kind(ExprKind::Reclaimed);
    }
    assert_eq!(
        compare::compare_expressions(&b.il, b.e(x), b.e(y), 0),
        Err(IlError::BadKind("compare_expressions: bad expr kind"))
    );
    // A constant kind past ck_reflection cannot be stored (the column holds a
    // `ConstantKind`, and the binary IL reader rejects one); an address sub-kind past 6
    // still gives the seed's message.
    let c = b.konst(ConstantKind::Address, Some(b.int));
    let d = b.konst(ConstantKind::Address, Some(b.int));
    for id in [c, d] {
        b.il.constant_mut(b.e(id)).set_sub_kind(7);
    }
    assert_eq!(
        compare::compare_constants(&b.il, b.e(c), b.e(d), 0),
        Err(IlError::BadKind("compare_constants: bad constant kind"))
    );
}

/// Builds two equal constants of `kind` (and a third that differs) with `f`.
fn const_case(
    b: &mut B,
    kind: ConstantKind,
    f: &dyn Fn(&mut B, EntryId, bool),
) -> (EntryId, EntryId, EntryId) {
    let int = b.int;
    let x = b.konst(kind, Some(int));
    f(b, x, false);
    let y = b.konst(kind, Some(int));
    f(b, y, false);
    let z = b.konst(kind, Some(int));
    f(b, z, true);
    (x, y, z)
}

fn check_const(b: &B, (x, y, z): (EntryId, EntryId, EntryId), what: &str) {
    assert!(
        compare::compare_constants_default(&b.il, b.e(x), b.e(y)).unwrap(),
        "{what}: equal"
    );
    assert!(
        !compare::compare_constants_default(&b.il, b.e(x), b.e(z)).unwrap(),
        "{what}: different"
    );
}

fn set(b: &mut B, c: EntryId, f: impl FnOnce(&mut ConstantEdit)) {
    let e = b.e(c);
    f(&mut b.il.constant_mut(e));
}

#[test]
fn every_constant_kind_equal_and_unequal() {
    let mut b = B::new();
    // 0 and 14: trivially equal; the type still counts.
    for k in [ConstantKind::Error, ConstantKind::Void] {
        let int = b.int;
        let dbl = b.dbl;
        let x = b.konst(k, Some(int));
        let y = b.konst(k, Some(int));
        let z = b.konst(k, Some(dbl));
        check_const(&b, (x, y, z), "trivial");
    }
    let c = const_case(&mut b, ConstantKind::Integer, &|b, c, d| {
        set(b, c, |t| {
            t.set_value(42 + d as i64);
        })
    });
    check_const(&b, c, "integer");
    let c = const_case(&mut b, ConstantKind::Integer, &|b, c, d| {
        set(b, c, |t| {
            t.set_value(42);
            t.set_ptm_flags(d as u8);
        })
    });
    check_const(&b, c, "integer flags");
    let c = const_case(&mut b, ConstantKind::String, &|b, c, d| {
        let text: &[u8] = if d { b"ab\0ce" } else { b"ab\0cd" };
        b.il.set_string(c, 0, text).unwrap();
        set(b, c, |t| {
            t.set_text_len(5);
        });
    });
    check_const(&b, c, "string");
    for k in [ConstantKind::Float, ConstantKind::Imaginary] {
        let c = const_case(&mut b, k, &|b, c, d| {
            set(b, c, |t| {
                t.set_value((if d { 2.5f64 } else { 1.5 }).to_bits() as i64);
            })
        });
        check_const(&b, c, "float");
    }
    let c = const_case(&mut b, ConstantKind::Complex, &|b, c, d| {
        set(b, c, |t| {
            t.set_value(1.0f64.to_bits() as i64);
            t.set_value2((if d { 3.0f64 } else { 2.0 }).to_bits() as i64);
        })
    });
    check_const(&b, c, "complex");
    // 6: address of an entity (sub-kinds 0/1 match by sharing symbol), of a constant
    // (2), by identity (3), a type (5).
    let c = const_case(&mut b, ConstantKind::Address, &|b, c, d| {
        let g = if d { b.g2 } else { b.g1 };
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(g)).unwrap();
    });
    check_const(&b, c, "address sub-kind 0");
    let c = const_case(&mut b, ConstantKind::Address, &|b, c, d| {
        let inner = b.int_const(7 + d as i64);
        kinds::set_address_constant_kind(&mut b.il, c, AddressKind::Constant).unwrap();
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(inner)).unwrap();
    });
    check_const(&b, c, "address sub-kind 2");
    let c = const_case(&mut b, ConstantKind::Address, &|b, c, d| {
        kinds::set_address_constant_kind(&mut b.il, c, AddressKind::Uuidof).unwrap();
        let t = if d { b.dbl } else { b.int };
        b.il.set_child(c, F::CONSTANT_DECLARED_TYPE, Some(t))
            .unwrap();
    });
    check_const(&b, c, "address sub-kind 5");
    let c = const_case(&mut b, ConstantKind::PtrToMember, &|b, c, d| {
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(b.g1)).unwrap();
        set(b, c, |t| {
            t.set_value(8 * d as i64);
        });
    });
    check_const(&b, c, "pointer to member");
    let c = const_case(&mut b, ConstantKind::LabelDifference, &|b, c, d| {
        for v in [1, 2 + d as i64] {
            let e = b.int_const(v);
            b.il.push_list(c, F::CONSTANT_AGGREGATE, e).unwrap();
        }
    });
    check_const(&b, c, "pair");
    let c = const_case(&mut b, ConstantKind::DynamicInit, &|b, c, d| {
        let init = b.dyn_init(if d { 3 } else { 2 }, 1);
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(init)).unwrap();
    });
    check_const(&b, c, "dynamic init");
    let c = const_case(&mut b, ConstantKind::Aggregate, &|b, c, d| {
        for v in [1, 2, 3 + d as i64] {
            let e = b.int_const(v);
            b.il.push_list(c, F::CONSTANT_AGGREGATE, e).unwrap();
        }
    });
    check_const(&b, c, "aggregate");
    let c = const_case(&mut b, ConstantKind::Aggregate, &|b, c, d| {
        for v in 0..(3 + d as i64) {
            let e = b.int_const(v);
            b.il.push_list(c, F::CONSTANT_AGGREGATE, e).unwrap();
        }
    });
    check_const(&b, c, "aggregate lists ending apart");
    let c = const_case(&mut b, ConstantKind::InitRepeat, &|b, c, d| {
        let e = b.int_const(0);
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(e)).unwrap();
        set(b, c, |t| {
            t.set_value(16);
            t.set_sub_kind(d as u8);
        });
    });
    check_const(&b, c, "init repeat");
    // 12: template parameter sub-kinds.
    for sub in TemplateParamConstantKind::ALL {
        use TemplateParamConstantKind as P;
        let c = const_case(&mut b, ConstantKind::TemplateParam, &|b, c, d| {
            kinds::set_template_param_constant_kind(&mut b.il, c, sub).unwrap();
            match sub {
                P::Value => set(b, c, |t| {
                    t.set_value(d as i64);
                }),
                _ if sub.has_expression() => {
                    let x = b.int_leaf(d as i64);
                    b.il.set_child(c, F::CONSTANT_EXPR, Some(x)).unwrap();
                }
                P::NonMemberEntity | P::MemberEntity => {
                    let t = if d { b.dbl } else { b.int };
                    b.il.set_child(c, F::CONSTANT_DECLARED_TYPE, Some(t))
                        .unwrap();
                }
                _ if sub.wraps_constant() => {
                    let e = b.int_const(d as i64);
                    b.il.set_child(c, F::CONSTANT_OPERAND, Some(e)).unwrap();
                }
                P::EntityWithArgs => {
                    let info = b.il.alloc(EntryKind::TemplateInfo).unwrap();
                    let t = if d { b.dbl } else { b.int };
                    b.il.push_list(info, F::TEMPLATE_INFO_ARGS, t).unwrap();
                    b.il.set_child(c, F::CONSTANT_TEMPLATE_INFO, Some(info))
                        .unwrap();
                }
                _ => {
                    if d {
                        let t = b.dbl;
                        b.il.set_child(c, F::CONSTANT_TYPE, Some(t)).unwrap();
                    }
                }
            }
        });
        check_const(
            &b,
            c,
            &format!("template param sub-kind {sub} ({})", sub.raw()),
        );
    }
    let c = const_case(&mut b, ConstantKind::Designator, &|b, c, d| {
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(b.g1)).unwrap();
        set(b, c, |t| {
            t.set_ptm_flags(d as u8);
        });
    });
    check_const(&b, c, "designator");
    let c = const_case(&mut b, ConstantKind::Reflection, &|b, c, d| {
        set(b, c, |t| {
            t.set_value(d as i64);
        })
    });
    check_const(&b, c, "reflection");
}

#[test]
fn sharing_symbol_in_entity_constants() {
    let mut b = B::new();
    let int = b.int;
    let (g1, g1b) = (b.g1, b.g1b);
    let x = b.konst(ConstantKind::Designator, Some(int));
    b.il.set_child(x, F::CONSTANT_OPERAND, Some(g1)).unwrap();
    let y = b.konst(ConstantKind::Designator, Some(int));
    b.il.set_child(y, F::CONSTANT_OPERAND, Some(g1b)).unwrap();
    assert!(compare::compare_constants_default(&b.il, b.e(x), b.e(y)).unwrap());
    let mut c = Comparer::new();
    c.sharing_enabled = false;
    assert!(!c.compare_constants(&b.il, b.e(x), b.e(y), 0).unwrap());
}

#[test]
fn dynamic_inits() {
    let mut b = B::new();
    for k in 0u8..=9 {
        let x = b.dyn_init(k, 1);
        let y = b.dyn_init(k, 1);
        let z = b.dyn_init(k, 2);
        let (ex, ey, ez) = (b.e(x), b.e(y), b.e(z));
        assert!(
            compare::compare_dynamic_inits(&b.il, ex, ey, 0).unwrap(),
            "init {k}"
        );
        assert_eq!(
            compare::compare_dynamic_inits(&b.il, ex, ez, 0).unwrap(),
            k <= 1,
            "init {k} with other payload"
        );
    }
    let x = b.dyn_init(2, 1);
    let y = b.dyn_init(3, 1);
    assert!(!compare::compare_dynamic_inits(&b.il, b.e(x), b.e(y), 0).unwrap());
}

fn chain(b: &mut B, n: usize, leaf: i64) -> EntryId {
    let mut x = b.int_leaf(leaf);
    for _ in 0..n {
        x = b.expr(ExprKind::ExprWrapper, None, &[x]);
    }
    x
}

#[test]
fn million_deep_chain_without_stack_overflow() {
    let mut b = B::new();
    let x = chain(&mut b, 1_000_000, 1);
    let y = chain(&mut b, 1_000_000, 1);
    let z = chain(&mut b, 1_000_000, 2);
    let mut c = Comparer::new();
    assert!(c.compare_expressions(&b.il, b.e(x), b.e(y), 0).unwrap());
    assert!(c.max_depth >= 1_000_001, "{}", c.max_depth);
    assert_eq!(c.depth, 0);
    assert!(!c.compare_expressions(&b.il, b.e(x), b.e(z), 0).unwrap());
}

#[test]
fn address_and_designator_chains_iterate() {
    let mut b = B::new();
    let int = b.int;
    let mk = |b: &mut B, leaf: i64| {
        let mut c = b.int_const(leaf);
        for i in 0..200_000 {
            let k = if i % 2 == 0 {
                ConstantKind::Address
            } else {
                ConstantKind::Designator
            };
            let n = b.konst(k, Some(int));
            if k == ConstantKind::Address {
                kinds::set_address_constant_kind(&mut b.il, n, AddressKind::Constant).unwrap();
            }
            b.il.set_child(n, F::CONSTANT_OPERAND, Some(c)).unwrap();
            c = n;
        }
        c
    };
    let x = mk(&mut b, 1);
    let y = mk(&mut b, 1);
    let z = mk(&mut b, 2);
    assert!(compare::compare_constants_default(&b.il, b.e(x), b.e(y)).unwrap());
    assert!(!compare::compare_constants_default(&b.il, b.e(x), b.e(z)).unwrap());
}

#[test]
fn depth_counter_indents_the_trace() {
    let mut b = B::new();
    let int = b.int;
    let l1 = b.int_leaf(1);
    let l2 = b.int_leaf(2);
    let x = b.binop(Op::Add, int, l1, l2);
    let m1 = b.int_leaf(1);
    let m2 = b.int_leaf(2);
    let y = b.binop(Op::Add, int, m1, m2);
    let mut c = Comparer::new();
    c.trace = Some(String::new());
    assert!(c.compare_expressions(&b.il, b.e(x), b.e(y), 0).unwrap());
    let t = c.trace.unwrap();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 3, "{t}");
    assert!(
        lines[0].starts_with("  compare_expressions: enk_operation"),
        "{t}"
    );
    assert!(
        lines[1].starts_with("    compare_expressions: enk_constant"),
        "{t}"
    );
    assert!(
        lines[2].starts_with("    compare_expressions: enk_constant"),
        "{t}"
    );
}

/// Two cyclic operand graphs: pairs met again are assumed equal (seed 002), so the same
/// shape compares equal and a difference on the cycle still shows.
#[test]
fn cycles_compare_with_assumed_equal_pairs() {
    let mut b = B::new();
    let int = b.int;
    let mut roots = Vec::new();
    for op in [Op::Add, Op::Add, Op::Sub] {
        // x = op(y), y = op(x): a cycle of two operations.
        let x = b.expr(ExprKind::Operation, Some(int), &[]);
        let y = b.expr(ExprKind::Operation, Some(int), &[x]);
        b.set_op(x, op);
        b.set_op(y, Op::Add);
        b.il.push_list(x, F::EXPR_NODE_OPERANDS, y).unwrap();
        roots.push(b.e(x));
    }
    assert!(compare::compare_expressions(&b.il, roots[0], roots[1], 0).unwrap());
    assert!(!compare::compare_expressions(&b.il, roots[0], roots[2], 0).unwrap());
    assert!(compare::compare_expressions(&b.il, roots[0], roots[0], 0).unwrap());
}

/// A class type `name` that is an instance of `template` with arguments `args`.
fn instance(b: &mut B, name: &str, template: EntryId, args: &[EntryId]) -> EntryId {
    let t = ty(&mut b.il, name, TypeKind::Struct, 8);
    let info = b.il.alloc(EntryKind::TemplateInfo).unwrap();
    b.il.set_ref(info, F::TEMPLATE_INFO_TEMPLATE, Some(template))
        .unwrap();
    for &a in args {
        b.il.push_list(info, F::TEMPLATE_INFO_ARGS, a).unwrap();
    }
    b.il.set_child(t, F::TYPE_TEMPLATE_INFO, Some(info))
        .unwrap();
    t
}

fn equiv(b: &B, x: EntryId, y: EntryId) -> bool {
    compare::equiv_types(&b.il, Some(b.e(x)), Some(b.e(y)))
}

/// Classes are equivalent as the same entity or as instances of one template with
/// equivalent arguments; a name is not enough.
#[test]
fn class_types_compare_by_entity_and_template_arguments() {
    let mut b = B::new();
    let (int, dbl) = (b.int, b.dbl);
    let a1 = ty(&mut b.il, "Impl", TypeKind::Class, 8);
    let a2 = ty(&mut b.il, "Impl", TypeKind::Class, 8);
    assert!(equiv(&b, a1, a1));
    assert!(!equiv(&b, a1, a2), "two classes named Impl are two classes");
    let e1 = ty(&mut b.il, "E", TypeKind::Integer, 4);
    let e2 = ty(&mut b.il, "E", TypeKind::Integer, 4);
    for e in [e1, e2] {
        let x = b.e(e);
        b.il.ty_mut(x).set_format(1);
    }
    assert!(!equiv(&b, e1, e2), "two enums are two entities");
    let t1 = b.il.alloc(EntryKind::Template).unwrap();
    let t2 = b.il.alloc(EntryKind::Template).unwrap();
    let s_int = instance(&mut b, "S<int>", t1, &[int]);
    let s_int2 = instance(&mut b, "S<int>", t1, &[int]);
    let s_dbl = instance(&mut b, "S<double>", t1, &[dbl]);
    let u_int = instance(&mut b, "S<int>", t2, &[int]);
    assert!(equiv(&b, s_int, s_int2), "one template, equal arguments");
    assert!(!equiv(&b, s_int, s_dbl), "other arguments");
    assert!(!equiv(&b, s_int, u_int), "another template");
    // Constant arguments compare as constants.
    let (c1, c2, c3) = (b.int_const(3), b.int_const(3), b.int_const(4));
    let n1 = instance(&mut b, "N<3>", t1, &[c1]);
    let n2 = instance(&mut b, "N<3>", t1, &[c2]);
    let n3 = instance(&mut b, "N<4>", t1, &[c3]);
    assert!(equiv(&b, n1, n2));
    assert!(!equiv(&b, n1, n3));
}

/// A routine type with return type `ret` and parameters `params` (`None`: `...`).
fn routine_type(b: &mut B, ret: EntryId, params: &[Option<EntryId>]) -> EntryId {
    let f = ty(&mut b.il, "", TypeKind::Routine, 0);
    b.il.set_child(f, F::TYPE_BASE_TYPE, Some(ret)).unwrap();
    let supp = b.il.child(f, F::TYPE_ROUTINE_SUPPLEMENT).unwrap().unwrap();
    for &p in params {
        let pt = b.il.alloc_param_type().unwrap();
        match p {
            Some(t) => b.il.set_child(pt, F::PARAM_TYPE_TYPE, Some(t)).unwrap(),
            None => {
                let e = b.e(pt);
                b.il.param_type_mut(e).set_is_pack(true);
            }
        }
        b.il.push_list(supp, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS, pt)
            .unwrap();
    }
    f
}

/// Routine types are equivalent by signature: parameters and return type.
#[test]
fn routine_types_compare_by_signature() {
    let mut b = B::new();
    let (int, dbl) = (b.int, b.dbl);
    let f1 = routine_type(&mut b, int, &[Some(int), Some(dbl)]);
    let f2 = routine_type(&mut b, int, &[Some(int), Some(dbl)]);
    let other_param = routine_type(&mut b, int, &[Some(int), Some(int)]);
    let other_ret = routine_type(&mut b, dbl, &[Some(int), Some(dbl)]);
    let variadic = routine_type(&mut b, int, &[Some(int), None]);
    let fewer = routine_type(&mut b, int, &[Some(int)]);
    assert!(equiv(&b, f1, f2));
    for (g, what) in [
        (other_param, "parameter"),
        (other_ret, "return type"),
        (variadic, "pack"),
        (fewer, "count"),
    ] {
        assert!(!equiv(&b, f1, g), "{what}");
    }
    // Pointers to equivalent routine types are equivalent.
    let (p1, p2) = (
        ty(&mut b.il, "", TypeKind::Pointer, 8),
        ty(&mut b.il, "", TypeKind::Pointer, 8),
    );
    b.il.set_child(p1, F::TYPE_BASE_TYPE, Some(f1)).unwrap();
    b.il.set_child(p2, F::TYPE_BASE_TYPE, Some(f2)).unwrap();
    assert!(equiv(&b, p1, p2));
}

/// `S<S<...>*>`-like graphs that lead back to themselves: the pair met again is assumed
/// equal, so two such graphs of one shape are equivalent, and a difference elsewhere shows.
#[test]
fn cyclic_type_graphs_use_assumed_equal_pairs() {
    let mut b = B::new();
    let int = b.int;
    let t = b.il.alloc(EntryKind::Template).unwrap();
    let make = |b: &mut B, extra: Option<EntryId>| {
        let p = ty(&mut b.il, "", TypeKind::Pointer, 8);
        let mut args = vec![p];
        args.extend(extra);
        let s = instance(b, "S", t, &args);
        b.il.set_child(p, F::TYPE_BASE_TYPE, Some(s)).unwrap();
        s
    };
    let (s1, s2) = (make(&mut b, None), make(&mut b, None));
    let s3 = make(&mut b, Some(int));
    assert!(equiv(&b, s1, s2));
    assert!(!equiv(&b, s1, s3));
}

/// Typedefs are looked through, their qualifiers kept.
#[test]
fn typedefs_are_looked_through() {
    let mut b = B::new();
    let int = b.int;
    let i = ty(&mut b.il, "I", TypeKind::Typeref, 4);
    b.il.set_child(i, F::TYPE_BASE_TYPE, Some(int)).unwrap();
    let ci = ty(&mut b.il, "CI", TypeKind::Typeref, 4);
    b.il.set_child(ci, F::TYPE_BASE_TYPE, Some(int)).unwrap();
    let e = b.e(ci);
    b.il.ty_mut(e).set_qualifiers(kinds::qual::CONST);
    let const_int = ty(&mut b.il, "int", TypeKind::Integer, 4);
    let e = b.e(const_int);
    b.il.ty_mut(e).set_qualifiers(kinds::qual::CONST);
    assert!(equiv(&b, i, int));
    assert!(!equiv(&b, ci, int));
    assert!(equiv(&b, ci, const_int));
    // Sharing hashes types by shape: equivalent types hash alike.
    let shape = |t| compare::type_shape(&b.il, Some(b.e(t)));
    assert_eq!(shape(i), shape(int));
    assert_eq!(shape(ci), shape(const_int));
}

/// Strict mode (flag 0x01): entity operands of constants and dynamic inits must be the
/// same entity; lenient mode also takes the same sharing symbol.
#[test]
fn strict_mode_wants_identical_entities() {
    let mut b = B::new();
    let int = b.int;
    let (g1, g1b) = (b.g1, b.g1b);
    let addr = |b: &mut B, g| {
        let c = b.konst(ConstantKind::Address, Some(int));
        kinds::set_address_constant_kind(&mut b.il, c, AddressKind::Variable).unwrap();
        b.il.set_child(c, F::CONSTANT_OPERAND, Some(g)).unwrap();
        b.e(c)
    };
    let (x, y) = (addr(&mut b, g1), addr(&mut b, g1b));
    assert!(compare::compare_constants(&b.il, x, y, 0).unwrap());
    assert!(!compare::compare_constants(&b.il, x, y, flags::STRICT).unwrap());
    let init = |b: &mut B, g| {
        let d = b.dyn_init(2, 1);
        b.il.set_ref(d, F::DYNAMIC_INIT_VARIABLE, Some(g)).unwrap();
        b.e(d)
    };
    let (x, y) = (init(&mut b, g1), init(&mut b, g1b));
    assert!(compare::compare_dynamic_inits(&b.il, x, y, 0).unwrap());
    assert!(!compare::compare_dynamic_inits(&b.il, x, y, flags::STRICT).unwrap());
}

/// Check-constraints mode (flag 0x02) compares the requires-clauses of the templates two
/// dependent-entity nodes name, as expressions.
#[test]
fn constraints_compare_as_constraints() {
    let mut b = B::new();
    let int = b.int;
    let template = |b: &mut B, v: i64| {
        let t = b.il.alloc(EntryKind::Template).unwrap();
        let rc = b.il.alloc(EntryKind::RequiresClause).unwrap();
        let x = b.int_leaf(v);
        b.il.set_child(rc, F::REQUIRES_CLAUSE_EXPR, Some(x))
            .unwrap();
        b.il.set_child(t, F::TEMPLATE_REQUIRES, Some(rc)).unwrap();
        let n = b.expr(ExprKind::DependentEntity, Some(int), &[]);
        b.il.set_ref(n, F::EXPR_NODE_ENTITY, Some(t)).unwrap();
        b.e(n)
    };
    let (one, one_again, two) = (
        template(&mut b, 1),
        template(&mut b, 1),
        template(&mut b, 2),
    );
    let check = flags::CHECK_CONSTRAINTS;
    assert!(compare::compare_expressions(&b.il, one, two, 0).unwrap());
    assert!(compare::compare_expressions(&b.il, one, one_again, check).unwrap());
    assert!(!compare::compare_expressions(&b.il, one, two, check).unwrap());
}
