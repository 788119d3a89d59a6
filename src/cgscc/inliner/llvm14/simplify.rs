//! InstSimplify-like folding of body rows for the LLVM 14 inline model: constants, identities and the compares LLVM's cloner folds while it clones.

use super::range::{mask, MinMax, Range};
use super::Facts;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{sext, zext, Body, Inst, RowIdx, V};
use crate::llvm::ir::{InstFlags, Ir, Opcode, Predicate, Value};
use crate::llvm::types::{TypeIdx, TypeKind, Types};
use crate::llvm::FuncIdx;

/// An `i1` constant (true is -1, sign-extended like every integer constant).
pub fn bool_v(x: bool) -> V {
    V::Int(-(x as i64))
}

/// Evaluates a floating-point comparison (`fcmp` predicate `p`, LLVM's numbering: bit 0
/// equal, 1 greater, 2 less, 3 unordered; 0 is `false`, 15 `true`).
pub fn fcmp(p: u8, a: f64, b: f64) -> bool {
    let bit = if a.is_nan() || b.is_nan() {
        8
    } else if a == b {
        1
    } else if a > b {
        2
    } else {
        4
    };
    p & bit != 0
}

/// Two operands that are the same constant, as LLVM's uniqued constants compare: equal
/// `V`s, except [`Value::Other`], which stands for constants the view does not tell
/// apart.
pub fn same_const(a: V, b: V) -> bool {
    a == b && a != V::K(Value::Other)
}

/// Evaluates an integer comparison.
pub fn icmp(p: Predicate, a: i64, b: i64, bits: u32) -> bool {
    let (ua, ub) = (zext(a, bits), zext(b, bits));
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    match p.0 {
        32 => ua == ub,
        33 => ua != ub,
        34 => ua > ub,
        35 => ua >= ub,
        36 => ua < ub,
        37 => ua <= ub,
        38 => sa > sb,
        39 => sa >= sb,
        40 => sa < sb,
        _ => sa <= sb,
    }
}

/// Folds an integer binary operation on constants (`None`: not folded, e.g. division
/// by zero or an over-wide shift).
pub fn binop(op: Opcode, a: i64, b: i64, bits: u32) -> Option<i64> {
    let (ua, ub) = (zext(a, bits), zext(b, bits));
    let r: i64 = match op {
        Opcode::Add => a.wrapping_add(b),
        Opcode::Sub => a.wrapping_sub(b),
        Opcode::Mul => a.wrapping_mul(b),
        Opcode::And => a & b,
        Opcode::Or => a | b,
        Opcode::Xor => a ^ b,
        Opcode::Shl if ub < bits as u64 => ((ua) << ub) as i64,
        Opcode::LShr if ub < bits as u64 => (ua >> ub) as i64,
        Opcode::AShr if ub < bits as u64 => sext(a, bits) >> ub,
        Opcode::UDiv if ub != 0 => (ua / ub) as i64,
        Opcode::URem if ub != 0 => (ua % ub) as i64,
        Opcode::SDiv if ub != 0 => sext(a, bits).wrapping_div(sext(b, bits)),
        Opcode::SRem if ub != 0 => sext(a, bits).wrapping_rem(sext(b, bits)),
        _ => return None,
    };
    Some(sext(r, bits))
}

/// LLVM 14's `ConstantFoldCall` for the integer intrinsics, every argument a constant
/// (`args`, sign-extended; the result is `bits` wide): `ctlz`, `cttz` (of zero with
/// `is_zero_poison`: undef), `ctpop`, `bswap`, `bitreverse`, `abs` (of the minimum with
/// `is_int_min_poison`: undef), `smax`, `smin`, `umax`, `umin`, `fshl`, `fshr` and the
/// saturating `uadd`, `sadd`, `usub`, `ssub`. `name` is the callee's (`llvm.ctlz.i64`).
pub fn fold_int_intrinsic(name: &str, args: &[i64], bits: u32) -> Option<V> {
    let rest = name.strip_prefix("llvm.")?;
    let base = rest.split('.').next()?;
    let sat = rest.split('.').nth(1) == Some("sat");
    if bits == 0 || bits > 64 {
        return None;
    }
    let u = |x: i64| zext(x, bits);
    let s = |x: i64| sext(x, bits);
    let mask = mask(bits);
    let int = |x: u64| Some(V::Int(sext(x as i64, bits)));
    let smax = (mask >> 1) as i64;
    let smin = -smax - 1;
    match (base, args) {
        ("ctlz" | "cttz", &[x, zero_poison]) => {
            if u(x) == 0 {
                return if zero_poison != 0 {
                    Some(V::K(Value::Undef))
                } else {
                    int(bits as u64)
                };
            }
            let n = if base == "ctlz" {
                u(x).leading_zeros() - (64 - bits)
            } else {
                u(x).trailing_zeros()
            };
            int(n as u64)
        }
        ("ctpop", &[x]) => int(u(x).count_ones() as u64),
        ("bswap", &[x]) if bits.is_multiple_of(16) => int(u(x).swap_bytes() >> (64 - bits)),
        ("bitreverse", &[x]) => int(u(x).reverse_bits() >> (64 - bits)),
        ("abs", &[x, min_poison]) => {
            if s(x) == smin {
                return if min_poison != 0 {
                    Some(V::K(Value::Undef))
                } else {
                    int(u(x))
                };
            }
            int(s(x).unsigned_abs())
        }
        ("smax", &[x, y]) => int(s(x).max(s(y)) as u64),
        ("smin", &[x, y]) => int(s(x).min(s(y)) as u64),
        ("umax", &[x, y]) => int(u(x).max(u(y))),
        ("umin", &[x, y]) => int(u(x).min(u(y))),
        ("fshl" | "fshr", &[x, y, z]) => {
            let k = u(z) % bits as u64;
            if k == 0 {
                return int(if base == "fshl" { u(x) } else { u(y) });
            }
            let wide = ((u(x) as u128) << bits) | u(y) as u128;
            let r = if base == "fshl" {
                wide << k >> bits
            } else {
                wide >> k
            };
            int(r as u64 & mask)
        }
        ("uadd", &[x, y]) if sat => int(u(x).saturating_add(u(y)).min(mask)),
        ("usub", &[x, y]) if sat => int(u(x).saturating_sub(u(y))),
        ("sadd" | "ssub", &[x, y]) if sat => {
            let r = if base == "sadd" {
                s(x) as i128 + s(y) as i128
            } else {
                s(x) as i128 - s(y) as i128
            };
            int(r.clamp(smin as i128, smax as i128) as i64 as u64)
        }
        _ => None,
    }
}

/// [`fold_int_intrinsic`] of a call of `name` with arguments `args`, each read as a
/// constant by `known` (nothing when one is not, or there are more than three).
pub fn fold_intrinsic_call(
    name: &str,
    args: &[V],
    bits: u32,
    known: impl Fn(V) -> Option<i64>,
) -> Option<V> {
    if !name.starts_with("llvm.") || !(1..=3).contains(&args.len()) {
        return None;
    }
    let mut vals = [0i64; 3];
    for (x, &v) in vals.iter_mut().zip(args) {
        *x = known(v)?;
    }
    fold_int_intrinsic(name, &vals[..args.len()], bits)
}

/// A constant pointer that is not null (a global, a constant expression over one).
pub fn nonnull_const(v: V) -> bool {
    matches!(v, V::K(Value::Global(_)) | V::K(Value::Expr(_)))
}

/// A cast of a cast that gives back the first cast's operand (`isEliminableCastPair`
/// yielding no cast): `trunc (zext/sext x)` and `bitcast (bitcast x)` to `x`'s type,
/// `ptrtoint (inttoptr x)` and `inttoptr (ptrtoint x)` through a pointer-sized integer.
fn cast_pair(types: &Types, b: &Body, inst: Inst<'_>) -> Option<V> {
    if !inst.op.is_cast() {
        return None;
    }
    let V::Inst(j) = inst.ops[0] else { return None };
    let inner = b.inst(j);
    let (x, x_ty) = (*inner.ops.first()?, *inner.tys.first()?);
    if x_ty != inst.ty {
        return None;
    }
    let pointer_sized = |t: TypeIdx| types.int_bits(t) == Some(64);
    let eliminable = match (inner.op, inst.op) {
        (Opcode::ZExt | Opcode::SExt, Opcode::Trunc) | (Opcode::BitCast, Opcode::BitCast) => true,
        (Opcode::IntToPtr, Opcode::PtrToInt) => pointer_sized(x_ty),
        (Opcode::PtrToInt, Opcode::IntToPtr) => pointer_sized(inner.ty),
        _ => false,
    };
    eliminable.then_some(x)
}

/// InstSimplify-like folding of instruction `i` of `b` with its current operands: the
/// value it is equal to, if any (constants, and identities such as `x + 0`).
pub fn simplify(types: &Types, b: &Body, i: RowIdx) -> Option<V> {
    simplify_with(&Sq::new(types, b), i, Some)
}

/// [`simplify`] of row `i` of `q`'s body as `q` sees its operands; a result that is a
/// value of the callee (a compare threaded over an unwired clone phi can give one) is
/// mapped into the caller by `map_back` (LLVM maps it through the value map,
/// CloneFunction.cpp:397-399).
pub fn simplify_with(q: &Sq<'_>, i: RowIdx, map_back: impl Fn(V) -> Option<V>) -> Option<V> {
    let (types, b) = (q.types, q.caller);
    let inst = b.inst(i);
    let ops = inst.ops;
    let int = |v: V| match v {
        V::Int(x) => Some(x),
        _ => None,
    };
    if let Some(x) = cast_pair(types, b, inst) {
        return Some(x);
    }
    match inst.op {
        op if op.is_int_binary() => {
            let bits = types.int_bits(inst.ty)?;
            binop_value(b, op, (ops[0], ops[1]), bits, inst.flags, RECURSION_LIMIT)
        }
        Opcode::ICmp => {
            let (l, r) = (q.here(ops[0]), q.here(ops[1]));
            let s = q.icmp(inst.aux as u8, l, r, inst.tys[0], RECURSION_LIMIT)?;
            if s.callee {
                map_back(s.v)
            } else {
                Some(s.v)
            }
        }
        Opcode::Select => {
            let (c, t, f) = (ops[0], ops[1], ops[2]);
            if let Some(c) = int(c) {
                return Some(if c & 1 != 0 { t } else { f });
            }
            // `select c, true, false` of booleans is `c`
            if types.int_bits(inst.ty) == Some(1)
                && int(t).is_some_and(|x| x & 1 != 0)
                && int(f) == Some(0)
            {
                return Some(c);
            }
            if t == f && (!t.is_const() || same_const(t, f)) {
                return Some(t);
            }
            select_of_compared(b, c, t, f)
        }
        Opcode::Trunc | Opcode::ZExt | Opcode::SExt => {
            let a = int(ops[0])?;
            let (sb, db) = (types.int_bits(inst.tys[0])?, types.int_bits(inst.ty)?);
            Some(V::Int(match inst.op {
                Opcode::Trunc => sext(a, db),
                Opcode::ZExt => sext(zext(a, sb) as i64, db),
                _ => sext(sext(a, sb), db),
            }))
        }
        Opcode::FAdd | Opcode::FSub | Opcode::FMul | Opcode::FDiv => {
            let (fx, _) = q.module?;
            fp_identity(b, inst.op, (ops[0], ops[1]), |v| float_value(&fx.ir, v))
        }
        Opcode::BitCast if inst.ty == inst.tys[0] => Some(ops[0]),
        // `ConstantFoldCastInstruction`: a cast of null (other than `addrspacecast`) is
        // the null of its type; `getelementptr` of null by zeros is null
        Opcode::BitCast | Opcode::PtrToInt | Opcode::IntToPtr if is_null(ops[0]) => {
            null_of(types, inst.ty)
        }
        Opcode::GetElementPtr if is_null(ops[0]) && ops[1..].iter().all(|&v| v == V::Int(0)) => {
            null_of(types, inst.ty)
        }
        // `SimplifyGEPInst`: one zero index keeping the pointer's type is the pointer
        Opcode::GetElementPtr
            if ops.len() == 2 && ops[1] == V::Int(0) && inst.ty == inst.tys[0] =>
        {
            Some(ops[0])
        }
        Opcode::ExtractValue => extract_element(ops, |v| insert_row(b, v)),
        Opcode::Phi => {
            let mut seen: Option<V> = None;
            for k in (0..ops.len()).step_by(2) {
                let v = ops[k];
                if v == V::Inst(i) || matches!(v, V::K(Value::Undef)) {
                    continue;
                }
                match seen {
                    None => seen = Some(v),
                    Some(s) if s == v && (!s.is_const() || same_const(s, v)) => {}
                    _ => return None,
                }
            }
            seen
        }
        _ => None,
    }
}

/// The value of floating-point constant `v` (a `float` or `double` literal).
pub fn float_value(ir: &Ir, v: V) -> Option<f64> {
    match v {
        V::K(Value::Float(n)) => Some(ir.float(n)),
        _ => None,
    }
}

/// LLVM 14's floating-point identities (`SimplifyFAddInst`, `SimplifyFSubInst`,
/// `SimplifyFMulInst`, `SimplifyFDivInst`) that hold without fast-math flags, which
/// the reader does not keep: `x + -0.0`, `x - 0.0`, `x * 1.0` and `x / 1.0` are `x`
/// (a constant left operand of `fadd` or `fmul` moved to the right first), and so are
/// `x + 0.0` and `x - -0.0` when `x` cannot be -0.0 (`CannotBeNegativeZero`: a
/// conversion from an integer, or an `fadd` of +0.0). `value` reads a constant's value.
pub fn fp_identity(
    b: &Body,
    op: Opcode,
    (x, y): (V, V),
    value: impl Fn(V) -> Option<f64>,
) -> Option<V> {
    let is = |v: V, c: f64| {
        value(v).is_some_and(|f| f == c && f.is_sign_negative() == c.is_sign_negative())
    };
    let commutes = matches!(op, Opcode::FAdd | Opcode::FMul);
    let (x, y) = if commutes && x.is_const() && !y.is_const() {
        (y, x)
    } else {
        (x, y)
    };
    let never_neg_zero = |v: V| match v {
        V::Inst(j) => match b.op(j) {
            Opcode::SiToFp | Opcode::UiToFp => true,
            Opcode::FAdd => b.ops(j).get(1).is_some_and(|&z| is(z, 0.0)),
            _ => false,
        },
        _ => false,
    };
    match op {
        Opcode::FAdd if is(y, -0.0) || (is(y, 0.0) && never_neg_zero(x)) => Some(x),
        Opcode::FSub if is(y, 0.0) || (is(y, -0.0) && never_neg_zero(x)) => Some(x),
        Opcode::FMul | Opcode::FDiv if is(y, 1.0) => Some(x),
        _ => None,
    }
}

/// `simplifySelectWithICmpCond` where an arm is one side of an equality the condition
/// tests and the other arm the other side: `select (x == y), x, y` is `y` (either arm
/// becomes the other under the equality), `select (x != y), x, y` is `x`.
fn select_of_compared(b: &Body, c: V, t: V, f: V) -> Option<V> {
    let V::Inst(j) = c else { return None };
    if b.op(j) != Opcode::ICmp {
        return None;
    }
    let (&[l, r], p) = (b.ops(j), Predicate(b.inst(j).aux as u8)) else {
        return None;
    };
    let arms_are_sides = (t == l && f == r) || (t == r && f == l);
    match p.0 {
        32 if arms_are_sides => Some(f),
        33 if arms_are_sides => Some(t),
        _ => None,
    }
}

/// `SimplifyUnaryIntrinsic` on a floating-point value `x` (`value` reads a constant's
/// value): `fabs` of a value whose sign bit must be zero (a conversion from an
/// unsigned integer, a non-negative constant) is that value, and a rounding
/// (`floor`, `ceil`, `trunc`, `rint`, `nearbyint`, `round`, `roundeven`) of a
/// conversion from an integer is that conversion.
pub fn unary_fp_intrinsic(
    name: &str,
    b: &Body,
    x: V,
    value: impl Fn(V) -> Option<f64>,
) -> Option<V> {
    let converted = |signed: bool| match x {
        V::Inst(j) => b.op(j) == Opcode::UiToFp || (signed && b.op(j) == Opcode::SiToFp),
        _ => false,
    };
    let family = name.strip_prefix("llvm.")?.split('.').next()?;
    let same = match family {
        "fabs" => converted(false) || value(x).is_some_and(|f| !f.is_sign_negative()),
        "floor" | "ceil" | "trunc" | "rint" | "nearbyint" | "round" | "roundeven" => {
            converted(true)
        }
        _ => false,
    };
    same.then_some(x)
}

/// A null pointer or a zero integer.
fn is_null(v: V) -> bool {
    matches!(v, V::K(Value::Null) | V::Int(0))
}

/// The null value of type `ty`: null for a pointer, zero for an integer.
fn null_of(types: &Types, ty: TypeIdx) -> Option<V> {
    if types.is_pointer(ty) {
        Some(V::K(Value::Null))
    } else {
        types.int_bits(ty).map(|_| V::Int(0))
    }
}

/// The operands of a two-operand row.
type Pair = Option<(V, V)>;

/// A value's definition when it is a two-operand row: its opcode and operands.
type Def = Option<(Opcode, V, V)>;

/// `v`'s definition when it is a two-operand row of the body: its opcode and operands.
fn bin_def(b: &Body, v: V) -> Option<(Opcode, V, V)> {
    let V::Inst(j) = v else { return None };
    let op = b.op(j);
    if !op.is_int_binary() {
        return None;
    }
    match *b.ops(j) {
        [p, q] => Some((op, p, q)),
        _ => None,
    }
}

/// The operands of definition `d` when it is an `op`.
fn operands_if(d: Def, op: Opcode) -> Pair {
    d.filter(|x| x.0 == op).map(|x| (x.1, x.2))
}

/// The other operand of a commutative pair when one of them is `v`.
fn other_than((p, q): (V, V), v: V) -> Option<V> {
    if q == v {
        Some(p)
    } else if p == v {
        Some(q)
    } else {
        None
    }
}

/// `x` when definition `d` is `xor x, -1` (`m_Not`).
fn not_of(d: Def, bits: u32) -> Option<V> {
    other_than(operands_if(d, Opcode::Xor)?, V::Int(sext(-1, bits)))
}

/// LLVM 14's `SimplifyBinOp` on values: what `op x, y` on `bits`-bit integers equals, if
/// an existing value or a constant: constant folding, the identities of each operation
/// (`x + 0`, `x & x`, `x * 1`, ...), and the rules that look through the operands'
/// definitions (`x + (y - x)`, `(x + y) - y`, `x - (x - y)`, `x & ~x`, `x | (x & y)`,
/// reassociation that simplifies completely), then the threading over a `select` or
/// `phi` operand whose arms all give the same result; each recursion one level of
/// `depth` (InstSimplify's `MaxRecurse`). `flags` are the instruction's (`nuw` on
/// `0 - x`); recursive steps have none, as in LLVM.
pub fn binop_value(
    b: &Body,
    op: Opcode,
    (x, y): (V, V),
    bits: u32,
    flags: InstFlags,
    depth: u32,
) -> Option<V> {
    let int = |v: V| match v {
        V::Int(x) => Some(x),
        _ => None,
    };
    if let (Some(a), Some(c)) = (int(x), int(y)) {
        return binop(op, a, c, bits).map(V::Int);
    }
    let (a, c) = (int(x), int(y));
    let all = sext(-1, bits);
    let identity = match op {
        Opcode::Add | Opcode::Or | Opcode::Xor if a == Some(0) => Some(y),
        Opcode::Add
        | Opcode::Sub
        | Opcode::Or
        | Opcode::Xor
        | Opcode::Shl
        | Opcode::LShr
        | Opcode::AShr
            if c == Some(0) =>
        {
            Some(x)
        }
        // `SimplifyShift`: 0 shifted by anything is 0; `SimplifyAShrInst`: so is -1
        Opcode::Shl | Opcode::LShr | Opcode::AShr if a == Some(0) => Some(V::Int(0)),
        Opcode::AShr if a == Some(all) => Some(V::Int(all)),
        Opcode::Mul | Opcode::And if a == Some(0) || c == Some(0) => Some(V::Int(0)),
        Opcode::Mul | Opcode::UDiv | Opcode::SDiv if c == Some(1) => Some(x),
        Opcode::Mul if a == Some(1) => Some(y),
        Opcode::And if c == Some(all) => Some(x),
        Opcode::And if a == Some(all) => Some(y),
        Opcode::Or if a == Some(all) || c == Some(all) => Some(V::Int(all)),
        Opcode::And | Opcode::Or if x == y => Some(x),
        Opcode::Xor | Opcode::Sub if x == y => Some(V::Int(0)),
        // `0 - x` is 0 when the sub is nuw
        Opcode::Sub if a == Some(0) && flags.0 & InstFlags::NUW != 0 => Some(V::Int(0)),
        _ => None,
    };
    // `computePointerDifference`: the difference of two `ptrtoint`s of one pointer
    let identity = identity
        .or_else(|| (op == Opcode::Sub && same_pointer_as_int(b, x, y)).then_some(V::Int(0)));
    if identity.is_some() || depth == 0 {
        return identity;
    }
    through_definitions(b, op, (x, y), bits, depth).or_else(|| {
        threads(op)
            .then(|| {
                thread_over_select_arms(b, op, (x, y), bits, depth)
                    .or_else(|| thread_over_phi_incoming(b, op, (x, y), bits, depth))
            })
            .flatten()
    })
}

/// `x` and `y` are `ptrtoint`s of one pointer, through bitcasts and `getelementptr`s by
/// zeros (`stripAndAccumulateConstantOffsets` with nothing accumulated).
fn same_pointer_as_int(b: &Body, x: V, y: V) -> bool {
    let base = |v: V| {
        let V::Inst(j) = v else { return None };
        if b.op(j) != Opcode::PtrToInt {
            return None;
        }
        let mut p = *b.ops(j).first()?;
        // the chain is as long as the body wrote it; a few steps suffice
        for _ in 0..8 {
            let V::Inst(k) = p else { break };
            let ops = b.ops(k);
            match b.op(k) {
                Opcode::BitCast => p = ops[0],
                Opcode::GetElementPtr if ops[1..].iter().all(|&i| i == V::Int(0)) => p = ops[0],
                _ => break,
            }
        }
        Some(p)
    };
    matches!((base(x), base(y)), (Some(p), Some(q)) if p == q)
}

/// The operations InstSimplify threads over a `select` or a `phi` operand (not `add`,
/// `sub` or `xor`).
fn threads(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Mul
            | Opcode::UDiv
            | Opcode::SDiv
            | Opcode::URem
            | Opcode::SRem
            | Opcode::Shl
            | Opcode::LShr
            | Opcode::AShr
            | Opcode::And
            | Opcode::Or
    )
}

/// The rules of [`binop_value`] that look through the operands' definitions (`depth`
/// at least 1).
fn through_definitions(b: &Body, op: Opcode, (x, y): (V, V), bits: u32, depth: u32) -> Option<V> {
    let all = sext(-1, bits);
    let (dx, dy) = (bin_def(b, x), bin_def(b, y));
    if dx.is_none() && dy.is_none() {
        return None;
    }
    let d = depth - 1;
    let rec = |op: Opcode, x: V, y: V| binop_value(b, op, (x, y), bits, InstFlags::default(), d);
    if let Some(v) = undo_pair(b, op, (x, y), (dx, dy)) {
        return Some(v);
    }
    match op {
        // x + (y - x) -> y, (y - x) + x -> y (x + -x -> 0 among them)
        Opcode::Add => {
            for (u, w) in [(x, dy), (y, dx)] {
                if let Some((p, _)) = operands_if(w, Opcode::Sub).filter(|&(_, q)| q == u) {
                    return Some(p);
                }
            }
        }
        Opcode::Sub => {
            // (p + q) - y -> p + (q - y) or q + (p - y); x - (p + q) -> (x - p) - q or
            // (x - q) - p; x - (p - q) -> (x - p) + q; each if everything simplifies
            let (ax, ay) = (operands_if(dx, Opcode::Add), operands_if(dy, Opcode::Add));
            let sy = operands_if(dy, Opcode::Sub);
            // (inner `l - r`, outer op, the outer step's fixed side)
            let tries = [
                ax.map(|(p, q)| ((q, y), Opcode::Add, (Some(p), None))),
                ax.map(|(p, q)| ((p, y), Opcode::Add, (Some(q), None))),
                ay.map(|(p, q)| ((x, p), Opcode::Sub, (None, Some(q)))),
                ay.map(|(p, q)| ((x, q), Opcode::Sub, (None, Some(p)))),
                sy.map(|(p, q)| ((x, p), Opcode::Add, (None, Some(q)))),
            ];
            for ((l, r), outer, (ol, or)) in tries.into_iter().flatten() {
                if let Some(v) = rec(Opcode::Sub, l, r) {
                    if let Some(w) = rec(outer, ol.unwrap_or(v), or.unwrap_or(v)) {
                        return Some(w);
                    }
                }
            }
            return None;
        }
        _ => {}
    }
    // x + ~x, x | ~x, x ^ ~x -> -1; x & ~x -> 0
    let logic = matches!(op, Opcode::Add | Opcode::And | Opcode::Or | Opcode::Xor);
    if logic && (not_of(dx, bits) == Some(y) || not_of(dy, bits) == Some(x)) {
        return Some(V::Int(if op == Opcode::And { 0 } else { all }));
    }
    // x & (x | q) -> x, x | (x & q) -> x (either order)
    let absorbed = match op {
        Opcode::And => Some(Opcode::Or),
        Opcode::Or => Some(Opcode::And),
        _ => None,
    };
    if let Some(other) = absorbed {
        for (u, w) in [(x, dy), (y, dx)] {
            if operands_if(w, other).is_some_and(|(p, q)| p == u || q == u) {
                return Some(u);
            }
        }
    }
    if matches!(
        op,
        Opcode::Add | Opcode::Mul | Opcode::And | Opcode::Or | Opcode::Xor
    ) {
        let (ox, oy) = (operands_if(dx, op), operands_if(dy, op));
        return associative(b, op, (x, y), (ox, oy), bits, d);
    }
    None
}

/// An operation that undoes its operand's (`dx`, `dy`: the operands' definitions), when
/// the operand's flags say nothing was lost: `(x >> a) << a` with the shift `exact`,
/// `(x << a) >>u a` with the `shl` `nuw`, `(x << a) >>s a` with it `nsw`
/// (`SimplifyShlInst`, `SimplifyLShrInst`, `SimplifyAShrInst`); `(x / y) * y` (either
/// order) with the division `exact` (`SimplifyMulInst`); `(x * y) / y` (either order)
/// with the multiplication `nuw` for `udiv`, `nsw` for `sdiv` (`simplifyDiv`): `x`.
fn undo_pair(b: &Body, op: Opcode, (x, y): (V, V), (dx, dy): (Def, Def)) -> Option<V> {
    let flag = |v: V, f: u16| matches!(v, V::Inst(j) if b.inst(j).flags.has(f));
    let inner = |d: Def, ops: &[Opcode]| d.filter(|d| ops.contains(&d.0));
    match op {
        Opcode::Shl => inner(dx, &[Opcode::LShr, Opcode::AShr])
            .filter(|d| d.2 == y && flag(x, InstFlags::EXACT))
            .map(|d| d.1),
        Opcode::LShr | Opcode::AShr => {
            let wraps = if op == Opcode::LShr {
                InstFlags::NUW
            } else {
                InstFlags::NSW
            };
            inner(dx, &[Opcode::Shl])
                .filter(|d| d.2 == y && flag(x, wraps))
                .map(|d| d.1)
        }
        Opcode::Mul => {
            let div = [Opcode::UDiv, Opcode::SDiv];
            let of = |d: Def, v: V, other: V| {
                inner(d, &div)
                    .filter(|d| d.2 == other && flag(v, InstFlags::EXACT))
                    .map(|d| d.1)
            };
            of(dx, x, y).or_else(|| of(dy, y, x))
        }
        Opcode::UDiv | Opcode::SDiv => {
            let wraps = if op == Opcode::UDiv {
                InstFlags::NUW
            } else {
                InstFlags::NSW
            };
            let pair = operands_if(dx, Opcode::Mul).filter(|_| flag(x, wraps))?;
            other_than(pair, y)
        }
        _ => None,
    }
}

/// LLVM 14's `ThreadBinOpOverSelect` (for an operation InstSimplify threads: [`threads`]):
/// with a `select` operand (the left one first), `op` applied to
/// each arm; the common result when both arms give the same, the other arm's when one
/// gives `undef`, the select itself when neither arm changes, and an arm's `p op q` when
/// the other arm did not simplify but is that same `p op q` (`depth` at least 1).
fn thread_over_select_arms(
    b: &Body,
    op: Opcode,
    (x, y): (V, V),
    bits: u32,
    depth: u32,
) -> Option<V> {
    let (left, t, f) = match (select_arms(b, x), select_arms(b, y)) {
        (Some((t, f)), _) => (true, t, f),
        (None, Some((t, f))) => (false, t, f),
        _ => return None,
    };
    let on = |arm: V| {
        let pair = if left { (arm, y) } else { (x, arm) };
        binop_value(b, op, pair, bits, InstFlags::default(), depth - 1)
    };
    let (tv, fv) = (on(t), on(f));
    if tv == fv {
        return tv;
    }
    let undef = |v: Option<V>| matches!(v, Some(V::K(Value::Undef | Value::Poison)));
    if undef(tv) {
        return fv;
    }
    if undef(fv) {
        return tv;
    }
    if tv == Some(t) && fv == Some(f) {
        return Some(if left { x } else { y });
    }
    let (simplified, unsimplified) = match (tv, fv) {
        (Some(v), None) => (v, f),
        (None, Some(v)) => (v, t),
        _ => return None,
    };
    let want = if left {
        (unsimplified, y)
    } else {
        (x, unsimplified)
    };
    let commutes = matches!(op, Opcode::Mul | Opcode::And | Opcode::Or);
    match bin_def(b, simplified) {
        Some((o, p, q)) if o == op && ((p, q) == want || (commutes && (q, p) == want)) => {
            Some(simplified)
        }
        _ => None,
    }
}

/// LLVM 14's `ThreadBinOpOverPHI` (for an operation InstSimplify threads: [`threads`]):
/// with a `phi` operand (the left one first) and the
/// other operand known to dominate it (a constant, an argument, or a row of the entry
/// block other than an invoke), `op` applied to each incoming value (the phi itself
/// skipped); their common result, if every one gives the same (`depth` at least 1). A
/// `phi` whose incoming values are not wired yet (one being cloned) gives nothing.
fn thread_over_phi_incoming(
    b: &Body,
    op: Opcode,
    (x, y): (V, V),
    bits: u32,
    depth: u32,
) -> Option<V> {
    let is_phi = |v: V| matches!(v, V::Inst(j) if b.op(j) == Opcode::Phi);
    let (left, phi) = match (x, y) {
        (V::Inst(j), _) if is_phi(x) => (true, j),
        (_, V::Inst(j)) if is_phi(y) => (false, j),
        _ => return None,
    };
    let other = if left { y } else { x };
    let dominates = match other {
        V::Int(_) | V::K(_) | V::Arg(_) => true,
        V::Inst(r) => {
            !matches!(b.op(r), Opcode::Invoke | Opcode::CallBr)
                && b.layout.first().is_some_and(|&e| b.blocks[e].contains(&r))
        }
        V::Block(_) | V::None => false,
    };
    if !dominates {
        return None;
    }
    let mut common = None;
    for &inc in b.ops(phi).iter().step_by(2) {
        if inc == V::Inst(phi) {
            continue;
        }
        let pair = if left { (inc, y) } else { (x, inc) };
        let v = binop_value(b, op, pair, bits, InstFlags::default(), depth - 1)?;
        if common.is_some_and(|c| c != v) {
            return None;
        }
        common = Some(v);
    }
    common
}

/// The arms of `v` when it is a `select` row.
fn select_arms(b: &Body, v: V) -> Option<(V, V)> {
    let V::Inst(j) = v else { return None };
    if b.op(j) != Opcode::Select {
        return None;
    }
    match *b.ops(j) {
        [_, t, f] => Some((t, f)),
        _ => None,
    }
}

/// LLVM 14's `SimplifyAssociativeBinOp` for commutative and associative `op`, in its
/// order: `(p op q) op y` as `p op (q op y)`, `x op (p op q)` as `(x op p) op q`, then
/// `(p op q) op y` as `(y op p) op q` and `x op (p op q)` as `p op (q op x)` (`dx`, `dy`:
/// the operands of `x` and `y` when they are `op` rows), each when
/// the inner step simplifies and the outer one then does too (an inner step that gives
/// back its operand gives back the whole operand).
fn associative(
    b: &Body,
    op: Opcode,
    (x, y): (V, V),
    (dx, dy): (Pair, Pair),
    bits: u32,
    depth: u32,
) -> Option<V> {
    let rec = |l: V, r: V| binop_value(b, op, (l, r), bits, InstFlags::default(), depth);
    // (inner step, the inner result that stands for the operand, that operand, the
    // outer step's fixed side: left or right of the inner result)
    let steps = [
        dx.map(|(p, q)| ((q, y), q, x, (Some(p), None))),
        dy.map(|(p, q)| ((x, p), p, y, (None, Some(q)))),
        dx.map(|(p, q)| ((y, p), p, x, (None, Some(q)))),
        dy.map(|(p, q)| ((q, x), q, y, (Some(p), None))),
    ];
    for ((l, r), keep, whole, (ol, or)) in steps.into_iter().flatten() {
        if let Some(v) = rec(l, r) {
            if v == keep {
                return Some(whole);
            }
            if let Some(w) = rec(ol.unwrap_or(v), or.unwrap_or(v)) {
                return Some(w);
            }
        }
    }
    None
}

/// An aggregate as one step of an `extractvalue` walk sees it.
pub enum Agg<'a> {
    /// `insertvalue inner, inserted, at...`.
    Insert {
        /// The indices it inserts at.
        at: &'a [V],
        /// The value it inserts.
        inserted: V,
        /// The aggregate it inserts into.
        inner: V,
    },
    /// An aggregate whose every element is this value (`undef`, `poison`).
    Whole(V),
    /// `zeroinitializer`.
    Zero,
    /// Nothing known.
    Unknown,
}

/// The walk of `SimplifyExtractValueInst` and `ConstantFoldExtractValueInstruction`:
/// `extractvalue` (`ops`: the aggregate, then the indices) through a chain of
/// `insertvalue`s, each aggregate described by `look`. The value the first
/// `insertvalue` whose indices share a prefix with the extracted ones put there, when
/// the two index lists are equal (past a partial match nothing is known); `Whole` and
/// `Zero` answer for every element (`Zero` as `V::Int(0)`).
pub fn extract_element<'a>(ops: &[V], mut look: impl FnMut(V) -> Agg<'a>) -> Option<V> {
    let (&agg, idxs) = ops.split_first()?;
    let mut cur = agg;
    for _ in 0..64 {
        match look(cur) {
            Agg::Insert {
                at,
                inserted,
                inner,
            } => {
                let common = at.len().min(idxs.len());
                if at[..common] == idxs[..common] {
                    return (at.len() == idxs.len()).then_some(inserted);
                }
                cur = inner;
            }
            Agg::Whole(v) => return Some(v),
            Agg::Zero => return Some(V::Int(0)),
            Agg::Unknown => return None,
        }
    }
    None
}

/// An `insertvalue` row of `b` as an [`Agg`] (`Unknown` for any other value).
pub fn insert_row(b: &Body, v: V) -> Agg<'_> {
    let V::Inst(r) = v else { return Agg::Unknown };
    let ops = b.ops(r);
    if b.op(r) != Opcode::InsertValue || ops.len() < 3 {
        return Agg::Unknown;
    }
    Agg::Insert {
        at: &ops[2..],
        inserted: ops[1],
        inner: ops[0],
    }
}

/// InstructionSimplify's `RecursionLimit` (InstructionSimplify.cpp:53).
pub(super) const RECURSION_LIMIT: u32 = 3;

/// A value as a simplification query sees it: a value of the caller body, or (`callee`)
/// a value of the callee's body, reached through a clone phi whose incoming values are
/// not wired yet. Constants are always the caller's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SV {
    /// A value of the callee (its arguments unsubstituted).
    pub callee: bool,
    /// The value.
    pub v: V,
}

/// A `SimplifyQuery` without DominatorTree, AssumptionCache or TargetLibraryInfo, as
/// `CloneAndPruneIntoFromInst` makes it (CloneFunction.cpp:393-394).
pub struct Sq<'a> {
    /// The module's types.
    pub types: &'a Types,
    /// The body simplified in.
    pub caller: &'a Body,
    /// While cloning: the callee and its cloned phis still without incoming values,
    /// `(new row, callee row)` sorted by new row. LLVM clones a phi unmapped
    /// (CloneFunction.cpp:386), so a user sees the callee's incoming values.
    pub unwired: Option<(&'a Body, &'a [(RowIdx, RowIdx)])>,
    /// Phis of the caller at rows from here on are not threaded over (the clone's phis
    /// once wired, which LLVM's cloner never threads over with the caller's values).
    pub no_thread_from: RowIdx,
    /// The module and the function the body is of: the values of floating-point
    /// constants ([`fp_identity`]) and the attributes of its arguments and of the
    /// functions it calls ([`Sq::known_non_null`]); without them floating-point rows
    /// are left as they are and no argument or call result is known non-null.
    pub module: Option<(&'a Facts, FuncIdx)>,
}

impl<'a> Sq<'a> {
    /// A query on `b` alone.
    pub fn new(types: &'a Types, b: &'a Body) -> Sq<'a> {
        Sq {
            types,
            caller: b,
            unwired: None,
            no_thread_from: RowIdx::NONE,
            module: None,
        }
    }

    /// A value of the caller.
    pub fn here(&self, v: V) -> SV {
        SV { callee: false, v }
    }

    fn sv(callee: bool, v: V) -> SV {
        SV {
            callee: callee && !v.is_const(),
            v,
        }
    }

    /// The instruction defining `x`: its body, its row, and whether its operands are
    /// callee values.
    fn def(&self, x: SV) -> Option<(&'a Body, RowIdx, bool)> {
        let V::Inst(j) = x.v else { return None };
        if x.callee {
            return Some((self.unwired?.0, j, true));
        }
        if let Some((callee, phis)) = self.unwired {
            if let Ok(k) = phis.binary_search_by_key(&j, |p| p.0) {
                return Some((callee, phis[k].1, true));
            }
        }
        Some((self.caller, j, false))
    }

    /// [`Sq::def`] while a walk over known bits may still recurse (LLVM's depth of 6).
    fn def_within(&self, x: SV, depth: u32) -> Option<(&'a Body, RowIdx, bool)> {
        (depth < 6).then(|| self.def(x)).flatten()
    }

    fn op_of(&self, x: SV) -> Option<Opcode> {
        self.def(x).map(|(b, j, _)| b.op(j))
    }

    /// `valueDominatesPHI` without a DominatorTree (InstructionSimplify.cpp:216-241):
    /// arguments and constants do; an instruction only when it is in its function's
    /// entry block (a clone row in a clone block has no function yet).
    fn dominates_phi(&self, x: SV) -> bool {
        let Some((b, j, _)) = self.def(x) else {
            return true;
        };
        b.layout.first().is_some_and(|&e| b.blocks[e].contains(&j))
    }

    /// `isKnownNonZero` for a pointer, the cases inlining meets: a constant that is not
    /// null; an argument of the body's function `nonnull` or passed by value in
    /// address space 0; an alloca (address space 0); a load with `!nonnull`; a call
    /// whose return is `nonnull` at the site or on the callee; a bitcast of a non-null
    /// pointer; and an inbounds GEP in address space 0 whose base is known non-null or
    /// whose indices make a non-zero offset (a struct field at a non-zero offset, a
    /// non-zero constant index over a sized element: `isGEPKnownNonNull`), up to
    /// LLVM's depth of 6.
    fn known_non_null(&self, x: SV, depth: u32) -> bool {
        if nonnull_const(x.v) {
            return true;
        }
        if depth >= 6 {
            return false;
        }
        // an argument `nonnull`, or passed by value (`byval`, `inalloca`,
        // `preallocated`) in address space 0
        if let (V::Arg(k), false, Some((fx, f))) = (x.v, x.callee, self.module) {
            let ir = &fx.ir;
            return ir.arg(f, k as usize).is_some_and(|a| {
                let at = ir.arg_attrs(a);
                at.has(Attr::NonNull)
                    || (self.types.addrspace(ir.arg_ty(a)) == 0
                        && (at.has(Attr::ByVal)
                            || at.has(Attr::InAlloca)
                            || at.has(Attr::Preallocated)))
            });
        }
        let Some((b, j, callee)) = self.def(x) else {
            return false;
        };
        let inst = b.inst(j);
        let types = self.types;
        match inst.op {
            Opcode::Alloca => types.addrspace(inst.ty) == 0,
            Opcode::BitCast => self.known_non_null(Self::sv(callee, inst.ops[0]), depth + 1),
            // a load with `!nonnull`
            Opcode::Load => inst.flags.has(InstFlags::NONNULL_MD),
            // a call whose return is `nonnull` (at the site or on the callee)
            Opcode::Call | Opcode::Invoke => self.module.is_some_and(|(fx, _)| {
                let Some(ci) = inst.call else { return false };
                let ir = &fx.ir;
                let callee_fn = match inst.ops[ci.callee_op as usize] {
                    V::K(Value::Global(s)) => fx.sym_func[s.idx()],
                    _ => None,
                };
                ir.attr_sets.get(ci.ret_attrs).has(Attr::NonNull)
                    || callee_fn.is_some_and(|g| ir.ret_attrs(g).has(Attr::NonNull))
            }),
            Opcode::GetElementPtr => {
                if !inst.flags.has(InstFlags::INBOUNDS) || types.addrspace(inst.ty) != 0 {
                    return false;
                }
                let base = Self::sv(callee, inst.ops[0]);
                if self.known_non_null(base, depth + 1) {
                    return true;
                }
                let mut indexed = inst.aux_ty;
                for (k, &idx) in inst.ops.iter().enumerate().skip(1) {
                    let n = match idx {
                        V::Int(n) => n,
                        _ => return false,
                    };
                    if k > 1 {
                        match types.kind(indexed) {
                            TypeKind::Struct { .. } | TypeKind::Named(_) => {
                                if n > 0 && types.struct_field_offset_nonzero(indexed, n as usize) {
                                    return true;
                                }
                                indexed = types.gep_step(indexed, Some(n));
                                continue;
                            }
                            TypeKind::Array { elem, .. } | TypeKind::Vector { elem, .. } => {
                                indexed = elem;
                            }
                            _ => return false,
                        }
                    }
                    if n != 0 && !types.is_zero_sized(indexed) {
                        return true;
                    }
                }
                false
            }
            _ => false,
        }
    }

    /// `isKnownNonZero` (ValueTracking.cpp, LLVM 14) for an integer `bits` wide, in
    /// part: a non-zero constant; `shl nuw` of a non-zero value and `shl` of an odd
    /// one; `lshr`/`ashr` `exact` of a non-zero value and of any shift of a negative
    /// one; `udiv`/`sdiv` `exact` of a non-zero value; an extension of a non-zero
    /// value; `or` with a non-zero operand; `mul nuw`/`nsw` of two non-zero values; a
    /// select of two non-zero values; and, as LLVM's last resort, a bit known to be
    /// one ([`Sq::known_ones`]). Each case is one LLVM proves, so a compare decided
    /// here is one LLVM decides (the phi, `add`, intrinsic and context cases are not
    /// modelled). Up to LLVM's depth of 6.
    fn known_non_zero(&self, x: SV, bits: u32, depth: u32) -> bool {
        if let V::Int(c) = x.v {
            return c != 0;
        }
        let Some((b, j, callee)) = self.def_within(x, depth) else {
            return false;
        };
        let inst = b.inst(j);
        let op = |k: usize| Self::sv(callee, inst.ops[k]);
        let nz = |k: usize| self.known_non_zero(op(k), bits, depth + 1);
        let has = |f: u16| inst.flags.has(f);
        let sign = 1u64 << (bits - 1);
        let proved = match inst.op {
            Opcode::Shl if has(InstFlags::NUW) => return nz(0),
            Opcode::Shl => self.known_ones(op(0), bits, depth + 1) & 1 != 0,
            Opcode::LShr | Opcode::AShr if has(InstFlags::EXACT) => return nz(0),
            Opcode::LShr | Opcode::AShr => self.known_ones(op(0), bits, depth + 1) & sign != 0,
            Opcode::UDiv | Opcode::SDiv if has(InstFlags::EXACT) => return nz(0),
            Opcode::ZExt | Opcode::SExt => match self.types.int_bits(inst.tys[0]) {
                Some(w) if w <= 64 => return self.known_non_zero(op(0), w, depth + 1),
                _ => false,
            },
            Opcode::Or => return nz(0) || nz(1),
            Opcode::Mul if has(InstFlags::NUW) || has(InstFlags::NSW) => nz(0) && nz(1),
            Opcode::Select => nz(1) && nz(2),
            _ => false,
        };
        proved || self.known_ones(x, bits, depth) != 0
    }

    /// `simplifyICmpWithZero`'s signed cases for `x p 0`: `slt` and `sge` decided by a
    /// known sign bit, `sgt` and `sle` by a known one bit or by a known zero one with
    /// `x` known non-zero.
    fn signed_against_zero(&self, p: u8, x: SV, bits: u32) -> Option<bool> {
        if !(38..=41).contains(&p) {
            return None;
        }
        let negative = self.known_ones(x, bits, 0) & (1u64 << (bits - 1)) != 0;
        let non_negative = || self.known_non_negative(x, bits, 0);
        let positive = || non_negative() && self.known_non_zero(x, bits, 0);
        match p {
            40 | 41 if negative => Some(true),
            38 | 39 if negative => Some(false),
            40 if non_negative() => Some(false),
            39 if non_negative() => Some(true),
            41 if positive() => Some(false),
            38 if positive() => Some(true),
            _ => None,
        }
    }

    /// Whether `computeKnownBits` knows the sign bit of `x` (`bits` wide) to be zero,
    /// in part: a non-negative constant; `zext` from a narrower type, `sext` of a
    /// non-negative value; `and` with a non-negative operand, `or`, `xor`, `add nsw`
    /// and `mul nsw` of two non-negative ones; a right shift of a non-negative value, a
    /// logical one by a non-zero constant; a select of two non-negative arms; a phi of
    /// two values that is a recurrence (`matchSimpleRecurrence`) adding or multiplying
    /// with `nsw` a non-negative step to a non-negative start. Up to LLVM's depth of 6.
    fn known_non_negative(&self, x: SV, bits: u32, depth: u32) -> bool {
        if let V::Int(c) = x.v {
            return c >= 0;
        }
        let Some((b, j, callee)) = self.def_within(x, depth) else {
            return false;
        };
        let inst = b.inst(j);
        let op = |k: usize| Self::sv(callee, inst.ops[k]);
        let nn = |k: usize| self.known_non_negative(op(k), bits, depth + 1);
        let nsw = inst.flags.has(InstFlags::NSW);
        match inst.op {
            Opcode::ZExt => self.types.int_bits(inst.tys[0]).is_some_and(|w| w < bits),
            Opcode::SExt => match self.types.int_bits(inst.tys[0]) {
                Some(w) if w <= bits => self.known_non_negative(op(0), w, depth + 1),
                _ => false,
            },
            Opcode::And => nn(0) || nn(1),
            Opcode::Or | Opcode::Xor => nn(0) && nn(1),
            Opcode::Add | Opcode::Mul => nsw && nn(0) && nn(1),
            Opcode::LShr => matches!(inst.ops[1], V::Int(k) if k > 0) || nn(0),
            Opcode::AShr => nn(0),
            Opcode::Select => nn(1) && nn(2),
            Opcode::Phi => self.non_negative_recurrence(b, j, callee, bits, depth),
            _ => false,
        }
    }

    /// A phi `j` of `b` of two incoming values, one a `nsw` `add` or `mul` of the phi
    /// and a non-negative step, the other a non-negative start.
    fn non_negative_recurrence(
        &self,
        b: &Body,
        j: RowIdx,
        callee: bool,
        bits: u32,
        depth: u32,
    ) -> bool {
        let ops = b.ops(j);
        let [v0, _, v1, _] = *ops else { return false };
        let me = V::Inst(j);
        for (step_of, start) in [(v0, v1), (v1, v0)] {
            let V::Inst(k) = step_of else { continue };
            let bo = b.inst(k);
            if !matches!(bo.op, Opcode::Add | Opcode::Mul) || !bo.flags.has(InstFlags::NSW) {
                continue;
            }
            let step = match *bo.ops {
                [a, s] if a == me => s,
                [s, a] if a == me => s,
                _ => continue,
            };
            let nn = |v: V| self.known_non_negative(Self::sv(callee, v), bits, depth + 1);
            return nn(start) && nn(step);
        }
        false
    }

    /// The bits of `x` (`bits` wide) `computeKnownBits` knows to be one, in part: a
    /// constant's; `or` (either operand's), `and` (both operands'), a select (both
    /// arms'); `shl` by a constant; `zext`, and `sext` (the sign copied up when it is
    /// known); the lowest bit of a `mul` of two odd values. Never a bit LLVM does not
    /// know, so a test on them decides only what LLVM decides.
    fn known_ones(&self, x: SV, bits: u32, depth: u32) -> u64 {
        let m = mask(bits);
        if let V::Int(c) = x.v {
            return c as u64 & m;
        }
        let Some((b, j, callee)) = self.def_within(x, depth) else {
            return 0;
        };
        let inst = b.inst(j);
        let ones = |k: usize| self.known_ones(Self::sv(callee, inst.ops[k]), bits, depth + 1);
        match inst.op {
            Opcode::Or => ones(0) | ones(1),
            Opcode::And => ones(0) & ones(1),
            Opcode::Select => ones(1) & ones(2),
            Opcode::Mul => ones(0) & ones(1) & 1,
            Opcode::Shl => match inst.ops[1] {
                V::Int(k) if (0..bits as i64).contains(&k) => (ones(0) << k) & m,
                _ => 0,
            },
            Opcode::ZExt | Opcode::SExt => {
                let Some(w) = self.types.int_bits(inst.tys[0]).filter(|&w| w <= bits) else {
                    return 0;
                };
                let o = self.known_ones(Self::sv(callee, inst.ops[0]), w, depth + 1);
                let sign = 1u64 << (w - 1);
                if inst.op == Opcode::SExt && o & sign != 0 {
                    (o | !((sign << 1).wrapping_sub(1))) & m
                } else {
                    o
                }
            }
            _ => 0,
        }
    }

    /// `SimplifyICmpInst` (InstructionSimplify.cpp:3510-3792) for predicate `p` on
    /// operands of type `ty`, with `depth` recursions left; the parts implemented:
    /// constant folding, `icmp X, X`, `simplifyICmpOfBools` (without its
    /// `isImpliedCondition` cases), the tautological and `add nuw X, C` cases of
    /// `simplifyICmpWithConstant`, compares of `zext`/`sext`, `ThreadCmpOverSelect` and
    /// `ThreadCmpOverPHI`.
    pub fn icmp(&self, p: u8, l: SV, r: SV, ty: TypeIdx, depth: u32) -> Option<SV> {
        let (mut p, mut l, mut r) = (p, l, r);
        let null = |v: V| matches!(v, V::K(Value::Null) | V::K(Value::Zero));
        if l.v.is_const() {
            if r.v.is_const() {
                let bits = self.types.int_bits(ty).unwrap_or(64);
                if let (V::Int(a), V::Int(c)) = (l.v, r.v) {
                    return Some(self.here(bool_v(icmp(Predicate(p), a, c, bits))));
                }
                if (p == 32 || p == 33)
                    && ((nonnull_const(l.v) && null(r.v)) || (null(l.v) && nonnull_const(r.v)))
                {
                    return Some(self.here(bool_v(p == 33)));
                }
                // the same constant twice (`icmp eq ptr null, null`): ConstantFold
                // decides it as for equal operands
                if l == r && !matches!(l.v, V::K(Value::Undef | Value::Poison)) {
                    return Some(self.here(bool_v(matches!(p, 32 | 35 | 37 | 39 | 41))));
                }
                return None;
            }
            std::mem::swap(&mut l, &mut r);
            p = swapped(p);
        }
        if matches!(l.v, V::K(Value::Undef | Value::Poison))
            || matches!(r.v, V::K(Value::Undef | Value::Poison))
        {
            return None;
        }
        if l == r {
            return Some(self.here(bool_v(matches!(p, 32 | 35 | 37 | 39 | 41))));
        }
        let bits = self.types.int_bits(ty);
        if bits == Some(1) {
            if let Some(v) = self.icmp_of_bools(p, l, r) {
                return Some(v);
            }
        }
        // `simplifyICmpWithZero`: a value known non-zero (a pointer non-null) against
        // zero (null)
        let zero = null(r.v) || r.v == V::Int(0);
        if zero && matches!(p, 32 | 33 | 34 | 37) {
            let non_zero = match bits {
                Some(w) if w <= 64 => self.known_non_zero(l, w, 0),
                Some(_) => false,
                None => self.types.is_pointer(ty) && self.known_non_null(l, 0),
            };
            if non_zero {
                return Some(self.here(bool_v(matches!(p, 33 | 34))));
            }
        }
        // ... and a signed compare with zero of a value whose sign bit is known
        if let (Some(w), V::Int(0)) = (bits.filter(|&w| w <= 64), r.v) {
            if let Some(v) = self.signed_against_zero(p, l, w) {
                return Some(self.here(bool_v(v)));
            }
        }
        if let (Some(bits), V::Int(c)) = (bits, r.v) {
            if let Some(v) = self.icmp_with_constant(p, l, c, bits) {
                return Some(self.here(bool_v(v)));
            }
        }
        if let Some(v) = self.icmp_of_ext(p, l, r, depth) {
            return Some(v);
        }
        let is_select = |x: SV| self.op_of(x) == Some(Opcode::Select);
        if is_select(l) || is_select(r) {
            let cmp = oriented(p, l, r, is_select(l));
            if let Some(v) = self.thread_over_select(cmp, ty, depth) {
                return Some(v);
            }
        }
        let is_phi = |x: SV| {
            self.op_of(x) == Some(Opcode::Phi)
                && (x.callee
                    || !matches!(x.v, V::Inst(j) if j >= self.no_thread_from)
                    || self.def(x).is_some_and(|d| d.2))
        };
        if is_phi(l) || is_phi(r) {
            return self.thread_over_phi(oriented(p, l, r, is_phi(l)), ty, depth);
        }
        None
    }

    /// `ThreadCmpOverSelect` (InstructionSimplify.cpp:453-525): a compare of
    /// `select c, t, f` with `other` is what comparing `t` and `f` with it both give,
    /// when that is one value (an arm's compare that simplifies to `c`, or is `c`'s own
    /// compare, stands for true on the true arm and false on the false one). The
    /// `and` / `or` / `not` forms of `handleOtherCmpSelSimplifications` are not modelled.
    fn thread_over_select(&self, (p, sel, other): (u8, SV, SV), ty: TypeIdx, d: u32) -> Option<SV> {
        let depth = d.checked_sub(1)?;
        let (b, j, c) = self.def(sel)?;
        let ops = b.ops(j);
        let cond = Self::sv(c, ops[0]);
        let arm = |v: V, truth: bool| {
            let x = Self::sv(c, v);
            match self.icmp(p, x, other, ty, depth) {
                Some(s) if s == cond => Some(self.here(bool_v(truth))),
                Some(s) => Some(s),
                None if self.is_same_compare(cond, p, x, other) => Some(self.here(bool_v(truth))),
                None => None,
            }
        };
        let t = arm(ops[1], true)?;
        let f = arm(ops[2], false)?;
        (t == f).then_some(t)
    }

    /// `isSameCompare`: `cond` is `icmp p x, y` (or its swapped form).
    fn is_same_compare(&self, cond: SV, p: u8, x: SV, y: SV) -> bool {
        let Some((b, j, c)) = self.def(cond) else {
            return false;
        };
        if b.op(j) != Opcode::ICmp {
            return false;
        }
        let (q, ops) = (b.inst(j).aux as u8, b.ops(j));
        let (cl, cr) = (Self::sv(c, ops[0]), Self::sv(c, ops[1]));
        (q == p && cl == x && cr == y) || (q == swapped(p) && cl == y && cr == x)
    }

    /// `simplifyICmpOfBools` (InstructionSimplify.cpp:2731-2822): an `i1` compared with
    /// false or true is the operand, its `not`'s operand, or a constant.
    fn icmp_of_bools(&self, p: u8, l: SV, r: SV) -> Option<SV> {
        let not_of = || -> Option<SV> {
            let (b, j, c) = self.def(l)?;
            let inst = b.inst(j);
            if inst.op != Opcode::Xor {
                return None;
            }
            let ones = |v: V| matches!(v, V::Int(x) if x & 1 != 0);
            match (inst.ops[0], inst.ops[1]) {
                (x, o) | (o, x) if ones(o) => Some(Self::sv(c, x)),
                _ => None,
            }
        };
        let zero = matches!(r.v, V::Int(0)) || matches!(r.v, V::K(Value::Zero));
        let one = matches!(r.v, V::Int(x) if x & 1 != 0);
        match p {
            // X != 0, X >u 0, X <s 0
            33 | 34 | 40 if zero => Some(l),
            // not(X) == 0, not(X) <=u 0, not(X) >=s 0
            32 | 37 | 39 if zero => not_of(),
            36 | 38 if zero => Some(self.here(bool_v(false))),
            35 | 41 if zero => Some(self.here(bool_v(true))),
            // X == 1, X >=u 1, X <=s -1
            32 | 35 | 41 if one => Some(l),
            33 | 36 | 38 if one => not_of(),
            34 | 40 if one => Some(self.here(bool_v(false))),
            37 | 39 if one => Some(self.here(bool_v(true))),
            _ => None,
        }
    }

    /// `simplifyICmpWithConstant` (InstructionSimplify.cpp:2889-2935): a predicate
    /// true or false for every value (`makeExactICmpRegion` empty or full), or for
    /// every value of the range `computeConstantRange` gives the left operand
    /// ([`Sq::range_of`]). Not modelled: the sign-bit checks of `bitcast (uitofp x)`
    /// and the `!range` metadata the reader does not keep.
    fn icmp_with_constant(&self, p: u8, l: SV, c: i64, bits: u32) -> Option<bool> {
        if bits > 64 {
            return None;
        }
        let rhs = Range::exact_icmp(p, c, bits);
        if rhs.is_empty() || rhs.is_full() {
            return Some(rhs.is_full());
        }
        let lhs = self.range_of(l, bits, (38..=41).contains(&p))?;
        if lhs.is_full() {
            return None;
        }
        if rhs.contains(&lhs) {
            Some(true)
        } else if rhs.inverse().contains(&lhs) {
            Some(false)
        } else {
            None
        }
    }

    /// `computeConstantRange` (ValueTracking.cpp, LLVM 14) of `x`, `bits` wide, for a
    /// signed compare or not: a binary operator with a constant operand
    /// (`setLimitsForBinOp`) and a select that is an integer min or max with a
    /// constant (`setLimitsForSelectPattern`, the plain `select (icmp p a, b), a, b`
    /// forms of `matchSelectPattern`). Not modelled: the intrinsics' limits
    /// (`setLimitsForIntrinsic`), the select forms of `abs` and of min/max through
    /// casts or off-by-one constants. `None`: nothing known.
    fn range_of(&self, x: SV, bits: u32, signed: bool) -> Option<Range> {
        let (b, j, callee) = self.def(x)?;
        let inst = b.inst(j);
        let int = |v: V| match v {
            V::Int(c) => Some(c),
            _ => None,
        };
        if inst.op.is_int_binary() {
            let consts = (int(inst.ops[0]), int(inst.ops[1]));
            return Some(Range::of_binop((inst.op, inst.flags), consts, bits, signed));
        }
        if inst.op != Opcode::Select {
            return None;
        }
        let (cb, cj, _) = self.def(Self::sv(callee, inst.ops[0]))?;
        let cmp = cb.inst(cj);
        if cmp.op != Opcode::ICmp || !std::ptr::eq(cb, b) {
            return None;
        }
        let (a, c) = (cmp.ops[0], cmp.ops[1]);
        let (t, f) = (inst.ops[1], inst.ops[2]);
        let same_order = (t, f) == (a, c);
        if !same_order && (t, f) != (c, a) {
            return None;
        }
        let flavor = MinMax::of(cmp.aux as u8, same_order)?;
        let k = int(a).or(int(c))?;
        Some(Range::of_min_max(flavor, k, bits))
    }

    /// The compare of a `zext` or `sext` with a constant or another extension
    /// (InstructionSimplify.cpp:3600-3748): through to the extended values when the
    /// constant survives the round trip, else decided by the extension's known high
    /// bits.
    fn icmp_of_ext(&self, p: u8, l: SV, r: SV, depth: u32) -> Option<SV> {
        let (lb, lj, lc) = self.def(l)?;
        let li = lb.inst(lj);
        if !matches!(li.op, Opcode::ZExt | Opcode::SExt) {
            return None;
        }
        let (src, src_ty) = (Self::sv(lc, li.ops[0]), li.tys[0]);
        let (sb, db) = (self.types.int_bits(src_ty)?, self.types.int_bits(li.ty)?);
        if db > 64 {
            return None;
        }
        let zx = li.op == Opcode::ZExt;
        if let Some((rb, rj, rc)) = self.def(r) {
            let ri = rb.inst(rj);
            let rsrc = Self::sv(rc, ri.ops.first().copied()?);
            return match (zx, ri.op) {
                (true, Opcode::ZExt) if depth > 0 && ri.tys[0] == src_ty => {
                    self.icmp(unsigned(p), src, rsrc, src_ty, depth - 1)
                }
                (false, Opcode::SExt) if depth > 0 && ri.tys[0] == src_ty => {
                    self.icmp(p, src, rsrc, src_ty, depth - 1)
                }
                (true, Opcode::SExt) if rsrc == src => match p {
                    37 | 39 => Some(self.here(bool_v(true))),
                    34 | 40 => Some(self.here(bool_v(false))),
                    _ => None,
                },
                (false, Opcode::ZExt) if rsrc == src => match p {
                    35 | 41 => Some(self.here(bool_v(true))),
                    36 | 38 => Some(self.here(bool_v(false))),
                    _ => None,
                },
                _ => None,
            };
        }
        let V::Int(c) = r.v else { return None };
        let trunc = sext(c, sb);
        let rext = if zx {
            sext(zext(trunc, sb) as i64, db)
        } else {
            trunc
        };
        let neg = c < 0;
        if rext == c {
            if depth == 0 {
                return None;
            }
            let q = if zx { unsigned(p) } else { p };
            return self.icmp(q, src, self.here(V::Int(trunc)), src_ty, depth - 1);
        }
        let v = if zx {
            match p {
                32 | 34 | 35 => false,
                33 | 36 | 37 => true,
                38 | 39 => neg,
                _ => !neg,
            }
        } else {
            match p {
                32 => false,
                33 => true,
                38 | 39 => neg,
                40 | 41 => !neg,
                // true iff the source is negative / non-negative
                _ if depth > 0 => {
                    let q = if matches!(p, 34 | 35) { 40 } else { 39 };
                    return self.icmp(q, src, self.here(V::Int(0)), src_ty, depth - 1);
                }
                _ => return None,
            }
        };
        Some(self.here(bool_v(v)))
    }

    /// `ThreadCmpOverPHI` (InstructionSimplify.cpp:563-603): the compare of `phi` with
    /// `other` evaluated on each incoming value of the phi; their common result, if every
    /// one simplifies to the same value.
    fn thread_over_phi(&self, (p, phi, other): (u8, SV, SV), ty: TypeIdx, d: u32) -> Option<SV> {
        let depth = d.checked_sub(1)?;
        if !self.dominates_phi(other) {
            return None;
        }
        let (b, j, c) = self.def(phi)?;
        let ops = b.ops(j);
        let mut common: Option<SV> = None;
        for k in (0..ops.len()).step_by(2) {
            let inc = Self::sv(c, ops[k]);
            if inc == Self::sv(c, V::Inst(j)) {
                continue;
            }
            let v = self.icmp(p, inc, other, ty, depth)?;
            if common.is_some_and(|x| x != v) {
                return None;
            }
            common = Some(v);
        }
        common
    }
}

/// `p l r` as `(predicate, the operand that was on the `left` side when `left`, else the
/// right one, the other operand)`: the compare turned so the operand of interest is on
/// the left.
fn oriented(p: u8, l: SV, r: SV, left: bool) -> (u8, SV, SV) {
    if left {
        (p, l, r)
    } else {
        (swapped(p), r, l)
    }
}

/// The predicate with its operands swapped (`getSwappedPredicate`).
fn swapped(p: u8) -> u8 {
    match p {
        34 => 36,
        35 => 37,
        36 => 34,
        37 => 35,
        38 => 40,
        39 => 41,
        40 => 38,
        41 => 39,
        o => o,
    }
}

/// The unsigned form of a signed predicate (`getUnsignedPredicate`).
fn unsigned(p: u8) -> u8 {
    match p {
        38 => 34,
        39 => 35,
        40 => 36,
        41 => 37,
        o => o,
    }
}
