//! Compressed sparse row adjacency.
//!
//! `Csr<N>` is a graph over nodes `N` (successor lists); `Csr<R, V>` with two index types
//! is a bipartite table (rows `R`, values `V`: a loop's blocks, an SCC's nodes).
//!
//! # Invariants
//! - `starts.len() == num_rows + 1`, `starts[0] == 0`, `starts` is non-decreasing and
//!   `starts[num_rows] == targets.len()`.
//! - for a graph (`R == V`, built by [`Csr::from_edges`]) every target is `< num_rows`.

use super::{DirectedGraph, Successors};
use crate::idx::Idx;

/// Compressed sparse row adjacency: row `r`'s values are
/// `targets[starts[r]..starts[r + 1]]` (the successors of node `r` in a graph).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr<R: Idx = u32, V: Idx = R> {
    /// Offsets into `targets`, one per row plus one (positions, not indices).
    pub starts: Vec<u32>,
    /// Values (edge targets), grouped by row.
    pub targets: Vec<V>,
    _rows: std::marker::PhantomData<fn(R)>,
}

impl<R: Idx, V: Idx> Default for Csr<R, V> {
    fn default() -> Self {
        Csr::from_raw(Vec::new(), Vec::new())
    }
}

impl<N: Idx> Csr<N, N> {
    /// Builds CSR adjacency from `(source, target)` pairs. Edges keep their relative order
    /// per source (a stable counting sort), so DFS order follows input order.
    ///
    /// # Panics
    /// If an endpoint is `>= num_nodes`.
    pub fn from_edges(num_nodes: usize, edges: &[(N, N)]) -> Self {
        let mut c = Csr::default();
        c.fill_grouped(
            num_nodes,
            edges.iter().copied(),
            &mut Vec::new(),
            Some(num_nodes),
        );
        c
    }

    /// The reverse graph (predecessor lists), each list in increasing source order.
    pub fn transpose(&self) -> Self {
        let n = self.num_rows();
        let mut edges = Vec::with_capacity(self.targets.len());
        for s in (0..n).map(N::new) {
            for &t in self.row(s) {
                edges.push((t, s));
            }
        }
        Csr::from_edges(n, &edges)
    }
}

impl<R: Idx, V: Idx> Csr<R, V> {
    /// A table from its raw parts (see the module invariants; not checked here).
    pub fn from_raw(starts: Vec<u32>, targets: Vec<V>) -> Self {
        Csr {
            starts,
            targets,
            _rows: std::marker::PhantomData,
        }
    }

    /// An empty table with zero rows (`starts == [0]`), ready for [`Csr::push_row`].
    pub fn with_no_rows() -> Self {
        Csr::from_raw(vec![0], Vec::new())
    }

    /// Groups `(row, value)` pairs into rows `0..num_rows`, stably: only rows are
    /// range-checked (values belong to another index space).
    ///
    /// # Panics
    /// If a row is `>= num_rows`.
    pub fn group(num_rows: usize, pairs: &[(R, V)]) -> Self {
        let mut c = Csr::default();
        c.fill_grouped(num_rows, pairs.iter().copied(), &mut Vec::new(), None);
        c
    }

    /// [`Csr::group`] in place: this table's buffers are reused and `fill` is scratch, so
    /// a table rebuilt over and over (a dominator tree's children) allocates nothing once
    /// warm. The pairs are walked twice.
    ///
    /// # Panics
    /// If a row is `>= num_rows`.
    pub fn regroup<I>(&mut self, num_rows: usize, pairs: I, fill: &mut Vec<u32>)
    where
        I: Iterator<Item = (R, V)> + Clone,
    {
        self.fill_grouped(num_rows, pairs, fill, None);
    }

    /// The stable counting sort behind every constructor; `bound` range-checks values.
    fn fill_grouped<I>(
        &mut self,
        num_rows: usize,
        pairs: I,
        fill: &mut Vec<u32>,
        bound: Option<usize>,
    ) where
        I: Iterator<Item = (R, V)> + Clone,
    {
        let starts = &mut self.starts;
        starts.clear();
        starts.resize(num_rows + 1, 0);
        for (s, t) in pairs.clone() {
            assert!(
                s.idx() < num_rows && bound.is_none_or(|n| t.idx() < n),
                "edge {s:?}->{t:?} out of range"
            );
            starts[s.idx() + 1] += 1;
        }
        for i in 0..num_rows {
            starts[i + 1] += starts[i];
        }
        fill.clear();
        fill.extend_from_slice(&starts[..num_rows]);
        self.targets.clear();
        self.targets.resize(starts[num_rows] as usize, V::NONE);
        for (s, t) in pairs {
            self.targets[fill[s.idx()] as usize] = t;
            fill[s.idx()] += 1;
        }
    }

    /// Appends a row holding `values` (the table must have been started with
    /// [`Csr::with_no_rows`] or built by a constructor). Returns the new row.
    pub fn push_row(&mut self, values: impl IntoIterator<Item = V>) -> R {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let r = R::new(self.starts.len() - 1);
        self.targets.extend(values);
        self.starts.push(self.targets.len() as u32);
        r
    }

    /// Row `r`'s values (a node's successors in a graph).
    #[inline]
    pub fn row(&self, r: R) -> &[V] {
        let s = self.starts[r.idx()] as usize;
        let e = self.starts[r.idx() + 1] as usize;
        &self.targets[s..e]
    }

    /// Number of rows (nodes of a graph).
    pub fn num_rows(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Every row index, in order.
    pub fn rows(&self) -> impl DoubleEndedIterator<Item = R> + ExactSizeIterator {
        (0..self.num_rows()).map(R::new)
    }

    /// Number of values (edges of a graph).
    pub fn num_edges(&self) -> usize {
        self.targets.len()
    }

    /// Removes every row (keeps the buffers).
    pub fn clear(&mut self) {
        self.starts.clear();
        self.targets.clear();
    }
}

impl<N: Idx> DirectedGraph for Csr<N, N> {
    type Node = N;
    fn num_nodes(&self) -> usize {
        self.num_rows()
    }
}

impl<N: Idx> Successors for Csr<N, N> {
    #[inline]
    fn successors(&self, node: N) -> &[N] {
        self.row(node)
    }
    #[inline]
    fn prefetch_successors(&self, node: N) {
        if let Some(s) = self.starts.get(node.idx()) {
            super::tarjan::prefetch(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_edges_keeps_order_and_transposes() {
        let g: Csr = Csr::from_edges(3, &[(0, 2), (0, 1), (1, 2)]);
        assert_eq!(g.successors(0), &[2, 1]);
        assert_eq!(g.successors(2), &[] as &[u32]);
        let t = g.transpose();
        assert_eq!(t.successors(2), &[0, 1]);
        let mut b: Csr<u32, u32> = Csr::with_no_rows();
        assert_eq!(b.push_row([7, 8]), 0);
        assert_eq!(b.push_row([]), 1);
        assert_eq!((b.row(0), b.num_rows()), (&[7, 8][..], 2));
    }
}
