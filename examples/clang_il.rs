//! `cargo run --release --example clang_il -- stats|keep FILE.json[.gz] [...]`: the clang
//! JSON importer's CLI entry ([`ilkit::import::clang_json::cli_main`]) until the `ilkit il`
//! subcommand is wired to it.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(ilkit::import::clang_json::cli_main(&args));
}
