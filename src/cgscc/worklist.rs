//! LLVM's `SmallPriorityWorklist` over dense indices: a stack where inserting an element
//! that is already queued moves it to the top instead of queueing it twice. The CGSCC
//! pass manager keeps its SCCs and RefSCCs in two of these, as LLVM 14's
//! `CGSCCUpdateResult` does.

use crate::idx::Idx;

/// A stack of distinct indices; [`insert`](Self::insert) moves a queued one to the top.
/// Positions live in a dense side column (indices grow as the graph makes SCCs), and a
/// moved element leaves a hole that [`pop`](Self::pop) skips.
#[derive(Clone, Debug)]
pub struct PriorityStack<I: Idx> {
    /// The stack, bottom first; `None` where an element moved up.
    items: Vec<Option<I>>,
    /// Per index: its place in `items` plus one (0: not queued).
    at: Vec<u32>,
    /// How many indices are queued.
    live: usize,
}

impl<I: Idx> Default for PriorityStack<I> {
    fn default() -> Self {
        PriorityStack {
            items: Vec::new(),
            at: Vec::new(),
            live: 0,
        }
    }
}

impl<I: Idx> PriorityStack<I> {
    /// Queues `x` on top; if it was queued already, it moves to the top. Returns whether
    /// it was new.
    pub fn insert(&mut self, x: I) -> bool {
        let k = x.idx();
        if k >= self.at.len() {
            self.at.resize(k + 1, 0);
        }
        let fresh = self.at[k] == 0;
        if !fresh {
            let p = self.at[k] as usize - 1;
            if p + 1 == self.items.len() {
                return false;
            }
            self.items[p] = None;
        }
        self.items.push(Some(x));
        self.at[k] = self.items.len() as u32;
        self.live += usize::from(fresh);
        fresh
    }

    /// Takes the top element.
    pub fn pop(&mut self) -> Option<I> {
        while let Some(top) = self.items.pop() {
            if let Some(x) = top {
                self.at[x.idx()] = 0;
                self.live -= 1;
                return Some(x);
            }
        }
        None
    }

    /// Whether `x` is queued.
    pub fn contains(&self, x: I) -> bool {
        self.at.get(x.idx()).is_some_and(|&p| p != 0)
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        while self.pop().is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use super::PriorityStack;
    use crate::callgraph::SccIdx;

    #[test]
    fn insert_moves_a_queued_element_to_the_top() {
        let mut w = PriorityStack::<SccIdx>::default();
        for k in [1, 2, 3] {
            assert!(w.insert(SccIdx::new(k)));
        }
        assert!(!w.insert(SccIdx::new(1)));
        assert!(!w.insert(SccIdx::new(1)));
        assert!(w.contains(SccIdx::new(2)));
        let order: Vec<usize> = std::iter::from_fn(|| w.pop()).map(|s| s.idx()).collect();
        assert_eq!(order, [1, 3, 2]);
        assert!(w.is_empty() && !w.contains(SccIdx::new(1)));
        w.insert(SccIdx::new(40));
        w.clear();
        assert!(w.pop().is_none());
    }
}
