//! The attribute columns of an [`super::Inference`]: one [`AttrSet`] per function, per
//! return or per argument, a [`SharedVec`] (chunks that copies share until one of them
//! writes), so that a copy of the whole module's attributes costs a pointer per
//! chunk. A copy may journal its reads on its thread ([`Reads`]): a run of
//! `function-attrs` made ahead of the walk records which attributes it read, for the
//! walk to compare with its own at the unit's turn.

use crate::idx::{Idx, SharedVec};
use crate::llvm::attrs::AttrSet;
use std::cell::RefCell;
use std::marker::PhantomData;

/// Which column a journaled read was of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Col {
    /// Function attributes, by function.
    Fn = 0,
    /// Return attributes, by function.
    Ret = 1,
    /// Argument attributes, by argument.
    Arg = 2,
}

/// A column of attribute sets indexed by `I`, shared by chunks with its copies.
#[derive(Clone, Debug)]
pub(crate) struct Column<I> {
    sets: SharedVec<AttrSet>,
    /// Reads are journaled on this thread as reads of this column.
    journal: Option<Col>,
    _index: PhantomData<fn(I) -> I>,
}

impl<I: Idx> Column<I> {
    /// The column of `sets`, in index order.
    pub(crate) fn from_iter(sets: impl IntoIterator<Item = AttrSet>) -> Column<I> {
        Column {
            sets: SharedVec::from_iter_chunked(sets),
            journal: None,
            _index: PhantomData,
        }
    }

    /// Journal this copy's reads as reads of `col` (`None`: no more).
    pub(crate) fn journal_as(&mut self, col: Option<Col>) {
        self.journal = col;
    }

    /// Entry `i`, not journaled.
    #[inline]
    pub(crate) fn get(&self, i: I) -> &AttrSet {
        &self.sets[i.idx()]
    }
}

impl<I: Idx> std::ops::Index<I> for Column<I> {
    type Output = AttrSet;
    #[inline]
    fn index(&self, i: I) -> &AttrSet {
        if let Some(c) = self.journal {
            Reads::note(c, i.idx());
        }
        self.get(i)
    }
}

impl<I: Idx> std::ops::IndexMut<I> for Column<I> {
    #[inline]
    fn index_mut(&mut self, i: I) -> &mut AttrSet {
        &mut self.sets[i.idx()]
    }
}

thread_local! {
    /// The reads journaled on this thread ([`Reads`]).
    static READS: RefCell<Vec<(Col, u32)>> = const { RefCell::new(Vec::new()) };
}

/// The column reads journaled on this thread while it lives.
#[derive(Debug)]
pub(crate) struct Reads(());

impl Reads {
    /// Starts journaling on this thread.
    pub(crate) fn start() -> Reads {
        READS.with(|r| r.borrow_mut().clear());
        Reads(())
    }

    #[inline]
    fn note(c: Col, i: usize) {
        READS.with(|r| r.borrow_mut().push((c, i as u32)));
    }

    /// The reads so far, sorted, each once.
    pub(crate) fn take(&self) -> Vec<(Col, u32)> {
        let mut v = READS.with(|r| std::mem::take(&mut *r.borrow_mut()));
        v.sort_unstable();
        v.dedup();
        v
    }
}

impl Drop for Reads {
    fn drop(&mut self) {
        READS.with(|r| r.borrow_mut().clear());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::attrs::Attr;
    use crate::llvm::FuncIdx;

    fn col(n: usize) -> Column<FuncIdx> {
        Column::from_iter((0..n).map(|_| AttrSet::EMPTY))
    }

    #[test]
    fn a_copy_writes_its_own_chunk_only() {
        let mut a = col(3 * 256 + 5);
        let b = a.clone();
        a[FuncIdx::new(257)].add(Attr::ReadNone);
        assert!(a.get(FuncIdx::new(257)).has(Attr::ReadNone));
        assert!(!b.get(FuncIdx::new(257)).has(Attr::ReadNone));
        // the chunks it did not write are still shared
        assert!(a.sets.shares_chunk_of(&b.sets, 0));
        assert!(!a.sets.shares_chunk_of(&b.sets, 257));
    }

    #[test]
    fn journaled_reads_come_sorted_once() {
        let mut a = col(10);
        let r = Reads::start();
        let _ = a[FuncIdx::new(4)];
        a.journal_as(Some(Col::Ret));
        let _ = a[FuncIdx::new(7)];
        let _ = a[FuncIdx::new(2)];
        let _ = a[FuncIdx::new(7)];
        let _ = a.get(FuncIdx::new(9));
        a.journal_as(None);
        let _ = a[FuncIdx::new(3)];
        assert_eq!(r.take(), vec![(Col::Ret, 2), (Col::Ret, 7)]);
    }
}
