//! The walker: order, protocol, nesting, callbacks, constant sub-kinds, deep inputs.

use ilkit::il::synth::{generate, generate_into};
use ilkit::il::{counts, kinds};
use ilkit::il::{fields as F, Eix, EntryId, EntryKind, Flag, Il};
use ilkit::il::{ConstantKind, ExprKind, ScopeKind, StorageClass, TypeKind};
use ilkit::walk::display::dump_il;
use ilkit::walk::walker::{find_parent_var_of_anon_union_type, find_var_in_nested_scopes};
use ilkit::walk::{Callbacks, Walker};

#[derive(Default)]
struct Record {
    visits: Vec<Eix>,
    strings: Vec<(Vec<u8>, u8, usize)>,
}

impl Callbacks for Record {
    const HAS_ENTRY: bool = true;
    const HAS_STRING: bool = true;
    fn entry(&mut self, _il: &mut Il, e: Eix, _k: EntryKind) -> Option<Eix> {
        self.visits.push(e);
        None
    }
    fn string(&mut self, _il: &Il, bytes: &[u8], kind: u8, len: usize) {
        self.strings.push((bytes.to_vec(), kind, len));
    }
}

fn e(il: &Il, id: EntryId) -> Eix {
    il.eix(id).unwrap()
}

#[test]
fn phases_run_in_the_seeds_order() {
    let mut il = Il::new();
    let scope = kinds::alloc_scope(&mut il, ScopeKind::File, None).unwrap();
    il.primary_scope = Some(scope);
    let file = il.alloc(EntryKind::SourceFileEntry).unwrap();
    il.set_string(file, 0, b"a.cu").unwrap();
    il.compiler_version = Some(b"v1".to_vec());
    // Not reachable from the scope: visited in phase 5 by kind, 61 before 59.
    let tdecl = il.alloc(EntryKind::TemplateDecl).unwrap();
    let tparam = il.alloc(EntryKind::TemplateParam).unwrap();
    let lone_type = il.alloc(EntryKind::Type).unwrap();
    let lone_routine = il.alloc(EntryKind::Routine).unwrap();
    let orphan = il.alloc(EntryKind::OrphanedEntities).unwrap();
    let seq = il.alloc(EntryKind::SeqNumberLookup).unwrap();
    let ext = il.alloc(EntryKind::Type).unwrap();
    il.add_external_type(ext).unwrap();
    let mut r = Record::default();
    Walker::new()
        .walk_file_scope_il(&mut il, &mut r, 0)
        .unwrap();
    let order: Vec<Eix> = r.visits.clone();
    let pos = |id| order.iter().position(|&x| x == e(&il, id)).unwrap();
    assert_eq!(order[0], e(&il, scope), "phase 1: the primary scope");
    assert_eq!(order[1], e(&il, file), "phase 2: source files");
    assert!(pos(orphan) < pos(lone_type), "phase 4 before phase 5");
    assert!(pos(lone_type) < pos(lone_routine), "kind 6 before kind 11");
    assert!(pos(tparam) < pos(tdecl), "61 before 59");
    assert!(pos(tdecl) < pos(seq), "phase 6 after phase 5");
    // The external type was already visited in phase 5: visited once only.
    assert_eq!(order.iter().filter(|&&x| x == e(&il, ext)).count(), 1);
    assert_eq!(order.len(), il.len());
    // Strings: the file name (other text, strlen+1), then the compiler version.
    assert_eq!(r.strings[0], (b"a.cu".to_vec(), 26, 5));
    assert_eq!(r.strings[1], (b"v1".to_vec(), 26, 3));
}

#[test]
fn a_full_walk_visits_every_entry_once_and_consecutive_walks_need_no_clearing() {
    let mut il = generate(5, 0.1);
    let mut w = Walker::new();
    for _ in 0..3 {
        let mut r = Record::default();
        w.walk_file_scope_il(&mut il, &mut r, 0).unwrap();
        let mut v = r.visits.clone();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), r.visits.len(), "no entry twice");
        assert_eq!(v.len(), il.len(), "every entry");
    }
}

#[test]
fn children_are_walked_depth_first_in_slot_then_list_order() {
    let mut il = Il::new();
    let fr = il.open_function_region(None);
    let _ = fr;
    let a = il.alloc_expr_node(ExprKind::Operation).unwrap();
    let b = il.alloc_expr_node(ExprKind::Operation).unwrap();
    let c = il.alloc_expr_node(ExprKind::Constant).unwrap();
    let d = il.alloc_expr_node(ExprKind::Constant).unwrap();
    let t = il.alloc(EntryKind::Type).unwrap();
    il.set_child(a, F::EXPR_NODE_TYPE, Some(t)).unwrap();
    il.push_list(a, F::EXPR_NODE_OPERANDS, b).unwrap();
    il.push_list(a, F::EXPR_NODE_OPERANDS, d).unwrap();
    il.push_list(b, F::EXPR_NODE_OPERANDS, c).unwrap();
    let mut r = Record::default();
    let root_eix = e(&il, a);

    Walker::new()
        .walk_entry_and_subtree(&mut il, &mut r, root_eix)
        .unwrap();
    let want: Vec<Eix> = [a, t, b, c, d].iter().map(|&x| e(&il, x)).collect();
    assert_eq!(r.visits, want);
}

struct NestedCounter {
    outer: usize,
    inner_total: usize,
}

impl Callbacks for NestedCounter {
    const HAS_ENTRY: bool = true;
    fn entry(&mut self, il: &mut Il, e: Eix, k: EntryKind) -> Option<Eix> {
        self.outer += 1;
        if k == EntryKind::Routine {
            let mut inner = Record::default();
            let id = il.id_of(e);
            Walker::new()
                .walk_routine_scope_il(il, &mut inner, id)
                .unwrap();
            // Routine-scope walks skip file-scope entries.
            assert!(inner.visits.iter().all(|&x| !il.flag(x, Flag::FileScope)));
            self.inner_total += inner.visits.len();
        }
        None
    }
}

#[test]
fn nested_walks_leave_the_outer_walk_unchanged() {
    let mut il = generate(9, 0.05);
    let mut plain = Record::default();
    Walker::new()
        .walk_file_scope_il(&mut il, &mut plain, 0)
        .unwrap();
    let mut nested = NestedCounter {
        outer: 0,
        inner_total: 0,
    };
    Walker::new()
        .walk_file_scope_il(&mut il, &mut nested, 0)
        .unwrap();
    assert_eq!(nested.outer, plain.visits.len());
    assert!(nested.inner_total > 0);
}

struct SkipRoutines(usize);
impl Callbacks for SkipRoutines {
    const HAS_PRE_WALK: bool = true;
    const HAS_ENTRY: bool = true;
    fn pre_walk_check(&mut self, il: &mut Il, e: Eix, k: EntryKind) -> bool {
        // Mark visited entries ourselves, like the keep-in-IL prune callback.
        if k == EntryKind::Routine || il.flag(e, Flag::KeepDefinition) {
            return true;
        }
        il.set_flag(e, Flag::KeepDefinition, true);
        false
    }
    fn entry(&mut self, _il: &mut Il, _e: Eix, _k: EntryKind) -> Option<Eix> {
        self.0 += 1;
        None
    }
}

#[test]
fn pre_walk_check_skips_subtrees() {
    let mut il = generate(2, 0.05);
    let mut s = SkipRoutines(0);
    Walker::new()
        .walk_file_scope_il(&mut il, &mut s, 0)
        .unwrap();
    let routines = il.kind_list(EntryKind::Routine).count();
    assert!(s.0 > 0 && s.0 < il.len() - routines);
    assert!(il
        .kind_list(EntryKind::Routine)
        .all(|r| !il.flag(r, Flag::KeepDefinition)));
}

struct ReplaceType {
    from: Eix,
    to: Eix,
}
impl Callbacks for ReplaceType {
    const HAS_REPLACE: bool = true;
    fn entry_replace(&mut self, _il: &mut Il, e: Eix, _k: EntryKind) -> Eix {
        if e == self.from {
            self.to
        } else {
            e
        }
    }
}

struct DropAttributes;
impl Callbacks for DropAttributes {
    const HAS_FILTER: bool = true;
    fn entry_filter(&mut self, _il: &mut Il, e: Eix, k: EntryKind) -> Option<Eix> {
        (k != EntryKind::Attribute).then_some(e)
    }
}

#[test]
fn entry_replace_remaps_and_entry_filter_removes() {
    let mut il = Il::new();
    let scope = kinds::alloc_scope(&mut il, ScopeKind::File, None).unwrap();
    il.primary_scope = Some(scope);
    let v = il.alloc_variable(StorageClass::Extern).unwrap();
    let t1 = il.alloc(EntryKind::Type).unwrap();
    let t2 = il.alloc(EntryKind::Type).unwrap();
    let a = il.alloc(EntryKind::Attribute).unwrap();
    il.set_child(v, F::VARIABLE_TYPE, Some(t1)).unwrap();
    il.push_list(v, F::VARIABLE_ATTRIBUTES, a).unwrap();
    il.push_list(scope, F::SCOPE_VARIABLES, v).unwrap();
    let mut rep = ReplaceType {
        from: e(&il, t1),
        to: e(&il, t2),
    };
    Walker::new()
        .walk_file_scope_il(&mut il, &mut rep, 0)
        .unwrap();
    assert_eq!(il.child(v, F::VARIABLE_TYPE).unwrap(), Some(t2));
    Walker::new()
        .walk_file_scope_il(&mut il, &mut DropAttributes, 0)
        .unwrap();
    assert!(il.list(v, F::VARIABLE_ATTRIBUTES).unwrap().is_empty());
}

fn constant(il: &mut Il, k: ConstantKind, sub: u8, operand: Option<EntryId>) -> EntryId {
    let c = il.alloc(EntryKind::Constant).unwrap();
    kinds::set_constant_kind(il, c, k).unwrap();
    let e = il.eix(c).unwrap();
    il.constant_mut(e).set_sub_kind(sub);
    il.set_child(c, F::CONSTANT_OPERAND, operand).unwrap();
    c
}

#[test]
fn constant_sub_switch_descends_remaps_or_fails_with_the_seeds_messages() {
    use ConstantKind as C;
    for k in ConstantKind::ALL {
        for sub in 0..=counts::TEMPLATE_PARAM_CONSTANT_KINDS {
            let mut il = Il::new();
            let target = il.alloc(EntryKind::Constant).unwrap();
            let c = constant(&mut il, k, sub, Some(target));
            let mut r = Record::default();
            let root_eix = e(&il, c);

            let res = Walker::new().walk_entry_and_subtree(&mut il, &mut r, root_eix);
            let visited_operand = r.visits.contains(&e(&il, target));
            match (k, sub) {
                (ConstantKind::Address, s) if s >= counts::ADDRESS_CONSTANT_KINDS => {
                    assert_eq!(
                        res.unwrap_err().message,
                        "walk_entry_and_subtree: bad address const kind"
                    )
                }
                (ConstantKind::TemplateParam, s) if s >= counts::TEMPLATE_PARAM_CONSTANT_KINDS => {
                    assert_eq!(
                        res.unwrap_err().message,
                        "walk_entry_and_subtree: bad template param constant kind"
                    )
                }
                (ConstantKind::Address, 0 | 1 | 4 | 6) | (ConstantKind::PtrToMember, _) => {
                    res.unwrap();
                    assert!(!visited_operand, "remapped, not descended: {k} sub {sub}");
                }
                (
                    C::Error
                    | C::Integer
                    | C::String
                    | C::Float
                    | C::Imaginary
                    | C::Aggregate
                    | C::Void,
                    _,
                ) => {
                    res.unwrap();
                    assert!(!visited_operand, "leaf constant {k}");
                }
                _ => {
                    res.unwrap();
                    assert!(visited_operand, "descended: {k} sub {sub}");
                }
            }
        }
    }
    // A constant kind past ck_reflection cannot be stored: the column holds a
    // `ConstantKind` and the binary IL reader rejects such a byte.
}

#[test]
fn string_text_uses_its_own_length_and_mode_flags_strip_template_info() {
    let mut il = Il::new();
    let c = constant(&mut il, ConstantKind::String, 0, None);
    il.set_string(c, 0, b"a\0b").unwrap();
    let info = il.alloc(EntryKind::TemplateInfo).unwrap();
    il.set_child(c, F::CONSTANT_TEMPLATE_INFO, Some(info))
        .unwrap();
    let mut r = Record::default();
    let root_eix = e(&il, c);

    Walker::new()
        .walk_entry_and_subtree(&mut il, &mut r, root_eix)
        .unwrap();
    assert_eq!(r.strings, vec![(b"a\0b".to_vec(), 25, 3)]);
    assert!(r.visits.contains(&e(&il, info)));
    // A nonzero mode strips the template info.
    let scope = kinds::alloc_scope(&mut il, ScopeKind::File, None).unwrap();
    il.primary_scope = Some(scope);
    Walker::new()
        .walk_file_scope_il(&mut il, &mut Record::default(), 1)
        .unwrap();
    assert_eq!(il.child(c, F::CONSTANT_TEMPLATE_INFO).unwrap(), None);
}

#[test]
fn secondary_il_needs_a_pre_walk_check() {
    let mut il = Il::new();
    il.secondary_mode = true;
    let scope = kinds::alloc_scope(&mut il, ScopeKind::File, None).unwrap();
    il.primary_scope = Some(scope);
    let err = Walker::new()
        .walk_file_scope_il(&mut il, &mut Record::default(), 0)
        .unwrap_err();
    assert!(err.message.contains("il_walk.c:270"));
    let mut s = SkipRoutines(0);
    Walker::new()
        .walk_file_scope_il(&mut il, &mut s, 0)
        .unwrap();
}

#[test]
fn a_million_deep_expression_chain_walks_without_overflow() {
    let mut il = Il::new();
    il.open_function_region(None);
    let root = il.alloc_expr_node(ExprKind::Operation).unwrap();
    let mut prev = root;
    for _ in 0..1_000_000 {
        let n = il.alloc_expr_node(ExprKind::Operation).unwrap();
        il.push_list(prev, F::EXPR_NODE_OPERANDS, n).unwrap();
        prev = n;
    }
    struct Count(usize, usize);
    impl Callbacks for Count {
        const HAS_ENTRY: bool = true;
        fn entry(&mut self, _: &mut Il, _: Eix, _: EntryKind) -> Option<Eix> {
            self.0 += 1;
            None
        }
    }
    let mut c = Count(0, 0);
    let root_eix = e(&il, root);

    Walker::new()
        .walk_entry_and_subtree(&mut il, &mut c, root_eix)
        .unwrap();
    assert_eq!(c.0, 1_000_001);
    let _ = c.1;
    let root_eix = e(&il, root);
    let marked = ilkit::walk::keep::mark_from(&mut il, vec![root_eix]);
    assert_eq!(marked, 1_000_001);
}

#[test]
fn trace_prints_entry_and_string_kinds_above_verbosity_four() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut il = Il::new();
    let scope = kinds::alloc_scope(&mut il, ScopeKind::File, None).unwrap();
    il.primary_scope = Some(scope);
    let v = il.alloc_variable(StorageClass::Extern).unwrap();
    il.set_string(v, 0, b"x").unwrap();
    il.push_list(scope, F::SCOPE_VARIABLES, v).unwrap();
    let buf = Buf::default();
    let mut w = Walker::with_trace(5, Box::new(buf.clone()));
    w.walk_file_scope_il(&mut il, &mut Record::default(), 0)
        .unwrap();
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("Walking IL tree, entry kind = scope\n"));
    assert!(text.contains("Walking IL tree, entry kind = variable\n"));
    assert!(text.contains("Walking IL tree, string entry kind = id name\n"));
    let quiet = Buf::default();
    let mut w = Walker::with_trace(4, Box::new(quiet.clone()));
    w.walk_file_scope_il(&mut il, &mut Record::default(), 0)
        .unwrap();
    assert!(quiet.0.lock().unwrap().is_empty());
}

#[test]
fn dump_il_is_deterministic_and_names_every_entry() {
    let mut a = generate(3, 0.02);
    let mut b = generate(3, 0.02);
    let da = dump_il(&mut a, false).unwrap();
    assert_eq!(da, dump_il(&mut b, false).unwrap());
    assert_eq!(da.lines().filter(|l| l.starts_with("[#")).count(), a.len());
    assert!(da.contains("] routine (file scope)"));
    assert!(da.contains("] expr_node (function region)"));
}

#[test]
fn find_helpers() {
    let mut il = Il::new();
    let s = generate_into(&mut il, 4, 0.02).unwrap();
    let scope = il.primary_scope.unwrap();
    assert!(find_var_in_nested_scopes(&il, scope, b"g0_1").is_some());
    assert!(find_var_in_nested_scopes(&il, scope, b"nope").is_none());
    let u = il.alloc(EntryKind::Type).unwrap();
    kinds::set_type_kind(&mut il, u, TypeKind::Union).unwrap();
    let err = find_parent_var_of_anon_union_type(&il, scope, u).unwrap_err();
    assert_eq!(
        err.message,
        "find_parent_var_of_anon_union_type: var not found"
    );
    let v = il.alloc_variable(StorageClass::Extern).unwrap();
    il.set_child(v, F::VARIABLE_TYPE, Some(u)).unwrap();
    il.push_list(scope, F::SCOPE_VARIABLES, v).unwrap();
    assert_eq!(
        find_parent_var_of_anon_union_type(&il, scope, u).unwrap(),
        v
    );
    let _ = s;
}

#[test]
fn relayout_keeps_the_il_and_its_walk_order() {
    let mut il = generate(21, 0.05);
    let mut order: Vec<Eix> = il.entries().collect();
    order.reverse();
    let (mut moved, map) = il.relayout(&order);
    assert_eq!(moved.len(), il.len());
    assert_eq!(
        dump_il(&mut moved, false).unwrap(),
        dump_il(&mut il, false).unwrap()
    );
    let first = il.entries().next().unwrap();
    assert_eq!(il.kind(first), moved.kind(map[first.idx()]));
}

#[test]
fn copying_a_routine_gives_an_equal_subtree_sharing_types() {
    use ilkit::walk::copy::{copy_subtree, share_file_scope_types};
    use ilkit::walk::display::dump_subtree;
    let mut il = Il::new();
    let s = generate_into(&mut il, 8, 0.02).unwrap();
    let rt = s.routines[3];
    let before = il.len();
    let (copy, rep) = copy_subtree(&mut il, rt, &share_file_scope_types).unwrap();
    assert_ne!(copy, rt);
    assert_eq!(il.len(), before + rep.copied);
    assert_eq!(rep.regions, 1, "the body goes to a fresh function region");
    let (a, b) = (e(&il, rt), e(&il, copy));
    assert_eq!(
        dump_subtree(&mut il, b).unwrap(),
        dump_subtree(&mut il, a).unwrap()
    );
    // Shared: the return type is the same entry; owned: the body scope is a new one.
    assert_eq!(
        il.child(copy, F::ROUTINE_RETURN_TYPE).unwrap(),
        il.child(rt, F::ROUTINE_RETURN_TYPE).unwrap()
    );
    assert_ne!(
        il.child(copy, F::ROUTINE_BODY_SCOPE).unwrap(),
        il.child(rt, F::ROUTINE_BODY_SCOPE).unwrap()
    );
}

#[test]
fn copying_a_cycle_terminates_and_closes_the_cycle_on_the_copy() {
    use ilkit::walk::copy::copy_subtree;
    let mut il = Il::new();
    il.open_function_region(None);
    let a = il.alloc_expr_node(ExprKind::Operation).unwrap();
    let b = il.alloc_expr_node(ExprKind::Operation).unwrap();
    il.push_list(a, F::EXPR_NODE_OPERANDS, b).unwrap();
    il.push_list(b, F::EXPR_NODE_OPERANDS, a).unwrap();
    il.push_list(a, F::EXPR_NODE_OPERANDS, b).unwrap(); // shared twice
    let (ca, rep) = copy_subtree(&mut il, a, &|_, _| false).unwrap();
    assert_eq!(rep.copied, 2);
    let ops = il.list(ca, F::EXPR_NODE_OPERANDS).unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0], ops[1], "the shared child was copied once");
    assert_ne!(ops[0], b);
    assert_eq!(
        il.list(ops[0], F::EXPR_NODE_OPERANDS).unwrap(),
        vec![ca],
        "the cycle closes on the copy"
    );
}
