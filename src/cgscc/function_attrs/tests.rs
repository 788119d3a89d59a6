//! The probes of LLVM 14's rules (`tests/fixtures/function_attrs/t*.ll`), each with
//! `opt-14 -passes='cgscc(function-attrs)'`'s changes as `fa_diff.py` prints them.

use super::Inference;
use crate::import::llvm_ir::{parse_with, ParseOptions};

fn run(name: &str, text: &str) -> Vec<String> {
    let m = parse_with(name, text, ParseOptions { instructions: true }).unwrap();
    Inference::run_module(&m).unwrap().diff_lines(&m)
}

fn check(name: &str, text: &str, expected: &str) {
    let got = run(name, text);
    let want: Vec<&str> = expected.lines().filter(|l| !l.is_empty()).collect();
    let missing: Vec<&&str> = want
        .iter()
        .filter(|w| !got.iter().any(|g| g == *w))
        .collect();
    let extra: Vec<&String> = got.iter().filter(|g| !want.contains(&g.as_str())).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{name}:\n missing (LLVM has, we lack): {missing:#?}\n extra (we have, LLVM lacks): {extra:#?}"
    );
}

macro_rules! probe {
    ($test:ident, $file:literal) => {
        #[test]
        fn $test() {
            check(
                $file,
                include_str!(concat!(
                    "../../../tests/fixtures/function_attrs/",
                    $file,
                    ".ll"
                )),
                include_str!(concat!(
                    "../../../tests/fixtures/function_attrs/",
                    $file,
                    ".expected.txt"
                )),
            );
        }
    };
}

probe!(t1_memory_args_returns_atomics, "t1");
probe!(t2_recursion_unknown_calls_linkage, "t2");
probe!(t3_clang_o0_patterns, "t3");
probe!(t4_member_order_f_then_g, "t4");
probe!(t4c_member_order_g_then_f, "t4c");
probe!(t5_dead_sret_byval, "t5");

/// After inlining, in one pipeline (`t6.ll`): `function-attrs` reads the bodies the
/// inliner left, with the calls LLVM's `InlineFunction` adds (lifetime markers, noalias
/// scope declarations) and without the `byval` copy it elides for a read-only callee;
/// the lines of the functions the pipeline kept are opt-14's.
#[test]
fn t6_after_inlining_reads_the_inlined_bodies() {
    use crate::cgscc::{CgsccModule, NoInstrumentation, Options, PassManager};
    let text = include_str!("../../../tests/fixtures/function_attrs/t6.ll");
    let want = include_str!("../../../tests/fixtures/function_attrs/t6.expected.txt");
    let m = parse_with("t6.ll", text, ParseOptions { instructions: true }).unwrap();
    let mut cm = CgsccModule::new(&m, "t6.ll");
    let pipeline = "cgscc(devirt<4>(inline,function-attrs))";
    let mut pm = PassManager::from_text(pipeline, Options::default()).unwrap();
    pm.run(&mut cm, &mut NoInstrumentation).unwrap();
    let kept = |f| !cm.graph.is_removed(crate::callgraph::node_of_function(f));
    let got = cm.fn_attrs.as_ref().unwrap().diff_lines_of(&m, kept);
    let want: Vec<&str> = want.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(got, want);
    // without the inliner's bodies (the module as read), @f would be norecurse
    let alone = run("t6.ll", text);
    assert!(alone
        .iter()
        .any(|l| l.starts_with("@f fn") && l.contains("+norecurse")));
}

/// Every line of `a` not in `b`.
fn minus<'x>(a: &'x [String], b: &[String]) -> Vec<&'x String> {
    a.iter().filter(|l| !b.contains(l)).collect()
}

/// ilkit against opt-14 on the corpus's zlib -O0 module; the oracle is opt's output
/// (`tests/fixtures/function_attrs/zlib.O0.function-attrs.txt`, made by
/// `opt-14 -passes='cgscc(function-attrs)' -S` and `fa_diff.py`).
#[test]
fn zlib_o0_agrees_with_opt14() {
    let Some(path) = crate::test_support::corpus_file("llvm/zlib/zlib.O0.ll") else {
        eprintln!("skipped: corpus zlib.O0.ll missing");
        return;
    };
    let Ok(text) = crate::test_support::read(&path) else {
        eprintln!("skipped: {} unreadable", path.display());
        return;
    };
    let ours = run("zlib.O0.ll", &text);
    let oracle: Vec<String> =
        include_str!("../../../tests/fixtures/function_attrs/zlib.O0.function-attrs.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
    let agreement = super::Agreement::of(&ours, &oracle);
    eprintln!("{}", agreement.table());
    assert!(
        agreement.worst() >= 0.99,
        "only ilkit: {:#?}\nonly LLVM: {:#?}",
        minus(&ours, &oracle),
        minus(&oracle, &ours)
    );
}

/// opt-14's changes to the module at `path`, read back with ilkit's own reader; `None`
/// (with a message) when opt-14 or the module is missing.
fn opt14_oracle(path: &std::path::Path) -> Option<(crate::llvm::Module, Vec<String>)> {
    let opt = std::env::var("ILKIT_OPT14").unwrap_or_else(|_| "/usr/bin/opt-14".into());
    if !std::path::Path::new(&opt).exists() {
        eprintln!("skipped: {opt} missing");
        return None;
    }
    let Ok(text) = crate::test_support::read(path) else {
        eprintln!("skipped: {} missing", path.display());
        return None;
    };
    // The module goes in on standard input (the corpus keeps it gzipped).
    let mut child = std::process::Command::new(&opt)
        .args(["-passes=cgscc(function-attrs)", "-S", "-o", "-", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let feed = text.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(feed.as_bytes());
    });
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after_text = String::from_utf8(out.stdout).ok()?;
    let opts = ParseOptions { instructions: true };
    let name = path.display().to_string();
    let before = parse_with(&name, &text, opts).unwrap();
    let after = parse_with("opt-output.ll", &after_text, opts).unwrap();
    let lines = super::oracle_diff_lines(&before, &after);
    Some((before, lines))
}

/// ilkit against a live opt-14 on modules outside the corpus (`ILKIT_FA_MODULES`,
/// colon-separated `.ll` or `.ll.gz` paths, e.g. SQLite's and Lua's -O0 modules; default:
/// the corpus's zstd -O2 module).
/// Prints the agreement table per module; fails below 99 % for any attribute kind.
/// `cargo test --release --lib -- --ignored outside_modules --nocapture`
#[test]
#[ignore]
fn outside_modules_agree_with_opt14() {
    let list = std::env::var("ILKIT_FA_MODULES").unwrap_or_else(|_| {
        crate::test_support::corpus_file("llvm/zstd/zstd.O2.ll")
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    });
    let mut worst = 1.0f64;
    for p in list.split(':') {
        let path = std::path::Path::new(p);
        let Some((m, oracle)) = opt14_oracle(path) else {
            continue;
        };
        let ours = Inference::run_module(&m).unwrap().diff_lines(&m);
        let a = super::Agreement::of(&ours, &oracle);
        eprintln!("## {p}\n{}", a.table());
        for l in minus(&ours, &oracle).iter().take(40) {
            eprintln!("only ilkit: {l}");
        }
        for l in minus(&oracle, &ours).iter().take(40) {
            eprintln!("only LLVM:  {l}");
        }
        worst = worst.min(a.worst());
    }
    assert!(worst >= 0.99, "worst agreement {worst}");
}

/// The oracle read by ilkit's reader equals `fa_diff.py`'s on zlib (when opt-14 is
/// there), so the two ways of getting LLVM's answer agree.
#[test]
fn oracle_reader_matches_fa_diff_on_zlib() {
    let Some(path) = crate::test_support::corpus_file("llvm/zlib/zlib.O0.ll") else {
        eprintln!("skipped: corpus zlib.O0.ll missing");
        return;
    };
    let Some((_, lines)) = opt14_oracle(&path) else {
        return;
    };
    let fixture: Vec<String> =
        include_str!("../../../tests/fixtures/function_attrs/zlib.O0.function-attrs.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
    assert_eq!(lines, fixture);
}

/// Use lists made ahead (by a run of the inliner on another worker) are read in place
/// of the body's own when they fit it; ones that do not (made from another body) are
/// made again: the answer is `run_scc`'s either way.
#[test]
fn use_lists_made_ahead_are_checked_against_the_body() {
    let text = include_str!("../../../tests/fixtures/function_attrs/t1.ll");
    let m = parse_with("t1", text, ParseOptions { instructions: true }).unwrap();
    let ir = m.ir_arc().unwrap();
    let order: Vec<_> = (0..ir.funcs.len())
        .map(crate::llvm::FuncIdx::new)
        .filter(|&f| m.functions()[f].is_definition)
        .collect();
    let longest = *order
        .iter()
        .max_by_key(|&&f| ir.body(f).num_rows())
        .unwrap();
    let shortest = *order
        .iter()
        .min_by_key(|&&f| ir.body(f).num_rows())
        .unwrap();
    assert_ne!(longest, shortest);
    for (f, from) in [(longest, longest), (longest, shortest), (shortest, longest)] {
        let mut a = Inference::new(&m).unwrap();
        let mut b = Inference::new(&m).unwrap();
        let mut bodies = vec![None; ir.funcs.len()];
        let mut made = crate::llvm::ir::body::MadeExprs::new(&ir);
        a.run_scc(&[f], &mut bodies, &mut made);
        let made_ahead = ir.body(from).use_table();
        assert_eq!(made_ahead.fits(ir.body(f)), from == f);
        b.run_scc_with(
            &[f],
            &crate::idx::SharedVec::from_elem(None, ir.funcs.len()),
            std::sync::Arc::new(made.clone()),
            &mut [Some(made_ahead)],
        );
        assert_eq!(a.fn_attrs(f), b.fn_attrs(f));
        assert_eq!(a.ret_attrs(f), b.ret_attrs(f));
        for p in ir.args(f) {
            assert_eq!(a.arg_attrs(p), b.arg_attrs(p));
        }
    }
}
