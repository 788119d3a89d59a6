//! The corpus scan behind `ilkit scan`, as a library: files are dispatched by content —
//! LLVM IR text, PTX, ilkit binary IL, a clang JSON AST or a generated translation unit —
//! imported, run through the systems of their stage, and summarized as one
//! [`FileRecord`] each.
//!
//! ```
//! use ilkit::scan::{default_inputs, scan, NoProgress, ScanOptions};
//! let records = scan(&default_inputs(), &ScanOptions::default(), &NoProgress);
//! assert!(records.iter().all(|r| r.error.is_none()));
//! ```
//!
//! Files run in parallel with rayon (largest first); results come back in input order, so
//! the report is deterministic whatever the number of jobs. A file that fails to import is
//! reported with its error and the scan goes on. Nothing here prints: progress goes to a
//! [`Progress`] the caller implements (the CLI draws a bar by bytes).
//!
//! Files: `stages` (the work per format), `report` (the summary table and the JSON Lines
//! record schema that `ilkit merge` reads back).

mod report;
mod stages;

pub use report::{
    merge, parse_line, record_json, shard_json, summary, totals, Line, Merged, ShardInfo, WallTime,
    COUNTERS, RECORD_SCHEMA, SHARD_SCHEMA,
};
pub use stages::scan_one;

use std::path::{Path, PathBuf};

/// One input of a scan.
#[derive(Clone, Debug)]
pub enum Input {
    /// A file on disk.
    File(PathBuf),
    /// A file compiled into the binary (the embedded default corpus).
    Embedded {
        /// Display name.
        name: &'static str,
        /// Contents.
        text: &'static str,
    },
    /// A gzipped clang JSON AST compiled into the binary.
    EmbeddedClangJson {
        /// Display name.
        name: &'static str,
        /// The gzipped JSON.
        gz: &'static [u8],
    },
    /// A generated translation unit.
    Generated {
        /// Generator seed.
        seed: u64,
        /// Generator scale (1.0 ≈ 10^5 entries).
        scale: f64,
    },
}

impl Input {
    /// Expected work, for scheduling: bytes on disk or embedded, a generated TU's scale.
    pub fn size_hint(&self) -> u64 {
        match self {
            Input::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Input::Embedded { text, .. } => text.len() as u64,
            Input::EmbeddedClangJson { gz, .. } => 10 * gz.len() as u64,
            Input::Generated { scale, .. } => (scale * 8e6) as u64,
        }
    }

    /// The name reports use.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Embedded { name, .. } | Input::EmbeddedClangJson { name, .. } => {
                format!("<embedded>/{name}")
            }
            Input::Generated { seed, scale } => format!("<generated seed={seed} scale={scale}>"),
        }
    }
}

/// What a scan found in one file. Counts a stage does not produce stay zero.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileRecord {
    /// File name.
    pub name: String,
    /// What the file was read as: `ll`, `ptx`, `il` (generated), or `unknown`.
    pub kind: &'static str,
    /// Bytes of input (for generated IL: bytes of ilkit's layout).
    pub bytes: u64,
    /// Functions (CFGs) analysed.
    pub functions: u64,
    /// Blocks over all CFGs.
    pub blocks: u64,
    /// CFG edges over all CFGs.
    pub edges: u64,
    /// Blocks unreachable from their entry.
    pub unreachable: u64,
    /// Natural loops.
    pub loops: u64,
    /// Deepest loop nesting.
    pub deepest_loop: u64,
    /// Functions with an irreducible cycle.
    pub irreducible_functions: u64,
    /// Call-graph nodes (defined functions).
    pub cg_nodes: u64,
    /// Call SCCs.
    pub sccs: u64,
    /// Size of the largest call SCC.
    pub largest_scc: u64,
    /// RefSCCs.
    pub refsccs: u64,
    /// SCC visits of the default CGSCC pipeline.
    pub cgscc_visits: u64,
    /// Call sites the default pipeline inlined.
    pub cgscc_inlined: u64,
    /// Call edges between defined functions before / after the default pipeline.
    pub call_edges_before: u64,
    /// Call edges left after the default pipeline.
    pub call_edges_after: u64,
    /// 1 when a cap stopped the default pipeline early (the inliner's caps, the memory
    /// cap); the cap is named in the file's notes.
    pub cgscc_capped: u64,
    /// The default pipeline's work, in the rows its decisions read
    /// ([`crate::cgscc::schedule`]).
    pub cgscc_work: u64,
    /// The heaviest chain of RefSCCs through the module's RefSCC DAG, in the same unit
    /// (work / span bounds what a parallel walk could gain).
    pub cgscc_span: u64,
    /// IL entries.
    pub il_entries: u64,
    /// IL entries marked keep_in_il.
    pub il_kept: u64,
    /// IL constants offered to constant sharing.
    pub il_constants: u64,
    /// Of those, the ones that found an equal canonical constant.
    pub il_constants_shared: u64,
    /// Call SCCs by size: bucket `k` counts SCCs of `2^k ..= 2^(k+1) - 1` nodes (the last
    /// bucket everything larger).
    pub scc_sizes: Histogram,
    /// Natural loops by nesting depth: bucket `k` counts loops of depth `k + 1` (the last
    /// bucket everything deeper).
    pub loop_depths: Histogram,
    /// Wall time for this file, seconds.
    pub seconds: f64,
    /// The import or analysis error, if any.
    pub error: Option<String>,
    /// What the scan wants said about the file besides an error (a cap it hit).
    pub notes: Vec<String>,
}

/// A small fixed histogram (8 buckets) of a file's SCC sizes or loop depths.
pub type Histogram = [u64; 8];

/// The bucket of an SCC of `size` nodes in [`FileRecord::scc_sizes`].
pub fn scc_size_bucket(size: usize) -> usize {
    (usize::BITS - 1 - size.max(1).leading_zeros()).min(7) as usize
}

/// The bucket of a loop of nesting `depth` (1 = outermost) in [`FileRecord::loop_depths`].
pub fn loop_depth_bucket(depth: u32) -> usize {
    (depth.max(1) as usize - 1).min(7)
}

/// What the scan says of a file that is none of the formats it reads.
pub const NOT_AN_INPUT: &str =
    "not an input ilkit reads (expected LLVM IR, PTX, ilkit binary IL or a clang JSON AST)";

/// The embedded `.ll` and `.ptx` samples of the default corpus: (name, text).
const EMBEDDED_SAMPLES: [(&str, &str); 4] = [
    (
        "recursion.ll",
        include_str!("../../data/default/recursion.ll"),
    ),
    (
        "compress.nvptx.O2.ll",
        include_str!("../../data/default/compress.nvptx.O2.ll"),
    ),
    (
        "compress.ptx",
        include_str!("../../data/default/compress.ptx"),
    ),
    (
        "adler32.ptx",
        include_str!("../../data/default/adler32.ptx"),
    ),
];

/// The embedded default corpus: generated translation units plus small `.ll` and `.ptx`
/// samples compiled into the binary.
pub fn default_inputs() -> Vec<Input> {
    // Four mid-sized translation units (≈ 3.5·10^4 entries each) rather than one big one,
    // so the default scan spreads over the cores like a real corpus.
    let generated = (1..=4).map(|seed| Input::Generated { seed, scale: 0.35 });
    let samples = EMBEDDED_SAMPLES
        .iter()
        .map(|&(name, text)| Input::Embedded { name, text });
    generated
        .chain(samples)
        .chain([Input::EmbeddedClangJson {
            name: "kernels.json.gz",
            gz: include_bytes!("../../tests/fixtures/clang/kernels.json.gz"),
        }])
        .collect()
}

/// The inputs a set of paths names, and what was left out on the way.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    /// Every real file once, in a deterministic order (folders sorted).
    pub inputs: Vec<Input>,
    /// Files met again under another path: `(path met, path taken first)`.
    pub duplicates: Vec<(PathBuf, PathBuf)>,
    /// Folders entered again through a symbolic link (loops cut there).
    pub loops: Vec<PathBuf>,
    /// Files of a folder walk left out because their first bytes are no input (a `.json`
    /// that is not a clang AST, such as `compile_commands.json`): `(path, why)`.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Expands paths: files as they are, folders recursively (sorted, so the list is
/// deterministic), keeping files whose names end in `.ll`, `.ptx` (either also `.gz`),
/// `.il`, `.json` or `.json.gz`. In a folder, a file whose name does not say its format
/// (`.il`, `.json`) is kept only when its first bytes are an input
/// ([`crate::import::Detected::of_file`]); the others are listed in
/// [`Collected::skipped`]. A file named in `paths` is always kept (scanning it fails if
/// it is no input). Each real file is taken once (by canonical path): a file reached again
/// through another path or a symbolic link is reported in [`Collected::duplicates`], and
/// a folder reached again (a symlink loop) is not entered twice. A path that cannot be
/// resolved stays an input, so scanning it fails with the OS error.
pub fn collect_inputs(paths: &[PathBuf]) -> Collected {
    let mut c = Collected::default();
    let mut seen_files: ahash::AHashMap<PathBuf, PathBuf> = ahash::AHashMap::new();
    let mut seen_dirs: ahash::AHashSet<PathBuf> = ahash::AHashSet::new();
    let mut take = |c: &mut Collected, p: PathBuf| match std::fs::canonicalize(&p) {
        Ok(canon) => {
            if let Some(first) = seen_files.get(&canon) {
                c.duplicates.push((p, first.clone()));
            } else {
                seen_files.insert(canon, p.clone());
                c.inputs.push(Input::File(p));
            }
        }
        Err(_) => c.inputs.push(Input::File(p)),
    };
    for p in paths {
        if p.as_os_str() == "-" {
            c.inputs.push(Input::File(p.clone()));
            continue;
        }
        if !p.is_dir() {
            take(&mut c, p.clone());
            continue;
        }
        let mut stack = vec![p.clone()];
        let mut files = Vec::new();
        while let Some(d) = stack.pop() {
            if let Ok(canon) = std::fs::canonicalize(&d) {
                if !seen_dirs.insert(canon) {
                    c.loops.push(d);
                    continue;
                }
            }
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            let mut subdirs = Vec::new();
            for ent in rd.flatten() {
                let path = ent.path();
                if path.is_dir() {
                    subdirs.push(path);
                } else if has_scannable_ext(&path) {
                    files.push(path);
                }
            }
            subdirs.sort();
            stack.extend(subdirs.into_iter().rev());
        }
        files.sort();
        for f in files {
            match walked_file_verdict(&f) {
                None => take(&mut c, f),
                Some(why) => c.skipped.push((f, why)),
            }
        }
    }
    c
}

/// Whether a file name ends in an extension the scan reads.
pub fn has_scannable_ext(p: &Path) -> bool {
    let n = p.to_string_lossy();
    [
        ".ll", ".ptx", ".ll.gz", ".ptx.gz", ".il", ".json", ".json.gz",
    ]
    .iter()
    .any(|e| n.ends_with(e))
}

/// Why a file met in a folder walk is left out, or `None` to scan it. Names that say a
/// text format (`.ll`, `.ptx`) are scanned without a look (a damaged one then fails with
/// its parse error); the others are kept when their first bytes are an input.
fn walked_file_verdict(p: &Path) -> Option<String> {
    let n = p.to_string_lossy();
    let n = n.strip_suffix(".gz").unwrap_or(&n);
    if n.ends_with(".ll") || n.ends_with(".ptx") {
        return None;
    }
    match crate::import::Detected::of_file(p) {
        Ok(d) if d.format.is_some() => None,
        Ok(_) if n.ends_with(".json") => Some(
            "skipped: not a clang JSON AST (no top-level \"kind\": \"TranslationUnitDecl\" \
             in its first bytes)"
                .to_string(),
        ),
        Ok(_) => Some(format!("skipped: {NOT_AN_INPUT}")),
        // Unreadable: scan it, so the OS error is reported as the file's failure.
        Err(_) => None,
    }
}

/// Keeps the `i`-th of `n` deterministic shards of `inputs` (round robin by position).
pub fn shard(inputs: Vec<Input>, i: usize, n: usize) -> Vec<Input> {
    inputs
        .into_iter()
        .enumerate()
        .filter(|(k, _)| n == 0 || k % n == i)
        .map(|(_, x)| x)
        .collect()
}

/// Which shard this process is, from a batch system's job-array environment
/// (`--shard auto`); `env` looks a variable up (`std::env::var` in the CLI).
///
/// - Slurm job arrays: `SLURM_ARRAY_TASK_ID`, with `SLURM_ARRAY_TASK_MIN` and
///   `SLURM_ARRAY_TASK_MAX` (index = id − min, count = max − min + 1), or with
///   `SLURM_ARRAY_TASK_COUNT` (min taken as 0 when not set).
/// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX`, with the completion count from
///   `count` (`--shard-count`) or `ILKIT_SHARD_COUNT` (Kubernetes does not export it).
///
/// # Errors
/// Which variable is missing or malformed, or an index outside the count.
pub fn shard_from_env(
    env: impl Fn(&str) -> Option<String>,
    count: Option<usize>,
) -> Result<(usize, usize), String> {
    let num = |k: &str| -> Result<Option<usize>, String> {
        match env(k) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| format!("{k}={v:?} is not a whole number")),
        }
    };
    let (index, count) = if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
        let min = num("SLURM_ARRAY_TASK_MIN")?;
        match (
            min,
            num("SLURM_ARRAY_TASK_MAX")?,
            num("SLURM_ARRAY_TASK_COUNT")?,
        ) {
            (Some(min), Some(max), _) if max >= min && id >= min => (id - min, max - min + 1),
            (min, _, Some(n)) => (
                id.checked_sub(min.unwrap_or(0))
                    .ok_or("SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN")?,
                n,
            ),
            _ => {
                return Err(
                    "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MIN/MAX \
                            nor SLURM_ARRAY_TASK_COUNT is"
                        .into(),
                )
            }
        }
    } else if let Some(i) = num("JOB_COMPLETION_INDEX")? {
        let n = match count {
            Some(n) => n,
            None => num("ILKIT_SHARD_COUNT")?.ok_or(
                "JOB_COMPLETION_INDEX is set, but not the number of completions: pass \
                 --shard-count N or set ILKIT_SHARD_COUNT",
            )?,
        };
        (i, n)
    } else {
        return Err(
            "no job-array index in the environment (SLURM_ARRAY_TASK_ID or \
                    JOB_COMPLETION_INDEX); use --shard I/N"
                .into(),
        );
    };
    if index >= count {
        return Err(format!(
            "shard index {index} is not below the count {count}"
        ));
    }
    Ok((index, count))
}

/// Which analyses a scan runs (`--analyses cfg,callgraph,cgscc,il`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analyses {
    /// RPO, dominators and loops of every function (`.ll`, `.ptx`).
    pub cfg: bool,
    /// The lazy call graph's SCCs and RefSCCs (`.ll`).
    pub callgraph: bool,
    /// The default CGSCC pipeline: inliner and function-attrs (`.ll`).
    pub cgscc: bool,
    /// Device marking and constant sharing (IL, clang JSON).
    pub il: bool,
}

impl Default for Analyses {
    fn default() -> Self {
        Analyses {
            cfg: true,
            callgraph: true,
            cgscc: true,
            il: true,
        }
    }
}

impl std::str::FromStr for Analyses {
    type Err = String;

    /// A comma-separated list of `cfg`, `callgraph`, `cgscc`, `il` (or `all`).
    fn from_str(s: &str) -> Result<Analyses, String> {
        let mut a = Analyses {
            cfg: false,
            callgraph: false,
            cgscc: false,
            il: false,
        };
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "cfg" => a.cfg = true,
                "callgraph" => a.callgraph = true,
                "cgscc" => a.cgscc = true,
                "il" => a.il = true,
                "all" => a = Analyses::default(),
                other => {
                    return Err(format!(
                        "unknown analysis '{other}' (expected cfg, callgraph, cgscc, il or all)"
                    ))
                }
            }
        }
        Ok(a)
    }
}

/// The most workers a scan starts: more cores than machines have, and few enough
/// threads that a pool starts in a moment.
pub const MAX_JOBS: usize = 1024;

/// The workers `jobs` asks for: 0 is one per core, and more than [`MAX_JOBS`] is
/// [`MAX_JOBS`].
///
/// ```
/// use ilkit::scan::{workers, MAX_JOBS};
/// assert_eq!(workers(3), 3);
/// assert_eq!(workers(usize::MAX), MAX_JOBS);
/// assert!(workers(0) >= 1);
/// ```
pub fn workers(jobs: usize) -> usize {
    match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n.min(MAX_JOBS),
    }
}

/// How a scan runs.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// The analyses to run.
    pub analyses: Analyses,
    /// Cap on the bytes one file's CGSCC run may hold (see
    /// [`crate::cgscc::Options::max_memory`]); `None`: no cap.
    pub max_memory: Option<usize>,
    /// Worker threads, and files in flight at most (0: one per core; more than
    /// [`MAX_JOBS`] counts as [`MAX_JOBS`]).
    pub jobs: usize,
    /// Budget of input bytes ([`Input::size_hint`]) in flight: a file starts only when it
    /// fits beside the files already running (a file over the budget runs alone);
    /// `None`: no budget beyond `jobs` files.
    pub max_bytes_in_flight: Option<u64>,
}

/// Where a scan reports its progress. Called from the scan's worker threads; every method
/// has an empty default.
pub trait Progress: Sync {
    /// A file starts; `bytes` is its expected work ([`Input::size_hint`]).
    fn file_started(&self, _name: &str, _bytes: u64) {}
    /// `bytes` more of the expected work are done (a file reports its bytes as its stages
    /// finish, so one big file moves the total).
    fn advance(&self, _bytes: u64) {}
    /// A file is done.
    fn file_done(&self, _record: &FileRecord) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Scans every input; results are in input order.
///
/// `opts.jobs` scheduler threads take files largest first (longest-processing-time
/// scheduling: a big module started last would otherwise run alone at the end), each
/// admitted only within [`ScanOptions::max_bytes_in_flight`], and run them on a pool of
/// `opts.jobs` rayon workers, where a file's own parallel work (a large module's parse,
/// its functions' CFG analyses, its call graph beside its CFGs) shares the workers with
/// the other files in flight. So at most `jobs` files are open at once, and one big file
/// left at the end still gets every worker.
pub fn scan(inputs: &[Input], opts: &ScanOptions, progress: &dyn Progress) -> Vec<FileRecord> {
    use std::sync::{Condvar, Mutex, PoisonError};
    let jobs = workers(opts.jobs);
    let run = |i: usize| {
        progress.file_started(&inputs[i].name(), inputs[i].size_hint());
        let r = scan_one(&inputs[i], opts, progress);
        progress.file_done(&r);
        r
    };
    let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(jobs).build() else {
        // No threads to be had: scan on this one.
        return (0..inputs.len()).map(run).collect();
    };
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].size_hint()));
    let budget = opts.max_bytes_in_flight.unwrap_or(u64::MAX);
    // (next position in `order`, bytes in flight, files in flight)
    let state = Mutex::new((0usize, 0u64, 0usize));
    let freed = Condvar::new();
    let results: Mutex<Vec<Option<FileRecord>>> = Mutex::new(vec![None; inputs.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(inputs.len()) {
            s.spawn(|| loop {
                let (i, size) = {
                    let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
                    loop {
                        let Some(&i) = order.get(st.0) else { return };
                        let size = inputs[i].size_hint();
                        if st.2 == 0 || st.1.saturating_add(size) <= budget {
                            st.0 += 1;
                            st.1 += size;
                            st.2 += 1;
                            break (i, size);
                        }
                        st = freed.wait(st).unwrap_or_else(PoisonError::into_inner);
                    }
                };
                let r = pool.install(|| run(i));
                {
                    let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
                    st.1 -= size;
                    st.2 -= 1;
                }
                freed.notify_all();
                results.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_iter()
        .map(|r| r.unwrap_or_default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::shard_from_env;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn shard_from_slurm_and_kubernetes() {
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_MAX", "8"),
        ];
        assert_eq!(shard_from_env(env(&slurm), None), Ok((2, 4)));
        let count = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard_from_env(env(&count), None), Ok((3, 4)));
        let k8s = [("JOB_COMPLETION_INDEX", "1")];
        assert_eq!(shard_from_env(env(&k8s), Some(3)), Ok((1, 3)));
        let k8s_env = [("JOB_COMPLETION_INDEX", "2"), ("ILKIT_SHARD_COUNT", "3")];
        assert_eq!(shard_from_env(env(&k8s_env), None), Ok((2, 3)));
        let e = shard_from_env(env(&k8s), None).unwrap_err();
        assert!(e.contains("--shard-count"), "{e}");
        assert!(shard_from_env(env(&[]), None)
            .unwrap_err()
            .contains("--shard I/N"));
        let bad = [("SLURM_ARRAY_TASK_ID", "x")];
        assert!(shard_from_env(env(&bad), None)
            .unwrap_err()
            .contains("SLURM_ARRAY_TASK_ID"));
        let over = [("JOB_COMPLETION_INDEX", "3")];
        assert!(shard_from_env(env(&over), Some(3)).is_err());
    }
}
