//! The CLI's front door under hostile input: arbitrary bytes and damaged real files, under
//! any file name or on standard input (`-`), through `scan`, `cfg`, `callgraph`, `cgscc`
//! and `il`. Every run ends with exit 0 (the input was fine), 1 (it was not, with a
//! message) or 2 (a usage error); never a panic (101) or a signal.

use proptest::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const NAMES: [&str; 10] = [
    "in",
    "in.ll",
    "in.ptx",
    "in.json",
    "in.json.gz",
    "in.il",
    "in.ll.gz",
    "in.ptx.gz",
    "compile_commands.json",
    "naïve näme.ll",
];

const COMMANDS: [&[&str]; 7] = [
    &["scan"],
    &["cfg"],
    &["callgraph"],
    &[
        "cgscc",
        "--passes",
        "cgscc(devirt<2>(inline,function-attrs))",
    ],
    &["il", "stats"],
    &["il", "dump"],
    &["il", "verify"],
];

/// Real inputs to damage: LLVM IR, PTX and a clang JSON AST.
fn seeds() -> Vec<Vec<u8>> {
    let root = env!("CARGO_MANIFEST_DIR");
    let gz = std::fs::read(format!("{root}/tests/fixtures/clang/kernels.json.gz")).unwrap();
    let json = ilkit::import::format::gunzip_if_gzip(gz).unwrap();
    vec![
        include_bytes!("fixtures/llvm/lcg_small.ll").to_vec(),
        include_bytes!("fixtures/llvm/cfg_small.ll").to_vec(),
        // debug locations: `!dbg` on calls, scope and inlined-at chains
        include_bytes!("fixtures/debugloc/nested.ll").to_vec(),
        include_bytes!("../data/default/adler32.ptx").to_vec(),
        json[..json.len().min(24_000)].to_vec(),
        // a multi-byte character across byte 4096 of a file whose name says nothing
        {
            let mut s = b"; ".to_vec();
            s.extend(std::iter::repeat_n(b'a', 4093));
            s.extend("é\ndefine void @f() {\n  ret void\n}\n".as_bytes());
            s
        },
    ]
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// One input: a seed cut and flipped (or raw bytes), maybe gzipped.
#[derive(Debug, Clone)]
struct Case {
    command: usize,
    name: usize,
    stdin: bool,
    bytes: Vec<u8>,
}

fn case() -> impl Strategy<Value = Case> {
    let damaged = (
        0..6usize,
        any::<prop::sample::Index>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        any::<bool>(),
    )
        .prop_map(|(seed, cut, flips, gz)| {
            let s = &seeds()[seed];
            let mut b = s[..cut.index(s.len() + 1)].to_vec();
            for (at, v) in flips {
                if !b.is_empty() {
                    let i = at.index(b.len());
                    b[i] = v;
                }
            }
            if gz {
                gzip(&b)
            } else {
                b
            }
        });
    let raw = prop::collection::vec(any::<u8>(), 0..600);
    (
        0..COMMANDS.len(),
        0..NAMES.len(),
        any::<bool>(),
        prop_oneof![3 => damaged, 1 => raw],
    )
        .prop_map(|(command, name, stdin, bytes)| Case {
            command,
            name,
            stdin,
            bytes,
        })
}

fn run(c: &Case, dir: &std::path::Path) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ilkit"));
    cmd.args(COMMANDS[c.command]);
    let path = dir.join(NAMES[c.name]);
    if c.stdin {
        cmd.arg("-").stdin(Stdio::piped());
    } else {
        std::fs::write(&path, &c.bytes).unwrap();
        cmd.arg(&path).stdin(Stdio::null());
    }
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if c.stdin {
        let mut w = child.stdin.take().unwrap();
        // The tool may stop reading early (an error at the first bytes).
        let _ = w.write_all(&c.bytes);
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("ilkit-cli-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_entry_answers_with_an_exit_code(c in case()) {
        let dir = scratch();
        let (code, err) = run(&c, &dir);
        prop_assert!(
            matches!(code, Some(0..=2)),
            "{:?} on {} ({} bytes, stdin {}): exit {code:?}\n{err}",
            COMMANDS[c.command], NAMES[c.name], c.bytes.len(), c.stdin
        );
        prop_assert!(!err.contains("panicked"), "{err}");
        if code == Some(1) {
            prop_assert!(!err.trim().is_empty(), "exit 1 without a message");
        }
    }
}

/// The file that made `scan` panic: a multi-byte character across byte 4096 of a file
/// whose extension does not name its format, through every entry.
#[test]
fn utf8_boundary_file_through_every_entry() {
    let dir = scratch();
    let bytes = seeds().pop().unwrap();
    for (command, args) in COMMANDS.iter().enumerate() {
        for stdin in [false, true] {
            let c = Case {
                command,
                name: 0,
                stdin,
                bytes: bytes.clone(),
            };
            let (code, err) = run(&c, &dir);
            assert!(matches!(code, Some(0..=1)), "{args:?}: {code:?} {err}");
        }
    }
}

/// A worker count no machine has is a usage error at once, not a process that spends
/// its time starting threads; the bound itself is accepted.
#[test]
fn worker_counts_past_the_bound_are_usage_errors() {
    let dir = scratch();
    let file = dir.join("bound.ll");
    std::fs::write(&file, include_bytes!("fixtures/llvm/lcg_small.ll")).unwrap();
    for command in ["scan", "cgscc"] {
        for (jobs, want) in [("100000", 2), ("1025", 2), ("-1", 2), ("many", 2), ("3", 0)] {
            let out = Command::new(env!("CARGO_BIN_EXE_ilkit"))
                .args([command, &format!("--jobs={jobs}")])
                .arg(&file)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(want),
                "{command} --jobs {jobs}: {err}"
            );
            if want == 2 {
                assert!(err.contains("--jobs"), "{command} --jobs {jobs}: {err}");
            }
        }
    }
}
