//! The call graph's model of each body, derived from the rows the instruction pass
//! built: when the view is asked for, the bodies are read once, by that pass, and the
//! first pass only steps over them.
//!
//! Per defined function: the blocks (names, terminators, successors in LLVM's order,
//! instruction counts), the call sites, the operand references in the order the
//! first pass records them (a direct callee first, then each constant operand that
//! mentions a global, the callee last) and the memory effect. Constants become the
//! module's [`ConstKind::Expr`] nodes: a constant expression once per expression of
//! the view, with its operands that mention globals; a constant the view keeps opaque
//! (an aggregate, `dso_local_equivalent`) with the globals it mentions, in text order.
//! A call's function type is the signature of the functions of that type, or its own
//! text when no function has it. The model is the first pass's up to the numbering of
//! symbols, constants and signatures (tested on the corpus).

use crate::idx::{BlockIdx, IndexVec};
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::ir::{ExprIdx, InstFlags, Ir, Opcode, Value};
use crate::llvm::types::TypeIdx;
use crate::llvm::{
    Block, CallKind, CallSite, Callee, ConstIdx, ConstKind, FuncIdx, MemEffect, Module, OperandRef,
    SigIdx, SymbolIdx, Terminator,
};
use ahash::AHashMap;

/// What the model of one body needs beyond its rows, gathered while the body is read.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyFacts {
    /// Block names in block order (decoded; unnamed blocks by slot number).
    pub(crate) block_names: Vec<String>,
    /// Memory effect of the body's own instructions.
    pub(crate) mem: MemEffect,
    /// Operands holding a constant the view keeps opaque that mentions globals:
    /// `(row, operand, start, len)` of `globals`, in row and operand order.
    pub(crate) opaque: Vec<(RowIdx, u32, u32, u32)>,
    /// The globals those constants mention, in text order.
    pub(crate) globals: Vec<SymbolIdx>,
}

/// Fills every defined function's blocks, call sites, operand references, counts and
/// memory effect from `ir`'s bodies and `facts` (one per function, in order).
pub(crate) fn derive_model(m: &mut Module, ir: &Ir, facts: Vec<BodyFacts>) {
    let mut d = Deriver::new(m, ir);
    for (k, fx) in facts.into_iter().enumerate() {
        let f = FuncIdx::new(k);
        if d.m.functions[f].is_definition {
            d.function(f, &ir.bodies[f], &fx);
        }
    }
}

/// One body's model as the rows are read: its call sites, its operand references, and
/// the cursor into its opaque constants.
#[derive(Default)]
struct Derived {
    call_sites: Vec<CallSite>,
    refs: Vec<OperandRef>,
    opaque: usize,
}

struct Deriver<'m, 'i> {
    m: &'m mut Module,
    ir: &'i Ir,
    /// Per symbol: its constant in the pool (NONE until needed).
    sym_const: IndexVec<SymbolIdx, ConstIdx>,
    /// Per expression of the view: its constant, once derived (`Some(None)`: mentions no
    /// global).
    expr_const: IndexVec<ExprIdx, Option<Option<ConstIdx>>>,
    /// Function type → the signature of the first function of that type.
    sig_of_ty: AHashMap<TypeIdx, SigIdx>,
    /// Signature text → signature.
    sig_text: AHashMap<String, SigIdx>,
    scratch: Vec<ConstIdx>,
}

impl<'m, 'i> Deriver<'m, 'i> {
    fn new(m: &'m mut Module, ir: &'i Ir) -> Self {
        let mut sym_const = IndexVec::from_elem_n(ConstIdx::NONE, m.symbols.len());
        for k in 0..m.consts.len() {
            let c = ConstIdx::new(k);
            if let ConstKind::Symbol(s) = m.consts.kind(c) {
                sym_const[s] = c;
            }
        }
        let mut sig_of_ty = AHashMap::new();
        for (f, func) in m.functions.iter_enumerated() {
            sig_of_ty.entry(ir.funcs[f].fn_ty).or_insert(func.signature);
        }
        let sig_text = m
            .signatures
            .iter_enumerated()
            .map(|(s, t)| (t.clone(), s))
            .collect();
        Deriver {
            expr_const: IndexVec::from_elem_n(None, ir.num_exprs()),
            m,
            ir,
            sym_const,
            sig_of_ty,
            sig_text,
            scratch: Vec::new(),
        }
    }

    fn sym_const(&mut self, s: SymbolIdx) -> ConstIdx {
        if self.sym_const[s].is_none() {
            self.sym_const[s] = self.m.consts.push(ConstKind::Symbol(s), &[]);
        }
        self.sym_const[s]
    }

    /// The constant of expression `e` when it mentions a global.
    fn expr(&mut self, e: ExprIdx) -> Option<ConstIdx> {
        if let Some(c) = self.expr_const[e] {
            return c;
        }
        let from = self.scratch.len();
        for k in 0..self.ir.expr_operands(e).len() {
            let c = match self.ir.expr_operands(e)[k] {
                Value::Global(s) => Some(self.sym_const(s)),
                Value::Expr(x) => self.expr(x),
                _ => None,
            };
            self.scratch.extend(c);
        }
        let c = self.pooled(from);
        self.expr_const[e] = Some(c);
        c
    }

    /// An expression node of the operands pushed on `scratch` since `from` (none when
    /// there are none).
    fn pooled(&mut self, from: usize) -> Option<ConstIdx> {
        let c = (self.scratch.len() > from)
            .then(|| self.m.consts.push(ConstKind::Expr, &self.scratch[from..]));
        self.scratch.truncate(from);
        c
    }

    /// The constant of operand `v` (operand `k` of `row`), when it mentions a global;
    /// `opaque` is the cursor into the body's opaque constants.
    fn operand(
        &mut self,
        v: V,
        row: RowIdx,
        k: u32,
        fx: &BodyFacts,
        opaque: &mut usize,
    ) -> Option<ConstIdx> {
        match v {
            V::K(Value::Global(s)) => Some(self.sym_const(s)),
            V::K(Value::Expr(e)) => self.expr(e),
            V::K(Value::Other) => {
                let &(r, kk, start, len) = fx.opaque.get(*opaque)?;
                if (r, kk) != (row, k) {
                    return None;
                }
                *opaque += 1;
                let from = self.scratch.len();
                for &s in &fx.globals[start as usize..(start + len) as usize] {
                    let c = self.sym_const(s);
                    self.scratch.push(c);
                }
                self.pooled(from)
            }
            _ => None,
        }
    }

    /// The signature of function type `t`.
    fn sig(&mut self, t: TypeIdx) -> SigIdx {
        if let Some(&s) = self.sig_of_ty.get(&t) {
            return s;
        }
        let text: String = self
            .ir
            .types
            .display(t)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let s = match self.sig_text.get(&text) {
            Some(&s) => s,
            None => {
                let s = self.m.signatures.push(text.clone());
                self.sig_text.insert(text, s);
                s
            }
        };
        self.sig_of_ty.insert(t, s);
        s
    }

    fn function(&mut self, f: FuncIdx, body: &Body, fx: &BodyFacts) {
        let mut blocks: IndexVec<BlockIdx, Block> = IndexVec::new();
        let mut out = Derived::default();
        let mut count = 0u32;
        for (b, rows) in body.blocks.iter_enumerated() {
            for &r in rows {
                self.row(body, b, r, fx, &mut out);
            }
            count += rows.len() as u32;
            let (term, succs) = successors(body, b);
            blocks.push(Block {
                name: fx.block_names.get(b.idx()).cloned().unwrap_or_default(),
                term,
                succs,
                instruction_count: rows.len() as u32,
            });
        }
        let func = &mut self.m.functions[f];
        func.blocks = blocks;
        func.instruction_count = count;
        func.call_sites = out.call_sites;
        func.operand_refs = out.refs;
        func.body_mem = fx.mem;
    }

    /// One row's operand references (and its call site).
    fn row(&mut self, body: &Body, b: BlockIdx, r: RowIdx, fx: &BodyFacts, out: &mut Derived) {
        let Derived {
            call_sites,
            refs,
            opaque,
        } = out;
        let inst = body.inst(r);
        let Some(ci) = inst.call.filter(|_| inst.op.is_call()) else {
            for (k, &v) in inst.ops.iter().enumerate() {
                if let Some(c) = self.operand(v, r, k as u32, fx, opaque) {
                    refs.push(OperandRef::Const(c));
                }
            }
            return;
        };
        let fn_type = self.sig(inst.aux_ty);
        let callee_op = ci.callee_op as usize;
        let callee_v = inst.ops[callee_op];
        if let V::K(Value::Global(s)) = callee_v {
            refs.push(OperandRef::DirectCall(s, fn_type));
        }
        for (k, &v) in inst.ops[..callee_op].iter().enumerate() {
            if let Some(c) = self.operand(v, r, k as u32, fx, opaque) {
                refs.push(OperandRef::Const(c));
            }
        }
        let callee_c = self.operand(callee_v, r, ci.callee_op, fx, opaque);
        refs.extend(callee_c.map(OperandRef::Const));
        let callee = match callee_v {
            V::K(Value::Global(s)) => Callee::Direct(s),
            V::K(Value::Asm) => Callee::InlineAsm,
            _ => callee_c.map_or(Callee::Indirect, Callee::Const),
        };
        call_sites.push(CallSite {
            callee,
            arg_count: ci.nargs,
            block: b,
            kind: match inst.op {
                Opcode::Invoke => CallKind::Invoke,
                Opcode::CallBr => CallKind::CallBr,
                _ => CallKind::Call,
            },
            fn_type,
        });
    }
}

/// How block `b` ends and its successors in LLVM's order (a `catchswitch` lists its
/// unwind destination first).
fn successors(body: &Body, b: BlockIdx) -> (Terminator, Vec<BlockIdx>) {
    let Some(t) = body.term(b).filter(|&t| body.op(t).is_terminator()) else {
        return (Terminator::None, Vec::new());
    };
    let op = body.op(t);
    let term = Terminator::from_opcode(op.name()).unwrap_or(Terminator::None);
    let mut succs: Vec<BlockIdx> = body.succ_iter(b).collect();
    if op == Opcode::CatchSwitch
        && body.flags(t).0 & InstFlags::UNWIND_TO_CALLER == 0
        && !succs.is_empty()
    {
        succs.rotate_right(1);
    }
    (term, succs)
}
