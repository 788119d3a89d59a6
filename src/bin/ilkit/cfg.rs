//! `ilkit cfg FILE.ptx|FILE.ll [--function NAME] [--format json|dot|edges|rpo]`.

use crate::{emit, Failure};
use clap::{Args, ValueEnum};
use ilkit::cfg::{print, Cfg, CfgInfo};
use ilkit::llvm::Module;
use std::path::{Path, PathBuf};

/// Arguments of `ilkit cfg`.
#[derive(Args, Debug)]
pub struct CfgArgs {
    /// A `.ptx` or `.ll` file (`-` reads standard input; the format is then sniffed).
    file: PathBuf,
    /// Only this function.
    #[arg(long)]
    function: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// JSON Lines: one object per function (blocks, successors, RPO, idom, loops).
    Json,
    /// The seed's DOT dump, one digraph per function.
    Dot,
    /// The seed's `bix%d -> bix%d` edge lines.
    Edges,
    /// The seed's RPO and backedge dump.
    Rpo,
}

/// Whether `text` (named `path`) is PTX rather than LLVM IR.
fn is_ptx(path: &Path, text: &str) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ptx") => true,
        Some("ll") => false,
        _ => ilkit::scan::sniff(&path.display().to_string(), text) == "ptx",
    }
}

/// Every function CFG of a `.ptx` or `.ll` file.
fn load(path: &Path) -> Result<Vec<Cfg>, Failure> {
    let name = path.display().to_string();
    let text =
        ilkit::import::read_text(path).map_err(|e| Failure::input(format!("{name}: {e}")))?;
    if is_ptx(path, &text) {
        Cfg::from_ptx_str(&name, &text).map_err(Failure::input)
    } else {
        let m = Module::from_ll_str(&name, &text).map_err(Failure::input)?;
        Ok(Cfg::from_llvm_module(&m))
    }
}

/// Runs `ilkit cfg`.
pub fn run(a: CfgArgs) -> Result<(), Failure> {
    let cfgs = load(&a.file)?;
    if let Some(f) = &a.function {
        if !cfgs.iter().any(|c| &c.name == f) {
            return Err(Failure::input(format!(
                "{}: no function named '{f}' with a body",
                a.file.display()
            )));
        }
    }
    let mut out = String::new();
    let mut info = CfgInfo::default();
    for cfg in cfgs
        .iter()
        .filter(|c| a.function.as_ref().is_none_or(|f| f == &c.name))
    {
        if matches!(a.format, Format::Json | Format::Rpo) {
            info.compute(cfg);
        }
        match a.format {
            Format::Json => {
                print::json(cfg, &info, &mut out);
                out.push('\n');
            }
            Format::Dot => print::dot(cfg, &mut out),
            Format::Edges => print::edges(cfg, &mut out),
            Format::Rpo => print::rpo(cfg, &info, &mut out),
        }
    }
    emit(&out)
}
