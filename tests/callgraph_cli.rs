//! `ilkit callgraph` end to end.

use std::process::Command;

fn ilkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ilkit"))
}

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/llvm/lcg_small.ll"
);

#[test]
fn json_format() {
    let out = ilkit()
        .args(["callgraph", FIXTURE, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = serde_json::json!({"refsccs": [
        {"sccs": [["rec_a", "rec_b"]]},
        {"sccs": [["leaf"]]},
        {"sccs": [["main"]]},
        {"sccs": [["aliased"]]},
        {"sccs": [["from_init"]]},
    ]});
    assert_eq!(v, want);
}

#[test]
fn text_format_matches_opt() {
    let out = ilkit()
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/llvm"))
        .args(["callgraph", "lcg_small.ll"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let want = include_str!("fixtures/llvm/lcg_small.lcg.txt");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

#[test]
fn dot_format() {
    let out = ilkit()
        .args(["callgraph", FIXTURE, "--format", "dot-lcg"])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with("digraph \""));
    assert!(
        s.contains("  \"main\" -> \"leaf\" [style=dashed,label=\"ref\"];"),
        "{s}"
    );
    assert!(s.contains("  \"main\" -> \"rec_a\";"), "{s}");
}

/// `--format dot` draws RefSCCs and SCCs as nested clusters, one per RefSCC of
/// `print-lcg`, and renders where graphviz is installed.
#[test]
fn dot_clusters() {
    let out = ilkit()
        .args(["callgraph", FIXTURE, "--format", "dot"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = ilkit().args(["callgraph", FIXTURE]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert_eq!(
        s.matches("subgraph cluster_refscc").count(),
        text.matches("RefSCC with").count()
    );
    assert_eq!(
        s.matches("subgraph cluster_scc").count(),
        text.matches("    SCC with").count()
    );
    match std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(mut child) => {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        Err(_) => eprintln!("skipped: rendering with graphviz (`dot` not installed)"),
    }
}

#[test]
fn parse_error_is_file_line_col_and_exit_1() {
    let dir = std::env::temp_dir().join(format!("ilkit-cg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ll");
    std::fs::write(&bad, "define void @f() {\n  br label %nowhere\n}\n").unwrap();
    let out = ilkit()
        .args(["callgraph", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!("{}:2:12: ", bad.display())),
        "{err}"
    );
    let out = ilkit().args(["callgraph"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
