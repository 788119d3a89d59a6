//! `ilkit cfg FILE.ptx|FILE.ll [--function NAME] [--format json|dot|edges|rpo]`.
//!
//! Reads the file, builds one CFG per function with a body (in file order), computes the
//! analyses and prints the chosen format to stdout. Errors go to stderr as
//! `file:line:col: message` (exit 1); usage errors exit 2. The command is the one place
//! in `cfg` that reaches into `import` (the library's builders live there).

use super::{print, Cfg, CfgInfo};
use crate::import::ptx;
use std::io::Write;

/// Output format of `ilkit cfg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON Lines, one object per function.
    Json,
    /// Graphviz DOT (the seed's `dumpDOT` text), one digraph per function.
    Dot,
    /// `bix%d -> bix%d` lines.
    Edges,
    /// The seed's RPO and backedge dump.
    Rpo,
}

const USAGE: &str =
    "usage: ilkit cfg FILE.ptx|FILE.ll [--function NAME] [--format json|dot|edges|rpo]";

/// Loads every function CFG of a `.ptx` or `.ll` file (by extension; `.ll` needs the
/// LLVM IR importer). Errors are formatted `file:line:col: message`.
pub fn load(path: &str) -> Result<Vec<Cfg>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{path}:1:1: cannot read: {e}"))?;
    load_text(path, &text)
}

/// Like [`load`] from text already in memory (`path` picks the format and names errors).
pub fn load_text(path: &str, text: &str) -> Result<Vec<Cfg>, String> {
    if path.ends_with(".ll") {
        return crate::import::llvm_cfg::cfgs_from_ll(path, text);
    }
    let m = ptx::parse(path, text).map_err(|e| e.to_string())?;
    Ok(m.functions
        .iter()
        .filter(|f| f.has_body)
        .map(ptx::build_cfg)
        .collect())
}

/// Renders the CFGs (optionally only `function`) in `format`.
pub fn render(cfgs: &[Cfg], function: Option<&str>, format: Format) -> String {
    let mut out = String::new();
    for cfg in cfgs.iter().filter(|c| function.is_none_or(|f| f == c.name)) {
        let info = CfgInfo::default();
        let info = if format == Format::Json || format == Format::Rpo {
            let mut i = info;
            i.compute(cfg);
            i
        } else {
            info
        };
        match format {
            Format::Json => {
                print::json(cfg, &info, &mut out);
                out.push('\n');
            }
            Format::Dot => print::dot(cfg, &mut out),
            Format::Edges => print::edges(cfg, &mut out),
            Format::Rpo => print::rpo(cfg, &info, &mut out),
        }
    }
    out
}

/// Runs the command with `args` (after `cfg`); returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let mut file = None;
    let mut function = None;
    let mut format = Format::Json;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--function" => match it.next() {
                Some(f) => function = Some(f.clone()),
                None => {
                    eprintln!("{USAGE}");
                    return 2;
                }
            },
            "--format" => {
                format = match it.next().map(String::as_str) {
                    Some("json") => Format::Json,
                    Some("dot") => Format::Dot,
                    Some("edges") => Format::Edges,
                    Some("rpo") => Format::Rpo,
                    _ => {
                        eprintln!("{USAGE}");
                        return 2;
                    }
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return 0;
            }
            _ if file.is_none() && !a.starts_with("--") => file = Some(a.clone()),
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
    }
    let Some(file) = file else {
        eprintln!("{USAGE}");
        return 2;
    };
    let cfgs = match load(&file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    if let Some(f) = &function {
        if !cfgs.iter().any(|c| &c.name == f) {
            eprintln!("{file}:1:1: no function named '{f}' with a body");
            return 1;
        }
    }
    let out = render(&cfgs, function.as_deref(), format);
    let mut so = std::io::stdout().lock();
    if so.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}
