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

use crate::graph::NONE;

const GAP: u64 = 1 << 32;
/// Label of a RefSCC that is not in the list.
pub(crate) const DEAD: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub(crate) struct PostOrder {
    label: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    len: usize,
}

impl Default for PostOrder {
    fn default() -> Self {
        PostOrder {
            label: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
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

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn label(&self, r: u32) -> u64 {
        self.label.get(r as usize).copied().unwrap_or(DEAD)
    }

    pub(crate) fn is_live(&self, r: u32) -> bool {
        self.label(r) != DEAD
    }

    pub(crate) fn next_of(&self, r: u32) -> u32 {
        self.next[r as usize]
    }

    fn relabel_all(&mut self) {
        let mut r = self.head;
        let mut l = GAP;
        while r != NONE {
            self.label[r as usize] = l;
            l += GAP;
            r = self.next[r as usize];
        }
    }

    fn link(&mut self, a: u32, b: u32) {
        if a == NONE {
            self.head = b;
        } else {
            self.next[a as usize] = b;
        }
        if b == NONE {
            self.tail = a;
        } else {
            self.prev[b as usize] = a;
        }
    }

    /// Appends `r` at the end (the newest, callers-most position).
    pub(crate) fn push_back(&mut self, r: u32) {
        self.grow(r as usize + 1);
        let last = if self.tail == NONE {
            0
        } else {
            self.label[self.tail as usize]
        };
        if last >= DEAD - 2 * GAP {
            self.relabel_all();
        }
        let last = if self.tail == NONE {
            0
        } else {
            self.label[self.tail as usize]
        };
        self.label[r as usize] = last + GAP;
        let t = self.tail;
        self.link(t, r);
        self.link(r, NONE);
        self.len += 1;
    }

    /// Inserts `items` (in order) just before live RefSCC `before`.
    pub(crate) fn insert_before(&mut self, items: &[u32], before: u32) {
        if items.is_empty() {
            return;
        }
        if let Some(&m) = items.iter().max() {
            self.grow(m as usize + 1);
        }
        let k = items.len() as u64;
        let mut retried = false;
        loop {
            let p = self.prev[before as usize];
            let lo = if p == NONE { 0 } else { self.label[p as usize] };
            let hi = self.label[before as usize];
            let step = (hi - lo) / (k + 1);
            if step == 0 {
                assert!(!retried, "post-order label space exhausted");
                retried = true;
                self.relabel_all();
                continue;
            }
            let mut a = p;
            for (i, &r) in items.iter().enumerate() {
                self.label[r as usize] = lo + step * (i as u64 + 1);
                self.link(a, r);
                a = r;
            }
            self.link(a, before);
            self.len += items.len();
            return;
        }
    }

    /// Removes live RefSCC `r`.
    pub(crate) fn unlink(&mut self, r: u32) {
        let (p, n) = (self.prev[r as usize], self.next[r as usize]);
        self.link(p, n);
        self.prev[r as usize] = NONE;
        self.next[r as usize] = NONE;
        self.label[r as usize] = DEAD;
        self.len -= 1;
    }

    /// `segment` is a contiguous run of the list (in list order); `new_order` is the
    /// same set in a new order. Reassigns the segment's labels and links in that order.
    pub(crate) fn reorder_segment(&mut self, segment: &[u32], new_order: &[u32]) {
        debug_assert_eq!(segment.len(), new_order.len());
        if segment.is_empty() {
            return;
        }
        let labels: Vec<u64> = segment.iter().map(|&r| self.label[r as usize]).collect();
        let before = self.prev[segment[0] as usize];
        let after = self.next[segment[segment.len() - 1] as usize];
        let mut a = before;
        for (i, &r) in new_order.iter().enumerate() {
            self.label[r as usize] = labels[i];
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
        while r != NONE && n <= self.len {
            if self.prev[r as usize] != prev {
                errs.push(format!("post-order list: refscc {r} has a wrong prev link"));
            }
            let l = self.label[r as usize];
            if l == DEAD || (n > 0 && l <= last) {
                errs.push(format!(
                    "post-order list: refscc {r} label {l} not increasing"
                ));
            }
            last = l;
            prev = r;
            r = self.next[r as usize];
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
    at: u32,
}

impl Iterator for PostOrderIter<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.at == NONE {
            return None;
        }
        let r = self.at;
        self.at = self.order.next[r as usize];
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_relabel_when_gaps_run_out() {
        let mut o = PostOrder::default();
        o.push_back(0);
        o.push_back(1);
        // keep inserting right before 1 until the gap is exhausted several times
        for r in 2..200u32 {
            o.insert_before(&[r], 1);
        }
        assert!(o.check().is_empty(), "{:?}", o.check());
        let v: Vec<u32> = o.iter().collect();
        assert_eq!(v.len(), 200);
        assert_eq!(v[0], 0);
        assert_eq!(v[199], 1);
        o.unlink(0);
        o.reorder_segment(&v[1..4], &[v[3], v[1], v[2]]);
        assert!(o.check().is_empty());
        assert_eq!(o.iter().take(3).collect::<Vec<_>>(), [v[3], v[1], v[2]]);
    }
}
