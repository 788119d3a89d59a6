//! File-driven checks against real inputs with their compilers' own answers, one test per
//! file (a libtest-mimic harness, as cranelift's filetests are): the corpus's LLVM IR and
//! PTX (`tests/corpus/llvm`, gzipped; `$ILKIT_CORPUS` names a larger set laid out the
//! same way, plain or gzipped) against LLVM 14's answers, and CUDA clang JSON dumps
//! (`tests/corpus/cuda/json`; `$ILKIT_CUDA_JSON` names the full set that
//! `scripts/corpus/cuda.sh` makes) against clang: every dump imports and verifies, its
//! instantiations agree with clang's, and its kept device routines are the ones clang
//! itself emits (`tests/corpus/cuda/defines`). See `tests/corpus/README.md`.
//! When an input set is missing, the list shows one ignored test named
//! `... (skipped: ... missing ...)` instead of passing silently.
//!
//! `cargo test --release --test corpus -- --list` shows every file's tests.

use ilkit::cfg::{BlockIdx, Cfg};
use ilkit::cgscc::{InlineModel, Options, PassManager};
use ilkit::il::kinds::rf;
use ilkit::il::Il;
use ilkit::import::{binary_il, clang_json, ptx};
use ilkit::llvm::Module;
use ilkit::walk::device::{kept_routine_table, mark_device, routine_flag_words, DeviceOptions};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

mod common;

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    llvm_trials(&mut trials);
    cuda_trials(&mut trials);
    libtest_mimic::run(&args, trials).exit();
}

/// One ignored trial standing for a missing input set.
fn skipped(group: &str, why: &str) -> Trial {
    Trial::test(format!("{group} (skipped: {why})"), || Ok(())).with_ignored_flag(true)
}

/// The repository's own corpus.
fn own_corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn corpus_dir() -> Option<PathBuf> {
    [
        std::env::var("ILKIT_CORPUS").ok().map(PathBuf::from),
        Some(own_corpus()),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.join("llvm").is_dir())
}

/// Every file under `dir` (recursively) whose name ends with `suffix` or `suffix.gz`,
/// sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let gz = format!("{suffix}.gz");
    let mut out = files_ending(dir, suffix);
    out.extend(files_ending(dir, &gz));
    out.sort();
    out
}

fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `x.ll` -> `x.EXT` (`x.ptx` -> `x.ptx.EXT` for PTX answers), either of them possibly
/// gzipped; the answer that exists, plain or gzipped (the plain name when neither does).
fn sibling(p: &Path, ext: &str) -> PathBuf {
    let s = p.to_string_lossy();
    let s = s.strip_suffix(".gz").unwrap_or(&s);
    let plain = match s.strip_suffix(".ll") {
        Some(stem) => format!("{stem}.{ext}"),
        None => format!("{s}.{ext}"),
    };
    let gz = PathBuf::from(format!("{plain}.gz"));
    if !ext.ends_with(".gz") && gz.exists() {
        gz
    } else {
        PathBuf::from(plain)
    }
}

fn gunzip(p: &Path) -> Option<String> {
    let f = std::fs::File::open(p).ok()?;
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(f)
        .read_to_string(&mut s)
        .ok()?;
    Some(s)
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

fn fail(errs: Vec<String>) -> Result<(), Failed> {
    if errs.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} mismatches:\n{}",
        errs.len(),
        errs.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    )
    .into())
}

/// A file's text, decompressed when it is gzipped.
fn read(p: &Path) -> Result<String, Failed> {
    ilkit::import::read_text(p).map_err(|e| format!("{}: {e}", p.display()).into())
}

fn load_ll(p: &Path) -> Result<Module, Failed> {
    let text = read(p)?;
    Module::from_ll_str(&p.display().to_string(), &text).map_err(|e| e.to_string().into())
}

fn llvm_trials(trials: &mut Vec<Trial>) {
    let Some(root) = corpus_dir() else {
        for g in ["ptx_cfg", "ll_cfg", "lcg", "print_lcg", "cgscc"] {
            trials.push(skipped(g, "tests/corpus/llvm missing; set ILKIT_CORPUS"));
        }
        return;
    };
    let llvm = root.join("llvm");
    for p in files(&llvm, ".ptx") {
        let ans = sibling(&p, "cfg.json");
        if ans.exists() {
            let name = rel(&llvm, &p);
            trials.push(Trial::test(
                format!("ptx_cfg::{}", name.strip_suffix(".gz").unwrap_or(&name)),
                move || ptx_cfg(&p, &ans),
            ));
        }
    }
    for p in files(&llvm, ".ll") {
        let name = rel(&llvm, &p);
        let name = name.strip_suffix(".gz").unwrap_or(&name).to_string();
        let cfg_ans = sibling(&p, "cfg.json");
        if cfg_ans.exists() {
            let p = p.clone();
            trials.push(Trial::test(format!("ll_cfg::{name}"), move || {
                ll_cfg(&p, &cfg_ans)
            }));
        }
        let lcg_ans = sibling(&p, "lcg.json");
        if lcg_ans.exists() {
            let p = p.clone();
            trials.push(Trial::test(format!("lcg::{name}"), move || {
                lcg(&p, &lcg_ans)
            }));
        }
        let text_ans = sibling(&p, "lcg.txt.gz");
        if text_ans.exists() {
            let p = p.clone();
            trials.push(Trial::test(format!("print_lcg::{name}"), move || {
                print_lcg(&p, &text_ans)
            }));
        }
        trials.push(Trial::test(format!("cgscc::{name}"), move || cgscc(&p)));
    }
}

/// Blocks, successors, instruction counts, RPO, backedges, idom and loops of every
/// function equal the answer.
fn ptx_cfg(p: &Path, ans: &Path) -> Result<(), Failed> {
    let ans: Value = serde_json::from_str(&read(ans)?)?;
    let m = ptx::parse(&p.display().to_string(), &read(p)?).map_err(|e| e.to_string())?;
    let by_name: BTreeMap<&str, &ptx::Function> = m
        .functions
        .iter()
        .filter(|f| f.has_body)
        .map(|f| (f.name.as_str(), f))
        .collect();
    let mut bad = Vec::new();
    for f in ans["functions"].as_array().ok_or("no functions")? {
        let name = f["name"].as_str().unwrap_or("?");
        let Some(pf) = by_name.get(name) else {
            bad.push(format!("function {name} missing"));
            continue;
        };
        let cfg = ptx::build_cfg(pf);
        let info = cfg.analyze();
        let fname = name.to_string();
        bad.extend(common::compare(&cfg, &info, f, &|b| format!("{fname}@{b}")));
        if let Some(ni) = f["ninsts"].as_array() {
            for (b, n) in ni.iter().enumerate() {
                let mine = cfg.insns(BlockIdx::new(b)).len() as u64;
                if Some(mine) != n.as_u64() {
                    bad.push(format!("{name}: ninsts[{b}] {mine} != {n}"));
                }
            }
        }
    }
    fail(bad)
}

fn ll_cfg(p: &Path, ans: &Path) -> Result<(), Failed> {
    let ans: Value = serde_json::from_str(&read(ans)?)?;
    let m = load_ll(p)?;
    let cfgs = Cfg::from_llvm_module(&m);
    let by_name: BTreeMap<&str, &Cfg> = cfgs.iter().map(|c| (c.name(), c)).collect();
    let mut bad = Vec::new();
    for f in ans["functions"].as_array().ok_or("no functions")? {
        let name = f["name"].as_str().unwrap_or("?");
        let Some(cfg) = by_name.get(name) else {
            bad.push(format!("function {name} missing"));
            continue;
        };
        let info = cfg.analyze();
        bad.extend(common::compare(cfg, &info, f, &|b| format!("?{b}")));
    }
    fail(bad)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Entry roots, every node's edges, post-order RefSCCs and the functions in no RefSCC
/// equal `*.lcg.json` (LLVM 14's `LazyCallGraph`).
fn lcg(p: &Path, ans: &Path) -> Result<(), Failed> {
    let v: Value = serde_json::from_str(&read(ans)?)?;
    let m = load_ll(p)?;
    let mut g = ilkit::callgraph::from_module(&m, "x");
    let roots: Vec<String> = g
        .entry_nodes()
        .iter()
        .map(|&n| g.name(n).unwrap().to_string())
        .collect();
    let mut bad = Vec::new();
    if roots != strings(&v["entry_roots"]) {
        bad.push("entry roots differ".to_string());
    }
    for node in v["nodes"].as_array().ok_or("no nodes")? {
        let name = node["name"].as_str().unwrap_or("?");
        let Some(n) = g.node_by_name(name) else {
            bad.push(format!("missing node {name}"));
            continue;
        };
        g.populate(n);
        let mine: Vec<(String, String)> = g
            .cached_edges(n)
            .map(|e| {
                let k = if e.is_call() { "call" } else { "ref" };
                (g.name(e.target).unwrap().to_string(), k.to_string())
            })
            .collect();
        let want: Vec<(String, String)> = node["edges"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        let s = |i: usize| e[i].as_str().unwrap_or("").to_string();
                        (s(0), s(1))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if mine != want {
            bad.push(format!("edges of {name} differ"));
        }
    }
    let problems = g.verify();
    if !problems.is_empty() {
        bad.push(format!("verify: {problems:?}"));
    }
    let mine: Vec<Vec<Vec<String>>> = g
        .postorder_names()
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|s| s.into_iter().map(str::to_string).collect())
                .collect()
        })
        .collect();
    let want: Vec<Vec<Vec<String>>> = v["postorder_refsccs"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    r.as_array()
                        .map(|s| s.iter().map(strings).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    if mine != want {
        bad.push("post-order RefSCCs differ".to_string());
    }
    let unreached: Vec<String> = g
        .nodes()
        .filter(|&n| g.is_defined(n) && g.scc_of(n).is_none())
        .map(|n| g.name(n).unwrap().to_string())
        .collect();
    if unreached != strings(&v["defined_not_in_any_refscc"]) {
        bad.push("defined_not_in_any_refscc differs".to_string());
    }
    fail(bad)
}

/// The text printer is byte-identical to `opt -passes=print-lcg`.
fn print_lcg(p: &Path, ans: &Path) -> Result<(), Failed> {
    let want = gunzip(ans).ok_or("cannot read the answer")?;
    let m = load_ll(p)?;
    let id = want
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("Printing the call graph for module: ")
        .to_string();
    let mine = ilkit::callgraph::from_module(&m, &id).print_text();
    if mine != want {
        let line = mine.lines().zip(want.lines()).position(|(a, b)| a != b);
        return Err(format!("print-lcg differs at line {line:?}").into());
    }
    Ok(())
}

/// The CGSCC pipeline visits bottom-up, leaves a graph that verifies, and inlines the
/// same way twice: the inliner (LLVM 14's model, on the instruction view) and the summary
/// estimate the scan runs (on the module read without it).
fn cgscc(p: &Path) -> Result<(), Failed> {
    let text = read(p)?;
    let name = p.display().to_string();
    let with_ir = ilkit::import::llvm_ir::ParseOptions { instructions: true };
    let full = Module::from_ll_str_with(&name, &text, with_ir).map_err(|e| e.to_string())?;
    let bare = Module::from_ll_str(&name, &text).map_err(|e| e.to_string())?;
    for (m, model) in [(&full, InlineModel::Llvm14), (&bare, InlineModel::Summary)] {
        cgscc_runs(m, model).map_err(|e| format!("{model:?}: {e}"))?;
    }
    Ok(())
}

fn cgscc_runs(m: &Module, model: InlineModel) -> Result<(), String> {
    let run = |pipeline: &str| {
        let mut opts = Options::default();
        opts.inline.model = model;
        let mut pm = PassManager::from_text(pipeline, opts).map_err(|e| e.to_string())?;
        ilkit::cgscc::run_pipeline_summary(m, &mut pm).map_err(|e| format!("{e:?}"))
    };
    let s = run("cgscc(function-attrs)")?;
    if (s.verify_errors, s.order_errors) != (0, 0) {
        return Err(format!(
            "function-attrs: {} verify, {} order errors",
            s.verify_errors, s.order_errors
        ));
    }
    let a = run("cgscc(devirt<5>(inline))")?;
    if (a.verify_errors, a.order_errors) != (0, 0) {
        return Err(format!(
            "inline: {} verify, {} order errors",
            a.verify_errors, a.order_errors
        ));
    }
    if a != run("cgscc(devirt<5>(inline))")? {
        return Err("the inliner is not deterministic".into());
    }
    Ok(())
}

/// `x.json.gz` / `x.json` -> `x`.
fn dump_stem(p: &Path) -> String {
    let n = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = n.strip_suffix(".gz").unwrap_or(&n);
    n.strip_suffix(".json").unwrap_or(n).to_string()
}

fn cuda_trials(trials: &mut Vec<Trial>) {
    let own = own_corpus().join("cuda");
    let dir = std::env::var("ILKIT_CUDA_JSON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| own.join("json"));
    let defs = std::env::var("ILKIT_CUDA_DEFS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| own.join("defines"));
    let dumps = files(&dir, ".json");
    if dumps.is_empty() {
        trials.push(skipped(
            "cuda_json",
            &format!(
                "no clang JSON in {}; set ILKIT_CUDA_JSON (scripts/corpus/cuda.sh makes them)",
                dir.display()
            ),
        ));
    }
    if dumps.len() >= 14 {
        // The whole corpus (a partial one would not be the number PERF.md states).
        let all = dumps.clone();
        trials.push(Trial::test("cuda_subst_total", move || {
            cuda_subst_total(&all)
        }));
    }
    for p in dumps {
        let stem = dump_stem(&p);
        let q = p.clone();
        trials.push(Trial::test(format!("cuda_json::{stem}"), move || {
            cuda_json(&q)
        }));
        let q = p.clone();
        trials.push(Trial::test(format!("cuda_subst::{stem}"), move || {
            cuda_subst(&q)
        }));
        // The filtered dump against the routines clang emits for the same TU.
        let d = defs.join(format!("{stem}.defines.txt"));
        if d.exists() && std::env::var("ILKIT_CUDA_FULL").is_err() {
            trials.push(Trial::test(
                format!("cuda_kept_vs_clang::{stem}"),
                move || kept_vs_clang(&p, &d),
            ));
        }
    }
    // Unfiltered dumps (`KEEP_FULL=1` keeps them), against clang's defines.
    if let Ok(full) = std::env::var("ILKIT_CUDA_FULL") {
        for d in files(&defs, ".defines.txt") {
            let stem = d
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".defines.txt"))
                .unwrap_or("")
                .to_string();
            let dump = Path::new(&full).join(format!("{stem}.full.json"));
            if stem.ends_with(".O0") || !dump.exists() {
                continue;
            }
            trials.push(Trial::test(
                format!("cuda_kept_vs_clang::{stem}"),
                move || kept_vs_clang(&dump, &d),
            ));
        }
    }
}

/// A dump imports into a world that verifies; device marking, the device IL's write and
/// read back, and the read world's verification all go through.
fn cuda_json(p: &Path) -> Result<(), Failed> {
    let mut il = Il::new();
    clang_json::import_file(&mut il, p).map_err(|e| e.to_string())?;
    let problems = il.verify();
    if !problems.is_empty() {
        return Err(format!("imported world: {problems:?}").into());
    }
    let dk = mark_device(&mut il, DeviceOptions::default());
    let name = p.to_string_lossy();
    if name.contains("candle_") && dk.routines.is_empty() {
        return Err("no device routines kept".into());
    }
    let bytes = binary_il::write_il(&mut il, true).map_err(|e| e.to_string())?;
    let back = binary_il::read_il(&bytes).map_err(|e| e.to_string())?;
    let problems = back.verify();
    if !problems.is_empty() {
        return Err(format!("device IL read back: {problems:?}").into());
    }
    Ok(())
}

/// The one class of declaration types not compared: locals of an `if constexpr` branch
/// the instantiation discarded (nothing to compare them with).
const DISCARDED: &str = "local of a discarded branch (if constexpr), not in the instantiation";

/// (agreeing, compared) declaration types of a report, counted strictly: every
/// declaration the check met, out of scope or not, except discarded locals.
fn strict_decl_types(r: &ilkit::instantiate::InstantiationReport) -> (u64, u64) {
    let t = &r.decl_types;
    let skipped: u64 = t
        .out_of_scope
        .iter()
        .filter(|(k, _)| **k != DISCARDED)
        .map(|(_, v)| v)
        .sum();
    (t.agree, t.checked + skipped)
}

/// The least share of declaration types (in percent, counted strictly) that must agree
/// in every TU (PERF.md has the per-TU numbers and the classes of the rest).
const DECL_TYPES_FLOOR: f64 = 99.0;

/// ilkit's substitution agrees with every SubstNonTypeTemplateParmExpr clang recorded
/// (value and type), and with the declaration types of the instantiations at least
/// [`DECL_TYPES_FLOOR`] (PERF.md has the per-TU numbers).
fn cuda_subst(p: &Path) -> Result<(), Failed> {
    let r = subst_report(p)?;
    if r.nttp.agree != r.nttp.checked {
        return Err(format!("substituted non-type parameters: {:?}", r.nttp).into());
    }
    let (agree, all) = strict_decl_types(&r);
    let pct = if all == 0 {
        100.0
    } else {
        agree as f64 * 100.0 / all as f64
    };
    if pct < DECL_TYPES_FLOOR {
        return Err(format!(
            "declaration types {agree}/{all} ({pct:.2}%): {:?}",
            r.decl_types
        )
        .into());
    }
    Ok(())
}

fn subst_report(p: &Path) -> Result<ilkit::instantiate::InstantiationReport, Failed> {
    let mut il = Il::new();
    clang_json::import_file(&mut il, p).map_err(|e| e.to_string())?;
    Ok(ilkit::instantiate::check_instantiations(&mut il).map_err(|e| e.to_string())?)
}

/// Over the whole corpus, at least 99% of the instantiations' declaration types agree,
/// counted strictly.
fn cuda_subst_total(dumps: &[PathBuf]) -> Result<(), Failed> {
    let (mut agree, mut all) = (0u64, 0u64);
    let (mut bodies_agree, mut bodies) = (0u64, 0u64);
    for p in dumps {
        let r = subst_report(p)?;
        let (a, n) = strict_decl_types(&r);
        agree += a;
        all += n;
        bodies_agree += r.bodies.agree;
        bodies += r.bodies.checked;
    }
    if agree * 100 < all * 99 {
        return Err(format!("declaration types {agree}/{all} over the corpus (under 99%)").into());
    }
    if bodies_agree * 100 < bodies * 95 {
        return Err(format!("bodies {bodies_agree}/{bodies} over the corpus (under 95%)").into());
    }
    Ok(())
}

/// The mangled names of the routines whose bodies the corpus filter left out of a
/// filtered dump (`"x-bodyOmitted": true`: declared in a header outside the project, such
/// as the SDK stubs). No reader can keep what the dump does not hold.
fn omitted_bodies(dump: &Path) -> Result<BTreeSet<String>, Failed> {
    let v: Value = serde_json::from_str(&read(dump)?)?;
    let mut out = BTreeSet::new();
    let mut stack = vec![&v];
    while let Some(x) = stack.pop() {
        if x["x-bodyOmitted"] == Value::Bool(true) {
            if let Some(m) = x["mangledName"].as_str() {
                out.insert(m.to_string());
            }
        }
        if let Some(inner) = x["inner"].as_array() {
            stack.extend(inner);
        }
    }
    Ok(out)
}

/// Every routine clang defines is kept; a kept routine clang does not define is
/// always_inline, an implicit special member or a static inline function. In a filtered
/// dump, routines whose bodies the filter omitted are left out of the comparison.
fn kept_vs_clang(dump: &Path, defines: &Path) -> Result<(), Failed> {
    let norm = |s: &str| {
        s.trim_matches('"')
            .replace("C2E", "C1E")
            .replace("D2E", "D1E")
    };
    let full = dump.to_string_lossy().ends_with(".full.json");
    let omitted: BTreeSet<String> = if full {
        BTreeSet::new() // an unfiltered dump holds every body
    } else {
        omitted_bodies(dump)?.iter().map(|m| norm(m)).collect()
    };
    let clang: BTreeSet<String> = read(defines)?
        .split_whitespace()
        .map(norm)
        .filter(|d| !omitted.contains(d))
        .collect();
    let mut il = Il::new();
    clang_json::import_file(&mut il, dump).map_err(|e| e.to_string())?;
    let dk = mark_device(&mut il, DeviceOptions::default());
    let table = kept_routine_table(&il, &dk);
    let kept: BTreeSet<String> = table.iter().map(|(k, _)| norm(k)).collect();
    let mut bad: Vec<String> = clang
        .difference(&kept)
        .map(|d| format!("clang defines {d}, not kept"))
        .collect();
    for (k, bits) in &table {
        // A lambda's call operator (`...UlbiiE_clE...`: internal, implicitly host and
        // device) whose only calls sit under a condition clang's CodeGen folds at -O0
        // (`if (has_act_order && i == 0)` with `has_act_order` a false template argument
        // in marlin): clang emits a lambda body on first use, so it never emits these;
        // ilkit keeps what the instantiated body references.
        let lambda = k.contains("Ul") && k.contains("_cl") && bits & rf::INTERNAL != 0;
        let explained = bits & (rf::ALWAYS_INLINE | rf::IMPLICIT) != 0
            || bits & (rf::STATIC | rf::INLINE) == rf::STATIC | rf::INLINE
            || lambda;
        if !clang.contains(&norm(k)) && !explained {
            bad.push(format!(
                "unexplained kept routine {k}: {}",
                routine_flag_words(*bits)
            ));
        }
    }
    fail(bad)
}
