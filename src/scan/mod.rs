//! `ilkit scan`: a parallel corpus scan. Files are dispatched by content — LLVM IR text,
//! PTX, or a generated translation unit — imported, run through the systems of their
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
    /// A generated translation unit.
    Generated {
        /// Generator seed.
        seed: u64,
        /// Generator scale (1.0 ≈ 10^5 entries).
        scale: f64,
    },
}

impl Input {
    /// The name reports use.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Embedded { name, .. } => format!("<embedded>/{name}"),
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
    /// IL entries.
    pub il_entries: u64,
    /// IL entries marked keep_in_il.
    pub il_kept: u64,
    /// Wall time for this file, seconds.
    pub seconds: f64,
    /// The import or analysis error, if any.
    pub error: Option<String>,
}

/// Sniffs a file's format from its contents (and name as a tie-breaker).
pub fn sniff(name: &str, text: &str) -> &'static str {
    let head = &text[..text.len().min(4096)];
    if name.ends_with(".ptx") || head.lines().any(|l| l.trim_start().starts_with(".version")) && head.contains(".target") {
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

/// The embedded default corpus: generated translation units plus small `.ll` and `.ptx`
/// samples compiled into the binary.
pub fn default_inputs() -> Vec<Input> {
    vec![
        Input::Generated { seed: 1, scale: 1.0 },
        Input::Generated { seed: 2, scale: 0.5 },
        Input::Embedded { name: "recursion.ll", text: include_str!("../../data/default/recursion.ll") },
        Input::Embedded { name: "compress.nvptx.O2.ll", text: include_str!("../../data/default/compress.nvptx.O2.ll") },
        Input::Embedded { name: "compress.ptx", text: include_str!("../../data/default/compress.ptx") },
        Input::Embedded { name: "adler32.ptx", text: include_str!("../../data/default/adler32.ptx") },
    ]
}

/// Expands paths: files as they are, folders recursively (sorted, so the list is
/// deterministic), keeping files whose names end in `.ll` or `.ptx`.
pub fn collect_inputs(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            let mut files = Vec::new();
            while let Some(d) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&d) else { continue };
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
    matches!(p.extension().and_then(|e| e.to_str()), Some("ll" | "ptx"))
}

/// Keeps the `i`-th of `n` deterministic shards of `inputs` (round robin by position).
pub fn shard(inputs: Vec<Input>, i: usize, n: usize) -> Vec<Input> {
    inputs.into_iter().enumerate().filter(|(k, _)| n == 0 || k % n == i).map(|(_, x)| x).collect()
}

/// Scans every input; results are in input order. `on_done` is called once per finished
/// file (for a progress bar).
pub fn scan(inputs: &[Input], on_done: &(dyn Fn() + Sync)) -> Vec<FileRecord> {
    inputs
        .par_iter()
        .map(|inp| {
            let r = scan_one(inp);
            on_done();
            r
        })
        .collect()
}

/// Scans one input.
pub fn scan_one(input: &Input) -> FileRecord {
    let t0 = Instant::now();
    let name = input.name();
    let mut rec = FileRecord { name: name.clone(), kind: "unknown", ..FileRecord::default() };
    let result = match input {
        Input::Generated { seed, scale } => {
            rec.kind = "il";
            scan_generated(*seed, *scale, &mut rec);
            Ok(())
        }
        Input::Embedded { name, text } => scan_text(name, text, &mut rec),
        Input::File(p) => match std::fs::read(p) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => scan_text(&name, &text, &mut rec),
                Err(e) => Err(format!("{name}: byte {}: not UTF-8 text", e.utf8_error().valid_up_to())),
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
            let path = if name.ends_with(".ptx") { name.to_string() } else { format!("{name}.ptx") };
            let cfgs = crate::cfg::cli::load_text(&path, text)?;
            cfg_stats(&cfgs, rec);
            Ok(())
        }
        "ll" => {
            let path = if name.ends_with(".ll") { name.to_string() } else { format!("{name}.ll") };
            let cfgs = crate::cfg::cli::load_text(&path, text)?;
            cfg_stats(&cfgs, rec);
            callgraph_stats(&path, text, rec)
        }
        _ => Err(format!("{name}: offset 0: expected LLVM IR text or PTX")),
    }
}

fn cfg_stats(cfgs: &[Cfg], rec: &mut FileRecord) {
    // Large modules split their per-function work across the pool too.
    let per: Vec<[u64; 6]> = cfgs
        .par_iter()
        .map(|c| {
            let info = c.analyze();
            let unreachable = info.rpo.rpo_number.iter().filter(|&&n| n == crate::graph::NONE).count() as u64;
            [
                c.num_blocks() as u64,
                c.num_edges() as u64,
                unreachable,
                info.loops.len() as u64,
                info.loops.max_depth() as u64,
                (info.loops.irreducible_count() > 0) as u64,
            ]
        })
        .collect();
    rec.functions += cfgs.len() as u64;
    for p in per {
        rec.blocks += p[0];
        rec.edges += p[1];
        rec.unreachable += p[2];
        rec.loops += p[3];
        rec.deepest_loop = rec.deepest_loop.max(p[4]);
        rec.irreducible_functions += p[5];
    }
}

fn callgraph_stats(_path: &str, _text: &str, _rec: &mut FileRecord) -> Result<(), String> {
    Ok(())
}

fn scan_generated(seed: u64, scale: f64, rec: &mut FileRecord) {
    let mut il = crate::il::synth::generate(seed, scale);
    let lb = crate::il::stats::layout_bytes(&il);
    rec.bytes = lb.ilkit_bytes;
    rec.il_entries = il.len() as u64;
    let report = crate::walk::keep::mark_to_keep_in_il(&mut il, &[]);
    rec.il_kept = report.kept as u64;
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
        t.il_entries += r.il_entries;
        t.il_kept += r.il_kept;
        failed += r.error.is_some() as usize;
    }
    let kinds = |k: &str| records.iter().filter(|r| r.kind == k).count();
    let pct = |a: u64, b: u64| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    let mut s = String::new();
    let mut row = |k: &str, v: String| s.push_str(&format!("  {k:<28}{v:>16}\n"));
    row("files", format!("{}", records.len()));
    row("  .ll / .ptx / IL", format!("{} / {} / {}", kinds("ll"), kinds("ptx"), kinds("il")));
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
    row("IL entries", t.il_entries.to_string());
    row("IL kept (keep_in_il)", format!("{:.1}%", pct(t.il_kept, t.il_entries)));
    row("wall time", format!("{wall:.3} s"));
    row("throughput", format!("{:.1} MB/s", t.bytes as f64 / 1e6 / wall.max(1e-9)));
    s
}

/// One JSON object per record (JSON Lines).
pub fn record_json(r: &FileRecord) -> String {
    serde_json::json!({
        "file": r.name, "kind": r.kind, "bytes": r.bytes,
        "functions": r.functions, "blocks": r.blocks, "edges": r.edges,
        "unreachable": r.unreachable, "loops": r.loops, "deepest_loop": r.deepest_loop,
        "irreducible_functions": r.irreducible_functions,
        "cg_nodes": r.cg_nodes, "sccs": r.sccs, "largest_scc": r.largest_scc, "refsccs": r.refsccs,
        "il_entries": r.il_entries, "il_kept": r.il_kept,
        "seconds": r.seconds, "error": r.error,
    })
    .to_string()
}

/// Parses a JSON Lines record back (for `ilkit merge`).
pub fn record_from_json(line: &str) -> Result<FileRecord, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("column {}: {e}", e.column()))?;
    let u = |k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    let kind = match v.get("kind").and_then(|k| k.as_str()) {
        Some("ll") => "ll",
        Some("ptx") => "ptx",
        Some("il") => "il",
        _ => "unknown",
    };
    Ok(FileRecord {
        name: v.get("file").and_then(|x| x.as_str()).unwrap_or("").to_string(),
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
        il_entries: u("il_entries"),
        il_kept: u("il_kept"),
        seconds: v.get("seconds").and_then(|x| x.as_f64()).unwrap_or(0.0),
        error: v.get("error").and_then(|x| x.as_str()).map(str::to_string),
    })
}

pub mod cli;
