//! Imports clang JSON ASTs and checks `Il::verify` on the result (what the fuzz target
//! asserts) and that the IL survives a binary IL write → read unchanged under display. `cargo run --release --example verify_clang -- FILE.json[.gz]`
fn main() {
    for arg in std::env::args().skip(1) {
        let mut il = ilkit::il::Il::new();
        match ilkit::import::clang_json::import_file(&mut il, std::path::Path::new(&arg)) {
            Ok(_) => {
                let errs = il.verify();
                let bytes = ilkit::import::binary_il::write_il(&mut il, false).unwrap();
                let mut back = ilkit::import::binary_il::read_il(&bytes).unwrap();
                let same = ilkit::walk::display::dump_il(&mut back, false).unwrap()
                    == ilkit::walk::display::dump_il(&mut il, false).unwrap();
                println!(
                    "{arg}: {} entries, {} verify errors {:?}, binary IL round trip {}",
                    il.len(),
                    errs.len(),
                    errs.iter().take(3).collect::<Vec<_>>(),
                    if same { "equal" } else { "DIFFERS" }
                );
            }
            Err(e) => println!("{arg}: {e}"),
        }
    }
}
