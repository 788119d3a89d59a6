//! Keep-in-IL: roots, declaration vs definition, using-declarations, elimination.

use ilkit::il::kinds;
use ilkit::il::synth::generate;
use ilkit::il::{fields as F, EntryId, EntryKind, Flag, Il};
use ilkit::il::{AttrKind, ExprKind, ScopeKind, StmtKind, TypeKind};
use ilkit::import::binary_il::{read_il, write_il};
use ilkit::walk::display::dump_il;
use ilkit::walk::keep::{eliminate_unneeded_il_entries, mark_to_keep_in_il, trace_keep};

fn flag(il: &Il, id: EntryId, f: Flag) -> bool {
    il.flag(il.eix(id).unwrap(), f)
}

struct Tu {
    il: Il,
    kernel: EntryId,
    helper: EntryId,
    host: EntryId,
    pointee: EntryId,
    pointee_field: EntryId,
    by_value: EntryId,
    by_value_field: EntryId,
    using_decl: EntryId,
    typedef: EntryId,
}

fn routine(il: &mut Il, scope: EntryId, name: &str, device: Option<AttrKind>) -> EntryId {
    let r = il.alloc(EntryKind::Routine).unwrap();
    il.set_string(r, 0, name.as_bytes()).unwrap();
    if let Some(k) = device {
        let a = il.alloc(EntryKind::Attribute).unwrap();
        let ae = il.eix(a).unwrap();
        il.attribute_mut(ae).set_attr_kind(k);
        il.push_list(r, F::ROUTINE_ATTRIBUTES, a).unwrap();
    }
    il.push_list(scope, F::SCOPE_ROUTINES, r).unwrap();
    let body = kinds::alloc_scope(il, ScopeKind::Function, Some(r)).unwrap();
    il.set_child(r, F::ROUTINE_BODY_SCOPE, Some(body)).unwrap();
    r
}

fn class(il: &mut Il, scope: EntryId, name: &str) -> (EntryId, EntryId) {
    let t = il.alloc(EntryKind::Type).unwrap();
    il.set_string(t, 0, name.as_bytes()).unwrap();
    kinds::set_type_kind(il, t, TypeKind::Struct).unwrap();
    let f = il.alloc(EntryKind::Field).unwrap();
    il.push_list(t, F::TYPE_FIELDS, f).unwrap();
    il.push_list(scope, F::SCOPE_TYPES, t).unwrap();
    (t, f)
}

fn tu() -> Tu {
    let mut il = Il::new();
    let scope = kinds::alloc_scope(&mut il, ScopeKind::File, None).unwrap();
    il.primary_scope = Some(scope);
    let kernel = routine(&mut il, scope, "kernel", Some(AttrKind::Global));
    let helper = routine(&mut il, scope, "helper", None);
    let host = routine(&mut il, scope, "host_only", None);
    let (pointee, pointee_field) = class(&mut il, scope, "Pointee");
    let (by_value, by_value_field) = class(&mut il, scope, "ByValue");
    // kernel(Pointee* p, ByValue v) { helper(); }
    let ptr = il.alloc(EntryKind::Type).unwrap();
    kinds::set_type_kind(&mut il, ptr, TypeKind::Pointer).unwrap();
    il.set_child(ptr, F::TYPE_BASE_TYPE, Some(pointee)).unwrap();
    for t in [ptr, by_value] {
        let p = il.alloc_param_type().unwrap();
        il.set_child(p, F::PARAM_TYPE_TYPE, Some(t)).unwrap();
        il.push_list(kernel, F::ROUTINE_PARAMS, p).unwrap();
    }
    let body = il.child(kernel, F::ROUTINE_BODY_SCOPE).unwrap().unwrap();
    let block = il.alloc(EntryKind::Statement).unwrap();
    kinds::set_statement_kind(&mut il, block, StmtKind::Block).unwrap();
    il.set_child(body, F::SCOPE_BLOCK, Some(block)).unwrap();
    let call = il.alloc_expr_node(ExprKind::Routine).unwrap();
    il.set_ref(call, F::EXPR_NODE_ENTITY, Some(helper)).unwrap();
    let stmt = il.alloc(EntryKind::Statement).unwrap();
    il.set_child(stmt, F::STATEMENT_EXPR, Some(call)).unwrap();
    il.push_list(block, F::STATEMENT_STMTS, stmt).unwrap();
    // using ::helper; typedef ByValue BV;
    let using_decl = il.alloc(EntryKind::UsingDeclaration).unwrap();
    il.set_ref(using_decl, F::USING_DECLARATION_TARGET, Some(helper))
        .unwrap();
    il.push_list(scope, F::SCOPE_USING_DECLS, using_decl)
        .unwrap();
    let typedef = il.alloc(EntryKind::Type).unwrap();
    kinds::set_type_kind(&mut il, typedef, TypeKind::Typeref).unwrap();
    il.set_child(typedef, F::TYPE_BASE_TYPE, Some(by_value))
        .unwrap();
    Tu {
        il,
        kernel,
        helper,
        host,
        pointee,
        pointee_field,
        by_value,
        by_value_field,
        using_decl,
        typedef,
    }
}

#[test]
fn declarations_and_definitions() {
    let mut t = tu();
    let r = mark_to_keep_in_il(&mut t.il, &[]);
    assert_eq!(r.roots, 1);
    let il = &t.il;
    assert!(flag(il, t.kernel, Flag::KeepInIl) && flag(il, t.kernel, Flag::KeepDefinition));
    // Called, not a root: kept as a declaration; its body is not walked.
    assert!(flag(il, t.helper, Flag::KeepInIl) && !flag(il, t.helper, Flag::KeepDefinition));
    assert!(!flag(il, t.host, Flag::KeepInIl));
    // Only pointed to: a declaration, its members not kept.
    assert!(flag(il, t.pointee, Flag::KeepInIl) && !flag(il, t.pointee, Flag::KeepDefinition));
    assert!(!flag(il, t.pointee_field, Flag::KeepInIl));
    // Used by value: the whole definition.
    assert!(
        flag(il, t.by_value, Flag::KeepDefinition) && flag(il, t.by_value_field, Flag::KeepInIl)
    );
    // The fixed point picks up the using-declaration and the typedef.
    assert!(flag(il, t.using_decl, Flag::KeepInIl));
    assert!(flag(il, t.typedef, Flag::KeepInIl));
    let mut trace = Vec::new();
    trace_keep(il, &mut trace).unwrap();
    let trace = String::from_utf8(trace).unwrap();
    assert!(trace.contains("Setting keep_in_il on rout kernel\n"));
    assert!(trace.contains("Setting keep_definition_in_il on rout kernel\n"));
    assert!(trace.contains("Setting keep_in_il on rout helper\n"));
    assert!(!trace.contains("Setting keep_definition_in_il on rout helper"));
    assert!(trace.contains("Setting keep_in_il on type Pointee\n"));
}

#[test]
fn definition_after_declaration_is_walked_in_full() {
    let mut t = tu();
    // A second device routine takes Pointee by value: its definition is needed now.
    let scope = t.il.primary_scope.unwrap();
    let k2 = routine(&mut t.il, scope, "k2", Some(AttrKind::Device));
    let p = t.il.alloc_param_type().unwrap();
    t.il.set_child(p, F::PARAM_TYPE_TYPE, Some(t.pointee))
        .unwrap();
    t.il.push_list(k2, F::ROUTINE_PARAMS, p).unwrap();
    mark_to_keep_in_il(&mut t.il, &[]);
    assert!(flag(&t.il, t.pointee, Flag::KeepDefinition));
    assert!(flag(&t.il, t.pointee_field, Flag::KeepInIl));
}

#[test]
fn elimination_leaves_what_the_device_il_file_holds() {
    let mut t = tu();
    mark_to_keep_in_il(&mut t.il, &[]);
    let mut from_file = read_il(&write_il(&mut t.il, true).unwrap()).unwrap();
    let before = t.il.len();
    let rep = eliminate_unneeded_il_entries(&mut t.il);
    assert_eq!(rep.bodies_dropped, 1, "helper's body");
    assert!(rep.freed > 0 && t.il.len() == before - rep.freed);
    assert!(t.il.eix(t.host).is_err(), "host-only routine freed");
    assert_eq!(t.il.child(t.helper, F::ROUTINE_BODY_SCOPE).unwrap(), None);
    assert_eq!(
        dump_il(&mut t.il, false).unwrap(),
        dump_il(&mut from_file, false).unwrap()
    );
}

#[test]
fn elimination_on_a_generated_tu_matches_the_device_file() {
    let mut il = generate(31, 0.1);
    let r = mark_to_keep_in_il(&mut il, &[]);
    let mut from_file = read_il(&write_il(&mut il, true).unwrap()).unwrap();
    let rep = eliminate_unneeded_il_entries(&mut il);
    assert_eq!(il.len(), r.kept);
    assert!(rep.freed > 0);
    assert_eq!(
        dump_il(&mut il, false).unwrap(),
        dump_il(&mut from_file, false).unwrap()
    );
}
