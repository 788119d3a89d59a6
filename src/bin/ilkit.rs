//! The `ilkit` command line: `scan`, `merge`, `il`, `callgraph`, `cfg`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or(&[]);
    let code = match args.first().map(String::as_str) {
        Some("scan") => ilkit::scan::cli::main(rest),
        Some("merge") => ilkit::scan::cli::merge_main(rest),
        Some("callgraph") => ilkit::callgraph::cli::main(rest),
        Some("cfg") => ilkit::cfg::cli::main(rest),
        Some("il") => ilkit::walk::cli::main(rest),
        _ => {
            eprintln!("usage: ilkit <scan|merge|il|callgraph|cfg> ...");
            2
        }
    };
    std::process::exit(code);
}
