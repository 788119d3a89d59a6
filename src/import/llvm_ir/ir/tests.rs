//! Tests of the instruction pass.

use crate::import::llvm_ir::{parse_with, ParseOptions};
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{RowIdx, V};
use crate::llvm::ir::{Opcode, Ordering, Value};

const OPTS: ParseOptions = ParseOptions { instructions: true };

#[test]
fn operands_resolve_to_definitions() {
    let text = "%struct.s = type { i32, i8* }\n\
        @g = global i32 0\n\
        declare noalias i8* @malloc(i64)\n\
        define i32 @f(i32* nocapture %p, i32 %n) {\n\
        entry:\n  %a = alloca i32, align 4\n  store i32 %n, i32* %a, align 4\n\
          br label %loop\n\
        loop:\n  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n  %i1 = add nsw i32 %i, 1\n\
          %c = icmp slt i32 %i1, %n\n  br i1 %c, label %loop, label %exit\n\
        exit:\n  %v = load volatile i32, i32* %p, align 4\n\
          %m = call noalias i8* @malloc(i64 8) #0\n\
          %q = getelementptr inbounds %struct.s, %struct.s* null, i64 0, i32 1\n\
          %w = load atomic i32, i32* @g seq_cst, align 4\n\
          ret i32 %v\n}\n\
        attributes #0 = { nounwind }\n";
    let m = parse_with("t.ll", text, OPTS).unwrap();
    let ir = m.ir().unwrap();
    assert!(ir.verify().is_empty(), "{:?}", ir.verify());
    let f = m.function_by_name("f").unwrap();
    let b = ir.body(f);
    let insts: Vec<RowIdx> = b.live_rows().collect();
    let ops: Vec<Opcode> = insts.iter().map(|&i| b.op(i)).collect();
    assert_eq!(
        ops,
        [
            Opcode::Alloca,
            Opcode::Store,
            Opcode::Br,
            Opcode::Phi,
            Opcode::Add,
            Opcode::ICmp,
            Opcode::Br,
            Opcode::Load,
            Opcode::Call,
            Opcode::GetElementPtr,
            Opcode::Load,
            Opcode::Ret
        ]
    );
    let p = ir.arg(f, 0).unwrap();
    assert!(ir.arg_attrs(p).has(Attr::NoCapture));
    // the phi's forward reference to %i1
    assert_eq!(b.ops(insts[3])[2], V::Inst(insts[4]));
    assert_eq!(b.ops(insts[1])[1], V::Inst(insts[0]));
    assert!(b.flags(insts[7]).is_volatile());
    assert_eq!(b.flags(insts[10]).ordering(), Ordering::SeqCst);
    let c = b.call_of(insts[8]).unwrap();
    assert!(ir.attr_sets.get(c.ret_attrs).has(Attr::NoAlias));
    assert!(ir.attr_sets.get(c.attrs).has(Attr::NoUnwind));
    assert_eq!(
        ir.types.display(b.ty(insts[9])),
        "i8**",
        "GEP into field 1 of %struct.s"
    );
    let uses = b.use_table();
    assert_eq!(uses.of(V::Arg(0)).len(), 1);
    assert_eq!(uses.of(V::Inst(insts[0])).len(), 1);
    let callee = b.ops(insts[8])[c.callee_op as usize];
    assert_eq!(
        callee,
        V::K(Value::Global(m.symbol_by_name("malloc").unwrap()))
    );
    let mf = m.function_by_name("malloc").unwrap();
    assert_eq!(ir.func(mf).fn_ty, b.aux_ty(insts[8]));
}

#[test]
fn returning_a_pointer_to_a_void_function_is_a_value() {
    let text = "define void (i32)* @f(void (i32)* %p) {\n  ret void (i32)* %p\n}\n\
                define void @g() {\n  ret void\n}\n";
    let m = parse_with("t.ll", text, OPTS).unwrap();
    let ir = m.ir().unwrap();
    let f = m.function_by_name("f").unwrap();
    let g = m.function_by_name("g").unwrap();
    let (bf, bg) = (ir.body(f), ir.body(g));
    let rf = bf.live_rows().last().unwrap();
    let rg = bg.live_rows().last().unwrap();
    assert_eq!(bf.ops(rf), &[V::Arg(0)]);
    assert!(bg.ops(rg).is_empty());
}
