//! `Il::verify` after every kind of mutation, and a property test of random operation
//! sequences against a plain model.

use ilkit::il::kinds;
use ilkit::il::synth::generate;
use ilkit::il::{fields as F, EntryId, EntryKind, Il, RegionIdx};
use ilkit::il::{ExprKind, StorageClass, TypeKind};
use ilkit::import::binary_il::{read_il, write_il};
use ilkit::walk::copy::{copy_subtree, share_file_scope_types};
use ilkit::walk::keep::{eliminate_unneeded_il_entries, mark_to_keep_in_il};
use proptest::prelude::*;

fn clean(il: &Il, what: &str) {
    let errs = il.verify();
    assert!(errs.is_empty(), "{what}: {:?}", &errs[..errs.len().min(5)]);
}

#[test]
fn every_pipeline_stage_keeps_the_world_valid() {
    let mut il = generate(17, 0.1);
    clean(&il, "generated");
    let back = read_il(&write_il(&mut il, false).unwrap()).unwrap();
    clean(&back, "read back");
    let order: Vec<_> = il.entries().collect::<Vec<_>>().into_iter().rev().collect();
    clean(&il.relayout(&order).0, "relayout");
    let r = il.kind_list(EntryKind::Routine).next().unwrap();
    let id = il.id_of(r);
    copy_subtree(&mut il, id, &share_file_scope_types).unwrap();
    clean(&il, "after copy");
    mark_to_keep_in_il(&mut il, &[]);
    eliminate_unneeded_il_entries(&mut il);
    clean(&il, "after elimination");
}

#[test]
fn verify_reports_a_dangling_edge() {
    let mut il = Il::new();
    let v = il.alloc_variable(StorageClass::Extern).unwrap();
    let fr = il.open_function_region(None);
    let t = il.alloc(EntryKind::Statement).unwrap();
    let s = il.alloc(EntryKind::Statement).unwrap();
    il.push_list(s, F::STATEMENT_STMTS, t).unwrap();
    let e = il.alloc_expr_node(ExprKind::Operation).unwrap();
    il.set_child(v, F::VARIABLE_INITIALIZER, Some(e)).unwrap(); // file scope -> function region
    il.close_function_region(fr).unwrap();
    let errs = il.verify();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].0.contains("initializer: dangling edge"), "{errs:?}");
}

#[derive(Clone, Debug)]
enum Op {
    Alloc(u8),
    OpenRegion,
    CloseRegion,
    PushOperand(usize, usize),
    SetType(usize, usize),
    FreeExpr(usize),
    RecycleExpr,
    SetKeep(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..4).prop_map(Op::Alloc),
        1 => Just(Op::OpenRegion),
        1 => Just(Op::CloseRegion),
        4 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::PushOperand(a, b)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::SetType(a, b)),
        1 => any::<usize>().prop_map(Op::FreeExpr),
        1 => Just(Op::RecycleExpr),
        1 => any::<usize>().prop_map(Op::SetKeep),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn random_operation_sequences_keep_the_world_valid(ops in proptest::collection::vec(op(), 1..120)) {
        let mut il = Il::new();
        let mut exprs: Vec<EntryId> = vec![];
        let mut types: Vec<EntryId> = vec![];
        let mut region: Option<RegionIdx> = None;
        let mut freed: Vec<EntryId> = vec![];
        for op in ops {
            match op {
                Op::Alloc(k) => match k {
                    0 | 1 => {
                        exprs.push(il.alloc_expr_node(ExprKind::ALL[k as usize]).unwrap());
                        exprs.retain(|&x| il.eix(x).is_ok()); // a recycled node's old handle is stale
                    }
                    2 => types.push(il.alloc(EntryKind::Type).unwrap()),
                    _ => {
                        let t = il.alloc(EntryKind::Type).unwrap();
                        kinds::set_type_kind(&mut il, t, TypeKind::Struct).unwrap();
                        types.push(t);
                    }
                },
                Op::OpenRegion => {
                    if region.is_none() {
                        region = Some(il.open_function_region(None));
                    }
                }
                Op::CloseRegion => {
                    if let Some(r) = region.take() {
                        // Entries of the region die; drop edges into them first, as a
                        // front end drops a body's references when it ends.
                        let doomed: Vec<EntryId> = exprs.iter().copied().filter(|&x| il.eix(x).is_ok_and(|e| il.region_of(e) == r)).collect();
                        for &x in &exprs {
                            if let Ok(e) = il.eix(x) {
                                if il.region_of(e) != r {
                                    let keep: Vec<_> = doomed.iter().filter_map(|&d| il.eix(d).ok()).collect();
                                    il.retain_list(e, F::EXPR_NODE_OPERANDS, |c| !keep.contains(&c));
                                }
                            }
                        }
                        il.close_function_region(r).unwrap();
                        for d in doomed {
                            prop_assert!(il.eix(d).is_err());
                            freed.push(d);
                        }
                        exprs.retain(|&x| il.eix(x).is_ok());
                        il.clear_free_lists();
                    }
                }
                Op::PushOperand(a, b) => {
                    if !exprs.is_empty() {
                        let (p, c) = (exprs[a % exprs.len()], exprs[b % exprs.len()]);
                        let (pe, ce) = (il.eix(p).unwrap(), il.eix(c).unwrap());
                        // Never point out of a function region into another one.
                        if il.region_of(pe) == il.region_of(ce) {
                            il.push_list(p, F::EXPR_NODE_OPERANDS, c).unwrap();
                        }
                    }
                }
                Op::SetType(a, b) => {
                    if !exprs.is_empty() && !types.is_empty() {
                        il.set_child(exprs[a % exprs.len()], F::EXPR_NODE_TYPE, Some(types[b % types.len()])).unwrap();
                    }
                }
                Op::FreeExpr(a) => {
                    if !exprs.is_empty() {
                        // The caller gives the handle up (freeing twice is a caller bug).
                        let x = exprs.swap_remove(a % exprs.len());
                        il.free_expr_node(x).unwrap();
                    }
                }
                Op::RecycleExpr => {
                    let before: Vec<EntryId> = exprs.clone();
                    let n = il.alloc_expr_node(ExprKind::Constant).unwrap();
                    // A recycled node's old handle goes stale; edges to it now name the
                    // new node, as in the seed.
                    exprs.retain(|&x| il.eix(x).is_ok());
                    prop_assert!(exprs.len() <= before.len());
                    exprs.push(n);
                }
                Op::SetKeep(a) => {
                    if !exprs.is_empty() {
                        let e = il.eix(exprs[a % exprs.len()]).unwrap();
                        il.set_flag(e, ilkit::il::Flag::KeepInIl, true);
                    }
                }
            }
            let errs = il.verify();
            prop_assert!(errs.is_empty(), "{:?}", errs);
            for &f in &freed {
                prop_assert!(il.eix(f).is_err(), "a freed id resolved");
            }
        }
    }
}
