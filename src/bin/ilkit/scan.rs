//! `ilkit scan [PATH...] [--json] [--jobs N] [--shard I/N]` and `ilkit merge FILE...`.

use crate::{emit, Failure};
use clap::Args;
use ilkit::scan::{
    collect_inputs, default_inputs, record_from_json, record_json, shard, summary, FileRecord,
    Progress,
};
use std::io::IsTerminal;
use std::path::PathBuf;
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
    /// Worker threads (0 = one per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Keep only shard I of N (files whose position in the sorted list is I modulo N).
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
}

/// Arguments of `ilkit merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// JSON Lines files written by `ilkit scan --json`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected I/N with I < N (e.g. 0/4), found '{s}'");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if i < n {
        Ok((i, n))
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
    let mut inputs = if a.paths.is_empty() {
        default_inputs()
    } else {
        collect_inputs(&a.paths)
    };
    if let Some((i, n)) = a.shard {
        inputs = shard(inputs, i, n);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs)
        .build()
        .map_err(|e| Failure::input(format!("--jobs: {e}")))?;
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
    let records = pool.install(|| ilkit::scan::scan(&inputs, &bar));
    let wall = t0.elapsed().as_secs_f64();
    bar.0.finish_and_clear();
    report(&records, wall, a.json)
}

fn report(records: &[FileRecord], wall: f64, json: bool) -> Result<(), Failure> {
    let mut out = String::new();
    let mut errors = String::new();
    for r in records {
        if json {
            out.push_str(&record_json(r));
            out.push('\n');
        }
        if let Some(e) = &r.error {
            errors.push_str(&format!("error: {e}\n"));
        }
    }
    if !json {
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
        out.push_str(&format!("summary:\n{}", summary(records, wall)));
    }
    emit(&out)?;
    if errors.is_empty() {
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

/// Runs `ilkit merge`.
pub fn run_merge(a: MergeArgs) -> Result<(), Failure> {
    let mut records = Vec::new();
    let mut wall = 0.0f64;
    for f in &a.files {
        let text = ilkit::import::read_text(f)
            .map_err(|e| Failure::input(format!("{}: {e}", f.display())))?;
        let mut shard_time = 0.0;
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let r = record_from_json(line)
                .map_err(|e| Failure::input(format!("{}:{}:{e}", f.display(), i + 1)))?;
            shard_time += r.seconds;
            records.push(r);
        }
        wall = wall.max(shard_time);
    }
    report(&records, wall, false)
}
