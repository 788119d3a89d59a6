//! Every `tests/fixtures/llvm/X.ll` against its `X.cfg.json` (blocks, successors) and
//! `X.lcg.txt` (`opt -passes=print-lcg` output), when present.

use ilkit::callgraph::from_module;
use ilkit::llvm::Module;
use std::path::PathBuf;

#[test]
fn fixtures_match_llvm() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llvm");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    let (mut cfgs, mut lcgs) = (0, 0);
    for ll in files {
        let text = std::fs::read_to_string(&ll).unwrap();
        let m = Module::from_ll_str(&ll.to_string_lossy(), &text).unwrap_or_else(|e| panic!("{e}"));
        let stem = ll.with_extension("");
        if let Ok(js) = std::fs::read_to_string(stem.with_extension("cfg.json")) {
            let v: serde_json::Value = serde_json::from_str(&js).unwrap();
            let defs: Vec<_> = m.functions().iter().filter(|f| f.is_definition).collect();
            let jf = v["functions"].as_array().unwrap();
            assert_eq!(defs.len(), jf.len(), "{}", ll.display());
            for (f, j) in defs.iter().zip(jf) {
                assert_eq!(f.name, j["name"].as_str().unwrap());
                let names: Vec<&str> = f.blocks.iter().map(|b| b.name.as_str()).collect();
                let want: Vec<&str> = j["blocks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b.as_str().unwrap())
                    .collect();
                assert_eq!(names, want, "{}: {}", ll.display(), f.name);
                for (i, b) in f.blocks.iter().enumerate() {
                    let s: Vec<u32> = j["succ"][i]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_u64().unwrap() as u32)
                        .collect();
                    let got: Vec<u32> = b.succs.iter().map(|x| x.raw()).collect();
                    assert_eq!(got, s, "{}: {}:{}", ll.display(), f.name, b.name);
                }
            }
            cfgs += 1;
        }
        if let Ok(want) = std::fs::read_to_string(stem.with_extension("lcg.txt")) {
            let id = want
                .lines()
                .next()
                .unwrap()
                .trim_start_matches("Printing the call graph for module: ");
            let mut g = from_module(&m, id);
            assert_eq!(g.print_text(), want, "{}", ll.display());
            g.build_ref_sccs();
            assert!(g.verify().is_empty());
            lcgs += 1;
        }
    }
    assert!(
        cfgs >= 2 && lcgs >= 3,
        "fixtures missing: {cfgs} cfg, {lcgs} lcg"
    );
}
