//! The `ilkit` command line: `scan`, `merge`, `il`, `callgraph`, `cgscc`, `cfg`.
//!
//! Exit codes: 0 success, 1 an input failed (unreadable, malformed, an analysis error),
//! 2 usage (an unknown flag or a bad value, named in the message). `-` as a file reads
//! standard input. The library does the work; this binary parses arguments, reads files
//! and prints.

// The process allocates and frees many small vectors on every worker (the reader's rows,
// the inliner's bodies and tables); mimalloc does it in fewer instructions than the C
// library's allocator (PERF.md, "The allocator"). The library leaves the choice to its host.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod callgraph;
mod cfg;
mod cgscc;
mod html;
mod il;
mod scan;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

/// A data-oriented engine for the IL, lazy call graph and CFG of a CUDA-style toolchain.
#[derive(Parser, Debug)]
#[command(name = "ilkit", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Scan files and folders (.ll, .ptx, binary IL, clang JSON) in parallel and summarize.
    Scan(scan::ScanArgs),
    /// Combine the JSON Lines of several (sharded) scans into one summary.
    Merge(scan::MergeArgs),
    /// Control-flow graphs of a .ptx or .ll file: RPO, dominators, loops.
    Cfg(cfg::CfgArgs),
    /// The lazy call graph of a .ll file: SCCs and RefSCCs in post-order.
    Callgraph(callgraph::CallgraphArgs),
    /// Run a CGSCC pass pipeline (inliner, function-attrs) over a .ll file's call graph.
    Cgscc(cgscc::CgsccArgs),
    /// The front end's IL: generate, display, statistics, keep-in-IL device marking.
    #[command(subcommand)]
    Il(il::IlCommand),
}

/// A command's failure: what to print and the exit code.
#[derive(Debug)]
pub struct Failure {
    /// 1 for a failed input, 2 for usage.
    pub code: u8,
    /// The message (printed to stderr as is).
    pub message: String,
}

impl Failure {
    /// An input failed (exit 1).
    pub fn input(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: 1,
            message: message.to_string(),
        }
    }

    /// Bad usage that clap could not catch (exit 2).
    pub fn usage(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: 2,
            message: message.to_string(),
        }
    }
}

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error.
pub fn emit(text: &str) -> Result<(), Failure> {
    emit_parts(&[text])
}

/// Writes `parts` to standard output, one after the other (see [`emit`]).
pub fn emit_parts(parts: &[&str]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    let written = parts
        .iter()
        .try_for_each(|p| out.write_all(p.as_bytes()))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::input(format!("stdout: {e}"))),
    }
}

/// Reads `--jobs N`: 0 (one worker per core) up to [`ilkit::scan::MAX_JOBS`]; a larger
/// number is a usage error, not a process that spends its time starting threads.
pub fn parse_jobs(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|e| format!("'{s}' is not a number of workers: {e}"))?;
    let most = ilkit::scan::MAX_JOBS;
    if n > most {
        return Err(format!("{n} workers: at most {most} (0: one per core)"));
    }
    Ok(n)
}

/// The default `--max-memory`: a quarter of the machine's RAM (4 GB when unknown).
pub fn default_memory_cap() -> usize {
    let total_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<usize>().ok())
        })
        .unwrap_or(16 << 20);
    total_kb / 4 * 1024
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Scan(a) => scan::run_scan(a),
        Command::Merge(a) => scan::run_merge(a),
        Command::Cfg(a) => cfg::run(a),
        Command::Callgraph(a) => callgraph::run(a),
        Command::Cgscc(a) => cgscc::run(a),
        Command::Il(c) => il::run(c),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("{}", f.message.trim_end());
            }
            ExitCode::from(f.code)
        }
    }
}
