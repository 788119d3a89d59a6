//! `dump_il_table_stats`: the seed's "IL table use:" table, with the world's counts and
//! the bytes per entry of ilkit's layout, and the same numbers as data.

use super::{EntryKind, Flag, FreeListKind, Il, Tables};
use std::io::{self, Write};

/// One row of the stats table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableStat {
    /// The name the seed prints ("expr node", "source file", ...).
    pub name: &'static str,
    /// Allocations counted.
    pub number: u64,
    /// Bytes per entry in ilkit's layout.
    pub each: u64,
    /// `number * each`.
    pub total: u64,
}

/// Layout comparison of live entries: ilkit bytes against the seed's size plus prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutBytes {
    /// Live entries whose kind has a known seed size.
    pub entries: u64,
    /// Bytes those entries take in ilkit (columns, row, edge block, and the interned
    /// position table).
    pub ilkit_bytes: u64,
    /// Bytes they take in the seed's layout (size + 24-byte file-scope prefix, or 16 in
    /// TU-copy mode, or 8 in a function region).
    pub seed_bytes: u64,
}

impl LayoutBytes {
    /// `ilkit_bytes / seed_bytes`.
    pub fn ratio(&self) -> f64 {
        self.ilkit_bytes as f64 / self.seed_bytes.max(1) as f64
    }
}

/// Computes [`LayoutBytes`] over every live entry.
pub fn layout_bytes(il: &Il) -> LayoutBytes {
    let mut out = LayoutBytes::default();
    let mut lists = 0.0f64;
    for e in il.entries() {
        let k = il.kind(e);
        let size = k.seed_size() as u64;
        if size == 0 {
            continue;
        }
        let prefix = if il.region_of(e) != super::RegionIdx::FILE_SCOPE {
            8
        } else if il.flag(e, Flag::FileScope) {
            24
        } else {
            16
        };
        out.entries += 1;
        out.seed_bytes += size + prefix;
        out.ilkit_bytes += il.entry_bytes(e) as u64;
        lists += il.list_bytes(e);
    }
    // The lists that hold the entries, and the interned position table they share.
    out.ilkit_bytes += lists.round() as u64 + il.position_table_bytes() as u64;
    out
}

/// The stats table as data, in kind order, then supplements and bookkeeping rows.
pub fn il_table_stats(il: &Il) -> Vec<TableStat> {
    let mut live_bytes = vec![0f64; EntryKind::COUNT];
    let mut live = vec![0u64; EntryKind::COUNT];
    for e in il.entries() {
        let k = il.kind(e) as usize;
        live[k] += 1;
        live_bytes[k] += il.entry_bytes(e) as f64 + il.list_bytes(e);
    }
    let mut rows = Vec::new();
    for k in EntryKind::ALL {
        if !k.has_table() || il.alloc_count(k) == 0 {
            continue;
        }
        let l = k.layout();
        let each = if live[k as usize] > 0 {
            (live_bytes[k as usize] / live[k as usize] as f64).ceil() as u64
        } else {
            (Il::per_entry_column_bytes()
                + 4
                + Tables::row_bytes(k)
                + 4 * (l.lists.len() + l.singles.len() + l.refs.len())) as u64
        };
        let number = il.alloc_count(k);
        rows.push(TableStat {
            name: EntryKind::STATS_NAMES[k as usize],
            number,
            each,
            total: number * each,
        });
    }
    let c = &il.counters;
    let extra: [(&'static str, u64, u64); 12] = [
        ("integer type supplement", c.type_supplements[0], 0),
        ("typeref type supplement", c.type_supplements[3], 0),
        ("templ param supplement", c.type_supplements[4], 0),
        ("new/delete supplement", c.expr_supplements[0], 0),
        ("throw supplement", c.expr_supplements[1], 0),
        ("condition supplement", c.expr_supplements[2], 0),
        ("statement supplement", c.stmt_supplements.iter().sum(), 0),
        ("gnu supplement", c.gnu_supplements, 0),
        ("template arg", c.template_args, 5),
        ("constant list entry", c.constant_list_entries, 4),
        ("string literal text", c.string_literal_bytes, 1),
        ("recycled entries", c.recycled, 0),
    ];
    for (name, number, each) in extra {
        if number > 0 {
            rows.push(TableStat {
                name,
                number,
                each,
                total: number * each,
            });
        }
    }
    rows
}

/// Writes the seed's table: a header, one line per table, the final `Total` line (which
/// adds `extra`, the caller's region overhead), and the `(avail. fs expr node)` count.
pub fn dump_il_table_stats(il: &Il, extra: u64, out: &mut dyn Write) -> io::Result<()> {
    let rows = il_table_stats(il);
    writeln!(out, "IL table use:")?;
    writeln!(
        out,
        "{:<32}{:>10}{:>8}{:>14}",
        "Table", "Number", "Each", "Total"
    )?;
    writeln!(
        out,
        "{:<32}{:>10}{:>8}{:>14}",
        "-----", "------", "----", "-----"
    )?;
    let mut total = extra;
    for r in &rows {
        writeln!(
            out,
            "{:<32}{:>10}{:>8}{:>14}",
            r.name, r.number, r.each, r.total
        )?;
        total += r.total;
    }
    writeln!(out, "{:<32}{:>10}{:>8}{:>14}", "Total", "", "", total)?;
    writeln!(
        out,
        "{:<32}{:>10}",
        "(avail. fs expr node)",
        il.free_list_len(FreeListKind::ExprNode)
    )?;
    Ok(())
}

/// The five constant-sharing counters of seed 002 (`qword_126F200..126F220`), kept by
/// `share::ConstantSharing` and printed under the table by [`dump_sharing_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharingCounters {
    /// `compare_constants` calls made by sharing lookups.
    pub comparisons: u64,
    /// Calls to `alloc_shareable_constant`.
    pub total_allocs: u64,
    /// Lookups that missed and added a canonical constant.
    pub new_buckets: u64,
    /// Hits whose canonical constant is in the same region as the local one.
    pub region_hits: u64,
    /// Hits whose canonical constant is in another region.
    pub global_hits: u64,
}

/// Writes the sharing counters in the table's format, after [`dump_il_table_stats`].
pub fn dump_sharing_stats(c: &SharingCounters, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Constant sharing:")?;
    for (name, v) in [
        ("constant comparisons", c.comparisons),
        ("shareable constant allocs", c.total_allocs),
        ("new shared constants", c.new_buckets),
        ("same-region hits", c.region_hits),
        ("global hits", c.global_hits),
    ] {
        writeln!(out, "{name:<32}{v:>10}")?;
    }
    Ok(())
}
