//! A list of dense indices stored as runs of consecutive indices: a function region's
//! entries, which are allocated (and recycled) mostly in ascending order, cost a few bytes
//! per run instead of four per entry.
//!
//! # Invariants
//! - every run `(start, end)` has `start < end`.

use super::Eix;

/// Dense indices in insertion order, as half-open runs `start..end`. Appending the index
/// that follows the last run is one compare and one increment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EixRuns {
    runs: Vec<(u32, u32)>,
}

impl EixRuns {
    /// Appends `e` (extending the last run when `e` follows it).
    #[inline]
    pub fn push(&mut self, e: Eix) {
        if let Some(last) = self.runs.last_mut() {
            if last.1 == e.raw() {
                last.1 += 1;
                return;
            }
        }
        self.runs.push((e.raw(), e.raw().wrapping_add(1)));
    }

    /// Appends every index of `es`, in order (a stretch of consecutive indices at a
    /// time: a batch of clones takes fresh indices in order).
    pub fn extend_from_slice(&mut self, es: &[Eix]) {
        let mut i = 0;
        while i < es.len() {
            let s = es[i].raw();
            let mut j = i + 1;
            while j < es.len() && es[j].raw() == s.wrapping_add((j - i) as u32) {
                j += 1;
            }
            self.push_run(es[i], (j - i) as u32);
            i = j;
        }
    }

    /// Appends `start..start + n` (one run, merged with the last when it follows it).
    pub fn push_run(&mut self, start: Eix, n: u32) {
        if n == 0 {
            return;
        }
        let end = start.raw().wrapping_add(n);
        match self.runs.last_mut() {
            Some(last) if last.1 == start.raw() => last.1 = end,
            _ => self.runs.push((start.raw(), end)),
        }
    }

    /// The indices, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = Eix> + '_ {
        self.runs
            .iter()
            .flat_map(|&(s, e)| (s..e).map(Eix::from_raw))
    }

    /// Keeps the indices for which `keep` holds (in order).
    pub fn retain(&mut self, mut keep: impl FnMut(Eix) -> bool) {
        let old = std::mem::take(self);
        for e in old.iter() {
            if keep(e) {
                self.push(e);
            }
        }
    }

    /// Removes every index (keeps the run buffer).
    pub fn clear(&mut self) {
        self.runs.clear();
    }

    /// Number of indices (a sum over the runs: O(runs)).
    pub fn len(&self) -> usize {
        self.runs.iter().map(|&(s, e)| (e - s) as usize).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Number of runs.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Bytes of the runs (what the list costs).
    pub fn bytes(&self) -> usize {
        self.runs.len() * std::mem::size_of::<(u32, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_keep_order_and_merge_consecutive() {
        let mut r = EixRuns::default();
        for i in [3, 4, 5, 9, 10, 2, 3] {
            r.push(Eix::from_raw(i));
        }
        assert_eq!(r.runs(), 3);
        assert_eq!(r.len(), 7);
        let v: Vec<u32> = r.iter().map(|e| e.raw()).collect();
        assert_eq!(v, [3, 4, 5, 9, 10, 2, 3]);
        let mut b = EixRuns::default();
        b.extend_from_slice(&[3, 4, 5, 9, 10, 2, 3].map(Eix::from_raw));
        assert_eq!(b, r);
        b.extend_from_slice(&[3, 4, 8].map(Eix::from_raw));
        assert_eq!((b.runs(), b.len()), (5, 10));
        b.extend_from_slice(&[9].map(Eix::from_raw));
        assert_eq!((b.runs(), b.len()), (5, 11));
        let mut c = b.clone();
        b.extend_from_slice(&[10, 11, 12, 20, 21].map(Eix::from_raw));
        c.push_run(Eix::new(10), 3);
        c.push_run(Eix::new(20), 2);
        c.push_run(Eix::new(30), 0);
        assert_eq!(b, c);
        r.retain(|e| e.raw() != 4);
        let v: Vec<u32> = r.iter().map(|e| e.raw()).collect();
        assert_eq!(v, [3, 5, 9, 10, 2, 3]);
        assert_eq!(r.len(), 6);
        r.clear();
        assert!(r.is_empty());
    }
}
