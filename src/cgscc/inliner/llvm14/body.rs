//! Mutable function bodies for the LLVM 14 inline model: a copy of a function's
//! instructions from the module's instruction view that inlining rewrites (the callee
//! is cloned into the caller with its arguments replaced by the actual values, each
//! cloned instruction simplified, branches on constants folded and the blocks that
//! became unreachable dropped), so a caller's cost is always computed on the callee's
//! post-inline body, as LLVM's inliner sees it.

use crate::llvm::attrs::AttrSetIdx;
use crate::llvm::ir::debugloc::DebugLocIdx;
use crate::llvm::ir::{InstFlags, Intrinsic, Ir, Opcode, Predicate, Value};
use crate::llvm::types::{TypeIdx, TypeKind, Types};
use crate::llvm::FuncIdx;

/// An operand: an argument, an instruction, a block (of the same body) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum V {
    /// No value.
    None,
    /// Formal argument `n`.
    Arg(u32),
    /// Instruction row of the body.
    Inst(u32),
    /// Block row of the body.
    Block(u32),
    /// An integer constant (sign-extended from its width).
    Int(i64),
    /// Any other constant of the module's view (null, undef, a global, an expression).
    K(Value),
}

impl V {
    /// A constant.
    pub fn is_const(self) -> bool {
        matches!(self, V::Int(_) | V::K(_))
    }
}

/// Call details of a call-like instruction.
#[derive(Clone, Debug)]
pub struct CallInfo {
    /// Number of call arguments (operands `0..nargs`).
    pub nargs: u32,
    /// Operand index of the callee.
    pub callee_op: u32,
    /// Call-site function attributes.
    pub attrs: AttrSetIdx,
    /// Call-site parameter attributes.
    pub params: Vec<AttrSetIdx>,
    /// A memory intrinsic made by inlining (byval copy).
    pub synthetic: Intrinsic,
    /// `function-inline-cost-multiplier` of the call (1 = none).
    pub cost_mult: i64,
    /// The call's debug location (`!dbg`), in the inliner's location table
    /// ([`super::State`]; inlined calls get their inlined-at chains there).
    pub dbg: Option<DebugLocIdx>,
}

/// One instruction.
#[derive(Clone, Debug)]
pub struct Inst {
    /// Opcode.
    pub op: Opcode,
    /// Result type.
    pub ty: TypeIdx,
    /// Auxiliary type (see the view's operand layout).
    pub aux_ty: TypeIdx,
    /// Auxiliary word (predicate).
    pub aux: u32,
    /// Flags.
    pub flags: InstFlags,
    /// Operands.
    pub ops: Vec<V>,
    /// Operand types.
    pub tys: Vec<TypeIdx>,
    /// Call details.
    pub call: Option<Box<CallInfo>>,
}

/// A function body.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// Number of formal arguments.
    pub nargs: u32,
    /// Instruction arena (rows not in a block are dead).
    pub insts: Vec<Inst>,
    /// Block contents (instruction rows, in order).
    pub blocks: Vec<Vec<u32>>,
    /// Block layout order; the first is the entry.
    pub layout: Vec<u32>,
}

/// Sign-extends `x` from `bits`.
pub fn sext(x: i64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        x
    } else {
        let s = 64 - bits;
        (x << s) >> s
    }
}

/// Truncates `x` to `bits` (unsigned view).
pub fn zext(x: i64, bits: u32) -> u64 {
    if bits >= 64 {
        x as u64
    } else {
        (x as u64) & ((1u64 << bits) - 1)
    }
}

/// x86-64 allocation size of `t` in bytes.
pub fn type_size(types: &Types, t: TypeIdx) -> u64 {
    if t.is_none() {
        return 8;
    }
    match types.kind(t) {
        TypeKind::Int(b) => (b as u64).div_ceil(8).next_power_of_two().max(1),
        TypeKind::Float(k) => {
            use crate::llvm::types::FloatKind::*;
            match k {
                Half | BFloat => 2,
                Float => 4,
                Double => 8,
                X86Fp80 | Fp128 | PpcFp128 => 16,
            }
        }
        TypeKind::Ptr { .. } => 8,
        TypeKind::Array { len, elem } => len * type_size(types, elem),
        TypeKind::Vector { len, elem, .. } => {
            (len as u64 * type_size(types, elem)).next_power_of_two()
        }
        TypeKind::Struct { .. } | TypeKind::Named(_) => {
            let Some((fields, packed)) = types.struct_fields(t) else {
                return 8;
            };
            let (mut off, mut al) = (0u64, 1u64);
            for &e in fields {
                let a = if packed { 1 } else { type_align(types, e) };
                off = off.div_ceil(a) * a + type_size(types, e);
                al = al.max(a);
            }
            off.div_ceil(al) * al
        }
        _ => 8,
    }
}

/// x86-64 ABI alignment of `t`.
pub fn type_align(types: &Types, t: TypeIdx) -> u64 {
    if t.is_none() {
        return 8;
    }
    match types.kind(t) {
        TypeKind::Int(_) | TypeKind::Float(_) => type_size(types, t).min(16),
        TypeKind::Ptr { .. } => 8,
        TypeKind::Array { elem, .. } => type_align(types, elem),
        TypeKind::Vector { .. } => type_size(types, t).min(16),
        TypeKind::Struct { .. } | TypeKind::Named(_) => match types.struct_fields(t) {
            Some((_, true)) => 1,
            Some((fields, false)) => fields
                .iter()
                .map(|&e| type_align(types, e))
                .max()
                .unwrap_or(1),
            None => 8,
        },
        _ => 8,
    }
}

impl Body {
    /// Copies function `f`'s body out of the view.
    pub fn from_ir(ir: &Ir, f: FuncIdx) -> Body {
        let fr = ir.func(f);
        let first = fr.insts.start.idx();
        let arg0 = fr.args.start.idx();
        let nb = ir.num_blocks(f);
        let mut b = Body {
            nargs: fr.args.len,
            insts: Vec::with_capacity(fr.insts.len as usize),
            blocks: vec![Vec::new(); nb],
            layout: (0..nb as u32).collect(),
        };
        for i in ir.insts(f) {
            let tys = ir.operand_types(i).to_vec();
            let ops = ir
                .operands(i)
                .iter()
                .zip(&tys)
                .map(|(&v, &t)| conv(ir, v, t, first, arg0))
                .collect();
            let call = ir.call_of(i).map(|c| {
                let n = ir.call_arg_count(c);
                Box::new(CallInfo {
                    nargs: n as u32,
                    callee_op: ir.callee_operand_index(c) as u32,
                    attrs: ir.call_attrs[c],
                    params: (0..n)
                        .map(|k| ir.call_params[ir.call_param_start[c] as usize + k])
                        .collect(),
                    synthetic: Intrinsic::None,
                    cost_mult: 1,
                    dbg: ir.debug_locs.call_loc(c),
                })
            });
            let row = b.insts.len() as u32;
            b.insts.push(Inst {
                op: ir.op(i),
                ty: ir.ty(i),
                aux_ty: ir.aux_ty(i),
                aux: ir.aux(i),
                flags: ir.flags(i),
                ops,
                tys,
                call,
            });
            b.blocks[ir.block(i).idx()].push(row);
        }
        b
    }

    /// The terminator of block `bb`.
    pub fn term(&self, bb: u32) -> Option<u32> {
        self.blocks[bb as usize].last().copied()
    }

    /// The successors of block `bb` (duplicates kept).
    pub fn succs(&self, bb: u32) -> Vec<u32> {
        self.succ_iter(bb).collect()
    }

    /// The successors of block `bb`, without allocating.
    pub fn succ_iter(&self, bb: u32) -> impl Iterator<Item = u32> + '_ {
        let ops: &[V] = match self.term(bb) {
            Some(t) if self.insts[t as usize].op.is_terminator() => &self.insts[t as usize].ops,
            _ => &[],
        };
        ops.iter().filter_map(|v| match *v {
            V::Block(s) => Some(s),
            _ => None,
        })
    }

    /// The predecessors of every block as one table: block `b`'s are
    /// `list[start[b]..start[b + 1]]`, in layout order.
    pub fn pred_table(&self) -> (Vec<u32>, Vec<u32>) {
        let nb = self.blocks.len();
        let mut start = vec![0u32; nb + 1];
        for &b in &self.layout {
            for s in self.succ_iter(b) {
                start[s as usize + 1] += 1;
            }
        }
        for k in 0..nb {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[nb] as usize];
        for &b in &self.layout {
            for s in self.succ_iter(b) {
                list[fill[s as usize] as usize] = b;
                fill[s as usize] += 1;
            }
        }
        (start, list)
    }

    /// Replaces every use of `from` in the body by `to`.
    pub fn replace_uses(&mut self, from: V, to: V) {
        for &bb in &self.layout {
            for &i in &self.blocks[bb as usize] {
                for v in &mut self.insts[i as usize].ops {
                    if *v == from {
                        *v = to;
                    }
                }
            }
        }
    }

    /// Number of live instructions.
    pub fn size(&self) -> usize {
        self.layout
            .iter()
            .map(|&b| self.blocks[b as usize].len())
            .sum()
    }
}

fn conv(ir: &Ir, v: Value, t: TypeIdx, first: usize, arg0: usize) -> V {
    let bits = ir.types.int_bits(t);
    match v {
        Value::None => V::None,
        Value::Arg(a) => V::Arg((a.idx() - arg0) as u32),
        Value::Inst(i) => V::Inst((i.idx() - first) as u32),
        Value::Block(b) => V::Block(b.idx() as u32),
        Value::Int(x) => V::Int(sext(x as i64, bits.unwrap_or(64))),
        Value::WideInt(w) => V::Int(sext(ir.wide_int(w), bits.unwrap_or(64))),
        Value::Zero if bits.is_some() => V::Int(0),
        Value::Null if bits.is_some() => V::Int(0),
        other => V::K(other),
    }
}

/// An `i1` constant (true is -1, sign-extended like every integer constant).
pub fn bool_v(x: bool) -> V {
    V::Int(-(x as i64))
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

/// A constant pointer that is not null (a global, a constant expression over one).
pub fn nonnull_const(v: V) -> bool {
    matches!(v, V::K(Value::Global(_)) | V::K(Value::Expr(_)))
}

/// InstSimplify-like folding of instruction `i` of `b` with its current operands: the
/// value it is equal to, if any (constants, and identities such as `x + 0`).
pub fn simplify(types: &Types, b: &Body, i: u32) -> Option<V> {
    let inst = &b.insts[i as usize];
    let ops = &inst.ops;
    let int = |v: V| match v {
        V::Int(x) => Some(x),
        _ => None,
    };
    match inst.op {
        op if op.is_int_binary() => {
            let bits = types.int_bits(inst.ty)?;
            let (x, y) = (ops[0], ops[1]);
            if let (Some(a), Some(c)) = (int(x), int(y)) {
                return binop(inst.op, a, c, bits).map(V::Int);
            }
            let (a, c) = (int(x), int(y));
            let all = sext(-1, bits);
            match inst.op {
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
                Opcode::Mul | Opcode::And if a == Some(0) || c == Some(0) => Some(V::Int(0)),
                Opcode::Mul | Opcode::UDiv | Opcode::SDiv if c == Some(1) => Some(x),
                Opcode::Mul if a == Some(1) => Some(y),
                Opcode::And if c == Some(all) => Some(x),
                Opcode::And if a == Some(all) => Some(y),
                Opcode::Or if a == Some(all) || c == Some(all) => Some(V::Int(all)),
                Opcode::And | Opcode::Or if x == y => Some(x),
                Opcode::Xor | Opcode::Sub if x == y => Some(V::Int(0)),
                _ => None,
            }
        }
        Opcode::ICmp => {
            let p = Predicate(inst.aux as u8);
            let bits = types.int_bits(inst.tys[0]).unwrap_or(64);
            if let (Some(a), Some(c)) = (int(ops[0]), int(ops[1])) {
                return Some(bool_v(icmp(p, a, c, bits)));
            }
            let null = |v: V| matches!(v, V::K(Value::Null) | V::K(Value::Zero));
            if (p.0 == 32 || p.0 == 33)
                && ((nonnull_const(ops[0]) && null(ops[1]))
                    || (null(ops[0]) && nonnull_const(ops[1])))
            {
                return Some(bool_v(p.0 == 33));
            }
            if ops[0] == ops[1] && !matches!(ops[0], V::K(Value::Undef | Value::Poison)) {
                return Some(bool_v(matches!(p.0, 32 | 35 | 37 | 39 | 41)));
            }
            None
        }
        Opcode::Select => {
            if let Some(c) = int(ops[0]) {
                return Some(if c & 1 != 0 { ops[1] } else { ops[2] });
            }
            (ops[1] == ops[2]).then_some(ops[1])
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
        Opcode::BitCast if inst.ty == inst.tys[0] => Some(ops[0]),
        Opcode::Phi => {
            let mut seen: Option<V> = None;
            for k in (0..ops.len()).step_by(2) {
                let v = ops[k];
                if v == V::Inst(i) || matches!(v, V::K(Value::Undef)) {
                    continue;
                }
                match seen {
                    None => seen = Some(v),
                    Some(s) if s == v => {}
                    _ => return None,
                }
            }
            seen
        }
        _ => None,
    }
}
