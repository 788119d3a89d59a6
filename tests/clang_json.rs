//! The clang JSON AST importer: small checked-in fixtures (made with clang-19 from the
//! sources in `tests/fixtures/clang/src/`, see the README there) and malformed input. The
//! real CUDA dumps of `tests/corpus/cuda` are checked by `tests/corpus.rs`.

use ilkit::il::kinds::rf;
use ilkit::il::{fields as F, EntryKind, Il};
use ilkit::il::{ExprKind, Op};
use ilkit::il::{TemplateKind, TypeKind};
use ilkit::import::clang_json::{import_file, import_reader, Import};
use ilkit::walk::device::{
    kept_routine_names, kept_routine_table, mark_device, routine_flag_words, DeviceOptions,
};
use std::io::Read;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clang")
        .join(name)
}

fn read_gz(name: &str) -> Vec<u8> {
    let f = std::fs::File::open(fixture(name)).unwrap();
    let mut d = flate2::read::GzDecoder::new(f);
    let mut v = Vec::new();
    d.read_to_end(&mut v).unwrap();
    v
}

fn lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name))
        .unwrap()
        .lines()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && !s.starts_with('#'))
        .collect()
}

fn import(name: &str) -> (Il, Import) {
    let mut il = Il::new();
    let imp = import_file(&mut il, &fixture(name)).unwrap();
    (il, imp)
}

#[test]
fn kernels_fixture_imports() {
    let (il, imp) = import("kernels.json.gz");
    let r = &imp.report;
    assert!(r.nodes > 500, "{r:?}");
    assert!(il.primary_scope.is_some());
    assert!(
        r.unresolved_pct() < 1.0,
        "unresolved {:?}",
        r.unresolved_type_names
    );
    // Kernels and their mangled names.
    let mangled: Vec<String> = il
        .kind_list(EntryKind::Routine)
        .map(|e| String::from_utf8_lossy(il.string(e, 1)).into_owned())
        .collect();
    assert!(mangled.iter().any(|m| m == "_Z4fillPfi3ArrIfLi4EE"));
    assert!(mangled
        .iter()
        .any(|m| m == "_Z6binaryIfN3ops3AddEEvPKT_S4_PS2_j"));
    // The main file is a source file entry with the stub in its include tree.
    assert!(imp.files.iter().any(|f| f.ends_with("kernels.cu")));
    // __constant__ and __device__ variables carry their memory space.
    let spaces: Vec<(String, u8)> = il
        .kind_list(EntryKind::Variable)
        .map(|e| {
            (
                String::from_utf8_lossy(il.name(e)).into_owned(),
                il.variable(e).cuda_space(),
            )
        })
        .collect();
    assert!(spaces.contains(&("coeffs".to_string(), 3)), "{spaces:?}");
    assert!(spaces.contains(&("counter".to_string(), 1)));
    assert!(spaces.contains(&("tile".to_string(), 2)));
    // threadIdx.x became a member reference to the field x.
    let mut found = false;
    let cols = il.expr_columns();
    for (row, &e) in cols.eix.iter().enumerate() {
        if e.is_none() || cols.op(row) != Op::Member {
            continue;
        }
        if let Some(m) = il.ref_eix(e, F::EXPR_NODE_ENTITY) {
            if il.kind(m) == EntryKind::Field && il.name(m) == b"x" {
                found = true;
            }
        }
    }
    assert!(found, "threadIdx.x is not a field reference");
    // Positions: clang prints file and line only when they change; `fill` is at
    // kernels.cu:43:17 (its name), in the file entry of kernels.cu.
    let fill = il
        .kind_list(EntryKind::Routine)
        .find(|&e| il.string(e, 1) == b"_Z4fillPfi3ArrIfLi4EE")
        .unwrap();
    let p = il.pos(fill);
    assert!(imp.files[p.file as usize].ends_with("kernels.cu"));
    assert_eq!((p.line, p.col), (43, 17));
    // Enumerators with their values (MODE_B = 4 explicit, MODE_A = 0 implicit).
    let enumerators: Vec<(Vec<u8>, i64)> = il
        .kind_list(EntryKind::Constant)
        .filter(|&c| !il.string(c, 1).is_empty())
        .map(|c| (il.string(c, 1).to_vec(), il.constant(c).value()))
        .collect();
    assert!(
        enumerators.contains(&(b"MODE_A".to_vec(), 0)),
        "{enumerators:?}"
    );
    assert!(enumerators.contains(&(b"MODE_B".to_vec(), 4)));
    // The kernel template: two parameters, a routine pattern, and the explicit
    // instantiation linked to it.
    let tm = il
        .kind_list(EntryKind::Template)
        .find(|&t| il.name(t) == b"binary")
        .unwrap();
    assert_eq!(il.list_eix(tm, F::TEMPLATE_PARAMS).len(), 2);
    let pat = il.child_eix(tm, F::TEMPLATE_PATTERN).unwrap();
    assert_eq!(il.kind(pat), EntryKind::Routine);
    let inst = il
        .kind_list(EntryKind::Routine)
        .find(|&e| il.string(e, 1) == b"_Z6binaryIfN3ops3AddEEvPKT_S4_PS2_j")
        .unwrap();
    assert_eq!(il.ref_eix(inst, F::ROUTINE_PRIMARY_TEMPLATE), Some(tm));
    // Kernel launches and lambdas.
    let cols = il.expr_columns();
    let live = || (0..cols.eix.len()).filter(|&r| !cols.eix[r].is_none());
    assert_eq!(
        live()
            .filter(|&r| cols.expr_kind(r) == ExprKind::Operation && cols.op(r) == Op::KernelCall)
            .count(),
        2
    );
    assert!(
        live().any(|r| cols.expr_kind(r) == ExprKind::Lambda),
        "no lambda expression"
    );
    // The kernel's body lives in its own function region; the routine in file scope.
    assert_eq!(il.region_of(fill), ilkit::il::RegionIdx::FILE_SCOPE);
    let body = il.child_eix(fill, F::ROUTINE_BODY_SCOPE).unwrap();
    assert_ne!(il.region_of(body), ilkit::il::RegionIdx::FILE_SCOPE);
}

/// Kept routines against clang's own device code generation (`define`s of
/// `--cuda-device-only -emit-llvm`), with the expected differences written down.
#[test]
fn kernels_kept_routines_match_clang() {
    let (mut il, _) = import("kernels.json.gz");
    let dk = mark_device(&mut il, DeviceOptions::default());
    let kept = kept_routine_names(&il, &dk);
    let expected = lines("kernels.kept.txt");
    assert_eq!(kept, expected, "kept routines changed");
    let clang = lines("kernels.defines.txt");
    // Every routine clang emits is kept.
    for d in &clang {
        assert!(kept.contains(d), "clang defines {d} but it is not kept");
    }
    // The rest are the two classes clang never emits: always_inline routines (`ops::sq`
    // is `__forceinline__`), inlined and dropped, and implicit trivial special members
    // (`ops::Add`'s default constructor), which generate no code.
    let table = kept_routine_table(&il, &dk);
    for (k, bits) in &table {
        if !clang.contains(k) {
            assert!(
                bits & (rf::ALWAYS_INLINE | rf::IMPLICIT) != 0,
                "unexplained kept routine {k}: {}",
                routine_flag_words(*bits)
            );
        }
    }
}

#[test]
fn malformed_input_gives_errors_not_panics() {
    let full = read_gz("kernels.json.gz");
    // Truncated at many points: an error with an offset no larger than the input.
    for cut in [
        0usize,
        1,
        2,
        10,
        100,
        1000,
        full.len() / 3,
        full.len() / 2,
        full.len() - 2,
    ] {
        let mut il = Il::new();
        let e = import_reader(&mut il, &full[..cut]).unwrap_err();
        assert!(e.offset <= cut as u64, "{e}");
        assert!(!e.msg.is_empty());
    }
    // Garbled bytes at many points: an error or a successful import, never a panic.
    for (i, pos) in (1..40).map(|k| full.len() * k / 41).enumerate() {
        let mut g = full.clone();
        g[pos] = [b'}', b']', b'"', b'{', b'x', b'\\'][i % 6];
        let mut il = Il::new();
        let _ = import_reader(&mut il, &g[..]);
    }
    // Random truncations and byte flips of a small dump (splitmix64, fixed seed).
    let small = br#"{"id":"0x1","kind":"TranslationUnitDecl","loc":{},"inner":[{"id":"0x2","kind":"FunctionDecl","loc":{"offset":1,"file":"a.cu","line":2,"col":3,"tokLen":1},"name":"f","mangledName":"_Z1fv","type":{"qualType":"void ()"},"inner":[{"id":"0x3","kind":"CompoundStmt","inner":[{"id":"0x4","kind":"ReturnStmt"}]},{"id":"0x5","kind":"CUDAGlobalAttr"}]}]}"#;
    let mut x: u64 = 42;
    let mut rnd = move || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for _ in 0..2000 {
        let mut g = small.to_vec();
        for _ in 0..1 + rnd() % 4 {
            let i = (rnd() % g.len() as u64) as usize;
            let pool: &[u8] = b"{}[]\":,0x\\ a";
            g[i] = pool[(rnd() % pool.len() as u64) as usize];
        }
        let cut = if rnd() % 3 == 0 {
            (rnd() % g.len() as u64) as usize
        } else {
            g.len()
        };
        let mut il = Il::new();
        if let Err(e) = import_reader(&mut il, &g[..cut]) {
            assert!(e.offset <= cut as u64, "{e}");
        }
    }
    // Wrong types.
    for bad in [
        r#"[1, 2]"#,
        r#"{"id": 5, "kind": "TranslationUnitDecl"}"#,
        r#"{"id": "0x1", "kind": 7}"#,
        r#"{"id": "0x1", "kind": "TranslationUnitDecl", "inner": {"a": 1}}"#,
        r#"{"id": "0x1", "kind": "TranslationUnitDecl", "inner": [1]}"#,
        r#"{"id": "0x1", "kind": "TranslationUnitDecl"} trailing"#,
    ] {
        let mut il = Il::new();
        let e = import_reader(&mut il, bad.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("byte"), "{e}");
    }
    // JSON that is not a clang AST, and invalid UTF-8 in a string.
    for (bad, what, at) in [
        (&br#"{"a": 1}"#[..], "expected a clang AST", 8),
        (
            br#"{"id": "0x1", "kind": "FunctionDecl"}"#,
            "not a TranslationUnitDecl",
            36,
        ),
        (
            b"{\"id\": \"0x1\", \"kind\": \"TranslationUnitDecl\", \"name\": \"a\xffb\"}",
            "UTF-8",
            55,
        ),
        // Keys out of clang's order (a JSON tool that sorts them): a node's "kind" after
        // its "inner" (it was read as `{}`), an error, never a panic.
        (
            br#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[{"id":"0x2","inner":[{"id":"0x3","kind":"ParmVarDecl","name":"x"}],"kind":"FunctionDecl","name":"f"}]}"#,
            "expected clang's key order",
            138,
        ),
    ] {
        let mut il = Il::new();
        let e = import_reader(&mut il, bad).unwrap_err();
        assert!(e.msg.contains(what), "{e}");
        assert_eq!(e.offset, at, "{e}");
    }
}

#[test]
fn unknown_kinds_and_dangling_ids_become_entries() {
    let src = r#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[
      {"id":"0x2","kind":"FrobnicateDecl","name":"f","inner":[
        {"id":"0x3","kind":"WeirdExpr","type":{"qualType":"int"}}]},
      {"id":"0x4","kind":"FunctionDecl","name":"g","mangledName":"_Z1gv","type":{"qualType":"void ()"},
       "inner":[{"id":"0x5","kind":"CompoundStmt","inner":[
         {"id":"0x6","kind":"CallExpr","type":{"qualType":"void"},"inner":[
           {"id":"0x7","kind":"DeclRefExpr","type":{"qualType":"void ()"},
            "referencedDecl":{"id":"0x99","kind":"FunctionDecl","name":"never_dumped"}}]}]}]},
      {"id":"0x8","kind":"CUDAGlobalAttr"}]}"#;
    let mut il = Il::new();
    let imp = import_reader(&mut il, src.as_bytes()).unwrap();
    assert_eq!(imp.report.dangling_ids, 1);
    assert!(imp.report.opaque() >= 1, "{:?}", imp.report.kinds);
    assert!(imp
        .report
        .kinds
        .iter()
        .any(|k| k.0 == "FrobnicateDecl" && k.2 == 1));
    let names: Vec<_> = il
        .kind_list(EntryKind::Routine)
        .map(|e| String::from_utf8_lossy(il.name(e)).into_owned())
        .collect();
    assert!(names.contains(&"never_dumped".to_string()));
}

#[test]
fn deep_nesting_uses_no_recursion() {
    // 100 000 nested parentheses: an explicit stack, no stack overflow.
    let n = 100_000;
    let mut s = String::from(
        r#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[{"id":"0x2","kind":"VarDecl","name":"v","type":{"qualType":"int"},"inner":["#,
    );
    for i in 0..n {
        s.push_str(&format!(
            r#"{{"id":"0x{:x}","kind":"ParenExpr","type":{{"qualType":"int"}},"inner":["#,
            i + 16
        ));
    }
    s.push_str(r#"{"id":"0x3","kind":"IntegerLiteral","type":{"qualType":"int"},"value":"7"}"#);
    for _ in 0..n {
        s.push_str("]}");
    }
    s.push_str("]}]}");
    let mut il = Il::new();
    let imp = import_reader(&mut il, s.as_bytes()).unwrap();
    assert_eq!(imp.report.nodes as usize, n + 3);
}

/// Type resolution: default template arguments left out of printed types, an inline
/// namespace, a partial specialization, member typedefs used unqualified, a record used
/// before its definition, function pointers in a `__constant__` table. Kept routines equal
/// clang's `define`s exactly.
#[test]
fn templates_fixture_resolves_types_and_matches_clang() {
    let (mut il, imp) = import("templates.json.gz");
    let r = &imp.report;
    // The one name no dump ever defines: clang's implicit `__NSConstantString_tag`.
    assert_eq!(
        r.unresolved_type_names
            .iter()
            .map(|x| x.0.as_str())
            .collect::<Vec<_>>(),
        vec!["__NSConstantString_tag"]
    );
    // The partial specialization is a template of kind 6 with one parameter.
    let partial = il
        .kind_list(EntryKind::Template)
        .find(|&t| il.template(t).template_kind() == TemplateKind::PartialSpecialization)
        .expect("partial specialization template");
    assert_eq!(il.list_eix(partial, F::TEMPLATE_PARAMS).len(), 1);
    // `lib::Vec<float>` (printed without its default `Alloc<float>`) is the specialization
    // with its two fields.
    let k = il
        .kind_list(EntryKind::Routine)
        .find(|&e| il.name(e) == b"k")
        .unwrap();
    let p0 = il.list_eix(k, F::ROUTINE_PARAMS)[0];
    let t0 = il.child_eix(p0, F::PARAM_TYPE_TYPE).unwrap();
    let t0 = ilkit::import::clang_json::types::Types::strip(&il, t0);
    assert_eq!(il.ty(t0).type_kind(), TypeKind::Struct);
    assert_eq!(il.list_eix(t0, F::TYPE_FIELDS).len(), 2);
    let dk = mark_device(&mut il, DeviceOptions::default());
    assert_eq!(kept_routine_names(&il, &dk), lines("templates.defines.txt"));
}

/// The routine named `name` that has template arguments (an instantiation), or the one
/// without (the pattern).
fn routine(il: &Il, name: &str, instance: bool) -> ilkit::il::Eix {
    il.kind_list(EntryKind::Routine)
        .find(|&r| {
            il.name(r) == name.as_bytes()
                && il.child_eix(r, F::ROUTINE_TEMPLATE_INFO).is_some() == instance
        })
        .unwrap_or_else(|| panic!("routine {name} (instance: {instance})"))
}

/// The expression nodes of routine `r`'s body (statements, scopes, variables and their
/// initializers; not types or other routines).
fn body_exprs(il: &Il, r: ilkit::il::Eix) -> Vec<ilkit::il::Eix> {
    let mut out = Vec::new();
    let mut stack: Vec<_> = il.child_eix(r, F::ROUTINE_BODY_SCOPE).into_iter().collect();
    while let Some(e) = stack.pop() {
        match il.kind(e) {
            EntryKind::Type | EntryKind::Routine | EntryKind::Template => continue,
            EntryKind::ExprNode => out.push(e),
            _ => {}
        }
        stack.extend(il.children(e).iter().copied().filter(|c| !c.is_none()));
    }
    out
}

/// `packs.cu`: a pack expansion is a node of its own over its pattern, a `sizeof...`
/// names its pack (clang's dump gives only the name): the template parameter pack `Ts`,
/// or the function parameter pack `args` of the pattern (in the instance too, whose own
/// parameters are the expanded ones). Every routine clang defines is kept.
#[test]
fn packs_fixture_imports_expansions() {
    let (mut il, _) = import("packs.json.gz");
    let exprs: Vec<_> = il
        .kind_list(EntryKind::Routine)
        .flat_map(|r| body_exprs(&il, r))
        .collect();
    let expansion = exprs
        .iter()
        .find(|&&e| il.expr(e).expr_kind() == ExprKind::PackExpansion)
        .expect("a pack expansion");
    assert_eq!(il.list_eix(*expansion, F::EXPR_NODE_OPERANDS).len(), 1);
    let sizeof_packs: Vec<_> = exprs
        .iter()
        .filter(|&&e| {
            il.expr(e).expr_kind() == ExprKind::Operation && il.expr(e).op() == Op::SizeofPack
        })
        .map(|&e| il.ref_eix(e, F::EXPR_NODE_ENTITY).expect("the pack"))
        .collect();
    // call_with's `sizeof...(Ts)`, count's `sizeof...(args)`, total's `sizeof...(Ns)`, in
    // the 3 patterns and their 4 instances.
    assert_eq!(sizeof_packs.len(), 7, "{sizeof_packs:?}");
    let args_pack = il.list_eix(routine(&il, "count", false), F::ROUTINE_PARAMS)[0];
    assert!(il.param_type(args_pack).is_pack());
    for p in sizeof_packs {
        match il.kind(p) {
            EntryKind::TemplateParam => {
                assert!(il.template_param(p).is_pack());
                assert!([&b"Ts"[..], b"Ns"].contains(&il.name(p)));
            }
            k => assert_eq!((k, p), (EntryKind::ParamType, args_pack)),
        }
    }
    // The fold keeps its operands; its operator is not in the dump.
    let fold = exprs
        .iter()
        .find(|&&e| il.expr(e).expr_kind() == ExprKind::FoldExpression)
        .expect("a fold");
    assert_eq!(il.expr(*fold).op(), Op::Dependent);
    let dk = mark_device(&mut il, DeviceOptions::default());
    assert_eq!(kept_routine_names(&il, &dk), lines("packs.defines.txt"));
}

/// `spell.cu`: `const Box<struct item> &` names the specialization `Box<item, false>`,
/// in `count_items`' pattern and in its instance alike (inside a pattern a template-id
/// over no parameter is not a dependent one, and a dependent one made there does not
/// stand for the spelling outside); `constant<bool, true>` names the specialization clang
/// lists with the argument -1. Without `Box`'s pattern in the dump
/// (`spell_nopattern.json.gz`) no specialization stands in for it.
#[test]
fn spell_fixture_resolves_library_spellings() {
    let (mut il, _) = import("spell.json.gz");
    let class_of_param = |il: &Il, r, n: usize| {
        let p = il.list_eix(r, F::ROUTINE_PARAMS)[n];
        let t = il.child_eix(p, F::PARAM_TYPE_TYPE).unwrap();
        ilkit::import::clang_json::types::Types::strip(il, t)
    };
    for instance in [false, true] {
        let c = class_of_param(&il, routine(&il, "count_items", instance), 0);
        assert_eq!(
            il.ty(c).type_kind(),
            TypeKind::Struct,
            "instance: {instance}"
        );
        assert!(il.child_eix(c, F::TYPE_TEMPLATE_INFO).is_some());
        assert!(
            il.name(c).starts_with(b"Box<item"),
            "{:?}",
            String::from_utf8_lossy(il.name(c))
        );
    }
    let c = class_of_param(&il, routine(&il, "flag", true), 0);
    assert_eq!(il.ty(c).type_kind(), TypeKind::Struct);
    assert!(il.child_eix(c, F::TYPE_TEMPLATE_INFO).is_some());
    let dk = mark_device(&mut il, DeviceOptions::default());
    assert_eq!(kept_routine_names(&il, &dk), lines("spell.defines.txt"));

    let (il, _) = import("spell_nopattern.json.gz");
    let boxes: Vec<_> = il
        .kind_list(EntryKind::Template)
        .filter(|&t| il.name(t) == b"Box")
        .collect();
    assert!(!boxes.is_empty());
    for t in boxes {
        assert_eq!(il.child_eix(t, F::TEMPLATE_PATTERN), None);
    }
}
