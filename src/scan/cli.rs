//! `ilkit scan [PATH...] [--json] [--jobs N] [--shard I/N]` and `ilkit merge FILE...`.

use super::*;
use std::io::{IsTerminal, Write};

const USAGE: &str = "usage: ilkit scan [PATH...] [--json] [--jobs N] [--shard I/N]\n       ilkit merge FILE.jsonl...";

/// Runs `ilkit scan`; returns the exit status (1 if any file failed).
pub fn main(args: &[String]) -> i32 {
    let mut paths = Vec::new();
    let mut json = false;
    let mut jobs = 0usize;
    let mut shard_spec: Option<(usize, usize)> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--jobs" | "-j" => match it.next().and_then(|v| v.parse().ok()) {
                Some(n) => jobs = n,
                None => return usage("--jobs takes a number"),
            },
            "--shard" => match it.next().and_then(|v| parse_shard(v)) {
                Some(s) => shard_spec = Some(s),
                None => return usage("--shard takes I/N with I < N"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return 0;
            }
            s if s.starts_with('-') => return usage(&format!("unknown option {s}")),
            p => paths.push(PathBuf::from(p)),
        }
    }
    let mut inputs = if paths.is_empty() {
        default_inputs()
    } else {
        collect_inputs(&paths)
    };
    if let Some((i, n)) = shard_spec {
        inputs = shard(inputs, i, n);
    }
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ilkit scan: {e}");
            return 2;
        }
    };
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(inputs.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let t0 = Instant::now();
    let records = pool.install(|| scan(&inputs, &|| bar.inc(1)));
    let wall = t0.elapsed().as_secs_f64();
    bar.finish_and_clear();
    report(&records, wall, json)
}

fn report(records: &[FileRecord], wall: f64, json: bool) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    for r in records {
        if json {
            let _ = writeln!(out, "{}", record_json(r));
        }
        if let Some(e) = &r.error {
            failed = true;
            eprintln!("error: {e}");
        }
    }
    if !json {
        let _ = writeln!(out, "ilkit scan: {} files", records.len());
        for r in records {
            let status = if r.error.is_some() { "FAILED" } else { "ok" };
            let _ = writeln!(
                out,
                "  {:<6} {:<4} {:<48} fn {:>5} bb {:>6} scc {:>4} il {:>8} {:>8.3}s",
                status,
                r.kind,
                truncate(&r.name, 48),
                r.functions,
                r.blocks,
                r.sccs,
                r.il_entries,
                r.seconds
            );
        }
        let _ = write!(out, "summary:\n{}", summary(records, wall));
    }
    i32::from(failed)
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let tail: String = s
            .chars()
            .rev()
            .take(n - 1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    }
}

fn parse_shard(s: &str) -> Option<(usize, usize)> {
    let (i, n) = s.split_once('/')?;
    let (i, n) = (i.parse().ok()?, n.parse().ok()?);
    (i < n).then_some((i, n))
}

fn usage(msg: &str) -> i32 {
    eprintln!("ilkit scan: {msg}\n{USAGE}");
    2
}

/// Runs `ilkit merge`: combines JSON Lines outputs of sharded scans into one summary.
pub fn merge_main(args: &[String]) -> i32 {
    if args.is_empty() {
        return usage("merge needs at least one file");
    }
    let mut records = Vec::new();
    let mut wall = 0.0f64;
    for f in args {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("ilkit merge: {f}: {e}");
                return 1;
            }
        };
        let mut shard_time = 0.0;
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            match record_from_json(line) {
                Ok(r) => {
                    shard_time += r.seconds;
                    records.push(r);
                }
                Err(e) => {
                    eprintln!("ilkit merge: {f}:{}:{e}", i + 1);
                    return 1;
                }
            }
        }
        wall = wall.max(shard_time);
    }
    report(&records, wall, false)
}
