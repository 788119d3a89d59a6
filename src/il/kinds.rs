//! Kind dispatchers: the sub-kind bytes of types, expressions, statements, constants,
//! routines, dynamic inits, pragmas and scopes, with the supplements each kind allocates
//! (seed 001). Each rejects an out-of-range value with the seed's message; none panics.
//!
//! Constant kinds follow the walker's numbering (seed 000): 4 complex, 5 imaginary,
//! 6 address. Seed 001's `set_constant_kind` table lists 4 as address; the walk order is
//! what users observe, so the walker's numbers win and the address sub-node goes with 6.

use super::{fields as F, Eix, EntryId, EntryKind, Il, IlError};

/// Expression kind of a reclaimed expression node on the free list (`ek_reclaimed`).
pub const EXPR_RECLAIMED: u8 = 36;
/// `tk_*` type kinds 0..=21.
pub const TYPE_KIND_NAMES: [&str; 22] = [
    "tk_error",
    "tk_void",
    "tk_integer",
    "tk_float",
    "tk_complex",
    "tk_imaginary",
    "tk_pointer",
    "tk_routine",
    "tk_array",
    "tk_class",
    "tk_struct",
    "tk_union",
    "tk_typeref",
    "tk_ptr_to_member",
    "tk_template_param",
    "tk_vector",
    "tk_scalable_vector",
    "tk_17",
    "tk_18",
    "tk_19",
    "tk_20",
    "tk_21",
];
/// Type kind numbers used by hand-written code (`type.type_kind`; names in
/// [`TYPE_KIND_NAMES`]).
pub mod tk {
    /// `tk_integer`.
    pub const INTEGER: u8 = 2;
    /// `tk_float`.
    pub const FLOAT: u8 = 3;
    /// `tk_pointer` (references too, with [`super::qual::LREF`] / [`super::qual::RREF`]).
    pub const POINTER: u8 = 6;
    /// `tk_typeref` (a typedef or alias).
    pub const TYPEREF: u8 = 12;
}

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
        if !il.is_live(t) || il.kind(t) != EntryKind::Type {
            return t;
        }
        let r = il.row(t) as usize;
        let k = il.tables.r#type.type_kind[r];
        let q = il.tables.r#type.qualifiers[r];
        let is_ref = k == tk::POINTER && q & (qual::LREF | qual::RREF) != 0;
        if k != tk::TYPEREF && !is_ref {
            return t;
        }
        match il.child_eix(t, F::TYPE_BASE_TYPE) {
            Some(b) => t = b,
            None => return t,
        }
    }
    t
}

/// `ck_*` constant kinds 0..=15 (walker numbering).
pub const CONSTANT_KIND_NAMES: [&str; 16] = [
    "ck_error",
    "ck_integer",
    "ck_string",
    "ck_float",
    "ck_complex",
    "ck_imaginary",
    "ck_address",
    "ck_ptr_to_member",
    "ck_label_difference",
    "ck_dynamic_init",
    "ck_aggregate",
    "ck_init_repeat",
    "ck_template_param",
    "ck_designator",
    "ck_void",
    "ck_reflection",
];
/// Constant kind numbers used by hand-written code.
pub mod ck {
    /// Integer.
    pub const INTEGER: u8 = 1;
    /// String literal (string_text with explicit length).
    pub const STRING: u8 = 2;
    /// Floating point.
    pub const FLOAT: u8 = 3;
    /// Address (7 sub-kinds).
    pub const ADDRESS: u8 = 6;
    /// Pointer to member.
    pub const PTR_TO_MEMBER: u8 = 7;
    /// Aggregate (list of constants).
    pub const AGGREGATE: u8 = 10;
    /// Template parameter constant (14 sub-kinds).
    pub const TEMPLATE_PARAM: u8 = 12;
}
/// Statement kind numbers used by hand-written code.
pub mod stmk {
    /// Expression statement.
    pub const EXPR: u8 = 0;
    /// if.
    pub const IF: u8 = 1;
    /// while.
    pub const WHILE: u8 = 5;
    /// return.
    pub const RETURN: u8 = 8;
    /// Block.
    pub const BLOCK: u8 = 11;
    /// for.
    pub const FOR: u8 = 13;
    /// Declaration.
    pub const DECL: u8 = 20;
}
/// Operator numbers of operation nodes (`op`): the seed's where it gives them, ilkit's
/// choice for the rest (see the `instantiate` module docs).
pub mod ops {
    /// Parentheses / identity.
    pub const PAREN: u8 = 0;
    /// Explicit cast.
    pub const CAST: u8 = 5;
    /// Negate.
    pub const NEG: u8 = 25;
    /// Remainder.
    pub const REM: u8 = 26;
    /// Bitwise and.
    pub const BITAND: u8 = 27;
    /// Bitwise complement.
    pub const COMPL: u8 = 28;
    /// Logical not.
    pub const NOT: u8 = 29;
    /// Conditional `c ? a : b`.
    pub const COND: u8 = 39;
    /// Add.
    pub const ADD: u8 = 40;
    /// Subtract.
    pub const SUB: u8 = 41;
    /// Multiply.
    pub const MUL: u8 = 42;
    /// Divide.
    pub const DIV: u8 = 43;
    /// Imaginary operators (not implemented, as in the seed).
    pub const IMAG_A: u8 = 44;
    /// Imaginary operators (not implemented, as in the seed).
    pub const IMAG_B: u8 = 45;
    /// Shift left.
    pub const SHL: u8 = 53;
    /// Shift right.
    pub const SHR: u8 = 54;
    /// `==`.
    pub const EQ: u8 = 58;
    /// `!=`.
    pub const NE: u8 = 59;
    /// `<`.
    pub const LT: u8 = 60;
    /// `>`.
    pub const GT: u8 = 61;
    /// `<=`.
    pub const LE: u8 = 62;
    /// `>=`.
    pub const GE: u8 = 63;
    /// sizeof(type operand).
    pub const SIZEOF: u8 = 71;
    /// alignof(type operand).
    pub const ALIGNOF: u8 = 72;
    /// Bitwise or.
    pub const BITOR: u8 = 87;
    /// Bitwise xor.
    pub const BITXOR: u8 = 88;
    /// Implicit conversion inserted by the usual arithmetic conversions.
    pub const IMPLICIT_CONV: u8 = 103;
    /// Type expression.
    pub const TYPE_EXPR: u8 = 116;
}
/// Expression kind numbers used by hand-written code.
pub mod enk {
    /// An operation (op code in `op`).
    pub const OPERATION: u8 = 1;
    /// A constant operand.
    pub const CONSTANT: u8 = 2;
    /// A variable reference.
    pub const VARIABLE: u8 = 3;
    /// A routine reference / call target.
    pub const ROUTINE: u8 = 19;
}

/// Names of expression kinds 0..=36 as display prints them.
pub fn expr_kind_name(k: u8) -> String {
    match k {
        0 => "enk_error".into(),
        1 => "enk_operation".into(),
        2 => "enk_constant".into(),
        6 => "enk_lambda".into(),
        7 => "enk_new_delete".into(),
        8 => "enk_throw".into(),
        9 => "enk_condition".into(),
        10 => "enk_object_lifetime".into(),
        16 => "enk_address_of_ellipsis".into(),
        19 => "enk_routine".into(),
        20 => "enk_type_operand".into(),
        21 => "enk_builtin_operation".into(),
        28 => "enk_fold_expression".into(),
        34 => "enk_const_eval_deferred".into(),
        36 => "ek_reclaimed".into(),
        k => format!("enk_{k}"),
    }
}

fn row(il: &Il, id: EntryId, kind: EntryKind) -> Result<usize, IlError> {
    let e = il.eix(id)?;
    let k = il.kind(e);
    if k != kind {
        return Err(IlError::WrongOwner {
            field_owner: kind,
            entry: k,
        });
    }
    Ok(il.row(e) as usize)
}

/// `set_type_kind`: sets the type kind (0..=21) and allocates its supplement: integer
/// (access 5), routine (a routine_type_supplement entry), class/struct/union (a class_info
/// entry with access 1 and vtable index −1), typeref, template parameter.
pub fn set_type_kind(il: &mut Il, ty: EntryId, k: u8) -> Result<(), IlError> {
    if k > 21 {
        return Err(IlError::BadKind("set_type_kind: bad type kind"));
    }
    let r = row(il, ty, EntryKind::Type)?;
    il.tables.r#type.type_kind[r] = k;
    match k {
        2 => {
            il.counters.type_supplements[0] += 1;
            il.tables.r#type.supp_access[r] = 5;
        }
        3..=5 => il.tables.r#type.format[r] = 2,
        7 => {
            il.counters.type_supplements[1] += 1;
            let s = il.alloc(EntryKind::RoutineTypeSupplement)?;
            il.set_child(ty, F::TYPE_ROUTINE_SUPPLEMENT, Some(s))?;
        }
        9..=11 => {
            il.counters.type_supplements[2] += 1;
            let s = il.alloc(EntryKind::ClassInfo)?;
            let sr = il.row(il.eix(s)?) as usize;
            il.tables.class_info.class_kind[sr] = k;
            il.tables.class_info.access[sr] = 1;
            il.tables.class_info.vtable_index[sr] = -1;
            il.set_child(ty, F::TYPE_CLASS_INFO, Some(s))?;
        }
        12 => il.counters.type_supplements[3] += 1,
        14 => il.counters.type_supplements[4] += 1,
        _ => {}
    }
    Ok(())
}

pub(crate) fn check_expr_kind(k: u8) -> Result<(), IlError> {
    if k > 35 {
        return Err(IlError::BadKind("set_expr_node_kind: bad kind"));
    }
    Ok(())
}

/// `set_expr_node_kind`: sets the expression kind (0..=35) with its supplement
/// (new/delete, throw, condition) and the operation defaults (op 120/21, builtin 117).
pub fn set_expr_node_kind(il: &mut Il, expr: EntryId, k: u8) -> Result<(), IlError> {
    check_expr_kind(k)?;
    let r = row(il, expr, EntryKind::ExprNode)?;
    let t = &mut il.tables.expr_node;
    t.expr_kind[r] = k;
    t.supplement[r] = 0;
    match k {
        1 => {
            t.op[r] = 120;
            t.op2[r] = 21;
        }
        7..=9 => il.counters.expr_supplements[(k - 7) as usize] += 1,
        21 => t.op[r] = 117,
        _ => {}
    }
    Ok(())
}

/// An operation node (expression kind 1) with operator `op` ([`ops`]), type `ty` and
/// `operands`, in the current region.
pub fn alloc_operation(
    il: &mut Il,
    op: u8,
    ty: Option<EntryId>,
    operands: &[EntryId],
) -> Result<EntryId, IlError> {
    let x = il.alloc_expr_node(enk::OPERATION)?;
    let r = row(il, x, EntryKind::ExprNode)?;
    il.tables.expr_node.op[r] = op;
    il.set_child(x, F::EXPR_NODE_TYPE, ty)?;
    for &o in operands {
        il.push_list(x, F::EXPR_NODE_OPERANDS, o)?;
    }
    Ok(x)
}

/// `set_statement_kind`: sets the statement kind (0..=25) with its supplement
/// (constexpr-if, block, for, try, switch, coroutine).
pub fn set_statement_kind(il: &mut Il, stmt: EntryId, k: u8) -> Result<(), IlError> {
    if k > 25 {
        return Err(IlError::BadKind("set_statement_kind: bad kind"));
    }
    let r = row(il, stmt, EntryKind::Statement)?;
    il.tables.statement.stmt_kind[r] = k;
    il.tables.statement.supplement[r] = 0;
    let slot = match k {
        2 => Some(0),
        11 => Some(1),
        13 => Some(2),
        19 => Some(3),
        16 => Some(4),
        9 => Some(5),
        _ => None,
    };
    if let Some(s) = slot {
        il.counters.stmt_supplements[s] += 1;
        il.tables.statement.supplement[r] = 1;
    }
    if k == 11 {
        il.tables.statement.priority[r] = 1;
    }
    Ok(())
}

pub(crate) fn check_constant_kind(k: u8) -> Result<(), IlError> {
    if k > 15 {
        return Err(IlError::BadKind("set_constant_kind: bad kind"));
    }
    Ok(())
}

/// `set_constant_kind`: sets the constant kind (0..=15) and clears the variant fields.
pub fn set_constant_kind(il: &mut Il, c: EntryId, k: u8) -> Result<(), IlError> {
    check_constant_kind(k)?;
    let r = row(il, c, EntryKind::Constant)?;
    let t = &mut il.tables.constant;
    t.constant_kind[r] = k;
    t.sub_kind[r] = 0;
    t.value[r] = 0;
    Ok(())
}

/// `set_template_param_constant_kind`: sub-kinds 0..=13, only under constant kind 12.
pub fn set_template_param_constant_kind(il: &mut Il, c: EntryId, sub: u8) -> Result<(), IlError> {
    let r = row(il, c, EntryKind::Constant)?;
    if il.tables.constant.constant_kind[r] != ck::TEMPLATE_PARAM {
        return Err(IlError::Assert(
            "set_template_param_constant_kind: constant is not ck_template_param",
        ));
    }
    if sub > 13 {
        return Err(IlError::BadKind(
            "set_template_param_constant_kind: bad kind",
        ));
    }
    il.tables.constant.sub_kind[r] = sub;
    Ok(())
}

/// Sets the address sub-kind (0..=6) of an address constant.
pub fn set_address_constant_kind(il: &mut Il, c: EntryId, sub: u8) -> Result<(), IlError> {
    let r = row(il, c, EntryKind::Constant)?;
    if il.tables.constant.constant_kind[r] != ck::ADDRESS {
        return Err(IlError::Assert(
            "set_address_constant_kind: constant is not ck_address",
        ));
    }
    if sub > 6 {
        return Err(IlError::BadKind("set_address_constant_kind: bad kind"));
    }
    il.tables.constant.sub_kind[r] = sub;
    Ok(())
}

/// `set_routine_special_kind`: 0..=7.
pub fn set_routine_special_kind(il: &mut Il, routine: EntryId, k: u8) -> Result<(), IlError> {
    if k > 7 {
        return Err(IlError::BadKind("set_routine_special_kind: bad kind"));
    }
    let r = row(il, routine, EntryKind::Routine)?;
    il.tables.routine.special_kind[r] = k;
    il.tables.routine.special_data[r] = 0;
    Ok(())
}

/// `set_dynamic_init_kind`: 0..=9.
pub fn set_dynamic_init_kind(il: &mut Il, init: EntryId, k: u8) -> Result<(), IlError> {
    if k > 9 {
        return Err(IlError::BadKind("set_dynamic_init_kind: bad kind"));
    }
    let r = row(il, init, EntryKind::DynamicInit)?;
    il.tables.dynamic_init.init_kind[r] = k;
    Ok(())
}

/// `alloc_pragma`: pragma kinds 0..=42, in the region of `same_region_as` when given
/// (file scope otherwise). Kinds 19, 21, 26, 28, 29 carry a payload.
pub fn alloc_pragma(
    il: &mut Il,
    k: u8,
    same_region_as: Option<EntryId>,
    payload: u32,
) -> Result<EntryId, IlError> {
    if k > 42 {
        return Err(IlError::BadKind("alloc_pragma: bad pragma kind"));
    }
    let id = match same_region_as {
        Some(o) => il.alloc_same_region_as(EntryKind::Pragma, o)?,
        None => il.alloc(EntryKind::Pragma)?,
    };
    let r = il.row(il.eix(id)?) as usize;
    il.tables.pragma.pragma_kind[r] = k;
    if matches!(k, 19 | 21 | 26 | 28 | 29) {
        il.tables.pragma.payload[r] = payload;
    }
    Ok(id)
}

/// Scope kind of a function body scope (`sck_function`).
pub const SCK_FUNCTION: u8 = 17;

/// `alloc_scope`: a scope of `scope_kind`; an associated routine is only allowed on a
/// function scope (`assoc_routine is non-NULL` otherwise). The sentinel field is −1.
pub fn alloc_scope(
    il: &mut Il,
    scope_kind: u8,
    assoc_routine: Option<EntryId>,
) -> Result<EntryId, IlError> {
    if assoc_routine.is_some() && scope_kind != SCK_FUNCTION {
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
    let r = il.row(il.eix(id)?) as usize;
    il.tables.scope.scope_kind[r] = scope_kind;
    il.tables.scope.sentinel[r] = -1;
    il.set_ref(id, F::SCOPE_ASSOC_ROUTINE, assoc_routine)?;
    Ok(id)
}

/// `alloc_gnu_supplement_for_routine`: a routine gets at most one GNU supplement.
pub fn alloc_gnu_supplement_for_routine(il: &mut Il, routine: EntryId) -> Result<(), IlError> {
    let r = row(il, routine, EntryKind::Routine)?;
    if il.tables.routine.gnu_supplement[r] != 0 {
        return Err(IlError::Assert(
            "alloc_gnu_supplement_for_routine: routine already has a GNU supplement",
        ));
    }
    il.counters.gnu_supplements += 1;
    il.tables.routine.gnu_supplement[r] = il.counters.gnu_supplements as u32;
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

/// Attribute kinds (`attribute.attr_kind`) that matter to device marking.
pub mod attr {
    /// `__global__`.
    pub const GLOBAL: u16 = 1;
    /// `__device__`.
    pub const DEVICE: u16 = 2;
    /// `__host__`.
    pub const HOST: u16 = 3;
    /// `__shared__`.
    pub const SHARED: u16 = 4;
    /// `__constant__`.
    pub const CONSTANT: u16 = 5;
    /// `__managed__`.
    pub const MANAGED: u16 = 6;
}
