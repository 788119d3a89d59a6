//! Fuzz the front door: what `ilkit scan`, `cfg`, `callgraph`, `cgscc` and `il` do with a
//! file after parsing their arguments, on arbitrary bytes under any of the names the
//! tools meet (`.ll`, `.ptx`, `.json`, `.il`, gzipped or not, or no extension). The first
//! byte picks the name and the entry; the rest is the file. No input may panic: format
//! detection, gzip, UTF-8, every reader and every analysis must answer with a value or
//! an error.
#![no_main]

use ilkit::import::format::{gunzip_if_gzip, Detected, Format};
use ilkit::scan::{scan_one, Analyses, Input, NoProgress, ScanOptions};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 8] = [
    "in", "in.ll", "in.ptx", "in.json", "in.json.gz", "in.il", "in.ll.gz", "in.ptx.gz",
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(sel & 7)];
    match (sel >> 3) % 3 {
        0 => scan_file(name, body),
        1 => text_tools(name, body),
        _ => il_tools(name, body),
    }
});

/// `ilkit scan FILE`: the whole per-file scan (every analysis) on a file of that name.
fn scan_file(name: &str, body: &[u8]) {
    let dir = std::env::temp_dir().join(format!("ilkit-front-door-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let p = dir.join(name);
    if std::fs::write(&p, body).is_err() {
        return;
    }
    let opts = ScanOptions {
        analyses: Analyses::default(),
        jobs: 1,
        ..ScanOptions::default()
    };
    let r = scan_one(&Input::File(p), &opts, &NoProgress);
    assert!(r.error.is_some() || r.kind != "unknown", "{r:?}");
}

/// `ilkit cfg`, `callgraph` and `cgscc` on text.
fn text_tools(name: &str, body: &[u8]) {
    let d = Detected::of_bytes(name, body);
    let Ok(bytes) = gunzip_if_gzip(body.to_vec()) else {
        return;
    };
    let Ok(text) = ilkit::import::text_of(bytes) else {
        return;
    };
    match d.format {
        Some(Format::Ptx) => {
            if let Ok(cfgs) = ilkit::cfg::Cfg::from_ptx_str(name, &text) {
                for c in &cfgs {
                    let _ = c.analyze();
                }
            }
        }
        Some(Format::LlvmIr) => {
            let opts = ilkit::import::llvm_ir::ParseOptions { instructions: true };
            let Ok(m) = ilkit::llvm::Module::from_ll_str_with(name, &text, opts) else {
                return;
            };
            for c in ilkit::cfg::Cfg::from_llvm_module(&m) {
                let _ = c.analyze();
            }
            let mut g = ilkit::callgraph::from_module(&m, name);
            let _ = g.print_text();
            for pipeline in [
                "cgscc(devirt<2>(inline,function-attrs))",
                "cgscc(devirt<4>(inline))",
            ] {
                let mut pm = ilkit::cgscc::PassManager::from_text(pipeline, Default::default())
                    .expect("a fixed pipeline parses");
                let _ = ilkit::cgscc::run_pipeline_summary(&m, &mut pm);
            }
        }
        _ => {}
    }
}

/// `ilkit il` on a binary IL file or a clang JSON AST.
fn il_tools(name: &str, body: &[u8]) {
    let d = Detected::of_bytes(name, body);
    let Ok(bytes) = gunzip_if_gzip(body.to_vec()) else {
        return;
    };
    let il = match d.format {
        Some(Format::BinaryIl) => ilkit::import::binary_il::read_il(&bytes).ok(),
        Some(Format::LlvmIr | Format::Ptx) => None,
        _ => {
            let mut il = ilkit::il::Il::new();
            ilkit::import::clang_json::import_reader(&mut il, &bytes[..])
                .ok()
                .map(|_| il)
        }
    };
    if let Some(mut il) = il {
        assert!(il.verify().is_empty());
        let _ = ilkit::walk::device::mark_device(&mut il, Default::default());
        let _ = ilkit::share::share_all_constants(&mut il);
    }
}
