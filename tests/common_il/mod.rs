//! Small IL builders shared by the compare, share and instantiate tests.
#![allow(dead_code)]

use ilkit::il::{
    fields as F, kinds, ConstantKind, DynamicInitKind, Eix, EntryId, EntryKind, ExprKind, Il, Op,
    StorageClass, TypeKind,
};

/// A world with builtin types and two named globals.
pub struct B {
    pub il: Il,
    pub int: EntryId,
    pub dbl: EntryId,
    pub long: EntryId,
    /// Global `g` of type int.
    pub g1: EntryId,
    /// Another global named `g` of type int (same sharing symbol as `g1`).
    pub g1b: EntryId,
    /// Global `h` of type double.
    pub g2: EntryId,
}

pub fn ty(il: &mut Il, name: &str, kind: TypeKind, size: u64) -> EntryId {
    let t = il.alloc(EntryKind::Type).unwrap();
    il.set_string(t, 0, name.as_bytes()).unwrap();
    kinds::set_type_kind(il, t, kind).unwrap();
    let e = il.eix(t).unwrap();
    il.ty_mut(e)
        .set_size(size)
        .set_alignment(size.max(1) as u32);
    t
}

pub fn global(il: &mut Il, name: &str, t: EntryId) -> EntryId {
    let v = il.alloc_variable(StorageClass::Global).unwrap();
    il.set_string(v, 0, name.as_bytes()).unwrap();
    il.set_child(v, F::VARIABLE_TYPE, Some(t)).unwrap();
    v
}

impl B {
    pub fn new() -> B {
        let mut il = Il::new();
        let int = ty(&mut il, "int", TypeKind::Integer, 4);
        let dbl = ty(&mut il, "double", TypeKind::Float, 8);
        let long = ty(&mut il, "long", TypeKind::Integer, 8);
        let g1 = global(&mut il, "g", int);
        let g1b = global(&mut il, "g", int);
        let g2 = global(&mut il, "h", dbl);
        B {
            il,
            int,
            dbl,
            long,
            g1,
            g1b,
            g2,
        }
    }

    pub fn e(&self, id: EntryId) -> Eix {
        self.il.eix(id).unwrap()
    }

    pub fn crow(&self, id: EntryId) -> usize {
        self.il.row(self.e(id)) as usize
    }

    /// A constant of `kind` with type `t`.
    pub fn konst(&mut self, kind: ConstantKind, t: Option<EntryId>) -> EntryId {
        let c = self.il.alloc(EntryKind::Constant).unwrap();
        kinds::set_constant_kind(&mut self.il, c, kind).unwrap();
        self.il.set_child(c, F::CONSTANT_TYPE, t).unwrap();
        c
    }

    pub fn int_const(&mut self, v: i64) -> EntryId {
        let c = self.konst(ConstantKind::Integer, Some(self.int));
        let e = self.e(c);
        self.il.constant_mut(e).set_value(v);
        c
    }

    pub fn expr(&mut self, kind: ExprKind, ty: Option<EntryId>, ops: &[EntryId]) -> EntryId {
        let x = self.il.alloc_expr_node(kind).unwrap();
        self.il.set_child(x, F::EXPR_NODE_TYPE, ty).unwrap();
        for &o in ops {
            self.il.push_list(x, F::EXPR_NODE_OPERANDS, o).unwrap();
        }
        x
    }

    pub fn set_op(&mut self, x: EntryId, op: Op) {
        let e = self.e(x);
        self.il.expr_mut(e).set_op(op);
    }

    /// `enk_constant` leaf holding an int constant.
    pub fn int_leaf(&mut self, v: i64) -> EntryId {
        let c = self.int_const(v);
        let x = self.expr(ExprKind::Constant, Some(self.int), &[]);
        self.il
            .set_child(x, F::EXPR_NODE_CONSTANT, Some(c))
            .unwrap();
        x
    }

    /// `a op b` with result type `t`.
    pub fn binop(&mut self, op: Op, t: EntryId, a: EntryId, b: EntryId) -> EntryId {
        let x = self.expr(ExprKind::Operation, Some(t), &[a, b]);
        self.set_op(x, op);
        x
    }

    pub fn var_ref(&mut self, v: EntryId, t: EntryId) -> EntryId {
        let x = self.expr(ExprKind::Variable, Some(t), &[]);
        self.il.set_ref(x, F::EXPR_NODE_ENTITY, Some(v)).unwrap();
        x
    }

    pub fn dyn_init(&mut self, kind: u8, v: i64) -> EntryId {
        let d = self.il.alloc(EntryKind::DynamicInit).unwrap();
        let kind = DynamicInitKind::checked(kind).unwrap();
        kinds::set_dynamic_init_kind(&mut self.il, d, kind).unwrap();
        let c = self.int_const(v);
        self.il
            .set_child(d, F::DYNAMIC_INIT_CONSTANT, Some(c))
            .unwrap();
        let x = self.int_leaf(v);
        self.il.set_child(d, F::DYNAMIC_INIT_EXPR, Some(x)).unwrap();
        d
    }
}
