//! The command line's front door: help and version, exit codes, usage errors that name
//! the flag, and `-` as standard input.

mod common;

fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let out = common::run_ilkit(args, stdin);
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

const KERNELS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/clang/kernels.json.gz"
);

/// `il keep --eliminate` frees what is not kept from the world itself and writes the
/// same device IL as without it; it says what went.
#[test]
fn il_keep_eliminate_writes_the_same_device_il() {
    let dir = std::env::temp_dir().join(format!("ilkit-elim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.il"), dir.join("b.il"));
    let (code, _, err) = run(&["il", "keep", KERNELS, "-o", a.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(
        &[
            "il",
            "keep",
            KERNELS,
            "-o",
            b.to_str().unwrap(),
            "--eliminate",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("eliminated: ") && out.contains("entries freed"),
        "{out}"
    );
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

/// `il dump --routine NAME` walks one routine's body as `walk_routine_scope_il` does:
/// only function-region entries; a name without a body is an input error.
#[test]
fn il_dump_routine_walks_one_body() {
    let (code, out, err) = run(&["il", "dump", KERNELS, "--routine", "fill"], None);
    assert_eq!(code, 0, "{err}");
    let entries: Vec<&str> = out.lines().filter(|l| l.starts_with("[#")).collect();
    assert!(entries.len() > 10, "{out}");
    assert!(
        entries[0].contains("scope (function region)"),
        "{}",
        entries[0]
    );
    assert!(
        entries.iter().all(|l| l.contains("(function region)")),
        "{out}"
    );
    let (code, _, err) = run(
        &["il", "dump", KERNELS, "--routine", "no_such_routine"],
        None,
    );
    assert_eq!(code, 1);
    assert!(err.contains("no routine named 'no_such_routine'"), "{err}");
}
