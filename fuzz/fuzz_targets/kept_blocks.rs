//! Kept block proofs under edits: a world with two large bottom-up trees (the shape whose
//! copies the world keeps a proof for), then an edit script read from the input — copies,
//! edits of the trees' entries, of the leaf constants they copy and of other entries,
//! region closes, compactions. Every copy (into a fresh region, the previous copy freed)
//! is made twice, on the world and on a clone of
//! it copied without the fast path (so without kept proofs): the two worlds must print
//! the same (capacities aside) and verify.
#![no_main]

use ilkit::il::{fields as F, Eix, ExprKind, Il, Op, RegionIdx};
use ilkit::share::copy::DeepCopy;
use libfuzzer_sys::fuzz_target;

struct World {
    il: Il,
    roots: [Eix; 2],
    low: u32,
    n: u32,
    consts: Vec<Eix>,
    outside: Eix,
    region: RegionIdx,
}

fn world() -> World {
    let mut il = Il::new();
    let outside = il
        .push_expr(ExprKind::Variable, Op::Paren, Eix::NONE, &[])
        .unwrap();
    let consts: Vec<Eix> = (0..3)
        .map(|_| {
            let c = il.alloc(ilkit::il::EntryKind::Constant).unwrap();
            il.eix(c).unwrap()
        })
        .collect();
    let low = outside.raw() + 1 + consts.len() as u32;
    let mut roots = [Eix::NONE; 2];
    for (t, root) in roots.iter_mut().enumerate() {
        let mut level = Vec::new();
        for i in 0..130 + 20 * t {
            let k = if i % 3 == 1 {
                ExprKind::Variable
            } else {
                ExprKind::Constant
            };
            let x = il.push_expr(k, Op::Paren, Eix::NONE, &[]).unwrap();
            if k == ExprKind::Constant {
                il.set_child_eix(x, F::EXPR_NODE_CONSTANT, consts[i % consts.len()])
                    .unwrap();
            }
            level.push(x);
        }
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| match p {
                    [_, _] => il.push_expr(ExprKind::Operation, Op::Add, Eix::NONE, p).unwrap(),
                    _ => p[0],
                })
                .collect();
        }
        *root = level[0];
    }
    let n = roots[1].raw() + 1 - low;
    let region = il.open_function_region(None);
    World {
        il,
        roots,
        low,
        n,
        consts,
        outside,
        region,
    }
}

/// The world as `Debug` prints it, without the columns' capacities (the fast path grows
/// a column once for a batch, the general path as it goes).
fn content(il: &Il) -> String {
    format!("{il:#?}")
        .lines()
        .filter(|l| !l.trim_start().starts_with("cap:"))
        .collect::<Vec<_>>()
        .join("\n")
}

fuzz_target!(|data: &[u8]| {
    let mut w = world();
    let kinds: Vec<ExprKind> = ExprKind::ALL
        .into_iter()
        .filter(|&k| k != ExprKind::Reclaimed)
        .collect();
    for step in data.chunks(3).take(32) {
        let (op, a, b) = (step[0], *step.get(1).unwrap_or(&0), *step.get(2).unwrap_or(&0));
        let x = Eix::from_raw(w.low + (u32::from(a) << 8 | u32::from(b)) % w.n);
        let c = w.consts[b as usize % w.consts.len()];
        let il = &mut w.il;
        match op % 10 {
            0..=2 => {
                // Into a fresh region (the last copy's freed first, so its slots are
                // reused and the world stays small).
                il.close_function_region(w.region).unwrap();
                w.region = il.open_function_region(None);
                let src = w.roots[a as usize % 2];
                let mut general = il.clone();
                let fast = DeepCopy::new(0, w.region).copy_eix(il, src);
                let slow = DeepCopy::new(0, w.region)
                    .without_fast_path()
                    .copy_eix(&mut general, src);
                assert_eq!(fast.is_ok(), slow.is_ok());
                assert!(content(il) == content(&general), "the worlds differ");
            }
            3 => {
                let _ = il.set_child_eix(x, F::EXPR_NODE_CONSTANT, c);
            }
            4 => {
                let target = Eix::from_raw(w.low + u32::from(b) % w.n);
                let _ = il.set_ref_eix(x, F::EXPR_NODE_ENTITY, target);
            }
            5 => {
                il.expr_mut(x).set_expr_kind(kinds[b as usize % kinds.len()]);
            }
            6 => {
                let _ = il.push_list_field_eix(x, F::EXPR_NODE_OPERANDS, w.outside);
            }
            7 => {
                let _ = il.push_list_field_eix(w.outside, F::EXPR_NODE_OPERANDS, x);
                if b % 2 == 0 {
                    il.compact_edges();
                } else {
                    il.compact_edges_in_place();
                }
            }
            8 => {
                il.constant_mut(c).set_value(i64::from(b));
            }
            _ => {
                il.close_function_region(w.region).unwrap();
                w.region = il.open_function_region(None);
            }
        }
        assert!(w.il.verify().is_empty(), "{:?}", w.il.verify());
    }
});
