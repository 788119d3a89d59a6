//! The post-order of live RefSCCs as an order-maintenance list: a doubly linked list
//! whose entries carry increasing `u64` labels, so "is A before B" is one comparison
//! and inserting, removing or reordering RefSCCs costs time proportional to the
//! RefSCCs involved. Labels start `GAP` apart; when a gap is exhausted the whole list
//! is relabelled (rare: it takes ~32 halvings of one gap).
//!
//! # Invariants
//! - following `next` from `head` visits `len` live RefSCCs with strictly increasing
//!   labels and ends at `tail`; `prev` mirrors `next`.
//! - a dead or never-linked RefSCC has label `DEAD`.

use super::RefSccIdx;
use crate::idx::IndexVec;

const GAP: u64 = 1 << 32;
/// Label of a RefSCC that is not in the list.
pub(crate) const DEAD: u64 = u64::MAX;
const NONE: RefSccIdx = RefSccIdx::NONE;

#[derive(Clone, Debug)]
pub(crate) struct PostOrder {
    label: IndexVec<RefSccIdx, u64>,
    prev: IndexVec<RefSccIdx, RefSccIdx>,
    next: IndexVec<RefSccIdx, RefSccIdx>,
    head: RefSccIdx,
    tail: RefSccIdx,
    len: usize,
}

impl Default for PostOrder {
    fn default() -> Self {
        PostOrder {
            label: IndexVec::new(),
            prev: IndexVec::new(),
            next: IndexVec::new(),
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }
}

impl PostOrder {
    /// Makes room for RefSCC ids `< n`.
    pub(crate) fn grow(&mut self, n: usize) {
        if self.label.len() < n {
            self.label.resize(n, DEAD);
            self.prev.resize(n, NONE);
            self.next.resize(n, NONE);
        }
    }

    /// Reserves room for `n` more RefSCC ids.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.label.reserve(n);
        self.prev.reserve(n);
        self.next.reserve(n);
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn label(&self, r: RefSccIdx) -> u64 {
        self.label.get(r).copied().unwrap_or(DEAD)
    }

    pub(crate) fn is_live(&self, r: RefSccIdx) -> bool {
        self.label(r) != DEAD
    }

    pub(crate) fn next_of(&self, r: RefSccIdx) -> RefSccIdx {
        self.next[r]
    }

    fn relabel_all(&mut self) {
        let mut r = self.head;
        let mut l = GAP;
        while !r.is_none() {
            self.label[r] = l;
            l += GAP;
            r = self.next[r];
        }
    }

    fn link(&mut self, a: RefSccIdx, b: RefSccIdx) {
        if a.is_none() {
            self.head = b;
        } else {
            self.next[a] = b;
        }
        if b.is_none() {
            self.tail = a;
        } else {
            self.prev[b] = a;
        }
    }

    /// Appends `r` at the end (the newest, callers-most position).
    pub(crate) fn push_back(&mut self, r: RefSccIdx) {
        self.grow(r.idx() + 1);
        let last = if self.tail.is_none() {
            0
        } else {
            self.label[self.tail]
        };
        if last >= DEAD - 2 * GAP {
            self.relabel_all();
        }
        let last = if self.tail.is_none() {
            0
        } else {
            self.label[self.tail]
        };
        self.label[r] = last + GAP;
        let t = self.tail;
        self.link(t, r);
        self.link(r, NONE);
        self.len += 1;
    }

    /// Appends RefSCCs `0..n` in order to an empty list (a fresh build).
    pub(crate) fn push_back_all(&mut self, n: usize) {
        assert!(self.len == 0, "push_back_all on a non-empty post-order");
        // The columns are replaced (ids `>= n` read as dead, as beyond any column), each
        // written in one pass: no "dead" fill first, on tens of megabytes.
        let link = |i: usize| if i < n { RefSccIdx::new(i) } else { NONE };
        self.label = (1..=n as u64).map(|i| i * GAP).collect();
        self.prev = (0..n).map(|i| link(i.wrapping_sub(1))).collect();
        self.next = (0..n).map(|i| link(i + 1)).collect();
        if n > 0 {
            self.head = RefSccIdx(0);
            self.tail = RefSccIdx::new(n - 1);
        }
        self.len = n;
    }

    /// Inserts `items` (in order) just before live RefSCC `before`.
    pub(crate) fn insert_before(&mut self, items: &[RefSccIdx], before: RefSccIdx) {
        if items.is_empty() {
            return;
        }
        if let Some(&m) = items.iter().max() {
            self.grow(m.idx() + 1);
        }
        let k = items.len() as u64;
        let mut retried = false;
        loop {
            let p = self.prev[before];
            let lo = if p.is_none() { 0 } else { self.label[p] };
            let hi = self.label[before];
            let step = (hi - lo) / (k + 1);
            if step == 0 {
                assert!(!retried, "post-order label space exhausted");
                retried = true;
                self.relabel_all();
                continue;
            }
            let mut a = p;
            for (i, &r) in items.iter().enumerate() {
                self.label[r] = lo + step * (i as u64 + 1);
                self.link(a, r);
                a = r;
            }
            self.link(a, before);
            self.len += items.len();
            return;
        }
    }

    /// Removes live RefSCC `r`.
    pub(crate) fn unlink(&mut self, r: RefSccIdx) {
        let (p, n) = (self.prev[r], self.next[r]);
        self.link(p, n);
        self.prev[r] = NONE;
        self.next[r] = NONE;
        self.label[r] = DEAD;
        self.len -= 1;
    }

    /// `segment` is a contiguous run of the list (in list order); `new_order` is the
    /// same set in a new order. Reassigns the segment's labels and links in that order.
    pub(crate) fn reorder_segment(&mut self, segment: &[RefSccIdx], new_order: &[RefSccIdx]) {
        debug_assert_eq!(segment.len(), new_order.len());
        if segment.is_empty() {
            return;
        }
        let labels: Vec<u64> = segment.iter().map(|&r| self.label[r]).collect();
        let before = self.prev[segment[0]];
        let after = self.next[segment[segment.len() - 1]];
        let mut a = before;
        for (i, &r) in new_order.iter().enumerate() {
            self.label[r] = labels[i];
            self.link(a, r);
            a = r;
        }
        self.link(a, after);
    }

    /// Live RefSCCs in order.
    pub(crate) fn iter(&self) -> PostOrderIter<'_> {
        PostOrderIter {
            order: self,
            at: self.head,
        }
    }

    /// Consistency problems (for `verify`).
    pub(crate) fn check(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let mut r = self.head;
        let mut prev = NONE;
        let mut last = 0u64;
        let mut n = 0usize;
        while !r.is_none() && n <= self.len {
            if self.prev[r] != prev {
                errs.push(format!("post-order list: {r} has a wrong prev link"));
            }
            let l = self.label[r];
            if l == DEAD || (n > 0 && l <= last) {
                errs.push(format!("post-order list: {r} label {l} not increasing"));
            }
            last = l;
            prev = r;
            r = self.next[r];
            n += 1;
        }
        if n != self.len || prev != self.tail {
            errs.push(format!(
                "post-order list: walked {n} of {} entries",
                self.len
            ));
        }
        errs
    }
}

/// Iterator over live RefSCCs in post-order.
#[derive(Clone, Debug)]
pub struct PostOrderIter<'a> {
    order: &'a PostOrder,
    at: RefSccIdx,
}

impl Iterator for PostOrderIter<'_> {
    type Item = RefSccIdx;
    fn next(&mut self) -> Option<RefSccIdx> {
        if self.at.is_none() {
            return None;
        }
        let r = self.at;
        self.at = self.order.next[r];
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_relabel_when_gaps_run_out() {
        let r = RefSccIdx;
        let mut o = PostOrder::default();
        o.push_back(r(0));
        o.push_back(r(1));
        // keep inserting right before 1 until the gap is exhausted several times
        for i in 2..200u32 {
            o.insert_before(&[r(i)], r(1));
        }
        assert!(o.check().is_empty(), "{:?}", o.check());
        let v: Vec<RefSccIdx> = o.iter().collect();
        assert_eq!(v.len(), 200);
        assert_eq!(v[0], r(0));
        assert_eq!(v[199], r(1));
        o.unlink(r(0));
        o.reorder_segment(&v[1..4], &[v[3], v[1], v[2]]);
        assert!(o.check().is_empty());
        assert_eq!(o.iter().take(3).collect::<Vec<_>>(), [v[3], v[1], v[2]]);
    }
}
