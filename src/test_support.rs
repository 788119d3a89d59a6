//! Helpers shared by unit tests: where the corpus of real inputs is, and how to read it.

use std::path::{Path, PathBuf};

/// The corpus directory: `$ILKIT_CORPUS` (a larger set laid out the same way) or the
/// repository's own `tests/corpus`.
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ILKIT_CORPUS") {
        return Some(PathBuf::from(p)).filter(|p| p.is_dir());
    }
    Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")).filter(|p| p.is_dir())
}

/// `rel` under the corpus, plain or gzipped (`rel.gz`), whichever exists.
pub(crate) fn corpus_file(rel: &str) -> Option<PathBuf> {
    let dir = corpus_dir()?;
    [dir.join(rel), dir.join(format!("{rel}.gz"))]
        .into_iter()
        .find(|p| p.is_file())
}

/// A corpus file's text, decompressed when it is gzipped (by its name: the corpus
/// names its gzipped files `*.gz`).
pub(crate) fn read(p: &Path) -> std::io::Result<String> {
    if p.extension().is_some_and(|e| e == "gz") {
        let mut s = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(p)?),
            &mut s,
        )?;
        return Ok(s);
    }
    std::fs::read_to_string(p)
}

/// The answer `EXT` beside a module `x.ll` (or `x.ll.gz`): `x.EXT` or `x.EXT.gz`.
pub(crate) fn sibling(ll: &Path, ext: &str) -> PathBuf {
    let s = ll.to_string_lossy();
    let s = s.strip_suffix(".gz").unwrap_or(&s);
    let plain = format!("{}.{ext}", s.strip_suffix(".ll").unwrap_or(s));
    let gz = PathBuf::from(format!("{plain}.gz"));
    if gz.exists() {
        gz
    } else {
        PathBuf::from(plain)
    }
}

/// Every corpus `.ll` / `.ll.gz` file (sorted), or None when the corpus is absent.
pub(crate) fn corpus_ll_files() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir()?;
    let mut out = Vec::new();
    let mut stack = vec![dir.join("llvm")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let n = p.to_string_lossy();
            if p.is_dir() {
                stack.push(p);
            } else if n.ends_with(".ll") || n.ends_with(".ll.gz") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}
