//! `ilkit cgscc --jobs N`: the same output, byte for byte, for every number of workers.
//!
//! With more than one worker the reader's passes run in parallel and helpers make the
//! inliner's body tables ahead of the walk (`src/cgscc/inliner/llvm14/prefetch.rs`);
//! the walk must still print the sequential answer: remarks, visits, inferred
//! attributes, the final call graph and the work counts of `--stats`. Checked on the
//! corpus modules and on random modules with call cycles, reference cycles, shared
//! local callees, dead functions, library calls and indirect calls that inlining
//! makes direct. With `--run-ahead` the walk runs its units of one function ahead on
//! the pool (`src/cgscc/ahead.rs`) and takes those whose inputs still hold: the same
//! answer again.

mod common;

use common::Rng;
use proptest::prelude::*;
use std::path::Path;

/// `ilkit cgscc` on `input` (a path, or `-` with `stdin`) with `--jobs jobs`: its
/// standard output (JSON: remarks, visits, attributes, graph, schedule).
fn cgscc(input: &str, stdin: Option<&str>, pipeline: &str, extra: &[&str], jobs: u32) -> String {
    let jobs_s = jobs.to_string();
    let mut args = vec![
        "cgscc",
        input,
        "--passes",
        pipeline,
        "--format",
        "json",
        "--remarks",
        "--jobs",
        &jobs_s,
    ];
    args.extend_from_slice(extra);
    let out = common::run_ilkit(&args, stdin.map(str::as_bytes));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "ilkit cgscc {input} --jobs {jobs}: {err}"
    );
    // a run made ahead that fails is made again by the walk, which hides it from the
    // output: it shows on standard error
    assert!(
        !err.contains("panicked"),
        "ilkit cgscc {input} --jobs {jobs} {extra:?}: {err}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The outputs for 2 and 4 workers running the walk's units ahead (in rounds of the
/// default window, begun once the helpers have made the inliner's tables, and of
/// three positions begun at the walk's first unit: many rounds, each made while the
/// walk commits the one before and chained on its runs; with `function-attrs` in the
/// runs and without), and for 2 not running them ahead, equal the one for 1.
fn assert_same_for_all_workers(input: &str, stdin: Option<&str>, pipeline: &str, extra: &[&str]) {
    let one = cgscc(input, stdin, pipeline, extra, 1);
    assert!(one.contains("\"remarks\""));
    let with = |more: &[&'static str]| -> Vec<&str> {
        extra.iter().copied().chain(more.iter().copied()).collect()
    };
    let plain = with(&["--no-run-ahead"]);
    // rounds from the walk's first unit, as a module walked before the helpers have
    // made every table would not have them
    let small = with(&["--run-ahead-window", "3", "--run-ahead-at-once"]);
    let walk_attrs = with(&["--no-run-ahead-attrs", "--run-ahead-at-once"]);
    for (jobs, extra) in [
        (2, extra),
        (4, extra),
        (2, &plain[..]),
        (2, &small[..]),
        (2, &walk_attrs[..]),
    ] {
        let n = cgscc(input, stdin, pipeline, extra, jobs);
        assert!(
            n == one,
            "{input} {pipeline} {extra:?}: --jobs {jobs} differs from --jobs 1 \
             (first difference at byte {})",
            n.bytes()
                .zip(one.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        );
    }
}

#[test]
fn corpus_modules_give_the_same_answer_for_every_worker_count() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/llvm");
    for (file, extra) in [
        ("zlib/inline/zlib.prep.ll.gz", &[][..]),
        (
            "zlib/inline/zlib.prep.ll.gz",
            &["--inline-threshold", "20000"][..],
        ),
        ("zlib/zlib.O2.ll.gz", &[][..]),
        // decisions read whether callees are in cycles of calls: runs read no runs
        (
            "zlib/inline/zlib.prep.ll.gz",
            &["--function-inline-cost-multiplier", "20"][..],
        ),
        ("llamacpp/inline/grammar_unicode.prep.ll.gz", &[][..]),
    ] {
        let path = root.join(file);
        let path = path.to_str().unwrap();
        for pipeline in [
            "cgscc(devirt<4>(inline))",
            "cgscc(devirt<4>(inline,function-attrs))",
        ] {
            assert_same_for_all_workers(path, None, pipeline, extra);
        }
    }
}

/// The corpus' prepared zlib module, with its instruction view.
fn zlib_prepared() -> ilkit::llvm::Module {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/llvm");
    let path = root.join("zlib/inline/zlib.prep.ll.gz");
    let opts = ilkit::import::llvm_ir::ParseOptions { instructions: true };
    ilkit::llvm::Module::from_ll_file_with(&path, opts).unwrap()
}

/// Runs `pipeline` over `m` on a pool of `threads` workers, running units ahead when
/// `run_ahead` (`function-attrs` in the runs too when `attrs`), remarks kept; `read`
/// takes what it needs of the module and the report.
fn run_pipeline<T: Send>(
    m: &ilkit::llvm::Module,
    pipeline: &str,
    (run_ahead, attrs, threads): (bool, bool, usize),
    read: impl FnOnce(&mut ilkit::cgscc::CgsccModule, ilkit::cgscc::RunReport) -> T + Send,
) -> T {
    run_pipeline_keeping(m, pipeline, (run_ahead, attrs, threads), true, read)
}

/// [`run_pipeline`], the remarks kept or only counted (`keep_remarks`).
fn run_pipeline_keeping<T: Send>(
    m: &ilkit::llvm::Module,
    pipeline: &str,
    (run_ahead, attrs, threads): (bool, bool, usize),
    keep_remarks: bool,
    read: impl FnOnce(&mut ilkit::cgscc::CgsccModule, ilkit::cgscc::RunReport) -> T + Send,
) -> T {
    use ilkit::cgscc::{CgsccModule, InlineParams, NoInstrumentation, Options, PassManager};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut cm = CgsccModule::new(m, "m");
        let opts = Options {
            run_ahead,
            run_ahead_attrs: attrs,
            // rounds from the first unit: these modules are walked before the helpers
            // would have made every table
            run_ahead_after_tables: false,
            inline: InlineParams {
                keep_remarks,
                ..InlineParams::default()
            },
            ..Options::default()
        };
        let mut pm = PassManager::from_text(pipeline, opts).unwrap();
        let report = pm.run(&mut cm, &mut NoInstrumentation).unwrap();
        read(&mut cm, report)
    })
}

/// Remarks counted instead of kept (what a scan and `ilkit cgscc` without `--remarks`
/// do) count what the kept remarks hold, kind by kind, and change nothing else, with
/// runs made ahead or not.
#[test]
fn counted_remarks_equal_kept_remarks_for_any_workers() {
    let m = zlib_prepared();
    let run = |keep_remarks: bool, threads: usize| {
        let text = "cgscc(devirt<4>(inline,function-attrs))";
        run_pipeline_keeping(
            &m,
            text,
            (true, true, threads),
            keep_remarks,
            |cm, report| {
                let mut by_kind = [0usize; 6];
                for r in &cm.remarks {
                    by_kind[r.kind as usize] += 1;
                }
                (
                    cm.remark_counts,
                    by_kind,
                    cm.graph.print_text(),
                    report.ahead.taken,
                )
            },
        )
    };
    let kept = run(true, 1);
    assert_eq!(kept.0, kept.1);
    assert!(
        kept.0.iter().filter(|&&c| c > 0).count() >= 3,
        "{:?}",
        kept.0
    );
    for threads in [1, 2] {
        let counted = run(false, threads);
        assert_eq!(counted.1, [0; 6], "no remark kept");
        assert_eq!(
            (&counted.0, &counted.2),
            (&kept.0, &kept.2),
            "{threads} workers"
        );
        assert!(threads == 1 || counted.3 > 0, "runs made ahead were taken");
    }
}

/// The walk takes runs made ahead (so the comparisons above check them), and a run
/// with them gives the sequential remarks, visits and call graph.
#[test]
fn units_run_ahead_are_taken_and_change_nothing() {
    let m = zlib_prepared();
    let run = |run_ahead: bool, attrs: bool, threads: usize| {
        let text = "cgscc(devirt<4>(inline,function-attrs))";
        run_pipeline(&m, text, (run_ahead, attrs, threads), |cm, report| {
            let remarks: Vec<String> = cm.remarks.iter().map(|r| r.to_string()).collect();
            let visits: Vec<usize> = report.visits.iter().map(|v| v.nodes.len()).collect();
            let fa = cm.fn_attrs.as_ref().unwrap().diff_lines_of(&m, |_| true);
            (remarks, visits, cm.graph.print_text(), fa, report.ahead)
        })
    };
    let one = run(false, false, 1);
    assert!(!one.0.is_empty() && !one.3.is_empty());
    assert_eq!(one.4, ilkit::cgscc::AheadStats::default());
    // runs made ahead infer their units' attributes: the walk takes them, and the
    // runs chained on them read what `function-attrs` gives their callees
    let ahead = run(true, true, 2);
    assert_eq!(
        (&one.0, &one.1, &one.2, &one.3),
        (&ahead.0, &ahead.1, &ahead.2, &ahead.3)
    );
    let h = ahead.4;
    assert!(h.rounds > 0 && !h.stopped && h.taken == h.made, "{h:?}");
    assert!(h.attrs_taken * 10 >= h.taken * 9, "{h:?}");
    // without: `function-attrs` gives most of zlib's functions attributes the runs
    // chained on them tested over the walk's state as their round began: the walk
    // refuses more than one in four
    let walk_attrs = run(true, false, 2);
    assert_eq!(
        (&one.0, &one.1, &one.2, &one.3),
        (&walk_attrs.0, &walk_attrs.1, &walk_attrs.2, &walk_attrs.3)
    );
    let h = walk_attrs.4;
    assert!(h.taken * 4 < h.made * 3 && h.attrs_taken == 0, "{h:?}");
    // the walk judges after its first runs' turns (zlib's functions that inline nothing
    // are left to it: fewer runs are made)
    assert!(h.stopped || h.made < ilkit::cgscc::AHEAD_TRIAL, "{h:?}");
    let inline_only = run_pipeline(&m, "cgscc(devirt<4>(inline))", (true, true, 2), |_, r| {
        r.ahead
    });
    assert!(
        !inline_only.stopped && inline_only.taken == inline_only.made,
        "{inline_only:?}"
    );
}

/// Runs chain through any number of rounds: in a call chain, each unit run in a
/// round of two positions reads its callee's run, made in the round before or in an
/// older one the walk has not reached, and every run is made and taken, however far
/// the workers get ahead of the walk.
#[test]
fn runs_chain_on_runs_of_every_round_under_way() {
    use ilkit::cgscc::{CgsccModule, InlineParams, NoInstrumentation, Options, PassManager};
    let n = 40;
    let mut text =
        String::from("define i32 @f0(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n");
    for i in 1..n {
        text.push_str(&format!(
            "define i32 @f{i}(i32 %x) {{\n  %a = call i32 @f{}(i32 %x)\n  %b = mul i32 %a, {i}\n  ret i32 %b\n}}\n",
            i - 1
        ));
    }
    let opts = ilkit::import::llvm_ir::ParseOptions { instructions: true };
    let m = ilkit::llvm::Module::from_ll_str_with("chain.ll", &text, opts).unwrap();
    let run = |run_ahead: bool, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut cm = CgsccModule::new(&m, "chain.ll");
            let opts = Options {
                run_ahead,
                run_ahead_window: 2,
                run_ahead_after_tables: false,
                inline: InlineParams {
                    keep_remarks: true,
                    ..InlineParams::default()
                },
                ..Options::default()
            };
            let mut pm = PassManager::from_text("cgscc(devirt<1>(inline))", opts).unwrap();
            let report = pm.run(&mut cm, &mut NoInstrumentation).unwrap();
            let remarks: Vec<String> = cm.remarks.iter().map(|r| r.to_string()).collect();
            (remarks, cm.graph.print_text(), report.ahead)
        })
    };
    let one = run(false, 1);
    assert_eq!(one.0.len(), n - 1, "every call inlined: {:?}", one.0);
    for threads in [2, 3] {
        let ahead = run(true, threads);
        assert_eq!((&one.0, &one.1), (&ahead.0, &ahead.1));
        let h = ahead.2;
        // `@f0` inlines nothing: the walk makes it, and the first window, left with
        // one unit, starts no round
        assert_eq!(h.rounds, n / 2 - 1, "{h:?}");
        assert_eq!((h.made, h.taken, h.inert), (n - 2, n - 2, 1), "{h:?}");
    }
}

/// Two runs that do not read each other may each fold the same constant expression
/// (here `getelementptr @a, 0, 3`, and the `ptrtoint` over it), each under a
/// provisional number of its own; a run that reads both bodies reads them as one
/// number, as the walk, committing both, has one: it is made and taken like any other.
#[test]
fn a_run_reads_two_runs_numbers_of_one_expression_as_one() {
    let text = "@a = global [8 x i32] zeroinitializer, align 16\n\
        @s = global i64 0\n\
        define void @g(i64 %i) {\n\
          %q = getelementptr inbounds [8 x i32], ptr @a, i64 0, i64 %i\n\
          store i32 1, ptr %q\n\
          %p = ptrtoint ptr %q to i64\n\
          store i64 %p, ptr @s\n\
          ret void\n\
        }\n\
        define void @h1() {\n\
          call void @g(i64 3)\n\
          ret void\n\
        }\n\
        define void @h2() {\n\
          call void @g(i64 3)\n\
          ret void\n\
        }\n\
        define void @top() {\n\
          call void @h1()\n\
          call void @h2()\n\
          ret void\n\
        }\n";
    let opts = ilkit::import::llvm_ir::ParseOptions { instructions: true };
    let m = ilkit::llvm::Module::from_ll_str_with("twice.ll", text, opts).unwrap();
    let run = |run_ahead: bool, threads: usize| {
        run_pipeline(
            &m,
            "cgscc(devirt<1>(inline))",
            (run_ahead, false, threads),
            |cm, r| {
                let remarks: Vec<String> = cm.remarks.iter().map(|r| r.to_string()).collect();
                (remarks, cm.graph.print_text(), r.ahead)
            },
        )
    };
    let one = run(false, 1);
    assert_eq!(
        one.0.iter().filter(|r| r.contains("inlined into")).count(),
        4,
        "{:?}",
        one.0
    );
    for threads in [2, 3] {
        let ahead = run(true, threads);
        assert_eq!((&one.0, &one.1), (&ahead.0, &ahead.1));
        let h = ahead.2;
        // `@g` inlines nothing: the walk makes it, and the runs of `@h1` and `@h2`
        // read it from their round's copy
        assert_eq!((h.made, h.taken, h.inert), (3, 3, 1), "{h:?}");
    }
}

/// A random module of `n` functions of one signature `i32 (i32, ptr)`: direct calls
/// (cycles included) with constant and variable arguments, calls through the pointer
/// parameter (direct once a caller passing a function is inlined), functions stored
/// to a global (reference edges and cycles), library calls, `noinline` /
/// `alwaysinline`, `mustprogress` (which a caller loses when it inlines a callee
/// without it), local, external and `linkonce_odr` linkage (unused local functions
/// are dead; `linkonce_odr` ones sit in comdats of two neighbours, as C++ inline
/// functions do, and go at the end of the run that left their comdat unused),
/// branches on the argument, two loads of one global around the calls (the second
/// free to inline unless a call between may write memory, which `function-attrs`
/// may rule out: the cost analysis reads callees' attributes), bodies of varied size
/// (a third of the modules without
/// cycles: every call and reference to an earlier function); half with debug
/// locations on the calls (which inlining copies, inlined at each call site); stores
/// to an element of a global array at the argument (constant expressions inlining
/// makes).
fn random_module(r: &mut Rng, n: usize) -> String {
    let mut s = String::from(
        "@g = global ptr null\n@n = global i32 0\n@s = private constant [4 x i8] c\"abc\\00\"\n\
         @a = global [8 x i32] zeroinitializer\n@sink = global i64 0\n\
         declare i64 @strlen(ptr)\ndeclare ptr @malloc(i64)\ndeclare void @free(ptr)\n",
    );
    let debug = r.next(2) == 0;
    // a third of the modules call and reference only earlier functions: a DAG of
    // units of one function, which the walk runs ahead chained on each other
    let acyclic = r.next(3) == 0;
    let pick = |r: &mut Rng, i: usize| if acyclic { r.next(i.max(1)) } else { r.next(n) };
    // debug metadata: !0-!3 the unit, file, flag and type; !(100 + i) function i's
    // subprogram; locations from !(100 + n) on
    let mut meta = String::new();
    let mut next_loc = 100 + n;
    let mut loc = |r: &mut Rng, i: usize, meta: &mut String| -> String {
        if !debug {
            return String::new();
        }
        next_loc += 1;
        meta.push_str(&format!(
            "!{next_loc} = !DILocation(line: {}, column: {}, scope: !{})\n",
            r.next(90) + 1,
            r.next(30) + 1,
            100 + i
        ));
        format!(", !dbg !{next_loc}")
    };
    let mut comdats = String::new();
    for i in 0..n {
        // linkonce_odr functions in comdats of two neighbours, as C++ inline functions
        // are: one left without uses goes at the end of the run that inlined its last
        // call, with its comdat's other member
        let (link, comdat) = match r.next(6) {
            0 | 1 => ("", String::new()),
            2 => {
                if !comdats.contains(&format!("$c{} ", i / 2)) {
                    comdats.push_str(&format!("$c{} = comdat any\n", i / 2));
                }
                ("linkonce_odr ", format!(" comdat($c{})", i / 2))
            }
            _ => ("internal ", String::new()),
        };
        let attr = match r.next(10) {
            0 => " #0",
            1 => " #1",
            2..=4 => " #2",
            _ => "",
        };
        let sp = if debug {
            meta.push_str(&format!(
                "!{} = distinct !DISubprogram(name: \"f{i}\", scope: !1, file: !1, line: {}, \
                 type: !3, unit: !0)\n",
                100 + i,
                i + 1
            ));
            format!(" !dbg !{}", 100 + i)
        } else {
            String::new()
        };
        s.push_str(&format!(
            "define {link}i32 @f{i}(i32 %x, ptr %fp){attr}{comdat}{sp} {{\nentry:\n  %v0 = add i32 %x, {}\n",
            r.next(100)
        ));
        let adds = r.next(40);
        for k in 1..=adds {
            s.push_str(&format!(
                "  %v{k} = mul i32 %v{}, {}\n",
                k - 1,
                r.next(7) + 1
            ));
        }
        if r.next(3) == 0 {
            // an address in `@a` at the argument: inlined at a constant argument, a
            // constant expression (and one over it) the module does not have, which a
            // run ahead numbers provisionally and a caller inlining it copies
            s.push_str(
                "  %ix = sext i32 %x to i64\n  %q = getelementptr inbounds [8 x i32], ptr @a, i64 0, i64 %ix\n\
                 store i32 %v0, ptr %q\n  %pi = ptrtoint ptr %q to i64\n  store i64 %pi, ptr @sink\n",
            );
        }
        s.push_str(&format!(
            "  %c = icmp sgt i32 %x, {}\n  br i1 %c, label %then, label %done\nthen:\n  %ld0 = load i32, ptr @n\n",
            r.next(50)
        ));
        let mut last = format!("%v{adds}");
        for k in 0..r.next(4) {
            let arg = if r.next(2) == 0 {
                r.next(100).to_string()
            } else {
                last.clone()
            };
            let fp = match r.next(3) {
                0 => format!("@f{}", pick(r, i)),
                1 => "%fp".into(),
                _ => "null".into(),
            };
            let callee = pick(r, i);
            let dbg = loc(r, i, &mut meta);
            s.push_str(&format!(
                "  %r{k} = call i32 @f{callee}(i32 {arg}, ptr {fp}){dbg}\n"
            ));
            last = format!("%r{k}");
        }
        if r.next(4) == 0 {
            let dbg = loc(r, i, &mut meta);
            s.push_str(&format!("  %i = call i32 %fp(i32 {last}, ptr null){dbg}\n"));
            last = "%i".into();
        }
        match r.next(6) {
            0 => s.push_str("  %l = call i64 @strlen(ptr @s)\n"),
            1 => s.push_str("  %m = call ptr @malloc(i64 8)\n  call void @free(ptr %m)\n"),
            _ => {}
        }
        if r.next(4) == 0 {
            s.push_str(&format!("  store ptr @f{}, ptr @g\n", pick(r, i)));
        }
        s.push_str(&format!(
            "  %ld1 = load i32, ptr @n\n  br label %done\ndone:\n  %p = phi i32 [ 0, %entry ], [ {last}, %then ]\n  ret i32 %p\n}}\n"
        ));
    }
    s.push_str(&comdats);
    s.push_str(
        "attributes #0 = { noinline }\nattributes #1 = { alwaysinline }\n\
         attributes #2 = { mustprogress }\n",
    );
    if debug {
        s.push_str(
            "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2}\n\
             !0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)\n\
             !1 = !DIFile(filename: \"r.c\", directory: \"/\")\n\
             !2 = !{i32 2, !\"Debug Info Version\", i32 3}\n\
             !3 = !DISubroutineType(types: !{})\n",
        );
        s.push_str(&meta);
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_modules_give_the_same_answer_for_every_worker_count(seed in 1u64.., n in 2usize..40) {
        let text = random_module(&mut Rng(seed), n);
        let pipeline = if seed % 2 == 0 {
            "cgscc(devirt<4>(inline))"
        } else {
            "cgscc(devirt<4>(inline,function-attrs))"
        };
        assert_same_for_all_workers("-", Some(&text), pipeline, &[]);
    }
}

/// A run made ahead that read whether its inlined callee had `mustprogress` before
/// `function-attrs` gave it (a change that moves no version) is not taken: `j` keeps
/// `mustprogress` only when `k` has it, which `k` gets at its own visit; `other`, which
/// has no `mustprogress` to keep, does not ask. With `function-attrs` inferred in the
/// runs, `j`'s run reads what `k`'s run inferred, and is taken.
#[test]
fn a_run_that_read_mustprogress_before_function_attrs_gave_it_is_refused() {
    use ilkit::import::llvm_ir::ParseOptions;
    let text = "define i32 @k(i32 %x) #1 {\nentry:\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n\
        define i32 @j(i32 %x) #0 {\nentry:\n  %r = call i32 @k(i32 %x)\n  ret i32 %r\n}\n\
        define i32 @other(i32 %x) {\nentry:\n  %r = call i32 @k(i32 %x)\n  ret i32 %r\n}\n\
        attributes #0 = { mustprogress }\n\
        attributes #1 = { nofree norecurse nosync nounwind readnone willreturn }\n";
    let m = ilkit::import::llvm_ir::parse_with("mp.ll", text, ParseOptions { instructions: true })
        .unwrap();
    // `@k` inlines nothing: without inferences, the walk makes it itself
    let one = refused_without_inferences_taken_with(&m, (2, 1, 1), |cm| {
        cm.fn_attrs.as_ref().unwrap().diff_lines_of(&m, |_| true)
    });
    assert!(one.iter().any(|l| l == "@k fn +mustprogress"), "{one:?}");
}

/// `read`'s answer for `m` (three functions, the default pipeline) on one worker,
/// which must be the answer running ahead on two; running ahead, the walk refuses one
/// run when `function-attrs` is left to it (`without`: the runs made and taken and the
/// units left to the walk because they inline nothing), and takes all three runs and
/// inferences when the runs infer the attributes (a unit that inlines nothing is then
/// run for its inference).
fn refused_without_inferences_taken_with<T: Send + PartialEq + std::fmt::Debug>(
    m: &ilkit::llvm::Module,
    without: (usize, usize, usize),
    read: impl Fn(&ilkit::cgscc::CgsccModule) -> T + Sync,
) -> T {
    let run = |run_ahead: bool, attrs: bool, threads: usize| {
        let text = "cgscc(devirt<1>(inline,function-attrs))";
        run_pipeline(m, text, (run_ahead, attrs, threads), |cm, report| {
            (read(cm), report.ahead)
        })
    };
    let (one, _) = run(false, false, 1);
    let (two, ahead) = run(true, false, 2);
    assert_eq!(one, two);
    assert_eq!((ahead.made, ahead.taken, ahead.inert), without, "{ahead:?}");
    let (two, ahead) = run(true, true, 2);
    assert_eq!(one, two);
    assert_eq!(
        (ahead.made, ahead.taken, ahead.attrs_taken),
        (3, 3, 3),
        "{ahead:?}"
    );
    one
}

/// `function-attrs`' changes, the remarks and the final call graph of
/// `cgscc(devirt<1>(inline,function-attrs))` over `m`, with what the walk ran ahead.
fn attrs_and_remarks(
    m: &ilkit::llvm::Module,
    settings: (bool, bool, usize),
) -> (Vec<String>, Vec<String>, String, ilkit::cgscc::AheadStats) {
    let pipeline = "cgscc(devirt<1>(inline,function-attrs))";
    run_pipeline(m, pipeline, settings, |cm, report| {
        let attrs = cm.fn_attrs.as_ref().unwrap().diff_lines_of(m, |_| true);
        let remarks = cm.remarks.iter().map(|r| r.to_string()).collect();
        (attrs, remarks, cm.graph.print_text(), report.ahead)
    })
}

/// A run the walk refuses whose writes its own run on the unit reproduces still serves
/// the runs chained on it: `@j`'s run, which read `@k` without `mustprogress` (and so
/// dropped `@j`'s), is refused once `function-attrs` gave `@k` the attribute, but the
/// walk, inlining `@k` as the run did, leaves the body the run left; `@w`'s run, which
/// inlined that body into `@w` (without `mustprogress`, so it tested no one's), is
/// taken. Without the comparison the walk refused `@w`'s run as well.
#[test]
fn a_run_chained_on_a_refused_run_the_walk_reproduced_is_taken() {
    use ilkit::import::llvm_ir::ParseOptions;
    let text = "@v = global i32 0\n\
        define i32 @k(i32 %x) #1 {\nentry:\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n\
        define i32 @j(i32 %x) #0 {\nentry:\n  %r = call i32 @k(i32 %x)\n  \
        store i32 %r, i32* @v\n  ret i32 %r\n}\n\
        define i32 @w(i32 %x) {\nentry:\n  %r = call i32 @j(i32 %x)\n  ret i32 %r\n}\n\
        define i32 @other(i32 %x) #0 {\nentry:\n  %r = add i32 %x, 2\n  ret i32 %r\n}\n\
        attributes #0 = { mustprogress }\n\
        attributes #1 = { nofree norecurse nosync nounwind readnone willreturn }\n";
    let m = ilkit::import::llvm_ir::parse_with("rp.ll", text, ParseOptions { instructions: true })
        .unwrap();
    let (attrs, rm, graph, _) = attrs_and_remarks(&m, (false, false, 1));
    assert!(
        rm.iter().any(|r| r.contains("'j' inlined into 'w'")),
        "{rm:?}"
    );
    let (attrs2, rm2, graph2, ahead) = attrs_and_remarks(&m, (true, false, 2));
    assert_eq!((&attrs, &rm, &graph), (&attrs2, &rm2, &graph2));
    // `@k` and `@other` inline nothing: the walk makes them itself
    assert_eq!(
        (ahead.made, ahead.taken, ahead.reproduced, ahead.inert),
        (2, 1, 1, 2),
        "{ahead:?}"
    );
}

/// A run made ahead journals each test of a function's attributes: `@u`'s run, made
/// before `function-attrs` gives `@g` `readnone`, analyzed `@d`'s body calling `@g` as
/// a call that may write memory (the second load of one pointer not free: cost 20); at
/// its turn `@g` reads none, so the walk refuses it and makes the sequential decision
/// (cost 15). `@d`'s run, which tested only whether `@g` may be inlined, is taken though
/// `@g`'s attributes (and `@d`'s) changed. With `function-attrs` inferred in the runs,
/// `@u`'s run reads `@g` `readnone` as `@g`'s run inferred it, and is taken.
#[test]
fn a_run_that_tested_an_attribute_function_attrs_changed_is_refused() {
    use ilkit::import::llvm_ir::ParseOptions;
    let text = "define internal i32 @g(i32 %x) noinline {\n  ret i32 %x\n}\n\
        define i32 @d(i32* %p) {\n  %a = load i32, i32* %p\n  %c = call i32 @g(i32 %a)\n  \
        %b = load i32, i32* %p\n  %s = add i32 %a, %b\n  %t = add i32 %s, %c\n  \
        ret i32 %t\n}\n\
        define i32 @u(i32* %p) {\n  %r = call i32 @d(i32* %p)\n  ret i32 %r\n}\n";
    let m = ilkit::import::llvm_ir::parse_with("ro.ll", text, ParseOptions { instructions: true })
        .unwrap();
    // `@g` inlines nothing: without inferences, `@d`'s and `@u`'s runs are made
    let one = refused_without_inferences_taken_with(&m, (2, 1, 1), |cm| {
        cm.remarks
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<String>>()
    });
    assert!(
        one.iter()
            .any(|r| r.contains("'d' inlined into 'u' with (cost=15")),
        "{one:?}"
    );
}

/// An inference made ahead that read a callee's attributes which `function-attrs`
/// changed after is not taken: `@g`'s run folds a constant expression the walk's
/// tables lack (`@h` inlined with a constant index), so its body names a provisional
/// number and its attributes are left to the walk; `@u`'s run, which calls `@g` (not
/// inlined), infers `@u`'s attributes over `@g`'s as its round began, before
/// `function-attrs` gave `@g` `nounwind` and the rest. At `@u`'s turn the walk takes the
/// inliner's run (it tested only whether `@g` may be inlined) but not the inference,
/// and infers `@u`'s attributes itself: the sequential ones.
#[test]
fn an_inference_that_read_attributes_function_attrs_changed_is_refused() {
    use ilkit::import::llvm_ir::ParseOptions;
    let text = "@arr = global [8 x i32] zeroinitializer
        define void @h(i64 %i) {
  %p = getelementptr [8 x i32], [8 x i32]* @arr, i64 0, i64 %i
          store i32 1, i32* %p
  ret void
}
        define void @g() noinline {
  call void @h(i64 3)
  ret void
}
        define void @u() {
  call void @g()
  ret void
}
";
    let m = ilkit::import::llvm_ir::parse_with("fa.ll", text, ParseOptions { instructions: true })
        .unwrap();
    let run = |run_ahead: bool, threads: usize| {
        let (attrs, remarks, _, ahead) = attrs_and_remarks(&m, (run_ahead, true, threads));
        (attrs, remarks, ahead)
    };
    let (one, rm, _) = run(false, 1);
    assert!(
        rm.iter().any(|r| r.contains("'h' inlined into 'g'")),
        "{rm:?}"
    );
    assert!(
        one.iter()
            .any(|l| l.starts_with("@g fn +") && l.contains("+nounwind")),
        "{one:?}"
    );
    assert!(
        one.iter()
            .any(|l| l.starts_with("@u fn +") && l.contains("+nounwind")),
        "{one:?}"
    );
    let (two, rm2, ahead) = run(true, 2);
    assert_eq!((&one, &rm), (&two, &rm2));
    // @h's and @u's inferences made, @g's left to the walk; @u's refused
    assert_eq!(
        (ahead.made, ahead.taken, ahead.attrs_taken),
        (3, 3, 1),
        "{ahead:?}"
    );
}

/// The runs stop inferring `function-attrs` once too few of the runs taken read a
/// chained run's inference that changed a test's answer: in a module of independent
/// functions no run chains on another, so the rounds started after the first runs'
/// turns leave the attributes to the walk; on zlib a third of the runs read such an inference, and the
/// rounds keep inferring. The answers are the sequential ones either way.
#[test]
fn runs_stop_inferring_attributes_that_no_run_reads() {
    use ilkit::import::llvm_ir::ParseOptions;
    let mut text = String::from("declare i32 @ext(i32)\n");
    // rounds of the default window: the first four (as many as may be under way)
    // start before the rule has judged, the next ones after
    for i in 0..1500 {
        text.push_str(&format!(
            "define i32 @f{i}(i32 %x) {{\n  %a = call i32 @ext(i32 %x)\n  %b = add i32 %a, {i}\n  ret i32 %b\n}}\n"
        ));
    }
    let opts = ParseOptions { instructions: true };
    let m = ilkit::import::llvm_ir::parse_with("indep.ll", &text, opts).unwrap();
    let run = |run_ahead: bool, threads: usize| {
        let text = "cgscc(devirt<1>(inline,function-attrs))";
        run_pipeline(&m, text, (run_ahead, true, threads), |cm, report| {
            let attrs = cm.fn_attrs.as_ref().unwrap().diff_lines_of(&m, |_| true);
            (attrs, report.ahead)
        })
    };
    let (one, _) = run(false, 1);
    let (two, h) = run(true, 2);
    assert_eq!(one, two);
    // each function inlines nothing: once the runs stop inferring, the rounds leave
    // them to the walk
    assert!(
        h.attrs_stopped && h.taken < 1500 && h.taken + h.inert == 1500,
        "{h:?}"
    );
    assert!(
        h.attrs_taken >= ilkit::cgscc::AHEAD_TRIAL && h.attrs_taken < 1500,
        "{h:?}"
    );
    let zlib = zlib_prepared();
    let text = "cgscc(devirt<4>(inline,function-attrs))";
    let h = run_pipeline(&zlib, text, (true, true, 2), |_, r| r.ahead);
    assert!(!h.attrs_stopped && h.attrs_taken == h.taken, "{h:?}");
}
