//! The `ilkit` command line.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("callgraph") => ilkit::callgraph::cli::main(&args[1..]),
        Some("cfg") => ilkit::cfg::cli::main(&args[1..]),
        _ => {
            eprintln!("usage: ilkit <scan|il|callgraph|cgscc|cfg> ...");
            2
        }
    };
    std::process::exit(code);
}
