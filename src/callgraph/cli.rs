//! `ilkit callgraph FILE.ll [--format text|dot|json]`.

use super::from_module;
use crate::import::llvm_ir;

const USAGE: &str = "usage: ilkit callgraph FILE.ll [--format text|dot|json]";

/// Runs the `callgraph` subcommand on `args` (after the subcommand name) and returns
/// the process exit code: 0 on success, 1 on a read/parse error, 2 on bad usage.
pub fn main(args: &[String]) -> i32 {
    let mut file = None;
    let mut format = "text".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" => match it.next() {
                Some(f) => format = f.clone(),
                None => {
                    eprintln!("{USAGE}");
                    return 2;
                }
            },
            s if s.starts_with("--format=") => format = s["--format=".len()..].to_string(),
            "-h" | "--help" => {
                println!("{USAGE}");
                return 0;
            }
            s if file.is_none() && !s.starts_with("--") => file = Some(s.to_string()),
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
    if !matches!(format.as_str(), "text" | "dot" | "json") {
        eprintln!("unknown format '{format}'\n{USAGE}");
        return 2;
    }
    match run(&file, &format) {
        Ok(s) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(s.as_bytes());
            0
        }
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// Reads and parses `file` and renders its call graph in `format` (`text`, `dot` or
/// `json`). Errors come back as `file:line:col: message`.
pub fn run(file: &str, format: &str) -> Result<String, String> {
    let text =
        std::fs::read_to_string(file).map_err(|e| format!("{file}:1:1: cannot read: {e}"))?;
    let m = llvm_ir::parse(file, &text).map_err(|e| e.to_string())?;
    let mut g = from_module(&m, file);
    Ok(match format {
        "dot" => g.print_dot(),
        "json" => g.print_json(),
        _ => g.print_text(),
    })
}
