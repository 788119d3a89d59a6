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
use rayon::prelude::*;

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
/// memory effect from `ir`'s bodies and `facts` (one per function, in order). Each
/// body is walked on the pool ([`Walk::of`]); the constants and signatures the walks
/// name are then numbered in function order, as the first pass numbers them.
pub(crate) fn derive_model(m: &mut Module, ir: &Ir, facts: Vec<BodyFacts>) {
    let defined: Vec<bool> = m.functions.iter().map(|f| f.is_definition).collect();
    let walks: Vec<Option<Walk>> = facts
        .into_par_iter()
        .enumerate()
        .map(|(k, fx)| {
            let f = FuncIdx::new(k);
            let body = ir.bodies.get(f).filter(|_| defined.get(k) == Some(&true))?;
            Some(Walk::of(body, fx))
        })
        .collect();
    let mut d = Deriver::new(m, ir);
    for (k, w) in walks.into_iter().enumerate() {
        if let Some(w) = w {
            d.function(FuncIdx::new(k), w);
        }
    }
}

/// An operand that may name a constant mentioning globals.
#[derive(Clone, Copy)]
enum Operand {
    Global(SymbolIdx),
    Expr(ExprIdx),
    /// A constant the view keeps opaque: `globals[start..start + len]` of its body.
    Opaque(u32, u32),
    None,
}

/// What a call's callee operand is.
#[derive(Clone, Copy)]
enum Target {
    Direct(SymbolIdx),
    Asm,
    Other,
}

/// One step of a body's operand walk that the module's numbering resolves.
#[derive(Clone, Copy)]
enum Step {
    /// A call whose callee is directly the symbol, of function type `.1`.
    Direct(SymbolIdx, TypeIdx),
    /// An operand's constant, referenced when it mentions a global.
    Const(Operand),
    /// A call's callee operand (referenced when its constant mentions a global), then
    /// the call site.
    Call {
        callee: Operand,
        target: Target,
        fn_ty: TypeIdx,
        arg_count: u32,
        block: BlockIdx,
        kind: CallKind,
    },
}

/// One body's model before the module numbers its constants and signatures: its
/// blocks, and the steps of its operand walk in instruction then operand order.
struct Walk {
    blocks: IndexVec<BlockIdx, Block>,
    count: u32,
    mem: MemEffect,
    /// The globals the body's opaque constants mention ([`BodyFacts::globals`]).
    globals: Vec<SymbolIdx>,
    steps: Vec<Step>,
}

impl Walk {
    /// Walks `body`, whose facts are `fx`.
    fn of(body: &Body, mut fx: BodyFacts) -> Walk {
        let mut names = std::mem::take(&mut fx.block_names).into_iter();
        let mut w = Walk {
            blocks: IndexVec::with_capacity(body.blocks.len()),
            count: 0,
            mem: fx.mem,
            globals: Vec::new(),
            steps: Vec::new(),
        };
        let mut opaque = 0;
        for (b, rows) in body.blocks.iter_enumerated() {
            for &r in rows {
                w.row(body, (b, r), &fx, &mut opaque);
            }
            w.count += rows.len() as u32;
            let (term, succs) = successors(body, b);
            w.blocks.push(Block {
                name: names.next().unwrap_or_default(),
                term,
                succs,
                instruction_count: rows.len() as u32,
            });
        }
        w.globals = fx.globals;
        w
    }

    /// Operand `k` of `row`, `v`, as a step's operand; `opaque` is the cursor into the
    /// body's opaque constants.
    fn operand(v: V, (row, k): (RowIdx, u32), fx: &BodyFacts, opaque: &mut usize) -> Operand {
        match v {
            V::K(Value::Global(s)) => Operand::Global(s),
            V::K(Value::Expr(e)) => Operand::Expr(e),
            V::K(Value::Other) => match fx.opaque.get(*opaque) {
                Some(&(r, kk, start, len)) if (r, kk) == (row, k) => {
                    *opaque += 1;
                    Operand::Opaque(start, len)
                }
                _ => Operand::None,
            },
            _ => Operand::None,
        }
    }

    /// The steps of `ops`, the operands of `r` from the first on.
    fn consts(&mut self, ops: &[V], r: RowIdx, fx: &BodyFacts, opaque: &mut usize) {
        for (k, &v) in ops.iter().enumerate() {
            match Walk::operand(v, (r, k as u32), fx, opaque) {
                Operand::None => {}
                o => self.steps.push(Step::Const(o)),
            }
        }
    }

    /// One row's steps: a call's direct callee, its constant operands, its callee.
    fn row(&mut self, body: &Body, (b, r): (BlockIdx, RowIdx), fx: &BodyFacts, opaque: &mut usize) {
        let inst = body.inst(r);
        let Some(ci) = inst.call.filter(|_| inst.op.is_call()) else {
            self.consts(inst.ops, r, fx, opaque);
            return;
        };
        let callee_op = ci.callee_op as usize;
        let callee_v = inst.ops[callee_op];
        if let V::K(Value::Global(s)) = callee_v {
            self.steps.push(Step::Direct(s, inst.aux_ty));
        }
        self.consts(&inst.ops[..callee_op], r, fx, opaque);
        let callee = Walk::operand(callee_v, (r, ci.callee_op), fx, opaque);
        self.steps.push(Step::Call {
            callee,
            target: match callee_v {
                V::K(Value::Global(s)) => Target::Direct(s),
                V::K(Value::Asm) => Target::Asm,
                _ => Target::Other,
            },
            fn_ty: inst.aux_ty,
            arg_count: ci.nargs,
            block: b,
            kind: match inst.op {
                Opcode::Invoke => CallKind::Invoke,
                Opcode::CallBr => CallKind::CallBr,
                _ => CallKind::Call,
            },
        });
    }
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

    /// The constant of operand `o` of a body whose opaque constants mention `globals`,
    /// when it mentions a global.
    fn operand(&mut self, o: Operand, globals: &[SymbolIdx]) -> Option<ConstIdx> {
        match o {
            Operand::Global(s) => Some(self.sym_const(s)),
            Operand::Expr(e) => self.expr(e),
            Operand::Opaque(start, len) => {
                let from = self.scratch.len();
                let named = globals.get(start as usize..(start + len) as usize)?;
                for &s in named {
                    let c = self.sym_const(s);
                    self.scratch.push(c);
                }
                self.pooled(from)
            }
            Operand::None => None,
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

    /// Function `f`'s model from its walk: the walk's constants and signatures
    /// numbered in step order.
    fn function(&mut self, f: FuncIdx, w: Walk) {
        let mut call_sites = Vec::new();
        let mut refs = Vec::new();
        for step in w.steps {
            match step {
                Step::Direct(s, t) => {
                    let fn_type = self.sig(t);
                    refs.push(OperandRef::DirectCall(s, fn_type));
                }
                Step::Const(o) => refs.extend(self.operand(o, &w.globals).map(OperandRef::Const)),
                Step::Call {
                    callee,
                    target,
                    fn_ty,
                    arg_count,
                    block,
                    kind,
                } => {
                    let fn_type = self.sig(fn_ty);
                    let c = self.operand(callee, &w.globals);
                    refs.extend(c.map(OperandRef::Const));
                    call_sites.push(CallSite {
                        callee: match target {
                            Target::Direct(s) => Callee::Direct(s),
                            Target::Asm => Callee::InlineAsm,
                            Target::Other => c.map_or(Callee::Indirect, Callee::Const),
                        },
                        arg_count,
                        block,
                        kind,
                        fn_type,
                    });
                }
            }
        }
        let func = &mut self.m.functions[f];
        func.blocks = w.blocks;
        func.instruction_count = w.count;
        func.call_sites = call_sites;
        func.operand_refs = refs;
        func.body_mem = w.mem;
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
