//! `ilkit cfg FILE.ptx|FILE.ll [--function NAME] [--format json|dot|edges|rpo|seed-dot|seed-edges|seed-rpo]`.

use crate::{emit, Failure};
use clap::{Args, ValueEnum};
use ilkit::cfg::{print, Cfg, CfgInfo};
use ilkit::idx::{BlockIdx, IndexVec};
use ilkit::import::Format as InputFormat;
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
    /// With `--format dot`: put each block's instructions in its node.
    #[arg(long)]
    dot_instructions: bool,
    /// With `--format dot`: write one `cfg.<function>.dot` per function into DIR instead
    /// of printing.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// JSON Lines: one object per function (blocks, successors, RPO, idom, loops).
    Json,
    /// Graphviz, like `opt -dot-cfg`: one digraph per function, source block names,
    /// T/F edges, back edges and loop headers marked.
    Dot,
    /// Edges by block name, under a header line per function.
    Edges,
    /// Reverse post-order and back edges by block name, under a header per function.
    Rpo,
    /// The seed's exact DOT dump (ptxas `dumpDOT`).
    SeedDot,
    /// The seed's exact `bix%d -> bix%d` edge lines.
    SeedEdges,
    /// The seed's exact RPO and backedge dump.
    SeedRpo,
}

/// Each function's source lines per block, for `--dot-instructions`, found in the text
/// by the block structure each format has: `.ll` bodies split at their labels, PTX
/// blocks from their first source line (the CFG's `label_id`) to the next block's.
fn block_texts(text: &str, ptx: bool, cfg: &Cfg) -> Option<IndexVec<BlockIdx, Vec<String>>> {
    let lines: Vec<&str> = text.lines().collect();
    let n = cfg.num_blocks();
    if ptx {
        let end = |from: usize| {
            (from..lines.len())
                .find(|&k| lines[k].trim() == "}")
                .unwrap_or(lines.len())
        };
        let firsts: Vec<usize> = cfg
            .blocks()
            .map(|b| cfg.label_id(b).unwrap_or(0) as usize)
            .collect();
        let stop = end(firsts.last().copied().unwrap_or(1).saturating_sub(1));
        let is_label = |l: &str| l.split("//").next().unwrap_or("").trim_end().ends_with(':');
        let is_exit = |l: &str| {
            let op = l.trim_start_matches(|c: char| c != ' ' && l.starts_with('@'));
            let op = op.trim_start();
            ["bra", "ret", "exit", "brx"]
                .iter()
                .any(|k| op.starts_with(k))
        };
        // A block's lines run from its first source line to the next block's; lines
        // after a block's branch (call-sequence braces, `.param` declarations) open the
        // next block.
        let mut groups: Vec<Vec<String>> = vec![Vec::new(); n];
        let mut carry: Vec<String> = Vec::new();
        for k in 0..n {
            let a = firsts[k].saturating_sub(1);
            let b = firsts.get(k + 1).map_or(stop, |&x| x.saturating_sub(1));
            let body: Vec<String> = lines
                .get(a..b.max(a).min(lines.len()))
                .unwrap_or(&[])
                .iter()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty() && !l.starts_with("//") && !is_label(l))
                .collect();
            let cut = body
                .iter()
                .rposition(|l| is_exit(l))
                .map_or(body.len(), |i| i + 1);
            let mut g = std::mem::take(&mut carry);
            g.extend_from_slice(&body[..cut]);
            carry = body[cut..].to_vec();
            groups[k] = g;
        }
        if let Some(last) = groups.last_mut() {
            last.append(&mut carry);
        }
        return Some(IndexVec::from_raw(groups));
    }
    let quoted = format!("@\"{}\"(", cfg.name());
    let plain = format!("@{}(", cfg.name());
    let start = lines
        .iter()
        .position(|l| l.starts_with("define ") && (l.contains(&plain) || l.contains(&quoted)))?;
    let mut groups: Vec<Vec<String>> = Vec::new();
    for l in &lines[start + 1..] {
        if l.trim_end() == "}" {
            break;
        }
        let t = l.trim();
        if t.is_empty() || t.starts_with(';') {
            continue;
        }
        let is_label = !l.starts_with(' ') && !l.starts_with('\t') && t.contains(':');
        if is_label || groups.is_empty() {
            groups.push(Vec::new());
        }
        if !is_label {
            if let Some(g) = groups.last_mut() {
                g.push(t.to_string());
            }
        }
    }
    (groups.len() == n).then(|| IndexVec::from_raw(groups))
}

/// Whether `text` (named `path`) is PTX rather than LLVM IR; an error when it is neither.
fn is_ptx(path: &Path, text: &str) -> Result<bool, Failure> {
    match InputFormat::detect(&path.display().to_string(), text.as_bytes()) {
        Some(InputFormat::Ptx) => Ok(true),
        Some(InputFormat::LlvmIr) => Ok(false),
        _ => Err(Failure::input(format!(
            "{}: not PTX or LLVM IR text (expected a PTX directive such as `.version`, or \
             an LLVM IR entity such as `define`, before anything else)",
            path.display()
        ))),
    }
}

/// Every function CFG of a `.ptx` or `.ll` file, with the file's text and whether it
/// was PTX.
fn load(path: &Path) -> Result<(Vec<Cfg>, String, bool), Failure> {
    let name = path.display().to_string();
    let text =
        ilkit::import::read_text(path).map_err(|e| Failure::input(format!("{name}: {e}")))?;
    let ptx = is_ptx(path, &text)?;
    let cfgs = if ptx {
        Cfg::from_ptx_str(&name, &text).map_err(Failure::input)?
    } else {
        let m = Module::from_ll_str(&name, &text).map_err(Failure::input)?;
        Cfg::from_llvm_module(&m)
    };
    Ok((cfgs, text, ptx))
}

/// Runs `ilkit cfg`.
pub fn run(a: CfgArgs) -> Result<(), Failure> {
    if (a.dot_instructions || a.out_dir.is_some()) && a.format != Format::Dot {
        return Err(Failure::usage(
            "--dot-instructions and --out-dir go with --format dot",
        ));
    }
    let (cfgs, text, ptx) = load(&a.file)?;
    if let Some(f) = &a.function {
        if !cfgs.iter().any(|c| c.name() == f) {
            return Err(Failure::input(format!(
                "{}: no function named '{f}' with a body",
                a.file.display()
            )));
        }
    }
    if let Some(dir) = &a.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::input(format!("{}: {e}", dir.display())))?;
    }
    let mut out = String::new();
    let mut info = CfgInfo::default();
    for cfg in cfgs
        .iter()
        .filter(|c| a.function.as_ref().is_none_or(|f| f == c.name()))
    {
        if !matches!(
            a.format,
            Format::SeedDot | Format::SeedEdges | Format::Edges
        ) {
            info.compute(cfg);
        }
        match a.format {
            Format::Json => {
                print::json(cfg, &info, &mut out);
                out.push('\n');
            }
            Format::Dot => {
                let texts = if a.dot_instructions {
                    block_texts(&text, ptx, cfg)
                } else {
                    None
                };
                let mut one = String::new();
                print::llvm_dot(cfg, &info, texts.as_ref(), &mut one);
                match &a.out_dir {
                    Some(dir) => {
                        let safe: String = cfg
                            .name()
                            .chars()
                            .map(|c| {
                                if c.is_ascii_alphanumeric() || "._-$".contains(c) {
                                    c
                                } else {
                                    '_'
                                }
                            })
                            .collect();
                        let path = dir.join(format!("cfg.{safe}.dot"));
                        std::fs::write(&path, one)
                            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
                        out.push_str(&format!("{}\n", path.display()));
                    }
                    None => out.push_str(&one),
                }
            }
            Format::Edges => print::named_edges(cfg, &mut out),
            Format::Rpo => print::named_rpo(cfg, &info, &mut out),
            Format::SeedDot => print::dot(cfg, &mut out),
            Format::SeedEdges => print::edges(cfg, &mut out),
            Format::SeedRpo => print::rpo(cfg, &info, &mut out),
        }
    }
    emit(&out)
}
