//! The columnar body's edits, and every body's invariants after a real inlining run.

use super::simplify::simplify;
use crate::cgscc::{CgsccModule, InlineParams, NoInstrumentation, Options, PassManager};
use crate::idx::BlockIdx;
use crate::import::llvm_ir::ParseOptions;
use crate::llvm::ir::body::{Body, Head, RowIdx, V};
use crate::llvm::ir::Opcode;
use crate::llvm::types::TypeIdx;
use crate::llvm::{FuncIdx, Module};

fn add(b: &mut Body, x: V, y: V) -> RowIdx {
    let t = TypeIdx::NONE;
    b.push(Head::new(Opcode::Add, t), [(x, t), (y, t)], None)
}

/// Every slot naming `row`, found by scanning the whole pool through the rows.
fn users(b: &Body, row: RowIdx) -> Vec<(RowIdx, usize)> {
    b.rows_from(RowIdx::new(0))
        .flat_map(|i| {
            b.ops(i)
                .iter()
                .enumerate()
                .filter(move |(_, &v)| v == V::Inst(row))
                .map(move |(k, _)| (i, k))
        })
        .collect()
}

#[test]
fn edits_keep_use_chains_exact() {
    let mut b = Body::default();
    let a = add(&mut b, V::Arg(0), V::Int(1));
    let c = add(&mut b, V::Inst(a), V::Inst(a));
    let d = add(&mut b, V::Inst(c), V::Inst(a));
    b.verify().unwrap();
    assert_eq!(users(&b, a), [(c, 0), (c, 1), (d, 1)]);
    // a row that simplified away leaves no trace
    let e = add(&mut b, V::Inst(d), V::Int(0));
    b.pop();
    assert_eq!(b.next_row(), e);
    b.verify().unwrap();
    // a rewritten operand joins its new value's chain
    b.set_operand(d, 0, V::Inst(a));
    b.verify().unwrap();
    assert_eq!(users(&b, a).len(), 4);
    assert!(users(&b, c).is_empty());
    // replacing `a` everywhere reaches the slot written after the chain began
    b.replace_uses(a, V::Int(7));
    assert!(users(&b, a).is_empty());
    assert_eq!(b.ops(d), [V::Int(7), V::Int(7)]);
    b.verify().unwrap();
    // a phi losing an incoming pair keeps its remaining uses on their chains
    let t = TypeIdx::NONE;
    let p = b.push(
        Head::new(Opcode::Phi, t),
        [
            (V::Inst(c), t),
            (V::Block(BlockIdx::new(0)), t),
            (V::Inst(d), t),
            (V::Block(BlockIdx::new(1)), t),
        ],
        None,
    );
    b.remove_operand_pair(p, 0);
    b.verify().unwrap();
    assert_eq!(b.ops(p), [V::Inst(d), V::Block(BlockIdx::new(1))]);
    b.replace_uses(d, V::Inst(c));
    assert_eq!(b.ops(p), [V::Inst(c), V::Block(BlockIdx::new(1))]);
    assert_eq!(users(&b, c), [(p, 0)]);
    b.verify().unwrap();
}

#[test]
fn cast_pairs_give_back_the_first_casts_operand() {
    let mut types = crate::llvm::types::Types::default();
    let (i32_, i64_) = (types.int(32), types.int(64));
    let mut b = Body::default();
    let cast = |op, ty| Head::new(op, ty);
    let w = b.push(cast(Opcode::SExt, i64_), [(V::Arg(0), i32_)], None);
    let t = b.push(cast(Opcode::Trunc, i32_), [(V::Inst(w), i64_)], None);
    assert_eq!(simplify(&types, &b, t), Some(V::Arg(0)));
    // a trunc to another width is not a pair
    let i16_ = types.int(16);
    let t16 = b.push(cast(Opcode::Trunc, i16_), [(V::Inst(w), i64_)], None);
    assert_eq!(simplify(&types, &b, t16), None);
    // ptrtoint (inttoptr x) through i64 is x; through i32 it is not
    let p = types.ptr(i32_, 0);
    let ip = b.push(cast(Opcode::IntToPtr, p), [(V::Arg(1), i64_)], None);
    let pi = b.push(cast(Opcode::PtrToInt, i64_), [(V::Inst(ip), p)], None);
    assert_eq!(simplify(&types, &b, pi), Some(V::Arg(1)));
    let ip32 = b.push(cast(Opcode::IntToPtr, p), [(V::Arg(2), i32_)], None);
    let pi32 = b.push(cast(Opcode::PtrToInt, i32_), [(V::Inst(ip32), p)], None);
    assert_eq!(simplify(&types, &b, pi32), None);
}

#[test]
fn binary_identities_look_through_definitions() {
    use super::simplify::{binop_value, RECURSION_LIMIT};
    use crate::llvm::ir::InstFlags;
    let mut types = crate::llvm::types::Types::default();
    let i64_ = types.int(64);
    let mut b = Body::default();
    let bin = |b: &mut Body, op, x, y| b.push(Head::new(op, i64_), [(x, i64_), (y, i64_)], None);
    let (x, y, z) = (V::Arg(0), V::Arg(1), V::Arg(2));
    let sub_yx = V::Inst(bin(&mut b, Opcode::Sub, y, x));
    let add_xy = V::Inst(bin(&mut b, Opcode::Add, x, y));
    let sub_xy = V::Inst(bin(&mut b, Opcode::Sub, x, y));
    let not_x = V::Inst(bin(&mut b, Opcode::Xor, x, V::Int(-1)));
    let add_x1 = V::Inst(bin(&mut b, Opcode::Add, x, V::Int(1)));
    let and_xz = V::Inst(bin(&mut b, Opcode::And, x, z));
    let f = |op, l, r| binop_value(&b, op, (l, r), 64, InstFlags::default(), RECURSION_LIMIT);
    assert_eq!(f(Opcode::Add, x, sub_yx), Some(y), "x + (y - x)");
    assert_eq!(f(Opcode::Add, sub_yx, x), Some(y), "(y - x) + x");
    assert_eq!(f(Opcode::Sub, add_xy, y), Some(x), "(x + y) - y");
    assert_eq!(f(Opcode::Sub, add_xy, x), Some(y), "(x + y) - x");
    assert_eq!(f(Opcode::Sub, x, sub_xy), Some(y), "x - (x - y)");
    assert_eq!(f(Opcode::Sub, x, add_x1), Some(V::Int(-1)), "x - (x + 1)");
    assert_eq!(f(Opcode::And, x, not_x), Some(V::Int(0)), "x & ~x");
    assert_eq!(f(Opcode::Or, not_x, x), Some(V::Int(-1)), "~x | x");
    assert_eq!(f(Opcode::Xor, x, not_x), Some(V::Int(-1)), "x ^ ~x");
    assert_eq!(f(Opcode::Or, and_xz, x), Some(x), "(x & z) | x");
    assert_eq!(f(Opcode::Add, add_x1, V::Int(-1)), Some(x), "(x + 1) + -1");
    // no rule: a new value would be needed
    assert_eq!(f(Opcode::Sub, add_xy, z), None);
    assert_eq!(f(Opcode::Add, add_x1, V::Int(2)), None);
    // `0 - x` is 0 only under nuw
    let nuw = InstFlags(InstFlags::NUW);
    assert_eq!(f(Opcode::Sub, V::Int(0), x), None);
    assert_eq!(
        binop_value(&b, Opcode::Sub, (V::Int(0), x), 64, nuw, RECURSION_LIMIT),
        Some(V::Int(0))
    );
    // depth 0: identities only
    assert_eq!(
        binop_value(&b, Opcode::Add, (x, sub_yx), 64, InstFlags::default(), 0),
        None
    );
}

/// Values opt-14's `print<inline-cost>` gives for the calls of
/// `tests/fixtures/inline_llvm14/intrinsic_fold.ll`.
#[test]
fn integer_intrinsics_fold_as_llvm_folds_them() {
    use super::simplify::fold_int_intrinsic as fold;
    use crate::llvm::ir::Value;
    let int = |x: i64| Some(V::Int(x));
    assert_eq!(fold("llvm.ctlz.i64", &[511, -1], 64), int(55));
    assert_eq!(
        fold("llvm.ctlz.i64", &[0, -1], 64),
        Some(V::K(Value::Undef))
    );
    assert_eq!(fold("llvm.ctlz.i32", &[0, 0], 32), int(32));
    assert_eq!(fold("llvm.cttz.i32", &[-8, 0], 32), int(3));
    assert_eq!(fold("llvm.ctpop.i16", &[255], 16), int(8));
    assert_eq!(fold("llvm.bswap.i32", &[-8], 32), int(-117440513));
    assert_eq!(fold("llvm.umax.i8", &[-100, -56], 8), int(-56));
    assert_eq!(fold("llvm.smax.i8", &[-100, -56], 8), int(-56));
    assert_eq!(fold("llvm.umin.i8", &[-100, -56], 8), int(-100));
    assert_eq!(fold("llvm.abs.i32", &[-8, 0], 32), int(8));
    assert_eq!(
        fold("llvm.abs.i8", &[-128, -1], 8),
        Some(V::K(Value::Undef))
    );
    assert_eq!(
        fold("llvm.fshl.i32", &[-8, -117440513, 12], 32),
        int(-28785)
    );
    assert_eq!(fold("llvm.fshr.i32", &[1, 2, 32], 32), int(2));
    assert_eq!(fold("llvm.uadd.sat.i8", &[-100, -56], 8), int(-1));
    assert_eq!(fold("llvm.ssub.sat.i8", &[-100, 100], 8), int(-128));
    assert_eq!(fold("llvm.usub.sat.i8", &[1, 2], 8), int(0));
    assert_eq!(fold("llvm.bitreverse.i8", &[1], 8), int(-128));
    // not folded: other intrinsics, non-intrinsics, a wrong argument count
    assert_eq!(fold("llvm.sqrt.f64", &[4], 64), None);
    assert_eq!(fold("ctlz", &[1, 0], 64), None);
    assert_eq!(fold("llvm.ctpop.i32", &[1, 2], 32), None);
}

#[test]
fn every_body_verifies_after_inlining_zlib_at_the_nvidia_budget() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/llvm/zlib/inline/zlib.prep.ll.gz"
    );
    let text = crate::import::read_text(std::path::Path::new(path)).unwrap();
    let m = Module::from_ll_str_with(path, &text, ParseOptions { instructions: true }).unwrap();
    let opts = Options {
        inline: InlineParams {
            inline_threshold: Some(20000),
            ..InlineParams::default()
        },
        ..Options::default()
    };
    let mut pm = PassManager::from_text("cgscc(devirt<4>(inline))", opts).unwrap();
    let mut cm = CgsccModule::new(&m, "m");
    pm.run(&mut cm, &mut NoInstrumentation).unwrap();
    assert!(cm.inlines_done > 100, "{} inlined", cm.inlines_done);
    let st = cm.llvm14.as_ref().unwrap();
    let mut edited = 0;
    for b in st.bodies.iter().flatten() {
        b.verify().unwrap();
        edited += (b.num_rows() as usize > b.size()) as usize;
    }
    assert!(edited > 10, "{edited} bodies edited");
}

#[test]
fn a_clone_absorbs_the_fall_through_blocks_its_folded_branches_leave() {
    // `pick(true, x)`: the branch on %c folds, so `a` and `join` each have one incoming
    // edge in the clone and `CloneAndPruneIntoFromInst` merges them into the entry's clone
    let text = "define internal i32 @pick(i1 %c, i32 %x) {\n\
        entry:\n  br i1 %c, label %a, label %join\n\
        a:\n  %y = mul i32 %x, 3\n  br label %join\n\
        join:\n  %r = phi i32 [ %y, %a ], [ %x, %entry ]\n  %s = add i32 %r, 1\n  ret i32 %s\n}\n\
        define i32 @top(i32 %x) {\n\
        entry:\n  %v = call i32 @pick(i1 true, i32 %x)\n  ret i32 %v\n}\n";
    let m = Module::from_ll_str_with("t.ll", text, ParseOptions { instructions: true }).unwrap();
    let mut pm = PassManager::from_text("cgscc(inline)", Options::default()).unwrap();
    let mut cm = CgsccModule::new(&m, "m");
    pm.run(&mut cm, &mut NoInstrumentation).unwrap();
    assert_eq!(cm.inlines_done, 1);
    let st = cm.llvm14.as_ref().unwrap();
    let top = (0..st.fx.names.len())
        .find(|&k| st.fx.names[k] == "top")
        .unwrap();
    let b = st.body(FuncIdx::new(top));
    b.verify().unwrap();
    let live: Vec<BlockIdx> = b
        .layout
        .iter()
        .copied()
        .filter(|&bb| !b.blocks[bb].is_empty())
        .collect();
    // the merged clone is one block with one return: it takes the call's place in the
    // call block (mul, add, the caller's return), no block is added
    assert_eq!(live.len(), 1, "{live:?}");
    let ops: Vec<Opcode> = b.blocks[live[0]].iter().map(|&r| b.op(r)).collect();
    assert_eq!(ops, [Opcode::Mul, Opcode::Add, Opcode::Ret]);
}

/// Which integer extensions are free, as opt-14 prices them for x86-64 (each case
/// read from the inline cost of a callee holding the extension alone).
#[test]
fn extension_costs_follow_x86_64_legalization() {
    use super::cost::ext_free;
    // (sext, src, dst, of a load, free)
    let cases = [
        (false, 32, 64, false, true),
        (false, 32, 128, false, true),
        (false, 24, 40, false, true),
        (false, 8, 64, false, false),
        (false, 64, 128, false, false),
        (true, 32, 64, false, false),
        (false, 1, 16, true, true),
        (true, 1, 16, true, false),
        (false, 1, 40, true, false),
        (true, 8, 64, true, true),
        (true, 16, 32, true, true),
        (false, 24, 32, true, false),
        (true, 24, 64, true, false),
        (false, 32, 96, true, true),
        (true, 32, 96, true, false),
        (true, 32, 128, true, false),
        (false, 48, 64, true, false),
        (false, 64, 128, true, false),
    ];
    for (sext, s, d, load, free) in cases {
        assert_eq!(
            ext_free(sext, s, d, load),
            free,
            "{sext} i{s} -> i{d} load {load}"
        );
    }
}

/// Compares the integer block frequencies of every function of module `text` with
/// opt-14's `print<block-freq>` report of it: `(functions compared, differences)`.
fn block_freqs_against(path: &str, text: &str, report: &str) -> (usize, Vec<String>) {
    let m = Module::from_ll_str_with(path, text, ParseOptions { instructions: true }).unwrap();
    let nf = m.functions().len();
    let st = super::State::new(&m, &vec![false; nf]).unwrap();
    // per function: its blocks' integer frequencies, in layout order
    let mut want: Vec<(String, Vec<u64>)> = Vec::new();
    for line in report.lines() {
        if let Some(name) = line.strip_prefix("block-frequency-info: ") {
            want.push((name.to_string(), Vec::new()));
        } else if let (Some(p), Some(last)) = (line.rfind(", int = "), want.last_mut()) {
            last.1.push(line[p + 8..].trim().parse().unwrap());
        }
    }
    let by_name: std::collections::HashMap<&str, &Vec<u64>> =
        want.iter().map(|(n, v)| (n.as_str(), v)).collect();
    let (mut funcs, mut differ) = (0, Vec::new());
    for (f, fun) in m.functions().iter_enumerated() {
        let Some(w) = by_name.get(fun.name.as_str()) else {
            continue;
        };
        let got = super::freq::int_freqs(&st.fx, st.fx.ir.body(f));
        funcs += 1;
        if &&got != w {
            differ.push(format!("{}: ilkit {:?} opt {:?}", fun.name, got, w));
        }
    }
    (funcs, differ)
}

/// Block frequencies against opt-14's, kept beside the inputs: a fixture of the
/// heuristics (the floating-point predicates, an unlikely loop successor, nested loops,
/// a switch, a cold call), one of irreducible cycles (several entries, inside and around
/// loops, a computed-goto dispatch), one of invokes' landing pads and the corpus's zlib
/// module, every block of every function.
#[test]
fn block_frequencies_agree_with_opt14_reports() {
    let root = env!("CARGO_MANIFEST_DIR");
    for (module, report) in [
        (
            "tests/fixtures/bfi/heuristics.ll",
            "tests/fixtures/bfi/heuristics.bfi.txt",
        ),
        (
            "tests/fixtures/bfi/irreducible.ll",
            "tests/fixtures/bfi/irreducible.bfi.txt",
        ),
        (
            "tests/fixtures/bfi/unwind.ll",
            "tests/fixtures/bfi/unwind.bfi.txt",
        ),
        (
            "tests/corpus/llvm/zlib/zlib.O0.ll.gz",
            "tests/fixtures/bfi/zlib.O0.bfi.txt.gz",
        ),
    ] {
        let read = |p: &str| {
            crate::import::read_text(std::path::Path::new(&format!("{root}/{p}"))).unwrap()
        };
        let (funcs, differ) = block_freqs_against(module, &read(module), &read(report));
        assert!(funcs >= 3, "{module}: {funcs} functions compared");
        assert!(differ.is_empty(), "{module}:\n{}", differ.join("\n"));
    }
}

/// The same against a live opt-14 on any module (`ILKIT_BFI_MODULE`, default the
/// corpus's zlib; `ILKIT_OPT14` names opt).
#[test]
#[ignore = "runs opt-14; cargo test --release -- --ignored block_frequencies"]
fn block_frequencies_match_opt14() {
    let opt = std::env::var("ILKIT_OPT14").unwrap_or_else(|_| "/usr/bin/opt-14".into());
    let path = std::env::var("ILKIT_BFI_MODULE").unwrap_or_else(|_| {
        format!(
            "{}/tests/corpus/llvm/zlib/zlib.O0.ll.gz",
            env!("CARGO_MANIFEST_DIR")
        )
    });
    let text = crate::import::read_text(std::path::Path::new(&path)).unwrap();
    let out = std::process::Command::new(&opt)
        .args(["-passes=print<block-freq>", "-disable-output", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(text.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    let (funcs, differ) = block_freqs_against(&path, &text, &report);
    assert!(funcs > 0);
    assert!(
        differ.is_empty(),
        "{} of {funcs} functions differ:\n{}",
        differ.len(),
        differ
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The helpers' tables equal what the walk computes, and the walk refuses them once a
/// function the body mentions had an attribute they read changed (not `mustprogress`)
/// or once the body is no longer the module's.
#[test]
fn prefetched_tables_are_the_walks_and_are_refused_when_their_inputs_change() {
    use crate::llvm::attrs::Attr;
    let text = "declare void @exit(i32)\n\
        define internal void @leaf(i32 %x) {\nentry:\n  ret void\n}\n\
        define void @caller(i32 %x) {\nentry:\n  %c = icmp sgt i32 %x, 0\n  \
        br i1 %c, label %a, label %b\na:\n  call void @leaf(i32 %x)\n  br label %b\n\
        b:\n  ret void\n}\n";
    let m = Module::from_ll_str_with("p.ll", text, ParseOptions { instructions: true }).unwrap();
    let nf = m.functions().len();
    let mut st = super::State::new(&m, &vec![false; nf]).unwrap();
    let f = |name: &str| {
        m.functions()
            .iter_enumerated()
            .find(|(_, x)| x.name == name)
            .unwrap()
            .0
    };
    let (caller, leaf) = (f("caller"), f("leaf"));
    let p = st.start_prefetch(vec![leaf, caller]);
    p.help();
    let body = st.fx.ir.body(caller);
    let t = st.prefetched_tables(caller, body).expect("made ahead");
    assert_eq!(t.freqs, super::freq::int_freqs(&st.fx, body));
    assert_eq!(t.preds, body.pred_table());
    assert!(t.refs.contains(&leaf));
    // a copy of the body (as a pass's edit makes) is not the module's
    let copy = body.clone();
    assert!(st.prefetched_tables(caller, &copy).is_none());
    // `mustprogress` is read by none of the tables
    let mut a = *st.fx.attr_set(leaf);
    a.add(Attr::MustProgress);
    st.set_cur_attrs(leaf, a);
    assert!(st
        .prefetched_tables(caller, st.fx.ir.body(caller))
        .is_some());
    // `noreturn` on a callee changes the caller's frequencies
    a.add(Attr::NoReturn);
    st.set_cur_attrs(leaf, a);
    assert!(st
        .prefetched_tables(caller, st.fx.ir.body(caller))
        .is_none());
    // the leaf's own tables read nothing of the leaf's attributes
    assert!(st.prefetched_tables(leaf, st.fx.ir.body(leaf)).is_some());
    st.stop_prefetch();
    assert!(st.prefetched_tables(leaf, st.fx.ir.body(leaf)).is_none());
}

/// A module whose function `f` folds, row by row, to a chain of constant expressions
/// (`getelementptr`, `ptrtoint`, `trunc`, `zext` of a global's element), and the
/// inliner's state of it.
fn fold_fixture() -> (super::State, FuncIdx) {
    let text = "@a = global [8 x i32] zeroinitializer, align 16\n\
        define i64 @f(i64 %i) {\n\
          %q = getelementptr inbounds [8 x i32], ptr @a, i64 0, i64 %i\n\
          %p = ptrtoint ptr %q to i64\n\
          %t = trunc i64 %p to i32\n\
          %r = zext i32 %t to i64\n\
          ret i64 %r\n\
        }\n";
    let m = crate::import::llvm_ir::parse_with("t.ll", text, ParseOptions { instructions: true })
        .unwrap();
    let f = m.function_by_name("f").unwrap();
    (super::State::of_bodies(&m).unwrap(), f)
}

/// [`fold_fixture`]'s `f` at `%i` = `c`, folded as the cloner folds: rows `0..=last`,
/// each row's operand the expression the row before folded to.
fn fold_rows(
    st: &super::State,
    f: FuncIdx,
    folds: &mut super::fold::Folds,
    c: i64,
    last: usize,
) -> Vec<V> {
    let mut b = st.fx.ir.body(f).clone();
    b.set_operand(RowIdx::new(0), 2, V::Int(c));
    let mut out = Vec::new();
    for k in 0..=last {
        let v = folds.fold(&st.fx, &b, RowIdx::new(k)).expect("folds");
        if k < last {
            b.set_operand(RowIdx::new(k + 1), 0, v);
        }
        out.push(v);
    }
    out
}

/// The expression a folded value names.
fn expr(v: V) -> crate::llvm::ir::ExprIdx {
    match v {
        V::K(crate::llvm::ir::Value::Expr(e)) => e,
        v => panic!("not an expression: {v:?}"),
    }
}

/// A run ahead names provisional numbers only through the expressions it made or read
/// with the chained bodies: one that folds only what the walk's tables already number,
/// and reads no chained run, makes no table of its own and names the walk's numbers
/// (what the end of a run relies on to skip looking through the body it left).
#[test]
fn a_run_that_makes_and_reads_no_expression_names_no_provisional_number() {
    use super::fold::{is_provisional, Folds};
    let (st, f) = fold_fixture();
    let mut walk = st.folds.clone();
    let known = fold_rows(&st, f, &mut walk, 3, 1);
    let (mut run, _) = Folds::speculative(walk.frozen(&st.fx.ir), f, Vec::new());
    let again = fold_rows(&st, f, &mut run, 3, 1);
    assert_eq!(again, known, "found in the walk's tables");
    assert!(again.iter().all(|&v| !is_provisional(expr(v))));
    assert!(run.private().is_none() && run.read_privates().is_empty());
    // a new structure is numbered provisionally, in a table of the run's own
    let new = fold_rows(&st, f, &mut run, 4, 0);
    assert!(is_provisional(expr(new[0])));
    assert!(run.private().is_some());
}

/// A run ahead numbers the constant expressions it folds provisionally; a run over its
/// body finds them by structure and builds on them; committed in the walk's order,
/// they get the numbers the sequential walk gives them, operands renumbered.
#[test]
fn provisional_expressions_commit_to_the_sequential_numbers() {
    use super::fold::{is_provisional, Folds};
    use crate::hash::FixedMap;
    let (st, f) = fold_fixture();
    let fold_rows = |folds: &mut Folds, c: i64, last: usize| fold_rows(&st, f, folds, c, last);
    // the sequential walk: another unit folds `@a[5]`; the unit of `f` folds `@a[3]`
    // and its `ptrtoint`; a unit over `f`'s body the same and their `trunc`
    let mut seq = st.folds.clone();
    fold_rows(&mut seq, 5, 0);
    let mine = fold_rows(&mut seq, 3, 1);
    let theirs = fold_rows(&mut seq, 3, 2);
    assert_eq!(theirs[..2], mine[..], "equal structures are one expression");
    // ahead: both units over a copy taken before the other unit's fold, the second
    // reading the first's run
    let frozen = st.folds.clone().frozen(&st.fx.ir);
    let (mut a, _) = Folds::speculative(frozen.clone(), f, Vec::new());
    let mine_ahead = fold_rows(&mut a, 3, 1);
    assert!(mine_ahead.iter().all(|&v| is_provisional(expr(v))));
    let pa = std::sync::Arc::new(a.private().expect("made two"));
    assert_eq!(pa.keys.len(), 2);
    let (mut b, _) = Folds::speculative(frozen, FuncIdx::new(f.idx() + 1), vec![pa.clone()]);
    let theirs_ahead = fold_rows(&mut b, 3, 2);
    assert_eq!(
        theirs_ahead[..2],
        mine_ahead[..],
        "found in the run it reads"
    );
    let pb = b.private().expect("made the trunc");
    assert_eq!(pb.keys.len(), 1);
    assert!(!b.missed());
    // the walk: the other unit, then the two committed in order
    let mut walk = st.folds.clone();
    fold_rows(&mut walk, 5, 0);
    let mut renumbered = FixedMap::default();
    walk.commit_private(&st.fx.ir, &pa, &mut renumbered);
    walk.commit_private(&st.fx.ir, &pb, &mut renumbered);
    for (ahead, seq) in mine_ahead
        .iter()
        .chain(&theirs_ahead[2..])
        .zip(mine.iter().chain(&theirs[2..]))
    {
        assert_eq!(renumbered[&expr(*ahead)], expr(*seq));
    }
    let (_, ops, _) = walk.made().get(expr(theirs[2])).unwrap();
    assert_eq!(ops, [theirs[1]]);
    assert_eq!(walk.made().next(), seq.made().next());
    // one structure, two numbers: a run reading the first run's body over a copy
    // taken once the walk had numbered `@a[3]` itself, or reading two runs that each
    // numbered it, reads them as the one number the walk's commit gives them both
    let mut later = st.folds.clone();
    let walks = fold_rows(&mut later, 3, 0);
    let (mut c, alias) = Folds::speculative(
        later.frozen(&st.fx.ir),
        FuncIdx::new(f.idx() + 2),
        vec![pa.clone()],
    );
    assert!(!c.missed(), "the walk's number and the run's");
    let (gep, ptrtoint) = (expr(mine_ahead[0]), expr(mine_ahead[1]));
    assert_eq!(alias.len(), 1);
    assert_eq!(
        alias[&gep],
        expr(walks[0]),
        "the run's number reads as the walk's"
    );
    assert_eq!(
        fold_rows(&mut c, 3, 1),
        [walks[0], mine_ahead[1]],
        "found by structure, operands read as the walk's"
    );
    assert_eq!(c.made_operands(ptrtoint), Some(&walks[..]));
    let frozen = st.folds.clone().frozen(&st.fx.ir);
    let (mut other, _) = Folds::speculative(frozen.clone(), FuncIdx::new(f.idx() + 3), Vec::new());
    let others = fold_rows(&mut other, 3, 1);
    let po = std::sync::Arc::new(other.private().expect("made two"));
    let (mut d, alias) = Folds::speculative(
        frozen.clone(),
        FuncIdx::new(f.idx() + 4),
        vec![pa.clone(), po.clone()],
    );
    assert!(!d.missed(), "two runs' numbers");
    // the second run's numbers read as the first's, the `ptrtoint` over the aliased
    // `getelementptr` too
    assert_eq!(alias.len(), 2);
    assert_eq!(alias[&expr(others[0])], gep);
    assert_eq!(alias[&expr(others[1])], ptrtoint);
    assert_eq!(fold_rows(&mut d, 3, 1), mine_ahead);
    // in the other order, the other way round: either is what the walk commits both to
    let (_, alias) = Folds::speculative(
        frozen.clone(),
        FuncIdx::new(f.idx() + 4),
        vec![po.clone(), pa.clone()],
    );
    assert_eq!(alias[&gep], expr(others[0]));
    assert_eq!(alias[&ptrtoint], expr(others[1]));
    let mut walk = st.folds.clone();
    let mut renumbered = FixedMap::default();
    walk.commit_private(&st.fx.ir, &pa, &mut renumbered);
    walk.commit_private(&st.fx.ir, &po, &mut renumbered);
    assert_eq!(renumbered[&gep], renumbered[&expr(others[0])]);
    assert_eq!(renumbered[&ptrtoint], renumbered[&expr(others[1])]);
    let (e, alias) = Folds::speculative(
        frozen,
        FuncIdx::new(f.idx() + 4),
        vec![pa.clone(), pb.into()],
    );
    assert!(alias.is_empty());
    assert!(
        !e.missed(),
        "a run's numbers and those of a run that read it"
    );
}

/// The inliner tests a function's attributes only through [`super::Facts::fn_attrs`],
/// which journals each test a run made ahead makes: none of its sources reads the
/// attribute set past it, but the store's `mustprogress` (which it journals itself, but
/// for the functions whose attributes are settled) and the walk's own edits of
/// attributes.
#[test]
fn the_inliner_reads_functions_attributes_through_the_journal() {
    let sources = [
        ("clone.rs", include_str!("clone.rs")),
        ("cost.rs", include_str!("cost.rs")),
        ("decide.rs", include_str!("decide.rs")),
        ("fold.rs", include_str!("fold.rs")),
        ("freq.rs", include_str!("freq.rs")),
        ("mass.rs", include_str!("mass.rs")),
        ("prefetch.rs", include_str!("prefetch.rs")),
        ("range.rs", include_str!("range.rs")),
        ("run.rs", include_str!("run.rs")),
        ("scaled.rs", include_str!("scaled.rs")),
        ("simplify.rs", include_str!("simplify.rs")),
        ("../mod.rs", include_str!("../mod.rs")),
        ("../params.rs", include_str!("../params.rs")),
        ("../remark.rs", include_str!("../remark.rs")),
        ("../replay.rs", include_str!("../replay.rs")),
    ];
    for (name, text) in sources {
        for raw in [".attr_set(", "ir.fn_attrs("] {
            assert!(
                !text.contains(raw),
                "{name} reads a function's attributes past the journal (`{raw}`)"
            );
        }
    }
    let store = include_str!("store.rs");
    let unjournaled = store.matches(".attr_set(").count();
    assert_eq!(
        unjournaled, 6,
        "store.rs: only `mustprogress` and the walk's own edits read the set unjournaled"
    );
    assert!(include_str!("cost.rs").contains("fx.fn_attrs("));
}

/// A run made ahead journals its tests of the attributes of functions the walk may
/// still visit before the unit's turn, and not those of declarations or of functions
/// the walk had visited when its round's copy was taken (their attributes are final).
#[test]
fn tests_of_settled_functions_are_not_journaled() {
    use crate::llvm::attrs::Attr;
    let text = "declare void @d()\n\
        define void @a() {\n  ret void\n}\n\
        define void @b() {\n  ret void\n}\n";
    let m = crate::import::llvm_ir::parse_with("s.ll", text, ParseOptions { instructions: true })
        .unwrap();
    let mut st = super::State::of_bodies(&m).unwrap();
    let f = |name: &str| m.function_by_name(name).unwrap();
    let (d, a, b) = (f("d"), f("a"), f("b"));
    let mut pos = vec![u32::MAX; m.functions().len()];
    pos[a.idx()] = 0;
    pos[b.idx()] = 1;
    st.fx.unit_pos = pos.into();
    // the walk's own state, before any position: only the declaration is settled
    assert!(st.fx.settled(d) && !st.fx.settled(a) && !st.fx.settled(b));
    // a round's copy taken at position 1: `a`'s attributes are final
    st.fx.committed = 1;
    assert!(st.fx.settled(a) && !st.fx.settled(b));
    let journal = super::AttrJournal::start(Vec::new());
    for g in [d, a, b] {
        assert!(!st.fx.fn_attrs(g).has(Attr::NoUnwind));
    }
    assert_eq!(journal.tests(), vec![(b, Attr::NoUnwind, false)]);
}

/// A run's journal keeps each test once per answer, whatever the number of times it is
/// made, and the next run on the thread journals its own tests from nothing; a body's
/// version is noted at its first read by each run.
#[test]
fn a_journal_keeps_each_test_once_per_run() {
    use super::AttrJournal;
    use crate::llvm::attrs::Attr;
    use crate::llvm::FuncIdx;
    let (f, g) = (FuncIdx::new(3), FuncIdx::new(0));
    let j = AttrJournal::start(Vec::new());
    for _ in 0..3 {
        assert!(j.test(f, Attr::MustProgress, || true));
        assert!(!j.test(g, Attr::NoUnwind, || false));
    }
    // an answer that differs from the one journaled is journaled too: the walk's
    // check at the unit's turn then refuses the run
    assert!(!j.test(f, Attr::MustProgress, || false));
    assert!(j.first_version_read(f) && !j.first_version_read(f));
    assert_eq!(
        j.tests(),
        vec![
            (f, Attr::MustProgress, true),
            (g, Attr::NoUnwind, false),
            (f, Attr::MustProgress, false)
        ]
    );
    drop(j);
    let j = AttrJournal::start(Vec::new());
    assert!(j.first_version_read(f));
    assert!(j.test(f, Attr::MustProgress, || true));
    assert_eq!(j.tests(), vec![(f, Attr::MustProgress, true)]);
}

#[test]
fn a_rounds_runs_share_the_tables_of_its_copys_bodies() {
    use super::store::{Chain, Spec, Store};
    use std::sync::Arc;
    let text = "define void @g() {\n  ret void\n}\n\
        define void @a() {\n  call void @g()\n  ret void\n}\n\
        define void @b() {\n  call void @g()\n  ret void\n}\n";
    let m = crate::import::llvm_ir::parse_with("r.ll", text, ParseOptions { instructions: true })
        .unwrap();
    let f = |name: &str| m.function_by_name(name).unwrap();
    let (g, a, b) = (f("g"), f("a"), f("b"));
    let mut st = super::State::of_bodies(&m).unwrap();
    let folds = st.frozen_folds();
    let copy = st.snapshot(folds);
    let freqs = Arc::new(vec![7u64]);
    {
        let mut run = Spec::new(&copy, Chain::default(), a, copy.frozen_copy());
        assert!(run.bfi(g).is_none());
        run.set_bfi(g, Arc::clone(&freqs));
        // its own body once changed: what it makes of it is its own
        run.body_changed(a);
        run.set_bfi(a, Arc::new(vec![1]));
    }
    let run = Spec::new(&copy, Chain::default(), b, copy.frozen_copy());
    assert!(run.bfi(g).is_some_and(|v| Arc::ptr_eq(&v, &freqs)));
    assert!(run.bfi(a).is_none());
    // the walk's own state keeps none of it
    assert!(Store::bfi(&st, g).is_none());
}

/// A run on a function inlines nothing when no call of its body names a defined function
/// that is not deleted: calls of declarations, intrinsics and pointers queue nothing.
#[test]
fn a_function_calling_no_definition_inlines_nothing() {
    let text = "declare void @d()\n\
        declare i32 @llvm.ctpop.i32(i32)\n\
        define void @g() {\n  ret void\n}\n\
        define void @leaf(void ()* %p, i32 %x) {\n  call void @d()\n  \
        %c = call i32 @llvm.ctpop.i32(i32 %x)\n  call void %p()\n  ret void\n}\n\
        define void @caller() {\n  call void @d()\n  call void @g()\n  ret void\n}\n";
    let m = crate::import::llvm_ir::parse_with("n.ll", text, ParseOptions { instructions: true })
        .unwrap();
    let f = |name: &str| m.function_by_name(name).unwrap();
    let mut st = super::State::of_bodies(&m).unwrap();
    assert!(st.inlines_nothing(f("g")) && st.inlines_nothing(f("leaf")));
    assert!(!st.inlines_nothing(f("caller")));
    // its one defined callee deleted: nothing left to queue
    st.deleted[f("g").idx()] = true;
    assert!(st.inlines_nothing(f("caller")));
}
