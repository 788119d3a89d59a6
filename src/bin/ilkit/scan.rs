//! `ilkit scan [PATH...] [--json] [--jobs N] [--shard I/N|auto]` and
//! `ilkit merge FILE|DIR...`.

use crate::{emit, Failure};
use clap::Args;
use ilkit::scan::{
    collect_inputs, default_inputs, record_json, shard, shard_from_env, shard_json, summary,
    FileRecord, Progress, ShardInfo, WallTime,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `ilkit scan`.
#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Files and folders to scan (folders recursively); none scans the embedded default
    /// corpus.
    paths: Vec<PathBuf>,
    /// Print one JSON object per file (JSON Lines) instead of the table and summary.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML report (summary, sortable per-file table, plots).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The analyses to run: a comma-separated list of cfg, callgraph, cgscc, il (or all).
    #[arg(long, value_name = "LIST", default_value = "all")]
    analyses: ilkit::scan::Analyses,
    /// Cap on the memory one file's CGSCC run may hold, in MB (default: a quarter of RAM
    /// divided by the jobs).
    #[arg(long, value_name = "MB")]
    max_memory: Option<usize>,
    /// Input bytes in flight at most, in MB: a file starts only when it fits beside the
    /// files already running; a larger file runs alone (default: a sixty-fourth of RAM).
    #[arg(long, value_name = "MB")]
    max_input_in_flight: Option<usize>,
    /// Worker threads, and files in flight at most (0 = one per core; at most 1024).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, value_parser = crate::parse_jobs)]
    jobs: usize,
    /// Keep only shard I of N (0-based: files whose position in the sorted list is I
    /// modulo N), or `auto` to read it from a Slurm job array or a Kubernetes Indexed Job.
    #[arg(long, value_name = "I/N|auto", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// The number of shards for `--shard auto` under a Kubernetes Indexed Job (its
    /// completion count; Slurm's arrays carry their own).
    #[arg(long, value_name = "N")]
    shard_count: Option<usize>,
}

/// Arguments of `ilkit merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// JSON Lines files written by `ilkit scan --json`, or folders of `*.jsonl` files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// `--shard`: a fixed shard or the batch system's.
#[derive(Clone, Copy, Debug)]
enum Shard {
    Fixed(usize, usize),
    Auto,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    if s == "auto" {
        return Ok(Shard::Auto);
    }
    let bad = || format!("expected I/N with I < N (e.g. 0/4) or 'auto', found '{s}'");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if i < n {
        Ok(Shard::Fixed(i, n))
    } else {
        Err(bad())
    }
}

/// A progress bar over the bytes of the inputs, on a terminal only.
struct Bar(indicatif::ProgressBar);

impl Progress for Bar {
    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }
    fn file_done(&self, r: &FileRecord) {
        self.0.set_message(r.name.clone());
    }
}

/// Runs `ilkit scan`.
pub fn run_scan(a: ScanArgs) -> Result<(), Failure> {
    let mut info = ShardInfo::default();
    let mut inputs = if a.paths.is_empty() {
        default_inputs()
    } else {
        let c = collect_inputs(&a.paths);
        let show = |p: &Path| p.display().to_string();
        info.duplicates = c
            .duplicates
            .iter()
            .map(|(p, f)| (show(p), show(f)))
            .collect();
        info.loops = c.loops.iter().map(|p| show(p)).collect();
        info.skipped = c
            .skipped
            .iter()
            .map(|(p, why)| (show(p), why.clone()))
            .collect();
        c.inputs
    };
    let which = match a.shard {
        None => None,
        Some(Shard::Fixed(i, n)) => Some((i, n)),
        Some(Shard::Auto) => Some(
            shard_from_env(|k| std::env::var(k).ok(), a.shard_count)
                .map_err(|e| Failure::usage(format!("--shard auto: {e}")))?,
        ),
    };
    if let Some((i, n)) = which {
        inputs = shard(inputs, i, n);
    }
    info.shard = which;
    let jobs = ilkit::scan::workers(a.jobs);
    let total: u64 = inputs.iter().map(|i| i.size_hint()).sum();
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {elapsed} {wide_msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let t0 = Instant::now();
    let bar = Bar(bar);
    let opts = ilkit::scan::ScanOptions {
        analyses: a.analyses,
        max_memory: Some(
            a.max_memory
                .map_or_else(|| crate::default_memory_cap() / jobs, |mb| mb << 20),
        ),
        jobs,
        max_bytes_in_flight: Some(a.max_input_in_flight.map_or_else(
            // A module's working set is ~10-30x its text: input worth a sixty-fourth of
            // RAM in flight at once.
            || (crate::default_memory_cap() / 16) as u64,
            |mb| (mb as u64) << 20,
        )),
    };
    let records = ilkit::scan::scan(&inputs, &opts, &bar);
    info.wall_seconds = t0.elapsed().as_secs_f64();
    info.files = records.len();
    bar.0.finish_and_clear();
    if let Some(path) = &a.html {
        let page = crate::html::report(&records, &WallTime::single(info.wall_seconds));
        std::fs::write(path, page)
            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    }
    report(&records, &info, a.json)
}

/// Prints the records (JSON Lines with the shard trailer, or the table and summary);
/// fails (exit 1) when a file failed, after saying which and why.
fn report(records: &[FileRecord], info: &ShardInfo, json: bool) -> Result<(), Failure> {
    let mut out = String::new();
    let mut errors = String::new();
    for (p, first) in &info.duplicates {
        errors.push_str(&format!("note: {p} is {first} again; scanned once\n"));
    }
    for p in &info.loops {
        errors.push_str(&format!(
            "note: {p}: a symbolic link loop; not entered again\n"
        ));
    }
    for (p, why) in &info.skipped {
        errors.push_str(&format!("note: {p}: {why}\n"));
    }
    let mut failed = false;
    for r in records {
        for n in &r.notes {
            errors.push_str(&format!("note: {n}\n"));
        }
        if json {
            out.push_str(&record_json(r));
            out.push('\n');
        }
        if let Some(e) = &r.error {
            failed = true;
            errors.push_str(&format!("error: {e}\n"));
        }
    }
    if json {
        out.push_str(&shard_json(info));
        out.push('\n');
    } else {
        out.push_str(&format!("ilkit scan: {} files\n", records.len()));
        for r in records {
            let status = if r.error.is_some() { "FAILED" } else { "ok" };
            out.push_str(&format!(
                "  {:<6} {:<4} {:<48} fn {:>5} bb {:>6} scc {:>4} il {:>8} {:>8.3}s\n",
                status,
                r.kind,
                truncate(&r.name, 48),
                r.functions,
                r.blocks,
                r.sccs,
                r.il_entries,
                r.seconds
            ));
        }
        let wall = WallTime::single(info.wall_seconds);
        out.push_str(&format!("summary:\n{}", summary(records, &wall)));
    }
    emit(&out)?;
    if !failed {
        if !errors.is_empty() {
            eprint!("{errors}");
        }
        Ok(())
    } else {
        Err(Failure::input(errors))
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let tail: Vec<char> = s.chars().rev().take(n - 1).collect();
        format!("…{}", tail.into_iter().rev().collect::<String>())
    }
}

/// The files `ilkit merge` reads: files as given, folders' `*.jsonl` sorted.
fn merge_inputs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let rd = std::fs::read_dir(p)
                .map_err(|e| Failure::input(format!("{}: cannot read: {e}", p.display())))?;
            let mut files: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(Failure::input(format!(
                    "{}: no *.jsonl files in this folder",
                    p.display()
                )));
            }
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Runs `ilkit merge`.
pub fn run_merge(a: MergeArgs) -> Result<(), Failure> {
    let files = merge_inputs(&a.files)?;
    let mut texts = Vec::new();
    for f in &files {
        let text = ilkit::import::read_text(f)
            .map_err(|e| Failure::input(format!("{}: {e}", f.display())))?;
        texts.push((f.display().to_string(), text));
    }
    let m = ilkit::scan::merge(texts.iter().map(|(n, t)| (n.as_str(), t.as_str())))
        .map_err(Failure::input)?;
    let mut out = format!(
        "ilkit merge: {} files from {} inputs\n",
        m.records.len(),
        files.len()
    );
    let failed = m.records.iter().filter(|r| r.error.is_some()).count();
    let wall = match m.wall() {
        Some(w) => w,
        None => {
            out.push_str(
                "note: no shard trailer in the inputs (written by an older ilkit): wall time unknown; per-file seconds are not wall time\n",
            );
            WallTime::default()
        }
    };
    out.push_str(&format!("summary:\n{}", summary(&m.records, &wall)));
    emit(&out)?;
    if failed > 0 {
        return Err(Failure::input(format!(
            "{failed} of the merged files failed in their scans"
        )));
    }
    Ok(())
}
