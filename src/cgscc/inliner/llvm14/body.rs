//! Mutable function bodies for the LLVM 14 inline model: a copy of a function's
//! instructions from the module's instruction view that inlining rewrites (the callee
//! is cloned into the caller with its arguments replaced by the actual values, each
//! cloned instruction simplified, branches on constants folded and the blocks that
//! became unreachable dropped), so a caller's cost is always computed on the callee's
//! post-inline body, as LLVM's inliner sees it.

use crate::llvm::attrs::{AttrSetIdx, AttrSets};
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
#[derive(Clone, Copy, Debug)]
pub struct CallInfo {
    /// Number of call arguments (operands `0..nargs`).
    pub nargs: u32,
    /// Operand index of the callee.
    pub callee_op: u32,
    /// Call-site function attributes.
    pub attrs: AttrSetIdx,
    /// Call-site parameter attributes: `nargs` rows of the body's parameter pool from
    /// here ([`Body::params`]).
    params: u32,
    /// A memory intrinsic made by inlining (byval copy).
    pub synthetic: Intrinsic,
    /// `function-inline-cost-multiplier` of the call (1 = none).
    pub cost_mult: i64,
    /// The call's debug location (`!dbg`), in the inliner's location table
    /// ([`super::State`]; inlined calls get their inlined-at chains there).
    pub dbg: Option<DebugLocIdx>,
}

/// The fixed-width fields of an instruction row.
#[derive(Clone, Copy, Debug)]
pub struct Head {
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
}

impl Head {
    /// A row of opcode `op` and type `ty` with no auxiliary fields or flags.
    pub fn new(op: Opcode, ty: TypeIdx) -> Head {
        Head {
            op,
            ty,
            aux_ty: TypeIdx::NONE,
            aux: 0,
            flags: InstFlags::default(),
        }
    }
}

/// A read-only view of one instruction row.
#[derive(Clone, Copy, Debug)]
pub struct Inst<'a> {
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
    pub ops: &'a [V],
    /// Operand types.
    pub tys: &'a [TypeIdx],
    /// Call details.
    pub call: Option<&'a CallInfo>,
}

impl Inst<'_> {
    /// The row's fixed-width fields.
    pub fn head(&self) -> Head {
        Head {
            op: self.op,
            ty: self.ty,
            aux_ty: self.aux_ty,
            aux: self.aux,
            flags: self.flags,
        }
    }
}

impl CallInfo {
    /// A call the inliner makes (`intr`, with `nargs` arguments and the callee after
    /// them), without attributes or location.
    pub fn synthetic(intr: Intrinsic, nargs: u32) -> CallInfo {
        CallInfo {
            nargs,
            callee_op: nargs,
            attrs: AttrSets::EMPTY,
            params: 0,
            synthetic: intr,
            cost_mult: 1,
            dbg: None,
        }
    }
}

/// No call row / the end of a use chain.
const NONE: u32 = u32::MAX;

/// The fields of a row that every walk reads, kept together (one cache line holds
/// three rows); the auxiliary words are columns of their own.
#[derive(Clone, Copy, Debug)]
struct Row {
    /// The first operand slot and the operand count.
    ops_at: u32,
    ops_len: u32,
    /// Result type.
    ty: TypeIdx,
    /// The call row, or `NONE`.
    call: u32,
    op: Opcode,
    flags: InstFlags,
}

/// A function body, columnar: one row per instruction (the fields every walk reads in
/// one column, the auxiliary words in columns of their own), every row's operands a
/// slice of one operand pool, calls in a side table, and for every
/// instruction value a chain of the operand slots that hold it (its uses), so that
/// replacing a value's uses costs its uses, not the body.
///
/// Rows are appended and never renumbered: a row that leaves its block is dead and
/// stays. An edit that changes a row's operand count moves its operands to the end of
/// the pool. Use chains are kept lazily: every write of an instruction value into a
/// slot links the slot into that value's chain, and a chain entry whose slot no longer
/// holds the value is skipped when the chain is walked.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// Number of formal arguments.
    pub nargs: u32,
    rows: Vec<Row>,
    aux_ty: Vec<TypeIdx>,
    aux: Vec<u32>,
    /// The operand pool and its types.
    pool: Vec<V>,
    pool_ty: Vec<TypeIdx>,
    /// Per row: the head of its value's use chain in `uses`, or `NONE`.
    first_use: Vec<u32>,
    /// Use chain entries: (operand slot, next entry).
    uses: Vec<(u32, u32)>,
    /// Call rows.
    calls: Vec<CallInfo>,
    /// Call-site parameter attributes of every call row.
    params: Vec<AttrSetIdx>,
    /// Block contents (instruction rows, in order).
    pub blocks: Vec<Vec<u32>>,
    /// Block layout order; the first is the entry.
    pub layout: Vec<u32>,
    /// `!prof` branch weights of terminator rows (the module's, carried by clones).
    prof: ahash::AHashMap<u32, Box<[u32]>>,
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
        let n = fr.insts.len as usize;
        let mut b = Body {
            nargs: fr.args.len,
            blocks: vec![Vec::new(); nb],
            layout: (0..nb as u32).collect(),
            ..Body::default()
        };
        b.reserve(n);
        for i in ir.insts(f) {
            let head = Head {
                op: ir.op(i),
                ty: ir.ty(i),
                aux_ty: ir.aux_ty(i),
                aux: ir.aux(i),
                flags: ir.flags(i),
            };
            let tys = ir.operand_types(i);
            let ops = ir.operands(i).iter().zip(tys);
            let call = ir.call_of(i).map(|c| {
                let k = ir.call_arg_count(c);
                let at = ir.call_param_start[c] as usize;
                let ci = CallInfo {
                    nargs: k as u32,
                    callee_op: ir.callee_operand_index(c) as u32,
                    attrs: ir.call_attrs[c],
                    params: 0,
                    synthetic: Intrinsic::None,
                    cost_mult: 1,
                    dbg: ir.debug_locs.call_loc(c),
                };
                (ci, &ir.call_params[at..at + k])
            });
            let row = b.push(
                head,
                ops.map(|(&v, &t)| (conv(ir, v, t, first, arg0), t)),
                call,
            );
            if let Some(w) = ir.branch_weights.get(&i) {
                b.prof.insert(row, w.clone());
            }
            b.blocks[ir.block(i).idx()].push(row);
        }
        b
    }

    fn reserve(&mut self, n: usize) {
        self.rows.reserve(n);
        self.aux_ty.reserve(n);
        self.aux.reserve(n);
        self.first_use.reserve(n);
    }

    /// Number of rows, dead ones included (the next row's number).
    pub fn num_rows(&self) -> u32 {
        self.rows.len() as u32
    }

    /// Row `i`.
    #[inline(always)]
    pub fn inst(&self, i: u32) -> Inst<'_> {
        let i = i as usize;
        let row = self.rows[i];
        let (a, n) = (row.ops_at as usize, row.ops_len as usize);
        Inst {
            op: row.op,
            ty: row.ty,
            aux_ty: self.aux_ty[i],
            aux: self.aux[i],
            flags: row.flags,
            ops: &self.pool[a..a + n],
            tys: &self.pool_ty[a..a + n],
            call: match row.call {
                NONE => None,
                c => Some(&self.calls[c as usize]),
            },
        }
    }

    /// The opcode of row `i`.
    #[inline]
    pub fn op(&self, i: u32) -> Opcode {
        self.rows[i as usize].op
    }

    /// The result type of row `i`.
    #[inline]
    pub fn ty(&self, i: u32) -> TypeIdx {
        self.rows[i as usize].ty
    }

    /// The operands of row `i`.
    #[inline]
    pub fn ops(&self, i: u32) -> &[V] {
        let row = &self.rows[i as usize];
        &self.pool[row.ops_at as usize..][..row.ops_len as usize]
    }

    /// The operand types of row `i`.
    #[inline]
    pub fn tys(&self, i: u32) -> &[TypeIdx] {
        let row = &self.rows[i as usize];
        &self.pool_ty[row.ops_at as usize..][..row.ops_len as usize]
    }

    /// The call details of row `i`, if it is a call.
    #[inline]
    pub fn call_of(&self, i: u32) -> Option<&CallInfo> {
        match self.rows[i as usize].call {
            NONE => None,
            c => Some(&self.calls[c as usize]),
        }
    }

    /// The call details of row `i`, to edit.
    pub fn call_mut(&mut self, i: u32) -> Option<&mut CallInfo> {
        match self.rows[i as usize].call {
            NONE => None,
            c => Some(&mut self.calls[c as usize]),
        }
    }

    /// The call-site parameter attributes of call `ci` (of this body).
    pub fn params(&self, ci: &CallInfo) -> &[AttrSetIdx] {
        &self.params[ci.params as usize..][..ci.nargs as usize]
    }

    /// Links operand slot `s`, which holds `v`, into `v`'s use chain.
    #[inline]
    fn link(&mut self, s: usize, v: V) {
        if let V::Inst(x) = v {
            let x = x as usize;
            if x >= self.first_use.len() {
                self.first_use.resize(x + 1, NONE);
            }
            self.uses.push((s as u32, self.first_use[x]));
            self.first_use[x] = (self.uses.len() - 1) as u32;
        }
    }

    /// Appends operands at the end of the pool; returns where they start.
    fn push_ops(&mut self, ops: impl IntoIterator<Item = (V, TypeIdx)>) -> (u32, u32) {
        let at = self.pool.len();
        for (v, t) in ops {
            self.link(self.pool.len(), v);
            self.pool.push(v);
            self.pool_ty.push(t);
        }
        (at as u32, (self.pool.len() - at) as u32)
    }

    /// Appends a row (in no block yet) with operands `ops` and, for a call, its details
    /// and parameter attributes; returns its number.
    pub fn push(
        &mut self,
        h: Head,
        ops: impl IntoIterator<Item = (V, TypeIdx)>,
        call: Option<(CallInfo, &[AttrSetIdx])>,
    ) -> u32 {
        let row = self.rows.len() as u32;
        let (ops_at, ops_len) = self.push_ops(ops);
        self.aux_ty.push(h.aux_ty);
        self.aux.push(h.aux);
        if self.first_use.len() <= row as usize {
            self.first_use.resize(row as usize + 1, NONE);
        }
        let call = match call {
            None => NONE,
            Some((mut ci, params)) => {
                ci.params = self.params.len() as u32;
                self.params.extend_from_slice(params);
                self.params
                    .resize(ci.params as usize + ci.nargs as usize, AttrSets::EMPTY);
                self.calls.push(ci);
                (self.calls.len() - 1) as u32
            }
        };
        self.rows.push(Row {
            ops_at,
            ops_len,
            ty: h.ty,
            call,
            op: h.op,
            flags: h.flags,
        });
        row
    }

    /// Appends a copy of row `r` of `src` with each operand passed through `map`;
    /// returns its number.
    pub fn push_copy(&mut self, src: &Body, r: u32, mut map: impl FnMut(V) -> V) -> u32 {
        let i = src.inst(r);
        let ops = i.ops.iter().zip(i.tys).map(|(&v, &t)| (map(v), t));
        let row = self.push(i.head(), ops, i.call.map(|c| (*c, src.params(c))));
        if let Some(w) = src.prof.get(&r) {
            self.prof.insert(row, w.clone());
        }
        row
    }

    /// The `!prof` branch weights of terminator row `r`, one per successor operand.
    pub fn branch_weights(&self, r: u32) -> Option<&[u32]> {
        self.prof.get(&r).map(|w| &w[..])
    }

    /// Removes the last row, which nothing uses yet (a clone that simplified away).
    pub fn pop(&mut self) {
        let Some(last) = self.rows.pop() else { return };
        let row = self.rows.len();
        debug_assert_eq!(self.first_use.get(row).copied().unwrap_or(NONE), NONE);
        self.aux_ty.pop();
        self.aux.pop();
        let (at, len) = (last.ops_at as usize, last.ops_len as usize);
        if at + len == self.pool.len() {
            self.pool.truncate(at);
            self.pool_ty.truncate(at);
        }
        if let Some(c) = Some(last.call).filter(|&c| c != NONE) {
            let ci = self.calls.pop().unwrap();
            debug_assert_eq!(c as usize, self.calls.len());
            self.params.truncate(ci.params as usize);
        }
        self.first_use.truncate(row);
        self.prof.remove(&(row as u32));
    }

    /// Sets operand `k` of row `i` to `v`.
    pub fn set_operand(&mut self, i: u32, k: usize, v: V) {
        debug_assert!(k < self.rows[i as usize].ops_len as usize);
        let s = self.rows[i as usize].ops_at as usize + k;
        self.pool[s] = v;
        self.link(s, v);
    }

    /// Replaces the operands of row `i`.
    pub fn set_operands(&mut self, i: u32, ops: impl IntoIterator<Item = (V, TypeIdx)>) {
        let (at, n) = self.push_ops(ops);
        let row = &mut self.rows[i as usize];
        row.ops_at = at;
        row.ops_len = n;
    }

    /// Turns row `i` into `br label %to` (keeping its type).
    pub fn set_br(&mut self, i: u32, to: u32) {
        let r = i as usize;
        self.rows[r].op = Opcode::Br;
        self.rows[r].flags = InstFlags::default();
        self.rows[r].call = NONE;
        self.aux_ty[r] = TypeIdx::NONE;
        self.aux[r] = 0;
        self.set_operands(i, [(V::Block(to), TypeIdx::NONE)]);
    }

    /// Removes operands `k` and `k + 1` of row `i` (a phi's incoming pair).
    pub fn remove_operand_pair(&mut self, i: u32, k: usize) {
        let (at, n) = (
            self.rows[i as usize].ops_at as usize,
            self.rows[i as usize].ops_len as usize,
        );
        debug_assert!(k + 2 <= n);
        self.pool.copy_within(at + k + 2..at + n, at + k);
        self.pool_ty.copy_within(at + k + 2..at + n, at + k);
        for s in at + k..at + n - 2 {
            self.link(s, self.pool[s]);
        }
        self.rows[i as usize].ops_len -= 2;
    }

    /// The phis of block `s` take their incoming values from `to` where they named `from`.
    pub fn redirect_incoming(&mut self, s: u32, from: u32, to: u32) {
        for x in 0..self.blocks[s as usize].len() {
            let i = self.blocks[s as usize][x];
            if self.op(i) != Opcode::Phi {
                continue;
            }
            for k in 0..self.ops(i).len() {
                if self.ops(i)[k] == V::Block(from) {
                    self.set_operand(i, k, V::Block(to));
                }
            }
        }
    }

    /// Terminator row `t` branches to `to` wherever it branched to `from`.
    pub fn retarget(&mut self, t: u32, from: u32, to: u32) {
        for k in 0..self.ops(t).len() {
            if self.ops(t)[k] == V::Block(from) {
                self.set_operand(t, k, V::Block(to));
            }
        }
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
            Some(t) if self.op(t).is_terminator() => self.ops(t),
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

    /// Replaces every use of row `from`'s value by `to`, walking `from`'s use chain.
    pub fn replace_uses(&mut self, from: u32, to: V) {
        let old = V::Inst(from);
        if to == old {
            return;
        }
        let mut e = self.first_use.get(from as usize).copied().unwrap_or(NONE);
        self.first_use[from as usize] = NONE;
        while e != NONE {
            let (s, next) = self.uses[e as usize];
            // a slot past the pool was freed by `pop`
            if self.pool.get(s as usize) == Some(&old) {
                self.pool[s as usize] = to;
                self.link(s as usize, to);
            }
            e = next;
        }
    }

    /// Number of live instructions.
    pub fn size(&self) -> usize {
        self.layout
            .iter()
            .map(|&b| self.blocks[b as usize].len())
            .sum()
    }

    /// Checks the columnar invariants: every row's operands lie in the pool, every call
    /// row names a call and its parameters, and every slot that holds an instruction
    /// value is on that value's use chain.
    pub fn verify(&self) -> Result<(), String> {
        let n = self.rows.len();
        for col in [self.aux_ty.len(), self.aux.len()] {
            if col != n {
                return Err(format!("a row column has {col} rows, not {n}"));
            }
        }
        let mut on_chain = vec![false; self.pool.len()];
        for (x, &head) in self.first_use.iter().enumerate() {
            let mut e = head;
            while e != NONE {
                let (s, next) = self.uses[e as usize];
                if self.pool.get(s as usize) == Some(&V::Inst(x as u32)) {
                    on_chain[s as usize] = true;
                }
                e = next;
            }
        }
        for i in 0..n as u32 {
            let (at, len) = (self.rows[i as usize].ops_at, self.rows[i as usize].ops_len);
            let (at, len) = (at as usize, len as usize);
            if at + len > self.pool.len() {
                return Err(format!("row {i}: operands past the pool"));
            }
            for (&v, &chained) in self.pool[at..at + len].iter().zip(&on_chain[at..]) {
                if let V::Inst(x) = v {
                    if x as usize >= n {
                        return Err(format!("row {i}: operand names row {x} of {n}"));
                    }
                    if !chained {
                        return Err(format!("row {i}: its use of row {x} is not on a chain"));
                    }
                }
            }
            if let Some(c) = self.call_of(i) {
                if c.params as usize + c.nargs as usize > self.params.len() {
                    return Err(format!("row {i}: parameter attributes past the pool"));
                }
            }
        }
        for (b, rows) in self.blocks.iter().enumerate() {
            if let Some(&r) = rows.iter().find(|&&r| r as usize >= n) {
                return Err(format!("block {b}: row {r} of {n}"));
            }
        }
        Ok(())
    }
}

/// `v` (of type `t`) as an operand of a body whose first instruction and argument are
/// `first` and `arg0` in the view.
pub(super) fn conv(ir: &Ir, v: Value, t: TypeIdx, first: usize, arg0: usize) -> V {
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
pub fn simplify(types: &Types, b: &Body, i: u32) -> Option<V> {
    simplify_with(&Sq::new(types, b), i, Some)
}

/// [`simplify`] of row `i` of `q`'s body as `q` sees its operands; a result that is a
/// value of the callee (a compare threaded over an unwired clone phi can give one) is
/// mapped into the caller by `map_back` (LLVM maps it through the value map,
/// CloneFunction.cpp:397-399).
pub fn simplify_with(q: &Sq<'_>, i: u32, map_back: impl Fn(V) -> Option<V>) -> Option<V> {
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
            let (l, r) = (q.here(ops[0]), q.here(ops[1]));
            let s = q.icmp(inst.aux as u8, l, r, inst.tys[0], RECURSION_LIMIT)?;
            if s.callee {
                map_back(s.v)
            } else {
                Some(s.v)
            }
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

/// InstructionSimplify's `RecursionLimit` (InstructionSimplify.cpp:53).
const RECURSION_LIMIT: u32 = 3;

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
    pub unwired: Option<(&'a Body, &'a [(u32, u32)])>,
    /// Phis of the caller at rows from here on are not threaded over (the clone's phis
    /// once wired, which LLVM's cloner never threads over with the caller's values).
    pub no_thread_from: u32,
}

impl<'a> Sq<'a> {
    /// A query on `b` alone.
    pub fn new(types: &'a Types, b: &'a Body) -> Sq<'a> {
        Sq {
            types,
            caller: b,
            unwired: None,
            no_thread_from: u32::MAX,
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
    fn def(&self, x: SV) -> Option<(&'a Body, u32, bool)> {
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
        b.layout
            .first()
            .is_some_and(|&e| b.blocks[e as usize].contains(&j))
    }

    /// `SimplifyICmpInst` (InstructionSimplify.cpp:3510-3792) for predicate `p` on
    /// operands of type `ty`, with `depth` recursions left; the parts implemented:
    /// constant folding, `icmp X, X`, `simplifyICmpOfBools` (without its
    /// `isImpliedCondition` cases), the tautological and `add nuw X, C` cases of
    /// `simplifyICmpWithConstant`, compares of `zext`/`sext`, and `ThreadCmpOverPHI`.
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
        if let (Some(bits), V::Int(c)) = (bits, r.v) {
            if let Some(v) = self.icmp_with_constant(p, l, c, bits) {
                return Some(self.here(bool_v(v)));
            }
        }
        if let Some(v) = self.icmp_of_ext(p, l, r, depth) {
            return Some(v);
        }
        let is_phi = |x: SV| {
            self.op_of(x) == Some(Opcode::Phi)
                && (x.callee
                    || !matches!(x.v, V::Inst(j) if j >= self.no_thread_from)
                    || self.def(x).is_some_and(|d| d.2))
        };
        if is_phi(l) || is_phi(r) {
            return self.thread_over_phi(p, l, r, ty, depth, is_phi(l));
        }
        None
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

    /// `simplifyICmpWithConstant` (InstructionSimplify.cpp:2889-2935), in part: a
    /// predicate true or false for every value (`makeExactICmpRegion` empty or full),
    /// and the range `computeConstantRange` gives `add nuw X, C` (`setLimitsForBinOp`,
    /// ValueTracking.cpp:6639-6668: `[C, UINT_MAX]`, unless a signed compare prefers
    /// the `nsw` range, which is not modelled) when every value of it decides the
    /// compare the same way.
    fn icmp_with_constant(&self, p: u8, l: SV, c: i64, bits: u32) -> Option<bool> {
        if bits > 64 {
            return None;
        }
        let umax = sext(-1, bits);
        let smin = sext(1i64 << (bits - 1), bits);
        let smax = sext((1i64 << (bits - 1)).wrapping_sub(1), bits);
        match p {
            36 if c == 0 => return Some(false),
            35 if c == 0 => return Some(true),
            34 if c == umax => return Some(false),
            37 if c == umax => return Some(true),
            40 if c == smin => return Some(false),
            39 if c == smin => return Some(true),
            38 if c == smax => return Some(false),
            41 if c == smax => return Some(true),
            _ => {}
        }
        let (b, j, _) = self.def(l)?;
        let inst = b.inst(j);
        let signed = (38..=41).contains(&p);
        let (nuw, nsw) = (
            inst.flags.has(InstFlags::NUW),
            inst.flags.has(InstFlags::NSW),
        );
        let V::Int(k) = inst.ops.get(1).copied()? else {
            return None;
        };
        if inst.op != Opcode::Add || k == 0 || !nuw || (signed && nsw) {
            return None;
        }
        // [k, UINT_MAX]: a compare monotone over it is decided by the two ends
        let (lo, hi) = (k, umax);
        if signed && (sext(lo, bits) < 0) != (sext(hi, bits) < 0) {
            return None;
        }
        let pr = Predicate(p);
        if p == 32 || p == 33 {
            if lo == hi {
                return Some((c == lo) == (p == 32));
            }
            let inside = zext(c, bits) >= zext(lo, bits);
            return (!inside).then_some(p == 33);
        }
        let (a, z) = (icmp(pr, lo, c, bits), icmp(pr, hi, c, bits));
        (a == z).then_some(a)
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

    /// `ThreadCmpOverPHI` (InstructionSimplify.cpp:563-603): the compare evaluated on
    /// each incoming value of the phi operand (`phi_left`: the left one); their common
    /// result, if every one simplifies to the same value.
    fn thread_over_phi(
        &self,
        p: u8,
        l: SV,
        r: SV,
        ty: TypeIdx,
        depth: u32,
        phi_left: bool,
    ) -> Option<SV> {
        let depth = depth.checked_sub(1)?;
        let (p, phi, other) = if phi_left {
            (p, l, r)
        } else {
            (swapped(p), r, l)
        };
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
