//! A function body as the middle end reads and edits it: one function's instructions,
//! columnar, as the reader wrote them ([`Ir::body`](super::Ir::body)), then edited in
//! place. The inliner clones a callee's rows into the
//! caller (arguments replaced by the actual values, cloned rows simplified, branches on
//! constants folded, blocks left unreachable dropped); `function-attrs` reads the same
//! bodies, so what it infers after inlining is about the bodies as they are then.
//!
//! Values are [`V`]s local to the body: arguments by position, instructions by row
//! ([`RowIdx`]), blocks by [`BlockIdx`] (the function's block numbers, then the blocks
//! inlining adds), integer constants sign-extended from their width (`i1 true` is -1),
//! every other constant as the module's [`Value`].

use crate::idx::{BlockIdx, IndexVec};
use crate::llvm::attrs::{AttrSetIdx, AttrSets};
use crate::llvm::ir::debugloc::DebugLocIdx;
use crate::llvm::ir::{BundleTags, ExprIdx, InstFlags, Intrinsic, Ir, Opcode, Value};
use crate::llvm::types::{TypeIdx, TypeKind, Types};

crate::define_idx!(
    /// A row of a body: one instruction, numbered in the order the body made its rows
    /// (text order as the reader wrote them, then the rows inlining appends).
    RowIdx,
    "r"
);

/// An operand: an argument, an instruction, a block (of the same body) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum V {
    /// No value.
    None,
    /// Formal argument `n`.
    Arg(u32),
    /// Instruction row of the body.
    Inst(RowIdx),
    /// Block of the body.
    Block(BlockIdx),
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallInfo {
    /// Number of call arguments (operands `0..nargs`).
    pub nargs: u32,
    /// Operand index of the callee.
    pub callee_op: u32,
    /// Call-site function attributes.
    pub attrs: AttrSetIdx,
    /// Call-site return attributes.
    pub ret_attrs: AttrSetIdx,
    /// Operand-bundle tags (the bundle operands sit between the arguments and the
    /// callee).
    pub bundles: BundleTags,
    /// Call-site parameter attributes: `nargs` rows of the body's parameter pool from
    /// here ([`Body::params`]).
    params: u32,
    /// For a call inlining made (a `byval` copy, a lifetime marker, a noalias scope
    /// declaration): the intrinsic it calls; `Intrinsic::None` for every other call.
    pub synthetic: Intrinsic,
    /// `function-inline-cost-multiplier` of the call (1 = none).
    pub cost_mult: i64,
    /// The call's debug location (`!dbg`), in the inliner's location table (where
    /// inlined calls get their inlined-at chains).
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
            ret_attrs: AttrSets::EMPTY,
            bundles: BundleTags::default(),
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    pub blocks: IndexVec<BlockIdx, Vec<RowIdx>>,
    /// Block layout order; the first is the entry.
    pub layout: Vec<BlockIdx>,
    /// `!prof` branch weights of terminator rows (the module's, carried by clones).
    prof: crate::hash::FixedMap<RowIdx, Box<[u32]>>,
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
            let sa = |e| (type_size(types, e), type_align(types, e));
            struct_layout(fields, packed, sa, None).0
        }
        _ => 8,
    }
}

/// The x86-64 layout of a struct of `fields` (`packed`: every field aligned to 1), from
/// each field's size and alignment (`sa`): its size and alignment, its fields' byte
/// offsets pushed to `offsets` when given.
fn struct_layout(
    fields: &[TypeIdx],
    packed: bool,
    mut sa: impl FnMut(TypeIdx) -> (u64, u64),
    mut offsets: Option<&mut Vec<u64>>,
) -> (u64, u64) {
    let (mut off, mut al) = (0u64, 1u64);
    for &e in fields {
        let (s, a) = sa(e);
        let a = if packed { 1 } else { a };
        off = off.div_ceil(a) * a;
        if let Some(o) = offsets.as_deref_mut() {
            o.push(off);
        }
        off += s;
        al = al.max(a);
    }
    (off.div_ceil(al) * al, al)
}

/// The x86-64 allocation sizes and alignments of a module's types and the byte offsets
/// of their struct fields, computed once (what [`type_size`] and [`type_align`] give,
/// without walking a struct's fields again at every use).
#[derive(Clone, Debug, Default)]
pub struct Layouts {
    /// Per type: (size, alignment), `None` until computed.
    sa: Vec<Option<(u64, u64)>>,
    /// Per type: its fields' offsets, `offsets[start[t]..start[t + 1]]` (none for a
    /// type that is not a struct).
    start: Vec<u32>,
    offsets: Vec<u64>,
}

impl Layouts {
    /// The layouts of every type of `types`.
    pub fn new(types: &Types) -> Layouts {
        let n = types.len();
        let mut l = Layouts {
            sa: vec![None; n],
            start: Vec::with_capacity(n + 1),
            offsets: Vec::new(),
        };
        for k in 0..n {
            l.size_align(types, TypeIdx::new(k), 0);
        }
        l.start.push(0);
        for k in 0..n {
            if let Some((fields, packed)) = types.struct_fields(TypeIdx::new(k)) {
                let mut offsets = std::mem::take(&mut l.offsets);
                struct_layout(fields, packed, |e| l.get(e), Some(&mut offsets));
                l.offsets = offsets;
            }
            l.start.push(l.offsets.len() as u32);
        }
        l
    }

    fn get(&self, t: TypeIdx) -> (u64, u64) {
        self.sa.get(t.idx()).copied().flatten().unwrap_or((8, 8))
    }

    /// Size and alignment of `t`, memoized (a type that contains itself, which LLVM
    /// rejects, and nesting past 256 levels count as a pointer).
    fn size_align(&mut self, types: &Types, t: TypeIdx, depth: u32) -> (u64, u64) {
        if t.is_none() || depth > 256 {
            return (8, 8);
        }
        if let Some(x) = self.sa[t.idx()] {
            return x;
        }
        self.sa[t.idx()] = Some((8, 8));
        let x = match types.kind(t) {
            TypeKind::Array { len, elem } => {
                let (s, a) = self.size_align(types, elem, depth + 1);
                (len.saturating_mul(s), a)
            }
            TypeKind::Vector { .. } => (type_size(types, t), type_align(types, t)),
            TypeKind::Struct { .. } | TypeKind::Named(_) => match types.struct_fields(t) {
                None => (8, 8),
                Some((fields, packed)) => struct_layout(
                    fields,
                    packed,
                    |e| self.size_align(types, e, depth + 1),
                    None,
                ),
            },
            _ => (type_size(types, t), type_align(types, t)),
        };
        self.sa[t.idx()] = Some(x);
        x
    }

    /// Allocation size of `t`.
    pub fn size(&self, t: TypeIdx) -> u64 {
        self.get(t).0
    }

    /// Byte offset of field `f` of struct `t`, if it has one.
    pub fn field_offset(&self, t: TypeIdx, f: usize) -> Option<u64> {
        let k = t.idx();
        let (a, b) = (
            *self.start.get(k)? as usize,
            *self.start.get(k + 1)? as usize,
        );
        (f < b - a).then(|| self.offsets[a + f])
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
    /// An empty body of a function with `nargs` formal arguments.
    pub fn new(nargs: u32) -> Body {
        Body {
            nargs,
            ..Body::default()
        }
    }

    /// Appends an empty block (laid out last).
    pub fn push_block(&mut self) -> BlockIdx {
        let b = self.blocks.push(Vec::new());
        self.layout.push(b);
        b
    }

    /// Lays block `b` out right after block `anchor` (at the end when `anchor` is not laid
    /// out).
    pub fn place_after(&mut self, anchor: BlockIdx, b: BlockIdx) {
        let at = self
            .layout
            .iter()
            .position(|&x| x == anchor)
            .map_or(self.layout.len(), |p| p + 1);
        self.layout.insert(at, b);
    }

    /// Gives back the columns' spare capacity (a body read once and then mostly read).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.rows.shrink_to_fit();
        self.aux_ty.shrink_to_fit();
        self.aux.shrink_to_fit();
        self.pool.shrink_to_fit();
        self.pool_ty.shrink_to_fit();
        self.first_use.shrink_to_fit();
        self.uses.shrink_to_fit();
        self.calls.shrink_to_fit();
        self.params.shrink_to_fit();
        for b in self.blocks.iter_mut() {
            b.shrink_to_fit();
        }
    }

    /// Sets the `!prof` branch weights of terminator row `r`.
    pub fn set_branch_weights(&mut self, r: RowIdx, w: Box<[u32]>) {
        self.prof.insert(r, w);
    }

    /// Renumbers what the body names in module tables (types, attribute sets, constant
    /// operands): a body read against one set of tables moved to another.
    pub(crate) fn remap_module_refs(
        &mut self,
        ty: impl Fn(TypeIdx) -> TypeIdx,
        at: impl Fn(AttrSetIdx) -> AttrSetIdx,
        k: impl Fn(Value) -> Value,
    ) {
        for r in &mut self.rows {
            r.ty = ty(r.ty);
        }
        for t in self.aux_ty.iter_mut().chain(&mut self.pool_ty) {
            *t = ty(*t);
        }
        for v in &mut self.pool {
            if let V::K(c) = *v {
                *v = V::K(k(c));
            }
        }
        for c in &mut self.calls {
            c.attrs = at(c.attrs);
            c.ret_attrs = at(c.ret_attrs);
        }
        for a in &mut self.params {
            *a = at(*a);
        }
    }

    /// The constant expressions the operands name (repeats included).
    pub(crate) fn named_exprs(&self) -> impl Iterator<Item = ExprIdx> + '_ {
        self.pool.iter().filter_map(|v| match *v {
            V::K(Value::Expr(e)) => Some(e),
            _ => None,
        })
    }

    /// Renumbers the constant expressions the operands name: `e` becomes `f(e)` where
    /// that is `Some`.
    pub(crate) fn renumber_exprs(&mut self, f: impl Fn(ExprIdx) -> Option<ExprIdx>) {
        renumber_exprs(&mut self.pool, f);
    }

    /// Number of rows, dead ones included (the next row's number).
    pub fn num_rows(&self) -> u32 {
        self.rows.len() as u32
    }

    /// The rows from `first` on, in order (dead ones included).
    pub fn rows_from(&self, first: RowIdx) -> impl Iterator<Item = RowIdx> {
        (first.idx()..self.rows.len()).map(RowIdx::new)
    }

    /// The row the next [`Body::push`] makes.
    pub fn next_row(&self) -> RowIdx {
        RowIdx::new(self.rows.len())
    }

    /// Row `i`.
    #[inline(always)]
    pub fn inst(&self, i: RowIdx) -> Inst<'_> {
        let i = i.idx();
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
    pub fn op(&self, i: RowIdx) -> Opcode {
        self.rows[i.idx()].op
    }

    /// The result type of row `i`.
    #[inline]
    pub fn ty(&self, i: RowIdx) -> TypeIdx {
        self.rows[i.idx()].ty
    }

    /// The flags of row `i`.
    #[inline]
    pub fn flags(&self, i: RowIdx) -> InstFlags {
        self.rows[i.idx()].flags
    }

    /// The auxiliary type of row `i` (see the view's operand layout).
    #[inline]
    pub fn aux_ty(&self, i: RowIdx) -> TypeIdx {
        self.aux_ty[i.idx()]
    }

    /// The operands of row `i`.
    #[inline]
    pub fn ops(&self, i: RowIdx) -> &[V] {
        let row = &self.rows[i.idx()];
        &self.pool[row.ops_at as usize..][..row.ops_len as usize]
    }

    /// The operand types of row `i`.
    #[inline]
    pub fn tys(&self, i: RowIdx) -> &[TypeIdx] {
        let row = &self.rows[i.idx()];
        &self.pool_ty[row.ops_at as usize..][..row.ops_len as usize]
    }

    /// The call details of row `i`, if it is a call.
    #[inline]
    pub fn call_of(&self, i: RowIdx) -> Option<&CallInfo> {
        match self.rows[i.idx()].call {
            NONE => None,
            c => Some(&self.calls[c as usize]),
        }
    }

    /// The call details of row `i`, to edit.
    pub fn call_mut(&mut self, i: RowIdx) -> Option<&mut CallInfo> {
        match self.rows[i.idx()].call {
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
            let x = x.idx();
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
    ) -> RowIdx {
        let row = RowIdx::new(self.rows.len());
        let (ops_at, ops_len) = self.push_ops(ops);
        self.aux_ty.push(h.aux_ty);
        self.aux.push(h.aux);
        if self.first_use.len() <= row.idx() {
            self.first_use.resize(row.idx() + 1, NONE);
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
    pub fn push_copy(&mut self, src: &Body, r: RowIdx, mut map: impl FnMut(V) -> V) -> RowIdx {
        let i = src.inst(r);
        let ops = i.ops.iter().zip(i.tys).map(|(&v, &t)| (map(v), t));
        let row = self.push(i.head(), ops, i.call.map(|c| (*c, src.params(c))));
        if let Some(w) = src.prof.get(&r) {
            self.prof.insert(row, w.clone());
        }
        row
    }

    /// The `!prof` branch weights of terminator row `r`, one per successor operand.
    pub fn branch_weights(&self, r: RowIdx) -> Option<&[u32]> {
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
        self.prof.remove(&RowIdx::new(row));
    }

    /// Sets operand `k` of row `i` to `v`.
    pub fn set_operand(&mut self, i: RowIdx, k: usize, v: V) {
        debug_assert!(k < self.rows[i.idx()].ops_len as usize);
        let s = self.rows[i.idx()].ops_at as usize + k;
        self.pool[s] = v;
        self.link(s, v);
    }

    /// Replaces the operands of row `i`.
    pub fn set_operands(&mut self, i: RowIdx, ops: impl IntoIterator<Item = (V, TypeIdx)>) {
        let (at, n) = self.push_ops(ops);
        let row = &mut self.rows[i.idx()];
        row.ops_at = at;
        row.ops_len = n;
    }

    /// Sets the opcode of row `i` (a `call` becoming an `invoke` once its operands say
    /// where it goes).
    pub fn set_op(&mut self, i: RowIdx, op: Opcode) {
        self.rows[i.idx()].op = op;
    }

    /// Turns row `i` into `br label %to` (keeping its type).
    pub fn set_br(&mut self, i: RowIdx, to: BlockIdx) {
        let r = i.idx();
        self.rows[r].op = Opcode::Br;
        self.rows[r].flags = InstFlags::default();
        self.rows[r].call = NONE;
        self.aux_ty[r] = TypeIdx::NONE;
        self.aux[r] = 0;
        self.set_operands(i, [(V::Block(to), TypeIdx::NONE)]);
    }

    /// Removes operands `k` and `k + 1` of row `i` (a phi's incoming pair).
    pub fn remove_operand_pair(&mut self, i: RowIdx, k: usize) {
        let (at, n) = (
            self.rows[i.idx()].ops_at as usize,
            self.rows[i.idx()].ops_len as usize,
        );
        debug_assert!(k + 2 <= n);
        self.pool.copy_within(at + k + 2..at + n, at + k);
        self.pool_ty.copy_within(at + k + 2..at + n, at + k);
        for s in at + k..at + n - 2 {
            self.link(s, self.pool[s]);
        }
        self.rows[i.idx()].ops_len -= 2;
    }

    /// The phis of block `s` take their incoming values from `to` where they named `from`.
    pub fn redirect_incoming(&mut self, s: BlockIdx, from: BlockIdx, to: BlockIdx) {
        for x in 0..self.blocks[s].len() {
            let i = self.blocks[s][x];
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
    pub fn retarget(&mut self, t: RowIdx, from: BlockIdx, to: BlockIdx) {
        for k in 0..self.ops(t).len() {
            if self.ops(t)[k] == V::Block(from) {
                self.set_operand(t, k, V::Block(to));
            }
        }
    }

    /// The terminator of block `bb`.
    pub fn term(&self, bb: BlockIdx) -> Option<RowIdx> {
        self.blocks[bb].last().copied()
    }

    /// The successors of block `bb` (duplicates kept).
    pub fn succs(&self, bb: BlockIdx) -> Vec<BlockIdx> {
        self.succ_iter(bb).collect()
    }

    /// The successors of block `bb`, without allocating.
    pub fn succ_iter(&self, bb: BlockIdx) -> impl Iterator<Item = BlockIdx> + '_ {
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
    pub fn pred_table(&self) -> (Vec<u32>, Vec<BlockIdx>) {
        let nb = self.blocks.len();
        let mut start = vec![0u32; nb + 1];
        for &b in &self.layout {
            for s in self.succ_iter(b) {
                start[s.idx() + 1] += 1;
            }
        }
        for k in 0..nb {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut list = vec![BlockIdx::NONE; start[nb] as usize];
        for &b in &self.layout {
            for s in self.succ_iter(b) {
                list[fill[s.idx()] as usize] = b;
                fill[s.idx()] += 1;
            }
        }
        (start, list)
    }

    /// Replaces every use of row `from`'s value by `to`, walking `from`'s use chain.
    pub fn replace_uses(&mut self, from: RowIdx, to: V) {
        let old = V::Inst(from);
        if to == old {
            return;
        }
        let mut e = self.first_use.get(from.idx()).copied().unwrap_or(NONE);
        self.first_use[from.idx()] = NONE;
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
        self.layout.iter().map(|&b| self.blocks[b].len()).sum()
    }

    /// The live rows as text, blocks in layout order: `bbN:` then one row a line,
    /// `%rK = opcode [predicate] type operands` (arguments `%aN`, blocks `%bbN`, integers as
    /// numbers, other constants as the module's [`Value`]s, `call` rows with their
    /// callee operand last); what a developer compares with `opt -S` after a change.
    ///
    /// ```
    /// use ilkit::llvm::ir::body::{Body, Head, V};
    /// use ilkit::llvm::ir::Opcode;
    /// use ilkit::llvm::types::Types;
    /// let mut types = Types::default();
    /// let i32_ = types.int(32);
    /// let mut b = Body::new(1);
    /// let bb = b.push_block();
    /// let r = b.push(Head::new(Opcode::Add, i32_), [(V::Arg(0), i32_), (V::Int(1), i32_)], None);
    /// b.blocks[bb].push(r);
    /// assert_eq!(b.to_text(&types), "bb0:\n  %r0 = add i32 %a0, 1\n");
    /// ```
    pub fn to_text(&self, types: &Types) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for &bb in &self.layout {
            let _ = writeln!(out, "{bb}:");
            for &r in &self.blocks[bb] {
                let inst = self.inst(r);
                out.push_str("  ");
                if !types.is_void(inst.ty) && !inst.ty.is_none() {
                    let _ = write!(out, "%{r} = ");
                }
                let _ = write!(out, "{}", inst.op.name());
                if matches!(inst.op, Opcode::ICmp | Opcode::FCmp) {
                    let _ = write!(
                        out,
                        " {}",
                        crate::llvm::ir::Predicate(inst.aux as u8).name()
                    );
                }
                if !inst.ty.is_none() {
                    let _ = write!(out, " {}", types.display(inst.ty));
                }
                for (k, v) in inst.ops.iter().enumerate() {
                    out.push_str(if k == 0 { " " } else { ", " });
                    let _ = match *v {
                        V::None => write!(out, "none"),
                        V::Arg(n) => write!(out, "%a{n}"),
                        V::Inst(j) => write!(out, "%{j}"),
                        V::Block(b) => write!(out, "%{b}"),
                        V::Int(x) => write!(out, "{x}"),
                        V::K(c) => write!(out, "{c:?}"),
                    };
                }
                out.push('\n');
            }
        }
        out
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
                if self.pool.get(s as usize) == Some(&V::Inst(RowIdx::new(x))) {
                    on_chain[s as usize] = true;
                }
                e = next;
            }
        }
        for i in (0..n).map(RowIdx::new) {
            let (at, len) = (self.rows[i.idx()].ops_at, self.rows[i.idx()].ops_len);
            let (at, len) = (at as usize, len as usize);
            if at + len > self.pool.len() {
                return Err(format!("row {i}: operands past the pool"));
            }
            for (&v, &chained) in self.pool[at..at + len].iter().zip(&on_chain[at..]) {
                if let V::Inst(x) = v {
                    if x.idx() >= n {
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
        for (b, rows) in self.blocks.iter_enumerated() {
            if let Some(&r) = rows.iter().find(|&&r| r.idx() >= n) {
                return Err(format!("block {b}: row {r} of {n}"));
            }
        }
        Ok(())
    }
}

/// Who uses what in a body, as of when it was built: for every argument and every row,
/// the `(user row, operand index)` pairs of the live rows (those in a block of the
/// layout), users in layout order, one pair per operand slot.
#[derive(Clone, Debug, Default)]
pub struct Uses {
    nargs: u32,
    /// Per value (arguments, then rows) plus an end row: its first pair in `list`.
    start: Vec<u32>,
    list: Vec<(RowIdx, u32)>,
}

impl Uses {
    /// Whether these could be `b`'s use lists: as many arguments and rows (a table made
    /// from another body, or before rows were added, does not fit).
    pub fn fits(&self, b: &Body) -> bool {
        self.nargs == b.nargs && self.start.len() == b.nargs as usize + b.rows.len() + 1
    }

    /// The uses of `v` (none for constants and blocks).
    pub fn of(&self, v: V) -> &[(RowIdx, u32)] {
        &self.list[self.rows_of(v)]
    }

    /// Where the uses of `v` are in the table (a use's position names it, see
    /// [`Uses::at`]).
    pub fn rows_of(&self, v: V) -> std::ops::Range<usize> {
        let k = match v {
            V::Arg(n) => n as usize,
            V::Inst(r) => self.nargs as usize + r.idx(),
            _ => return 0..0,
        };
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// The use at position `k`: (user row, operand index).
    pub fn at(&self, k: usize) -> (RowIdx, u32) {
        self.list[k]
    }
}

impl Body {
    /// The live rows in layout order (blocks of the layout, rows in block order).
    pub fn live_rows(&self) -> impl Iterator<Item = RowIdx> + '_ {
        self.layout
            .iter()
            .flat_map(move |&bb| self.blocks[bb].iter().copied())
    }

    /// The use lists of the live rows' operands (one counting sort, O(operands)).
    pub fn use_table(&self) -> Uses {
        let nargs = self.nargs as usize;
        let slot = |v: V| match v {
            V::Arg(n) if (n as usize) < nargs => Some(n as usize),
            V::Inst(r) if r.idx() < self.rows.len() => Some(nargs + r.idx()),
            _ => None,
        };
        let n = nargs + self.rows.len();
        let mut start = vec![0u32; n + 1];
        for r in self.live_rows() {
            for &v in self.ops(r) {
                if let Some(k) = slot(v) {
                    start[k + 1] += 1;
                }
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut list = vec![(RowIdx::NONE, 0u32); start[n] as usize];
        for r in self.live_rows() {
            for (j, &v) in self.ops(r).iter().enumerate() {
                if let Some(k) = slot(v) {
                    list[fill[k] as usize] = (r, j as u32);
                    fill[k] += 1;
                }
            }
        }
        Uses {
            nargs: self.nargs,
            start,
            list,
        }
    }
}

/// Constant expressions a pass made (folding a cloned instruction), numbered after the
/// module's own; each row as the module's rows are (opcode, types, flags, operands)
/// with its operands as body values.
#[derive(Clone, Debug, Default)]
pub struct MadeExprs {
    /// The module's expression count: made expressions are numbered from here.
    base: usize,
    head: Vec<Head>,
    /// Per row plus an end row: its first operand in `ops`.
    op_start: Vec<u32>,
    ops: Vec<V>,
    tys: Vec<TypeIdx>,
    /// Other tables read through this one (numbered from their own bases): a
    /// speculative inliner run's view of the walk's table and of the runs it reads.
    more: Vec<std::sync::Arc<MadeExprs>>,
}

/// Renumbers the constant expressions values `vs` name: `e` becomes `f(e)` where that
/// is `Some`.
pub(crate) fn renumber_exprs(vs: &mut [V], f: impl Fn(ExprIdx) -> Option<ExprIdx>) {
    for v in vs {
        if let V::K(Value::Expr(e)) = *v {
            if let Some(to) = f(e) {
                *v = V::K(Value::Expr(to));
            }
        }
    }
}

impl MadeExprs {
    /// None made yet, for a module of `ir`.
    pub fn new(ir: &Ir) -> MadeExprs {
        MadeExprs {
            base: ir.num_exprs(),
            op_start: vec![0],
            ..MadeExprs::default()
        }
    }

    /// The number the next made expression gets.
    pub fn next(&self) -> ExprIdx {
        ExprIdx::new(self.base + self.head.len())
    }

    /// Records an expression; returns its number.
    pub fn push(&mut self, h: Head, ops: &[V], tys: &[TypeIdx]) -> ExprIdx {
        let e = self.next();
        if self.op_start.is_empty() {
            self.op_start.push(0);
        }
        self.head.push(h);
        self.ops.extend_from_slice(ops);
        self.tys.extend_from_slice(tys);
        self.op_start.push(self.ops.len() as u32);
        e
    }

    /// An empty table numbering its expressions from `base`, read over the tables
    /// `more` (for numbers it does not have).
    pub fn over(base: usize, more: Vec<std::sync::Arc<MadeExprs>>) -> MadeExprs {
        MadeExprs {
            base,
            op_start: vec![0],
            more,
            ..MadeExprs::default()
        }
    }

    /// The expressions this table numbered itself, without the tables it reads over.
    pub fn own(&self) -> MadeExprs {
        MadeExprs {
            base: self.base,
            head: self.head.clone(),
            op_start: self.op_start.clone(),
            ops: self.ops.clone(),
            tys: self.tys.clone(),
            more: Vec::new(),
        }
    }

    /// Renumbers the constant expressions the operands of this table's own rows name:
    /// `e` becomes `f(e)` where that is `Some`.
    pub(crate) fn renumber_ops(&mut self, f: impl Fn(ExprIdx) -> Option<ExprIdx>) {
        renumber_exprs(&mut self.ops, f);
    }

    /// Whether this table numbered `e` itself.
    pub fn owns(&self, e: ExprIdx) -> bool {
        e.idx()
            .checked_sub(self.base)
            .is_some_and(|k| k < self.head.len())
    }

    /// How many expressions this table numbered itself.
    pub fn len(&self) -> usize {
        self.head.len()
    }

    /// Whether this table numbered none itself.
    pub fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    /// Made expression `e`: its fixed fields, operands and operand types; `None` for
    /// one of the module's.
    pub fn get(&self, e: ExprIdx) -> Option<(Head, &[V], &[TypeIdx])> {
        if let Some(k) = e.idx().checked_sub(self.base) {
            if let Some(&h) = self.head.get(k) {
                let (a, b) = (self.op_start[k] as usize, self.op_start[k + 1] as usize);
                return Some((h, &self.ops[a..b], &self.tys[a..b]));
            }
        }
        self.more.iter().find_map(|t| t.get(e))
    }
}

/// The module's constant expressions and the ones passes made, read alike: operands as
/// body values.
#[derive(Clone, Copy, Debug)]
pub struct Exprs<'a> {
    /// The module's view.
    pub ir: &'a Ir,
    /// The made ones.
    pub made: &'a MadeExprs,
}

impl Exprs<'_> {
    /// Expression `e`'s opcode (`None` for a number neither table has).
    pub fn op(&self, e: ExprIdx) -> Option<Opcode> {
        match self.made.get(e) {
            Some((h, ..)) => Some(h.op),
            None => (e.idx() < self.ir.num_exprs()).then(|| self.ir.expr_op(e)),
        }
    }

    /// Expression `e`'s type.
    pub fn ty(&self, e: ExprIdx) -> TypeIdx {
        match self.made.get(e) {
            Some((h, ..)) => h.ty,
            None if e.idx() < self.ir.num_exprs() => self.ir.expr_ty(e),
            None => TypeIdx::NONE,
        }
    }

    /// Operand `n` of expression `e` with its type (`V::None` past the end).
    pub fn operand(&self, e: ExprIdx, n: usize) -> (V, TypeIdx) {
        match self.made.get(e) {
            Some((_, ops, tys)) => match (ops.get(n), tys.get(n)) {
                (Some(&v), Some(&t)) => (v, t),
                _ => (V::None, TypeIdx::NONE),
            },
            None if e.idx() < self.ir.num_exprs() => {
                let (ops, tys) = (self.ir.expr_operands(e), self.ir.expr_operand_types(e));
                match (ops.get(n), tys.get(n)) {
                    (Some(&v), Some(&t)) => (
                        const_operand(v, self.ir.types.int_bits(t), |w| self.ir.wide_int(w)),
                        t,
                    ),
                    _ => (V::None, TypeIdx::NONE),
                }
            }
            None => (V::None, TypeIdx::NONE),
        }
    }

    /// Expression `e`'s auxiliary type (a `getelementptr`'s source element type).
    pub fn aux_ty(&self, e: ExprIdx) -> TypeIdx {
        match self.made.get(e) {
            Some((h, ..)) => h.aux_ty,
            None if e.idx() < self.ir.num_exprs() => self.ir.expr_aux_ty(e),
            None => TypeIdx::NONE,
        }
    }

    /// Number of operands of expression `e`.
    pub fn num_operands(&self, e: ExprIdx) -> usize {
        match self.made.get(e) {
            Some((_, ops, _)) => ops.len(),
            None if e.idx() < self.ir.num_exprs() => self.ir.expr_operands(e).len(),
            None => 0,
        }
    }
}

/// A module constant as an operand of a slot of integer width `bits` (`None` for a
/// slot that is not an integer): integers sign-extended from the width, an integer
/// `zeroinitializer` or `null` zero, every other constant [`V::K`]; `wide` reads a wide
/// integer's value.
pub fn const_operand(v: Value, bits: Option<u32>, wide: impl Fn(u32) -> i64) -> V {
    match v {
        Value::None => V::None,
        Value::Block(b) => V::Block(b),
        Value::Int(x) => V::Int(sext(x as i64, bits.unwrap_or(64))),
        Value::WideInt(w) => V::Int(sext(wide(w), bits.unwrap_or(64))),
        Value::Zero | Value::Null if bits.is_some() => V::Int(0),
        other => V::K(other),
    }
}
