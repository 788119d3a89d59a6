//! `ilkit scan`: a parallel corpus scan. Files are dispatched by content — LLVM IR text,
//! PTX, ilkit binary IL, or a generated translation unit — imported, run through the systems of their
//! stage, and summarized as one [`FileRecord`] each.
//!
//! Files run in parallel with rayon; results come back in input order, so the report is
//! deterministic whatever the number of jobs. A file that fails to import is reported with
//! its error and the scan goes on.

use crate::cfg::Cfg;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One input of a scan.
#[derive(Clone, Debug)]
pub enum Input {
    /// A file on disk.
    File(PathBuf),
    /// A file compiled into the binary (the embedded default corpus).
    Embedded {
        /// Display name.
        name: &'static str,
        /// Contents.
        text: &'static str,
    },
    /// A gzipped clang JSON AST compiled into the binary.
    EmbeddedClangJson {
        /// Display name.
        name: &'static str,
        /// The gzipped JSON.
        gz: &'static [u8],
    },
    /// A generated translation unit.
    Generated {
        /// Generator seed.
        seed: u64,
        /// Generator scale (1.0 ≈ 10^5 entries).
        scale: f64,
    },
}

impl Input {
    /// Expected work, for scheduling: bytes on disk or embedded, a generated TU's scale.
    pub fn size_hint(&self) -> u64 {
        match self {
            Input::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Input::Embedded { text, .. } => text.len() as u64,
            Input::EmbeddedClangJson { gz, .. } => 10 * gz.len() as u64,
            Input::Generated { scale, .. } => (scale * 8e6) as u64,
        }
    }

    /// The name reports use.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Embedded { name, .. } | Input::EmbeddedClangJson { name, .. } => {
                format!("<embedded>/{name}")
            }
            Input::Generated { seed, scale } => format!("<generated seed={seed} scale={scale}>"),
        }
    }
}

/// What a scan found in one file. Counts a stage does not produce stay zero.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileRecord {
    /// File name.
    pub name: String,
    /// What the file was read as: `ll`, `ptx`, `il` (generated), or `unknown`.
    pub kind: &'static str,
    /// Bytes of input (for generated IL: bytes of ilkit's layout).
    pub bytes: u64,
    /// Functions (CFGs) analysed.
    pub functions: u64,
    /// Blocks over all CFGs.
    pub blocks: u64,
    /// CFG edges over all CFGs.
    pub edges: u64,
    /// Blocks unreachable from their entry.
    pub unreachable: u64,
    /// Natural loops.
    pub loops: u64,
    /// Deepest loop nesting.
    pub deepest_loop: u64,
    /// Functions with an irreducible cycle.
    pub irreducible_functions: u64,
    /// Call-graph nodes (defined functions).
    pub cg_nodes: u64,
    /// Call SCCs.
    pub sccs: u64,
    /// Size of the largest call SCC.
    pub largest_scc: u64,
    /// RefSCCs.
    pub refsccs: u64,
    /// SCC visits of the default CGSCC pipeline.
    pub cgscc_visits: u64,
    /// Call sites the default pipeline inlined.
    pub cgscc_inlined: u64,
    /// Call edges between defined functions before / after the default pipeline.
    pub call_edges_before: u64,
    /// Call edges left after the default pipeline.
    pub call_edges_after: u64,
    /// IL entries.
    pub il_entries: u64,
    /// IL entries marked keep_in_il.
    pub il_kept: u64,
    /// IL constants offered to constant sharing.
    pub il_constants: u64,
    /// Of those, the ones that found an equal canonical constant.
    pub il_constants_shared: u64,
    /// Wall time for this file, seconds.
    pub seconds: f64,
    /// The import or analysis error, if any.
    pub error: Option<String>,
}

/// Sniffs a file's format from its contents (and name as a tie-breaker).
pub fn sniff(name: &str, text: &str) -> &'static str {
    let head = &text[..text.len().min(4096)];
    if name.ends_with(".ptx")
        || head.lines().any(|l| l.trim_start().starts_with(".version")) && head.contains(".target")
    {
        "ptx"
    } else if name.ends_with(".ll")
        || head.contains("; ModuleID")
        || head.contains("target triple")
        || head.contains("target datalayout")
        || text.contains("\ndefine ")
    {
        "ll"
    } else {
        "unknown"
    }
}

/// The embedded `.ll` and `.ptx` samples of the default corpus: (name, text).
const EMBEDDED_SAMPLES: [(&str, &str); 4] = [
    (
        "recursion.ll",
        include_str!("../../data/default/recursion.ll"),
    ),
    (
        "compress.nvptx.O2.ll",
        include_str!("../../data/default/compress.nvptx.O2.ll"),
    ),
    (
        "compress.ptx",
        include_str!("../../data/default/compress.ptx"),
    ),
    (
        "adler32.ptx",
        include_str!("../../data/default/adler32.ptx"),
    ),
];

/// The embedded default corpus: generated translation units plus small `.ll` and `.ptx`
/// samples compiled into the binary.
pub fn default_inputs() -> Vec<Input> {
    // Four mid-sized translation units (≈ 3.5·10^4 entries each) rather than one big one,
    // so the default scan spreads over the cores like a real corpus.
    let generated = (1..=4).map(|seed| Input::Generated { seed, scale: 0.35 });
    let samples = EMBEDDED_SAMPLES
        .iter()
        .map(|&(name, text)| Input::Embedded { name, text });
    generated
        .chain(samples)
        .chain([Input::EmbeddedClangJson {
            name: "kernels.json.gz",
            gz: include_bytes!("../../tests/fixtures/clang/kernels.json.gz"),
        }])
        .collect()
}

/// Expands paths: files as they are, folders recursively (sorted, so the list is
/// deterministic), keeping files whose names end in `.ll`, `.ptx`, `.il`, `.json` or
/// `.json.gz`.
pub fn collect_inputs(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            let mut files = Vec::new();
            while let Some(d) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&d) else {
                    continue;
                };
                for ent in rd.flatten() {
                    let path = ent.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if has_scannable_ext(&path) {
                        files.push(path);
                    }
                }
            }
            files.sort();
            out.extend(files.into_iter().map(Input::File));
        } else {
            out.push(Input::File(p.clone()));
        }
    }
    out
}

fn has_scannable_ext(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("ll" | "ptx" | "il")
    )
}

/// Keeps the `i`-th of `n` deterministic shards of `inputs` (round robin by position).
pub fn shard(inputs: Vec<Input>, i: usize, n: usize) -> Vec<Input> {
    inputs
        .into_iter()
        .enumerate()
        .filter(|(k, _)| n == 0 || k % n == i)
        .map(|(_, x)| x)
        .collect()
}

/// Scans every input; results are in input order. `on_done` is called once per finished
/// file (for a progress bar).
pub fn scan(inputs: &[Input], on_done: &(dyn Fn() + Sync)) -> Vec<FileRecord> {
    // Largest first (longest-processing-time scheduling): a big module started last would
    // otherwise run alone at the end. Results go back to input order.
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].size_hint()));
    let mut done: Vec<(usize, FileRecord)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let r = scan_one(&inputs[i]);
            on_done();
            (i, r)
        })
        .collect();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Scans one input.
pub fn scan_one(input: &Input) -> FileRecord {
    let t0 = Instant::now();
    let name = input.name();
    let mut rec = FileRecord {
        name: name.clone(),
        kind: "unknown",
        ..FileRecord::default()
    };
    let result = match input {
        Input::Generated { seed, scale } => {
            rec.kind = "il";
            scan_generated(*seed, *scale, &mut rec);
            Ok(())
        }
        Input::Embedded { name, text } => scan_text(name, text, &mut rec),
        Input::EmbeddedClangJson { gz, .. } => {
            let r = flate2::read::MultiGzDecoder::new(*gz);
            scan_clang_json(&mut rec, |il| {
                crate::import::clang_json::import_reader(il, r)
            })
        }
        Input::File(p) if is_clang_json(p) => {
            scan_clang_json(&mut rec, |il| crate::import::clang_json::import_file(il, p))
        }
        Input::File(p) => match std::fs::read(p) {
            Ok(bytes) if bytes.starts_with(b"ILKIT-IL") => scan_il_file(&name, &bytes, &mut rec),
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => scan_text(&name, &text, &mut rec),
                Err(e) => Err(format!(
                    "{name}: byte {}: not UTF-8 text",
                    e.utf8_error().valid_up_to()
                )),
            },
            Err(e) => Err(format!("{name}: cannot read: {e}")),
        },
    };
    if let Err(e) = result {
        rec.error = Some(e);
    }
    rec.seconds = t0.elapsed().as_secs_f64();
    rec
}

fn scan_text(name: &str, text: &str, rec: &mut FileRecord) -> Result<(), String> {
    rec.bytes = text.len() as u64;
    rec.kind = sniff(name, text);
    match rec.kind {
        "ptx" => {
            let path = if name.ends_with(".ptx") {
                name.to_string()
            } else {
                format!("{name}.ptx")
            };
            let cfgs = crate::cfg::cli::load_text(&path, text)?;
            cfg_stats(&cfgs, rec);
            Ok(())
        }
        "ll" => {
            // One parse feeds both stages.
            let m = crate::import::llvm_ir::parse(name, text).map_err(|e| e.to_string())?;
            let cfgs: Vec<Cfg> = m
                .functions
                .par_iter()
                .filter(|f| f.is_definition)
                .map(crate::import::llvm_cfg::build_cfg)
                .collect();
            // The three analyses only read the module: run them side by side.
            let mut cg = FileRecord::default();
            let mut cs = FileRecord::default();
            let ((), ((), cgscc)) = rayon::join(
                || cfg_stats(&cfgs, rec),
                || {
                    rayon::join(
                        || callgraph_stats(&m, name, &mut cg),
                        || cgscc_stats(&m, text, name, &mut cs),
                    )
                },
            );
            rec.cg_nodes = cg.cg_nodes;
            rec.sccs = cg.sccs;
            rec.largest_scc = cg.largest_scc;
            rec.refsccs = cg.refsccs;
            cgscc?;
            rec.cgscc_visits = cs.cgscc_visits;
            rec.cgscc_inlined = cs.cgscc_inlined;
            rec.call_edges_before = cs.call_edges_before;
            rec.call_edges_after = cs.call_edges_after;
            Ok(())
        }
        _ => Err(format!(
            "{name}: offset 0: expected LLVM IR text, PTX or ilkit binary IL"
        )),
    }
}

/// The back-end stage: RPO, dominators and loops of every function, in parallel chunks
/// for large modules.
fn cfg_stats(cfgs: &[Cfg], rec: &mut FileRecord) {
    let s = cfgs
        .par_chunks(64)
        .map(crate::cfg::summary::summarize)
        .reduce(crate::cfg::summary::CfgSummary::default, |mut a, b| {
            a.add(&b);
            a
        });
    rec.functions += s.functions as u64;
    rec.blocks += s.blocks as u64;
    rec.edges += s.edges as u64;
    rec.unreachable += s.unreachable_blocks as u64;
    rec.loops += s.loops as u64;
    rec.deepest_loop = rec.deepest_loop.max(s.max_loop_depth as u64);
    rec.irreducible_functions += s.irreducible_functions as u64;
}

/// The middle stage, part two: the default CGSCC pipeline (inliner with NVIDIA's budget,
/// attribute inference) over the module's summaries.
fn cgscc_stats(
    m: &crate::import::llvm_ir::Module,
    text: &str,
    name: &str,
    rec: &mut FileRecord,
) -> Result<(), String> {
    let s = crate::cgscc::run_default_pipeline(m, Some(text))
        .map_err(|a| format!("{name}: CGSCC pipeline aborted: {a:?}"))?;
    if s.verify_errors > 0 || s.order_errors > 0 {
        return Err(format!(
            "{name}: CGSCC pipeline left {} verify errors, {} order errors",
            s.verify_errors, s.order_errors
        ));
    }
    rec.cgscc_visits = s.visits as u64;
    rec.cgscc_inlined = s.inlined as u64;
    rec.call_edges_before = s.initial_call_edges as u64;
    rec.call_edges_after = s.call_edges as u64;
    Ok(())
}

/// The middle stage: the lazy call graph's SCCs and RefSCCs.
fn callgraph_stats(m: &crate::import::llvm_ir::Module, name: &str, rec: &mut FileRecord) {
    let mut g = crate::callgraph::from_module(m, name);
    g.build_ref_sccs();
    rec.cg_nodes = (0..g.num_nodes() as u32)
        .filter(|&n| g.is_defined(n))
        .count() as u64;
    let order: Vec<_> = g.postorder_refsccs().collect();
    for r in order {
        rec.refsccs += 1;
        for &s in g.refscc_sccs(r) {
            rec.sccs += 1;
            rec.largest_scc = rec.largest_scc.max(g.scc_nodes(s).len() as u64);
        }
    }
}

fn scan_generated(seed: u64, scale: f64, rec: &mut FileRecord) {
    let il = crate::il::synth::generate(seed, scale);
    rec.bytes = crate::il::stats::layout_bytes(&il).ilkit_bytes;
    il_stats(il, rec);
}

/// Whether `p` is a clang JSON AST (`.json`, `.json.gz`).
fn is_clang_json(p: &Path) -> bool {
    let n = p.to_string_lossy();
    n.ends_with(".json") || n.ends_with(".json.gz")
}

/// The front end on real input: a clang JSON AST imported as a stream, device code
/// marked (kernels and what they need), constants shared.
fn scan_clang_json(
    rec: &mut FileRecord,
    import: impl FnOnce(
        &mut crate::il::Il,
    ) -> Result<
        crate::import::clang_json::Import,
        crate::import::clang_json::ImportError,
    >,
) -> Result<(), String> {
    use crate::import::clang_json;
    rec.kind = "json";
    let mut il = crate::il::Il::new();
    let imp = import(&mut il).map_err(|e| e.to_string())?;
    rec.bytes = imp.report.bytes;
    rec.il_entries = il.len() as u64;
    let dk = clang_json::mark_device(&mut il, &imp, clang_json::DeviceOptions::default());
    rec.il_kept = dk.kept as u64;
    let c = share_all_constants(&mut il);
    rec.il_constants = c.total_allocs;
    rec.il_constants_shared = c.region_hits + c.global_hits;
    Ok(())
}

fn scan_il_file(name: &str, bytes: &[u8], rec: &mut FileRecord) -> Result<(), String> {
    rec.kind = "il";
    rec.bytes = bytes.len() as u64;
    let il = crate::walk::binary::read_il(bytes).map_err(|e| format!("{name}: {e}"))?;
    il_stats(il, rec);
    Ok(())
}

/// The IL stage: keep-in-IL marking and constant sharing.
fn il_stats(mut il: crate::il::Il, rec: &mut FileRecord) {
    rec.il_entries = il.len() as u64;
    let report = crate::walk::keep::mark_to_keep_in_il(&mut il, &[]);
    rec.il_kept = report.kept as u64;
    let c = share_all_constants(&mut il);
    rec.il_constants = c.total_allocs;
    rec.il_constants_shared = c.region_hits + c.global_hits;
}

/// Offers every constant of the world to constant sharing (adopting file-scope misses as
/// canonical); returns the sharing counters.
pub fn share_all_constants(il: &mut crate::il::Il) -> crate::il::stats::SharingCounters {
    let constants: Vec<crate::il::Eix> = il
        .entries()
        .filter(|&e| il.kind(e) == crate::il::EntryKind::Constant)
        .collect();
    let mut sharing = crate::share::ConstantSharing::new();
    let mut out = Vec::with_capacity(constants.len());
    let mut rest = &constants[..];
    while !rest.is_empty() {
        let before = out.len();
        match sharing.share_many(il, rest, true, &mut out) {
            Ok(()) => break,
            // A constant the sharing table cannot take (a bad kind) stays unshared; the
            // stream goes on after it.
            Err(_) => rest = &rest[out.len() - before + 1..],
        }
    }
    sharing.counters
}

/// The summary table over all records.
pub fn summary(records: &[FileRecord], wall: f64) -> String {
    let mut t = FileRecord::default();
    let mut failed = 0;
    for r in records {
        t.bytes += r.bytes;
        t.functions += r.functions;
        t.blocks += r.blocks;
        t.edges += r.edges;
        t.unreachable += r.unreachable;
        t.loops += r.loops;
        t.deepest_loop = t.deepest_loop.max(r.deepest_loop);
        t.irreducible_functions += r.irreducible_functions;
        t.cg_nodes += r.cg_nodes;
        t.sccs += r.sccs;
        t.largest_scc = t.largest_scc.max(r.largest_scc);
        t.refsccs += r.refsccs;
        t.cgscc_visits += r.cgscc_visits;
        t.cgscc_inlined += r.cgscc_inlined;
        t.call_edges_before += r.call_edges_before;
        t.call_edges_after += r.call_edges_after;
        t.il_entries += r.il_entries;
        t.il_kept += r.il_kept;
        t.il_constants += r.il_constants;
        t.il_constants_shared += r.il_constants_shared;
        failed += r.error.is_some() as usize;
    }
    let kinds = |k: &str| records.iter().filter(|r| r.kind == k).count();
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let mut s = String::new();
    let mut row = |k: &str, v: String| s.push_str(&format!("  {k:<28}{v:>16}\n"));
    row("files", format!("{}", records.len()));
    row(
        "  .ll / .ptx / IL / JSON",
        format!(
            "{} / {} / {} / {}",
            kinds("ll"),
            kinds("ptx"),
            kinds("il"),
            kinds("json")
        ),
    );
    row("  failed", format!("{failed}"));
    row("functions (CFGs)", t.functions.to_string());
    row("blocks", t.blocks.to_string());
    row("edges", t.edges.to_string());
    row("unreachable blocks", t.unreachable.to_string());
    row("loops", t.loops.to_string());
    row("deepest loop", t.deepest_loop.to_string());
    row("irreducible functions", t.irreducible_functions.to_string());
    row("call-graph nodes", t.cg_nodes.to_string());
    row("call SCCs", t.sccs.to_string());
    row("largest SCC", t.largest_scc.to_string());
    row("RefSCCs", t.refsccs.to_string());
    row("CGSCC visits (default)", t.cgscc_visits.to_string());
    row("call sites inlined", t.cgscc_inlined.to_string());
    row(
        "call edges before/after",
        format!("{} / {}", t.call_edges_before, t.call_edges_after),
    );
    row("IL entries", t.il_entries.to_string());
    row(
        "IL kept (keep_in_il)",
        format!("{:.1}%", pct(t.il_kept, t.il_entries)),
    );
    row(
        "constants shared",
        format!("{:.1}%", pct(t.il_constants_shared, t.il_constants)),
    );
    row("wall time", format!("{wall:.3} s"));
    row(
        "throughput",
        format!("{:.1} MB/s", t.bytes as f64 / 1e6 / wall.max(1e-9)),
    );
    s
}

/// One JSON object per record (JSON Lines).
pub fn record_json(r: &FileRecord) -> String {
    serde_json::json!({
        "file": r.name, "kind": r.kind, "bytes": r.bytes,
        "functions": r.functions, "blocks": r.blocks, "edges": r.edges,
        "unreachable": r.unreachable, "loops": r.loops, "deepest_loop": r.deepest_loop,
        "irreducible_functions": r.irreducible_functions,
        "cgscc_visits": r.cgscc_visits, "cgscc_inlined": r.cgscc_inlined,
        "call_edges_before": r.call_edges_before, "call_edges_after": r.call_edges_after,
        "cg_nodes": r.cg_nodes, "sccs": r.sccs, "largest_scc": r.largest_scc, "refsccs": r.refsccs,
        "il_entries": r.il_entries, "il_kept": r.il_kept,
        "il_constants": r.il_constants, "il_constants_shared": r.il_constants_shared,
        "seconds": r.seconds, "error": r.error,
    })
    .to_string()
}

/// Parses a JSON Lines record back (for `ilkit merge`).
pub fn record_from_json(line: &str) -> Result<FileRecord, String> {
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("column {}: {e}", e.column()))?;
    let u = |k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    let kind = match v.get("kind").and_then(|k| k.as_str()) {
        Some("ll") => "ll",
        Some("ptx") => "ptx",
        Some("il") => "il",
        Some("json") => "json",
        _ => "unknown",
    };
    Ok(FileRecord {
        name: v
            .get("file")
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string(),
        kind,
        bytes: u("bytes"),
        functions: u("functions"),
        blocks: u("blocks"),
        edges: u("edges"),
        unreachable: u("unreachable"),
        loops: u("loops"),
        deepest_loop: u("deepest_loop"),
        irreducible_functions: u("irreducible_functions"),
        cg_nodes: u("cg_nodes"),
        sccs: u("sccs"),
        largest_scc: u("largest_scc"),
        refsccs: u("refsccs"),
        cgscc_visits: u("cgscc_visits"),
        cgscc_inlined: u("cgscc_inlined"),
        call_edges_before: u("call_edges_before"),
        call_edges_after: u("call_edges_after"),
        il_entries: u("il_entries"),
        il_kept: u("il_kept"),
        il_constants: u("il_constants"),
        il_constants_shared: u("il_constants_shared"),
        seconds: v.get("seconds").and_then(|x| x.as_f64()).unwrap_or(0.0),
        error: v.get("error").and_then(|x| x.as_str()).map(str::to_string),
    })
}

pub mod cli;
