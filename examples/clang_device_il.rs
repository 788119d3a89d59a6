//! Usage example: import a clang JSON AST (`clang -Xclang -ast-dump=json`, plain or
//! gzipped), mark what device compilation keeps, list the kept routines and write the
//! device IL as a binary IL file.
//!
//! `cargo run --example clang_device_il [FILE.json[.gz] [OUT.il]]` (default:
//! `tests/fixtures/clang/kernels.json.gz`, output in the temporary directory).

use ilkit::il::Il;
use ilkit::import::{binary_il, clang_json};
use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/clang/kernels.json.gz"
        )
        .to_string()
    });
    let out = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("clang_device_il.il"));
    let mut il = Il::new();
    let import = clang_json::import_file(&mut il, path.as_ref())?;
    let problems = il.verify();
    assert!(problems.is_empty(), "{problems:?}");
    let keep = mark_device(&mut il, DeviceOptions::default());
    println!(
        "{path}: {} bytes of JSON, {} of {} entries kept",
        import.report.bytes, keep.kept, keep.live
    );
    for name in kept_routine_names(&il, &keep) {
        println!("  kept {name}");
    }
    let bytes = binary_il::write_il(&mut il, true)?;
    std::fs::write(&out, &bytes)?;
    println!("wrote {} ({} bytes)", out.display(), bytes.len());
    Ok(())
}
