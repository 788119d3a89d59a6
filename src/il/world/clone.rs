//! Batch and block clones: the deep copier's primitives (`clone_many_in`, one entry per
//! source, column by column; `clone_block_in`, a contiguous bottom-up block relocated at
//! once, with the leaf constants it owns written into their parents' clones). Both take
//! dense slots and rows as single allocations would, so a clone is the entry a loop of
//! single allocations gives. O(entries + edges) per call; numbers in PERF.md ("Deep
//! copy").

use super::*;

/// A leaf constant [`Il::clone_block_in`] clones after its block: `src`, whose clone goes
/// to child slot `slot` of the clone of block entry `low + parent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockLeaf {
    /// The constant.
    pub src: Eix,
    /// Its parent's offset in the block.
    pub parent: u32,
    /// The parent's child slot that names it.
    pub slot: u32,
}

impl Il {
    /// Clones each of `srcs` into region `r`, in order, appending the clones to `out`
    /// (the deep copier's primitive): per clone a fresh dense index and ID (free lists
    /// first, as single allocation takes them, so the result is the one a loop of single
    /// allocations gives), the row copied, string fields into `r`'s arena, the edge block
    /// (list header, children, references) copied whole, and flags stamped as for a fresh
    /// allocation. The clones' edges still point at the originals' children; callers patch
    /// the ones they copy. Positions are the originals' when `keep_pos`, otherwise the
    /// current one.
    ///
    /// Column by column, not entry by entry: the per-entry columns grow once for the
    /// batch, the rows are grouped by kind (a counting sort) and copied kind by kind, edge
    /// blocks that follow each other in the pool are copied as one run, and each flag
    /// column is stamped in one pass.
    pub(crate) fn clone_many_in(
        &mut self,
        srcs: &[Eix],
        r: RegionIdx,
        keep_pos: bool,
        out: &mut Vec<Eix>,
    ) {
        let base = out.len();
        self.take_dense_slots(srcs.len(), out);
        self.clone_into_slots(srcs, &out[base..], r, keep_pos);
    }

    /// Appends `n` dense slots to `out` in the order single allocations take them (freed
    /// ones, last freed first, then new ones at the end), the per-entry columns grown
    /// once for all (the new ones free until written).
    fn take_dense_slots(&mut self, n: usize, out: &mut Vec<Eix>) {
        let take = n.min(self.free_eix.len());
        let keep = self.free_eix.len() - take;
        out.extend(self.free_eix[keep..].iter().rev());
        self.free_eix.truncate(keep);
        let first = self.cols.len();
        out.extend((first as u32..(first + n - take) as u32).map(Eix::from_raw));
        self.grow_dense(first + n - take);
    }

    /// [`Il::clone_many_in`] into dense slots `dst` that [`Il::take_dense_slots`] took.
    fn clone_into_slots(&mut self, srcs: &[Eix], dst: &[Eix], r: RegionIdx, keep_pos: bool) {
        let n = srcs.len();
        self.clone_rows_of(srcs, dst);
        let cursor = if keep_pos { 0 } else { self.cursor_index() };
        let len = self.cols.len();
        self.cols.region.set_many(dst, r.raw());
        let (gen, pos) = (&mut self.cols.gen[..len], &mut self.cols.pos[..len]);
        for &e in dst {
            gen[e.idx()] = gen[e.idx()].wrapping_add(1);
        }
        self.live += n;
        if keep_pos {
            for (&s, &e) in srcs.iter().zip(dst) {
                pos[e.idx()] = pos[s.idx()];
            }
        } else {
            for &e in dst {
                pos[e.idx()] = cursor;
            }
        }
        self.clone_edge_blocks(srcs, dst);
        // Flags, as `stamp_and_enlist` sets them, one column at a time.
        let mut m = self.new_entry_flags(r);
        while m != 0 {
            let col = &mut self.flags[m.trailing_zeros() as usize];
            for &e in dst {
                col.set(e.idx(), true);
            }
            m &= m - 1;
        }
        if self.secondary_mode {
            self.secondary.extend(dst.iter().map(|e| e.raw()));
        }
        // Counts and lists, as `enlist` keeps them (per group and per batch here: a call
        // per entry costs the copy 7 % of its instructions).
        let b = &self.batch;
        for &k in &b.kinds {
            self.counts[k as usize] += b.count[k as usize] as u64;
        }
        if r == RegionIdx::FILE_SCOPE {
            for &e in dst {
                self.kind_lists[self.cols.kind[e.idx()] as usize].push(e);
            }
        } else {
            self.regions[r.idx()].entries.extend_from_slice(dst);
        }
        let constants = self.batch.count[EntryKind::Constant as usize] != 0;
        self.clone_strings_of(srcs, dst);
        if constants {
            // A clone's share key was copied from its original, which may live in
            // another region: only the key's file-scope bit can differ.
            let keys = &mut self.tables.constant.share_key;
            for &e in dst {
                if self.cols.kind[e.idx()] == EntryKind::Constant {
                    rescope_share_key(&mut keys[self.cols.row[e.idx()] as usize], r);
                }
            }
        }
    }

    /// [`Il::clone_many_in`] of the block `low..low + n` (dense indices, every one a live
    /// entry of `kind`, their edge blocks back to back in dense order over
    /// `edges[begin..end]`), with the clones' children that name a block entry
    /// relocated to that entry's clone (references, list lengths and children outside
    /// the block are kept). The caller checked the shape (the deep copier's block fast
    /// path) and says whether some entry's reference or list length is a number in
    /// `low..low + n` (`heads_inside`; only then are they put back after relocating);
    /// the result is what `clone_many_in` of the block's indices in order and a
    /// relocation of every clone's in-block children give (same dense indices, rows,
    /// columns, flags, lists, pool), in a few passes over slices: one append of the
    /// pool range, rows copied in one group, the per-entry columns written in one loop.
    /// Then the leaf constants `leaves` (constants outside the block with no owned child
    /// and no declared type) are cloned after the block, each written into its parent's
    /// clone (`Il::clone_leaf_constants`): the result is that of one `clone_many_in` of
    /// the block and the leaves' sources (clones at the current position: the deep
    /// copier's fast path does not keep positions), each leaf's clone then unshared
    /// (`set_is_shared(false)` where it was set) and put in its slot by
    /// `replace_child_at`, as the deep copier's general path does.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn clone_block_in(
        &mut self,
        kind: EntryKind,
        low: Eix,
        n: usize,
        (begin, end): (usize, usize),
        r: RegionIdx,
        heads_inside: bool,
        leaves: &[BlockLeaf],
        out: &mut Vec<Eix>,
    ) {
        let lo = low.idx();
        debug_assert!(self.cols.kind[lo..lo + n].iter().all(|&k| k == kind));
        // Constants' share keys would need the region fix-up `clone_many_in` does.
        debug_assert!(kind != EntryKind::Constant);
        let base = out.len();
        // Dense slots and rows as `clone_many_in` of the block and the leaves takes them.
        self.take_dense_slots(n + leaves.len(), out);
        let dst = &out[base..base + n];
        let mut to = std::mem::take(&mut self.batch.to);
        to.clear();
        self.take_rows(kind, n, &mut to);
        // The usual case: the slots are one ascending run (fresh ones, or a closed
        // region's, which the free list hands out in order), and so are the rows (the
        // original's, allocated in order, and the clones'): rows and per-entry columns
        // copied as slices.
        let run = ascending_run(dst);
        let from = &self.cols.row[lo..lo + n];
        match (run, ascending_rows(from), ascending_rows(&to)) {
            (Some(d0), Some(f0), Some(r0)) => self.tables.clone_row_run(kind, f0, r0, n, d0 as u32),
            _ => self.tables.clone_rows(kind, from, &to, dst),
        }
        // The pool range, once; block `k`'s clone starts `delta` slots after it.
        let at = self.edges.len();
        self.edges.extend_from_within(begin..end);
        let delta = (at as u32).wrapping_sub(begin as u32);
        let cursor = self.cursor_index();
        if let Some(d0) = run {
            let (s, d) = (lo..lo + n, d0..d0 + n);
            let c = &mut self.cols;
            c.region.fill(d.clone(), r.raw());
            c.kind[d.clone()].fill(kind);
            c.row[d.clone()].copy_from_slice(&to);
            for g in &mut c.gen[d.clone()] {
                *g = g.wrapping_add(1);
            }
            c.pos[d.clone()].fill(cursor);
            c.start.copy_within(s, d0);
            for st in &mut c.start[d] {
                *st = st.wrapping_add(delta);
            }
        } else {
            self.clone_block_columns(kind, lo, dst, &to, delta, cursor, r);
        }
        self.batch.to = to;
        self.live += n;
        // Children naming a block entry take its clone: every word of the appended range
        // in one branch-free pass, then the words of each clone's block that are not
        // children (references, list lengths) put back from its original, when one of
        // them is a number in the block's range (`heads_inside`: the caller knows; else
        // the pass left them as they were).
        let pool = &mut self.edges[at..at + (end - begin)];
        let (low32, n32) = (low.raw(), n as u32);
        match run {
            Some(d0) => {
                let shift = (d0 as u32).wrapping_sub(low32);
                for w in pool.iter_mut() {
                    let inside = w.raw().wrapping_sub(low32) < n32;
                    *w =
                        Eix::from_raw(w.raw().wrapping_add(shift & (inside as u32).wrapping_neg()));
                }
            }
            None => {
                for w in pool.iter_mut() {
                    let j = w.raw().wrapping_sub(low32);
                    if j < n32 {
                        *w = dst[j as usize];
                    }
                }
            }
        }
        let (nr, nl, _) = block_shape(kind);
        let (starts, pool) = (&self.cols.start[lo..lo + n], &mut self.edges[..]);
        debug_assert!(
            heads_inside
                || starts
                    .iter()
                    .all(|&st| pool[st as usize - nr - nl..st as usize]
                        .iter()
                        .all(|w| w.raw().wrapping_sub(low32) >= n32)),
            "a reference or list length in the block's range"
        );
        match if heads_inside { nr + nl } else { 0 } {
            0 => {}
            1 => put_back_heads::<1>(pool, starts, delta),
            2 => put_back_heads::<2>(pool, starts, delta),
            3 => put_back_heads::<3>(pool, starts, delta),
            h => {
                for &st in starts {
                    let (s, d) = (st as usize, st.wrapping_add(delta) as usize);
                    for k in 1..=h {
                        pool[d - k] = pool[s - k];
                    }
                }
            }
        }
        // Flags, counts, lists and strings as `clone_many_in` keeps them.
        self.stamp_and_enlist_one_kind(kind, dst, run, r);
        if !kind.layout().strings.is_empty() {
            for (k, &e) in dst.iter().enumerate() {
                let row = self.cols.row[e.idx()];
                if self.tables.has_strings(kind, row) {
                    self.copy_strings(kind, Eix::new(lo + k), e, row);
                }
            }
        }
        if !leaves.is_empty() {
            let (dst, then) = out[base..].split_at(n);
            let parent = |j: u32| match run {
                Some(d0) => Eix::from_raw(d0 as u32 + j),
                None => dst[j as usize],
            };
            self.clone_leaf_constants(leaves, then, parent, r);
        }
    }

    /// [`Il::clone_block_in`]'s leaf constants, into the dense slots `dst` it took after
    /// the block's: what `clone_into_slots` of their sources does at the current position
    /// (rows from the free list first, per-entry columns, the edge blocks appended in
    /// order, flags, counts, lists, strings in order, the share key's file-scope bit),
    /// specialised to one kind with a known edge-block shape (the pool grown once, a
    /// leaf's fixed-size block copied as one array, the per-entry columns written as
    /// ranges when the slots are one run),
    /// then each clone unshared (an `is_shared` source's clone gets `is_shared` clear and
    /// its key computed, as `set_is_shared(false)` does) and written into child slot
    /// `slot` of `parent(leaf.parent)` (an expression: no derived column reads its
    /// children).
    fn clone_leaf_constants(
        &mut self,
        leaves: &[BlockLeaf],
        dst: &[Eix],
        parent: impl Fn(u32) -> Eix,
        r: RegionIdx,
    ) {
        const K: EntryKind = EntryKind::Constant;
        // A constant's block: its list lengths and single slots, then its list items (a
        // leaf's are usually none: its block is `FIXED` words).
        const SHAPE: (usize, usize, usize) = block_shape(K);
        const FIXED: usize = SHAPE.0 + SHAPE.1 + SHAPE.2;
        let (nr, nl, _) = SHAPE;
        let n = leaves.len();
        debug_assert_eq!(n, dst.len());
        debug_assert!(leaves.iter().all(|l| self.cols.kind[l.src.idx()] == K));
        // Rows as `clone_rows_of` takes them: freed ones (last freed first), then new.
        let (mut rare, mut rows_to) = (
            std::mem::take(&mut self.batch.from),
            std::mem::take(&mut self.batch.to),
        );
        rows_to.clear();
        self.take_rows(K, n, &mut rows_to);
        let (leaves, dst, to) = (&leaves[..n], &dst[..n], &rows_to[..n]);
        // The slots are usually one run (they follow the block's): per-entry columns,
        // flags and lists written as ranges.
        let seq = ascending_run(dst);
        let cursor = self.cursor_index();
        let len = self.cols.len();
        let c = &mut self.cols;
        match seq {
            Some(d0) => {
                let d = d0..d0 + n;
                c.region.fill(d.clone(), r.raw());
                c.kind[d.clone()].fill(K);
                c.row[d.clone()].copy_from_slice(to);
                for g in &mut c.gen[d.clone()] {
                    *g = g.wrapping_add(1);
                }
                c.pos[d].fill(cursor);
            }
            None => {
                c.region.set_many(dst, r.raw());
                let (ck, crow, cgen) = (&mut c.kind[..len], &mut c.row[..len], &mut c.gen[..len]);
                let cpos = &mut c.pos[..len];
                for (&d, &row) in dst.iter().zip(to) {
                    let d = d.idx();
                    ck[d] = K;
                    crow[d] = row;
                    cgen[d] = cgen[d].wrapping_add(1);
                    cpos[d] = cursor;
                }
            }
        }
        // The pool grows once for all the leaves' blocks, appended in leaf order; a
        // block of `FIXED` words is copied as one array (no call per leaf).
        let (crow, cstart) = (&c.row[..len], &mut c.start[..len]);
        let edges = &mut self.edges;
        let mut words = 0;
        for l in leaves {
            words += nchild_at(edges, K, cstart[l.src.idx()] as usize) + nr + nl;
        }
        let mut o = edges.len();
        edges.resize(o + words, Eix::NONE);
        let mut rows = self.tables.constant.cloner();
        // Clones with strings or of a shared source (rare for leaves), by leaf: they get
        // their strings and key after the loop.
        rare.clear();
        for k in 0..n {
            let (l, d, ri) = (&leaves[k], dst[k].idx(), to[k] as usize);
            let s = l.src.idx();
            let st = cstart[s] as usize;
            let begin = st - nl - nr;
            let size = nchild_at(edges, K, st) + nr + nl;
            if size == FIXED {
                let block: [Eix; FIXED] = edges[begin..begin + FIXED].try_into().expect("FIXED");
                edges[o..o + FIXED].copy_from_slice(&block);
            } else {
                edges.copy_within(begin..begin + size, o);
            }
            cstart[d] = (o + nr + nl) as u32;
            o += size;
            // The row; its share key differs from its original's in the file-scope bit
            // only, unless it has strings or an unshared clone's key is computed (both
            // read from the original, which the clone copies).
            let f = crow[s] as usize;
            if rows.has_strings(f) || rows.is_shared[f] {
                rows.clone_row(f, ri, Eix::new(d));
                rare.push(k as u32);
            } else {
                let mut key = rows.share_key[f];
                rescope_share_key(&mut key, r);
                rows.clone_row(f, ri, Eix::new(d));
                rows.share_key[ri] = key;
            }
            // Into its parent's clone (an expression: no derived column reads children).
            let p = parent(l.parent).idx();
            let at = cstart[p] as usize + l.slot as usize;
            debug_assert!(
                (l.slot as usize) < nchild_at(edges, EntryKind::ExprNode, at - l.slot as usize)
            );
            edges[at] = Eix::new(d);
        }
        debug_assert_eq!(o, edges.len());
        self.live += n;
        // Flags, counts and lists as `clone_into_slots` keeps them.
        self.stamp_and_enlist_one_kind(K, dst, seq, r);
        // The rare clones: strings in order (their arena offsets), then the key (an
        // unshared clone's computed from its columns, edges and text as `set_is_shared`
        // computes it).
        for &k in &rare {
            let (l, d, row) = (&leaves[k as usize], dst[k as usize], to[k as usize]);
            if self.tables.has_strings(K, row) {
                self.copy_strings(K, l.src, d, row);
            }
            let ri = row as usize;
            if self.tables.constant.is_shared[ri] {
                self.tables.constant.is_shared[ri] = false;
                self.tables.constant.share_key[ri] = self.compute_share_key(d);
            } else {
                rescope_share_key(&mut self.tables.constant.share_key[ri], r);
            }
        }
        self.batch.from = rare;
        self.batch.to = rows_to;
    }

    /// Takes `c` rows of `kind`'s table for clones, appending them to `to`: freed rows
    /// first (the last freed first, as single allocations take them), then new ones.
    #[inline]
    fn take_rows(&mut self, kind: EntryKind, c: usize, to: &mut Vec<u32>) {
        let free = &mut self.free_rows[kind as usize];
        let take = c.min(free.len());
        to.extend(free[free.len() - take..].iter().rev());
        free.truncate(free.len() - take);
        let len = self.tables.len(kind);
        to.extend((len..len + c - take).map(|r| r as u32));
        for _ in take..c {
            self.tables.push_default(kind, Eix::NONE);
        }
    }

    /// Flags, counts and lists of the clones `dst` (all of `kind`, made in region `r`) as
    /// `stamp_and_enlist` keeps them one entry at a time; `run` is `dst`'s first index when
    /// the slots are one ascending run ([`ascending_run`]): flags and the region list are
    /// then written as ranges.
    fn stamp_and_enlist_one_kind(
        &mut self,
        kind: EntryKind,
        dst: &[Eix],
        run: Option<usize>,
        r: RegionIdx,
    ) {
        let n = dst.len();
        let mut m = self.new_entry_flags(r);
        while m != 0 {
            let col = &mut self.flags[m.trailing_zeros() as usize];
            match run {
                Some(d0) => col.set_range(d0, d0 + n),
                None => {
                    for &e in dst {
                        col.set(e.idx(), true);
                    }
                }
            }
            m &= m - 1;
        }
        if self.secondary_mode {
            self.secondary.extend(dst.iter().map(|e| e.raw()));
        }
        self.counts[kind as usize] += n as u64;
        if r == RegionIdx::FILE_SCOPE {
            self.kind_lists[kind as usize].extend_from_slice(dst);
        } else if let Some(d0) = run {
            self.regions[r.idx()]
                .entries
                .push_run(Eix::new(d0), n as u32);
        } else {
            self.regions[r.idx()].entries.extend_from_slice(dst);
        }
    }

    /// [`Il::clone_block_in`]'s per-entry columns when the slots `dst` are not one run.
    #[allow(clippy::too_many_arguments)]
    fn clone_block_columns(
        &mut self,
        kind: EntryKind,
        lo: usize,
        dst: &[Eix],
        to: &[u32],
        delta: u32,
        cursor: u32,
        r: RegionIdx,
    ) {
        self.cols.region.set_many(dst, r.raw());
        let len = self.cols.len();
        let c = &mut self.cols;
        let (ck, crow, cgen) = (&mut c.kind[..len], &mut c.row[..len], &mut c.gen[..len]);
        let (cstart, cpos) = (&mut c.start[..len], &mut c.pos[..len]);
        for (k, (&d, &row)) in dst.iter().zip(to).enumerate() {
            let (s, d) = (lo + k, d.idx());
            ck[d] = kind;
            crow[d] = row;
            cgen[d] = cgen[d].wrapping_add(1);
            cpos[d] = cursor;
            cstart[d] = cstart[s].wrapping_add(delta);
        }
    }

    /// Grows the per-entry columns to `len` dense indices (new ones free until written;
    /// flag columns grow as bits are set, as for single allocations).
    fn grow_dense(&mut self, len: usize) {
        self.cols.grow_to(len);
    }

    /// The batch clone's kinds and rows: writes each clone's kind and row, and copies the
    /// rows grouped by kind. Leaves the grouping in `self.batch` (for counts and strings).
    fn clone_rows_of(&mut self, srcs: &[Eix], dst: &[Eix]) {
        let b = &mut self.batch;
        b.reset();
        // Kinds come in runs (a copied tree's expressions, then its constants): counted
        // per run, not through memory per entry.
        let n = self.cols.len();
        let kind = &mut self.cols.kind[..n];
        let (mut cur, mut run) = (EntryKind::None, 0);
        for (&s, &e) in srcs.iter().zip(dst) {
            let k = kind[s.idx()];
            kind[e.idx()] = k;
            if k != cur {
                b.add_run(cur, run);
                (cur, run) = (k, 0);
            }
            run += 1;
        }
        b.add_run(cur, run);
        // Per kind, the rows single allocations would take: freed ones (last freed
        // first), then new ones.
        let mut at = 0;
        let mut to = std::mem::take(&mut b.to);
        for i in 0..self.batch.kinds.len() {
            let k = self.batch.kinds[i];
            let c = self.batch.count[k as usize] as usize;
            self.batch.at[k as usize] = at as u32;
            self.take_rows(k, c, &mut to);
            at += c;
        }
        let b = &mut self.batch;
        b.to = to;
        b.from.resize(at, 0);
        b.eix.resize(at, Eix::NONE);
        let (kind, row) = (&self.cols.kind[..n], &mut self.cols.row[..n]);
        let (from, to, eix) = (&mut b.from[..at], &b.to[..at], &mut b.eix[..at]);
        let (mut cur, mut slot) = (EntryKind::None, 0);
        for (&s, &e) in srcs.iter().zip(dst) {
            let k = kind[e.idx()];
            if k != cur {
                if cur != EntryKind::None {
                    b.at[cur as usize] = slot as u32;
                }
                cur = k;
                slot = b.at[k as usize] as usize;
            }
            from[slot] = row[s.idx()];
            eix[slot] = e;
            row[e.idx()] = to[slot];
            slot += 1;
        }
        let mut at = 0;
        for &k in &b.kinds {
            let c = b.count[k as usize] as usize;
            let g = at..at + c;
            self.tables
                .clone_rows(k, &b.from[g.clone()], &b.to[g.clone()], &b.eix[g]);
            at += c;
        }
    }

    /// The batch clone's edge blocks: each source block (references, list lengths,
    /// children) copied to the end of the pool, and each clone's start set. Source blocks
    /// that follow each other in the pool (a tree cloned in allocation order) are copied as
    /// one run.
    fn clone_edge_blocks(&mut self, srcs: &[Eix], dst: &[Eix]) {
        let n = self.cols.len();
        let (kind, start) = (&self.cols.kind[..n], &mut self.cols.start[..n]);
        let edges = &mut self.edges;
        // The run being gathered: pool[run..run_end], appended when the next block does
        // not follow it.
        let (mut run, mut run_end, mut o) = (0, 0, edges.len());
        for (&s, &e) in srcs.iter().zip(dst) {
            let k = kind[s.idx()];
            let (nr, nl, _) = block_shape(k);
            let st = start[s.idx()] as usize;
            let begin = st - nl - nr;
            let end = st + nchild_at(edges, k, st);
            if begin != run_end {
                edges.extend_from_within(run..run_end);
                run = begin;
            }
            run_end = end;
            start[e.idx()] = (o + nr + nl) as u32;
            o += end - begin;
        }
        edges.extend_from_within(run..run_end);
        debug_assert_eq!(o, edges.len());
    }

    /// The batch clone's string fields, copied into each clone's region in `srcs` order
    /// (the arena offsets single clones would give): through the rows grouped by kind in
    /// `self.batch` when one kind with strings is in the batch (its group is in `srcs`
    /// order), else entry by entry.
    fn clone_strings_of(&mut self, srcs: &[Eix], dst: &[Eix]) {
        let b = std::mem::take(&mut self.batch);
        let mut with = b.kinds.iter().filter(|k| !k.layout().strings.is_empty());
        match (with.next(), with.next()) {
            (None, _) => {}
            (Some(&k), None) => {
                let at = b.kinds.iter().take_while(|&&x| x != k);
                let at: usize = at.map(|&x| b.count[x as usize] as usize).sum();
                for i in at..at + b.count[k as usize] as usize {
                    let to = b.to[i];
                    if self.tables.has_strings(k, to) {
                        let from = self.tables.row_eix(k, b.from[i]);
                        self.copy_strings(k, from, b.eix[i], to);
                    }
                }
            }
            _ => {
                for (&s, &e) in srcs.iter().zip(dst) {
                    let k = self.cols.kind[e.idx()];
                    let row = self.cols.row[e.idx()];
                    if !k.layout().strings.is_empty() && self.tables.has_strings(k, row) {
                        self.copy_strings(k, s, e, row);
                    }
                }
            }
        }
        self.batch = b;
    }
}

/// The first index of `dst` when its slots are one ascending run (`d0, d0 + 1, ...`).
fn ascending_run(dst: &[Eix]) -> Option<usize> {
    ascending_run_of(dst, |e| e.raw())
}

/// [`ascending_run`] of rows.
fn ascending_rows(rows: &[u32]) -> Option<usize> {
    ascending_run_of(rows, |r| r)
}

/// The first of `v` (as numbered by `num`) when it is one ascending run. Tested 64 at a
/// time without a branch per item (the test of a chunk folds into vector instructions).
#[inline(always)]
fn ascending_run_of<T: Copy>(v: &[T], num: impl Fn(T) -> u32) -> Option<usize> {
    let d0 = num(*v.first()?);
    let mut next = d0;
    for chunk in v.chunks(64) {
        let off = chunk.iter().enumerate().fold(0, |acc, (j, &e)| {
            acc | (num(e) ^ next.wrapping_add(j as u32))
        });
        if off != 0 {
            return None;
        }
        next = next.wrapping_add(chunk.len() as u32);
    }
    Some(d0 as usize)
}

/// Copies the `H` words before each block start `st` in `starts` (references and list
/// lengths) to the same place before `st + delta` (its clone's block).
#[inline(always)]
fn put_back_heads<const H: usize>(pool: &mut [Eix], starts: &[u32], delta: u32) {
    for &st in starts {
        let (s, d) = (st as usize, st.wrapping_add(delta) as usize);
        let head: [Eix; H] = pool[s - H..s].try_into().expect("H words");
        pool[d - H..d].copy_from_slice(&head);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run is found at any length; one slot out of place anywhere, in the first chunk of
    /// 64 or a later one, or the last slot, makes it no run.
    #[test]
    fn ascending_run_finds_runs_and_only_runs() {
        assert_eq!(ascending_run(&[]), None);
        for n in [1usize, 2, 63, 64, 65, 130, 200] {
            let run: Vec<Eix> = (0..n as u32).map(|k| Eix::from_raw(1000 + k)).collect();
            assert_eq!(ascending_run(&run), Some(1000), "{n}");
            for at in [1, n / 2, n - 1].into_iter().filter(|&at| at > 0 && at < n) {
                for bad in [run[at].raw() + 1, run[at].raw() - 1, 0] {
                    let mut v = run.clone();
                    v[at] = Eix::from_raw(bad);
                    assert_eq!(ascending_run(&v), None, "{n} {at} {bad}");
                }
            }
        }
        assert_eq!(ascending_run(&[Eix::new(5), Eix::new(4)]), None);
    }
}
