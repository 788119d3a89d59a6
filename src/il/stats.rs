//! `dump_il_table_stats`: the seed's "IL table use:" table — the world's counts with the
//! seed's bytes per entry and their totals, and beside them the bytes per entry of
//! ilkit's layout — and the same numbers as data.

use super::{EntryKind, Flag, FreeListKind, Il, Tables};
use std::io::{self, Write};

/// One row of the stats table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableStat {
    /// The name the seed prints ("expr node", "source file", ...).
    pub name: &'static str,
    /// Allocations counted.
    pub number: u64,
    /// Bytes per entry in the seed's layout (seed 001's size table; 0 where it gives none).
    pub each: u64,
    /// `number * each`: what the seed's allocator would have used.
    pub total: u64,
    /// Bytes per entry in ilkit's layout (0 for a supplement ilkit keeps in its owner's
    /// columns).
    pub ilkit_each: u64,
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
        let ilkit_each = if live[k as usize] > 0 {
            (live_bytes[k as usize] / live[k as usize] as f64).ceil() as u64
        } else {
            (Il::per_entry_column_bytes()
                + 4
                + Tables::row_bytes(k)
                + 4 * (l.lists.len() + l.singles.len() + l.refs.len())) as u64
        };
        let number = il.alloc_count(k);
        let each = u64::from(k.seed_size());
        rows.push(TableStat {
            name: EntryKind::STATS_NAMES[k as usize],
            number,
            each,
            total: number * each,
            ilkit_each,
        });
    }
    let c = &il.counters;
    // (name, count, seed 001's size, ilkit's bytes per entry)
    // (routine and class type supplements are entry kinds of their own, counted above)
    let extra: [(&'static str, u64, u64, u64); 23] = [
        ("integer type supplement", c.type_supplements[0], 32, 0),
        ("typeref type supplement", c.type_supplements[3], 56, 0),
        ("templ param supplement", c.type_supplements[4], 40, 0),
        ("new/delete supplement", c.expr_supplements[0], 56, 0),
        ("throw supplement", c.expr_supplements[1], 24, 0),
        ("condition supplement", c.expr_supplements[2], 32, 0),
        ("constexpr if supplement", c.stmt_supplements[0], 24, 0),
        ("block supplement", c.stmt_supplements[1], 32, 0),
        ("for loop supplement", c.stmt_supplements[2], 24, 0),
        ("try supplement", c.stmt_supplements[3], 32, 0),
        ("switch stmt descr", c.stmt_supplements[4], 24, 0),
        ("coroutine descr", c.stmt_supplements[5], 128, 0),
        ("gnu supplement", c.gnu_supplements, 40, 0),
        ("template arg", c.template_args, 64, 5),
        ("constant list entry", c.constant_list_entries, 16, 4),
        ("string literal text", c.string_literal_bytes, 1, 1),
        // seed 001's bookkeeping counters: the prefix slots file-scope entries carry
        ("fs orphan pointers", c.fs_prefixes, 8, 0),
        ("trans unit copy addr", c.tu_copy_addrs, 8, 0),
        ("IL entry prefix", c.fs_prefixes, 4, 0),
        // ilkit's region and free-list bookkeeping (no seed size)
        ("function regions", c.function_regions, 0, 0),
        ("closed function regions", c.closed_regions, 0, 0),
        ("entries freed with regions", c.region_entries_freed, 0, 0),
        ("recycled entries", c.recycled, 0, 0),
    ];
    for (name, number, each, ilkit_each) in extra {
        if number > 0 {
            rows.push(TableStat {
                name,
                number,
                each,
                total: number * each,
                ilkit_each,
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
        "{:<32}{:>10}{:>8}{:>14}{:>8}",
        "Table", "Number", "Each", "Total", "ilkit"
    )?;
    writeln!(
        out,
        "{:<32}{:>10}{:>8}{:>14}{:>8}",
        "-----", "------", "----", "-----", "-----"
    )?;
    let mut total = extra;
    for r in &rows {
        writeln!(
            out,
            "{:<32}{:>10}{:>8}{:>14}{:>8}",
            r.name, r.number, r.each, r.total, r.ilkit_each
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
