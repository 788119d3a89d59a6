//! Kept blocks: expression trees a deep copy proved to be blocks (the fast path's scan in
//! `share::copy`), remembered by the world so the next copy of the same tree skips the
//! proof. A front end copies the same trees again and again (a default argument at every
//! call, a template's trees at every instantiation), and the proof costs more than the
//! block clone itself (PERF.md, "Deep copy").
//!
//! What a kept answer claims: the tree at `root` is the entries `low..=root`, all
//! expression nodes, their edge blocks back to back in dense order (so they span from where
//! `low`'s begins to where `root`'s ends); `leaves` are the constants outside it the copy
//! clones (leaf constants, with their parents and slots); `heads_inside` says whether a
//! reference or list length in the block could be a number in its range. It stays true
//! until one of the entries it read changes, so every dense index a kept answer depends on
//! is *pinned*: the block's entries and its leaf constants. Every path that changes an
//! existing entry's kind, row value, edges or references calls [`Il::touch`] (typed setters
//! through `row_changed`, edge setters through `edge_changed`, reference setters,
//! `children_mut`, frees through `release`), and touching a pinned entry drops everything
//! kept. PERF.md lists the audit of those paths ("Deep copy: the world keeps the proof that
//! a tree is a block").
//!
//! Not a dependency: where the block's edges lie in the pool. A compaction slides live
//! blocks down without reordering them, so a run of blocks back to back stays one; its
//! ends are found again from `low`'s and `root`'s blocks when the answer is used.
//! Neither are the kinds of the entries the block shares (types, entities): in a world
//! that passes `verify`, such an entry is freed (and its index reused) only after every
//! edge naming it is cleared, which touches the block.

use super::*;

/// Most answers kept at once; keeping one more drops them all first (the pins are then
/// rebuilt from nothing, never left stale).
const MAX_KEPT: usize = 16;

/// Smallest tree worth keeping: below this the proof is a few hundred nanoseconds and
/// keeping it (a vector of leaves, the pins) would cost a fair part of it.
const MIN_KEPT_ENTRIES: usize = 256;

/// Roots of the last trees proved and not kept: a proof is kept the second time its tree
/// is proved within this many proofs, so a tree copied once costs no keeping.
const SEEN: usize = MAX_KEPT;

/// One kept answer (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeptBlock {
    /// The tree's root (its highest entry).
    pub root: Eix,
    /// The block's lowest entry.
    pub low: Eix,
    /// Whether a reference or list length in the block may be a number in `low..=root`.
    pub heads_inside: bool,
    /// The leaf constants the copy clones after the block, parents as offsets from `low`.
    pub leaves: Vec<BlockLeaf>,
}

impl KeptBlock {
    /// Entries in the block.
    #[inline]
    pub fn len(&self) -> usize {
        (self.root.raw() - self.low.raw()) as usize + 1
    }
}

/// The world's kept answers and their pins.
#[derive(Clone)]
pub(crate) struct KeptBlocks {
    blocks: Vec<KeptBlock>,
    /// The dense indices the kept answers depend on (past the end: none).
    pins: BitSet,
    /// Bumped whenever everything is dropped: an answer taken out for a copy goes back
    /// only when nothing was dropped meanwhile.
    version: u64,
    /// Roots proved lately and not kept, a ring ([`SEEN`]); a hint only (an entry's
    /// edits do not clear it).
    seen: [Eix; SEEN],
    /// The ring's next slot.
    seen_next: usize,
}

impl Default for KeptBlocks {
    fn default() -> Self {
        KeptBlocks {
            blocks: Vec::new(),
            pins: BitSet::default(),
            version: 0,
            seen: [Eix::NONE; SEEN],
            seen_next: 0,
        }
    }
}

/// An answer taken out of the world for one copy ([`Il::take_kept_block`]).
#[derive(Debug)]
pub(crate) struct TakenBlock {
    pub block: KeptBlock,
    version: u64,
}

/// A cache, not part of the world's content: two worlds that hold the same entries print
/// the same, whatever copies each has seen.
impl std::fmt::Debug for KeptBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeptBlocks { .. }")
    }
}

impl KeptBlocks {
    #[cold]
    #[inline(never)]
    fn drop_all(&mut self) {
        self.blocks.clear();
        self.pins = BitSet::default();
        self.version = self.version.wrapping_add(1);
    }
}

impl Il {
    /// Called when an existing entry `e` changes (kind, row value, edges, references,
    /// freed), before the next copy: drops the kept answers when one depends on `e`
    /// (module docs).
    #[inline(always)]
    pub(in crate::il) fn touch(&mut self, e: Eix) {
        if self.kept.pins.get(e.idx()) {
            self.kept.drop_all();
        }
    }

    /// The kept answer for the tree at `root`, taken out for a copy; give it back with
    /// [`Il::put_back_kept_block`].
    #[inline]
    pub(crate) fn take_kept_block(&mut self, root: Eix) -> Option<TakenBlock> {
        let i = self.kept.blocks.iter().position(|b| b.root == root)?;
        Some(TakenBlock {
            block: self.kept.blocks.swap_remove(i),
            version: self.kept.version,
        })
    }

    /// Gives back an answer [`Il::take_kept_block`] took (its pins stayed set), unless
    /// the answers were dropped meanwhile.
    pub(crate) fn put_back_kept_block(&mut self, t: TakenBlock) {
        if t.version == self.kept.version {
            self.kept.blocks.push(t.block);
        }
    }

    /// Whether the proof just made that the tree at `root` (`n` entries) is a block is
    /// worth keeping: a tree of at least [`MIN_KEPT_ENTRIES`] proved before among the
    /// last [`SEEN`] proofs not kept (this one is remembered otherwise).
    pub(crate) fn should_keep_block(&mut self, root: Eix, n: usize) -> bool {
        if n < MIN_KEPT_ENTRIES {
            return false;
        }
        let k = &mut self.kept;
        if k.seen.contains(&root) {
            return true;
        }
        k.seen[k.seen_next] = root;
        k.seen_next = (k.seen_next + 1) % SEEN;
        false
    }

    /// Keeps `b`, an answer just proved on this world as it is (module docs;
    /// [`Il::should_keep_block`] says when to).
    pub(crate) fn keep_block(&mut self, b: KeptBlock) {
        if self.kept.blocks.len() >= MAX_KEPT {
            self.kept.drop_all();
        }
        let pins = &mut self.kept.pins;
        pins.set_range(b.low.idx(), b.root.idx() + 1);
        for l in &b.leaves {
            pins.set(l.src.idx(), true);
        }
        self.kept.blocks.push(b);
    }

    /// The pool range of kept block `b`'s edge blocks now: from where its lowest entry's
    /// block begins to where its root's ends (they lie back to back).
    #[inline]
    pub(crate) fn kept_block_span(&self, b: &KeptBlock) -> (usize, usize) {
        (self.block(b.low).0, self.block(b.root).2)
    }

    /// How many trees the world keeps a deep copy's proof for: expression trees of at
    /// least 256 entries laid out as one block, proved so twice within the last 16
    /// proofs. A later copy of such a tree skips the proof
    /// ([`DeepCopy::copy_eix`](crate::share::copy::DeepCopy::copy_eix)); an edit of an
    /// entry a proof read (the tree's entries, the leaf constants it copies) drops them
    /// all. A cache: it changes no copy's result.
    ///
    /// ```
    /// use ilkit::il::{Eix, ExprKind, Il, Op};
    /// use ilkit::share::copy::DeepCopy;
    ///
    /// let mut il = Il::new();
    /// let mut level = Vec::new();
    /// for _ in 0..256 {
    ///     level.push(il.push_expr(ExprKind::Variable, Op::Paren, Eix::NONE, &[])?);
    /// }
    /// while level.len() > 1 {
    ///     let mut next = Vec::new();
    ///     for pair in level.chunks(2) {
    ///         next.push(il.push_expr(ExprKind::Operation, Op::Add, Eix::NONE, pair)?);
    ///     }
    ///     level = next;
    /// }
    /// let root = level[0];
    /// let r = il.open_function_region(None);
    /// for kept in [0, 1, 1] {
    ///     DeepCopy::new(0, r).copy_eix(&mut il, root)?;
    ///     assert_eq!(il.kept_blocks(), kept);
    /// }
    /// // An edit of the tree drops the proof.
    /// il.expr_mut(root).set_op(Op::Add);
    /// assert_eq!(il.kept_blocks(), 0);
    /// # Ok::<(), ilkit::il::IlError>(())
    /// ```
    pub fn kept_blocks(&self) -> usize {
        self.kept.blocks.len()
    }

    /// Checks the kept answers against the world: each block's entries are live
    /// expression nodes whose edge blocks lie back to back in dense order,
    /// each leaf is a live constant named by its parent's slot, and every entry either
    /// reads is pinned. Part of [`Il::verify`].
    pub(in crate::il) fn verify_kept_blocks(&self) -> Result<(), VerifyError> {
        let bad = |what: &str| Err(VerifyError(what.to_string()));
        for b in &self.kept.blocks {
            if b.low.raw() > b.root.raw() || b.root.idx() >= self.cols.len() {
                return bad("kept block: bad range");
            }
            let mut next = None;
            for i in b.low.idx()..=b.root.idx() {
                let e = Eix::new(i);
                if self.cols.kind[i] != EntryKind::ExprNode || !self.is_live(e) {
                    return bad("kept block: an entry is not a live expression");
                }
                if !self.kept.pins.get(i) {
                    return bad("kept block: an entry is not pinned");
                }
                let (begin, _, end) = self.block(e);
                if next.is_some_and(|n| n != begin) {
                    return bad("kept block: edge blocks not back to back");
                }
                next = Some(end);
            }
            for l in &b.leaves {
                let p = Eix::from_raw(b.low.raw().wrapping_add(l.parent));
                if p.raw() > b.root.raw()
                    || l.src.idx() >= self.cols.len()
                    || self.cols.kind[l.src.idx()] != EntryKind::Constant
                    || !self.is_live(l.src)
                    || self.children(p).get(l.slot as usize) != Some(&l.src)
                {
                    return bad("kept block: a leaf is not its parent's constant");
                }
                if !self.kept.pins.get(l.src.idx()) {
                    return bad("kept block: a leaf is not pinned");
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::il::{ExprKind, Op};

    /// A bottom-up tree of `leaves` constant leaves (each naming `c`) paired up to one
    /// root, and the answer a copy's scan would give for it.
    fn tree(il: &mut Il, leaves: usize) -> KeptBlock {
        let c = il.alloc(EntryKind::Constant).unwrap();
        let c = il.eix(c).unwrap();
        let mut level = Vec::new();
        for _ in 0..leaves {
            let x = il
                .push_expr(ExprKind::Constant, Op::Paren, Eix::NONE, &[])
                .unwrap();
            il.set_child_eix(x, crate::il::fields::EXPR_NODE_CONSTANT, c)
                .unwrap();
            level.push(x);
        }
        let low = level[0];
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| match p {
                    [_, _] => il
                        .push_expr(ExprKind::Operation, Op::Add, Eix::NONE, p)
                        .unwrap(),
                    _ => p[0],
                })
                .collect();
        }
        let root = level[0];
        let slot = crate::il::fields::EXPR_NODE_CONSTANT.slot;
        let leaves = (0..leaves as u32)
            .map(|parent| BlockLeaf {
                src: c,
                parent,
                slot,
            })
            .collect();
        KeptBlock {
            root,
            low,
            heads_inside: false,
            leaves,
        }
    }

    /// `verify` checks a kept answer against the world: a sound one passes; one whose
    /// entries were changed behind the setters' back (so nothing dropped it), whose
    /// low end or leaves are wrong, or whose entries are not pinned, is reported.
    #[test]
    fn verify_checks_kept_blocks() {
        let mut il = Il::new();
        let b = tree(&mut il, 300);
        assert!(!il.should_keep_block(b.root, b.len()));
        assert!(il.should_keep_block(b.root, b.len()));
        il.keep_block(b.clone());
        assert_eq!((il.kept_blocks(), il.verify()), (1, vec![]));
        let bad = |il: &Il| il.verify().iter().any(|e| e.0.starts_with("kept block"));

        let mut w = il.clone();
        w.cols.kind[b.low.idx() + 3] = EntryKind::Constant;
        assert!(w.verify_kept_blocks().is_err());

        let mut w = il.clone();
        w.kept.blocks[0].low = Eix::from_raw(b.low.raw() - 1);
        assert!(bad(&w));

        let mut w = il.clone();
        w.kept.blocks[0].leaves[7].slot += 1;
        assert!(bad(&w));

        let mut w = il.clone();
        w.kept.pins = BitSet::default();
        assert!(bad(&w));

        // The same change through a setter drops the answer instead.
        let mut w = il.clone();
        w.set_child_eix(b.low, crate::il::fields::EXPR_NODE_CONSTANT, Eix::NONE)
            .unwrap();
        assert_eq!((w.kept_blocks(), w.verify()), (0, vec![]));
    }

    /// Small trees are not kept; a tree is kept the second time it is proved within the
    /// last proofs; keeping past the limit drops what was kept first.
    #[test]
    fn what_is_kept() {
        let mut il = Il::new();
        let small = tree(&mut il, 100);
        assert!(!il.should_keep_block(small.root, small.len()));
        assert!(!il.should_keep_block(small.root, small.len()));
        let trees: Vec<KeptBlock> = (0..MAX_KEPT + 1).map(|_| tree(&mut il, 200)).collect();
        for t in &trees {
            assert!(!il.should_keep_block(t.root, t.len()));
        }
        // The ring remembers the last `SEEN` roots only.
        for t in &trees[1..] {
            assert!(il.should_keep_block(t.root, t.len()));
            il.keep_block(t.clone());
        }
        assert_eq!(il.kept_blocks(), MAX_KEPT);
        assert!(!il.should_keep_block(trees[0].root, trees[0].len()));
        assert!(il.should_keep_block(trees[0].root, trees[0].len()));
        il.keep_block(trees[0].clone());
        assert_eq!((il.kept_blocks(), il.verify()), (1, vec![]));
        assert!(il.take_kept_block(trees[0].root).is_some());
    }
}
