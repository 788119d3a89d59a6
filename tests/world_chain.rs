//! The world contract as a property: random clang JSON translation units (functions with
//! CUDA attributes, parameters, locals, `if`s, returns, calls between them, nested
//! operators, casts and literals) and random generated worlds go through the public chain
//! import -> verify -> keep -> write -> read -> verify -> dump -> copy -> compare ->
//! verify, with no error and no panic. The `world` fuzz target runs the same chain on
//! mutated real dumps.

use ilkit::il::synth::generate;
use ilkit::il::{EntryKind, Il};
use ilkit::import::{binary_il, clang_json};
use ilkit::walk::device::{mark_device, DeviceOptions};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Expr {
    Int(u16),
    Param(u8),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Paren(Box<Expr>),
    Call(u8, Vec<Expr>),
}

#[derive(Clone, Debug)]
enum Stmt {
    Return(Expr),
    Local(Expr),
    If(Expr, Vec<Stmt>),
    Eval(Expr),
}

#[derive(Clone, Debug)]
struct Func {
    attrs: u8,
    params: u8,
    body: Vec<Stmt>,
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        any::<u16>().prop_map(Expr::Int),
        (0u8..3).prop_map(Expr::Param)
    ];
    leaf.prop_recursive(6, 48, 3, |inner| {
        prop_oneof![
            (
                prop::sample::select(vec!["+", "-", "*", "<", "==", "&&", "<<"]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(o, a, b)| Expr::Bin(o, Box::new(a), Box::new(b))),
            inner.clone().prop_map(|e| Expr::Paren(Box::new(e))),
            (0u8..6, prop::collection::vec(inner, 0..3)).prop_map(|(f, a)| Expr::Call(f, a)),
        ]
    })
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let simple = prop_oneof![
        expr().prop_map(Stmt::Return),
        expr().prop_map(Stmt::Local),
        expr().prop_map(Stmt::Eval),
    ];
    simple.prop_recursive(3, 16, 4, |inner| {
        (expr(), prop::collection::vec(inner, 0..4)).prop_map(|(c, b)| Stmt::If(c, b))
    })
}

fn func() -> impl Strategy<Value = Func> {
    (0u8..8, 0u8..4, prop::collection::vec(stmt(), 0..6)).prop_map(|(attrs, params, body)| Func {
        attrs,
        params,
        body,
    })
}

/// Writes clang's JSON for the functions: ids are unique, references point at ids
/// dumped before or after (as clang's do), types are `int`.
struct Writer {
    next: u64,
    out: String,
}

impl Writer {
    fn id(&mut self) -> String {
        self.next += 1;
        format!("0x{:x}", 0x1000 + self.next)
    }

    fn int(&self) -> &'static str {
        r#""type":{"qualType":"int"}"#
    }

    fn expr(&mut self, e: &Expr, f: usize, params: u8, nfuncs: usize) {
        let id = self.id();
        let ty = self.int();
        match e {
            Expr::Int(v) => self.out.push_str(&format!(
                r#"{{"id":"{id}","kind":"IntegerLiteral",{ty},"valueCategory":"prvalue","value":"{v}"}}"#
            )),
            Expr::Param(p) if params > 0 => {
                let p = *p % params;
                let cast = self.id();
                self.out.push_str(&format!(
                    r#"{{"id":"{cast}","kind":"ImplicitCastExpr",{ty},"valueCategory":"prvalue","castKind":"LValueToRValue","inner":[{{"id":"{id}","kind":"DeclRefExpr",{ty},"valueCategory":"lvalue","referencedDecl":{{"id":"{}","kind":"ParmVarDecl","name":"p{p}",{ty}}}}}]}}"#,
                    param_id(f, p)
                ))
            }
            Expr::Param(_) => self.out.push_str(&format!(
                r#"{{"id":"{id}","kind":"IntegerLiteral",{ty},"valueCategory":"prvalue","value":"0"}}"#
            )),
            Expr::Bin(op, a, b) => {
                self.out.push_str(&format!(
                    r#"{{"id":"{id}","kind":"BinaryOperator",{ty},"valueCategory":"prvalue","opcode":"{op}","inner":["#
                ));
                self.expr(a, f, params, nfuncs);
                self.out.push(',');
                self.expr(b, f, params, nfuncs);
                self.out.push_str("]}");
            }
            Expr::Paren(a) => {
                self.out.push_str(&format!(
                    r#"{{"id":"{id}","kind":"ParenExpr",{ty},"valueCategory":"prvalue","inner":["#
                ));
                self.expr(a, f, params, nfuncs);
                self.out.push_str("]}");
            }
            Expr::Call(g, args) => {
                let g = *g as usize % nfuncs;
                let decay = self.id();
                let dre = self.id();
                self.out.push_str(&format!(
                    r#"{{"id":"{id}","kind":"CallExpr",{ty},"valueCategory":"prvalue","inner":[{{"id":"{decay}","kind":"ImplicitCastExpr","type":{{"qualType":"int (*)(...)"}},"valueCategory":"prvalue","castKind":"FunctionToPointerDecay","inner":[{{"id":"{dre}","kind":"DeclRefExpr","type":{{"qualType":"int (...)"}},"valueCategory":"lvalue","referencedDecl":{{"id":"{}","kind":"FunctionDecl","name":"f{g}","type":{{"qualType":"int (...)"}}}}}}]}}"#,
                    func_id(g)
                ));
                for a in args {
                    self.out.push(',');
                    self.expr(a, f, params, nfuncs);
                }
                self.out.push_str("]}");
            }
        }
    }

    fn stmts(&mut self, body: &[Stmt], f: usize, params: u8, nfuncs: usize) {
        let id = self.id();
        self.out
            .push_str(&format!(r#"{{"id":"{id}","kind":"CompoundStmt","inner":["#));
        for (k, s) in body.iter().enumerate() {
            if k > 0 {
                self.out.push(',');
            }
            let sid = self.id();
            match s {
                Stmt::Return(e) => {
                    self.out
                        .push_str(&format!(r#"{{"id":"{sid}","kind":"ReturnStmt","inner":["#));
                    self.expr(e, f, params, nfuncs);
                    self.out.push_str("]}");
                }
                Stmt::Local(e) => {
                    let v = self.id();
                    let ty = self.int();
                    self.out.push_str(&format!(
                        r#"{{"id":"{sid}","kind":"DeclStmt","inner":[{{"id":"{v}","kind":"VarDecl","name":"v{k}",{ty},"init":"c","inner":["#
                    ));
                    self.expr(e, f, params, nfuncs);
                    self.out.push_str("]}]}");
                }
                Stmt::Eval(e) => self.expr(e, f, params, nfuncs),
                Stmt::If(c, b) => {
                    self.out
                        .push_str(&format!(r#"{{"id":"{sid}","kind":"IfStmt","inner":["#));
                    self.expr(c, f, params, nfuncs);
                    self.out.push(',');
                    self.stmts(b, f, params, nfuncs);
                    self.out.push_str("]}");
                }
            }
        }
        self.out.push_str("]}");
    }
}

fn func_id(f: usize) -> String {
    format!("0x{:x}", 0x10_0000 + f)
}

fn param_id(f: usize, p: u8) -> String {
    format!("0x{:x}", 0x20_0000 + f * 16 + p as usize)
}

fn tu(funcs: &[Func]) -> String {
    let mut w = Writer {
        next: 0,
        out: String::from(r#"{"id":"0x1","kind":"TranslationUnitDecl","inner":["#),
    };
    for (f, def) in funcs.iter().enumerate() {
        if f > 0 {
            w.out.push(',');
        }
        let ptypes = vec!["int"; def.params as usize].join(", ");
        let mangled = format!(
            "_Z2f{f}{}",
            if def.params == 0 {
                "v".to_string()
            } else {
                "i".repeat(def.params as usize)
            }
        );
        w.out.push_str(&format!(
            r#"{{"id":"{}","kind":"FunctionDecl","loc":{{"offset":{},"file":"t.cu","line":{},"col":1,"tokLen":3}},"name":"f{f}","mangledName":"{mangled}","type":{{"qualType":"int ({ptypes})"}},"inner":["#,
            func_id(f),
            f * 10,
            f + 1
        ));
        for p in 0..def.params {
            w.out.push_str(&format!(
                r#"{{"id":"{}","kind":"ParmVarDecl","name":"p{p}","type":{{"qualType":"int"}}}},"#,
                param_id(f, p)
            ));
        }
        w.stmts(&def.body, f, def.params, funcs.len());
        for (bit, attr) in [
            (1, "CUDAGlobalAttr"),
            (2, "CUDADeviceAttr"),
            (4, "CUDAHostAttr"),
        ] {
            if def.attrs & bit != 0 {
                let id = w.id();
                w.out
                    .push_str(&format!(r#",{{"id":"{id}","kind":"{attr}"}}"#));
            }
        }
        w.out.push_str("]}");
    }
    w.out.push_str("]}");
    w.out
}

/// The chain every verified world must survive.
fn chain(il: &mut Il) -> Result<(), String> {
    let problems = il.verify();
    if !problems.is_empty() {
        return Err(format!("imported: {problems:?}"));
    }
    let _ = mark_device(il, DeviceOptions::default());
    for device in [true, false] {
        let bytes = binary_il::write_il(il, device).map_err(|e| e.to_string())?;
        let mut back = binary_il::read_il(&bytes).map_err(|e| e.to_string())?;
        let problems = back.verify();
        if !problems.is_empty() {
            return Err(format!("read back: {problems:?}"));
        }
        ilkit::walk::display::dump_il(&mut back, false).map_err(|e| e.to_string())?;
    }
    ilkit::walk::display::dump_il(il, true).map_err(|e| e.to_string())?;
    let exprs: Vec<_> = il
        .entries()
        .filter(|&e| il.kind(e) == EntryKind::ExprNode)
        .take(24)
        .collect();
    let r = il.open_function_region(None);
    let mut cp = ilkit::share::copy::DeepCopy::new(0, r);
    for &e in &exprs {
        let c = cp.copy_eix(il, e).map_err(|e| e.to_string())?;
        let _ = ilkit::compare::compare_expressions(il, e, c, 0);
    }
    il.close_function_region(r).map_err(|e| e.to_string())?;
    let problems = il.verify();
    if !problems.is_empty() {
        return Err(format!("after copies: {problems:?}"));
    }
    let _ = ilkit::share::share_all_constants(il);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn random_translation_units_survive_the_chain(funcs in prop::collection::vec(func(), 1..6)) {
        let json = tu(&funcs);
        let mut il = Il::new();
        let imported = clang_json::import_reader(&mut il, json.as_bytes());
        prop_assert!(imported.is_ok(), "{:?}\n{json}", imported.err());
        let r = chain(&mut il);
        prop_assert!(r.is_ok(), "{:?}\n{json}", r.err());
    }

    #[test]
    fn generated_worlds_survive_the_chain(seed in any::<u64>(), scale in 0.001f64..0.01) {
        let mut il = generate(seed, scale);
        let r = chain(&mut il);
        prop_assert!(r.is_ok(), "{:?}", r.err());
    }
}

/// The generator above writes what the importer reads: a kernel calling a device
/// function keeps both.
#[test]
fn a_kernel_and_its_callee_are_kept() {
    let f = |attrs, body| Func {
        attrs,
        params: 1,
        body,
    };
    let funcs = [
        f(1, vec![Stmt::Eval(Expr::Call(1, vec![Expr::Param(0)]))]),
        f(
            2,
            vec![Stmt::Return(Expr::Bin(
                "+",
                Box::new(Expr::Param(0)),
                Box::new(Expr::Int(1)),
            ))],
        ),
        f(4, vec![Stmt::Return(Expr::Int(3))]),
    ];
    let mut il = Il::new();
    clang_json::import_reader(&mut il, tu(&funcs).as_bytes()).unwrap();
    let dk = mark_device(&mut il, DeviceOptions::default());
    let names = ilkit::walk::device::kept_routine_names(&il, &dk);
    assert!(names.contains(&"_Z2f0i".to_string()), "{names:?}");
    assert!(names.contains(&"_Z2f1i".to_string()), "{names:?}");
    assert!(!names.contains(&"_Z2f2i".to_string()), "{names:?}");
    chain(&mut il).unwrap();
}
