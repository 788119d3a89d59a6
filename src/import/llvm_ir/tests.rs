use super::*;
use crate::idx::BlockIdx;
use crate::llvm::{CallKind, FuncIdx, Function, GlobalIdx};

/// Successor indices as plain numbers.
fn ids(v: &[BlockIdx]) -> Vec<u32> {
    v.iter().map(|b| b.raw()).collect()
}
use std::path::PathBuf;

use crate::test_support::{corpus_ll_files, read, sibling};

#[test]
fn small_module() {
    let text = r#"
; comment
source_filename = "x.c"
target triple = "x86_64-pc-linux-gnu"
%struct.S = type { i32, ptr }
@tab = internal constant [2 x ptr] [ptr @f, ptr @"g h"], align 8
@a = alias void (), ptr @f
declare i32 @printf(ptr, ...)
define internal void @f() #0 {
  ret void
}
define i32 @"g h"(i32 %0, ptr %p) {
  %2 = icmp eq i32 %0, 0
  br i1 %2, label %3, label %"x y"
3:
  call void @f()
  switch i32 %0, label %"x y" [
    i32 1, label %3
    i32 2, label %"x y"
  ]
"x y":                                     ; preds = %3
  %r = call i32 (ptr, ...) @printf(ptr getelementptr inbounds ([2 x ptr], ptr @tab, i64 0, i64 1), i32 3)
  ret i32 %r
}
attributes #0 = { noinline nounwind }
"#;
    let m = parse("x.ll", text).unwrap();
    assert_eq!(m.functions.len(), 3);
    let g = &m.functions[FuncIdx::new(2)];
    assert_eq!(g.name, "g h");
    let names: Vec<&str> = g.blocks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["1", "3", "x y"]);
    assert_eq!(ids(&g.blocks[BlockIdx::new(0)].succs), [1, 2]);
    assert_eq!(ids(&g.blocks[BlockIdx::new(1)].succs), [2, 1, 2]);
    assert_eq!(g.blocks[BlockIdx::new(1)].term.as_str(), "switch");
    assert_eq!(g.call_sites.len(), 2);
    assert_eq!(g.call_sites[1].arg_count, 2);
    assert_eq!(g.instruction_count, 6);
    assert!(m.function_has_attr(FuncIdx::new(1), "noinline"));
    assert_eq!(
        m.globals[GlobalIdx::new(0)]
            .initializer
            .map(|c| m.consts.operands_of(c).len()),
        Some(2)
    );
    assert_eq!(m.aliases.len(), 1);
}

#[test]
fn errors_have_positions() {
    let e = parse("bad.ll", "define void @f() {\n  br label %nowhere\n}\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 12), "{e}");
    let e = parse("bad.ll", "define void @f() {\n  ret void\n").unwrap_err();
    assert!(e.to_string().starts_with("bad.ll:"), "{e}");
    let deep = format!(
        "@x = global ptr {}@y{}\n",
        "getelementptr (i8, ptr ".repeat(1000),
        ", i64 0)".repeat(1000)
    );
    let e = parse("deep.ll", &deep).unwrap_err();
    assert!(e.message.contains("nesting"), "{e}");
}

/// Block names, terminators and successors equal the corpus `*.cfg.json` answers.
#[test]
fn corpus_cfg_blocks_match() {
    let Some(files) = corpus_ll_files() else {
        eprintln!("skipped: corpus not found (tests/corpus); set ILKIT_CORPUS");
        return;
    };
    let (mut modules, mut functions, mut blocks) = (0, 0, 0);
    for ll in files {
        let json = sibling(&ll, "cfg.json");
        let Ok(js) = read(&json) else {
            continue;
        };
        let text = read(&ll).unwrap();
        let m = parse(&ll.to_string_lossy(), &text).unwrap_or_else(|e| panic!("{e}"));
        let v: serde_json::Value = serde_json::from_str(&js).unwrap();
        let defs: Vec<&Function> = m.functions.iter().filter(|f| f.is_definition).collect();
        let jf = v["functions"].as_array().unwrap();
        assert_eq!(
            defs.len(),
            jf.len(),
            "{}: number of definitions",
            ll.display()
        );
        for (f, j) in defs.iter().zip(jf) {
            assert_eq!(f.name, j["name"].as_str().unwrap(), "{}", ll.display());
            let names: Vec<&str> = j["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_str().unwrap())
                .collect();
            let mine: Vec<&str> = f.blocks.iter().map(|b| b.name.as_str()).collect();
            assert_eq!(mine, names, "{}: blocks of {}", ll.display(), f.name);
            for (i, b) in f.blocks.iter().enumerate() {
                let succ: Vec<u32> = j["succ"][i]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as u32)
                    .collect();
                assert_eq!(
                    ids(&b.succs),
                    succ,
                    "{}: succs of {}:{}",
                    ll.display(),
                    f.name,
                    b.name
                );
                assert_eq!(
                    b.term.as_str(),
                    j["term"][i].as_str().unwrap(),
                    "{}: term of {}:{}",
                    ll.display(),
                    f.name,
                    b.name
                );
            }
            functions += 1;
            blocks += f.blocks.len();
        }
        modules += 1;
    }
    eprintln!("cfg agreement: {modules} modules, {functions} functions, {blocks} blocks");
}

/// `LL=file.ll cargo test --lib dump_blocks -- --ignored --nocapture`: prints one JSON
/// line per definition (`name`, `blocks`, `succ`) for comparing with other tools.
#[test]
#[ignore]
fn dump_blocks() {
    let Ok(p) = std::env::var("LL") else { return };
    let text = read(p.as_ref()).unwrap();
    let m = parse(&p, &text).unwrap();
    for f in m.functions.iter().filter(|f| f.is_definition) {
        let names: Vec<&str> = f.blocks.iter().map(|b| b.name.as_str()).collect();
        let succ: Vec<Vec<u32>> = f.blocks.iter().map(|b| ids(&b.succs)).collect();
        println!(
            "BLOCKS {}",
            serde_json::json!({"name": f.name, "blocks": names, "succ": succ})
        );
    }
}

fn robustness_inputs() -> Vec<(String, String)> {
    let mut v = vec![
        (
            "lcg_small.ll".to_string(),
            include_str!("../../../tests/fixtures/llvm/lcg_small.ll").to_string(),
        ),
        (
            "cfg_small.ll".to_string(),
            include_str!("../../../tests/fixtures/llvm/cfg_small.ll").to_string(),
        ),
    ];
    if let Some(files) = corpus_ll_files() {
        // a couple of small real modules
        let mut small: Vec<_> = files
            .into_iter()
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
            .collect();
        small.sort();
        for (_, p) in small.into_iter().take(3) {
            v.push((p.display().to_string(), read(&p).unwrap()));
        }
    }
    v
}

/// Every prefix (at a stride) and many random byte flips of real text parse to a
/// result or an error, never a panic.
#[test]
fn truncated_and_garbled_input_never_panics() {
    let mut seed = 0x9E3779B97F4A7C15u64;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for (name, text) in robustness_inputs() {
        let bytes = text.as_bytes();
        let stride = (bytes.len() / 300).max(1);
        let mut cut = 0;
        while cut < bytes.len() {
            let s = String::from_utf8_lossy(&bytes[..cut]);
            let _ = parse(&name, &s);
            cut += stride;
        }
        const JUNK: &[u8] = b"%@!#$\"(){}[]<>,=*:;\n x0-.\\\xc3";
        for _ in 0..400 {
            let mut b = bytes.to_vec();
            for _ in 0..1 + rnd(4) {
                let at = rnd(b.len().max(1));
                if at < b.len() {
                    b[at] = JUNK[rnd(JUNK.len())];
                }
            }
            let s = String::from_utf8_lossy(&b);
            if let Ok(m) = parse(&name, &s) {
                // whatever parsed must still be a consistent module
                for f in &m.functions {
                    for bl in &f.blocks {
                        assert!(bl.succs.iter().all(|&x| x.idx() < f.blocks.len()));
                    }
                }
                let mut g = crate::callgraph::from_module(&m, &name);
                g.build_ref_sccs();
                assert!(g.verify().is_empty());
            }
        }
    }
}

#[test]
fn fixture_cfg_shapes() {
    let m = parse(
        "cfg_small.ll",
        include_str!("../../../tests/fixtures/llvm/cfg_small.ll"),
    )
    .unwrap();
    let f = |name: &str| m.functions.iter().find(|f| f.name == name).unwrap();
    let sw = f("sw");
    let names: Vec<&str> = sw.blocks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["1", "2", "3", "4", "exit block"]);
    let succs: Vec<Vec<u32>> = sw.blocks.iter().map(|b| ids(&b.succs)).collect();
    assert_eq!(
        succs,
        vec![vec![3, 1, 2, 1], vec![3], vec![4], vec![4], vec![]]
    );
    let ibr = f("ibr");
    assert_eq!(ibr.blocks[BlockIdx::new(0)].term.as_str(), "indirectbr");
    assert_eq!(ids(&ibr.blocks[BlockIdx::new(0)].succs), [1, 2]);
    let inv = f("inv");
    assert_eq!(inv.blocks[BlockIdx::new(0)].term.as_str(), "invoke");
    assert_eq!(ids(&inv.blocks[BlockIdx::new(0)].succs), [1, 2]);
    assert_eq!(inv.blocks[BlockIdx::new(2)].term.as_str(), "resume");
    assert_eq!(inv.call_sites[0].kind, CallKind::Invoke);
}

/// Nesting just under the limit parses (no stack overflow on a 2 MB test thread, debug
/// build); just over it is an error.
#[test]
fn deep_nesting_within_limit() {
    let d = (MAX_DEPTH / 2 - 2) as usize;
    // a struct constant nested d deep holding @f
    let mut v = "ptr @f".to_string();
    let mut t = "ptr".to_string();
    for _ in 0..d {
        v = format!("{{ {t} }} {{ {v} }}");
        t = format!("{{ {t} }}");
    }
    let text = format!("@g = global {v}\ndefine void @f() {{\n  ret void\n}}\n");
    let m = parse("deep.ll", &text).unwrap_or_else(|e| panic!("{e}"));
    assert!(m.globals[GlobalIdx::new(0)].initializer.is_some());
    let big = format!(
        "@g = global {}ptr{} zeroinitializer\n",
        "[1 x ".repeat(300),
        "]".repeat(300)
    );
    assert!(parse("deep.ll", &big).is_err());
}

/// What `llvm-as` rejects at the syntax level is an error here too, at the position
/// `llvm-as-14` reports (`[line, column]`; the top-level local name is reported at its own
/// token, where `llvm-as` points one token later).
#[test]
fn rejects_what_llvm_as_rejects() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("%x = add i32 1, 2\n", (1, 1), "top-level entity"),
        (
            "define void @f() {\n  %x = frob i32 1, 2\n  ret void\n}\n",
            (2, 8),
            "instruction opcode",
        ),
        ("@x = foo global i32 0\n", (1, 6), "'global'"),
        (
            "define void @f() {\n  %x = add i32 1, 2 3\n  ret void\n}\n",
            (2, 21),
            "expected ','",
        ),
        (
            "define void @f() foo {\n  ret void\n}\n",
            (1, 18),
            "function attribute",
        ),
        ("add i32 1, 2\n", (1, 1), "top-level entity"),
        (
            "define void @f() {\n  ret void\n  frob\n}\n",
            (3, 3),
            "instruction opcode",
        ),
    ];
    for (text, pos, what) in cases {
        let e = parse("t.ll", text).unwrap_err();
        assert_eq!((e.line, e.column), *pos, "{text:?}: {e}");
        assert!(e.message.contains(what), "{text:?}: {e}");
    }
    // Accepted: what clang 14–19 write around globals and function headers.
    let ok = "%T = type { i32 }\n$c = comdat any\n\
              @g = dso_local local_unnamed_addr global i32 0, align 4\n\
              @h = internal thread_local(initialexec) global i32 0\n\
              @s = private unnamed_addr constant [3 x i8] c\"hi\\00\", section \".x\", comdat($c)\n\
              define dso_local void @f(ptr %p) local_unnamed_addr #0 section \".text\" align 16 \"x\"=\"y\" !dbg !4 {\n\
              store atomic i32 0, ptr %p seq_cst, align 4\n\
              %v = load atomic i32, ptr %p syncscope(\"agent\") acquire, align 4\n\
              %r = cmpxchg ptr %p, i32 0, i32 1 acq_rel monotonic\n\
              fence seq_cst\n  ret void\n}\n\
              declare void @d() nounwind memory(none) uwtable(sync)\n\
              attributes #0 = { noinline nounwind }\n";
    parse("ok.ll", ok).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn comdats_of_functions_and_globals_are_read() {
    let text = "$c = comdat any\n$own = comdat any\n\
                @v = linkonce_odr global i32 0, comdat($c), align 4\n\
                @w = global i32 0, align 4\n\
                define linkonce_odr void @own() comdat {\n  ret void\n}\n\
                define linkonce_odr void @in_c() comdat($c) {\n  ret void\n}\n\
                define void @none() {\n  ret void\n}\n";
    let m = parse("c.ll", text).unwrap();
    let f = |n: &str| m.function(m.function_by_name(n).unwrap()).comdat.clone();
    assert_eq!(f("own").as_deref(), Some("own"));
    assert_eq!(f("in_c").as_deref(), Some("c"));
    assert_eq!(f("none"), None);
    let g: Vec<Option<&str>> = m.globals().iter().map(|g| g.comdat.as_deref()).collect();
    assert_eq!(g, [Some("c"), None]);
}

#[test]
fn global_alignments_are_read() {
    let text = "@a = global i64 0, align 16\n@b = external global i32\n\
                @c = internal constant [2 x i8] c\"hi\", section \"s\", align 1\n";
    let m = parse("a.ll", text).unwrap();
    let got: Vec<Option<u64>> = m.globals().iter().map(|g| g.align).collect();
    assert_eq!(got, [Some(16), None, Some(1)]);
    let e = parse("a.ll", "@a = global i64 0, align 3\n").unwrap_err();
    assert_eq!((e.line, e.column), (1, 26), "{e}");
    assert!(e.message.contains("power of two"), "{e}");
}

/// Every corpus module parses to the same module by pieces on four threads as in one
/// pass (`ILKIT_EXTRA_LL=a.ll:b.ll` adds modules from outside the corpus).
#[test]
fn parallel_parse_equals_sequential_on_the_corpus() {
    let mut files = corpus_ll_files().unwrap_or_default();
    if let Ok(extra) = std::env::var("ILKIT_EXTRA_LL") {
        files.extend(extra.split(':').map(PathBuf::from));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    for ll in files {
        let text = read(&ll).unwrap();
        let name = ll.display().to_string();
        let seq = super::parse_sequential(&name, &text);
        let par = pool.install(|| super::parallel::parse(&name, &text));
        assert!(par == seq, "{name}: the parallel parse differs");
    }
}

/// The instruction view of every corpus module (plus `ILKIT_EXTRA_LL`) verifies, and
/// the call graph's model derived from it (the bodies read once, by the instruction
/// pass) is the first pass's model up to the numbering of symbols, constants and
/// signatures ([`model_digest`]); a parallel parse gives the same view and model.
#[test]
fn instruction_view_agrees_with_the_first_pass() {
    let mut files = corpus_ll_files().unwrap_or_default();
    if let Ok(extra) = std::env::var("ILKIT_EXTRA_LL") {
        files.extend(extra.split(':').map(PathBuf::from));
    }
    let opts = super::ParseOptions { instructions: true };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    for ll in files {
        let text = read(&ll).unwrap();
        let name = ll.display().to_string();
        let m = pool
            .install(|| super::parse_with(&name, &text, opts))
            .unwrap_or_else(|e| panic!("{e}"));
        let ir = m.ir().unwrap();
        let errs = ir.verify();
        assert!(errs.is_empty(), "{name}: {:?}", &errs[..errs.len().min(5)]);
        let plain = super::parse_sequential(&name, &text).unwrap();
        assert_models_agree(&name, &plain, &m);
        // one thread: the first pass and the instruction pass both run sequentially
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let seq = one
            .install(|| super::parse_with(&name, &text, opts))
            .unwrap();
        assert!(
            m == seq,
            "{name}: the parallel parse's instruction view differs"
        );
    }
}

/// The model derived from the instruction pass equals the first pass's on the constructs
/// it treats apart: blocks laid out after their users, quoted and unnamed labels,
/// aggregates, `dso_local_equivalent` and `blockaddress` constants, constant-expression
/// and inline-asm callees, calls whose type differs from the callee's, metadata
/// arguments, invokes, `callbr`, funclet pads and memory effects.
#[test]
fn derived_model_equals_the_first_pass_on_every_construct() {
    let text = r#"
@g = global i32 0
@tbl = global [2 x ptr] [ptr @a, ptr @b]
declare void @a()
declare void @b(i32)
declare i32 @__gxx_personality_v0(...)
declare void @llvm.dbg.value(metadata, metadata, metadata)
define void @f(ptr %p, i32 %n) personality ptr @__gxx_personality_v0 {
entry:
  %s = alloca i32, align 4
  store i32 %n, ptr %s, align 4
  %l = load i32, ptr %s, align 4
  br i1 true, label %"later block", label %1
1:
  store <2 x ptr> <ptr @a, ptr blockaddress(@f, %1)>, ptr %p, align 8
  store { ptr, i32 } { ptr dso_local_equivalent @a, i32 1 }, ptr %p, align 8
  call void @b(i32 ptrtoint (ptr @g to i32))
  call void (i32, ...) @b(i32 1, i32 2)
  call void @llvm.dbg.value(metadata ptr @g, metadata !1, metadata !DIExpression())
  call void asm sideeffect "nop", ""()
  call void getelementptr (i8, ptr @a, i64 0)()
  invoke void @a() to label %ok unwind label %lp
ok:
  callbr void asm "", "r,!i"(i32 0) to label %"later block" [label %1]
lp:
  %x = landingpad { ptr, i32 } cleanup catch ptr @g filter [1 x ptr] [ptr @tbl]
  resume { ptr, i32 } %x
"later block":
  %v = phi i32 [ 0, %entry ], [ 1, %ok ]
  %q = getelementptr inbounds [2 x ptr], ptr @tbl, i64 0, i64 1
  store i32 %v, ptr @g, align 4
  switch i32 %v, label %2 [ i32 0, label %1
                            i32 1, label %"later block" ]
2:
  ret void
}
define void @w() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @a() to label %done unwind label %cs
cs:
  %t = catchswitch within none [label %h1, label %h2] unwind label %up
h1:
  %c1 = catchpad within %t [ptr @g, i32 0, ptr null]
  catchret from %c1 to label %done
h2:
  %c2 = catchpad within %t [ptr null]
  catchret from %c2 to label %done
up:
  %c3 = cleanuppad within none []
  cleanupret from %c3 unwind to caller
done:
  %r = load i32, ptr @g, align 4
  ret void
}
!1 = !{}
"#;
    let plain = super::parse_sequential("t.ll", text).unwrap();
    let opts = super::ParseOptions { instructions: true };
    let m = super::parse_with("t.ll", text, opts).unwrap_or_else(|e| panic!("{e}"));
    assert_models_agree("t.ll", &plain, &m);
    let digest = model_digest(&m);
    assert!(
        digest.iter().any(|l| l.contains("Const([a])")),
        "{digest:#?}"
    );
    assert!(
        digest.iter().any(|l| l.contains("later block")),
        "{digest:#?}"
    );
}

/// Errors in a body when the instruction pass reads it alone: forward branches to
/// undefined or redefined blocks, with their position, as the first pass reports them
/// (`same`); an instruction whose operands are malformed (a `getelementptr` without its
/// pointer, a stray byte after a type or after the operands), rejected rather than read
/// into a row without them.
#[test]
fn body_errors_with_the_instruction_view() {
    let opts = super::ParseOptions { instructions: true };
    for (text, want, same) in [
        (
            "define void @f() {\nentry:\n  br label %nowhere\n}\n",
            "t.ll:3:12: use of undefined block '%nowhere'",
            true,
        ),
        (
            "define void @f() {\nentry:\n  br label %entry\nentry:\n  ret void\n}\n",
            "t.ll:4:1: redefinition of block '%entry'",
            true,
        ),
        (
            "define void @f(ptr %p) {\n  %x = getelementptr i8\n  ret void\n}\n",
            "t.ll:3:3: expected ','",
            false,
        ),
        (
            "define void @f(ptr %p) {\n  %x = getelementptr i8\u{1}, ptr %p\n  ret void\n}\n",
            "t.ll:2:24: expected ','",
            false,
        ),
        (
            "define i32 @f() {\n  %x = add i32 1, 2 \u{1}\n  ret i32 %x\n}\n",
            "t.ll:2:21: expected ',' or the end of the instruction",
            true,
        ),
    ] {
        let e = super::parse_with("t.ll", text, opts)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(want), "{e}");
        if same {
            let e1 = super::parse_sequential("t.ll", text)
                .unwrap_err()
                .to_string();
            assert_eq!(e1[..want.len()], *want, "{e1}");
        }
    }
}
/// A module whose bodies the instruction pass reads in several runs on several threads
/// fails with the error the one-thread pass meets first, whichever run finishes first:
/// an error in the last run, in two runs, in neighbouring functions.
#[test]
fn instruction_pass_errors_in_runs_are_the_sequential_ones() {
    let opts = super::ParseOptions { instructions: true };
    let module = |bad: &[usize]| {
        let mut t = String::new();
        for i in 0..12_000 {
            let to = if bad.contains(&i) { "nowhere" } else { "next" };
            t.push_str(&format!(
                "define i32 @f{i}(i32 %x) {{\n  %a = add i32 %x, {i}\n  br label %{to}\n\
                 next:\n  ret i32 %a\n}}\n"
            ));
        }
        t
    };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (one, four) = (pool(1), pool(4));
    for bad in [&[11_900][..], &[1_000, 11_900], &[6_000, 6_001]] {
        let text = module(bad);
        let seq = one
            .install(|| super::parse_with("big.ll", &text, opts))
            .unwrap_err();
        let par = four
            .install(|| super::parse_with("big.ll", &text, opts))
            .unwrap_err();
        assert_eq!(par, seq);
        assert!(seq.message.contains("undefined block"), "{seq}");
    }
    let text = module(&[]);
    let seq = one.install(|| super::parse_with("big.ll", &text, opts));
    let par = four.install(|| super::parse_with("big.ll", &text, opts));
    assert_eq!(
        model_digest(&par.unwrap()),
        model_digest(&seq.unwrap()),
        "the runs' model differs"
    );
}

fn assert_models_agree(name: &str, plain: &crate::llvm::Module, m: &crate::llvm::Module) {
    let (a, b) = (model_digest(plain), model_digest(m));
    assert_eq!(a.len(), b.len(), "{name}: functions");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{name}: the derived model differs");
    }
}

/// Every function's model as text, with symbols by name, constants as the globals they
/// mention (in the order LLVM's reference walk would meet them) and call types as text.
fn model_digest(m: &crate::llvm::Module) -> Vec<String> {
    use crate::llvm::{Callee, ConstIdx, ConstKind, OperandRef};
    use std::fmt::Write;
    fn leaves(m: &crate::llvm::Module, c: ConstIdx, out: &mut Vec<String>) {
        match m.consts.kind(c) {
            ConstKind::Symbol(s) => out.push(m.symbols[s].clone()),
            ConstKind::Expr => {
                for &o in m.consts.operands_of(c) {
                    leaves(m, o, out);
                }
            }
        }
    }
    let konst = |c: ConstIdx| {
        let mut v = Vec::new();
        leaves(m, c, &mut v);
        format!("[{}]", v.join(","))
    };
    m.functions()
        .iter()
        .map(|f| {
            let mut s = format!(
                "@{} n={} mem={:?} sig={}\n",
                f.name,
                f.instruction_count,
                f.body_mem,
                m.signature(f.signature)
            );
            for b in f.blocks.iter() {
                let _ = writeln!(
                    s,
                    "  {}: {:?} {:?} {}",
                    b.name, b.term, b.succs, b.instruction_count
                );
            }
            for c in &f.call_sites {
                let callee = match c.callee {
                    Callee::Direct(x) => format!("@{}", m.symbols[x]),
                    Callee::Const(x) => konst(x),
                    Callee::InlineAsm => "asm".into(),
                    Callee::Indirect => "indirect".into(),
                };
                let _ = writeln!(
                    s,
                    "  call {callee} {} {:?} {:?} {}",
                    c.arg_count,
                    c.block,
                    c.kind,
                    m.signature(c.fn_type)
                );
            }
            for r in &f.operand_refs {
                let _ = match *r {
                    OperandRef::DirectCall(x, t) => {
                        writeln!(s, "  DirectCall(@{}, {})", m.symbols[x], m.signature(t))
                    }
                    OperandRef::Const(c) => writeln!(s, "  Const({})", konst(c)),
                };
            }
            s
        })
        .collect()
}

/// What the instruction pass costs on top of the first parse (`ILKIT_EXTRA_LL` or the
/// corpus modules): best of 5 each, printed. `cargo test --release --lib --
/// --ignored instruction_pass_cost --nocapture`
#[test]
#[ignore]
fn instruction_pass_cost() {
    let mut files = corpus_ll_files().unwrap_or_default();
    if let Ok(extra) = std::env::var("ILKIT_EXTRA_LL") {
        files = extra.split(':').map(PathBuf::from).collect();
    }
    let opts = super::ParseOptions { instructions: true };
    for ll in files {
        let text = read(&ll).unwrap();
        let name = ll.display().to_string();
        let best = |f: &dyn Fn()| {
            (0..5)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::MAX, f64::min)
        };
        let plain = best(&|| {
            super::parse(&name, &text).unwrap();
        });
        let with_ir = best(&|| {
            super::parse_with(&name, &text, opts).unwrap();
        });
        let m = super::parse_with(&name, &text, opts).unwrap();
        let ir = m.ir().unwrap();
        eprintln!(
            "{name}: {:.1} MB, {} instructions; parse {:.0} ms, with instructions {:.0} ms (+{:.0}%)",
            text.len() as f64 / 1e6,
            ir.num_insts(),
            plain * 1e3,
            with_ir * 1e3,
            100.0 * (with_ir - plain) / plain
        );
    }
}

/// The instruction pass, and `function-attrs` on what it builds, never panic on
/// truncated or garbled text either; whatever they accept verifies.
#[test]
fn garbled_input_instruction_view_never_panics() {
    let mut seed = 0x2545F4914F6CDD1Du64;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut inputs = robustness_inputs();
    for t in ["t1", "t2", "t3", "t5"] {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/function_attrs/{t}.ll"));
        inputs.push((t.to_string(), std::fs::read_to_string(p).unwrap()));
    }
    // debug locations: calls with `!dbg`, scope and inlined-at chains
    inputs.push((
        "debugloc/nested.ll".to_string(),
        include_str!("../../../tests/fixtures/debugloc/nested.ll").to_string(),
    ));
    let opts = super::ParseOptions { instructions: true };
    let check = |name: &str, s: &str| {
        if let Ok(m) = super::parse_with(name, s, opts) {
            let ir = m.ir().unwrap();
            assert!(ir.verify().is_empty(), "{name}: {:?}", ir.verify());
            let inf = crate::cgscc::function_attrs::Inference::run_module(&m).unwrap();
            let _ = inf.diff_lines(&m);
        }
    };
    for (name, text) in inputs {
        let bytes = text.as_bytes();
        let stride = (bytes.len() / 200).max(1);
        let mut cut = 0;
        while cut < bytes.len() {
            check(&name, &String::from_utf8_lossy(&bytes[..cut]));
            cut += stride;
        }
        const JUNK: &[u8] = b"%@!#$\"(){}[]<>,=*:;\n x0-.\\\xc3";
        for _ in 0..std::env::var("ILKIT_FLIPS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300)
        {
            let mut b = bytes.to_vec();
            for _ in 0..1 + rnd(4) {
                let at = rnd(b.len().max(1));
                if at < b.len() {
                    b[at] = JUNK[rnd(JUNK.len())];
                }
            }
            check(&name, &String::from_utf8_lossy(&b));
        }
    }
}

/// The in-order helper of the parallel reader hands every item over once, in index
/// order, on any number of threads, and raises a panic of `make` on the calling thread
/// (no wait for an item that never comes).
#[test]
fn items_are_handed_over_in_order_and_panics_raised() {
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut got = Vec::new();
        pool.install(|| {
            super::in_order(
                100,
                |k| {
                    // later items finish first, to test the order
                    std::thread::sleep(std::time::Duration::from_micros(100 - k as u64));
                    k * k
                },
                |x| got.push(x),
            )
        });
        assert_eq!(got, (0..100).map(|k| k * k).collect::<Vec<_>>());
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                super::in_order(
                    20,
                    |k| {
                        assert!(k != 7, "item 7");
                        k
                    },
                    |_| {},
                )
            })
        }));
        assert!(panicked.is_err(), "{threads} threads");
    }
}
