//! Kind dispatchers: the sub-kind bytes of types, expressions, statements, constants,
//! routines, dynamic inits, pragmas and scopes, with the supplements each kind allocates
//! (seed 001). A sub-kind is passed as its generated enum, so an out-of-range number
//! cannot reach a dispatcher (reading one from a file is an error there); none panics.
//!
//! The vocabularies themselves (`TypeKind`, `ExprKind`, `Op`, `ConstantKind`, `StmtKind`,
//! `ScopeKind`, `AttrKind`, `AddressKind`, `TemplateParamConstantKind`, `DynamicInitKind`,
//! `RoutineSpecialKind`, `PragmaKind`, ...) are declared in `components/vocab.rs` and
//! generated; this module holds what the dispatchers do with them.

use super::{
    fields as F, AddressKind, ConstantKind, DynamicInitKind, Eix, EntryId, EntryKind, ExprKind, Il,
    IlError, Op, PragmaKind, RoutineSpecialKind, ScopeKind, StmtKind, StorageClass,
    TemplateParamConstantKind, TypeKind,
};

/// `type.tparam_depth` of a `tk_template_param` type that stands for no parameter by
/// position: a placeholder (`auto`, a dependent type the importer could not spell).
/// Substitution binds such a type by its entry, never by position.
pub const UNPOSITIONED: u16 = u16::MAX;

/// Type qualifier bits (`type.qualifiers`).
pub mod qual {
    /// `const`.
    pub const CONST: u8 = 1;
    /// `volatile`.
    pub const VOLATILE: u8 = 2;
    /// `restrict`.
    pub const RESTRICT: u8 = 4;
    /// An lvalue reference (on a tk_pointer).
    pub const LREF: u8 = 8;
    /// An rvalue reference (on a tk_pointer).
    pub const RREF: u8 = 16;
}

/// Strips typedefs (`tk_typeref`) and references from type `t`: the type a value of `t`
/// is (at most 64 steps, so a cycle of typedefs ends). Any other entry is returned as is.
pub fn strip_typerefs(il: &Il, mut t: Eix) -> Eix {
    for _ in 0..64 {
        let Some(ty) = il.as_ty(t) else {
            return t;
        };
        let k = ty.type_kind();
        let is_ref = k == TypeKind::Pointer && ty.qualifiers() & (qual::LREF | qual::RREF) != 0;
        if k != TypeKind::Typeref && !is_ref {
            return t;
        }
        match il.child_eix(t, F::TYPE_BASE_TYPE) {
            Some(b) => t = b,
            None => return t,
        }
    }
    t
}

impl StorageClass {
    /// Auto, register or parameter: lives in the current region (seed 001,
    /// `alloc_variable`: storage classes past parameter live in file scope).
    #[inline]
    pub fn is_local(self) -> bool {
        self <= StorageClass::Parameter
    }
}

impl ExprKind {
    /// The expression kind numbered `n` that `set_expr_node_kind` accepts (not
    /// [`ExprKind::Reclaimed`]), or the seed's error.
    ///
    /// # Errors
    /// [`IlError::BadKind`] ("set_expr_node_kind: bad kind").
    pub fn checked(n: u8) -> Result<ExprKind, IlError> {
        match ExprKind::from_raw(n) {
            Some(k) if k != ExprKind::Reclaimed => Ok(k),
            _ => Err(IlError::BadKind("set_expr_node_kind: bad kind")),
        }
    }
}

fn eix_of(il: &Il, id: EntryId, kind: EntryKind) -> Result<Eix, IlError> {
    let e = il.eix(id)?;
    let k = il.kind(e);
    if k != kind {
        return Err(IlError::WrongOwner {
            field_owner: kind,
            entry: k,
        });
    }
    Ok(e)
}

/// `set_type_kind`: sets the type kind and allocates its supplement: integer (access 5),
/// routine (a routine_type_supplement entry), class/struct/union (a class_info entry with
/// access 1 and vtable index −1), typeref, template parameter.
pub fn set_type_kind(il: &mut Il, ty: EntryId, k: TypeKind) -> Result<(), IlError> {
    let e = eix_of(il, ty, EntryKind::Type)?;
    il.ty_mut(e).set_type_kind(k);
    match k {
        TypeKind::Integer => {
            il.counters.type_supplements[0] += 1;
            il.ty_mut(e).set_supp_access(5);
        }
        TypeKind::Float | TypeKind::Complex | TypeKind::Imaginary => {
            il.ty_mut(e).set_format(2);
        }
        TypeKind::Routine => {
            il.counters.type_supplements[1] += 1;
            let s = il.alloc(EntryKind::RoutineTypeSupplement)?;
            il.set_child(ty, F::TYPE_ROUTINE_SUPPLEMENT, Some(s))?;
        }
        k if k.is_class() => {
            il.counters.type_supplements[2] += 1;
            let s = il.alloc(EntryKind::ClassInfo)?;
            let se = il.eix(s)?;
            il.class_info_mut(se)
                .set_class_kind(k)
                .set_access(1)
                .set_vtable_index(-1);
            il.set_child(ty, F::TYPE_CLASS_INFO, Some(s))?;
        }
        TypeKind::Typeref => il.counters.type_supplements[3] += 1,
        TypeKind::TemplateParam => il.counters.type_supplements[4] += 1,
        _ => {}
    }
    Ok(())
}

/// `set_expr_node_kind`: sets the expression kind with its supplement (new/delete, throw,
/// condition) and the operation defaults (operator 120 with `op2` 21, builtin 117).
///
/// # Errors
/// [`IlError::BadKind`] for [`ExprKind::Reclaimed`], which only the free list sets.
pub fn set_expr_node_kind(il: &mut Il, expr: EntryId, k: ExprKind) -> Result<(), IlError> {
    if k == ExprKind::Reclaimed {
        return Err(IlError::BadKind("set_expr_node_kind: bad kind"));
    }
    let e = eix_of(il, expr, EntryKind::ExprNode)?;
    let mut x = il.expr_mut(e);
    x.set_expr_kind(k).set_supplement(0);
    match k {
        ExprKind::Operation => {
            x.set_op(Op::OperationDefault)
                .set_op2(OP2_OPERATION_DEFAULT);
        }
        ExprKind::BuiltinOperation => {
            x.set_op(Op::BuiltinDefault);
        }
        ExprKind::NewDelete => il.counters.expr_supplements[0] += 1,
        ExprKind::Throw => il.counters.expr_supplements[1] += 1,
        ExprKind::Condition => il.counters.expr_supplements[2] += 1,
        _ => {}
    }
    Ok(())
}

/// The `op2` byte `set_expr_node_kind` stamps on an operation (seed 001: 0x15).
pub const OP2_OPERATION_DEFAULT: u8 = 21;

/// An operation node ([`ExprKind::Operation`]) with operator `op`, type `ty` and
/// `operands`, in the current region.
pub fn alloc_operation(
    il: &mut Il,
    op: Op,
    ty: Option<EntryId>,
    operands: &[EntryId],
) -> Result<EntryId, IlError> {
    let x = il.alloc_expr_node(ExprKind::Operation)?;
    let e = il.eix(x)?;
    il.expr_mut(e).set_op(op);
    il.set_child(x, F::EXPR_NODE_TYPE, ty)?;
    for &o in operands {
        il.push_list(x, F::EXPR_NODE_OPERANDS, o)?;
    }
    Ok(x)
}

/// `set_statement_kind`: sets the statement kind with its supplement (constexpr-if, block,
/// for, try, switch, coroutine).
pub fn set_statement_kind(il: &mut Il, stmt: EntryId, k: StmtKind) -> Result<(), IlError> {
    let e = eix_of(il, stmt, EntryKind::Statement)?;
    let slot = match k {
        StmtKind::ConstexprIf => Some(0),
        StmtKind::Block => Some(1),
        StmtKind::For => Some(2),
        StmtKind::TryBlock => Some(3),
        StmtKind::Switch => Some(4),
        StmtKind::Coroutine => Some(5),
        _ => None,
    };
    let mut s = il.statement_mut(e);
    s.set_stmt_kind(k).set_supplement(slot.is_some() as u32);
    if k == StmtKind::Block {
        s.set_priority(1);
    }
    if let Some(i) = slot {
        il.counters.stmt_supplements[i] += 1;
    }
    Ok(())
}

/// `set_constant_kind`: sets the constant kind and clears the variant fields.
pub fn set_constant_kind(il: &mut Il, c: EntryId, k: ConstantKind) -> Result<(), IlError> {
    let e = eix_of(il, c, EntryKind::Constant)?;
    il.constant_mut(e)
        .set_constant_kind(k)
        .set_sub_kind(0)
        .set_value(0);
    Ok(())
}

/// `set_template_param_constant_kind`: the sub-kind of a
/// [`ConstantKind::TemplateParam`] constant.
///
/// # Errors
/// A stale `c`; a constant of another kind.
pub fn set_template_param_constant_kind(
    il: &mut Il,
    c: EntryId,
    sub: TemplateParamConstantKind,
) -> Result<(), IlError> {
    let e = eix_of(il, c, EntryKind::Constant)?;
    if il.constant(e).constant_kind() != ConstantKind::TemplateParam {
        return Err(IlError::Assert(
            "set_template_param_constant_kind: constant is not ck_template_param",
        ));
    }
    il.constant_mut(e).set_template_param_constant_kind(sub);
    Ok(())
}

/// Sets what an address constant takes the address of.
///
/// # Errors
/// A stale `c`; a constant of another kind.
pub fn set_address_constant_kind(il: &mut Il, c: EntryId, sub: AddressKind) -> Result<(), IlError> {
    let e = eix_of(il, c, EntryKind::Constant)?;
    if il.constant(e).constant_kind() != ConstantKind::Address {
        return Err(IlError::Assert(
            "set_address_constant_kind: constant is not ck_address",
        ));
    }
    il.constant_mut(e).set_address_kind(sub);
    Ok(())
}

/// `set_routine_special_kind`: the kind and cleared special data.
///
/// # Errors
/// A stale `routine`.
pub fn set_routine_special_kind(
    il: &mut Il,
    routine: EntryId,
    k: RoutineSpecialKind,
) -> Result<(), IlError> {
    let e = eix_of(il, routine, EntryKind::Routine)?;
    il.routine_mut(e).set_special_kind(k).set_special_data(0);
    Ok(())
}

/// `set_dynamic_init_kind`.
///
/// # Errors
/// A stale `init`.
pub fn set_dynamic_init_kind(
    il: &mut Il,
    init: EntryId,
    k: DynamicInitKind,
) -> Result<(), IlError> {
    let e = eix_of(il, init, EntryKind::DynamicInit)?;
    il.dynamic_init_mut(e).set_init_kind(k);
    Ok(())
}

/// `alloc_pragma`: in the region of `same_region_as` when given (file scope otherwise);
/// the kinds that carry a payload ([`PragmaKind::has_payload`]) store `payload`.
///
/// # Errors
/// Allocation errors; a stale `same_region_as`.
pub fn alloc_pragma(
    il: &mut Il,
    k: PragmaKind,
    same_region_as: Option<EntryId>,
    payload: u32,
) -> Result<EntryId, IlError> {
    let id = match same_region_as {
        Some(o) => il.alloc_same_region_as(EntryKind::Pragma, o)?,
        None => il.alloc(EntryKind::Pragma)?,
    };
    let e = il.eix(id)?;
    let mut p = il.pragma_mut(e);
    p.set_pragma_kind(k);
    if k.has_payload() {
        p.set_payload(payload);
    }
    Ok(id)
}

/// `alloc_scope`: a scope of `scope_kind`; an associated routine is only allowed on a
/// function scope (`assoc_routine is non-NULL` otherwise). The sentinel field is −1.
pub fn alloc_scope(
    il: &mut Il,
    scope_kind: ScopeKind,
    assoc_routine: Option<EntryId>,
) -> Result<EntryId, IlError> {
    if assoc_routine.is_some() && scope_kind != ScopeKind::Function {
        return Err(IlError::Assert("assoc_routine is non-NULL"));
    }
    if let Some(rt) = assoc_routine {
        if il.kind_of(rt)? != EntryKind::Routine {
            return Err(IlError::WrongTarget {
                expected: EntryKind::Routine,
                found: il.kind_of(rt)?,
            });
        }
    }
    let id = il.alloc(EntryKind::Scope)?;
    let e = il.eix(id)?;
    il.scope_mut(e).set_scope_kind(scope_kind).set_sentinel(-1);
    il.set_ref(id, F::SCOPE_ASSOC_ROUTINE, assoc_routine)?;
    Ok(id)
}

/// `alloc_gnu_supplement_for_routine`: a routine gets at most one GNU supplement.
pub fn alloc_gnu_supplement_for_routine(il: &mut Il, routine: EntryId) -> Result<(), IlError> {
    let e = eix_of(il, routine, EntryKind::Routine)?;
    if il.routine(e).gnu_supplement() != 0 {
        return Err(IlError::Assert(
            "alloc_gnu_supplement_for_routine: routine already has a GNU supplement",
        ));
    }
    il.counters.gnu_supplements += 1;
    let n = il.counters.gnu_supplements as u32;
    il.routine_mut(e).set_gnu_supplement(n);
    Ok(())
}

/// Routine declaration facts (`routine.decl_flags`), the bits device marking reads.
pub mod rf {
    /// Has a body.
    pub const BODY: u16 = 1;
    /// Part of a template pattern (dependent).
    pub const PATTERN: u16 = 2;
    /// `__global__`.
    pub const GLOBAL: u16 = 4;
    /// Explicit `__device__`.
    pub const DEVICE: u16 = 8;
    /// Explicit `__host__`.
    pub const HOST: u16 = 16;
    /// Implicitly host+device (constexpr, implicit members, lambdas).
    pub const IMPLICIT_HD: u16 = 32;
    /// always_inline / `__forceinline__`.
    pub const ALWAYS_INLINE: u16 = 64;
    /// Declared inline, or a member defined in its class, or constexpr.
    pub const INLINE: u16 = 128;
    /// storageClass static.
    pub const STATIC: u16 = 256;
    /// A member function.
    pub const MEMBER: u16 = 512;
    /// A template instantiation or specialization.
    pub const INSTANCE: u16 = 1024;
    /// Compiler-declared (`isImplicit`).
    pub const IMPLICIT: u16 = 2048;
    /// Inside an anonymous namespace or a local class.
    pub const INTERNAL: u16 = 4096;
    /// The bits with their names, in bit order (`routine_flag_words`).
    pub const NAMES: [(u16, &str); 13] = [
        (BODY, "body"),
        (PATTERN, "pattern"),
        (GLOBAL, "global"),
        (DEVICE, "device"),
        (HOST, "host"),
        (IMPLICIT_HD, "implicit_hd"),
        (ALWAYS_INLINE, "always_inline"),
        (INLINE, "inline"),
        (STATIC, "static"),
        (MEMBER, "member"),
        (INSTANCE, "instance"),
        (IMPLICIT, "implicit"),
        (INTERNAL, "internal"),
    ];
}

/// Variable declaration facts (`variable.decl_flags`), the bits device marking reads.
pub mod vf {
    /// Local to a function body.
    pub const LOCAL: u8 = 1;
    /// Inside a template pattern.
    pub const PATTERN: u8 = 2;
    /// A static data member.
    pub const STATIC_MEMBER: u8 = 4;
    /// `constexpr`.
    pub const CONSTEXPR: u8 = 8;
}
