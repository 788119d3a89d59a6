//! Keep-in-IL marking (`mark_to_keep_in_il`) and the elimination pass that follows it.
//!
//! Roots are routines carrying a `__global__` / `__device__` attribute and variables in
//! device memory (`__device__`, `__shared__`, `__constant__`, `__managed__`), plus any roots
//! the caller names. From them, every entry reachable through child edges gets keep_in_il
//! and keep_definition_in_il (its definition, i.e. its subtree, is needed). Two kinds of
//! edge only keep their target as a *declaration* (keep_in_il without
//! keep_definition_in_il, not descended): reference edges (a call's routine, a variable
//! use, a specialization's primary template) and the base type of a pointer type when it
//! is a class (a class only pointed to). A declaration reached later through a definition
//! edge is then walked in full. After the walk, using-declarations whose target is kept and
//! typedefs naming a kept class definition are marked, to a fixed point.
//!
//! The kernel is a FIFO over dense entry indices reading the pooled child slices and two
//! dense bitsets: no per-edge indirect call, allocation or hash lookup. O(entries + edges).
//! On large worlds `mark_to_keep_in_il` runs it on rayon's threads ([`mark_from_parallel`]:
//! atomic bitsets, rounds of budgeted tasks); the marked sets are the same.
//! The elimination pass (`eliminate_unneeded_il_entries`) then drops what is not kept:
//! bodies of routines kept only as declarations, edges into unkept entries, and the unkept
//! entries themselves.

use crate::il::{fields as F, BitSet, Eix, EntryId, EntryKind, Flag, Il, TypeKind};
use crate::il::{NLISTS, NREFS, NSINGLES};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a marking pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeepReport {
    /// Roots the pass started from.
    pub roots: usize,
    /// Entries marked keep_in_il (roots included).
    pub kept: usize,
    /// Live entries in the world.
    pub live: usize,
    /// Kept entries per kind number.
    pub kept_per_kind: Vec<(EntryKind, usize)>,
}

/// The device roots of a world: routines with `__global__` / `__device__`, variables in
/// device memory.
pub fn device_roots(il: &Il) -> Vec<Eix> {
    let mut roots = Vec::new();
    let is_device_attr = |a: Eix| {
        il.as_attribute(a)
            .is_some_and(|a| a.attr_kind().is_device_root())
    };
    for &e in il.routine_columns().eix {
        if !e.is_none()
            && il
                .list_eix(e, F::ROUTINE_ATTRIBUTES)
                .iter()
                .any(|&a| is_device_attr(a))
        {
            roots.push(e);
        }
    }
    let vars = il.variable_columns();
    for (row, &e) in vars.eix.iter().enumerate() {
        if !e.is_none()
            && (vars.cuda_space[row] != 0
                || il
                    .list_eix(e, F::VARIABLE_ATTRIBUTES)
                    .iter()
                    .any(|&a| is_device_attr(a)))
        {
            roots.push(e);
        }
    }
    roots
}

/// Marks everything the device roots (and `extra_roots`) reach; returns the report.
pub fn mark_to_keep_in_il(il: &mut Il, extra_roots: &[EntryId]) -> KeepReport {
    let mut roots = device_roots(il);
    roots.extend(extra_roots.iter().filter_map(|&id| il.eix(id).ok()));
    let nroots = roots.len();
    let kept = mark_from_parallel(il, roots) + mark_using_declarations(il);
    let mut per_kind = vec![0usize; EntryKind::COUNT];
    for e in il.flag_column(Flag::KeepInIl).iter() {
        let e = Eix::new(e);
        if il.is_live(e) {
            per_kind[il.kind(e) as usize] += 1;
        }
    }
    KeepReport {
        roots: nroots,
        kept,
        live: il.len(),
        kept_per_kind: per_kind
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, &n)| (EntryKind::ALL[k], n))
            .collect(),
    }
}

/// The marking kernel: FIFO from `queue` (definition roots, each walked), never
/// revisiting a non-root entry whose definition is already marked. Returns the number of
/// entries newly marked keep_in_il.
pub fn mark_from(il: &mut Il, mut queue: Vec<Eix>) -> usize {
    let cap = il.capacity();
    let mut keep = std::mem::take(il.flag_column_mut(Flag::KeepInIl));
    let mut def = std::mem::take(il.flag_column_mut(Flag::KeepDefinition));
    keep.grow(cap);
    def.grow(cap);
    let before = keep.count();
    queue.reserve(cap.saturating_sub(queue.len()));
    // Roots are walked whatever their flags say (a caller may have set
    // keep_definition_in_il on them already); each once.
    queue.sort_unstable();
    queue.dedup();
    for &e in &queue {
        def.insert(e.idx());
    }
    drain_fifo(
        il,
        &mut queue,
        usize::MAX,
        &mut Marks {
            def: &mut def,
            keep: &mut keep,
        },
    );
    keep.union_with(&def);
    let marked = keep.count() - before;
    *il.flag_column_mut(Flag::KeepInIl) = keep;
    *il.flag_column_mut(Flag::KeepDefinition) = def;
    marked
}

/// Worlds smaller than this are marked by [`mark_from`] even when threads are available:
/// below it a round of tasks costs more than it saves.
pub const PARALLEL_MARK_MIN_ENTRIES: usize = 1 << 18;

/// [`mark_from`] on the rayon pool's threads, with the same result: the keep and
/// definition columns become atomic bitsets (a test before each `fetch_or`, so entries
/// already marked cost a plain load), and the work goes in rounds. Each round splits the
/// pending entries into a few chunks per thread; a task runs the same FIFO kernel over its
/// chunk and what it discovers, up to a budget, and hands back what it did not reach.
/// With one thread, or a world under [`PARALLEL_MARK_MIN_ENTRIES`], this is [`mark_from`].
pub fn mark_from_parallel(il: &mut Il, queue: Vec<Eix>) -> usize {
    mark_from_parallel_above(il, queue, PARALLEL_MARK_MIN_ENTRIES)
}

fn mark_from_parallel_above(il: &mut Il, mut queue: Vec<Eix>, min_entries: usize) -> usize {
    let threads = rayon::current_num_threads();
    let cap = il.capacity();
    if threads < 2 || cap < min_entries {
        return mark_from(il, queue);
    }
    let mut keep = std::mem::take(il.flag_column_mut(Flag::KeepInIl));
    let mut def = std::mem::take(il.flag_column_mut(Flag::KeepDefinition));
    keep.grow(cap);
    def.grow(cap);
    let before = keep.count();
    queue.sort_unstable();
    queue.dedup();
    for &e in &queue {
        def.insert(e.idx());
    }
    let adef = AtomicBits::from_bits(def);
    let akeep = AtomicBits::from_bits(keep);
    let mut frontier = queue;
    let shared: &Il = il;
    while !frontier.is_empty() {
        let chunk = frontier.len().div_ceil(threads * 4).max(64);
        let parts: Vec<Vec<Eix>> = frontier
            .par_chunks(chunk)
            .map(|c| {
                let budget = PARALLEL_TASK_BUDGET.max(c.len());
                let mut q = Vec::with_capacity(budget * 2);
                q.extend_from_slice(c);
                let marks = &mut Marks {
                    def: &adef,
                    keep: &akeep,
                };
                let head = drain_fifo(shared, &mut q, budget, marks);
                q.drain(..head);
                q
            })
            .collect();
        frontier = parts.concat();
    }
    let def = adef.into_bits();
    let mut keep = akeep.into_bits();
    keep.union_with(&def);
    let marked = keep.count() - before;
    *il.flag_column_mut(Flag::KeepInIl) = keep;
    *il.flag_column_mut(Flag::KeepDefinition) = def;
    marked
}

/// Entries one parallel marking task visits before it hands the rest of its queue back.
const PARALLEL_TASK_BUDGET: usize = 1 << 14;

/// A bitset the marking kernel sets bits in.
trait MarkBits {
    /// Sets the bit of edge target `c`; whether this call set it. An empty slot
    /// (`Eix::NONE`) sets nothing: the sets hold fewer than `Eix::NONE` bits (a world
    /// holds fewer entries), so the one range test covers it.
    fn insert_edge(&mut self, c: Eix) -> bool;
}

impl MarkBits for &mut BitSet {
    #[inline(always)]
    fn insert_edge(&mut self, c: Eix) -> bool {
        self.insert_in_range(c.idx())
    }
}

impl MarkBits for &AtomicBits {
    #[inline(always)]
    fn insert_edge(&mut self, c: Eix) -> bool {
        self.insert_in_range(c.idx())
    }
}

/// The two bitsets the marking kernel sets: definitions (walked) and declarations.
struct Marks<D, K> {
    def: D,
    keep: K,
}

/// A dense bitset several marking tasks set at once.
struct AtomicBits(Vec<AtomicU64>);

impl AtomicBits {
    fn from_bits(b: BitSet) -> AtomicBits {
        AtomicBits(b.into_words().into_iter().map(AtomicU64::new).collect())
    }

    fn into_bits(self) -> BitSet {
        BitSet::from_words(self.0.into_iter().map(AtomicU64::into_inner).collect())
    }

    /// Sets bit `i` when it is in range; whether this call set it (false past the end).
    /// A set bit costs one load.
    #[inline(always)]
    fn insert_in_range(&self, i: usize) -> bool {
        let Some(w) = self.0.get(i >> 6) else {
            return false;
        };
        let m = 1u64 << (i & 63);
        w.load(Ordering::Relaxed) & m == 0 && w.fetch_or(m, Ordering::Relaxed) & m == 0
    }
}

/// Runs the marking FIFO over `queue` until it is empty or `budget` entries were visited;
/// returns how many were (the unvisited rest is `queue[returned..]`). Every child newly
/// marked as a definition is appended to `queue`.
fn drain_fifo<D: MarkBits, K: MarkBits>(
    il: &Il,
    queue: &mut Vec<Eix>,
    budget: usize,
    marks: &mut Marks<D, K>,
) -> usize {
    const BASE_TYPE: usize = F::TYPE_BASE_TYPE.slot as usize;
    // The columns as slices, read once: one bounds test per entry covers kind and start.
    let cols = il.columns();
    let (kinds, rows, starts, pool) = (cols.kind, cols.row, cols.start, cols.edges);
    // An empty slot must miss both bitsets' range (see `MarkBits::insert_edge`).
    debug_assert!(kinds.len() < Eix::NONE.idx() & !63);
    let type_kind = il.ty_columns().type_kind;
    let mut head = 0;
    // The loop touches one bitset per child edge: definitions go to `def` (and are OR-ed
    // into keep_in_il at the end), declarations straight to `keep`.
    while head < queue.len() && head < budget {
        // Two-stage software prefetch: the FIFO order is known, so the span and kind of the
        // entry 32 ahead, and the edge block of the entry 16 ahead (whose span was fetched
        // 16 steps ago), can be on their way.
        if let Some(&far) = queue.get(head + 32) {
            il.prefetch_entry(far);
        }
        if let Some(&near) = queue.get(head + 16) {
            il.prefetch_edges(near);
        }
        let i = queue[head].idx();
        head += 1;
        // The block is [references][list lengths][children]: see `Il::child_span`.
        let kind = kinds[i];
        let start = starts[i] as usize;
        let k = kind as usize;
        let (nref, nlist) = (NREFS[k] as usize, NLISTS[k] as usize);
        let lens = &pool[start - nlist..start];
        let nchild = lens.iter().fold(NSINGLES[k] as usize, |n, w| n + w.idx());
        let kids = &pool[start..start + nchild];
        // A pointer type keeps a class it points to as a declaration only.
        if kind == EntryKind::Type && type_kind[rows[i] as usize] == TypeKind::Pointer {
            for (slot, &c) in kids.iter().enumerate() {
                if c.is_none() {
                    continue;
                }
                if slot == BASE_TYPE && is_class(il, c) {
                    marks.keep.insert_edge(c);
                } else if marks.def.insert_edge(c) {
                    queue.push(c);
                }
            }
        } else {
            for &c in kids {
                if marks.def.insert_edge(c) {
                    queue.push(c);
                }
            }
        }
        for &r in &pool[start - nlist - nref..start - nlist] {
            marks.keep.insert_edge(r);
        }
    }
    head
}

#[inline]
fn is_class(il: &Il, e: Eix) -> bool {
    il.as_ty(e).is_some_and(|t| t.type_kind().is_class())
}

/// After the main walk: a using-declaration whose target is kept gets kept; a typedef
/// naming a kept class definition gets kept; repeated until nothing changes. Returns the
/// entries marked.
pub fn mark_using_declarations(il: &mut Il) -> usize {
    let mut total = 0;
    loop {
        let mut add = Vec::new();
        for e in il.entries() {
            if il.flag(e, Flag::KeepInIl) {
                continue;
            }
            let k = il.kind(e);
            let hit = if k == EntryKind::UsingDeclaration {
                il.ref_eix(e, F::USING_DECLARATION_TARGET)
                    .is_some_and(|t| il.flag(t, Flag::KeepInIl))
            } else if il
                .as_ty(e)
                .is_some_and(|t| t.type_kind() == TypeKind::Typeref)
            {
                il.child_eix(e, F::TYPE_BASE_TYPE)
                    .is_some_and(|t| is_class(il, t) && il.flag(t, Flag::KeepDefinition))
            } else {
                false
            };
            if hit {
                add.push(e);
            }
        }
        if add.is_empty() {
            return total;
        }
        total += mark_from(il, add);
    }
}

/// What the elimination pass removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EliminationReport {
    /// Unkept entries freed.
    pub freed: usize,
    /// Routines kept as declarations whose bodies were dropped.
    pub bodies_dropped: usize,
    /// Edges from kept entries to unkept ones cleared (list members removed).
    pub edges_cleared: usize,
}

/// `eliminate_unneeded_il_entries` (with `eliminate_bodies_of_unneeded_functions`): drops
/// the bodies of routines kept only as declarations, clears every edge from a kept entry to
/// an unkept one, and frees every unkept entry. Afterwards the world holds exactly what a
/// device-IL file of it holds.
pub fn eliminate_unneeded_il_entries(il: &mut Il) -> EliminationReport {
    let mut rep = EliminationReport::default();
    let live: Vec<Eix> = il.entries().collect();
    for &e in &live {
        if !il.flag(e, Flag::KeepInIl) {
            continue;
        }
        if il.kind(e) == EntryKind::Routine
            && !il.flag(e, Flag::KeepDefinition)
            && il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_some()
        {
            rep.bodies_dropped += 1;
        }
        let kept = |il: &Il, c: Eix| c.is_none() || il.flag(c, Flag::KeepInIl);
        let layout = il.kind(e).layout();
        for slot in 0..layout.singles.len() {
            let c = il.children(e)[slot];
            if !kept(il, c) {
                il.replace_child_at(e, slot, Eix::NONE);
                rep.edges_cleared += 1;
            }
        }
        for l in 0..layout.lists.len() {
            let (off, len) = il.list_pos(e, l as u32);
            let mut item = 0;
            let mut n = len;
            while item < n {
                let c = il.children(e)[off + item];
                if kept(il, c) {
                    item += 1;
                } else {
                    il.remove_list_item(e, l as u32, item);
                    n -= 1;
                    rep.edges_cleared += 1;
                }
            }
        }
        for i in 0..layout.refs.len() {
            let r = il.refs(e)[i];
            if !kept(il, r) {
                il.replace_ref_at(e, i, Eix::NONE);
                rep.edges_cleared += 1;
            }
        }
    }
    let doomed: Vec<Eix> = live
        .into_iter()
        .filter(|&e| !il.flag(e, Flag::KeepInIl))
        .collect();
    rep.freed = doomed.len();
    il.free_entries(&doomed);
    il.debug_verify("eliminate_unneeded_il_entries");
    rep
}

/// The seed's trace lines for a finished marking: "Setting keep_in_il on type / var  /
/// rout / namespace NAME" and "Setting keep_definition_in_il on ..." for class types and
/// routines whose definition is kept, in dense order.
pub fn trace_keep(il: &Il, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for e in il.flag_column(Flag::KeepInIl).iter().map(Eix::new) {
        if !il.is_live(e) {
            continue;
        }
        let k = il.kind(e);
        let what = match k {
            EntryKind::Type => "type ",
            EntryKind::Variable => "var  ",
            EntryKind::Routine => "rout ",
            EntryKind::Namespace => "namespace ",
            _ => continue,
        };
        let name = String::from_utf8_lossy(il.name(e));
        writeln!(out, "Setting keep_in_il on {what}{name}")?;
        if (k == EntryKind::Routine || is_class(il, e)) && il.flag(e, Flag::KeepDefinition) {
            writeln!(out, "Setting keep_definition_in_il on {what}{name}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::il::synth::generate_into;

    #[test]
    fn marks_exactly_what_roots_reach() {
        let mut il = Il::new();
        let s = generate_into(&mut il, 3, 0.05).unwrap();
        let r = mark_to_keep_in_il(&mut il, &[]);
        assert!(r.roots >= s.device_routines.len());
        assert!(r.kept > r.roots && r.kept < r.live, "{r:?}");
        // Oracle: a plain reachability with a HashSet.
        let mut seen = std::collections::HashSet::new();
        let mut stack = device_roots(&il);
        let mut decl_only = std::collections::HashSet::new();
        while let Some(e) = stack.pop() {
            if !seen.insert(e) {
                continue;
            }
            stack.extend(il.children(e).iter().copied().filter(|c| !c.is_none()));
            decl_only.extend(il.refs(e).iter().copied().filter(|c| !c.is_none()));
        }
        let expected: std::collections::HashSet<_> = seen.union(&decl_only).copied().collect();
        let got: std::collections::HashSet<_> = il
            .flag_column(Flag::KeepInIl)
            .iter()
            .map(Eix::new)
            .collect();
        assert_eq!(got, expected);
        // The parallel kernel marks the same sets.
        let mut par = il.clone();
        par.flag_column_mut(Flag::KeepInIl).clear();
        par.flag_column_mut(Flag::KeepDefinition).clear();
        let roots = device_roots(&par);
        let n = mark_from_parallel_above(&mut par, roots, 0);
        assert_eq!(
            par.flag_column(Flag::KeepInIl),
            il.flag_column(Flag::KeepInIl)
        );
        assert_eq!(n, il.flag_column(Flag::KeepInIl).count());
        // Every device routine is kept.
        for d in s.device_routines {
            assert!(il.flag(il.eix(d).unwrap(), Flag::KeepInIl));
        }
    }

    #[test]
    fn parallel_marking_equals_sequential_on_aged_worlds() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for seed in 0..4u64 {
            let fresh = crate::il::synth::generate(seed, 0.3);
            let mut order: Vec<Eix> = fresh.entries().collect();
            let mut x = seed * 2 + 1;
            for i in (1..order.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                order.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let (aged, map) = fresh.relayout(&order);
            let roots: Vec<Eix> = device_roots(&fresh).iter().map(|r| map[r.idx()]).collect();
            // Some definitions already marked by an earlier pass, some roots repeated.
            let mut seq = aged.clone();
            for &r in roots.iter().step_by(5) {
                seq.flag_column_mut(Flag::KeepDefinition).set(r.idx(), true);
            }
            let mut par = seq.clone();
            let mut twice = roots.clone();
            twice.extend_from_slice(&roots[..roots.len() / 2]);
            let a = mark_from(&mut seq, twice.clone());
            let b = pool.install(|| mark_from_parallel_above(&mut par, twice, 0));
            assert_eq!(a, b, "seed {seed}");
            for f in [Flag::KeepInIl, Flag::KeepDefinition] {
                assert_eq!(seq.flag_column(f), par.flag_column(f), "seed {seed}");
            }
        }
    }
}
