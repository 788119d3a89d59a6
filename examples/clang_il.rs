//! `cargo run --release --example clang_il -- stats|keep FILE.json[.gz] [...]`: the clang
//! JSON importer's CLI entry ([`ilkit::import::clang_json::cli_main`]) alone, the same
//! code `ilkit il stats|keep FILE.json` runs. A smaller process than the whole CLI: the
//! whole-process memory figures in `src/import/clang_json.rs` are taken with it.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(ilkit::import::clang_json::cli_main(&args));
}
