//! The instruction pass on several threads: the functions are cut into runs of about
//! equal text, each run is read by a builder forked from the one that read the module
//! header (named types, globals, aliases), and the runs' tables are merged in text
//! order.
//!
//! Types, attribute sets and constant expressions are interned on first appearance, so
//! appending each run's new entries in run order, re-interned, numbers them exactly as
//! one pass over the text would; arguments, integers and names are appended with an
//! offset, and each run's bodies are appended with their types, attribute sets and
//! constants renumbered. The view is the same as the sequential pass's (tested on
//! the corpus).
//!
//! Cost: the runs in parallel, plus a merge linear in their rows (one hash lookup per
//! new type, attribute set and expression), made by the calling thread between runs of
//! its own as the runs finish in order ([`Builder::read_runs`]), so that only the last
//! runs' merge follows the reading.

use super::Builder;
use crate::import::llvm_ir::{in_order, ParseError, Pos, Spans};
use crate::llvm::attrs::AttrSetIdx;
use crate::llvm::ir::{ArgIdx, ExprIdx, FuncIr, Range, Value};
use crate::llvm::types::{TypeIdx, TypeKind, Types};
use crate::llvm::FuncIdx;

/// Smallest run of function text worth a builder of its own.
const MIN_RUN_BYTES: usize = 256 << 10;

/// Runs of function indices, a few per thread and none under [`MIN_RUN_BYTES`] of text;
/// one run (or none) when the module is small.
pub(super) fn chunks(
    spans: &Spans,
    text_len: usize,
    threads: usize,
) -> Vec<std::ops::Range<usize>> {
    let n = spans.funcs.len();
    if threads < 2 || n < 2 {
        return std::iter::once(0..n).collect();
    }
    let first = spans.funcs[0].start as usize;
    let body = text_len.saturating_sub(first);
    let target = (body / (threads * 8)).max(MIN_RUN_BYTES);
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut start_at = first;
    for k in 1..n {
        let at = spans.funcs[k].start as usize;
        if at - start_at >= target && text_len - at >= target / 2 {
            out.push(start..k);
            start = k;
            start_at = at;
        }
    }
    out.push(start..n);
    out
}

/// Sizes of the shared tables when the runs were forked.
pub(super) struct Marks {
    types: usize,
    attr_sets: usize,
    exprs: usize,
    wide: usize,
    floats: usize,
}

impl<'a, 'm> Builder<'a, 'm> {
    /// A builder for one run: the header's tables and caches, nothing of any function.
    pub(super) fn fork(&self) -> Builder<'a, 'm> {
        let mut b = Builder::new(self.m, self.p.file, self.src);
        b.ir.types = self.ir.types.clone();
        b.ir.attr_sets = self.ir.attr_sets.clone();
        b.ir.expr_op = self.ir.expr_op.clone();
        b.ir.expr_ty = self.ir.expr_ty.clone();
        b.ir.expr_aux_ty = self.ir.expr_aux_ty.clone();
        b.ir.expr_flags = self.ir.expr_flags.clone();
        b.ir.expr_op_start = self.ir.expr_op_start.clone();
        b.ir.expr_operands = self.ir.expr_operands.clone();
        b.ir.expr_op_types = self.ir.expr_op_types.clone();
        b.ir.wide_ints = self.ir.wide_ints.clone();
        b.ir.floats = self.ir.floats.clone();
        b.float_map = self.float_map.clone();
        b.ty_cache = self.ty_cache.clone();
        b.expr_map = self.expr_map.clone();
        b.expr_keys = self.expr_keys.clone();
        b.groups = self.groups.clone();
        b.opaque = self.opaque;
        b
    }

    /// The table sizes the forks start from.
    pub(super) fn marks(&self) -> Marks {
        Marks {
            types: self.ir.types.len(),
            attr_sets: self.ir.attr_sets.len(),
            exprs: self.ir.expr_op.len(),
            wide: self.ir.wide_ints.len(),
            floats: self.ir.floats.len(),
        }
    }

    /// Reads the functions of `runs` (ranges of function indices, `funcs` their
    /// positions), each by a builder forked from this one, on the pool's threads, and
    /// appends them to this builder's tables in run order. The runs are taken in order
    /// by whichever thread is free, and this thread appends each run as soon as every
    /// run before it is appended, between reading runs of its own: the merge overlaps
    /// the reading instead of following it. The first error, in run order, is returned.
    pub(super) fn read_runs(
        &mut self,
        runs: &[std::ops::Range<usize>],
        funcs: &[Pos],
    ) -> Result<(), ParseError> {
        let template = self.fork();
        let marks = self.marks();
        self.ir.funcs.reserve(funcs.len());
        self.ir.intrinsic.reserve(funcs.len());
        self.ir.bodies.reserve(funcs.len());
        self.ir.arg_name_start.reserve(funcs.len());
        self.facts.reserve(funcs.len());
        let mut first_err = None;
        in_order(
            runs.len(),
            |k| {
                let mut c = template.fork();
                runs[k]
                    .clone()
                    .try_for_each(|f| c.function(FuncIdx::new(f), funcs[f]))
                    .map(|()| c)
            },
            |run| match run {
                Ok(c) if first_err.is_none() => self.absorb(c, &marks),
                Ok(_) => {}
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            },
        );
        first_err.map_or(Ok(()), Err)
    }

    /// Appends run `c` (forked at `marks`) to this builder's tables.
    pub(super) fn absorb(&mut self, c: Builder<'a, 'm>, marks: &Marks) {
        self.dbg_calls.extend_from_slice(&c.dbg_calls);
        self.dbg_funcs.extend_from_slice(&c.dbg_funcs);
        self.prof_terms.extend_from_slice(&c.prof_terms);
        self.facts.extend(c.facts);
        let cir = c.ir;
        let g = &mut self.ir;
        // types
        let mut tmap: Vec<TypeIdx> = (0..marks.types).map(TypeIdx::new).collect();
        for t in marks.types..cir.types.len() {
            let t = TypeIdx::new(t);
            let nt = remap_type(&mut g.types, &cir.types, t, &tmap);
            tmap.push(nt);
        }
        let ty = |t: TypeIdx| if t.is_none() { t } else { tmap[t.idx()] };
        // attribute sets
        let mut amap: Vec<AttrSetIdx> = (0..marks.attr_sets).map(AttrSetIdx::new).collect();
        for k in marks.attr_sets..cir.attr_sets.len() {
            let mut s = *cir.attr_sets.get(AttrSetIdx::new(k));
            s.ty = ty(s.ty);
            amap.push(g.attr_sets.intern(s));
        }
        let at = |a: AttrSetIdx| amap[a.idx()];
        // integers, then constant expressions (their operands may be integers)
        let wide_base = g.wide_ints.len() as u32;
        let wide_mark = marks.wide as u32;
        g.wide_ints.extend_from_slice(&cir.wide_ints[marks.wide..]);
        // floating-point constants, re-interned by value
        let fmap: Vec<u32> = (marks.floats..cir.floats.len())
            .map(|k| {
                let bits = cir.floats[k];
                *self.float_map.entry(bits).or_insert_with(|| {
                    g.floats.push(bits);
                    g.floats.len() as u32 - 1
                })
            })
            .collect();
        let float_mark = marks.floats as u32;
        let mut emap: Vec<ExprIdx> = (0..marks.exprs).map(ExprIdx::new).collect();
        let val = |v: Value, emap: &[ExprIdx]| match v {
            Value::Expr(e) => Value::Expr(emap[e.idx()]),
            Value::WideInt(w) if w >= wide_mark => Value::WideInt(w - wide_mark + wide_base),
            Value::Float(n) if n >= float_mark => Value::Float(fmap[(n - float_mark) as usize]),
            v => v,
        };
        for e in marks.exprs..cir.expr_op.len() {
            let e = ExprIdx::new(e);
            let (kt, kt_text) = c.expr_keys[e.idx()];
            let key = (ty(kt), kt_text);
            if let Some(&ge) = self.expr_map.get(&key) {
                emap.push(ge);
                continue;
            }
            let ge = g.expr_op.push(cir.expr_op(e));
            g.expr_ty.push(ty(cir.expr_ty(e)));
            g.expr_aux_ty.push(ty(cir.expr_aux_ty(e)));
            g.expr_flags.push(cir.expr_flags(e));
            for (&v, &t) in cir.expr_operands(e).iter().zip(cir.expr_operand_types(e)) {
                g.expr_operands.push(val(v, &emap));
                g.expr_op_types.push(ty(t));
            }
            g.expr_op_start.push(g.expr_operands.len() as u32);
            self.expr_map.insert(key, ge);
            self.expr_keys.push(key);
            emap.push(ge);
        }
        // functions, arguments, bodies
        let arg_off = g.arg_ty.len();
        for fr in cir.funcs.iter() {
            g.funcs.push(FuncIr {
                fn_ty: ty(fr.fn_ty),
                ret_ty: ty(fr.ret_ty),
                attrs: at(fr.attrs),
                ret_attrs: at(fr.ret_attrs),
                dso_local: fr.dso_local,
                personality: val(fr.personality, &emap),
                args: Range {
                    start: ArgIdx::new(fr.args.start.idx() + arg_off),
                    len: fr.args.len,
                },
            });
        }
        g.intrinsic.extend(cir.intrinsic.iter().copied());
        g.arg_func.extend(cir.arg_func.iter().copied());
        g.arg_ty.extend(cir.arg_ty.iter().map(|&t| ty(t)));
        g.arg_attrs.extend(cir.arg_attrs.iter().map(|&a| at(a)));
        let name_off = g.arg_names.len() as u32;
        g.arg_name_start
            .extend(cir.arg_name_start.iter().map(|&s| s + name_off));
        g.arg_names.push_str(&cir.arg_names);
        for mut b in cir.bodies {
            b.remap_module_refs(ty, at, |v| val(v, &emap));
            g.bodies.push(b);
        }
    }
}

/// Re-interns type `t` of table `c` into `g`, its parts mapped by `map`.
fn remap_type(g: &mut Types, c: &Types, t: TypeIdx, map: &[TypeIdx]) -> TypeIdx {
    let m = |x: TypeIdx| if x.is_none() { x } else { map[x.idx()] };
    match c.kind(t) {
        TypeKind::Struct { fields, packed } => {
            let fs: Vec<TypeIdx> = c.list(fields).iter().map(|&x| m(x)).collect();
            g.literal_struct(&fs, packed)
        }
        TypeKind::Function {
            ret,
            params,
            vararg,
        } => {
            let ps: Vec<TypeIdx> = c.list(params).iter().map(|&x| m(x)).collect();
            g.function(m(ret), &ps, vararg)
        }
        TypeKind::Named(n) => g.named(c.named_name(n)),
        TypeKind::Ptr { addrspace, pointee } => g.ptr(m(pointee), addrspace),
        TypeKind::Array { len, elem } => g.leaf(TypeKind::Array { len, elem: m(elem) }),
        TypeKind::Vector {
            len,
            elem,
            scalable,
        } => g.leaf(TypeKind::Vector {
            len,
            elem: m(elem),
            scalable,
        }),
        k => g.leaf(k),
    }
}
