//! The command line's front door: help and version, exit codes, usage errors that name
//! the flag, and `-` as standard input.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ilkit"));
    c.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(data) = stdin {
        child.stdin.take().unwrap().write_all(data).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const LL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/llvm/lcg_small.ll"
);

#[test]
fn help_and_version_exit_zero() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["il", "keep", "--help"],
        &["merge", "--help"],
        &["scan", "--help"],
        &["cgscc", "--help"],
        &["cfg", "--help"],
        &["callgraph", "--help"],
        &["il", "--help"],
    ] {
        let (code, out, err) = run(args, None);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}");
    }
    let (_, out, _) = run(&["--version"], None);
    assert!(out.starts_with("ilkit "), "{out}");
    // every cgscc knob is described
    let (_, out, _) = run(&["cgscc", "--help"], None);
    for knob in [
        "--inline-budget",
        "--inline-threshold",
        "--nv-inline-all",
        "--aggressive-inline",
        "--intra-scc-cost-multiplier",
        "--function-inline-cost-multiplier",
        "--abort-on-max-devirt-iterations-reached",
        "--cgscc-inline-replay",
        "--no-delete-dead",
    ] {
        assert!(out.contains(knob), "{knob} missing from cgscc --help");
    }
}

#[test]
fn usage_errors_exit_two_and_name_the_flag() {
    let (code, _, err) = run(&["cfg", LL, "--format", "svg"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--format"), "{err}");
    let (code, _, err) = run(&["scan", "--shard", "4/4"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--shard"), "{err}");
    let (code, _, err) = run(&["cgscc", LL, "--passes", "cgscc(nope)"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--passes"), "{err}");
    let (code, _, _) = run(&["frobnicate"], None);
    assert_eq!(code, 2);
    let (code, _, _) = run(&[], None);
    assert_eq!(code, 2);
}

#[test]
fn dash_reads_stdin() {
    let text = std::fs::read(LL).unwrap();
    let (code, from_stdin, err) = run(&["callgraph", "-"], Some(&text));
    assert_eq!(code, 0, "{err}");
    let (_, from_file, _) = run(&["callgraph", LL], None);
    // The module id line names the input; the rest is the same.
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&from_stdin), body(&from_file));
    let (code, out, err) = run(&["cfg", "-", "--format", "edges"], Some(&text));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("->"), "{out}");
}

#[test]
fn missing_input_names_the_os_error() {
    let (code, _, err) = run(&["callgraph", "/nonexistent/x.ll"], None);
    assert_eq!(code, 1);
    assert!(err.starts_with("/nonexistent/x.ll: cannot read: "), "{err}");
    assert!(!err.contains(":1:1"), "{err}");
}
