//! CGSCC pass manager, inliner knobs, replay, re-visitation, devirt limit, pipeline
//! errors, CLI, and the corpus (`tests/corpus`, or `$ILKIT_CORPUS`).

mod common;
use ilkit::callgraph::{NodeIdx, SccIdx};
use ilkit::cgscc::summary::{CallLoc, CallSummary, CallTarget, HistIdx, LocIdx};
use ilkit::cgscc::{
    check_visit_order, parse_pipeline, Abort, CgsccModule, CgsccPass, InlineModel, InlineParams,
    NoInstrumentation, Options, PassContext, PassLog, PassManager, PassResult, Profile, Remark,
    RemarkKind, RunReport, MAX_DEVIRT_MESSAGE,
};
use ilkit::llvm::Module;

fn parse(file: &str, text: &str) -> Result<Module, ilkit::import::llvm_ir::ParseError> {
    Module::from_ll_str(file, text)
}
use std::process::Command;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/cgscc/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> CgsccModule {
    let path = fixture(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let m = parse(&path, &text).unwrap();
    CgsccModule::new(&m, name)
}

fn run_with(name: &str, pipeline: &str, opts: Options) -> (CgsccModule, Result<RunReport, Abort>) {
    let mut m = load(name);
    let initial = m.graph.clone();
    let mut pm = PassManager::from_text(pipeline, opts).unwrap();
    let r = pm.run(&mut m, &mut NoInstrumentation);
    assert!(m.graph.verify().is_empty(), "{:?}", m.graph.verify());
    if let Ok(rep) = &r {
        let errs = check_visit_order(&initial, &m.summ, &rep.visits);
        assert!(errs.is_empty(), "{errs:?}");
    }
    (m, r)
}

/// The summary estimate with NVIDIA's knobs (what `ilkit scan` runs); these tests read
/// modules without their instruction view.
fn estimate() -> Options {
    Options {
        inline: InlineParams {
            model: InlineModel::Summary,
            ..InlineParams::for_profile(Profile::Cicc)
        },
        ..Options::default()
    }
}

/// The summary estimate with LLVM's threshold rules.
fn stock() -> Options {
    let mut o = estimate();
    o.inline.profile = Profile::Llvm;
    o
}

fn remark<'a>(m: &'a CgsccModule, caller: &str, callee: &str) -> &'a Remark {
    m.remarks
        .iter()
        .find(|r| &*r.caller == caller && &*r.callee == callee)
        .unwrap_or_else(|| panic!("no remark {callee} -> {caller}: {:#?}", m.remarks))
}

fn visits(m: &CgsccModule, r: &RunReport) -> Vec<Vec<String>> {
    r.visits
        .iter()
        .map(|v| {
            v.nodes
                .iter()
                .map(|&n| m.graph.name(n).unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn knobs_nvidia_budget_inlines_big() {
    let (m, r) = run_with("knobs.ll", "cgscc(inline)", estimate());
    r.unwrap();
    let k = |c| remark(&m, "main", c).kind;
    assert_eq!(k("small"), RemarkKind::Inlined);
    assert_eq!(k("big"), RemarkKind::Inlined);
    assert_eq!(k("never"), RemarkKind::NeverInline);
    assert_eq!(k("always"), RemarkKind::AlwaysInline);
    assert_eq!(k("ext"), RemarkKind::NoDefinition);
    let big = remark(&m, "main", "big");
    assert_eq!(big.threshold, Some(20_000));
    assert!(big.to_string().contains("cost=290, threshold="), "{big}");
    assert!(remark(&m, "main", "always")
        .to_string()
        .contains("(cost=always)"));
    assert!(remark(&m, "main", "never")
        .to_string()
        .contains("cost=never"));
    // local callees left without uses are gone; the caller is flat but for noinline/ext
    let main = m.summ.index_of("main").unwrap();
    for dead in ["small", "always"] {
        assert!(m.graph.is_removed(m.summ.index_of(dead).unwrap()), "{dead}");
    }
    let calls: Vec<_> = m
        .graph
        .cached_edges(main)
        .filter(|e| e.is_call())
        .filter_map(|e| m.graph.name(e.target))
        .collect();
    assert_eq!(calls, ["never", "rec"]);
}

#[test]
fn knobs_stock_threshold_and_budget() {
    let (m, _) = run_with("knobs.ll", "cgscc(inline)", stock());
    let big = remark(&m, "main", "big");
    assert_eq!(big.kind, RemarkKind::TooBig);
    assert_eq!((big.cost, big.threshold), (Some(290), Some(225)));
    assert!(big
        .to_string()
        .contains("too costly to inline (cost=290, threshold=225)"));
    assert_eq!(remark(&m, "main", "small").kind, RemarkKind::Inlined);
    // a small budget
    let mut o = estimate();
    o.inline.inline_budget = 200;
    let (m, _) = run_with("knobs.ll", "cgscc(inline)", o);
    assert_eq!(remark(&m, "main", "big").kind, RemarkKind::TooBig);
    // aggressive-inline: budget 40,000
    let mut o = estimate();
    o.inline.aggressive_inline = true;
    let (m, _) = run_with("knobs.ll", "cgscc(inline)", o);
    let th = remark(&m, "main", "small").threshold;
    assert_eq!(th, Some(40_000));
}

#[test]
fn knob_nv_inline_all() {
    let mut o = stock();
    o.inline.nv_inline_all = true;
    let (m, _) = run_with("knobs.ll", "cgscc(inline)", o);
    assert_eq!(remark(&m, "main", "big").kind, RemarkKind::Inlined);
    assert_eq!(remark(&m, "main", "never").kind, RemarkKind::NeverInline);
    // rec is inlined once; the copy's self call is refused by the inline history
    assert!(m
        .remarks
        .iter()
        .any(|r| &*r.callee == "rec" && &*r.caller == "main" && r.kind == RemarkKind::NotInlined));
}

#[test]
fn knob_function_inline_cost_multiplier() {
    let (m, _) = run_with("knobs.ll", "cgscc(inline)", stock());
    let rec = remark(&m, "main", "rec");
    assert_eq!(rec.kind, RemarkKind::Inlined);
    let c = rec.cost.unwrap();
    let mut o = stock();
    o.inline.function_inline_cost_multiplier = 20;
    let (m, _) = run_with("knobs.ll", "cgscc(inline)", o);
    let rec = remark(&m, "main", "rec");
    assert_eq!((rec.kind, rec.cost), (RemarkKind::TooBig, Some(c * 20)));
    // rec's own self call
    assert_eq!(remark(&m, "rec", "rec").kind, RemarkKind::NotInlined);
}

#[test]
fn knob_intra_scc_cost_multiplier_and_split_revisit() {
    let (m, r) = run_with("split.ll", "cgscc(inline)", stock());
    let r = r.unwrap();
    let first = &m.remarks[0];
    assert_eq!(first.kind, RemarkKind::Inlined);
    // body cost 5*22 + 25 - 15 = 120, doubled inside the SCC
    assert_eq!(first.cost, Some(220)); // (5*20 + 25 - 15) * 2
    let v = visits(&m, &r);
    assert_eq!(v[0].len(), 2, "{v:?}");
    // the split pieces are visited after the pair, callee piece first
    assert_eq!(v[1..3].iter().map(|s| s.len()).collect::<Vec<_>>(), [1, 1]);
    assert_eq!(v.last().unwrap(), &["top"]);
    let mut o = stock();
    o.inline.intra_scc_cost_multiplier = 3;
    let (m, r) = run_with("split.ll", "cgscc(inline)", o);
    assert_eq!(m.remarks[0].kind, RemarkKind::TooBig);
    assert_eq!(visits(&m, &r.unwrap()).len(), 2);
}

/// Test pass: on the SCC holding `func`, turns one of its references into a call per
/// run (as devirtualization does), up to `limit` promotions.
struct Promote {
    func: &'static str,
    limit: usize,
    done: usize,
}

impl CgsccPass for Promote {
    fn name(&self) -> String {
        "promote".into()
    }
    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        let Some(n) = cx.m.summ.index_of(self.func) else {
            return Ok(PassResult::Unchanged);
        };
        if cx.m.graph.scc_of(n) != Some(scc) || self.done >= self.limit {
            return Ok(PassResult::Unchanged);
        }
        let refs = &mut cx.m.summ.refs[n];
        let Some(pos) = refs.iter().position(|&t| cx.m.summ.is_definition[t]) else {
            return Ok(PassResult::Unchanged);
        };
        let t: NodeIdx = refs.remove(pos);
        let loc = cx.m.summ.locs.push(CallLoc {
            func: n,
            ordinal: 99,
            inlined_at: LocIdx::NONE,
            inner: LocIdx::NONE,
        });
        cx.m.summ.calls[n].push(CallSummary {
            callee: CallTarget::Function(t),
            arg_count: 0,
            loc,
            history: HistIdx::NONE,
        });
        self.done += 1;
        let edges = cx.m.summary_edges(n);
        cx.set_function_edges(scc, n, &edges);
        Ok(PassResult::Changed)
    }
}

fn run_passes(
    name: &str,
    passes: Vec<Box<dyn CgsccPass>>,
    opts: Options,
) -> (CgsccModule, Result<RunReport, Abort>, PassLog) {
    let mut m = load(name);
    let initial = m.graph.clone();
    let mut pm = PassManager::new(passes, opts);
    let mut log = PassLog::default();
    let r = pm.run(&mut m, &mut log);
    assert!(m.graph.verify().is_empty());
    if let Ok(rep) = &r {
        assert!(check_visit_order(&initial, &m.summ, &rep.visits).is_empty());
    }
    (m, r, log)
}

#[test]
fn merge_revisits_merged_scc_only() {
    let p = Promote {
        func: "y",
        limit: 1,
        done: 0,
    };
    let (m, r, log) = run_passes("merge.ll", vec![Box::new(p)], estimate());
    let v = visits(&m, &r.unwrap());
    // {y} first; the merge invalidates {x}'s SCC: it is never visited on its own
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(v[0], ["y"]);
    let mut merged = v[1].clone();
    merged.sort();
    assert_eq!(merged, ["x", "y"]);
    assert_eq!(log.lines.len(), 2);
    assert_eq!(log.lines[0], "Running pass: promote on (y)");
    assert!(log.lines[1].contains('x') && log.lines[1].contains('y'));
}

fn devirt(max: u32, abort: bool) -> (CgsccModule, Result<RunReport, Abort>, PassLog) {
    let inner: Vec<Box<dyn CgsccPass>> = vec![Box::new(Promote {
        func: "z",
        limit: 5,
        done: 0,
    })];
    let pass = ilkit::cgscc::DevirtRepeated { max, passes: inner };
    let o = Options {
        abort_on_max_devirt_iterations: abort,
        ..estimate()
    };
    run_passes("devirt.ll", vec![Box::new(pass)], o)
}

#[test]
fn devirt_iteration_limit_and_diagnostic() {
    // converges: 5 promotions + 1 quiet run
    let (m, _, log) = devirt(10, false);
    assert!(m.diagnostics.is_empty());
    let runs = log
        .lines
        .iter()
        .filter(|l| l == &"Running pass: promote on (z)")
        .count();
    assert_eq!(runs, 6);
    // hits the limit: LLVM 14 runs the pipeline once, then repeats it at most `max`
    // times
    let (m, r, log) = devirt(3, false);
    r.unwrap();
    let runs = log
        .lines
        .iter()
        .filter(|l| l.contains("promote on (z)"))
        .count();
    assert_eq!(runs, 4);
    assert_eq!(m.diagnostics, [format!("{MAX_DEVIRT_MESSAGE} on SCC (z)")]);
    // aborts
    let (_, r, _) = devirt(3, true);
    assert_eq!(r.unwrap_err(), Abort(MAX_DEVIRT_MESSAGE.into()));
}

#[test]
fn devirt_through_inlining() {
    let (m, r) = run_with("promote.ll", "cgscc(devirt<0>(inline))", estimate());
    r.unwrap();
    assert_eq!(m.diagnostics, [format!("{MAX_DEVIRT_MESSAGE} on SCC (a)")]);
    let (m, _) = run_with("promote.ll", "cgscc(devirt<1>(inline))", estimate());
    assert!(m.diagnostics.is_empty());
    assert!(m.graph.is_removed(m.summ.index_of("b").unwrap()));
    let o = Options {
        abort_on_max_devirt_iterations: true,
        ..estimate()
    };
    let (_, r) = run_with("promote.ll", "cgscc(devirt<0>(inline))", o.clone());
    assert!(r.is_err());
    let (_, r) = run_with("promote.ll", "cgscc(devirt<1>(inline))", o);
    assert!(r.is_ok());
}

#[test]
fn kernels_are_roots_visited_last_and_attrs() {
    let (m, r) = run_with("kernels.ll", "cgscc(function-attrs)", estimate());
    let v = visits(&m, &r.unwrap());
    let pos = |n: &str| v.iter().position(|s| s.iter().any(|x| x == n)).unwrap();
    assert!(pos("dev2") < pos("dev1") && pos("dev1") < pos("k1") && pos("dev2") < pos("k2"));
    let k = |n| m.summ.is_kernel[m.summ.index_of(n).unwrap()];
    assert!(k("k1") && k("k2") && !k("dev1"));
    let a = |n| m.inferred_attrs(m.summ.index_of(n).unwrap());
    assert_eq!(a("dev2"), "norecurse readnone");
    assert_eq!(a("dev1"), "norecurse readonly");
    assert_eq!(a("k1"), "norecurse readonly");
}

#[test]
fn function_adaptor_runs_on_every_function_of_the_scc() {
    let (m, r) = run_with("knobs.ll", "cgscc(inline,function(print-size))", estimate());
    // one line per live function per visit, in visit order (as LLVM's adaptor runs its
    // passes on every function of the SCC)
    let r = r.unwrap();
    let want: usize = r.visits.iter().map(|v| v.nodes.len()).sum();
    assert_eq!(m.function_log.len(), want, "{:?}", m.function_log);
    assert!(m.function_log.last().unwrap().starts_with("main: "));
}

/// Replay files are LLVM's: a malformed one is refused with its line, and the summary
/// estimate (which has no debug locations) refuses replay.
#[test]
fn replay_cli() {
    let dir = std::env::temp_dir().join(format!("ilkit-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "remark: <unknown>:0:0: 'a' inlined into 'b'\n").unwrap();
    let nested = format!(
        "{}/tests/fixtures/debugloc/nested.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = ilkit()
        .args([
            "cgscc",
            &nested,
            "--passes",
            "cgscc(inline)",
            "--cgscc-inline-replay",
        ])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("line 1: Invalid remark format"), "{e}");
    let good = format!(
        "{}/tests/fixtures/debugloc/replay_pos.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = ilkit()
        .args(["cgscc", &nested, "--passes", "cgscc(inline)", "--remarks"])
        .args(["--cgscc-inline-replay", &good, "--inline-model", "summary"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = ilkit()
        .args(["cgscc", &nested, "--passes", "cgscc(inline)", "--remarks"])
        .args(["--cgscc-inline-replay", &good])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("'leaf' inlined into 'loop' with (cost=always): previously inlined at callsite loop:2:38.2;"),
        "{s}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pipeline_parse_errors() {
    let cases = [
        ("cgscc(inline,nope)", 14, "unknown cgscc pass 'nope'"),
        ("cgscc(inline", 6, "unbalanced '(': missing ')'"),
        ("cgscc(inline))", 14, "unbalanced ')': no matching '('"),
        ("cgscc(devirt<5(inline))", 13, "unbalanced '<': missing '>'"),
        (
            "cgscc(devirt<five>(inline))",
            14,
            "invalid devirt count 'five': expected a number",
        ),
        (
            "cgscc(inline,,argpromotion)",
            14,
            "expected a pass name, found ','",
        ),
        (
            "cgscc(function(inline))",
            16,
            "unknown function pass 'inline'",
        ),
    ];
    for (text, col, msg) in cases {
        let e = parse_pipeline(text)
            .err()
            .unwrap_or_else(|| panic!("{text} parsed"));
        assert_eq!((e.column, e.message.as_str()), (col, msg), "{text}");
    }
    for ok in [
        "cgscc(devirt<5>(inline,function-attrs))",
        "cgscc(nv-early-inliner,no-op-cgscc)",
        "cgscc(inline<only-mandatory>,function(no-op-function,print-size))",
        "inline",
    ] {
        assert!(parse_pipeline(ok).is_ok(), "{ok}");
    }
}

fn ilkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ilkit"))
}

#[test]
fn cli_text_json_errors() {
    let out = ilkit()
        .args([
            "cgscc",
            &fixture("knobs.ll"),
            "--passes",
            "cgscc(devirt<5>(inline,function-attrs))",
            "--remarks",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("remark: <unknown>:0:0: 'small' inlined into 'main' with (cost="),
        "{s}"
    );
    assert!(s.contains("; SCC visits, bottom-up"));
    assert!(s.contains("Printing the call graph for module"));
    let out = ilkit()
        .args([
            "cgscc",
            &fixture("knobs.ll"),
            "--passes=cgscc(inline)",
            "--format",
            "json",
            "--remarks",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["remarks"].as_array().unwrap().len() >= 5);
    assert_eq!(v["verify"].as_array().unwrap().len(), 0);
    let out = ilkit()
        .args([
            "cgscc",
            &fixture("knobs.ll"),
            "--passes",
            "cgscc(inline,bogus)",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("pipeline:14: unknown cgscc pass 'bogus'"), "{e}");
    let out = ilkit()
        .args([
            "cgscc",
            &fixture("promote.ll"),
            "--passes",
            "cgscc(devirt<0>(inline))",
            "--abort-on-max-devirt-iterations-reached",
            "--inline-model",
            "summary",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.contains("LLVM ERROR: Max devirtualization iterations reached"),
        "{e}"
    );
    // LLVM 14 counts only indirect calls made direct, so the promotion is no
    // devirtualization there (`opt-14 -opaque-pointers` exits 0 on this module)
    let out = ilkit()
        .args([
            "cgscc",
            &fixture("promote.ll"),
            "--passes",
            "cgscc(devirt<0>(inline))",
            "--abort-on-max-devirt-iterations-reached",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

fn corpus_files() -> Option<Vec<std::path::PathBuf>> {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var("ILKIT_CORPUS")
            .ok()
            .map(std::path::PathBuf::from),
        Some(here.join("tests/corpus")),
    ];
    let Some(root) = candidates
        .into_iter()
        .flatten()
        .map(|c| c.join("llvm"))
        .find(|c| c.is_dir())
    else {
        eprintln!("skipping: corpus not found (tests/corpus or $ILKIT_CORPUS)");
        return None;
    };
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".ll")
                || p.to_string_lossy().ends_with(".ll.gz")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}

#[test]
fn refscc_split_requeues_pieces() {
    // x calls y, y takes x's address: one RefSCC {y}, {x}. Inlining y into x removes the
    // only edge x -> y, so the RefSCC splits. As in opt-14 (`-debug-pass-manager`), the
    // walk goes on in x's piece (x's SCC did not change, so it is not run again) and the
    // other piece, {y}, is queued and visited again: (y), (x), (y).
    let (m, r) = run_with("merge.ll", "cgscc(inline)", estimate());
    assert_eq!(remark(&m, "x", "y").kind, RemarkKind::Inlined);
    let v = visits(&m, &r.unwrap());
    assert_eq!(v, [["y"], ["x"], ["y"]]);
    let (x, y) = (m.summ.index_of("x").unwrap(), m.summ.index_of("y").unwrap());
    assert_ne!(m.graph.refscc_of(x), m.graph.refscc_of(y));
    assert!(m.graph.edge(x, y).is_none());
}

#[test]
fn remarks_deterministic_on_corpus() {
    let Some(files) = corpus_files() else {
        return;
    };
    for f in files.iter().filter(|f| {
        let n = f.to_string_lossy();
        let n = n.strip_suffix(".gz").unwrap_or(&n);
        n.ends_with("zstd/zstd.O2.ll") || n.ends_with("zlib/zlib.O2.ll")
    }) {
        let text = ilkit::import::read_text(f).unwrap();
        let m = parse(&f.to_string_lossy(), &text).unwrap();
        let run = || {
            let mut cm = CgsccModule::new(&m, "m");
            let mut pm =
                PassManager::from_text("cgscc(devirt<5>(inline,function-attrs))", estimate())
                    .unwrap();
            let rep = pm.run(&mut cm, &mut NoInstrumentation).unwrap();
            let remarks: Vec<String> = cm.remarks.iter().map(|r| r.to_string()).collect();
            (remarks, visits(&cm, &rep), cm.graph.postorder_names().len())
        };
        let a = run();
        assert!(!a.0.is_empty());
        assert_eq!(a, run(), "{}", f.display());
    }
}

use common::Rng;

/// A random module of `n` functions: random calls (cycles included), address-taking,
/// `noinline`/`alwaysinline`, local and external linkage, bodies of 1..30 instructions.
fn random_module(r: &mut Rng, n: usize) -> String {
    let mut s = String::from("@g = global ptr null\n");
    for i in 0..n {
        let link = if r.next(3) == 0 { "" } else { "internal " };
        let attr = match r.next(8) {
            0 => " #0",
            1 => " #1",
            _ => "",
        };
        s.push_str(&format!("define {link}void @f{i}(){attr} {{\n"));
        for _ in 0..r.next(30) {
            s.push_str("  store i32 1, ptr @g\n");
        }
        for _ in 0..r.next(4) {
            s.push_str(&format!("  call void @f{}()\n", r.next(n)));
        }
        if r.next(4) == 0 {
            s.push_str(&format!("  store ptr @f{}, ptr @g\n", r.next(n)));
        }
        s.push_str("  ret void\n}\n");
    }
    s.push_str("attributes #0 = { noinline }\nattributes #1 = { alwaysinline }\n");
    s
}

/// Oracle: after any pipeline, the graph's SCCs are exactly the classes of mutual
/// reachability over its call edges, its edges are what the summaries say, it verifies,
/// and the first visits were bottom-up.
#[test]
fn random_modules_against_reachability_oracle() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..1000 {
        let n = 2 + r.next(11);
        let text = random_module(&mut r, n);
        let m = parse("rand.ll", &text).unwrap();
        let pipeline = ["cgscc(devirt<3>(inline,function-attrs))", "cgscc(inline)"][round % 2];
        let mut o = estimate();
        if round % 3 == 0 {
            o.inline.profile = Profile::Llvm;
        }
        let mut cm = CgsccModule::new(&m, "rand.ll");
        let initial = cm.graph.clone();
        let mut pm = PassManager::from_text(pipeline, o).unwrap();
        let rep = pm.run(&mut cm, &mut NoInstrumentation).unwrap();
        let ctx = format!("round {round}\n{text}");
        assert!(
            cm.graph.verify().is_empty(),
            "{:?}\n{ctx}",
            cm.graph.verify()
        );
        let order = check_visit_order(&initial, &cm.summ, &rep.visits);
        assert!(order.is_empty(), "{order:?}\n{ctx}");
        let g = &cm.graph;
        let live: Vec<NodeIdx> = g.nodes().filter(|&x| g.scc_of(x).is_some()).collect();
        // call reachability by DFS from every live node
        let reach = |a: NodeIdx| {
            let mut seen = vec![false; g.num_nodes()];
            let mut st = vec![a];
            seen[a.idx()] = true;
            while let Some(x) = st.pop() {
                for e in g.cached_edges(x).filter(|e| e.is_call()) {
                    if !seen[e.target.idx()] {
                        seen[e.target.idx()] = true;
                        st.push(e.target);
                    }
                }
            }
            seen
        };
        let reaches: Vec<Vec<bool>> = live.iter().map(|&a| reach(a)).collect();
        for (i, &a) in live.iter().enumerate() {
            let mut want = cm.summary_edges(a);
            let mut got: Vec<_> = g.cached_edges(a).collect();
            want.sort_by_key(|e| e.target);
            got.sort_by_key(|e| e.target);
            assert_eq!(got, want, "edges of f{}\n{ctx}", a.raw());
            for (j, &b) in live.iter().enumerate() {
                let mutual = a == b || (reaches[i][b.idx()] && reaches[j][a.idx()]);
                assert_eq!(
                    g.scc_of(a) == g.scc_of(b),
                    mutual,
                    "f{} f{}\n{ctx}",
                    a.raw(),
                    b.raw()
                );
            }
        }
    }
}

#[test]
fn inlined_call_with_address_use_is_demoted() {
    let (m, _) = run_with("demote.ll", "cgscc(inline)", estimate());
    let (a, f) = (m.summ.index_of("a").unwrap(), m.summ.index_of("f").unwrap());
    assert_eq!(remark(&m, "a", "f").kind, RemarkKind::Inlined);
    assert_eq!(
        m.graph.edge(a, f).map(|e| e.kind),
        Some(ilkit::callgraph::EdgeKind::Ref)
    );
    assert!(!m.graph.is_removed(f));
}

/// A valid but pathological module: 10^4 functions calling each other in one cycle.
/// Every inline along the cycle splits the whole SCC and merges it back (LLVM's update
/// order), so the inliner's churn cap stops it, says so, and the graph stays sound.
#[test]
fn a_ten_thousand_function_cycle_hits_a_cap_and_stays_sound() {
    let n = 10_000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "define void @f{i}() {{\n  call void @f{}()\n  ret void\n}}\n",
            (i + 1) % n
        ));
    }
    let m = parse("cycle.ll", &text).unwrap();
    let mut cm = CgsccModule::new(&m, "cycle.ll");
    let mut opts = estimate();
    opts.inline.remark_locations = false;
    opts.verify_each = false;
    let mut pm = PassManager::from_text("cgscc(devirt<1>(inline,function-attrs))", opts).unwrap();
    pm.run(&mut cm, &mut NoInstrumentation).unwrap();
    assert_eq!(cm.caps_hit.len(), 1, "{:?}", cm.caps_hit);
    assert!(cm.caps_hit[0].contains("--inline-max-scc-churn"));
    assert!(cm
        .diagnostics
        .iter()
        .any(|d| d.contains("inline cap reached")));
    assert!(cm.graph.verify().is_empty());
    assert!(cm.remarks.iter().any(|r| r.kind == RemarkKind::Inlined));
    // A total cap stops earlier, naming its own knob.
    let mut cm = CgsccModule::new(&m, "cycle.ll");
    let mut opts = estimate();
    opts.inline.max_total_inlines = 10;
    opts.verify_each = false;
    let mut pm = PassManager::from_text("cgscc(inline)", opts).unwrap();
    pm.run(&mut cm, &mut NoInstrumentation).unwrap();
    assert_eq!(cm.inlines_done, 10);
    assert!(cm.caps_hit[0].contains("--inline-max-total"));
}

/// `ilkit cgscc --passes 'cgscc(function-attrs)'` is LLVM 14's function-attrs: on the
/// probes the `--format attrs` lines are opt-14's (as `fa_diff.py` prints them), and
/// `--format json` carries the same changes per function, return and argument.
#[test]
fn cli_function_attrs_is_opt14s() {
    let dir = format!(
        "{}/tests/fixtures/function_attrs",
        env!("CARGO_MANIFEST_DIR")
    );
    for t in ["t1", "t2", "t3", "t4", "t4c", "t5"] {
        let out = ilkit()
            .args([
                "cgscc",
                &format!("{dir}/{t}.ll"),
                "--passes",
                "cgscc(function-attrs)",
                "--format",
                "attrs",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = String::from_utf8(out.stdout).unwrap();
        let want = std::fs::read_to_string(format!("{dir}/{t}.expected.txt")).unwrap();
        assert_eq!(got.trim_end(), want.trim_end(), "{t}");
    }
    let out = ilkit()
        .args([
            "cgscc",
            &format!("{dir}/t1.ll"),
            "--passes",
            "cgscc(function-attrs)",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rd = &v["function_attrs"]["retarg"];
    assert_eq!(
        rd["fn"],
        serde_json::json!([
            "+mustprogress",
            "+nofree",
            "+norecurse",
            "+nosync",
            "+nounwind",
            "+readnone",
            "+willreturn"
        ])
    );
    assert_eq!(
        rd["args"]["0 %p"],
        serde_json::json!(["+readnone", "+returned"])
    );
    assert_eq!(
        v["function_attrs"]["mymalloc"]["ret"],
        serde_json::json!(["+noalias"])
    );
}

/// Counting remarks instead of keeping them (what a scan does) changes nothing else: the
/// counts per kind equal the kept remarks', and the graph ends the same.
#[test]
fn counted_remarks_equal_kept_remarks() {
    for name in ["kernels.ll", "knobs.ll", "split.ll", "devirt.ll"] {
        let (mut kept, r1) = run_with(name, "cgscc(devirt<2>(inline,function-attrs))", estimate());
        let mut opts = estimate();
        opts.inline.keep_remarks = false;
        let (mut counted, r2) = run_with(name, "cgscc(devirt<2>(inline,function-attrs))", opts);
        assert_eq!(r1.is_ok(), r2.is_ok(), "{name}");
        assert!(counted.remarks.is_empty());
        let mut by_kind = [0usize; 6];
        for r in &kept.remarks {
            by_kind[r.kind as usize] += 1;
        }
        assert_eq!(by_kind, kept.remark_counts, "{name}");
        assert_eq!(counted.remark_counts, kept.remark_counts, "{name}");
        assert_eq!(
            counted.graph.postorder_names(),
            kept.graph.postorder_names(),
            "{name}"
        );
    }
}

/// `--pipeline LEVEL` runs the seed's CGSCC invocations in order and prints the pipeline
/// text it built; a known pass ilkit does not implement is refused unless allowed.
#[test]
fn cli_pipeline_presets_and_unimplemented_passes() {
    let run = |args: &[&str]| {
        ilkit()
            .arg("cgscc")
            .arg(fixture("merge.ll"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--pipeline", "O2"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let one = "cgscc(devirt<1>(inline,function-attrs))";
    assert!(
        text.starts_with(&format!("; cgscc {}", [one; 4].join(","))),
        "{text}"
    );
    // four walks over {y}, {x} (the first inlines y into x and splits the RefSCC)
    let visits = text.lines().filter(|l| l.starts_with('#')).count();
    assert!(visits >= 8, "{text}");
    let out = run(&["--pipeline", "tier3"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("cgscc(devirt<5>(inline,function-attrs))")
    );
    let out = run(&["--pipeline", "O9"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["--passes", "cgscc(inline,coro-split)"]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("pass 'coro-split' is known but ilkit does not implement it"),
        "{e}"
    );
    let out = run(&[
        "--passes",
        "cgscc(inline,coro-split)",
        "--allow-noop",
        "coro-split",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("inline, coro-split"));
}
