//! Constant expressions made by inlining. LLVM's cloner folds a cloned instruction whose
//! operands all became constants into a constant (`ConstantFoldInstruction`): a
//! `getelementptr` or a cast over a global becomes a constant expression, and because
//! LLVM's constants are uniqued, it is then the very value the same expression written
//! in the module is (two loads from it are one address to load elimination, say).
//!
//! [`Folds`] numbers the expressions inlining makes after the module's own and interns
//! both by structure, so that equal constant expressions are one [`V`]. A run made
//! ahead of the walk on another worker reads a frozen copy of the tables and numbers
//! what it makes *provisionally*, from a base of its function's, apart from the walk's
//! numbers and every other run's (`Folds::speculative`); runs reading its body find
//! those by structure too, and the walk, taking the run, numbers them in its own tables
//! in the order the run made them (`Folds::commit_private`): the numbers the
//! sequential walk gives them.

use super::cost::gep_offset;
use super::range::mask;
use super::simplify::{bool_v, extract_element, fcmp, Agg};
use super::Facts;
use crate::hash::FixedMap;
use crate::llvm::ir::body::{
    const_operand, renumber_exprs, sext, zext, Body, Exprs, Head, MadeExprs, RowIdx, V,
};
use crate::llvm::ir::{ExprIdx, InstFlags, Ir, Opcode, Value};
use crate::llvm::types::TypeIdx;
use std::sync::Arc;

/// A constant expression's structure: opcode, type, auxiliary type, flags, operands and
/// their types.
pub(crate) type Key = (
    Opcode,
    TypeIdx,
    TypeIdx,
    InstFlags,
    Box<[V]>,
    Box<[TypeIdx]>,
);

/// The module's constant expressions by structure, and the ones inlining made.
///
/// The tables sit behind `Arc`s, so a copy is cheap: a *frozen* copy
/// ([`Folds::frozen`]) reads them while the original is not written (a speculative
/// inliner run on another worker) and, asked for an expression neither has, folds
/// nothing and records that it missed one ([`Folds::missed`]), which discards that
/// run — unless it is a run's speculative copy, which numbers it provisionally.
#[derive(Clone, Debug, Default)]
pub struct Folds {
    /// Every expression by structure (the module's are indexed when the first fold
    /// asks).
    index: Option<Arc<FixedMap<Key, ExprIdx>>>,
    /// The made expressions.
    made: Arc<MadeExprs>,
    /// A frozen copy: nothing is added to the walk's tables.
    frozen: bool,
    /// A frozen copy was asked for an expression it would have had to make.
    missed: bool,
    /// A speculative run's own expressions, by structure (its own and those of the
    /// runs it reads): `made` numbers them from [`provisional_base`] and reads the
    /// walk's table through ([`Folds::speculative`]).
    private: Option<FixedMap<Key, ExprIdx>>,
    /// A speculative run's: the expressions of the runs whose bodies it reads, and of
    /// the runs those read, which the bodies may name ([`Folds::read_privates`]).
    read: Vec<Arc<Private>>,
}

/// The first provisional number: a speculative run numbers the expressions it makes
/// from its function's base on, apart from the walk's numbers and other runs'.
const PROVISIONAL: usize = 1 << 31;
/// Expressions one speculative run may make (more: it gives up).
const PER_RUN: usize = 1 << 12;

/// The provisional numbers of the run of function `f`'s unit start here (`None`: the
/// function's number does not fit).
fn provisional_base(f: crate::llvm::FuncIdx) -> Option<usize> {
    let b = PROVISIONAL + f.idx().checked_mul(PER_RUN)?;
    (b + PER_RUN < u32::MAX as usize).then_some(b)
}

/// Whether `e` is a provisional number (a speculative run's).
pub(crate) fn is_provisional(e: ExprIdx) -> bool {
    e.idx() >= PROVISIONAL
}

/// Provisional numbers a speculative run reads as others of equal structure
/// ([`Folds::speculative`]).
pub(crate) type Aliases = FixedMap<ExprIdx, ExprIdx>;

/// The chain's expressions by structure, with one number per structure, and the
/// numbers aliased to another of equal structure (resolved: never to an aliased one).
/// `walk` is the walk's index. A structure's number is the walk's when it has one, else
/// the first met, the privates taken in order and each in the order its run made them;
/// an expression is keyed once the numbers its operands name are (an operand may be an
/// expression of a private later in the list, so the passes repeat until no number
/// is aliased anew: at most one pass per level of nesting, plus one).
fn canonical(
    walk: Option<&FixedMap<Key, ExprIdx>>,
    chain: &[Arc<Private>],
) -> (FixedMap<Key, ExprIdx>, Aliases) {
    let mut alias = Aliases::default();
    loop {
        let aliased = alias.len();
        let mut index: FixedMap<Key, ExprIdx> = FixedMap::default();
        for p in chain {
            for (k, e) in &p.keys {
                if alias.contains_key(e) {
                    continue;
                }
                let mut key = k.clone();
                renumber_exprs(&mut key.4, |x| alias.get(&x).copied());
                let other = walk
                    .and_then(|w| w.get(&key).copied())
                    .or_else(|| index.get(&key).copied());
                match other {
                    Some(o) if o != *e => {
                        alias.insert(*e, o);
                    }
                    _ => {
                        index.entry(key).or_insert(*e);
                    }
                }
            }
        }
        if alias.len() == aliased {
            // a number aliased to one aliased in a later pass reads as the last
            let targets: Vec<(ExprIdx, ExprIdx)> = alias
                .iter()
                .map(|(&e, &o)| {
                    // an aliased number is never a target after: no cycle, and no
                    // chain longer than the aliases
                    let mut to = o;
                    for _ in 0..alias.len() {
                        match alias.get(&to) {
                            Some(&next) => to = next,
                            None => break,
                        }
                    }
                    (e, to)
                })
                .collect();
            alias.extend(targets);
            return (index, alias);
        }
    }
}

/// The expressions a speculative run made, numbered provisionally, for the runs that
/// read its body and for the walk's commit ([`Folds::commit_private`]).
#[derive(Clone, Debug)]
pub(crate) struct Private {
    /// The run's rows, without the tables it read them over.
    pub made: Arc<MadeExprs>,
    /// Their structures, in the order the run made them.
    pub keys: Vec<(Key, ExprIdx)>,
}

impl Private {
    /// The constant expressions the operands of these name.
    pub(crate) fn operand_exprs(&self) -> impl Iterator<Item = ExprIdx> + '_ {
        self.keys.iter().flat_map(|(k, _)| {
            k.4.iter().filter_map(|v| match *v {
                V::K(Value::Expr(e)) => Some(e),
                _ => None,
            })
        })
    }
}

impl Folds {
    /// No expression made yet for a module of `ir`.
    pub fn new(ir: &Ir) -> Folds {
        Folds {
            index: None,
            made: Arc::new(MadeExprs::new(ir)),
            frozen: false,
            missed: false,
            private: None,
            read: Vec::new(),
        }
    }

    /// A speculative run's copy of frozen copy `frozen`, for the unit of function `f`:
    /// an expression the walk's tables lack is made with a provisional number (the
    /// walk numbers it at the unit's turn) rather than missed; `chain` are the
    /// expressions of the runs the run reads and of the runs they read, which their
    /// bodies may name (each once).
    ///
    /// One structure has one number in the sequential walk, but two runs that did not
    /// read each other may each have numbered it, or a run may have numbered one the
    /// walk has numbered since the copy it read was taken. So the chain's expressions
    /// are keyed by structure with their operands' numbers made one first: each number
    /// whose structure another already has (the walk's, or a number met before) is
    /// *aliased* to that one, and the returned aliases are what the run must read the
    /// chained bodies through (`Chain::new`) — every structure then has one number in
    /// the run's view, as in the walk's, and the walk's commit gives all of a
    /// structure's numbers the one it gives that structure.
    pub(crate) fn speculative(
        frozen: Folds,
        f: crate::llvm::FuncIdx,
        chain: Vec<Arc<Private>>,
    ) -> (Folds, Aliases) {
        let Some(base) = provisional_base(f) else {
            // the run cannot read the chain's expressions: it gives up if it names any
            let missed = frozen.missed || !chain.is_empty();
            return (Folds { missed, ..frozen }, Aliases::default());
        };
        let (index, alias) = canonical(frozen.index.as_deref(), &chain);
        let more = std::iter::once(frozen.made)
            .chain(chain.iter().map(|p| {
                if p.operand_exprs().any(|e| alias.contains_key(&e)) {
                    // its rows read with the numbers the run reads
                    let mut t = (*p.made).clone();
                    t.renumber_ops(|e| alias.get(&e).copied());
                    Arc::new(t)
                } else {
                    Arc::clone(&p.made)
                }
            }))
            .collect();
        let folds = Folds {
            index: frozen.index,
            made: Arc::new(MadeExprs::over(base, more)),
            frozen: true,
            missed: frozen.missed,
            private: Some(index),
            read: chain,
        };
        (folds, alias)
    }

    /// The expressions of the runs a speculative copy read ([`Folds::speculative`]).
    pub(crate) fn read_privates(&self) -> &[Arc<Private>] {
        &self.read
    }

    /// The expressions this speculative copy made, if any.
    pub(crate) fn private(&self) -> Option<Private> {
        let index = self.private.as_ref()?;
        if self.made.is_empty() {
            return None;
        }
        let mut keys: Vec<(Key, ExprIdx)> = index
            .iter()
            .filter(|(_, &e)| self.made.owns(e))
            .map(|(k, &e)| (k.clone(), e))
            .collect();
        keys.sort_unstable_by_key(|x| x.1);
        Some(Private {
            made: Arc::new(self.made.own()),
            keys,
        })
    }

    /// Numbers the expressions of run `p` in the walk's tables, in the order the run
    /// made them (each is the one of equal structure the tables have, or a new one),
    /// with `renumber` giving the walk's numbers of the provisional ones it names (other
    /// runs', committed before it, and its own): records them there.
    pub(crate) fn commit_private(
        &mut self,
        ir: &Ir,
        p: &Private,
        renumber: &mut FixedMap<ExprIdx, ExprIdx>,
    ) {
        for (key, e) in &p.keys {
            let Some((h, _, _)) = p.made.get(*e) else {
                continue;
            };
            let mut ops = key.4.clone();
            renumber_exprs(&mut ops, |x| renumber.get(&x).copied());
            let real = self.intern(ir, h, ops, key.5.clone());
            renumber.insert(*e, real);
        }
    }

    /// The number of the expression of structure (`h`, `ops`, `tys`) in the walk's
    /// tables, made when they lack it.
    fn intern(&mut self, ir: &Ir, h: Head, ops: Box<[V]>, tys: Box<[TypeIdx]>) -> ExprIdx {
        let key: Key = (h.op, h.ty, h.aux_ty, h.flags, ops, tys);
        if let Some(&e) = self.index(ir).get(&key) {
            return e;
        }
        let e = Arc::make_mut(&mut self.made).push(h, &key.4, &key.5);
        Arc::make_mut(self.index(ir)).insert(key, e);
        e
    }

    /// The made expressions.
    pub fn made(&self) -> &MadeExprs {
        &self.made
    }

    /// The made expressions, shared (a pass that reads them while the walk goes on).
    pub fn made_shared(&self) -> Arc<MadeExprs> {
        Arc::clone(&self.made)
    }

    /// A copy that reads these tables and adds nothing to them; the structural index
    /// is built first, so the copy never needs to.
    pub fn frozen(&mut self, ir: &Ir) -> Folds {
        self.index(ir);
        Folds {
            index: self.index.clone(),
            made: self.made.clone(),
            frozen: true,
            missed: false,
            private: None,
            read: Vec::new(),
        }
    }

    /// A frozen copy was asked for an expression it does not have.
    pub fn missed(&self) -> bool {
        self.missed
    }

    /// The operands of made expression `e`, or `None` for one of the module's.
    pub fn made_operands(&self, e: ExprIdx) -> Option<&[V]> {
        self.made.get(e).map(|(_, ops, _)| ops)
    }

    fn index(&mut self, ir: &Ir) -> &mut Arc<FixedMap<Key, ExprIdx>> {
        self.index.get_or_insert_with(|| {
            let mut index = FixedMap::with_capacity_and_hasher(ir.num_exprs(), Default::default());
            for k in 0..ir.num_exprs() {
                let e = ExprIdx::new(k);
                let tys = ir.expr_operand_types(e);
                let ops = ir.expr_operands(e).iter().zip(tys);
                let key = (
                    ir.expr_op(e),
                    ir.expr_ty(e),
                    ir.expr_aux_ty(e),
                    ir.expr_flags(e),
                    ops.map(|(&v, &t)| const_operand(v, ir.types.int_bits(t), |w| ir.wide_int(w)))
                        .collect(),
                    tys.into(),
                );
                // the first of equal texts stands for them all
                index.entry(key).or_insert(e);
            }
            Arc::new(index)
        })
    }

    /// Row `i` of `b` as a constant, if LLVM's cloner would fold it into one: a
    /// `getelementptr`, a cast, an integer operation over a constant that is not a plain
    /// integer, or an `insertvalue`, with every operand constant (a constant
    /// expression; an aggregate is the chain of its `insertvalue`s); an `extractvalue` of
    /// a constant aggregate, the element; an `fcmp` of two `float` / `double` constants,
    /// its value; an `and` of an address with a mask of the low bits constant folding
    /// knows of it, their value ([`masked_address`]).
    pub fn fold(&mut self, fx: &Facts, b: &Body, i: RowIdx) -> Option<V> {
        let ir: &Ir = &fx.ir;
        let inst = b.inst(i);
        if inst.op == Opcode::And && inst.ops.len() == 2 {
            let bits = ir.types.int_bits(inst.ty).unwrap_or(64);
            let pair = (inst.ops[0], inst.ops[1]);
            if let Some(c) = masked_address(fx, &self.made, pair, bits) {
                return Some(V::Int(c));
            }
        }
        if inst.op == Opcode::ExtractValue {
            return self.extract(ir, inst.ops, inst.ty);
        }
        if inst.op == Opcode::PtrToInt {
            let dst = ir.types.int_bits(inst.ty).unwrap_or(64);
            if let Some(c) = int_of_inttoptr(fx, &self.made, inst.ops[0], dst, true) {
                return Some(V::Int(c));
            }
        }
        if let (Opcode::FCmp, [V::K(Value::Float(x)), V::K(Value::Float(y))]) = (inst.op, inst.ops)
        {
            return Some(bool_v(fcmp(inst.aux as u8, ir.float(*x), ir.float(*y))));
        }
        let folds = inst.op == Opcode::GetElementPtr
            || inst.op.is_cast()
            || inst.op == Opcode::InsertValue
            || (inst.op.is_int_binary() && inst.ops.iter().any(|v| matches!(v, V::K(_))));
        if !folds || inst.ops.is_empty() || !inst.ops.iter().all(|v| v.is_const()) {
            return None;
        }
        let key: Key = (
            inst.op,
            inst.ty,
            inst.aux_ty,
            inst.flags,
            inst.ops.into(),
            inst.tys.into(),
        );
        if self.frozen {
            let found = self.index.as_ref().and_then(|x| x.get(&key).copied());
            if let (None, Some(own)) = (found, self.private.as_mut()) {
                if let Some(&e) = own.get(&key) {
                    return Some(V::K(Value::Expr(e)));
                }
                if self.made.len() < PER_RUN {
                    let e = Arc::make_mut(&mut self.made).push(inst.head(), inst.ops, inst.tys);
                    own.insert(key, e);
                    return Some(V::K(Value::Expr(e)));
                }
            }
            self.missed |= found.is_none();
            return found.map(|e| V::K(Value::Expr(e)));
        }
        Some(V::K(Value::Expr(self.intern(
            ir,
            inst.head(),
            key.4,
            key.5,
        ))))
    }

    /// `ConstantFoldExtractValueInstruction` over the aggregates folding made: `ops` is
    /// an `extractvalue`'s operands (the aggregate, then the indices), `ty` its type.
    fn extract(&self, ir: &Ir, ops: &[V], ty: crate::llvm::types::TypeIdx) -> Option<V> {
        let v = extract_element(ops, |v| made_agg(&self.made, v))?;
        // zero of a non-integer element stays `zeroinitializer`
        Some(match v {
            V::Int(0) if ir.types.int_bits(ty).is_none() => V::K(Value::Zero),
            v => v,
        })
    }
}

/// `ptrtoint` of constant `v` to a `dst`-bit integer, when `v` is `inttoptr` of an
/// integer constant: that integer. With the data layout (the cloner's
/// `ConstantFoldCastOperand`) it is zero-extended or truncated to `dst` bits; without
/// it (the cost analysis' `ConstantExpr::getPtrToInt`: `foldConstantCastPair` takes
/// pointers as 64 bits) the pair folds only when both integers are one width.
pub fn int_of_inttoptr(fx: &Facts, made: &MadeExprs, v: V, dst: u32, layout: bool) -> Option<i64> {
    let V::K(Value::Expr(e)) = v else { return None };
    let x = Exprs { ir: &fx.ir, made };
    if x.op(e)? != Opcode::IntToPtr {
        return None;
    }
    let (V::Int(c), t) = x.operand(e, 0) else {
        return None;
    };
    let src = fx.ir.types.int_bits(t).filter(|&n| n <= 64)?;
    (layout || src == dst).then(|| sext(zext(c, src) as i64, dst))
}

/// What constant folding knows of the low bits of constant address `v` (or of the
/// integer `ptrtoint` makes of it): `(k, low)`, its `k` lowest bits are `low`. Through
/// `bitcast` and `ptrtoint` expressions (the module's or ones inlining made) to a
/// symbol, the alignment [`super::Facts::sym_align`] gives it (the larger of the two
/// when nothing but casts is between), and through `getelementptr`s with constant
/// indices, whose byte offset added to the symbol's known low bits gives the low bits
/// (`computeKnownBits` of a GEP adds its constant offset).
pub fn address_low_bits(fx: &Facts, made: &MadeExprs, v: V) -> Option<(u32, u64)> {
    let x = Exprs { ir: &fx.ir, made };
    let V::K(mut k) = v else { return None };
    let mut offset: Option<i64> = None;
    // expressions nest only as deep as the text wrote them; a few levels suffice
    for _ in 0..8 {
        match k {
            Value::Global(s) => {
                let (direct, known) = *fx.sym_align.get(s.idx())?;
                // under a `getelementptr`, the known bits of the address plus the offset
                let a = u32::from(if offset.is_none() {
                    direct.max(known)
                } else {
                    known
                });
                if a == 0 {
                    return None;
                }
                return Some((a, offset.unwrap_or(0) as u64 & mask(a)));
            }
            Value::Expr(e) => {
                match x.op(e)? {
                    Opcode::BitCast | Opcode::PtrToInt => {}
                    Opcode::GetElementPtr => {
                        let idx = (1..x.num_operands(e)).map(|j| x.operand(e, j).0);
                        let o = gep_offset(fx, x.aux_ty(e), idx)?;
                        offset = Some(offset.unwrap_or(0).wrapping_add(o));
                    }
                    _ => return None,
                }
                let V::K(base) = x.operand(e, 0).0 else {
                    return None;
                };
                k = base;
            }
            _ => return None,
        }
    }
    None
}

/// `and (ptrtoint A), C` (either order, `bits` wide) of a constant address `A` whose
/// low bits constant folding knows ([`address_low_bits`]): when `C` keeps only those
/// bits, the constant they give (`ConstantFoldBinaryInstruction` on an aligned global,
/// `SymbolicallyEvaluateBinop`'s known bits). An alignment check on a global an inlined
/// callee is passed folds so.
pub fn masked_address(fx: &Facts, made: &MadeExprs, pair: (V, V), bits: u32) -> Option<i64> {
    let (addr, c) = match pair {
        (a, V::Int(c)) | (V::Int(c), a) => (a, c),
        _ => return None,
    };
    let (k, low) = address_low_bits(fx, made, addr)?;
    let k = k.min(bits);
    let c = zext(c, bits);
    (c & !mask(k) == 0).then(|| sext((low & c) as i64, bits))
}

/// A constant aggregate as an [`Agg`]: an `insertvalue` folding made (`made`), `undef` /
/// `poison`, `zeroinitializer`.
pub fn made_agg(made: &MadeExprs, v: V) -> Agg<'_> {
    match v {
        V::K(Value::Expr(e)) => match made.get(e) {
            Some((h, o, _)) if h.op == Opcode::InsertValue && o.len() >= 3 => Agg::Insert {
                at: &o[2..],
                inserted: o[1],
                inner: o[0],
            },
            _ => Agg::Unknown,
        },
        V::K(k @ (Value::Undef | Value::Poison)) => Agg::Whole(V::K(k)),
        V::K(Value::Zero) => Agg::Zero,
        _ => Agg::Unknown,
    }
}
