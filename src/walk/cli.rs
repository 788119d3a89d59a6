//! `ilkit il gen|dump|stats|keep`: generated translation units, binary IL files, display,
//! statistics and device IL.

use super::binary::{read_il, write_il};
use super::display::dump_il;
use super::keep::mark_to_keep_in_il;
use crate::il::stats::dump_il_table_stats;
use crate::il::Il;
use std::io::Write;

const USAGE: &str = "usage: ilkit il gen [--scale S] [--seed N] -o FILE\n       ilkit il dump FILE [--device]\n       ilkit il stats FILE\n       ilkit il keep IN --out OUT";

fn load(path: &str) -> Result<Il, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    read_il(&bytes).map_err(|e| format!("{path}: {e}"))
}

fn flag_value<'a>(args: &'a [String], names: &[&str]) -> Option<&'a str> {
    args.iter()
        .position(|a| names.contains(&a.as_str()))
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// Runs `ilkit il ...`; returns the exit status.
pub fn main(args: &[String]) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(args, &mut out) {
        Ok(()) => 0,
        Err(e) if e.contains("Broken pipe") => 0,
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

fn run(args: &[String], out: &mut dyn Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let sub = args.first().map(String::as_str).ok_or(USAGE)?;
    let rest = &args[1..];
    let positional = rest
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str);
    match sub {
        "gen" => {
            let scale: f64 = flag_value(rest, &["--scale"])
                .unwrap_or("1")
                .parse()
                .map_err(|_| "--scale takes a number")?;
            let seed: u64 = flag_value(rest, &["--seed"])
                .unwrap_or("1")
                .parse()
                .map_err(|_| "--seed takes a number")?;
            let path = flag_value(rest, &["-o", "--out"]).ok_or(USAGE)?;
            if !(scale > 0.0 && scale <= 1000.0) {
                return Err("--scale must be in (0, 1000]".into());
            }
            let mut il = crate::il::synth::generate(seed, scale);
            let bytes = write_il(&mut il, false).map_err(|e| e.to_string())?;
            std::fs::write(path, &bytes).map_err(|e| format!("{path}: {e}"))?;
            writeln!(out, "{path}: {} entries, {} bytes", il.len(), bytes.len()).map_err(io)?;
            Ok(())
        }
        "dump" => {
            let path = positional.ok_or(USAGE)?;
            let mut il = load(path)?;
            let device = rest.iter().any(|a| a == "--device");
            if device {
                mark_to_keep_in_il(&mut il, &[]);
            }
            write!(
                out,
                "{}",
                dump_il(&mut il, device).map_err(|e| e.to_string())?
            )
            .map_err(io)?;
            Ok(())
        }
        "stats" => {
            let path = positional.ok_or(USAGE)?;
            let mut il = load(path)?;
            dump_il_table_stats(&il, 0, out).map_err(io)?;
            let r = mark_to_keep_in_il(&mut il, &[]);
            writeln!(
                out,
                "keep_in_il: {} roots, {} of {} entries kept",
                r.roots, r.kept, r.live
            )
            .map_err(io)?;
            for (k, n) in r.kept_per_kind {
                writeln!(out, "  {:<32}{n:>10}", k.name()).map_err(io)?;
            }
            Ok(())
        }
        "keep" => {
            let path = positional.ok_or(USAGE)?;
            let dest = flag_value(rest, &["--out", "-o"]).ok_or(USAGE)?;
            let mut il = load(path)?;
            let r = mark_to_keep_in_il(&mut il, &[]);
            let bytes = write_il(&mut il, true).map_err(|e| e.to_string())?;
            std::fs::write(dest, &bytes).map_err(|e| format!("{dest}: {e}"))?;
            writeln!(
                out,
                "{dest}: {} of {} entries kept, {} bytes",
                r.kept,
                r.live,
                bytes.len()
            )
            .map_err(io)?;
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}
