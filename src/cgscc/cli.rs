//! `ilkit cgscc FILE.ll --passes 'cgscc(...)' [--remarks] [--format text|json] [knobs]`.
//!
//! Knobs: `--inline-budget N|none`, `--inline-threshold N`, `--nv-inline-all`,
//! `--aggressive-inline`, `--intra-scc-cost-multiplier N`,
//! `--function-inline-cost-multiplier N`, `--abort-on-max-devirt-iterations-reached`,
//! `--cgscc-inline-replay FILE`, `--cgscc-inline-replay-scope Function|Module`,
//! `--cgscc-inline-replay-fallback Original|AlwaysInline|NeverInline`,
//! `--cgscc-inline-replay-format Line|LineColumn|LineDiscriminator`, `--no-delete-dead`,
//! `--pass-log` (instrumentation lines).

use super::summary::ReplayFormat;
use super::{
    CgsccModule, Fanout, Instrumentation, NoInstrumentation, Options, PassLog, PassManager, Replay,
    ReplayFallback, ReplayScope,
};
use crate::import::llvm_ir;

const USAGE: &str =
    "usage: ilkit cgscc FILE.ll --passes 'cgscc(...)' [--remarks] [--format text|json] \
[--inline-budget N|none] [--inline-threshold N] [--nv-inline-all] [--aggressive-inline] \
[--intra-scc-cost-multiplier N] [--function-inline-cost-multiplier N] \
[--abort-on-max-devirt-iterations-reached] [--cgscc-inline-replay FILE] \
[--cgscc-inline-replay-scope Function|Module] \
[--cgscc-inline-replay-fallback Original|AlwaysInline|NeverInline] \
[--cgscc-inline-replay-format Line|LineColumn|LineDiscriminator] [--no-delete-dead] [--pass-log]";

/// Parsed command line.
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// Input file.
    pub file: String,
    /// Pipeline text.
    pub passes: String,
    /// Print remarks.
    pub remarks: bool,
    /// Output format (`text` or `json`).
    pub format: String,
    /// Print instrumentation lines.
    pub pass_log: bool,
    /// Knobs.
    pub opts: Options,
    replay: Option<String>,
    scope: ReplayScope,
    fallback: ReplayFallback,
    rformat: ReplayFormat,
}

fn num(v: Option<&String>, what: &str) -> Result<i64, String> {
    v.ok_or_else(|| format!("{what} needs a value"))?
        .parse()
        .map_err(|_| format!("{what}: expected a number"))
}

/// Parses arguments (after the subcommand name).
pub fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        passes: super::DEFAULT_PIPELINE.to_string(),
        format: "text".into(),
        ..Default::default()
    };
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (key, inline_val) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut val = || inline_val.clone().or_else(|| it.next().cloned());
        match key.as_str() {
            "--passes" => a.passes = val().ok_or("--passes needs a value")?,
            "--remarks" => a.remarks = true,
            "--pass-log" => a.pass_log = true,
            "--format" => a.format = val().ok_or("--format needs a value")?,
            "--inline-budget" => {
                let v = val();
                a.opts.inline.inline_budget = match v.as_deref() {
                    Some("none") => None,
                    _ => Some(num(v.as_ref(), "--inline-budget")?),
                }
            }
            "--inline-threshold" => {
                a.opts.inline.inline_threshold = num(val().as_ref(), "--inline-threshold")?
            }
            "--nv-inline-all" => a.opts.inline.nv_inline_all = true,
            "--aggressive-inline" => a.opts.inline.aggressive_inline = true,
            "--no-delete-dead" => a.opts.inline.delete_dead = false,
            "--intra-scc-cost-multiplier" => {
                a.opts.inline.intra_scc_cost_multiplier =
                    num(val().as_ref(), "--intra-scc-cost-multiplier")?
            }
            "--function-inline-cost-multiplier" => {
                a.opts.inline.function_inline_cost_multiplier =
                    num(val().as_ref(), "--function-inline-cost-multiplier")?
            }
            "--abort-on-max-devirt-iterations-reached" => {
                a.opts.abort_on_max_devirt_iterations = true
            }
            "--cgscc-inline-replay" => {
                a.replay = Some(val().ok_or("--cgscc-inline-replay needs a file")?)
            }
            "--cgscc-inline-replay-scope" => {
                a.scope = match val().as_deref() {
                    Some("Function") => ReplayScope::Function,
                    Some("Module") => ReplayScope::Module,
                    other => return Err(format!("bad replay scope {other:?}")),
                }
            }
            "--cgscc-inline-replay-fallback" => {
                a.fallback = match val().as_deref() {
                    Some("Original") => ReplayFallback::Original,
                    Some("AlwaysInline") => ReplayFallback::AlwaysInline,
                    Some("NeverInline") => ReplayFallback::NeverInline,
                    other => return Err(format!("bad replay fallback {other:?}")),
                }
            }
            "--cgscc-inline-replay-format" => {
                a.rformat = match val().as_deref() {
                    Some("Line") => ReplayFormat::Line,
                    Some("LineColumn") => ReplayFormat::LineColumn,
                    Some("LineDiscriminator") => ReplayFormat::LineDiscriminator,
                    other => return Err(format!("bad replay format {other:?}")),
                }
            }
            s if file.is_none() && !s.starts_with("--") => file = Some(s.to_string()),
            s => return Err(format!("unknown argument '{s}'")),
        }
    }
    a.file = file.ok_or("missing FILE.ll")?;
    if !matches!(a.format.as_str(), "text" | "json") {
        return Err(format!("unknown format '{}'", a.format));
    }
    Ok(a)
}

/// Runs the `cgscc` subcommand and returns the exit code: 0 success, 1 read, parse or
/// abort error, 2 bad usage or pipeline text.
pub fn main(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return 0;
    }
    let a = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return 2;
        }
    };
    match run(a) {
        Ok(s) => {
            use std::io::Write;
            let _ = std::io::stdout().lock().write_all(s.as_bytes());
            0
        }
        Err((code, e)) => {
            eprintln!("{e}");
            code
        }
    }
}

/// Runs the pipeline per `a` and renders the output.
pub fn run(mut a: Args) -> Result<String, (i32, String)> {
    let mut pm = PassManager::from_text(&a.passes, Options::default())
        .map_err(|e| (2, e.render(&a.passes)))?;
    if let Some(r) = &a.replay {
        let rp = Replay::from_file(r, a.scope, a.fallback, a.rformat)
            .map_err(|e| (1, format!("{r}: cannot read replay file: {e}")))?;
        a.opts.inline.replay = Some(rp);
    }
    pm.opts = a.opts.clone();
    let file = &a.file;
    let text =
        std::fs::read_to_string(file).map_err(|e| (1, format!("{file}:1:1: cannot read: {e}")))?;
    let m = llvm_ir::parse(file, &text).map_err(|e| (1, e.to_string()))?;
    let mut cm = CgsccModule::new(&m, file, Some(&text));
    let mut log = PassLog::default();
    let mut none = NoInstrumentation;
    let report = {
        let mut fan = Fanout(vec![&mut log as &mut dyn Instrumentation, &mut none]);
        pm.run(&mut cm, &mut fan)
    };
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            let mut msg = String::new();
            for d in &cm.diagnostics {
                msg.push_str(&format!("warning: {d}\n"));
            }
            msg.push_str(&e.to_string());
            return Err((1, msg));
        }
    };
    let names = |ns: &[u32]| -> Vec<String> {
        ns.iter()
            .map(|&n| cm.graph.name(n).to_string())
            .collect::<Vec<_>>()
    };
    if a.format == "json" {
        let visits: Vec<serde_json::Value> = report
            .visits
            .iter()
            .map(|v| serde_json::json!({"scc": names(&v.nodes), "passes": v.passes}))
            .collect();
        let remarks: Vec<serde_json::Value> = cm
            .remarks
            .iter()
            .map(|r| {
                serde_json::json!({"kind": r.kind.as_str(), "pass": r.pass, "caller": r.caller,
                "callee": r.callee, "cost": r.cost, "threshold": r.threshold, "loc": r.loc,
                "message": r.to_string()})
            })
            .collect();
        let mut attrs = serde_json::Map::new();
        for n in 0..cm.graph.num_nodes() as u32 {
            let s = cm.inferred_attrs(n);
            if !s.is_empty() && !cm.graph.is_removed(n) {
                attrs.insert(cm.graph.name(n).to_string(), s.into());
            }
        }
        let v = serde_json::json!({
            "module": file,
            "pipeline": a.passes,
            "visits": visits,
            "remarks": if a.remarks { serde_json::Value::from(remarks) } else { serde_json::Value::Null },
            "diagnostics": cm.diagnostics,
            "pass_log": if a.pass_log { serde_json::Value::from(log.lines.clone()) } else { serde_json::Value::Null },
            "function_log": cm.function_log,
            "attrs": attrs,
            "refsccs": cm.graph.postorder_names(),
            "verify": cm.graph.verify().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        });
        return Ok(format!("{v:#}\n"));
    }
    let mut out = String::new();
    out.push_str(&format!("; cgscc {} on {file}\n", a.passes));
    for d in &cm.diagnostics {
        out.push_str(&format!("warning: {d}\n"));
    }
    if a.remarks {
        out.push_str("; remarks\n");
        for r in &cm.remarks {
            out.push_str(&r.to_string());
            out.push('\n');
        }
    }
    if a.pass_log {
        out.push_str("; pass instrumentation\n");
        for l in &log.lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    for l in &cm.function_log {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("; SCC visits, bottom-up\n");
    for (i, v) in report.visits.iter().enumerate() {
        out.push_str(&format!(
            "#{i} ({}): {}\n",
            names(&v.nodes).join(", "),
            v.passes.join(", ")
        ));
    }
    let mut header = false;
    for n in 0..cm.graph.num_nodes() as u32 {
        let s = cm.inferred_attrs(n);
        if !s.is_empty() && !cm.graph.is_removed(n) {
            if !header {
                out.push_str("; inferred attributes\n");
                header = true;
            }
            out.push_str(&format!("{}: {s}\n", cm.graph.name(n)));
        }
    }
    out.push_str("; call graph after the pipeline\n");
    out.push_str(&cm.graph.print_text());
    Ok(out)
}
