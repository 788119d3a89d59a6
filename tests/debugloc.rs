//! Debug locations of calls (`ilkit::llvm::ir::debugloc`) against LLVM 14 itself: the
//! call sites of `tests/fixtures/debugloc/nested.ll` must print, through
//! `DebugLocs::format_callsite`, exactly what `opt-14`'s inline remarks print after
//! `at callsite` (see the fixture folder's README for how they were made); chains built
//! with `DebugLocs::inline_at` must print as opt's chained remarks do; hostile metadata
//! must give an error or be ignored, never a panic or a hang.

use ilkit::import::llvm_ir::ParseOptions;
use ilkit::llvm::ir::body::{CallInfo, V};
use ilkit::llvm::ir::debugloc::{CallSiteFormat, DebugLoc, DebugLocIdx, DebugLocs};
use ilkit::llvm::ir::{Ir, Value};
use ilkit::llvm::FuncIdx;
use ilkit::llvm::Module;

const LL: &str = include_str!("fixtures/debugloc/nested.ll");
/// `opt-14 -passes='cgscc(inline)' -pass-remarks=inline -pass-remarks-missed=inline`.
const REMARKS: &str = include_str!("fixtures/debugloc/remarks.txt");
/// The same with a one-line negative replay file and fallback `NeverInline`.
const NEG_REMARKS: &str = include_str!("fixtures/debugloc/replay_neg.remarks.txt");

const OPTS: ParseOptions = ParseOptions { instructions: true };
const LCD: CallSiteFormat = CallSiteFormat::LineColumnDiscriminator;

fn read(text: &str) -> Result<Module, ilkit::import::ParseError> {
    Module::from_ll_str_with("t.ll", text, OPTS)
}

/// A direct call with a location: caller, callee, location.
struct Site {
    caller: String,
    callee: String,
    loc: DebugLocIdx,
}

/// Every direct call of the module that has a location, walking the instruction view.
fn sites(m: &Module) -> Vec<Site> {
    let ir = m.ir().unwrap();
    let mut out = Vec::new();
    for (f, func) in m.functions().iter_enumerated() {
        let b = ir.body(f);
        for i in b.live_rows() {
            let Some(c) = b.call_of(i) else { continue };
            let V::K(Value::Global(s)) = b.ops(i)[c.callee_op as usize] else {
                continue;
            };
            if let Some(loc) = c.dbg {
                out.push(Site {
                    caller: func.name.clone(),
                    callee: m.symbol_name(s).to_string(),
                    loc,
                });
            }
        }
    }
    out
}

/// The call rows of `f`'s body, in order.
fn calls(ir: &Ir, f: FuncIdx) -> Vec<CallInfo> {
    let b = ir.body(f);
    b.live_rows()
        .filter_map(|i| b.call_of(i).copied())
        .collect()
}

/// `(caller, callee, callsite)` of each remark that has `at callsite`.
fn remarks(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter_map(|l| {
            let (head, tail) = l.split_once(" at callsite ")?;
            let (callee_part, caller_part) = head.split_once("' inlined into '")?;
            let callee = callee_part.rsplit_once(": '")?.1;
            let caller = caller_part.split('\'').next()?;
            let callsite = tail.split(';').next()?;
            Some((caller.into(), callee.into(), callsite.into()))
        })
        .collect()
}

/// Checks every `at callsite` remark of `remark_texts` (opt's output on `ll`) against
/// the locations read from `ll`: a site without ` @ ` is a call of the caller's own
/// body, which must print exactly as opt printed it; a site `a @ b @ ...` is the call
/// printed as `a` inlined at the call printed as `b` (and so on), which `inline_at` must
/// print exactly as opt did, appended innermost-first or outermost-first. Returns the
/// numbers of plain and chained sites checked.
fn check_against_remarks(name: &str, ll: &str, remark_texts: &[&str]) -> (usize, usize) {
    let m = Module::from_ll_str_with(name, ll, OPTS).unwrap_or_else(|e| panic!("{e}"));
    let ir = m.ir().unwrap();
    assert!(ir.verify().is_empty(), "{name}: {:?}", ir.verify());
    let all = sites(&m);
    let mut d: DebugLocs = ir.debug_locs.clone();
    let (mut plain, mut chained) = (0, 0);
    for text in remark_texts {
        for (caller, callee, callsite) in remarks(text) {
            let parts: Vec<&str> = callsite.split(" @ ").collect();
            if parts.len() == 1 {
                let printed: Vec<String> = all
                    .iter()
                    .filter(|s| s.caller == caller && s.callee == callee)
                    .map(|s| d.format_callsite(s.loc, LCD))
                    .collect();
                assert!(
                    printed.contains(&callsite),
                    "{name}: '{callee}' in '{caller}': opt printed {callsite}, we have {printed:?}"
                );
                plain += 1;
                continue;
            }
            // each part: a call in the function the part names, printed as the part (the
            // first one a call of the remark's callee)
            let locs: Vec<DebugLocIdx> = parts
                .iter()
                .enumerate()
                .map(|(k, part)| {
                    let func = part.split(':').next().unwrap();
                    all.iter()
                        .find(|s| {
                            s.caller == func
                                && (k > 0 || s.callee == callee)
                                && d.format_callsite(s.loc, LCD) == *part
                        })
                        .unwrap_or_else(|| panic!("{name}: no call of {callee} printed {part}"))
                        .loc
                })
                .collect();
            let mut a = *locs.last().unwrap();
            for &l in locs.iter().rev().skip(1) {
                a = d.inline_at(l, a);
            }
            let mut b = locs[0];
            for &l in &locs[1..] {
                b = d.inline_at(b, l);
            }
            assert_eq!(d.format_callsite(a, LCD), callsite, "{name}");
            assert_eq!(d.format_callsite(b, LCD), callsite, "{name}");
            chained += 1;
        }
    }
    assert!(d.verify().is_empty(), "{name}: {:?}", d.verify());
    (plain, chained)
}

/// Test 1: every call site opt named in its remarks prints as opt printed it; chained
/// sites are `inline_at` of the calls their parts name.
#[test]
fn call_sites_print_as_opt_printed_them() {
    let (plain, chained) = check_against_remarks("nested.ll", LL, &[REMARKS, NEG_REMARKS]);
    // 11 plain sites in the plain run, 8 in the replay run; 1 + 4 chains
    assert_eq!((plain, chained), (19, 5));
    let m = read(LL).unwrap();
    let d = &m.ir().unwrap().debug_locs;
    let every: Vec<String> = sites(&m)
        .iter()
        .map(|s| d.format_callsite(s.loc, LCD))
        .collect();
    for needle in [
        "_ZL5twicei:0:74.1",   // linkageName; raw discriminator 2 is base discriminator 1
        "loop:2:57.3",         // a DILexicalBlockFile in the loop's DILexicalBlock
        "mid:5:12",            // three DILexicalBlocks deep
        "above:4294967294:10", // a #line above the function: the offset wraps
    ] {
        assert!(every.iter().any(|s| s == needle), "{needle} in {every:?}");
    }
}

/// Test 1 on other modules: `ILKIT_DEBUGLOC_EXTRA=a.ll:a.remarks.txt[:b.ll:b.remarks.txt]`
/// (a module and what `opt-14 -passes='cgscc(inline)' -pass-remarks=inline` printed
/// for it).
#[test]
fn call_sites_print_as_opt_printed_them_extra() {
    let Ok(extra) = std::env::var("ILKIT_DEBUGLOC_EXTRA") else {
        return;
    };
    let paths: Vec<&str> = extra.split(':').collect();
    for pair in paths.chunks(2) {
        let [ll, rem] = pair else {
            panic!("ILKIT_DEBUGLOC_EXTRA wants pairs: module, remarks")
        };
        let ll_text = std::fs::read_to_string(ll).unwrap();
        let rem_text = std::fs::read_to_string(rem).unwrap();
        let (plain, chained) = check_against_remarks(ll, &ll_text, &[&rem_text]);
        eprintln!("{ll}: {plain} plain and {chained} chained call sites agree with opt");
        assert!(plain + chained > 0, "{rem}: no remark with 'at callsite'");
    }
}

/// Test 2: chains built by hand print `callee:off:col @ caller:off:col`, in every format.
#[test]
fn inline_at_chains_by_hand() {
    let mut d = DebugLocs::default();
    let caller = d.add_subprogram("caller", 100);
    let callee = d.add_subprogram("_Z6calleei", 10);
    let outer = d.add_subprogram("outer", 1);
    let in_callee = d.add_loc(DebugLoc {
        discriminator: 3,
        ..DebugLoc::new(14, 7, callee)
    });
    let site = d.add_loc(DebugLoc::new(103, 12, caller));
    let outer_site = d.add_loc(DebugLoc::new(1, 2, outer));
    let c = d.inline_at(in_callee, site);
    assert_eq!(d.format_callsite(c, LCD), "_Z6calleei:4:7.3 @ caller:3:12");
    assert_eq!(
        d.format_callsite(c, CallSiteFormat::LineColumn),
        "_Z6calleei:4:7 @ caller:3:12"
    );
    assert_eq!(
        d.format_callsite(c, CallSiteFormat::LineDiscriminator),
        "_Z6calleei:4.3 @ caller:3"
    );
    assert_eq!(
        d.format_callsite(c, CallSiteFormat::Line),
        "_Z6calleei:4 @ caller:3"
    );
    // the copy is a new row; the original is untouched
    assert_ne!(c, in_callee);
    assert_eq!(d.inlined_at(in_callee), None);
    assert_eq!(d.get(c).inlined_at, Some(site));
    // inlining the caller (with the callee already in it) somewhere else
    let rows = d.num_locs();
    let cc = d.inline_at(c, outer_site);
    assert_eq!(d.num_locs(), rows + 2, "copies of c and of site");
    assert_eq!(
        d.format_callsite(cc, LCD),
        "_Z6calleei:4:7.3 @ caller:3:12 @ outer:0:2"
    );
    assert_eq!(d.inline_at(c, outer_site), cc, "cached");
    assert_eq!(d.num_locs(), rows + 2);
    // the caller's own call inlined at the same place shares the copy of `site`
    let s2 = d.inline_at(site, outer_site);
    assert_eq!(d.num_locs(), rows + 2);
    assert_eq!(d.inlined_at(cc), Some(s2));
    assert!(d.verify().is_empty());
}

/// A module without debug information has an empty table and empty columns.
#[test]
fn no_debug_info_costs_nothing() {
    let text = "define void @f() {\n  call void @g(), !prof !1\n  ret void\n}\n\
                declare void @g()\n!1 = !{!\"branch_weights\", i32 1}\n";
    let m = read(text).unwrap();
    let d = &m.ir().unwrap().debug_locs;
    assert!(d.is_empty());
    assert_eq!(d.func_rows(), 0);
}

/// Metadata before its use, a node over several lines, `distinct` nodes, an invoke's
/// attachment after its destinations, several attachments, and a `!dbg` whose value is
/// not a reference (ignored).
#[test]
fn metadata_in_any_order_and_layout() {
    let text = "!3 = distinct !DISubprogram(name: \"f\", linkageName: \"\", line: 10, unit: !0)\n\
        !5 = !DILocation(line: 12,\n    column: 4, scope: !6)\n\
        !6 = distinct !DILexicalBlockFile(scope: !3, file: !1, discriminator: 8)\n\
        define void @f() personality ptr @p !dbg !3 {\n\
        entry:\n  call void @g(), !srcloc !9, !dbg !5\n\
          invoke void @g()\n          to label %ok unwind label %bad, !dbg !7\n\
        ok:\n  call void @g(), !dbg !{}\n  ret void\n\
        bad:\n  %l = landingpad { ptr, i32 } cleanup\n  resume { ptr, i32 } %l\n}\n\
        declare void @g()\ndeclare i32 @p(...)\n\
        !7 = !DILocation(line: 9, scope: !3, inlinedAt: !5)\n\
        !1 = !DIFile(filename: \"f.c\", directory: \"/src\")\n";
    let m = read(text).unwrap();
    let ir = m.ir().unwrap();
    assert!(ir.verify().is_empty(), "{:?}", ir.verify());
    let d = &ir.debug_locs;
    let f = m.function_by_name("f").unwrap();
    let calls = calls(ir, f);
    let printed: Vec<String> = calls
        .iter()
        .map(|c| c.dbg.map_or("-".into(), |l| d.format_callsite(l, LCD)))
        .collect();
    assert_eq!(printed, ["f:2:4.4", "f:4294967295:0 @ f:2:4.4", "-"]);
    // a remark's prefix: the file of the location's own scope (the block file's; the
    // subprogram names none), the location's own line and column
    let src: Vec<String> = calls
        .iter()
        .map(|c| c.dbg.map_or("-".into(), |l| d.source_location(l)))
        .collect();
    assert_eq!(src, ["f.c:12:4", ":9:0", "-"]);
    assert_eq!(
        d.func_subprogram(f).map(|s| d.subprogram_name(s)),
        Some("f")
    );
    assert_eq!(d.num_subprograms(), 1, "one subprogram, reached three ways");
}

/// Chains far longer than any recursion could take, read without recursion.
#[test]
fn long_chains_are_read_iteratively() {
    let n = 50_000;
    let mut t = String::from(
        "define void @f() !dbg !1 {\n  call void @f(), !dbg !2\n  call void @f(), !dbg !3\n  ret void\n}\n\
         !1 = distinct !DISubprogram(name: \"f\", line: 1)\n",
    );
    // !2: a location in a scope 50k blocks deep; !3: a 50k-long inlinedAt chain
    t.push_str("!2 = !DILocation(line: 2, scope: !10)\n");
    t.push_str("!3 = !DILocation(line: 3, scope: !1, inlinedAt: !100000)\n");
    for k in 0..n {
        let parent = if k + 1 == n { 1 } else { 10 + k + 1 };
        t.push_str(&format!(
            "!{} = !DILexicalBlock(scope: !{parent})\n",
            10 + k
        ));
        let ia = if k + 1 == n {
            String::new()
        } else {
            format!(", inlinedAt: !{}", 100_000 + k + 1)
        };
        t.push_str(&format!(
            "!{} = !DILocation(line: 5, scope: !1{ia})\n",
            100_000 + k
        ));
    }
    let m = read(&t).unwrap();
    let ir = m.ir().unwrap();
    let d = &ir.debug_locs;
    let f = m.function_by_name("f").unwrap();
    let calls = calls(ir, f);
    assert_eq!(d.format_callsite(calls[0].dbg.unwrap(), LCD), "f:1:0");
    let l = calls[1].dbg.unwrap();
    assert_eq!(d.chain(l).count(), n + 1);
    assert!(ir.verify().is_empty());
}

/// Test 4: hostile metadata gives a positioned error (or is ignored), never a panic or
/// a hang.
#[test]
fn hostile_metadata_is_an_error_not_a_panic() {
    let head = "define void @f() {\n  call void @f(), !dbg !7\n  ret void\n}\n\
                !4 = distinct !DISubprogram(name: \"f\", line: 1)\n";
    let cases: &[(&str, &str, u32)] = &[
        // cyclic scope chains
        (
            "!5 = !DILexicalBlock(scope: !6)\n!6 = !DILexicalBlock(scope: !5)\n\
             !7 = !DILocation(line: 1, scope: !5)\n",
            "cyclic",
            0,
        ),
        (
            "!5 = !DILexicalBlockFile(scope: !5, discriminator: 0)\n\
             !7 = !DILocation(line: 1, scope: !5)\n",
            "cyclic",
            0,
        ),
        // cyclic inlinedAt chains
        (
            "!7 = !DILocation(line: 1, scope: !4, inlinedAt: !8)\n\
             !8 = !DILocation(line: 2, scope: !4, inlinedAt: !7)\n",
            "cyclic",
            0,
        ),
        (
            "!7 = !DILocation(line: 1, scope: !4, inlinedAt: !7)\n",
            "cyclic",
            0,
        ),
        // missing or repeated fields, values out of range
        (
            "!7 = !DILocation(line: 1)\n",
            "missing required field 'scope'",
            6,
        ),
        (
            "!5 = !DILexicalBlockFile(scope: !4)\n!7 = !DILocation(line: 1, scope: !5)\n",
            "missing required field 'discriminator'",
            6,
        ),
        (
            "!7 = !DILocation(line: 1, line: 2, scope: !4)\n",
            "cannot be specified more than once",
            6,
        ),
        (
            "!7 = !DILocation(line: 1, column: 70000, scope: !4)\n",
            "limit is 65535",
            6,
        ),
        (
            "!7 = !DILocation(line: -1, scope: !4)\n",
            "unsigned integer",
            6,
        ),
        (
            "!7 = !DILocation(line: 1, scope: null)\n",
            "cannot be null",
            6,
        ),
        (
            "!7 = !DILocation(line: 1, scope: !DISubprogram(name: \"g\"))\n",
            "not supported",
            6,
        ),
        (
            "!7 = !DILocation(line: 1, scope: !4\n",
            "found end of file",
            0,
        ),
        // references to the wrong kind of node, or to nothing
        ("!7 = !{}\n", "must be a DILocation", 2),
        (
            "!7 = distinct !DISubprogram(name: \"g\")\n",
            "must be a DILocation",
            2,
        ),
        ("", "undefined metadata '!7'", 2),
        (
            "!7 = !DILocation(line: 1, scope: !4, inlinedAt: !4)\n",
            "'inlinedAt:' must be a DILocation",
            6,
        ),
        (
            "!3 = !DIFile(filename: \"a.c\", directory: \"/\")\n\
             !7 = !DILocation(line: 1, scope: !3)\n",
            "scope must be",
            7,
        ),
        (
            "!7 = !DILocation(line: 1, scope: !4)\n!7 = !DILocation(line: 2, scope: !4)\n",
            "defined more than once",
            7,
        ),
        // a scope's file must be a DIFile, with a filename
        (
            "!5 = !DILexicalBlock(scope: !4, file: !4)\n!7 = !DILocation(line: 1, scope: !5)\n",
            "'file:' must be a DIFile",
            6,
        ),
        (
            "!3 = !DIFile(directory: \"/\")\n!5 = !DILexicalBlock(scope: !4, file: !3)\n\
             !7 = !DILocation(line: 1, scope: !5)\n",
            "missing required field 'filename'",
            6,
        ),
        (
            "!7 = !DILocation(line: 1, scope: !99999999999)\n",
            "undefined metadata",
            6,
        ),
    ];
    for (tail, want, line) in cases {
        let text = format!("{head}{tail}");
        let e = read(&text).expect_err(tail);
        assert!(e.message.contains(want), "{tail}: {e}");
        if *line != 0 {
            assert_eq!(e.line, *line, "{tail}: {e}");
            assert!(e.column > 0, "{tail}: {e}");
        }
        // the first pass alone does not look at debug information
        Module::from_ll_str("t.ll", &text).unwrap();
    }
    // a definition's !dbg must be a subprogram
    let e =
        read("define void @f() !dbg !7 {\n  ret void\n}\n!7 = !DILocation(line: 1, scope: !7)\n")
            .unwrap_err();
    assert!(e.message.contains("must be a DISubprogram"), "{e}");
    // ignored: a !dbg whose value is not a reference, unknown fields and node kinds
    let m = read(&format!(
        "{}!7 = !DILocation(line: 3, scope: !4, isImplicitCode: true, atomGroup: 9)\n!8 = !DIFoo(x: y)\n",
        head.replace("!dbg !7", "!dbg !7, !dbg !{}")
    ))
    .unwrap();
    let ir = m.ir().unwrap();
    assert_eq!(ir.debug_locs.num_locs(), 1);
}

/// The instruction pass on several threads resolves the same locations as on one
/// (each run's bodies carry their calls' locations through the merge).
#[test]
fn parallel_instruction_pass_reads_the_same_locations() {
    let mut t = String::new();
    let n = 6000;
    for k in 0..n {
        t.push_str(&format!(
            "define void @f{k}() !dbg !{sp} {{\n  call void @f{}(), !dbg !{loc}\n  call void @f{k}()\n  ret void\n}}\n",
            (k * 7 + 3) % n,
            sp = 3 * k + 10,
            loc = 3 * k + 11,
        ));
    }
    for k in 0..n {
        t.push_str(&format!(
            "!{} = distinct !DISubprogram(name: \"f{k}\", line: {k})\n!{} = !DILocation(line: {}, column: {}, scope: !{})\n!{} = !DILexicalBlockFile(scope: !{}, discriminator: {})\n",
            3 * k + 10,
            3 * k + 11,
            k + 2,
            k % 50,
            3 * k + 12,
            3 * k + 12,
            3 * k + 10,
            2 * (k % 7),
        ));
    }
    let four = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let par = four.install(|| read(&t)).unwrap();
    let seq = one.install(|| read(&t)).unwrap();
    assert!(par == seq, "the parallel view differs");
    let ir = par.ir().unwrap();
    assert!(ir.verify().is_empty(), "{:?}", ir.verify());
    let d = &ir.debug_locs;
    let f = par.function_by_name("f4001").unwrap();
    let c = calls(ir, f)[0];
    assert_eq!(d.format_callsite(c.dbg.unwrap(), LCD), "f4001:2:1.4");
    let with_loc: usize = par
        .functions()
        .indices()
        .map(|f| calls(ir, f).iter().filter(|c| c.dbg.is_some()).count())
        .sum();
    assert_eq!(with_loc, n, "one call of each function has a location");
}
