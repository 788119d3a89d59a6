//! `ilkit cfg` end to end (binary), on the fixtures.

use std::process::Command;

fn ilkit(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ilkit"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn fx(name: &str) -> String {
    format!("{}/tests/fixtures/ptx/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn formats() {
    let f = fx("gzclose.ptx");
    let (code, out, _) = ilkit(&["cfg", &f, "--format", "seed-edges"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "bix0 -> bix4\nbix0 -> bix1\nbix1 -> bix3\nbix1 -> bix2\nbix2 -> bix4\nbix3 -> bix4\n"
    );
    let (code, out, _) = ilkit(&["cfg", &f, "--format", "seed-dot"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("digraph f {\nnode [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n\"bix0\"\n[label=\"bix0(L"), "{out}");
    assert!(
        out.ends_with("bix3 -> bix4\n\"bix4\"\n[label=\"bix4(L35)\"]\n}\n"),
        "{out}"
    );
    let (code, out, _) = ilkit(&["cfg", &f, "--format", "seed-rpo"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Showing RPO state for each basic block:\nbix0 -> RPONum: 0\n"));
    let (code, out, _) = ilkit(&["cfg", &f, "--format", "edges"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "; function gzclose: 5 blocks, 6 edges\nbix0 -> LBB0_4\nbix0 -> bix1\nbix1 -> LBB0_3\n\
         bix1 -> bix2\nbix2 -> LBB0_4\nLBB0_3 -> LBB0_4\n"
    );
    let (code, out, _) = ilkit(&["cfg", &f, "--format", "rpo"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("; function gzclose: 5 blocks, 5 reachable\n"),
        "{out}"
    );
    let (code, out, _) = ilkit(&[
        "cfg",
        &fx("crc32_combine.ptx"),
        "--function",
        "crc32_combine_gen",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["function"], "crc32_combine_gen");
    assert_eq!(v["idom"][0], serde_json::Value::Null);
    assert!(v["loops"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["depth"] == 2));
}

#[test]
fn errors() {
    let dir = std::env::temp_dir().join(format!("ilkit_cfg_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ptx");
    std::fs::write(
        &bad,
        ".version 6.0\n.visible .func f()\n{\n\tbra NOWHERE;\n}\n",
    )
    .unwrap();
    let (code, _, err) = ilkit(&["cfg", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        format!(
            "{}:4:6: undefined branch target 'NOWHERE' in function 'f'",
            bad.display()
        )
    );
    let (code, _, err) = ilkit(&["cfg", &fx("gzclose.ptx"), "--function", "nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("no function named 'nope'"));
    let (code, _, err) = ilkit(&["cfg", &fx("gzclose.ptx"), "--format", "svg"]);
    assert_eq!(code, 2);
    assert!(err.contains("--format"), "{err}");
    let missing = dir.join("missing.ptx");
    let (code, _, err) = ilkit(&["cfg", missing.to_str().unwrap()]);
    assert_eq!(code, 1);
    // The OS error, not a made-up position.
    assert!(
        err.starts_with(&format!("{}: cannot read: ", missing.display())),
        "{err}"
    );
    assert!(!err.contains(":1:1:"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--format dot` is `opt -dot-cfg`'s shape: one digraph per function named after it,
/// source block names, T/F ports on conditional branches, back edges and loop headers
/// marked; it renders with graphviz where graphviz is installed.
#[test]
fn llvm_style_dot() {
    let ll = format!(
        "{}/tests/fixtures/llvm/cfg_small.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, out, err) = ilkit(&["cfg", &ll, "--format", "dot"]);
    assert_eq!(code, 0, "{err}");
    let graphs = out.matches("digraph \"CFG for '").count();
    let (_, json, _) = ilkit(&["cfg", &ll]);
    assert_eq!(graphs, json.lines().count(), "one digraph per function");
    assert!(out.contains("digraph \"CFG for 'ibr' function\""), "{out}");
    assert!(out.contains("label=\"{entry:"), "source block names: {out}");

    let ptx = fx("crc32_combine.ptx");
    let (code, out, err) = ilkit(&["cfg", &ptx, "--format", "dot", "--dot-instructions"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("|{<s0>T|<s1>F}}"), "T/F ports: {out}");
    assert!(out.contains("label=\"back\""), "a back edge: {out}");
    assert!(out.contains("style=bold"), "a loop header: {out}");
    assert!(out.contains("bra"), "instructions: {out}");

    let dir = std::env::temp_dir().join(format!("ilkit_cfg_dot_{}", std::process::id()));
    let (code, listed, err) = ilkit(&[
        "cfg",
        &ptx,
        "--format",
        "dot",
        "--out-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let files: Vec<&str> = listed.lines().collect();
    assert!(!files.is_empty());
    for f in &files {
        assert!(f.contains("cfg.") && f.ends_with(".dot"), "{f}");
        let text = std::fs::read_to_string(f).unwrap();
        assert_eq!(text.matches("digraph").count(), 1);
    }
    match Command::new("dot").arg("-V").output() {
        Ok(_) => {
            for f in &files {
                let o = Command::new("dot").args(["-Tsvg", f]).output().unwrap();
                assert!(
                    o.status.success(),
                    "{f}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                assert!(String::from_utf8_lossy(&o.stdout).contains("<svg"));
            }
        }
        Err(_) => eprintln!("skipped: rendering with graphviz (`dot` not installed)"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
