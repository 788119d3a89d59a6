//! Helpers shared by unit tests: where the shared corpus is.

use std::path::PathBuf;

/// The shared corpus directory, if present (`$ILKIT_CORPUS`, `../shared/corpus` or
/// `../../shared/corpus` relative to the crate root).
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ILKIT_CORPUS") {
        return Some(PathBuf::from(p)).filter(|p| p.is_dir());
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("../shared/corpus"),
        root.join("../../shared/corpus"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// Every corpus `.ll` file (sorted), or None when the corpus is absent.
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
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}
