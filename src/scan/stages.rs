//! The work per file: import, then the systems of the file's stage, into a
//! [`FileRecord`].

use super::{FileRecord, Input, Progress, ScanOptions};
use crate::cfg::Cfg;
use crate::import::{Detected, Format};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

/// Scans one input; reports its [`Input::size_hint`] to `progress` as its stages finish.
pub fn scan_one(input: &Input, opts: &ScanOptions, progress: &dyn Progress) -> FileRecord {
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
            scan_generated(*seed, *scale, opts, &mut rec);
            Ok(())
        }
        Input::Embedded { name, text } => match Format::detect(name, text.as_bytes()) {
            Some(f) if f.is_text() => scan_text(name, f, text, opts, &mut rec),
            _ => Err(format!("{name}: not LLVM IR or PTX text")),
        },
        Input::EmbeddedClangJson { gz, .. } => {
            let r = flate2::read::MultiGzDecoder::new(*gz);
            scan_clang_json(&mut rec, opts, |il| {
                crate::import::clang_json::import_reader(il, r)
            })
        }
        Input::File(p) => scan_file(p, &name, opts, &mut rec),
    };
    if let Err(e) = result {
        rec.error = Some(e);
    }
    rec.seconds = t0.elapsed().as_secs_f64();
    progress.advance(input.size_hint());
    rec
}

/// A file on disk (or `-`, standard input): its format from its first bytes, then the
/// stage of that format. A file that is no input ilkit reads is an error here; a folder
/// walk leaves such files out before they get here ([`super::collect_inputs`]).
fn scan_file(p: &Path, name: &str, opts: &ScanOptions, rec: &mut FileRecord) -> Result<(), String> {
    let stdin = p.as_os_str() == "-";
    let read_all = || crate::import::read_bytes(p).map_err(|e| format!("{name}: {e}"));
    // Standard input can be read once: read it whole and detect on the bytes.
    let (detected, bytes) = if stdin {
        let bytes = read_all()?;
        (Detected::of_bytes(name, &bytes), Some(bytes))
    } else {
        (
            Detected::of_file(p).map_err(|e| format!("{name}: {e}"))?,
            None,
        )
    };
    let Some(format) = detected.format else {
        return Err(format!("{name}: {}", super::NOT_AN_INPUT));
    };
    if format == Format::ClangJson {
        // Streamed: a dump of a gigabyte never sits in memory whole.
        return match bytes {
            Some(b) => scan_clang_json(rec, opts, |il| {
                let r: Box<dyn std::io::Read> = if detected.gzip {
                    Box::new(flate2::read::MultiGzDecoder::new(std::io::Cursor::new(b)))
                } else {
                    Box::new(std::io::Cursor::new(b))
                };
                crate::import::clang_json::import_reader(il, r)
            }),
            None => scan_clang_json(rec, opts, |il| {
                crate::import::clang_json::import_file(il, p)
            }),
        };
    }
    let bytes = match bytes {
        Some(b) => b,
        None => read_all()?,
    };
    let bytes = crate::import::format::gunzip_if_gzip(bytes).map_err(|e| format!("{name}: {e}"))?;
    if format == Format::BinaryIl {
        return scan_il_file(name, &bytes, opts, rec);
    }
    let text = crate::import::text_of(bytes).map_err(|e| format!("{name}: {e}"))?;
    scan_text(name, format, &text, opts, rec)
}

fn scan_text(
    name: &str,
    format: Format,
    text: &str,
    opts: &ScanOptions,
    rec: &mut FileRecord,
) -> Result<(), String> {
    let a = opts.analyses;
    rec.bytes = text.len() as u64;
    rec.kind = format.name();
    match format {
        Format::Ptx => {
            let cfgs = Cfg::from_ptx_str(name, text).map_err(|e| e.to_string())?;
            if a.cfg {
                cfg_stats(&cfgs, rec);
            }
            Ok(())
        }
        Format::LlvmIr => {
            // One parse feeds both stages.
            let m = crate::llvm::Module::from_ll_str(name, text).map_err(|e| e.to_string())?;
            // The three analyses only read the module: run them side by side.
            let mut cg = FileRecord::default();
            let mut cs = FileRecord::default();
            let ((), ((), cgscc)) = rayon::join(
                || {
                    if a.cfg {
                        cfg_stats(&Cfg::from_llvm_module(&m), rec)
                    }
                },
                || {
                    rayon::join(
                        || {
                            if a.callgraph {
                                callgraph_stats(&m, name, &mut cg)
                            }
                        },
                        || {
                            if a.cgscc {
                                cgscc_stats(&m, name, opts.max_memory, &mut cs)
                            } else {
                                Ok(())
                            }
                        },
                    )
                },
            );
            rec.cg_nodes = cg.cg_nodes;
            rec.sccs = cg.sccs;
            rec.largest_scc = cg.largest_scc;
            rec.scc_sizes = cg.scc_sizes;
            rec.refsccs = cg.refsccs;
            cgscc?;
            rec.cgscc_visits = cs.cgscc_visits;
            rec.cgscc_inlined = cs.cgscc_inlined;
            rec.call_edges_before = cs.call_edges_before;
            rec.call_edges_after = cs.call_edges_after;
            rec.cgscc_capped = cs.cgscc_capped;
            rec.cgscc_work = cs.cgscc_work;
            rec.cgscc_span = cs.cgscc_span;
            rec.notes.append(&mut cs.notes);
            Ok(())
        }
        Format::BinaryIl | Format::ClangJson => Err(format!("{name}: not LLVM IR or PTX text")),
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
    for (a, b) in rec.loop_depths.iter_mut().zip(s.loop_depths) {
        *a += b as u64;
    }
}

/// The middle stage, part two: the default CGSCC pipeline (inliner with NVIDIA's budget,
/// attribute inference) over the module's summaries.
fn cgscc_stats(
    m: &crate::llvm::Module,
    name: &str,
    max_memory: Option<usize>,
    rec: &mut FileRecord,
) -> Result<(), String> {
    let s = crate::cgscc::run_default_pipeline(m, max_memory)
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
    rec.cgscc_capped = u64::from(!s.caps_hit.is_empty());
    rec.cgscc_work = s.schedule.work;
    rec.cgscc_span = s.schedule.span;
    rec.notes.extend(
        s.caps_hit
            .iter()
            .map(|c| format!("{name}: CGSCC pipeline: {c}")),
    );
    Ok(())
}

/// The middle stage: the lazy call graph's SCCs and RefSCCs.
fn callgraph_stats(m: &crate::llvm::Module, name: &str, rec: &mut FileRecord) {
    let mut g = crate::callgraph::from_module(m, name);
    g.build_ref_sccs();
    rec.cg_nodes = g.nodes().filter(|&n| g.is_defined(n)).count() as u64;
    let order: Vec<_> = g.postorder_refsccs();
    for r in order {
        rec.refsccs += 1;
        for &s in g.refscc_sccs(r) {
            let size = g.scc_nodes(s).len();
            rec.sccs += 1;
            rec.largest_scc = rec.largest_scc.max(size as u64);
            rec.scc_sizes[super::scc_size_bucket(size)] += 1;
        }
    }
}

fn scan_generated(seed: u64, scale: f64, opts: &ScanOptions, rec: &mut FileRecord) {
    let il = crate::il::synth::generate(seed, scale);
    rec.bytes = crate::il::stats::layout_bytes(&il).ilkit_bytes;
    il_stats(il, opts, rec);
}

/// The front end on real input: a clang JSON AST imported as a stream, device code
/// marked (kernels and what they need), constants shared.
fn scan_clang_json(
    rec: &mut FileRecord,
    opts: &ScanOptions,
    import: impl FnOnce(
        &mut crate::il::Il,
    ) -> Result<
        crate::import::clang_json::Import,
        crate::import::clang_json::ImportError,
    >,
) -> Result<(), String> {
    rec.kind = "json";
    let mut il = crate::il::Il::new();
    let imp = import(&mut il).map_err(|e| e.to_string())?;
    rec.bytes = imp.report.bytes;
    il_stats(il, opts, rec);
    Ok(())
}

fn scan_il_file(
    name: &str,
    bytes: &[u8],
    opts: &ScanOptions,
    rec: &mut FileRecord,
) -> Result<(), String> {
    rec.kind = "il";
    rec.bytes = bytes.len() as u64;
    let il = crate::import::binary_il::read_il(bytes).map_err(|e| format!("{name}: {e}"))?;
    il_stats(il, opts, rec);
    Ok(())
}

/// The IL stage: device marking ([`crate::walk::device::mark_device`]) and constant
/// sharing.
fn il_stats(mut il: crate::il::Il, opts: &ScanOptions, rec: &mut FileRecord) {
    rec.il_entries = il.len() as u64;
    if !opts.analyses.il {
        return;
    }
    let report = crate::walk::device::mark_device(&mut il, Default::default());
    rec.il_kept = report.kept as u64;
    let c = crate::share::share_all_constants(&mut il);
    rec.il_constants = c.total_allocs;
    rec.il_constants_shared = c.region_hits + c.global_hits;
}
