//! `ilkit cgscc FILE.ll --passes 'cgscc(...)' [--remarks] [--format text|json] [knobs]`.

use crate::{emit_parts, Failure};
use clap::{Args, ValueEnum};
use ilkit::cgscc::schedule::ScheduleStats;
use ilkit::cgscc::{
    parse_pipeline_allowing, CgsccModule, Fanout, InlineModel, InlineParams, Instrumentation,
    NoInstrumentation, Options, PassLog, PassManager, Profile, ReplayFallback, ReplayFile,
    ReplayScope, DEFAULT_PIPELINE,
};
use ilkit::import::llvm_ir::ParseOptions;
use ilkit::llvm::ir::debugloc::CallSiteFormat;
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
    /// The knobs' settings: `llvm` (stock LLVM 14: threshold 225, the default, so
    /// answers compare with `opt-14` run on the same pipeline) or `cicc` (NVIDIA's: the
    /// inline budget is the threshold).
    #[arg(long, value_enum, default_value_t = ProfileArg::Llvm)]
    profile: ProfileArg,
    /// NVIDIA's inline budget (`inline-budget`): the threshold under `--profile cicc`,
    /// and the per-caller budget of the summary estimate.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    inline_budget: i64,
    /// The inline threshold under either profile (LLVM's `-inline-threshold`; given
    /// explicitly, so the `optsize` caps do not apply, as in LLVM).
    #[arg(long, value_name = "N")]
    inline_threshold: Option<i64>,
    /// Inline every defined callee that is not `noinline` (`nv-inline-all`).
    #[arg(long)]
    nv_inline_all: bool,
    /// Raise the budget and threshold to 40,000 (`aggressive-inline`).
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
    /// Replay inlining decisions from an LLVM inline-replay file (the text of
    /// `-pass-remarks=inline` remarks of a `-g` module, keyed by the `at callsite`
    /// locations; LLVM 14's `ReplayInlineAdvisor`).
    #[arg(long, value_name = "FILE")]
    cgscc_inline_replay: Option<PathBuf>,
    /// Where replay applies.
    #[arg(long, value_enum, default_value_t = Scope::Function)]
    cgscc_inline_replay_scope: Scope,
    /// What replay does for call sites the file does not list.
    #[arg(long, value_enum, default_value_t = Fallback::Original)]
    cgscc_inline_replay_fallback: Fallback,
    /// The call-site format of the replay file's `at callsite` locations (default:
    /// `LineColumnDiscriminator` as in LLVM 14; `Line` under `--profile cicc`, as in
    /// cicc).
    #[arg(long, value_enum)]
    cgscc_inline_replay_format: Option<LocFormat>,
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
    /// The inliner's decision procedure: `llvm14` (LLVM 14's decision procedure and
    /// InlineCost model over the instruction view, with the profile's knobs; remarks in
    /// LLVM's own text, readable by `scripts/inline_remarks.py`) or `summary` (the size
    /// estimate `ilkit scan` runs on modules read without their instruction view;
    /// remarks in the old CGSCC inliner's text).
    #[arg(long, value_enum, default_value_t = Model::Llvm14)]
    inline_model: Model,
    /// Cap on the memory the run's tables may hold, in MB (default: a quarter of RAM);
    /// when exceeded the run stops and says so.
    #[arg(long, value_name = "MB")]
    max_memory: Option<usize>,
    /// Print where the walk's parallelism is: its work (instruction rows visited), the
    /// span of the RefSCC DAG in the same unit, work / span, and the speedup that
    /// predicts for 2, 8, 16 and 64 workers (the JSON output always has them).
    #[arg(long)]
    stats: bool,
    /// Worker threads (0 = one per core; at most 1024): the reader's passes and,
    /// beside the walk, the inliner's helpers, which compute ahead what the walk will
    /// ask for; the output is the same for every number.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = crate::parse_jobs)]
    jobs: usize,
    /// With more than one worker, do not run the inliner (and `function-attrs`) on the
    /// walk's units of one function ahead of the walk, in rounds on the pool's workers,
    /// which it does by default (the same output either way; `--stats` prints on
    /// standard error how many runs the walk took): the other workers then only make
    /// the inliner's tables ahead.
    #[arg(long)]
    no_run_ahead: bool,
    /// Running ahead is the default: accepted, changes nothing.
    #[arg(long, hide = true, conflicts_with = "no_run_ahead")]
    run_ahead: bool,
    /// How many post-order positions a round of runs ahead covers (the same output for
    /// any; small windows make many rounds, each chained on the ones before)
    #[arg(long, value_name = "N", default_value_t = ilkit::cgscc::AHEAD_WINDOW as u64, value_parser = clap::value_parser!(u64).range(1..1 << 32))]
    run_ahead_window: u64,
    /// The walk infers every unit's `function-attrs` itself rather than taking what the
    /// runs made ahead inferred (the same output).
    #[arg(long)]
    no_run_ahead_attrs: bool,
    /// The rounds of runs ahead begin at the walk's first unit, not once the other
    /// workers have made the inliner's tables of every body (the same output).
    #[arg(long)]
    run_ahead_at_once: bool,
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
    /// The summary estimate.
    #[value(name = "summary")]
    Summary,
    /// LLVM 14's model.
    #[value(name = "llvm14")]
    Llvm14,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ProfileArg {
    /// Stock LLVM 14.
    Llvm,
    /// NVIDIA's settings (seed 003).
    Cicc,
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
    /// `func:line:column.discriminator`.
    LineColumnDiscriminator,
}

impl CgsccArgs {
    /// The knobs as pass-manager options.
    fn options(&self) -> Result<Options, Failure> {
        let mut o = Options {
            inline: InlineParams::for_profile(match self.profile {
                ProfileArg::Llvm => Profile::Llvm,
                ProfileArg::Cicc => Profile::Cicc,
            }),
            ..Options::default()
        };
        o.inline.inline_budget = self.inline_budget;
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
        o.inline.model = match self.inline_model {
            Model::Llvm14 => InlineModel::Llvm14,
            Model::Summary => InlineModel::Summary,
        };
        o.max_memory = Some(
            self.max_memory
                .map_or_else(crate::default_memory_cap, |mb| mb << 20),
        );
        o.abort_on_max_devirt_iterations = self.abort_on_max_devirt_iterations_reached;
        o.run_ahead = !self.no_run_ahead;
        o.run_ahead_window = self.run_ahead_window as usize;
        o.run_ahead_attrs = !self.no_run_ahead_attrs;
        o.run_ahead_after_tables = !self.run_ahead_at_once;
        if let Some(path) = &self.cgscc_inline_replay {
            if self.inline_model == Model::Summary {
                return Err(Failure::usage(
                    "--cgscc-inline-replay: replay keys call sites by debug locations, which \
                     only LLVM 14's model reads (drop --inline-model summary)"
                        .to_string(),
                ));
            }
            let text = ilkit::import::read_text(path).map_err(|e| {
                Failure::input(format!("{}: cannot read replay file: {e}", path.display()))
            })?;
            let file = ReplayFile::parse(&text)
                .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
            let scope = match self.cgscc_inline_replay_scope {
                Scope::Function => ReplayScope::Function,
                Scope::Module => ReplayScope::Module,
            };
            let fallback = match self.cgscc_inline_replay_fallback {
                Fallback::Original => ReplayFallback::Original,
                Fallback::AlwaysInline => ReplayFallback::AlwaysInline,
                Fallback::NeverInline => ReplayFallback::NeverInline,
            };
            // LLVM 14's default is LineColumnDiscriminator; cicc's (seed 003) is Line
            let format = match (self.cgscc_inline_replay_format, self.profile) {
                (Some(LocFormat::Line), _) | (None, ProfileArg::Cicc) => CallSiteFormat::Line,
                (Some(LocFormat::LineColumn), _) => CallSiteFormat::LineColumn,
                (Some(LocFormat::LineDiscriminator), _) => CallSiteFormat::LineDiscriminator,
                (Some(LocFormat::LineColumnDiscriminator), _) | (None, ProfileArg::Llvm) => {
                    CallSiteFormat::LineColumnDiscriminator
                }
            };
            o.inline.replay = Some(
                file.with_scope(scope)
                    .with_fallback(fallback)
                    .with_format(format),
            );
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
pub fn run(a: CgsccArgs) -> Result<(), Failure> {
    let jobs = ilkit::scan::workers(a.jobs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Failure::usage(format!("--jobs {jobs}: no thread pool: {e}")))?;
    pool.install(|| run_in_pool(a))
}

/// `ilkit cgscc` on the pool of its `--jobs` workers: the reader's passes and the
/// inliner's helpers run there; the answer is the same for any number of workers.
fn run_in_pool(mut a: CgsccArgs) -> Result<(), Failure> {
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
        // the pass log is kept only when printed: its lines are formatted per pass
        let mut fan = if a.pass_log {
            Fanout(vec![&mut log as &mut dyn Instrumentation])
        } else {
            Fanout(vec![&mut none as &mut dyn Instrumentation])
        };
        let mut all = ilkit::cgscc::RunReport::default();
        let mut res = Ok(());
        for pm in &mut pms {
            match pm.run(&mut cm, &mut fan) {
                Ok(r) => {
                    all.visits.extend(r.visits);
                    all.ahead.rounds += r.ahead.rounds;
                    all.ahead.made += r.ahead.made;
                    all.ahead.taken += r.ahead.taken;
                    all.ahead.inert += r.ahead.inert;
                    all.ahead.attrs_taken += r.ahead.attrs_taken;
                    all.ahead.reproduced += r.ahead.reproduced;
                    all.ahead.attrs_stopped |= r.ahead.attrs_stopped;
                    all.ahead.stopped |= r.ahead.stopped;
                }
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
    if a.stats {
        // how the walk ran ahead depends on the workers: on standard error, so the
        // output stays the same for every worker count
        let h = report.ahead;
        let stopped = if h.stopped {
            " (then stopped: too few taken)"
        } else {
            ""
        };
        let attrs_stopped = if h.attrs_stopped {
            " (then left to the walk: too few runs read them)"
        } else {
            ""
        };
        eprintln!(
            "ilkit cgscc: ran ahead: {} rounds, {} units made, {} taken{stopped}, {} of \
             the others reproduced by the walk, {} left to the walk (they inline \
             nothing); function-attrs inferred ahead for {}{attrs_stopped}",
            h.rounds, h.made, h.taken, h.reproduced, h.inert, h.attrs_taken
        );
    }
    let names = |ns: &[ilkit::callgraph::NodeIdx]| -> Vec<String> {
        ns.iter()
            .map(|&n| cm.graph.name(n).unwrap_or_default().to_string())
            .collect()
    };
    // function-attrs' changes, as `scripts/fa_diff.py` prints opt's, of the functions
    // the pipeline kept
    let kept = |f| !cm.graph.is_removed(ilkit::callgraph::node_of_function(f));
    // the text's two longest parts, made side by side
    let text = a.format == Format::Text;
    let (fa_lines, visit_lines) = rayon::join(
        || {
            cm.fn_attrs
                .as_ref()
                .map(|inf| inf.diff_lines_of(&m, kept))
                .unwrap_or_default()
        },
        || {
            if text {
                visits_text(&report.visits, |n| cm.graph.name(n).unwrap_or_default())
            } else {
                String::new()
            }
        },
    );
    if a.format == Format::Attrs {
        let mut out = fa_lines.join("\n");
        if !out.is_empty() {
            out.push('\n');
        }
        return emit_and_leave(&out, (m, cm));
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
        let mut fa = serde_json::Map::new();
        if let Some(inf) = &cm.fn_attrs {
            let mut changes = inf.changes_of(&m, kept);
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
        // functions whose bodies the inliner changed get the summary's estimate, marked
        for (name, words) in estimated_attrs(&cm) {
            let fnw: Vec<String> = words.split(' ').map(|w| format!("+{w}")).collect();
            fa.insert(
                name,
                serde_json::json!({"fn": fnw, "ret": [], "args": {}, "estimated": true}),
            );
        }
        let mut v = serde_json::json!({
            "module": file,
            "schedule": schedule_json(&cm.schedule_stats()),
            "scc_schedule": schedule_json(&cm.scc_schedule_stats()),
            "function_attrs": fa,
            "function_attrs_lines": fa_lines,
            "pipeline": a.passes,
            "visits": visits,
            "remarks": if a.remarks { serde_json::Value::from(remarks) } else { serde_json::Value::Null },
            "diagnostics": cm.diagnostics,
            "pass_log": if a.pass_log { serde_json::Value::from(log.lines.clone()) } else { serde_json::Value::Null },
            "function_log": cm.function_log,
            "refsccs": cm.graph.postorder_names(),
            "verify": cm.graph.verify().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        });
        if a.stats {
            v["schedule_units"] = schedule_units(&cm);
        }
        return emit_and_leave(&format!("{v:#}\n"), (m, cm));
    }
    let mut out = String::new();
    out.push_str(&format!("; cgscc {} on {file}\n", a.passes));
    if a.stats {
        out.push_str(&schedule_text("RefSCC DAG", &cm.schedule_stats()));
        out.push_str(&schedule_text("call-SCC DAG", &cm.scc_schedule_stats()));
    }
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
            if a.inline_model == Model::Summary {
                out.push_str(&r.legacy().to_string());
                out.push('\n');
                continue;
            }
            if r.kind == ilkit::cgscc::RemarkKind::NoDefinition {
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
    let mut tail = String::new();
    let estimated = estimated_attrs(&cm);
    if !estimated.is_empty() {
        tail.push_str("; attributes estimated for bodies the inliner changed\n");
        for (name, words) in &estimated {
            tail.push_str(&format!("{name}: {words}\n"));
        }
    }
    if !fa_lines.is_empty() {
        tail.push_str("; function-attrs changes (fa_diff format)\n");
        for l in &fa_lines {
            tail.push_str(l);
            tail.push('\n');
        }
    }
    tail.push_str("; call graph after the pipeline\n");
    let graph_text = cm.graph.print_text();
    emit_parts_and_leave(&[&out, &visit_lines, &tail, &graph_text], (m, cm))
}

/// The visit log's lines: `#i (f, g): pass, pass`.
fn visits_text<'a>(
    visits: &[ilkit::cgscc::Visit],
    name: impl Fn(ilkit::callgraph::NodeIdx) -> &'a str,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for (i, v) in visits.iter().enumerate() {
        let _ = write!(s, "#{i} (");
        for (k, &n) in v.nodes.iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            s.push_str(name(n));
        }
        s.push_str("): ");
        for (k, p) in v.passes.iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            s.push_str(p);
        }
        s.push('\n');
    }
    s
}

/// Prints the answer; the process ends right after, so the module and the pass
/// manager's state are left to the operating system instead of being freed one
/// allocation at a time (a tenth of the process on the llama.cpp module).
fn emit_and_leave<T>(text: &str, state: T) -> Result<(), Failure> {
    emit_parts_and_leave(&[text], state)
}

/// [`emit_and_leave`] of a text in parts, written one after the other.
fn emit_parts_and_leave<T>(parts: &[&str], state: T) -> Result<(), Failure> {
    let r = emit_parts(parts);
    std::mem::forget(state);
    r
}

/// The attributes the summary estimate inferred for functions LLVM 14's rules did not
/// run on (bodies the inliner changed, or every function of a module read without its
/// instruction view): (name, `norecurse readnone`-style words), in node order.
/// Worker counts the schedule's predicted speedups are given for.
const WORKERS: [u32; 4] = [2, 8, 16, 64];

fn schedule_json(s: &ScheduleStats) -> serde_json::Value {
    let predicted: serde_json::Map<String, serde_json::Value> = WORKERS
        .iter()
        .map(|&w| {
            let (lo, hi) = s.predicted_speedup(w);
            (
                w.to_string(),
                serde_json::json!({"at_least": lo, "at_most": hi}),
            )
        })
        .collect();
    serde_json::json!({"refsccs": s.refsccs, "work": s.work, "span": s.span,
        "parallelism": s.parallelism(), "predicted_speedup": predicted})
}

/// Per unit of the RefSCC DAG, in post-order: `[work, [positions it depends on]]`
/// (what `scripts/schedule_sim.py` schedules).
fn schedule_units(cm: &CgsccModule) -> serde_json::Value {
    let own = cm.dag.unit_work(&cm.work);
    own.iter()
        .enumerate()
        .map(|(r, &w)| serde_json::json!([w, cm.dag.deps(r)]))
        .collect()
}

fn schedule_text(dag: &str, s: &ScheduleStats) -> String {
    let predicted: Vec<String> = WORKERS
        .iter()
        .map(|&w| {
            let (lo, hi) = s.predicted_speedup(w);
            format!("{lo:.2}-{hi:.2}x")
        })
        .collect();
    format!(
        "; schedule over the {dag}: {} units, work {} rows, span {} rows, parallelism {:.2} (speedup on 2, 8, 16, 64 workers: {})\n",
        s.refsccs,
        s.work,
        s.span,
        s.parallelism(),
        predicted.join(", ")
    )
}

fn estimated_attrs(cm: &CgsccModule) -> Vec<(String, String)> {
    cm.graph
        .nodes()
        .filter(|&n| !cm.graph.is_removed(n))
        .filter(|&n| cm.fn_attrs.is_none() || cm.summ.inlined_into[n])
        .filter_map(|n| {
            let s = cm.inferred_attrs(n);
            (!s.is_empty()).then(|| (cm.graph.name(n).unwrap_or_default().to_string(), s))
        })
        .collect()
}
