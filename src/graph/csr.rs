//! Compressed sparse row adjacency.
//!
//! # Invariants
//! - `starts.len() == num_nodes + 1`, `starts[0] == 0`, `starts` is non-decreasing and
//!   `starts[num_nodes] == targets.len()`.
//! - every target is `< num_nodes`.

use super::{DirectedGraph, Successors};

/// Compressed sparse row adjacency: the successors of node `n` are
/// `targets[starts[n]..starts[n + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    /// Offsets into `targets`, one per node plus one.
    pub starts: Vec<u32>,
    /// Edge targets, grouped by source node.
    pub targets: Vec<u32>,
}

impl Csr {
    /// Builds CSR adjacency from `(source, target)` pairs. Edges keep their relative order
    /// per source (a stable counting sort), so DFS order follows input order.
    ///
    /// # Panics
    /// If an endpoint is `>= num_nodes`.
    pub fn from_edges(num_nodes: usize, edges: &[(u32, u32)]) -> Csr {
        Csr::counting_sort(num_nodes, edges, Some(num_nodes))
    }

    /// Groups `(row, value)` pairs into rows `0..num_rows`, stably, with values of another
    /// index space (a bipartite table such as loop → blocks): only rows are range-checked.
    ///
    /// # Panics
    /// If a row is `>= num_rows`.
    pub fn group(num_rows: usize, pairs: &[(u32, u32)]) -> Csr {
        Csr::counting_sort(num_rows, pairs, None)
    }

    fn counting_sort(num_rows: usize, pairs: &[(u32, u32)], bound: Option<usize>) -> Csr {
        let mut c = Csr::default();
        c.fill_grouped(num_rows, pairs.iter().copied(), &mut Vec::new(), bound);
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
        I: Iterator<Item = (u32, u32)> + Clone,
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
        I: Iterator<Item = (u32, u32)> + Clone,
    {
        let starts = &mut self.starts;
        starts.clear();
        starts.resize(num_rows + 1, 0);
        for (s, t) in pairs.clone() {
            assert!(
                (s as usize) < num_rows && bound.is_none_or(|n| (t as usize) < n),
                "edge {s}->{t} out of range"
            );
            starts[s as usize + 1] += 1;
        }
        for i in 0..num_rows {
            starts[i + 1] += starts[i];
        }
        fill.clear();
        fill.extend_from_slice(&starts[..num_rows]);
        self.targets.clear();
        self.targets.resize(starts[num_rows] as usize, 0);
        for (s, t) in pairs {
            self.targets[fill[s as usize] as usize] = t;
            fill[s as usize] += 1;
        }
    }

    /// The reverse graph (predecessor lists), each list in increasing source order.
    pub fn transpose(&self) -> Csr {
        let n = self.num_nodes();
        let mut edges = Vec::with_capacity(self.targets.len());
        for s in 0..n as u32 {
            for &t in self.successors(s) {
                edges.push((t, s));
            }
        }
        Csr::from_edges(n, &edges)
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.targets.len()
    }
}

impl DirectedGraph for Csr {
    fn num_nodes(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

impl Successors for Csr {
    #[inline]
    fn successors(&self, node: u32) -> &[u32] {
        let s = self.starts[node as usize] as usize;
        let e = self.starts[node as usize + 1] as usize;
        &self.targets[s..e]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_edges_keeps_order_and_transposes() {
        let g = Csr::from_edges(3, &[(0, 2), (0, 1), (1, 2)]);
        assert_eq!(g.successors(0), &[2, 1]);
        assert_eq!(g.successors(2), &[] as &[u32]);
        let t = g.transpose();
        assert_eq!(t.successors(2), &[0, 1]);
    }
}
