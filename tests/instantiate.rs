//! Template substitution: a table of cases with their resulting types and folded values,
//! conversions, packs, decay, errors, and instantiating the generator's templates.

mod common_il;

use common_il::{ty, B};
use ilkit::il::Op;
use ilkit::il::{fields as F, kinds, Eix, EntryId, EntryKind, IlError};
use ilkit::il::{AddressKind, ConstantKind, ExprKind, TemplateParamConstantKind, TypeKind};
use ilkit::instantiate::{Binding, DataModel, Subst, TemplateArgs};
use ilkit::share::ConstantSharing;

struct T {
    b: B,
    /// Type parameters T (0,0) and U (0,1).
    t: EntryId,
    u: EntryId,
    /// Non-type parameter N (0,2) and pack Ts (0,3).
    n: EntryId,
    ts: EntryId,
    s: EntryId,
    chr: EntryId,
}

fn tparam_type(b: &mut B, name: &str, pos: u16) -> EntryId {
    let t = ty(&mut b.il, name, TypeKind::TemplateParam, 0);
    b.il.ty_mut(b.e(t)).set_tparam_position(pos);
    t
}

fn nontype(b: &mut B, name: &str, pos: u16, pack: bool) -> EntryId {
    let p = b.il.alloc(EntryKind::TemplateParam).unwrap();
    b.il.set_string(p, 0, name.as_bytes()).unwrap();
    b.il.template_param_mut(b.e(p)).set_position(pos);
    b.il.template_param_mut(b.e(p)).set_is_pack(pack);
    p
}

fn setup() -> T {
    let mut b = B::new();
    let t = tparam_type(&mut b, "T", 0);
    let u = tparam_type(&mut b, "U", 1);
    let n = nontype(&mut b, "N", 2, false);
    let ts = nontype(&mut b, "Ts", 3, true);
    let s = ty(&mut b.il, "S", TypeKind::Struct, 12);
    b.il.ty_mut(b.e(s)).set_alignment(4);
    let chr = ty(&mut b.il, "char", TypeKind::Integer, 1);
    T {
        b,
        t,
        u,
        n,
        ts,
        s,
        chr,
    }
}

impl T {
    fn param_ref(&mut self, p: EntryId) -> EntryId {
        let x = self.b.expr(ExprKind::Routine, Some(self.b.int), &[]);
        self.b.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(p)).unwrap();
        x
    }
    fn type_operand(&mut self, t: EntryId) -> EntryId {
        self.b.expr(ExprKind::TypeOperand, Some(t), &[])
    }
    fn unary(&mut self, op: Op, t: Option<EntryId>, x: EntryId) -> EntryId {
        let e = self.b.expr(ExprKind::Operation, t, &[x]);
        self.b.set_op(e, op);
        e
    }
    fn bin(&mut self, op: Op, x: EntryId, y: EntryId) -> EntryId {
        let e = self.b.expr(ExprKind::Operation, None, &[x, y]);
        self.b.set_op(e, op);
        e
    }
    fn lit(&mut self, v: i64) -> EntryId {
        self.b.int_leaf(v)
    }
    fn args(&mut self, t: EntryId, u: EntryId, n: i64, pack: &[i64]) -> TemplateArgs {
        let mut a = TemplateArgs::new();
        let nc = self.b.int_const(n);
        let pc: Vec<Binding> = pack
            .iter()
            .map(|&v| Binding::Value(self.b.int_const(v)))
            .collect();
        a.bind(0, 0, Binding::Type(t))
            .bind(0, 1, Binding::Type(u))
            .bind(0, 2, Binding::Value(nc))
            .bind(0, 3, Binding::Pack(pc));
        a
    }
}

/// The folded value and type of a substituted expression (`None`: not a constant).
fn value(b: &B, x: Eix) -> Option<(i64, Eix)> {
    if b.il.expr(x).expr_kind() != ExprKind::Constant {
        return None;
    }
    let c = b.il.child_eix(x, F::EXPR_NODE_CONSTANT)?;
    let t = b.il.child_eix(c, F::CONSTANT_TYPE)?;
    Some((b.il.constant(c).value(), t))
}

fn subst(t: &mut T, args: &TemplateArgs, x: EntryId) -> Result<Eix, IlError> {
    let mut sh = ConstantSharing::new();
    let e = t.b.e(x);
    let mut s = Subst::new(&mut t.b.il, args, DataModel::default(), &mut sh)?;
    s.copy_template_param_expr(&mut t.b.il, e)
}

#[test]
fn table_of_folded_cases() {
    let mut t = setup();
    let (int, dbl, long, s, chr) = (t.b.int, t.b.dbl, t.b.long, t.s, t.chr);
    let (tp, up, n) = (t.t, t.u, t.n);
    // (description, expression builder, T, U, N, expected value, expected type)
    type Build = fn(&mut T, EntryId, EntryId, EntryId) -> EntryId;
    let cases: Vec<(&str, Build, EntryId, EntryId, i64, i64, EntryId)> = vec![
        (
            "sizeof(T), T=int",
            |t, tp, _, _| {
                let o = t.type_operand(tp);
                t.unary(Op::Sizeof, None, o)
            },
            int,
            int,
            0,
            4,
            int,
        ),
        (
            "sizeof(T), T=S",
            |t, tp, _, _| {
                let o = t.type_operand(tp);
                t.unary(Op::Sizeof, None, o)
            },
            s,
            int,
            0,
            12,
            int,
        ),
        (
            "alignof(T), T=S",
            |t, tp, _, _| {
                let o = t.type_operand(tp);
                t.unary(Op::Alignof, None, o)
            },
            s,
            int,
            0,
            4,
            int,
        ),
        (
            "alignof(T), T=double",
            |t, tp, _, _| {
                let o = t.type_operand(tp);
                t.unary(Op::Alignof, None, o)
            },
            dbl,
            int,
            0,
            8,
            int,
        ),
        (
            "sizeof(T) + sizeof(U), T=int U=long",
            |t, tp, up, _| {
                let a = t.type_operand(tp);
                let a = t.unary(Op::Sizeof, None, a);
                let b = t.type_operand(up);
                let b = t.unary(Op::Sizeof, None, b);
                t.bin(Op::Add, a, b)
            },
            int,
            long,
            0,
            12,
            int,
        ),
        (
            "N + 3, N=5",
            |t, _, _, n| {
                let a = t.param_ref(n);
                let b = t.lit(3);
                t.bin(Op::Add, a, b)
            },
            int,
            int,
            5,
            8,
            int,
        ),
        (
            "N * 2 < 11, N=5",
            |t, _, _, n| {
                let a = t.param_ref(n);
                let b = t.lit(2);
                let m = t.bin(Op::Mul, a, b);
                let c = t.lit(11);
                t.bin(Op::Lt, m, c)
            },
            int,
            int,
            5,
            1,
            int,
        ),
        (
            "N == 4, N=5",
            |t, _, _, n| {
                let a = t.param_ref(n);
                let b = t.lit(4);
                t.bin(Op::Eq, a, b)
            },
            int,
            int,
            5,
            0,
            int,
        ),
        (
            "N > 3 ? 10 : 20, N=2",
            |t, _, _, n| {
                let a = t.param_ref(n);
                let b = t.lit(3);
                let c = t.bin(Op::Gt, a, b);
                let x = t.lit(10);
                let y = t.lit(20);
                let e = t.b.expr(ExprKind::Operation, None, &[c, x, y]);
                t.b.set_op(e, Op::Cond);
                e
            },
            int,
            int,
            2,
            20,
            int,
        ),
        (
            "1 << N, N=5",
            |t, _, _, n| {
                let a = t.lit(1);
                let b = t.param_ref(n);
                t.bin(Op::Shl, a, b)
            },
            int,
            int,
            5,
            32,
            int,
        ),
        (
            "N - 7 wraps in int, N=5",
            |t, _, _, n| {
                let a = t.param_ref(n);
                let b = t.lit(7);
                t.bin(Op::Sub, a, b)
            },
            int,
            int,
            5,
            -2,
            int,
        ),
        (
            "(T)(N * 100), T=char wraps",
            |t, tp, _, n| {
                let a = t.param_ref(n);
                let b = t.lit(100);
                let m = t.bin(Op::Mul, a, b);
                t.unary(Op::Cast, Some(tp), m)
            },
            chr,
            int,
            3,
            44,
            chr,
        ),
        (
            "-N, N=5",
            |t, _, _, n| {
                let a = t.param_ref(n);
                t.unary(Op::Neg, None, a)
            },
            int,
            int,
            5,
            -5,
            int,
        ),
    ];
    for (what, build, ta, ua, nv, expect, ety) in cases {
        let x = build(&mut t, tp, up, n);
        let args = t.args(ta, ua, nv, &[]);
        let r = subst(&mut t, &args, x).unwrap_or_else(|e| panic!("{what}: {e}"));
        let (v, ty) = value(&t.b, r).unwrap_or_else(|| panic!("{what}: not folded"));
        assert_eq!(v, expect, "{what}");
        assert_eq!(ty, t.b.e(ety), "{what}: result type");
    }
}

#[test]
fn char_shift_promotes_to_int() {
    let mut t = setup();
    let chr = t.chr;
    let c = t.b.int_const(1);
    t.b.il.set_child(c, F::CONSTANT_TYPE, Some(chr)).unwrap();
    let x = t.b.expr(ExprKind::Constant, Some(chr), &[]);
    t.b.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(c)).unwrap();
    let three = t.lit(3);
    let e = t.bin(Op::Shl, x, three);
    let (int, long) = (t.b.int, t.b.long);
    let args = t.args(int, long, 0, &[]);
    let r = subst(&mut t, &args, e).unwrap();
    assert_eq!(value(&t.b, r), Some((8, t.b.e(int))));
}

#[test]
fn t_plus_u_converts_to_double_with_an_implicit_conversion_node() {
    let mut t = setup();
    let (tp, up, int, dbl) = (t.t, t.u, t.b.int, t.b.dbl);
    let va = common_il::global(&mut t.b.il, "a", tp);
    let vb = common_il::global(&mut t.b.il, "b", up);
    let a = t.b.var_ref(va, tp);
    let b = t.b.var_ref(vb, up);
    let e = t.bin(Op::Add, a, b);
    let args = t.args(int, dbl, 0, &[]);
    let r = subst(&mut t, &args, e).unwrap();
    let il = &t.b.il;
    assert_eq!(
        il.child_eix(r, F::EXPR_NODE_TYPE),
        Some(t.b.e(dbl)),
        "T + U is double"
    );
    let o = il.list_eix(r, F::EXPR_NODE_OPERANDS).to_vec();
    let conv = o[0];
    assert_eq!(il.expr(conv).op(), Op::ImplicitConv);
    assert_eq!(il.child_eix(conv, F::EXPR_NODE_TYPE), Some(t.b.e(dbl)));
    let inner = il.list_eix(conv, F::EXPR_NODE_OPERANDS)[0];
    assert_eq!(
        il.child_eix(inner, F::EXPR_NODE_TYPE),
        Some(t.b.e(int)),
        "a is int"
    );
    assert_eq!(
        il.child_eix(o[1], F::EXPR_NODE_TYPE),
        Some(t.b.e(dbl)),
        "b is double"
    );
    // The template's own tree is unchanged.
    assert_eq!(il.child_eix(t.b.e(a), F::EXPR_NODE_TYPE), Some(t.b.e(tp)));
}

#[test]
fn pointer_to_t_is_rebuilt_once() {
    let mut t = setup();
    let (tp, int) = (t.t, t.b.int);
    let ptr = ty(&mut t.b.il, "T*", TypeKind::Pointer, 8);
    t.b.il.set_child(ptr, F::TYPE_BASE_TYPE, Some(tp)).unwrap();
    let v = common_il::global(&mut t.b.il, "p", ptr);
    let a = t.b.var_ref(v, ptr);
    let b = t.b.var_ref(v, ptr);
    let e = t.b.expr(ExprKind::ObjectLifetime, None, &[a, b]);
    let args = t.args(int, int, 0, &[]);
    let r = subst(&mut t, &args, e).unwrap();
    let il = &t.b.il;
    let o = il.list_eix(r, F::EXPR_NODE_OPERANDS).to_vec();
    let t0 = il.child_eix(o[0], F::EXPR_NODE_TYPE).unwrap();
    let t1 = il.child_eix(o[1], F::EXPR_NODE_TYPE).unwrap();
    assert_eq!(t0, t1, "one substituted pointer type");
    assert_ne!(t0, t.b.e(ptr));
    assert_eq!(il.child_eix(t0, F::TYPE_BASE_TYPE), Some(t.b.e(int)));
}

#[test]
fn packs_expand_in_lists_and_fold() {
    let mut t = setup();
    let (ts, int) = (t.t, t.b.int);
    let _ = ts;
    let pack = t.ts;
    let pat = t.param_ref(pack);
    let exp = t.b.expr(ExprKind::PackExpansion, None, &[pat]);
    t.b.il
        .set_ref(exp, F::EXPR_NODE_ENTITY, Some(pack))
        .unwrap();
    let args = t.args(int, int, 0, &[1, 2, 3, 4]);
    let mut sh = ConstantSharing::new();
    let ee = t.b.e(exp);
    let mut s = Subst::new(&mut t.b.il, &args, DataModel::default(), &mut sh).unwrap();
    let list = s.copy_template_param_expr_list(&mut t.b.il, &[ee]).unwrap();
    let vals: Vec<i64> = list.iter().map(|&x| value(&t.b, x).unwrap().0).collect();
    assert_eq!(vals, [1, 2, 3, 4]);
    // (Ts + ...) folds to 10.
    let fold = t.b.expr(ExprKind::FoldExpression, None, &[exp]);
    t.b.set_op(fold, Op::Add);
    let r = subst(&mut t, &args, fold).unwrap();
    assert_eq!(value(&t.b, r), Some((10, t.b.e(int))));
}

#[test]
fn errors_use_the_seed_messages() {
    let mut t = setup();
    let (int, n) = (t.b.int, t.n);
    let a = t.param_ref(n);
    let b = t.lit(1);
    let e = t.bin(Op::ImagA, a, b);
    let args = t.args(int, int, 1, &[]);
    assert_eq!(
        subst(&mut t, &args, e),
        Err(IlError::Assert("imaginary operators not implemented"))
    );
    let agg = t.b.konst(ConstantKind::Aggregate, Some(int));
    let mut sh = ConstantSharing::new();
    let ae = t.b.e(agg);
    let mut s = Subst::new(&mut t.b.il, &args, DataModel::default(), &mut sh).unwrap();
    assert_eq!(
        s.copy_template_param_con(&mut t.b.il, ae),
        Err(IlError::BadKind("copy_template_param_con: unexpected kind"))
    );
}

#[test]
fn constant_substitution_conversion_and_decay() {
    let mut t = setup();
    let (int, long, chr, tp) = (t.b.int, t.b.long, t.chr, t.t);
    // A value parameter constant (12/0) for N, converted to long.
    let pc = t.b.konst(ConstantKind::TemplateParam, Some(int));
    kinds::set_template_param_constant_kind(&mut t.b.il, pc, TemplateParamConstantKind::Value)
        .unwrap();
    t.b.il.constant_mut(t.b.e(pc)).set_value(2);
    // sizeof(T) as a constant (12/5).
    let sz = t.b.konst(ConstantKind::TemplateParam, Some(int));
    kinds::set_template_param_constant_kind(&mut t.b.il, sz, TemplateParamConstantKind::Sizeof)
        .unwrap();
    t.b.il
        .set_child(sz, F::CONSTANT_DECLARED_TYPE, Some(tp))
        .unwrap();
    // An array of 3 chars bound to T's value... as a string constant.
    let arr = ty(&mut t.b.il, "char[3]", TypeKind::Array, 3);
    t.b.il.set_child(arr, F::TYPE_BASE_TYPE, Some(chr)).unwrap();
    let st = t.b.konst(ConstantKind::String, Some(arr));
    t.b.il.set_string(st, 0, b"hi\0").unwrap();
    let args = {
        let mut a = t.args(long, int, 5, &[]);
        a.bind(0, 4, Binding::Value(st));
        a
    };
    let sp = t.b.konst(ConstantKind::TemplateParam, Some(int));
    kinds::set_template_param_constant_kind(&mut t.b.il, sp, TemplateParamConstantKind::Value)
        .unwrap();
    t.b.il.constant_mut(t.b.e(sp)).set_value(4);
    let mut sh = ConstantSharing::new();
    let (pce, sze, spe, le) = (t.b.e(pc), t.b.e(sz), t.b.e(sp), t.b.e(long));
    let mut s = Subst::new(&mut t.b.il, &args, DataModel::default(), &mut sh).unwrap();
    let il = &mut t.b.il;
    let v = s
        .copy_template_param_con_with_substitution(il, pce, Some(le))
        .unwrap();
    assert_eq!(
        il.child_eix(v, F::CONSTANT_TYPE),
        Some(le),
        "converted to long"
    );
    assert_eq!(il.constant(v).value(), 5);
    let z = s
        .copy_template_param_con_with_substitution(il, sze, None)
        .unwrap();
    assert_eq!(il.constant(z).value(), 8, "sizeof(long)");
    let z2 = s.copy_template_param_con(il, sze).unwrap();
    assert_eq!(z, z2, "folded constants are shared");
    let d = s
        .copy_template_param_con_with_substitution(il, spe, None)
        .unwrap();
    assert_eq!(
        il.constant(d).constant_kind(),
        ConstantKind::Address,
        "array decays to an address"
    );
    assert_eq!(il.constant(d).address_kind(), Some(AddressKind::Constant));
    let pt = il.child_eix(d, F::CONSTANT_TYPE).unwrap();
    assert_eq!(il.ty(pt).type_kind(), TypeKind::Pointer, "pointer");
    assert_eq!(
        il.child_eix(pt, F::TYPE_BASE_TYPE),
        Some(t.b.e(chr)),
        "to char"
    );
    assert_eq!(t.b.il.borrowed_local_constants(), 0);
}

#[test]
fn function_to_pointer_decay() {
    let mut t = setup();
    let int = t.b.int;
    let rt = ty(&mut t.b.il, "int()", TypeKind::Routine, 0);
    let f = t.b.il.alloc(EntryKind::Routine).unwrap();
    t.b.il.set_child(f, F::ROUTINE_TYPE, Some(rt)).unwrap();
    let fc = t.b.konst(ConstantKind::Designator, Some(rt));
    t.b.il.set_child(fc, F::CONSTANT_OPERAND, Some(f)).unwrap();
    let mut args = t.args(int, int, 0, &[]);
    args.bind(0, 5, Binding::Value(fc));
    let p = t.b.konst(ConstantKind::TemplateParam, Some(int));
    kinds::set_template_param_constant_kind(&mut t.b.il, p, TemplateParamConstantKind::Value)
        .unwrap();
    t.b.il.constant_mut(t.b.e(p)).set_value(5);
    let mut sh = ConstantSharing::new();
    let pe = t.b.e(p);
    let mut s = Subst::new(&mut t.b.il, &args, DataModel::default(), &mut sh).unwrap();
    let d = s
        .copy_template_param_con_with_substitution(&mut t.b.il, pe, None)
        .unwrap();
    let il = &t.b.il;
    assert_eq!(il.constant(d).constant_kind(), ConstantKind::Address);
    assert_eq!(il.constant(d).address_kind(), Some(AddressKind::Routine));
    assert_eq!(il.child_eix(d, F::CONSTANT_OPERAND), Some(t.b.e(f)));
    let pt = il.child_eix(d, F::CONSTANT_TYPE).unwrap();
    assert_eq!(il.child_eix(pt, F::TYPE_BASE_TYPE), Some(t.b.e(rt)));
}

#[test]
fn instantiates_the_generators_templates() {
    let mut il = ilkit::il::synth::generate(3, 0.05);
    let before = il.kind_list(EntryKind::Routine).count();
    let made = ilkit::instantiate::instantiate_synth_templates(&mut il).unwrap();
    assert!(!made.is_empty());
    for &r in &made {
        let e = il.eix(r).unwrap();
        let name = String::from_utf8_lossy(il.name(e)).to_string();
        assert!(name.starts_with("tmpl") && name.ends_with('>'), "{name}");
        let info = il.child_eix(e, F::ROUTINE_TEMPLATE_INFO).unwrap();
        let arg = il.list_eix(info, F::TEMPLATE_INFO_ARGS)[0];
        let size = il.ty(arg).size() as i64;
        // The pattern's body ends in `t + 1;` and `return sizeof(T) * 2;`.
        let scope = il.child_eix(e, F::ROUTINE_BODY_SCOPE).unwrap();
        let block = il.child_eix(scope, F::SCOPE_BLOCK).unwrap();
        let stmts = il.list_eix(block, F::STATEMENT_STMTS).to_vec();
        let ret = il
            .child_eix(stmts[stmts.len() - 1], F::STATEMENT_EXPR)
            .unwrap();
        assert_eq!(
            il.expr(ret).expr_kind(),
            ExprKind::Constant,
            "{name}: folded"
        );
        let c = il.child_eix(ret, F::EXPR_NODE_CONSTANT).unwrap();
        assert_eq!(il.constant(c).value(), 2 * size, "{name}");
        let sum = il
            .child_eix(stmts[stmts.len() - 2], F::STATEMENT_EXPR)
            .unwrap();
        assert_eq!(
            il.child_eix(sum, F::EXPR_NODE_TYPE),
            Some(arg),
            "{name}: t + 1 is T"
        );
        let ops = il.list_eix(sum, F::EXPR_NODE_OPERANDS).to_vec();
        assert_eq!(
            il.child_eix(ops[0], F::EXPR_NODE_TYPE),
            Some(arg),
            "{name}: t is T"
        );
        assert_eq!(
            il.child_eix(ops[1], F::EXPR_NODE_TYPE),
            Some(arg),
            "{name}: 1 became T"
        );
        assert_eq!(
            il.pos(sum),
            il.pos(stmts[stmts.len() - 2]),
            "{name}: position"
        );
        // Nothing in the instance still names the parameter.
        let tp = il
            .child_eix(
                il.list_eix(
                    il.ref_eix(info, F::TEMPLATE_INFO_TEMPLATE).unwrap(),
                    F::TEMPLATE_PARAMS,
                )[0],
                F::TEMPLATE_PARAM_TYPE,
            )
            .unwrap();
        let mut stack = vec![e];
        let mut seen = std::collections::HashSet::new();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) || il.kind(x) == EntryKind::Type {
                continue;
            }
            for &c in il.children(x) {
                assert_ne!(c, tp, "{name}: T left under {x:?}");
                if !c.is_none() {
                    stack.push(c);
                }
            }
        }
    }
    assert_eq!(il.verify(), vec![]);
    assert_eq!(
        il.kind_list(EntryKind::Routine).count(),
        before + made.len()
    );
}
