//! `ilkit cgscc FILE.ll --passes 'cgscc(...)' [--remarks] [--format text|json] [knobs]`.

use crate::{emit, Failure};
use clap::{Args, ValueEnum};
use ilkit::cgscc::summary::ReplayFormat;
use ilkit::cgscc::{
    parse_pipeline_allowing, CgsccModule, Fanout, InlineModel, Instrumentation, NoInstrumentation,
    Options, PassLog, PassManager, Replay, ReplayFallback, ReplayScope, DEFAULT_PIPELINE,
};
use ilkit::import::llvm_ir::ParseOptions;
use ilkit::llvm::Module;
use std::path::PathBuf;

/// Arguments of `ilkit cgscc`.
#[derive(Args, Debug)]
pub struct CgsccArgs {
    /// The LLVM IR text file (`-` reads standard input).
    file: PathBuf,
    /// The pipeline, in LLVM's syntax (e.g. `cgscc(devirt<5>(inline,function-attrs))`).
    #[arg(long, default_value = DEFAULT_PIPELINE)]
    passes: String,
    /// Build the CGSCC invocations of an optimization level as the seed's pipeline
    /// factory does (`O1`, `O2`, `O3`: four invocations of
    /// `cgscc(devirt<1>(inline,function-attrs))`; `tier3`: those and a
    /// `cgscc(devirt<5>(...))`), run them in order, and print the pipeline text built;
    /// replaces `--passes`.
    #[arg(long, value_name = "LEVEL", conflicts_with = "passes")]
    pipeline: Option<String>,
    /// Run a registered pass that ilkit does not implement (`argpromotion`,
    /// `attributor-cgscc`, `openmp-opt-cgscc`, `coro-split`, ...) as a no-op instead of
    /// refusing the pipeline; repeatable.
    #[arg(long, value_name = "NAME")]
    allow_noop: Vec<String>,
    /// Print the inliner's remarks (LLVM's `-pass-remarks=inline` text).
    #[arg(long)]
    remarks: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print the pass instrumentation lines (before/after each pass, invalidations).
    #[arg(long)]
    pass_log: bool,
    /// NVIDIA's per-caller inline budget, or `none` for the stock LLVM threshold.
    #[arg(long, value_name = "N|none", value_parser = parse_budget, default_value = "20000")]
    inline_budget: Budget,
    /// The stock LLVM inline threshold (`-inline-threshold`).
    #[arg(long, value_name = "N", default_value_t = 225)]
    inline_threshold: i64,
    /// Inline every defined callee that is not `noinline` (`nv-inline-all`).
    #[arg(long)]
    nv_inline_all: bool,
    /// Raise the budget to 40,000 (`aggressive-inline`).
    #[arg(long)]
    aggressive_inline: bool,
    /// Cost multiplier for calls inside one SCC (`intra-scc-cost-multiplier`).
    #[arg(long, value_name = "N", default_value_t = 2)]
    intra_scc_cost_multiplier: i64,
    /// Cost multiplier for recursive callees (`function-inline-cost-multiplier`).
    #[arg(long, value_name = "N", default_value_t = 1)]
    function_inline_cost_multiplier: i64,
    /// Fail when `devirt<N>` runs out of iterations and the graph still changes.
    #[arg(long)]
    abort_on_max_devirt_iterations_reached: bool,
    /// Replay inlining decisions from an LLVM inline-replay file.
    #[arg(long, value_name = "FILE")]
    cgscc_inline_replay: Option<PathBuf>,
    /// Where replay applies.
    #[arg(long, value_enum, default_value_t = Scope::Function)]
    cgscc_inline_replay_scope: Scope,
    /// What replay does for call sites the file does not list.
    #[arg(long, value_enum, default_value_t = Fallback::Original)]
    cgscc_inline_replay_fallback: Fallback,
    /// The location format of the replay file.
    #[arg(long, value_enum, default_value_t = LocFormat::Line)]
    cgscc_inline_replay_format: LocFormat,
    /// Keep local callees left without uses (the inliner deletes them by default).
    #[arg(long)]
    no_delete_dead: bool,
    /// Cap on inlines per run; when reached the inliner stops and says so.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    inline_max_total: usize,
    /// Cap on the SCC splits and merges inlining may cause in a run (default: 64 per
    /// function plus 4096).
    #[arg(long, value_name = "N")]
    inline_max_scc_churn: Option<usize>,
    /// Cap on a caller's size (instructions) after inlining.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    inline_max_caller_size: u32,
    /// The inliner's decision procedure: `summary` (ilkit's model with the NVIDIA knobs
    /// above) or `llvm14` (LLVM 14's decision procedure and InlineCost model under LLVM's
    /// default knobs, over the instruction view; remarks in LLVM's own text, readable by
    /// `scripts/inline_remarks.py`; `--inline-threshold` applies, the NVIDIA knobs do not).
    #[arg(long, value_enum, default_value_t = Model::Summary)]
    inline_model: Model,
    /// Cap on the memory the run's tables may hold, in MB (default: a quarter of RAM);
    /// when exceeded the run stops and says so.
    #[arg(long, value_name = "MB")]
    max_memory: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Remarks, visits, inferred attributes and the final call graph as text.
    Text,
    /// The same as one JSON object (with `function_attrs`: per function the attributes
    /// `function-attrs` added (`+x`) or removed (`-x`) on the function, return and
    /// arguments, sorted, by LLVM's names).
    Json,
    /// Only `function-attrs`' changes, one line per function and position, in the
    /// format of `scripts/fa_diff.py` (`@f fn +nofree +nosync`, `@f arg0 %p +nocapture`), so a
    /// comparison with `opt-14` is a diff.
    Attrs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "verbatim")]
enum Model {
    /// ilkit's summary model.
    Summary,
    /// LLVM 14's model (default knobs).
    #[value(name = "llvm14")]
    Llvm14,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "verbatim")]
enum Scope {
    /// Only in functions the file names as callers.
    Function,
    /// In every function.
    Module,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "verbatim")]
enum Fallback {
    /// The cost model decides.
    Original,
    /// Inline.
    AlwaysInline,
    /// Do not inline.
    NeverInline,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "verbatim")]
enum LocFormat {
    /// `func:line`.
    Line,
    /// `func:line:column`.
    LineColumn,
    /// `func:line.discriminator`.
    LineDiscriminator,
}

/// `--inline-budget`: a number or `none`.
#[derive(Clone, Copy, Debug)]
struct Budget(Option<i64>);

fn parse_budget(s: &str) -> Result<Budget, String> {
    if s == "none" {
        return Ok(Budget(None));
    }
    s.parse()
        .map(|n| Budget(Some(n)))
        .map_err(|_| format!("expected a number or 'none', found '{s}'"))
}

impl CgsccArgs {
    /// The knobs as pass-manager options.
    fn options(&self) -> Result<Options, Failure> {
        let mut o = Options::default();
        o.inline.inline_budget = self.inline_budget.0;
        o.inline.inline_threshold = self.inline_threshold;
        o.inline.nv_inline_all = self.nv_inline_all;
        o.inline.aggressive_inline = self.aggressive_inline;
        o.inline.intra_scc_cost_multiplier = self.intra_scc_cost_multiplier;
        o.inline.function_inline_cost_multiplier = self.function_inline_cost_multiplier;
        o.inline.delete_dead = !self.no_delete_dead;
        o.inline.remark_locations = self.remarks;
        o.inline.keep_remarks = self.remarks;
        o.inline.max_total_inlines = self.inline_max_total;
        o.inline.max_caller_size = self.inline_max_caller_size;
        o.inline.max_scc_churn = self.inline_max_scc_churn;
        if self.inline_model == Model::Llvm14 {
            o.inline.model = InlineModel::Llvm14;
            o.inline.inline_budget = None;
        }
        o.max_memory = Some(
            self.max_memory
                .map_or_else(crate::default_memory_cap, |mb| mb << 20),
        );
        o.abort_on_max_devirt_iterations = self.abort_on_max_devirt_iterations_reached;
        if let Some(path) = &self.cgscc_inline_replay {
            let text = ilkit::import::read_text(path).map_err(|e| {
                Failure::input(format!("{}: cannot read replay file: {e}", path.display()))
            })?;
            let scope = match self.cgscc_inline_replay_scope {
                Scope::Function => ReplayScope::Function,
                Scope::Module => ReplayScope::Module,
            };
            let fallback = match self.cgscc_inline_replay_fallback {
                Fallback::Original => ReplayFallback::Original,
                Fallback::AlwaysInline => ReplayFallback::AlwaysInline,
                Fallback::NeverInline => ReplayFallback::NeverInline,
            };
            let format = match self.cgscc_inline_replay_format {
                LocFormat::Line => ReplayFormat::Line,
                LocFormat::LineColumn => ReplayFormat::LineColumn,
                LocFormat::LineDiscriminator => ReplayFormat::LineDiscriminator,
            };
            o.inline.replay = Some(Replay::parse(&text, scope, fallback, format));
        }
        Ok(o)
    }
}

/// The CGSCC invocations to run: `--pipeline LEVEL`'s, or `--passes` alone.
fn invocations(a: &CgsccArgs) -> Result<Vec<String>, Failure> {
    match &a.pipeline {
        None => Ok(vec![a.passes.clone()]),
        Some(level) => ilkit::cgscc::pipeline::preset(level).ok_or_else(|| {
            Failure::usage(format!(
                "--pipeline: unknown level '{level}' (expected one of {})",
                ilkit::cgscc::pipeline::PRESETS.join(", ")
            ))
        }),
    }
}

/// Runs `ilkit cgscc`.
pub fn run(mut a: CgsccArgs) -> Result<(), Failure> {
    let texts = invocations(&a)?;
    let mut pms = Vec::new();
    for t in &texts {
        let passes = parse_pipeline_allowing(t, &a.allow_noop)
            .map_err(|e| Failure::usage(format!("--passes: {}", e.render(t))))?;
        let mut pm = PassManager::new(passes, Options::default());
        pm.opts = a.options()?;
        pms.push(pm);
    }
    // the pipeline text as built, one CGSCC invocation after another
    a.passes = texts.join(",");
    let file = a.file.display().to_string();
    // function-attrs runs on the instruction view (LLVM 14's rules); other passes
    // do not need it
    let opts = ParseOptions {
        instructions: a.passes.contains("function-attrs") || a.inline_model == Model::Llvm14,
    };
    let m = Module::from_ll_file_with(&a.file, opts).map_err(Failure::input)?;
    let mut cm = CgsccModule::new(&m, &file);
    let mut log = PassLog::default();
    let mut none = NoInstrumentation;
    let report = {
        let mut fan = Fanout(vec![&mut log as &mut dyn Instrumentation, &mut none]);
        let mut all = ilkit::cgscc::RunReport::default();
        let mut res = Ok(());
        for pm in &mut pms {
            match pm.run(&mut cm, &mut fan) {
                Ok(r) => all.visits.extend(r.visits),
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        res.map(|()| all)
    };
    let report = report.map_err(|e| {
        let mut msg = String::new();
        for d in &cm.diagnostics {
            msg.push_str(&format!("warning: {d}\n"));
        }
        msg.push_str(&e.to_string());
        Failure::input(msg)
    })?;
    let names = |ns: &[ilkit::callgraph::NodeIdx]| -> Vec<String> {
        ns.iter()
            .map(|&n| cm.graph.name(n).unwrap_or_default().to_string())
            .collect()
    };
    // function-attrs' changes, as `scripts/fa_diff.py` prints opt's
    let fa_lines = cm
        .fn_attrs
        .as_ref()
        .map(|inf| inf.diff_lines(&m))
        .unwrap_or_default();
    if a.format == Format::Attrs {
        let mut out = fa_lines.join("\n");
        if !out.is_empty() {
            out.push('\n');
        }
        return emit(&out);
    }
    if a.format == Format::Json {
        let visits: Vec<serde_json::Value> = report
            .visits
            .iter()
            .map(|v| serde_json::json!({"scc": names(&v.nodes), "passes": v.passes}))
            .collect();
        let remarks: Vec<serde_json::Value> = cm
            .remarks
            .iter()
            .map(|r| {
                serde_json::json!({"kind": r.kind.as_str(), "pass": &*r.pass, "caller": &*r.caller,
                "callee": &*r.callee, "cost": r.cost, "threshold": r.threshold, "loc": r.loc,
                "message": r.to_string()})
            })
            .collect();
        let mut attrs = serde_json::Map::new();
        for n in cm.graph.nodes() {
            let s = cm.inferred_attrs(n);
            if !s.is_empty() && !cm.graph.is_removed(n) {
                attrs.insert(cm.graph.name(n).unwrap_or_default().to_string(), s.into());
            }
        }
        let mut fa = serde_json::Map::new();
        if let Some(inf) = &cm.fn_attrs {
            let mut changes = inf.changes(&m);
            changes.sort_by(|x, y| x.name.cmp(&y.name));
            for c in changes {
                let args: serde_json::Map<String, serde_json::Value> = c
                    .args
                    .iter()
                    .map(|(n, an, d)| {
                        let key = if an.is_empty() {
                            n.to_string()
                        } else {
                            format!("{n} {an}")
                        };
                        (key, serde_json::Value::from(d.clone()))
                    })
                    .collect();
                fa.insert(
                    c.name.clone(),
                    serde_json::json!({"fn": c.func, "ret": c.ret, "args": args}),
                );
            }
        }
        let v = serde_json::json!({
            "module": file,
            "function_attrs": if cm.fn_attrs.is_some() { serde_json::Value::from(fa) } else { serde_json::Value::Null },
            "function_attrs_lines": fa_lines,
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
        return emit(&format!("{v:#}\n"));
    }
    let mut out = String::new();
    out.push_str(&format!("; cgscc {} on {file}\n", a.passes));
    for d in &cm.diagnostics {
        out.push_str(&format!("warning: {d}\n"));
    }
    for c in &cm.caps_hit {
        eprintln!("ilkit cgscc: {c}");
    }
    if a.remarks {
        out.push_str("; remarks\n");
        for r in &cm.remarks {
            // opt prints the NoDefinition remarks only into a YAML file
            if r.llvm14 && r.kind == ilkit::cgscc::RemarkKind::NoDefinition {
                continue;
            }
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
    for n in cm.graph.nodes() {
        let s = cm.inferred_attrs(n);
        if !s.is_empty() && !cm.graph.is_removed(n) {
            if !header {
                out.push_str("; inferred attributes\n");
                header = true;
            }
            out.push_str(&format!("{}: {s}\n", cm.graph.name(n).unwrap_or_default()));
        }
    }
    if !fa_lines.is_empty() {
        out.push_str("; function-attrs changes (fa_diff format)\n");
        for l in &fa_lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    out.push_str("; call graph after the pipeline\n");
    out.push_str(&cm.graph.print_text());
    emit(&out)
}
