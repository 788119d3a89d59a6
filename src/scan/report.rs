//! The summary table over records and the JSON Lines record schema.

use super::FileRecord;

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
