//! `ilkit callgraph FILE.ll [--format text|dot|dot-lcg|json]`.

use crate::{emit, Failure};
use clap::{Args, ValueEnum};
use ilkit::callgraph::from_module;
use ilkit::llvm::Module;
use std::path::PathBuf;

/// Arguments of `ilkit callgraph`.
#[derive(Args, Debug)]
pub struct CallgraphArgs {
    /// The LLVM IR text file (`-` reads standard input).
    file: PathBuf,
    /// Output format: `text` is byte-identical to `opt -passes=print-lcg`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// LLVM's `print-lcg` text.
    Text,
    /// Graphviz with one cluster per RefSCC and per call SCC inside it.
    Dot,
    /// Graphviz in the shape of LLVM's `dot-lcg` printer: edges only, refs dashed.
    DotLcg,
    /// Nodes, edges and post-order RefSCCs as JSON.
    Json,
}

/// Runs `ilkit callgraph`.
pub fn run(a: CallgraphArgs) -> Result<(), Failure> {
    let m = Module::from_ll_file(&a.file).map_err(Failure::input)?;
    let mut g = from_module(&m, &a.file.display().to_string());
    emit(&match a.format {
        Format::Text => g.print_text(),
        Format::Dot => g.print_dot_clusters(),
        Format::DotLcg => g.print_dot(),
        Format::Json => g.print_json(),
    })
}
