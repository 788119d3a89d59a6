//! The summary table over records, and the JSON Lines a scan writes (`--json`) and
//! `ilkit merge` reads back.
//!
//! # JSON Lines schema (version 1)
//! One object per line:
//! - a file record: `{"schema": "ilkit-scan-record/1", "file": ..., "kind": ...,
//!   <counters>, "seconds": ..., "error": null | "..."}` with every counter of
//!   [`COUNTERS`] present as a non-negative integer and every histogram of [`HISTOGRAMS`]
//!   as an array of 8 of them;
//! - the shard trailer, last: `{"schema": "ilkit-scan-shard/1", "shard": [i, n] | null,
//!   "files": k, "wall_seconds": w, "duplicates": [[path, first], ...], "loops": [...],
//!   "skipped": [[path, why], ...]}` (`skipped` may be absent in older scans' trailers).
//!
//! `merge` refuses a line that is not one of these (naming file and line), a file record
//! seen twice, and reports the shards' wall times as measured (slowest shard, and their
//! sum), never a sum of per-file seconds dressed up as wall time.

use super::FileRecord;

/// The `schema` of a file record line.
pub const RECORD_SCHEMA: &str = "ilkit-scan-record/1";
/// The `schema` of a shard trailer line.
pub const SHARD_SCHEMA: &str = "ilkit-scan-shard/1";

/// How a counter combines over files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Totals add up.
    Sum,
    /// The total is the largest value.
    Max,
}

/// A counter field of [`FileRecord`]: its JSON name, how to read and write it, how it
/// combines. The one list the JSON writer, the reader and the totals use.
type Counter = (
    &'static str,
    fn(&FileRecord) -> u64,
    fn(&mut FileRecord) -> &mut u64,
    Combine,
);

macro_rules! counters {
    ($($field:ident: $how:ident),* $(,)?) => {
        /// Every counter of a [`FileRecord`], in JSON order.
        pub const COUNTERS: &[Counter] = &[
            $((stringify!($field), |r| r.$field, |r| &mut r.$field, Combine::$how)),*
        ];
    };
}

counters! {
    bytes: Sum, functions: Sum, blocks: Sum, edges: Sum, unreachable: Sum, loops: Sum,
    deepest_loop: Max, irreducible_functions: Sum, cgscc_visits: Sum, cgscc_inlined: Sum,
    call_edges_before: Sum, call_edges_after: Sum, cgscc_capped: Sum, cgscc_work: Sum,
    cgscc_span: Max, cg_nodes: Sum, sccs: Sum,
    largest_scc: Max, refsccs: Sum, il_entries: Sum, il_kept: Sum, il_constants: Sum,
    il_constants_shared: Sum,
}

/// The histogram fields of a [`FileRecord`]: JSON name and field.
type HistogramField = (
    &'static str,
    fn(&FileRecord) -> &super::Histogram,
    fn(&mut FileRecord) -> &mut super::Histogram,
);

/// Every histogram of a [`FileRecord`], in JSON order (arrays of 8 counts; they add up).
pub const HISTOGRAMS: &[HistogramField] = &[
    ("scc_sizes", |r| &r.scc_sizes, |r| &mut r.scc_sizes),
    ("loop_depths", |r| &r.loop_depths, |r| &mut r.loop_depths),
];

/// The file kinds a record may carry.
const KINDS: [&str; 5] = ["ll", "ptx", "il", "json", "unknown"];

/// Wall time of a scan, or of the shards a merge combines.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallTime {
    /// Shards measured (1 for a plain scan).
    pub shards: usize,
    /// The slowest shard's wall time, seconds.
    pub max: f64,
    /// The shards' wall times added up, seconds (machine time spent).
    pub sum: f64,
}

impl WallTime {
    /// One scan that took `seconds`.
    pub fn single(seconds: f64) -> WallTime {
        WallTime {
            shards: 1,
            max: seconds,
            sum: seconds,
        }
    }
}

/// Totals over records (each counter combined as its table row says: summed, maximum, ...).
pub fn totals(records: &[FileRecord]) -> FileRecord {
    let mut t = FileRecord::default();
    for r in records {
        for &(_, get, field, how) in COUNTERS {
            let v = field(&mut t);
            *v = match how {
                Combine::Sum => *v + get(r),
                Combine::Max => (*v).max(get(r)),
            };
        }
        for &(_, get, field) in HISTOGRAMS {
            for (a, b) in field(&mut t).iter_mut().zip(get(r)) {
                *a += b;
            }
        }
    }
    t
}

/// The summary table over all records.
pub fn summary(records: &[FileRecord], wall: &WallTime) -> String {
    let t = totals(records);
    let failed = records.iter().filter(|r| r.error.is_some()).count();
    let kinds = |k: &str| records.iter().filter(|r| r.kind == k).count();
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let mut s = String::new();
    let mut row = |k: &str, v: String| s.push_str(&format!("  {k:<28}{v:>16}\n"));
    row("files", format!("{}", records.len()));
    row(
        "  .ll / .ptx / IL / JSON",
        format!(
            "{} / {} / {} / {}",
            kinds("ll"),
            kinds("ptx"),
            kinds("il"),
            kinds("json")
        ),
    );
    row("  failed", format!("{failed}"));
    row("functions (CFGs)", t.functions.to_string());
    row("blocks", t.blocks.to_string());
    row("edges", t.edges.to_string());
    row("unreachable blocks", t.unreachable.to_string());
    row("loops", t.loops.to_string());
    row("deepest loop", t.deepest_loop.to_string());
    row("irreducible functions", t.irreducible_functions.to_string());
    row("call-graph nodes", t.cg_nodes.to_string());
    row("call SCCs", t.sccs.to_string());
    row("largest SCC", t.largest_scc.to_string());
    row("RefSCCs", t.refsccs.to_string());
    row("CGSCC visits (default)", t.cgscc_visits.to_string());
    row("call sites inlined", t.cgscc_inlined.to_string());
    row("CGSCC runs capped", t.cgscc_capped.to_string());
    row(
        "call edges before/after",
        format!("{} / {}", t.call_edges_before, t.call_edges_after),
    );
    row("IL entries", t.il_entries.to_string());
    row(
        "IL kept (keep_in_il)",
        format!("{:.1}%", pct(t.il_kept, t.il_entries)),
    );
    row(
        "constants shared",
        format!("{:.1}%", pct(t.il_constants_shared, t.il_constants)),
    );
    if wall.shards <= 1 {
        row("wall time", format!("{:.3} s", wall.max));
    } else {
        row("shards", format!("{}", wall.shards));
        row("wall time, slowest shard", format!("{:.3} s", wall.max));
        row("wall time, shards summed", format!("{:.3} s", wall.sum));
    }
    row(
        "throughput",
        format!("{:.1} MB/s", t.bytes as f64 / 1e6 / wall.max.max(1e-9)),
    );
    s
}

/// One JSON object per record (a JSON Lines line, without the newline).
pub fn record_json(r: &FileRecord) -> String {
    let mut m = serde_json::Map::new();
    m.insert("schema".into(), RECORD_SCHEMA.into());
    m.insert("file".into(), r.name.clone().into());
    m.insert("kind".into(), r.kind.into());
    for &(name, get, _, _) in COUNTERS {
        m.insert(name.into(), get(r).into());
    }
    for &(name, get, _) in HISTOGRAMS {
        m.insert(name.into(), get(r).to_vec().into());
    }
    m.insert("seconds".into(), r.seconds.into());
    m.insert("error".into(), r.error.clone().into());
    m.insert("notes".into(), r.notes.clone().into());
    serde_json::Value::Object(m).to_string()
}

/// What a scan (or one shard of it) adds after its records: the shard trailer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardInfo {
    /// `(index, count)` when the scan was one shard of several.
    pub shard: Option<(usize, usize)>,
    /// Files scanned.
    pub files: usize,
    /// The scan's wall time, seconds.
    pub wall_seconds: f64,
    /// Files met twice: `(path met, path taken first)`.
    pub duplicates: Vec<(String, String)>,
    /// Folders not entered again (symlink loops).
    pub loops: Vec<String>,
    /// Files of a folder walk left out as no input: `(path, why)`.
    pub skipped: Vec<(String, String)>,
}

/// The shard trailer line.
pub fn shard_json(s: &ShardInfo) -> String {
    serde_json::json!({
        "schema": SHARD_SCHEMA,
        "shard": s.shard.map(|(i, n)| vec![i, n]),
        "files": s.files,
        "wall_seconds": s.wall_seconds,
        "duplicates": s.duplicates,
        "loops": s.loops,
        "skipped": s.skipped,
    })
    .to_string()
}

/// One parsed line of a scan's JSON Lines.
// Records are read one line at a time and consumed at once; boxing the large variant
// would only add an allocation per line.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// A file record.
    Record(Box<FileRecord>),
    /// A shard trailer.
    Shard(ShardInfo),
}

/// Parses one line of a scan's JSON Lines, checking it against the schema. The error
/// says what is wrong (a JSON syntax error with its column, an unknown schema, a missing
/// or mistyped field).
pub fn parse_line(line: &str) -> Result<Line, String> {
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("column {}: {e}", e.column()))?;
    let obj = v
        .as_object()
        .ok_or("not an ilkit scan line: expected a JSON object")?;
    let schema = obj.get("schema").and_then(|s| s.as_str()).ok_or(
        "not an ilkit scan line: no \"schema\" (expected ilkit-scan-record/1 or ilkit-scan-shard/1)",
    )?;
    let uint = |k: &str| -> Result<u64, String> {
        obj.get(k)
            .and_then(|x| x.as_u64())
            .ok_or_else(|| format!("field \"{k}\": expected a non-negative integer"))
    };
    let float = |k: &str| -> Result<f64, String> {
        obj.get(k)
            .and_then(|x| x.as_f64())
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| format!("field \"{k}\": expected a non-negative number"))
    };
    let string = |k: &str| -> Result<String, String> {
        obj.get(k)
            .and_then(|x| x.as_str())
            .map(str::to_string)
            .ok_or_else(|| format!("field \"{k}\": expected a string"))
    };
    match schema {
        RECORD_SCHEMA => {
            let kind_text = string("kind")?;
            let kind = KINDS
                .iter()
                .copied()
                .find(|&k| k == kind_text)
                .ok_or_else(|| format!("field \"kind\": unknown file kind '{kind_text}'"))?;
            let mut r = FileRecord {
                name: string("file")?,
                kind,
                seconds: float("seconds")?,
                error: match obj.get("error") {
                    Some(serde_json::Value::Null) => None,
                    Some(serde_json::Value::String(s)) => Some(s.clone()),
                    _ => return Err("field \"error\": expected null or a string".into()),
                },
                ..FileRecord::default()
            };
            for &(name, _, field, _) in COUNTERS {
                *field(&mut r) = uint(name)?;
            }
            r.notes = obj
                .get("notes")
                .and_then(|x| x.as_array())
                .and_then(|a| a.iter().map(|n| n.as_str().map(str::to_string)).collect())
                .ok_or("field \"notes\": expected a list of strings")?;
            for &(name, _, field) in HISTOGRAMS {
                let bad = || format!("field \"{name}\": expected 8 non-negative integers");
                let a = obj.get(name).and_then(|x| x.as_array()).ok_or_else(bad)?;
                if a.len() != 8 {
                    return Err(bad());
                }
                for (slot, x) in field(&mut r).iter_mut().zip(a) {
                    *slot = x.as_u64().ok_or_else(bad)?;
                }
            }
            Ok(Line::Record(Box::new(r)))
        }
        SHARD_SCHEMA => {
            let shard = match obj.get("shard") {
                Some(serde_json::Value::Null) => None,
                Some(serde_json::Value::Array(a)) if a.len() == 2 => {
                    match (a[0].as_u64(), a[1].as_u64()) {
                        (Some(i), Some(n)) if i < n => Some((i as usize, n as usize)),
                        _ => return Err("field \"shard\": expected [index, count]".into()),
                    }
                }
                _ => return Err("field \"shard\": expected null or [index, count]".into()),
            };
            let pairs = |k: &str| -> Result<Vec<(String, String)>, String> {
                let bad = || format!("field \"{k}\": expected a list of [path, path]");
                obj.get(k)
                    .and_then(|x| x.as_array())
                    .ok_or_else(bad)?
                    .iter()
                    .map(|p| match p.as_array().map(Vec::as_slice) {
                        Some([a, b]) => Ok((
                            a.as_str().ok_or_else(bad)?.to_string(),
                            b.as_str().ok_or_else(bad)?.to_string(),
                        )),
                        _ => Err(bad()),
                    })
                    .collect()
            };
            let loops = obj
                .get("loops")
                .and_then(|x| x.as_array())
                .ok_or("field \"loops\": expected a list of paths")?
                .iter()
                .map(|p| p.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or("field \"loops\": expected a list of paths")?;
            Ok(Line::Shard(ShardInfo {
                shard,
                files: uint("files")? as usize,
                wall_seconds: float("wall_seconds")?,
                duplicates: pairs("duplicates")?,
                loops,
                skipped: if obj.contains_key("skipped") {
                    pairs("skipped")?
                } else {
                    Vec::new()
                },
            }))
        }
        other => Err(format!(
            "not an ilkit scan line: unknown schema '{other}' (this build reads {RECORD_SCHEMA} and {SHARD_SCHEMA})"
        )),
    }
}

/// What `merge` made of several scans' JSON Lines.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// Every file record, in input order.
    pub records: Vec<FileRecord>,
    /// The shard trailers, in input order.
    pub shards: Vec<ShardInfo>,
}

impl Merged {
    /// The shards' wall times (slowest and summed); `None` when no input had a trailer.
    pub fn wall(&self) -> Option<WallTime> {
        (!self.shards.is_empty()).then(|| WallTime {
            shards: self.shards.len(),
            max: self
                .shards
                .iter()
                .map(|s| s.wall_seconds)
                .fold(0.0, f64::max),
            sum: self.shards.iter().map(|s| s.wall_seconds).sum(),
        })
    }
}

/// Merges the JSON Lines of several scans: `(source name, text)` per input. Blank lines
/// are skipped.
///
/// # Errors
/// `source:line: what` for the first line that is not a scan line of this schema, and
/// for a file record seen twice (with where it was first).
pub fn merge<'a>(inputs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Merged, String> {
    let mut m = Merged::default();
    let mut seen: ahash::AHashMap<String, String> = ahash::AHashMap::new();
    for (src, text) in inputs {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{src}:{}", i + 1);
            match parse_line(line).map_err(|e| format!("{at}: {e}"))? {
                Line::Record(r) => {
                    let r = *r;
                    if let Some(first) = seen.get(&r.name) {
                        return Err(format!(
                            "{at}: a second record for '{}' (first at {first}); shards overlap or a file was merged twice",
                            r.name
                        ));
                    }
                    seen.insert(r.name.clone(), at);
                    m.records.push(r);
                }
                Line::Shard(s) => m.shards.push(s),
            }
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, blocks: u64) -> FileRecord {
        FileRecord {
            name: name.into(),
            kind: "ll",
            blocks,
            deepest_loop: blocks,
            seconds: 0.5,
            ..FileRecord::default()
        }
    }

    #[test]
    fn lines_round_trip_and_totals_combine() {
        let a = record("a.ll", 3);
        let b = FileRecord {
            error: Some("boom".into()),
            ..record("b.ll", 5)
        };
        let text = format!(
            "{}\n{}\n{}\n",
            record_json(&a),
            record_json(&b),
            shard_json(&ShardInfo {
                shard: Some((0, 2)),
                files: 2,
                wall_seconds: 1.5,
                ..ShardInfo::default()
            })
        );
        let m = merge([("x.jsonl", text.as_str())]).unwrap();
        assert_eq!(m.records, vec![a.clone(), b.clone()]);
        let t = totals(&m.records);
        assert_eq!((t.blocks, t.deepest_loop), (8, 5));
        assert_eq!(m.wall().unwrap().max, 1.5);
    }

    #[test]
    fn merge_refuses_what_is_not_a_record_and_duplicates() {
        let bad = merge([("x.jsonl", "{\"a\":1}\n")]).unwrap_err();
        assert!(
            bad.starts_with("x.jsonl:1: not an ilkit scan line"),
            "{bad}"
        );
        let line = record_json(&record("a.ll", 1));
        let missing = line.replace("\"blocks\":1,", "");
        let e = merge([("y.jsonl", missing.as_str())]).unwrap_err();
        assert!(e.contains("\"blocks\""), "{e}");
        let two = format!("{line}\n\n{line}\n");
        let e = merge([("z.jsonl", two.as_str())]).unwrap_err();
        assert!(
            e.starts_with("z.jsonl:3: a second record for 'a.ll' (first at z.jsonl:1)"),
            "{e}"
        );
    }
}
