//! `ilkit il gen|dump|stats|keep`: generated translation units, binary IL files, display,
//! statistics and device IL.

use super::binary::{read_il, write_il};
use super::display::dump_il;
use super::keep::mark_to_keep_in_il;
use crate::il::stats::dump_il_table_stats;
use crate::il::Il;
use std::io::Write;

const USAGE: &str = "usage: ilkit il gen [--scale S] [--seed N] -o FILE\n       ilkit il dump FILE [--device] [--instantiate]\n       ilkit il stats FILE\n       ilkit il keep IN --out OUT [--kept-routines LIST.txt]\n(FILE/IN: a binary IL file, or a clang JSON AST .json / .json.gz)";

fn is_json(path: &str) -> bool {
    path.ends_with(".json") || path.ends_with(".json.gz")
}

/// Loads a binary IL file, or imports a clang JSON AST (`.json`, `.json.gz`), in which
/// case the import is returned too (device marking on real code needs it).
fn load(path: &str) -> Result<(Il, Option<crate::import::clang_json::Import>), String> {
    if is_json(path) {
        let mut il = Il::new();
        let imp = crate::import::clang_json::import_file(&mut il, std::path::Path::new(path))
            .map_err(|e| e.to_string())?;
        return Ok((il, Some(imp)));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    Ok((read_il(&bytes).map_err(|e| format!("{path}: {e}"))?, None))
}

/// Mangled names (names where there is none) of the routines whose definitions are kept
/// and that have bodies.
fn kept_routines_with_bodies(il: &Il) -> Vec<String> {
    use crate::il::{fields as F, EntryKind, Flag};
    il.kind_list(EntryKind::Routine)
        .filter(|&r| {
            il.flag(r, Flag::KeepDefinition) && il.child_eix(r, F::ROUTINE_BODY_SCOPE).is_some()
        })
        .map(|r| {
            let m = il.string(r, 1);
            String::from_utf8_lossy(if m.is_empty() { il.name(r) } else { m }).into_owned()
        })
        .collect()
}

/// Marks device code: the clang importer's marking (kernels and their call closure) for
/// imported ASTs, `mark_to_keep_in_il` otherwise. Returns (kept, live, kept routines with
/// bodies by mangled name, unsorted).
fn mark(
    il: &mut Il,
    imp: Option<&crate::import::clang_json::Import>,
) -> (usize, usize, Vec<String>) {
    match imp {
        Some(imp) => {
            let dk = crate::import::clang_json::mark_device(il, imp, Default::default());
            let names = crate::import::clang_json::kept_routine_names(il, &dk);
            (dk.kept, dk.live, names)
        }
        None => {
            let r = mark_to_keep_in_il(il, &[]);
            (r.kept, r.live, kept_routines_with_bodies(il))
        }
    }
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
            let (mut il, imp) = load(path)?;
            let device = rest.iter().any(|a| a == "--device");
            if rest.iter().any(|a| a == "--instantiate") {
                crate::instantiate::instantiate_synth_templates(&mut il)
                    .map_err(|e| e.to_string())?;
            }
            if device {
                mark(&mut il, imp.as_ref());
            }
            write!(
                out,
                "{}",
                dump_il(&mut il, device).map_err(|e| e.to_string())?
            )
            .map_err(io)?;
            Ok(())
        }
        "stats" if positional.is_some_and(is_json) => {
            // The importer's report (nodes, opaque kinds, unresolved types), the table, the
            // keep report per kind and per file.
            match crate::import::clang_json::cli_main(args) {
                0 => Ok(()),
                code => Err(format!(
                    "{} failed (exit {code})",
                    positional.unwrap_or_default()
                )),
            }
        }
        "stats" => {
            let path = positional.ok_or(USAGE)?;
            let (mut il, _) = load(path)?;
            dump_il_table_stats(&il, 0, out).map_err(io)?;
            let counters = crate::scan::share_all_constants(&mut il);
            crate::il::stats::dump_sharing_stats(&counters, out).map_err(io)?;
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
            let (mut il, imp) = load(path)?;
            let (kept, live, mut names) = mark(&mut il, imp.as_ref());
            let bytes = write_il(&mut il, true).map_err(|e| e.to_string())?;
            std::fs::write(dest, &bytes).map_err(|e| format!("{dest}: {e}"))?;
            writeln!(
                out,
                "{dest}: {kept} of {live} entries kept, {} bytes",
                bytes.len()
            )
            .map_err(io)?;
            if let Some(list) = flag_value(rest, &["--kept-routines"]) {
                names.sort();
                names.dedup();
                let text: String = names.iter().map(|n| format!("{n}\n")).collect();
                std::fs::write(list, text).map_err(|e| format!("{list}: {e}"))?;
            }
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}
